//! CUDA built-in functions and the math library: overload resolution and
//! diagnostics in sema, and what the lowered IR computes, run in the IR
//! interpreter (the engine behind `kernelc run`) and compared with
//! references computed here.

mod common;

use common::{errors, ok};
use frontend::{check, lower, Options};
use kir_interp::{run_kernel, KernelArg, LaunchConfig};
use midend::text::{write_module, PrintOptions};

/// Lowers `src` with `opts` and prints the IR.
fn ir_with(src: &str, opts: &Options) -> String {
    let p = check(src, opts)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("t.cu", src, &d)));
    let m = lower(&p).unwrap_or_else(|d| panic!("{d:?}"));
    verified(&m);
    write_module(&m, PrintOptions::default())
}

/// Runs `kernel` of `src` on one block of `threads` threads; returns the
/// final contents of every buffer argument.
fn run(src: &str, kernel: &str, threads: u32, args: Vec<KernelArg>) -> Vec<Vec<u8>> {
    let m = lower(&ok(src)).unwrap_or_else(|d| panic!("{d:?}"));
    verified(&m);
    let config = LaunchConfig {
        block: [threads, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run_kernel(&m, kernel, &args, &config).unwrap_or_else(|e| panic!("{e}"));
    out.buffers.into_iter().flatten().collect()
}

/// Lowering must produce IR the verifier accepts.
fn verified(m: &midend::ir::Module) {
    if let Err(errors) = midend::verifier::verify_module(m) {
        let text: Vec<String> = errors
            .iter()
            .map(|(f, e)| e.annotate(&m.functions[*f], Some(m)))
            .collect();
        panic!("invalid IR after lowering:\n{}", text.join("\n"));
    }
}

fn zeros(bytes: usize) -> KernelArg {
    KernelArg::Buffer(vec![0; bytes])
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f32_buffer(v: &[f32]) -> KernelArg {
    KernelArg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

#[test]
fn atomics_give_cuda_results() {
    let src = "__global__ void k(int *i, unsigned *u, unsigned long long *ull, long long *ll,\n\
        float *f, double *d) {\n\
        int t = threadIdx.x;\n\
        atomicAdd(i, 1); atomicSub(i + 1, 2); atomicExch(i + 2, 7);\n\
        atomicMin(i + 3, -t); atomicMax(i + 4, t);\n\
        atomicOr(i + 6, 1 << (t & 31)); atomicXor(i + 7, 1);\n\
        atomicCAS(i + 8, 0, t + 1);\n\
        atomicAdd_block(u, 3u); atomicInc(u + 2, 9u); atomicDec(u + 3, 4u);\n\
        atomicMax_system(u + 5, (unsigned)t * 3u);\n\
        atomicAdd(ull, 1ull << 33); atomicExch(ull + 1, 5ull);\n\
        atomicMin(ll, (long long)-t * 1000000000LL);\n\
        atomicAdd(f, 0.5f); atomicExch(f + 1, 2.5f); atomicAdd(d, 0.25);\n\
        if (t == 0) i[9] = atomicAnd(i + 5, 6);\n\
        }";
    let b = run(
        src,
        "k",
        64,
        vec![
            zeros(40),
            zeros(24),
            zeros(16),
            zeros(8),
            zeros(8),
            zeros(8),
        ],
    );
    let i = i32s(&b[0]);
    assert_eq!(&i[..5], &[64, -128, 7, -63, 63]);
    assert_eq!(i[6], -1, "every bit set by some thread");
    assert_eq!(i[7], 0, "an even number of xors");
    assert!((1..=64).contains(&i[8]), "exactly one CAS wins: {}", i[8]);
    let u = i32s(&b[1]);
    assert_eq!(u[0], 192);
    // 64 wrapping increments with limit 9 count 0..=9 six times, then 4.
    assert_eq!(u[2], 64 % 10);
    // Decrement from 0 wraps to the limit (4), then counts down: 0,4,3,2,1,0,...
    assert_eq!(u[3], 1, "64 = 12 * 5 + 4 steps of 4, 3, 2, 1, 0");
    assert_eq!(u[5], 189);
    let ull = u64s(&b[2]);
    assert_eq!(ull, [64 << 33, 5]);
    assert_eq!(u64s(&b[3])[0] as i64, -63_000_000_000);
    assert_eq!(f32s(&b[4]), [32.0, 2.5]);
    assert_eq!(f64::from_le_bytes(b[5][..8].try_into().unwrap()), 16.0);
}

#[test]
fn warp_shuffles_votes_and_block_reductions() {
    let src = "__global__ void k(int *o, float *f, double *d, long long *l) {\n\
        int t = threadIdx.x;\n\
        o[t] = __shfl_sync(0xffffffffu, t * 10, 3);\n\
        o[64 + t] = __shfl_up_sync(0xffffffffu, t, 1);\n\
        o[128 + t] = __shfl_down_sync(0xffffffffu, t, 2, 16);\n\
        o[192 + t] = __shfl_xor_sync(0xffffffffu, t, 1, 8);\n\
        f[t] = __shfl_sync(0xffffffffu, (float)t * 0.5f, 5, 8);\n\
        d[t] = __shfl_down_sync(0xffffffffu, (double)t * 0.25, 1);\n\
        l[t] = __shfl_xor_sync(0xffffffffu, ((long long)t << 40) | t, 1);\n\
        o[256 + t] = (int)__ballot_sync(0xffffffffu, t & 1);\n\
        o[320 + t] = __any_sync(0xffffffffu, t == 5) + 2 * __all_sync(0xffffffffu, t < 40);\n\
        __syncwarp();\n\
        o[384 + t] = __syncthreads_count(t & 1);\n\
        o[448 + t] = __syncthreads_and(t < 100) + 2 * __syncthreads_or(t == 3);\n\
        o[512 + t] = (int)__activemask();\n\
        }";
    let b = run(
        src,
        "k",
        64,
        vec![zeros(576 * 4), zeros(256), zeros(512), zeros(512)],
    );
    let o = i32s(&b[0]);
    for t in 0..64i32 {
        let u = t as usize;
        let warp = t & !31;
        let lane = t & 31;
        assert_eq!(o[u], (warp + 3) * 10, "idx");
        assert_eq!(o[64 + u], if lane == 0 { t } else { t - 1 }, "up");
        // width 16: segments of 16 lanes; past the segment end keeps its own.
        assert_eq!(
            o[128 + u],
            if (lane & 15) + 2 < 16 { t + 2 } else { t },
            "down"
        );
        assert_eq!(o[192 + u], t ^ 1, "xor");
        assert_eq!(o[256 + u] as u32, 0xaaaa_aaaa, "ballot");
        let any = 1;
        let all = if warp == 0 { 2 } else { 0 };
        assert_eq!(
            o[320 + u],
            if warp == 0 { any + all } else { all },
            "any/all"
        );
        assert_eq!(o[384 + u], 32, "count");
        assert_eq!(o[448 + u], 3, "and/or");
        assert_eq!(o[512 + u], -1, "activemask");
    }
    let f = f32s(&b[1]);
    // width 8: lane 5 of each 8-lane segment.
    assert_eq!(f[9], ((9 & !7) + 5) as f32 * 0.5);
    let d: Vec<f64> = b[2]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(d[4], 5.0 * 0.25);
    assert_eq!(
        d[31],
        31.0 * 0.25,
        "down past the warp end keeps its own value"
    );
    let l = u64s(&b[3]);
    assert_eq!(l[6], (7u64 << 40) | 7, "64-bit values travel as two halves");
}

#[test]
fn bit_functions_match_rust() {
    let src = "__global__ void k(const unsigned *in, const unsigned long long *in64, int *o,\n\
        unsigned *uo, unsigned long long *lo) {\n\
        int t = threadIdx.x;\n\
        unsigned v = __ldg(in + t);\n\
        unsigned long long w = in64[t];\n\
        o[t * 6] = __popc(v); o[t * 6 + 1] = __clz((int)v); o[t * 6 + 2] = __ffs((int)v);\n\
        o[t * 6 + 3] = __popcll(w); o[t * 6 + 4] = __clzll((long long)w);\n\
        o[t * 6 + 5] = __ffsll((long long)w);\n\
        uo[t] = __brev(v); lo[t] = __brevll(w);\n\
        }";
    let inputs: [u32; 6] = [0, 1, 0x8000_0000, 0xdead_beef, 0x0001_0000, u32::MAX];
    let wide: [u64; 6] = [0, 1 << 63, 0x1234_5678_9abc_def0, 1, u64::MAX, 1 << 40];
    let b = run(
        src,
        "k",
        6,
        vec![
            KernelArg::Buffer(inputs.iter().flat_map(|x| x.to_le_bytes()).collect()),
            KernelArg::Buffer(wide.iter().flat_map(|x| x.to_le_bytes()).collect()),
            zeros(6 * 6 * 4),
            zeros(24),
            zeros(48),
        ],
    );
    let o = i32s(&b[2]);
    let ffs32 = |v: u32| {
        if v == 0 {
            0
        } else {
            v.trailing_zeros() as i32 + 1
        }
    };
    let ffs64 = |v: u64| {
        if v == 0 {
            0
        } else {
            v.trailing_zeros() as i32 + 1
        }
    };
    for (t, (&v, &w)) in inputs.iter().zip(&wide).enumerate() {
        let want = [
            v.count_ones() as i32,
            v.leading_zeros() as i32,
            ffs32(v),
            w.count_ones() as i32,
            w.leading_zeros() as i32,
            ffs64(w),
        ];
        assert_eq!(&o[t * 6..t * 6 + 6], &want, "input {t}: {v:#x} {w:#x}");
        assert_eq!(i32s(&b[3])[t] as u32, v.reverse_bits());
        assert_eq!(u64s(&b[4])[t], w.reverse_bits());
    }
}

#[test]
fn ldg_space_tests_and_cvta() {
    let src = "__device__ unsigned where(const void *p) {\n\
        return __isShared(p) + 2 * __isGlobal(p) + 4 * __isLocal(p) + 8 * __isConstant(p); }\n\
        __constant__ int c[2] = {4, 5};\n\
        __global__ void k(const int *in, unsigned *o) {\n\
        __shared__ int sh[4];\n\
        int loc[2];\n\
        loc[0] = 1;\n\
        size_t a = __cvta_generic_to_shared(&sh[2]);\n\
        int *back = (int *)__cvta_shared_to_generic(a);\n\
        *back = __ldg(in + 1) + loc[0];\n\
        o[0] = where(sh); o[1] = where(in); o[2] = where(loc); o[3] = where(c);\n\
        o[4] = sh[2]; o[5] = __isGlobal(in);\n\
        }";
    let b = run(
        src,
        "k",
        1,
        vec![
            KernelArg::Buffer([3i32, 41].iter().flat_map(|x| x.to_le_bytes()).collect()),
            zeros(24),
        ],
    );
    assert_eq!(i32s(&b[1]), [1, 2, 4, 8, 42, 1]);
    let text = ir_with(
        "__global__ void k(const float *p, float *o) { o[0] = __ldg(p); }",
        &Options::default(),
    );
    assert!(text.contains("invariant"), "{text}");
}

/// Units in the last place of `want` between two floats.
fn ulps(got: f32, want: f64) -> f64 {
    let w = want as f32;
    let ulp = f64::from(f32::from_bits(w.abs().to_bits() + 1)) - f64::from(w.abs());
    (f64::from(got) - want).abs() / ulp
}

#[test]
fn math_functions_are_accurate() {
    let src = "__global__ void k(const float *x, float *o) {\n\
        int t = threadIdx.x; float v = x[t]; int n = 16;\n\
        o[t * n] = sqrtf(fabsf(v)); o[t * n + 1] = expf(v); o[t * n + 2] = exp2f(v);\n\
        o[t * n + 3] = logf(fabsf(v)); o[t * n + 4] = tanhf(v); o[t * n + 5] = roundf(v);\n\
        o[t * n + 6] = floorf(v); o[t * n + 7] = ceilf(v); o[t * n + 8] = truncf(v);\n\
        o[t * n + 9] = fminf(v, 0.5f); o[t * n + 10] = fmaxf(v, 0.5f);\n\
        o[t * n + 11] = fmaf(v, 3.0f, 1.0f); o[t * n + 12] = sinf(v);\n\
        o[t * n + 13] = powf(v, 3.0f); o[t * n + 14] = rsqrtf(fabsf(v));\n\
        o[t * n + 15] = (float)sqrt((double)v * (double)v);\n\
        }";
    let xs: [f32; 10] = [
        0.3,
        -0.5,
        2.5,
        -2.5,
        0.499_999_97,
        1.0,
        -7.25,
        20.0,
        0.01,
        -60.0,
    ];
    let b = run(
        src,
        "k",
        xs.len() as u32,
        vec![f32_buffer(&xs), zeros(xs.len() * 16 * 4)],
    );
    let o = f32s(&b[1]);
    for (t, &x) in xs.iter().enumerate() {
        let r = &o[t * 16..t * 16 + 16];
        let xd = f64::from(x);
        assert_eq!(r[0], x.abs().sqrt(), "sqrtf({x}) is correctly rounded");
        assert!(ulps(r[1], xd.exp()) <= 3.0, "expf({x}) = {}", r[1]);
        assert!(ulps(r[2], xd.exp2()) <= 2.0, "exp2f({x})");
        assert!(
            (f64::from(r[3]) - xd.abs().ln()).abs() <= 1e-6 * xd.abs().ln().abs().max(1.0),
            "logf({x})"
        );
        assert!(ulps(r[4], xd.tanh()) <= 2.0, "tanhf({x}) = {}", r[4]);
        assert_eq!(r[5], x.round(), "roundf({x}): halfway cases away from zero");
        assert_eq!([r[6], r[7], r[8]], [x.floor(), x.ceil(), x.trunc()]);
        assert_eq!([r[9], r[10]], [x.min(0.5), x.max(0.5)]);
        assert_eq!(r[11], x.mul_add(3.0, 1.0));
        assert!(
            (f64::from(r[12]) - xd.sin()).abs() < 1e-5 || xd.abs() > 3.2,
            "sinf({x})"
        );
        assert!(ulps(r[13], xd.powi(3)) <= 64.0, "powf({x}, 3) = {}", r[13]);
        assert!(ulps(r[14], 1.0 / xd.abs().sqrt()) <= 2.0, "rsqrtf({x})");
        assert_eq!(r[15], x.abs());
    }
}

#[test]
fn math_overloads_and_diagnostics() {
    // C++'s float overloads of the plain names.
    let e = common::typed_expr("sqrt(f)");
    assert_eq!(e.ty, frontend::CType::FLOAT);
    assert_eq!(common::ty("fabs(d)"), frontend::CType::DOUBLE);
    assert_eq!(common::ty("expf(i)"), frontend::CType::FLOAT);
    // The double transcendental functions are the double overloads
    // (their accuracy is tested in tests/math_f64.rs).
    assert_eq!(common::ty("exp(d)"), frontend::CType::DOUBLE);
    assert_eq!(common::ty("pow(d, f)"), frontend::CType::DOUBLE);
    let err = errors("__global__ void k(float *p, int i) { p[0] = sqrt(i); }");
    assert!(err.contains("expected `float` or `double`"), "{err}");
    let err = errors("__global__ void k(float *p, double d) { p[0] = fmin(p[1], d); }");
    assert!(err.contains("all `float` or all `double`"), "{err}");
    let err = errors("__global__ void k(float *p) { p[0] = powf(p[1]); }");
    assert!(err.contains("`powf` takes 2 arguments, have 1"), "{err}");
}

#[test]
fn builtin_diagnostics() {
    let err = errors("__global__ void k(short *p) { atomicAdd(p, 1); }");
    assert!(err.contains("no matching overload of `atomicAdd`"), "{err}");
    assert!(err.contains("`unsigned long long *`"), "{err}");
    let err = errors("__global__ void k(const int *p) { atomicAdd(p, 1); }");
    assert!(err.contains("no matching overload"), "{err}");
    let err = errors("__global__ void k(float *p) { atomicInc(p, 1); }");
    assert!(err.contains("`unsigned int *`"), "{err}");
    let err = errors("__global__ void k(float *p) { __shfl_sync(0xffffffffu, p, 0); }");
    assert!(
        err.contains("no matching overload of `__shfl_sync`"),
        "{err}"
    );
    let err = errors("__global__ void k(int *p) { __ballot_sync(1); }");
    assert!(
        err.contains("`__ballot_sync` takes 2 arguments, have 1"),
        "{err}"
    );
    let err = errors("__global__ void k(int *p) { int x = __isShared(3); }");
    assert!(err.contains("must be a pointer"), "{err}");
    let err = errors("__global__ void k(int *p) { p[0] = __popc; }");
    assert!(err.contains("can only be called"), "{err}");
    let err = errors("__global__ void k(int *p) { __shfl(p[0], 1); }");
    assert!(
        err.contains("`__shfl` is not supported by kernelc yet"),
        "{err}"
    );
    let err = errors("__global__ void k(char4 *p, int *o) { o[0] = __dp4a(p[0], o[1], 0); }");
    assert!(err.contains("no `__dp4a` takes `char4` and `int`"), "{err}");
    let err = errors("__global__ void k(int *o) { o[0] = __dp4a(o[1], o[2]); }");
    assert!(err.contains("`__dp4a` takes 3 arguments, have 2"), "{err}");
    // Scopes and the default `__syncwarp` mask.
    let text = ir_with(
        "__global__ void k(int *p) { atomicAdd_block(p, 1); atomicOr_system(p, 2); __syncwarp(); }",
        &Options::default(),
    );
    assert!(text.contains("atomic_rmw add cta"), "{text}");
    assert!(text.contains("atomic_rmw or sys"), "{text}");
    assert!(text.contains("warp_sync"), "{text}");
}

#[test]
fn floating_point_options() {
    let src = "__global__ void k(float *p, double *d) {\n\
        p[0] = p[1] / p[2]; p[3] /= p[4]; d[0] = d[1] / d[2]; p[5] = expf(p[6]); }";
    let default = ir_with(src, &Options::default());
    assert!(!default.contains("fdiv_approx"), "{default}");
    assert!(
        default.contains("fma"),
        "accurate expf splits the product: {default}"
    );
    let approx = Options {
        prec_div: false,
        ..Options::default()
    };
    let text = ir_with(src, &approx);
    // nvcc's `div.full.f32` for `/` under -prec-div=false alone.
    assert_eq!(
        text.matches("fdiv_full").count(),
        2,
        "float `/` and `/=`: {text}"
    );
    assert!(!text.contains("fdiv_approx"), "{text}");
    assert!(
        text.contains("fdiv v"),
        "double division stays IEEE: {text}"
    );
    let fast = Options {
        fast_math: true,
        prec_div: false,
        ..Options::default()
    };
    let text = ir_with(src, &fast);
    assert!(
        !text.contains("fma"),
        "expf is __expf under fast math: {text}"
    );
    // nvcc's `div.approx.f32` for `/` under --use_fast_math.
    assert_eq!(
        text.matches("fdiv_approx").count(),
        2,
        "float `/` and `/=`: {text}"
    );
    assert!(!text.contains("fdiv_full"), "{text}");
}

/// `min`/`max`/`abs` resolve among CUDA's overloads as C++ does (checked
/// against nvcc 13.5: the mixed `int`/`unsigned` overloads are unsigned,
/// `float`/`double` is `double`, and calls no overload fits better than
/// another are ambiguous there too).
#[test]
fn device_function_overloads() {
    use frontend::CType;
    assert_eq!(common::ty("min(i, i)"), CType::INT);
    assert_eq!(common::ty("min(i, u)"), CType::UINT);
    assert_eq!(common::ty("max(u, i)"), CType::UINT);
    assert_eq!(common::ty("min(s, u)"), CType::UINT);
    assert_eq!(common::ty("min(c, c)"), CType::INT);
    assert_eq!(common::ty("max(ll, ull)"), CType::ULONG);
    assert_eq!(common::ty("min(f, f)"), CType::FLOAT);
    assert_eq!(common::ty("min(f, 1.0)"), CType::DOUBLE);
    assert_eq!(common::ty("max(d, f)"), CType::DOUBLE);
    assert_eq!(common::ty("abs(s)"), CType::INT);
    assert_eq!(common::ty("abs(b)"), CType::INT);
    assert_eq!(common::ty("abs(f)"), CType::FLOAT);
    assert_eq!(common::ty("abs(ll)"), CType::LONG);
    assert_eq!(common::ty("llabs(i)"), CType::LONG);
    assert_eq!(common::ty("__float_as_int(f)"), CType::INT);
    assert_eq!(common::ty("__double2loint(d)"), CType::INT);
    assert_eq!(common::ty("__ull2double_rz(ull)"), CType::DOUBLE);
    assert_eq!(common::ty("__float2uint_ru(f)"), CType::UINT);
    assert_eq!(common::ty("lroundf(f)"), CType::LONG);
    assert_eq!(common::ty("isnan(d)"), CType::INT);
    assert_eq!(common::ty("__umul64hi(ull, ull)"), CType::ULONG);
    assert_eq!(common::ty("__sad(i, i, u)"), CType::UINT);
    assert_eq!(common::ty("ldexp(d, i)"), CType::DOUBLE);
    assert_eq!(common::ty("frexpf(f, p)"), CType::FLOAT);
    assert_eq!(common::ty("fmod(f, f)"), CType::FLOAT);
    // The mixed `int`/`unsigned` overload converts the `int` argument.
    let e = common::typed_expr("min(i, u)");
    let frontend::typed::ExprKind::Intrinsic { args, .. } = &e.kind else {
        panic!("{e:?}");
    };
    assert!(common::is_cast(&args[0]) && args[0].ty == CType::UINT);

    for (call, want) in [
        (
            "min(i, ll)",
            "call to `min` with arguments of type `int`, `long` is ambiguous",
        ),
        ("min(f, 0)", "is ambiguous"),
        ("max(i, d)", "is ambiguous"),
        ("min(ul, i)", "is ambiguous"),
        (
            "abs(u)",
            "call to `abs` with arguments of type `unsigned int` is ambiguous",
        ),
        ("min(p, i)", "no matching overload of `min`"),
        ("min(i)", "`min` takes 2 arguments, have 1"),
        ("isnan(i)", "expected `float` or `double`"),
        (
            "frexpf(f, i)",
            "argument 2 of `frexpf` must be a pointer to `int`",
        ),
        (
            "__int2double_rz(i)",
            "use of undeclared identifier `__int2double_rz`",
        ),
    ] {
        let src = format!("__global__ void k({}) {{ {call}; }}", common::PARAMS);
        let err = errors(&src);
        assert!(err.contains(want), "{call}: {err}");
    }
    let err = errors(&format!(
        "__global__ void k({}) {{ min(f, 0); }}",
        common::PARAMS
    ));
    assert!(
        err.contains("`min(float, float)`") && err.contains("`min(int, int)`"),
        "{err}"
    );
}

/// `--use_fast_math` turns `tanf`, `log10f`, `exp10f` and `sincosf` into
/// their approximate `__` forms, as nvcc does, and leaves `double` alone.
#[test]
fn fast_math_uses_the_fast_intrinsics() {
    let src = "__global__ void k(float *p, double *d) {\n\
        p[0] = tanf(p[1]); p[2] = log10f(p[3]); p[4] = exp10f(p[5]);\n\
        sincosf(p[6], p + 7, p + 8); d[0] = tan(d[1]); }";
    let default = ir_with(src, &Options::default());
    // The accurate tanf and sincosf go through `double` (no `sin`); the
    // accurate log10f and exp10f are f32 sequences that use `lg2`/`ex2`
    // too, with `fma` corrections around them, so they are longer.
    assert!(
        !default.contains("= sin ") && default.contains("= fma "),
        "accurate forms by default: {default}"
    );
    let fast = Options {
        fast_math: true,
        prec_div: false,
        ..Options::default()
    };
    let text = ir_with(src, &fast);
    for op in ["= sin ", "= cos ", "= lg2 ", "= ex2 ", "fdiv_approx"] {
        assert!(text.contains(op), "{op} under fast math: {text}");
    }
    // tanf's and sincosf's sin and cos, and nothing for the double tan.
    assert_eq!(text.matches("= sin ").count(), 2, "{text}");
    assert!(text.lines().count() < default.lines().count(), "{text}");
}

/// `expf` over its whole range on the interpreter (whose `ex2` is exact):
/// within 2 ulp of the exact value wherever the result is normal, within
/// one unit of the smallest subnormal where it is subnormal, 0 below
/// about -103.97, infinity above about 88.72, and the IEEE special cases
/// (`expf(-inf) = 0`, `expf(inf) = inf`, NaN stays NaN, `expf(±0) = 1`).
#[test]
fn expf_is_accurate_over_its_whole_range() {
    let src = "__global__ void k(const float *x, float *o, int n) {\n\
        for (int i = threadIdx.x; i < n; i += blockDim.x) o[i] = expf(x[i]); }";
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        88.72283,
        88.72284,
        89.0,
        1e30,
        -1e30,
        -87.33654,
        -103.97,
        -103.98,
        -104.0,
        -150.0,
        1e-30,
        -1e-30,
        f32::MIN_POSITIVE,
    ];
    // A dense sweep of [-105, 90] and every binade of small arguments.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in 0..30_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let u = (state >> 40) as f32 / (1u64 << 24) as f32;
        xs.push(if i % 3 == 0 {
            let e = i % 60 - 50;
            (u + 1.0) * 2f32.powi(e) * if i % 2 == 0 { 1.0 } else { -1.0 }
        } else {
            -105.0 + 195.0 * u
        });
    }
    let n = xs.len();
    let b = run(
        src,
        "k",
        1024,
        vec![
            f32_buffer(&xs),
            zeros(n * 4),
            KernelArg::Scalar {
                ty: midend::ir::Type::I32,
                bits: n as u64,
            },
        ],
    );
    let o = f32s(&b[1]);
    let tiny = f64::from(f32::from_bits(1));
    for (&x, &got) in xs.iter().zip(&o) {
        let want = f64::from(x).exp();
        if x.is_nan() {
            assert!(got.is_nan(), "expf(NaN) = {got}");
        } else if want > f64::from(f32::MAX) * (1.0 + 2f64.powi(-25)) {
            assert_eq!(got, f32::INFINITY, "expf({x})");
        } else if want < f64::from(f32::MIN_POSITIVE) {
            assert!(
                (f64::from(got) - want).abs() <= tiny,
                "expf({x}) = {got:e}, want {want:e} (subnormal)"
            );
        } else {
            assert!(
                ulps(got, want) <= 2.0,
                "expf({x}) = {got:e}, want {want:e}: {} ulp",
                ulps(got, want)
            );
        }
    }
    assert_eq!(o[0], 1.0);
    assert_eq!(o[1], 1.0);
    assert_eq!(o[3], 0.0);
}
