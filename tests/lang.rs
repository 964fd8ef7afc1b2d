//! Vector loads and stores of CUDA vector types, and device functions that
//! take and return structs by value through PTX `.param` arrays: the PTX
//! assembles for sm_80, sm_90 and sm_100a in both register modes, and the
//! kernels give the same buffers in the interpreter and the PTX emulator at
//! -O0 and -O3, equal to a reference computed here.

mod common;

use common::{i32s, kernelc, scratch, stderr, u32s};
use kernelc::run::{execute, Engine, RunRequest};
use std::path::Path;

/// Whole-vector copies in the global, `.nc`, shared, const, local and
/// generic spaces, and by-value vector kernel parameters.
const VECTORS: &str = r#"
__constant__ float4 c_tab[4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};

extern "C" __global__ void vectors(const float4 *a, float4 *b, double2 *d, const int4 *ip, int4 *io,
                                   float2 *f2, uchar4 *c4, float4 bias, int n) {
    __shared__ float4 tile[64];
    int i = threadIdx.x;
    float4 v = a[i];
    tile[i] = v;
    __syncthreads();
    float4 w = tile[(i + 1) % n];
    float4 c = c_tab[i % 4];
    w.x += c.x + bias.x;
    w.y -= c.y + bias.y;
    w.z *= c.z + bias.z;
    w.w += c.w + bias.w;
    b[i] = w;
    double2 e = d[i];
    e.y += e.x;
    d[i + n] = e;
    int4 k = __ldg(&ip[i]);
    k.z ^= k.x;
    io[i] = k;
    float2 g = f2[i];
    float2 *gp = (i & 1) ? &f2[i + n] : &g;
    *gp = make_float2(g.y, g.x);
    f2[i + 2 * n] = g;
    uchar4 q = c4[i];
    q.w = q.x + q.y + q.w;
    c4[i + n] = q;
}
"#;

/// Struct parameters and results of device functions, with recursion.
const STRUCT_CALLS: &str = r#"
struct P { float x, y, z; };
struct Q { double d; int k; };

// `extern "C"` and `__noinline__`: the helpers keep their plain names and
// stay functions, so the `.param` convention of their calls is in the PTX.
extern "C" __device__ __noinline__ P mk(float a, int k) {
    P p;
    p.x = a;
    p.y = a * 2.0f;
    p.z = (float)k;
    return p;
}

extern "C" __device__ __noinline__ float dot(P a, P b) {
    a.x += 1.0f;
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

extern "C" __device__ Q fact(Q q) {
    if (q.k <= 1) {
        Q r;
        r.d = q.d;
        r.k = 1;
        return r;
    }
    Q m;
    m.d = q.d * q.k;
    m.k = q.k - 1;
    return fact(m);
}

extern "C" __device__ __noinline__ float4 twice(float4 v) {
    v.x *= 2.0f;
    v.w *= 2.0f;
    return v;
}

extern "C" __global__ void structs(float *out, const float4 *in, double *dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        P a = mk((float)i, i + 1);
        P b = mk(1.5f, 3);
        out[i] = dot(a, b);
        Q q;
        q.d = 1.0;
        q.k = i % 10 + 1;
        dout[i] = fact(q).d;
        float4 t = twice(in[i]);
        out[n + i] = t.x + t.y + t.z + t.w;
    }
}
"#;

fn write_source(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn vector_and_struct_kernels_assemble_for_every_target_and_register_mode() {
    let dir = scratch("lang-ptxas");
    for (name, text, needles) in [
        (
            "vectors.cu",
            VECTORS,
            &[
                "ld.global.v4.f32",
                "st.shared.v4.f32",
                "ld.const.v4.f32",
                // `bias` is read in place, field by field where used.
                "ld.param.f32 %f",
                "ld.global.nc.v4.u32",
                "ld.global.v2.f64",
                "st.global.v2.f64",
                "st.v2.f32",
                "ld.global.v4.u8",
            ][..],
        ),
        (
            "structs.cu",
            STRUCT_CALLS,
            &[
                ".func (.param .align 4 .b8 func_retval0[12]) mk(",
                ".param .align 4 .b8 dot_param_0[12]",
                "ld.param.f32 %f1, [dot_param_0];",
                "st.param.f32 [func_retval0+8],",
                ".param .align 8 .b8 param0[16];",
                ".param .align 8 .b8 retval0[16];",
                "call.uni (retval0), fact, (param0);",
                "ld.param.v4.f32",
                "st.param.v4.f32 [func_retval0], {",
            ][..],
        ),
    ] {
        let src = write_source(&dir, name, text);
        for arch in ["sm_80", "sm_90", "sm_100a"] {
            for mode in ["virtual", "regalloc2"] {
                let out = dir.join(format!("{name}.{arch}.{mode}.ptx"));
                let o = kernelc(&[
                    src.to_str().unwrap(),
                    &format!("-arch={arch}"),
                    &format!("--regalloc={mode}"),
                    "-w",
                    "-o",
                    out.to_str().unwrap(),
                ]);
                assert!(o.status.success(), "{name} {arch} {mode}: {}", stderr(&o));
                let ptx = std::fs::read_to_string(&out).unwrap();
                if mode == "virtual" {
                    for n in needles {
                        assert!(ptx.contains(n), "{name} {arch}: no `{n}` in\n{ptx}");
                    }
                }
                common::assert_ptxas_accepts(&ptx, arch, &format!("{name} {arch} {mode}"));
            }
        }
    }
}

/// The PTX of `source` with the default options (sm_80, -O3).
fn default_ptx(name: &str, source: &str) -> String {
    kernelc::driver::compile_source(name, source, &kernelc::driver::CompileOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn request(input: &Path, kernel: &str, threads: u32, args: &[&str]) -> RunRequest {
    RunRequest {
        input: input.to_path_buf(),
        kernel: kernel.into(),
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
        opt_level: Some(3),
        fmad: false,
        sm: 90,
        defines: Vec::new(),
        engine: Engine::Interp,
        max_steps: kir_interp::DEFAULT_MAX_STEPS,
        args: args.iter().map(|s| s.to_string()).collect(),
        ..RunRequest::default()
    }
}

/// The buffers of one run, in argument order.
fn buffers(req: &RunRequest) -> Vec<Vec<u8>> {
    let result = execute(req).unwrap_or_else(|e| panic!("{:?} {}:\n{e}", req.engine, req.kernel));
    result.args.into_iter().filter_map(|(_, b)| b).collect()
}

/// Runs `req` in both engines at -O0 and -O3; all four must agree bitwise
/// on the first `keep` buffers (the interpreter also reports the bytes of a
/// by-value struct argument, the emulator does not).
fn run_everywhere(req: RunRequest, keep: usize) -> Vec<Vec<u8>> {
    let mut first: Option<Vec<Vec<u8>>> = None;
    for engine in [Engine::Interp, Engine::Emu] {
        for opt in [0u8, 3] {
            let mut r = req.clone();
            r.engine = engine;
            r.opt_level = Some(opt);
            let mut got = buffers(&r);
            got.truncate(keep);
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(f, &got, "{engine:?} -O{opt} disagrees with interp -O0"),
            }
        }
    }
    first.unwrap()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn vector_accesses_agree_across_engines_and_levels() {
    let dir = scratch("lang-vectors");
    let src = write_source(&dir, "vectors.cu", VECTORS);
    let bias = [0.5f32, 0.25, 0.125, 2.0];
    let bias_file = dir.join("bias.bin");
    let bytes: Vec<u8> = bias.iter().flat_map(|f| f.to_le_bytes()).collect();
    std::fs::write(&bias_file, bytes).unwrap();
    let bias_arg = format!("u8[]:@{}", bias_file.display());
    let n = 16;
    let req = request(
        &src,
        "vectors",
        n,
        &[
            "f32[]:rand:64:1",
            "f32[]:zeros:64",
            "f64[]:rand:64:2",
            "i32[]:rand:64:3",
            "i32[]:zeros:64",
            "f32[]:rand:96:4",
            "u8[]:rand:128:5",
            &bias_arg,
            "i32:16",
        ],
    );
    let out = run_everywhere(req, 7);
    let (a, b) = (f32s(&out[0]), f32s(&out[1]));
    let c_tab = |i: usize| [1.0f32, 2., 3., 4.].map(|x| x + 4.0 * (i % 4) as f32);
    let n = n as usize;
    for i in 0..n {
        let j = (i + 1) % n;
        let c = c_tab(i);
        let want = [
            a[4 * j] + (c[0] + bias[0]),
            a[4 * j + 1] - (c[1] + bias[1]),
            a[4 * j + 2] * (c[2] + bias[2]),
            a[4 * j + 3] + (c[3] + bias[3]),
        ];
        assert_eq!(&b[4 * i..4 * i + 4], &want, "b[{i}]");
    }
    let d = f64s(&out[2]);
    for i in 0..n {
        assert_eq!(d[2 * (i + n)], d[2 * i]);
        assert_eq!(d[2 * (i + n) + 1], d[2 * i + 1] + d[2 * i]);
    }
    let c4 = &out[6];
    for i in 0..n {
        let q = &c4[4 * i..4 * i + 4];
        let want = [q[0], q[1], q[2], q[0].wrapping_add(q[1]).wrapping_add(q[3])];
        assert_eq!(&c4[4 * (i + n)..4 * (i + n) + 4], &want, "c4[{i}]");
    }
}

#[test]
fn struct_calls_agree_across_engines_and_levels() {
    let dir = scratch("lang-structs");
    let src = write_source(&dir, "structs.cu", STRUCT_CALLS);
    let n = 24;
    let req = request(
        &src,
        "structs",
        n,
        &[
            "f32[]:zeros:48",
            "f32[]:rand:96:7",
            "f64[]:zeros:24",
            "i32:24",
        ],
    );
    let out = run_everywhere(req, 3);
    let (o, input, d) = (f32s(&out[0]), f32s(&out[1]), f64s(&out[2]));
    let n = n as usize;
    for i in 0..n {
        let a = [i as f32 + 1.0, i as f32 * 2.0, (i + 1) as f32];
        let b = [1.5f32, 3.0, 3.0];
        let want = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        assert_eq!(o[i], want, "dot at {i}");
        let k = i % 10 + 1;
        let fact: f64 = (1..=k).map(|x| x as f64).product();
        assert_eq!(d[i], fact, "fact at {i}");
        let v = &input[4 * i..4 * i + 4];
        let t = v[0] * 2.0 + v[1] + v[2] + v[3] * 2.0;
        assert_eq!(o[n + i], t, "twice at {i}");
    }
}

/// Compound assignments whose right operand has effects (a post-increment, a
/// call that writes through a pointer), reads the target itself, or needs a
/// conversion back to a narrow target. The right operand is computed before
/// the target's old value is loaded (see `assign` in the frontend); each
/// operand must still be evaluated exactly once.
const COMPOUND: &str = r#"
__device__ int bump(int *c) {
    int old = *c;
    *c = old + 1;
    return old;
}

extern "C" __global__ void compound(float *a, unsigned *k, unsigned char *q, int n) {
    int i = threadIdx.x;
    int j = i;
    a[i] += a[j++ + n];
    k[i] += j;
    int c = 10;
    k[i + n] *= bump(&c) + 3;
    k[i + 2 * n] -= c;
    a[i + n] /= sqrtf(a[i + n] * a[i + n]) + 1.0f;
    q[i] += 250;
    k[i + 3 * n] <<= (i & 7);
    float *p = &a[2 * n];
    p += i;
    *p -= 0.5f;
}
"#;

#[test]
fn compound_assignments_evaluate_each_operand_once() {
    let dir = scratch("lang-compound");
    let src = write_source(&dir, "compound.cu", COMPOUND);
    let n = 16usize;
    let mut r = kernelc::run::SplitMix64(5);
    let a0: Vec<f32> = (0..3 * n)
        .map(|_| (r.next_u64() % 4000) as f32 / 16.0 - 125.0)
        .collect();
    let k0: Vec<u32> = (0..4 * n).map(|_| r.next_u64() as u32).collect();
    let q0: Vec<u8> = (0..n).map(|_| r.next_u64() as u8).collect();
    let file = |name: &str, bytes: Vec<u8>| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let a_arg = format!(
        "f32[]:@{}",
        file("a.bin", a0.iter().flat_map(|v| v.to_le_bytes()).collect())
    );
    let k_arg = format!(
        "u32[]:@{}",
        file("k.bin", k0.iter().flat_map(|v| v.to_le_bytes()).collect())
    );
    let q_arg = format!("u8[]:@{}", file("q.bin", q0.clone()));
    let req = request(
        &src,
        "compound",
        n as u32,
        &[&a_arg, &k_arg, &q_arg, "i32:16"],
    );
    let out = run_everywhere(req, 3);
    let a = f32s(&out[0]);
    let k = u32s(&out[1]);
    for i in 0..n {
        let x = a0[i + n];
        assert_eq!(a[i], a0[i] + x, "a[{i}]");
        assert_eq!(a[i + n], x / ((x * x).sqrt() + 1.0), "a[{i} + n]");
        assert_eq!(a[i + 2 * n], a0[i + 2 * n] - 0.5, "a[{i} + 2n]");
        assert_eq!(k[i], k0[i].wrapping_add(i as u32 + 1), "k[{i}]");
        assert_eq!(k[i + n], k0[i + n].wrapping_mul(13), "k[{i} + n]");
        assert_eq!(k[i + 2 * n], k0[i + 2 * n].wrapping_sub(11), "k[{i} + 2n]");
        assert_eq!(k[i + 3 * n], k0[i + 3 * n] << (i & 7), "k[{i} + 3n]");
        assert_eq!(out[2][i], q0[i].wrapping_add(250), "q[{i}]");
    }
}

/// Byte dot products that the `dp4a` pass turns into one instruction (a
/// signed `char4` pair plus an addend, an unsigned `uchar4` pair) and
/// three it must leave alone: the lanes crossed (`c.x * d.y`), mixed
/// signedness, and a byte that is also stored (`p.x`).
const DOTS: &str = r#"
extern "C" __global__ void dots(const char4 *a, const char4 *b, const uchar4 *ua, const uchar4 *ub,
                                int *out, int bias) {
    int i = threadIdx.x;
    char4 x = a[i], y = b[i];
    out[6 * i] = x.x * y.x + x.y * y.y + bias + x.z * y.z + x.w * y.w;
    uchar4 u = ua[i], v = ub[i];
    out[6 * i + 1] = u.x * v.x + u.y * v.y + u.z * v.z + u.w * v.w;
    char4 c = a[i + 32], d = b[i + 32];
    out[6 * i + 2] = c.x * d.y + c.y * d.x + c.z * d.z + c.w * d.w;
    char4 e = a[i + 64];
    uchar4 f = ub[i + 32];
    out[6 * i + 3] = e.x * f.x + e.y * f.y + e.z * f.z + e.w * f.w;
    char4 p = a[i + 96], q = b[i + 96];
    out[6 * i + 4] = p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
    out[6 * i + 5] = p.x;
}

extern "C" __global__ void dots_intrinsic(const int *a, const unsigned *b, const char4 *c, const uchar4 *d,
                                          int *out, unsigned *uout) {
    int i = threadIdx.x;
    out[2 * i] = __dp4a(a[i], a[i + 32], i - 16);
    out[2 * i + 1] = __dp4a(c[i], c[i + 32], -7);
    uout[2 * i] = __dp4a(b[i], b[i + 32], 3u);
    uout[2 * i + 1] = __dp4a(d[i], d[i + 32], (unsigned)i);
}
"#;

#[test]
fn byte_dot_products_become_dp4a_and_compute_the_same_bits() {
    let dir = scratch("lang-dots");
    let src = write_source(&dir, "dots.cu", DOTS);
    let n = 32usize;
    let req = request(
        &src,
        "dots",
        n as u32,
        &[
            "u8[]:rand:512:11",
            "u8[]:rand:512:12",
            "u8[]:rand:128:13",
            "u8[]:rand:256:14",
            "i32[]:zeros:192",
            "i32:-1000",
        ],
    );
    let out = run_everywhere(req, 5);
    let (a, b, ua, ub) = (&out[0], &out[1], &out[2], &out[3]);
    let got = i32s(&out[4]);
    let s = |v: u8| i32::from(v as i8);
    let u = i32::from;
    for i in 0..n {
        let lanes = |m: &[u8], k: usize| m[4 * k..4 * k + 4].to_vec();
        let (x, y) = (lanes(a, i), lanes(b, i));
        let (w, v) = (lanes(ua, i), lanes(ub, i));
        let (c, d) = (lanes(a, i + 32), lanes(b, i + 32));
        let (e, f) = (lanes(a, i + 64), lanes(ub, i + 32));
        let (p, q) = (lanes(a, i + 96), lanes(b, i + 96));
        let dot = |f: &dyn Fn(usize) -> i32| (0..4).map(f).sum::<i32>();
        let want = [
            dot(&|j| s(x[j]) * s(y[j])) - 1000,
            dot(&|j| u(w[j]) * u(v[j])),
            s(c[0]) * s(d[1]) + s(c[1]) * s(d[0]) + s(c[2]) * s(d[2]) + s(c[3]) * s(d[3]),
            dot(&|j| s(e[j]) * u(f[j])),
            dot(&|j| s(p[j]) * s(q[j])),
            s(p[0]),
        ];
        assert_eq!(&got[6 * i..6 * i + 6], &want, "thread {i}");
    }
    let ptx = default_ptx("dots", DOTS);
    assert_eq!(ptx.matches("dp4a.s32.s32").count(), 3, "{ptx}");
    assert_eq!(ptx.matches("dp4a.u32.u32").count(), 3, "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_80", "dots");

    // CUDA's `__dp4a`, in its `int`, `unsigned`, `char4` and `uchar4`
    // forms, against the same reference.
    let req = request(
        &src,
        "dots_intrinsic",
        n as u32,
        &[
            "u8[]:rand:256:21",
            "u8[]:rand:256:22",
            "u8[]:rand:256:23",
            "u8[]:rand:256:24",
            "i32[]:zeros:64",
            "u32[]:zeros:64",
        ],
    );
    let out = run_everywhere(req, 6);
    let word = |m: &[u8], k: usize| m[4 * k..4 * k + 4].to_vec();
    let signed = i32s(&out[4]);
    let unsigned = u32s(&out[5]);
    let sdot = |x: Vec<u8>, y: Vec<u8>, c: i32| {
        (0..4).fold(c, |acc, j| acc.wrapping_add(s(x[j]) * s(y[j])))
    };
    let udot = |x: Vec<u8>, y: Vec<u8>, c: u32| {
        (0..4).fold(c, |acc, j| {
            acc.wrapping_add(u32::from(x[j]) * u32::from(y[j]))
        })
    };
    for i in 0..n {
        let (a, b, c, d) = (&out[0], &out[1], &out[2], &out[3]);
        assert_eq!(
            signed[2 * i],
            sdot(word(a, i), word(a, i + 32), i as i32 - 16)
        );
        assert_eq!(signed[2 * i + 1], sdot(word(c, i), word(c, i + 32), -7));
        assert_eq!(unsigned[2 * i], udot(word(b, i), word(b, i + 32), 3));
        assert_eq!(
            unsigned[2 * i + 1],
            udot(word(d, i), word(d, i + 32), i as u32)
        );
    }
}

/// `fmodf`/`fmod` by constants: the divisor's significand folds to a
/// constant and `divconst` makes the long division multiplications; the
/// results must still be exact (Rust's `%` is C's `fmod`).
const FMOD_CONST: &str = r#"
extern "C" __global__ void fmod_const(const float *x, const double *d, float *out, double *dout) {
    int i = threadIdx.x;
    out[2 * i] = fmodf(x[i], 6.0f);
    out[2 * i + 1] = fmodf(x[i], 0.7f);
    dout[i] = fmod(d[i], 360.0);
}
"#;

#[test]
fn fmod_by_a_constant_is_exact() {
    let dir = scratch("lang-fmod-const");
    let src = write_source(&dir, "fmod.cu", FMOD_CONST);
    let n = 64usize;
    let mut r = kernelc::run::SplitMix64(9);
    // Magnitudes from tiny to huge, both signs, and a few specials.
    let xs: Vec<f32> = (0..n)
        .map(|i| match i {
            0 => 0.0,
            1 => -0.0,
            2 => f32::INFINITY,
            3 => 6.0,
            4 => -12.0,
            _ => {
                let m = (r.next_u64() % 1_000_000) as f32 / 1000.0;
                let e = (r.next_u64() % 60) as i32 - 30;
                let s = if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
                s * m * 2f32.powi(e)
            }
        })
        .collect();
    let ds: Vec<f64> = (0..n)
        .map(|_| {
            let m = (r.next_u64() % 1_000_000_000) as f64 / 1000.0;
            let e = (r.next_u64() % 200) as i32 - 40;
            m * 2f64.powi(e) * if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 }
        })
        .collect();
    let fb: Vec<u8> = xs.iter().flat_map(|v| v.to_le_bytes()).collect();
    let db: Vec<u8> = ds.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("x.bin"), fb).unwrap();
    std::fs::write(dir.join("d.bin"), db).unwrap();
    let xa = format!("f32[]:@{}", dir.join("x.bin").display());
    let da = format!("f64[]:@{}", dir.join("d.bin").display());
    let req = request(
        &src,
        "fmod_const",
        n as u32,
        &[&xa, &da, "f32[]:zeros:128", "f64[]:zeros:64"],
    );
    let out = run_everywhere(req, 4);
    let (f, d) = (f32s(&out[2]), f64s(&out[3]));
    for i in 0..n {
        let want = [xs[i] % 6.0, xs[i] % 0.7];
        for (k, w) in want.iter().enumerate() {
            let got = f[2 * i + k];
            assert!(
                got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan()),
                "fmodf({}, ...)[{k}]: {got} against {w}",
                xs[i]
            );
        }
        assert_eq!(
            d[i].to_bits(),
            (ds[i] % 360.0).to_bits(),
            "fmod({}, 360)",
            ds[i]
        );
    }
    let ptx = default_ptx("fmod", FMOD_CONST);
    assert!(
        !ptx.contains("div.u32") && !ptx.contains("rem.u32"),
        "{ptx}"
    );
}

const MULHI: &str = r#"
extern "C" __global__ void mulhi_orders(const unsigned *u, const int *s, unsigned *uo, int *so) {
    int t = threadIdx.x;
    unsigned a = u[t];
    int b = s[t];
    uo[4 * t] = __umulhi(0xD2511F53u, a);
    uo[4 * t + 1] = __umulhi(a, 0xD2511F53u);
    uo[4 * t + 2] = __umulhi(0xCD9E8D57u, a ^ 0x9E3779B9u);
    uo[4 * t + 3] = __umulhi(a, a);
    so[3 * t] = __mulhi(-12345, b);
    so[3 * t + 1] = __mulhi(b, -12345);
    so[3 * t + 2] = __mulhi(2147483647, b);
}
"#;

/// `__umulhi`/`__mulhi` with the constant first or second: the same
/// `mul.hi` (tests/filetests/compile/mulhi_constant_first_sm80.cu) and the
/// same bits as a 64-bit reference, in the interpreter and the emulator.
#[test]
fn mulhi_operand_orders_agree() {
    let dir = scratch("lang-mulhi");
    let src = write_source(&dir, "mulhi.cu", MULHI);
    let n = 64usize;
    let req = request(
        &src,
        "mulhi_orders",
        n as u32,
        &[
            "u32[]:rand:64:31",
            "i32[]:rand:64:32",
            "u32[]:zeros:256",
            "i32[]:zeros:192",
        ],
    );
    let out = run_everywhere(req, 4);
    let (a, b) = (u32s(&out[0]), i32s(&out[1]));
    let (uo, so) = (u32s(&out[2]), i32s(&out[3]));
    let uhi = |x: u32, y: u32| ((u64::from(x) * u64::from(y)) >> 32) as u32;
    let shi = |x: i32, y: i32| ((i64::from(x) * i64::from(y)) >> 32) as i32;
    for t in 0..n {
        let want_u = [
            uhi(0xD251_1F53, a[t]),
            uhi(a[t], 0xD251_1F53),
            uhi(0xCD9E_8D57, a[t] ^ 0x9E37_79B9),
            uhi(a[t], a[t]),
        ];
        assert_eq!(&uo[4 * t..4 * t + 4], &want_u, "thread {t} (unsigned)");
        let want_s = [shi(-12345, b[t]), shi(b[t], -12345), shi(i32::MAX, b[t])];
        assert_eq!(&so[3 * t..3 * t + 3], &want_s, "thread {t} (signed)");
    }
    let ptx = default_ptx("mulhi", MULHI);
    assert_eq!(ptx.matches("mul.hi.u32").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("mul.hi.s32").count(), 3, "{ptx}");
    assert!(!ptx.contains("mul.lo.s64"), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_80", "mulhi");
}

const TRAP: &str = r#"
extern "C" __global__ void guard(const int *p, float *f, int *out) {
    int t = threadIdx.x;
    if (p[t] < 0) __trap();
    out[t] = p[t] * 2;
    f[t] = fdividef(f[t], 3.0f) + __fdividef(f[t], 5.0f);
}
"#;

/// `__trap()` aborts the kernel (PTX `trap`; a located fault in the
/// interpreter and the emulator), and `fdividef` is `__fdividef`.
#[test]
fn trap_aborts_and_fdividef_is_the_fast_division() {
    let dir = scratch("lang-trap");
    let src = write_source(&dir, "trap.cu", TRAP);
    let ptx = default_ptx("trap", TRAP);
    assert_eq!(ptx.matches("trap;").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("div.approx.f32").count(), 2, "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_80", "trap");
    // Non-negative inputs: no trap, the same results everywhere.
    let req = request(
        &src,
        "guard",
        32,
        &["i32[]:iota:32", "f32[]:iota:32", "i32[]:zeros:32"],
    );
    let out = run_everywhere(req, 3);
    let doubled = i32s(&out[2]);
    assert_eq!(doubled, (0..32).map(|i| 2 * i).collect::<Vec<i32>>());
    // A negative input traps, in both engines, at the `__trap()`.
    let path = src.to_str().unwrap();
    for engine in ["interp", "emu"] {
        let o = kernelc(&[
            "run",
            path,
            "--kernel",
            "guard",
            "--grid",
            "1",
            "--block",
            "32",
            "--engine",
            engine,
            "i32[]:rand:32:7",
            "f32[]:iota:32",
            "i32[]:zeros:32",
        ]);
        assert!(!o.status.success(), "{engine}: no fault");
        let err = stderr(&o);
        assert!(err.contains("trap"), "{engine}: {err}");
    }
}

const LOGB: &str = r#"
extern "C" __global__ void exponents(const float *x, const double *y, int *ei, float *ef, int *di, double *df) {
    int t = threadIdx.x;
    ei[t] = ilogbf(x[t]);
    ef[t] = logbf(x[t]);
    di[t] = ilogb(y[t]);
    df[t] = logb(y[t]);
}
"#;

/// `ilogbf`/`ilogb`/`logbf`/`logb` on normals, subnormals and the specials
/// (CUDA's: `ilogb(0)` and `ilogb(NaN)` are `INT_MIN`, `ilogb(inf)`
/// `INT_MAX`; `logb(0)` is `-inf`, `logb(inf)` `+inf`), against the
/// exponent read from the bits.
#[test]
fn ilogb_and_logb_read_the_exponent() {
    let dir = scratch("lang-logb");
    let src = write_source(&dir, "logb.cu", LOGB);
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.0,
        0.75,
        3.0,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x0040_0000),
        -f32::from_bits(0x0000_0123),
        1e-40,
        123456.0,
    ];
    let mut r = kernelc::run::SplitMix64(3);
    while xs.len() < 64 {
        xs.push(f32::from_bits(r.next_u64() as u32));
    }
    let ys: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| match i {
            11 => f64::from_bits(1),
            12 => f64::MIN_POSITIVE,
            13 => -f64::from_bits(0x000f_ffff_ffff_ffff),
            _ if i >= 16 => f64::from_bits(r.next_u64()),
            _ => f64::from(x),
        })
        .collect();
    let fx: Vec<u8> = xs.iter().flat_map(|v| v.to_le_bytes()).collect();
    let fy: Vec<u8> = ys.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (px, py) = (dir.join("x.bin"), dir.join("y.bin"));
    std::fs::write(&px, &fx).unwrap();
    std::fs::write(&py, &fy).unwrap();
    let (ax, ay) = (
        format!("f32[]:@{}", px.display()),
        format!("f64[]:@{}", py.display()),
    );
    let req = request(
        &src,
        "exponents",
        64,
        &[
            &ax,
            &ay,
            "i32[]:zeros:64",
            "f32[]:zeros:64",
            "i32[]:zeros:64",
            "f64[]:zeros:64",
        ],
    );
    let out = run_everywhere(req, 6);
    let ilogb32 = |x: f32| -> i32 {
        if x == 0.0 || x.is_nan() {
            i32::MIN
        } else if x.is_infinite() {
            i32::MAX
        } else {
            let b = x.to_bits() & 0x7fff_ffff;
            match b >> 23 {
                0 => -118 - b.leading_zeros() as i32,
                e => e as i32 - 127,
            }
        }
    };
    let ilogb64 = |y: f64| -> i32 {
        if y == 0.0 || y.is_nan() {
            i32::MIN
        } else if y.is_infinite() {
            i32::MAX
        } else {
            let b = y.to_bits() & 0x7fff_ffff_ffff_ffff;
            match b >> 52 {
                0 => -1011 - b.leading_zeros() as i32,
                e => e as i32 - 1023,
            }
        }
    };
    let logb = |x: f64, e: i32| -> f64 {
        if x == 0.0 {
            f64::NEG_INFINITY
        } else if x.is_nan() || x.is_infinite() {
            x.abs()
        } else {
            f64::from(e)
        }
    };
    let (ei, ef) = (i32s(&out[2]), &out[3]);
    let (di, df) = (i32s(&out[4]), &out[5]);
    for t in 0..64 {
        let (x, y) = (xs[t], ys[t]);
        let f = f32::from_le_bytes(ef[4 * t..4 * t + 4].try_into().unwrap());
        let d = f64::from_le_bytes(df[8 * t..8 * t + 8].try_into().unwrap());
        assert_eq!(ei[t], ilogb32(x), "ilogbf({x:e})");
        assert_eq!(di[t], ilogb64(y), "ilogb({y:e})");
        let want_f = logb(f64::from(x), ilogb32(x)) as f32;
        assert!(
            f.to_bits() == want_f.to_bits() || (f.is_nan() && want_f.is_nan()),
            "logbf({x:e}) = {f}"
        );
        let want_d = logb(y, ilogb64(y));
        assert!(
            d.to_bits() == want_d.to_bits() || (d.is_nan() && want_d.is_nan()),
            "logb({y:e}) = {d}"
        );
    }
    let ptx = default_ptx("logb", LOGB);
    common::assert_ptxas_accepts(&ptx, "sm_80", "logb");
}

/// `__managed__` variables are global memory that the host reaches too:
/// kernelc declares them as nvcc does (`.global .attribute(.managed)`, with
/// their initializers), and the kernel computes the same from either PTX.
#[test]
fn managed_variables_are_global_memory_as_nvccs() {
    let dir = scratch("managed");
    let src = write_source(
        &dir,
        "managed.cu",
        "__managed__ unsigned g_count;\n\
         __managed__ float tab[4] = {1.5f, -2.0f, 3.25f, 8.0f};\n\
         __device__ __managed__ double scale = 0.5;\n\
         static __managed__ int bias = 3;\n\
         extern \"C\" __global__ void k(float *o) {\n\
           atomicAdd(&g_count, 1u);\n\
           o[threadIdx.x] = tab[threadIdx.x & 3] * (float)scale + bias;\n\
           __syncthreads();\n\
           if (threadIdx.x == 0) o[blockDim.x] = (float)g_count;\n\
         }\n",
    );
    let ours = dir.join("kernelc.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", ours.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ptx = std::fs::read_to_string(&ours).unwrap();
    for decl in [
        ".global .attribute(.managed) .align 4 .b8 g_count[4]",
        ".global .attribute(.managed) .align 4 .b8 tab[16] = {0, 0, 192, 63, 0, 0, 0, 192,",
        ".global .attribute(.managed) .align 8 .b8 scale[8] = {0, 0, 0, 0, 0, 0, 224, 63}",
        ".global .attribute(.managed) .align 4 .b8 bias[4] = {3, 0, 0, 0}",
    ] {
        assert!(ptx.contains(decl), "{decl} missing:\n{ptx}");
    }
    common::assert_ptxas_accepts(&ptx, "sm_90", "managed variables");
    let args = ["f32[]:zeros:9"];
    let run = |file: &Path, engine: &str| {
        let out = dir.join(format!("out-{engine}"));
        let options = ["--grid", "1", "--block", "8"];
        common::launch_buffers(file, engine, ("k", &args), &out, &options)
    };
    let emulated = run(&ours, "emu");
    let values = f32s(emulated[0].as_deref().unwrap());
    assert_eq!(values[..4], [3.75, 2.0, 4.625, 7.0]);
    assert_eq!(
        values[8], 8.0,
        "every thread's atomicAdd on the managed counter"
    );
    assert_eq!(run(&src, "interp"), emulated);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "managed variables") else {
        return;
    };
    assert!(theirs.contains(".global .attribute(.managed) .align 8 .f64 scale"));
    let nvccs = dir.join("nvcc.ptx");
    std::fs::write(&nvccs, &theirs).unwrap();
    assert_eq!(run(&nvccs, "emu"), emulated);
}
