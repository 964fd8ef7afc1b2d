//! Text-driven tests in the Cranelift manner. Every file under
//! `tests/filetests/` starts with a command line and carries its expectations
//! as `check:` comment lines:
//!
//! ```text
//! ; test verifier            (or: test print | test pass a,b | test compile sm_90)
//! <IR text, or CUDA source for `test compile` on a .cu file>
//! ; check: <text that must appear in an output line>
//! ; nextln: <text that must appear in the very next output line>
//! ; not: <text that must not appear before the next check matches>
//! ```
//!
//! In `.cu` files the comment leader is `//` instead of `;`. What the output
//! is depends on the command:
//! - `test print`: the module printed back (which must also re-parse to the
//!   same text);
//! - `test verifier`: the verifier's annotated function(s) with `; error:`
//!   lines, or `ok` when the IR is valid;
//! - `test pass a,b`: the module after running the passes (verified after each);
//! - `test compile sm_XX`: the PTX, which real ptxas must also accept.
//!
//! Run with `KERNELC_BLESS=1` to rewrite each file's check lines so they
//! match the whole current output (then read the diff before committing).

mod common;

use kernelc::driver::{self, CompileOptions, Emit};
use kernelc::midend::text::{parse_module, write_module, PrintOptions};
use kernelc::midend::verifier::verify_module;
use std::path::{Path, PathBuf};

/// One expectation line.
#[derive(Debug)]
enum Check {
    /// `check:` — appears in a later line.
    Later(String),
    /// `nextln:` — appears in the very next line.
    Nextln(String),
    /// `not:` — does not appear before the next match.
    Not(String),
}

struct FileTest {
    command: String,
    /// The file without its command and check lines.
    body: String,
    checks: Vec<Check>,
    leader: &'static str,
}

fn parse_file(path: &Path, text: &str) -> FileTest {
    let leader = if path.extension().is_some_and(|e| e == "cu") {
        "//"
    } else {
        ";"
    };
    let mut command = None;
    let mut body = String::new();
    let mut checks = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(comment) = trimmed.strip_prefix(leader) {
            let c = comment.trim_start();
            if command.is_none() {
                if let Some(cmd) = c.strip_prefix("test ") {
                    command = Some(cmd.trim().to_string());
                    continue;
                }
            }
            let directive = [("check:", 0), ("nextln:", 1), ("not:", 2)]
                .iter()
                .find_map(|&(d, k)| c.strip_prefix(d).map(|rest| (k, rest.trim().to_string())));
            if let Some((kind, pattern)) = directive {
                checks.push(match kind {
                    0 => Check::Later(pattern),
                    1 => Check::Nextln(pattern),
                    _ => Check::Not(pattern),
                });
                continue;
            }
        }
        body.push_str(line);
        body.push('\n');
    }
    FileTest {
        command: command.unwrap_or_else(|| panic!("{}: no `test` command line", path.display())),
        body,
        checks,
        leader,
    }
}

/// Produces the output the checks are matched against.
fn run_command(path: &Path, test: &FileTest) -> Result<String, String> {
    let (verb, arg) = match test.command.split_once(' ') {
        Some((v, a)) => (v, a.trim()),
        None => (test.command.as_str(), ""),
    };
    match verb {
        "print" => {
            let module = parse_module(&test.body).map_err(|e| format!("parse error: {e}"))?;
            let printed = write_module(&module, PrintOptions::default());
            let again = parse_module(&printed).map_err(|e| format!("re-parse error: {e}"))?;
            let reprinted = write_module(&again, PrintOptions::default());
            if reprinted != printed {
                return Err(format!(
                    "printing is not stable:\n{printed}\n---\n{reprinted}"
                ));
            }
            Ok(printed)
        }
        "verifier" => {
            let module = parse_module(&test.body).map_err(|e| format!("parse error: {e}"))?;
            Ok(match verify_module(&module) {
                Ok(()) => "ok\n".to_string(),
                Err(errors) => errors
                    .iter()
                    .map(|(f, e)| e.annotate(&module.functions[*f], Some(&module)))
                    .collect::<Vec<_>>()
                    .join("\n"),
            })
        }
        "pass" => {
            let mut module = parse_module(&test.body).map_err(|e| format!("parse error: {e}"))?;
            if let Err(errors) = verify_module(&module) {
                return Err(format!("input IR is invalid: {errors:?}"));
            }
            let passes: Vec<&str> = arg.split(',').map(str::trim).collect();
            common::run_passes(&mut module, &passes)?;
            Ok(write_module(&module, PrintOptions::default()))
        }
        "compile" => {
            let target = kernelc::backend_nvptx::Target::parse(arg).map_err(|e| e.to_string())?;
            let arch = arg.to_string();
            let opts = CompileOptions {
                target,
                emit: Emit::Ptx,
                ..CompileOptions::default()
            };
            let ptx = if path.extension().is_some_and(|e| e == "cu") {
                driver::compile_source(&path.display().to_string(), &test.body, &opts)
                    .map_err(|e| e.rendered)?
            } else {
                let mut module =
                    parse_module(&test.body).map_err(|e| format!("parse error: {e}"))?;
                if let Err(errors) = verify_module(&module) {
                    return Err(format!("input IR is invalid: {errors:?}"));
                }
                common::optimize(&mut module, opts.opt_level)?;
                let be = kernelc::backend_nvptx::Options::new(opts.target);
                kernelc::backend_nvptx::compile_module(&module, &be).map_err(|e| e.to_string())?
            };
            common::assert_ptxas_accepts(&ptx, &arch, &path.display().to_string());
            Ok(ptx)
        }
        other => Err(format!("unknown test command `{other}`")),
    }
}

/// Matches the checks against the output, FileCheck style. Returns a message
/// describing the first failure.
fn match_checks(checks: &[Check], output: &str) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().collect();
    let mut next = 0; // first line the next check may match
    let mut forbidden: Vec<&str> = Vec::new();
    let mut last_match: Option<usize> = None;
    for check in checks {
        match check {
            Check::Not(p) => forbidden.push(p),
            Check::Later(p) => {
                let found = (next..lines.len()).find(|&i| lines[i].contains(p.as_str()));
                let Some(i) = found else {
                    return Err(format!("check not found after line {next}: `{p}`"));
                };
                if let Some(bad) =
                    (next..i).find_map(|j| forbidden.iter().find(|f| lines[j].contains(**f)))
                {
                    return Err(format!("`not: {bad}` matched before `check: {p}`"));
                }
                forbidden.clear();
                last_match = Some(i);
                next = i + 1;
            }
            Check::Nextln(p) => {
                let Some(prev) = last_match else {
                    return Err(format!("`nextln: {p}` has no preceding check"));
                };
                if !lines.get(prev + 1).is_some_and(|l| l.contains(p.as_str())) {
                    return Err(format!(
                        "nextln: `{p}` does not match line {}: `{}`",
                        prev + 2,
                        lines.get(prev + 1).unwrap_or(&"<end of output>")
                    ));
                }
                last_match = Some(prev + 1);
                next = prev + 2;
            }
        }
    }
    if let Some(bad) =
        (next..lines.len()).find_map(|j| forbidden.iter().find(|f| lines[j].contains(**f)))
    {
        return Err(format!("`not: {bad}` matched"));
    }
    Ok(())
}

/// Rewrites the file so its checks are exactly the current output.
fn bless(path: &Path, test: &FileTest, output: &str) {
    let l = test.leader;
    let mut text = format!("{l} test {}\n", test.command);
    text.push_str(test.body.trim_end());
    text.push_str("\n\n");
    // `nextln:` means the very next output line, so a line after a blank
    // one (which gets no check of its own) starts over with `check:`.
    let mut follows_check = false;
    for line in output.lines() {
        if line.trim().is_empty() {
            follows_check = false;
            continue;
        }
        let kind = if follows_check { "nextln" } else { "check" };
        text.push_str(&format!("{l} {kind}: {}\n", line.trim()));
        follows_check = true;
    }
    std::fs::write(path, text).expect("cannot bless file");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "kir" || e == "cu") {
            out.push(p);
        }
    }
}

#[test]
fn filetests() {
    let mut files = Vec::new();
    collect(&common::root().join("tests/filetests"), &mut files);
    assert!(!files.is_empty(), "no filetests found");
    let blessing = std::env::var("KERNELC_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let test = parse_file(path, &text);
        let result = run_command(path, &test);
        let outcome = match (&result, blessing) {
            (Ok(output), true) => {
                bless(path, &test, output);
                Ok(())
            }
            (Ok(output), false) if test.checks.is_empty() => {
                Err(format!("no check lines; output was:\n{output}"))
            }
            (Ok(output), false) => match_checks(&test.checks, output)
                .map_err(|m| format!("{m}\n--- output ---\n{output}")),
            (Err(e), _) => Err(e.clone()),
        };
        if let Err(message) = outcome {
            failures.push(format!("{}: {message}", path.display()));
        }
    }
    eprintln!(
        "filetests: {} files, {} failed",
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn checks_fail_when_they_should() {
    let out = "a = 1\nb = 2\nc = 3\n";
    assert!(match_checks(&[Check::Later("b =".into())], out).is_ok());
    assert!(match_checks(&[Check::Later("z".into())], out).is_err());
    let order = [Check::Later("c".into()), Check::Later("a".into())];
    assert!(match_checks(&order, out).is_err(), "checks match in order");
    let next = [Check::Later("a".into()), Check::Nextln("c".into())];
    assert!(
        match_checks(&next, out).is_err(),
        "nextln needs the very next line"
    );
    let not = [Check::Not("b".into()), Check::Later("c".into())];
    assert!(match_checks(&not, out).is_err(), "not: between matches");
    let not_tail = [Check::Later("a".into()), Check::Not("z".into())];
    assert!(match_checks(&not_tail, out).is_ok());
}

/// Blessing writes checks that the same output then passes, and that a
/// changed output fails.
#[test]
fn blessed_checks_match_their_output() {
    let dir = std::env::temp_dir().join(format!("kernelc-bless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.kir");
    // Two functions, so the printed output has a blank line between them.
    let original = "; test print\ndevice external @f() {\nblock0:\n    return\n}\n\
                    device external @g() {\nblock0:\n    return\n}\n; check: nothing like this\n";
    std::fs::write(&path, original).unwrap();
    let test = parse_file(&path, original);
    let output = run_command(&path, &test).unwrap();
    assert!(match_checks(&test.checks, &output).is_err());
    bless(&path, &test, &output);
    let blessed = std::fs::read_to_string(&path).unwrap();
    let again = parse_file(&path, &blessed);
    assert_eq!(again.command, "print");
    assert_eq!(
        again.checks.len(),
        output.lines().filter(|l| !l.trim().is_empty()).count()
    );
    assert!(
        output.contains("\n\n"),
        "the output has a blank line: {output}"
    );
    assert!(match_checks(&again.checks, &output).is_ok(), "{blessed}");
    assert!(match_checks(&again.checks, &output.replace("return", "trap")).is_err());
    let _ = std::fs::remove_dir_all(dir);
}

/// Every IR opcode appears in at least one `test compile` filetest, so each
/// instruction has been selected and assembled by real ptxas somewhere.
#[test]
fn every_opcode_has_a_compile_filetest() {
    use kernelc::midend::ir::{Module, Opcode};
    use std::collections::BTreeSet;
    let mut files = Vec::new();
    collect(&common::root().join("tests/filetests/compile"), &mut files);
    let mut seen: BTreeSet<&'static str> = BTreeSet::new();
    let mut note = |m: &Module| {
        for f in m.functions.values() {
            for (_, inst) in f.layout.insts() {
                seen.insert(f.dfg.insts[inst].opcode().name());
            }
        }
    };
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let test = parse_file(path, &text);
        if path.extension().is_some_and(|e| e == "kir") {
            note(&parse_module(&test.body).unwrap());
        } else {
            // The IR as lowered and as optimized: both reach the backend
            // (at -O0 and -O3 respectively).
            for emit in [Emit::Ir, Emit::IrOpt] {
                let opts = CompileOptions {
                    target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
                    emit,
                    ..CompileOptions::default()
                };
                if let Ok(ir) = driver::compile_source("f.cu", &test.body, &opts) {
                    note(&parse_module(&ir).unwrap());
                }
            }
        }
    }
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .map(|o| o.name())
        .filter(|n| !seen.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "opcodes without a compile filetest: {missing:?}"
    );
}
