//! The ptxas driver: the only part of this crate that does I/O.
//!
//! It finds NVIDIA's ptxas with the search all of kernelc shares
//! ([`stdx::tools`]: `$KERNELC_PTXAS`, then `PATH`, then `$CUDA_HOME/bin`,
//! then the repository's `.tools/`), runs it with an `-arch` derived from
//! the module's `.target`, and parses its messages into structured form, so
//! that the validator's verdict can be compared with the real one. It is
//! kept apart so the rest of the library stays pure.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Finds ptxas ([`stdx::tools::find`]), or `None` when there is none.
pub fn find_ptxas() -> Option<PathBuf> {
    stdx::tools::find(stdx::tools::Tool::Ptxas)
}

/// The `-arch` for a module: its `.target` (the first name), or ptxas's
/// default `sm_75` when there is none.
pub fn arch_of(ptx: &str) -> String {
    ptx.lines()
        .find_map(|l| l.trim().strip_prefix(".target"))
        .and_then(|rest| {
            rest.split(|c: char| c == ',' || c.is_whitespace())
                .find(|w| !w.is_empty())
        })
        .unwrap_or("sm_75")
        .to_string()
}

/// One message of ptxas: `ptxas FILE, line N; error   : MSG` or
/// `ptxas fatal   : MSG`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub line: Option<u32>,
    /// `error`, `fatal`, `warning`, `info`.
    pub severity: String,
    pub text: String,
}

/// What ptxas said.
#[derive(Debug)]
pub struct Outcome {
    pub accepted: bool,
    pub messages: Vec<Message>,
    pub raw: String,
}

/// Parses ptxas's stderr into messages; lines it does not recognise are
/// kept only in `raw`.
pub fn parse_messages(raw: &str) -> Vec<Message> {
    let mut out = Vec::new();
    for l in raw.lines() {
        let Some(rest) = l.strip_prefix("ptxas") else {
            continue;
        };
        let (line, rest) = match rest.find(", line ") {
            Some(k) => {
                let after = &rest[k + 7..];
                let n: String = after.chars().take_while(char::is_ascii_digit).collect();
                let tail = after[n.len()..].trim_start_matches(';');
                (n.parse().ok(), tail)
            }
            None => (None, rest),
        };
        if let Some((sev, text)) = rest.split_once(':') {
            out.push(Message {
                line,
                severity: sev.trim().to_string(),
                text: text.trim().to_string(),
            });
        }
    }
    out
}

/// Assembles `ptx` with `ptxas -arch=<from .target>`, discarding the cubin.
pub fn run_ptxas(ptxas: &Path, ptx: &str) -> std::io::Result<Outcome> {
    assemble(ptxas, ptx, &arch_of(ptx), &[])
}

/// Assembles `ptx` with `ptxas -arch=<arch> <extra...>`, discarding the
/// cubin. The one place that runs ptxas (kernelc's tests use it too).
pub fn assemble(ptxas: &Path, ptx: &str, arch: &str, extra: &[&str]) -> std::io::Result<Outcome> {
    assemble_keeping(ptxas, ptx, arch, extra).map(|(outcome, _)| outcome)
}

/// What ptxas said, and the resources of each kernel read from its cubin.
#[derive(Debug)]
pub struct CubinReport {
    pub outcome: Outcome,
    /// `None` when ptxas rejected the PTX; otherwise the kernels, or why
    /// the cubin could not be read.
    pub kernels: Option<Result<crate::cubin::Cubin, crate::cubin::CubinError>>,
}

/// Assembles `ptx` with `ptxas -v -arch=<from .target>` to a cubin and reads
/// each kernel's resources from it ([`crate::cubin::read_cubin`]); the
/// spill figures, which the cubin does not record, come from `-v`.
pub fn assemble_cubin(ptxas: &Path, ptx: &str) -> std::io::Result<CubinReport> {
    let (outcome, cubin) = assemble_keeping(ptxas, ptx, &arch_of(ptx), &["-v"])?;
    let kernels = cubin.filter(|_| outcome.accepted).map(|bytes| {
        let mut cubin = crate::cubin::read_cubin(&bytes)?;
        let verbose = crate::cubin::parse_verbose(&outcome.raw);
        crate::cubin::merge_verbose(&mut cubin.kernels, &verbose);
        Ok(cubin)
    });
    Ok(CubinReport { outcome, kernels })
}

/// Assembles `ptx` with `ptxas -arch=<from .target>` and returns what
/// ptxas said and the cubin's bytes (`None` when it rejected the PTX).
pub fn assemble_to_cubin(ptxas: &Path, ptx: &str) -> std::io::Result<(Outcome, Option<Vec<u8>>)> {
    let (outcome, cubin) = assemble_keeping(ptxas, ptx, &arch_of(ptx), &[])?;
    let cubin = cubin.filter(|_| outcome.accepted);
    Ok((outcome, cubin))
}

/// The `--stats` table of `ptx` (one row per kernel: registers, stack
/// frame, static shared memory, spill stores and loads, barriers), or why
/// there is none: ptxas cannot run, rejects the PTX, or writes a cubin this
/// crate cannot read.
pub fn stats(ptxas: &Path, ptx: &str) -> Result<String, StatsError> {
    let report = assemble_cubin(ptxas, ptx).map_err(|error| StatsError::Run {
        ptxas: ptxas.to_path_buf(),
        error,
    })?;
    if !report.outcome.accepted {
        return Err(StatsError::Rejected {
            arch: arch_of(ptx),
            output: report.outcome.raw,
        });
    }
    match report.kernels {
        Some(Ok(cubin)) => Ok(crate::cubin::stats_table(&cubin.kernels)),
        Some(Err(e)) => Err(StatsError::Cubin(e)),
        None => Err(StatsError::NoCubin),
    }
}

/// Why [`stats`] has no table.
#[derive(Debug)]
pub enum StatsError {
    /// `ptxas` could not be started.
    Run {
        ptxas: PathBuf,
        error: std::io::Error,
    },
    /// ptxas, run with `-arch={arch}`, refused the PTX; `output` is all it
    /// wrote.
    Rejected { arch: String, output: String },
    /// The cubin ptxas wrote could not be read.
    Cubin(crate::cubin::CubinError),
    /// ptxas accepted the PTX but wrote no cubin.
    NoCubin,
}

impl fmt::Display for StatsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatsError::Run { ptxas, error } => {
                write!(f, "cannot run `{}`: {error}", ptxas.display())
            }
            StatsError::Rejected { arch, output } => write!(
                f,
                "ptxas -arch={arch} rejected the PTX:\n{}",
                output.trim_end()
            ),
            StatsError::Cubin(e) => write!(f, "{e}"),
            StatsError::NoCubin => f.write_str("ptxas wrote no cubin"),
        }
    }
}

impl std::error::Error for StatsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StatsError::Run { error, .. } => Some(error),
            StatsError::Cubin(e) => Some(e),
            _ => None,
        }
    }
}

/// Runs ptxas on `ptx` and returns what it said and the cubin's bytes (if
/// it wrote one).
fn assemble_keeping(
    ptxas: &Path,
    ptx: &str,
    arch: &str,
    extra: &[&str],
) -> std::io::Result<(Outcome, Option<Vec<u8>>)> {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ptx-validate-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    let input = dir.join("in.ptx");
    std::fs::write(&input, ptx)?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .args(extra)
        .arg(&input)
        .arg("-o")
        .arg(dir.join("out.cubin"))
        .output();
    let cubin = std::fs::read(dir.join("out.cubin")).ok();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    let mut raw = String::from_utf8_lossy(&out.stdout).into_owned();
    raw.push_str(&String::from_utf8_lossy(&out.stderr));
    let outcome = Outcome {
        accepted: out.status.success(),
        messages: parse_messages(&raw),
        raw,
    };
    Ok((outcome, cubin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_comes_from_the_target() {
        assert_eq!(arch_of(".version 8.0\n.target sm_90a, debug\n"), "sm_90a");
        assert_eq!(arch_of(".version 8.0\n"), "sm_75");
    }

    #[test]
    fn stats_errors_say_what_users_read() {
        let missing = Path::new("/nonexistent/ptxas");
        let err = stats(missing, ".version 8.0\n.target sm_90\n").unwrap_err();
        assert!(matches!(&err, StatsError::Run { ptxas, .. } if ptxas == missing));
        assert!(
            err.to_string()
                .starts_with("cannot run `/nonexistent/ptxas`: "),
            "{err}"
        );
        let rejected = StatsError::Rejected {
            arch: "sm_90".into(),
            output: "ptxas fatal   : Ptx assembly aborted due to errors\n".into(),
        };
        assert_eq!(
            rejected.to_string(),
            "ptxas -arch=sm_90 rejected the PTX:\nptxas fatal   : Ptx assembly aborted due to errors"
        );
        assert_eq!(StatsError::NoCubin.to_string(), "ptxas wrote no cubin");
    }

    #[test]
    fn messages_are_structured() {
        let m = parse_messages(
            "ptxas /tmp/x.ptx, line 9; error   : Unknown symbol '%x'\nptxas fatal   : Ptx assembly aborted due to errors\n",
        );
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].line, Some(9));
        assert_eq!(m[0].severity, "error");
        assert_eq!(m[0].text, "Unknown symbol '%x'");
        assert_eq!(m[1].severity, "fatal");
    }
}
