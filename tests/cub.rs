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
/// logical warps of 16 and 8 lanes; the raking algorithms over 24, 100 and
/// 256 threads and the commutative-only one over 128 and 96; a kernel
/// template over the operator,
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
        "_Z12rakingReduceILi1ELi24EEvPKfPKdPfPdPj",
        "24",
        &[
            "f32[]:rand:48:16",
            "f64[]:rand:48:17",
            "f32[]:zeros:10",
            "f64[]:zeros:2",
            "u32[]:zeros:2",
        ],
    ),
    (
        "_Z12rakingReduceILi1ELi100EEvPKfPKdPfPdPj",
        "100",
        &[
            "f32[]:rand:200:18",
            "f64[]:rand:200:19",
            "f32[]:zeros:10",
            "f64[]:zeros:2",
            "u32[]:zeros:2",
        ],
    ),
    (
        "_Z12rakingReduceILi1ELi256EEvPKfPKdPfPdPj",
        "256",
        &[
            "f32[]:rand:512:20",
            "f64[]:rand:512:21",
            "f32[]:zeros:10",
            "f64[]:zeros:2",
            "u32[]:zeros:2",
        ],
    ),
    (
        "_Z12rakingReduceILi0ELi128EEvPKfPKdPfPdPj",
        "128",
        &[
            "f32[]:rand:256:22",
            "f64[]:rand:256:23",
            "f32[]:zeros:10",
            "f64[]:zeros:2",
            "u32[]:zeros:2",
        ],
    ),
    (
        "_Z12rakingReduceILi0ELi96EEvPKfPKdPfPdPj",
        "96",
        &[
            "f32[]:rand:192:24",
            "f64[]:rand:192:25",
            "f32[]:zeros:10",
            "f64[]:zeros:2",
            "u32[]:zeros:2",
        ],
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

/// `scan_ops.cu`'s launches: six floating scans a thread with CUB's
/// raking algorithm over 16 and 24 threads (one logical warp, of 2^k lanes
/// and not), 100 (25 raking threads, the last segment partial), 256 and
/// (memoizing) a 16x6 block; the warp-scans algorithm over 128; doubles
/// over 160; warp scans of whole and logical warps; the forms over arrays
/// of 4, 3 and 1 items a thread.
const SCAN_OPS: &[Launch] = &[
    (
        "_Z10blockScansIfLi16ELi0ELi1EEvPKfPT_S3_",
        "16",
        &["f32[]:rand:32:31", "f32[]:zeros:192", "f32[]:zeros:6"],
    ),
    (
        "_Z10blockScansIfLi24ELi0ELi1EEvPKfPT_S3_",
        "24",
        &["f32[]:rand:48:32", "f32[]:zeros:288", "f32[]:zeros:6"],
    ),
    (
        "_Z10blockScansIfLi100ELi0ELi1EEvPKfPT_S3_",
        "100",
        &["f32[]:rand:200:33", "f32[]:zeros:1200", "f32[]:zeros:6"],
    ),
    (
        "_Z10blockScansIfLi256ELi0ELi1EEvPKfPT_S3_",
        "256",
        &["f32[]:rand:512:35", "f32[]:zeros:3072", "f32[]:zeros:6"],
    ),
    (
        "_Z10blockScansIfLi96ELi1ELi6EEvPKfPT_S3_",
        "16,6",
        &["f32[]:rand:192:36", "f32[]:zeros:1152", "f32[]:zeros:6"],
    ),
    (
        "_Z10blockScansIfLi128ELi2ELi1EEvPKfPT_S3_",
        "128",
        &["f32[]:rand:256:37", "f32[]:zeros:1536", "f32[]:zeros:6"],
    ),
    (
        "_Z10blockScansIdLi160ELi0ELi1EEvPKfPT_S3_",
        "160",
        &["f32[]:rand:320:39", "f64[]:zeros:1920", "f64[]:zeros:6"],
    ),
    (
        "_Z9warpScansPKfPfPd",
        "128",
        &["f32[]:rand:256:41", "f32[]:zeros:2560", "f64[]:zeros:1280"],
    ),
    (
        "_Z10arrayScansIfLi64ELi0ELi4EEvPKfPT_S3_",
        "64",
        &["f32[]:rand:512:42", "f32[]:zeros:4608", "f32[]:zeros:10"],
    ),
    (
        "_Z10arrayScansIdLi96ELi2ELi3EEvPKfPT_S3_",
        "96",
        &["f32[]:rand:576:43", "f64[]:zeros:5184", "f64[]:zeros:10"],
    ),
    (
        "_Z10arrayScansIfLi32ELi0ELi1EEvPKfPT_S3_",
        "32",
        &["f32[]:rand:64:44", "f32[]:zeros:576", "f32[]:zeros:10"],
    ),
];

/// `load_store.cu`'s launches: block loads and stores of each algorithm
/// over 64, 96, 128, 48 and 100 threads and 16x4 and 32x4 blocks, and
/// the direct functions over 64; `BlockExchange` over 64 threads of 4
/// items and 96 of 3.
const LOAD_STORE: &[Launch] = &[
    (
        "_Z9loadStoreILi64ELi0ELi0ELi1EEvPKfPf",
        "64",
        &["f32[]:rand:1024:51", "f32[]:zeros:3072"],
    ),
    (
        "_Z9loadStoreILi96ELi1ELi0ELi1EEvPKfPf",
        "96",
        &["f32[]:rand:1024:52", "f32[]:zeros:3072"],
    ),
    (
        "_Z9loadStoreILi128ELi2ELi1ELi1EEvPKfPf",
        "128",
        &["f32[]:rand:1024:53", "f32[]:zeros:3072"],
    ),
    (
        "_Z9loadStoreILi48ELi3ELi2ELi1EEvPKfPf",
        "48",
        &["f32[]:rand:1024:54", "f32[]:zeros:3072"],
    ),
    (
        "_Z9loadStoreILi64ELi4ELi4ELi4EEvPKfPf",
        "16,4",
        &["f32[]:rand:1024:55", "f32[]:zeros:3072"],
    ),
    (
        "_Z9loadStoreILi128ELi5ELi5ELi4EEvPKfPf",
        "32,4",
        &["f32[]:rand:1024:56", "f32[]:zeros:3072"],
    ),
    (
        "_Z9loadStoreILi100ELi0ELi3ELi1EEvPKfPf",
        "100",
        &["f32[]:rand:1024:57", "f32[]:zeros:3072"],
    ),
    (
        "_Z15directFunctionsPiS_",
        "64",
        &["i32[]:rand:384:58", "i32[]:zeros:3072"],
    ),
    (
        "_Z8exchangeILi64ELi4EEvPKfPf",
        "64",
        &["f32[]:rand:512:59", "f32[]:zeros:3584"],
    ),
    (
        "_Z8exchangeILi96ELi3EEvPKfPf",
        "96",
        &["f32[]:rand:576:60", "f32[]:zeros:4032"],
    ),
];

/// `radix_sort.cu`'s launches: seven sorts of `unsigned int` keys over 32
/// threads of 4 (one warp's scan ranks them), three each of `int` over a
/// 16x4 block of 1 (warp scans), `float` 5 bits a pass over 48 threads of
/// 2 (a raking scan) and `double` over 16 threads of 1.
const RADIX_SORT: &[Launch] = &[
    (
        "_Z9radixSortIjLi32ELi32ELi4ELi4ELi7EEvPKjPT_Pi",
        "32",
        &["u32[]:rand:256:71", "u32[]:zeros:1792", "i32[]:zeros:1024"],
    ),
    (
        "_Z9radixSortIiLi64ELi16ELi1ELi4ELi3EEvPKjPT_Pi",
        "16,4",
        &["u32[]:rand:128:72", "i32[]:zeros:896", "i32[]:zeros:512"],
    ),
    (
        "_Z9radixSortIfLi48ELi48ELi2ELi5ELi3EEvPKjPT_Pi",
        "48",
        &["u32[]:rand:192:73", "f32[]:zeros:1344", "i32[]:zeros:768"],
    ),
    (
        "_Z9radixSortIdLi16ELi16ELi1ELi4ELi3EEvPKjPT_Pi",
        "16",
        &["u32[]:rand:32:74", "f64[]:zeros:224", "i32[]:zeros:128"],
    ),
];

/// Runs `launch` over 2 blocks on `engine` (`level`: the `-O` level a
/// source file is compiled at for the interpreter).
fn buffers(
    file: &Path,
    (engine, level): (&str, &str),
    launch: &Launch,
    out: &Path,
) -> Vec<Option<Vec<u8>>> {
    let (kernel, block, args) = *launch;
    let shape = ["--grid", "2", "--block", block, "-O", level];
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
/// the same kernels. The interpreter runs the fixture compiled at
/// `-O interp_level` (0 for the larger fixtures: their optimization in a
/// debug build costs seconds a launch, and the emulator runs the
/// optimized PTX). Gives kernelc's buffers per launch.
fn same_as_nvcc(name: &str, launches: &[Launch], interp_level: &str) -> Vec<Vec<Option<Vec<u8>>>> {
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
        let from_ptx = buffers(&ours, ("emu", "3"), launch, &dir.join("ours"));
        let interpreted = buffers(&src, ("interp", interp_level), launch, &dir.join("interp"));
        assert_eq!(
            from_ptx, interpreted,
            "{}: the interpreter disagrees",
            launch.0
        );
        if let Some(theirs) = &theirs {
            let nvcc = buffers(theirs, ("emu", "3"), launch, &dir.join("theirs"));
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
    let runs = same_as_nvcc("reduce.cu", REDUCE, "0");
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
    let warp = f32s(&runs[17][1]);
    assert!(warp.iter().all(|v| *v != 0.0), "{warp:?}");
}

#[test]
fn block_scans_compute_what_cub_computes() {
    let runs = same_as_nvcc("scan.cu", SCAN, "3");
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
    let histogram = common::rejected_with(
        "cub-histogram",
        "#include <cub/cub.cuh>\n__global__ void k(int *o) {\n\
         typedef cub::BlockHistogram<int, 128, 4, 16> H;\n\
         __shared__ typename H::TempStorage t;\n  o[0] = 1;\n}\n",
        "E0002",
    );
    assert!(
        histogram.contains("error[E0002]: `cub::BlockHistogram` is not supported by kernelc")
            && histogram.contains("e.cu:3:9")
            && histogram.contains("CUB is included here")
            && histogram.contains("`cub::BlockReduce`"),
        "{histogram}"
    );
    assert_eq!(histogram.matches("error[").count(), 1, "{histogram}");
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

/// `spread` of `scan_ops.cu` and `reduce.cu`.
fn spread(input: &[f32], i: usize) -> f32 {
    let mut v = input[i] - 0.5;
    if i.is_multiple_of(3) {
        v *= 4096.0;
    }
    if i.is_multiple_of(7) {
        v *= 1.0e-3;
    }
    v
}

#[test]
fn floating_block_and_warp_scans_compute_what_cub_computes() {
    let runs = same_as_nvcc("scan_ops.cu", SCAN_OPS, "0");
    // The 256-thread block's inclusive sums (CUB's raking order) differ
    // from left-to-right running sums somewhere, so only CUB's order
    // gives CUB's bits (and the comparison with nvcc above could fail).
    let input = f32s(&runs[3][0]);
    let sums = f32s(&runs[3][1]);
    let mut differ = 0;
    for block in 0..2 {
        let mut running = 0.0f32;
        for t in 0..256 {
            let i = block * 256 + t;
            running += spread(&input, i);
            differ += usize::from(running.to_bits() != sums[i].to_bits());
        }
    }
    assert!(
        differ >= 10,
        "the order of the sums should matter: {differ} differ"
    );
    // Results are not zeros left in place.
    let warp = f32s(&runs[7][1]);
    assert!(
        warp[..256].iter().filter(|v| **v == 0.0).count() < 4,
        "{warp:?}"
    );
}

#[test]
fn block_loads_and_stores_move_what_cub_moves() {
    let runs = same_as_nvcc("load_store.cu", LOAD_STORE, "0");
    // Direct over 64 threads: item k of thread t is tile item 4t + k,
    // stored back in place plus 8t + k.
    let input = f32s(&runs[0][0]);
    let out = f32s(&runs[0][1]);
    for p in 0..256 {
        let mark = (p / 4 * 8 + p % 4) as f32;
        assert_eq!(out[p].to_bits(), (input[p] + mark).to_bits(), "item {p}");
    }
    // Guarded with a default: the items past 256 - 37 are 7.5 less the
    // thread.
    assert_eq!(out[2 * 256 + 255], 7.5 - 63.0);
    // BlockExchange over 64 threads of 4 items: blocked to striped gives
    // thread t the tile's items t, t + 64, ...; the scatter to the
    // reversed tile gives thread t the items 255 - 4t - k.
    let input = f32s(&runs[8][0]);
    let out = f32s(&runs[8][1]);
    for t in 0..64 {
        for k in 0..4 {
            let got = out[t * 4 + k].to_bits();
            assert_eq!(got, input[k * 64 + t].to_bits(), "striped {t} {k}");
            let scattered = out[5 * 256 + t * 4 + k].to_bits();
            assert_eq!(
                scattered,
                input[255 - 4 * t - k].to_bits(),
                "scattered {t} {k}"
            );
        }
    }
}

/// Checks one block's sort of `keys` (their places as values) from the
/// `input` keys: the keys in order (`descending` or not), each the input
/// key at its value's place, and equal keys in their input order.
fn assert_stable_sort(input: &[u32], keys: &[u32], values: &[i32], descending: bool) {
    for (i, (k, v)) in keys.iter().zip(values).enumerate() {
        assert_eq!(*k, input[*v as usize], "item {i}: its value's key");
        if i > 0 {
            let (before, at) = (keys[i - 1], *k);
            let ordered = if descending {
                before >= at
            } else {
                before <= at
            };
            assert!(ordered, "items {} and {i}: {before} then {at}", i - 1);
            if before == at {
                assert!(values[i - 1] < *v, "item {i}: equal keys out of order");
            }
        }
    }
    let mut places: Vec<i32> = values.to_vec();
    places.sort_unstable();
    assert!(
        places.iter().copied().eq(0..input.len() as i32),
        "a permutation"
    );
}

#[test]
fn block_radix_sorts_sort_as_cub_does() {
    let runs = same_as_nvcc("radix_sort.cu", RADIX_SORT, "0");
    // The unsigned keys of the first block, made as `make_key` makes them
    // (many equal), sorted ascending and descending with their places.
    let raw = common::u32s(runs[0][0].as_deref().unwrap());
    let input: Vec<u32> = raw[..128]
        .iter()
        .map(|r| if r & 3 != 0 { r % 50 } else { *r })
        .collect();
    let keys = common::u32s(runs[0][1].as_deref().unwrap());
    let values = common::i32s(runs[0][2].as_deref().unwrap());
    assert_stable_sort(&input, &keys[384..512], &values[256..384], false);
    assert_stable_sort(&input, &keys[128..256], &values[..128], true);
    // Blocked to striped leaves thread t the tile's sorted items t, t +
    // 32, ..., which a striped store puts back in order.
    assert_eq!(keys[768..896], keys[384..512]);
    assert_eq!(values[384..512], values[256..384]);
}

/// Outside the subset's shapes and forms, the header's static assertions
/// refuse at the instantiation (E0013): a logical warp of 24 lanes for
/// `WarpScan`, a warp-transposing load over 48 threads, a scan's prefix
/// callback, an inclusive scan of one item from an initial value.
#[test]
fn unsupported_shapes_are_refused() {
    let warp = common::rejected_with(
        "cub-warp-scan-24",
        "#include <cub/warp/warp_scan.cuh>\n__global__ void k(float *o) {\n\
         typedef cub::WarpScan<float, 24> S;\n  __shared__ typename S::TempStorage t;\n\
         float r;\n  S(t).InclusiveSum(o[threadIdx.x], r);\n  o[threadIdx.x] = r;\n}\n",
        "E0013",
    );
    assert!(
        warp.contains("logical warp of 1, 2, 4, 8, 16 or 32") && warp.contains("e.cu:3:"),
        "{warp}"
    );
    let load = common::rejected_with(
        "cub-load-48",
        "#include <cub/block/block_load.cuh>\n__global__ void k(float *o) {\n\
         typedef cub::BlockLoad<float, 48, 2, cub::BLOCK_LOAD_WARP_TRANSPOSE> L;\n\
         float r[2];\n  L().Load(o, r);\n  o[threadIdx.x] = r[0];\n}\n",
        "E0013",
    );
    assert!(load.contains("need a block of whole warps"), "{load}");
    // CUB's forms that kernelc's scans do not take: a prefix callback,
    // and an initial value for an inclusive scan of one item a thread
    // (CUB has none either).
    let callback = common::rejected_with(
        "cub-scan-callback",
        "#include <cub/block/block_scan.cuh>\nstruct Prefix {\n  int total;\n\
         __device__ int operator()(int a) { int old = total; total += a; return old; }\n};\n\
         __global__ void k(int *o) {\n  typedef cub::BlockScan<int, 64> S;\n\
         __shared__ typename S::TempStorage t;\n  Prefix p = {0};\n  int r;\n\
         S(t).ExclusiveScan(o[threadIdx.x], r, cuda::std::plus<>(), p);\n  o[threadIdx.x] = r;\n}\n",
        "E0013",
    );
    assert!(callback.contains("take no prefix callback"), "{callback}");
    assert_eq!(callback.matches("error[").count(), 1, "{callback}");
    let one = common::rejected_with(
        "cub-inclusive-init",
        "#include <cub/block/block_scan.cuh>\n__global__ void k(int *o) {\n\
         typedef cub::BlockScan<int, 64> S;\n  __shared__ typename S::TempStorage t;\n  int r;\n\
         S(t).InclusiveScan(o[threadIdx.x], r, 5, cuda::std::plus<>());\n  o[threadIdx.x] = r;\n}\n",
        "E0013",
    );
    assert!(
        one.contains("initial value for an array of items a thread only")
            && one.contains("e.cu:6:")
            && one.matches("error[").count() == 1,
        "{one}"
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
