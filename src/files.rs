//! The file system as the frontend's [`FileLoader`]: how `#include` files
//! are read (the frontend decides where to look; `frontend/src/include.rs`).

use std::path::Path;

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
