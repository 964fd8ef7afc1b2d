//! Helpers shared by the integration tests: finding ptxas (and failing loudly
//! in CI when it is missing) and assembling PTX with it.

#![allow(dead_code)]

pub mod fuzz;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Why the run tests skip a sample, from a `# kernelc-skip: reason` line
/// of its run spec (`samples/NAME.run`): the interpreter cannot run it (a
/// TMA copy, a cluster of several blocks). `None` for a runnable sample.
#[allow(dead_code)]
pub fn run_skip_reason(sample: &str) -> Option<String> {
    let spec = std::fs::read_to_string(root().join(format!("samples/{sample}.run"))).ok()?;
    spec.lines()
        .find_map(|l| l.trim().strip_prefix("# kernelc-skip:"))
        .map(|why| why.trim().to_string())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// ptxas, or `None` after printing a loud skip notice. In CI a missing ptxas
/// is a test failure.
pub fn ptxas_or_skip(what: &str) -> Option<PathBuf> {
    match kernelc::ptxas::find_ptxas() {
        Some(p) => Some(p),
        None if in_ci() => panic!("ptxas is required in CI (CI=true) but was not found"),
        None => {
            eprintln!("SKIPPED (ptxas not found; run ./scripts/test to install it): {what}");
            None
        }
    }
}

/// Assembles `ptx` for `arch` with real ptxas and panics with ptxas's
/// messages and the PTX if it is rejected. ptx-validate must accept it too
/// (that check needs no ptxas, so it runs everywhere).
pub fn assert_ptxas_accepts(ptx: &str, arch: &str, what: &str) {
    let report = ptx_validate::validate(ptx);
    assert!(
        report.ok(),
        "ptx-validate rejected the PTX of {what}:\n{}",
        report.rendered("<ptx>", ptx)
    );
    let Some(ptxas) = ptxas_or_skip(what) else {
        return;
    };
    let outcome = kernelc::ptxas::assemble(&ptxas, ptx, arch, &[]).expect("cannot run ptxas");
    assert!(
        outcome.success,
        "ptxas -arch={arch} rejected the PTX of {what}:\n{}\n--- PTX ---\n{ptx}",
        outcome.output
    );
}

/// Runs the `kernelc` binary in the workspace root.
pub fn kernelc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("cannot run kernelc")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test's files, under Cargo's per-target
/// temporary directory (so parallel test binaries never collide).
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
