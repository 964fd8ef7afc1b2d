//! CUDA's device functions outside the transcendental library (sema in
//! `frontend/src/sema/device_fns.rs`, lowering in
//! `frontend/src/lower/device_fns.rs` and `math.rs`): `min`/`max`/`abs`,
//! bit reinterpretation, conversions with a rounding mode, the integer
//! intrinsics, the class tests and `copysign`, `fdim`, `fmod`,
//! `remainder`, `ldexp`, `frexp`, `modf`.
//!
//! Every function here is exact, so each kernel runs on the IR
//! interpreter and on the PTX emulator, at -O0 and at -O3, the four runs
//! must give the same bits, and those bits must equal a reference computed
//! here in Rust from the definition (for the directed roundings: the
//! nearest float on the required side, found by exact comparisons). The
//! PTX goes through ptxas for sm_80 and sm_90 with both register modes,
//! and nvcc must compile the same source.

mod common;

use kernelc::backend_nvptx::{self, Target};
use kernelc::driver;
use kernelc::frontend;
use kernelc::midend::ir::{Module, Type};
use kernelc::run::SplitMix64;
use kir_interp::KernelArg;
use ptx_emu as emu;

const SOURCE: &str = r#"
extern "C" __global__ void ints(const int* a, const unsigned* u, const long long* l,
                                const unsigned long long* w, int* oi, unsigned* ou,
                                long long* ol, unsigned long long* ow, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[2 * i], y = a[2 * i + 1];
    unsigned p = u[3 * i], q = u[3 * i + 1], s = u[3 * i + 2];
    long long m = l[2 * i], k = l[2 * i + 1];
    unsigned long long v = w[2 * i], z = w[2 * i + 1];
    short h = (short)x;
    int* o = oi + 9 * i;
    o[0] = min(x, y); o[1] = max(x, y); o[2] = abs(x); o[3] = abs(h);
    o[4] = __mul24(x, y); o[5] = __mulhi(x, y); o[6] = __hadd(x, y); o[7] = __rhadd(x, y);
    o[8] = min(h, y);
    unsigned* r = ou + 16 * i;
    r[0] = min(x, p); r[1] = max(q, y); r[2] = umin(p, q); r[3] = umax(p, q);
    r[4] = __umul24(p, q); r[5] = __umulhi(p, q); r[6] = __uhadd(p, q); r[7] = __urhadd(p, q);
    r[8] = __sad(x, y, p); r[9] = __usad(p, q, s); r[10] = __byte_perm(p, q, s);
    r[11] = __funnelshift_l(p, q, s); r[12] = __funnelshift_lc(p, q, s);
    r[13] = __funnelshift_r(p, q, s); r[14] = __funnelshift_rc(p, q, s); r[15] = min(h, p);
    long long* t = ol + 6 * i;
    t[0] = min(m, k); t[1] = max(m, k); t[2] = llabs(m); t[3] = abs(m); t[4] = __mul64hi(m, k);
    t[5] = llmax(m, k);
    unsigned long long* b = ow + 5 * i;
    b[0] = min(m, v); b[1] = max(v, z); b[2] = ullmin(v, z); b[3] = __umul64hi(v, z);
    b[4] = ullmax(v, z);
}

extern "C" __global__ void floats(const float* fa, const double* da, const int* na,
                                  float* of, double* od, int* oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = fa[2 * i], y = fa[2 * i + 1];
    double p = da[2 * i], q = da[2 * i + 1];
    int e = na[i];
    float* f = of + 16 * i;
    f[0] = min(x, y); f[1] = max(x, y); f[2] = abs(x); f[3] = copysignf(x, y);
    f[4] = fdimf(x, y); f[5] = fmodf(x, y); f[6] = remainderf(x, y); f[7] = ldexpf(x, e);
    f[8] = __saturatef(x); f[9] = rintf(x); f[10] = nearbyintf(y); f[11] = scalbnf(y, -e);
    int ex;
    f[12] = frexpf(x, &ex);
    float ip;
    f[13] = modff(x, &ip);
    f[14] = ip;
    f[15] = __int_as_float(__float_as_int(x) ^ 1);
    double* d = od + 16 * i;
    d[0] = min(p, q); d[1] = max(x, q); d[2] = abs(p); d[3] = copysign(p, q);
    d[4] = fdim(p, q); d[5] = fmod(p, q); d[6] = remainder(p, q); d[7] = ldexp(p, 20 * e);
    d[8] = rint(p); d[9] = nearbyint(q); d[10] = scalbn(q, -20 * e);
    d[11] = frexp(p, oi + 8 * i + 7);
    d[12] = modf(p, d + 13);
    d[14] = __longlong_as_double(__double_as_longlong(p) ^ 1);
    d[15] = __hiloint2double(__double2hiint(q), __double2loint(p));
    int* c = oi + 8 * i;
    c[0] = isnan(x) + 2 * isinf(x) + 4 * isfinite(x) + 8 * signbit(x);
    c[1] = isnan(p) + 2 * isinf(p) + 4 * isfinite(p) + 8 * signbit(p);
    c[2] = ex;
    c[3] = __float_as_int(x);
    c[4] = (int)__float_as_uint(y);
    c[5] = __double2hiint(p);
    c[6] = __double2loint(p);
}

extern "C" __global__ void convert(const float* fa, const double* da, const long long* la,
                                   int* oi, unsigned* ou, long long* ol,
                                   unsigned long long* ow, float* of, double* od, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = fa[i];
    double p = da[i];
    long long m = la[i];
    int* a = oi + 8 * i;
    a[0] = __float2int_rn(x); a[1] = __float2int_rz(x); a[2] = __float2int_ru(x);
    a[3] = __float2int_rd(x); a[4] = __double2int_rn(p); a[5] = __double2int_rz(p);
    a[6] = __double2int_ru(p); a[7] = __double2int_rd(p);
    unsigned* b = ou + 8 * i;
    b[0] = __float2uint_rn(x); b[1] = __float2uint_rz(x); b[2] = __float2uint_ru(x);
    b[3] = __float2uint_rd(x); b[4] = __double2uint_rn(p); b[5] = __double2uint_rz(p);
    b[6] = __double2uint_ru(p); b[7] = __double2uint_rd(p);
    long long* c = ol + 12 * i;
    c[0] = __float2ll_rn(x); c[1] = __float2ll_rz(x); c[2] = __float2ll_ru(x);
    c[3] = __float2ll_rd(x); c[4] = __double2ll_rn(p); c[5] = __double2ll_rz(p);
    c[6] = __double2ll_ru(p); c[7] = __double2ll_rd(p);
    c[8] = lrintf(x); c[9] = llrintf(x); c[10] = lroundf(x); c[11] = llround(p);
    unsigned long long* d = ow + 8 * i;
    d[0] = __float2ull_rn(x); d[1] = __float2ull_rz(x); d[2] = __float2ull_ru(x);
    d[3] = __float2ull_rd(x); d[4] = __double2ull_rn(p); d[5] = __double2ull_rz(p);
    d[6] = __double2ull_ru(p); d[7] = __double2ull_rd(p);
    int k = (int)m;
    unsigned u = (unsigned)m;
    unsigned long long w = (unsigned long long)m;
    float* f = of + 24 * i;
    f[0] = __int2float_rn(k); f[1] = __int2float_rz(k); f[2] = __int2float_ru(k);
    f[3] = __int2float_rd(k); f[4] = __uint2float_rn(u); f[5] = __uint2float_rz(u);
    f[6] = __uint2float_ru(u); f[7] = __uint2float_rd(u); f[8] = __ll2float_rn(m);
    f[9] = __ll2float_rz(m); f[10] = __ll2float_ru(m); f[11] = __ll2float_rd(m);
    f[12] = __ull2float_rn(w); f[13] = __ull2float_rz(w); f[14] = __ull2float_ru(w);
    f[15] = __ull2float_rd(w); f[16] = __double2float_rn(p); f[17] = __double2float_rz(p);
    f[18] = __double2float_ru(p); f[19] = __double2float_rd(p);
    double* g = od + 10 * i;
    g[0] = __ll2double_rn(m); g[1] = __ll2double_rz(m); g[2] = __ll2double_ru(m);
    g[3] = __ll2double_rd(m); g[4] = __ull2double_rn(w); g[5] = __ull2double_rz(w);
    g[6] = __ull2double_ru(w); g[7] = __ull2double_rd(w); g[8] = __int2double_rn(k);
    g[9] = __uint2double_rn(u);
}
extern "C" __global__ void rounded(const float* fa, const double* da, float* of, double* od,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = fa[3 * i], b = fa[3 * i + 1], c = fa[3 * i + 2];
    double x = da[3 * i], y = da[3 * i + 1], z = da[3 * i + 2];
    float* f = of + 29 * i;
    f[0] = __fadd_rn(a, b); f[1] = __fadd_rz(a, b); f[2] = __fadd_ru(a, b); f[3] = __fadd_rd(a, b);
    f[4] = __fsub_rn(a, b); f[5] = __fsub_rz(a, b); f[6] = __fsub_ru(a, b); f[7] = __fsub_rd(a, b);
    f[8] = __fmul_rn(a, b); f[9] = __fmul_rz(a, b); f[10] = __fmul_ru(a, b); f[11] = __fmul_rd(a, b);
    f[12] = __fdiv_rn(a, b); f[13] = __fdiv_rz(a, b); f[14] = __fdiv_ru(a, b);
    f[15] = __fdiv_rd(a, b);
    f[16] = __fmaf_rn(a, b, c); f[17] = __fmaf_rz(a, b, c); f[18] = __fmaf_ru(a, b, c);
    f[19] = __fmaf_rd(a, b, c);
    f[20] = __frcp_rn(b); f[21] = __frcp_rz(b); f[22] = __frcp_ru(b); f[23] = __frcp_rd(b);
    f[24] = __fsqrt_rn(a); f[25] = __fsqrt_rz(a); f[26] = __fsqrt_ru(a); f[27] = __fsqrt_rd(a);
    f[28] = __frsqrt_rn(a);
    double* d = od + 28 * i;
    d[0] = __dadd_rn(x, y); d[1] = __dadd_rz(x, y); d[2] = __dadd_ru(x, y); d[3] = __dadd_rd(x, y);
    d[4] = __dsub_rn(x, y); d[5] = __dsub_rz(x, y); d[6] = __dsub_ru(x, y); d[7] = __dsub_rd(x, y);
    d[8] = __dmul_rn(x, y); d[9] = __dmul_rz(x, y); d[10] = __dmul_ru(x, y); d[11] = __dmul_rd(x, y);
    d[12] = __ddiv_rn(x, y); d[13] = __ddiv_rz(x, y); d[14] = __ddiv_ru(x, y);
    d[15] = __ddiv_rd(x, y);
    d[16] = __fma_rn(x, y, z); d[17] = __fma_rz(x, y, z); d[18] = __fma_ru(x, y, z);
    d[19] = __fma_rd(x, y, z);
    d[20] = __drcp_rn(y); d[21] = __drcp_rz(y); d[22] = __drcp_ru(y); d[23] = __drcp_rd(y);
    d[24] = __dsqrt_rn(x); d[25] = __dsqrt_rz(x); d[26] = __dsqrt_ru(x); d[27] = __dsqrt_rd(x);
}

extern "C" __global__ void nan_constants(float* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[4 * i] = NAN;
    o[4 * i + 1] = __int_as_float(0x7fffffff);
    o[4 * i + 2] = __int_as_float(0xffc00001);
    o[4 * i + 3] = NAN;
}
"#;

const BLOCK: u32 = 64;

/// The module and its PTX (sm_80, virtual registers) at `level`.
fn compile(level: u8) -> (Module, String) {
    let fe = driver::frontend_options(80, &[]);
    let program = frontend::check(SOURCE, &fe)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("d.cu", SOURCE, &d)));
    let mut module = frontend::lower(&program).expect("the kernels lower");
    common::optimize(&mut module, level).expect("the pipeline runs");
    let target = Target::parse("sm_80").unwrap();
    let ptx = backend_nvptx::compile_module(&module, &backend_nvptx::Options::new(target))
        .expect("the backend selects the kernels");
    (module, ptx)
}

/// Runs `kernel` on the interpreter and the emulator, at -O0 and -O3, with
/// the buffers `bufs` and `n` threads; all four runs must leave the same
/// bytes, which are returned.
fn run_all(kernel: &str, bufs: &[Vec<u8>], n: usize) -> Vec<Vec<u8>> {
    let grid = [(n as u32).div_ceil(BLOCK), 1, 1];
    let block = [BLOCK, 1, 1];
    let mut results = Vec::new();
    for level in [0, 3] {
        let (module, ptx) = compile(level);
        let mut iargs: Vec<KernelArg> = bufs.iter().map(|b| KernelArg::Buffer(b.clone())).collect();
        iargs.push(KernelArg::Scalar {
            ty: Type::I32,
            bits: n as u64,
        });
        let icfg = kir_interp::LaunchConfig {
            grid,
            block,
            ..kir_interp::LaunchConfig::default()
        };
        let out = kir_interp::run_kernel(&module, kernel, &iargs, &icfg)
            .unwrap_or_else(|e| panic!("{kernel} -O{level} on the interpreter: {e:?}"));
        results.push((format!("interpreter -O{level}"), out.buffers));
        let mut eargs: Vec<emu::KernelArg> = bufs
            .iter()
            .map(|b| emu::KernelArg::Buffer(b.clone()))
            .collect();
        eargs.push(emu::KernelArg::Scalar {
            bits: n as u64,
            bytes: 4,
            float: false,
            name: "int".into(),
        });
        let ecfg = emu::LaunchConfig {
            grid,
            block,
            ..emu::LaunchConfig::default()
        };
        let out = emu::run_ptx(&ptx, kernel, &eargs, &ecfg)
            .unwrap_or_else(|e| panic!("{kernel} -O{level} on the emulator: {e:?}"));
        results.push((format!("emulator -O{level}"), out.buffers));
    }
    let (first_name, first) = &results[0];
    for (name, other) in &results[1..] {
        for (j, (a, b)) in first.iter().zip(other).enumerate() {
            if a != b {
                let at = a
                    .as_ref()
                    .zip(b.as_ref())
                    .and_then(|(a, b)| a.iter().zip(b).position(|(x, y)| x != y));
                let show = |v: &Option<Vec<u8>>| {
                    at.map(|k| v.as_ref().unwrap()[k & !3..(k & !3) + 4].to_vec())
                };
                panic!(
                    "{kernel}: buffer {j} differs between {first_name} and {name} at byte {at:?}: \
                     {:x?} vs {:x?}",
                    show(a),
                    show(b)
                );
            }
        }
    }
    first
        .iter()
        .map(|b| b.clone().unwrap_or_default())
        .collect()
}

fn to_bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

fn words<T, const N: usize>(b: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
    b.chunks_exact(N)
        .map(|c| f(c.try_into().unwrap()))
        .collect()
}

/// Equal bits, or both NaN (PTX NaN results are canonical; the payload of
/// a NaN is not part of any function's contract here).
fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// PTX `min`/`max` on floats: a NaN operand yields the other, `-0 < +0`.
fn pick<T: PartialOrd + Copy>(x: T, y: T, x_neg: bool, nan: (bool, bool), max: bool) -> T {
    match nan {
        (true, _) => return y,
        (_, true) => return x,
        _ => {}
    }
    let x_first = if x == y { x_neg } else { x < y };
    if x_first != max {
        x
    } else {
        y
    }
}

fn fmin32(x: f32, y: f32, max: bool) -> f32 {
    pick(x, y, x.is_sign_negative(), (x.is_nan(), y.is_nan()), max)
}

fn fmin64(x: f64, y: f64, max: bool) -> f64 {
    pick(x, y, x.is_sign_negative(), (x.is_nan(), y.is_nan()), max)
}

#[test]
fn ptxas_and_nvcc_accept_the_device_functions() {
    for level in [0, 3] {
        let (module, _) = compile(level);
        common::assert_ptxas_accepts_module(&module, &format!("the device functions (-O{level})"));
    }
    common::assert_nvcc_accepts(SOURCE, "the device functions");
}

const INT_EDGES: [i32; 12] = [
    0,
    1,
    -1,
    2,
    -2,
    i32::MAX,
    i32::MIN,
    0x00ff_ffff,
    -0x0100_0000,
    0x0080_0000,
    12345,
    -98765,
];

#[test]
fn integer_functions_are_exact() {
    let mut rng = SplitMix64(7);
    let n = 512;
    let mut a = Vec::new();
    let mut u = Vec::new();
    let mut l = Vec::new();
    let mut w = Vec::new();
    for i in 0..n {
        let pick32 = |r: &mut SplitMix64, j: usize| {
            if (i + j).is_multiple_of(3) {
                INT_EDGES[(r.next_u64() % INT_EDGES.len() as u64) as usize]
            } else {
                r.next_u64() as i32 >> (r.next_u64() % 24)
            }
        };
        a.push(pick32(&mut rng, 0));
        a.push(pick32(&mut rng, 1));
        for j in 0..3 {
            u.push(pick32(&mut rng, j + 2) as u32);
        }
        // Shift amounts (third unsigned) cover 0..=40 often.
        if i % 2 == 0 {
            u[3 * i + 2] %= 41;
        }
        for _ in 0..2 {
            let v = rng.next_u64();
            let v = if i % 5 == 0 {
                [0, 1, u64::MAX, 1 << 63, (1 << 63) - 1][(v % 5) as usize]
            } else {
                v >> (rng.next_u64() % 40)
            };
            l.push(v as i64);
            w.push(v.rotate_left(17));
        }
    }
    let bufs = vec![
        to_bytes(&a, i32::to_le_bytes),
        to_bytes(&u, u32::to_le_bytes),
        to_bytes(&l, i64::to_le_bytes),
        to_bytes(&w, u64::to_le_bytes),
        vec![0; 4 * 9 * n],
        vec![0; 4 * 16 * n],
        vec![0; 8 * 6 * n],
        vec![0; 8 * 5 * n],
    ];
    let out = run_all("ints", &bufs, n);
    let oi = words(&out[4], i32::from_le_bytes);
    let ou = words(&out[5], u32::from_le_bytes);
    let ol = words(&out[6], i64::from_le_bytes);
    let ow = words(&out[7], u64::from_le_bytes);
    for i in 0..n {
        let (x, y) = (a[2 * i], a[2 * i + 1]);
        let (p, q, s) = (u[3 * i], u[3 * i + 1], u[3 * i + 2]);
        let (m, k) = (l[2 * i], l[2 * i + 1]);
        let (v, z) = (w[2 * i], w[2 * i + 1]);
        let h = x as i16;
        let s24 = |t: i32| (t << 8) >> 8;
        let want_i = [
            x.min(y),
            x.max(y),
            x.wrapping_abs(),
            i32::from(h).abs(),
            s24(x).wrapping_mul(s24(y)),
            ((i64::from(x) * i64::from(y)) >> 32) as i32,
            ((i64::from(x) + i64::from(y)) >> 1) as i32,
            ((i64::from(x) + i64::from(y) + 1) >> 1) as i32,
            i32::from(h).min(y),
        ];
        assert_eq!(
            &oi[9 * i..9 * i + 9],
            &want_i,
            "int results for x={x} y={y}"
        );
        let bytes = (u64::from(q) << 32) | u64::from(p);
        let byte_perm = (0..4).fold(0u32, |acc, b| {
            let sel = (s >> (4 * b)) & 7;
            acc | ((((bytes >> (8 * sel)) & 0xff) as u32) << (8 * b))
        });
        let funnel = |left: bool, clamp: bool| {
            let amount = if clamp { s.min(32) } else { s & 31 };
            let joined = (u64::from(q) << 32) | u64::from(p);
            if left {
                ((joined << amount) >> 32) as u32
            } else {
                (joined >> amount) as u32
            }
        };
        let want_u = [
            (x as u32).min(p),
            q.max(y as u32),
            p.min(q),
            p.max(q),
            (p & 0xff_ffff).wrapping_mul(q & 0xff_ffff),
            ((u64::from(p) * u64::from(q)) >> 32) as u32,
            ((u64::from(p) + u64::from(q)) >> 1) as u32,
            ((u64::from(p) + u64::from(q) + 1) >> 1) as u32,
            (x.max(y) as u32)
                .wrapping_sub(x.min(y) as u32)
                .wrapping_add(p),
            p.abs_diff(q).wrapping_add(s),
            byte_perm,
            funnel(true, false),
            funnel(true, true),
            funnel(false, false),
            funnel(false, true),
            (i32::from(h) as u32).min(p),
        ];
        assert_eq!(
            &ou[16 * i..16 * i + 16],
            &want_u,
            "unsigned results for x={x} y={y} p={p:#x} q={q:#x} s={s:#x}"
        );
        let want_l = [
            m.min(k),
            m.max(k),
            m.wrapping_abs(),
            m.wrapping_abs(),
            ((i128::from(m) * i128::from(k)) >> 64) as i64,
            m.max(k),
        ];
        assert_eq!(
            &ol[6 * i..6 * i + 6],
            &want_l,
            "long long results for {m} {k}"
        );
        let want_w = [
            (m as u64).min(v),
            v.max(z),
            v.min(z),
            ((u128::from(v) * u128::from(z)) >> 64) as u64,
            v.max(z),
        ];
        assert_eq!(
            &ow[5 * i..5 * i + 5],
            &want_w,
            "unsigned long long results for {v} {z}"
        );
    }
}

const F32_SPECIALS: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.5,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MIN_POSITIVE,
    1e-45,
    -3e-39,
    f32::MAX,
    f32::MIN,
    16_777_217.0,
];

const F64_SPECIALS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.5,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    5e-324,
    -3e-310,
    f64::MAX,
    f64::MIN,
    9_007_199_254_740_993.0,
];

/// A random float: every binade of the type, both signs, and now and
/// then a special value or a small integer plus a half.
fn rand_f32(r: &mut SplitMix64) -> f32 {
    match r.next_u64() % 8 {
        0 => F32_SPECIALS[(r.next_u64() % 16) as usize],
        1 => (r.next_u64() % 64) as f32 * 0.5 - 16.0,
        _ => {
            // Random bits, an exponent of all ones (inf, NaN) made finite.
            let v = f32::from_bits(r.next_u64() as u32);
            if v.is_finite() {
                v
            } else {
                f32::from_bits(v.to_bits() & 0xbfff_ffff)
            }
        }
    }
}

fn rand_f64(r: &mut SplitMix64) -> f64 {
    match r.next_u64() % 8 {
        0 => F64_SPECIALS[(r.next_u64() % 16) as usize],
        1 => (r.next_u64() % 64) as f64 * 0.5 - 16.0,
        2 => f64::from(rand_f32(r)),
        _ => {
            let v = f64::from_bits(r.next_u64());
            if v.is_finite() {
                v
            } else {
                f64::from_bits(v.to_bits() & 0xbfff_ffff_ffff_ffff)
            }
        }
    }
}

/// `x·2^n`, rounded once to nearest even: from the integer significand,
/// shifting right with explicit rounding when the result is subnormal.
fn ldexp64(x: f64, n: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i64;
    let (mut m, mut e) = if field == 0 {
        (bits & ((1 << 52) - 1), -1074i64)
    } else {
        ((bits & ((1 << 52) - 1)) | (1 << 52), field - 1075)
    };
    // Normalize so the top bit is bit 52.
    while m < (1 << 52) {
        m <<= 1;
        e -= 1;
    }
    let e = e + i64::from(n);
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    if e > 1023 - 52 {
        return sign * f64::INFINITY;
    }
    if e >= -1074 {
        let top = e + 52; // exponent of the leading bit
        if top >= -1022 {
            let b = ((top + 1023) as u64) << 52 | (m & ((1 << 52) - 1));
            return sign * f64::from_bits(b);
        }
        return sign * f64::from_bits(m << (e + 1074));
    }
    // Subnormal: keep m >> shift, rounded to nearest even.
    let shift = (-1074 - e) as u32;
    if shift > 54 {
        return sign * 0.0;
    }
    let kept = m >> shift;
    let rest = m & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    let up = rest > half || (rest == half && kept & 1 == 1);
    sign * f64::from_bits(kept + u64::from(up))
}

/// C's `frexp`: the fraction in `[0.5, 1)` and the exponent (0 for zeros
/// and non-finite values), by exact scaling with powers of two.
fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let mut e = 0;
    let mut m = x;
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

/// IEEE `remainder`: `x - n·y` with `n` the integer nearest `x/y`, ties
/// to even. From `fmod` (exact in Rust): past `|y|/2` subtract `|y|`; at
/// exactly `|y|/2` the parity of the quotient decides, which is whether
/// `fmod(|x|, 2|y|)` reaches `|y|`.
fn remainder64(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || y == 0.0 || x.is_infinite() {
        return f64::NAN;
    }
    if y.is_infinite() {
        return x;
    }
    let (ax, ay) = (x.abs(), y.abs());
    let r = ax % ay;
    let twice = 2.0 * r;
    let odd = {
        let y2 = 2.0 * ay;
        y2.is_finite() && ax % y2 >= ay
    };
    let mag = if twice > ay || (twice == ay && odd) {
        r - ay
    } else {
        r
    };
    if x.is_sign_negative() {
        -mag
    } else {
        mag
    }
}

fn modf64(x: f64) -> (f64, f64) {
    let i = x.trunc();
    let f = if x.is_infinite() { 0.0 } else { x - i };
    (f.copysign(x), i)
}

fn class(nan: bool, inf: bool, finite: bool, sign: bool) -> i32 {
    i32::from(nan) + 2 * i32::from(inf) + 4 * i32::from(finite) + 8 * i32::from(sign)
}

#[test]
fn float_functions_are_exact() {
    let mut rng = SplitMix64(11);
    let n = 2048;
    let mut fa = Vec::new();
    let mut da = Vec::new();
    let mut na = Vec::new();
    for i in 0..n {
        // Every pair of specials first, then random pairs.
        let (x, y) = if i < 256 {
            (F32_SPECIALS[i % 16], F32_SPECIALS[i / 16])
        } else {
            (rand_f32(&mut rng), rand_f32(&mut rng))
        };
        let (p, q) = if i < 256 {
            (F64_SPECIALS[i % 16], F64_SPECIALS[i / 16])
        } else if i % 4 == 0 {
            // Nearby magnitudes: quotients near integers and halves.
            let q = rand_f64(&mut rng);
            (q * ((rng.next_u64() % 41) as f64 * 0.5 - 10.0), q)
        } else {
            (rand_f64(&mut rng), rand_f64(&mut rng))
        };
        fa.extend([x, y]);
        da.extend([p, q]);
        na.push(((rng.next_u64() % 601) as i32) - 300);
    }
    let bufs = vec![
        to_bytes(&fa, f32::to_le_bytes),
        to_bytes(&da, f64::to_le_bytes),
        to_bytes(&na, i32::to_le_bytes),
        vec![0; 4 * 16 * n],
        vec![0; 8 * 16 * n],
        vec![0; 4 * 8 * n],
    ];
    let out = run_all("floats", &bufs, n);
    let of = words(&out[3], f32::from_le_bytes);
    let od = words(&out[4], f64::from_le_bytes);
    let oi = words(&out[5], i32::from_le_bytes);
    for i in 0..n {
        let (x, y) = (fa[2 * i], fa[2 * i + 1]);
        let (p, q) = (da[2 * i], da[2 * i + 1]);
        let e = na[i];
        let wide = |v: f64| v as f32;
        let ldexp32 = |v: f32, k: i32| wide(ldexp64(f64::from(v), k));
        let (fr, ex) = frexp64(f64::from(x));
        let (mf, mi) = modf64(f64::from(x));
        let want_f = [
            fmin32(x, y, false),
            fmin32(x, y, true),
            x.abs(),
            x.copysign(y),
            if x <= y { 0.0 } else { x - y },
            x % y,
            wide(remainder64(f64::from(x), f64::from(y))),
            ldexp32(x, e),
            if x.is_nan() || x <= 0.0 {
                0.0
            } else {
                x.min(1.0)
            },
            x.round_ties_even(),
            y.round_ties_even(),
            ldexp32(y, -e),
            wide(fr),
            wide(mf),
            wide(mi),
            f32::from_bits(x.to_bits() ^ 1),
        ];
        for (j, w) in want_f.iter().enumerate() {
            let got = of[16 * i + j];
            assert!(
                same32(got, *w),
                "float result {j} for x={x:e} y={y:e} e={e}: got {got:e}, want {w:e}"
            );
        }
        let (fr, ex64) = frexp64(p);
        let (mf, mi) = modf64(p);
        let want_d = [
            fmin64(p, q, false),
            fmin64(f64::from(x), q, true),
            p.abs(),
            p.copysign(q),
            if p <= q { 0.0 } else { p - q },
            p % q,
            remainder64(p, q),
            ldexp64(p, 20 * e),
            p.round_ties_even(),
            q.round_ties_even(),
            ldexp64(q, -20 * e),
            fr,
            mf,
            mi,
            f64::from_bits(p.to_bits() ^ 1),
            f64::from_bits((q.to_bits() & !0xffff_ffff) | (p.to_bits() & 0xffff_ffff)),
        ];
        for (j, w) in want_d.iter().enumerate() {
            let got = od[16 * i + j];
            assert!(
                same64(got, *w),
                "double result {j} for p={p:e} q={q:e} e={e}: got {got:e}, want {w:e}"
            );
        }
        let want_i = [
            class(
                x.is_nan(),
                x.is_infinite(),
                x.is_finite(),
                x.is_sign_negative(),
            ),
            class(
                p.is_nan(),
                p.is_infinite(),
                p.is_finite(),
                p.is_sign_negative(),
            ),
            ex,
            x.to_bits() as i32,
            y.to_bits() as i32,
            (p.to_bits() >> 32) as i32,
            p.to_bits() as i32,
            ex64,
        ];
        assert_eq!(
            &oi[8 * i..8 * i + 8],
            &want_i,
            "int results for x={x:e} p={p:e}"
        );
    }
}

/// What [`directed`] needs of a float type: its neighbours and infinities.
trait Neighbours: Copy + PartialOrd {
    const INF: Self;
    const NEG_INF: Self;
    const ZERO: Self;
    fn below(self) -> Self;
    fn above(self) -> Self;
    fn nan(self) -> bool;
}

impl Neighbours for f32 {
    const INF: f32 = f32::INFINITY;
    const NEG_INF: f32 = f32::NEG_INFINITY;
    const ZERO: f32 = 0.0;
    fn below(self) -> f32 {
        self.next_down()
    }
    fn above(self) -> f32 {
        self.next_up()
    }
    fn nan(self) -> bool {
        self.is_nan()
    }
}

impl Neighbours for f64 {
    const INF: f64 = f64::INFINITY;
    const NEG_INF: f64 = f64::NEG_INFINITY;
    const ZERO: f64 = 0.0;
    fn below(self) -> f64 {
        self.next_down()
    }
    fn above(self) -> f64 {
        self.next_up()
    }
    fn nan(self) -> bool {
        self.is_nan()
    }
}

/// The float nearest `exact` on the side `mode` asks for ("rz", "ru",
/// "rd"; "rn" is Rust's own conversion), chosen among the three
/// neighbours of the nearest float by comparing exactly with `cmp`
/// (negative: the float is below the exact value).
fn directed<T: Neighbours>(nearest: T, mode: &str, cmp: impl Fn(T) -> std::cmp::Ordering) -> T {
    use std::cmp::Ordering::*;
    if nearest.nan() {
        return nearest;
    }
    let cands = [nearest.below(), nearest, nearest.above()];
    let mut below = T::NEG_INF;
    let mut above = T::INF;
    for c in cands {
        if cmp(c) != Greater && c > below {
            below = c;
        }
        if cmp(c) != Less && c < above {
            above = c;
        }
    }
    match mode {
        "rn" => nearest,
        "ru" => above,
        "rd" => below,
        _ => {
            if cmp(T::ZERO) == Less {
                below
            } else {
                above
            }
        }
    }
}

/// Exact comparison of a float (integral when it is compared with an
/// integer, or huge) with the integer `x`.
fn cmp_int(c: f64, x: i128) -> std::cmp::Ordering {
    if c.is_infinite() {
        return if c > 0.0 {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Less
        };
    }
    // |c| < 2^65 here: the neighbours of integers up to 2^64.
    let i = c.trunc() as i128;
    i.cmp(&x).then(if c.fract() > 0.0 {
        std::cmp::Ordering::Greater
    } else if c.fract() < 0.0 {
        std::cmp::Ordering::Less
    } else {
        std::cmp::Ordering::Equal
    })
}

#[test]
fn conversions_round_as_asked() {
    let mut rng = SplitMix64(23);
    let n = 1024;
    let mut fa = Vec::new();
    let mut da = Vec::new();
    let mut la = Vec::new();
    let long_edges = [
        0,
        1,
        -1,
        i64::MAX,
        i64::MIN,
        i64::from(i32::MAX),
        i64::from(i32::MIN),
        (1 << 24) + 1,
        (1 << 53) + 1,
        -(1 << 53) - 3,
        u32::MAX as i64,
        -(1 << 40) - 1,
    ];
    for i in 0..n {
        let x = if i < 16 {
            F32_SPECIALS[i]
        } else {
            match rng.next_u64() % 4 {
                0 => (rng.next_u64() % 200) as f32 * 0.25 - 25.0,
                1 => f32::from_bits(rng.next_u64() as u32 & 0xdfff_ffff),
                _ => (rng.next_u64() as i64 >> (rng.next_u64() % 64)) as f32 * 1.37,
            }
        };
        let p = if i < 16 {
            F64_SPECIALS[i]
        } else {
            match rng.next_u64() % 4 {
                0 => (rng.next_u64() % 200) as f64 * 0.25 - 25.0,
                1 => f64::from_bits(rng.next_u64() & 0xc7ff_ffff_ffff_ffff),
                2 => f64::from(f32::from_bits(rng.next_u64() as u32)) * (1.0 + 1e-12),
                _ => (rng.next_u64() as i64 >> (rng.next_u64() % 64)) as f64 * 1.37,
            }
        };
        let m = if i % 4 == 0 {
            long_edges[(i / 4) % long_edges.len()]
        } else {
            rng.next_u64() as i64 >> (rng.next_u64() % 64)
        };
        fa.push(x);
        da.push(p);
        la.push(m);
    }
    let bufs = vec![
        to_bytes(&fa, f32::to_le_bytes),
        to_bytes(&da, f64::to_le_bytes),
        to_bytes(&la, i64::to_le_bytes),
        vec![0; 4 * 8 * n],
        vec![0; 4 * 8 * n],
        vec![0; 8 * 12 * n],
        vec![0; 8 * 8 * n],
        vec![0; 4 * 24 * n],
        vec![0; 8 * 10 * n],
    ];
    let out = run_all("convert", &bufs, n);
    let oi = words(&out[3], i32::from_le_bytes);
    let ou = words(&out[4], u32::from_le_bytes);
    let ol = words(&out[5], i64::from_le_bytes);
    let ow = words(&out[6], u64::from_le_bytes);
    let of = words(&out[7], f32::from_le_bytes);
    let od = words(&out[8], f64::from_le_bytes);
    // Rust's `as` saturates and maps NaN to 0, like PTX `cvt`.
    let rounded = |v: f64| [v.round_ties_even(), v.trunc(), v.ceil(), v.floor()];
    for i in 0..n {
        let (x, p, m) = (fa[i], da[i], la[i]);
        let rx = rounded(f64::from(x));
        let rp = rounded(p);
        let want_i: Vec<i32> = rx.iter().chain(&rp).map(|&v| v as i32).collect();
        assert_eq!(
            &oi[8 * i..8 * i + 8],
            &want_i[..],
            "to int: x={x:e} p={p:e}"
        );
        let want_u: Vec<u32> = rx.iter().chain(&rp).map(|&v| v as u32).collect();
        assert_eq!(
            &ou[8 * i..8 * i + 8],
            &want_u[..],
            "to unsigned: x={x:e} p={p:e}"
        );
        let mut want_l: Vec<i64> = rx.iter().chain(&rp).map(|&v| v as i64).collect();
        want_l.extend([
            x.round_ties_even() as i64,
            x.round_ties_even() as i64,
            x.round() as i64,
            p.round() as i64,
        ]);
        assert_eq!(
            &ol[12 * i..12 * i + 12],
            &want_l[..],
            "to long long: x={x:e} p={p:e}"
        );
        let want_w: Vec<u64> = rx.iter().chain(&rp).map(|&v| v as u64).collect();
        assert_eq!(
            &ow[8 * i..8 * i + 8],
            &want_w[..],
            "to unsigned long long: x={x:e} p={p:e}"
        );

        let (k, u, w) = (m as i32, m as u32, m as u64);
        let modes = ["rn", "rz", "ru", "rd"];
        let mut want_f = Vec::new();
        for (src, near) in [
            (i128::from(k), k as f32),
            (i128::from(u), u as f32),
            (i128::from(m), m as f32),
            (i128::from(w), w as f32),
        ] {
            for mode in modes {
                want_f.push(directed(near, mode, |c| cmp_int(f64::from(c), src)));
            }
        }
        for mode in modes {
            want_f.push(directed(p as f32, mode, |c| {
                f64::from(c)
                    .partial_cmp(&p)
                    .unwrap_or(std::cmp::Ordering::Equal)
            }));
        }
        for (j, want) in want_f.iter().enumerate() {
            let got = of[24 * i + j];
            assert!(
                same32(got, *want),
                "to float {j} ({}): m={m} p={p:e}: got {got:e}, want {want:e}",
                modes[j % 4]
            );
        }
        let mut want_d = Vec::new();
        for (src, near) in [(i128::from(m), m as f64), (i128::from(w), w as f64)] {
            for mode in modes {
                want_d.push(directed(near, mode, |c| cmp_int(c, src)));
            }
        }
        want_d.extend([f64::from(k), f64::from(u)]);
        for (j, want) in want_d.iter().enumerate() {
            let got = od[10 * i + j];
            assert!(
                same64(got, *want),
                "to double {j}: m={m}: got {got:e}, want {want:e}"
            );
        }
    }
}

/// `a + b = s + e` exactly (Knuth's TwoSum; no overflow).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// How the candidate `c` compares with the exact `s + e` (`s` the nearest
/// double to the exact value, `c` one of its neighbours or itself, so
/// `c - s` is exact).
fn against(c: f64, s: f64, e: f64) -> std::cmp::Ordering {
    if c.is_infinite() {
        return if c > 0.0 {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Less
        };
    }
    (c - s).partial_cmp(&e).unwrap()
}

/// The directed result, with IEEE's sign for an exact zero sum: `-0`
/// when rounding down unless both addends are `+0`.
fn zero_sum_sign(r: f64, mode: &str, addends: (f64, f64), exact_zero: bool) -> f64 {
    let plus = |v: f64| v == 0.0 && v.is_sign_positive();
    if exact_zero && mode == "rd" && !(plus(addends.0) && plus(addends.1)) {
        -0.0
    } else {
        r
    }
}

#[test]
fn explicitly_rounded_arithmetic_is_correctly_rounded() {
    use std::cmp::Ordering;
    let mut rng = SplitMix64(31);
    let n = 1024;
    let mut fa = Vec::new();
    let mut da = Vec::new();
    // Doubles whose products and quotients stay clear of underflow and
    // overflow, so that the error terms below are exact; 26-bit ones for
    // `fma`'s factors make `a·b` exact too.
    let moderate = |r: &mut SplitMix64| {
        let m = 1.0 + (r.next_u64() >> 12) as f64 / (1u64 << 52) as f64;
        let e = (r.next_u64() % 400) as i32 - 200;
        let s = if r.next_u64().is_multiple_of(2) {
            1.0
        } else {
            -1.0
        };
        s * m * 2f64.powi(e)
    };
    let edges32 = [
        (1.0, 3.0, 0.0),
        (-1.0, 3.0, 1.0),
        (1.0, 2e-30, 0.0),
        (f32::MAX, 2.0, -f32::MAX),
        (-f32::MAX, f32::MAX, 1.0),
        (1e-30, 1e-30, -1e-45),
        (2.0, 0.0, 0.0),
        (-0.0, 0.0, -0.0),
        (1.0, -1.0, 1.0),
        (2.0, 3.0, -6.0),
        (f32::INFINITY, 2.0, 1.0),
        (f32::NAN, 1.0, 1.0),
        (5e-39, 3.0, 7e-45),
        (0.0, -0.0, 0.0),
    ];
    for i in 0..n {
        let (a, b, c) = if i < edges32.len() {
            edges32[i]
        } else {
            let v = |r: &mut SplitMix64| {
                let x = f32::from_bits(r.next_u64() as u32);
                if x.is_finite() {
                    x
                } else {
                    1.5
                }
            };
            let a = v(&mut rng);
            // Same-magnitude operands now and then (cancellation, ties).
            let b = if i % 3 == 0 {
                -a * (1.0 + (i % 7) as f32 * 2f32.powi(-23))
            } else {
                v(&mut rng)
            };
            (a, b, v(&mut rng))
        };
        fa.extend([a, b, c]);
        let (x, y, z) = match i {
            0 => (1.0, 3.0, 0.0),
            1 => (f64::MAX, 2.0, 0.0),
            2 => (1.0, -1.0, 1.0),
            3 => (-0.0, 0.0, -0.0),
            4 => (2.0, 3.0, -6.0),
            5 => (f64::INFINITY, 0.5, 1.0),
            _ => {
                let x = moderate(&mut rng);
                let y = if i % 3 == 0 {
                    -x * (1.0 + (i % 5) as f64 * f64::EPSILON)
                } else {
                    moderate(&mut rng)
                };
                (
                    x,
                    y,
                    if i % 2 == 0 {
                        0.0
                    } else {
                        moderate(&mut rng) * 1e-10
                    },
                )
            }
        };
        da.extend([x, y, z]);
    }
    let bufs = vec![
        to_bytes(&fa, f32::to_le_bytes),
        to_bytes(&da, f64::to_le_bytes),
        vec![0; 4 * 29 * n],
        vec![0; 8 * 28 * n],
    ];
    let out = run_all("rounded", &bufs, n);
    let of = words(&out[2], f32::from_le_bytes);
    let od = words(&out[3], f64::from_le_bytes);
    let modes = ["rn", "rz", "ru", "rd"];
    for i in 0..n {
        let (a, b, c) = (fa[3 * i], fa[3 * i + 1], fa[3 * i + 2]);
        let (wa, wb, wc) = (f64::from(a), f64::from(b), f64::from(c));
        let mut want: Vec<f32> = Vec::new();
        // add, sub: exact sum as a TwoSum pair in f64.
        for (p, q, near) in [(wa, wb, a + b), (wa, -wb, a - b)] {
            let (s, e) = two_sum(p, q);
            for m in modes {
                if !(p.is_finite() && q.is_finite()) {
                    want.push(near);
                    continue;
                }
                let r = directed(near, m, |cand| against(f64::from(cand), s, e));
                want.push(zero_sum_sign(f64::from(r), m, (p, q), s == 0.0 && e == 0.0) as f32);
            }
        }
        // mul: exact in f64.
        let p = wa * wb;
        for m in modes {
            want.push(directed(a * b, m, |cand| {
                f64::from(cand).partial_cmp(&p).unwrap_or(Ordering::Equal)
            }));
        }
        // div: sign(cand·b - a)·sign(b), cand·b exact in f64.
        let div = |num: f64, den: f64, near: f32, m: &str| {
            if den == 0.0 || num.is_infinite() || den.is_infinite() {
                return near;
            }
            directed(near, m, |cand| {
                let o = (f64::from(cand) * den)
                    .partial_cmp(&num)
                    .unwrap_or(Ordering::Equal);
                if den < 0.0 {
                    o.reverse()
                } else {
                    o
                }
            })
        };
        for m in modes {
            want.push(div(wa, wb, a / b, m));
        }
        // fma: a·b exact in f64, then TwoSum with c.
        let (s, e) = two_sum(p, wc);
        let fma_near = a.mul_add(b, c);
        for m in modes {
            let r = if !p.is_finite() || !wc.is_finite() {
                fma_near
            } else {
                directed(fma_near, m, |cand| against(f64::from(cand), s, e))
            };
            want.push(zero_sum_sign(f64::from(r), m, (p, wc), s == 0.0 && e == 0.0) as f32);
        }
        for m in modes {
            want.push(div(1.0, wb, 1.0 / b, m));
        }
        // sqrt: cand² exact in f64.
        for m in modes {
            let near = a.sqrt();
            want.push(if a <= 0.0 || !a.is_finite() {
                near
            } else {
                directed(near, m, |cand| {
                    (f64::from(cand) * f64::from(cand))
                        .partial_cmp(&wa)
                        .unwrap()
                })
            });
        }
        // rsqrt, to nearest: the midpoints around the f64 estimate decide,
        // by the exact sign of m²·a - 1.
        let y0 = (1.0 / wa.sqrt()) as f32;
        let rs = if a > 0.0 && a.is_finite() {
            let mid = |u: f32, v: f32| (f64::from(u) + f64::from(v)) / 2.0;
            let past = |m: f64| (m * m).mul_add(wa, -1.0);
            if past(mid(y0, y0.next_up())) < 0.0 {
                y0.next_up()
            } else if past(mid(y0, y0.next_down())) > 0.0 {
                y0.next_down()
            } else {
                y0
            }
        } else {
            y0
        };
        want.push(rs);
        for (j, w) in want.iter().enumerate() {
            let got = of[29 * i + j];
            assert!(
                same32(got, *w),
                "float op {j} (mode {}) on a={a:e} b={b:e} c={c:e}: got {got:e} ({:#x}), want {w:e} ({:#x})",
                modes[j % 4],
                got.to_bits(),
                w.to_bits()
            );
        }

        let (x, y, z) = (da[3 * i], da[3 * i + 1], da[3 * i + 2]);
        let mut want: Vec<f64> = Vec::new();
        for (p, q) in [(x, y), (x, -y)] {
            let (s, e) = two_sum(p, q);
            for m in modes {
                let r = if !s.is_finite() && p.is_finite() && q.is_finite() {
                    // Overflow: the exact sum is beyond every finite double.
                    directed(s, m, |cand| {
                        if cand.is_infinite() {
                            cand.partial_cmp(&0.0).unwrap()
                        } else if s > 0.0 {
                            Ordering::Less
                        } else {
                            Ordering::Greater
                        }
                    })
                } else if !s.is_finite() {
                    s
                } else {
                    directed(s, m, |cand| against(cand, s, e))
                };
                want.push(zero_sum_sign(r, m, (p, q), s == 0.0 && e == 0.0));
            }
        }
        let prod = |p: f64, q: f64, m: &str| {
            let near = p * q;
            if !near.is_finite() {
                if !p.is_finite() || !q.is_finite() {
                    return near;
                }
                return directed(near, m, |cand| {
                    if cand.is_infinite() {
                        cand.partial_cmp(&0.0).unwrap()
                    } else if near > 0.0 {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    }
                });
            }
            let err = p.mul_add(q, -near);
            directed(near, m, |cand| against(cand, near, err))
        };
        for m in modes {
            want.push(prod(x, y, m));
        }
        let quot = |p: f64, q: f64, m: &str| {
            let near = p / q;
            if !near.is_finite() || q == 0.0 || !p.is_finite() {
                return near;
            }
            directed(near, m, |cand| {
                // sign(cand·q - p)·sign(q): cand·q = t + te exactly.
                let t = cand * q;
                let te = cand.mul_add(q, -t);
                let o = if t.is_infinite() {
                    // |cand·q| is past every double, so past |p|.
                    t.partial_cmp(&0.0).unwrap()
                } else {
                    (t - p).partial_cmp(&-te).unwrap()
                };
                if q < 0.0 {
                    o.reverse()
                } else {
                    o
                }
            })
        };
        for m in modes {
            want.push(quot(x, y, m));
        }
        let fma_near = x.mul_add(y, z);
        for m in modes {
            let r = if z == 0.0 && x.is_finite() && y.is_finite() {
                // fma(x, y, 0) rounds x·y once: the product's reference
                // (a zero product keeps fma's own zero sign).
                let r = prod(x, y, m);
                if r == 0.0 {
                    fma_near
                } else {
                    r
                }
            } else if !fma_near.is_finite() {
                fma_near
            } else {
                // Factors with 26 bits or not: x·y = p + pe exactly.
                let p = x * y;
                let pe = x.mul_add(y, -p);
                let (s, e) = two_sum(p, z);
                let (s2, e2) = two_sum(s, pe);
                let r = directed(fma_near, m, |cand| {
                    let d = cand - s2;
                    d.partial_cmp(&(e + e2)).unwrap()
                });
                zero_sum_sign(r, m, (p, z), s2 == 0.0 && e + e2 == 0.0)
            };
            want.push(r);
        }
        for m in modes {
            want.push(quot(1.0, y, m));
        }
        for m in modes {
            let near = x.sqrt();
            want.push(if x <= 0.0 || !x.is_finite() {
                near
            } else {
                directed(near, m, |cand| {
                    let t = cand * cand;
                    let te = cand.mul_add(cand, -t);
                    if t.is_infinite() {
                        Ordering::Greater
                    } else {
                        (t - x).partial_cmp(&-te).unwrap()
                    }
                })
            });
        }
        for (j, w) in want.iter().enumerate() {
            let got = od[28 * i + j];
            assert!(
                same64(got, *w),
                "double op {j} (mode {}) on x={x:e} y={y:e} z={z:e}: got {got:e}, want {w:e}",
                modes[j % 4]
            );
        }
    }
}

/// A NaN constant keeps its bits through every engine and level: GVN must
/// not merge NaNs with different payloads, and the interpreter loads a NaN
/// constant with the bits the backend prints (not the canonical NaN that
/// arithmetic produces).
#[test]
fn nan_constants_keep_their_bits() {
    let n = 8;
    let out = run_all("nan_constants", &[vec![0u8; 16 * n]], n);
    let bits = words(&out[0], u32::from_le_bytes);
    for i in 0..n {
        assert_eq!(
            bits[4 * i..4 * i + 4],
            [0x7fc0_0000, 0x7fff_ffff, 0xffc0_0001, 0x7fc0_0000],
            "thread {i}"
        );
    }
}
