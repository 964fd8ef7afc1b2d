//! The command line's edges (issue 27, items 4 and 8): file names of any
//! bytes in every subcommand, a clear error for other non-UTF-8 arguments,
//! one exit code (1) for every user error, options checked against the
//! command line, and the messages that say what to do instead.

mod common;

use common::{kernelc, scratch, stderr, stdout};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output};

const GOOD: &str = "extern \"C\" __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }\n";

/// `kernelc ARGS...` run in `dir`, arguments as raw bytes.
fn kernelc_in(dir: &Path, args: &[&[u8]]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .args(args.iter().map(|a| OsStr::from_bytes(a)))
        .current_dir(dir)
        .output()
        .expect("cannot run kernelc")
}

fn name(bytes: &[u8]) -> OsString {
    OsStr::from_bytes(bytes).to_os_string()
}

fn assert_ok(out: &Output, what: &str) {
    assert!(out.status.success(), "{what}: {}", stderr(out));
}

#[test]
fn file_names_of_any_bytes_work_in_every_subcommand() {
    let dir = scratch("bytes");
    std::fs::write(dir.join(name(b"k\xff.cu")), GOOD).unwrap();

    let out = kernelc_in(&dir, &[b"k\xff.cu", b"-o", b"o\xfe.ptx"]);
    assert_ok(&out, "compile");
    let ptx = std::fs::read_to_string(dir.join(name(b"o\xfe.ptx"))).unwrap();
    assert!(ptx.contains(".entry k("), "{ptx}");

    let out = kernelc_in(&dir, &[b"k\xff.cu", b"--emit", b"obj", b"-o", b"o\xfa.o"]);
    assert_ok(&out, "--emit obj");
    assert!(dir.join(name(b"o\xfa.o")).is_file());

    let out = kernelc_in(&dir, &[b"k\xff.cu", b"--emit", b"ir", b"-o", b"m\xfd.kir"]);
    assert_ok(&out, "--emit ir");
    let out = kernelc_in(&dir, &[b"opt", b"m\xfd.kir", b"-o", b"n\xfc.kir"]);
    assert_ok(&out, "opt");
    assert!(dir.join(name(b"n\xfc.kir")).is_file());

    let out = kernelc_in(&dir, &[b"validate", b"o\xfe.ptx"]);
    assert_ok(&out, "validate");
    assert!(stdout(&out).contains("minimum"), "{}", stdout(&out));

    for input in [b"k\xff.cu".as_slice(), b"o\xfe.ptx"] {
        let out = kernelc_in(
            &dir,
            &[
                b"run",
                input,
                b"--engine",
                b"emu",
                b"--kernel",
                b"k",
                b"--grid",
                b"1",
                b"--block",
                b"4",
                b"i32[]:zeros:4",
                b"--out",
                b"d\xfb",
            ],
        );
        assert_ok(&out, "run");
        let bytes = std::fs::read(dir.join(name(b"d\xfb")).join("arg0.bin")).unwrap();
        assert_eq!(bytes, [0, 1, 2, 3].map(i32::to_le_bytes).concat());
    }

    let out = kernelc_in(
        &dir,
        &[b"reduce", b"k\xff.cu", b"--until", b"grep -q threadIdx {}"],
    );
    assert_ok(&out, "reduce");
    let reduced = std::fs::read_to_string(dir.join(name(b"k\xff.reduced.cu"))).unwrap();
    assert!(reduced.contains("threadIdx"), "{reduced}");

    let out = kernelc_in(&dir, &[b"--explain", b"E\xff"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    let validate = Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .current_dir(&dir)
        .arg("validate")
        .arg(name(b"missing\xff.ptx"))
        .output()
        .unwrap();
    assert_eq!(validate.status.code(), Some(1), "{}", stderr(&validate));
    assert!(
        stderr(&validate).contains("missing\u{fffd}.ptx"),
        "{}",
        stderr(&validate)
    );
}

#[test]
fn other_non_utf8_arguments_are_a_clear_error() {
    let dir = scratch("notext");
    std::fs::write(dir.join(name(b"k\xff.cu")), GOOD).unwrap();
    let cases: [&[&[u8]]; 4] = [
        &[b"k\xff.cu", b"-D", b"X=\xff"],
        &[b"k\xff.cu", b"-DX=\xff"],
        &[
            b"run",
            b"k\xff.cu",
            b"--kernel",
            b"\xffk",
            b"--grid",
            b"1",
            b"--block",
            b"1",
        ],
        &[b"opt", b"k.kir", b"--passes", b"dce,\xff"],
    ];
    for args in cases {
        let out = kernelc_in(&dir, args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("is not valid UTF-8"), "{args:?}: {err}");
        assert!(err.contains("\\xFF"), "the argument is named: {err}");
        assert!(!err.contains("k\\xFF.cu"), "not the file name: {err}");
    }
}

#[test]
fn option_errors_exit_1_as_nvcc_and_help_exits_0() {
    for args in [
        ["samples/vadd.cu", "--bogus"].as_slice(),
        &["samples/vadd.cu", "--fmad=maybe"],
        &["samples/vadd.cu", "-O7"],
        &["samples/vadd.cu", "--clone-budget", "-7"],
        &["samples/vadd.cu", "--threads", "100000"],
        &["samples/vadd.cu", "--error-limit", "many"],
        &[],
        &["opt", "--bogus"],
        &["run", "samples/vadd.cu"],
        &["reduce", "samples/vadd.cu"],
    ] {
        let out = kernelc(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("error"), "{args:?}: {}", stderr(&out));
    }
    for args in [
        ["--help"].as_slice(),
        &["--version"],
        &["run", "--help"],
        &["opt", "-h"],
    ] {
        let out = kernelc(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(!stdout(&out).is_empty(), "{args:?}");
    }
    let help = stdout(&kernelc(&["--help"]));
    assert!(help.contains("--error-limit"), "{help}");
    // The edges of the ranges are accepted.
    for args in [["--clone-budget", "-1"], ["--threads", "1024"]] {
        let out = kernelc(&["samples/vadd.cu", args[0], args[1]]);
        assert_ok(&out, &args.join(" "));
    }
}

#[test]
fn every_pipeline_pass_can_be_disabled_gvn_too() {
    let out = kernelc(&["samples/vadd.cu", "--disable-pass", "gvn"]);
    assert_ok(&out, "--disable-pass gvn");
    let run = ["run", "samples/vadd.cu", "--spec", "samples/vadd.run"];
    let out = kernelc(&[&run[..], &["--disable-pass", "gvn"]].concat());
    assert_ok(&out, "run --disable-pass gvn");
}

#[test]
fn a_bad_macro_name_is_reported_against_the_command_line() {
    let run = [
        "run",
        "samples/vadd.cu",
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "1",
    ];
    for (args, shown) in [
        (vec!["samples/vadd.cu", "-D", "1BAD=3"], "-D 1BAD=3"),
        (vec!["samples/vadd.cu", "-DA-B"], "-D A-B"),
        ([&run[..], &["-D", "9X"]].concat(), "-D 9X"),
    ] {
        let out = kernelc(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.starts_with(&format!("error: {shown}: `")) && err.contains("is not a macro name"),
            "{err}"
        );
        assert!(!err.contains("vadd.cu:1"), "no source line: {err}");
    }
}

/// A `.ptx` file runs on the emulator by default; the IR interpreter,
/// asked for, refuses it and names the engines that run PTX (never lexing
/// it as CUDA).
#[test]
fn running_ptx_takes_a_ptx_engine() {
    let dir = scratch("ptxrun");
    std::fs::write(dir.join("k.cu"), GOOD).unwrap();
    assert_ok(&kernelc_in(&dir, &[b"k.cu", b"-o", b"k.ptx"]), "compile");
    let launch: [&[u8]; 8] = [
        b"k.ptx",
        b"--kernel",
        b"k",
        b"--grid",
        b"1",
        b"--block",
        b"1",
        b"i32[]:zeros:1",
    ];
    let by_default = kernelc_in(&dir, &[&[&b"run"[..]][..], &launch].concat());
    assert_ok(&by_default, "run on the emulator");
    let out = kernelc_in(
        &dir,
        &[&[&b"run"[..], b"--engine", b"interp"][..], &launch].concat(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("`--engine emu`") && err.contains("`--engine gpu`"),
        "{err}"
    );
    assert!(!err.contains("E0"), "not lexed as CUDA: {err}");
}

#[test]
fn opt_on_cuda_source_says_it_wants_ir() {
    let out = kernelc(&["opt", "samples/vadd.cu"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("IR text (.kir)") && err.contains("--emit ir"),
        "{err}"
    );
}

/// Every file in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_failed_reduce_leaves_no_file_behind() {
    let dir = scratch("reduce-fail");
    std::fs::write(dir.join("k.cu"), GOOD).unwrap();
    for until in ["false", "exit 3", "sleep 5"] {
        let out = kernelc_in(
            &dir,
            &[
                b"reduce",
                b"k.cu",
                b"--until",
                until.as_bytes(),
                b"--timeout",
                b"1",
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{until}: {}", stderr(&out));
        assert_eq!(listing(&dir), ["k.cu"], "{until}");
    }
    // A success leaves the result only, no candidate file.
    let out = kernelc_in(
        &dir,
        &[b"reduce", b"k.cu", b"--until", b"grep -q threadIdx $1"],
    );
    assert_ok(&out, "reduce");
    assert_eq!(listing(&dir), ["k.cu", "k.reduced.cu"]);
}

const SPIN: &str = "extern \"C\" __global__ void k(int *p) { p[0] = 1; }\n";

#[test]
fn a_huge_launch_warns_and_max_steps_bounds_it_whole() {
    let dir = scratch("huge");
    std::fs::write(dir.join("k.cu"), SPIN).unwrap();
    for engine in [b"interp".as_slice(), b"emu"] {
        let start = std::time::Instant::now();
        let out = kernelc_in(
            &dir,
            &[
                b"run",
                b"k.cu",
                b"--engine",
                engine,
                b"--kernel",
                b"k",
                b"--grid",
                b"2147483647",
                b"--block",
                b"1024",
                b"--max-steps",
                b"100000",
                b"i32[]:zeros:1",
            ],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("warning: the launch has 2199023254528 threads"),
            "{err}"
        );
        assert!(err.contains("100000 instructions"), "{err}");
        assert!(err.contains("launch"), "{err}");
        assert!(
            start.elapsed().as_secs() < 60,
            "bounded: {:?}",
            start.elapsed()
        );
    }
    // A small launch: no warning, and an explicit bound it stays under.
    let out = kernelc_in(
        &dir,
        &[
            b"run",
            b"k.cu",
            b"--kernel",
            b"k",
            b"--grid",
            b"4",
            b"--block",
            b"256",
            b"--max-steps",
            b"100000",
            b"i32[]:zeros:1",
        ],
    );
    assert_ok(&out, "small launch");
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

#[test]
fn the_error_limit_is_an_option() {
    let dir = scratch("errlimit");
    let body = "int a = ;\n".repeat(20);
    std::fs::write(
        dir.join("bad.cu"),
        format!("__global__ void k() {{\n{body}}}\n"),
    )
    .unwrap();
    let errors = |out: &Output| stderr(out).matches("error[").count();
    let default = kernelc_in(&dir, &[b"bad.cu"]);
    assert_eq!(default.status.code(), Some(1));
    assert!(!stderr(&default).contains("E0015"), "{}", stderr(&default));
    for args in [
        [b"bad.cu".as_slice(), b"--error-limit", b"3"].as_slice(),
        &[b"bad.cu", b"-ferror-limit=3"],
    ] {
        let out = kernelc_in(&dir, args);
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains("E0015"), "{}", stderr(&out));
        assert!(errors(&out) <= 4, "{}", stderr(&out));
    }
    let run = kernelc_in(
        &dir,
        &[
            b"run",
            b"bad.cu",
            b"--kernel",
            b"k",
            b"--grid",
            b"1",
            b"--block",
            b"1",
            b"--error-limit",
            b"3",
        ],
    );
    assert!(stderr(&run).contains("E0015"), "{}", stderr(&run));
    let unlimited = kernelc_in(&dir, &[b"bad.cu", b"--error-limit", b"0"]);
    assert!(errors(&unlimited) >= 20, "{}", stderr(&unlimited));
}
