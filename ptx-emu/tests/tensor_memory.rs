//! Blackwell's tensor memory and `tcgen05`, and swizzled shared memory, on
//! hand-written PTX: a GEMM whose tiles TMA loads with each swizzle mode and
//! whose MMAs (`tcgen05.mma`, and `wgmma`) read them through descriptors of
//! the same mode, checked against a product computed here; `tcgen05.st` and
//! `.ld` round trips, `kind::tf32`; and the faults of tensor-memory misuse.

use ptx_emu::{run_ptx, FaultKind, KernelArg, LaunchConfig, RunError, RunOutput, TensorMapArg};

/// The f16 bits of a small integer (exact).
fn f16_bits(v: i32) -> u16 {
    if v == 0 {
        return 0;
    }
    let sign = if v < 0 { 0x8000 } else { 0 };
    let m = v.unsigned_abs();
    let e = 31 - m.leading_zeros();
    sign | (((e + 15) as u16) << 10) | (((m << (10 - e)) & 0x3ff) as u16)
}

/// A row-major `rows x cols` f16 matrix of small integers, as bytes.
fn f16_matrix(rows: usize, cols: usize, f: impl Fn(usize, usize) -> i32) -> Vec<u8> {
    let mut out = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            out.extend(f16_bits(f(r, c)).to_le_bytes());
        }
    }
    out
}

fn a_val(m: usize, k: usize) -> i32 {
    ((m * 7 + k * 3) % 9) as i32 - 4
}

fn bt_val(n: usize, k: usize) -> i32 {
    ((n * 5 + k * 11) % 7) as i32 - 3
}

/// `C[m][n] = sum_k A[m][k] * Bt[n][k]` (small integers: exact).
fn reference(m: usize, n: usize) -> Vec<f32> {
    let mut c = Vec::new();
    for i in 0..m {
        for j in 0..n {
            c.push((0..64).map(|k| (a_val(i, k) * bt_val(j, k)) as f32).sum());
        }
    }
    c
}

/// An f16 tensor map over `rows x 64` with boxes of all the rows by
/// `box_cols` columns.
fn tmap(rows: u32, data: Vec<u8>, box_cols: u32, swizzle: u32) -> KernelArg {
    KernelArg::TensorMap(TensorMapArg {
        data,
        elem_bytes: 2,
        rows,
        cols: 64,
        box_rows: rows,
        box_cols,
        swizzle,
    })
}

fn launch(src: &str, args: &[KernelArg], threads: u32) -> Result<RunOutput, RunError> {
    let config = LaunchConfig {
        block: [threads, 1, 1],
        ..LaunchConfig::default()
    };
    run_ptx(src, "k", args, &config)
}

fn f32s(out: &RunOutput, k: usize) -> Vec<f32> {
    out.buffers[k]
        .as_ref()
        .expect("a buffer")
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// How a K-major tile of `rows` x 64 f16 lies in shared memory when TMA
/// loads it in boxes of `width` bytes per row (16: no swizzle, so each box
/// is one column of core matrices; else the swizzle's bytes): the byte
/// offset of the box that holds K byte `kb`, and within it the offset of
/// that byte of row 0; the descriptor's leading offset (the box stride),
/// stride offset (8 rows) and swizzle code.
struct Tile {
    rows: u64,
    width: u64,
}

impl Tile {
    fn start(&self, kb: u64) -> u64 {
        (kb / self.width) * self.rows * self.width + kb % self.width
    }
    /// The descriptor without its start address; `version` is tcgen05's
    /// bit 46 (0 for wgmma), `code` the swizzle field already in place.
    fn desc_fields(&self, code: u64, version: u64) -> u64 {
        let lbo = self.rows * self.width;
        let sbo = 8 * self.width;
        ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | version | code
    }
}

/// PTX that loads the A and B tiles (`a_rows` and 64 rows of 64 f16) with
/// TMA in boxes of `width` bytes per row, then waits for them: thread 0
/// expects the bytes at `tbar`.
fn tma_loads(a_rows: u64, width: u64) -> String {
    let box_cols = width / 2;
    let boxes = 128 / width;
    let bytes = (a_rows + 64) * 128;
    let mut s = format!(
        "setp.ne.u32 %p1, %r1, 0;\n @%p1 bra WAIT_TMA;\n\
         mbarrier.init.shared.b64 [tbar], 1;\n mbarrier.init.shared.b64 [mbar], 1;\n\
         mbarrier.arrive.expect_tx.shared::cta.b64 %rd9, [tbar], {bytes};\n"
    );
    for j in 0..boxes {
        for (map, tile, rows) in [("%rd2", "sa", a_rows), ("%rd3", "sb", 64)] {
            s += &format!(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{tile}+{}], [{map}, {{{}, 0}}], [tbar];\n",
                j * rows * width,
                j * box_cols
            );
        }
    }
    s += "WAIT_TMA: bar.sync 0;\n\
          TMA_SPIN: mbarrier.try_wait.parity.shared::cta.b64 %p2, [tbar], 0;\n @!%p2 bra TMA_SPIN;\n";
    s
}

/// The kernel's head: parameters `am`, `bm` (tensor maps) and `out`, the
/// 1024-byte aligned tiles, and `%r1` = tid, `%rd1` = out, `%rd2`/`%rd3` =
/// the maps' generic addresses, `%r2`/`%r3` = the tiles' shared addresses.
fn head(target: &str, a_bytes: u64) -> String {
    format!(
        ".version 8.6\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .align 64 .b8 am[128], .param .align 64 .b8 bm[128], .param .u64 out)\n{{\n\
         .reg .pred %p<8>; .reg .b32 %r<200>; .reg .b64 %rd<64>; .reg .f32 %f<64>;\n\
         .shared .align 1024 .b8 sa[{a_bytes}];\n .shared .align 1024 .b8 sb[8192];\n\
         .shared .align 8 .b64 tbar;\n .shared .align 8 .b64 mbar;\n .shared .align 4 .b32 slot;\n\
         mov.u32 %r1, %tid.x;\n\
         ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
         mov.b64 %rd4, am;\n cvta.param.u64 %rd2, %rd4;\n\
         mov.b64 %rd5, bm;\n cvta.param.u64 %rd3, %rd5;\n\
         mov.u32 %r2, sa;\n mov.u32 %r3, sb;\n"
    )
}

/// PTX putting into `%rd{reg}` the descriptor of the tile at shared
/// address `%r{base}` + `offset`, with the other fields `fields`.
fn desc(reg: u32, base: u32, offset: u64, fields: u64) -> String {
    format!(
        "add.s32 %r10, %r{base}, {offset};\n cvt.u64.u32 %rd20, %r10;\n shr.u64 %rd20, %rd20, 4;\n\
         and.b64 %rd20, %rd20, 16383;\n or.b64 %rd{reg}, %rd20, {fields};\n"
    )
}

/// C (128 x 64) = A (128 x 64) * B (given as Bt, 64 x 64) with
/// `tcgen05.mma` kind::f16, tiles loaded by TMA in boxes of `width` bytes
/// per row with the matching swizzle, 4 MMAs of K = 16; every warp reads its
/// 32 lanes with `tcgen05.ld.32x32b.x64`.
fn tcgen05_gemm(width: u64) -> Result<Vec<f32>, RunError> {
    let (a, b) = (Tile { rows: 128, width }, Tile { rows: 64, width });
    let code = match width {
        16 => 0,
        32 => 6,
        64 => 4,
        _ => 2,
    } << 61;
    let mut s = head("sm_100a", 16384);
    s += &tma_loads(128, width);
    s += "setp.ge.u32 %p3, %r1, 32;\n @%p3 bra ALLOCATED;\n\
          tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 64;\n\
          tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n\
          ALLOCATED: tcgen05.fence::before_thread_sync;\n bar.sync 0;\n tcgen05.fence::after_thread_sync;\n\
          ld.shared.u32 %r4, [slot];\n\
          setp.ne.u32 %p1, %r1, 0;\n @%p1 bra MMA_DONE;\n";
    for step in 0..4u64 {
        s += &desc(30, 2, a.start(32 * step), a.desc_fields(code, 1 << 46));
        s += &desc(31, 3, b.start(32 * step), b.desc_fields(code, 1 << 46));
        s += &format!(
            "setp.ne.u32 %p4, {step}, 0;\n\
             tcgen05.mma.cta_group::1.kind::f16 [%r4], %rd30, %rd31, 0x08100010, %p4;\n"
        );
    }
    s += "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar];\n\
          MMA_DONE: mbarrier.try_wait.parity.shared::cta.b64 %p5, [mbar], 0;\n @!%p5 bra MMA_DONE;\n\
          tcgen05.fence::after_thread_sync;\n\
          shr.u32 %r5, %r1, 5;\n shl.b32 %r6, %r5, 21;\n add.s32 %r7, %r4, %r6;\n";
    let regs: Vec<String> = (0..64).map(|j| format!("%r{}", 100 + j)).collect();
    s += &format!(
        "tcgen05.ld.sync.aligned.32x32b.x64.b32 {{{}}}, [%r7];\n tcgen05.wait::ld.sync.aligned;\n\
         mul.wide.u32 %rd6, %r1, 256;\n add.s64 %rd7, %rd1, %rd6;\n",
        regs.join(", ")
    );
    for (j, r) in regs.iter().enumerate() {
        s += &format!("st.global.b32 [%rd7+{}], {r};\n", 4 * j);
    }
    s += "tcgen05.fence::before_thread_sync;\n bar.sync 0;\n\
          setp.ge.u32 %p3, %r1, 32;\n @%p3 bra END;\n\
          tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 64;\n END: ret;\n}\n";
    let swizzle = if width == 16 { 0 } else { width as u32 };
    let args = [
        tmap(128, f16_matrix(128, 64, a_val), (width / 2) as u32, swizzle),
        tmap(64, f16_matrix(64, 64, bt_val), (width / 2) as u32, swizzle),
        KernelArg::Buffer(vec![0; 128 * 64 * 4]),
    ];
    Ok(f32s(&launch(&s, &args, 128)?, 2))
}

#[test]
fn tcgen05_mma_reads_tma_tiles_of_every_swizzle_into_tensor_memory() {
    let want = reference(128, 64);
    for width in [16, 32, 64, 128] {
        let got = tcgen05_gemm(width).unwrap_or_else(|e| panic!("width {width}: {e}"));
        assert_eq!(got, want, "swizzle of {width} bytes (16: none)");
    }
}

/// The same product with `wgmma` m64n64k16 (A 64 x 64), one warpgroup,
/// descriptors in wgmma's encoding (with the swizzle of `read_width`
/// bytes); the accumulators are stored through the PTX ISA's fragment
/// layout.
fn wgmma_gemm(width: u64, read_width: u64) -> Result<Vec<f32>, RunError> {
    let (a, b) = (Tile { rows: 64, width }, Tile { rows: 64, width });
    let code = match read_width {
        16 => 0,
        32 => 3,
        64 => 2,
        _ => 1,
    } << 62;
    let mut s = head("sm_90a", 8192);
    s += &tma_loads(64, width);
    let acc: Vec<String> = (0..32).map(|j| format!("%f{j}")).collect();
    s += "wgmma.fence.sync.aligned;\n";
    for step in 0..4u64 {
        s += &desc(30, 2, a.start(32 * step), a.desc_fields(code, 0));
        s += &desc(31, 3, b.start(32 * step), b.desc_fields(code, 0));
        s += &format!(
            "setp.ne.u32 %p4, {step}, 0;\n\
             wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{}}}, %rd30, %rd31, %p4, 1, 1, 0, 0;\n",
            acc.join(", ")
        );
    }
    // Row 16w + l/4 (+8), column 2(l % 4) (+8j, +1).
    s += "wgmma.commit_group.sync.aligned;\n wgmma.wait_group.sync.aligned 0;\n\
          shr.u32 %r5, %r1, 5;\n and.b32 %r6, %r1, 31;\n shr.u32 %r7, %r6, 2;\n\
          mad.lo.s32 %r7, %r5, 16, %r7;\n and.b32 %r8, %r6, 3;\n shl.b32 %r8, %r8, 1;\n\
          mad.lo.s32 %r9, %r7, 64, %r8;\n mul.wide.u32 %rd6, %r9, 4;\n add.s64 %rd7, %rd1, %rd6;\n";
    for (h, r) in acc.iter().enumerate() {
        let off = 4 * (64 * 8 * ((h / 2) % 2) + 8 * (h / 4) + h % 2);
        s += &format!("st.global.f32 [%rd7+{off}], {r};\n");
    }
    s += "ret;\n}\n";
    let swizzle = if width == 16 { 0 } else { width as u32 };
    let args = [
        tmap(64, f16_matrix(64, 64, a_val), (width / 2) as u32, swizzle),
        tmap(64, f16_matrix(64, 64, bt_val), (width / 2) as u32, swizzle),
        KernelArg::Buffer(vec![0; 64 * 64 * 4]),
    ];
    Ok(f32s(&launch(&s, &args, 128)?, 2))
}

#[test]
fn wgmma_reads_tma_tiles_of_every_swizzle() {
    let want = reference(64, 64);
    for width in [16, 32, 64, 128] {
        let got = wgmma_gemm(width, width).unwrap_or_else(|e| panic!("width {width}: {e}"));
        assert_eq!(got, want, "swizzle of {width} bytes (16: none)");
    }
}

/// A tile loaded with one swizzle and read with another is a different
/// matrix: the modes are distinct permutations.
#[test]
fn a_mismatched_swizzle_reads_a_different_matrix() {
    let want = reference(64, 64);
    let got = wgmma_gemm(128, 64).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(got, want);
}

/// A minimal tcgen05 kernel of one warp: `body` runs after `%r4` holds a
/// 32-column allocation; `out` has `n` words.
fn one_warp(body: &str, n: usize) -> Result<Vec<u32>, RunError> {
    let src = format!(
        ".version 8.6\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<8>; .reg .b32 %r<64>; .reg .b64 %rd<16>;\n\
         .shared .align 4 .b32 slot;\n .shared .align 1024 .b8 tile[4096];\n .shared .align 8 .b64 mbar;\n\
         mov.u32 %r1, %tid.x;\n ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
         mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n\
         tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;\n\
         ld.shared.u32 %r4, [slot];\n{body}\n ret;\n}}\n"
    );
    let out = launch(&src, &[KernelArg::Buffer(vec![0; n * 4])], 32)?;
    Ok(out.buffers[0]
        .as_ref()
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

fn fault_of(r: Result<Vec<u32>, RunError>) -> Box<ptx_emu::Fault> {
    match r {
        Err(RunError::Fault(f)) => f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// `tcgen05.st` writes columns of each thread's lane and `tcgen05.ld`
/// reads them back, at any column of the allocation.
#[test]
fn tcgen05_st_and_ld_move_columns_of_each_lane() {
    let got = one_warp(
        "mad.lo.s32 %r5, %r1, 100, 7;\n add.s32 %r6, %r5, 1;\n\
         add.s32 %r7, %r4, 30;\n\
         tcgen05.st.sync.aligned.32x32b.x2.b32 [%r7], {%r5, %r6};\n tcgen05.wait::st.sync.aligned;\n\
         add.s32 %r8, %r4, 31;\n\
         tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r9}, [%r8];\n tcgen05.wait::ld.sync.aligned;\n\
         st.global.u32 [%rd3], %r9;\n\
         tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 32;",
        32,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let want: Vec<u32> = (0..32).map(|l| 100 * l + 8).collect();
    assert_eq!(got, want);
}

/// `kind::tf32` (M = 64, N = 8, K = 8): A's rows are 32 bytes of K, and
/// D's 64 rows lie in the first 16 lanes of each warp's 32 (layout F), so
/// lane `l` of this one warp holds row `l` when `l < 16`. The low 13
/// fraction bits of each tf32 are ignored: 1 + 2^-20 reads as 1.
#[test]
fn tcgen05_mma_kind_tf32_with_m64() {
    // A (64 x 8) and B (8 x 8), K-major, no swizzle: core matrices of 8 rows
    // of 16 bytes (4 tf32); along K 128 bytes apart, along rows 256.
    let k_major = |row: u32, k: u32| (row / 8) * 256 + (k / 4) * 128 + (row % 8) * 16 + (k % 4) * 4;
    let mut stores = String::new();
    for row in 0..16u32 {
        for k in 0..8u32 {
            // A[row][k] = row + k + 2^-20 (ignored), B[n][k] = n == k.
            let a = (row + k) as f32
                + if k == 0 {
                    2f32.powi(-20) * (row + k) as f32
                } else {
                    0.0
                };
            stores += &format!(
                "st.shared.f32 [tile+{}], 0f{:08X};\n",
                k_major(row, k),
                a.to_bits()
            );
            if row < 8 {
                let b = if row == k { 1.0f32 } else { 0.0 };
                stores += &format!(
                    "st.shared.f32 [tile+{}], 0f{:08X};\n",
                    2048 + k_major(row, k),
                    b.to_bits()
                );
            }
        }
    }
    let fields = ((128u64 >> 4) << 16) | ((256u64 >> 4) << 32) | (1 << 46);
    // f32 D, tf32 A and B (2), N = 8, M = 64.
    let idesc = (1u32 << 4) | (2 << 7) | (2 << 10) | (1 << 17) | (4 << 24);
    let body = format!(
        "setp.ne.u32 %p1, %r1, 0;\n @%p1 bra READ;\n{stores}\
         mbarrier.init.shared.b64 [mbar], 1;\n\
         mov.u32 %r2, tile;\n cvt.u64.u32 %rd4, %r2;\n shr.u64 %rd4, %rd4, 4;\n\
         and.b64 %rd4, %rd4, 16383;\n or.b64 %rd5, %rd4, {fields};\n\
         add.s64 %rd6, %rd5, 128;\n\
         setp.eq.u32 %p2, 0, 0;\n\
         tcgen05.mma.cta_group::1.kind::tf32 [%r4], %rd5, %rd6, {idesc}, %p2;\n\
         tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar];\n\
         READ: bar.warp.sync -1;\n\
         tcgen05.ld.sync.aligned.32x32b.x8.b32 {{%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}}, [%r4];\n\
         tcgen05.wait::ld.sync.aligned;\n\
         mul.wide.u32 %rd7, %r1, 32;\n add.s64 %rd8, %rd1, %rd7;\n\
         st.global.v4.u32 [%rd8], {{%r10, %r11, %r12, %r13}};\n st.global.v4.u32 [%rd8+16], {{%r14, %r15, %r16, %r17}};\n\
         tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 32;"
    );
    let got = one_warp(&body, 32 * 8).unwrap_or_else(|e| panic!("{e}"));
    for lane in 0..16usize {
        for n in 0..8usize {
            assert_eq!(
                f32::from_bits(got[lane * 8 + n]),
                (lane + n) as f32,
                "D[{lane}][{n}]"
            );
        }
    }
}

#[test]
fn tensor_memory_misuse_is_a_fault() {
    // Never freed: located at the allocation.
    let f = fault_of(one_warp("", 32));
    assert_eq!(f.kind, FaultKind::BarrierDivergence);
    assert!(f.message.starts_with("tcgen05.alloc"), "{}", f.message);
    assert!(f.message.contains("still allocated"), "{}", f.message);
    // A column outside the allocation.
    let f = fault_of(one_warp(
        "add.s32 %r5, %r4, 31;\n tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r6, %r7}, [%r5];",
        32,
    ));
    assert_eq!(f.kind, FaultKind::OutOfBounds);
    assert!(f.message.contains("columns 31..33"), "{}", f.message);
    // Warp 0 reaching lanes 32..63.
    let f = fault_of(one_warp(
        "add.s32 %r5, %r4, 0x200000;\n tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r6}, [%r5];",
        32,
    ));
    assert!(f.message.contains("lanes 0..32"), "{}", f.message);
    // Freed with the wrong size; a count that is no power of two.
    let f = fault_of(one_warp(
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 64;",
        32,
    ));
    assert!(
        f.message.contains("no allocation starts there"),
        "{}",
        f.message
    );
    let f = fault_of(one_warp(
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 48;",
        32,
    ));
    assert!(f.message.contains("power of two"), "{}", f.message);
    // Allocating after relinquishing the permit.
    let f = fault_of(one_warp(
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n\
         tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
        32,
    ));
    assert!(f.message.contains("relinquished"), "{}", f.message);
}

/// A second allocation takes the next free run, aligned to its size, and
/// its address is written to shared memory.
#[test]
fn allocations_are_placed_first_fit_at_a_multiple_of_their_size() {
    let got = one_warp(
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 64;\n\
         ld.shared.u32 %r5, [slot];\n\
         tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;\n\
         ld.shared.u32 %r6, [slot];\n\
         st.global.u32 [%rd3], %r5;\n st.global.u32 [%rd3+128], %r6;\n\
         tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 32;\n\
         tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 64;\n\
         tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r6, 32;",
        64,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((got[0], got[32]), (64, 32));
}

/// A swizzled box must have rows of exactly the swizzle's bytes.
#[test]
fn a_swizzled_tensor_map_with_other_rows_is_refused() {
    let err = tcgen05_gemm_with_box(64, 128).unwrap_err();
    assert!(
        err.to_string().contains("exactly the swizzle's bytes"),
        "{err}"
    );
}

fn tcgen05_gemm_with_box(box_bytes: u32, swizzle: u32) -> Result<RunOutput, RunError> {
    let src = ".version 8.6\n.target sm_100a\n.address_size 64\n\
               .visible .entry k(.param .align 64 .b8 am[128])\n{\n ret;\n}\n";
    launch(
        src,
        &[tmap(64, f16_matrix(64, 64, a_val), box_bytes / 2, swizzle)],
        32,
    )
}

/// Where TMA puts a 128-byte-swizzled box, read with plain loads: element
/// (row 1, column 0) of rows of 64 f16 lies in 16-byte chunk 0 ^ 1 = 1 of
/// row 1, and (row 3, column 8), chunk 1, in chunk 1 ^ 3 = 2 (the pattern
/// of `CU_TENSOR_MAP_SWIZZLE_128B`).
#[test]
fn tma_writes_a_swizzled_box_where_the_pattern_says() {
    let src = ".version 8.6\n.target sm_90\n.address_size 64\n\
               .visible .entry k(.param .align 64 .b8 am[128], .param .u64 out)\n{\n\
               .reg .pred %p<4>; .reg .b16 %h<4>; .reg .b64 %rd<8>;\n\
               .shared .align 1024 .b8 tile[1024];\n .shared .align 8 .b64 bar;\n\
               ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
               mov.b64 %rd2, am;\n cvta.param.u64 %rd3, %rd2;\n\
               mbarrier.init.shared.b64 [bar], 1;\n\
               mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar], 1024;\n\
               cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd3, {0, 0}], [bar];\n\
               WAIT: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n @!%p1 bra WAIT;\n\
               ld.shared.u16 %h1, [tile+144];\n ld.shared.u16 %h2, [tile+416];\n\
               st.global.u16 [%rd1], %h1;\n st.global.u16 [%rd1+2], %h2;\n ret;\n}\n";
    let args = [
        tmap(
            8,
            f16_matrix(8, 64, |r, c| (r * 64 + c) as i32 % 1000),
            64,
            128,
        ),
        KernelArg::Buffer(vec![0; 4]),
    ];
    let out = launch(src, &args, 1).unwrap_or_else(|e| panic!("{e}"));
    let got = out.buffers[1].clone().unwrap();
    let want: Vec<u8> = [f16_bits(64), f16_bits(3 * 64 + 8)]
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    assert_eq!(got, want);
}

/// `tcgen05.cp` reads rows of the descriptor's K-major layout (here 128
/// rows of 32 bytes: 16-byte chunks 2048 bytes apart, groups of 8 rows 128
/// apart) into consecutive lanes, word `j` into column `j` (128x256b); the
/// 4x256b shape puts its 4 rows in lanes 0, 32, 64, 96.
#[test]
fn tcgen05_cp_copies_shared_rows_into_lanes() {
    let at = |r: u32, j: u32| (r / 8) * 128 + (j / 4) * 2048 + (r % 8) * 16 + (j % 4) * 4;
    let mut stores = String::new();
    for r in 0..128u32 {
        for j in 0..8u32 {
            stores += &format!("st.shared.u32 [tile+{}], {};\n", at(r, j), 1000 * r + j + 1);
        }
    }
    let fields = ((2048u64 >> 4) << 16) | ((128u64 >> 4) << 32) | (1 << 46);
    let body = format!(
        "setp.ne.u32 %p1, %r1, 0;\n @%p1 bra READ;\n{stores}\
         mov.u32 %r2, tile;\n cvt.u64.u32 %rd4, %r2;\n shr.u64 %rd4, %rd4, 4;\n\
         and.b64 %rd4, %rd4, 16383;\n or.b64 %rd5, %rd4, {fields};\n\
         tcgen05.cp.cta_group::1.128x256b [%r4], %rd5;\n\
         add.s32 %r3, %r4, 8;\n tcgen05.cp.cta_group::1.4x256b [%r3], %rd5;\n\
         READ: bar.warp.sync -1;\n\
         tcgen05.ld.sync.aligned.32x32b.x16.b32 {{%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, \
         %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25}}, [%r4];\n\
         tcgen05.wait::ld.sync.aligned;\n\
         mul.wide.u32 %rd7, %r1, 64;\n add.s64 %rd8, %rd1, %rd7;\n\
         st.global.v4.u32 [%rd8], {{%r10, %r11, %r12, %r13}};\n st.global.v4.u32 [%rd8+16], {{%r14, %r15, %r16, %r17}};\n\
         st.global.v4.u32 [%rd8+32], {{%r18, %r19, %r20, %r21}};\n st.global.v4.u32 [%rd8+48], {{%r22, %r23, %r24, %r25}};\n\
         tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 32;"
    );
    let got = one_warp(&body, 32 * 16).unwrap_or_else(|e| panic!("{e}"));
    for lane in 0..32u32 {
        for j in 0..8u32 {
            assert_eq!(
                got[(lane * 16 + j) as usize],
                1000 * lane + j + 1,
                "lane {lane} column {j}"
            );
            // The 4x256b copy: row 0 in lane 0; lanes 1..32 untouched.
            let want = if lane == 0 { j + 1 } else { 0 };
            assert_eq!(
                got[(lane * 16 + 8 + j) as usize],
                want,
                "lane {lane} column {}",
                8 + j
            );
        }
    }
}
