//! Cooperative groups (`<cooperative_groups.h>`, kernelc's header of
//! source `frontend/headers/cooperative_groups.h`): the fixture's kernels
//! compiled by kernelc and by nvcc give the same buffers on the emulator,
//! kernelc's also on the interpreter; what kernelc does not provide is a
//! located error. The grid of a cooperative launch has tests of its own
//! (tests/grid_group.rs).

mod common;

use common::scratch;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/cooperative_groups/groups.cu")
}

/// Each launch: kernel, grid, block, arguments. Blocks of 64 threads in 3
/// dimensions, of 96 (a partial last tile of 64 threads is no tile: 96 is
/// three warps) and of 48 (a partial warp) cover the ranks' formulas.
const LAUNCHES: &[Launch] = &[
    ("_Z11groupShapesPj", "2", "8,4,2", &["u32[]:zeros:1536"]),
    ("_Z11groupShapesPj", "2", "96", &["u32[]:zeros:2304"]),
    (
        "_Z8shufflesPKiPKfPiPfPd",
        "2",
        "64",
        &[
            "i32[]:rand:128:1",
            "f32[]:rand:128:2",
            "i32[]:zeros:1024",
            "f32[]:zeros:512",
            "f64[]:zeros:256",
        ],
    ),
    (
        "_Z11collectivesPKiPKfPiPf",
        "2",
        "64",
        &[
            "i32[]:rand:128:3",
            "f32[]:rand:128:4",
            "i32[]:zeros:1280",
            "f32[]:zeros:1024",
        ],
    ),
    ("_Z13dynamicGroupsPj", "2", "48", &["u32[]:zeros:384"]),
    (
        "_Z15coalescedGroupsPKiPKfPiPjPf",
        "2",
        "64",
        &[
            "i32[]:rand:128:5",
            "f32[]:rand:128:6",
            "i32[]:zeros:1",
            "u32[]:zeros:1664",
            "f32[]:zeros:128",
        ],
    ),
];

type Launch<'a> = (&'a str, &'a str, &'a str, &'a [&'a str]);

fn buffers(file: &Path, engine: &str, launch: &Launch, out: &Path) -> Vec<Option<Vec<u8>>> {
    let (kernel, grid, block, args) = *launch;
    let shape = ["--grid", grid, "--block", block];
    common::launch_buffers(file, engine, (kernel, args), out, &shape)
}

#[test]
fn cooperative_groups_compute_what_nvcc_computes() {
    let dir = scratch("cooperative-groups");
    let src = fixture();
    let cccl = common::cuda_headers_or_skip()
        .map(|h| vec![format!("-I{}", h.join("cccl").display())])
        .unwrap_or_default();
    let (_, theirs) = common::fixture_ptx_and_nvcc_with(&src, &dir, &cccl);
    let ours = dir.join("kernelc.ptx");
    for launch in LAUNCHES {
        let from_ptx = buffers(&ours, "emu", launch, &dir.join("ours"));
        assert!(!from_ptx.is_empty(), "{}: no buffer came back", launch.0);
        let interpreted = buffers(&src, "interp", launch, &dir.join("interp"));
        assert_eq!(
            from_ptx, interpreted,
            "{}: the interpreter disagrees with the emulator",
            launch.0
        );
        if let Some(theirs) = &theirs {
            let nvcc = buffers(theirs, "emu", launch, &dir.join("theirs"));
            assert_eq!(
                from_ptx, nvcc,
                "{} on {}: kernelc's PTX and nvcc's disagree",
                launch.0, launch.2
            );
        }
    }
}

/// The floats of a buffer's bytes.
fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `memcpy_async` with `wait`/`wait_prior` and the pipeline primitives
/// (`tests/fixtures/cooperative_groups/async_copies.cu`) copy what their
/// definitions say, on kernelc's PTX in the emulator and on the
/// interpreter. nvcc's PTX of these copies is `cp.async` with a source
/// size, which the emulator does not run, so the reference is the
/// definition, computed here from the input `0, 1, 2, ...`.
#[test]
fn asynchronous_copies_copy_what_they_say() {
    let dir = scratch("cooperative-groups-async");
    let src = common::root().join("tests/fixtures/cooperative_groups/async_copies.cu");
    let ptx = common::fixture_ptx(&src, &dir);
    assert!(
        ptx.contains("cp.async.cg.shared.global"),
        "no 16-byte copies"
    );
    assert!(ptx.contains("cp.async.wait_group 3"), "no wait_prior<3>");
    let ours = dir.join("kernelc.ptx");
    let input: Vec<f32> = (0..1024).map(|i| i as f32).collect();
    let input_bytes: Vec<u8> = input.iter().flat_map(|f| f.to_le_bytes()).collect();

    let launch: Launch = (
        "_Z11groupCopiesPKfPfPh",
        "2",
        "128",
        &["f32[]:iota:1024", "f32[]:zeros:840", "u8[]:zeros:74"],
    );
    let mut want = Vec::new();
    for b in 0..2 {
        let block = &input[b * 512..];
        want.extend((0..256).map(|i| block[255 - i]));
        want.extend_from_slice(&block[257..357]);
        want.extend_from_slice(&block[400..464]);
    }
    let want_bytes: Vec<u8> = (0..2)
        .flat_map(|b| input_bytes[b * 2048 + 3..b * 2048 + 40].to_vec())
        .collect();
    for (engine, file) in [("emu", &ours), ("interp", &src)] {
        let got = buffers(file, engine, &launch, &dir.join(engine));
        assert_eq!(
            floats(got[1].as_ref().unwrap()),
            want,
            "groupCopies on {engine}"
        );
        assert_eq!(
            got[2].as_ref().unwrap(),
            &want_bytes,
            "groupCopies' bytes on {engine}"
        );
    }

    let launch: Launch = (
        "_Z9pipelinedPK6float4Pfi",
        "2",
        "128",
        &["f32[]:iota:3072", "f32[]:zeros:3072", "i32:3"],
    );
    let doubled: Vec<f32> = (0..3072).map(|i| 2.0 * i as f32).collect();
    for (engine, file) in [("emu", &ours), ("interp", &src)] {
        let got = buffers(file, engine, &launch, &dir.join(engine));
        assert_eq!(
            floats(got[1].as_ref().unwrap()),
            doubled,
            "pipelined on {engine}"
        );
    }

    let launch: Launch = (
        "_Z8zeroFillPKfPf",
        "1",
        "128",
        &["f32[]:iota:1024", "f32[]:zeros:512"],
    );
    let filled: Vec<f32> = (0..128)
        .flat_map(|t| [t as f32, 0.0, (t + 1) as f32, (4 * t + 1) as f32])
        .collect();
    for (engine, file) in [("emu", &ours), ("interp", &src)] {
        let got = buffers(file, engine, &launch, &dir.join(engine));
        assert_eq!(
            floats(got[1].as_ref().unwrap()),
            filled,
            "zeroFill on {engine}"
        );
    }
}

/// The collectives of a tile inline away as nvcc's do: no call is left.
#[test]
fn cooperative_groups_leave_no_calls() {
    let dir = scratch("cooperative-groups-calls");
    let ptx = common::fixture_ptx(&fixture(), &dir);
    let calls: Vec<&str> = ptx.lines().filter(|l| l.contains("call")).collect();
    // `describe` takes a `thread_group` by value and is called twice; the
    // header's functions are all gone.
    assert!(
        calls.iter().all(|l| !l.contains("cooperative_groups")),
        "calls left:\n{}",
        calls.join("\n")
    );
}

#[test]
fn what_kernelc_does_not_provide_is_a_located_error() {
    // `grid_group` is provided (tests/grid_group.rs); a group of several
    // devices' grids is not.
    let multi = common::rejected_with(
        "cooperative-groups-multi-grid",
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\
         __global__ void k(int *o) {\n  cg::multi_grid_group g = cg::this_multi_grid();\n  g.sync();\n  o[0] = 1;\n}\n",
        "E0002",
    );
    assert!(multi.contains("several devices' grids"), "{multi}");
    assert!(multi.contains("e.cu:4:"), "{multi}");
    let wide = common::rejected_with(
        "cooperative-groups-wide",
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\
         __global__ void k(int *o) {\n  auto t = cg::tiled_partition<64>(cg::this_thread_block());\n  o[0] = t.thread_rank();\n}\n",
        "E0013",
    );
    assert!(wide.contains("1, 2, 4, 8, 16 or 32 threads"), "{wide}");
}
