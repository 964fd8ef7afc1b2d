//! The grid of a cooperative launch (`cooperative_groups::grid_group`,
//! kernelc's header `frontend/headers/cooperative_groups.h`): the fixture's
//! PTX passes ptxas, and the interpreter, which keeps every block of such a
//! launch resident and releases them together at the grid barrier, computes
//! what the tests compute here, at `-O0` and at `-O3`.

mod common;

use common::{i32s, kernelc, scratch, stderr};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/grid_group/grid.cu")
}

/// The buffers of one interpreter run (scalar arguments have none), after
/// checking that `-O0` leaves the same bytes as `-O3`.
fn run(kernel: &str, grid: &str, block: &str, args: &[&str]) -> Vec<Vec<u8>> {
    let dir = scratch(&format!("grid-group-{kernel}"));
    let at = |level: &str| {
        let shape = ["--grid", grid, "--block", block, "-O", level];
        common::launch_buffers(
            &fixture(),
            "interp",
            (kernel, args),
            &dir.join(level),
            &shape,
        )
    };
    let (o0, o3) = (at("0"), at("3"));
    assert_eq!(o0, o3, "{kernel}: -O0 and -O3 disagree");
    o3.into_iter().flatten().collect()
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn the_ptx_passes_ptxas() {
    let dir = scratch("grid-group-ptx");
    // sm_90 (with ptx-validate) through the fixture helper.
    let ptx = common::fixture_ptx(&fixture(), &dir);
    assert!(ptx.contains("atom.add.release.gpu.u32"), "{ptx}");
    assert!(ptx.contains("ld.acquire.gpu.u32"), "{ptx}");
    // The oldest target kernelc has, and -O0, where the barrier stays in
    // the header's `grid_group::sync` (a `.func` of its own).
    for (arch, level) in [("sm_75", "-O3"), ("sm_80", "-O0")] {
        let out = dir.join(format!("{arch}{level}.ptx"));
        let flag = format!("-arch={arch}");
        let o = kernelc(&[
            fixture().to_str().unwrap(),
            &flag,
            level,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(&out).unwrap();
        common::assert_ptxas_accepts(&text, arch, &format!("grid.cu at {arch} {level}"));
    }
}

/// Each thread reads, after the grid barrier, the slot the thread a block
/// further on wrote before it: 2-D blocks of 32 threads, 5 blocks.
#[test]
fn threads_read_what_other_blocks_wrote_before_the_barrier() {
    let out = run(
        "exchange",
        "5",
        "8,4",
        &["i32[]:zeros:160", "i32[]:zeros:160"],
    );
    let seen = i32s(&out[1]);
    for (rank, &v) in seen.iter().enumerate() {
        let from = (rank + 32) % 160;
        assert_eq!(v, (from * 7 + 3) as i32, "thread {rank}");
    }
}

/// The per-block sums a grid-stride loop over `n` elements gives, in block
/// order, for `blocks` blocks of `threads`.
fn block_sums(input: &[i32], blocks: usize, threads: usize) -> Vec<i32> {
    let mut sums = vec![0i32; blocks];
    for (i, &x) in input.iter().enumerate() {
        let b = (i % (blocks * threads)) / threads;
        sums[b] = sums[b].wrapping_add(x);
    }
    sums
}

/// A 2-D grid of 6 blocks sums 1000 integers with a grid barrier after each
/// round of pairwise sums (three rounds): every partial is what the rounds
/// leave, and the first is the total.
#[test]
fn a_reduction_with_grid_barriers_in_a_loop_sums_the_grid() {
    let out = run(
        "gridSum",
        "3,2",
        "64",
        &["i32[]:rand:1000:7", "i32[]:zeros:6", "i32:1000"],
    );
    let input = i32s(&out[0]);
    let mut expected = block_sums(&input, 6, 64);
    let mut stride = 1;
    while stride < 6 {
        for b in (0..6).step_by(2 * stride) {
            if b + stride < 6 {
                expected[b] = expected[b].wrapping_add(expected[b + stride]);
            }
        }
        stride *= 2;
    }
    let partial = i32s(&out[1]);
    assert_eq!(partial, expected);
    let total = input.iter().fold(0i32, |a, &x| a.wrapping_add(x));
    assert_eq!(partial[0], total);
}

/// Every query of every thread of a 3-D grid of 3-D blocks, against CUDA's
/// formulas computed here.
#[test]
fn the_queries_give_cuda_values() {
    let (grid, block) = ([2u64, 3, 2], [4u64, 2, 2]);
    let per_block: u64 = block.iter().product();
    let blocks: u64 = grid.iter().product();
    let threads = blocks * per_block;
    let out = run("queries", "2,3,2", "4,2,2", &["u64[]:zeros:3840"]);
    let q = u64s(&out[0]);
    let mut checked = 0;
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                for tz in 0..block[2] {
                    for ty in 0..block[1] {
                        for tx in 0..block[0] {
                            let brank = (bz * grid[1] + by) * grid[0] + bx;
                            let trank = brank * per_block + (tz * block[1] + ty) * block[0] + tx;
                            let expected = [
                                trank,
                                threads,
                                threads,
                                blocks,
                                brank,
                                bx,
                                by,
                                bz,
                                grid[0],
                                grid[1],
                                grid[2],
                                bx * block[0] + tx,
                                by * block[1] + ty,
                                bz * block[2] + tz,
                                grid[0] * block[0],
                                grid[1] * block[1],
                                grid[2] * block[2],
                                1,
                                24,
                                trank + threads,
                            ];
                            let at = (trank * 20) as usize;
                            assert_eq!(&q[at..at + 20], &expected[..], "thread {trank}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, threads);
}

/// A kernel without a grid barrier runs as an ordinary launch, which has no
/// workspace: `is_valid()` is false, as on a GPU.
#[test]
fn an_ordinary_launch_has_no_valid_grid() {
    let out = run("ordinary", "2", "1", &["i32[]:zeros:2"]);
    assert_eq!(i32s(&out[0]), [2, 2]);
}

fn run_fails(file: &Path, kernel: &str, grid: &str, args: &[&str]) -> String {
    let argv = [
        &[
            "run",
            file.to_str().unwrap(),
            "--kernel",
            kernel,
            "--grid",
            grid,
            "--block",
            "32",
        ],
        args,
    ]
    .concat();
    let o = kernelc(&argv);
    assert_eq!(o.status.code(), Some(1), "{kernel}: {}", stderr(&o));
    stderr(&o)
}

/// More blocks than a cooperative launch may have is the setup's error,
/// before anything runs; the limit itself runs.
#[test]
fn too_many_blocks_for_a_cooperative_launch_is_an_error() {
    let err = run_fails(
        &fixture(),
        "exchange",
        "1025",
        &["i32[]:zeros:32800", "i32[]:zeros:32800"],
    );
    assert!(err.contains("1025 blocks must all be resident"), "{err}");
    assert!(err.contains("at most 1024"), "{err}");
    let dir = scratch("grid-group-limit");
    let shape = ["--grid", "1024", "--block", "1"];
    let out = common::launch_buffers(
        &fixture(),
        "interp",
        ("exchange", &["i32[]:zeros:1024", "i32[]:zeros:1024"]),
        &dir,
        &shape,
    );
    let seen = i32s(out[1].as_ref().unwrap());
    assert_eq!(seen[1023], 3, "the last thread reads thread 0's slot");
}

/// A block that returns while the others wait at the grid barrier would
/// leave them waiting forever on a GPU: a located fault naming it.
#[test]
fn a_block_that_skips_the_grid_barrier_is_a_fault() {
    let err = run_fails(&fixture(), "leaveEarly", "3", &["i32[]:zeros:3"]);
    assert!(
        err.contains("grid barrier divergence: 2 of 3 blocks"),
        "{err}"
    );
    assert!(err.contains("block (1,0,0), for one, returned"), "{err}");
}

/// The corpus program `tests/programs/cg_grid_sync.cu` (a sample-style
/// cooperative launch): its two-phase sum and its heat steps with a grid
/// barrier between steps, on the interpreter, against the same sums and
/// steps computed here.
#[test]
fn the_corpus_program_sums_and_steps_across_grid_barriers() {
    let program = common::root().join("tests/programs/cg_grid_sync.cu");
    let dir = scratch("grid-group-program");
    let launch = |kernel: &str, grid: &str, args: &[&str], out: &str| {
        let shape = [
            "--grid",
            grid,
            "--block",
            "256",
            "-I",
            "tests/programs/common",
        ];
        common::launch_buffers(&program, "interp", (kernel, args), &dir.join(out), &shape)
    };
    let sum = launch(
        "_Z7gridSumPKfPfS1_i",
        "4",
        &[
            "f32[]:rand:5000:1",
            "f32[]:zeros:4",
            "f32[]:zeros:1",
            "i32:5000",
        ],
        "sum",
    );
    let input = common::f32s(sum[0].as_ref().unwrap());
    let expected: f64 = input.iter().map(|&x| f64::from(x)).sum();
    let total = f64::from(common::f32s(sum[2].as_ref().unwrap())[0]);
    assert!(
        (total - expected).abs() < 1e-3 * expected.abs(),
        "{total} vs {expected}"
    );

    let steps = 5;
    let heat = launch(
        "_Z9heatStepsPfS_ifi",
        "3",
        &[
            "f32[]:rand:2000:1",
            "f32[]:zeros:2000",
            "i32:2000",
            "f32:0.25",
            "i32:5",
        ],
        "heat",
    );
    // The rod before any step: the same seed, launched for no steps.
    let before = launch(
        "_Z9heatStepsPfS_ifi",
        "3",
        &[
            "f32[]:rand:2000:1",
            "f32[]:zeros:2000",
            "i32:2000",
            "f32:0.25",
            "i32:0",
        ],
        "before",
    );
    let mut from = common::f32s(before[0].as_ref().unwrap());
    let mut to = vec![0f32; from.len()];
    for _ in 0..steps {
        let n = from.len();
        to[0] = from[0];
        to[n - 1] = from[n - 1];
        for i in 1..n - 1 {
            to[i] = from[i] + 0.25 * (from[i - 1] - 2.0 * from[i] + from[i + 1]);
        }
        std::mem::swap(&mut from, &mut to);
    }
    // After an odd number of steps the last one wrote the second buffer.
    let result = common::f32s(heat[1].as_ref().unwrap());
    for (i, (&got, &want)) in result.iter().zip(&from).enumerate() {
        assert!((got - want).abs() <= 1e-5, "element {i}: {got} vs {want}");
    }
}
