//! Source spans, diagnostics, and their rendering.
//!
//! Every user-facing error is a [`Diagnostic`] pointing at a byte range of the
//! original source text, so that the driver can show a snippet with a caret.
//! Rendering uses `codespan-reporting` without colours so that output is
//! deterministic and testable.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use std::cell::OnceCell;

use codespan_reporting::files::{Error, Files, SimpleFile};
use codespan_reporting::term::{self, Config};

use crate::codes::Code;
use crate::snippet;
use crate::source_map::SourceMap;

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
    /// `codes.rs`), shown as `error[E0001]`. Every diagnostic of the
    /// frontend has one, given by the site that makes it; `None` only for
    /// those of later stages ([`Diagnostic::without_code`]).
    pub code: Option<Code>,
    /// Whether `span` points into the source. A diagnostic about the run
    /// as a whole (the error limit) has no place and is shown without a
    /// snippet.
    pub located: bool,
}

impl Diagnostic {
    /// An error of kind `code` at `span`.
    pub fn error(span: Span, code: Code, message: impl Into<String>) -> Diagnostic {
        debug_assert!(!code.is_warning(), "{code} is a warning's code");
        Diagnostic::without_code(Severity::Error, span, message).coded(code)
    }

    /// An error of kind `code` about the run as a whole, shown without a
    /// snippet.
    pub fn unlocated(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            located: false,
            ..Diagnostic::error(Span::default(), code, message)
        }
    }

    /// A warning of kind `code` at `span`.
    pub fn warning(span: Span, code: Code, message: impl Into<String>) -> Diagnostic {
        debug_assert!(code.is_warning(), "{code} is an error's code");
        Diagnostic::without_code(Severity::Warning, span, message).coded(code)
    }

    /// A diagnostic of a stage past the frontend (memory-space inference,
    /// the backend, a kernel fault), whose kinds have no codes yet; it is
    /// shown as `error: ...`. The frontend never makes one: its
    /// diagnostics are made by [`Diagnostic::error`] and
    /// [`Diagnostic::warning`], which take the code.
    pub fn without_code(severity: Severity, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            code: None,
            located: true,
        }
    }

    fn coded(self, code: Code) -> Diagnostic {
        Diagnostic {
            code: Some(code),
            ..self
        }
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push((span, message.into()));
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

/// Sorts diagnostics by position (stable, so same-position order is kept;
/// unlocated ones last) and removes exact duplicates.
pub(crate) fn sort_diagnostics(diags: &mut Vec<Diagnostic>) {
    diags.sort_by_key(|d| (!d.located, d.span.start, d.span.end));
    diags.dedup();
}

/// Whether `diags` hold more errors than `limit` allows (`0`: no limit).
/// Stages ask it as they go and stop reading, so a file of garbage costs
/// time and output for `limit` errors, not for all of them. Cheap while
/// there are fewer diagnostics than the limit.
pub(crate) fn over_error_limit(diags: &[Diagnostic], limit: usize) -> bool {
    limit != 0 && diags.len() > limit && diags.iter().filter(|d| d.is_error()).count() > limit
}

/// Keeps the first `limit` errors of sorted `diags` (and the warnings
/// before the last of them) and, if any were cut, ends the list with
/// E0015, which says so. `0` keeps everything.
pub(crate) fn apply_error_limit(diags: &mut Vec<Diagnostic>, limit: usize) {
    if limit == 0 {
        return;
    }
    let mut errors = 0;
    let cut = diags.iter().position(|d| {
        errors += usize::from(d.is_error());
        errors > limit
    });
    if let Some(cut) = cut {
        diags.truncate(cut);
        diags.push(
            Diagnostic::unlocated(
                Code::E0015,
                format!("too many errors ({limit}); stopping here"),
            )
            .with_note("`--error-limit N` changes the limit; `--error-limit 0` removes it"),
        );
    }
}

/// Clamps a byte range to the text and to UTF-8 character boundaries, so
/// that rendering can never fail on a malformed span.
fn clamp(source: &str, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let len = source.len();
    let mut start = range.start.min(len);
    let mut end = range.end.min(len).max(start);
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    while !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The longest message, label or note shown; longer ones (a message
/// quoting a megabyte-long token) are cut.
const MAX_TEXT: usize = 1000;

/// Renders diagnostics as plain text with source snippets, for a
/// compilation of the single text `source` named `file_name`. See
/// [`render_diagnostics_in`].
pub fn render_diagnostics(file_name: &str, source: &str, diags: &[Diagnostic]) -> String {
    render_diagnostics_in(&SourceMap::new(file_name, source), diags)
}

/// Renders diagnostics as plain text with source snippets, each in the file
/// of the [`SourceMap`] its span lies in; a diagnostic in an included file
/// ends with its include chain as notes. A diagnostic that touches a very
/// long line shows a window of it ([`snippet`]), so the output is bounded
/// per diagnostic whatever the input.
pub fn render_diagnostics_in(map: &SourceMap, diags: &[Diagnostic]) -> String {
    let files = MapFiles::new(map);
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let primary = if d.located {
            map.index_of(d.span.start)
        } else {
            0
        };
        let chain = if d.located {
            map.include_chain(d.span.start)
        } else {
            Vec::new()
        };
        let mut labels = Vec::new();
        if d.located {
            labels.push(map.local_range(d.span));
        }
        labels.extend(d.labels.iter().map(|(s, _)| map.local_range(*s)));
        let file = map.file(primary);
        let lines = files.lines(primary);
        let on_primary: Vec<std::ops::Range<usize>> = labels
            .iter()
            .filter(|(f, _)| *f == primary)
            .map(|(_, r)| clamp(file.text(), r.clone()))
            .collect();
        let rendered = if lines.any_long(&on_primary) {
            // A window of the primary file; labels in other files are
            // left out of it.
            let kept: Vec<bool> = labels.iter().map(|(f, _)| *f == primary).collect();
            let (excerpt, mapped) = snippet::Excerpt::new(file.name(), lines, &on_primary);
            let mut mapped = mapped.into_iter();
            let ranges = kept
                .iter()
                .map(|&k| k.then(|| ((), mapped.next().unwrap_or_default())));
            term::emit_into_string(&config, &excerpt, &codespan_diagnostic(d, ranges, &chain))
        } else {
            let ranges = labels
                .iter()
                .map(|(f, r)| Some((*f, clamp(map.file(*f).text(), r.clone()))));
            term::emit_into_string(&config, &files, &codespan_diagnostic(d, ranges, &chain))
        };
        match rendered {
            Ok(text) => out.push_str(&text),
            Err(_) => {
                // Fall back to a snippet-less line rather than losing the error.
                let code = d.code.map(|c| format!("[{c}]")).unwrap_or_default();
                out.push_str(&format!(
                    "error{code}: {} ({}:{}..{})\n",
                    snippet::cut_text(&d.message, MAX_TEXT),
                    file.name(),
                    d.span.start.saturating_sub(file.base()),
                    d.span.end.saturating_sub(file.base())
                ));
            }
        }
    }
    out
}

/// The files of a [`SourceMap`] for codespan-reporting, each file's line
/// table made when a diagnostic first shows it.
struct MapFiles<'m> {
    map: &'m SourceMap,
    simple: Vec<OnceCell<SimpleFile<&'m str, &'m str>>>,
    lines: Vec<OnceCell<snippet::Lines<'m>>>,
}

impl<'m> MapFiles<'m> {
    fn new(map: &'m SourceMap) -> MapFiles<'m> {
        let n = map.files().len();
        MapFiles {
            map,
            simple: (0..n).map(|_| OnceCell::new()).collect(),
            lines: (0..n).map(|_| OnceCell::new()).collect(),
        }
    }

    fn simple(&self, id: usize) -> Result<&SimpleFile<&'m str, &'m str>, Error> {
        let cell = self.simple.get(id).ok_or(Error::FileMissing)?;
        Ok(cell.get_or_init(|| {
            let f = self.map.file(id);
            SimpleFile::new(f.name(), f.text())
        }))
    }

    fn lines(&self, id: usize) -> &snippet::Lines<'m> {
        self.lines[id].get_or_init(|| snippet::Lines::new(self.map.file(id).text()))
    }
}

impl<'f> Files<'f> for MapFiles<'_> {
    type FileId = usize;
    type Name = &'f str;
    type Source = &'f str;

    fn name(&'f self, id: usize) -> Result<&'f str, Error> {
        Ok(self.simple(id)?.name())
    }

    fn source(&'f self, id: usize) -> Result<&'f str, Error> {
        Ok(self.simple(id)?.source())
    }

    fn line_index(&'f self, id: usize, byte_index: usize) -> Result<usize, Error> {
        self.simple(id)?.line_index((), byte_index)
    }

    fn line_range(&'f self, id: usize, line_index: usize) -> Result<std::ops::Range<usize>, Error> {
        self.simple(id)?.line_range((), line_index)
    }
}

/// `d` for codespan-reporting, its labels at `ranges` (the primary first
/// when it is located, then the secondary ones in order; `None` for a label
/// left out), its notes followed by `chain` (where its file was included).
fn codespan_diagnostic<F: Copy>(
    d: &Diagnostic,
    ranges: impl Iterator<Item = Option<(F, std::ops::Range<usize>)>>,
    chain: &[String],
) -> CsDiagnostic<F> {
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
        Severity::Note => CsDiagnostic::note(),
    };
    let mut ranges = ranges.into_iter();
    let mut labels = Vec::new();
    if d.located {
        if let Some(Some((f, r))) = ranges.next() {
            labels.push(Label::primary(f, r));
        }
    }
    labels.extend(d.labels.iter().zip(ranges).filter_map(|((_, m), r)| {
        let (f, r) = r?;
        Some(Label::secondary(f, r).with_message(snippet::cut_text(m, MAX_TEXT).into_owned()))
    }));
    let base = match d.code {
        Some(c) => base.with_code(c.as_str()),
        None => base,
    };
    base.with_message(snippet::cut_text(&d.message, MAX_TEXT).into_owned())
        .with_labels(labels)
        .with_notes(
            d.notes
                .iter()
                .map(|n| snippet::cut_text(n, MAX_TEXT).into_owned())
                .chain(chain.iter().cloned())
                .collect(),
        )
}
