//! Finding `#include` files, and the trait through which they are read.
//!
//! The frontend does no I/O: the caller hands it a [`FileLoader`], which
//! reads a file at a path or says there is none. The driver's reads the
//! file system; tests give [`MemoryFiles`]; [`NoFiles`] (what the
//! single-text entry points use) has none, so only kernelc's own headers
//! are found. Where to look is decided here, as nvcc (that is, GCC's
//! preprocessor) does:
//!
//! * `#include "x.h"`: the folder of the including file, then the `-I`
//!   folders in order, then kernelc's own headers (`"cuda.h"` finds
//!   `<cuda.h>` when no file of that name is found first);
//! * `#include <x.h>`: the `-I` folders, then kernelc's own headers, then
//!   the system's folders (`Options::system_include_dirs`), where a header
//!   is host code's and read as empty;
//! * `#include_next`: the `-I` folders after the one the current file was
//!   found in (all of them for a file found next to its includer), then
//!   kernelc's own headers; in the main file it is `#include`;
//! * an absolute path is read as it is.
//!
//! kernelc's own headers are tables of macros ([`crate::headers`]), never
//! files, so they come last: a program's own `-I` folder can hold a
//! `math.h` of its own, as with nvcc.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// A file a [`FileLoader`] read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedFile {
    /// The file's text.
    pub text: String,
    /// What makes two paths the same file (for `#pragma once`): the
    /// driver's loader gives the canonical path, so `a/../b.h` and `b.h`
    /// are one file.
    pub identity: String,
}

/// Reads the files `#include` names (see the module documentation). The
/// one door through which the frontend sees files.
pub trait FileLoader {
    /// The file at `path` (relative paths are relative to wherever the
    /// caller's compilation runs); `Ok(None)` when there is no file there
    /// (a folder is none either); `Err` with the reason when there is one
    /// that cannot be read.
    fn load(&self, path: &Path) -> Result<Option<LoadedFile>, String>;
}

/// A loader with no files: only kernelc's own headers can be included.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl FileLoader for NoFiles {
    fn load(&self, _: &Path) -> Result<Option<LoadedFile>, String> {
        Ok(None)
    }
}

/// Files held in memory, by path (for tests and for tools that have the
/// files at hand). Paths are compared with `.` and `a/..` taken out, so
/// `dir/../x.h` finds `x.h`.
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    files: BTreeMap<PathBuf, String>,
}

impl MemoryFiles {
    /// An empty set of files.
    pub fn new() -> MemoryFiles {
        MemoryFiles::default()
    }

    /// Adds (or replaces) the file at `path`.
    pub fn with(mut self, path: &str, text: &str) -> MemoryFiles {
        self.files
            .insert(normalize(Path::new(path)), text.to_string());
        self
    }
}

impl FileLoader for MemoryFiles {
    fn load(&self, path: &Path) -> Result<Option<LoadedFile>, String> {
        let key = normalize(path);
        Ok(self.files.get(&key).map(|text| LoadedFile {
            text: text.clone(),
            identity: key.display().to_string(),
        }))
    }
}

/// `path` with `.` left out and `x/..` folded, lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Where a file was found, for `#include_next`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FoundIn {
    /// The main file, a `-include` file, or an absolute path: not by a
    /// search, so `#include_next` searches as `#include`.
    NoSearch,
    /// The including file's folder (quoted includes only).
    IncluderDir,
    /// The `-I` folder of this index.
    IncludeDir(usize),
}

/// One place to look for an included file, in search order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub path: PathBuf,
    pub found_in: FoundIn,
}

/// What an include directive asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Request<'a> {
    /// The name between the quotes or the angle brackets.
    pub name: &'a str,
    /// `<name>` rather than `"name"`.
    pub angled: bool,
    /// `#include_next` (or `__has_include_next`).
    pub next: bool,
}

/// The paths to try for `req`, in order, from a file named `includer`
/// that was found as `includer_found` (kernelc's own headers come after
/// them all).
pub(crate) fn candidates(
    req: Request<'_>,
    includer: &str,
    includer_found: FoundIn,
    include_dirs: &[String],
) -> Vec<Candidate> {
    let name = Path::new(req.name);
    if name.is_absolute() {
        return vec![Candidate {
            path: name.to_path_buf(),
            found_in: FoundIn::NoSearch,
        }];
    }
    let next_from = match (req.next, includer_found) {
        (true, FoundIn::IncludeDir(i)) => Some(i + 1),
        (true, FoundIn::IncluderDir) => Some(0),
        _ => None,
    };
    let mut out = Vec::new();
    if !req.angled && next_from.is_none() {
        let dir = Path::new(includer).parent().unwrap_or(Path::new(""));
        out.push(Candidate {
            path: dir.join(name),
            found_in: FoundIn::IncluderDir,
        });
    }
    let first = next_from.unwrap_or(0);
    for (i, dir) in include_dirs.iter().enumerate().skip(first) {
        out.push(Candidate {
            path: Path::new(dir).join(name),
            found_in: FoundIn::IncludeDir(i),
        });
    }
    out
}

/// The deepest `#include` nesting, as GCC's: past it, an include is an
/// error (E0014), which is what an include cycle without guards meets.
pub const MAX_INCLUDE_DEPTH: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(c: &[Candidate]) -> Vec<String> {
        c.iter().map(|c| c.path.display().to_string()).collect()
    }

    #[test]
    fn quoted_searches_the_includer_folder_first() {
        let req = Request {
            name: "x.h",
            angled: false,
            next: false,
        };
        let dirs = ["i1".to_string(), "i2".to_string()];
        let c = candidates(req, "src/a.cu", FoundIn::NoSearch, &dirs);
        assert_eq!(paths(&c), ["src/x.h", "i1/x.h", "i2/x.h"]);
        let c = candidates(req, "a.cu", FoundIn::NoSearch, &dirs);
        assert_eq!(paths(&c), ["x.h", "i1/x.h", "i2/x.h"]);
    }

    #[test]
    fn angled_and_next_search_the_include_folders() {
        let dirs = ["i1".to_string(), "i2".to_string(), "i3".to_string()];
        let angled = Request {
            name: "x.h",
            angled: true,
            next: false,
        };
        let c = candidates(angled, "a.cu", FoundIn::NoSearch, &dirs);
        assert_eq!(paths(&c), ["i1/x.h", "i2/x.h", "i3/x.h"]);
        let next = Request {
            next: true,
            ..angled
        };
        let c = candidates(next, "i2/x.h", FoundIn::IncludeDir(1), &dirs);
        assert_eq!(paths(&c), ["i3/x.h"]);
        let c = candidates(next, "x.h", FoundIn::IncluderDir, &dirs);
        assert_eq!(paths(&c), ["i1/x.h", "i2/x.h", "i3/x.h"]);
        // In the main file, `#include_next` is `#include`.
        let quoted_next = Request {
            angled: false,
            ..next
        };
        let c = candidates(quoted_next, "a.cu", FoundIn::NoSearch, &dirs);
        assert_eq!(paths(&c), ["x.h", "i1/x.h", "i2/x.h", "i3/x.h"]);
    }

    #[test]
    fn memory_files_normalize_paths() {
        let files = MemoryFiles::new().with("inc/x.h", "int x;");
        let got = files.load(Path::new("src/../inc/./x.h")).unwrap().unwrap();
        assert_eq!(got.text, "int x;");
        assert_eq!(got.identity, "inc/x.h");
        assert_eq!(files.load(Path::new("x.h")), Ok(None));
    }
}
