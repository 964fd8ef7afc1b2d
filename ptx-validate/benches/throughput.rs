//! Validation throughput on large PTX, next to ptxas on the same files:
//! `cargo bench -p ptx-validate --bench throughput`.
//!
//! Two inputs are built in memory:
//!
//! * `corpus×N`: the sm_90 kernels of the valid corpus (kernelc's and
//!   nvcc's PTX for the samples), repeated with each `.entry` renamed until
//!   the module reaches the target size: many realistic kernels;
//! * `one-kernel`: one generated kernel with a long straight-line body of
//!   address arithmetic, loads, float math, compares, branches and stores
//!   over tens of thousands of registers: one huge function.
//!
//! For each, it prints the best time (of a few runs) of the lexer, the
//! parser (which lexes too) and the whole validation (parse and check), the
//! validation throughput in MB/s, and the time of `ptxas -arch=sm_90` on the
//! same file when ptxas is installed. Validation and ptxas are timed in
//! wall time and in CPU time (Linux's per-thread and per-child clocks),
//! because on a shared machine the wall time mostly measures the
//! neighbours; the ratio `ptxas/v` compares CPU times. `PTXV_BENCH_MB=N` sets the size of each
//! input (default 8), `PTXV_BENCH_RUNS=N` the runs per figure (default 5);
//! `PTXV_BENCH_PTXAS=0` skips ptxas.
//!
//! This is a plain program, not a criterion benchmark: one throughput figure
//! per input is what is wanted, and ptxas takes seconds per run.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The CPU time this thread has run, from Linux's
/// `/proc/thread-self/schedstat` (nanoseconds on the CPU, first field).
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The CPU time of this process's waited-for children (`cutime + cstime`
/// of `/proc/self/stat`, in clock ticks of 1/100 s).
fn children_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = text.rsplit(')').next()?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let user: u64 = fields.get(13)?.parse().ok()?;
    let system: u64 = fields.get(14)?.parse().ok()?;
    Some(Duration::from_millis((user + system) * 10))
}

/// Wall and CPU time of one run of `f` (CPU time is the wall time where
/// Linux's per-thread clock cannot be read).
fn timed(f: impl FnOnce()) -> (Duration, Duration) {
    let cpu0 = thread_cpu();
    let start = Instant::now();
    f();
    let wall = start.elapsed();
    let cpu = match (cpu0, thread_cpu()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => wall,
    };
    (wall, cpu)
}

/// The best (wall, CPU) times of `runs` runs of `f`: on a shared machine
/// the other loads only ever add time, so the minimum is the least noisy
/// figure, and CPU time leaves out the waits for a core.
fn best(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let times: Vec<(Duration, Duration)> = (0..runs.max(1)).map(|_| timed(&mut f)).collect();
    let wall = times.iter().map(|t| t.0).min().unwrap_or_default();
    let cpu = times.iter().map(|t| t.1).min().unwrap_or_default();
    (wall, cpu)
}

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\n";

/// The corpus kernels (only `.entry` functions, no module-level symbols, so
/// renaming the entry is enough to repeat them) without their headers, as
/// (entry name, text).
fn corpus_kernels() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/valid");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if !name.ends_with("_sm_90.ptx") || name.starts_with("facts_") {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&f) else {
            continue;
        };
        if src.contains(".func") || src.matches(".entry").count() != 1 {
            continue;
        }
        let body: String = src
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                !(t.starts_with(".version")
                    || t.starts_with(".target")
                    || t.starts_with(".address_size"))
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let Some(entry) = body
            .split(".entry")
            .nth(1)
            .and_then(|rest| rest.split('(').next())
            .map(|n| n.trim().to_string())
        else {
            continue;
        };
        out.push((entry, body));
    }
    out
}

/// The corpus kernels repeated (entries renamed `NAME_i`) to `bytes`.
fn corpus_module(bytes: usize) -> String {
    let kernels = corpus_kernels();
    let mut s = String::from(HEADER);
    if kernels.is_empty() {
        return s;
    }
    let mut i = 0usize;
    while s.len() < bytes {
        let (entry, body) = &kernels[i % kernels.len()];
        s.push_str(&body.replacen(
            &format!(".entry {entry}("),
            &format!(".entry {entry}_{i}("),
            1,
        ));
        i += 1;
    }
    s
}

/// One kernel with a straight-line body of about `bytes`.
fn one_kernel(bytes: usize) -> String {
    // One step: about 330 bytes, 2 .b64 + 3 .b32 + 3 .f32 + 1 .pred registers.
    let steps = bytes / 330 + 1;
    let mut s = String::with_capacity(bytes + 4096);
    s.push_str(HEADER);
    s.push_str(".visible .entry big(.param .u64 big_param_0, .param .u32 big_param_1)\n{\n");
    s.push_str(&format!(
        "\t.reg .pred %p<{}>;\n\t.reg .b32 %r<{}>;\n\t.reg .f32 %f<{}>;\n\t.reg .b64 %rd<{}>;\n\n",
        steps + 1,
        3 * steps + 3,
        3 * steps + 3,
        2 * steps + 3
    ));
    s.push_str("\tld.param.u64 %rd1, [big_param_0];\n\tld.param.u32 %r1, [big_param_1];\n");
    s.push_str("\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.f32 %f2, 0f00000000;\n");
    for k in 1..=steps {
        let (r, f, rd) = (3 * k, 3 * k, 2 * k + 1);
        s.push_str(&format!(
            "\tadd.s32 %r{r}, %r1, {k};\n\
             \tmul.wide.s32 %rd{rd}, %r{r}, 4;\n\
             \tadd.s64 %rd{}, %rd2, %rd{rd};\n\
             \tld.global.f32 %f{f}, [%rd{}+16];\n\
             \tfma.rn.f32 %f{}, %f{f}, 0f3F800000, %f{};\n\
             \tsetp.lt.s32 %p{k}, %r{r}, 1000;\n\
             \t@%p{k} bra $L_{k};\n\
             \tst.global.f32 [%rd{}], %f{};\n\
             $L_{k}:\n\
             \tcvt.rzi.s32.f32 %r{}, %f{};\n",
            rd + 1,
            rd + 1,
            f + 1,
            f - 1,
            rd + 1,
            f + 1,
            r + 1,
            f + 1,
        ));
    }
    s.push_str("\tret;\n}\n");
    s
}

/// The wall and CPU times of `ptxas -arch=sm_90` on `ptx` (one run), or
/// why not.
fn time_ptxas(ptx: &str) -> Result<(Duration, Duration), String> {
    let ptxas = ptx_validate::driver::find_ptxas().ok_or("ptxas not found")?;
    let cpu0 = children_cpu();
    let start = Instant::now();
    let out = ptx_validate::driver::assemble(&ptxas, ptx, "sm_90", &[])
        .map_err(|e| format!("cannot run ptxas: {e}"))?;
    let wall = start.elapsed();
    let cpu = match (cpu0, children_cpu()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => wall,
    };
    if !out.accepted {
        let first = out.raw.lines().next().unwrap_or("");
        return Err(format!("ptxas rejected it: {first}"));
    }
    Ok((wall, cpu))
}

fn main() {
    // `cargo bench` passes `--bench`; this program takes no arguments.
    let mb = env_usize("PTXV_BENCH_MB", 8);
    let runs = env_usize("PTXV_BENCH_RUNS", 5);
    let with_ptxas = std::env::var("PTXV_BENCH_PTXAS").map_or(true, |v| v != "0");
    let inputs = [
        ("corpus×N", corpus_module(mb << 20)),
        ("one-kernel", one_kernel(mb << 20)),
    ];
    println!("ms, best of {runs} (ptxas: one run); (cpu): CPU time of the thread or of ptxas");
    println!(
        "{:<11} {:>6} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6} {:>7} {:>7} {:>8}",
        "input",
        "MB",
        "lex",
        "parse",
        "validate",
        "(cpu)",
        "MB/s",
        "(cpu)",
        "ptxas",
        "(cpu)",
        "ptxas/v"
    );
    for (name, ptx) in &inputs {
        let report = ptx_validate::validate(ptx);
        if !report.ok() {
            let first = report.diags.first().map(|d| d.ptxas_form(name));
            println!("{name}: the generated PTX is predicted invalid: {first:?}");
            continue;
        }
        let size = ptx.len() as f64 / (1u64 << 20) as f64;
        let (lex, _) = best(runs, || {
            black_box(ptx_validate::lexer::lex(black_box(ptx)));
        });
        let (parse, _) = best(runs, || {
            let _ = black_box(ptx_validate::parser::parse(black_box(ptx)));
        });
        let (validate, validate_cpu) = best(runs, || {
            black_box(ptx_validate::validate(black_box(ptx)));
        });
        let ms = |d: Duration| format!("{:.0}", d.as_secs_f64() * 1e3);
        let rate = |d: Duration| format!("{:.1}", size / d.as_secs_f64().max(1e-9));
        let ptxas = if with_ptxas {
            time_ptxas(ptx)
        } else {
            Err("skipped".to_string())
        };
        let (ptxas_wall, ptxas_cpu, ratio) = match &ptxas {
            Ok((wall, cpu)) => {
                let r = cpu.as_secs_f64() / validate_cpu.as_secs_f64().max(1e-9);
                (ms(*wall), ms(*cpu), format!("{r:.0}×"))
            }
            Err(_) => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "{name:<11} {size:>6.2} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6} {ptxas_wall:>7} {ptxas_cpu:>7} {ratio:>8}",
            ms(lex),
            ms(parse),
            ms(validate),
            ms(validate_cpu),
            rate(validate),
            rate(validate_cpu),
        );
        if let Err(why) = ptxas {
            println!("  (ptxas: {why})");
        }
    }
}
