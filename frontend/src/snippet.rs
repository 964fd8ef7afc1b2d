//! Snippets of long lines: a window around the span, as rustc shows them.
//!
//! codespan-reporting prints every line a label touches in full. A span at
//! the end of a one-megabyte line (minified or generated code, a binary file
//! given by mistake) would print the megabyte, once per diagnostic. When a
//! diagnostic touches a line longer than [`LONG_LINE`], it is rendered from
//! an [`Excerpt`] instead: a small text holding only the lines it touches,
//! each long one cut to [`CONTEXT`] bytes around its labels with `...` where
//! text was left out, whose line and column numbers are those of the real
//! file. Output per diagnostic is then bounded whatever the input.

use std::ops::Range;

use codespan_reporting::files::{Error, Files};

/// Lines longer than this (in bytes) are shown as a window.
pub(crate) const LONG_LINE: usize = 200;

/// Bytes of a long line kept on each side of its labels.
const CONTEXT: usize = 60;

/// The longest part of a label shown on a long line; the rest of a long
/// span is left out of the snippet (its start is what locates it).
const MAX_LABEL: usize = 80;

/// Where text was cut.
const CUT: &str = "...";

/// Line starts of a source, computed once per rendering.
pub(crate) struct Lines<'s> {
    source: &'s str,
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    pub(crate) fn new(source: &'s str) -> Lines<'s> {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { source, starts }
    }

    /// The 0-based line of byte `b`.
    fn index(&self, b: usize) -> usize {
        self.starts.partition_point(|&s| s <= b).saturating_sub(1)
    }

    /// The bytes of line `i`, without its line break.
    fn range(&self, i: usize) -> Range<usize> {
        let start = self.starts[i];
        let end = self.starts.get(i + 1).map_or(self.source.len(), |&n| n - 1);
        start..end.max(start)
    }

    /// Whether any of `ranges` touches a line longer than [`LONG_LINE`].
    pub(crate) fn any_long(&self, ranges: &[Range<usize>]) -> bool {
        ranges.iter().any(|r| {
            [r.start, r.end]
                .iter()
                .any(|&b| self.range(self.index(b)).len() > LONG_LINE)
        })
    }
}

/// One shown line of an [`Excerpt`].
struct Shown {
    /// Where the line starts in the excerpt's text.
    at: usize,
    /// Its 0-based line in the real file.
    line: usize,
    /// The real bytes it shows (after `prefix` in the excerpt).
    real: Range<usize>,
    /// Bytes of the `...` put before it (0 when the line starts whole).
    prefix: usize,
}

/// The lines a diagnostic touches, long ones cut to a window, presented to
/// codespan-reporting as a file whose line and column numbers are the real
/// file's.
pub(crate) struct Excerpt<'a> {
    name: &'a str,
    source: &'a str,
    text: String,
    shown: Vec<Shown>,
}

impl<'a> Excerpt<'a> {
    /// The excerpt for labels at `ranges` (byte ranges into `lines`'
    /// source, on character boundaries), and the ranges mapped into it. A
    /// label keeps its first line only, and at most [`MAX_LABEL`] bytes of
    /// it.
    pub(crate) fn new(
        name: &'a str,
        lines: &Lines<'a>,
        ranges: &[Range<usize>],
    ) -> (Excerpt<'a>, Vec<Range<usize>>) {
        let source = lines.source;
        let clipped: Vec<(usize, Range<usize>)> = ranges
            .iter()
            .map(|r| {
                let line = lines.index(r.start);
                let end = r.end.min(lines.range(line).end).min(r.start + MAX_LABEL);
                (line, r.start..floor_char(source, end).max(r.start))
            })
            .collect();
        let mut line_ids: Vec<usize> = clipped.iter().map(|(l, _)| *l).collect();
        line_ids.sort_unstable();
        line_ids.dedup();
        let mut text = String::new();
        let mut shown = Vec::new();
        for line in line_ids {
            let whole = lines.range(line);
            let real = if whole.len() <= LONG_LINE {
                whole.clone()
            } else {
                let on_line = clipped.iter().filter(|(l, _)| *l == line);
                let lo = on_line
                    .clone()
                    .map(|(_, r)| r.start)
                    .min()
                    .unwrap_or(whole.start);
                let hi = on_line.map(|(_, r)| r.end).max().unwrap_or(whole.start);
                let start = floor_char(source, lo.saturating_sub(CONTEXT).max(whole.start));
                let end = ceil_char(source, (hi + CONTEXT).min(whole.end));
                start..end
            };
            let prefix = if real.start > whole.start {
                CUT.len()
            } else {
                0
            };
            let at = text.len();
            if prefix > 0 {
                text.push_str(CUT);
            }
            text.push_str(&source[real.clone()]);
            if real.end < whole.end {
                text.push_str(CUT);
            }
            text.push('\n');
            shown.push(Shown {
                at,
                line,
                real,
                prefix,
            });
        }
        let excerpt = Excerpt {
            name,
            source,
            text,
            shown,
        };
        let mapped = clipped
            .iter()
            .map(|(line, r)| excerpt.map(*line, r.start)..excerpt.map(*line, r.end))
            .collect();
        (excerpt, mapped)
    }

    /// Where real byte `b` of real line `line` (a shown one) is in the
    /// excerpt.
    fn map(&self, line: usize, b: usize) -> usize {
        self.shown.iter().find(|s| s.line == line).map_or(0, |s| {
            s.at + s.prefix + b.clamp(s.real.start, s.real.end) - s.real.start
        })
    }

    /// The shown line holding excerpt byte `b`.
    fn shown_at(&self, b: usize) -> usize {
        self.shown.partition_point(|s| s.at <= b).saturating_sub(1)
    }
}

impl<'f> Files<'f> for Excerpt<'_> {
    type FileId = ();
    type Name = &'f str;
    type Source = &'f str;

    fn name(&'f self, (): ()) -> Result<&'f str, Error> {
        Ok(self.name)
    }

    fn source(&'f self, (): ()) -> Result<&'f str, Error> {
        Ok(&self.text)
    }

    fn line_index(&'f self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(self.shown_at(byte_index))
    }

    fn line_number(&'f self, (): (), line_index: usize) -> Result<usize, Error> {
        let s = self.shown.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: self.shown.len(),
        })?;
        Ok(s.line + 1)
    }

    /// The real column: characters from the real line's start.
    fn column_number(
        &'f self,
        (): (),
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        let s = self.shown.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: self.shown.len(),
        })?;
        let real = (s.real.start + byte_index.saturating_sub(s.at + s.prefix)).min(s.real.end);
        let line_start = self.source[..s.real.start].rfind('\n').map_or(0, |i| i + 1);
        Ok(self.source[line_start..floor_char(self.source, real)]
            .chars()
            .count()
            + 1)
    }

    fn line_range(&'f self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        let s = self.shown.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: self.shown.len(),
        })?;
        let end = self
            .shown
            .get(line_index + 1)
            .map_or(self.text.len(), |n| n.at);
        Ok(s.at..end)
    }
}

/// The nearest character boundary at or before `b`.
fn floor_char(s: &str, mut b: usize) -> usize {
    b = b.min(s.len());
    while !s.is_char_boundary(b) {
        b -= 1;
    }
    b
}

/// The nearest character boundary at or after `b`.
fn ceil_char(s: &str, mut b: usize) -> usize {
    b = b.min(s.len());
    while !s.is_char_boundary(b) {
        b += 1;
    }
    b
}

/// `text` cut to `max` bytes (on a character boundary) with `...` after.
pub(crate) fn cut_text(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    format!("{}{CUT}", &text[..floor_char(text, max)]).into()
}
