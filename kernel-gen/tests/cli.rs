//! kernel-gen's command line: user errors exit 1 with a message, as
//! kernelc's do.

use std::process::{Command, Output};

fn kernel_gen(args: &[std::ffi::OsString]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernel-gen"))
        .args(args)
        .output()
        .expect("kernel-gen runs")
}

#[cfg(unix)]
#[test]
fn a_non_utf8_argument_is_a_clear_error_exit_1() {
    use std::os::unix::ffi::OsStringExt;
    let out = kernel_gen(&[std::ffi::OsString::from_vec(b"--seeds\xff".to_vec())]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is not valid UTF-8"), "{err}");
    assert!(err.contains("\\xFF"), "the argument is named: {err}");
}

#[test]
fn a_usage_error_exits_1() {
    for args in [&["--seeds"][..], &["--bogus"], &[]] {
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        let out = kernel_gen(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("usage: kernel-gen"), "{args:?}: {err}");
    }
}

#[test]
fn a_seed_prints_its_kernel() {
    let out = kernel_gen(&["7".into()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("__global__"), "{text}");
    assert!(text.contains("// run: kernelc run gen.cu"), "{text}");
}
