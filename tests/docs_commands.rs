//! Documents that cannot drift: every fenced block of README.md and docs/
//! is either run by this test and compared with what it shows, or marked
//! as illustrative.
//!
//! A block's info string (after the fence) says which:
//!
//! - A **session** (lines starting with `$ `) is run: each command (with
//!   `\` continuations) runs in `bash` in a scratch folder where `samples`,
//!   `include` and `tests` are the repository's and `kernelc` is the binary
//!   under test; the lines after it, to the next `$ `, are its expected
//!   output (stdout then stderr). A line `...` in the expected output
//!   stands for any lines, so a listing may show an excerpt, and an
//!   expected line may end in a note for the reader, two spaces and `;`
//!   (an IR comment: `v13 = iadd v0, v12   ; x + bias`), which the
//!   output line lacks.
//! - `file=NAME`: the block's text is a file the chapter's sessions use,
//!   written into the scratch folder before they run (`diverge.cu`).
//! - `cmd="..."`: the block is what that command prints on stdout (a
//!   listing; warnings on stderr are not part of it), run as a session's
//!   command would be (`...` again elides).
//! - `needs=nvcc`, `needs=ptxas`: a session that runs that NVIDIA tool
//!   too (found as the tests find it; skipped loudly without it, a failure
//!   under `CI=true`).
//! - `from=PATH`: the block is the repository's file PATH, or an excerpt
//!   of it with `...` lines (the teaching pass's source, a filetest).
//! - `checked-by=PATH`: another test checks the block (the IR reference's
//!   listings round-trip through the IR parser); PATH must exist and name
//!   the document. With a `cmd=` too, the listing is also that command's
//!   output.
//! - `illustrative`: shown, not run (a sketch, a fragment of code, a
//!   command that needs a GPU or takes minutes). The test prints how many
//!   blocks each kind has, so the run share can only be watched grow.
//!
//! Any other block fails the test: a new listing must say what it is.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fenced block: where it is, its info string's words, and its lines.
struct Block {
    file: String,
    line: usize,
    info: String,
    text: Vec<String>,
}

impl Block {
    /// The value of `key=...` in the info string (`cmd` may be quoted).
    fn attr(&self, key: &str) -> Option<String> {
        let at = self.info.find(&format!("{key}="))? + key.len() + 1;
        let rest = &self.info[at..];
        Some(match rest.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or("").to_string(),
            None => rest.split_whitespace().next().unwrap_or("").to_string(),
        })
    }

    fn is_illustrative(&self) -> bool {
        self.info.split_whitespace().any(|w| w == "illustrative")
    }

    fn is_session(&self) -> bool {
        self.text.iter().any(|l| l.starts_with("$ "))
    }

    fn place(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// README.md and every chapter of docs/.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_string()];
    let mut chapters: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| {
            e.expect("docs/ entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    chapters.sort();
    docs.extend(chapters);
    docs
}

/// The fenced blocks of one document, at any indentation: a fence inside
/// a list item is indented like the item's text, and (as in CommonMark)
/// that indentation is not part of the block's lines.
fn blocks(file: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(file)).expect("a document");
    blocks_of(file, &text)
}

/// A fence line's indentation and info string (`None` for other lines).
fn fence(line: &str) -> Option<(usize, &str)> {
    let body = line.trim_start_matches(' ');
    let info = body.strip_prefix("```")?;
    Some((line.len() - body.len(), info))
}

/// `line` less up to `indent` leading spaces (a body line may be indented
/// less than its fence).
fn unindent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

fn blocks_of(file: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        match (open.take(), fence(line)) {
            (None, Some((indent, info))) => {
                let block = Block {
                    file: file.to_string(),
                    line: i + 1,
                    info: info.trim().to_string(),
                    text: Vec::new(),
                };
                open = Some((indent, block));
            }
            (Some((_, block)), Some(_)) => out.push(block),
            (Some((indent, mut block)), None) => {
                block.text.push(unindent(line, indent).to_string());
                open = Some((indent, block));
            }
            (None, None) => {}
        }
    }
    out
}

/// A session's commands, each with its expected output lines.
fn commands(block: &Block) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut continuing = false;
    for line in &block.text {
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push((String::new(), Vec::new()));
            continuing = true;
            push_command_line(&mut out, cmd, &mut continuing);
        } else if continuing {
            push_command_line(&mut out, line, &mut continuing);
        } else if let Some(last) = out.last_mut() {
            last.1.push(line.clone());
        }
    }
    out
}

fn push_command_line(out: &mut [(String, Vec<String>)], line: &str, continuing: &mut bool) {
    let last = out.last_mut().expect("a command");
    match line.strip_suffix('\\') {
        Some(part) => last.0.push_str(part),
        None => {
            last.0.push_str(line);
            *continuing = false;
        }
    }
}

/// Whether `actual` matches `expected`, where an expected `...` line
/// matches any run of lines (trailing spaces ignored everywhere).
fn matches(expected: &[String], actual: &[&str]) -> bool {
    let Some((first, rest)) = expected.split_first() else {
        return actual.iter().all(|l| l.trim().is_empty());
    };
    if first.trim() == "..." {
        return (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]));
    }
    match actual.split_first() {
        Some((line, more)) => line_matches(first, line) && matches(rest, more),
        None => false,
    }
}

/// Whether an output line is the expected one, or the expected one less
/// its note (`code  ; note`).
fn line_matches(expected: &str, actual: &str) -> bool {
    let actual = actual.trim_end();
    actual == expected.trim_end() || without_note(expected) == Some(actual)
}

/// `code` of an expected line `code  ; note` (`None` without a note or code).
fn without_note(expected: &str) -> Option<&str> {
    let code = expected[..expected.find("  ;")?].trim_end();
    (!code.trim().is_empty()).then_some(code)
}

/// A scratch folder where the repository's inputs are visible, the
/// chapter's `file=` blocks are written, and `bin/` holds `kernelc` and
/// the NVIDIA tools the chapter's sessions need that were found.
fn scratch(doc: &str, files: &[&Block], tools: &[(&str, Option<PathBuf>)]) -> PathBuf {
    let name: String = doc
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    let dir = std::env::temp_dir().join(format!("kernelc-docs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).expect("scratch folder");
    for shared in ["samples", "include", "tests"] {
        std::os::unix::fs::symlink(root().join(shared), dir.join(shared)).expect("symlink");
    }
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kernelc"), dir.join("bin/kernelc"))
        .expect("symlink");
    for (tool, path) in tools {
        let Some(path) = path else { continue };
        // A wrapper, not a link: nvcc finds its headers from its own path.
        let wrapper = format!("#!/bin/sh\nexec '{}' \"$@\"\n", path.display());
        std::fs::write(dir.join("bin").join(tool), wrapper).expect("write");
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(dir.join("bin").join(tool), mode).expect("chmod");
    }
    for block in files {
        let name = block.attr("file").expect("file=");
        std::fs::write(dir.join(name), block.text.join("\n") + "\n").expect("write");
    }
    dir
}

/// What is wrong with a `cmd=` listing: `None` when `cmd` prints it.
fn listing_failure(dir: &Path, block: &Block, cmd: &str) -> Option<String> {
    let got = run(dir, cmd, false);
    let lines: Vec<&str> = got.lines().collect();
    (!matches(&block.text, &lines)).then(|| format!("{}: `{cmd}` printed:\n{got}", block.place()))
}

/// Runs `cmd` in `dir` as a reader would, with kernelc on the PATH: what
/// it prints on stdout, and (`with_stderr`) then on stderr.
fn run(dir: &Path, cmd: &str, with_stderr: bool) -> String {
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-c", cmd])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    if with_stderr {
        text.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    text
}

/// What a block is, as the test counts it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    Session,
    Output,
    File,
    Excerpt,
    Checked,
    Illustrative,
    Skipped,
}

/// The NVIDIA tools a session may name in `needs=`.
const TOOLS: &[&str] = &["nvcc", "ptxas"];

/// The tools the blocks of a chapter need, each found as the tests find it
/// (`None` beside its name when it is missing: its sessions are skipped).
fn tools_for(doc: &str, blocks: &[Block]) -> Vec<(&'static str, Option<PathBuf>)> {
    let needed = |tool: &str| {
        blocks
            .iter()
            .any(|b| b.attr("needs").as_deref() == Some(tool))
    };
    TOOLS
        .iter()
        .filter(|tool| needed(tool))
        .map(|&tool| {
            let what = format!("the {tool} sessions of {doc}");
            let path = match tool {
                "nvcc" => common::nvcc_or_skip(&what),
                _ => common::ptxas_or_skip(&what),
            };
            (tool, path)
        })
        .collect()
}

/// Checks one block in the chapter's scratch folder `dir`, pushing what is
/// wrong; returns what the block counts as (a listing of another test's
/// may also be a command's output).
fn check_block(
    dir: &Path,
    doc: &str,
    block: &Block,
    found: &[&str],
    failures: &mut Vec<String>,
) -> Vec<Kind> {
    if let Some(tool) = block.attr("needs") {
        if !TOOLS.contains(&tool.as_str()) {
            failures.push(format!(
                "{}: no such tool `{tool}` (one of {TOOLS:?})",
                block.place()
            ));
        } else if !found.contains(&tool.as_str()) {
            return vec![Kind::Skipped]; // `*_or_skip` said so (and fails under CI=true).
        }
    }
    if let Some(test) = block.attr("checked-by") {
        let names_doc = std::fs::read_to_string(root().join(&test))
            .is_ok_and(|text| text.contains(doc.trim_start_matches("docs/")));
        if !names_doc {
            failures.push(format!("{}: `{test}` does not check {doc}", block.place()));
        }
        let Some(cmd) = block.attr("cmd") else {
            return vec![Kind::Checked];
        };
        failures.extend(listing_failure(dir, block, &cmd));
        return vec![Kind::Checked, Kind::Output];
    }
    if block.is_illustrative() {
        return vec![Kind::Illustrative];
    }
    if block.attr("file").is_some() {
        return vec![Kind::File];
    }
    if let Some(path) = block.attr("from") {
        let text = std::fs::read_to_string(root().join(&path)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() || !matches(&block.text, &lines) {
            failures.push(format!("{}: not an excerpt of `{path}`", block.place()));
        }
        return vec![Kind::Excerpt];
    }
    if let Some(cmd) = block.attr("cmd") {
        failures.extend(listing_failure(dir, block, &cmd));
        return vec![Kind::Output];
    }
    if !block.is_session() {
        failures.push(format!(
            "{}: a block that is neither run nor marked: give it `cmd=\"...\"`, \
             `file=NAME`, `from=PATH`, `$ ` commands, or `illustrative`",
            block.place()
        ));
        return Vec::new();
    }
    for (cmd, expected) in commands(block) {
        let got = run(dir, &cmd, true);
        let lines: Vec<&str> = got.lines().collect();
        if !matches(&expected, &lines) {
            failures.push(format!("{}: `{cmd}` printed:\n{got}", block.place()));
        }
    }
    vec![Kind::Session]
}

#[test]
fn every_block_of_the_docs_is_run_or_marked_illustrative() {
    let mut counts = std::collections::BTreeMap::<Kind, usize>::new();
    let mut failures = Vec::new();
    for doc in documents() {
        let blocks = blocks(&doc);
        let file_blocks: Vec<&Block> = blocks.iter().filter(|b| b.attr("file").is_some()).collect();
        let tools = tools_for(&doc, &blocks);
        let dir = scratch(&doc, &file_blocks, &tools);
        let found: Vec<&str> = tools
            .iter()
            .filter(|t| t.1.is_some())
            .map(|t| t.0)
            .collect();
        for block in &blocks {
            for kind in check_block(&dir, &doc, block, &found, &mut failures) {
                *counts.entry(kind).or_default() += 1;
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!("docs: blocks of each kind {counts:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_matcher_elides_with_dots_and_nothing_else() {
    let expected: Vec<String> = ["a", "...", "d"].map(String::from).to_vec();
    assert!(matches(&expected, &["a", "b", "c", "d"]));
    assert!(matches(&expected, &["a", "d"]));
    assert!(!matches(&expected, &["a", "b"]));
    assert!(!matches(&expected, &["x", "d"]));
    let exact: Vec<String> = ["a"].map(String::from).to_vec();
    assert!(!matches(&exact, &["a", "b"]));
}

#[test]
fn an_expected_line_may_carry_a_note_the_output_lacks() {
    let noted: Vec<String> = ["    v3 = iadd v1, v2   ; x + y"]
        .map(String::from)
        .to_vec();
    assert!(matches(&noted, &["    v3 = iadd v1, v2"]));
    assert!(matches(&noted, &["    v3 = iadd v1, v2   ; x + y"]));
    assert!(!matches(&noted, &["    v3 = iadd v2, v1"]));
    let only_a_note: Vec<String> = ["    ; x + y"].map(String::from).to_vec();
    assert!(!matches(&only_a_note, &[""]));
}

#[test]
fn fences_are_found_at_any_indentation_and_their_indentation_stripped() {
    let text = "```c file=a.cu\nint a;\n```\n1. item\n\n   ```text cmd=\"x\"\n   out\n     deeper\n  less\n   ```\n";
    let found = blocks_of("doc.md", text);
    let seen: Vec<(usize, &str, Vec<&str>)> = found
        .iter()
        .map(|b| {
            (
                b.line,
                b.info.as_str(),
                b.text.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (1, "c file=a.cu", vec!["int a;"]),
            (6, "text cmd=\"x\"", vec!["out", "  deeper", "less"]),
        ]
    );
}
