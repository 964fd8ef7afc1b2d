//! `-ftz=true` (and `--use_fast_math`, which implies it): single-precision
//! subnormal inputs and results are flushed to a zero of the same sign, in
//! the PTX (`.ftz` forms, assembled by ptxas), in the IR interpreter and in
//! the PTX emulator. The two engines must agree bit for bit in both modes,
//! and each result must be the IEEE one without `-ftz` and the flushed one
//! with it (references computed here in Rust).

mod common;

use kernelc::backend_nvptx::{self, Target};
use kernelc::driver::{self, FloatOptions};
use kernelc::frontend;
use kernelc::midend::ir::{Module, Type};
use kir_interp::KernelArg;
use ptx_emu as emu;

const KERNEL: &str = r#"
extern "C" __global__ void ops(const float* in, float* out, double* wide, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    float x = in[2 * i], y = in[2 * i + 1];
    float* o = out + 20 * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = fminf(x, y);
    o[5] = fmaxf(x, y);
    o[6] = fmaf(x, y, x);
    o[7] = -x;
    o[8] = fabsf(x);
    o[9] = sqrtf(fabsf(x));
    o[10] = floorf(x);
    o[11] = ceilf(x);
    o[12] = x < y ? 1.0f : 0.0f;
    o[13] = x == 0.0f ? 1.0f : 0.0f;
    o[14] = (float)wide[2 * i];
    o[15] = exp2f(x);
    o[16] = rsqrtf(fabsf(x));
    o[17] = __sinf(x);
    o[18] = x;
    o[19] = __fdividef(x, y);
    wide[2 * i + 1] = (double)x;
}
"#;

/// Results per element that the references below cover (the `.approx`
/// ones, 15 to 17 and 19, are only compared between the engines).
const EXACT: usize = 15;

fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn b(v: bool) -> f32 {
    if v {
        1.0
    } else {
        0.0
    }
}

/// The PTX `min`/`max` of two non-NaN values (`-0 < +0`).
fn pick(x: f32, y: f32, min: bool) -> f32 {
    let x_first = if x == y { x.is_sign_negative() } else { x < y };
    if x_first == min {
        x
    } else {
        y
    }
}

/// What `ops` must store for `x`, `y` and the double `d`, with or without
/// flushing: the inputs are flushed on the way in, the results on the way
/// out (`f64` results are not, but their `f32` operand is).
fn reference(x: f32, y: f32, d: f64, ftz: bool) -> ([f32; EXACT], f64) {
    let f = |v: f32| if ftz { flush(v) } else { v };
    let (x, y) = (f(x), f(y));
    let r = [
        x + y,
        x - y,
        x * y,
        x / y,
        pick(x, y, true),
        pick(x, y, false),
        x.mul_add(y, x),
        -x,
        x.abs(),
        x.abs().sqrt(),
        x.floor(),
        x.ceil(),
        b(x < y),
        b(x == 0.0),
        d as f32,
    ];
    // PTX's NaN results are the canonical NaN.
    let canonical = |v: f32| {
        if v.is_nan() {
            f32::from_bits(0x7fff_ffff)
        } else {
            f(v)
        }
    };
    (r.map(canonical), f64::from(x))
}

fn compile(float: FloatOptions) -> (Module, String) {
    let fe = driver::with_float_options(driver::frontend_options(80, &[]), float);
    let program = frontend::check(KERNEL, &fe).expect("the kernel checks");
    let mut module = frontend::lower(&program).expect("the kernel lowers");
    common::optimize(&mut module, 3).expect("the pipeline runs");
    let target = Target::parse("sm_80").unwrap();
    let ptx = backend_nvptx::compile_module(&module, &backend_nvptx::Options::new(target))
        .expect("the backend selects the kernel");
    (module, ptx)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `ops` on both engines; returns the `out` and `wide` buffers of each.
fn run_both(
    module: &Module,
    ptx: &str,
    xs: &[f32],
    ys: &[f32],
    ds: &[f64],
) -> [(Vec<u8>, Vec<u8>); 2] {
    let n = xs.len();
    let input: Vec<f32> = xs.iter().zip(ys).flat_map(|(&x, &y)| [x, y]).collect();
    let wide: Vec<f64> = ds.iter().flat_map(|&d| [d, 0.0]).collect();
    let out = vec![0u8; 20 * 4 * n];
    let block = [n as u32, 1, 1];
    let iargs = [
        KernelArg::Buffer(f32_bytes(&input)),
        KernelArg::Buffer(out.clone()),
        KernelArg::Buffer(f64_bytes(&wide)),
        KernelArg::Scalar {
            ty: Type::I32,
            bits: n as u64,
        },
    ];
    let icfg = kir_interp::LaunchConfig {
        block,
        ..kir_interp::LaunchConfig::default()
    };
    let i = kir_interp::run_kernel(module, "ops", &iargs, &icfg).expect("the interpreter runs");
    let eargs = [
        emu::KernelArg::Buffer(f32_bytes(&input)),
        emu::KernelArg::Buffer(out),
        emu::KernelArg::Buffer(f64_bytes(&wide)),
        emu::KernelArg::Scalar {
            bits: n as u64,
            bytes: 4,
            float: false,
            name: "int".into(),
        },
    ];
    let ecfg = emu::LaunchConfig {
        block,
        ..emu::LaunchConfig::default()
    };
    let e = emu::run_ptx(ptx, "ops", &eargs, &ecfg).expect("the emulator runs");
    let take = |b: &[Option<Vec<u8>>]| (b[1].clone().unwrap(), b[2].clone().unwrap());
    [take(&i.buffers), take(&e.buffers)]
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn doubles(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn ftz_flushes_f32_subnormals_in_both_engines() {
    let tiny = f32::from_bits(1);
    let big_sub = f32::from_bits(0x007f_ffff);
    let xs = [
        tiny,
        -tiny,
        big_sub,
        -big_sub,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-20,
        1.5,
        -2.0,
        0.0,
        -0.0,
        3e-39,
    ];
    let ys = [
        1.0,
        tiny,
        2.0,
        -big_sub,
        0.5,
        0.75,
        1e-20,
        -tiny,
        f32::MIN_POSITIVE,
        tiny,
        -tiny,
        4.0,
    ];
    // Doubles that round to an f32 subnormal, a normal, zero.
    let ds = [
        1e-40, -3e-39, 1.0, 1e-45, -1e-300, 2.5e-38, 1e-39, 0.5, -1e-41, 7.0, 1e-44, -2.0,
    ];
    let mut differs = 0;
    for (ftz, float) in [
        (false, FloatOptions::default()),
        (
            true,
            FloatOptions {
                ftz: Some(true),
                ..FloatOptions::default()
            },
        ),
        (
            true,
            FloatOptions {
                fast_math: true,
                ..FloatOptions::default()
            },
        ),
    ] {
        let (module, ptx) = compile(float);
        assert_eq!(
            ptx.contains(".ftz."),
            ftz,
            "the PTX has .ftz forms exactly when flushing:\n{ptx}"
        );
        common::assert_ptxas_accepts(&ptx, "sm_80", "the -ftz kernel");
        let [(i_out, i_wide), (e_out, e_wide)] = run_both(&module, &ptx, &xs, &ys, &ds);
        assert_eq!(
            floats(&i_out)
                .iter()
                .map(|f| f.to_bits())
                .collect::<Vec<_>>(),
            floats(&e_out)
                .iter()
                .map(|f| f.to_bits())
                .collect::<Vec<_>>(),
            "interpreter and emulator disagree (ftz={ftz}, fast_math={})",
            float.fast_math
        );
        assert_eq!(i_wide, e_wide, "f64 results disagree (ftz={ftz})");
        let out = floats(&i_out);
        let wide = doubles(&i_wide);
        for (k, ((&x, &y), &d)) in xs.iter().zip(&ys).zip(&ds).enumerate() {
            let (want, want_wide) = reference(x, y, d, ftz);
            // Under fast math `/` is the approximate division: skip o[3].
            for (j, w) in want.iter().enumerate() {
                if float.fast_math && j == 3 {
                    continue;
                }
                let got = out[20 * k + j];
                assert_eq!(
                    got.to_bits(),
                    w.to_bits(),
                    "result {j} for x={x:e}, y={y:e}, d={d:e}, ftz={ftz}: got {got:e}, want {w:e}"
                );
            }
            assert_eq!(wide[2 * k + 1].to_bits(), want_wide.to_bits());
            if !float.fast_math && want != reference(x, y, d, !ftz).0 {
                differs += 1;
            }
        }
    }
    assert!(
        differs >= 10,
        "the two modes differ on the subnormal inputs ({differs})"
    );
}
