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
use std::path::PathBuf;

fn ptxas_or_skip(what: &str) -> Option<PathBuf> {
    stdx::tools::find_for_test(stdx::tools::Tool::Ptxas, what)
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

/// The bit `lop3` computes from bits `a`, `b`, `c` of the table `lut`:
/// `F(0xf0, 0xcc, 0xaa) = lut` makes `a` the weight-4 index bit.
fn lut_bit(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    u32::from(lut >> (4 * a + 2 * b + c)) & 1
}

#[test]
fn lop3_applies_any_table_and_its_predicate_form() {
    let (x, y, z) = (0x1234_5678u32, 0xf0f0_ff00u32, 0xaaaa_5555u32);
    let luts = [0x80u8, 0xfe, 0x40, 0x1a, 0x96, 0xe8, 0x00, 0xff, 0x3c];
    let mut body = format!("mov.b32 %r1, {x:#x}; mov.b32 %r2, {y:#x}; mov.b32 %r3, {z:#x};\n");
    for (k, lut) in luts.iter().enumerate() {
        body += &format!(
            "lop3.b32 %r{r}, %r1, %r2, %r3, {lut:#x}; st.global.u32 [%rd1+{o}], %r{r};\n",
            r = 10 + k,
            o = 4 * k
        );
    }
    // The predicate forms: p = (d != 0) OR/AND q, with `_` for d.
    body += "setp.eq.u32 %p1, %r1, %r1; setp.ne.u32 %p2, %r1, %r1;\n\
        lop3.or.b32 %r20|%p3, %r1, %r2, %r3, 0x00, %p2;\n\
        lop3.and.b32 _|%p4, %r1, %r2, %r3, 0x80, %p1;\n\
        lop3.or.b32 _|%p5, %r1, %r2, %r3, 0x00, %p1;\n\
        lop3.and.b32 %r21|%p6, %r1, %r2, %r3, 0xff, %p2;\n\
        selp.u32 %r22, 1, 0, %p3; selp.u32 %r23, 1, 0, %p4;\n\
        selp.u32 %r24, 1, 0, %p5; selp.u32 %r25, 1, 0, %p6;\n";
    body += &format!(
        "st.global.v4.u32 [%rd1+{}], {{%r22, %r23, %r24, %r25}};\n\
         st.global.v2.u32 [%rd1+{}], {{%r20, %r21}};\n",
        4 * 12,
        4 * 16
    );
    let out = run("lop3", &body, 18);
    for (k, &lut) in luts.iter().enumerate() {
        let want = (0..32).fold(0, |r, i| {
            r | lut_bit(lut, x >> i & 1, y >> i & 1, z >> i & 1) << i
        });
        assert_eq!(out[k], want, "lut {lut:#x}");
    }
    // 0x00 gives 0: p = false || false; 0x80 (a & b & c) of these is not
    // 0: p = true && true; 0x00 || true; 0xff is all ones: true && false.
    assert!(x & y & z != 0);
    assert_eq!(&out[12..16], &[0, 1, 1, 0]);
    assert_eq!(&out[16..18], &[0, u32::MAX]);
}

#[test]
fn dp2a_fns_bmsk_and_szext_follow_the_isa() {
    let body = "mov.b32 %r1, 0x00038000; mov.b32 %r2, 0x7f8002ff;\n\
        dp2a.lo.s32.s32 %r10, %r1, %r2, 10; dp2a.hi.s32.s32 %r11, %r1, %r2, 10;\n\
        dp2a.lo.u32.u32 %r12, %r1, %r2, 10; dp2a.hi.u32.s32 %r13, %r1, %r2, 0;\n\
        mov.b32 %r3, 0xaaaaaaaa;\n\
        fns.b32 %r14, %r3, 3, 1; fns.b32 %r15, %r3, 2, -1; fns.b32 %r16, %r3, 2, 0;\n\
        fns.b32 %r17, %r3, 31, -16; fns.b32 %r18, %r3, 31, -17;\n\
        bmsk.wrap.b32 %r19, 1, 2; bmsk.clamp.b32 %r20, 28, 8;\n\
        bmsk.wrap.b32 %r21, 0, 32; bmsk.clamp.b32 %r22, 0, 32; bmsk.clamp.b32 %r23, 32, 4;\n\
        szext.wrap.u32 %r24, 0xffffffff, 0; szext.clamp.s32 %r25, 0x80, 8;\n\
        szext.clamp.u32 %r26, 0xffffff80, 8; szext.clamp.s32 %r27, 0x12345678, 100;\n\
        szext.wrap.s32 %r28, 1, 33;\n"
        .to_string()
        + &store(&[
            10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
        ]);
    let out = run("dp2a/fns/bmsk/szext", &body, 19);
    // a's halves: 0x8000 (-32768 or 32768), 3; b's bytes: 0xff, 0x02,
    // 0x80, 0x7f.
    let dot = |x: [i64; 2], y: [i64; 2], c: i64| (c + x[0] * y[0] + x[1] * y[1]) as u32;
    assert_eq!(out[0], dot([-32768, 3], [-1, 2], 10));
    assert_eq!(out[1], dot([-32768, 3], [-128, 127], 10));
    assert_eq!(out[2], dot([32768, 3], [255, 2], 10));
    assert_eq!(out[3], dot([32768, 3], [-128, 127], 0));
    // fns: the ISA's examples, then down from 31 to the 16th set bit (1)
    // and a 17th that 0xaaaaaaaa does not have.
    assert_eq!(&out[4..9], &[3, 1, u32::MAX, 1, u32::MAX]);
    // bmsk: 0b110; bits 28..31 (cut at the top); a width of 32 wraps to
    // 0 but clamps to all ones; a start of 32 clamps to nothing.
    assert_eq!(&out[9..14], &[0b110, 0xf000_0000, 0, u32::MAX, 0]);
    // szext: N = 0 gives 0; 8-bit 0x80 sign- and zero-extended; N >= 32
    // clamps to a itself; N = 33 wraps to 1, and bit 0 sign-extends.
    assert_eq!(&out[14..19], &[0, 0xffff_ff80, 0x80, 0x1234_5678, u32::MAX]);
}

#[test]
fn prmt_runs_all_six_modes() {
    // Byte k of {b, a} holds 0x10 + k.
    let modes = ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"];
    let mut body = "mov.b32 %r1, 0x13121110; mov.b32 %r2, 0x17161514;\n".to_string();
    let mut k = 0;
    for mode in modes {
        for sel in 0..4 {
            body += &format!(
                "prmt.b32.{mode} %r10, %r1, %r2, {}; st.global.u32 [%rd1+{}], %r10;\n",
                sel | 0x40,
                4 * k
            );
            k += 1;
        }
    }
    body += &format!(
        "prmt.b32 %r11, %r1, %r2, 0x8f70; st.global.u32 [%rd1+{}], %r11;\n",
        4 * k
    );
    let out = run("prmt modes", &body, 25);
    // The ISA's table: the source byte of result bytes 3, 2, 1, 0 for
    // selectors 0..3 of each mode.
    let table: [[[u32; 4]; 4]; 6] = [
        [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
        [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
        [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
        [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
        [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    ];
    for (m, rows) in table.iter().enumerate() {
        for (sel, row) in rows.iter().enumerate() {
            let want = row.iter().fold(0, |w, &src| (w << 8) | (0x10 + src));
            assert_eq!(out[4 * m + sel], want, "{} selector {sel}", modes[m]);
        }
    }
    // The default mode: selectors 0, 7, f (sign of byte 7), 8 (sign of
    // byte 0) for bytes 0..3: 0x10, 0x17, 0x00, 0x00.
    assert_eq!(out[24], 0x0000_1710);
}

#[test]
fn slct_selects_on_the_sign_of_an_integer_or_a_float() {
    let sels = [
        ("s32", "0"),
        ("s32", "-1"),
        ("s32", "0x80000000"),
        ("f32", "0f00000000"),
        ("f32", "0f80000000"),
        ("f32", "0f7FC00000"),
        ("f32", "0fFFC00000"),
        ("f32", "0f80000001"),
        ("ftz.u32.f32", "0f80000001"),
        ("f32", "0fFF800000"),
    ];
    let mut body = "mov.b32 %r1, 111; mov.b32 %r2, 222;\n".to_string();
    for (k, (ty, c)) in sels.iter().enumerate() {
        let (form, reg) = if ty.starts_with("ftz") {
            ("slct.ftz.u32.f32".to_string(), "%f1")
        } else if *ty == "f32" {
            ("slct.u32.f32".to_string(), "%f1")
        } else {
            ("slct.u32.s32".to_string(), "%r3")
        };
        let mov = if reg == "%f1" { "mov.f32" } else { "mov.b32" };
        body += &format!(
            "{mov} {reg}, {c}; {form} %r4, %r1, %r2, {reg}; st.global.u32 [%rd1+{}], %r4;\n",
            4 * k
        );
    }
    // A 64-bit destination type selects whole registers.
    body += "mov.b64 %rd2, 0x1111111122222222; mov.b64 %rd3, 0x3333333344444444;\n\
        mov.f32 %f2, 0fBF800000; slct.b64.f32 %rd4, %rd2, %rd3, %f2;\n\
        st.global.u64 [%rd1+40], %rd4;\n";
    let out = run("slct", &body, 12);
    let (a, b) = (111, 222);
    // 0 and -0.0 select a; -1, INT_MIN, NaNs of either sign, a negative
    // subnormal and -inf select b; .ftz flushes the subnormal to -0: a.
    assert_eq!(&out[..10], &[a, b, b, a, a, b, b, b, a, b]);
    assert_eq!(&out[10..12], &[0x4444_4444, 0x3333_3333], "-1.0 selects b");
}

/// One `cvt` to check: its spelling, the source register's type (`f32`,
/// `f64`, `b16`, `b32`, `b64`), the source bits, and the result's bits.
struct Conv(&'static str, &'static str, u64, u64);

/// Runs each conversion into its own 32-bit word (16-bit results zero- or
/// sign-extended by `cvt`'s destination, as written to a `.b32`/`.b16`
/// register and stored).
fn conversions(what: &str, cases: &[Conv]) -> Vec<u32> {
    let mut body = String::new();
    for (k, Conv(form, src, bits, _)) in cases.iter().enumerate() {
        let (reg, mov) = match *src {
            "f32" => ("%f1", format!("mov.b32 %f1, {bits:#x};")),
            "f64" => ("%fd1", format!("mov.b64 %fd1, {bits:#x};")),
            "b16" => ("%h1", format!("mov.b16 %h1, {bits:#x};")),
            "b32" => ("%r1", format!("mov.b32 %r1, {bits:#x};")),
            _ => ("%rd2", format!("mov.b64 %rd2, {bits:#x};")),
        };
        // The destination: 16-bit results in %h2, then zero-extended.
        let dst16 = form.contains(".f16.")
            || form.contains(".bf16.")
            || form.contains(".s8.")
            || form.contains(".s16.");
        let store = if dst16 {
            format!("cvt {form} %h2, {reg}; cvt.u32.u16 %r2, %h2;")
        } else if form.ends_with("f32.f16") || form.ends_with("f32.bf16") {
            format!("cvt {form} %f2, {reg}; mov.b32 %r2, %f2;")
        } else {
            format!("cvt {form} %r2, {reg};")
        };
        body += &format!(
            "{mov} {} st.global.u32 [%rd1+{}], %r2;\n",
            store.replacen("cvt ", "cvt", 1),
            4 * k
        );
    }
    run(what, &body, cases.len())
}

#[test]
fn cvt_to_and_from_f16_rounds_saturates_and_keeps_subnormals() {
    let cases = [
        // f32 to f16: exact, a tie to even (1 + 2^-11), the same tie in
        // each direction, a tie that goes up (1 + 3 * 2^-11).
        Conv(".rn.f16.f32", "f32", 0x3f80_0000, 0x3c00),
        Conv(".rn.f16.f32", "f32", 0x3f80_1000, 0x3c00),
        Conv(".rp.f16.f32", "f32", 0x3f80_1000, 0x3c01),
        Conv(".rz.f16.f32", "f32", 0x3f80_1000, 0x3c00),
        Conv(".rm.f16.f32", "f32", 0xbf80_1000, 0xbc01),
        Conv(".rn.f16.f32", "f32", 0x3f80_3000, 0x3c02),
        // Overflow: 65520 is the tie above 65504, to even is 2^16 = inf;
        // toward zero it stays 65504; .satfinite keeps it finite.
        Conv(".rn.f16.f32", "f32", 0x477f_f000, 0x7c00),
        Conv(".rz.f16.f32", "f32", 0x477f_f000, 0x7bff),
        Conv(".rn.satfinite.f16.f32", "f32", 0x477f_f000, 0x7bff),
        Conv(".rn.satfinite.f16.f32", "f32", 0xff80_0000, 0xfbff),
        Conv(".rm.f16.f32", "f32", 0xc77f_f000, 0xfc00),
        // Subnormals: 2^-25 is half the smallest (a tie to 0), 1.5 * 2^-24
        // a tie to 2 * 2^-24, -1e-30 down is -2^-24.
        Conv(".rn.f16.f32", "f32", 0x3300_0000, 0x0000),
        Conv(".rp.f16.f32", "f32", 0x3300_0000, 0x0001),
        Conv(".rn.f16.f32", "f32", 0x33c0_0000, 0x0002),
        Conv(".rm.f16.f32", "f32", 0x8da2_4260, 0x8001),
        // .sat clamps to [0, 1]; NaN to +0, and plain NaN stays NaN.
        Conv(".rn.sat.f16.f32", "f32", 0x4000_0000, 0x3c00),
        Conv(".rn.sat.f16.f32", "f32", 0xbf80_0000, 0x0000),
        Conv(".rn.sat.f16.f32", "f32", 0x7fc0_0000, 0x0000),
        // f64 to f16 rounds once: 1 + 2^-11 + 2^-40 is above the tie (up),
        // which rounding to f32 first would have lost (to even, down).
        Conv(".rn.f16.f64", "f64", 0x3ff0_0200_0000_1000, 0x3c01),
        // f16 to f32 is exact: the smallest subnormal, -inf.
        Conv(".f32.f16", "b16", 0x0001, 0x3380_0000),
        Conv(".f32.f16", "b16", 0xfc00, 0xff80_0000),
        Conv(".f32.f16", "b16", 0x7bff, 0x477f_e000),
        // Integers: 2049 is a tie between 2048 and 2050 (even: 2048);
        // -70000 is past -65504; f16 to int rounds and saturates.
        Conv(".rn.f16.s32", "b32", 2049, 0x6800),
        Conv(".rp.f16.s32", "b32", 2049, 0x6801),
        Conv(".rn.f16.s32", "b32", (-70000i32) as u32 as u64, 0xfc00),
        Conv(".rzi.s32.f16", "b16", 0xc0c0, (-2i32) as u32 as u64),
        Conv(".rmi.s32.f16", "b16", 0xc0c0, (-3i32) as u32 as u64),
        Conv(".rzi.s32.f16", "b16", 0x7c00, 0x7fff_ffff),
        Conv(".rzi.u32.f16", "b16", 0xbc00, 0),
        // To s8 (sign-extended into the 16-bit register): 128.0 saturates,
        // -127.0 is 0x81.
        Conv(".rpi.s8.f16", "b16", 0x5800, 0x7f),
        Conv(".rpi.s8.f16", "b16", 0xd7f0, 0xff81),
        // Rounding to an integral f16: 1.5 to 2, 1.25 to 1.
        Conv(".rni.f16.f16", "b16", 0x3e00, 0x4000),
        Conv(".rni.f16.f16", "b16", 0x3d00, 0x3c00),
    ];
    let out = conversions("cvt with f16", &cases);
    for (k, Conv(form, _, bits, want)) in cases.iter().enumerate() {
        assert_eq!(u64::from(out[k]), *want, "cvt{form} of {bits:#x}");
    }
}

#[test]
fn cvt_to_and_from_bf16() {
    let cases = [
        // f32 to bf16 keeps the top half, rounded: 0x3f808000 is a tie to
        // even (down), 0x3f818000 a tie up; f32::MAX rounds to inf, or
        // stays finite toward zero.
        Conv(".rn.bf16.f32", "f32", 0x3f80_8000, 0x3f80),
        Conv(".rn.bf16.f32", "f32", 0x3f81_8000, 0x3f82),
        Conv(".rn.bf16.f32", "f32", 0x3f80_8001, 0x3f81),
        Conv(".rz.bf16.f32", "f32", 0x7f7f_ffff, 0x7f7f),
        Conv(".rn.bf16.f32", "f32", 0x7f7f_ffff, 0x7f80),
        Conv(".rn.satfinite.bf16.f32", "f32", 0x7f7f_ffff, 0x7f7f),
        // A subnormal f32 keeps its top half: 0x00018000 is a tie, odd.
        Conv(".rn.bf16.f32", "f32", 0x0001_8000, 0x0002),
        Conv(".f32.bf16", "b16", 0x3f81, 0x3f81_0000),
        Conv(".f32.bf16", "b16", 0x0001, 0x0001_0000),
        // f16 1 + 2^-10 has no bf16 neighbour but 1 (8 significant bits).
        Conv(".rn.bf16.f16", "b16", 0x3c01, 0x3f80),
        Conv(".rn.f16.bf16", "b16", 0x3f81, 0x3c08),
        // Integers: u64::MAX is 2^64 to nearest, 255 * 2^56 toward zero;
        // 65536.0 saturates to an s16's 32767, -127.0 is 0xff81.
        Conv(".rn.bf16.u64", "b64", u64::MAX, 0x5f80),
        Conv(".rz.bf16.u64", "b64", u64::MAX, 0x5f7f),
        Conv(".rpi.s16.bf16", "b16", 0x4780, 0x7fff),
        Conv(".rpi.s16.bf16", "b16", 0xc2fe, 0xff81),
    ];
    let out = conversions("cvt with bf16", &cases);
    for (k, Conv(form, _, bits, want)) in cases.iter().enumerate() {
        assert_eq!(u64::from(out[k]), *want, "cvt{form} of {bits:#x}");
    }
}

/// `div.approx.f32` multiplies by a reciprocal that is flushed to zero for
/// a divisor above 2^126 in magnitude (the PTX ISA: the result is 0, or
/// NaN for an infinite dividend); `div.full.f32` covers the whole range.
#[test]
fn div_approx_is_zero_for_divisors_above_2_pow_126() {
    let body = "mov.b32 %f1, 0f40400000; mov.b32 %f2, 0f7E800000; mov.b32 %f3, 0f7E800001;\n\
        mov.b32 %f4, 0fFF7FFFFF; mov.b32 %f5, 0f7F800000; mov.b32 %f6, 0fC0400000;\n\
        div.approx.f32 %f7, %f1, %f2; mov.b32 %r10, %f7;\n\
        div.approx.f32 %f7, %f1, %f3; mov.b32 %r11, %f7;\n\
        div.approx.f32 %f7, %f6, %f3; mov.b32 %r12, %f7;\n\
        div.approx.ftz.f32 %f7, %f1, %f4; mov.b32 %r13, %f7;\n\
        div.approx.f32 %f7, %f5, %f4; mov.b32 %r14, %f7;\n\
        div.full.f32 %f7, %f1, %f3; mov.b32 %r15, %f7;\n\
        div.full.ftz.f32 %f7, %f6, %f4; mov.b32 %r16, %f7;\n\
        div.approx.f32 %f7, %f1, %f1; mov.b32 %r17, %f7;\n"
        .to_string()
        + &store(&[10, 11, 12, 13, 14, 15, 16, 17]);
    let out = run("div.approx and div.full", &body, 8);
    let f = |x: f32| x.to_bits();
    let (three, big, above) = (3.0f32, 2f32.powi(126), f32::from_bits(0x7e80_0001));
    assert_eq!(out[0], f(three / big), "2^126 itself: the quotient");
    assert_eq!(out[1], f(0.0), "just above 2^126: zero");
    assert_eq!(out[2], f(-0.0), "of the quotient's sign");
    assert_eq!(out[3], f(-0.0), "-f32::MAX");
    assert!(f32::from_bits(out[4]).is_nan(), "inf * 0");
    // div.full: the quotient (3 / above is subnormal, and kept);
    // with .ftz, -3 / -f32::MAX is subnormal and flushed.
    assert_eq!(out[5], f(three / above));
    assert!(f32::from_bits(out[5]) != 0.0);
    assert_eq!(out[6], f(0.0));
    assert_eq!(out[7], f(1.0));
}

/// An f16 value, exactly (a reference independent of the emulator).
fn f16_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (exp, frac) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + frac) * 2f64.powi(e - 25),
    }
}

/// `x` to f16, to nearest even: a multiple of the last place of its
/// binade (2^-24 at least), and infinity from 65520 up.
fn f16_round(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    let ulp = if a < 2f64.powi(-14) {
        2f64.powi(-24)
    } else {
        2f64.powi(a.log2().floor() as i32 - 10)
    };
    let q = (a / ulp).round_ties_even() * ulp;
    // Encode q exactly.
    if q < 2f64.powi(-14) {
        return sign | (q / 2f64.powi(-24)) as u16;
    }
    let e = q.log2().floor() as i32;
    let frac = (q / 2f64.powi(e) - 1.0) * 1024.0;
    sign | (((e + 15) as u16) << 10) | frac as u16
}

/// One 16-bit instruction on `%h1..%h3` into `%h4`, and its expected bits.
struct HalfCase(&'static str, [u16; 3], u16);

/// Runs each case into its own word, the result zero-extended.
fn half_cases(what: &str, cases: &[HalfCase]) {
    let mut body = String::new();
    for (k, HalfCase(form, [a, b, c], _)) in cases.iter().enumerate() {
        let operands = match form.split('.').next() {
            Some("neg" | "abs") => "%h4, %h1",
            Some("fma") => "%h4, %h1, %h2, %h3",
            _ => "%h4, %h1, %h2",
        };
        body += &format!(
            "mov.b16 %h1, {a:#x}; mov.b16 %h2, {b:#x}; mov.b16 %h3, {c:#x};\n\
             {form} {operands}; cvt.u32.u16 %r2, %h4; st.global.u32 [%rd1+{}], %r2;\n",
            4 * k
        );
    }
    let got = run(what, &body, cases.len());
    for (HalfCase(form, ops, want), got) in cases.iter().zip(got) {
        assert_eq!(
            got,
            u32::from(*want),
            "{form} {ops:#x?}: {got:#x}, want {want:#x}"
        );
    }
}

#[test]
fn f16_arithmetic_rounds_once_to_nearest_even() {
    let one = 0x3c00;
    let tie = f16_round(2f64.powi(-11)); // half the last place of 1
    assert_eq!(f16_value(tie), 2f64.powi(-11));
    let mut cases = vec![
        // 1 + 2^-11 is a tie (to even: 1); 1 + 3 * 2^-11 goes up to even.
        HalfCase("add.f16", [one, tie, 0], one),
        HalfCase("add.rn.f16", [0x3c01, tie, 0], 0x3c02),
        // 65504 + 16 = 65520 is halfway to 2^16: to infinity.
        HalfCase("add.f16", [0x7bff, 0x4c00, 0], 0x7c00),
        HalfCase("sub.f16", [0x3555, 0x3555, 0], 0),
        HalfCase("sub.f16", [0x8000, 0x0000, 0], 0x8000),
        // Subnormals are kept, flushed by .ftz (operands and results).
        HalfCase("add.f16", [0x0001, 0x0001, 0], 0x0002),
        HalfCase("add.ftz.f16", [0x0001, 0x0001, 0], 0),
        HalfCase("add.ftz.f16", [0x0400, 0x8401, 0], 0x8000),
        HalfCase("mul.f16", [0x0200, 0x3800, 0], 0x0100),
        HalfCase("mul.f16", [0x0001, 0x3800, 0], 0x0000),
        HalfCase("mul.ftz.f16", [0x0400, 0x3800, 0], 0x0000),
        // Saturation, NaN and infinity.
        HalfCase("add.sat.f16", [one, one, 0], one),
        HalfCase("add.sat.f16", [0xbc00, 0x3800, 0], 0),
        HalfCase("mul.f16", [0x7c00, 0x0000, 0], 0x7fff),
        HalfCase("add.f16", [0x7c00, 0xfc00, 0], 0x7fff),
        HalfCase("add.sat.f16", [0x7e00, one, 0], 0),
        // fma rounds once: (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20, a tie in f16's
        // last place of 2^-9, to even.
        HalfCase("fma.rn.f16", [0x3c01, 0x3c01, 0xbc00], 0x1800),
        HalfCase("fma.rn.relu.f16", [0x3c00, 0xbc00, 0x3800], 0),
        HalfCase("fma.rn.relu.f16", [0x3c00, 0x3c00, 0x3800], 0x3e00),
        HalfCase("fma.rn.sat.f16", [0x4000, 0x4000, 0], one),
        // min/max: a NaN operand yields the other; -0 < +0; .NaN propagates.
        HalfCase("min.f16", [0x7e00, 0x4000, 0], 0x4000),
        HalfCase("max.f16", [0x8000, 0x0000, 0], 0x0000),
        HalfCase("min.f16", [0x8000, 0x0000, 0], 0x8000),
        HalfCase("max.NaN.f16", [0x7e00, 0x4000, 0], 0x7fff),
        HalfCase("neg.f16", [0x3c00, 0, 0], 0xbc00),
        HalfCase("abs.f16", [0xfc00, 0, 0], 0x7c00),
        // bf16 (its last place at 1 is 2^-7).
        HalfCase("add.rn.bf16", [0x3f80, 0x3b80, 0], 0x3f80),
        HalfCase("add.rn.bf16", [0x3f80, 0x3bc0, 0], 0x3f81),
        HalfCase("mul.rn.bf16", [0x7f7f, 0x4000, 0], 0x7f80),
        // (1 + 2^-7)^2 - 1 = 2^-6 (1 + 2^-8): a tie, to even.
        HalfCase("fma.rn.bf16", [0x3f81, 0x3f81, 0xbf80], 0x3c80),
        HalfCase("neg.bf16", [0x3f80, 0, 0], 0xbf80),
    ];
    // Sums and products of a spread of values, against the reference:
    // exact in f64, rounded once.
    let values = [
        0x3c00u16, 0x3555, 0x0001, 0x03ff, 0x0400, 0x7bff, 0x5640, 0xc2d0, 0x1234, 0x8abc, 0x6801,
        0xb800,
    ];
    for &a in &values {
        for &b in &values {
            let (x, y) = (f16_value(a), f16_value(b));
            cases.push(HalfCase("add.rn.f16", [a, b, 0], f16_round(x + y)));
            cases.push(HalfCase("mul.rn.f16", [a, b, 0], f16_round(x * y)));
            cases.push(HalfCase(
                "fma.rn.f16",
                [a, b, 0x3c00],
                f16_round(x * y + 1.0),
            ));
        }
    }
    half_cases("16-bit float arithmetic", &cases);
}

#[test]
fn packed_halves_compute_lane_by_lane() {
    let body = "mov.b32 %r1, 0x3c004000; mov.b32 %r2, 0x40004200; mov.b32 %r3, 0x3c003c00;\n\
        mul.f16x2 %r10, %r1, %r2;\n\
        add.f16x2 %r11, %r1, %r2;\n\
        fma.rn.f16x2 %r12, %r1, %r2, %r3;\n\
        neg.f16x2 %r13, %r1;\n\
        max.f16x2 %r14, %r1, %r2;\n\
        mov.b32 %r4, 0x3f804000; mov.b32 %r5, 0x40003f80;\n\
        mul.rn.bf16x2 %r15, %r4, %r5;\n\
        setp.gt.f16x2 %p1|%p2, %r1, %r2;\n\
        selp.u32 %r16, 1, 0, %p1; selp.u32 %r17, 1, 0, %p2;\n\
        setp.lt.and.f16x2 %p3|%p4, %r1, %r2, %p2;\n\
        selp.u32 %r18, 1, 0, %p3; selp.u32 %r19, 1, 0, %p4;\n\
        mov.b16 %h1, 0x3c00; mov.b16 %h2, 0x4000;\n\
        setp.lt.f16 %p5, %h1, %h2; selp.u32 %r20, 1, 0, %p5;\n";
    let got = run(
        "packed half arithmetic",
        &(body.to_string() + &store(&[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20])),
        11,
    );
    // Low lanes: 2 and 3 (0x4000, 0x4200); high lanes: 1 and 2; results
    // low lane first in the words' low half.
    assert_eq!(got[0], 0x4000_4600, "mul: 6 and 2");
    assert_eq!(got[1], 0x4200_4500, "add: 5 and 3");
    assert_eq!(got[2], 0x4200_4700, "fma: 7 and 3");
    assert_eq!(got[3], 0xbc00_c000, "neg");
    assert_eq!(got[4], 0x4000_4200, "max: 3 and 2 per lane");
    assert_eq!(got[5], 0x4000_4000, "bf16 mul: 2*1 and 1*2");
    assert_eq!(&got[6..8], &[0, 0], "2 > 3 and 1 > 2 are false");
    assert_eq!(&got[8..10], &[0, 0], "lt, each and-ed with the false p2");
    assert_eq!(got[10], 1, "setp.lt.f16");
}

/// `cp.async` with a source size reads that many bytes and zero-fills the
/// rest of the copy (as `memcpy_async` and `__pipeline_memcpy_async`
/// write it): an immediate and a register size, and a size of zero; the
/// shared words were all ones before, so each zero is one the copy wrote.
#[test]
fn cp_async_zero_fills_past_its_source_size() {
    let body = ".shared .align 16 .b8 sm[48];\n\
        mov.b32 %r1, 0x04030201; st.global.u32 [%rd1], %r1;\n\
        mov.b32 %r1, 0x08070605; st.global.u32 [%rd1+4], %r1;\n\
        mov.b32 %r1, 0x0c0b0a09; st.global.u32 [%rd1+8], %r1;\n\
        mov.b32 %r1, 0x100f0e0d; st.global.u32 [%rd1+12], %r1;\n\
        mov.u32 %r2, sm; mov.b32 %r9, 0xffffffff;\n\
        st.shared.v4.u32 [%r2], {%r9, %r9, %r9, %r9};\n\
        st.shared.v4.u32 [%r2+16], {%r9, %r9, %r9, %r9};\n\
        st.shared.v4.u32 [%r2+32], {%r9, %r9, %r9, %r9};\n\
        cp.async.ca.shared.global [%r2], [%rd1], 4, 4;\n\
        mov.b32 %r3, 6;\n\
        cp.async.cg.shared.global [%r2+16], [%rd1], 16, %r3;\n\
        cp.async.ca.shared.global [%r2+32], [%rd1+4], 8, 0;\n\
        cp.async.commit_group; cp.async.wait_all;\n\
        ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r2];\n\
        ld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r2+16];\n\
        ld.shared.v4.u32 {%r18, %r19, %r20, %r21}, [%r2+32];\n\
        st.global.v4.u32 [%rd1+16], {%r10, %r11, %r12, %r13};\n\
        st.global.v4.u32 [%rd1+32], {%r14, %r15, %r16, %r17};\n\
        st.global.v4.u32 [%rd1+48], {%r18, %r19, %r20, %r21};\n";
    let out = run("cp.async with a source size", body, 16);
    let ones = u32::MAX;
    assert_eq!(out[4..8], [0x0403_0201, ones, ones, ones], "4 of 4 bytes");
    assert_eq!(
        out[8..12],
        [0x0403_0201, 0x0000_0605, 0, 0],
        "6 of 16 bytes"
    );
    assert_eq!(out[12..16], [0, 0, ones, ones], "0 of 8 bytes");
}
