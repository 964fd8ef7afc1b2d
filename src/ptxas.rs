//! Finding and running NVIDIA's `ptxas`, the oracle every PTX we produce must
//! satisfy, and `nvcc`.
//!
//! Both are found by [`stdx::tools`], the one search that ptx-validate, the
//! tests and the scripts use too: `$KERNELC_PTXAS` (`$KERNELC_NVCC`), then
//! `PATH`, then `$CUDA_HOME/bin`, then the repository's install under
//! `.tools/`.

use std::path::{Path, PathBuf};
use stdx::tools::{self, Tool};

/// Locates ptxas, or returns `None` when there is none.
pub fn find_ptxas() -> Option<PathBuf> {
    tools::find(Tool::Ptxas)
}

/// Locates nvcc with the nvvm it needs, or returns `None`.
pub fn find_nvcc() -> Option<PathBuf> {
    tools::find(Tool::Nvcc)
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

/// The cubin ptxas makes of `ptx` (`-arch` from its `.target`).
pub fn cubin(ptx: &str) -> Result<Vec<u8>, String> {
    let ptxas = find_ptxas().ok_or_else(|| {
        "error: a cubin needs NVIDIA's ptxas: set KERNELC_PTXAS, put it on PATH, \
         or run ./scripts/test to install it"
            .to_string()
    })?;
    let (outcome, cubin) = ptx_validate::driver::assemble_to_cubin(&ptxas, ptx)
        .map_err(|e| format!("error: cannot run `{}`: {e}", ptxas.display()))?;
    cubin.ok_or_else(|| format!("error: ptxas rejected the PTX:\n{}", outcome.raw.trim_end()))
}
