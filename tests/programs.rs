//! The corpus of complete CUDA programs in tests/programs/ (host and device
//! code, as public samples, course homework and ML kernel files are written;
//! see its README.md):
//!
//! 1. tests/programs/MANIFEST lists every program, once per configuration its
//!    `// nvcc-flags:` lines declare, with exactly those flags.
//! 2. nvcc compiles every configuration and writes exactly the manifest's
//!    `.entry` names (a loud skip where nvcc or the CCCL/cuRAND headers are
//!    missing; a failure under `CI=true`).
//!    Each launch of tests/programs/RUNS then runs on the PTX emulator from
//!    nvcc's PTX, so the launch specs are known to be right.
//! 3. A ratchet on kernelc: the configurations kernelc compiles today are
//!    listed in tests/programs/KERNELC_COMPILES. One that stops compiling,
//!    or an unlisted one that starts, fails the test (update the list). The
//!    test prints the count and each failure's first error, by error code.
//! 4. Every configuration kernelc compiles is checked against nvcc: ptxas
//!    accepts kernelc's PTX, its `.entry` names are the manifest's, and each
//!    launch of RUNS of the program gives the same buffers from kernelc's PTX
//!    as from nvcc's on the emulator, fused multiply-add off on both
//!    (integers identical, floats within 4 ulp).
//!
//! `scripts/programs-manifest` rewrites the manifest.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::root;

const PROGRAMS: &str = "tests/programs";
const ARCH: &str = "sm_90";
/// At most this many compilers at once (the test machines have two cores).
const PARALLEL: usize = 2;

/// One program compiled with one set of flags.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Configuration {
    /// The source, from the repository root.
    program: String,
    /// nvcc's flags, space-separated as written (empty: none).
    flags: String,
}

impl Configuration {
    fn flag_args(&self) -> Vec<&str> {
        self.flags.split_whitespace().collect()
    }

    /// How KERNELC_COMPILES and the messages name it.
    fn label(&self) -> String {
        if self.flags.is_empty() {
            self.program.clone()
        } else {
            format!("{} {}", self.program, self.flags)
        }
    }
}

/// A manifest block: a configuration and nvcc's `.entry` names for it.
#[derive(Debug)]
struct ManifestEntry {
    config: Configuration,
    entries: BTreeSet<String>,
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn parse_manifest(text: &str) -> Vec<ManifestEntry> {
    let mut blocks: Vec<ManifestEntry> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "program" => blocks.push(ManifestEntry {
                config: Configuration {
                    program: value.to_string(),
                    flags: String::new(),
                },
                entries: BTreeSet::new(),
            }),
            "flags" | "entry" => {
                let block = blocks.last_mut().unwrap_or_else(|| {
                    panic!("MANIFEST:{}: `{key}` before any `program`", number + 1)
                });
                if key == "flags" {
                    block.config.flags = value.to_string();
                } else {
                    block.entries.insert(without_path_crc(value));
                }
            }
            _ => panic!("MANIFEST:{}: unknown line `{line}`", number + 1),
        }
    }
    blocks
}

fn manifest() -> Vec<ManifestEntry> {
    parse_manifest(&read(&root().join(PROGRAMS).join("MANIFEST")))
}

/// Every program source, as scripts/outputs globs them, sorted.
fn program_paths() -> Vec<String> {
    let dir = root().join(PROGRAMS);
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            for inner in std::fs::read_dir(&path).unwrap() {
                found.push(inner.unwrap().path());
            }
        } else {
            found.push(path);
        }
    }
    let mut paths: Vec<String> = found
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    paths.sort();
    paths
}

/// The configurations the sources declare with `// nvcc-flags:` lines.
fn declared_configurations() -> Vec<Configuration> {
    let mut configs = Vec::new();
    for program in program_paths() {
        let text =
            String::from_utf8_lossy(&std::fs::read(root().join(&program)).unwrap()).into_owned();
        let flag_lines: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("// nvcc-flags:"))
            .map(|f| f.trim().to_string())
            .collect();
        let flag_lines = if flag_lines.is_empty() {
            vec![String::new()]
        } else {
            flag_lines
        };
        for flags in flag_lines {
            configs.push(Configuration {
                program: program.clone(),
                flags,
            });
        }
    }
    configs
}

/// A launch of tests/programs/RUNS: a program, its `kernelc run` words
/// and the layouts of its mixed buffers.
#[derive(Debug)]
struct Run {
    program: String,
    words: Vec<String>,
    /// Buffers that hold a struct of several element types, read as those
    /// types when compared (`|layout argK=u32*64,f64*2`): argument index
    /// and its segments (element type, count), in order.
    layouts: Vec<(usize, Vec<(String, usize)>)>,
}

impl Run {
    /// The kernel the words name (`--kernel NAME`).
    fn kernel(&self) -> &str {
        let at = self.words.iter().position(|w| w == "--kernel");
        at.and_then(|i| self.words.get(i + 1))
            .map_or("", String::as_str)
    }
}

fn runs() -> Vec<Run> {
    read(&root().join(PROGRAMS).join("RUNS"))
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (program, rest) = l
                .split_once('|')
                .unwrap_or_else(|| panic!("RUNS: no `|` in `{l}`"));
            let (words, layout) = rest.split_once('|').unwrap_or((rest, ""));
            Run {
                program: program.to_string(),
                words: words.split_whitespace().map(str::to_string).collect(),
                layouts: layout
                    .split_whitespace()
                    .skip(1)
                    .map(buffer_layout)
                    .collect(),
            }
        })
        .collect()
}

/// One `argK=T*N,T*N` word of a RUNS line's `|layout` field.
fn buffer_layout(word: &str) -> (usize, Vec<(String, usize)>) {
    let bad = || -> ! { panic!("RUNS: bad layout `{word}` (argK=T*N,T*N...)") };
    let (arg, segments) = word.split_once('=').unwrap_or_else(|| bad());
    let k = arg.strip_prefix("arg").and_then(|k| k.parse().ok());
    let segments = segments
        .split(',')
        .map(|seg| {
            let (elem, count) = seg.split_once('*').unwrap_or_else(|| bad());
            (elem.to_string(), count.parse().unwrap_or_else(|_| bad()))
        })
        .collect();
    (k.unwrap_or_else(|| bad()), segments)
}

/// Runs `job` on every item with `PARALLEL` threads; results in item order.
fn parallel_map<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..PARALLEL {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else { break };
                let r = job(item);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

/// The sorted `.entry` names of a PTX text.
fn ptx_entries(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == ".entry")?;
            let name = words.get(at + 1)?;
            Some(name.split('(').next().unwrap().to_string())
        })
        .collect()
}

/// `entries` less the kernels of CUB's and Thrust's algorithms, which nvcc
/// instantiates for host code that calls them (mangled in the namespaces
/// `cub` and `thrust`) and kernelc does not compile (W0009); the manifest
/// leaves them out by the same rule (`LIBRARY_ENTRY` in
/// scripts/programs-manifest).
fn program_entries(entries: BTreeSet<String>) -> BTreeSet<String> {
    entries
        .into_iter()
        .filter(|e| !e.starts_with("_ZN3cub") && !e.starts_with("_ZN6thrust"))
        .map(|e| without_path_crc(&e))
        .collect()
}

/// `name` with the CRC-32 of the file's path in its file-unique namespaces
/// (`_INTERNAL_<crc>_...`, `_GLOBAL__N__<crc>_...`; `unnamed_namespace.rs`)
/// written `xxxxxxxx`: the manifest holds names that do not depend on
/// where the checkout is.
fn without_path_crc(name: &str) -> String {
    let mut out = name.to_string();
    for marker in ["_INTERNAL_", "_GLOBAL__N__"] {
        let mut from = 0;
        while let Some(at) = out[from..].find(marker) {
            let crc = from + at + marker.len();
            let hex = out
                .get(crc..crc + 8)
                .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
            if hex {
                out.replace_range(crc..crc + 8, "xxxxxxxx");
            }
            from = crc;
        }
    }
    out
}

fn scratch_file(dir: &Path, config: &Configuration, ext: &str) -> PathBuf {
    let stem: String = config
        .label()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    dir.join(format!("{stem}.{ext}"))
}

// ------------------------------------------------------- 1. the manifest --

#[test]
fn manifest_lists_every_program_with_its_declared_flags() {
    let listed: Vec<Configuration> = manifest().into_iter().map(|m| m.config).collect();
    let declared = declared_configurations();
    assert!(
        declared.len() >= 60,
        "the corpus should hold about 60 program configurations, found {}",
        declared.len()
    );
    assert_eq!(
        listed, declared,
        "tests/programs/MANIFEST is out of date: run scripts/programs-manifest"
    );
}

#[test]
fn every_run_names_a_kernel_of_its_program() {
    let blocks = manifest();
    let runs = runs();
    assert!(!runs.is_empty(), "tests/programs/RUNS lists no launch");
    for run in &runs {
        let block = blocks
            .iter()
            .find(|b| b.config.program == run.program)
            .unwrap_or_else(|| panic!("RUNS: {} is not in the manifest", run.program));
        assert!(
            block.entries.contains(run.kernel()),
            "RUNS: {} has no kernel `{}` (its entries: {:?})",
            run.program,
            run.kernel(),
            block.entries
        );
    }
}

// ------------------------------------------------------------- 2. nvcc --

#[test]
fn nvcc_writes_the_manifest_entries() {
    let (Some(nvcc), Some(headers)) = (
        common::nvcc_or_skip("the programs through nvcc"),
        common::cuda_headers_or_skip(),
    ) else {
        return;
    };
    let blocks = manifest();
    let dir = common::scratch("programs-nvcc");
    let started = std::time::Instant::now();
    let outcomes = parallel_map(&blocks, |block| {
        let out = scratch_file(&dir, &block.config, "ptx");
        if let Err(e) = nvcc_ptx(&nvcc, &headers, &block.config, &[], &out) {
            return Err(format!("nvcc rejected {}:\n{e}", block.config.label()));
        }
        let entries = program_entries(ptx_entries(&read(&out)));
        if entries != block.entries {
            return Err(format!(
                "{}: nvcc writes the entries {entries:?}, the manifest lists {:?} \
                 (run scripts/programs-manifest)",
                block.config.label(),
                block.entries
            ));
        }
        Ok(entries.len())
    });
    let failures: Vec<String> = outcomes.iter().filter_map(|o| o.clone().err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let kernels: usize = outcomes.iter().flatten().sum();
    eprintln!(
        "nvcc: {} program configurations, {kernels} kernels, as the manifest says ({:.0?})",
        blocks.len(),
        started.elapsed()
    );

    // Each launch of RUNS on the emulator, from nvcc's PTX of the program's
    // first configuration: the launch spec itself is right.
    let runs = runs();
    let faults: Vec<String> = parallel_map(&runs, |run| {
        let block = blocks.iter().find(|b| b.config.program == run.program)?;
        let ptx = scratch_file(&dir, &block.config, "ptx");
        let ptx = ptx.display().to_string();
        let mut args = vec!["run", "--engine", "emu", "--gpu-architecture", ARCH, &ptx];
        args.extend(run.words.iter().map(String::as_str));
        let done = common::kernelc(&args);
        (!done.status.success()).then(|| {
            format!(
                "{} {}: the emulator fails on nvcc's PTX:\n{}",
                run.program,
                run.kernel(),
                common::stderr(&done)
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(faults.is_empty(), "{}", faults.join("\n\n"));
    eprintln!(
        "emulator: the {} launches of RUNS run from nvcc's PTX",
        runs.len()
    );
}

// ------------------------------------------------------- 3. the ratchet --

/// The first error kernelc printed: its code (`E0002`, or `command line`
/// for an option kernelc does not know) and its message.
fn first_error(stderr: &str) -> (String, String) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("(no error message)");
    match line
        .strip_prefix("error[")
        .and_then(|rest| rest.split_once("]: "))
    {
        Some((code, message)) => (code.to_string(), message.to_string()),
        None => (
            "command line".to_string(),
            line.trim_start_matches("error: ").to_string(),
        ),
    }
}

fn listed_as_compiling() -> BTreeSet<String> {
    read(&root().join(PROGRAMS).join("KERNELC_COMPILES"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn kernelc_compiles_exactly_the_listed_programs() {
    let configs: Vec<Configuration> = manifest().into_iter().map(|m| m.config).collect();
    let dir = common::scratch("programs-kernelc");
    let outcomes = parallel_map(&configs, |config| {
        let out = scratch_file(&dir, config, "ptx");
        let mut args = vec![format!("-arch={ARCH}")];
        args.extend(config.flag_args().into_iter().map(str::to_string));
        args.extend([
            config.program.clone(),
            "-o".to_string(),
            out.display().to_string(),
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let done = common::kernelc(&args);
        if done.status.success() {
            None
        } else {
            Some(first_error(&common::stderr(&done)))
        }
    });
    let _ = std::fs::remove_dir_all(&dir);

    let mut compiling = BTreeSet::new();
    let mut by_code: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (config, outcome) in configs.iter().zip(outcomes) {
        match outcome {
            None => {
                compiling.insert(config.label());
            }
            Some((code, message)) => by_code
                .entry(code)
                .or_default()
                .push((config.label(), message)),
        }
    }
    eprintln!(
        "kernelc compiles {} of {} programs",
        compiling.len(),
        configs.len()
    );
    for (code, failures) in &by_code {
        eprintln!("{code}: {} programs", failures.len());
        for (label, message) in failures {
            eprintln!("  {label}: {message}");
        }
    }

    let listed = listed_as_compiling();
    let started: Vec<&String> = compiling.difference(&listed).collect();
    let stopped: Vec<&String> = listed.difference(&compiling).collect();
    assert!(
        started.is_empty() && stopped.is_empty(),
        "kernelc now compiles programs tests/programs/KERNELC_COMPILES does not list: {started:?}; \
         it no longer compiles listed ones: {stopped:?}. Update the list (one program, and its \
         flags when it has any, per line) when the change is intended."
    );
}

// ------------------------------------------ 4. kernelc against nvcc --

/// nvcc's PTX of `config` with `extra` options, into `out`
/// (`common::program_nvcc_ptx`).
fn nvcc_ptx(
    nvcc: &Path,
    headers: &Path,
    config: &Configuration,
    extra: &[&str],
    out: &Path,
) -> Result<(), String> {
    common::program_nvcc_ptx(
        nvcc,
        headers,
        &config.program,
        &config.flag_args(),
        extra,
        out,
    )
}

/// kernelc's PTX of `config` with `extra` options, into `out`.
fn kernelc_ptx(config: &Configuration, extra: &[&str], out: &Path) -> Result<(), String> {
    let arch = format!("-arch={ARCH}");
    let out = out.display().to_string();
    let mut args = vec![arch.as_str()];
    args.extend(extra);
    args.extend(config.flag_args());
    args.extend([config.program.as_str(), "-o", out.as_str()]);
    let done = common::kernelc(&args);
    match done.status.success() {
        true => Ok(()),
        false => Err(common::stderr(&done)),
    }
}

/// Whether two buffers of a launch agree: integers bit for bit, floats
/// within 4 ulp (`elem` is the buffer's spec type: `f32`, `f64`, ...).
fn buffers_agree(elem: &str, ours: &[u8], theirs: &[u8]) -> Result<(), String> {
    if ours.len() != theirs.len() {
        return Err(format!("{} bytes against {}", ours.len(), theirs.len()));
    }
    // The distance in representable values between two floats' bits,
    // taken as sign-magnitude integers on one line.
    fn ordered(bits: i64, sign: i64) -> i64 {
        if bits & sign != 0 {
            sign.wrapping_sub(bits)
        } else {
            bits
        }
    }
    let (width, sign) = match elem {
        "f32" => (4, 1i64 << 31),
        "f64" => (8, i64::MIN),
        _ => {
            return (ours == theirs)
                .then_some(())
                .ok_or_else(|| "integers differ".to_string())
        }
    };
    for (i, (a, b)) in ours.chunks(width).zip(theirs.chunks(width)).enumerate() {
        let bits = |c: &[u8]| {
            let mut v = [0u8; 8];
            v[..width].copy_from_slice(c);
            let raw = i64::from_le_bytes(v);
            if width == 4 {
                i64::from(raw as i32)
            } else {
                raw
            }
        };
        let (x, y) = (bits(a), bits(b));
        let nan = |v: i64| match width {
            4 => f32::from_bits(v as u32).is_nan(),
            _ => f64::from_bits(v as u64).is_nan(),
        };
        if nan(x) && nan(y) {
            continue;
        }
        let ulps = ordered(x, sign)
            .wrapping_sub(ordered(y, sign))
            .unsigned_abs();
        if ulps > 4 {
            return Err(format!("element {i} differs by {ulps} ulp"));
        }
    }
    Ok(())
}

/// The element type of each buffer argument of a launch, by argument index.
fn buffer_types(words: &[String]) -> Vec<Option<String>> {
    let mut skip_next = false;
    let mut out = Vec::new();
    for w in words {
        if skip_next {
            skip_next = false;
            continue;
        }
        if w.starts_with("--") {
            skip_next = true;
            continue;
        }
        out.push(w.split_once("[]:").map(|(t, _)| t.to_string()));
    }
    out
}

/// For every configuration kernelc compiles: ptxas accepts its PTX, its
/// `.entry` names are nvcc's, and each launch of RUNS gives the same
/// buffers from kernelc's PTX as from nvcc's on the emulator (fused
/// multiply-add off on both).
#[test]
fn kernelc_programs_match_nvccs() {
    let (Some(nvcc), Some(headers)) = (
        common::nvcc_or_skip("kernelc's programs against nvcc's"),
        common::cuda_headers_or_skip(),
    ) else {
        return;
    };
    let listed = listed_as_compiling();
    let blocks: Vec<ManifestEntry> = manifest()
        .into_iter()
        .filter(|b| listed.contains(&b.config.label()))
        .collect();
    let dir = common::scratch("programs-against-nvcc");
    let failures: Vec<String> = parallel_map(&blocks, |block| {
        let ptx = scratch_file(&dir, &block.config, "kernelc.ptx");
        if let Err(e) = kernelc_ptx(&block.config, &[], &ptx) {
            return Some(format!("{}: kernelc fails:\n{e}", block.config.label()));
        }
        let text = read(&ptx);
        common::assert_ptxas_accepts(&text, ARCH, &block.config.label());
        let entries: BTreeSet<String> = ptx_entries(&text)
            .iter()
            .map(|e| without_path_crc(e))
            .collect();
        (entries != block.entries).then(|| {
            format!(
                "{}: kernelc writes the entries {entries:?}, nvcc {:?}",
                block.config.label(),
                block.entries
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    let runs: Vec<Run> = runs()
        .into_iter()
        .filter(|r| blocks.iter().any(|b| b.config.program == r.program))
        .collect();
    // A launch runs its program's first listed configuration. Both PTX files
    // are made once per program, since several launches share one.
    let mut launched: Vec<&ManifestEntry> = Vec::new();
    for block in &blocks {
        let program = &block.config.program;
        let first = !launched.iter().any(|b| &b.config.program == program);
        if first && runs.iter().any(|r| &r.program == program) {
            launched.push(block);
        }
    }
    let no_fma = |config: &Configuration, compiler: &str| {
        scratch_file(&dir, config, &format!("{compiler}.nofma.ptx"))
    };
    let build_failures: Vec<String> = parallel_map(&launched, |block| {
        let label = block.config.label();
        let nvccs = nvcc_ptx(
            &nvcc,
            &headers,
            &block.config,
            &["--fmad=false"],
            &no_fma(&block.config, "nvcc"),
        );
        let kernelcs = kernelc_ptx(
            &block.config,
            &["--fmad=false"],
            &no_fma(&block.config, "kernelc"),
        );
        nvccs
            .map_err(|e| format!("{label}: nvcc fails:\n{e}"))
            .and(kernelcs.map_err(|e| format!("{label}: kernelc fails:\n{e}")))
            .err()
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(build_failures.is_empty(), "{}", build_failures.join("\n\n"));

    // With a CUDA driver the launches also run on the GPU, each compiler's
    // PTX on the device, where the order of float atomics is the GPU's.
    let engines: &[&str] = if kernelc::gpu::driver_available() {
        &["emu", "gpu"]
    } else {
        &["emu"]
    };
    let numbered: Vec<(usize, &Run)> = runs.iter().enumerate().collect();
    let mismatches: Vec<String> = parallel_map(&numbered, |&(n, run)| {
        let block = launched.iter().find(|b| b.config.program == run.program)?;
        let diffs: Vec<String> = engines
            .iter()
            .flat_map(|engine| {
                let ptx = |compiler: &str| no_fma(&block.config, compiler);
                compare_launch(&dir, n, run, engine, &ptx)
            })
            .collect();
        let label = format!("{} {}", run.program, run.kernel());
        (!diffs.is_empty()).then(|| format!("{label}: {}", diffs.join("; ")))
    })
    .into_iter()
    .flatten()
    .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    eprintln!(
        "kernelc against nvcc: {} programs with nvcc's entries, {} launches with nvcc's results on {}",
        blocks.len(),
        runs.len(),
        engines.join(" and ")
    );
}

/// Runs launch `n` from nvcc's and from kernelc's PTX (`ptx(compiler)`)
/// on `engine` and returns how their buffers differ, one line per buffer.
/// On the GPU, float buffers that differ by more than 4 ulp may still
/// agree to 2^-16 of their largest magnitude: the device orders float
/// atomics as it runs, differently in each run.
fn compare_launch(
    dir: &Path,
    n: usize,
    run: &Run,
    engine: &str,
    ptx: &dyn Fn(&str) -> PathBuf,
) -> Vec<String> {
    let mut outputs: Vec<PathBuf> = Vec::new();
    for compiler in ["nvcc", "kernelc"] {
        let ptx = ptx(compiler).display().to_string();
        let out = dir.join(format!("run{n}.{compiler}.{engine}.out"));
        let out_s = out.display().to_string();
        let mut args = vec!["run", "--engine", engine, "--gpu-architecture", ARCH];
        args.extend([ptx.as_str(), "--out", out_s.as_str()]);
        args.extend(run.words.iter().map(String::as_str));
        let done = common::kernelc(&args);
        if !done.status.success() {
            let why = common::stderr(&done);
            return vec![format!("{compiler}'s PTX does not run on {engine}: {why}")];
        }
        outputs.push(out);
    }
    let types = buffer_types(&run.words);
    types
        .iter()
        .enumerate()
        .filter_map(|(k, t)| {
            let elem = t.as_ref()?;
            let file = format!("arg{k}.bin");
            let theirs = std::fs::read(outputs[0].join(&file)).ok()?;
            let ours = std::fs::read(outputs[1].join(&file)).ok()?;
            let layout = run.layouts.iter().find(|(arg, _)| *arg == k);
            let whole = [(elem.clone(), ours.len() / element_size(elem))];
            let segments = layout.map_or(&whole[..], |(_, segments)| segments);
            let agree = segments_agree(segments, engine, &ours, &theirs);
            agree
                .err()
                .map(|e| format!("{engine} arg{k} ({elem}[]): {e}"))
        })
        .collect()
}

/// The size in bytes of a buffer element type of the run syntax.
fn element_size(elem: &str) -> usize {
    match elem {
        "u8" | "i8" => 1,
        "u16" | "i16" | "f16" | "bf16" => 2,
        "f64" | "u64" | "i64" => 8,
        _ => 4,
    }
}

/// Whether two buffers agree segment by segment, each segment (element
/// type, count) by its type's rule (`buffers_agree`); on the GPU a float
/// segment may instead agree to scale (`close_to_scale`), so a struct
/// whose doubles are summed by atomics keeps its integers compared exactly.
fn segments_agree(
    segments: &[(String, usize)],
    engine: &str,
    ours: &[u8],
    theirs: &[u8],
) -> Result<(), String> {
    if ours.len() != theirs.len() {
        return Err(format!("{} bytes against {}", ours.len(), theirs.len()));
    }
    let mut at = 0;
    for (elem, count) in segments {
        let end = (at + element_size(elem) * count).min(ours.len());
        let (a, b) = (&ours[at..end], &theirs[at..end]);
        match buffers_agree(elem, a, b) {
            Err(_) if engine == "gpu" && close_to_scale(elem, a, b) => {}
            Err(e) => return Err(format!("bytes {at}..{end} ({elem}): {e}")),
            Ok(()) => {}
        }
        at = end;
    }
    (at == ours.len())
        .then_some(())
        .ok_or_else(|| format!("the layout covers {at} of {} bytes", ours.len()))
}

/// Whether two float buffers agree to 2^-16 of the larger one's largest
/// magnitude (the GPU comparisons' rule for reordered float sums, as in
/// `common::launches_on_the_gpu_match_the_emulator`).
fn close_to_scale(elem: &str, ours: &[u8], theirs: &[u8]) -> bool {
    let values = |b: &[u8]| -> Option<Vec<f64>> {
        match elem {
            "f32" => Some(
                b.chunks(4)
                    .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
                    .collect(),
            ),
            "f64" => Some(
                b.chunks(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
            ),
            _ => None,
        }
    };
    let (Some(a), Some(b)) = (values(ours), values(theirs)) else {
        return false;
    };
    let scale = a.iter().chain(&b).fold(0f64, |m, x| m.max(x.abs()));
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| (x - y).abs() <= scale / 65536.0 || (x.is_nan() && y.is_nan()))
}

/// A struct buffer's layout keeps its integers exact on the GPU while its
/// doubles, summed by atomics in the device's order, may agree to scale.
#[test]
fn a_layout_compares_each_segment_by_its_type() {
    let bytes = |hist: u32, sum: f64| -> Vec<u8> {
        let mut b = hist.to_le_bytes().to_vec();
        b.extend(sum.to_le_bytes());
        b
    };
    let layout = buffer_layout("arg4=u32*1,f64*1");
    assert_eq!(layout, (4, vec![("u32".into(), 1), ("f64".into(), 1)]));
    let segments = &layout.1;
    let reordered = (bytes(7, 1500.25), bytes(7, 1500.25 + 1e-9));
    assert!(segments_agree(segments, "gpu", &reordered.0, &reordered.1).is_ok());
    assert!(segments_agree(segments, "emu", &reordered.0, &reordered.1).is_err());
    let counted = (bytes(7, 1500.25), bytes(8, 1500.25));
    assert!(segments_agree(segments, "gpu", &counted.0, &counted.1).is_err());
    let short = [("u32".to_string(), 1)];
    assert!(segments_agree(&short, "emu", &counted.0, &counted.0).is_err());
}

// ------------------------------------------------- 5. textures on a GPU --

/// The launches of RUNS with a texture or surface argument run from
/// kernelc's PTX on the GPU (`src/gpu_texture.rs` makes the objects) and on
/// the emulator, and give the same bytes: the programs' kernels use no
/// approximate instruction, and the texture model filters with the
/// hardware's 8 fractional bits. Without a CUDA driver, a `SKIPPED` line.
#[test]
fn texture_runs_on_the_gpu_match_the_emulator() {
    if !kernelc::gpu::driver_available() {
        eprintln!(
            "SKIPPED: no CUDA driver (libcuda.so not found): texture launches of RUNS on the GPU"
        );
        return;
    }
    let is_texture = |w: &String| w.starts_with("tex:") || w.starts_with("surf:");
    let runs: Vec<Run> = runs()
        .into_iter()
        .filter(|r| r.words.iter().any(is_texture))
        .collect();
    assert!(runs.len() >= 2, "{runs:?}");
    let blocks = manifest();
    let dir = common::scratch("programs-textures-gpu");
    let mut failures = Vec::new();
    for (n, run) in runs.iter().enumerate() {
        let block = blocks
            .iter()
            .find(|b| b.config.program == run.program)
            .unwrap_or_else(|| panic!("{}: not in the manifest", run.program));
        let ptx = dir.join(format!("run{n}.ptx"));
        kernelc_ptx(&block.config, &[], &ptx).unwrap_or_else(|e| panic!("{e}"));
        let ptx = ptx.display().to_string();
        let outputs: Result<Vec<PathBuf>, String> = ["emu", "gpu"]
            .iter()
            .map(|engine| {
                let out = dir.join(format!("run{n}.{engine}"));
                let out_s = out.display().to_string();
                let mut args = vec!["run", "--engine", engine, "--gpu-architecture", ARCH];
                args.extend([ptx.as_str(), "--out", out_s.as_str()]);
                args.extend(run.words.iter().map(String::as_str));
                let done = common::kernelc(&args);
                match done.status.success() {
                    true => Ok(out),
                    false => Err(format!(
                        "{} {} on {engine}: {}",
                        run.program,
                        run.kernel(),
                        common::stderr(&done)
                    )),
                }
            })
            .collect();
        let outputs = match outputs {
            Ok(o) => o,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        // Fewer arguments than words; a missing file is missing on both.
        for k in 0..run.words.len() {
            let file = format!("arg{k}.bin");
            let (emu, gpu) = (
                std::fs::read(outputs[0].join(&file)).ok(),
                std::fs::read(outputs[1].join(&file)).ok(),
            );
            if emu != gpu {
                let differing = match (&emu, &gpu) {
                    (Some(e), Some(g)) => e.iter().zip(g).filter(|(a, b)| a != b).count(),
                    _ => usize::MAX,
                };
                failures.push(format!(
                    "{} {}: {file} differs ({differing} bytes)",
                    run.program,
                    run.kernel()
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "RUNS: {} texture launches on the GPU, bit for bit",
        runs.len()
    );
}
