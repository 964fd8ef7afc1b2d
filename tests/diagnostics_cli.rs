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

/// Diagnostics of memory-space inference, restrict processing and the
/// backend carry codes as the frontend's do, and `--explain` knows them.
#[test]
fn later_stage_diagnostics_show_their_code() {
    let cases: [(&str, &str, &[&str], &str); 6] = [
        (
            "atomic_local.cu",
            "__global__ void k(int *o) { int c = 0; atomicAdd(&c, 1); o[0] = c; }\n",
            &[],
            "error[E0027]: Cannot do atomic on local memory",
        ),
        (
            "restrict_struct.cu",
            "struct A { float *__restrict__ x; };\n__global__ void k(A a) { a.x[0] = 1; }\n",
            &[],
            "error[E0028]: function contains restrict keyword in struct",
        ),
        (
            "cp_async_sm75.cu",
            "__global__ void k(const float *in) {\n  __shared__ float s[4];\n  \
             kernelc_cp_async_ca_16(s, in);\n  kernelc_cp_async_commit();\n}\n",
            &["-arch=sm_75"],
            "error[E0029]: ",
        ),
        (
            "reduce_sm75.cu",
            "__global__ void k(int *o) { o[0] = __reduce_add_sync(~0u, o[1]); }\n",
            &["-arch=sm_75"],
            "error[E0029]: `__reduce_add_sync` needs sm_80 or newer",
        ),
        (
            "generic.cu",
            "__global__ void k(int *o) {\n  __shared__ int s[4];\n  int *p = o[2] ? s : o;\n  \
             atomicAdd(p, 1);\n}\n",
            &["-Wgeneric"],
            "warning[W0007]: generic atomic left in kernel",
        ),
        (
            "assumed.cu",
            "__device__ int get(int *p) { return *p; }\n\
             __global__ void k(int **pp, int *o) { o[0] = get(pp[0]); }\n",
            &["--memspace-assume-global"],
            "warning[W0008]: Cannot tell what pointer points to",
        ),
    ];
    for (name, text, flags, expected) in cases {
        let p = source(name, text);
        let out = p.with_extension("ptx");
        let mut args = vec![p.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(flags);
        let err = stderr(&kernelc(&args));
        assert!(
            err.contains(expected),
            "{name}: expected `{expected}`:\n{err}"
        );
        assert!(
            err.contains(&format!("{name}:")),
            "{name}: not located:\n{err}"
        );
    }
    for code in ["E0027", "E0028", "E0029", "W0007", "W0008"] {
        let out = kernelc(&["--explain", code]);
        assert!(out.status.success(), "--explain {code}");
    }
}
