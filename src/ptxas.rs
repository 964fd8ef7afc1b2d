//! Finding and running NVIDIA's `ptxas`, the oracle every PTX we produce must
//! satisfy.
//!
//! The search order is the one `scripts/test` uses: `$KERNELC_PTXAS`, then
//! `ptxas` on `PATH`, then the project-local install under `.tools/`.

use std::path::{Path, PathBuf};

/// Where `scripts/test` installs the pinned CUDA wheels, relative to the workspace root.
pub const LOCAL_CUDA_DIR: &str = ".tools/cuda-13.5/nvidia/cu13/bin";

/// Locates ptxas, or returns `None` when there is none (ptx-validate's
/// search: `$KERNELC_PTXAS`, `PATH`, `$CUDA_HOME/bin`, then `.tools/`).
pub fn find_ptxas() -> Option<PathBuf> {
    ptx_validate::driver::find_ptxas(Some(Path::new(env!("CARGO_MANIFEST_DIR"))))
}

/// Locates nvcc (only the local install has the nvvm it needs to run offline).
pub fn find_nvcc() -> Option<PathBuf> {
    find_tool("KERNELC_NVCC", "nvcc").filter(|p| {
        p.parent()
            .is_some_and(|bin| bin.join("../nvvm/bin/cicc").exists())
    })
}

fn find_tool(env_var: &str, name: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env_var) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Some(p);
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(LOCAL_CUDA_DIR)
        .join(name);
    local.is_file().then_some(local)
}

/// What ptxas said about one PTX file.
#[derive(Debug)]
pub struct PtxasOutcome {
    pub success: bool,
    /// Everything ptxas printed (it reports on stderr).
    pub output: String,
}

/// Assembles `ptx` for `arch` (e.g. `sm_90`) with the given ptxas, discarding
/// the object. `extra` are additional ptxas flags such as `-v`. (ptx-validate
/// runs ptxas for both of us.)
pub fn assemble(
    ptxas: &Path,
    ptx: &str,
    arch: &str,
    extra: &[&str],
) -> std::io::Result<PtxasOutcome> {
    let out = ptx_validate::driver::assemble(ptxas, ptx, arch, extra)?;
    Ok(PtxasOutcome {
        success: out.accepted,
        output: out.raw,
    })
}

/// `--stats`: assembles `ptx` with ptxas (`-arch` from its `.target`) and
/// returns each kernel's resources, read from the cubin, as a table.
pub fn stats(ptx: &str) -> Result<String, String> {
    let ptxas = find_ptxas().ok_or_else(|| {
        "error: `--stats` needs NVIDIA's ptxas: set KERNELC_PTXAS, put it on PATH, \
         or run ./scripts/test to install it"
            .to_string()
    })?;
    ptx_validate::driver::stats(&ptxas, ptx).map_err(|e| format!("error: --stats: {e}"))
}
