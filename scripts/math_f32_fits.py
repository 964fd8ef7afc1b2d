#!/usr/bin/env python3
"""Derives the polynomial coefficients of frontend/src/lower/math_f32.rs.

Each polynomial is a weighted minimax fit, found by Lawson's algorithm
(least squares on Chebyshev nodes, reweighted by the error until the
error curve levels out), in 40-digit mpmath arithmetic. The weight makes
the quantity minimised the relative error of the function's final
result, not of the polynomial alone. The coefficients are then rounded
to float and printed; the maximum weighted error (before rounding) is
printed as a power of two.

Usage: scripts/math_f32_fits.py [tanh|expm1|log1p|atan|asin|sinh|log10|erf|erf_far|erfcx|erfinv|erfinv_far|erfcinv_far|sin|cos|sinpi|cospi|lgamma|erf_f64|erfcx_f64|erfcx_reference ...]

`lgamma` prints the Taylor coefficients of lgamma(2 + t) (in `double`, for
frontend/src/lower/math_gamma.rs) rather than a fit, and `erf_f64` those
of erf(x)/x - 1 (for frontend/src/lower/math_erf_f64.rs). `erfcx_f64` is a
`double` fit (math_erf_f64.rs) in 60 digits, whose first three rounded
coefficients are then moved by an ulp where that lowers the error.
`erfcx_reference` writes tests/fixtures/math_more/erfcx_reference.txt.
"""

import itertools
import math
import random
import struct
import sys

import mpmath as mp

mp.mp.dps = 40


def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def fit(g, w, a, b, degree, npts=300, iters=40):
    """Minimises max |w(x)·(sum c_j x^j - g(x))| over [a, b]."""
    xs = [a + (b - a) * (1 - mp.cos(mp.pi * (i + 0.5) / npts)) / 2 for i in range(npts)]
    gv = [g(x) for x in xs]
    wv = [w(x) for x in xs]
    n = degree + 1
    rows = [[x**j for j in range(n)] for x in xs]
    u = [mp.mpf(1) / npts] * npts
    best = None
    for _ in range(iters):
        m = mp.matrix(n, n)
        r = mp.matrix(n, 1)
        for i in range(npts):
            ww = u[i] * wv[i] ** 2
            for j in range(n):
                r[j] += ww * rows[i][j] * gv[i]
                for k in range(n):
                    m[j, k] += ww * rows[i][j] * rows[i][k]
        c = mp.lu_solve(m, r)
        errs = [abs(wv[i] * (sum(c[j] * rows[i][j] for j in range(n)) - gv[i])) for i in range(npts)]
        worst = max(errs)
        if best is None or worst < best[0]:
            best = (worst, [c[j] for j in range(n)])
        total = sum(u[i] * errs[i] for i in range(npts))
        u = [u[i] * errs[i] / total for i in range(npts)]
    return best


def odd(f):
    """f(x) = x + x³·P(x²): P as a function of s = x², and its weight."""
    g = lambda s: (f(mp.sqrt(s)) - mp.sqrt(s)) / s**1.5
    w = lambda s: s**1.5 / f(mp.sqrt(s))
    return g, w


def plus_square(f):
    """f(x) = x + x²·Q(x): Q and its weight."""
    g = lambda x: (f(x) - x) / x**2
    w = lambda x: x**2 / f(x)
    return g, w


def log_scaled(c, c_hi):
    """c·log(1 + f) = f·c_hi + f·Q(f), `c_hi` being `c` rounded to float:
    Q (whose constant term is the rounding error of `c_hi`) and its weight."""
    g = lambda f: (c * mp.log1p(f) - f * c_hi) / f
    w = lambda f: f / (c * mp.log1p(f))
    return g, w


def erf_small():
    """erf x = x + x·E(x²): E as a function of s = x², and its weight (the
    relative error of erf)."""
    g = lambda s: mp.erf(mp.sqrt(s)) / mp.sqrt(s) - 1
    w = lambda s: 1 / (g(s) + 1)
    return g, w


def log2_erfc():
    """log2(erfc a) = L(a), weighted by erfc a: the absolute error of
    erf a = 1 - 2^L(a)."""
    g = lambda a: mp.log(mp.erfc(a), 2)
    w = lambda a: mp.erfc(a) * mp.log(2)
    return g, w


def x_of_w(w):
    """The x with w = -ln(1 - x²)."""
    return mp.sqrt(-mp.expm1(-w))


def erfinv_near():
    """erfinv x = x·P(w), w = -ln(1 - x²): P and its weight."""
    g = lambda w: mp.erfinv(x_of_w(w)) / x_of_w(w)
    w = lambda v: 1 / g(v)
    return g, w


def erfinv_far():
    """erfinv x = r·R(r - 3), r = √w: R and its weight (centred: in powers
    of r itself the terms cancel to a fourteenth of their size)."""
    g = lambda v: mp.erfinv(x_of_w((v + 3) ** 2)) / (v + 3)
    w = lambda v: 1 / g(v)
    return g, w


def erfcinv_far():
    """erfcinv x = R(s - 0.175)/s with s = 1/√w, w = -ln(x·(2 - x)), for
    the tail w >= 16 down to the smallest subnormal x (in powers of s the
    fit needs degree 7; in powers of r, 11). The inverse is taken with 140
    digits: 1 - x there is within 10^-45 of 1."""

    def g(v):
        s = v + mp.mpf("0.175")
        with mp.workdps(140):
            y = +mp.erfinv(x_of_w(1 / s**2))
        return y * s

    w = lambda v: 1 / g(v)
    return g, w


def erfcx_in_u(k):
    """erfc(a)·e^(a²) = P(u) with u = 2k/(a + k): P and its weight."""
    a_of = lambda u: 2 * k / u - k
    g = lambda u: mp.erfc(a_of(u)) * mp.exp(a_of(u) ** 2)
    w = lambda u: 1 / g(u)
    return g, w


def cos_even():
    """cos r = 1 - s/2 + s²·C(s), s = r²: C and its weight (the relative
    error of cos)."""
    g = lambda s: (mp.cos(mp.sqrt(s)) - 1 + s / 2) / s**2
    w = lambda s: s**2 / mp.cos(mp.sqrt(s))
    return g, w


def sinpi_odd():
    """sin(πt) = t·π + t³·P(t²): P as a function of s = t², and its weight."""
    g = lambda s: (mp.sin(mp.pi * mp.sqrt(s)) - mp.pi * mp.sqrt(s)) / s**1.5
    w = lambda s: s**1.5 / mp.sin(mp.pi * mp.sqrt(s))
    return g, w


def cospi_even():
    """cos(πt) = 1 + t²·Q(t²): Q as a function of s = t², and its weight."""
    g = lambda s: (mp.cos(mp.pi * mp.sqrt(s)) - 1) / s
    w = lambda s: s / mp.cos(mp.pi * mp.sqrt(s))
    return g, w


def u_of(a, k):
    return 2 * k / (mp.mpf(a) + k)


LN2 = mp.log(2)
LOG10E = 1 / mp.log(10)
FITS = {
    # tanh x = x + x³·P(x²) for |x| < 1.
    "tanh": (odd(mp.tanh), mp.mpf("1e-30"), mp.mpf(1), 6),
    # e^r - 1 = r + r²·Q(r) for |r| <= ln2/2 (with 1% to spare).
    "expm1": (plus_square(mp.expm1), -LN2 / 2 * 1.01, LN2 / 2 * 1.01, 5),
    # log(1 + f) = f + f²·R(f) for f in [√½ - 1, √2 - 1] (and a little).
    "log1p": (plus_square(mp.log1p), mp.sqrt(0.5) - 1.002, mp.sqrt(2) - 0.998, 8),
    # atan t = t + t³·A(t²) for t in [0, 1].
    "atan": (odd(mp.atan), mp.mpf("1e-30"), mp.mpf(1), 7),
    # asin t = t + t³·S(t²) for t in [0, 9/16] (t² up to 81/256; the
    # reduced argument of the other branch stays below sqrt(7/32)).
    "asin": (odd(mp.asin), mp.mpf("1e-30"), mp.mpf(81) / 256, 5),
    # sinh x = x + x³·H(x²) for |x| < 1.
    "sinh": (odd(mp.sinh), mp.mpf("1e-30"), mp.mpf(1), 3),
    # log10(1 + f) = f·log10(e)_hi + f·Q(f) on the interval of "log1p".
    "log10": (log_scaled(LOG10E, mp.mpf(f32(LOG10E))), mp.sqrt(0.5) - 1.002, mp.sqrt(2) - 0.998, 9),
    # erf x = x + x·E(x²) for |x| < 1.
    "erf": (erf_small(), mp.mpf("1e-30"), mp.mpf(1), 6),
    # erf a = 1 - 2^L(a) for a in [0.875, 4].
    "erf_far": (log2_erfc(), mp.mpf(0.875), mp.mpf(4), 6),
    # erfinv x = x·P(w) for w = -ln(1 - x²) in [0, 4].
    "erfinv": (erfinv_near(), mp.mpf("1e-20"), mp.mpf(4), 9),
    # erfinv x = r·R(r - 3) for r = √w in [2, √16.2] (x up to 1 - 2^-24).
    "erfinv_far": (erfinv_far(), mp.mpf(-1), mp.sqrt(mp.mpf("16.2")) - 3, 9),
    # erfcinv x = R(s - 0.175)/s for s = 1/√w in [1/10.15, 1/3.99]
    # (w from 15.9 to the smallest subnormal x).
    "erfcinv_far": (erfcinv_far(), 1 / mp.mpf("10.15") - mp.mpf("0.175"), 1 / mp.mpf("3.99") - mp.mpf("0.175"), 7),
    # sin r = r + r³·S(r²) and cos r = 1 - r²/2 + r⁴·C(r²) for the reduced
    # argument |r| <= π/4 (with 1% to spare).
    "sin": (odd(mp.sin), mp.mpf("1e-30"), (mp.pi / 4 * mp.mpf("1.01")) ** 2, 2),
    "cos": (cos_even(), mp.mpf("1e-30"), (mp.pi / 4 * mp.mpf("1.01")) ** 2, 2),
    # sin(πt) = t·π + t³·P(t²) and cos(πt) = 1 + t²·Q(t²) for |t| <= 1/4.
    "sinpi": (sinpi_odd(), mp.mpf("1e-30"), mp.mpf(1) / 16, 3),
    "cospi": (cospi_even(), mp.mpf("1e-30"), mp.mpf(1) / 16, 3),
    # erfc(a)·e^(a²) = P(4/(a + 2)) for a in [0.5, 10.5].
    "erfcx": (erfcx_in_u(2), u_of(10.5, 2), u_of(0.5, 2), 9),
}


def lgamma_taylor(last=23):
    """lgamma(2 + t) = (1 - γ)·t + Σ_{k>=2} (-1)^k·(ζ(k) - 1)/k·t^k."""
    print("lgamma: Taylor coefficients of lgamma(2 + t), t^1 to t^%d" % last)
    print(f"    {float(1 - mp.euler)!r},")
    for k in range(2, last + 1):
        print(f"    {float((-1) ** k * (mp.zeta(k) - 1) / k)!r},")


def erf_taylor_f64(last=12):
    """erf x = x + x·E(x²): E(s) = 2/√π - 1 + (2/√π)·Σ (-1)^n s^n/(n!(2n + 1))."""
    c = 2 / mp.sqrt(mp.pi)
    print("erf_f64: Taylor coefficients of erf(x)/x - 1 in x², to x^%d" % (2 * last))
    print(f"    {float(c - 1)!r},")
    for n in range(1, last + 1):
        print(f"    {float(c * (-1) ** n / (mp.factorial(n) * (2 * n + 1)))!r},")


def erfcx_f64(degree=21, k=4):
    """erfcx(a)·(a + k) = H(t), t = (a - k)/(a + k), for a in [0.5, 27.3]
    (past 27.23 erfc rounds to 0 in double), weighted by 1/H. Rounding
    the coefficients to double costs up to 2^-52.9 relative (the constant
    term's rounding alone is about that where H is smallest); each of the
    first three is then moved by an ulp, or not, whichever combination
    makes the largest error of the rounded polynomial smallest."""
    mp.mp.dps = 60
    k = mp.mpf(k)
    a_of = lambda t: k * (1 + t) / (1 - t)
    big_h = lambda t: mp.erfc(a_of(t)) * mp.exp(a_of(t) ** 2) * (a_of(t) + k)
    t0 = (mp.mpf(0.5) - k) / (mp.mpf(0.5) + k)
    t1 = (mp.mpf("27.3") - k) / (mp.mpf("27.3") + k)
    worst, c = fit(big_h, lambda t: 1 / big_h(t), t0, t1, degree, npts=200, iters=30)
    print(f"erfcx_f64: degree {degree}, max relative error 2^{mp.nstr(mp.log(worst, 2), 4)}")
    rounded = [float(v) for v in c]
    ts = [t0 + (t1 - t0) * i / 300 for i in range(301)]
    hs = [big_h(t) for t in ts]

    def rounded_error(cs):
        return max(abs(mp.polyval(cs[::-1], t) / h - 1) for t, h in zip(ts, hs))

    best = None
    for steps in itertools.product((-1, 0, 1), repeat=3):
        cs = [v + s * math.ulp(v) for v, s in zip(rounded, steps)] + rounded[3:]
        e = rounded_error(cs)
        if best is None or e < best[0]:
            best = (e, cs)
    print(f"rounded, after the nudges: 2^{mp.nstr(mp.log(best[0], 2), 4)}")
    for v in best[1]:
        print(f"    {v!r},")


def erfcx_reference(count=1000):
    """Lines `x erfcx(x)` (both as Python's repr of the double, the value
    correctly rounded from 50 digits) for tests/math_more.rs: `x` of every
    binade from 2^-60 to 2^200 of both signs, uniform in [-27, 30], and
    the edges of kernelc's pieces (±1/2, 27.3)."""
    mp.mp.dps = 50
    rng = random.Random(7)
    xs = [0.5, -0.5, 27.3, 26.0, -26.0]
    for i in range(count):
        if i % 2:
            x = rng.uniform(-27, 30)
        else:
            x = rng.uniform(1, 2) * 2.0 ** rng.randint(-60, 200) * rng.choice((-1, 1))
        xs.append(x)
    xs += [math.nextafter(0.5, 0), math.nextafter(0.5, 1), math.nextafter(27.3, 30)]
    print("# x erfcx(x): scripts/math_f32_fits.py erfcx_reference (mpmath, 50 digits)")
    for x in xs:
        v = mp.erfc(mp.mpf(x)) * mp.exp(mp.mpf(x) ** 2)
        print(f"{x!r} {float(v)!r}")


def main(names):
    if names == ["lgamma"]:
        lgamma_taylor()
        return
    if names == ["erf_f64"]:
        erf_taylor_f64()
        return
    if names == ["erfcx_reference"]:
        erfcx_reference()
        return
    if names == ["erfcx_f64"]:
        erfcx_f64()
        return
    for name in names or FITS:
        (g, w), a, b, degree = FITS[name]
        worst, c = fit(g, w, mp.mpf(a), mp.mpf(b), degree)
        print(f"{name}: degree {degree}, max relative error 2^{mp.nstr(mp.log(worst, 2), 4)}")
        for v in c:
            print(f"    {f32(v)!r},")


if __name__ == "__main__":
    main(sys.argv[1:])
