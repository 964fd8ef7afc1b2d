//! The double-precision math library (`frontend/src/lower/math_f64.rs`):
//! each function runs on the IR interpreter over thousands of inputs
//! (random ones over the whole range, and the special values: ±0, ±inf,
//! NaN, subnormals, huge, tiny), and its error against Rust's `f64`
//! functions is measured in ulps. The bounds enforced here are the ones
//! docs/math.md states. A subset also runs on the PTX emulator, which must
//! give the same bits; ptxas must accept the PTX, and nvcc must compile the
//! same source.

mod common;

use kernelc::backend_nvptx::{self, Target};
use kernelc::driver;
use kernelc::frontend;
use kernelc::midend::ir::Module;
use kernelc::run::SplitMix64;

const SOURCE: &str = r#"
#define UNARY(NAME, F) \
extern "C" __global__ void NAME(const double* x, const double* y, double* out, int n) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) out[i] = F(x[i]); \
}
UNARY(k_exp, exp)
UNARY(k_exp2, exp2)
UNARY(k_log, log)
UNARY(k_log2, log2)
UNARY(k_sin, sin)
UNARY(k_cos, cos)
UNARY(k_tanh, tanh)
UNARY(k_rsqrt, rsqrt)

extern "C" __global__ void k_pow(const double* x, const double* y, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = pow(x[i], y[i]);
}

/* The double functions that are single instructions (or `round`). */
extern "C" __global__ void k_exact(const double* x, const double* y, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double a = x[i], b = y[i];
        double* o = out + 9 * i;
        o[0] = sqrt(fabs(a));
        o[1] = fabs(a);
        o[2] = fmin(a, b);
        o[3] = fmax(a, b);
        o[4] = floor(a);
        o[5] = ceil(a);
        o[6] = trunc(a);
        o[7] = round(a);
        o[8] = fma(a, b, a);
    }
}
"#;

fn compile() -> (Module, String) {
    compile_with(driver::FloatOptions::default())
}

fn compile_with(float: driver::FloatOptions) -> (Module, String) {
    let fe = driver::with_float_options(driver::frontend_options(80, &[]), float);
    let program = frontend::check(SOURCE, &fe)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("m.cu", SOURCE, &d)));
    let mut module = frontend::lower(&program).expect("the kernels lower");
    common::optimize(&mut module, 3).expect("the pipeline runs");
    let target = Target::parse("sm_80").unwrap();
    let ptx = backend_nvptx::compile_module(&module, &backend_nvptx::Options::new(target))
        .expect("the backend selects the kernels");
    (module, ptx)
}

/// The distance in ulps between `got` and `want`: the number of doubles
/// between them (0 for two NaNs, infinite if only one is NaN). `-0` and
/// `+0` are 0 apart here; the special-value tables check zero signs.
fn ulps(got: f64, want: f64) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let ord = |v: f64| {
        let b = v.to_bits() as i64;
        if b < 0 {
            -(b & i64::MAX)
        } else {
            b
        }
    };
    (ord(got) as i128 - ord(want) as i128).unsigned_abs() as f64
}

/// Uniform in `[lo, hi)`.
fn uniform(r: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    let u = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    lo + (hi - lo) * u
}

/// A positive double with a random exponent in `[lo, hi]` (powers of two)
/// and random mantissa bits: every binade equally likely.
fn binades(r: &mut SplitMix64, lo: i32, hi: i32) -> f64 {
    let span = (hi - lo + 1) as u64;
    let e = lo + (r.next_u64() % span) as i32;
    let m = 1.0 + (r.next_u64() >> 12) as f64 / (1u64 << 52) as f64;
    m * 2f64.powi(e)
}

const SPECIALS: [f64; 14] = [
    0.0,
    -0.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    2.2e-308,
    1e-300,
    1e300,
    -1e300,
    f64::MAX,
    f64::MIN,
];

/// Runs `kernel` on `x` (and `y`), returns the max ulp error over the
/// inputs where `check` holds, and requires special values to match `f`
/// exactly (bits, after NaN canonicalization).
fn measure(
    (module, ptx): &(Module, String),
    kernel: &str,
    x: &[f64],
    y: &[f64],
    f: impl Fn(f64, f64) -> f64,
) -> (f64, f64, f64) {
    let got = common::math_interp_run(module, kernel, x, y, 1);
    // A subset on the emulator: the same bits.
    let m = x.len().min(256);
    let emu_got = common::math_emu_run(ptx, kernel, &x[..m], &y[..m], 1);
    for i in 0..m {
        assert!(
            got[i].to_bits() == emu_got[i].to_bits() || (got[i].is_nan() && emu_got[i].is_nan()),
            "{kernel}({:e}, {:e}): interpreter {:e}, emulator {:e}",
            x[i],
            y[i],
            got[i],
            emu_got[i]
        );
    }
    let mut worst = (0.0, x[0], y[0]);
    for i in 0..x.len() {
        let want = f(x[i], y[i]);
        let e = ulps(got[i], want);
        if e > worst.0 {
            worst = (e, x[i], y[i]);
        }
        // Zeros and infinities must be exact, signs included.
        if want == 0.0 || want.is_infinite() || want.is_nan() {
            assert!(
                got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()),
                "{kernel}({:e}, {:e}) = {:e}, want {:e}",
                x[i],
                y[i],
                got[i],
                want
            );
        }
    }
    worst
}

fn check(name: &str, worst: (f64, f64, f64), bound: f64) {
    let (e, x, y) = worst;
    eprintln!("{name}: max {e} ulp (at x = {x:e}, y = {y:e})");
    assert!(
        e <= bound,
        "{name}: {e} ulp at x = {x:e}, y = {y:e} (bound {bound})"
    );
}

fn with_specials(mut v: Vec<f64>) -> Vec<f64> {
    let mut s = SPECIALS.to_vec();
    s.append(&mut v);
    s
}

const N: usize = 3000;

#[test]
fn double_math_is_accurate() {
    let compiled = compile();
    common::assert_ptxas_accepts(&compiled.1, "sm_80", "the double math kernels");
    let mut r = SplitMix64(0x05ee_df64);
    let zeros = vec![0.0; N + SPECIALS.len()];

    // exp: the whole range, the overflow and underflow edges, tiny inputs.
    let mut xs: Vec<f64> = (0..N - 200)
        .map(|_| uniform(&mut r, -746.0, 710.0))
        .collect();
    xs.extend((0..100).map(|_| uniform(&mut r, 707.0, 709.8)));
    xs.extend((0..50).map(|_| uniform(&mut r, -745.2, -708.0)));
    xs.extend(
        (0..50).map(|_| binades(&mut r, -60, -1) * if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 }),
    );
    let xs = with_specials(xs);
    check(
        "exp",
        measure(&compiled, "k_exp", &xs, &zeros, |x, _| x.exp()),
        1.0,
    );

    let mut xs: Vec<f64> = (0..N - 100)
        .map(|_| uniform(&mut r, -1080.0, 1030.0))
        .collect();
    xs.extend((0..100).map(|_| uniform(&mut r, -2.0, 2.0)));
    let xs = with_specials(xs);
    check(
        "exp2",
        measure(&compiled, "k_exp2", &xs, &zeros, |x, _| x.exp2()),
        1.0,
    );

    // log, log2: every binade (subnormals too), and near 1.
    let mut xs: Vec<f64> = (0..N - 500).map(|_| binades(&mut r, -1074, 1023)).collect();
    xs.extend((0..500).map(|_| 1.0 + uniform(&mut r, -0.3, 0.42)));
    xs.extend([-1.0, -5e-324, 1.0, 2.0, 0.5, 1024.0]);
    let xs = with_specials(xs);
    let zs = vec![0.0; xs.len()];
    check(
        "log",
        measure(&compiled, "k_log", &xs, &zs, |x, _| x.ln()),
        1.0,
    );
    check(
        "log2",
        measure(&compiled, "k_log2", &xs, &zs, |x, _| x.log2()),
        1.0,
    );

    // sin, cos below 2^50, the Cody–Waite path (every binade), near
    // multiples of pi/2 (the hard cases of the reduction), small arguments.
    // Larger arguments: `sin_cos_match_the_exact_reference`.
    let mut xs: Vec<f64> = (0..N - 1000)
        .map(|_| binades(&mut r, -30, 49) * if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 })
        .collect();
    xs.extend((0..300).map(|_| uniform(&mut r, -10.0, 10.0)));
    xs.extend((1..=200).map(|k| k as f64 * std::f64::consts::FRAC_PI_2));
    xs.extend((0..500).map(|_| {
        let k = (r.next_u64() >> 16) as f64;
        let near = k * std::f64::consts::FRAC_PI_2;
        f64::from_bits(near.to_bits() + r.next_u64() % 3 - 1)
    }));
    let mut sc = SPECIALS.to_vec();
    sc.retain(|v| v.abs() < 1e10 || !v.is_finite());
    sc.extend(xs);
    let xs = sc;
    let zs = vec![0.0; xs.len()];
    check(
        "sin",
        measure(&compiled, "k_sin", &xs, &zs, |x, _| x.sin()),
        1.0,
    );
    check(
        "cos",
        measure(&compiled, "k_cos", &xs, &zs, |x, _| x.cos()),
        1.0,
    );
    // Infinities give NaN (the huge finite arguments are checked against
    // the reference in `sin_cos_match_the_exact_reference`).
    let inf = [f64::INFINITY, f64::NEG_INFINITY];
    for k in ["k_sin", "k_cos"] {
        let got = common::math_interp_run(&compiled.0, k, &inf, &[0.0; 2], 1);
        assert!(got.iter().all(|g| g.is_nan()), "{k}(±inf): {got:?}");
    }

    let mut xs: Vec<f64> = (0..N - 300).map(|_| uniform(&mut r, -25.0, 25.0)).collect();
    xs.extend(
        (0..300).map(|_| binades(&mut r, -40, 0) * if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 }),
    );
    let xs = with_specials(xs);
    // Rust's `tanh` (the system libm) is itself off by up to 2 ulp: against
    // a 50-digit reference kernelc's tanh is within 1 (docs/math.md).
    check(
        "tanh",
        measure(&compiled, "k_tanh", &xs, &zeros, |x, _| x.tanh()),
        3.0,
    );

    let xs: Vec<f64> = with_specials((0..N).map(|_| binades(&mut r, -1074, 1023)).collect());
    check(
        "rsqrt",
        measure(&compiled, "k_rsqrt", &xs, &zeros, |x, _| 1.0 / x.sqrt()),
        1.0,
    );

    // pow: positive x over many binades with y keeping |y·log x| < 700;
    // negative x with integer y.
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for i in 0..N {
        let x = binades(&mut r, -300, 300);
        let lim = 700.0 / x.ln().abs().max(1e-3);
        let mut y = uniform(&mut r, -lim.min(1e6), lim.min(1e6));
        let x = if i % 5 == 0 {
            y = y.round().clamp(-60.0, 60.0);
            -(1.0 + uniform(&mut r, 0.0, 15.0))
        } else {
            x
        };
        xs.push(x);
        ys.push(y);
    }
    check(
        "pow",
        measure(&compiled, "k_pow", &xs, &ys, |x, y| x.powf(y)),
        1.0,
    );
}

/// `sin` and `cos` against correctly rounded values that
/// `scripts/math_f64_constants.py --sin-cos-reference` computed with an
/// exact reduction: the doubles closest to multiples of π/2 in every binade
/// from 2^25 to 2^1023 (where the reduction cancels the most bits, down to
/// 6381956970095103·2^797), random arguments from 2^40 to `DBL_MAX`, and
/// the edges of the Payne–Hanek branch at 2^50.
#[test]
fn sin_cos_match_the_exact_reference() {
    let compiled = compile();
    let rows: Vec<[f64; 3]> = include_str!("fixtures/sin_cos_reference.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let v: Vec<f64> = l
                .split_whitespace()
                .map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap()))
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    assert!(rows.len() > 2000, "{} reference rows", rows.len());
    let xs: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    let zs = vec![0.0; xs.len()];
    for (kernel, col) in [("k_sin", 1), ("k_cos", 2)] {
        let got = common::math_interp_run(&compiled.0, kernel, &xs, &zs, 1);
        let m = xs.len().min(256);
        let emu_got = common::math_emu_run(&compiled.1, kernel, &xs[..m], &zs[..m], 1);
        for i in 0..m {
            assert_eq!(
                got[i].to_bits(),
                emu_got[i].to_bits(),
                "{kernel}({:e}): interpreter and emulator differ",
                xs[i]
            );
        }
        let mut worst = (0.0, 0.0);
        let mut big = (0.0, 0.0);
        for (i, row) in rows.iter().enumerate() {
            let e = ulps(got[i], row[col]);
            if e > worst.0 {
                worst = (e, row[0]);
            }
            if row[0].abs() >= 2f64.powi(50) && e > big.0 {
                big = (e, row[0]);
            }
        }
        eprintln!(
            "{kernel}: max {} ulp (at {:e}); {} ulp at 2^50 and above (at {:e})",
            worst.0, worst.1, big.0, big.1
        );
        assert!(
            worst.0 <= 1.0,
            "{kernel}: {} ulp at x = {:e}",
            worst.0,
            worst.1
        );
    }
}

/// C's special cases of `pow` (C11 F.10.4.4), checked bit for bit.
#[test]
fn pow_special_cases_follow_c() {
    let compiled = compile();
    let vals = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        0.5,
        -0.5,
        3.0,
        -3.0,
        2.5,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        1e300,
    ];
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for &x in &vals {
        for &y in &vals {
            xs.push(x);
            ys.push(y);
        }
    }
    let got = common::math_interp_run(&compiled.0, "k_pow", &xs, &ys, 1);
    for i in 0..xs.len() {
        let want = xs[i].powf(ys[i]);
        let ok = got[i].to_bits() == want.to_bits()
            || (got[i].is_nan() && want.is_nan())
            || (ulps(got[i], want) <= 1.0 && want.is_finite() && want != 0.0);
        assert!(
            ok,
            "pow({:e}, {:e}) = {:e}, want {:e}",
            xs[i], ys[i], got[i], want
        );
    }
}

/// `sqrt`, `fabs`, `fmin`, `fmax`, `floor`, `ceil`, `trunc`, `round` and
/// `fma` on `double` are exact.
#[test]
fn exact_double_functions() {
    let compiled = compile();
    let mut r = SplitMix64(7);
    let mut xs: Vec<f64> = SPECIALS.to_vec();
    xs.extend([
        2.5,
        -2.5,
        0.49999999999999994,
        -0.5,
        1.5,
        4503599627370497.0,
    ]);
    xs.extend((0..200).map(|_| uniform(&mut r, -1e6, 1e6)));
    let ys: Vec<f64> = xs.iter().rev().copied().collect();
    let got = common::math_interp_run(&compiled.0, "k_exact", &xs, &ys, 9);
    let emu_got = common::math_emu_run(&compiled.1, "k_exact", &xs, &ys, 9);
    let c_round = |a: f64| a.round();
    for i in 0..xs.len() {
        let (a, b) = (xs[i], ys[i]);
        let min = if a.is_nan() {
            b
        } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
            a
        } else {
            b
        };
        let max = if a.is_nan() {
            b
        } else if b.is_nan() || a > b || (a == b && b.is_sign_negative()) {
            a
        } else {
            b
        };
        let want = [
            a.abs().sqrt(),
            a.abs(),
            min,
            max,
            a.floor(),
            a.ceil(),
            a.trunc(),
            c_round(a),
            a.mul_add(b, a),
        ];
        for (j, w) in want.iter().enumerate() {
            let g = got[9 * i + j];
            let e = emu_got[9 * i + j];
            let same = |u: f64, v: f64| u.to_bits() == v.to_bits() || (u.is_nan() && v.is_nan());
            assert!(
                same(g, *w),
                "function {j} of ({a:e}, {b:e}): got {g:e}, want {w:e}"
            );
            assert!(same(g, e), "function {j} of ({a:e}, {b:e}): emulator {e:e}");
        }
    }
}

/// nvcc compiles the same source (CUDA declares every function used).
#[test]
fn nvcc_compiles_the_double_math_source() {
    common::assert_nvcc_accepts(SOURCE, "the double math source");
}

/// `--use_fast_math` (and `-ftz`) change single precision only: the double
/// functions keep their exact instructions and give the same bits.
#[test]
fn fast_math_leaves_double_alone() {
    let fast = compile_with(driver::FloatOptions {
        fast_math: true,
        ..driver::FloatOptions::default()
    });
    assert!(
        !fast.1.contains(".approx") && !fast.1.contains(".ftz"),
        "{}",
        fast.1
    );
    let plain = compile();
    let xs = [0.3, -2.5, 700.0, 1e-310];
    for k in ["k_exp", "k_log", "k_sin", "k_tanh"] {
        let a = common::math_interp_run(&plain.0, k, &xs, &xs, 1);
        let b = common::math_interp_run(&fast.0, k, &xs, &xs, 1);
        assert_eq!(
            a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            b.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{k}"
        );
    }
}
