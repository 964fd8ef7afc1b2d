//! CUB's block and warp collectives in device code (kernelc's header of
//! source `frontend/headers/cub.cuh`): the fixtures compiled by kernelc
//! and by nvcc with NVIDIA's CUB (`-I` the toolkit's CCCL headers) hold
//! the same kernels, and each launch gives the same bits on kernelc's
//! interpreter and emulator and from nvcc's PTX on the emulator, floating
//! sums whose order matters included. CUB names outside the subset are a
//! located error in device code and nothing in host code.

mod common;

use common::{kernelc, scratch, stderr};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    common::root().join("tests/fixtures/cub").join(name)
}

/// A launch: kernel, block shape, arguments (over 2 blocks).
type Launch<'a> = (&'a str, &'a str, &'a [&'a str]);

/// `reduce.cu`'s launches: block sums over 128, 256, 96 (three warps), 32
/// and 16 threads; partial blocks of floats and doubles; integer sums,
/// maxima, minima and order-sensitive operators; a 2-D block; warps and
/// logical warps of 16 and 8 lanes; a kernel template over the operator,
/// whose name spells libcu++'s inline namespace (the empty functor passed
/// by value is a byte of parameter space).
const REDUCE: &[Launch] = &[
    (
        "_Z8blockSumILi128EEvPKfPf",
        "128",
        &["f32[]:rand:256:1", "f32[]:zeros:4"],
    ),
    (
        "_Z8blockSumILi256EEvPKfPf",
        "256",
        &["f32[]:rand:512:2", "f32[]:zeros:4"],
    ),
    (
        "_Z8blockSumILi96EEvPKfPf",
        "96",
        &["f32[]:rand:192:3", "f32[]:zeros:4"],
    ),
    (
        "_Z8blockSumILi32EEvPKfPf",
        "32",
        &["f32[]:rand:64:4", "f32[]:zeros:4"],
    ),
    (
        "_Z8blockSumILi16EEvPKfPf",
        "16",
        &["f32[]:rand:32:5", "f32[]:zeros:4"],
    ),
    (
        "_Z13blockSumValidILi128EEvPKfPKdPfPd",
        "128",
        &[
            "f32[]:rand:256:6",
            "f64[]:rand:256:7",
            "f32[]:zeros:14",
            "f64[]:zeros:14",
        ],
    ),
    (
        "_Z13blockSumValidILi96EEvPKfPKdPfPd",
        "96",
        &[
            "f32[]:rand:192:8",
            "f64[]:rand:192:9",
            "f32[]:zeros:14",
            "f64[]:zeros:14",
        ],
    ),
    (
        "_Z14blockReduceOpsILi256EEvPKiPiPj",
        "256",
        &["i32[]:rand:512:10", "i32[]:zeros:8", "u32[]:zeros:4"],
    ),
    (
        "_Z14blockReduceOpsILi64EEvPKiPiPj",
        "64",
        &["i32[]:rand:128:11", "i32[]:zeros:8", "u32[]:zeros:4"],
    ),
    (
        "_Z13blockReduce2dPKfPf",
        "16,8",
        &["f32[]:rand:256:12", "f32[]:zeros:6"],
    ),
    (
        "_Z15blockReduceWithIN4cuda3__47maximumIvEEEvPKiPiT_",
        "64",
        &["i32[]:rand:128:14", "i32[]:zeros:2", "u8[]:zeros:1"],
    ),
    (
        "_Z15blockReduceWithIN4cuda3std3__44plusIiEEEvPKiPiT_",
        "64",
        &["i32[]:rand:128:15", "i32[]:zeros:2", "u8[]:zeros:1"],
    ),
    (
        "_Z14warpReductionsPKfPfPiPd",
        "128",
        &[
            "f32[]:rand:256:13",
            "f32[]:zeros:24",
            "i32[]:zeros:32",
            "f64[]:zeros:32",
        ],
    ),
];

/// `scan.cu`'s launches: inclusive and exclusive sums with and without
/// the block's total, of `int` over 128 and 96 threads, of `long long`
/// over 256, of `unsigned int` over 16, and over a 2-D block.
const SCAN: &[Launch] = &[
    (
        "_Z8scanSumsIiLi128EEvPKiPT_S3_S3_",
        "128",
        &[
            "i32[]:rand:256:21",
            "i32[]:zeros:256",
            "i32[]:zeros:256",
            "i32[]:zeros:4",
        ],
    ),
    (
        "_Z8scanSumsIiLi96EEvPKiPT_S3_S3_",
        "96",
        &[
            "i32[]:rand:192:22",
            "i32[]:zeros:192",
            "i32[]:zeros:192",
            "i32[]:zeros:4",
        ],
    ),
    (
        "_Z8scanSumsIxLi256EEvPKiPT_S3_S3_",
        "256",
        &[
            "i32[]:rand:512:23",
            "i64[]:zeros:512",
            "i64[]:zeros:512",
            "i64[]:zeros:4",
        ],
    ),
    (
        "_Z8scanSumsIjLi16EEvPKiPT_S3_S3_",
        "16",
        &[
            "i32[]:rand:32:24",
            "u32[]:zeros:32",
            "u32[]:zeros:32",
            "u32[]:zeros:4",
        ],
    ),
    (
        "_Z6scan2dPKiPj",
        "32,4",
        &["i32[]:rand:256:25", "u32[]:zeros:256"],
    ),
];

fn buffers(file: &Path, engine: &str, launch: &Launch, out: &Path) -> Vec<Option<Vec<u8>>> {
    let (kernel, block, args) = *launch;
    let shape = ["--grid", "2", "--block", block];
    common::launch_buffers(file, engine, (kernel, args), out, &shape)
}

/// The `-I` of the toolkit's CCCL headers, for nvcc to read NVIDIA's CUB;
/// `None` (a loud skip, a failure in CI) without them.
fn cccl() -> Option<Vec<String>> {
    common::cuda_headers_or_skip().map(|h| vec![format!("-I{}", h.join("cccl").display())])
}

/// The sorted `.entry` names of a PTX text.
fn entries(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .map(|rest| rest.split('(').next().unwrap_or(rest).to_string())
        .collect()
}

/// Runs every launch of the fixture `name` on the three engines and wants
/// the same buffers; kernelc's and nvcc's PTX (both through ptxas) hold
/// the same kernels. Gives kernelc's buffers per launch.
fn same_as_nvcc(name: &str, launches: &[Launch]) -> Vec<Vec<Option<Vec<u8>>>> {
    let dir = scratch(&format!("cub-{name}"));
    let src = fixture(name);
    let theirs = match cccl() {
        Some(flags) => common::fixture_ptx_and_nvcc_with(&src, &dir, &flags).1,
        None => {
            common::fixture_ptx(&src, &dir);
            None
        }
    };
    let ours = dir.join("kernelc.ptx");
    let ours_text = std::fs::read_to_string(&ours).unwrap();
    let launched: BTreeSet<String> = launches.iter().map(|l| l.0.to_string()).collect();
    assert_eq!(
        entries(&ours_text),
        launched,
        "{name}: every kernel is launched"
    );
    if let Some(theirs) = &theirs {
        let theirs_text = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(
            entries(&ours_text),
            entries(&theirs_text),
            "{name}: kernel names"
        );
    }
    let mut all = Vec::new();
    for launch in launches {
        let from_ptx = buffers(&ours, "emu", launch, &dir.join("ours"));
        let interpreted = buffers(&src, "interp", launch, &dir.join("interp"));
        assert_eq!(
            from_ptx, interpreted,
            "{}: the interpreter disagrees",
            launch.0
        );
        if let Some(theirs) = &theirs {
            let nvcc = buffers(theirs, "emu", launch, &dir.join("theirs"));
            assert_eq!(
                from_ptx, nvcc,
                "{}: kernelc's PTX and nvcc's disagree",
                launch.0
            );
        }
        all.push(from_ptx);
    }
    all
}

fn f32s(b: &Option<Vec<u8>>) -> Vec<f32> {
    common::f32s(b.as_deref().unwrap())
}

#[test]
fn block_and_warp_reductions_compute_what_cub_computes() {
    let runs = same_as_nvcc("reduce.cu", REDUCE);
    // blockSum stores CUB's sum and thread 0's left-to-right one per block:
    // over the wider blocks they differ, so only CUB's order gives CUB's
    // bits (and the comparison with nvcc above could fail).
    let differ = runs[..3]
        .iter()
        .flat_map(|run| {
            let out = f32s(&run[1]);
            (0..2).map(move |b| (out[2 * b], out[2 * b + 1]))
        })
        .filter(|(cub, serial)| cub.to_bits() != serial.to_bits())
        .count();
    assert!(
        differ >= 4,
        "the order of the sums should matter: {differ} of 6 differ"
    );
    // Results are not zeros left in place.
    let warp = f32s(&runs[12][1]);
    assert!(warp.iter().all(|v| *v != 0.0), "{warp:?}");
}

#[test]
fn block_scans_compute_what_cub_computes() {
    let runs = same_as_nvcc("scan.cu", SCAN);
    // The 96-thread inclusive sums are the running sums of the inputs.
    let input = common::i32s(runs[1][0].as_deref().unwrap());
    let inclusive = common::i32s(runs[1][1].as_deref().unwrap());
    let mut running = 0;
    for (k, v) in input[..96].iter().enumerate() {
        running += v % 2000 - 700;
        assert_eq!(inclusive[k], running, "thread {k}");
    }
}

/// A CUB class outside the subset in device code is E0002 at its name,
/// pointing at the include, and nothing else; CUB 3 has no `cub::Sum`
/// (nvcc rejects it too), and kernelc refuses it the same way.
#[test]
fn cub_outside_the_subset_is_a_located_error() {
    let radix = common::rejected_with(
        "cub-radix",
        "#include <cub/cub.cuh>\n__global__ void k(int *o) {\n\
         typedef cub::BlockRadixSort<int, 128, 4> Sort;\n\
         __shared__ typename Sort::TempStorage t;\n  o[0] = 1;\n}\n",
        "E0002",
    );
    assert!(
        radix.contains("error[E0002]: `cub::BlockRadixSort` is not supported by kernelc")
            && radix.contains("e.cu:3:9")
            && radix.contains("CUB is included here")
            && radix.contains("`cub::BlockReduce`"),
        "{radix}"
    );
    assert_eq!(radix.matches("error[").count(), 1, "{radix}");
    let sum = common::rejected_with(
        "cub-sum",
        "#include <cub/block/block_reduce.cuh>\n__global__ void k(float *o) {\n\
         typedef cub::BlockReduce<float, 32> R;\n  __shared__ typename R::TempStorage t;\n\
         o[0] = R(t).Reduce(o[threadIdx.x], cub::Sum());\n}\n",
        "E0002",
    );
    assert!(
        sum.contains("error[E0002]: `cub::Sum` is not supported by kernelc")
            && sum.contains("e.cu:5:"),
        "{sum}"
    );
    // NVIDIA's CUB 3 has no `cub::Sum` either.
    if let (Some(nvcc), Some(flags)) = (common::nvcc_or_skip("cub::Sum through nvcc"), cccl()) {
        let dir = scratch("cub-sum-nvcc");
        let src = dir.join("k.cu");
        std::fs::write(
            &src,
            "#include <cub/cub.cuh>\n__global__ void k(float *o) { o[0] = cub::Sum()(o[1], o[2]); }\n",
        )
        .unwrap();
        let o = std::process::Command::new(nvcc)
            .args(["-ptx", "-arch=sm_90"])
            .args(&flags)
            .arg(&src)
            .arg("-o")
            .arg(dir.join("k.ptx"))
            .output()
            .expect("cannot run nvcc");
        assert!(!o.status.success(), "nvcc accepted cub::Sum");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("Sum"),
            "{}",
            stderr(&o)
        );
    }
}

/// A floating `BlockScan`, whose bits would depend on CUB's raking order,
/// is refused at its instantiation.
#[test]
fn floating_block_scans_are_refused() {
    let err = common::rejected_with(
        "cub-float-scan",
        "#include <cub/block/block_scan.cuh>\n__global__ void k(float *o) {\n\
         typedef cub::BlockScan<float, 64> S;\n  __shared__ typename S::TempStorage t;\n\
         float r;\n  S(t).InclusiveSum(o[threadIdx.x], r);\n  o[threadIdx.x] = r;\n}\n",
        "E0013",
    );
    assert!(
        err.contains("sums integer types only") && err.contains("e.cu:3:"),
        "{err}"
    );
}

/// Host code may use CUB's device-wide algorithms: kernelc skips it and
/// compiles the kernels beside it, which may use the block collectives.
#[test]
fn host_code_may_use_all_of_cub() {
    let dir = scratch("cub-host");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "#include <cub/cub.cuh>\n\
         __global__ void total(const float *in, float *out) {\n\
           typedef cub::BlockReduce<float, 64> R;\n  __shared__ typename R::TempStorage t;\n\
           float s = R(t).Sum(in[threadIdx.x]);\n  if (threadIdx.x == 0) *out = s;\n}\n\
         void sum_all(const float *in, float *out, int n) {\n\
           void *temp = nullptr; size_t bytes = 0;\n\
           cub::DeviceReduce::Sum(temp, bytes, in, out, n);\n\
           total<<<1, 64>>>(in, out);\n}\n",
    )
    .unwrap();
    let out = dir.join("k.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning[W0009]") && err.contains("k.cu:1:1"),
        "{err}"
    );
    let ptx = std::fs::read_to_string(&out).unwrap();
    assert!(ptx.contains(".entry _Z5totalPKfPf("), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90", "host-code CUB");
}
