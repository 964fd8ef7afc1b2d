//! Line information (`-lineinfo`): the `.loc` and `.file` directives that
//! tie each PTX instruction to the source line it came from, as nvcc
//! writes them with `-lineinfo`.
//!
//! The backend knows no source text. The driver gives it a [`SourceLines`]:
//! for each file of the compilation, the path `.file` prints, where the
//! file lies in the global offset space of the IR's spans, and where each
//! of its lines starts. Selection puts a [`crate::minst::MInst::Loc`]
//! marker with the IR instruction's span before the machine instructions
//! selected for it; the writer turns a marker into `.loc FILE LINE COLUMN`
//! when the position differs from the last one printed in the function,
//! numbers the files in the order they are first named, and lists them
//! (`.file N "path"`) after the last function, where nvcc puts them.
//! nvcc's other lines of `-lineinfo` (`function_name` and `inlined_at`
//! for inlined calls, with a `.debug_str` section of names) need the call
//! site of each inlined instruction, which the IR does not keep: an
//! inlined instruction's `.loc` names the callee's line, without the call.

use core::fmt::Write;
use midend::ir::SourceSpan;

/// One source file as `.file` names it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LineFile {
    /// The path `.file` prints.
    pub path: String,
    /// The file's first byte in the offset space of the spans.
    pub base: u32,
    /// The file's length in bytes.
    pub len: u32,
    /// The offset (from `base`) of the first byte of each line.
    line_starts: Vec<u32>,
}

/// The files of a compilation, in the order of their bases.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct SourceLines {
    files: Vec<LineFile>,
}

/// A position: the file's index in [`SourceLines`], and the line and
/// byte column, both from 1.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Position {
    pub file: usize,
    pub line: u32,
    pub column: u32,
}

impl SourceLines {
    pub fn new() -> SourceLines {
        SourceLines::default()
    }

    /// Adds a file whose text starts at `base`; files must be added in
    /// the order of their bases (a source map's order).
    pub fn add_file(&mut self, path: &str, base: u32, text: &str) {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        self.files.push(LineFile {
            path: path.to_string(),
            base,
            len: u32::try_from(text.len()).unwrap_or(u32::MAX),
            line_starts,
        });
    }

    pub fn files(&self) -> &[LineFile] {
        &self.files
    }

    /// Where `offset` lies, or `None` when no file holds it (a span of IR
    /// text read without its source).
    pub fn locate(&self, offset: u32) -> Option<Position> {
        let index = self.files.partition_point(|f| f.base <= offset);
        let file_index = index.checked_sub(1)?;
        let file = &self.files[file_index];
        let local = offset - file.base;
        if local >= file.len {
            return None;
        }
        let line = file.line_starts.partition_point(|&s| s <= local);
        let column = local - file.line_starts[line - 1] + 1;
        Some(Position {
            file: file_index,
            line: line as u32,
            column,
        })
    }
}

/// The writer's state over one module: the file numbers given so far and
/// the last position printed in the current function.
pub struct LocWriter<'a> {
    lines: &'a SourceLines,
    /// `.file` numbers (from 1) by file index, in the order first named.
    numbers: Vec<Option<u32>>,
    named: Vec<usize>,
    last: Option<Position>,
}

impl<'a> LocWriter<'a> {
    pub fn new(lines: &'a SourceLines) -> LocWriter<'a> {
        LocWriter {
            lines,
            numbers: vec![None; lines.files.len()],
            named: Vec::new(),
            last: None,
        }
    }

    /// A new function starts: its first located instruction gets a `.loc`.
    pub fn start_function(&mut self) {
        self.last = None;
    }

    /// Prints `.loc` for an instruction at `span` when its position is
    /// known and differs from the last one printed.
    pub fn write_loc(&mut self, out: &mut String, span: SourceSpan) {
        let Some(pos) = self.lines.locate(span.start) else {
            return;
        };
        if self.last == Some(pos) {
            return;
        }
        self.last = Some(pos);
        let number = match self.numbers[pos.file] {
            Some(n) => n,
            None => {
                self.named.push(pos.file);
                let n = self.named.len() as u32;
                self.numbers[pos.file] = Some(n);
                n
            }
        };
        let _ = writeln!(out, "\t.loc\t{number} {} {}", pos.line, pos.column);
    }

    /// Prints the `.file` line of every file a `.loc` named, by number.
    pub fn write_files(&self, out: &mut String) {
        if self.named.is_empty() {
            return;
        }
        out.push('\n');
        for (k, &file) in self.named.iter().enumerate() {
            let path = &self.lines.files[file].path;
            let _ = writeln!(out, "\t.file\t{} \"{}\"", k + 1, escape(path));
        }
    }
}

/// A path as a PTX string: `"` and `\` escaped.
fn escape(path: &str) -> String {
    let mut s = String::with_capacity(path.len());
    for c in path.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns_of_their_file() {
        let mut lines = SourceLines::new();
        lines.add_file("/a.cu", 0, "ab\ncd\n");
        lines.add_file("/b.h", 7, "x\n");
        let at = |o| lines.locate(o).map(|p| (p.file, p.line, p.column));
        assert_eq!(at(0), Some((0, 1, 1)));
        assert_eq!(at(4), Some((0, 2, 2)));
        assert_eq!(at(6), None, "the byte between two files");
        assert_eq!(at(7), Some((1, 1, 1)));
        assert_eq!(at(9), None);
    }

    #[test]
    fn files_are_numbered_as_first_named_and_repeats_are_not_printed() {
        let mut lines = SourceLines::new();
        lines.add_file("/a \"b\".cu", 0, "ab\ncd\n");
        lines.add_file("/b.h", 7, "x\n");
        let mut w = LocWriter::new(&lines);
        let mut out = String::new();
        w.write_loc(&mut out, SourceSpan::new(7, 8));
        w.write_loc(&mut out, SourceSpan::new(7, 8));
        w.write_loc(&mut out, SourceSpan::new(3, 4));
        w.write_files(&mut out);
        assert_eq!(
            out,
            "\t.loc\t1 1 1\n\t.loc\t2 2 1\n\n\t.file\t1 \"/b.h\"\n\t.file\t2 \"/a \\\"b\\\".cu\"\n"
        );
    }
}
