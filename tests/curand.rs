//! cuRAND's device API (`#include <curand_kernel.h>`, kernelc's header of
//! CUDA source: `frontend/headers/curand_kernel.h`, `frontend/src/curand.rs`).
//!
//! nvcc is the oracle: each kernel is compiled by kernelc (at -O0 and -O3)
//! and by nvcc with NVIDIA's own cuRAND header, both PTX files run on the
//! emulator with the same seeds, subsequences and offsets (the edges: 0, 1,
//! the ends of 32 and 64 bits, 2^40, 2^63, and random 64-bit values), and
//! every output must have nvcc's bits: the state after `curand_init`, raw
//! draws, every uniform function in `float` and `double`, the Box-Muller
//! flags, and draws after `skipahead` and `skipahead_sequence`. The normal
//! functions' values may differ by 2 ulp (see [`normal_slots`]: kernelc's
//! `logf`, `log` and `sincospi` are not nvcc's to the last bit).
//! ptxas assembles kernelc's PTX; the kernels' names are nvcc's; a program
//! that includes the header and uses none of it gets the PTX it got
//! without the include; the generators kernelc does not provide are
//! located errors that name them.

mod common;

use kernelc::backend_nvptx::{self, Target};
use kernelc::driver;
use kernelc::frontend;
use kernelc::run::SplitMix64;
use ptx_emu as emu;

const SOURCE: &str = r#"
#include <curand_kernel.h>

// Outputs per thread: 32 words, 16 floats, 8 doubles.
extern "C" __global__ void xorwow(const unsigned long long *seeds, const unsigned long long *subs,
                                  const unsigned long long *offs, unsigned int *ou, float *of,
                                  double *od, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandState s;
  curand_init(seeds[i], subs[i], offs[i], &s);
  unsigned int *u = ou + 32 * i;
  float *f = of + 16 * i;
  double *d = od + 8 * i;
  u[0] = s.d;
  for (int k = 0; k < 5; k++) u[1 + k] = s.v[k];
  u[6] = s.boxmuller_flag; u[7] = s.boxmuller_flag_double;
  u[8] = curand(&s); u[9] = curand(&s);
  f[0] = curand_uniform(&s);
  f[1] = curand_normal(&s); f[2] = curand_normal(&s); f[3] = curand_normal(&s);
  u[10] = s.boxmuller_flag; f[4] = s.boxmuller_extra;
  float2 p = curand_normal2(&s); f[5] = p.x; f[6] = p.y;
  f[7] = curand_normal(&s);
  d[0] = curand_uniform_double(&s);
  d[1] = curand_normal_double(&s); d[2] = curand_normal_double(&s);
  d[3] = curand_normal_double(&s);
  u[11] = s.boxmuller_flag_double; d[4] = s.boxmuller_extra_double;
  double2 q = curand_normal2_double(&s); d[5] = q.x; d[6] = q.y;
  d[7] = curand_normal_double(&s);
  skipahead(offs[i] * 7 + 3, &s);
  u[12] = curand(&s);
  skipahead_sequence(subs[i] ^ 5, &s);
  u[13] = curand(&s);
  skipahead(1ULL << 40, &s);
  u[14] = curand(&s);
  for (int k = 0; k < 5; k++) u[15 + k] = s.v[k];
  u[20] = s.d;
  // A state that went through global memory goes on where it was.
  curandState t = s;
  f[8] = curand_uniform(&t);
  u[21] = sizeof(curandState) | offsetof(curandState, boxmuller_extra_double) << 8
        | offsetof(curandState, boxmuller_flag) << 16;
}

// Outputs per thread: 32 words, 16 floats, 8 doubles.
extern "C" __global__ void philox(const unsigned long long *seeds, const unsigned long long *subs,
                                  const unsigned long long *offs, unsigned int *ou, float *of,
                                  double *od, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t s;
  curand_init(seeds[i], subs[i], offs[i], &s);
  unsigned int *u = ou + 32 * i;
  float *f = of + 16 * i;
  double *d = od + 8 * i;
  u[0] = s.ctr.x; u[1] = s.ctr.y; u[2] = s.ctr.z; u[3] = s.ctr.w;
  u[4] = s.output.x; u[5] = s.output.y; u[6] = s.output.z; u[7] = s.output.w;
  u[8] = s.key.x; u[9] = s.key.y; u[10] = s.STATE;
  u[11] = curand(&s);
  uint4 r = curand4(&s);
  u[12] = r.x; u[13] = r.y; u[14] = r.z; u[15] = r.w;
  f[0] = curand_uniform(&s);
  float4 a = curand_uniform4(&s);
  f[1] = a.x; f[2] = a.y; f[3] = a.z; f[4] = a.w;
  f[5] = curand_normal(&s); f[6] = curand_normal(&s); f[7] = curand_normal(&s);
  float2 p = curand_normal2(&s); f[8] = p.x; f[9] = p.y;
  float4 g = curand_normal4(&s);
  f[10] = g.x; f[11] = g.y; f[12] = g.z; f[13] = g.w;
  d[0] = curand_uniform_double(&s);
  double2 w = curand_uniform2_double(&s); d[1] = w.x; d[2] = w.y;
  d[3] = curand_normal_double(&s); d[4] = curand_normal_double(&s);
  d[5] = curand_normal_double(&s);
  double2 q = curand_normal2_double(&s); d[6] = q.x; d[7] = q.y;
  u[16] = s.boxmuller_flag; u[17] = s.boxmuller_flag_double; f[14] = s.boxmuller_extra;
  skipahead(offs[i] * 5 + 1, &s);
  u[18] = curand(&s); u[19] = s.STATE;
  skipahead_sequence(subs[i] ^ 3, &s);
  u[20] = curand(&s);
  u[21] = s.ctr.x; u[22] = s.ctr.y; u[23] = s.ctr.z; u[24] = s.ctr.w;
  curandStatePhilox4_32_10_t t = s;
  f[15] = curand_uniform(&t);
  u[25] = sizeof(curandStatePhilox4_32_10_t)
        | offsetof(curandStatePhilox4_32_10_t, boxmuller_extra_double) << 8
        | offsetof(curandStatePhilox4_32_10_t, STATE) << 16;
}
"#;

const BLOCK: u32 = 32;

/// kernelc's PTX for `arch` at `level`.
fn kernelc_ptx(source: &str, level: u8, arch: &str) -> String {
    let fe = driver::frontend_options(80, &[]);
    let program = frontend::check(source, &fe)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("c.cu", source, &d)));
    let mut module = frontend::lower(&program).expect("the kernels lower");
    common::optimize(&mut module, level).expect("the pipeline runs");
    let target = Target::parse(arch).unwrap();
    backend_nvptx::compile_module(&module, &backend_nvptx::Options::new(target))
        .expect("the backend selects the kernels")
}

/// kernelc's PTX of `source` for sm_90 from the command line, with `flags`.
fn kernelc_cli_ptx(source: &str, flags: &[&str], name: &str) -> String {
    let dir = common::scratch(&format!("curand-cli-{name}"));
    let (src, ptx) = (dir.join("curand.cu"), dir.join("kernelc.ptx"));
    std::fs::write(&src, source).unwrap();
    let mut args = vec![
        src.to_str().unwrap(),
        "-arch=sm_90",
        "-o",
        ptx.to_str().unwrap(),
    ];
    args.extend(flags);
    let out = common::kernelc(&args);
    assert!(
        out.status.success(),
        "kernelc {flags:?}: {}",
        common::stderr(&out)
    );
    std::fs::read_to_string(ptx).unwrap()
}

/// nvcc's PTX of `source` for `arch`, with NVIDIA's cuRAND header, or
/// `None` after a loud skip (a failure in CI).
fn nvcc_ptx(source: &str, arch: &str, name: &str) -> Option<String> {
    nvcc_ptx_with(source, arch, name, &[])
}

/// [`nvcc_ptx`] with more of nvcc's flags.
fn nvcc_ptx_with(source: &str, arch: &str, name: &str, more: &[&str]) -> Option<String> {
    let headers = common::cuda_headers_or_skip()?;
    let nvcc = common::nvcc_or_skip("the cuRAND kernels")?;
    let dir = common::scratch(&format!("curand-{name}"));
    let src = dir.join("curand.cu");
    std::fs::write(&src, source).unwrap();
    let mut flags = vec!["-I".to_string(), headers.display().to_string()];
    flags.extend(more.iter().map(|f| f.to_string()));
    Some(common::nvcc_ptx_to(
        &nvcc,
        &src,
        arch,
        &flags,
        &dir.join("nvcc.ptx"),
    ))
}

/// Seeds, subsequences and offsets, one each per thread: every pair of
/// edges in turn, then random 64-bit values.
fn inputs(threads: usize) -> [Vec<u64>; 3] {
    let seeds: &[u64] = &[0, 1, 0xffff_ffff, 1 << 32, u64::MAX, 0xC0FFEE, 20240611];
    let big: &[u64] = &[
        0,
        1,
        2,
        3,
        4,
        5,
        67,
        (1 << 32) - 1,
        1 << 32,
        1 << 40,
        (1 << 40) + 12345,
        1 << 63,
        u64::MAX,
    ];
    let mut rng = SplitMix64(0x00c0_ffee_1234);
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for t in 0..threads {
        let e = big.len();
        if t < e * e {
            out[0].push(seeds[t % seeds.len()]);
            out[1].push(big[t / e]);
            out[2].push(big[t % e]);
        } else {
            for v in &mut out {
                v.push(rng.next_u64());
            }
        }
    }
    out
}

fn bytes(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The output buffers of `kernel` from `ptx` on the emulator.
fn run(ptx: &str, kernel: &str, ins: &[Vec<u64>; 3], n: usize) -> Vec<Vec<u8>> {
    let mut args: Vec<emu::KernelArg> = ins
        .iter()
        .map(|v| emu::KernelArg::Buffer(bytes(v)))
        .collect();
    for per in [32 * 4, 16 * 4, 8 * 8] {
        args.push(emu::KernelArg::Buffer(vec![0xee; per * n]));
    }
    args.push(emu::KernelArg::Scalar {
        bits: n as u64,
        bytes: 4,
        float: false,
        name: "int".into(),
    });
    let cfg = emu::LaunchConfig {
        grid: [(n as u32).div_ceil(BLOCK), 1, 1],
        block: [BLOCK, 1, 1],
        ..emu::LaunchConfig::default()
    };
    let out = emu::run_ptx(ptx, kernel, &args, &cfg)
        .unwrap_or_else(|e| panic!("{kernel} on the emulator: {e:?}"));
    out.buffers[3..6]
        .iter()
        .map(|b| b.clone().unwrap_or_default())
        .collect()
}

/// The output slots (per thread, in the float and the double buffer) that
/// hold normal values (Box-Muller's). They go through `logf` or `log` and
/// `sincospi`, whose last bit kernelc computes its own way (docs/math.md:
/// `logf` is `lg2.approx` times ln 2, `log` and `sincospi` kernelc's
/// polynomials; nvcc's differ in the last bit for about one input in ten),
/// so they may differ by [`NORMAL_ULPS`]; every other output is exact.
fn normal_slots(kernel: &str) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    match kernel {
        "xorwow" => (1..8, 1..8),
        _ => (5..15, 3..8),
    }
}

/// How far a normal value may be from nvcc's, in units in the last place:
/// one for the logarithm, one for the sine or cosine, one for the product.
const NORMAL_ULPS: u64 = 2;

/// The distance in ulps between two floats of one width given as bits
/// (`u64::MAX` when their signs differ).
fn ulps(a: &[u8], b: &[u8]) -> u64 {
    let bits = |x: &[u8]| {
        x.iter()
            .rev()
            .fold(0u64, |acc, &byte| acc << 8 | u64::from(byte))
    };
    let sign = 1u64 << (8 * a.len() - 1);
    let (a, b) = (bits(a), bits(b));
    if (a ^ b) & sign != 0 {
        return u64::MAX;
    }
    a.abs_diff(b)
}

/// The first output where `got` differs from `want` (beyond
/// [`NORMAL_ULPS`] in a normal slot), as a message naming the thread, its
/// inputs and the slot.
fn first_difference(
    kernel: &str,
    want: &[Vec<u8>],
    got: &[Vec<u8>],
    ins: &[Vec<u64>; 3],
) -> Option<String> {
    let (float_normals, double_normals) = normal_slots(kernel);
    for (j, (width, per)) in [(4, 32), (4, 16), (8, 8)].into_iter().enumerate() {
        let normal = |slot: usize| match j {
            1 => float_normals.contains(&slot),
            2 => double_normals.contains(&slot),
            _ => false,
        };
        let Some(at) = want[j]
            .chunks(width)
            .zip(got[j].chunks(width))
            .enumerate()
            .position(|(k, (a, b))| a != b && !(normal(k % per) && ulps(a, b) <= NORMAL_ULPS))
        else {
            continue;
        };
        let t = at / per;
        return Some(format!(
            "buffer {j} slot {} of thread {t} (seed {:#x}, subsequence {:#x}, offset {:#x}): \
             nvcc {:02x?}, kernelc {:02x?}",
            at % per,
            ins[0][t],
            ins[1][t],
            ins[2][t],
            &want[j][at * width..at * width + width],
            &got[j][at * width..at * width + width],
        ));
    }
    None
}

fn agrees_with_nvcc(kernel: &str) {
    let n = 2 * 13 * 13;
    let ins = inputs(n);
    let Some(nvcc) = nvcc_ptx(SOURCE, "sm_90", kernel) else {
        return;
    };
    let want = run(&nvcc, kernel, &ins, n);
    for level in [0, 3] {
        let got = run(&kernelc_ptx(SOURCE, level, "sm_90"), kernel, &ins, n);
        if let Some(d) = first_difference(kernel, &want, &got, &ins) {
            panic!("{kernel} at -O{level} differs from nvcc's PTX on the emulator: {d}");
        }
    }
}

/// The same with nvcc's floating-point flags given to both compilers
/// (fewer threads: the edges of the seeds and subsequences at offset 0 to 4).
#[test]
fn the_float_flags_change_the_draws_as_they_do_nvccs() {
    let n = 64;
    let ins = inputs(n);
    for flags in [&["--fmad=false"][..], &["--use_fast_math"], &["-ftz=true"]] {
        let name = flags[0].replace(|c: char| !c.is_alphanumeric(), "");
        let Some(nvcc) = nvcc_ptx_with(SOURCE, "sm_90", &name, flags) else {
            return;
        };
        let ours = kernelc_cli_ptx(SOURCE, flags, &name);
        for kernel in ["xorwow", "philox"] {
            let (want, got) = (run(&nvcc, kernel, &ins, n), run(&ours, kernel, &ins, n));
            if let Some(d) = first_difference(kernel, &want, &got, &ins) {
                panic!("{kernel} with {flags:?} differs from nvcc's PTX on the emulator: {d}");
            }
        }
    }
}

#[test]
fn xorwow_gives_nvccs_bits() {
    agrees_with_nvcc("xorwow");
}

#[test]
fn philox_gives_nvccs_bits() {
    agrees_with_nvcc("philox");
}

#[test]
fn ptxas_accepts_the_curand_kernels() {
    for arch in ["sm_80", "sm_90"] {
        for level in [0, 3] {
            let ptx = kernelc_ptx(SOURCE, level, arch);
            common::assert_ptxas_accepts(&ptx, arch, &format!("the cuRAND kernels -O{level}"));
        }
    }
}

/// `.entry` names in PTX, sorted.
fn entries(ptx: &str) -> Vec<String> {
    let mut names: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn kernels_taking_states_have_nvccs_names() {
    let source = r#"
#include <curand_kernel.h>
__global__ void a(curandState *s, int n) {}
__global__ void b(curandStateXORWOW_t *s, const curandState_t *t) {}
__global__ void c(curandStatePhilox4_32_10_t *s, unsigned long long seed) {}
__global__ void d(curandStatePhilox4_32_10 *s, curandStateXORWOW *t, curandState *u) {}
"#;
    let ours = entries(&kernelc_ptx(source, 3, "sm_90"));
    assert_eq!(ours.len(), 4, "{ours:?}");
    let Some(nvcc) = nvcc_ptx(source, "sm_90", "names") else {
        return;
    };
    assert_eq!(ours, entries(&nvcc));
}

#[test]
fn an_unused_include_adds_nothing_to_the_ptx() {
    let body = "__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n";
    let with = format!("#include <curand_kernel.h>\n{body}");
    // Its functions are not even lowered (frontend/src/prune.rs), so they
    // cost the optimizer nothing.
    let functions = |src: &str| {
        let program = frontend::check(src, &driver::frontend_options(80, &[])).unwrap();
        let module = frontend::lower(&program).unwrap();
        let names: Vec<String> = module.functions.values().map(|f| f.name.clone()).collect();
        names
    };
    assert_eq!(functions(&with), functions(body));
    // One function used: it and what it calls, no more. The header's
    // functions are `static`, as CUDA's are, so named in the file's
    // `_INTERNAL_` namespace (its placeholder: a source given as text has
    // no path to make nvcc's from).
    let one = "#include <curand_kernel.h>\n\
               __global__ void k(curandState *s, float *x) { x[0] = curand_uniform(s); }\n";
    assert_eq!(
        functions(one),
        [
            "_ZN11_INTERNAL_121__kernelc_curand_unitEj",
            "_ZN11_INTERNAL_16curandEP17curandStateXORWOW",
            "_ZN11_INTERNAL_114curand_uniformEP17curandStateXORWOW",
            "_Z1kP17curandStateXORWOWPf"
        ]
    );
    for level in [0, 3] {
        assert_eq!(
            kernelc_ptx(&with, level, "sm_90"),
            kernelc_ptx(body, level, "sm_90"),
            "-O{level}"
        );
    }
}

#[test]
fn other_generators_are_located_errors_that_name_them() {
    let cases = [
        ("curandStateMRG32k3a_t s;", "MRG32k3a"),
        ("curandStateSobol32_t s;", "Sobol"),
        ("curandStateMtgp32 *s = 0;", "MTGP32"),
        ("float v = curand_log_normal(&st, 0.f, 1.f);", "log-normal"),
        ("unsigned v = curand_poisson(&st, 4.0);", "Poisson"),
    ];
    for (line, generator) in cases {
        let src = format!(
            "#include <curand_kernel.h>\n__global__ void k(float *o) {{\n  curandState st;\n  {line}\n}}\n"
        );
        let fe = driver::frontend_options(80, &[]);
        let d = frontend::check(&src, &fe).expect_err(line);
        let text = frontend::render_diagnostics("c.cu", &src, &d);
        assert!(
            text.contains("error[E0002]")
                && text.contains("is not supported by kernelc")
                && text.contains(generator)
                && text.contains("c.cu:4:"),
            "{line}:\n{text}"
        );
    }
}
