//! CUDA's norms (`rhypot`, `norm3d`, `rnorm3d`, `norm4d`, `rnorm4d`, with
//! their `float` forms, and `norm`/`rnorm`/`normf`/`rnormf` over arrays),
//! `normcdfinvf` and `remquo`/`remquof` (`frontend/src/lower/math_norm.rs`,
//! `math.rs`), on the fixture `tests/fixtures/math_extra/extra.cu`.
//!
//! Each kernel runs on the emulator from kernelc's PTX and from nvcc's,
//! and on the IR interpreter (which must give the emulator's bits). Both
//! compilers' results are measured against references computed here with
//! more precision than `double` (the sum of squares as an exact expansion,
//! Newton's method on `libm`'s `erfc`, `libm`'s exact `remquo`), and must be
//! within CUDA's documented bound; kernelc's must also be within that bound
//! of nvcc's. `remquo` must give nvcc's bits exactly.

mod common;

use common::ulps::ulps;
use kernelc::driver;
use kernelc::frontend;
use kernelc::midend::ir::Module;
use kernelc::run::SplitMix64;

const FIXTURE: &str = "tests/fixtures/math_extra/extra.cu";

/// kernelc's PTX and IR of the fixture, and nvcc's PTX when nvcc is there.
struct Builds {
    ptx: String,
    module: Module,
    nvcc: Option<String>,
}

fn builds(dir: &str) -> Builds {
    let src = common::root().join(FIXTURE);
    let dir = common::scratch(dir);
    let (ptx, nvcc) = common::fixture_ptx_and_nvcc(&src, &dir);
    let text = std::fs::read_to_string(&src).unwrap();
    let fe = driver::frontend_options(90, &[]);
    let program = frontend::check(&text, &fe)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("n.cu", &text, &d)));
    let mut module = frontend::lower(&program).expect("the kernels lower");
    // `-O3 -fmad=false`, as the PTX.
    let opts = driver::CompileOptions {
        opt_level: 3,
        fmad: false,
        ..driver::CompileOptions::default()
    };
    driver::optimize(&mut module, &driver::pipeline_for(&opts), None).expect("the pipeline runs");
    Builds {
        ptx,
        module,
        nvcc: nvcc.map(|p| std::fs::read_to_string(p).unwrap()),
    }
}

/// `kernel` on kernelc's PTX (checked bit for bit against the interpreter)
/// and on nvcc's.
fn run(b: &Builds, kernel: &str, x: &[f64], y: &[f64], per: usize) -> (Vec<f64>, Option<Vec<f64>>) {
    let ours = common::math_emu_run(&b.ptx, kernel, x, y, per);
    let interp = common::math_interp_run(&b.module, kernel, x, y, per);
    for (k, (e, i)) in ours.iter().zip(&interp).enumerate() {
        assert!(
            e.to_bits() == i.to_bits() || (e.is_nan() && i.is_nan()),
            "{kernel} o[{}] at x = {:e}, y = {:e}: emulator {e:e}, interpreter {i:e}",
            k % per,
            x[k / per],
            y[k / per]
        );
    }
    let theirs = b
        .nvcc
        .as_ref()
        .map(|p| common::math_emu_run(p, kernel, x, y, per));
    (ours, theirs)
}

/// A random value with exponent in `[lo, hi]`, either sign.
fn binade(r: &mut SplitMix64, lo: i32, hi: i32) -> f64 {
    let e = lo + (r.next_u64() % (hi - lo + 1) as u64) as i32;
    let m = 1.0 + (r.next_u64() >> 12) as f64 / (1u64 << 52) as f64;
    let v = libm::scalbn(m, e);
    if r.next_u64() % 2 == 1 {
        -v
    } else {
        v
    }
}

/// Every pair of special values, then random pairs over the exponent range
/// `[lo, hi]`: the second of the same binade, near it, or anywhere.
fn pairs(seed: u64, (lo, hi): (i32, i32), single: bool) -> (Vec<f64>, Vec<f64>) {
    let round = |v: f64| if single { f64::from(v as f32) } else { v };
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        3.0,
        0.5,
        f64::from(f32::from_bits(1)),
        f64::from(f32::MIN_POSITIVE),
        f64::from(f32::MAX),
        5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        1e-300,
        -1e300,
    ];
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for &a in &specials {
        for &b in &specials {
            x.push(round(a));
            y.push(round(b));
        }
    }
    let mut r = SplitMix64(seed);
    for k in 0..4000 {
        let a = binade(&mut r, lo, hi);
        let b = match k % 4 {
            0 => a * (1.0 + (r.next_u64() % 8) as f64),
            1 => binade(&mut r, lo.max(-60), hi.min(60)),
            2 => {
                let e = libm::ilogb(a);
                binade(&mut r, (e - 30).max(lo), (e + 30).min(hi))
            }
            _ => binade(&mut r, lo, hi),
        };
        x.push(round(a));
        y.push(round(b));
    }
    (x, y)
}

/// `a + b` rounded and its exact error.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bv = s - a;
    let av = s - bv;
    (s, (a - av) + (b - bv))
}

/// Adds `b` to the exact expansion `e` (Shewchuk's grow-expansion).
fn grow(e: &mut Vec<f64>, b: f64) {
    let mut q = b;
    let mut out = Vec::with_capacity(e.len() + 1);
    for &h in e.iter() {
        let (s, err) = two_sum(q, h);
        if err != 0.0 {
            out.push(err);
        }
        q = s;
    }
    out.push(q);
    *e = out;
}

/// The value of an expansion, its components summed smallest first.
fn total(e: &[f64]) -> f64 {
    e.iter().sum()
}

/// `sqrt(Σ v²)` (or its reciprocal) to about 2^-100: the squares of the
/// operands scaled by `2^-e` (`e` the exponent of the largest) summed
/// exactly, one Newton step on the root with the exact residual, then
/// scaled back. An infinity wins over a NaN, as in C's `hypot`.
fn norm_ref(v: &[f64], reciprocal: bool) -> f64 {
    if v.iter().any(|a| a.is_infinite()) {
        return if reciprocal { 0.0 } else { f64::INFINITY };
    }
    if v.iter().any(|a| a.is_nan()) {
        return f64::NAN;
    }
    let m = v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
    if m == 0.0 {
        return if reciprocal { f64::INFINITY } else { 0.0 };
    }
    let e = libm::ilogb(m);
    let mut s = Vec::new();
    for &a in v {
        let c = libm::scalbn(a, -e);
        let p = c * c;
        grow(&mut s, p);
        grow(&mut s, c.mul_add(c, -p));
    }
    let r0 = total(&s).sqrt();
    let q = r0 * r0;
    grow(&mut s, -q);
    grow(&mut s, -r0.mul_add(r0, -q));
    let rc = total(&s) / (2.0 * r0);
    if reciprocal {
        // 1/(r0 + rc) = y0·(1 + e1 - rc/r0) with e1 = 1 - y0·r0.
        let y0 = 1.0 / r0;
        let e1 = (-y0).mul_add(r0, 1.0);
        libm::scalbn(y0 + y0 * (e1 - rc * y0), -e)
    } else {
        libm::scalbn(r0 + rc, e)
    }
}

/// The worst error of `got` (`per` results an input, result `k`) against
/// `want` in ulps of `bits`, and where.
fn worst(got: &[f64], per: usize, k: usize, want: &[f64], bits: u32) -> (f64, usize) {
    (0..want.len())
        .map(|i| (ulps(got[per * i + k], want[i], bits), i))
        .fold((0.0, 0), |m, d| if d.0 > m.0 { d } else { m })
}

/// kernelc's result `k` within `bound` ulps of the reference `want`, and
/// (when nvcc is there, and `nvcc_bound` is given) nvcc's too, and the two
/// within `bound` of each other; prints the figures.
fn check(
    name: &str,
    (ours, theirs): (&[f64], Option<&[f64]>),
    (per, k): (usize, usize),
    want: &[f64],
    (bits, bound, nvcc_bound): (u32, f64, Option<f64>),
    at: &dyn Fn(usize) -> String,
) {
    let (e, i) = worst(ours, per, k, want, bits);
    eprintln!("{name}: kernelc at most {e} ulp ({})", at(i));
    assert!(
        e <= bound,
        "{name}: {e} ulp at {} (bound {bound}): got {:e}, want {:e}",
        at(i),
        ours[per * i + k],
        want[i]
    );
    let Some(theirs) = theirs else { return };
    let nvcc: Vec<f64> = (0..want.len()).map(|i| theirs[per * i + k]).collect();
    let (en, i) = worst(theirs, per, k, want, bits);
    eprintln!("{name}: nvcc at most {en} ulp ({})", at(i));
    if let Some(b) = nvcc_bound {
        assert!(
            en <= b,
            "{name}: nvcc's {en} ulp at {}: the reference is wrong?",
            at(i)
        );
    }
    let (apart, i) = worst(ours, per, k, &nvcc, bits);
    eprintln!(
        "{name}: kernelc and nvcc at most {apart} ulp apart ({})",
        at(i)
    );
    assert!(
        apart <= bound.max(nvcc_bound.unwrap_or(bound)) + bound,
        "{name}: {apart} ulp from nvcc's at {}",
        at(i)
    );
}

/// The operands of input `i` of the norm kernels: `x[i], y[i], x[j], y[j]`
/// with `j = n - 1 - i`, rounded to `float` for the `f` forms.
fn operands(x: &[f64], y: &[f64], i: usize) -> [f64; 4] {
    let j = x.len() - 1 - i;
    [x[i], y[i], x[j], y[j]]
}

/// CUDA's bounds (CUDA C++ Programming Guide, "Mathematical Functions"):
/// the result index in the kernel, the operand count, whether the
/// reciprocal, and the bound for `float` and for `double`.
const NORMS: [(&str, usize, bool, f64, f64); 5] = [
    ("rhypot", 2, true, 2.0, 1.0),
    ("norm3d", 3, false, 2.0, 2.0),
    ("rnorm3d", 3, true, 2.0, 1.0),
    ("norm4d", 4, false, 2.0, 2.0),
    ("rnorm4d", 4, true, 2.0, 1.0),
];

#[test]
fn norms_are_within_cudas_bounds_and_nvccs() {
    let b = builds("math-norms");
    for (kernel, single, seed) in [("f_norms", true, 1), ("d_norms", false, 2)] {
        let range = if single { (-149, 127) } else { (-1074, 1023) };
        let (x, y) = pairs(seed, range, single);
        let (ours, theirs) = run(&b, kernel, &x, &y, 5);
        for (k, &(name, count, reciprocal, fb, db)) in NORMS.iter().enumerate() {
            let want: Vec<f64> = (0..x.len())
                .map(|i| norm_ref(&operands(&x, &y, i)[..count], reciprocal))
                .collect();
            let (bits, bound) = if single { (32, fb) } else { (64, db) };
            let at = |i: usize| format!("{:?}", &operands(&x, &y, i)[..count]);
            check(
                &format!("{name}{}", if single { "f" } else { "" }),
                (&ours, theirs.as_deref()),
                (5, k),
                &want,
                (bits, bound, Some(bound)),
                &at,
            );
        }
    }
}

/// `normf`, `rnormf`, `norm` and `rnorm` over 1 to 5 elements (nvcc's
/// `norm` reads an element even for `dim = 0`). CUDA states no bound for
/// these; kernelc's `float` forms are within 1 ulp, its `double` forms
/// within 2.
#[test]
fn array_norms_are_accurate() {
    let b = builds("math-norm-arrays");
    let (x, _) = pairs(3, (-1074, 1023), false);
    // A third of the inputs in `float`'s range, so `normf` sees more than
    // zeros and infinities.
    let x: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if i % 3 == 0 {
                libm::scalbn(v, -libm::ilogb(v).clamp(-1000, 1000) / 9)
            } else {
                v
            }
        })
        .collect();
    let (ours, theirs) = run(&b, "arrays", &x, &x, 4);
    let n = x.len();
    let dim = |i: usize| (1 + i % 5).min(n - i);
    for (k, single, reciprocal, bound) in [
        (0, true, false, 1.0),
        (1, true, true, 1.0),
        (2, false, false, 2.0),
        (3, false, true, 2.0),
    ] {
        let want: Vec<f64> = (0..n)
            .map(|i| {
                let v: Vec<f64> = x[i..i + dim(i)]
                    .iter()
                    .map(|&a| if single { f64::from(a as f32) } else { a })
                    .collect();
                norm_ref(&v, reciprocal)
            })
            .collect();
        let name = ["normf", "rnormf", "norm", "rnorm"][k];

        let at = |i: usize| format!("{:?}", &x[i..i + dim(i)]);
        let bits = if single { 32 } else { 64 };
        check(
            name,
            (&ours, theirs.as_deref()),
            (4, k),
            &want,
            (bits, bound, None),
            &at,
        );
    }
}

/// The standard normal distribution function `Φ(z) = erfc(-z/√2)/2`.
fn phi(z: f64) -> f64 {
    libm::erfc(-z / std::f64::consts::SQRT_2) / 2.0
}

/// `Φ^-1(p)` for `p` in `(0, 1)`: by symmetry from `min(p, 1 - p)` (exact
/// for a `float` `p`), Newton's method on `Φ` from a rational start
/// (Abramowitz and Stegun 26.2.23, within 4.5e-4).
fn normcdfinv_ref(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p > 0.5 {
        return -normcdfinv_ref(1.0 - p);
    }
    let t = (-2.0 * p.ln()).sqrt();
    let num = 2.515_517 + t * (0.802_853 + t * 0.010_328);
    let den = 1.0 + t * (1.432_788 + t * (0.189_269 + t * 0.001_308));
    let mut z = -(t - num / den);
    for _ in 0..40 {
        let density = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let step = (phi(z) - p) / density;
        z -= step;
        if step.abs() <= z.abs() * 1e-17 {
            break;
        }
    }
    z
}

#[test]
fn normcdfinvf_is_within_cudas_bound() {
    let b = builds("math-normcdfinv");
    let mut r = SplitMix64(4);
    let mut x: Vec<f64> = [
        0.0,
        -0.0,
        0.5,
        1.0,
        -1.0,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::from(f32::from_bits(1)),
        f64::from(1.0f32 - f32::EPSILON / 2.0),
        0.25,
        0.75,
    ]
    .to_vec();
    for k in 0..6000 {
        let v = match k % 3 {
            0 => libm::scalbn(
                1.0 + (r.next_u64() >> 12) as f64 / (1u64 << 52) as f64,
                -1 - (r.next_u64() % 149) as i32,
            ),
            1 => (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64,
            _ => {
                1.0 - libm::scalbn(1.0, -1 - (r.next_u64() % 24) as i32)
                    * (1.0 + (r.next_u64() % 4) as f64 / 8.0)
            }
        };
        x.push(f64::from(v as f32));
    }
    let (ours, theirs) = run(&b, "f_normcdfinv", &x, &x, 1);
    let want: Vec<f64> = x.iter().map(|&p| normcdfinv_ref(p)).collect();
    // The specials bit for bit (signs of zeros included).
    for (i, &p) in x[..9].iter().enumerate() {
        let w = want[i];
        assert!(
            ours[i].to_bits() == w.to_bits() || (ours[i].is_nan() && w.is_nan()),
            "normcdfinvf({p:e}) = {:e}, want {w:e}",
            ours[i]
        );
    }
    let at = |i: usize| format!("x = {:e}", x[i]);
    check(
        "normcdfinvf",
        (&ours, theirs.as_deref()),
        (1, 0),
        &want,
        (32, 5.0, Some(5.0)),
        &at,
    );
}

/// How many low bits of the quotient `remquo` stores (nvcc's choice; C
/// asks for at least 3).
const QUOTIENT_BITS: u32 = 3;

/// `libm`'s quotient cut to [`QUOTIENT_BITS`], with its sign.
fn low_quotient(q: i32) -> i32 {
    let m = q.unsigned_abs() & ((1 << QUOTIENT_BITS) - 1);
    (m as i32) * q.signum()
}

#[test]
fn remquo_matches_nvcc_and_libm() {
    let b = builds("math-remquo");
    let (x, y) = pairs(5, (-149, 127), true);
    let (ours, theirs) = run(&b, "remquos", &x, &y, 4);
    for i in 0..x.len() {
        let o = &ours[4 * i..4 * i + 4];
        let (r, q) = libm::remquof(x[i] as f32, y[i] as f32);
        let (rd, qd) = libm::remquo(x[i], y[i]);
        let finite = x[i].is_finite() && y[i].is_finite() && y[i] != 0.0;
        let want = [
            f64::from(r),
            f64::from(low_quotient(q)),
            rd,
            f64::from(low_quotient(qd)),
        ];
        for k in 0..4 {
            let same = o[k].to_bits() == want[k].to_bits() || (o[k].is_nan() && want[k].is_nan());
            assert!(
                same || (!finite && k % 2 == 1),
                "remquo o[{k}] at x = {:e}, y = {:e}: {:e}, libm {:e}",
                x[i],
                y[i],
                o[k],
                want[k]
            );
        }
        if let Some(t) = &theirs {
            for k in 0..4 {
                let w = t[4 * i + k];
                assert!(
                    o[k].to_bits() == w.to_bits() || (o[k].is_nan() && w.is_nan()),
                    "remquo o[{k}] at x = {:e}, y = {:e}: kernelc {:e}, nvcc {:e}",
                    x[i],
                    y[i],
                    o[k],
                    w
                );
            }
        }
    }
}

/// The `double`-only names take `float` and integer arguments as `double`
/// (nvcc's declarations have no `float` overload); `remquo` picks its
/// overload as C++ does; `normcdfinv` on `double` is an error naming
/// `normcdfinvf`; a wrong pointer is a located error.
#[test]
fn norm_overloads_and_diagnostics() {
    let fe = driver::frontend_options(90, &[]);
    let ok = "extern \"C\" __global__ void k(double* o, float* f, int* q) {\n    \
              o[0] = norm3d(f[0], 1, 2.0f) + rhypot(f[1], f[2]) + rnorm4d(1, 2, 3, 4);\n    \
              f[3] = remquo(f[0], f[1], q) + normcdfinv(f[2]) + normf(3, f);\n    \
              o[1] = remquo(f[0], o[1], q) + norm(2, o) + rnorm(2, o);\n}\n";
    if let Err(d) = frontend::check(ok, &fe) {
        panic!("{}", frontend::render_diagnostics("ok.cu", ok, &d));
    }
    for (call, want) in [
        (
            "normcdfinv(o[1])",
            "`normcdfinv` on `double` is not implemented in kernelc",
        ),
        ("norm(2, f)", "argument 2 of `norm`"),
        ("remquof(o[1], o[2], f)", "argument 3 of `remquof`"),
    ] {
        let src = format!(
            "extern \"C\" __global__ void k(double* o, float* f) {{\n    o[0] = {call};\n}}\n"
        );
        let diags = frontend::check(&src, &fe).expect_err("the call is rejected");
        let text = frontend::render_diagnostics("e.cu", &src, &diags);
        assert!(
            text.contains(want) && text.contains("e.cu:2:"),
            "{call}: {text}"
        );
    }
    // `norm3d` of `float` operands is a `double`: past `FLT_MAX` here.
    let src = "extern \"C\" __global__ void k(const double* x, const double* y, double* out, int n) {\n    \
               out[0] = norm3d((float)x[0], (float)y[0], 0.0f);\n}\n";
    let program = frontend::check(src, &fe).expect("norm3d on float");
    let module = frontend::lower(&program).expect("it lowers");
    let got = common::math_interp_run(&module, "k", &[3e38], &[3e38], 1);
    let want = norm_ref(&[f64::from(3e38f32), f64::from(3e38f32)], false);
    assert!(
        got[0] > f64::from(f32::MAX) && ulps(got[0], want, 64) <= 2.0,
        "norm3d(3e38f, 3e38f, 0.0f) = {:e}, want {want:e}",
        got[0]
    );
}

/// `Σ v` with Neumaier's compensation (the error near one rounding).
fn compensated_sum(v: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for x in v {
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    s + c
}

/// `I0(a)` or (`one`) `I1(a)`, independently of kernelc's method: for
/// `|a| < 2` the power series (positive terms); otherwise
/// `e^a·(1/π)∫_0^π e^(a(cos θ - 1))·cos^n θ dθ` by the trapezoidal rule,
/// which converges geometrically for this periodic integrand (`a + 60`
/// panels leave far less than 2^-60), with `cos θ - 1 = -2 sin²(θ/2)`
/// so that each term is accurate to a few roundings. `libm`'s `exp` adds
/// up to an ulp of `double` past `|a| = 2`.
fn bessel_i_ref(x: f64, one: bool) -> f64 {
    let a = x.abs();
    if x.is_nan() {
        return f64::NAN;
    }
    let sign = if one && x.is_sign_negative() {
        -1.0
    } else {
        1.0
    };
    // Past 714 both overflow `double`.
    if a > 720.0 {
        return sign * f64::INFINITY;
    }
    let r = if a < 2.0 {
        let t = a * a / 4.0;
        let mut term = if one { a / 2.0 } else { 1.0 };
        let mut terms = vec![term];
        for k in 1..40 {
            let k = k as f64;
            term *= t / (k * (k + if one { 1.0 } else { 0.0 }));
            terms.push(term);
        }
        compensated_sum(terms.into_iter().rev())
    } else {
        let panels = a as usize + 60;
        let h = std::f64::consts::PI / panels as f64;
        let f = |j: usize| {
            let th = j as f64 * h;
            let s = (th / 2.0).sin();
            let v = (-2.0 * a * s * s).exp();
            let w = if j == 0 || j == panels { 0.5 } else { 1.0 };
            w * if one { v * th.cos() } else { v }
        };
        let mean = compensated_sum((0..=panels).map(f)) / panels as f64;
        // e^a in two halves, so that it overflows only with the result.
        let e = (a / 2.0).exp();
        mean * e * e
    };
    sign * r
}

/// `cyl_bessel_i0f`, `cyl_bessel_i1f` (of `(float)x`) and `cyl_bessel_i0`,
/// `cyl_bessel_i1` (of `y`): CUDA's bound is 6 ulp for all four.
#[test]
fn bessel_i_is_within_cudas_bound() {
    let b = builds("math-bessel-i");
    let mut r = SplitMix64(6);
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        f64::from(f32::from_bits(1)),
        1.0,
        -1.0,
        19.999_999_999_999_996,
        20.0,
        -20.0,
        88.7,
        89.0,
        -89.0,
        713.9,
        714.0,
        -714.0,
        1e300,
    ];
    let (mut x, mut y) = (specials.to_vec(), specials.to_vec());
    for k in 0..3000 {
        let u = |r: &mut SplitMix64, lo: f64, hi: f64| {
            lo + (hi - lo) * ((r.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
        };
        let (fx, dy) = if k % 2 == 0 {
            (binade(&mut r, -149, 7), binade(&mut r, -1074, 10))
        } else {
            (u(&mut r, -95.0, 95.0), u(&mut r, -720.0, 720.0))
        };
        x.push(fx);
        y.push(dy);
    }
    let x: Vec<f64> = x.iter().map(|&v| f64::from(v as f32)).collect();
    let (ours, theirs) = run(&b, "bessel_i", &x, &y, 4);
    for (k, name, single, one) in [
        (0, "cyl_bessel_i0f", true, false),
        (1, "cyl_bessel_i1f", true, true),
        (2, "cyl_bessel_i0", false, false),
        (3, "cyl_bessel_i1", false, true),
    ] {
        let input = if single { &x } else { &y };
        let want: Vec<f64> = input.iter().map(|&v| bessel_i_ref(v, one)).collect();
        let at = |i: usize| format!("x = {:e}", input[i]);
        let bits = if single { 32 } else { 64 };
        check(
            name,
            (&ours, theirs.as_deref()),
            (4, k),
            &want,
            (bits, 6.0, Some(7.0)),
            &at,
        );
    }
}
