//! Function overloading and explicit specializations (issue 26): the
//! overload C++'s ranking picks, shown by what each returns, on the
//! emulator from kernelc's PTX and from nvcc's; and the errors that list
//! the candidates.

mod common;

use common::{kernelc, scratch, stderr};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/templates/overloads.cu")
}

const KERNEL: &str = "_Z6choosePiPfPdPKfscbml";
const ARGS: &[&str] = &[
    "i32[]:zeros:13",
    "f32[]:rand:8:1",
    "f64[]:rand:4:2",
    "f32[]:rand:4:3",
    "i16:7",
    "i8:9",
    "u8:1",
    "u64:5",
    "i64:-3",
];

/// Runs `choose` from `ptx` on the emulator; the buffers it wrote.
fn run(ptx: &Path, out: &Path) -> Vec<Vec<u8>> {
    let mut argv = vec![
        "run",
        ptx.to_str().unwrap(),
        "--engine",
        "emu",
        "--fmad=false",
        "--kernel",
        KERNEL,
        "--grid",
        "1",
        "--block",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    argv.extend_from_slice(ARGS);
    let o = kernelc(&argv);
    assert!(o.status.success(), "{}", stderr(&o));
    (0..3)
        .map(|k| std::fs::read(out.join(format!("arg{k}.bin"))).unwrap())
        .collect()
}

fn ints(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn calls_choose_the_overload_cpp_ranks_best() {
    let dir = scratch("overloads");
    let ptx = dir.join("kernelc.ptx");
    let o = kernelc(&[
        fixture().to_str().unwrap(),
        "-arch=sm_90",
        "-o",
        ptx.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ptx).unwrap();
    common::assert_ptxas_accepts(&text, "sm_90", "overloads.cu");
    // Each overload is a function of its own under its Itanium name.
    for name in [
        "_Z4picki",
        "_Z4pickf",
        "_Z4pickd",
        "_Z4pickPKf",
        "_Z4pickPf",
        "_Z4pickm",
        "_Z5scaleff",
        "_Z5scaledd",
    ] {
        assert!(
            text.contains(&format!("{name}(")),
            "{name} missing:\n{text}"
        );
    }
    let ours = run(&ptx, &dir.join("ours"));
    // int, float, double exact; short, char and bool promote to int; a
    // `const float *` and a `float *` each find their own; unsigned long
    // exact; twice(int); cube's specialization for int twice; the long.
    assert_eq!(
        ints(&ours[0]),
        [1, 2, 3, 1, 1, 1, 4, 5, 6, 6, -3, -4, -3],
        "which overload each call chose"
    );
    let Some(nvcc) = common::nvcc_or_skip("overloads.cu through nvcc") else {
        return;
    };
    common::nvcc_ptx_to(&nvcc, &fixture(), "sm_90", &[], &dir.join("nvcc.ptx"));
    let theirs = run(&dir.join("nvcc.ptx"), &dir.join("theirs"));
    assert_eq!(ours, theirs, "kernelc's choices and nvcc's differ");
}

/// Compiles `source`; it must fail with E0007, exit 1 and write nothing;
/// its stderr.
fn rejected(source: &str) -> String {
    common::rejected_with("overload-errors", source, "E0007")
}

#[test]
fn failed_overload_resolution_lists_every_candidate() {
    let err = rejected(
        "__device__ float f(float a, int b) { return a; }\n\
         __device__ float f(int a, float b) { return b; }\n\
         __global__ void k(float *o) { o[0] = f(1, 2); }\n",
    );
    assert!(err.contains("the call of `f` is ambiguous"), "{err}");
    assert!(err.contains("candidate `f(float, int)`: viable"), "{err}");
    assert!(err.contains("candidate `f(int, float)`: viable"), "{err}");
    let err = rejected(
        "__device__ int g(int *p) { return *p; }\n\
         __device__ int g(float *p) { return 1; }\n\
         __global__ void k(double *d, int *o) { o[0] = g(d); }\n",
    );
    assert!(
        err.contains("no overload of `g` accepts these arguments"),
        "{err}"
    );
    assert!(
        err.contains("argument 1 is `double *`, which does not convert to `int *`"),
        "{err}"
    );
    // Functions that differ only in their return type do not overload.
    let dir = scratch("overload-errors");
    let src = dir.join("ret.cu");
    std::fs::write(
        &src,
        "__device__ int h(int v);\n__device__ float h(int v) { return 1.0f; }\n",
    )
    .unwrap();
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-o",
        dir.join("r.ptx").to_str().unwrap(),
    ]);
    assert!(stderr(&o).contains("error[E0006]"), "{}", stderr(&o));
}

#[test]
fn a_program_overload_of_make_float3_keeps_the_builtin() {
    // Vector-math headers add `make_float3(float s)`; CUDA's three-argument
    // maker stays a candidate beside it.
    let dir = scratch("overloads-make");
    let src = dir.join("m.cu");
    std::fs::write(
        &src,
        "inline __host__ __device__ float3 make_float3(float s) { return make_float3(s, s, s); }\n\
         __global__ void k(float *o) {\n\
           float3 a = make_float3(o[0]);\n\
           float3 b = make_float3(o[1], 2.0f, 3.0f);\n\
           o[2] = a.x + a.y + a.z + b.x + b.y + b.z;\n\
         }\n",
    )
    .unwrap();
    let ptx = dir.join("kernelc.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", ptx.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let emulate = |p: &Path| {
        let o = kernelc(&[
            "run",
            p.to_str().unwrap(),
            "--engine",
            "emu",
            "--kernel",
            "_Z1kPf",
            "--grid",
            "1",
            "--block",
            "1",
            "f32[]:rand:3:1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        common::stdout(&o)
    };
    let ours = emulate(&ptx);
    let Some(nvcc) = common::nvcc_or_skip("make_float3 overload through nvcc") else {
        return;
    };
    common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
    assert_eq!(ours, emulate(&dir.join("nvcc.ptx")));
}

#[test]
fn a_program_overload_of_a_math_function_keeps_the_builtin() {
    // helper_math.h overloads CUDA's math functions for vectors, and its
    // overloads' bodies call the built-ins on each component: the
    // built-in stays a candidate beside one overload (`floorf`) or
    // several (`fminf`).
    let dir = scratch("overloads-math");
    let src = dir.join("m.cu");
    std::fs::write(
        &src,
        "inline __host__ __device__ float2 fminf(float2 a, float2 b) { return make_float2(fminf(a.x, b.x), fminf(a.y, b.y)); }\n\
         inline __host__ __device__ float3 fminf(float3 a, float3 b) { return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)); }\n\
         inline __host__ __device__ float3 floorf(float3 v) { return make_float3(floorf(v.x), floorf(v.y), floorf(v.z)); }\n\
         __global__ void k(float *o) {\n\
           float2 a = fminf(make_float2(o[0], o[1]), make_float2(o[2], o[3]));\n\
           float3 f = floorf(make_float3(o[4] * 9.0f, o[5] * -7.0f, o[6]));\n\
           float3 m = fminf(f, make_float3(o[7], o[7], o[7]));\n\
           o[8] = a.x + 2.0f * a.y + m.x + 4.0f * m.y + 8.0f * m.z + fminf(o[0], o[1]) + floorf(o[2] * 5.0f);\n\
         }\n",
    )
    .unwrap();
    let ptx = dir.join("kernelc.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", ptx.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = |p: &Path, engine: &str| {
        let o = kernelc(&[
            "run",
            p.to_str().unwrap(),
            "--engine",
            engine,
            "--kernel",
            "_Z1kPf",
            "--grid",
            "1",
            "--block",
            "1",
            "f32[]:rand:9:1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        common::stdout(&o)
    };
    let ours = run(&ptx, "emu");
    assert_eq!(ours, run(&src, "interp"));
    let Some(nvcc) = common::nvcc_or_skip("math overloads through nvcc") else {
        return;
    };
    common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
    assert_eq!(ours, run(&dir.join("nvcc.ptx"), "emu"));
}

/// A function and a function template of one name: the template's
/// instance is a candidate too, and wins when its conversions are better
/// (`f(5)` is `f<int>`, not `f(bool)`); on a tie the function wins. (The
/// template used to be considered only when no function had the name.)
#[test]
fn a_template_instance_that_converts_better_beats_a_function() {
    let dir = scratch("overloads-template-vs-function");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "__device__ int f(bool b) { return 100; }\n\
         template <class T> __device__ int f(T v) { return 200; }\n\
         __device__ int g(unsigned m, bool b) { return 1; }\n\
         template <class T> __device__ int g(unsigned m, T v) { return 2; }\n\
         __device__ int h(float x) { return 10; }\n\
         template <class T> __device__ int h(T *p) { return 20; }\n\
         __global__ void k(int *o) {\n\
           o[0] = f(5); o[1] = f(true); o[2] = g(1u, 7); o[3] = g(1u, false);\n\
           o[4] = h(2.0f); o[5] = h(o); o[6] = h(3);\n\
         }\n",
    )
    .unwrap();
    let want: Vec<i32> = vec![200, 100, 2, 1, 10, 20, 10];
    let args: &[&str] = &["i32[]:zeros:7"];
    let one = ["--grid", "1", "--block", "1"];
    let ours = common::launch_buffers(&src, "interp", ("_Z1kPi", args), &dir.join("interp"), &one);
    assert_eq!(ints(ours[0].as_ref().unwrap()), want, "interpreter");
    let Some(nvcc) = common::nvcc_or_skip("overloads-template-vs-function") else {
        return;
    };
    let theirs = dir.join("nvcc.ptx");
    common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &theirs);
    let got = common::launch_buffers(&theirs, "emu", ("_Z1kPi", args), &dir.join("nvcc"), &one);
    assert_eq!(ints(got[0].as_ref().unwrap()), want, "nvcc");
}

/// A character literal is a `char`, as C++ types it (C's `int` picked
/// `kind(int)` and deduced `T` = `int`): each thread's ten values are the
/// expected ones, on the emulator from kernelc's PTX and nvcc's and on the
/// interpreter.
#[test]
fn character_literals_are_chars() {
    let dir = scratch("overloads-char-literals");
    let src = common::root().join("tests/fixtures/templates/char_literals.cu");
    let launch: (&str, &[&str]) = ("_Z8literalsPKiPi", &["i32[]:iota:64", "i32[]:zeros:640"]);
    let runs = common::fixture_runs(&src, &dir, launch);
    let got = ints(&runs.ours[1]);
    for t in 0..64 {
        let i = t as i32;
        let s = [b'x', b'y', b'z', 0];
        let expected = [
            1,
            2,
            1,
            1,
            97 + i,
            -i,
            // `twice<char>`: 194 wraps to a `char`.
            -62,
            i32::from(s[(i & 3) as usize]),
            if i == 1 { 1 } else { 2 },
            // `c ? 'q' : 'r'` is a `char` too.
            1,
        ];
        assert_eq!(&got[10 * t..10 * t + 10], &expected, "thread {t}");
    }
    if let Some((_, theirs)) = runs.theirs {
        assert_eq!(runs.ours, theirs, "nvcc's PTX");
    }
}
