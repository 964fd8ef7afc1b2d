//! Cooperative launches: kernels that synchronize the whole grid with
//! `cooperative_groups::this_grid().sync()`, as nvcc 13.5 compiles them
//! (the driver's grid workspace address read from `%envreg1`, its high
//! half, and `%envreg2`, its low half; a
//! counter whose top bit flips when the last block arrives, polled with
//! `ld.acquire.gpu`). Each result is checked against values computed here
//! on the host from what the kernel means, not from the emulator's code.
//!
//! The kernels go through nvcc (with the CCCL headers that CUDA's
//! `cooperative_groups.h` includes); without them a test prints a loud
//! skip line, and fails when `CI=true`. The hand-written PTX of the
//! pre-sm_70 protocol (volatile polling after a fence), which nvcc 13.5
//! no longer writes, and the launch limits run everywhere.

use ptx_emu::{run_ptx, FaultKind, KernelArg, LaunchConfig, RunError, RunOutput, SetupError};
use std::path::PathBuf;
use stdx::tools::{find_for_test, repository_root, required, Tool};

/// The `include` folder holding `cccl/` (`$KERNELC_CUDA_HEADERS`, else
/// where `scripts/test` installs it), or `None` after a loud skip line; a
/// failure in CI.
fn cuda_headers_or_skip(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("KERNELC_CUDA_HEADERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository_root().join(".tools/cuda-13.5-headers/nvidia/cu13/include"));
    if dir.join("cccl").is_dir() {
        return Some(dir);
    }
    let why = format!("the CCCL headers are not in {}", dir.display());
    assert!(!required(), "{why}; they are required in CI (CI=true)");
    eprintln!("SKIPPED ({why}; ./scripts/test installs them): {what}");
    None
}

/// nvcc's PTX (`-ptx -arch=sm_90`) of the CUDA text `source`, which
/// includes `<cooperative_groups.h>`; `None` after a skip line.
fn nvcc_ptx(name: &str, source: &str) -> Option<String> {
    let what = format!("the cooperative kernel `{name}` through nvcc");
    let nvcc = find_for_test(Tool::Nvcc, &what)?;
    let headers = cuda_headers_or_skip(&what)?;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cooperative-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, ptx) = (dir.join("k.cu"), dir.join("k.ptx"));
    std::fs::write(&src, source).unwrap();
    let out = std::process::Command::new(nvcc)
        .args(["-ptx", "-arch=sm_90"])
        .arg(format!("-I{}", headers.join("cccl").display()))
        .arg(&src)
        .arg("-o")
        .arg(&ptx)
        .output()
        .expect("cannot run nvcc");
    assert!(
        out.status.success(),
        "nvcc rejected {name}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&ptx).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    Some(text)
}

fn launch(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        ..LaunchConfig::default()
    }
}

fn words(n: usize) -> KernelArg {
    KernelArg::Buffer(vec![0; n * 4])
}

fn u32s(out: &RunOutput, arg: usize) -> Vec<u32> {
    let bytes = out.buffers[arg].as_ref().expect("a buffer");
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs `kernel` and panics with the emulator's error if it fails.
fn run(ptx: &str, kernel: &str, args: &[KernelArg], config: &LaunchConfig) -> RunOutput {
    run_ptx(ptx, kernel, args, config).unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

const TWO_PHASE: &str = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Every thread writes its value; after the grid-wide sync each reads the
// value the same thread of the next block wrote.
__global__ void two_phase(unsigned *first, unsigned *second) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  first[i] = i * 7 + 3;
  grid.sync();
  unsigned next = (blockIdx.x + 1) % gridDim.x;
  second[i] = first[next * blockDim.x + threadIdx.x];
}
"#;

#[test]
fn a_grid_sync_makes_every_blocks_writes_visible() {
    let Some(ptx) = nvcc_ptx("two_phase", TWO_PHASE) else {
        return;
    };
    assert!(ptx.contains("%envreg1") && ptx.contains("ld.acquire.gpu"));
    let (blocks, threads) = (5u32, 64u32);
    let n = (blocks * threads) as usize;
    let config = launch([blocks, 1, 1], [threads, 1, 1]);
    let out = run(&ptx, "two_phase", &[words(n), words(n)], &config);
    let first: Vec<u32> = (0..n as u32).map(|i| i * 7 + 3).collect();
    let second: Vec<u32> = (0..n as u32)
        .map(|i| {
            let (block, thread) = (i / threads, i % threads);
            first[(((block + 1) % blocks) * threads + thread) as usize]
        })
        .collect();
    assert_eq!(u32s(&out, 0), first);
    assert_eq!(u32s(&out, 1), second);
    // The schedule is deterministic: a second run takes the same steps.
    let again = run(&ptx, "two_phase", &[words(n), words(n)], &config);
    assert_eq!((again.steps, &again.buffers), (out.steps, &out.buffers));
}

const SPLIT: &str = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// The split barrier: work between `barrier_arrive` and `barrier_wait`
// that touches only the thread's own element.
__global__ void split(unsigned *first, unsigned *second, unsigned *own) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  first[i] = i + 100;
  auto token = grid.barrier_arrive();
  own[i] = i * i;
  grid.barrier_wait(std::move(token));
  unsigned prev = (blockIdx.x + gridDim.x - 1) % gridDim.x;
  second[i] = first[prev * blockDim.x + threadIdx.x] + own[i];
}
"#;

#[test]
fn the_split_arrive_and_wait_barrier_syncs_the_grid() {
    let Some(ptx) = nvcc_ptx("split", SPLIT) else {
        return;
    };
    let (blocks, threads) = (4u32, 96u32);
    let n = (blocks * threads) as usize;
    let config = launch([blocks, 1, 1], [threads, 1, 1]);
    let out = run(&ptx, "split", &[words(n), words(n), words(n)], &config);
    let second: Vec<u32> = (0..n as u32)
        .map(|i| {
            let (block, thread) = (i / threads, i % threads);
            let prev = (block + blocks - 1) % blocks;
            (prev * threads + thread + 100) + i * i
        })
        .collect();
    assert_eq!(u32s(&out, 1), second);
}

const ROUNDS: &str = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Each round: every block sums its elements into sums[round][block]; after
// a grid sync every thread adds the grid's total to its element; after
// another each takes the element one block further on (xor the round);
// a third sync keeps the next round's sums from reading a half-updated
// array.
__global__ void rounds(unsigned *data, unsigned *sums, int count) {
  cg::grid_group grid = cg::this_grid();
  __shared__ unsigned partial[128];
  unsigned n = gridDim.x * blockDim.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < count; ++r) {
    partial[threadIdx.x] = data[i];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) sums[r * gridDim.x + blockIdx.x] = partial[0];
    grid.sync();
    unsigned total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += sums[r * gridDim.x + b];
    data[i] += total;
    grid.sync();
    unsigned v = data[(i + blockDim.x) % n] ^ r;
    grid.sync();
    data[i] = v;
  }
}
"#;

#[test]
fn a_reduction_syncs_the_grid_in_a_loop() {
    let Some(ptx) = nvcc_ptx("rounds", ROUNDS) else {
        return;
    };
    let (blocks, threads, count) = (6u32, 32u32, 3usize);
    let n = (blocks * threads) as usize;
    let init: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let bytes = init.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = [
        KernelArg::Buffer(bytes),
        words(count * blocks as usize),
        KernelArg::Scalar {
            bits: count as u64,
            bytes: 4,
            float: false,
            name: "int".into(),
        },
    ];
    let out = run(
        &ptx,
        "rounds",
        &args,
        &launch([blocks, 1, 1], [threads, 1, 1]),
    );
    // The host's rounds.
    let (mut data, mut sums) = (init, Vec::new());
    for r in 0..count {
        let block_sums: Vec<u32> = data
            .chunks(threads as usize)
            .map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v)))
            .collect();
        let total = block_sums.iter().fold(0u32, |a, &v| a.wrapping_add(v));
        sums.extend(block_sums);
        let added: Vec<u32> = data.iter().map(|v| v.wrapping_add(total)).collect();
        data = (0..n)
            .map(|i| added[(i + threads as usize) % n] ^ r as u32)
            .collect();
    }
    assert_eq!(u32s(&out, 0), data);
    assert_eq!(u32s(&out, 1), sums);
}

const GRID_2D: &str = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// On a 2-D grid of 2-D blocks: each thread writes at its grid rank, and
// after the sync reads the element at the mirrored rank.
__global__ void mirror(unsigned *first, unsigned *second) {
  cg::grid_group grid = cg::this_grid();
  unsigned long long rank = grid.thread_rank();
  first[rank] = (unsigned)rank * 5 + blockIdx.y;
  grid.sync();
  second[rank] = first[grid.size() - 1 - rank];
}
"#;

#[test]
fn a_two_dimensional_grid_syncs() {
    let Some(ptx) = nvcc_ptx("mirror", GRID_2D) else {
        return;
    };
    let (grid, block) = ([3u32, 2, 1], [4u32, 2, 1]);
    let per_block = block[0] * block[1];
    let n = (grid[0] * grid[1] * per_block) as usize;
    let out = run(&ptx, "mirror", &[words(n), words(n)], &launch(grid, block));
    // Grid rank: the block's rank (x fastest) times its threads, plus the
    // thread's rank in the block.
    let block_y = |rank: u32| rank / per_block / grid[0];
    let first: Vec<u32> = (0..n as u32).map(|r| r * 5 + block_y(r)).collect();
    let second: Vec<u32> = (0..n).map(|r| first[n - 1 - r]).collect();
    assert_eq!(u32s(&out, 0), first);
    assert_eq!(u32s(&out, 1), second);
}

const QUERIES: &str = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void queries(unsigned long long *out) {
  cg::grid_group grid = cg::this_grid();
  unsigned long long rank = grid.thread_rank();
  unsigned long long *o = out + rank * 8;
  o[0] = grid.size();
  o[1] = rank;
  o[2] = grid.num_blocks();
  o[3] = grid.block_rank();
  o[4] = grid.is_valid();
  dim3 d = grid.dim_blocks();
  o[5] = d.x;
  o[6] = d.y;
  o[7] = d.z;
}
"#;

#[test]
fn grid_group_queries_describe_the_launch() {
    let Some(ptx) = nvcc_ptx("queries", QUERIES) else {
        return;
    };
    let (grid, block) = ([2u32, 3, 2], [4u32, 2, 1]);
    let per_block = u64::from(block[0] * block[1]);
    let blocks = u64::from(grid[0] * grid[1] * grid[2]);
    let n = (blocks * per_block) as usize;
    let out = run(
        &ptx,
        "queries",
        &[KernelArg::Buffer(vec![0; n * 64])],
        &launch(grid, block),
    );
    let got: Vec<u64> = out.buffers[0]
        .as_ref()
        .unwrap()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for rank in 0..n as u64 {
        let expected = [
            blocks * per_block,
            rank,
            blocks,
            rank / per_block,
            1, // a cooperative launch has a grid workspace
            u64::from(grid[0]),
            u64::from(grid[1]),
            u64::from(grid[2]),
        ];
        assert_eq!(
            got[rank as usize * 8..][..8],
            expected,
            "thread of rank {rank}"
        );
    }
}

#[test]
fn a_grid_sync_some_block_skips_is_a_located_deadlock() {
    let source = r#"
#include <cooperative_groups.h>
__global__ void early(unsigned *out) {
  if (blockIdx.x == 1) return;
  cooperative_groups::this_grid().sync();
  out[blockIdx.x] = 1;
}
"#;
    let Some(ptx) = nvcc_ptx("early", source) else {
        return;
    };
    match run_ptx(&ptx, "early", &[words(4)], &launch([3, 1, 1], [32, 1, 1])) {
        Err(RunError::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::BarrierDivergence, "{f}");
            assert!(f.message.starts_with("ld.acquire.gpu.u32: deadlock"), "{f}");
            assert_eq!((f.block, f.thread), ([0; 3], [0; 3]), "{f}");
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn a_cooperative_grid_larger_than_the_gpu_holds_is_refused() {
    let Some(ptx) = nvcc_ptx("two_phase_big", TWO_PHASE) else {
        return;
    };
    // 1024-thread blocks: two per SM, 264 on the H200's 132 SMs.
    let n = 265 * 1024;
    let err = run_ptx(
        &ptx,
        "two_phase",
        &[words(n), words(n)],
        &launch([265, 1, 1], [1024, 1, 1]),
    );
    let expected = SetupError::CooperativeTooLarge {
        blocks: 265,
        resident: 264,
        per_sm: 2,
    };
    assert_eq!(err, Err(RunError::Setup(expected)));
}

/// The pre-sm_70 protocol by hand: a fence, `atom.add`, volatile polling,
/// a fence; the workspace address built from `%envreg1` (its high half)
/// and `%envreg2` (its low half). Each
/// block's thread 0 stores its block index + 1 into `out[block]`, and
/// after the sync every thread 0 stores the sum of all of `out` into
/// `out[blocks + block]`.
const VOLATILE_PTX: &str = "
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
 .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
 ld.param.u64 %rd1, [out];
 cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %envreg1;
 mov.u32 %r2, %envreg2;
 mov.u32 %r12, %envreg0;
 mov.u32 %r13, %envreg7;
 or.b32 %r12, %r12, %r13;
 mov.b64 %rd2, {%r2, %r1};
 add.s64 %rd3, %rd2, 4;
 mov.u32 %r3, %ctaid.x;
 mov.u32 %r4, %tid.x;
 mov.u32 %r5, %nctaid.x;
 setp.ne.u32 %p1, %r4, 0;
 @%p1 bra WAIT;
 add.s32 %r6, %r3, 1;
 add.s32 %r6, %r6, %r12;
 mul.wide.u32 %rd4, %r3, 4;
 add.s64 %rd5, %rd1, %rd4;
 st.global.u32 [%rd5], %r6;
 membar.gl;
 setp.eq.u32 %p2, %r3, 0;
 sub.s32 %r7, -2147483647, %r5;
 selp.b32 %r7, %r7, 1, %p2;
 atom.global.add.u32 %r8, [%rd3], %r7;
SPIN:
 ld.volatile.global.u32 %r9, [%rd3];
 xor.b32 %r10, %r9, %r8;
 setp.gt.s32 %p3, %r10, -1;
 @%p3 bra SPIN;
 membar.gl;
WAIT:
 bar.sync 0;
 @%p1 bra DONE;
 mov.u32 %r11, 0;
 mov.u32 %r14, 0;
SUM:
 mul.wide.u32 %rd6, %r14, 4;
 add.s64 %rd7, %rd1, %rd6;
 ld.global.u32 %r15, [%rd7];
 add.s32 %r11, %r11, %r15;
 add.s32 %r14, %r14, 1;
 setp.lt.u32 %p2, %r14, %r5;
 @%p2 bra SUM;
 add.s32 %r6, %r5, %r3;
 mul.wide.u32 %rd4, %r6, 4;
 add.s64 %rd5, %rd1, %rd4;
 st.global.u32 [%rd5], %r11;
DONE:
 ret;
}
";

#[test]
fn volatile_polling_after_a_fence_syncs_the_grid() {
    if let Some(ptxas) = find_for_test(Tool::Ptxas, "the volatile grid barrier") {
        let outcome =
            ptx_validate::driver::assemble(&ptxas, VOLATILE_PTX, "sm_90", &[]).expect("ptxas");
        assert!(outcome.accepted, "ptxas rejected it:\n{}", outcome.raw);
    }
    let blocks = 7u32;
    let out = run(
        VOLATILE_PTX,
        "k",
        &[words(2 * blocks as usize)],
        &launch([blocks, 1, 1], [64, 1, 1]),
    );
    // `%envreg0` and `%envreg7` read 0: each block stores its index + 1.
    let stored: Vec<u32> = (1..=blocks).collect();
    let total: u32 = stored.iter().sum();
    let mut expected = stored;
    expected.extend(std::iter::repeat_n(total, blocks as usize));
    assert_eq!(u32s(&out, 0), expected);
}

#[test]
fn the_limit_follows_block_size_and_shared_memory() {
    // 256-thread blocks: 8 warps each, 8 per SM, 1056 in all; the 2-D
    // grid of 33 x 33 is 1089 blocks.
    let config = launch([33, 33, 1], [256, 1, 1]);
    let err = run_ptx(VOLATILE_PTX, "k", &[words(4096)], &config);
    let expected = SetupError::CooperativeTooLarge {
        blocks: 1089,
        resident: 1056,
        per_sm: 8,
    };
    assert_eq!(err, Err(RunError::Setup(expected)));
    // 100 KiB of dynamic shared memory per block: two fit an SM.
    let config = LaunchConfig {
        dynamic_shared_bytes: 100 * 1024,
        ..launch([265, 1, 1], [32, 1, 1])
    };
    let err = run_ptx(VOLATILE_PTX, "k", &[words(1024)], &config);
    let expected = SetupError::CooperativeTooLarge {
        blocks: 265,
        resident: 264,
        per_sm: 2,
    };
    assert_eq!(err, Err(RunError::Setup(expected)));
}

/// A loop that rereads one volatile word with nothing stored in between
/// is no spin when its counter moves: thread 0 sums `in[0]` five times
/// while the block's other threads wait at the barrier, in a kernel that
/// reads `%envreg` (so a cooperative launch).
#[test]
fn rereading_a_volatile_word_in_a_counted_loop_is_no_spin() {
    let src = "
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
 .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [out];
 cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %envreg1;
 mov.u32 %r2, %tid.x;
 setp.ne.u32 %p1, %r2, 0;
 @%p1 bra WAIT;
 mov.u32 %r3, 0;
 mov.u32 %r4, 0;
LOOP:
 ld.volatile.global.u32 %r5, [%rd1];
 add.s32 %r3, %r3, %r5;
 add.s32 %r4, %r4, 1;
 setp.lt.u32 %p2, %r4, 5;
 @%p2 bra LOOP;
 mov.u32 %r6, %ctaid.x;
 mul.wide.u32 %rd2, %r6, 4;
 add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3+4], %r3;
WAIT:
 bar.sync 0;
 ret;
}
";
    let mut input = vec![0u8; 4 * 4];
    input[..4].copy_from_slice(&7u32.to_le_bytes());
    let out = run(
        src,
        "k",
        &[KernelArg::Buffer(input)],
        &launch([3, 1, 1], [32, 1, 1]),
    );
    assert_eq!(u32s(&out, 0), vec![7, 35, 35, 35]);
}
