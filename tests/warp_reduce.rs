//! The warp reductions `__reduce_{add,min,max,and,or,xor}_sync` (sm_80):
//! the fixture's kernels compiled by kernelc and by nvcc give the same
//! buffers on the emulator, and kernelc's on the interpreter at -O3 and
//! -O0; the full-warp and split-warp results also match a model written
//! here; kernelc spells each `redux.sync` as nvcc does, ptxas takes it
//! at sm_80, and below sm_80 or with arguments no overload takes a call
//! is a located error.

mod common;

use common::{kernelc, scratch, stderr, u32s};
use kernelc::backend_nvptx::Target;
use kernelc::driver::{compile_source, CompileOptions};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/warp_reduce/reduce.cu")
}

const FULL_WARP: &str = "_Z8fullWarpPKiPjPi";
const DIVERGENT: &str = "_Z9divergentPKiPjPi";
const GROUPS: &str = "_Z6groupsPKiPjPi";

/// Two blocks of 64 threads (whole warps) and of 48 (the second warp of
/// each block has 16 lanes: the lanes a mask names that do not exist take
/// no part).
const BLOCKS: &[&str] = &["64", "48"];

fn args(seed: u32) -> [String; 3] {
    [
        format!("i32[]:rand:128:{seed}"),
        "u32[]:zeros:1536".into(),
        "i32[]:zeros:768".into(),
    ]
}

fn buffers(
    file: &Path,
    engine: &str,
    (kernel, block, seed): (&str, &str, u32),
    options: &[&str],
    out: &Path,
) -> Vec<Option<Vec<u8>>> {
    let args = args(seed);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut shape = vec!["--grid", "2", "--block", block];
    shape.extend_from_slice(options);
    common::launch_buffers(file, engine, (kernel, &args), out, &shape)
}

#[test]
fn warp_reductions_compute_what_nvcc_computes() {
    let dir = scratch("warp-reduce");
    let src = fixture();
    let (_, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let ours = dir.join("kernelc.ptx");
    for (seed, kernel) in [FULL_WARP, DIVERGENT, GROUPS].into_iter().enumerate() {
        for &block in BLOCKS {
            let launch = (kernel, block, seed as u32 + 1);
            let what = format!("{kernel} in blocks of {block}");
            let from_ptx = buffers(&ours, "emu", launch, &[], &dir.join("ours"));
            for opt in ["-O3", "-O0"] {
                let interpreted = buffers(&src, "interp", launch, &[opt], &dir.join("interp"));
                assert_eq!(
                    from_ptx, interpreted,
                    "{what}: the interpreter at {opt} disagrees with the emulator"
                );
            }
            if let Some(theirs) = &theirs {
                let nvcc = buffers(theirs, "emu", launch, &[], &dir.join("theirs"));
                assert_eq!(from_ptx, nvcc, "{what}: kernelc's PTX and nvcc's disagree");
            }
            let bufs: Vec<Vec<u32>> = from_ptx.iter().flatten().map(|b| u32s(b)).collect();
            let threads = 2 * block.parse::<usize>().unwrap();
            check_model(kernel, block, &bufs, threads);
        }
    }
}

/// The nine reductions of `reduceAll` over `values`, as `u32` slots:
/// `u[0..6]` (unsigned add, min, max, and, or, xor) and `s[0..3]` (signed
/// add, min, max).
fn nine(values: &[u32]) -> ([u32; 6], [u32; 3]) {
    let fold = |f: fn(u32, u32) -> u32| values.iter().copied().reduce(f).unwrap();
    let signed = |f: fn(i32, i32) -> i32| {
        values
            .iter()
            .map(|&v| v as i32)
            .reduce(f)
            .map(|v| v as u32)
            .unwrap()
    };
    (
        [
            fold(u32::wrapping_add),
            fold(u32::min),
            fold(u32::max),
            fold(|a, b| a & b),
            fold(|a, b| a | b),
            fold(|a, b| a ^ b),
        ],
        [fold(u32::wrapping_add), signed(i32::min), signed(i32::max)],
    )
}

/// The lanes of `t`'s warp that exist, as thread indices, among those
/// `mask` names.
fn lanes(t: usize, block: usize, mask: u32) -> Vec<usize> {
    let first = t - (t % block) % 32;
    let end = (t - t % block + block).min(first + 32);
    (first..end)
        .filter(|&k| mask & (1 << (k - first)) != 0)
        .collect()
}

/// An independent model of what each kernel writes, from the input buffer
/// the run gave back.
fn check_model(kernel: &str, block: &str, bufs: &[Vec<u32>], threads: usize) {
    let block: usize = block.parse().unwrap();
    let (input, u, s) = (&bufs[0], &bufs[1], &bufs[2]);
    let over = |t: usize, mask: u32, f: &dyn Fn(u32) -> u32| {
        let vals: Vec<u32> = lanes(t, block, mask)
            .into_iter()
            .map(|k| f(input[k]))
            .collect();
        nine(&vals)
    };
    for t in 0..threads {
        let lane = (t % block) % 32;
        let what = format!("{kernel}, blocks of {block}, thread {t}");
        let slots = |base_u: usize, base_s: usize, (eu, es): ([u32; 6], [u32; 3])| {
            assert_eq!(&u[base_u..base_u + 6], &eu, "{what}: unsigned");
            assert_eq!(&s[base_s..base_s + 3], &es, "{what}: signed");
        };
        if kernel == FULL_WARP {
            slots(t * 12, t * 4, over(t, u32::MAX, &|v| v));
            let n = lanes(t, block, u32::MAX).len() as u32;
            assert_eq!(u[t * 12 + 6], n, "{what}: lanes counted");
            let present = lanes(t, block, u32::MAX)
                .iter()
                .fold(0u32, |m, &k| m | 1 << ((k % block) % 32));
            assert_eq!(u[t * 12 + 7], present, "{what}: or of lane bits");
        } else if kernel == DIVERGENT {
            let picked = |k: usize| input[k] & 3 != 0 || (k % block).is_multiple_of(5);
            if !picked(t) {
                assert_eq!(u[t * 9], 0xdead, "{what}: a lane outside the branch");
                continue;
            }
            let mask = lanes(t, block, u32::MAX)
                .into_iter()
                .filter(|&k| picked(k))
                .fold(0u32, |m, k| m | 1 << ((k % block) % 32));
            slots(t * 9, t * 3, over(t, mask, &|v| v));
            assert_eq!(
                u[t * 9 + 6..t * 9 + 9],
                [mask.count_ones(), mask.count_ones(), mask]
            );
        } else if kernel == GROUPS {
            slots(t * 12, t * 6, over(t, 0xff << (lane & !7), &|v| v));
            let (mask, f): (u32, &dyn Fn(u32) -> u32) = if lane & 1 == 1 {
                (0xaaaa_aaaa, &|v| v)
            } else {
                (0x5555_5555, &|v: u32| v.wrapping_neg())
            };
            slots(t * 12 + 6, t * 6 + 3, over(t, mask, f));
        }
    }
}

/// kernelc spells every `redux.sync` of the fixture as nvcc does (the
/// operation and type), as many times.
#[test]
fn redux_forms_are_nvccs() {
    let dir = scratch("warp-reduce-forms");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&fixture(), &dir);
    let forms = |ptx: &str| {
        let mut f: Vec<String> = ptx
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|op| op.starts_with("redux.sync."))
            .map(str::to_string)
            .collect();
        f.sort();
        f
    };
    let mine = forms(&ours);
    for form in [
        "redux.sync.add.s32",
        "redux.sync.min.u32",
        "redux.sync.max.u32",
        "redux.sync.min.s32",
        "redux.sync.max.s32",
        "redux.sync.and.b32",
        "redux.sync.or.b32",
        "redux.sync.xor.b32",
    ] {
        assert!(mine.iter().any(|f| f == form), "no {form} in:\n{ours}");
    }
    assert!(
        !mine.iter().any(|f| f == "redux.sync.add.u32"),
        "nvcc adds unsigned values with .s32"
    );
    if let Some(theirs) = theirs {
        let theirs = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(mine, forms(&theirs));
    }
}

fn compile(source: &str, arch: &str) -> Result<String, String> {
    let opts = CompileOptions {
        target: Target::parse(arch).unwrap(),
        ..CompileOptions::default()
    };
    compile_source("k.cu", source, &opts).map_err(|e| e.to_string())
}

const EVERY_CALL: &[&str] = &[
    "__reduce_add_sync(m, v)",
    "__reduce_min_sync(m, v)",
    "__reduce_max_sync(m, v)",
    "__reduce_add_sync(m, (int)v)",
    "__reduce_min_sync(m, (int)v)",
    "__reduce_max_sync(m, (int)v)",
    "__reduce_and_sync(m, v)",
    "__reduce_or_sync(m, v)",
    "__reduce_xor_sync(m, v)",
];

fn kernel_calling(call: &str) -> String {
    format!("__global__ void k(unsigned *o, unsigned m) {{\n  unsigned v = o[threadIdx.x];\n  o[threadIdx.x] = {call};\n}}\n")
}

/// ptxas takes every form at sm_80, the first target that has
/// `redux.sync`, and at sm_90 and sm_100a.
#[test]
fn ptxas_accepts_every_form_from_sm80() {
    for call in EVERY_CALL {
        let src = kernel_calling(call);
        for arch in ["sm_80", "sm_90", "sm_100a"] {
            let ptx = compile(&src, arch).unwrap_or_else(|e| panic!("{call}: {e}"));
            assert!(ptx.contains("redux.sync."), "{call}:\n{ptx}");
            common::assert_ptxas_accepts(&ptx, arch, call);
        }
    }
}

/// CUDA declares the reductions for sm_80 and newer only: on sm_75 each
/// call is E0029 at the call, naming the target.
#[test]
fn warp_reductions_need_sm80() {
    for call in EVERY_CALL {
        let err = compile(&kernel_calling(call), "sm_75").expect_err(call);
        let name = &call[..call.find('(').unwrap()];
        assert!(err.contains("error[E0029]"), "{call}: {err}");
        assert!(
            err.contains(&format!(
                "`{name}` needs sm_80 or newer (the target is sm_75)"
            )),
            "{call}: {err}"
        );
        assert!(err.contains("k.cu:3:"), "{call}: at the call: {err}");
    }
}

/// The overloads as nvcc resolves them: `float` and `long long` match the
/// `int` and the `unsigned` one equally (ambiguous), a pointer mask
/// matches neither, the bitwise reductions take two `unsigned`s.
#[test]
fn calls_no_overload_takes_are_located_errors() {
    let cases = [
        ("__reduce_add_sync(m, 1.5f)", "E0099", "is ambiguous"),
        ("__reduce_max_sync(m, 1LL)", "E0099", "is ambiguous"),
        ("__reduce_min_sync(o, 1)", "E0099", "no matching overload"),
        ("__reduce_xor_sync(m)", "E0099", "takes 2 arguments"),
        ("__reduce_and_sync(m, o)", "E0004", "cannot convert"),
    ];
    for (call, code, says) in cases {
        let err = compile(&kernel_calling(call), "sm_90").expect_err(call);
        assert!(err.contains(&format!("error[{code}]")), "{call}: {err}");
        assert!(err.contains(says), "{call}: {err}");
        assert!(err.contains("k.cu:3:"), "{call}: at the call: {err}");
    }
    // Narrower integers promote to `int`: the signed minimum.
    let ptx = compile(&kernel_calling("__reduce_min_sync(m, (short)v)"), "sm_90").unwrap();
    assert!(ptx.contains("redux.sync.min.s32"), "{ptx}");
}

/// The command line renders the sm_75 error with its code and location,
/// and writes no output.
#[test]
fn the_command_line_refuses_reductions_below_sm80() {
    let dir = scratch("warp-reduce-sm75");
    let src = dir.join("k.cu");
    std::fs::write(&src, kernel_calling("__reduce_add_sync(m, v)")).unwrap();
    let out = dir.join("k.ptx");
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-arch=sm_75",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!out.exists(), "an output file was left");
    assert!(err.contains("error[E0029]"), "{err}");
    assert!(err.contains("k.cu:3:"), "{err}");
}
