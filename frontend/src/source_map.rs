//! The source map: every file a compilation reads, in one offset space.
//!
//! A [`Span`] is a pair of byte offsets. With one file they are offsets into
//! its text; with `#include`, each file read gets its own range of one
//! global offset space, as in rustc: the main file first, at base 0, then
//! each included file after the last one, in the order they are read. A
//! span then still fits in two `u32`s, tokens of different files still
//! order by where they were read, and every stage after the preprocessor
//! (the parser, the checker, the IR's source spans, the passes'
//! diagnostics) keeps its spans as they are; only rendering asks the map
//! which file, line and column an offset is.
//!
//! Files are one byte apart (a file's end offset, where "expected `;`
//! at end of file" points, belongs to it and not to the next file).

use std::sync::Arc;

use crate::diag::Span;

/// One file of a [`SourceMap`]: its name as shown in diagnostics, its
/// text, where it starts in the global offset space, and the `#include`
/// that read it.
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: String,
    text: Arc<str>,
    base: u32,
    /// The `#include` directive that read this file (a span in the
    /// including file); `None` for the main file and for a file of
    /// `-include` (the command line includes it).
    included_at: Option<Span>,
    /// Whether the command line included this file (`-include FILE`).
    pre_included: bool,
}

impl SourceFile {
    /// The name diagnostics show: the path as it was found (`inc/a.h`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file's text, shared (the preprocessor holds the current file's
    /// while it adds files to the map).
    pub(crate) fn shared_text(&self) -> Arc<str> {
        Arc::clone(&self.text)
    }

    /// The global offset of the file's first byte.
    pub fn base(&self) -> u32 {
        self.base
    }

    /// The global offset just past the file's last byte.
    pub fn end(&self) -> u32 {
        u32::try_from(u64::from(self.base) + self.text.len() as u64).unwrap_or(u32::MAX)
    }

    /// The `#include` directive that read this file, if one did.
    pub fn included_at(&self) -> Option<Span> {
        self.included_at
    }
}

/// The files of one compilation (see the module documentation).
#[derive(Clone, Debug)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

/// The index of a file in its [`SourceMap`] (the main file is 0).
pub type FileIndex = usize;

/// The global offset space is full: the files together pass 4 GiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge;

impl SourceMap {
    /// A map holding the main file, `name` with `text`, at base 0 (a text
    /// over 4 GiB the frontend rejects, E0010, before reading it).
    pub fn new(name: &str, text: &str) -> SourceMap {
        SourceMap {
            files: vec![SourceFile {
                name: name.to_string(),
                text: Arc::from(text),
                base: 0,
                included_at: None,
                pre_included: false,
            }],
        }
    }

    /// Adds a file read by the `#include` at `included_at` (`None`: by
    /// `-include` on the command line), after the last file.
    pub fn add(
        &mut self,
        name: &str,
        text: &str,
        included_at: Option<Span>,
    ) -> Result<FileIndex, TooLarge> {
        let last = self
            .files
            .last()
            .map_or(0, |f| u64::from(f.base) + f.text.len() as u64 + 1);
        if last + text.len() as u64 >= u64::from(u32::MAX) {
            return Err(TooLarge);
        }
        self.files.push(SourceFile {
            name: name.to_string(),
            text: Arc::from(text),
            base: last as u32,
            included_at,
            pre_included: included_at.is_none(),
        });
        Ok(self.files.len() - 1)
    }

    /// Every file, the main one first, in the order they were read.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// File `index`.
    pub fn file(&self, index: FileIndex) -> &SourceFile {
        &self.files[index]
    }

    /// The main file (the one given to the compiler).
    pub fn main(&self) -> &SourceFile {
        &self.files[0]
    }

    /// The file holding global offset `offset` (a file's end offset is
    /// its own; an offset past every file is the last file's).
    pub fn index_of(&self, offset: u32) -> FileIndex {
        self.files
            .partition_point(|f| f.base <= offset)
            .saturating_sub(1)
    }

    /// The file holding `offset`.
    pub fn file_of(&self, offset: u32) -> &SourceFile {
        &self.files[self.index_of(offset)]
    }

    /// `span` as a byte range of its file's text (the file of its start),
    /// clamped to the text.
    pub fn local_range(&self, span: Span) -> (FileIndex, std::ops::Range<usize>) {
        let index = self.index_of(span.start);
        let file = &self.files[index];
        let len = file.text.len();
        let start = (span.start.saturating_sub(file.base) as usize).min(len);
        let end = (span.end.saturating_sub(file.base) as usize)
            .min(len)
            .max(start);
        (index, start..end)
    }

    /// The text `span` covers (empty when it crosses files or is out of
    /// bounds).
    pub fn slice(&self, span: Span) -> &str {
        let (index, range) = self.local_range(span);
        self.files[index].text.get(range).unwrap_or("")
    }

    /// The file name, line and column (both from 1, the column in bytes)
    /// of `offset`.
    pub fn position(&self, offset: u32) -> (&str, usize, usize) {
        let file = self.file_of(offset);
        let local = (offset.saturating_sub(file.base) as usize).min(file.text.len());
        let upto = &file.text.as_bytes()[..local];
        let line = 1 + upto.iter().filter(|&&b| b == b'\n').count();
        let col = local - upto.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        (&file.name, line, col)
    }

    /// `name:line:col` of `offset`.
    pub fn position_text(&self, offset: u32) -> String {
        let (name, line, col) = self.position(offset);
        format!("{name}:{line}:{col}")
    }

    /// The include chain of the file holding `offset`, innermost first, as
    /// notes: `in file included from a.cu:3` (and `from the command line
    /// (-include)` for a pre-included file). Empty in the main file. A
    /// chain longer than [`MAX_CHAIN_NOTES`] is cut in the middle.
    pub fn include_chain(&self, offset: u32) -> Vec<String> {
        let mut chain = Vec::new();
        let mut file = self.file_of(offset);
        loop {
            match file.included_at {
                Some(at) => {
                    let (name, line, _) = self.position(at.start);
                    chain.push(format!("in file included from {name}:{line}"));
                    file = self.file_of(at.start);
                }
                None if file.pre_included => {
                    chain.push("in file included from the command line (-include)".to_string());
                    break;
                }
                None => break,
            }
        }
        if chain.len() > MAX_CHAIN_NOTES {
            let cut = chain.len() - MAX_CHAIN_NOTES;
            let keep = MAX_CHAIN_NOTES / 2;
            chain.splice(keep..keep + cut, [format!("... {cut} more includes ...")]);
        }
        chain
    }
}

/// The most include-chain notes a diagnostic shows (a chain 200 deep is
/// shown as its first and last ten links).
pub const MAX_CHAIN_NOTES: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> SourceMap {
        let mut map = SourceMap::new("a.cu", "int a;\n#include \"b.h\"\nint c;\n");
        let at = Span::new(7, 21);
        map.add("inc/b.h", "// b\nint b;", Some(at)).unwrap();
        map.add("c.h", "x", None).unwrap();
        map
    }

    #[test]
    fn files_get_disjoint_ranges_one_byte_apart() {
        let map = map();
        let bases: Vec<(u32, u32)> = map.files().iter().map(|f| (f.base(), f.end())).collect();
        assert_eq!(bases, [(0, 29), (30, 41), (42, 43)]);
        // A file's end offset is its own.
        assert_eq!(map.index_of(29), 0);
        assert_eq!(map.index_of(30), 1);
        assert_eq!(map.index_of(41), 1);
        assert_eq!(map.index_of(42), 2);
        assert_eq!(map.index_of(u32::MAX), 2);
    }

    #[test]
    fn positions_are_per_file() {
        let map = map();
        assert_eq!(map.position(0), ("a.cu", 1, 1));
        assert_eq!(map.position(9), ("a.cu", 2, 3));
        assert_eq!(map.position(35), ("inc/b.h", 2, 1));
        assert_eq!(map.position_text(39), "inc/b.h:2:5");
        assert_eq!(map.slice(Span::new(35, 41)), "int b;");
        assert_eq!(map.local_range(Span::new(35, 41)), (1, 5..11));
    }

    #[test]
    fn the_include_chain_names_each_includer() {
        let map = map();
        assert!(map.include_chain(3).is_empty());
        assert_eq!(map.include_chain(35), ["in file included from a.cu:2"]);
        assert_eq!(
            map.include_chain(42),
            ["in file included from the command line (-include)"]
        );
    }

    #[test]
    fn a_long_chain_is_cut_in_the_middle() {
        let mut map = SourceMap::new("a.cu", "#include \"h\"\n");
        for i in 0..30 {
            let at = map.files().last().unwrap().base();
            map.add(
                &format!("h{i}"),
                "#include \"h\"\n",
                Some(Span::new(at, at + 12)),
            )
            .unwrap();
        }
        let chain = map.include_chain(map.files().last().unwrap().base());
        assert_eq!(chain.len(), MAX_CHAIN_NOTES + 1);
        assert_eq!(chain[0], "in file included from h28:1");
        assert_eq!(chain[MAX_CHAIN_NOTES / 2], "... 10 more includes ...");
        assert_eq!(chain.last().unwrap(), "in file included from a.cu:1");
    }
}
