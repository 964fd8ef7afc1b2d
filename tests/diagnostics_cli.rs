//! Diagnostics as the `kernelc` binary shows them: codes in brackets,
//! `--explain CODE`, warnings on stderr of a successful compilation, `-w`
//! and `-Werror` (with nvcc's `-Werror all-warnings` spelling).

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn kernelc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("cannot run kernelc")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn source(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kernelc-diag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const WARNS: &str =
    "extern \"C\" __global__ void k(float *o) {\n    int unused = 1;\n    o[0] = 1.0f;\n}\n";

#[test]
fn errors_show_their_code() {
    let p = source(
        "e.cu",
        "__global__ void k(float *o) {\n    o[0] = nope;\n}\n",
    );
    let out = kernelc(&[p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error[E0001]: use of undeclared identifier `nope`"),
        "{err}"
    );
}

#[test]
fn explain_prints_example_and_fix() {
    let out = kernelc(&["--explain", "E0008"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("E0008: invalid struct member access"),
        "{text}"
    );
    assert!(text.contains("Example:") && text.contains("Fix:"), "{text}");
    let out = kernelc(&["--explain", "E4242"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not a kernelc diagnostic code"));
}

#[test]
fn warnings_print_and_compile_succeeds() {
    let p = source("w.cu", WARNS);
    let out = kernelc(&[p.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning[W0001]: unused variable `unused`"),
        "{err}"
    );
    assert!(
        err.contains("int unused = 1;") && err.contains('^'),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(".entry k("));
}

#[test]
fn dash_w_silences_and_werror_fails() {
    let p = source("w2.cu", WARNS);
    let f = p.to_str().unwrap();
    let out = kernelc(&[f, "-w"]);
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
    for args in [vec![f, "-Werror"], vec![f, "-Werror", "all-warnings"]] {
        let out = kernelc(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("error[W0001]: unused variable"), "{err}");
        assert!(err.contains("because of `-Werror`"), "{err}");
    }
}
