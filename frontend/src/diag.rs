//! Source spans, diagnostics, and their rendering.
//!
//! Every user-facing error is a [`Diagnostic`] pointing at a byte range of the
//! original source text, so that the driver can show a snippet with a caret.
//! Rendering uses `codespan-reporting` without colours so that output is
//! deterministic and testable.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

/// A half-open byte range `start..end` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// One message for the user, anchored at a primary span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Where the problem is (rendered with `^^^`).
    pub span: Span,
    /// Secondary locations with an explanation each (rendered with `---`).
    pub labels: Vec<(Span, String)>,
    /// Free-form notes shown after the snippet.
    pub notes: Vec<String>,
    /// The stable code of this kind of diagnostic (`E0001`, `W0002`; see
    /// `codes.rs`), shown as `error[E0001]`. Stages fill it in when the
    /// site that made the diagnostic did not.
    pub code: Option<&'static str>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            code: None,
        }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push((span, message.into()));
        self
    }

    /// Sets the code (`E0001`, `W0002`, ...).
    pub fn with_code(mut self, code: &'static str) -> Diagnostic {
        self.code = Some(code);
        self
    }

    /// Whether this is an error (warnings and notes do not fail a build).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// Sorts diagnostics by position (stable, so same-position order is kept)
/// and removes exact duplicates.
pub(crate) fn sort_diagnostics(diags: &mut Vec<Diagnostic>) {
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    diags.dedup();
}

/// Clamps a span to the text and to UTF-8 character boundaries, so that
/// rendering can never fail on a malformed span.
fn clamp(source: &str, span: Span) -> std::ops::Range<usize> {
    let len = source.len();
    let mut start = (span.start as usize).min(len);
    let mut end = (span.end as usize).min(len).max(start);
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    while !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Renders diagnostics as plain text with source snippets.
pub fn render_diagnostics(file_name: &str, source: &str, diags: &[Diagnostic]) -> String {
    let file = SimpleFile::new(file_name, source);
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let base = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
            Severity::Note => CsDiagnostic::note(),
        };
        let mut labels = vec![Label::primary((), clamp(source, d.span))];
        labels.extend(
            d.labels
                .iter()
                .map(|(s, m)| Label::secondary((), clamp(source, *s)).with_message(m.clone())),
        );
        let base = match d.code {
            Some(c) => base.with_code(c),
            None => base,
        };
        let cs = base
            .with_message(d.message.clone())
            .with_labels(labels)
            .with_notes(d.notes.clone());
        match term::emit_into_string(&config, &file, &cs) {
            Ok(text) => out.push_str(&text),
            Err(_) => {
                // Fall back to a snippet-less line rather than losing the error.
                let code = d.code.map(|c| format!("[{c}]")).unwrap_or_default();
                out.push_str(&format!(
                    "error{code}: {} ({}:{}..{})\n",
                    d.message, file_name, d.span.start, d.span.end
                ));
            }
        }
    }
    out
}
