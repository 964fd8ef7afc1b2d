//! CUDA's half-precision types in device code (`frontend/src/half.rs`,
//! `sema/half.rs`, `lower/half.rs`): `__half`, `__nv_bfloat16` and their
//! pairs, their functions, operators and conversions.
//!
//! nvcc is the oracle: each kernel is compiled by kernelc (at -O0 and -O3)
//! and by nvcc with CUDA's own headers, the PTX of both runs on the
//! emulator with the same inputs, and kernelc's module also on the IR
//! interpreter; every run must leave the same bytes as nvcc's. The inputs
//! hold the edges: signed zeros, subnormals, the largest finite values,
//! infinities, NaNs, halfway cases of every rounding (f32 to f16 and bf16,
//! integers to f16), overflow, and random bits. ptxas assembles kernelc's
//! PTX for sm_80 and sm_90.

mod common;

use kernelc::backend_nvptx::{self, Target};
use kernelc::driver;
use kernelc::frontend;
use kernelc::midend::ir::{Module, Type};
use kernelc::run::SplitMix64;
use kir_interp::KernelArg;
use ptx_emu as emu;

const SOURCE: &str = r#"
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Three halves, a float and an int per thread; 32 halves, 8 floats and 8
// ints out.
extern "C" __global__ void f16_ops(const __half* a, const float* fs, const int* is,
                                   __half* o, float* of, int* oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[3 * i], y = a[3 * i + 1], z = a[3 * i + 2];
    float f = fs[i];
    int k = is[i];
    __half* r = o + 32 * i;
    r[0] = __hadd(x, y); r[1] = __hsub(x, y); r[2] = __hmul(x, y); r[3] = __hdiv(x, y);
    r[4] = __hfma(x, y, z); r[5] = __hneg(x); r[6] = __habs(x); r[7] = __hmin(x, y);
    r[8] = __hmax(x, y); r[9] = x + y; r[10] = x - y; r[11] = x * y; r[12] = x / y;
    r[13] = -x;
    __half h = x;
    h += y; h *= z; h -= 1.0f; h /= y;
    r[14] = h;
    __half c = x;
    c++; ++c; c--;
    r[15] = c;
    r[16] = __float2half(f); r[17] = __float2half_rz(f); r[18] = __float2half_rd(f);
    r[19] = __float2half_ru(f); r[20] = __int2half_rn(k); r[21] = __int2half_rz(k);
    r[22] = __ll2half_rd((long long)k * 1000003); r[23] = hsqrt(x); r[24] = hrsqrt(x);
    r[25] = hrcp(x); r[26] = __ushort_as_half(__half_as_ushort(x) ^ 1);
    r[27] = (double)f; r[28] = k; r[29] = __float2half_rn(f);
    __half2 p = __halves2half2(x, y), q = make_half2(__float2half(f), __float2half(1.5f));
    __half2 s = __hfma2(p, q, __half2half2(z));
    r[30] = __low2half(s); r[31] = __high2half(__hmul2(__lowhigh2highlow(p), q));
    float* g = of + 8 * i;
    g[0] = __half2float(x); g[1] = x; g[2] = __low2float(p); g[3] = __high2float(q);
    float2 w = __half22float2(__h2div(p, q));
    g[4] = w.x; g[5] = w.y; g[6] = (float)__high2half(__lows2half2(p, q));
    g[7] = __half2float(__hsub2(p, q).x);
    int* t = oi + 8 * i;
    t[0] = __heq(x, y) | __hne(x, y) << 1 | __hlt(x, y) << 2 | __hle(x, y) << 3
         | __hgt(x, y) << 4 | __hge(x, y) << 5 | __hequ(x, y) << 6 | __hneu(x, y) << 7
         | __hltu(x, y) << 8 | __hgeu(x, y) << 9 | (x < y) << 10 | (x != y) << 11
         | (x == y) << 12 | (x >= y) << 13;
    t[1] = __half2int_rn(x); t[2] = __half2int_rz(x); t[3] = __half2int_rd(x);
    t[4] = __half2int_ru(x); t[5] = x; t[6] = (int)__half2uint_rz(x);
    t[7] = __half_as_ushort(__hmin2(p, q).x) | __half_as_ushort(__habs2(p).y) << 16;
}

extern "C" __global__ void bf16_ops(const __nv_bfloat16* a, const float* fs, const int* is,
                                    __nv_bfloat16* o, float* of, int* oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = a[3 * i], y = a[3 * i + 1], z = a[3 * i + 2];
    float f = fs[i];
    int k = is[i];
    __nv_bfloat16* r = o + 32 * i;
    r[0] = __hadd(x, y); r[1] = __hsub(x, y); r[2] = __hmul(x, y); r[3] = __hdiv(x, y);
    r[4] = __hfma(x, y, z); r[5] = __hneg(x); r[6] = __habs(x); r[7] = __hmin(x, y);
    r[8] = __hmax(x, y); r[9] = x + y; r[10] = x - y; r[11] = x * y; r[12] = x / y;
    r[13] = -x;
    __nv_bfloat16 h = x;
    h += y; h *= z; h -= 1.0f; h /= y;
    r[14] = h;
    __nv_bfloat16 c = x;
    c++; ++c; c--;
    r[15] = c;
    r[16] = __float2bfloat16(f); r[17] = __float2bfloat16_rz(f);
    r[18] = __float2bfloat16_rd(f); r[19] = __float2bfloat16_ru(f);
    r[20] = __float2bfloat16_rn(f); r[21] = hsqrt(x); r[22] = hrsqrt(x); r[23] = hrcp(x);
    r[24] = __ushort_as_bfloat16(__bfloat16_as_ushort(x) ^ 1); r[25] = f;
    __nv_bfloat162 p = __halves2bfloat162(x, y), q = make_bfloat162(__float2bfloat16(f), __float2bfloat16(1.5f));
    __nv_bfloat162 s = __hfma2(p, q, __bfloat162bfloat162(z));
    r[26] = __low2bfloat16(s); r[27] = __high2bfloat16(__hmul2(p, q));
    r[28] = __hadd2(p, q).x; r[29] = __hmax2(p, q).y; r[30] = __hneg2(p).y;
    r[31] = __highs2bfloat162(p, q).x;
    float* g = of + 8 * i;
    g[0] = __bfloat162float(x); g[1] = x; g[2] = __low2float(p); g[3] = __high2float(q);
    float2 w = __bfloat1622float2(__h2div(p, q));
    g[4] = w.x; g[5] = w.y; g[6] = __bfloat162float(__low2bfloat162(p).y);
    g[7] = __bfloat162float(__hsub2(p, q).x);
    int* t = oi + 8 * i;
    t[0] = __heq(x, y) | __hne(x, y) << 1 | __hlt(x, y) << 2 | __hle(x, y) << 3
         | __hgt(x, y) << 4 | __hge(x, y) << 5 | __hequ(x, y) << 6 | __hneu(x, y) << 7
         | __hltu(x, y) << 8 | __hgeu(x, y) << 9 | (x < y) << 10 | (x != y) << 11
         | (x == y) << 12 | (x >= y) << 13;
    t[1] = __bfloat162int_rn(x); t[2] = __bfloat162int_rz(x); t[3] = __bfloat162int_rd(x);
    t[4] = __bfloat162int_ru(x); t[5] = x; t[6] = k;
    t[7] = __bfloat16_as_ushort(__hmin2(p, q).x) | __bfloat16_as_ushort(__habs2(p).y) << 16;
}
"#;

const BLOCK: u32 = 64;

/// kernelc's module and PTX for `arch` at `level`.
fn compile(level: u8, arch: &str) -> (Module, String) {
    let fe = driver::frontend_options(80, &[]);
    let program = frontend::check(SOURCE, &fe)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("h.cu", SOURCE, &d)));
    let mut module = frontend::lower(&program).expect("the kernels lower");
    common::optimize(&mut module, level).expect("the pipeline runs");
    let target = Target::parse(arch).unwrap();
    let ptx = backend_nvptx::compile_module(&module, &backend_nvptx::Options::new(target))
        .expect("the backend selects the kernels");
    (module, ptx)
}

/// Three 16-bit values per thread (`bf16`: the top half of an f32): the
/// interesting ones, then random ones.
fn halves(bf16: bool, rng: &mut SplitMix64, threads: usize) -> Vec<u16> {
    let edges: &[u16] = if bf16 {
        &[
            0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80,
            0xff80, 0x7fc0, 0xffc1, 0x4040, 0x3f81, 0x0100, 0x7e80, 0x7f00, 0x3400,
        ]
    } else {
        &[
            0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00,
            0xfc00, 0x7e00, 0xfe01, 0x4200, 0x3c01, 0x008f, 0x0090, 0x1400, 0x5bff,
        ]
    };
    // Every pair of edges as (x, y) with a third edge as z, then random
    // triples.
    let e = edges.len();
    let mut v = Vec::with_capacity(3 * threads);
    for t in 0..threads {
        if t < e * e {
            let (a, b) = (t / e, t % e);
            v.extend([edges[a], edges[b], edges[(a + b) % e]]);
        } else {
            v.extend([0; 3].map(|_: u16| rng.next_u64() as u16));
        }
    }
    v
}

/// The floats at the roundings' edges, then random ones of a plausible
/// magnitude.
fn floats(rng: &mut SplitMix64, count: usize) -> Vec<f32> {
    let edges: Vec<f32> = common::half_edges::F32_ROUNDING_EDGES
        .into_iter()
        .chain([0.1, -3.75])
        .collect();
    (0..count)
        .map(|k| {
            edges.get(k).copied().unwrap_or_else(|| {
                let bits = rng.next_u64() as u32;
                // Mostly values of a plausible magnitude.
                let e = 100 + (bits >> 24) % 60;
                f32::from_bits((bits & 0x807f_ffff) | (e << 23))
            })
        })
        .collect()
}

fn ints(rng: &mut SplitMix64, count: usize) -> Vec<i32> {
    let edges = [
        0, 1, -1, 2049, 2051, -2049, 4097, 65504, 65519, 65520, 70000, -70000,
    ];
    (0..count)
        .map(|k| {
            edges.get(k).copied().unwrap_or_else(|| {
                let r = rng.next_u64();
                (r as i32) >> (r >> 59)
            })
        })
        .collect()
}

fn bytes_of<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

/// The buffers a kernel leaves, on the interpreter (`module`) or the
/// emulator (`ptx`).
fn run(
    module: Option<&Module>,
    ptx: &str,
    kernel: &str,
    bufs: &[Vec<u8>],
    n: usize,
) -> Vec<Vec<u8>> {
    let grid = [(n as u32).div_ceil(BLOCK), 1, 1];
    let block = [BLOCK, 1, 1];
    if let Some(module) = module {
        let mut args: Vec<KernelArg> = bufs.iter().map(|b| KernelArg::Buffer(b.clone())).collect();
        args.push(KernelArg::Scalar {
            ty: Type::I32,
            bits: n as u64,
        });
        let cfg = kir_interp::LaunchConfig {
            grid,
            block,
            ..kir_interp::LaunchConfig::default()
        };
        let out = kir_interp::run_kernel(module, kernel, &args, &cfg)
            .unwrap_or_else(|e| panic!("{kernel} on the interpreter: {e:?}"));
        return out
            .buffers
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
    }
    let mut args: Vec<emu::KernelArg> = bufs
        .iter()
        .map(|b| emu::KernelArg::Buffer(b.clone()))
        .collect();
    args.push(emu::KernelArg::Scalar {
        bits: n as u64,
        bytes: 4,
        float: false,
        name: "int".into(),
    });
    let cfg = emu::LaunchConfig {
        grid,
        block,
        ..emu::LaunchConfig::default()
    };
    let out = emu::run_ptx(ptx, kernel, &args, &cfg)
        .unwrap_or_else(|e| panic!("{kernel} on the emulator: {e:?}"));
    out.buffers
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect()
}

/// The first difference between two runs' output buffers (3, 4, 5: the
/// halves, floats and ints), as a message.
fn first_difference(want: &[Vec<u8>], got: &[Vec<u8>], inputs: &[Vec<u8>]) -> Option<String> {
    for (j, width, per) in [(3, 2, 32), (4, 4, 8), (5, 4, 8)] {
        let (a, b) = (&want[j], &got[j]);
        if let Some(at) = a
            .chunks(width)
            .zip(b.chunks(width))
            .position(|(x, y)| x != y)
        {
            let thread = at / per;
            let x = &inputs[0][6 * thread..6 * thread + 6];
            return Some(format!(
                "buffer {j}, thread {thread}, output {}: nvcc {:02x?}, kernelc {:02x?} \
                 (halves {x:02x?}, float {:02x?}, int {:02x?})",
                at % per,
                &a[at * width..at * width + width],
                &b[at * width..at * width + width],
                &inputs[1][4 * thread..4 * thread + 4],
                &inputs[2][4 * thread..4 * thread + 4],
            ));
        }
    }
    None
}

fn agrees_with_nvcc(kernel: &str, bf16: bool) {
    let n = 1200;
    let mut rng = SplitMix64(0x5eed_0016 + u64::from(bf16));
    let hs = halves(bf16, &mut rng, n);
    let inputs = vec![
        bytes_of(&hs, u16::to_le_bytes),
        bytes_of(&floats(&mut rng, n), f32::to_le_bytes),
        bytes_of(&ints(&mut rng, n), i32::to_le_bytes),
        vec![0; 64 * n],
        vec![0; 32 * n],
        vec![0; 32 * n],
    ];
    let mut runs = Vec::new();
    for level in [0, 3] {
        let (module, ptx) = compile(level, "sm_80");
        runs.push((
            format!("interpreter -O{level}"),
            run(Some(&module), &ptx, kernel, &inputs, n),
        ));
        runs.push((
            format!("emulator -O{level}"),
            run(None, &ptx, kernel, &inputs, n),
        ));
    }
    let Some(headers) = common::cuda_headers_or_skip() else {
        return;
    };
    let Some(nvcc) = common::nvcc_or_skip("the half kernels") else {
        return;
    };
    let dir = common::scratch(&format!("half-{kernel}"));
    let src = dir.join("half.cu");
    std::fs::write(&src, SOURCE).unwrap();
    let flags = vec!["-I".to_string(), headers.display().to_string()];
    // nvcc writes bf16 comparisons for sm_80 with `set.f32`, which the
    // emulator does not run; for sm_90 they are `setp.bf16`.
    let arch = if bf16 { "sm_90" } else { "sm_80" };
    let nvcc_ptx = common::nvcc_ptx_to(&nvcc, &src, arch, &flags, &dir.join("nvcc.ptx"));
    let want = run(None, &nvcc_ptx, kernel, &inputs, n);
    for (name, got) in &runs {
        if let Some(d) = first_difference(&want, got, &inputs) {
            panic!("{kernel} on the {name} differs from nvcc's PTX on the emulator: {d}");
        }
    }
}

#[test]
fn f16_functions_and_operators_give_nvccs_bits() {
    agrees_with_nvcc("f16_ops", false);
}

#[test]
fn bf16_functions_and_operators_give_nvccs_bits() {
    agrees_with_nvcc("bf16_ops", true);
}

#[test]
fn ptxas_accepts_the_half_kernels() {
    for arch in ["sm_80", "sm_90"] {
        for level in [0, 3] {
            let (_, ptx) = compile(level, arch);
            common::assert_ptxas_accepts(&ptx, arch, &format!("the half kernels -O{level}"));
        }
    }
}

#[test]
fn mixing_a_half_with_another_type_is_ambiguous_as_in_nvcc() {
    let cases = [
        ("float y = h * 2.0f;", "`__half * float` is ambiguous"),
        ("bool y = h < 0;", "`__half < int` is ambiguous"),
        (
            "__nv_bfloat16 y = h;",
            "cannot convert `__half` to `__nv_bfloat16`",
        ),
        (
            "__half y = __hadd(h, b);",
            "argument 2 of `__hadd` is `__nv_bfloat16`",
        ),
    ];
    for (line, want) in cases {
        let src = format!(
            "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\
             __global__ void k(__half h, __nv_bfloat16 b) {{ {line} }}\n"
        );
        let fe = driver::frontend_options(80, &[]);
        let d = frontend::check(&src, &fe).expect_err(line);
        let text = frontend::render_diagnostics("h.cu", &src, &d);
        assert!(
            text.contains(want) && text.contains("h.cu:3:"),
            "{line}:\n{text}"
        );
    }
    // A compound assignment converts its right side: not ambiguous.
    let ok = "#include <cuda_fp16.h>\n__global__ void k(__half *p, float *f) { \
              p[0] *= 2.0f; f[0] += p[1]; }\n";
    frontend::check(ok, &driver::frontend_options(80, &[])).expect("compound assignments");
}

/// `__ldcs`, `__ldg`, `__stwt` and the other cache-hinted loads and stores
/// of `__half` and `__nv_bfloat16` are nvcc's instructions
/// (`ld.global.cs.b16`, ...) and give nvcc's bits on the emulator.
#[test]
fn cache_hinted_half_loads_and_stores_are_nvccs() {
    let dir = common::scratch("half-cache-hints");
    let src = common::root().join("tests/fixtures/half/cache_hints.cu");
    let cccl = common::cuda_headers_or_skip()
        .map(|h| vec![format!("-I{}", h.join("cccl").display())])
        .unwrap_or_default();
    let (ptx, theirs) = common::fixture_ptx_and_nvcc_with(&src, &dir, &cccl);
    for form in [
        "ld.global.cs.b16",
        "ld.global.lu.b16",
        "ld.global.nc.b16",
        "ld.global.cg.b16",
        "ld.global.ca.b16",
        "st.global.cs.b16",
        "st.global.cg.b16",
        "st.global.wt.b16",
        "st.global.wb.b16",
    ] {
        assert!(ptx.contains(form), "{form} missing:\n{ptx}");
    }
    let args: &[&str] = &[
        "u16[]:rand:32:1",
        "u16[]:zeros:64",
        "u16[]:rand:33:2",
        "u16[]:zeros:64",
    ];
    let kernel = ("_Z6hintedPK13__nv_bfloat16PS_PK6__halfPS3_", args);
    let shape = ["--grid", "1", "--block", "32"];
    let ours = common::launch_buffers(
        &dir.join("kernelc.ptx"),
        "emu",
        kernel,
        &dir.join("ours"),
        &shape,
    );
    if let Some(theirs) = theirs {
        let nvcc = common::launch_buffers(&theirs, "emu", kernel, &dir.join("theirs"), &shape);
        assert_eq!(ours, nvcc, "kernelc's bits and nvcc's differ");
    }
}
