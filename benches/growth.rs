//! Fits the growth exponent of compile time against input size, per stage:
//! `cargo bench --bench growth [-- FAMILY...]`.
//!
//! For each family of generated inputs (`straight`, `loops`, `ifs`,
//! `indexing`, `mixed`, `runtime-loops`, `helpers`, `rewrites`, `fan-in`,
//! `globals`, `kernels`, `host`, `instances`, `calls`;
//! all by default) it times every
//! stage at sizes growing by 4×, takes the median of a few runs, and
//! prints the least-squares slope of log(time) against log(size). A slope
//! near 1 is linear growth; 2 is quadratic. `KERNELC_GROWTH_MAX=N` sets the
//! largest size (default 16000 statements; helpers and calls scale down
//! from it), `KERNELC_GROWTH_RUNS=N` the runs per point (default 3),
//! `KERNELC_GROWTH_DUMP=DIR` writes each generated source there (to profile
//! one with `kernelc` itself), and `KERNELC_GROWTH_ICOUNT=1` also counts the
//! instructions a whole `kernelc` process executes at each size (under
//! valgrind's cachegrind, when installed) and fits their exponent: time on a
//! large input grows faster than the work, once the compiler's data no
//! longer fits the caches, and the count shows the work alone.
//!
//! This is not a criterion benchmark: it needs many sizes and one number
//! per stage, not a distribution per size.

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};
use support::gen::{self, Shape};
use support::pipeline as p;

/// The median time of `runs` runs of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// The least-squares slope of `ys` against `xs`, both in log space.
fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let lx: Vec<f64> = points.iter().map(|p| p.0.ln()).collect();
    let ly: Vec<f64> = points.iter().map(|p| p.1.ln()).collect();
    let mx = lx.iter().sum::<f64>() / n;
    let my = ly.iter().sum::<f64>() / n;
    let cov: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let var: f64 = lx.iter().map(|x| (x - mx) * (x - mx)).sum();
    cov / var
}

/// The median time of each midend pass over `runs` runs, then of all the
/// verifier runs the midend makes, as (name, time) pairs.
fn time_passes(src: &str, runs: usize) -> Vec<(String, Duration)> {
    let opts = p::options();
    let lowered = p::lower(&p::check(src, &p::frontend_options()));
    let all: Vec<_> = (0..runs)
        .map(|_| p::midend_passes(&lowered, &opts))
        .collect();
    let mut out = Vec::new();
    for (i, (name, _, _)) in all[0].iter().enumerate() {
        let mut t: Vec<Duration> = all.iter().map(|r| r[i].1).collect();
        t.sort();
        out.push((name.to_string(), t[t.len() / 2]));
    }
    let mut v: Vec<Duration> = all.iter().map(|r| r.iter().map(|x| x.2).sum()).collect();
    v.sort();
    out.push(("(verifier)".to_string(), v[v.len() / 2]));
    out
}

/// Times of each stage (in [`p::STAGES`] order, then the whole compile)
/// for one source.
fn time_stages(src: &str, runs: usize) -> Vec<Duration> {
    let opts = p::options();
    let fe = p::frontend_options();
    let program = p::check(src, &fe);
    let lowered = p::lower(&program);
    let optimized = p::midend(&lowered, &opts);
    vec![
        median(runs, || drop(black_box(p::parse(src, &fe)))),
        median(runs, || drop(black_box(p::check(src, &fe)))),
        median(runs, || drop(black_box(p::lower(&program)))),
        median(runs, || drop(black_box(p::midend(&lowered, &opts)))),
        median(runs, || p::verify(black_box(&optimized))),
        median(runs, || drop(black_box(p::backend(&optimized, &opts)))),
        median(runs, || drop(black_box(p::whole(src, &opts)))),
    ]
}

/// The instructions one `kernelc` process executes to compile `src` (one
/// thread), counted by valgrind's cachegrind; `None` without valgrind. The
/// count does not depend on caches, the allocator's page faults or other
/// programs on the machine, so its exponent isolates the compiler's own
/// work from the memory hierarchy's share of the time.
fn instruction_count(src: &str, name: &str) -> Option<u64> {
    let dir = std::env::temp_dir().join(format!("kernelc-growth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join(format!("{name}.cu"));
    std::fs::write(&file, src).ok()?;
    let out = std::process::Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(env!("CARGO_BIN_EXE_kernelc"))
        .arg(&file)
        .args(["-arch=sm_90", "-o", "/dev/null", "--threads", "1"])
        .output()
        .ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        return None;
    }
    // `==PID== I   refs:      1,650,929,148` (older valgrind) or `I refs:`.
    String::from_utf8_lossy(&out.stderr).lines().find_map(|l| {
        let (_, rest) = l.split_once("refs:")?;
        l.contains(" I ")
            .then(|| rest.trim().replace(',', "").parse().ok())?
    })
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Sizes from `max` down by factors of 4, at least `min`, smallest first.
fn sizes(min: usize, max: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut n = max;
    while n >= min {
        v.push(n);
        n /= 4;
    }
    v.reverse();
    v
}

// Long: the benchmark's script: one measurement per stage and size, in
// the order the report prints them.
fn main() {
    // `cargo bench` passes `--bench`; a `cargo test --all-targets` run does
    // not, and should not spend minutes measuring.
    if !std::env::args().any(|a| a == "--bench") {
        println!("growth: a measurement, not a test; run `cargo bench --bench growth`");
        return;
    }
    let max = env_usize("KERNELC_GROWTH_MAX", 16_000);
    let count_instructions = std::env::var_os("KERNELC_GROWTH_ICOUNT").is_some();
    let runs = env_usize("KERNELC_GROWTH_RUNS", 3).max(1);
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    type Family = (
        &'static str,
        &'static str,
        Vec<usize>,
        Box<dyn Fn(usize) -> String>,
    );
    let mut families: Vec<Family> = Shape::ALL
        .into_iter()
        .map(|shape| {
            (
                shape.name(),
                "statements",
                sizes(1_000, max),
                Box::new(move |n| gen::kernel(shape, n)) as Box<dyn Fn(usize) -> String>,
            )
        })
        .collect();
    families.push((
        "helpers",
        "helpers (2 calls each)",
        sizes(16, max / 64),
        Box::new(|h| gen::helpers(h, 2 * h)),
    ));
    families.push((
        "rewrites",
        "statements (one long block, one long loop body)",
        sizes(1_000, max / 2),
        Box::new(gen::rewrites),
    ));
    families.push((
        "fan-in",
        "statements (switch cases, then loop exits)",
        sizes(1_000, max / 2),
        Box::new(gen::fan_in),
    ));
    families.push((
        "globals",
        "__constant__ arrays (one load each)",
        sizes(1_000, max / 4),
        Box::new(gen::globals),
    ));
    families.push((
        "kernels",
        "kernels (a __shared__ array each, one helper)",
        sizes(250, max / 16),
        Box::new(gen::kernels),
    ));
    families.push((
        "host",
        "host functions (classes, lambdas, launches) around one kernel",
        sizes(250, max / 4),
        Box::new(gen::host_code),
    ));
    families.push((
        "instances",
        "instantiations of a kernel template, launched from main",
        sizes(250, max / 16),
        Box::new(gen::instances),
    ));
    families.push((
        "calls",
        "calls (16 helpers)",
        sizes(64, max / 8),
        Box::new(|c| gen::helpers(16, c)),
    ));

    println!(
        "growth exponents (slope of log time vs log size; 1.0 = linear), median of {runs} runs"
    );
    let mut header = format!("{:<10} {:>8}", "family", "size");
    for s in p::STAGES.iter().chain(&["whole"]) {
        header.push_str(&format!(" {s:>10}"));
    }
    for (name, unit, ns, make) in families {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == name) {
            continue;
        }
        println!("\n{name}: size = {unit}, times in ms");
        println!("{header}");
        let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); p::STAGES.len() + 1];
        let mut pass_points: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        let mut simplify_points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 3];
        let mut rounds = Vec::new();
        let mut counts: Vec<(f64, f64)> = Vec::new();
        for &n in &ns {
            let src = make(n);
            if let Ok(dir) = std::env::var("KERNELC_GROWTH_DUMP") {
                let path = std::path::Path::new(&dir).join(format!("{name}-{n}.cu"));
                std::fs::write(&path, &src).expect("KERNELC_GROWTH_DUMP is writable");
            }
            let lowered = p::lower(&p::check(&src, &p::frontend_options()));
            let (r, sub) = p::simplify_breakdown(&lowered, &p::options());
            rounds.push(r);
            for (pts, t) in simplify_points.iter_mut().zip(sub) {
                pts.push((n as f64, t.as_secs_f64().max(1e-9)));
            }
            if count_instructions {
                if let Some(c) = instruction_count(&src, &format!("{name}-{n}")) {
                    counts.push((n as f64, c as f64));
                }
            }
            let times = time_stages(&src, runs);
            for (i, (pass, t)) in time_passes(&src, runs).into_iter().enumerate() {
                if pass_points.len() <= i {
                    pass_points.push((pass, Vec::new()));
                }
                pass_points[i].1.push((n as f64, t.as_secs_f64().max(1e-9)));
            }
            let mut line = format!("{name:<10} {n:>8}");
            for (i, t) in times.iter().enumerate() {
                let ms = t.as_secs_f64() * 1e3;
                line.push_str(&format!(" {ms:>10.3}"));
                points[i].push((n as f64, t.as_secs_f64().max(1e-9)));
            }
            println!("{line}");
        }
        let mut line = format!("{name:<10} {:>8}", "exponent");
        let mut worst: Option<(&str, f64)> = None;
        for (i, pts) in points.iter().enumerate() {
            let slope = log_log_slope(pts);
            line.push_str(&format!(" {slope:>10.2}"));
            let stage = p::STAGES.get(i).copied().unwrap_or("whole");
            if slope > 1.2 && worst.is_none_or(|(_, w)| slope > w) {
                worst = Some((stage, slope));
            }
        }
        println!("{line}");
        let mut line = format!("{name:<10} midend passes at the largest size (ms, exponent):");
        for (pass, pts) in &pass_points {
            let last = pts.last().map_or(0.0, |p| p.1 * 1e3);
            line.push_str(&format!(" {pass} {last:.1} ({:.2});", log_log_slope(pts)));
        }
        println!("{line}");
        let mut line = format!(
            "{name:<10} simplify rounds per size {rounds:?}; at the largest size (ms, exponent):"
        );
        for (sub, pts) in ["fold", "cfg-cleanup", "dce"].iter().zip(&simplify_points) {
            let last = pts.last().map_or(0.0, |p| p.1 * 1e3);
            line.push_str(&format!(" {sub} {last:.1} ({:.2});", log_log_slope(pts)));
        }
        println!("{line}");
        if count_instructions {
            if counts.len() == ns.len() {
                let list: Vec<String> = counts
                    .iter()
                    .map(|c| format!("{:.0}M", c.1 / 1e6))
                    .collect();
                println!(
                    "{name:<10} instructions executed (valgrind), whole compile: {}; exponent {:.2}",
                    list.join(", "),
                    log_log_slope(&counts)
                );
            } else {
                println!("{name:<10} instructions executed: valgrind is not available");
            }
        }
        if let Some((stage, slope)) = worst {
            println!("{name}: SUPERLINEAR: stage `{stage}` grows as size^{slope:.2}");
        }
    }
}
