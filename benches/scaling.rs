//! Whole compile time (source to PTX) against the size of the input:
//! `cargo bench --bench scaling`.
//!
//! * `scaling/<shape>/N`: one kernel of N statements of a shape
//!   (straight-line arithmetic, loops, ifs, indexing, all mixed).
//! * `scaling/helpers/H`: H `__noinline__` helpers with a generic pointer
//!   parameter, chained (each calls the previous), and 2H call sites
//!   passing shared and global pointers in turn: inter-procedural
//!   memory-space propagation and cloning.
//! * `scaling/calls/C`: 16 helpers and C call sites.
//!
//! Throughput is reported per statement (or helper, or call), so a flat
//! throughput across sizes means linear growth. `cargo bench --bench
//! growth` fits the exponent and shows which stage grows fastest.

mod support;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use support::gen::{self, Shape};
use support::pipeline as p;

fn bench_sources(c: &mut Criterion, group: &str, cases: Vec<(usize, String)>) {
    let opts = p::options();
    let mut g = c.benchmark_group(format!("scaling/{group}"));
    for (n, src) in cases {
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &src, |b, src| {
            b.iter(|| p::whole(black_box(src), &opts))
        });
    }
    g.finish();
}

/// Sizes of the kernels: 1k and 10k statements, and 100k with
/// `KERNELC_BENCH_LARGE=1` (minutes per shape while the midend grows
/// faster than linearly; see docs/performance.md).
fn kernel_sizes() -> Vec<usize> {
    let mut sizes = vec![1_000, 10_000];
    if std::env::var("KERNELC_BENCH_LARGE").is_ok_and(|v| v == "1") {
        sizes.push(100_000);
    }
    sizes
}

fn kernels(c: &mut Criterion) {
    for shape in Shape::ALL {
        let cases = kernel_sizes()
            .into_iter()
            .map(|n| (n, gen::kernel(shape, n)))
            .collect();
        bench_sources(c, shape.name(), cases);
    }
}

fn helpers(c: &mut Criterion) {
    let cases = [10, 100, 1_000]
        .into_iter()
        .map(|h| (h, gen::helpers(h, 2 * h)))
        .collect();
    bench_sources(c, "helpers", cases);
    let cases = [100, 1_000, 10_000]
        .into_iter()
        .map(|n| (n, gen::helpers(16, n)))
        .collect();
    bench_sources(c, "calls", cases);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
}

criterion_group! {
    name = benches;
    config = config();
    targets = kernels, helpers
}
criterion_main!(benches);
