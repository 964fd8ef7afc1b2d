//! The instructions beyond C's operators that nvcc and kernelc may write,
//! end to end: each test is a one-thread kernel that real ptxas must
//! accept for sm_90 (so every form is one NVIDIA's assembler takes), run in
//! the emulator, and checked against values worked out from the PTX ISA's
//! definitions in the test itself (wide integer arithmetic, bit by bit),
//! independently of the emulator's code. Without ptxas a test prints a
//! loud skip line and still runs the emulator; with `CI=true` a missing
//! ptxas fails.

use ptx_emu::{run_ptx, KernelArg, LaunchConfig};
use ptx_validate::driver;
use std::path::{Path, PathBuf};

fn ptxas_or_skip(what: &str) -> Option<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent();
    match driver::find_ptxas(workspace) {
        Some(p) => Some(p),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("ptxas is required in CI (CI=true) but was not found")
        }
        None => {
            eprintln!("SKIPPED (ptxas not found; run ./scripts/test to install it): {what}");
            None
        }
    }
}

/// A one-thread kernel `k(.param .u64 out)` with `body` (`%rd1` holds
/// `out`), assembled by ptxas and run in the emulator over `n` zeroed
/// words; returns the words.
fn run(what: &str, body: &str, n: usize) -> Vec<u32> {
    let src = format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<8>; .reg .b16 %h<16>; .reg .b32 %r<40>; .reg .b64 %rd<16>;\n\
         .reg .f32 %f<16>; .reg .f64 %fd<8>;\n\
         ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
         {body}\n ret;\n}}\n"
    );
    if let Some(ptxas) = ptxas_or_skip(what) {
        let outcome = driver::assemble(&ptxas, &src, "sm_90", &[]).expect("run ptxas");
        assert!(
            outcome.accepted,
            "ptxas rejected {what}:\n{}\n{src}",
            outcome.raw
        );
    }
    let out = run_ptx(
        &src,
        "k",
        &[KernelArg::Buffer(vec![0; 4 * n])],
        &LaunchConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{what}: {e}\n{src}"));
    out.buffers[0]
        .as_ref()
        .expect("a buffer")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `st.global.u32 [%rd1+4k], %rK` for each register `%r{k}` of `regs`.
fn store(regs: &[u32]) -> String {
    regs.iter()
        .enumerate()
        .map(|(k, r)| format!("st.global.u32 [%rd1+{}], %r{r};\n", 4 * k))
        .collect()
}

#[test]
fn sad_sums_the_absolute_difference() {
    let body = "mov.b32 %r1, 3; mov.b32 %r2, 10; mov.b32 %r3, 100;\n\
        sad.u32 %r10, %r1, %r2, %r3;\n\
        mov.b32 %r4, -1; mov.b32 %r5, 1;\n\
        sad.s32 %r11, %r4, %r5, 0;\n\
        sad.u32 %r12, %r4, %r5, 0;\n\
        mov.b32 %r6, 0x7fffffff; mov.b32 %r7, 0x80000000;\n\
        sad.s32 %r13, %r6, %r7, 1;\n\
        mov.b16 %h1, 5; mov.b16 %h2, 0xfffe; mov.b16 %h3, 0xfffd;\n\
        sad.u16 %h4, %h1, %h2, %h3; cvt.u32.u16 %r14, %h4;\n\
        sad.s16 %h5, %h1, %h2, %h3; cvt.u32.u16 %r15, %h5;\n"
        .to_string()
        + &store(&[10, 11, 12, 13, 14, 15]);
    let out = run("sad", &body, 6);
    assert_eq!(out[0], 107);
    assert_eq!(out[1], 2, "signed: |-1 - 1|");
    assert_eq!(out[2], 0xffff_fffe, "unsigned: 0xffffffff - 1");
    // |INT_MAX - INT_MIN| = 2^32 - 1, plus 1 wraps to 0.
    assert_eq!(out[3], ((1u64 << 32) - 1 + 1) as u32);
    // u16: |5 - 65534| = 65529, plus 65533, mod 2^16.
    assert_eq!(out[4], (65529 + 65533) % 65536);
    // s16: 0xfffe is -2, |5 - -2| = 7, plus 0xfffd (-3): 4.
    assert_eq!(out[5], 4);
}

#[test]
fn mul24_and_mad24_use_the_low_24_bits() {
    let body = "mov.b32 %r1, 0xff000003; mov.b32 %r2, 0x12000005;\n\
        mul24.lo.u32 %r10, %r1, %r2;\n\
        mov.b32 %r3, 0x00ffffff;\n\
        mul24.lo.u32 %r11, %r3, %r3; mul24.hi.u32 %r12, %r3, %r3;\n\
        mul24.lo.s32 %r13, %r3, %r3; mul24.hi.s32 %r14, %r3, 3;\n\
        mov.b32 %r4, 0x007fffff;\n\
        mad24.hi.s32 %r15, %r4, %r4, 0x7fffffff;\n\
        mad24.hi.sat.s32 %r16, %r4, %r4, 0x7fffffff;\n\
        mad24.lo.u32 %r17, %r1, %r2, 0xfffffff0;\n\
        mad24.hi.sat.s32 %r18, %r3, 3, 0x80000000;\n"
        .to_string()
        + &store(&[10, 11, 12, 13, 14, 15, 16, 17, 18]);
    let out = run("mul24/mad24", &body, 9);
    // The high byte of each operand is ignored: 3 * 5.
    assert_eq!(out[0], 15);
    let sq = 0xff_ffffu64 * 0xff_ffff; // 48 bits
    assert_eq!(out[1], sq as u32);
    assert_eq!(out[2], (sq >> 16) as u32);
    // Signed, 0xffffff is -1: (-1)^2 = 1; -1 * 3 = -3, bits 47..16 all ones.
    assert_eq!(out[3], 1);
    assert_eq!(out[4], u32::MAX);
    let hi = ((((1u64 << 23) - 1).pow(2)) >> 16) as u32;
    assert_eq!(out[5], hi.wrapping_add(0x7fff_ffff));
    assert_eq!(out[6], 0x7fff_ffff, "saturated");
    assert_eq!(out[7], 15u32.wrapping_add(0xffff_fff0));
    // -3 >> 16 is -1 in bits 47..16; -1 + INT_MIN clamps at INT_MIN.
    assert_eq!(out[8], 0x8000_0000);
}

#[test]
fn carry_chains_add_subtract_and_multiply_wide_numbers() {
    let (x, y) = (
        0xffff_ffff_0000_0001_ffff_ffff_ffff_ffffu128,
        0x0000_0001_ffff_ffff_0000_0000_0000_0001u128,
    );
    let w = |v: u128, i: u32| (v >> (32 * i)) as u32;
    let mut body = String::new();
    for i in 0..4 {
        body += &format!(
            "mov.b32 %r{}, {:#x}; mov.b32 %r{}, {:#x};\n",
            1 + i,
            w(x, i),
            5 + i,
            w(y, i)
        );
    }
    body += "add.cc.u32 %r10, %r1, %r5; addc.cc.u32 %r11, %r2, %r6;\n\
        addc.cc.u32 %r12, %r3, %r7; addc.u32 %r13, %r4, %r8;\n\
        sub.cc.u32 %r14, %r5, %r1; subc.cc.u32 %r15, %r6, %r2;\n\
        subc.cc.u32 %r16, %r7, %r3; subc.u32 %r17, %r8, %r4;\n\
        mov.b64 %rd2, -1; mov.b64 %rd3, 1;\n\
        add.cc.u64 %rd4, %rd2, %rd3; addc.u64 %rd5, 0, 0;\n\
        mov.b64 {%r18, %r19}, %rd4; mov.b64 {%r20, %r21}, %rd5;\n\
        mad.lo.cc.u32 %r22, %r1, %r5, %r3; madc.hi.u32 %r23, %r1, %r5, %r4;\n\
        mad.hi.cc.u32 %r24, %r2, %r2, 0xffffffff; madc.lo.cc.u32 %r25, 0, 0, 0;\n\
        madc.lo.u32 %r26, 0, 0, 0;\n\
        mov.b32 %r27, 0x7fffffff;\n\
        mad.hi.sat.s32 %r28, %r27, %r27, 0x7fffffff;\n\
        mad.hi.s32 %r29, %r27, %r27, 0x7fffffff;\n";
    body += &store(&[
        10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28, 29,
    ]);
    let out = run("add.cc/addc/sub.cc/subc/mad.cc/madc", &body, 19);
    let word = |i: usize| u128::from(out[i]);
    let sum = (0..4).fold(0, |v, i| v | word(i) << (32 * i));
    assert_eq!(sum, x.wrapping_add(y), "128-bit sum");
    let diff = (0..4).fold(0, |v, i| v | word(4 + i) << (32 * i));
    assert_eq!(diff, y.wrapping_sub(x), "128-bit difference");
    // u64::MAX + 1 carries: 0, then 0 + 0 + carry = 1.
    assert_eq!(&out[8..12], &[0, 0, 1, 0]);
    // lo(a*b) + c, then hi(a*b) + d with its carry.
    let (a, b) = (u64::from(w(x, 0)), u64::from(w(y, 0)));
    let p = a * b;
    let low = (p & 0xffff_ffff) + u64::from(w(x, 2));
    assert_eq!(u64::from(out[12]), low & 0xffff_ffff);
    assert_eq!(
        u64::from(out[13]),
        ((p >> 32) + u64::from(w(x, 3)) + (low >> 32)) & 0xffff_ffff
    );
    // Word 1 of x is 0xffffffff: hi(w1^2) = 0xfffffffe, and adding
    // 0xffffffff carries; madc.lo.cc of zeros turns the carry into 1 and
    // clears it, so the last madc gives 0.
    let w1 = u64::from(w(x, 1));
    let s = ((w1 * w1) >> 32) + 0xffff_ffff;
    assert_eq!(u64::from(out[14]), s & 0xffff_ffff);
    assert_eq!(u64::from(out[15]), s >> 32);
    assert_eq!(out[16], 0);
    // mad.hi.s32: (2^31 - 1)^2 >> 32 = 2^30 - 1; + INT_MAX overflows.
    let hi = (((1i64 << 31) - 1).pow(2) >> 32) as u32;
    assert_eq!(out[17], 0x7fff_ffff, "mad.hi.sat.s32 clamps");
    assert_eq!(out[18], hi.wrapping_add(0x7fff_ffff));
}
