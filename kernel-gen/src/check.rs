//! The differential check of one generated kernel.
//!
//! A kernel passes when kernelc compiles it for sm_80 and sm_90 at `-O0` and
//! `-O3`, ptx-validate (and ptxas, when one is given) accepts all four PTX
//! files, and four executions leave bitwise identical buffers: the IR
//! interpreter at `-O0` and `-O3`, and the PTX emulator on the `-O0` and
//! `-O3` PTX. Because the kernels are UB-free and integer-only, any
//! difference is a bug in one of the stages, and the failure names the
//! stage that disagreed.

use crate::Kernel;
use kernelc::backend_nvptx::Target;
use kernelc::driver::{compile_source, CompileOptions, Emit};
use kernelc::run::{Engine, RunRequest};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a kernel failed: the stage and what it said.
#[derive(Clone, Debug)]
pub struct Failure {
    pub stage: String,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.stage, self.message)
    }
}

fn fail(stage: impl Into<String>, message: impl Into<String>) -> Failure {
    Failure {
        stage: stage.into(),
        message: message.into(),
    }
}

/// Runs `f`, turning a panic into a failure of `stage`: a panic anywhere in
/// the compiler is a bug the check must report, not a crash of the checker.
fn guarded<T>(stage: &str, f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            Err(fail(stage, format!("panicked: {msg}")))
        }
    }
}

/// Compiles `source` to PTX for `arch` at `opt`.
pub fn compile_ptx(source: &str, arch: &str, opt: u8) -> Result<String, Failure> {
    let stage = format!("compile {arch} -O{opt}");
    guarded(&stage, || {
        let opts = CompileOptions {
            target: Target::parse(arch).map_err(|e| fail(&stage, e.to_string()))?,
            opt_level: opt,
            emit: Emit::Ptx,
            ..CompileOptions::default()
        };
        compile_source("gen.cu", source, &opts).map_err(|e| fail(&stage, e.rendered))
    })
}

/// ptx-validate, then ptxas when given, on one PTX text.
pub fn check_ptx(ptx: &str, arch: &str, what: &str, ptxas: Option<&Path>) -> Result<(), Failure> {
    let report = ptx_validate::validate(ptx);
    if !report.ok() {
        return Err(fail(
            format!("ptx-validate {what}"),
            report.rendered("<ptx>", ptx),
        ));
    }
    if let Some(ptxas) = ptxas {
        let out = kernelc::ptxas::assemble(ptxas, ptx, arch, &[])
            .map_err(|e| fail(format!("ptxas {what}"), e.to_string()))?;
        if !out.success {
            return Err(fail(format!("ptxas {what}"), out.output));
        }
    }
    Ok(())
}

/// Runs the kernel (written at `path`) in one engine and returns every
/// buffer's final bytes.
pub fn run(
    k: &Kernel,
    path: &Path,
    engine: Engine,
    opt: u8,
) -> Result<Vec<Option<Vec<u8>>>, Failure> {
    let stage = format!("run {engine:?} -O{opt}");
    guarded(&stage, || {
        let req = RunRequest {
            input: path.to_path_buf(),
            kernel: k.name.clone(),
            grid: [k.grid, 1, 1],
            block: [k.block, 1, 1],
            shared_bytes: 0,
            opt_level: Some(opt),
            fmad: true,
            sm: 80,
            defines: Vec::new(),
            engine,
            max_steps: 1_000_000,
            args: k.args.clone(),
            ..RunRequest::default()
        };
        let result = kernelc::run::execute(&req).map_err(|e| fail(&stage, e))?;
        Ok(result.args.into_iter().map(|(_, b)| b).collect())
    })
}

/// The whole check of one kernel. `dir` is a scratch folder for the source
/// file the run requests read.
pub fn check_kernel(k: &Kernel, dir: &Path, ptxas: Option<&Path>) -> Result<(), Failure> {
    for arch in ["sm_80", "sm_90"] {
        for opt in [0, 3] {
            let ptx = compile_ptx(&k.source, arch, opt)?;
            check_ptx(&ptx, arch, &format!("{arch} -O{opt}"), ptxas)?;
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| fail("scratch", e.to_string()))?;
    let path = dir.join(format!("{}.cu", k.name));
    std::fs::write(&path, &k.source).map_err(|e| fail("scratch", e.to_string()))?;
    let want = run(k, &path, Engine::Interp, 0)?;
    for (engine, opt) in [(Engine::Interp, 3), (Engine::Emu, 0), (Engine::Emu, 3)] {
        let got = run(k, &path, engine, opt)?;
        if got != want {
            return Err(fail(
                format!("differential {engine:?} -O{opt}"),
                format!(
                    "buffers differ from the interpreter at -O0\n{}",
                    first_difference(&want, &got)
                ),
            ));
        }
    }
    let _ = std::fs::remove_file(&path);
    Ok(())
}

/// Where two sets of buffers first differ, as `u32` words.
fn first_difference(want: &[Option<Vec<u8>>], got: &[Option<Vec<u8>>]) -> String {
    for (k, (w, g)) in want.iter().zip(got).enumerate() {
        let (Some(w), Some(g)) = (w, g) else { continue };
        for (i, (a, b)) in w.chunks(4).zip(g.chunks(4)).enumerate() {
            if a != b {
                return format!("arg{k}[{i}]: want {a:02x?}, got {b:02x?}");
            }
        }
    }
    "buffer lengths differ".into()
}

/// nvcc's verdict: the kernel is valid CUDA when `nvcc -ptx` compiles it.
pub fn nvcc_accepts(k: &Kernel, nvcc: &Path, dir: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| fail("scratch", e.to_string()))?;
    let src: PathBuf = dir.join(format!("{}-nvcc.cu", k.name));
    std::fs::write(&src, &k.source).map_err(|e| fail("scratch", e.to_string()))?;
    let out = Command::new(nvcc)
        .args(["-ptx", "-arch=sm_80"])
        .arg(&src)
        .arg("-o")
        .arg(dir.join(format!("{}-nvcc.ptx", k.name)))
        .output()
        .map_err(|e| fail("nvcc", e.to_string()))?;
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(dir.join(format!("{}-nvcc.ptx", k.name)));
    if !out.status.success() {
        return Err(fail(
            "nvcc",
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    Ok(())
}
