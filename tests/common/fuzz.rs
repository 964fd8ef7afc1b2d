//! The stable-Rust, bounded versions of the cargo-fuzz targets in `fuzz/`:
//! the same entry points, fed a deterministic mutation loop over the seed
//! corpus (the samples and filetests) instead of libFuzzer's. Each input
//! runs on its own thread with a time limit, under `catch_unwind`, so a
//! panic or a hang fails the test with the input that caused it instead of
//! killing or stalling the suite.

#![allow(dead_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// The time limit of one input. Generous: a debug build on a busy machine
/// compiles any corpus input in well under a second.
pub const INPUT_LIMIT: Duration = Duration::from_secs(5);

/// xorshift64: deterministic, so a failure reproduces from the test alone.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The files under `dir` (recursively) whose names end in one of `exts`,
/// sorted, with their contents.
pub fn corpus(dir: &Path, exts: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if exts.iter().any(|x| p.extension().is_some_and(|e| e == *x)) {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    out.push((p.display().to_string(), text));
                }
            }
        }
    }
    out.sort();
    out
}

/// Pieces that make mutants interesting to a C-like or assembly parser:
/// brackets, operators, keywords and directives.
const PIECES: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "*",
    "&",
    "-",
    "+",
    "<<",
    "?",
    ":",
    "=",
    "0",
    "1",
    "-1",
    "0x80000000",
    "4294967295",
    "1e39",
    "0.5f",
    "int ",
    "unsigned ",
    "float ",
    "void ",
    "__shared__ ",
    "__device__ ",
    "__global__ ",
    "if (",
    "while (",
    "for (;;)",
    "return ",
    "__syncthreads();",
    "#define X X\n",
    "#if 1\n",
    "#endif\n",
    "\n",
    "\"",
    "'",
    "/*",
    "//",
    "block0",
    "v0",
    "i32",
    "ptr<shared>",
    "ld.global",
    ".reg",
    "%r1",
    "@%p1 ",
    "bra ",
    ".u64",
    "\u{e9}",
    "\0",
];

/// One mutant of `base`: a few byte flips, deletions, insertions of
/// [`PIECES`], duplicated or dropped line ranges, and truncation.
pub fn mutate(base: &str, rng: &mut Rng) -> String {
    let mut s: Vec<u8> = base.as_bytes().to_vec();
    let edits = 1 + rng.below(4);
    for _ in 0..edits {
        let len = s.len().max(1);
        let at = rng.below(len).min(s.len());
        match rng.below(7) {
            0 if !s.is_empty() => {
                let i = at.min(s.len() - 1);
                s[i] = rng.below(128) as u8;
            }
            1 if !s.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(s.len());
                s.drain(at..end);
            }
            2 | 3 => {
                let piece = PIECES[rng.below(PIECES.len())];
                s.splice(at..at, piece.bytes());
            }
            4 => {
                // Duplicate a chunk (lines, braces, whole functions).
                let end = (at + rng.below(200)).min(s.len());
                let chunk: Vec<u8> = s[at..end].to_vec();
                let to = rng.below(s.len().max(1)).min(s.len());
                s.splice(to..to, chunk);
            }
            5 => s.truncate(at),
            _ => {
                // Swap two bytes.
                if s.len() > 1 {
                    let b = rng.below(s.len());
                    let a = at.min(s.len() - 1);
                    s.swap(a, b);
                }
            }
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

/// Runs `f(input)` on a fresh thread with an ordinary 2 MiB stack, under
/// `catch_unwind`, and waits at most `limit`. Returns why it failed.
pub fn run_bounded(input: String, limit: Duration, f: fn(&str)) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("fuzz-input".into())
        .stack_size(2 << 20)
        .spawn(move || {
            let r = catch_unwind(AssertUnwindSafe(|| f(&input)));
            let _ = tx.send(r.is_ok());
        });
    if let Err(e) = spawned {
        return Err(format!("cannot spawn: {e}"));
    }
    match rx.recv_timeout(limit) {
        Ok(true) => Ok(()),
        Ok(false) => Err("panicked".into()),
        // The sender dropped without a message: the thread died (a stack
        // overflow aborts the process, so this is some other death).
        Err(mpsc::RecvTimeoutError::Disconnected) => Err("thread died".into()),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("took longer than {limit:?}")),
    }
}

/// Feeds `count` mutants of every corpus entry (and the entries
/// themselves) to `f` and panics with the first failing input.
pub fn fuzz_corpus(corpus: &[(String, String)], count: usize, seed: u64, f: fn(&str)) -> usize {
    let mut rng = Rng(seed);
    let mut n = 0;
    for (name, text) in corpus {
        for k in 0..=count {
            let input = if k == 0 {
                text.clone()
            } else {
                mutate(text, &mut rng)
            };
            if let Err(why) = run_bounded(input.clone(), INPUT_LIMIT, f) {
                panic!("{why} on mutant {k} of {name}:\n-----\n{input}\n-----");
            }
            n += 1;
        }
    }
    n
}
