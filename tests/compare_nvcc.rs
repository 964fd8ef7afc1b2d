//! `scripts/compare-nvcc` is a Python script that nobody runs in CI (it
//! needs nvcc and takes a while). Its parsers of `ptxas -v` and `cuobjdump
//! --dump-sass` output are checked here against recorded outputs, so a
//! change that breaks them fails the test suite.

use std::process::Command;

#[test]
fn compare_nvcc_parsers_pass_their_self_test() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = match Command::new("python3")
        .arg(format!("{root}/scripts/compare-nvcc"))
        .arg("--self-test")
        .arg(format!("{root}/tests/fixtures/compare-nvcc"))
        .output()
    {
        Ok(out) => out,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("python3 is required in CI: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED (python3 not runnable: {e}): compare-nvcc self-test");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "compare-nvcc --self-test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("self-test: ok"), "{stdout}");
}
