//! The compile cache: a JIT compiles the same source again and again (each
//! notebook cell run, each process that builds its kernels at start-up),
//! so `compile` keeps its last builds and gives one back when the source,
//! its name and the options are the same *and* every file the compilation
//! looked for reads as it did then. The frontend sees files only through
//! its loader, so recording the loader's answers (a file's text, or that
//! there was none at that path) records everything a build depended on:
//! an edited header, or a header newly put in an earlier `-I` folder,
//! misses the cache.

use crate::program::Build;
use frontend::{FileLoader, LoadedFile};
use kernelc::files::FsLoader;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How many builds the cache keeps (the least recently used goes first).
const CAPACITY: usize = 64;

/// What a compilation was asked.
#[derive(Clone, PartialEq, Eq)]
pub struct Key {
    pub source: String,
    pub file_name: String,
    pub options: Vec<String>,
}

/// The loader's answers during one compilation: each path asked for, and
/// the text found there (`None`: no file).
pub type Reads = Vec<(PathBuf, Option<String>)>;

/// The file system, with every answer written down.
#[derive(Default)]
pub struct RecordingLoader {
    reads: Mutex<Reads>,
}

impl RecordingLoader {
    pub fn into_reads(self) -> Reads {
        self.reads.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl FileLoader for RecordingLoader {
    fn load(&self, path: &Path) -> Result<Option<LoadedFile>, String> {
        let found = FsLoader.load(path)?;
        let text = found.as_ref().map(|f| f.text.clone());
        let mut reads = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        reads.push((path.to_path_buf(), text));
        Ok(found)
    }
}

/// Whether every path still reads as it did.
fn still_current(reads: &Reads) -> bool {
    reads.iter().all(|(path, text)| match FsLoader.load(path) {
        Ok(found) => found.map(|f| f.text).as_deref() == text.as_deref(),
        Err(_) => false,
    })
}

struct Entry {
    key: Key,
    build: Arc<Build>,
    reads: Reads,
}

/// The builds, least recently used first.
static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// The cached build for `key`, if its files still read as they did.
pub fn lookup(key: &Key) -> Option<Arc<Build>> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let at = cache.iter().position(|e| e.key == *key)?;
    let entry = cache.remove(at);
    if !still_current(&entry.reads) {
        return None;
    }
    let build = entry.build.clone();
    cache.push(entry);
    Some(build)
}

/// Keeps `build` for `key`.
pub fn insert(key: Key, build: Arc<Build>, reads: Reads) {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|e| e.key != key);
    if cache.len() == CAPACITY {
        cache.remove(0);
    }
    cache.push(Entry { key, build, reads });
}
