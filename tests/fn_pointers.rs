//! Device function pointers (issue 26): `tests/fixtures/fn_pointers/fn_pointers.cu`
//! compiled by kernelc and by nvcc computes the same buffers on the PTX
//! emulator, and the IR interpreter agrees at -O0 and -O3; indirect calls
//! are PTX's `call` with a `.callprototype`; function pointer parameters
//! and template arguments get nvcc's Itanium names; what kernelc does not
//! support is a located error with a code.

mod common;

use common::{kernelc, scratch, stderr};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/fn_pointers/fn_pointers.cu")
}

/// `k` of fn_pointers.cu and its arguments for 64 threads (two blocks).
const KERNEL: &str = "_Z1kPKfPfPii";
const ARGS: &[&str] = &[
    "f32[]:rand:64:3",
    "f32[]:zeros:512",
    "i32[]:zeros:64",
    "i32:64",
];

/// Runs `k` from `input` (PTX on the emulator, or the source in the IR
/// interpreter with `flags`); the buffers it wrote.
fn run(input: &Path, engine: &[&str], out: &Path) -> Vec<Vec<u8>> {
    let mut argv = vec!["run", input.to_str().unwrap()];
    argv.extend_from_slice(engine);
    argv.extend_from_slice(&[
        "-fmad=false",
        "--kernel",
        KERNEL,
        "--grid",
        "2",
        "--block",
        "32",
        "--out",
        out.to_str().unwrap(),
    ]);
    argv.extend_from_slice(ARGS);
    let o = kernelc(&argv);
    assert!(o.status.success(), "{}", stderr(&o));
    (1..ARGS.len() - 1)
        .map(|k| std::fs::read(out.join(format!("arg{k}.bin"))).unwrap())
        .collect()
}

#[test]
fn function_pointers_compute_what_nvcc_computes() {
    let dir = scratch("fn-pointers");
    let (text, theirs) = common::fixture_ptx_and_nvcc(&fixture(), &dir);
    let ptx = dir.join("kernelc.ptx");
    // `applyTwice` is not inlined: its two calls through `f` are indirect
    // calls as nvcc writes them, and the functions whose addresses the
    // table holds are kept as `.func`s.
    let indirect = text.matches("call (retval0), %rd").count();
    assert!(indirect >= 2, "{text}");
    assert_eq!(text.matches(".callprototype").count(), indirect);
    assert!(
        text.contains(".callprototype (.param .b32 _) _ (.param .b32 _);"),
        "{text}"
    );
    for f in ["_Z4reluf", "_Z6squaref", "_Z6negatef", "_Z5halvef"] {
        assert!(
            text.contains(&format!(".func (.param .b32 func_retval0) {f}(")),
            "{f}: {text}"
        );
        assert!(text.contains(&format!(", {f};")), "mov.u64 of {f}: {text}");
    }
    let ours = run(&ptx, &["--engine", "emu"], &dir.join("ours"));
    // The IR interpreter runs the same calls through its own addresses.
    for level in ["-O0", "-O3"] {
        let out = dir.join(format!("interp{level}"));
        assert_eq!(
            ours,
            run(&fixture(), &[level], &out),
            "interpreter at {level}"
        );
    }
    let Some(theirs) = theirs else {
        return;
    };
    assert_eq!(
        ours,
        run(&theirs, &["--engine", "emu"], &dir.join("theirs"))
    );
}

/// The `.entry` names of a PTX file, sorted.
fn entries(ptx: &str) -> Vec<String> {
    let mut names: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn function_pointer_parameters_and_template_arguments_get_nvccs_names() {
    let dir = scratch("fn-pointer-names");
    let src = dir.join("n.cu");
    std::fs::write(
        &src,
        "__device__ float warpMax(float v) { return v * 2.0f; }\n\
         __device__ float warpSum(float v) { return v + 1.0f; }\n\
         template <float (*Op)(float)> __device__ float twice(float v) { return Op(Op(v)); }\n\
         template <float (*Op)(float)> __global__ void k(float *o) { o[0] = twice<Op>(o[0]); }\n\
         template __global__ void k<warpMax>(float *);\n\
         template __global__ void k<&warpSum>(float *);\n\
         using fn = float (*)(float);\n\
         __global__ void apply(float *o, int n, fn f) { if (n > 0 && f) o[0] = f(o[0]); }\n",
    )
    .unwrap();
    let text = common::fixture_ptx(&src, &dir);
    let ours = entries(&text);
    // nvcc 13.5's names (checked with `nvcc -ptx`): `&f` as an expression
    // whether the argument is written `f` or `&f`, and `PFffE`.
    assert_eq!(
        ours,
        [
            "_Z1kIXadL_Z7warpMaxfEEEvPf",
            "_Z1kIXadL_Z7warpSumfEEEvPf",
            "_Z5applyPfiPFffE"
        ]
    );
    // Each instance calls its function directly (inlined: no call left);
    // the one call is `apply`'s, through its parameter.
    let calls = text.lines().filter(|l| l.trim_start().starts_with("call"));
    assert_eq!(calls.count(), 1, "{text}");
    assert!(
        text.contains("call (retval0), %rd3, (param0), prototype_0;"),
        "{text}"
    );
    if let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "function pointer names") {
        assert_eq!(ours, entries(&theirs));
    }
}

/// Function pointer types with reference parameters (llama.cpp's
/// `dequantize_kernel_t`): static functions of that type as kernel
/// template arguments get nvcc's names (`...EPKvliR6float2EE`), and calls
/// through pointers bind `float &` and `const float &` parameters as
/// direct calls do; the buffers are nvcc's on the emulator, and the
/// interpreter's.
#[test]
fn function_pointer_types_take_reference_parameters() {
    let dir = scratch("fn-pointer-refs");
    let src = common::root().join("tests/fixtures/fn_pointers/ref_params.cu");
    let (text, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let ours = entries(&text);
    assert_eq!(ours.len(), 3, "{ours:?}");
    for name in ["10dq_nibblesEPKvliR6float2EE", "8dq_bytesEPKvliR6float2EE"] {
        assert!(ours.iter().any(|e| e.contains(name)), "{name}: {ours:?}");
    }
    let launches: Vec<(String, Vec<&str>)> = ours
        .iter()
        .map(|e| match e.as_str() {
            "_Z10accumulatePKfPfi" => (
                e.clone(),
                vec!["f32[]:rand:64:1", "f32[]:zeros:64", "i32:1"],
            ),
            _ => (e.clone(), vec!["u8[]:rand:64:2", "f32[]:zeros:64"]),
        })
        .collect();
    for (k, (kernel, args)) in launches.iter().enumerate() {
        let launch = (kernel.as_str(), &args[..]);
        let mine = common::emu_buffers(
            &dir.join("kernelc.ptx"),
            launch,
            &dir.join(format!("ours{k}")),
        );
        assert!(
            mine.iter().any(|b| b.iter().any(|&x| x != 0)),
            "{kernel} wrote nothing"
        );
        let shape = ["--grid", "2", "--block", "32"];
        let interp = common::launch_buffers(
            &src,
            "interp",
            launch,
            &dir.join(format!("interp{k}")),
            &shape,
        );
        let interp: Vec<Vec<u8>> = interp.into_iter().skip(1).flatten().collect();
        assert_eq!(mine, interp, "{kernel}: the interpreter");
        if let Some(theirs) = &theirs {
            let nvcc = common::emu_buffers(theirs, launch, &dir.join(format!("theirs{k}")));
            assert_eq!(mine, nvcc, "{kernel}: nvcc's PTX");
        }
    }
    if let Some(theirs) = &theirs {
        assert_eq!(ours, entries(&std::fs::read_to_string(theirs).unwrap()));
    }
}

#[test]
fn a_call_through_a_known_address_is_inlined() {
    // Once the pointer is a known function's address, the call is a direct
    // call and is inlined, as nvcc does; at -O0 it stays indirect.
    let dir = scratch("fn-pointer-devirt");
    let src = dir.join("d.cu");
    std::fs::write(
        &src,
        "__device__ float addp(const float *p, float x) { return *p + x; }\n\
         __global__ void k(float *o) { float (*g)(const float *, float) = addp; o[0] = g(o + 1, 1.0f); }\n",
    )
    .unwrap();
    let text = common::fixture_ptx(&src, &dir);
    assert!(!text.contains("call") && !text.contains("addp"), "{text}");
    let ptx = dir.join("o0.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-O0", "-o", ptx.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert!(
        text.contains(".callprototype (.param .b32 _) _ (.param .b64 _, .param .b32 _);"),
        "{text}"
    );
}

/// Compiles `source`: it must fail with `code` and write nothing; stderr.
fn rejected(source: &str, code: &str) -> String {
    common::rejected_with("fn-pointer-errors", source, code)
}

#[test]
fn misuses_of_function_pointers_are_located_errors() {
    let head = "typedef float (*fn_t)(float);\n\
                __device__ float relu(float x) { return fmaxf(x, 0.0f); }\n";
    // nvcc: "identifier is undefined in device code".
    let err = rejected(
        "float hostf(float x) { return x; }\n\
         typedef float (*fn_t)(float);\n\
         __global__ void k(float *o) { fn_t f = hostf; o[0] = f(o[0]); }\n",
        "E0017",
    );
    assert!(
        err.contains("host function `hostf` cannot be used in device code"),
        "{err}"
    );
    assert!(err.contains("3:40"), "{err}");
    // Pointers to members: nvcc takes them, kernelc does not.
    let err = rejected(
        "struct S { __device__ float g(float x) { return x; } };\n\
         __global__ void k(float *o) { float (S::*pm)(float) = &S::g; o[0] = 0; }\n",
        "E0002",
    );
    assert!(
        err.contains("pointers to members are not supported"),
        "{err}"
    );
    let err = rejected(
        "struct S { __device__ float g(float x) { return x; } };\n\
         __global__ void k(float *o) { S s; o[0] = (s.*(&S::g))(1.0f); }\n",
        "E0002",
    );
    assert!(err.contains("`.*`, `->*`"), "{err}");
    // A kernel's address (dynamic parallelism) in device code.
    let err = rejected(
        "__global__ void other(float *o) {}\n\
         __global__ void k(float *o) { void (*f)(float *) = other; (void)f; }\n",
        "E0002",
    );
    assert!(err.contains("`__global__` function `other`"), "{err}");
    // Another function type, arithmetic, argument counts.
    let err = rejected(
        &format!("{head}__device__ int one(int x) {{ return x; }}\n__global__ void k(float *o) {{ fn_t f = one; o[0] = f(1.0f); }}\n"),
        "E0004",
    );
    assert!(
        err.contains("cannot convert `int (*)(int)` to `float (*)(float)`"),
        "{err}"
    );
    let err = rejected(
        &format!(
            "{head}__global__ void k(float *o) {{ fn_t f = relu; f = f + 1; o[0] = f(1.0f); }}\n"
        ),
        "E0004",
    );
    assert!(err.contains("arithmetic on a function pointer"), "{err}");
    let err = rejected(
        &format!("{head}__global__ void k(float *o) {{ fn_t f = relu; o[0] = f(1.0f, 2.0f); }}\n"),
        "E0007",
    );
    assert!(
        err.contains("too many arguments to a call through `float (*)(float)`"),
        "{err}"
    );
    // What kernelc cannot pass through a pointer yet.
    let err = rejected(
        "struct P { float a, b; };\n\
         __global__ void k(float *o) { float (*f)(P) = 0; (void)f; }\n",
        "E0002",
    );
    assert!(
        err.contains("struct parameters in function pointer types"),
        "{err}"
    );
    // A template argument that is not a function.
    let err = rejected(
        &format!(
            "{head}template <fn_t Op> __device__ float ap(float v) {{ return Op(v); }}\n\
                  __global__ void k(float *o) {{ o[0] = ap<1>(o[0]); }}\n"
        ),
        "E0019",
    );
    assert!(err.contains("must name a function"), "{err}");
}
