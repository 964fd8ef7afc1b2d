//! Helpers shared by the integration tests: finding ptxas (and failing loudly
//! in CI when it is missing) and assembling PTX with it.

#![allow(dead_code)]

pub mod fuzz;
pub mod half_edges;
pub mod nvcc_cache;
pub mod ulps;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use stdx::tools::Tool;

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------------------
// The samples (`samples/*.cu`), their targets and their run specs. Every
// suite that walks the samples goes through these helpers, so a sample's
// `// kernelc-target: sm_XX` line and its run spec's `# kernelc-skip:
// reason` line mean the same thing everywhere.
// ---------------------------------------------------------------------------

/// Every sample source, `samples/*.cu`, sorted.
pub fn sample_paths() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("samples"))
        .expect("samples/ is readable")
        .map(|e| e.expect("a samples/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    v.sort();
    v
}

/// Every sample's name (`vadd` for `samples/vadd.cu`), sorted.
pub fn sample_names() -> Vec<String> {
    sample_paths().iter().map(|p| sample_name(p)).collect()
}

/// `vadd` for `samples/vadd.cu`.
pub fn sample_name(path: &Path) -> String {
    path.file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// The source of sample `name`.
pub fn sample_source(name: &str) -> String {
    std::fs::read_to_string(root().join(format!("samples/{name}.cu")))
        .unwrap_or_else(|e| panic!("samples/{name}.cu: {e}"))
}

/// The targets every sample is assembled for, when it can run there.
pub const MAIN_TARGETS: [&str; 3] = ["sm_80", "sm_90", "sm_100a"];

/// The target named by a `// kernelc-target: sm_XX` line of `source`, if
/// there is one. Panics on a name kernelc does not know (a broken sample).
pub fn declared_target(source: &str) -> Option<String> {
    let name = source
        .lines()
        .find_map(|l| l.trim().strip_prefix("// kernelc-target:"))?
        .trim()
        .to_string();
    if let Err(e) = kernelc::backend_nvptx::Target::parse(&name) {
        panic!("`// kernelc-target: {name}`: {e}");
    }
    Some(name)
}

/// Whether an arch-specific target (`sm_90a`, `sm_100f`): its code runs
/// on that target only.
pub fn is_arch_specific(target: &str) -> bool {
    target.ends_with('a') || target.ends_with('f')
}

/// Whether code for `needed` can be compiled for `arch`: a newer or equal
/// SM, and exactly the same target when `needed` is arch-specific
/// (`sm_90a` code does not assemble for `sm_100a`, ptx-facts §1).
pub fn can_run(arch: &str, needed: &str) -> bool {
    use kernelc::backend_nvptx::Target;
    let (Ok(a), Ok(n)) = (Target::parse(arch), Target::parse(needed)) else {
        return false;
    };
    a.sm() >= n.sm() && (!is_arch_specific(needed) || arch == needed)
}

/// The target a suite that compiles every sample for `usual` uses for a
/// sample with `source`: `usual` when the sample can run there, else the
/// sample's own target.
pub fn target_for(source: &str, usual: &str) -> String {
    match declared_target(source) {
        Some(needed) if !can_run(usual, &needed) => needed,
        _ => usual.to_string(),
    }
}

/// The targets a sample with `source` is assembled for: the main targets
/// that can run it, and its own target.
pub fn assembly_targets(source: &str) -> Vec<String> {
    let needed = declared_target(source);
    let mut v: Vec<String> = MAIN_TARGETS
        .iter()
        .filter(|t| needed.as_deref().is_none_or(|n| can_run(t, n)))
        .map(|t| t.to_string())
        .collect();
    if let Some(n) = needed {
        if !v.contains(&n) {
            v.push(n);
        }
    }
    v
}

/// The SM number of the target that the interpreter compiles sample
/// `source` for (`__CUDA_ARCH__`): sm_80, or the sample's own if newer.
pub fn run_sm(source: &str) -> u32 {
    let target = target_for(source, "sm_80");
    kernelc::backend_nvptx::Target::parse(&target).map_or(80, |t| t.sm())
}

/// Why the run tests skip a sample, from a `# kernelc-skip: reason` line
/// of its run spec (`samples/NAME.run`): the interpreter cannot run it (a
/// TMA copy, a wgmma). `None` for a runnable sample.
pub fn run_skip_reason(sample: &str) -> Option<String> {
    let spec = std::fs::read_to_string(root().join(format!("samples/{sample}.run"))).ok()?;
    spec.lines()
        .find_map(|l| l.trim().strip_prefix("# kernelc-skip:"))
        .map(|why| why.trim().to_string())
}

/// The samples the interpreter and the emulator run: every sample must
/// have a run spec, and one whose spec says `# kernelc-skip: reason` is
/// left out, loudly.
pub fn runnable_samples() -> Vec<String> {
    sample_names()
        .into_iter()
        .filter(|name| {
            assert!(
                root().join(format!("samples/{name}.run")).exists(),
                "samples/{name}.cu has no run spec"
            );
            match run_skip_reason(name) {
                Some(why) => {
                    eprintln!("SKIPPED samples/{name}.cu on the interpreter: {why}");
                    false
                }
                None => true,
            }
        })
        .collect()
}

/// One launch as a sample's run spec (`samples/NAME.run`) describes it.
#[derive(Debug)]
pub struct SpecLaunch {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// `-arch=sm_XX` when the spec names its target.
    pub arch: Option<String>,
    /// The arguments as written (`f32[]:iota:1000`, ...).
    pub args: Vec<String>,
}

/// Parses the run spec of sample `name`: the same words the CLI sees
/// after `--spec`.
pub fn spec_launch(name: &str) -> SpecLaunch {
    let spec = std::fs::read_to_string(root().join(format!("samples/{name}.run")))
        .unwrap_or_else(|e| panic!("samples/{name}.run: {e}"));
    parse_launch(&spec)
}

/// A launch from the words `kernelc run` takes after the file name
/// (`--kernel K --grid G --block B ARG...`).
pub fn parse_launch(spec: &str) -> SpecLaunch {
    let mut l = SpecLaunch {
        kernel: String::new(),
        grid: [1; 3],
        block: [1; 3],
        shared_bytes: 0,
        arch: None,
        args: Vec::new(),
    };
    let words = kernelc::run::spec_words(spec);
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let mut value = || it.next().expect("option without a value").clone();
        match w.as_str() {
            "--kernel" => l.kernel = value(),
            "--grid" => l.grid = kernelc::run::parse_dims(&value(), "grid").unwrap(),
            "--block" => l.block = kernelc::run::parse_dims(&value(), "block").unwrap(),
            "--shared-bytes" => l.shared_bytes = value().parse().unwrap(),
            w if w.starts_with("-arch=") => l.arch = Some(w["-arch=".len()..].to_string()),
            _ => l.args.push(w.clone()),
        }
    }
    l
}

/// Compiles every `.cu` file of `dir` for sm_90 and assembles it with
/// ptxas; returns how many files and `__global__` kernels there were.
pub fn assemble_every_file(dir: &std::path::Path) -> (usize, usize) {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    let mut kernels = 0;
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        kernels += src.matches("__global__").count();
        let name = sample_name(path);
        let ptx = kernelc::driver::compile_source(
            &name,
            &src,
            &kernelc::driver::CompileOptions {
                target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_ptxas_accepts(&ptx, "sm_90", &name);
    }
    (files.len(), kernels)
}

/// The launches of `dir/launches.txt`: one `FILE|WORDS` per line, the words
/// those `kernelc run` takes after the file.
pub fn read_launches(dir: &std::path::Path) -> Vec<(String, SpecLaunch)> {
    let text = std::fs::read_to_string(dir.join("launches.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (file, words) = l.split_once('|').expect("FILE|WORDS");
            (file.to_string(), parse_launch(words))
        })
        .collect()
}

/// Runs every launch of `dir/launches.txt` in the interpreter at -O0 and in
/// the PTX emulator at -O3: each must write something, and the same bytes
/// in both. Returns how many launches ran.
pub fn launches_agree(dir: &std::path::Path) -> usize {
    use kernelc::run::Engine;
    let launches = read_launches(dir);
    for (file, launch) in &launches {
        let reference = run_launch(dir, file, launch, Engine::Interp, 0);
        assert!(
            reference
                .iter()
                .flatten()
                .any(|b| b.iter().any(|&x| x != 0)),
            "{file} {launch:?}: nothing written"
        );
        let optimized = run_launch(dir, file, launch, Engine::Emu, 3);
        assert!(
            reference == optimized,
            "{file} {launch:?}: the interpreter at -O0 and the emulator at -O3 differ"
        );
    }
    launches.len()
}

/// Whether a kernel's results may differ in the last bits between the GPU
/// and the emulator: an `.approx` instruction (the emulator rounds the
/// exact value; the hardware has its own error) or a float atomic add
/// (the order of the additions differs).
fn approximate(ptx: &str) -> bool {
    ptx.lines().any(|l| {
        let l = l.trim_start();
        l.contains(".approx")
            || ((l.starts_with("atom.") || l.starts_with("red.")) && l.contains(".add.f"))
    })
}

/// Runs every launch of `dir/launches.txt` on a GPU, built at -O3, against
/// the emulator running the same build: the same bytes where the PTX has
/// no approximate instruction or float atomic; otherwise float buffers
/// agree to 2^-16 of the buffer's largest magnitude and integer buffers
/// exactly. Returns how many launches were compared bit for bit and how
/// many within the tolerance, or `None` without a CUDA driver.
pub fn launches_on_the_gpu_match_the_emulator(dir: &std::path::Path) -> Option<(usize, usize)> {
    use kernelc::run::Engine;
    if !kernelc::gpu::driver_available() {
        return None;
    }
    let (mut exact, mut close) = (0, 0);
    for (file, launch) in &read_launches(dir) {
        let src = std::fs::read_to_string(dir.join(file)).unwrap();
        let ptx = kernelc::driver::compile_source(
            file,
            &src,
            &kernelc::driver::CompileOptions {
                target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let emu = run_launch(dir, file, launch, Engine::Emu, 3);
        let gpu = run_launch(dir, file, launch, Engine::Gpu, 3);
        let what = format!("{file} {}", launch.kernel);
        if !approximate(&ptx) {
            assert!(emu == gpu, "{what}: the GPU and the emulator differ");
            exact += 1;
            continue;
        }
        close += 1;
        for ((e, g), word) in emu.iter().zip(&gpu).zip(&launch.args) {
            let (Some(e), Some(g)) = (e, g) else {
                assert_eq!(e.is_some(), g.is_some(), "{what}");
                continue;
            };
            let values = |b: &[u8]| -> Vec<f64> {
                if word.starts_with("f32[]") {
                    b.chunks(4)
                        .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
                        .collect()
                } else {
                    b.chunks(8)
                        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                        .collect()
                }
            };
            if word.starts_with("f32[]") || word.starts_with("f64[]") {
                let (ev, gv) = (values(e), values(g));
                let scale = ev.iter().fold(0f64, |m, v| m.max(v.abs()));
                for (i, (a, b)) in ev.iter().zip(&gv).enumerate() {
                    assert!(
                        (a - b).abs() <= scale / 65536.0 || (a.is_nan() && b.is_nan()),
                        "{what} `{word}`[{i}]: emulator {a:e}, GPU {b:e} (largest {scale:e})"
                    );
                }
            } else {
                assert!(e == g, "{what} `{word}`: the GPU and the emulator differ");
            }
        }
    }
    Some((exact, close))
}

/// [`launches_on_the_gpu_match_the_emulator`] for the test of `what`
/// (`outside kernels`, ...): at least `at_least` launches, or a `SKIPPED`
/// line without a CUDA driver.
pub fn gpu_launches_or_skip(dir: &std::path::Path, what: &str, at_least: usize) {
    let Some((exact, close)) = launches_on_the_gpu_match_the_emulator(dir) else {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): {what} on the GPU");
        return;
    };
    assert!(exact + close >= at_least, "{exact} + {close} launches");
    eprintln!("{what} on the GPU: {exact} launches bit for bit, {close} within 2^-16");
}

/// Runs launch `l` of `file` in folder `dir` (as `kernelc run` would, for
/// sm_90 at `-O{level}` on `engine`) and returns every argument's buffer.
pub fn run_launch(
    dir: &std::path::Path,
    file: &str,
    l: &SpecLaunch,
    engine: kernelc::run::Engine,
    level: u8,
) -> Vec<Option<Vec<u8>>> {
    let req = kernelc::run::RunRequest {
        input: dir.join(file),
        kernel: l.kernel.clone(),
        grid: l.grid,
        block: l.block,
        shared_bytes: l.shared_bytes,
        args: l.args.clone(),
        opt_level: Some(level),
        sm: 90,
        engine,
        ..kernelc::run::RunRequest::default()
    };
    let what = format!("{file} {} {engine:?} -O{level}", req.kernel);
    let result = kernelc::run::execute(&req).unwrap_or_else(|e| panic!("{what}:\n{e}"));
    result.args.into_iter().map(|(_, b)| b).collect()
}

/// Runs sample `name`'s spec on `module` (compiled by the test itself) in
/// the interpreter and returns every buffer.
pub fn run_spec_in_interp(
    name: &str,
    module: &kernelc::midend::ir::Module,
) -> Vec<Option<Vec<u8>>> {
    use kernelc::run::{parse_arg, ArgValue};
    use kir_interp::{KernelArg, LaunchConfig};
    let l = spec_launch(name);
    let args: Vec<KernelArg> = l
        .args
        .iter()
        .map(|w| match parse_arg(w).unwrap() {
            ArgValue::Scalar { elem, bits } => KernelArg::Scalar {
                ty: elem.ir_type(),
                bits,
            },
            ArgValue::Buffer { bytes, .. } => KernelArg::Buffer(bytes),
            ArgValue::TensorMap { .. } => panic!("{w}: a tensor map in an interpreter run"),
            ArgValue::Texture { resource, .. } => KernelArg::Texture(resource),
        })
        .collect();
    let config = LaunchConfig {
        grid: l.grid,
        block: l.block,
        dynamic_shared_bytes: l.shared_bytes,
        ..LaunchConfig::default()
    };
    kir_interp::run_kernel(module, &l.kernel, &args, &config)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"))
        .buffers
}

/// NVIDIA's `tool`, found by the search every part of kernelc shares, or
/// `None` after a loud skip notice naming `what` is skipped; a failure in
/// CI ([`stdx::tools::find_for_test`]).
pub fn tool_or_skip(tool: Tool, what: &str) -> Option<PathBuf> {
    stdx::tools::find_for_test(tool, what)
}

/// nvcc (with the nvvm it needs), or `None` after a loud skip notice; a
/// failure in CI.
pub fn nvcc_or_skip(what: &str) -> Option<PathBuf> {
    tool_or_skip(Tool::Nvcc, what)
}

/// cuobjdump, or `None` after a loud skip notice; a failure in CI.
pub fn cuobjdump_or_skip(what: &str) -> Option<PathBuf> {
    tool_or_skip(Tool::Cuobjdump, what)
}

/// The `include` folder of the CCCL (`cccl/`) and cuRAND headers that
/// nvcc's wheels lack and the programs of tests/programs need
/// (`$KERNELC_CUDA_HEADERS`, else where `scripts/test` installs them), or
/// `None` after a loud skip notice; a failure in CI.
pub fn cuda_headers_or_skip() -> Option<PathBuf> {
    let dir = std::env::var_os("KERNELC_CUDA_HEADERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".tools/cuda-13.5-headers/nvidia/cu13/include"));
    if dir.join("cccl").is_dir() {
        return Some(dir);
    }
    let why = format!("the CCCL and cuRAND headers are not in {}", dir.display());
    if stdx::tools::required() {
        panic!("{why}; they are required in CI (CI=true; scripts/test installs them)");
    }
    eprintln!("SKIPPED ({why}; ./scripts/test installs them): the programs through nvcc");
    None
}

/// ptxas, or `None` after a loud skip notice; a failure in CI.
pub fn ptxas_or_skip(what: &str) -> Option<PathBuf> {
    tool_or_skip(Tool::Ptxas, what)
}

/// Assembles `ptx` for `arch` with real ptxas and panics with ptxas's
/// messages and the PTX if it is rejected. ptx-validate must accept it too
/// (that check needs no ptxas, so it runs everywhere).
pub fn assert_ptxas_accepts(ptx: &str, arch: &str, what: &str) {
    let report = ptx_validate::validate(ptx);
    assert!(
        report.ok(),
        "ptx-validate rejected the PTX of {what}:\n{}",
        report.rendered("<ptx>", ptx)
    );
    let Some(ptxas) = ptxas_or_skip(what) else {
        return;
    };
    let outcome = kernelc::ptxas::assemble(&ptxas, ptx, arch, &[]).expect("cannot run ptxas");
    assert!(
        outcome.success,
        "ptxas -arch={arch} rejected the PTX of {what}:\n{}\n--- PTX ---\n{ptx}",
        outcome.output
    );
}

/// Runs the `kernelc` binary in the workspace root.
pub fn kernelc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("cannot run kernelc")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Compiles `source` (written in the scratch folder `name`): it must fail
/// with error `code`, exit 1 and write no output file; its stderr.
pub fn rejected_with(name: &str, source: &str, code: &str) -> String {
    let dir = scratch(name);
    let src = dir.join("e.cu");
    std::fs::write(&src, source).unwrap();
    let out = dir.join("e.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!out.exists());
    assert!(err.contains(&format!("error[{code}]")), "{err}");
    err
}

/// A fresh directory for one test's files, under Cargo's per-target
/// temporary directory. The process id keeps parallel test binaries apart
/// and a per-process count keeps apart the tests of one binary, which run
/// on parallel threads and may ask for the same name (two tests that both
/// used `rejected_with("templates-errors", ..)` once overwrote each other's
/// `e.cu`).
pub fn scratch(name: &str) -> PathBuf {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{}-{call}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// nvcc's PTX for the CUDA file `src` at `arch` (with kernelc's header on
/// the include path); panics with nvcc's messages if it is rejected.
/// Without nvcc, prints a loud skip line and returns `None`.
pub fn nvcc_ptx(src: &Path, arch: &str, what: &str) -> Option<String> {
    let nvcc = nvcc_or_skip(&format!("{what} through nvcc"))?;
    let dir = scratch(&format!(
        "nvcc-{}",
        what.replace(|c: char| !c.is_alphanumeric(), "_")
    ));
    let ptx = nvcc_ptx_to(&nvcc, src, arch, &[], &dir.join("nvcc.ptx"));
    let _ = std::fs::remove_dir_all(&dir);
    Some(ptx)
}

/// Runs `nvcc -ptx -arch=ARCH` on `src` (with kernelc's header and then
/// `flags` on the command line, from the workspace root), writes the PTX to
/// `out_file` and returns it; panics with nvcc's messages if it is rejected.
pub fn nvcc_ptx_to(
    nvcc: &Path,
    src: &Path,
    arch: &str,
    flags: &[String],
    out_file: &Path,
) -> String {
    let mut args = vec![
        "-ptx".to_string(),
        format!("-arch={arch}"),
        "-I".to_string(),
        root().join("include").display().to_string(),
    ];
    args.extend_from_slice(flags);
    args.push(src.display().to_string());
    if let Err(e) = nvcc_cache::run(nvcc, &args, root(), out_file) {
        panic!("nvcc rejected {}:\n{e}", src.display());
    }
    std::fs::read_to_string(out_file).unwrap()
}

/// nvcc's PTX of the program `program` of `tests/programs/` (its path from
/// the workspace root) with its configuration's `flags` and `extra`
/// options, into `out`: the CCCL and cuRAND headers (`headers`) on the
/// include path, as the manifest was made. One command for every suite
/// that compiles the programs, so that nvcc compiles each once
/// ([`nvcc_cache`]).
pub fn program_nvcc_ptx(
    nvcc: &Path,
    headers: &Path,
    program: &str,
    flags: &[&str],
    extra: &[&str],
    out: &Path,
) -> Result<(), String> {
    let mut args = vec!["-ptx".to_string(), "-arch=sm_90".to_string()];
    args.extend(extra.iter().map(|a| a.to_string()));
    args.push(format!("-I{}", headers.display()));
    args.push(format!("-I{}", headers.join("cccl").display()));
    args.extend(flags.iter().map(|f| f.to_string()));
    args.push(program.to_string());
    nvcc_cache::run(nvcc, &args, root(), out)
}

/// kernelc's PTX of the fixture `src` at sm_90 without contraction
/// (written to `dir/kernelc.ptx`), assembled by ptxas.
pub fn fixture_ptx(src: &Path, dir: &Path) -> String {
    let ptx = dir.join("kernelc.ptx");
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-arch=sm_90",
        "-fmad=false",
        "-o",
        ptx.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert_ptxas_accepts(&text, "sm_90", &src.display().to_string());
    text
}

/// Compiles the fixture `src` with kernelc and, when nvcc is there, with
/// nvcc, both at sm_90 without contraction (`-fmad=false`, so that floats
/// compare exactly), and has ptxas assemble both; kernelc's PTX text, and
/// the path of nvcc's (written into `dir` with kernelc's).
pub fn fixture_ptx_and_nvcc(src: &Path, dir: &Path) -> (String, Option<PathBuf>) {
    fixture_ptx_and_nvcc_with(src, dir, &[])
}

/// [`fixture_ptx_and_nvcc`] with more flags for nvcc (`-I` the CCCL
/// headers that CUDA's own headers include).
pub fn fixture_ptx_and_nvcc_with(
    src: &Path,
    dir: &Path,
    nvcc_flags: &[String],
) -> (String, Option<PathBuf>) {
    let text = fixture_ptx(src, dir);
    let what = src.display().to_string();
    let theirs = nvcc_or_skip(&format!("{what} through nvcc")).map(|nvcc| {
        let theirs = dir.join("nvcc.ptx");
        let mut flags = vec!["-fmad=false".to_string()];
        flags.extend_from_slice(nvcc_flags);
        let ptx = nvcc_ptx_to(&nvcc, src, "sm_90", &flags, &theirs);
        assert_ptxas_accepts(&ptx, "sm_90", &format!("nvcc's PTX of {what}"));
        theirs
    });
    (text, theirs)
}

/// What [`fixture_runs`] gives: kernelc's PTX text and its buffers, and
/// nvcc's PTX text and buffers when nvcc is there.
pub struct FixtureRuns {
    pub ptx: String,
    pub ours: Vec<Vec<u8>>,
    pub theirs: Option<(String, Vec<Vec<u8>>)>,
}

/// Launch `launch` of the fixture `src` over 2 blocks of 32 threads
/// (files in `dir`): the buffers from kernelc's PTX on the emulator, which
/// the interpreter's must equal, and those from nvcc's PTX on the
/// emulator ([`fixture_ptx_and_nvcc`]).
pub fn fixture_runs(src: &Path, dir: &Path, launch: (&str, &[&str])) -> FixtureRuns {
    let (ptx, theirs_ptx) = fixture_ptx_and_nvcc(src, dir);
    let shape = ["--grid", "2", "--block", "32"];
    let all = |file: &Path, engine: &str, out: &str| -> Vec<Vec<u8>> {
        launch_buffers(file, engine, launch, &dir.join(out), &shape)
            .into_iter()
            .flatten()
            .collect()
    };
    let ours = all(&dir.join("kernelc.ptx"), "emu", "ours");
    assert_eq!(ours, all(src, "interp", "interp"), "the interpreter");
    let theirs = theirs_ptx.map(|p| {
        let text = std::fs::read_to_string(&p).unwrap();
        (text, all(&p, "emu", "theirs"))
    });
    FixtureRuns { ptx, ours, theirs }
}

/// A buffer's 32-bit signed integers.
pub fn words_i32(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs `kernel` from the PTX file `ptx` on the emulator over 2 blocks of
/// 32 threads with `args` (`kernelc run`'s syntax); the bytes of every
/// buffer after the run (the arrays after the first argument: a scalar
/// gives none).
pub fn emu_buffers(ptx: &Path, kernel: (&str, &[&str]), out: &Path) -> Vec<Vec<u8>> {
    emu_buffers_with(ptx, kernel, out, &[])
}

/// [`emu_buffers`] with more options of `kernelc run` (`--shared-bytes
/// 256`).
pub fn emu_buffers_with(
    ptx: &Path,
    kernel: (&str, &[&str]),
    out: &Path,
    options: &[&str],
) -> Vec<Vec<u8>> {
    let mut with_shape = vec!["--grid", "2", "--block", "32"];
    with_shape.extend_from_slice(options);
    let mut buffers = launch_buffers(ptx, "emu", kernel, out, &with_shape);
    buffers.remove(0);
    buffers.into_iter().flatten().collect()
}

/// Runs `kernel` from `file` (PTX for the emulator, CUDA or IR for the
/// interpreter) on `engine` with `args` and `options` (`--grid 2 --block
/// 8,4,2`, as `kernelc run` takes them); per argument, the bytes of its
/// buffer after the run (`None` for a scalar).
pub fn launch_buffers(
    file: &Path,
    engine: &str,
    (kernel, args): (&str, &[&str]),
    out: &Path,
    options: &[&str],
) -> Vec<Option<Vec<u8>>> {
    let _ = std::fs::remove_dir_all(out);
    let mut argv = vec![
        "run",
        file.to_str().unwrap(),
        "--engine",
        engine,
        "--kernel",
        kernel,
        "--out",
        out.to_str().unwrap(),
    ];
    argv.extend_from_slice(options);
    argv.extend_from_slice(args);
    let o = kernelc(&argv);
    assert!(o.status.success(), "{}", stderr(&o));
    (0..args.len())
        .map(|k| std::fs::read(out.join(format!("arg{k}.bin"))).ok())
        .collect()
}

/// Compiles the CUDA text `source` with nvcc (`-ptx -arch=sm_80`) and
/// panics with nvcc's messages if it is rejected, so a test can show its
/// CUDA is valid for NVIDIA's compiler too. Without nvcc, prints a loud
/// skip line.
pub fn assert_nvcc_accepts(source: &str, what: &str) {
    let dir = scratch(&format!(
        "nvcc-src-{}",
        what.replace(|c: char| !c.is_alphanumeric(), "_")
    ));
    let src = dir.join("source.cu");
    std::fs::write(&src, source).unwrap();
    nvcc_ptx(&src, "sm_80", what);
    let _ = std::fs::remove_dir_all(&dir);
}

/// nvcc's run on the CUDA text `source` (`-ptx -arch=sm_90`, files in
/// the scratch directory `dir`), for a test that reads its verdict or its
/// messages; `None` (a loud skip, a failure under `CI=true`) without nvcc.
pub fn nvcc_run(source: &str, dir: &str, what: &str) -> Option<std::process::Output> {
    let nvcc = nvcc_or_skip(what)?;
    let dir = scratch(dir);
    let src = dir.join("e.cu");
    std::fs::write(&src, source).unwrap();
    let o = Command::new(nvcc)
        .args(["-ptx", "-arch=sm_90", "-o"])
        .arg(dir.join("e.ptx"))
        .arg(&src)
        .output()
        .expect("cannot run nvcc");
    Some(o)
}

/// Assembles `module` with ptxas for sm_80 and sm_90, in both register
/// modes (each call's `what` names the -O level or other variant).
pub fn assert_ptxas_accepts_module(module: &kernelc::midend::ir::Module, what: &str) {
    use kernelc::backend_nvptx::{self, RegallocMode, Target};
    for arch in ["sm_80", "sm_90"] {
        for regalloc in [RegallocMode::Virtual, RegallocMode::Regalloc2] {
            let mut opts = backend_nvptx::Options::new(Target::parse(arch).unwrap());
            opts.regalloc = regalloc;
            let ptx = backend_nvptx::compile_module(module, &opts).expect("selects");
            assert_ptxas_accepts(&ptx, arch, &format!("{what} ({regalloc:?})"));
        }
    }
}

// ---------------------------------------------------------------------------
// Math kernels of the form `K(const double *x, const double *y, double *out,
// int n)`, one thread per element and `per` outputs per element, run on the
// interpreter and on the emulator (tests/math_f64.rs, tests/math_more.rs).
// ---------------------------------------------------------------------------

/// Threads per block of the math kernels' launches.
pub const MATH_BLOCK: u32 = 128;

pub fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `kernel(x, y, out, n)` on the IR interpreter; returns `out`.
pub fn math_interp_run(
    module: &kernelc::midend::ir::Module,
    kernel: &str,
    x: &[f64],
    y: &[f64],
    per: usize,
) -> Vec<f64> {
    use kir_interp::KernelArg;
    let n = x.len();
    let args = [
        KernelArg::Buffer(f64_bytes(x)),
        KernelArg::Buffer(f64_bytes(y)),
        KernelArg::Buffer(vec![0; 8 * per * n]),
        KernelArg::Scalar {
            ty: kernelc::midend::ir::Type::I32,
            bits: n as u64,
        },
    ];
    let cfg = kir_interp::LaunchConfig {
        grid: [(n as u32).div_ceil(MATH_BLOCK), 1, 1],
        block: [MATH_BLOCK, 1, 1],
        ..kir_interp::LaunchConfig::default()
    };
    let out = kir_interp::run_kernel(module, kernel, &args, &cfg)
        .unwrap_or_else(|e| panic!("{kernel} on the interpreter: {e:?}"));
    f64s(out.buffers[2].as_ref().unwrap())
}

/// The arguments `(x, y, out, n)` of a math kernel, for the emulator and
/// the GPU (which take the same argument type).
fn math_ptx_args(x: &[f64], y: &[f64], per: usize) -> [ptx_emu::KernelArg; 4] {
    use ptx_emu::KernelArg;
    let n = x.len();
    [
        KernelArg::Buffer(f64_bytes(x)),
        KernelArg::Buffer(f64_bytes(y)),
        KernelArg::Buffer(vec![0; 8 * per * n]),
        KernelArg::Scalar {
            bits: n as u64,
            bytes: 4,
            float: false,
            name: "int".into(),
        },
    ]
}

/// `kernel(x, y, out, n)` on the PTX emulator; returns `out`.
pub fn math_emu_run(ptx: &str, kernel: &str, x: &[f64], y: &[f64], per: usize) -> Vec<f64> {
    use ptx_emu as emu;
    let n = x.len();
    let args = math_ptx_args(x, y, per);
    let cfg = emu::LaunchConfig {
        grid: [(n as u32).div_ceil(MATH_BLOCK), 1, 1],
        block: [MATH_BLOCK, 1, 1],
        ..emu::LaunchConfig::default()
    };
    let out = emu::run_ptx(ptx, kernel, &args, &cfg)
        .unwrap_or_else(|e| panic!("{kernel} on the emulator: {e:?}"));
    f64s(out.buffers[2].as_ref().unwrap())
}

/// [`math_emu_run`] on the GPU (device 0, through the CUDA driver).
pub fn math_gpu_run(ptx: &str, kernel: &str, x: &[f64], y: &[f64], per: usize) -> Vec<f64> {
    let n = x.len();
    let args = math_ptx_args(x, y, per);
    let launch = kernelc::gpu::Launch {
        ptx,
        kernel,
        args: &args,
        tensor_maps: &[None, None, None, None],
        surfaces: &[],
        grid: [(n as u32).div_ceil(MATH_BLOCK), 1, 1],
        block: [MATH_BLOCK, 1, 1],
        shared_bytes: 0,
        time_launches: 0,
        capture_printf: false,
    };
    let out = kernelc::gpu::run(&launch).unwrap_or_else(|e| panic!("{kernel} on the GPU: {e}"));
    f64s(out.buffers[2].as_ref().unwrap())
}

/// Runs a `kernelc run` request and returns the buffers it leaves, in
/// argument order (scalars have none).
pub fn run_buffers(req: &kernelc::run::RunRequest) -> Vec<Vec<u8>> {
    let result = kernelc::run::execute(req)
        .unwrap_or_else(|e| panic!("{:?} -O{:?}: {e}", req.engine, req.opt_level));
    result.args.into_iter().filter_map(|(_, b)| b).collect()
}

/// A buffer as little-endian `i32`s.
pub fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A buffer as little-endian `f32`s.
pub fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A buffer as little-endian `u32`s.
pub fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs a pass list (`fold,dce`, knobs allowed: `memspace(clone-budget=0)`)
/// over `module` as `kernelc opt --passes` does; on failure, the errors as
/// the command line renders them.
pub fn run_passes(module: &mut kernelc::midend::ir::Module, names: &[&str]) -> Result<(), String> {
    use kernelc::midend::passes::{Options, Pipeline};
    let pipeline = Pipeline::parse(names, Options::default())
        .map_err(|e| kernelc::driver::CompileError::from(e).rendered)?;
    kernelc::driver::optimize(module, &pipeline, None)
        .map(drop)
        .map_err(|e| e.rendered)
}

/// Runs the `-O{level}` pipeline over `module` as compiling does (with
/// `--fmad`, nvcc's default); on failure, the rendered errors.
pub fn optimize(module: &mut kernelc::midend::ir::Module, level: u8) -> Result<(), String> {
    let opts = kernelc::driver::CompileOptions {
        opt_level: level,
        ..kernelc::driver::CompileOptions::default()
    };
    kernelc::driver::optimize(module, &kernelc::driver::pipeline_for(&opts), None)
        .map(drop)
        .map_err(|e| e.rendered)
}
