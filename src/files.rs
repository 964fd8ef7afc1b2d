//! The file system as the frontend's [`FileLoader`]: how `#include` files
//! are read (the frontend decides where to look; `frontend/src/include.rs`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use frontend::{FileLoader, LoadedFile};

/// Reads included files from the file system. A file's identity (for
/// `#pragma once`) is its canonical path, so two spellings of one file are
/// one file. Bytes that are not UTF-8 are read as U+FFFD, as a comment in
/// Latin-1 should not stop a compile (nvcc reads them).
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl FileLoader for FsLoader {
    fn load(&self, path: &Path) -> Result<Option<LoadedFile>, String> {
        if !path.is_file() {
            return Ok(None);
        }
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        let identity = std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .display()
            .to_string();
        Ok(Some(LoadedFile { text, identity }))
    }
}

/// The folders where the host compiler (GCC, which nvcc runs) finds the
/// system's headers: GCC's own (`/usr/lib/gcc/<triple>/<n>/include`, where
/// `<immintrin.h>` is), `/usr/local/include`, the multiarch folder and
/// `/usr/include`. The frontend reads a header found only there as host
/// code's (`frontend::Options::system_include_dirs`). Not `$CPATH` and its
/// kin: GCC reads their folders as it reads `-I` ones, which may hold
/// device code, so a program that needs them passes them with `-I`. Read
/// once.
pub fn system_include_dirs() -> &'static [String] {
    static DIRS: OnceLock<Vec<String>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let mut dirs = gcc_include_dirs();
        dirs.push("/usr/local/include".into());
        dirs.push(format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH).into());
        dirs.push("/usr/include".into());
        dirs.into_iter()
            .filter(|d| d.is_dir())
            .map(|d| d.display().to_string())
            .collect()
    })
}

/// GCC's own header folders, `/usr/lib/gcc/<triple>/<version>/include`,
/// sorted (only whether one holds a header matters, not which).
fn gcc_include_dirs() -> Vec<PathBuf> {
    let subdirs = |dir: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default();
        found.sort();
        found
    };
    subdirs(Path::new("/usr/lib/gcc"))
        .iter()
        .flat_map(|triple| subdirs(triple))
        .map(|version| version.join("include"))
        .collect()
}
