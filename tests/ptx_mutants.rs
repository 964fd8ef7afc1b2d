//! ptx-validate against ptxas on random mutants of real PTX.
//!
//! The PTX comes from kernelc (every sample and corpus kernel, compiled in
//! process at two targets and two `-O` levels), from nvcc (`-ptx` of every
//! kernel of `tests/outside/`, kept under the target folder between runs)
//! and from ptx-validate's own valid corpus (which holds nvcc's PTX of every
//! sample). Each file must be accepted by both tools. Then
//! `ptx_validate::mutate` makes seeded random mutants of them (one change
//! each: tokens, types, modifiers, opcodes, operands, numbers, addresses,
//! guards, lines, declarations, directives, `.version`, `.target`, and
//! statements that exercise target and version rules), and each mutant is
//! judged by both tools. They must agree on at least 99.5% of the mutants
//! of each seed, and ptx-validate may never reject a mutant ptxas accepts.
//!
//! `PTXV_MUTANTS` (default 600 a seed), `PTXV_SEED`, `PTXV_SEEDS` (a
//! comma-separated list, each measured on its own) and `PTXV_THREADS`
//! (default 2) set a larger campaign by hand; `PTXV_FULL=1` adds nvcc's PTX
//! of the samples and of the programs of `tests/programs/` to the sources;
//! `PTXV_DUMP=DIR` writes every mutant on which the tools disagree to DIR.
//! Without ptxas the test prints a SKIPPED line (and fails under
//! `CI=true`); without nvcc too.

mod common;

use kernelc::driver::{self, CompileOptions};
use ptx_validate::driver::run_ptxas;
use ptx_validate::mutate::{self, Mutant, Pools, Rng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The agreement the suite requires, in percent.
const REQUIRED_AGREEMENT: f64 = 99.5;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The `.cu` files of a folder of the workspace, sorted.
fn cuda_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    v.sort();
    v
}

fn file_name(p: &Path) -> String {
    p.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// kernelc's PTX of every sample and corpus kernel: at sm_80 and sm_90 (or
/// the kernel's own target) with -O3, and at sm_90 with -O0.
fn kernelc_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let files: Vec<PathBuf> = cuda_files("samples")
        .into_iter()
        .chain(cuda_files("tests/corpus"))
        .collect();
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap();
        let mut configs = Vec::new();
        for (usual, level) in [("sm_80", 3), ("sm_90", 3), ("sm_90", 0)] {
            let target = common::target_for(&source, usual);
            if !configs.contains(&(target.clone(), level)) {
                configs.push((target, level));
            }
        }
        for (target, level) in configs {
            let mut opts = CompileOptions {
                target: kernelc::backend_nvptx::Target::parse(&target).unwrap(),
                opt_level: level,
                ..CompileOptions::default()
            };
            // Two corpus kernels keep `__restrict__` pointers in structs
            // (tests/corpus.rs compiles them so too); no other changes.
            opts.restrict_opts.allow_in_struct = true;
            let ptx = driver::compile_source(&path.display().to_string(), &source, &opts)
                .unwrap_or_else(|e| panic!("kernelc rejects {}: {e}", path.display()));
            out.push((
                format!("kernelc {} {target} -O{level}", file_name(&path)),
                ptx,
            ));
        }
    }
    out
}

/// nvcc's PTX of every kernel of `tests/outside/` at sm_90 or the file's
/// own target (the valid corpus holds nvcc's PTX of every sample already);
/// with `full`, of every sample and of the programs of
/// `tests/programs/MANIFEST` nvcc compiles too. `None` without nvcc (a
/// failure in CI).
fn nvcc_sources(full: bool) -> Option<Vec<(String, String)>> {
    let nvcc = common::nvcc_or_skip("nvcc's PTX as mutation sources")?;
    let mut jobs: Vec<(PathBuf, Vec<String>)> = Vec::new();
    if full {
        jobs.extend(cuda_files("samples").into_iter().map(|p| (p, Vec::new())));
    }
    jobs.extend(
        cuda_files("tests/outside")
            .into_iter()
            .map(|p| (p, Vec::new())),
    );
    if full {
        jobs.extend(program_jobs());
    }
    let compile = |(path, flags): &(PathBuf, Vec<String>)| {
        let source = std::fs::read_to_string(path).unwrap();
        let target = common::target_for(&source, "sm_90");
        let ptx = cached_nvcc_ptx(&nvcc, path, &source, &target, flags)?;
        let flags = if flags.is_empty() {
            String::new()
        } else {
            " (flags)".to_string()
        };
        Some((format!("nvcc {} {target}{flags}", file_name(path)), ptx))
    };
    Some(
        in_parallel(&jobs, 2, compile)
            .into_iter()
            .flatten()
            .collect(),
    )
}

/// The programs of `tests/programs/MANIFEST` with nvcc's flags for each
/// configuration (the CCCL and cuRAND headers on the include path).
fn program_jobs() -> Vec<(PathBuf, Vec<String>)> {
    let Some(headers) = common::cuda_headers_or_skip() else {
        return Vec::new();
    };
    let manifest = std::fs::read_to_string(common::root().join("tests/programs/MANIFEST")).unwrap();
    let mut jobs: Vec<(PathBuf, Vec<String>)> = Vec::new();
    for line in manifest.lines() {
        if let Some(program) = line.strip_prefix("program ") {
            let include = |dir: &Path| format!("-I{}", dir.display());
            jobs.push((
                common::root().join(program),
                vec![include(&headers), include(&headers.join("cccl"))],
            ));
        } else if let Some(flags) = line.strip_prefix("flags ") {
            if let Some(job) = jobs.last_mut() {
                job.1.extend(flags.split_whitespace().map(str::to_string));
            }
        }
    }
    jobs
}

/// nvcc's PTX of `path`, kept under the target folder by a hash of the
/// source, target, flags and nvcc's path, so that later runs skip nvcc
/// (a stale entry is still nvcc's valid PTX, and every source is checked
/// by both tools before it is mutated). `None` when nvcc rejects the file
/// (a program written for another configuration).
fn cached_nvcc_ptx(
    nvcc: &Path,
    path: &Path,
    source: &str,
    target: &str,
    flags: &[String],
) -> Option<String> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (source, target, flags, nvcc).hash(&mut h);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ptx-mutants-nvcc");
    std::fs::create_dir_all(&dir).unwrap();
    let cached = dir.join(format!("{}-{:016x}.ptx", file_name(path), h.finish()));
    if let Ok(ptx) = std::fs::read_to_string(&cached) {
        return Some(ptx);
    }
    let fresh = dir.join(format!("{}-{}.tmp", file_name(path), std::process::id()));
    let ok = std::process::Command::new(nvcc)
        .args(["-ptx", &format!("-arch={target}"), "-I"])
        .arg(common::root().join("include"))
        .args(flags)
        .arg(path)
        .arg("-o")
        .arg(&fresh)
        .current_dir(common::root())
        .output()
        .expect("cannot run nvcc")
        .status
        .success();
    if !ok {
        eprintln!("nvcc rejects {} {flags:?}: not a source", path.display());
        return None;
    }
    std::fs::rename(&fresh, &cached).unwrap();
    std::fs::read_to_string(&cached).ok()
}

/// ptx-validate's valid corpus (kernelc's and nvcc's PTX, and the examples
/// of the PTX facts).
fn corpus_sources() -> Vec<(String, String)> {
    let dir = common::root().join("ptx-validate/tests/corpus/valid");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = format!("corpus {}", file_name(&p));
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// `f` over `items` on `threads` threads, results in input order.
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.max(1);
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let f = &f;
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t..items.len())
                        .step_by(threads)
                        .map(|i| (i, f(&items[i])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for w in workers {
            for (i, r) in w.join().expect("a worker panicked") {
                slots[i] = Some(r);
            }
        }
    });
    slots
        .into_iter()
        .map(|r| r.expect("every item done"))
        .collect()
}

/// One mutant's verdicts.
struct Judged {
    source: usize,
    mutant: Mutant,
    ptxas_accepts: bool,
    ours_accepts: bool,
    ptxas_said: String,
    we_said: String,
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines()
        .filter(|l| !l.contains("aborted"))
        .take(n)
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn agreement_with_ptxas_on_random_mutants() {
    let Some(ptxas) = common::ptxas_or_skip("ptx-validate against ptxas on random mutants") else {
        return;
    };
    let threads = env_number("PTXV_THREADS", 2) as usize;
    let start = std::time::Instant::now();
    let mut sources = kernelc_sources();
    let kernelc_done = start.elapsed();
    let full = std::env::var_os("PTXV_FULL").is_some();
    sources.extend(nvcc_sources(full).unwrap_or_default());
    let nvcc_done = start.elapsed();
    sources.extend(corpus_sources());

    // Every source is valid: both tools accept it.
    let verdicts = in_parallel(&sources, threads, |(_, ptx)| {
        run_ptxas(&ptxas, ptx).expect("run ptxas")
    });
    for ((name, ptx), theirs) in sources.iter().zip(&verdicts) {
        assert!(
            theirs.accepted,
            "ptxas rejects the source {name}:\n{}",
            theirs.raw
        );
        let ours = ptx_validate::validate(ptx);
        assert!(
            ours.ok(),
            "ptx-validate rejects the source {name}:\n{}",
            ours.ptxas_text(name)
        );
    }

    eprintln!(
        "sources: {} files (kernelc {:.1?}, nvcc {:.1?}, both tools on each {:.1?})",
        sources.len(),
        kernelc_done,
        nvcc_done - kernelc_done,
        start.elapsed() - nvcc_done
    );
    let count = env_number("PTXV_MUTANTS", 600) as usize;
    let pools = Pools::gather(sources.iter().map(|(_, s)| s.as_str()));
    let mut failures = Vec::new();
    for seed in seeds() {
        let judged = judge_seed(&ptxas, &sources, &pools, seed, count, threads);
        eprintln!("mutants of seed {seed} judged at {:.1?}", start.elapsed());
        failures.extend(report(&sources, &judged, seed));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The seeds to run: `PTXV_SEEDS` (a comma-separated list), else
/// `PTXV_SEED`, else the suite's seed.
fn seeds() -> Vec<u64> {
    let list = std::env::var("PTXV_SEEDS").unwrap_or_default();
    let parsed: Vec<u64> = list
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    if parsed.is_empty() {
        vec![env_number("PTXV_SEED", 0x5EED_2026)]
    } else {
        parsed
    }
}

/// `count` mutants of the sources drawn from `seed`, each judged by both
/// tools.
fn judge_seed(
    ptxas: &Path,
    sources: &[(String, String)],
    pools: &Pools,
    seed: u64,
    count: usize,
    threads: usize,
) -> Vec<Judged> {
    let mut rng = Rng::new(seed);
    let mut mutants = Vec::with_capacity(count);
    while mutants.len() < count {
        let source = rng.below(sources.len());
        if let Some(m) = mutate::mutate(&sources[source].1, pools, &mut rng) {
            mutants.push((source, m));
        }
    }
    in_parallel(&mutants, threads, |(source, mutant)| {
        let ours = ptx_validate::validate(&mutant.text);
        let theirs = run_ptxas(ptxas, &mutant.text).expect("run ptxas");
        Judged {
            source: *source,
            mutant: mutant.clone(),
            ptxas_accepts: theirs.accepted,
            ours_accepts: ours.ok(),
            ptxas_said: first_lines(&theirs.raw, 2),
            we_said: first_lines(&ours.ptxas_text("x.ptx"), 2),
        }
    })
}

/// Prints the measurement and every disagreement; returns what misses the
/// bars.
fn report(sources: &[(String, String)], judged: &[Judged], seed: u64) -> Vec<String> {
    let total = judged.len();
    let agree = judged
        .iter()
        .filter(|j| j.ptxas_accepts == j.ours_accepts)
        .count();
    let valid = judged.iter().filter(|j| j.ptxas_accepts).count();
    let false_rejections: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.ptxas_accepts && !j.ours_accepts)
        .collect();
    let mut by_operator: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for j in judged {
        let e = by_operator.entry(j.mutant.operator).or_default();
        e.0 += 1;
        e.1 += usize::from(j.ptxas_accepts == j.ours_accepts);
    }
    let dump = std::env::var_os("PTXV_DUMP").map(PathBuf::from);
    for (k, j) in judged
        .iter()
        .enumerate()
        .filter(|(_, j)| j.ptxas_accepts != j.ours_accepts)
    {
        let line = j
            .mutant
            .text
            .lines()
            .nth(j.mutant.line - 1)
            .unwrap_or("")
            .trim();
        eprintln!(
            "DISAGREE {} ({}, line {}: `{line}`): ptxas {}, ptx-validate {}\n  ptxas: {}\n  ours:  {}",
            sources[j.source].0,
            j.mutant.operator,
            j.mutant.line,
            if j.ptxas_accepts { "accepts" } else { "rejects" },
            if j.ours_accepts { "accepts" } else { "rejects" },
            j.ptxas_said,
            j.we_said,
        );
        if let Some(dir) = &dump {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(dir.join(format!("s{seed}-mutant{k}.ptx")), &j.mutant.text);
        }
    }
    for (op, (n, ok)) in &by_operator {
        eprintln!("  {op:<22} {ok:>6}/{n:<6}");
    }
    let rate = agree as f64 * 100.0 / total.max(1) as f64;
    eprintln!(
        "AGREEMENT (seed {seed}): {agree}/{total} mutants ({rate:.2}%) of {} sources; \
         {valid} accepted by ptxas, {} of them rejected by ptx-validate",
        sources.len(),
        false_rejections.len()
    );
    let mut failures = Vec::new();
    if !false_rejections.is_empty() {
        failures.push(format!(
            "seed {seed}: ptx-validate rejects {} mutants that ptxas accepts",
            false_rejections.len()
        ));
    }
    if rate < REQUIRED_AGREEMENT {
        failures.push(format!(
            "seed {seed}: agreement {rate:.2}% is below {REQUIRED_AGREEMENT}%"
        ));
    }
    failures
}
