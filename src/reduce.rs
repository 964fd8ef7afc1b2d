//! `kernelc reduce FILE.cu --until "<shell test>"`: shrink a failing kernel.
//!
//! A test-case reducer in the manner of delta debugging (Zeller and
//! Hildebrandt's ddmin) and C-Reduce's first passes: it removes chunks of
//! lines, then balanced bracket groups, then chunks of tokens, keeping each
//! removal after which the shell test still succeeds, until no removal
//! does. A kernel from kernel-gen that trips a bug comes out a few lines
//! long, ready to become a regression test.
//!
//! The test is run with `sh -c TEST sh CANDIDATE`: the candidate's path is
//! `$1`, and `{}` in the test is replaced by it too. The candidate is a
//! hidden file beside the output, with the output's name after a prefix
//! (`.kernelc-reduce-PID-FILE.reduced.cu`: same folder for `#include "..."`,
//! same extension), removed at the end. The output (`FILE.reduced.cu`, or
//! `-o`) is written once, at the end of a successful reduction, with the
//! smallest input that passed; a failed reduction leaves no file behind.
//! The test must succeed on the original input.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a reduction is run.
#[derive(Clone, Debug)]
pub struct ReduceOptions {
    /// The shell test; exit status 0 means "still interesting".
    pub until: String,
    /// Where the result is written.
    pub output: PathBuf,
    /// A test that runs longer than this counts as failing (and is killed).
    pub timeout: Duration,
    /// The most tests to run before stopping with the best so far.
    pub max_tests: usize,
}

/// The outcome: the reduced text and how many tests it took.
#[derive(Clone, Debug)]
pub struct Reduced {
    pub text: String,
    pub tests: usize,
}

/// `FILE.reduced.cu` beside `FILE.cu` (file names are any bytes).
pub fn default_output(input: &Path) -> PathBuf {
    let mut name = input
        .file_stem()
        .unwrap_or(OsStr::new("input"))
        .to_os_string();
    name.push(".reduced.");
    name.push(input.extension().unwrap_or(OsStr::new("cu")));
    input.with_file_name(name)
}

/// The hidden candidate file beside `output`.
fn candidate_path(output: &Path) -> PathBuf {
    let mut name = OsString::from(format!(".kernelc-reduce-{}-", std::process::id()));
    name.push(output.file_name().unwrap_or(OsStr::new("candidate.cu")));
    output.with_file_name(name)
}

/// Runs the shell test on each candidate, written to its own file, which
/// it removes when dropped (on success and on every error alike).
struct Tester<'a> {
    opts: &'a ReduceOptions,
    candidate: PathBuf,
    tests: usize,
}

impl Drop for Tester<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.candidate);
    }
}

impl Tester<'_> {
    fn interesting(&mut self, text: &str) -> Result<bool, String> {
        self.tests += 1;
        let path = &self.candidate;
        std::fs::write(path, text)
            .map_err(|e| format!("error: cannot write `{}`: {e}", path.display()))?;
        // `{}` becomes the path's bytes, whatever they are.
        let script: Vec<u8> = (self.opts.until.split("{}"))
            .map(str::as_bytes)
            .collect::<Vec<_>>()
            .join(path.as_os_str().as_bytes());
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(OsString::from_vec(script))
            .arg("sh")
            .arg(path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("error: cannot run `sh`: {e}"))?;
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ok(status.success()),
                Ok(None) if start.elapsed() > self.opts.timeout => {
                    // Only the child this reducer started.
                    let _ = child.kill();
                    let _ = child.wait();
                    return Ok(false);
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(format!("error: waiting for the test: {e}")),
            }
        }
    }

    fn exhausted(&self) -> bool {
        self.tests >= self.opts.max_tests
    }
}

/// C's multi-character operators, kept whole so that joining the tokens
/// back gives the same program.
const OPERATORS: &[&str] = &[
    "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "::",
];

/// Splits text into tokens that can be removed one by one: identifiers and
/// numbers, string and char literals, operators, single punctuation
/// characters. Whitespace stays attached to the token before it, so the
/// tokens concatenate back to the text exactly. (A removal may glue two
/// words together; the test then rejects that candidate.)
fn tokenize(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            let ws: String = chars[start..i].iter().collect();
            match out.last_mut() {
                Some(last) => last.push_str(&ws),
                None => out.push(ws),
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '.' {
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(chars.len());
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let len = OPERATORS
                .iter()
                .find(|op| rest.starts_with(*op))
                .map_or(1, |op| op.len());
            i += len;
        }
        out.push(chars[start..i].iter().collect());
    }
    out
}

/// ddmin-style pass: tries removing chunks of `items` (halving the chunk
/// size down to 1), keeping every removal that stays interesting.
fn remove_chunks(items: &mut Vec<String>, tester: &mut Tester<'_>) -> Result<bool, String> {
    let mut progress = false;
    let mut size = items.len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < items.len() && !tester.exhausted() {
            let end = (start + size).min(items.len());
            let candidate: String = items[..start].concat() + &items[end..].concat();
            if tester.interesting(&candidate)? {
                items.drain(start..end);
                progress = true;
            } else {
                start = end;
            }
        }
        if size == 1 || tester.exhausted() {
            return Ok(progress);
        }
        size = size.div_ceil(2);
    }
}

/// Removes balanced `()`, `[]` and `{}` groups: first the inside, then the
/// whole group with its brackets.
fn remove_groups(tokens: &mut Vec<String>, tester: &mut Tester<'_>) -> Result<bool, String> {
    let mut progress = false;
    let mut i = 0;
    while i < tokens.len() && !tester.exhausted() {
        let open = tokens[i].trim();
        let close = match open {
            "(" => ")",
            "[" => "]",
            "{" => "}",
            _ => {
                i += 1;
                continue;
            }
        };
        let mut depth = 0usize;
        let mut j = i;
        let mut matched = None;
        while j < tokens.len() {
            let t = tokens[j].trim();
            if t == open {
                depth += 1;
            } else if t == close {
                depth -= 1;
                if depth == 0 {
                    matched = Some(j);
                    break;
                }
            }
            j += 1;
        }
        let Some(j) = matched else {
            i += 1;
            continue;
        };
        let whole: String = tokens[..i].concat() + &tokens[j + 1..].concat();
        if tester.interesting(&whole)? {
            tokens.drain(i..=j);
            progress = true;
            continue;
        }
        if j > i + 1 {
            let inside: String = tokens[..=i].concat() + &tokens[j..].concat();
            if tester.interesting(&inside)? {
                tokens.drain(i + 1..j);
                progress = true;
            }
        }
        i += 1;
    }
    Ok(progress)
}

fn lines_of(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_string).collect()
}

/// Reduces `source` while the test stays interesting, and writes the
/// result to the output file (only then: a failure writes nothing).
pub fn reduce(source: &str, opts: &ReduceOptions) -> Result<Reduced, String> {
    let mut tester = Tester {
        opts,
        candidate: candidate_path(&opts.output),
        tests: 0,
    };
    if !tester.interesting(source)? {
        return Err(format!(
            "error: the test does not succeed on the original input (`{}`)",
            opts.until
        ));
    }
    let mut best = source.to_string();
    loop {
        let mut progress = false;
        let mut lines = lines_of(&best);
        progress |= remove_chunks(&mut lines, &mut tester)?;
        best = lines.concat();
        let mut tokens = tokenize(&best);
        progress |= remove_groups(&mut tokens, &mut tester)?;
        progress |= remove_chunks(&mut tokens, &mut tester)?;
        best = tokens.concat();
        if !progress || tester.exhausted() {
            break;
        }
    }
    kernelc::output::write_file(&opts.output, best.as_bytes())?;
    Ok(Reduced {
        text: best,
        tests: tester.tests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_concatenate_back_to_the_text() {
        let text = "int a = b+c; // x\n  f(\"s t\", 'c')->y <<= 2;\n";
        let toks = tokenize(text);
        assert_eq!(toks.concat(), text);
        assert!(toks.iter().any(|t| t.trim() == "\"s t\""));
        assert!(toks.iter().any(|t| t.trim() == "->"));
        assert!(toks.iter().any(|t| t.trim() == "<<="));
    }

    #[test]
    fn default_output_is_beside_the_input() {
        assert_eq!(
            default_output(Path::new("dir/k.cu")),
            PathBuf::from("dir/k.reduced.cu")
        );
    }
}
