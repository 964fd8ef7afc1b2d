//! Collectives and atomics in the IR interpreter: a warp-shuffle reduction,
//! votes, `activemask` under divergence, block reductions, every atomic
//! operation from many threads, and the faults a GPU would hang or
//! misbehave on.

use kir_interp::{run_kernel, FaultKind, KernelArg, LaunchConfig, RunError, RunOutput};
use midend::text::parse_module;

fn run(text: &str, args: Vec<KernelArg>, threads: u32, blocks: u32) -> Result<RunOutput, RunError> {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    if let Err(errors) = midend::verifier::verify_module(&module) {
        panic!("invalid test IR: {errors:?}");
    }
    let config = LaunchConfig {
        block: [threads, 1, 1],
        grid: [blocks, 1, 1],
        ..LaunchConfig::default()
    };
    run_kernel(&module, "k", &args, &config)
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn buffer(out: &RunOutput, k: usize) -> Vec<u32> {
    words(out.buffers[k].as_ref().unwrap())
}

/// `__shfl_down_sync` tree reduction of the lane ids: lane 0 gets 0+1+...+31.
#[test]
fn shuffle_down_reduction_sums_the_warp() {
    let text = "
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = special laneid
    v2 = iconst.i32 -1
    v3 = iconst.i32 31
    v4 = iconst.i32 16
    v5 = shfl down v1, v4, v3, v2
    v6 = iadd v1, v5
    v7 = iconst.i32 8
    v8 = shfl down v6, v7, v3, v2
    v9 = iadd v6, v8
    v10 = iconst.i32 4
    v11 = shfl down v9, v10, v3, v2
    v12 = iadd v9, v11
    v13 = iconst.i32 2
    v14 = shfl down v12, v13, v3, v2
    v15 = iadd v12, v14
    v16 = iconst.i32 1
    v17 = shfl down v15, v16, v3, v2
    v18 = iadd v15, v17
    v19 = special tid.x
    v20 = zext.i64 v19
    v21 = iconst.i64 4
    v22 = imul v20, v21
    v23 = ptroffset v0, v22
    store v18, v23
    return
}
";
    let out = run(text, vec![KernelArg::Buffer(vec![0; 64 * 4])], 64, 1).unwrap();
    let got = buffer(&out, 0);
    assert_eq!(got[0], (0..32).sum::<u32>(), "warp 0, lane 0");
    assert_eq!(got[32], (0..32).sum::<u32>(), "warp 1, lane 0");
    // A lane near the top reads its own value where the source is past lane 31.
    assert_eq!(got[31], 31 * 32, "lane 31 doubles itself five times");
}

/// idx/up/bfly sources, a narrower segment (width 8), and f32 values.
#[test]
fn shuffle_modes_and_widths() {
    let text = "
kernel external @k(ptr<global>, ptr<global>, ptr<global>, ptr<global>) {
block0(v0: ptr<global>, v1: ptr<global>, v2: ptr<global>, v3: ptr<global>):
    v4 = special laneid
    v5 = iconst.i32 -1
    v6 = iconst.i32 31
    v7 = iconst.i32 3
    v8 = shfl idx v4, v7, v6, v5
    v9 = iconst.i32 1
    v10 = iconst.i32 6144
    v11 = shfl up v4, v9, v10, v5
    v12 = iconst.i32 5
    v13 = shfl bfly v4, v12, v6, v5
    v14 = sitofp.f32 v4
    v15 = iconst.i32 7
    v16 = iconst.i32 6151
    v17 = shfl idx v14, v9, v16, v5
    v18 = zext.i64 v4
    v19 = iconst.i64 4
    v20 = imul v18, v19
    v21 = ptroffset v0, v20
    store v8, v21
    v22 = ptroffset v1, v20
    store v11, v22
    v23 = ptroffset v2, v20
    store v13, v23
    v24 = ptroffset v3, v20
    store v17, v24
    return
}
";
    let bufs = (0..4).map(|_| KernelArg::Buffer(vec![0; 32 * 4])).collect();
    let out = run(text, bufs, 32, 1).unwrap();
    let idx = buffer(&out, 0);
    let up = buffer(&out, 1);
    let bfly = buffer(&out, 2);
    let idx8: Vec<f32> = buffer(&out, 3).iter().map(|&b| f32::from_bits(b)).collect();
    for lane in 0..32u32 {
        assert_eq!(idx[lane as usize], 3, "idx 3 from lane {lane}");
        // width 8 (c = (32-8)<<8): lane 0 of each segment keeps its own value.
        let want_up = if lane % 8 == 0 { lane } else { lane - 1 };
        assert_eq!(up[lane as usize], want_up, "up 1, width 8, lane {lane}");
        assert_eq!(bfly[lane as usize], lane ^ 5, "bfly 5, lane {lane}");
        // idx 1 within segments of 8: lane 1 of the lane's segment.
        assert_eq!(
            idx8[lane as usize],
            ((lane & !7) + 1) as f32,
            "idx 1 width 8, lane {lane}"
        );
    }
}

/// Votes and `activemask` where only even lanes take part.
#[test]
fn votes_and_activemask_under_divergence() {
    let text = "
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = special laneid
    v2 = iconst.i32 1
    v3 = band v1, v2
    v4 = iconst.i32 0
    v5 = icmp eq v3, v4
    brif v5, block1, block2

block1:
    v6 = special activemask
    v7 = iconst.i32 10
    v8 = icmp ult v1, v7
    v9 = vote ballot v8, v6
    v10 = vote any v8, v6
    v11 = vote all v8, v6
    v12 = zext.i32 v10
    v13 = zext.i32 v11
    v14 = zext.i64 v1
    v15 = iconst.i64 16
    v16 = imul v14, v15
    v17 = ptroffset v0, v16
    store v6, v17
    v18 = iconst.i64 4
    v19 = ptroffset v17, v18
    store v9, v19
    v20 = iconst.i64 8
    v21 = ptroffset v17, v20
    store v12, v21
    v22 = iconst.i64 12
    v23 = ptroffset v17, v22
    store v13, v23
    jump block2

block2:
    return
}
";
    let out = run(text, vec![KernelArg::Buffer(vec![0; 32 * 16])], 32, 1).unwrap();
    let got = buffer(&out, 0);
    let even: u32 = 0x5555_5555;
    // Even lanes below 10: 0, 2, 4, 6, 8.
    let ballot: u32 = 0b01_0101_0101;
    assert_eq!(&got[0..4], &[even, ballot, 1, 0]);
    assert_eq!(&got[4..8], &[0, 0, 0, 0], "odd lanes do not run the block");
}

/// `redux` over the lanes of each lane's mask: every operation on values
/// with both signs (lane * 7 - 100), over groups of 8 lanes that each
/// pass their own mask, then over the even lanes only (the odd ones branch
/// around it).
#[test]
fn warp_reductions_over_the_lanes_of_each_mask() {
    // Each reduction stored at its slot of the lane's 32 bytes: value
    // numbers from `base` up.
    let reductions = |mask: &str, row: &str, base: usize| {
        let ops = ["add", "umin", "umax", "smin", "smax", "and", "or", "xor"];
        let mut text = String::new();
        for (k, op) in ops.iter().enumerate() {
            let (r, off, p) = (base + 3 * k, base + 3 * k + 1, base + 3 * k + 2);
            text.push_str(&format!(
                "    v{r} = redux {op} v5, {mask}\n    v{off} = iconst.i64 {}\n    v{p} = ptroffset {row}, v{off}\n    store v{r}, v{p}\n",
                4 * k
            ));
        }
        text
    };
    let even = reductions("v8", "v11", 100);
    let group = reductions("v9", "v12", 200);
    let text = format!(
        "
kernel external @k(ptr<global>, ptr<global>) {{
block0(v0: ptr<global>, v1: ptr<global>):
    v2 = special laneid
    v3 = iconst.i32 7
    v4 = imul v2, v3
    v13 = iconst.i32 100
    v5 = isub v4, v13
    v6 = iconst.i32 1
    v7 = band v2, v6
    v8 = iconst.i32 1431655765
    v14 = iconst.i32 -8
    v15 = band v2, v14
    v16 = iconst.i32 255
    v9 = ishl v16, v15
    v17 = zext.i64 v2
    v18 = iconst.i64 32
    v19 = imul v17, v18
    v11 = ptroffset v0, v19
    v12 = ptroffset v1, v19
{group}    v20 = iconst.i32 0
    v21 = icmp eq v7, v20
    brif v21, block1, block2

block1:
{even}    jump block2

block2:
    return
}}
"
    );
    let bufs = (0..2)
        .map(|_| KernelArg::Buffer(vec![0; 32 * 32]))
        .collect();
    let out = run(&text, bufs, 32, 1).unwrap();
    let value = |lane: u32| (lane * 7).wrapping_sub(100);
    let expect = |lanes: Vec<u32>| -> Vec<u32> {
        let vals: Vec<u32> = lanes.into_iter().map(value).collect();
        let fold = |f: fn(u32, u32) -> u32| vals.iter().copied().reduce(f).unwrap();
        let signed =
            |f: fn(i32, i32) -> i32| vals.iter().map(|&v| v as i32).reduce(f).unwrap() as u32;
        vec![
            fold(u32::wrapping_add),
            fold(u32::min),
            fold(u32::max),
            signed(i32::min),
            signed(i32::max),
            fold(|a, b| a & b),
            fold(|a, b| a | b),
            fold(|a, b| a ^ b),
        ]
    };
    let even = buffer(&out, 0);
    let group = buffer(&out, 1);
    for lane in 0..32u32 {
        let l = lane as usize;
        let what = format!("lane {lane}");
        if lane % 2 == 0 {
            let want = expect((0..32).step_by(2).collect());
            assert_eq!(&even[l * 8..l * 8 + 8], &want[..], "{what}: even lanes");
        } else {
            assert_eq!(&even[l * 8..l * 8 + 8], &[0; 8], "{what}: skipped");
        }
        let first = lane & !7;
        let want = expect((first..first + 8).collect());
        assert_eq!(&group[l * 8..l * 8 + 8], &want[..], "{what}: group of 8");
    }
}

/// `barrier_red` gives every thread of the block the same count, and/or.
#[test]
fn block_reductions() {
    let text = "
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = special tid.x
    v2 = iconst.i32 3
    v3 = urem v1, v2
    v4 = iconst.i32 0
    v5 = icmp eq v3, v4
    v6 = barrier_red popc v5
    v7 = barrier_red or v5
    v8 = barrier_red and v5
    v9 = zext.i32 v7
    v10 = zext.i32 v8
    v11 = iconst.i32 100
    v12 = imul v9, v11
    v13 = iadd v6, v12
    v14 = iconst.i32 1000
    v15 = imul v10, v14
    v16 = iadd v13, v15
    v17 = zext.i64 v1
    v18 = iconst.i64 4
    v19 = imul v17, v18
    v20 = ptroffset v0, v19
    store v16, v20
    return
}
";
    let out = run(text, vec![KernelArg::Buffer(vec![0; 100 * 4])], 100, 1).unwrap();
    // 34 multiples of 3 below 100; `or` holds, `and` does not.
    assert!(buffer(&out, 0).iter().all(|&v| v == 34 + 100));
}

/// Every atomic operation, from 3 blocks of 64 threads.
#[test]
fn atomics_from_many_threads() {
    let text = "
kernel external @k(ptr<global>, ptr<global>) {
block0(v0: ptr<global>, v1: ptr<global>):
    v2 = special tid.x
    v3 = special ctaid.x
    v4 = iconst.i32 64
    v5 = imul v3, v4
    v6 = iadd v5, v2
    v7 = iconst.i32 1
    v8 = atomic_rmw add gpu v0, v7
    v9 = iconst.i64 4
    v10 = ptroffset v0, v9
    v11 = atomic_rmw umax gpu v10, v6
    v12 = iconst.i64 8
    v13 = ptroffset v0, v12
    v14 = atomic_rmw smin gpu v13, v6
    v15 = iconst.i64 12
    v16 = ptroffset v0, v15
    v17 = atomic_rmw or gpu v16, v6
    v18 = iconst.i64 16
    v19 = ptroffset v0, v18
    v20 = iconst.i32 9
    v21 = atomic_rmw inc gpu v19, v20
    v22 = iconst.i64 20
    v23 = ptroffset v0, v22
    v24 = atomic_cas gpu v23, v6, v6
    v25 = fconst.f32 0.5
    v26 = atomic_rmw add gpu v1, v25
    return
}
";
    let mut counters = vec![0u8; 6 * 4];
    counters[8..12].copy_from_slice(&1000i32.to_le_bytes());
    let out = run(
        text,
        vec![KernelArg::Buffer(counters), KernelArg::Buffer(vec![0; 4])],
        64,
        3,
    )
    .unwrap();
    let got = buffer(&out, 0);
    assert_eq!(got[0], 192, "add");
    assert_eq!(got[1], 191, "umax of the global ids");
    assert_eq!(got[2], 0, "smin");
    assert_eq!(got[3], 255, "or of 0..192");
    assert_eq!(got[4], 192 % 10, "inc wraps past 9");
    // cas(x == id ? id) only succeeds while the counter equals the thread's id:
    // thread 0 finds 0 and writes 0, so the value stays 0.
    assert_eq!(got[5], 0, "cas");
    assert_eq!(f32::from_bits(buffer(&out, 1)[0]), 96.0, "f32 add");
}

/// A lane named in the member mask that waits elsewhere would hang a GPU.
#[test]
fn shuffle_with_a_lane_waiting_elsewhere_is_a_fault() {
    let text = "
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = special laneid
    v2 = iconst.i32 16
    v3 = icmp ult v1, v2
    v4 = iconst.i32 -1
    v5 = iconst.i32 31
    brif v3, block1, block2

block1:
    v6 = shfl idx v1, v2, v5, v4
    store v6, v0
    return

block2:
    v7 = shfl idx v1, v1, v5, v4
    return
}
";
    match run(text, vec![KernelArg::Buffer(vec![0; 4])], 32, 1) {
        Err(RunError::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::BarrierDivergence);
            assert!(
                f.message.contains("waits at another instruction"),
                "{}",
                f.message
            );
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// Atomics keep the memory checks: out of bounds is a fault.
#[test]
fn atomic_out_of_bounds_is_a_fault() {
    let text = "
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = iconst.i64 8
    v2 = ptroffset v0, v1
    v3 = iconst.i32 1
    v4 = atomic_rmw add gpu v2, v3
    return
}
";
    match run(text, vec![KernelArg::Buffer(vec![0; 4])], 1, 1) {
        Err(RunError::Fault(f)) => assert_eq!(f.kind, FaultKind::OutOfBounds),
        other => panic!("expected a fault, got {other:?}"),
    }
}
