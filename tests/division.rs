//! `float` division as nvcc writes it, and as a GPU computes it.
//!
//! nvcc 13.5 writes `/` as `div.rn.f32` by default, `div.full.f32` (the
//! full-range approximation) under `-prec-div=false`, and `div.approx.f32`
//! under `--use_fast_math`; `__fdividef` is always `div.approx.f32` and
//! `__fdiv_rn` always `div.rn.f32`, each with `.ftz` when `-ftz=true` (which
//! fast math implies). kernelc must write the same form in each case. And
//! `div.approx.f32` multiplies by a reciprocal that underflows to zero for a
//! divisor above 2^126 in magnitude, so its result there is 0 (the PTX ISA),
//! which the interpreter and the emulator must both give, while
//! `div.full.f32` keeps the quotient.

mod common;

use common::{scratch, stderr};
use kernelc::driver::FloatOptions;
use kernelc::run::{execute, Engine, RunRequest};
use std::path::Path;
use std::process::Command;

/// `c` is `b` in every run: a separate argument keeps the optimizer from
/// merging the two divisions under fast math.
const SRC: &str = "extern \"C\" __global__ void quot(float *o, float a, float b, float c) {\n\
    o[0] = a / b;\n\
    o[1] = __fdividef(a, c);\n\
    o[2] = __fdiv_rn(b, a);\n\
}\n";

/// The option sets, as nvcc spells them, and as kernelc takes them.
fn option_sets() -> Vec<(&'static [&'static str], FloatOptions)> {
    let f = |ftz, prec_div, fast_math| FloatOptions {
        ftz,
        prec_div,
        prec_sqrt: None,
        fast_math,
    };
    vec![
        (&[], f(None, None, false)),
        (&["-prec-div=false"], f(None, Some(false), false)),
        (&["--use_fast_math"], f(None, None, true)),
        (
            &["-ftz=true", "-prec-div=false"],
            f(Some(true), Some(false), false),
        ),
        (&["-ftz=true"], f(Some(true), None, false)),
        // An option given explicitly wins over fast math's default.
        (
            &["--use_fast_math", "-prec-div=true"],
            f(None, Some(true), true),
        ),
        (
            &["--use_fast_math", "-ftz=false"],
            f(Some(false), None, true),
        ),
    ]
}

/// The division instructions of `ptx` (`div.rn.f32`, ...), sorted.
fn divisions(ptx: &str) -> Vec<String> {
    let mut v: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|op| op.starts_with("div."))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// kernelc's PTX of [`SRC`] for sm_90 with `float`.
fn kernelc_ptx(float: FloatOptions) -> String {
    kernelc::driver::compile_source(
        "quot.cu",
        SRC,
        &kernelc::driver::CompileOptions {
            target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
            float,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}

/// Runs `quot` from `input` (a `.cu` compiled with `float`, or a `.ptx`)
/// on `engine` with `a` and `b` (and `c = b`); returns `o[0..3]`.
fn run(input: &Path, engine: Engine, float: FloatOptions, a: f32, b: f32) -> [f32; 3] {
    let req = RunRequest {
        input: input.to_path_buf(),
        kernel: "quot".into(),
        args: vec![
            "f32[]:zeros:3".into(),
            format!("f32:{a:e}"),
            format!("f32:{b:e}"),
            format!("f32:{b:e}"),
        ],
        sm: 90,
        engine,
        float,
        ..RunRequest::default()
    };
    let out = execute(&req).unwrap_or_else(|e| panic!("{engine:?}: {e}"));
    let bytes = out.args[0].1.as_ref().expect("a buffer");
    let f = |i: usize| f32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    [f(0), f(1), f(2)]
}

#[test]
fn kernelc_writes_nvccs_division_for_each_float_option() {
    let expected: [&[&str]; 7] = [
        &["div.approx.f32", "div.rn.f32", "div.rn.f32"],
        &["div.approx.f32", "div.full.f32", "div.rn.f32"],
        &["div.approx.ftz.f32", "div.approx.ftz.f32", "div.rn.ftz.f32"],
        &["div.approx.ftz.f32", "div.full.ftz.f32", "div.rn.ftz.f32"],
        &["div.approx.ftz.f32", "div.rn.ftz.f32", "div.rn.ftz.f32"],
        &["div.approx.ftz.f32", "div.rn.ftz.f32", "div.rn.ftz.f32"],
        &["div.approx.f32", "div.approx.f32", "div.rn.f32"],
    ];
    for ((flags, float), want) in option_sets().into_iter().zip(expected) {
        let ptx = kernelc_ptx(float);
        assert_eq!(divisions(&ptx), want, "kernelc {flags:?}");
        common::assert_ptxas_accepts(&ptx, "sm_90", &format!("quot {flags:?}"));
    }
    // The same forms as nvcc's, where nvcc is found (it must be in CI).
    let Some(nvcc) = common::nvcc_or_skip("kernelc's division forms against nvcc's") else {
        return;
    };
    let dir = scratch("division-nvcc");
    let src = dir.join("quot.cu");
    std::fs::write(&src, SRC).unwrap();
    for (flags, float) in option_sets() {
        let out = Command::new(&nvcc)
            .args(["-ptx", "-arch=sm_90", "-o", "-"])
            .args(flags)
            .arg(&src)
            .output()
            .expect("cannot run nvcc");
        assert!(out.status.success(), "nvcc {flags:?}: {}", stderr(&out));
        let theirs = divisions(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(divisions(&kernelc_ptx(float)), theirs, "nvcc {flags:?}");
    }
}

/// For `a / b` with `b = 2^127`: `div.approx` is 0, `div.full` and
/// `div.rn` the quotient `1.5 * 2^-126`, in both engines and under every
/// option (the quotient is normal, so `.ftz` keeps it).
#[test]
fn both_engines_give_div_approx_zero_above_2_pow_126() {
    let dir = scratch("division-run");
    let src = dir.join("quot.cu");
    std::fs::write(&src, SRC).unwrap();
    let (a, b) = (3.0f32, 2f32.powi(127));
    let q = a / b;
    assert_eq!(q, 1.5 * 2f32.powi(-126));
    // o[0] (`/`) for each option set: div.rn, div.full, div.approx,
    // div.full, div.rn; o[2] is b / a, correctly rounded.
    let slash = [q, q, 0.0, q, q];
    for ((flags, float), slash) in option_sets().into_iter().zip(slash) {
        for engine in [Engine::Interp, Engine::Emu] {
            let got = run(&src, engine, float, a, b);
            let want = [slash, 0.0, b / a];
            assert_eq!(
                got.map(f32::to_bits),
                want.map(f32::to_bits),
                "{engine:?} {flags:?}"
            );
            // Below 2^126 every form is the quotient (exact here).
            let got = run(&src, engine, float, 3.0, 0.5);
            assert_eq!(got, [6.0, 6.0, 0.5 / 3.0], "{engine:?} {flags:?}");
        }
    }
}

/// nvcc's PTX in the emulator leaves kernelc's bytes, for each option set.
#[test]
fn nvccs_division_in_the_emulator_matches_kernelcs() {
    let Some(nvcc) = common::nvcc_or_skip("nvcc's division in the emulator") else {
        return;
    };
    let dir = scratch("division-emu");
    let src = dir.join("quot.cu");
    std::fs::write(&src, SRC).unwrap();
    for (k, (flags, float)) in option_sets().into_iter().enumerate() {
        let ptx = dir.join(format!("quot{k}.ptx"));
        let out = Command::new(&nvcc)
            .args(["-ptx", "-arch=sm_90", "-o"])
            .arg(&ptx)
            .args(flags)
            .arg(&src)
            .output()
            .expect("cannot run nvcc");
        assert!(out.status.success(), "nvcc {flags:?}: {}", stderr(&out));
        for (a, b) in [
            (3.0, 2f32.powi(127)),
            (-7.0, 3.0),
            (1.0, 1e-39),
            (f32::MAX, 0.5),
        ] {
            let theirs = run(&ptx, Engine::Emu, float, a, b);
            let ours = run(&src, Engine::Emu, float, a, b);
            assert_eq!(
                theirs.map(f32::to_bits),
                ours.map(f32::to_bits),
                "{flags:?} {a:e} / {b:e}"
            );
        }
    }
}

/// On the command line, as in nvcc, an explicit float option wins over
/// `--use_fast_math` whichever comes first, and so does `--fmad=false`.
#[test]
fn explicit_float_options_win_over_fast_math_in_either_order() {
    let dir = scratch("division-order");
    let src = dir.join("quot.cu");
    std::fs::write(
        &src,
        format!("{SRC}extern \"C\" __global__ void mad(float *o, float a, float b) {{ o[0] = a * b + o[0]; }}\n"),
    )
    .unwrap();
    let ptx = |flags: &[&str]| {
        let out = common::kernelc(
            &[
                &[src.to_str().unwrap(), "-arch=sm_90", "-o", "-"][..],
                flags,
            ]
            .concat(),
        );
        assert!(out.status.success(), "{flags:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let body = |p: String| {
        p.lines()
            .skip_while(|l| !l.starts_with(".version"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let a = ptx(&["--use_fast_math", "-prec-div=true"]);
    let b = ptx(&["-prec-div=true", "--use_fast_math"]);
    assert_eq!(body(a.clone()), body(b), "the order does not matter");
    assert!(a.contains("div.rn.ftz.f32"), "{a}");
    let no_fma = ptx(&["--use_fast_math", "--fmad=false"]);
    assert!(!no_fma.contains("fma.rn"), "{no_fma}");
    assert!(no_fma.contains("mul.rn.ftz.f32"), "{no_fma}");
    assert!(ptx(&["--use_fast_math"]).contains("fma.rn.ftz.f32"));
}
