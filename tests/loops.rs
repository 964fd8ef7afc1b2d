//! The loop passes (`unroll`, `sroa`, `licm`) and `divconst`, end to end:
//! kernels they transform compute the same bits at -O0 and -O3, in the
//! interpreter and the PTX emulator; division by powers of two is exact on
//! the edge values (INT_MIN, -1, negative dividends); every sample computes
//! the same bits with each of these passes switched off; and the tensor-core
//! samples keep their fragments in registers (no `.local` memory). The
//! code-generation passes (inlining, address offsets, merged branches and
//! arms, hoisting GVN, redundant stores) compute the same bits as a Rust
//! reference, each of them switched off as well; so do `rebase` and the
//! frontend's split of an index whose addend is a loop counter.

mod common;

use common::{i32s, run_buffers as buffers, scratch};
use kernelc::driver::{self, CompileOptions, Emit};
use kernelc::midend::ir::Module;
use kernelc::midend::passes;
use kernelc::run::{Engine, RunRequest};
use std::path::Path;

/// The passes of this work; each can be left out of the -O3 pipeline.
const LOOP_PASSES: [&str; 6] = [
    "unroll",
    "sroa",
    "licm",
    "divconst",
    "rotate",
    "unroll-runtime",
];

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

fn request(src: &str, kernel: &str, args: &[String], opt: u8, engine: Engine) -> RunRequest {
    RunRequest {
        input: src.into(),
        kernel: kernel.into(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
        opt_level: Some(opt),
        fmad: true,
        sm: 80,
        defines: Vec::new(),
        engine,
        max_steps: kir_interp::DEFAULT_MAX_STEPS,
        args: args.to_vec(),
        ..RunRequest::default()
    }
}

/// Runs at -O0 and -O3 in the interpreter and at -O3 in the emulator;
/// all three must agree bitwise. Returns the buffers.
fn agree(src: &str, kernel: &str, args: &[String]) -> Vec<Vec<u8>> {
    let o0 = buffers(&request(src, kernel, args, 0, Engine::Interp));
    let o3 = buffers(&request(src, kernel, args, 3, Engine::Interp));
    let emu = buffers(&request(src, kernel, args, 3, Engine::Emu));
    assert_eq!(o0, o3, "{kernel}: -O0 and -O3 disagree");
    assert_eq!(
        o3, emu,
        "{kernel}: the interpreter and the emulator disagree"
    );
    o3
}

fn ptx(name: &str, source: &str) -> String {
    driver::compile_source(name, source, &CompileOptions::default()).unwrap()
}

const LOOPS: &str = r#"
// Counted loops of every kind the passes touch: an unrolled fill of a
// local array, a #pragma unroll accumulation into a local array carried
// around a variable loop (SROA'd), a #pragma unroll 1 loop, a count-down
// loop, and loop-invariant arithmetic.
extern "C" __global__ void loops(const int* in, int* out, int n) {
  int t = threadIdx.x;
  int acc[4];
  int w[4];
  for (int i = 0; i < 4; i++) {
    acc[i] = 0;
    w[i] = in[(t + i) % 32] - 7;
  }
  for (int k = 0; k < n; k++) {
#pragma unroll
    for (int i = 0; i < 4; i++)
      acc[i] += w[i] * (k + 1) + (blockDim.x * n) / 4;
  }
  int s = 0;
#pragma unroll 1
  for (int i = 0; i < 3; i++)
    s += (s + acc[0] * i) % 8;
  for (int i = 12; i >= 0; i -= 4)
    s += acc[i / 4] / -4 + (acc[3] >> 1);
  unsigned u = (unsigned)acc[1];
  out[t] = s + (int)(u / 16u) + (int)(u % 16u);
}
"#;

#[test]
fn transformed_loops_compute_the_same_bits_at_every_level_and_engine() {
    let dir = scratch("loops");
    let src = dir.join("loops.cu");
    std::fs::write(&src, LOOPS).unwrap();
    let src = src.display().to_string();
    let args: Vec<String> = vec![
        "i32[]:rand:32:7".into(),
        "i32[]:zeros:32".into(),
        "i32:5".into(),
    ];
    let out = agree(&src, "loops", &args);
    assert!(i32s(&out[1]).iter().any(|&x| x != 0));
    // The loops really were transformed: no local memory is left at -O3,
    // and the #pragma unroll 1 loop is still a loop.
    let text = ptx("loops", LOOPS);
    assert!(!text.contains(".local"), "{text}");
    assert!(!text.contains("div.s32"), "{text}");
    assert!(!text.contains("rem.s32"), "{text}");
    let opts = CompileOptions {
        emit: Emit::IrOpt,
        ..CompileOptions::default()
    };
    let ir = driver::compile_source("loops", LOOPS, &opts).unwrap();
    assert!(ir.contains("unroll block"), "{ir}");
}

const RUNTIME: &str = r#"
// Loops whose trip count is known only at run time, each a different one
// per thread (0 to 13 iterations: none, fewer than four, whole fours,
// fours and leftovers): a multi-block body with a condition (SpMV's
// shape), an xorshift chain, a `long long` counter, an `unsigned` one, a
// `!=` test, and one with `#pragma unroll 1`.
extern "C" __global__ void runtime_trips(const int* cols, const double* vals, const double* x,
                                         double* y, unsigned* z, int rows, int top) {
  int t = threadIdx.x;
  int n = t % 14;
  double sum = 0.0;
  for (int k = 0; k < n; ++k) {
    int c = cols[k * rows + t];
    double v = vals[k * rows + t];
    if (c >= 0 && v != 0.0) sum += v * x[c];
  }
  y[t] = sum;
  unsigned s = 2463534242u + t;
  for (int r = 0; r < n; ++r) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
  }
  z[6 * t] = s;
  long long acc = 0;
  for (long long i = t; i < (long long)t + n; ++i) acc += i * i;
  z[6 * t + 1] = (unsigned)acc;
  unsigned h = 0;
  for (unsigned u = 3; u < 3u + (unsigned)n; ++u) h = h * 31u + u;
  z[6 * t + 2] = h;
  int m = 0;
  for (int j = 0; j != n; ++j) m += cols[j] ^ j;
  z[6 * t + 3] = m;
  int q = 1;
#pragma unroll 1
  for (int j = 0; j < n; ++j) q = q * 3 + j;
  z[6 * t + 4] = q;
  // A counter that runs up to INT_MAX (`top`): its address, linear in the
  // widened counter, is a pointer stepped by 4 bytes.
  int b = 0;
  for (int r = top - n; r < top; ++r) b += cols[(long long)r - (long long)(top - 13)];
  z[6 * t + 5] = b;
}
"#;

/// `strength-reduce` and `unroll-runtime`: every trip count from 0 to 13
/// gives the same bits at -O0 and -O3 and on both engines (and a GPU, when
/// there is one) as a Rust reference; the loops whose counter only steps were unrolled (four
/// copies of the xorshift step in a row) and their leftovers (and the
/// `#pragma unroll 1` loop) carry `.pragma "nounroll"`.
#[test]
fn runtime_trip_count_loops_unroll_by_four_with_leftovers() {
    let dir = scratch("unroll-runtime");
    let rows = 32usize;
    let mut r = kernelc::run::SplitMix64(77);
    let cols: Vec<i32> = (0..14 * rows)
        .map(|_| (r.next_u64() % 40) as i32 - 8)
        .collect();
    let vals: Vec<f64> = (0..14 * rows)
        .map(|i| {
            if i % 5 == 0 {
                0.0
            } else {
                (r.next_u64() % 1000) as f64 / 64.0
            }
        })
        .collect();
    let x: Vec<f64> = (0..32).map(|i| 0.5 + i as f64).collect();
    let bytes = |v: &[u8]| v.to_vec();
    let cols_b: Vec<u8> = cols.iter().flat_map(|v| v.to_le_bytes()).collect();
    let vals_b: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let x_b: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = vec![
        format!("i32[]:@{}", write(&dir, "cols.bin", &bytes(&cols_b))),
        format!("f64[]:@{}", write(&dir, "vals.bin", &bytes(&vals_b))),
        format!("f64[]:@{}", write(&dir, "x.bin", &bytes(&x_b))),
        "f64[]:zeros:32".into(),
        "u32[]:zeros:192".into(),
        format!("i32:{rows}"),
        "i32:2147483647".into(),
    ];
    let src = write(&dir, "runtime.cu", RUNTIME.as_bytes());
    let out = agree(&src, "runtime_trips", &args);
    // On a GPU (when there is a driver), the same bytes: the kernel has no
    // approximate instruction and no float atomic.
    if kernelc::gpu::driver_available() {
        let gpu = buffers(&request(&src, "runtime_trips", &args, 3, Engine::Gpu));
        assert_eq!(gpu, out, "runtime_trips: the GPU and the emulator disagree");
    } else {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): runtime_trips on the GPU");
    }
    let y: Vec<f64> = out[3]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let z: Vec<u32> = out[4]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for t in 0..32usize {
        let n = t % 14;
        let mut sum = 0.0f64;
        for k in 0..n {
            let (c, v) = (cols[k * rows + t], vals[k * rows + t]);
            if c >= 0 && v != 0.0 {
                sum = v.mul_add(x[c as usize], sum);
            }
        }
        assert_eq!(y[t].to_bits(), sum.to_bits(), "spmv row {t}");
        let mut s = 2_463_534_242u32.wrapping_add(t as u32);
        for _ in 0..n {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
        }
        let acc: i64 = (t as i64..(t + n) as i64).map(|i| i * i).sum();
        let h = (3..3 + n as u32).fold(0u32, |h, u| h.wrapping_mul(31).wrapping_add(u));
        let m: i32 = (0..n as i32).map(|j| cols[j as usize] ^ j).sum();
        let q = (0..n as i32).fold(1i32, |q, j| q * 3 + j);
        let b: i32 = cols[13 - n..13].iter().sum();
        assert_eq!(
            &z[6 * t..6 * t + 6],
            &[s, acc as u32, h, m as u32, q as u32, b as u32],
            "thread {t}"
        );
    }
    let text = ptx("runtime_trips", RUNTIME);
    // The SpMV loop and the INT_MAX loop (their addresses strength-reduced,
    // so the counter only steps) and the xorshift loop are unrolled, each
    // leaving a `nounroll` remainder; the three loops that compute with
    // their counter are left to ptxas; and the `#pragma unroll 1` loop has
    // its own `nounroll`.
    assert_eq!(text.matches(".pragma \"nounroll\";").count(), 4, "{text}");
    let xorshift = "shl.b32";
    assert!(text.matches(xorshift).count() >= 10, "{text}");
}

const BREAKS: &str = r#"
// Loops that also leave from their body, which `rotate` turns into a
// guard and a bottom-tested loop: a search whose `break` goes to the code
// after the loop (which reads the counter), a `break` after a store (the
// store's block is reached only from the body), and a `goto` out of the
// loop to a block that the loop's normal exit also reaches (the counter
// arrives there as a block parameter). Every thread scans a different
// distance (`n` is per thread).
extern "C" __global__ void breaks(const int* in, int* out, int len) {
  int t = threadIdx.x;
  int n = (t * 7) % (len + 1);
  int key = in[t] & 15;
  int i = 0;
  for (; i < n; ++i)
    if ((in[i] & 15) == key) break;
  out[t] = i;
  int j = 0;
  while (j < n) {
    if ((in[j] & 7) == (t & 7)) {
      out[32 + t] = 2 * j + 1;
      break;
    }
    ++j;
  }
  out[64 + t] = j;
  int k = n - 1;
  for (; k >= 0; --k) {
    if (in[k] < 0) goto seen;
  }
  k = -100;
seen:
  out[96 + t] = k;
}
"#;

/// `rotate` on loops with a `break`: the bits of a Rust reference at -O0
/// and -O3 and on both engines (and a GPU, when there is one), and every
/// loop is rotated (its test is at the bottom: no block ends in a `jump`
/// back to an earlier block).
#[test]
fn loops_with_a_break_are_rotated_and_compute_the_same_bits() {
    let dir = scratch("breaks");
    let len = 40i32;
    let mut r = kernelc::run::SplitMix64(5);
    let input: Vec<i32> = (0..len).map(|_| (r.next_u64() % 64) as i32 - 4).collect();
    let in_b: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = vec![
        format!("i32[]:@{}", write(&dir, "in.bin", &in_b)),
        "i32[]:zeros:128".into(),
        format!("i32:{len}"),
    ];
    let src = write(&dir, "breaks.cu", BREAKS.as_bytes());
    let bufs = agree(&src, "breaks", &args);
    if kernelc::gpu::driver_available() {
        let gpu = buffers(&request(&src, "breaks", &args, 3, Engine::Gpu));
        assert_eq!(gpu, bufs, "breaks: the GPU and the emulator disagree");
    } else {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): breaks on the GPU");
    }
    let out = i32s(&bufs[1]);
    for t in 0..32usize {
        let n = (t * 7) % (len as usize + 1);
        let key = input[t] & 15;
        let i = (0..n).find(|&i| input[i] & 15 == key).unwrap_or(n);
        let j = (0..n).find(|&j| input[j] & 7 == (t as i32 & 7));
        let k = (0..n).rev().find(|&k| input[k] < 0);
        assert_eq!(out[t], i as i32, "search, thread {t}");
        assert_eq!(
            out[32 + t],
            j.map_or(0, |j| 2 * j as i32 + 1),
            "store, thread {t}"
        );
        assert_eq!(out[64 + t], j.unwrap_or(n) as i32, "while, thread {t}");
        assert_eq!(
            out[96 + t],
            k.map_or(-100, |k| k as i32),
            "goto, thread {t}"
        );
    }
    let opts = CompileOptions {
        emit: Emit::IrOpt,
        ..CompileOptions::default()
    };
    let ir = driver::compile_source("breaks", BREAKS, &opts).unwrap();
    // A rotated loop's latch branches back with `brif`; a top-tested one
    // jumps back to its header.
    let mut seen = Vec::new();
    for line in ir.lines().map(str::trim) {
        if line.starts_with("block") {
            seen.push(line.split(['(', ':']).next().unwrap().to_string());
        } else if let Some(dest) = line.strip_prefix("jump ") {
            let dest = dest.split('(').next().unwrap();
            assert!(
                !seen.iter().any(|b| b == dest),
                "a jump back to {dest}:\n{ir}"
            );
        }
    }
    assert!(seen.len() > 8, "{ir}");
}

const DIVS: &str = r#"
extern "C" __global__ void divs(const int* in, int* out, int n) {
  int t = threadIdx.x;
  if (t < n) {
    int x = in[t];
    long long y = (long long)x * 3;
    unsigned u = (unsigned)x;
    out[t * 10 + 0] = x / 2;
    out[t * 10 + 1] = x % 2;
    out[t * 10 + 2] = x / 8;
    out[t * 10 + 3] = x % 8;
    out[t * 10 + 4] = x / -4;
    out[t * 10 + 5] = x % -4;
    out[t * 10 + 6] = (int)(y / 1024);
    out[t * 10 + 7] = (int)(y % 1024);
    out[t * 10 + 8] = (int)(u / 16u);
    out[t * 10 + 9] = (int)(u % 1073741824u);
  }
}
"#;

#[test]
fn division_by_powers_of_two_is_exact_on_edge_values() {
    let values: Vec<i32> = vec![
        i32::MIN,
        i32::MIN + 1,
        -1025,
        -1024,
        -9,
        -8,
        -7,
        -4,
        -3,
        -2,
        -1,
        0,
        1,
        2,
        3,
        7,
        8,
        9,
        1023,
        1024,
        i32::MAX - 1,
        i32::MAX,
    ];
    let dir = scratch("divs");
    let src = dir.join("divs.cu");
    std::fs::write(&src, DIVS).unwrap();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let file = write(&dir, "in.bin", &bytes);
    let args: Vec<String> = vec![
        format!("i32[]:@{file}"),
        format!("i32[]:zeros:{}", 10 * values.len()),
        format!("i32:{}", values.len()),
    ];
    let out = i32s(&agree(&src.display().to_string(), "divs", &args)[1]);
    for (t, &x) in values.iter().enumerate() {
        let y = i64::from(x) * 3;
        let u = x as u32;
        let want = [
            x / 2,
            x % 2,
            x / 8,
            x % 8,
            x / -4,
            x % -4,
            (y / 1024) as i32,
            (y % 1024) as i32,
            (u / 16) as i32,
            (u % 1073741824) as i32,
        ];
        assert_eq!(&out[t * 10..t * 10 + 10], &want, "x = {x}");
    }
    let text = ptx("divs", DIVS);
    assert!(!text.contains("div."), "{text}");
    assert!(!text.contains("rem."), "{text}");
}

const CODEGEN: &str = r#"
// One kernel for the code-generation passes: small helpers to inline (one
// takes a struct by value), an unrolled fill of a shared tile whose rows
// differ by constant offsets, a Hillis-Steele scan whose if/else arms load
// and store the same addresses, short-circuit conditions, `1 / x`, and a
// struct copied out and back with one field changed.
struct Pair { float a; float b; };

__device__ float pair_sum(Pair p) { return p.a + p.b; }

__device__ int clamp_to(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

extern "C" __global__ void codegen(const float* in, float* out, Pair* pairs, int n, int w) {
  __shared__ float tile[4][33];
  __shared__ float buf[2][32];
  int t = threadIdx.x;
  for (int j = 0; j < 4; j++)
    tile[j][t] = in[clamp_to(j * 32 + t - 1, 0, n - 1)];
  __syncthreads();
  int pout = 0, pin = 1;
  buf[pout][t] = tile[0][t] + tile[3][t];
  __syncthreads();
  for (int d = 1; d < 32; d <<= 1) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (t >= d)
      buf[pout][t] = buf[pin][t] + buf[pin][t - d];
    else
      buf[pout][t] = buf[pin][t];
    __syncthreads();
  }
  out[t] = buf[pout][t];
  if ((t < n && t + 1 < w) || t == 0)
    out[32 + t] = 1.0f / tile[1][t];
  else
    out[32 + t] = 0.0f;
  Pair p = pairs[t];
  p.a += 1.0f;
  pairs[t] = p;
  out[64 + t] = pair_sum(pairs[t]);
}
"#;

/// The passes of the code-generation work; each can be left out.
const CODEGEN_PASSES: [&str; 7] = [
    "inline",
    "fold-offsets",
    "merge-branches",
    "rotate",
    "gvn",
    "merge-arms",
    "load-elim",
];

/// What `codegen` computes, in Rust (same operations, same order).
fn codegen_reference(input: &[f32], pairs: &[f32], n: i32, w: i32) -> (Vec<f32>, Vec<f32>) {
    let clamp = |v: i32, lo: i32, hi: i32| v.max(lo).min(hi);
    let mut tile = [[0f32; 32]; 4];
    for (j, row) in tile.iter_mut().enumerate() {
        for (t, x) in row.iter_mut().enumerate() {
            *x = input[clamp(j as i32 * 32 + t as i32 - 1, 0, n - 1) as usize];
        }
    }
    let mut buf = [[0f32; 32]; 2];
    let mut pout = 0usize;
    for t in 0..32 {
        buf[pout][t] = tile[0][t] + tile[3][t];
    }
    let mut d = 1;
    while d < 32 {
        pout = 1 - pout;
        let pin = 1 - pout;
        for t in 0..32 {
            buf[pout][t] = if t >= d {
                buf[pin][t] + buf[pin][t - d]
            } else {
                buf[pin][t]
            };
        }
        d <<= 1;
    }
    let mut out = vec![0f32; 96];
    let mut new_pairs = pairs.to_vec();
    for t in 0..32usize {
        out[t] = buf[pout][t];
        let ti = t as i32;
        out[32 + t] = if (ti < n && ti + 1 < w) || ti == 0 {
            1.0 / tile[1][t]
        } else {
            0.0
        };
        new_pairs[2 * t] += 1.0;
        out[64 + t] = new_pairs[2 * t] + new_pairs[2 * t + 1];
    }
    (out, new_pairs)
}

#[test]
fn code_generation_passes_compute_the_same_bits_as_a_reference() {
    let dir = scratch("codegen");
    let src = dir.join("codegen.cu");
    std::fs::write(&src, CODEGEN).unwrap();
    let src = src.display().to_string();
    // Deterministic inputs away from zero (the kernel divides by them).
    let input: Vec<f32> = (0..128)
        .map(|i| 0.75 + ((i * 37) % 101) as f32 / 13.0)
        .collect();
    let pairs: Vec<f32> = (0..64)
        .map(|i| ((i * 53) % 89) as f32 / 7.0 - 5.0)
        .collect();
    let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let (n, w) = (40, 20);
    let args: Vec<String> = vec![
        format!("f32[]:@{}", write(&dir, "in.bin", &bytes(&input))),
        "f32[]:zeros:96".into(),
        format!("f32[]:@{}", write(&dir, "pairs.bin", &bytes(&pairs))),
        format!("i32:{n}"),
        format!("i32:{w}"),
    ];
    let out = agree(&src, "codegen", &args);
    let (want_out, want_pairs) = codegen_reference(&input, &pairs, n, w);
    let f32s = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let bits = |v: &[f32]| -> Vec<u32> { v.iter().map(|x| x.to_bits()).collect() };
    assert_eq!(f32s(&out[1]), bits(&want_out), "out");
    assert_eq!(f32s(&out[2]), bits(&want_pairs), "pairs");
    // Each pass left out, the bits stay the same.
    for pass in CODEGEN_PASSES {
        assert!(passes::pipeline(3, true).contains(&pass), "{pass}");
        let mut req = request(&src, "codegen", &args, 3, Engine::Interp);
        req.disable_passes = vec![pass.to_string()];
        assert_eq!(buffers(&req), out, "results differ without `{pass}`");
    }
    // And the passes did their work: no call is left, the tile's rows
    // are constant offsets from one address, and `1 / x` is `rcp.rn`.
    let text = ptx("codegen", CODEGEN);
    assert!(!text.contains("call"), "{text}");
    assert!(text.contains("+132]") && text.contains("+264]"), "{text}");
    assert!(text.contains("rcp.rn.f32"), "{text}");
}

/// The samples the interpreter can run (the others' run specs say why
/// not).
fn samples() -> Vec<String> {
    common::runnable_samples()
}

fn source(sample: &str) -> String {
    common::sample_source(sample)
}

fn optimized(sample: &str, without: Option<&str>) -> Module {
    // sm_80, or the sample's own target when it needs a newer one.
    let target = common::target_for(&source(sample), "sm_80");
    let opts = CompileOptions {
        emit: Emit::Ir,
        target: kernelc::backend_nvptx::Target::parse(&target).unwrap(),
        ..CompileOptions::default()
    };
    let text = driver::compile_source(sample, &source(sample), &opts).unwrap();
    let mut module = kernelc::midend::text::parse_module(&text).unwrap();
    let pipeline: Vec<&str> = passes::pipeline(3, true)
        .into_iter()
        .filter(|p| Some(*p) != without)
        .collect();
    common::run_passes(&mut module, &pipeline).unwrap();
    module
}

#[test]
fn every_sample_computes_the_same_bits_with_each_loop_pass_switched_off() {
    for pass in LOOP_PASSES {
        assert!(passes::pipeline(3, true).contains(&pass), "{pass}");
    }
    for sample in samples() {
        let all = common::run_spec_in_interp(&sample, &optimized(&sample, None));
        for pass in LOOP_PASSES {
            let off = common::run_spec_in_interp(&sample, &optimized(&sample, Some(pass)));
            assert_eq!(all, off, "{sample}: results differ without `{pass}`");
        }
    }
}

#[test]
fn tensor_core_fragments_stay_in_registers() {
    for sample in ["wmma_gemm", "mma_ldmatrix_gemm"] {
        let text = ptx(sample, &source(sample));
        assert!(!text.contains(".local"), "{sample}:\n{text}");
        assert!(!text.contains("ld.local") && !text.contains("st.local"));
    }
}

/// Loop rotation (`rotate`, before `licm`) turns a loop that tests at the
/// top into a guard and a loop that tests at the bottom, so an invariant
/// load of a possibly-zero-trip loop can leave it: under the guard, it runs
/// only if the loop does. With `--disable-pass rotate` the load stays in
/// the loop, and the first line of the PTX says the pass was left out.
#[test]
fn rotation_lets_an_invariant_load_leave_a_top_tested_loop() {
    let dir = scratch("rotate-hoist");
    let src = dir.join("scale.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void scale(const float *__restrict__ a, \
         const float *__restrict__ x, float *__restrict__ y, int n) {\n\
         for (int i = threadIdx.x; i < n; i += blockDim.x)\n    y[i] = *a * x[i];\n}\n",
    )
    .unwrap();
    let src = src.display().to_string();
    // Whether the load of `*a` (the first parameter, `%rd2`) comes before
    // the first label: the loop's head in both shapes (the guard of the
    // rotated loop branches forward, to a later label).
    let load_before_loop = |ptx: &str| {
        let load = ptx
            .find("ld.global.nc.f32 %f1, [%rd2]")
            .expect("the load of *a");
        let label = ptx.find("\n$L__BB0_").expect("a label");
        load < label
    };
    let rotated = common::kernelc(&[&src, "-arch=sm_90"]);
    assert!(rotated.status.success(), "{}", common::stderr(&rotated));
    let rotated = common::stdout(&rotated);
    assert!(
        load_before_loop(&rotated),
        "the load leaves the loop:\n{rotated}"
    );
    common::assert_ptxas_accepts(&rotated, "sm_90", "the rotated loop");
    let plain = common::kernelc(&[&src, "-arch=sm_90", "--disable-pass", "rotate"]);
    assert!(plain.status.success(), "{}", common::stderr(&plain));
    let plain = common::stdout(&plain);
    assert!(
        !load_before_loop(&plain),
        "without rotate the load stays:\n{plain}"
    );
    assert!(plain
        .lines()
        .next()
        .unwrap()
        .contains("--disable-pass rotate"));
}

const ROWS: &str = r#"
// Row pointers and loop-counter indices. `x` and `y` are made from one row
// offset and read only in loops, so `rebase` addresses them from the
// parameters (`in + ((row * cols + c) << 2)`); `in[8 * t + 2 + k]` has a
// `for` counter as its addend, so the frontend widens it in two parts and,
// unrolled, the five loads share one address with displacements; the next
// loop keeps its counter (run-time trip count), and the last one walks a
// column (`in[r * cols + t]`: a pointer stepped by a row). Negative counters
// included.
extern "C" __global__ void rows(const float* in, float* out, int* win, int cols) {
  int t = threadIdx.x;
  int row = t / 8;
  const float* x = in + row * cols;
  float* y = out + row * cols;
  float m = 0.0f;
  for (int c = t % 8; c < cols; c += 8) m = fmaxf(m, x[c]);
  for (int c = t % 8; c < cols; c += 8) y[c] = x[c] - m;
  int s = 0;
  for (int k = -2; k < 3; ++k) s += (int)in[8 * t + 2 + k] * (k + 3);
  for (int k = 0; k < cols; ++k) s += (int)in[t + k];
  for (int r = 0; r < cols / 4; ++r) s += (int)in[r * cols + t] * 3;
  win[t] = s;
}
"#;

/// `rebase` and the frontend's split of a loop-counter index: the bits of a
/// Rust reference at -O0 and -O3 and on both engines, and the PTX has the
/// shapes the two make (a shift of the summed row offset, displacements).
#[test]
fn row_pointers_and_counter_indices_compute_the_same_bits() {
    let dir = scratch("rows");
    let cols = 21usize;
    let len = 8 * 32 + 8;
    let mut r = kernelc::run::SplitMix64(11);
    let input: Vec<f32> = (0..len)
        .map(|_| (r.next_u64() % 200) as f32 / 4.0 - 20.0)
        .collect();
    let in_b: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = vec![
        format!("f32[]:@{}", write(&dir, "in.bin", &in_b)),
        format!("f32[]:zeros:{}", 4 * cols),
        "i32[]:zeros:32".into(),
        format!("i32:{cols}"),
    ];
    let src = write(&dir, "rows.cu", ROWS.as_bytes());
    let bufs = agree(&src, "rows", &args);
    let y: Vec<f32> = bufs[1]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let win = i32s(&bufs[2]);
    for t in 0..32usize {
        let (row, lane) = (t / 8, t % 8);
        let x = &input[row * cols..row * cols + cols];
        let m = (lane..cols).step_by(8).fold(0.0f32, |m, c| m.max(x[c]));
        for c in (lane..cols).step_by(8) {
            assert_eq!(y[row * cols + c], x[c] - m, "y, row {row}, column {c}");
        }
        let mut s = 0i32;
        for k in -2i32..3 {
            s += input[(8 * t as i32 + 2 + k) as usize] as i32 * (k + 3);
        }
        for k in 0..cols {
            s += input[t + k] as i32;
        }
        for r in 0..cols / 4 {
            s += input[r * cols + t] as i32 * 3;
        }
        assert_eq!(win[t], s, "win, thread {t}");
    }
    let text = ptx("rows", ROWS);
    assert!(text.contains("shl.b64"), "{text}");
    assert!(text.contains("+16];"), "{text}");
}

const ARGMIN: &str = r#"
// The index of the nearest of `k` points (k = 0..13 per thread): `if (d <
// best) { best = d; bi = c; }` is a branch to the same block with other
// arguments, which `cfg-cleanup` turns into two selects; the loop is then
// one block that reads its counter only as a picked value, and
// `unroll-runtime` unrolls it. `cent[2 * c]` and `cent[2 * c + 1]` are
// widened part by part, so the copies share one pointer. Ties keep the
// first index (`<` is strict), and a NaN distance is never picked.
extern "C" __global__ void argmin(const float *pts, const float *cent, int *label, float *dist) {
    int t = threadIdx.x;
    int k = t % 14;
    float x = pts[2 * t], y = pts[2 * t + 1];
    float best = 3.4e38f;
    int bi = -1;
    for (int c = 0; c < k; ++c) {
        float dx = x - cent[2 * c], dy = y - cent[2 * c + 1];
        float d = dx * dx + dy * dy;
        if (d < best) { best = d; bi = c; }
    }
    label[t] = bi;
    dist[t] = best;
}
"#;

/// The argmin loop above against a Rust reference, at -O0 and -O3 and on
/// the emulator; and the PTX has the unrolled shape (selects, a
/// `nounroll` remainder, displacements off one pointer).
#[test]
fn an_argmin_loop_becomes_selects_and_unrolls() {
    let dir = scratch("argmin");
    let mut r = kernelc::run::SplitMix64(5);
    // Small integer coordinates, so that distances tie often.
    let mut grid = |n: usize| -> Vec<f32> { (0..n).map(|_| (r.next_u64() % 5) as f32).collect() };
    let pts = grid(64);
    let mut cent = grid(26);
    cent[6] = f32::NAN; // point 3's distance is NaN for every thread
    let f32_bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let args = vec![
        format!("f32[]:@{}", write(&dir, "pts.bin", &f32_bytes(&pts))),
        format!("f32[]:@{}", write(&dir, "cent.bin", &f32_bytes(&cent))),
        "i32[]:zeros:32".into(),
        "f32[]:zeros:32".into(),
    ];
    let src = write(&dir, "argmin.cu", ARGMIN.as_bytes());
    let out = agree(&src, "argmin", &args);
    let labels = i32s(&out[2]);
    let dists: Vec<f32> = out[3]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut ties = 0;
    for t in 0..32usize {
        let (x, y) = (pts[2 * t], pts[2 * t + 1]);
        let (mut best, mut bi) = (3.4e38f32, -1i32);
        for c in 0..t % 14 {
            let (dx, dy) = (x - cent[2 * c], y - cent[2 * c + 1]);
            let d = dx.mul_add(dx, dy * dy);
            ties += usize::from(d == best);
            if d < best {
                best = d;
                bi = c as i32;
            }
        }
        assert_eq!(
            (labels[t], dists[t].to_bits()),
            (bi, best.to_bits()),
            "thread {t}"
        );
    }
    assert!(ties > 5, "the data should have ties ({ties})");
    let text = ptx("argmin", ARGMIN);
    assert!(text.contains(".pragma \"nounroll\";"), "{text}");
    assert!(text.matches("selp.b32").count() >= 5, "{text}");
    assert!(text.contains("+28];"), "{text}");
}

const PARTIAL: &str = r#"
// `#pragma unroll N` below the trip count: N copies stay a loop.
extern "C" __global__ void partial(const int *in, int *out, int *after) {
    int t = threadIdx.x;
    int s = 0, p = 1;
    // 64 trips by 4: the counter is read by the body and after the loop.
    int i;
#pragma unroll 4
    for (i = 0; i < 64; i++) {
        s += in[(t + i) & 127] * (i + 1);
    }
    after[3 * t] = i;
    // 48 trips by 8, stepping by 3 from 2: the test holds only in the first copy.
#pragma unroll 8
    for (int j = 2; j < 146; j += 3) {
        p = p * 3 + in[(j + t) & 127];
    }
    // 10 trips by 4 does not divide: left as it is.
    int q = 0;
#pragma unroll 4
    for (int k = 0; k < 10; k++) q ^= in[k + t] << (k & 7);
    // An inner loop unrolled by 2 inside an outer loop of run-time trips.
    int r = 0;
    for (int o = 0; o < t % 5; o++) {
#pragma unroll 2
        for (int k = 0; k < 6; k++) r += in[(o * 6 + k + t) & 127] - k;
    }
    out[t] = s;
    after[3 * t + 1] = p;
    after[3 * t + 2] = q + r;
}
"#;

/// `#pragma unroll N` for a trip count N divides: N copies with one exit
/// test and `nounroll`, so ptxas keeps nvcc's shape (the n-body inner loop
/// of the helper probes was unrolled 16 times by ptxas, 344 SASS against
/// nvcc's 123). Results against a Rust reference at -O0/-O3 and on the
/// emulator.
#[test]
fn pragma_unroll_by_a_factor_keeps_a_loop_of_copies() {
    let dir = scratch("partial");
    let mut r = kernelc::run::SplitMix64(9);
    let input: Vec<i32> = (0..160)
        .map(|_| (r.next_u64() % 1000) as i32 - 500)
        .collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let args = vec![
        format!("i32[]:@{}", write(&dir, "in.bin", &bytes)),
        "i32[]:zeros:32".into(),
        "i32[]:zeros:96".into(),
    ];
    let src = write(&dir, "partial.cu", PARTIAL.as_bytes());
    let out = agree(&src, "partial", &args);
    let (sums, after) = (i32s(&out[1]), i32s(&out[2]));
    for t in 0..32usize {
        let s = (0..64).fold(0i32, |s, i| {
            s.wrapping_add(input[(t + i) & 127].wrapping_mul(i as i32 + 1))
        });
        let p = (2..146).step_by(3).fold(1i32, |p, j| {
            p.wrapping_mul(3).wrapping_add(input[(j + t) & 127])
        });
        let q = (0..10).fold(0i32, |q, k| q ^ (input[k + t] << (k & 7)));
        let mut rr = 0i32;
        for o in 0..t % 5 {
            for k in 0..6 {
                rr = rr.wrapping_add(input[(o * 6 + k + t) & 127] - k as i32);
            }
        }
        assert_eq!(sums[t], s, "thread {t}: sum");
        assert_eq!(
            &after[3 * t..3 * t + 3],
            &[64, p, q.wrapping_add(rr)],
            "thread {t}"
        );
    }
    let text = ptx("partial", PARTIAL);
    // The two dividing loops and the remainder-free inner one are marked.
    assert!(text.matches(".pragma \"nounroll\";").count() >= 3, "{text}");
}
