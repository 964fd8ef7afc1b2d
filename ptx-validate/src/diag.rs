//! Diagnostics, and their two renderings.
//!
//! The ptxas form (`file, line N; error   : msg`, three spaces after the
//! severity) exists so that scripts and editors that already understand
//! ptxas keep working, and so the agreement test can compare like with
//! like. The rendered form quotes the source line with a caret, for people.

use crate::lexer::Pos;
use std::fmt::Write;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub severity: Severity,
    pub pos: Pos,
    pub msg: String,
}

impl Diag {
    pub fn error(pos: Pos, msg: String) -> Diag {
        Diag {
            severity: Severity::Error,
            pos,
            msg,
        }
    }
    pub fn warning(pos: Pos, msg: String) -> Diag {
        Diag {
            severity: Severity::Warning,
            pos,
            msg,
        }
    }
    fn label(&self) -> &'static str {
        match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    /// `file, line N; error   : msg`, exactly as ptxas spells it.
    pub fn ptxas_form(&self, file: &str) -> String {
        format!(
            "{file}, line {}; {:<8}: {}",
            self.pos.line,
            self.label(),
            self.msg
        )
    }

    /// The message, the location, the source line and a caret under the column.
    pub fn render(&self, file: &str, src: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}: {}", self.label(), self.msg);
        let _ = writeln!(out, "  --> {file}:{}:{}", self.pos.line, self.pos.col);
        let line_no = self.pos.line as usize;
        if let Some(text) = src.lines().nth(line_no.saturating_sub(1)) {
            let gutter = line_no.to_string().len();
            let _ = writeln!(out, "{:gutter$} |", "");
            let _ = writeln!(out, "{line_no} | {text}");
            // Tabs are kept so the caret lines up under tab-indented PTX.
            let lead: String = text
                .chars()
                .take((self.pos.col as usize).saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "{:gutter$} | {lead}^", "");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptxas_form_has_three_spaces_after_error() {
        let d = Diag::error(
            Pos {
                line: 7,
                col: 3,
                offset: 0,
            },
            "Unknown symbol '%x1'".into(),
        );
        assert_eq!(
            d.ptxas_form("k.ptx"),
            "k.ptx, line 7; error   : Unknown symbol '%x1'"
        );
        let r = d.render("k.ptx", "a\nb\n\tadd %x1;\n\n\n\n  mov %x1;\n");
        assert!(r.contains("7 |   mov %x1;"), "{r}");
        assert!(r.contains("  |   ^"), "{r}");
    }
}
