//! Throughput of the two engines of `kernelc run` that need no GPU, in
//! thread-instructions per second: `cargo bench --bench engines`.
//!
//! For each sample, the IR interpreter runs the -O3 IR and the PTX
//! emulator runs the -O3 PTX, with the sample's run spec. One iteration is
//! one whole launch; criterion's throughput is the launch's executed
//! instructions summed over all threads (IR instructions for the
//! interpreter, PTX instructions for the emulator), so `elem/s` reads as
//! thread-instructions per second. Compilation is done once, outside the
//! timing. Figures are in docs/running.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernelc::driver;
use kernelc::run::{parse_arg, spec_words, ArgValue};
use ptx_emu as emu;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const SAMPLES: &[&str] = &[
    "vadd",
    "saxpy",
    "matmul_clamp",
    "stencil_shared",
    "cp_async_copy",
    "wmma_gemm",
    "mma_ldmatrix_gemm",
];

/// A sample's launch, read from its run spec.
struct Launch {
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: Vec<ArgValue>,
}

fn launch(name: &str) -> Launch {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join(format!("samples/{name}.run"))).unwrap();
    let words = spec_words(&spec);
    let mut l = Launch {
        kernel: String::new(),
        grid: [1; 3],
        block: [1; 3],
        shared: 0,
        args: Vec::new(),
    };
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let mut value = || it.next().expect("an option's value").clone();
        match w.as_str() {
            "--kernel" => l.kernel = value(),
            "--grid" => l.grid = kernelc::run::parse_dims(&value(), "grid").unwrap(),
            "--block" => l.block = kernelc::run::parse_dims(&value(), "block").unwrap(),
            "--shared-bytes" => l.shared = value().parse().unwrap(),
            arg => l.args.push(parse_arg(arg).unwrap()),
        }
    }
    l
}

fn engines(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in SAMPLES {
        let path = root.join(format!("samples/{name}.cu"));
        let src = std::fs::read_to_string(&path).unwrap();
        let l = launch(name);
        let fe = driver::frontend_options(80, &[]);
        let program = frontend::check(&src, &fe).expect("the sample compiles");
        let mut module = frontend::lower(&program).expect("the sample lowers");
        let pipeline = driver::pipeline_for(&driver::CompileOptions::default());
        driver::optimize(&mut module, &pipeline, None).expect("the -O3 pipeline");
        let ptx = driver::compile_source(name, &src, &driver::CompileOptions::default())
            .expect("the sample compiles to PTX");

        let iargs: Vec<kir_interp::KernelArg> = l
            .args
            .iter()
            .map(|a| match a {
                ArgValue::Scalar { elem, bits } => kir_interp::KernelArg::Scalar {
                    ty: elem.ir_type(),
                    bits: *bits,
                },
                ArgValue::Buffer { bytes, .. } | ArgValue::TensorMap { bytes, .. } => {
                    kir_interp::KernelArg::Buffer(bytes.clone())
                }
                ArgValue::Texture { resource, .. } => {
                    kir_interp::KernelArg::Texture(resource.clone())
                }
            })
            .collect();
        let eargs: Vec<emu::KernelArg> = l
            .args
            .iter()
            .map(|a| match a {
                ArgValue::Scalar { elem, bits } => emu::KernelArg::Scalar {
                    bits: *bits,
                    bytes: elem.size() as u32,
                    float: matches!(elem.name(), "f32" | "f64" | "f16"),
                    name: elem.name().into(),
                },
                ArgValue::Buffer { bytes, .. } | ArgValue::TensorMap { bytes, .. } => {
                    emu::KernelArg::Buffer(bytes.clone())
                }
                ArgValue::Texture { resource, .. } => emu::KernelArg::Texture(resource.clone()),
            })
            .collect();
        let iconfig = kir_interp::LaunchConfig {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.shared,
            ..kir_interp::LaunchConfig::default()
        };
        let econfig = emu::LaunchConfig {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.shared,
            ..emu::LaunchConfig::default()
        };
        let run_interp = || kir_interp::run_kernel(&module, &l.kernel, &iargs, &iconfig).unwrap();
        let run_emu = || emu::run_ptx(&ptx, &l.kernel, &eargs, &econfig).unwrap();

        let mut g = c.benchmark_group(format!("engines/{name}"));
        g.throughput(Throughput::Elements(run_interp().steps));
        g.bench_function(BenchmarkId::from_parameter("interp"), |b| {
            b.iter(|| black_box(run_interp()))
        });
        g.throughput(Throughput::Elements(run_emu().steps));
        g.bench_function(BenchmarkId::from_parameter("emu"), |b| {
            b.iter(|| black_box(run_emu()))
        });
        g.finish();
    }
}

/// Short runs: the machine is small and shared.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
}

criterion_group! {
    name = benches;
    config = config();
    targets = engines
}
criterion_main!(benches);
