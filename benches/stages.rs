//! Compile time of each pipeline stage, for every sample and for a few
//! generated large kernels: `cargo bench --bench stages`.
//!
//! The stages are those of `src/driver.rs`: `parse` (lexing, preprocessing
//! and parsing), `check` (parse + semantic analysis, as `frontend::check`
//! does both), `lower` (typed tree to IR), `midend` (the -O3 passes with the
//! verifier after each), `verify` (one verifier run) and `backend` (IR to
//! PTX text). Each stage's input is prepared once, outside the timing.

mod support;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use support::gen::{self, Shape};
use support::pipeline as p;

fn inputs() -> Vec<(String, String)> {
    let mut all = gen::samples();
    all.push(("gen_mixed_10k".into(), gen::kernel(Shape::Mixed, 10_000)));
    all.push(("gen_helpers_200x400".into(), gen::helpers(200, 400)));
    all
}

fn stages(c: &mut Criterion) {
    let opts = p::options();
    let fe = p::frontend_options();
    for (name, src) in inputs() {
        let mut g = c.benchmark_group(format!("stages/{name}"));
        let program = p::check(&src, &fe);
        let lowered = p::lower(&program);
        let optimized = p::midend(&lowered, &opts);
        g.bench_function(BenchmarkId::from_parameter("parse"), |b| {
            b.iter(|| p::parse(black_box(&src), &fe))
        });
        g.bench_function(BenchmarkId::from_parameter("check"), |b| {
            b.iter(|| p::check(black_box(&src), &fe))
        });
        g.bench_function(BenchmarkId::from_parameter("lower"), |b| {
            b.iter(|| p::lower(black_box(&program)))
        });
        g.bench_function(BenchmarkId::from_parameter("midend"), |b| {
            b.iter(|| p::midend(black_box(&lowered), &opts))
        });
        g.bench_function(BenchmarkId::from_parameter("verify"), |b| {
            b.iter(|| p::verify(black_box(&optimized)))
        });
        g.bench_function(BenchmarkId::from_parameter("backend"), |b| {
            b.iter(|| p::backend(black_box(&optimized), &opts))
        });
        g.bench_function(BenchmarkId::from_parameter("whole"), |b| {
            b.iter(|| p::whole(black_box(&src), &opts))
        });
        g.finish();
    }
}

/// Short runs: the machine is small and shared. Pass criterion's own
/// `--measurement-time`/`--sample-size` flags for more precise numbers.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
}

criterion_group! {
    name = benches;
    config = config();
    targets = stages
}
criterion_main!(benches);
