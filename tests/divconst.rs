//! Division and remainder by constants, end to end: a kernel full of
//! `x / 7`, `x % 10`, `x / -3`, `u / 255u`, `x / 1000000007`, `long long`
//! and `unsigned long long` cases runs on edge and random dividends at
//! -O0 in the interpreter (no `divconst`: the division's own semantics),
//! at -O3 in the interpreter and at -O3 in the PTX emulator (the magic
//! multiplications, through the backend's `mul.hi`/`mul.wide`); all three
//! must agree bitwise, and with Rust's `/` and `%`. The -O3 PTX has no
//! `div`/`rem` left and ptxas accepts it.

mod common;

use common::{run_buffers as buffers, scratch};
use kernelc::backend_nvptx::Target;
use kernelc::driver::{self, CompileOptions};
use kernelc::run::{Engine, RunRequest};

const KERNEL: &str = r#"
extern "C" __global__ void divs(const int* in, const long long* in64, int* out,
                                long long* out64, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  int x = in[t];
  unsigned u = (unsigned)x;
  long long y = in64[t];
  unsigned long long v = (unsigned long long)y;
  short s = (short)x;
  unsigned char c = (unsigned char)x;
  int* o = out + t * 22;
  o[0] = x / 7;
  o[1] = x % 7;
  o[2] = x / 10;
  o[3] = x % 10;
  o[4] = x / -3;
  o[5] = x % -3;
  o[6] = x / 1000000007;
  o[7] = x % 1000000007;
  o[8] = x / -2147483647;
  o[9] = x % 641;
  o[10] = x / 6;
  o[11] = x % -1000;
  o[12] = (int)(u / 255u);
  o[13] = (int)(u % 255u);
  o[14] = (int)(u / 7u);
  o[15] = (int)(u % 14u);
  o[16] = (int)(u / 3000000000u);
  o[17] = (int)(u % 3000000000u);
  o[18] = (int)(u / 641u);
  o[19] = (int)(u % 1000000007u);
  o[20] = s / 3 + s % 5;
  o[21] = c / 10 + c % 7;
  long long* p = out64 + t * 12;
  p[0] = y / 7;
  p[1] = y % 7;
  p[2] = y / -10;
  p[3] = y % 1000000007LL;
  p[4] = y / 9223372036854775807LL;
  p[5] = y % -3;
  p[6] = (long long)(v / 3ull);
  p[7] = (long long)(v % 10ull);
  p[8] = (long long)(v / 7ull);
  p[9] = (long long)(v % 1000000007ull);
  p[10] = (long long)(v / 0x8000000000000001ull);
  p[11] = (long long)(v / 12ull);
}
"#;

const THREADS: usize = 512;

/// What the kernel stores, computed with Rust's operators.
fn reference(x: i32, y: i64) -> ([i32; 22], [i64; 12]) {
    let u = x as u32;
    let v = y as u64;
    let s = i32::from(x as i16);
    let c = i32::from(x as u8);
    let o = [
        x / 7,
        x % 7,
        x / 10,
        x % 10,
        x / -3,
        x % -3,
        x / 1_000_000_007,
        x % 1_000_000_007,
        x / -2_147_483_647,
        x % 641,
        x / 6,
        x % -1000,
        (u / 255) as i32,
        (u % 255) as i32,
        (u / 7) as i32,
        (u % 14) as i32,
        (u / 3_000_000_000) as i32,
        (u % 3_000_000_000) as i32,
        (u / 641) as i32,
        (u % 1_000_000_007) as i32,
        s / 3 + s % 5,
        c / 10 + c % 7,
    ];
    let p = [
        y / 7,
        y % 7,
        y / -10,
        y % 1_000_000_007,
        y / i64::MAX,
        y % -3,
        (v / 3) as i64,
        (v % 10) as i64,
        (v / 7) as i64,
        (v % 1_000_000_007) as i64,
        (v / 0x8000_0000_0000_0001) as i64,
        (v / 12) as i64,
    ];
    (o, p)
}

/// Edge values first, then splitmix64 values of random magnitude.
fn inputs() -> (Vec<i32>, Vec<i64>) {
    let mut xs: Vec<i32> = vec![
        0,
        1,
        -1,
        i32::MIN,
        i32::MIN + 1,
        i32::MAX,
        i32::MAX - 1,
        6,
        7,
        8,
        -6,
        -7,
        -8,
        9,
        10,
        11,
        -9,
        -10,
        -11,
        254,
        255,
        256,
        1_000_000_006,
        1_000_000_007,
        1_000_000_008,
        -1_000_000_007,
        -2_147_483_647,
        3_000_000_000u32 as i32,
        2_999_999_999u32 as i32,
        0x7fff,
        -0x8000,
        0xff,
        0x100,
    ];
    let mut ys: Vec<i64> = vec![
        0,
        1,
        -1,
        i64::MIN,
        i64::MIN + 1,
        i64::MAX,
        i64::MAX - 1,
        6,
        7,
        -7,
        -8,
        9,
        10,
        -10,
        1_000_000_007,
        -1_000_000_007,
        i64::MAX / 7 * 7,
        i64::MIN / 7 * 7,
        0x8000_0000_0000_0001u64 as i64,
        0x8000_0000_0000_0000u64 as i64 + 2,
        u32::MAX as i64,
        1 << 32,
        (1 << 32) + 1,
        -(1 << 32),
    ];
    let mut rng = kernelc::run::SplitMix64(0x1234_5678);
    let mut next = || rng.next_u64();
    while xs.len() < THREADS {
        let shift = next() % 32;
        xs.push((next() as u32 >> shift) as i32 * if next() % 2 == 0 { 1 } else { -1 });
    }
    while ys.len() < THREADS {
        let shift = next() % 64;
        let y = (next() >> shift) as i64;
        ys.push(if next() % 2 == 0 { y } else { y.wrapping_neg() });
    }
    (xs, ys)
}

fn request(src: &str, args: &[String], opt: u8, engine: Engine) -> RunRequest {
    RunRequest {
        input: src.into(),
        kernel: "divs".into(),
        grid: [(THREADS / 128) as u32, 1, 1],
        block: [128, 1, 1],
        opt_level: Some(opt),
        fmad: true,
        sm: 90,
        engine,
        max_steps: kir_interp::DEFAULT_MAX_STEPS,
        args: args.to_vec(),
        ..RunRequest::default()
    }
}

#[test]
fn division_by_constants_is_exact_at_every_level_and_engine() {
    let dir = scratch("divconst");
    let src = dir.join("divs.cu");
    std::fs::write(&src, KERNEL).unwrap();
    let src = src.display().to_string();
    let (xs, ys) = inputs();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let in32 = write("in.bin", xs.iter().flat_map(|v| v.to_le_bytes()).collect());
    let in64 = write(
        "in64.bin",
        ys.iter().flat_map(|v| v.to_le_bytes()).collect(),
    );
    let args: Vec<String> = vec![
        format!("i32[]:@{in32}"),
        format!("i64[]:@{in64}"),
        format!("i32[]:zeros:{}", 22 * THREADS),
        format!("i64[]:zeros:{}", 12 * THREADS),
        format!("i32:{THREADS}"),
    ];
    let o0 = buffers(&request(&src, &args, 0, Engine::Interp));
    let o3 = buffers(&request(&src, &args, 3, Engine::Interp));
    let emu = buffers(&request(&src, &args, 3, Engine::Emu));
    assert_eq!(o0, o3, "-O0 and -O3 disagree in the interpreter");
    assert_eq!(o3, emu, "the interpreter and the emulator disagree");
    let out: Vec<i32> = o0[2]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let out64: Vec<i64> = o0[3]
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (t, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
        let (o, p) = reference(x, y);
        assert_eq!(&out[t * 22..t * 22 + 22], &o, "x = {x}");
        assert_eq!(&out64[t * 12..t * 12 + 12], &p, "y = {y}");
    }
}

#[test]
fn division_by_constants_leaves_no_div_in_the_ptx() {
    let opts = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        ..CompileOptions::default()
    };
    let ptx = driver::compile_source("divs", KERNEL, &opts).unwrap();
    assert!(!ptx.contains("div."), "{ptx}");
    assert!(!ptx.contains("rem."), "{ptx}");
    assert!(ptx.contains("mul.hi.s32"), "{ptx}");
    assert!(ptx.contains("mul.hi.u32"), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90", "the divconst kernel");
    // Without the pass, the divisions stay.
    let plain = CompileOptions {
        disable_passes: vec!["divconst".into()],
        ..opts
    };
    let ptx = driver::compile_source("divs", KERNEL, &plain).unwrap();
    assert!(ptx.contains("div.s32") && ptx.contains("rem.u64"), "{ptx}");
}
