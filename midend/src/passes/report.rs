//! What passes have to say besides the changed module: one report for a
//! whole pipeline, which the driver renders in one place.

use super::mark_invariant::Note;
use crate::ir::SourceSpan;

/// How bad a diagnostic is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Severity {
    Error,
    Warning,
}

/// A message for the user, at the source span of the instruction concerned
/// (the span is empty for IR that did not come from source).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The function the instruction is in.
    pub function: String,
    pub span: SourceSpan,
    /// Other places the message refers to (where a space was proved, the
    /// other instruction of a contradiction), each with its label.
    pub labels: Vec<(SourceSpan, String)>,
    /// Notes without a place (a parameter's callers are outside the module).
    pub notes: Vec<String>,
}

/// The texts that knobs ask passes to write, by topic. Each is empty
/// unless asked for.
#[derive(Clone, Debug, Default)]
pub struct Transcript {
    /// Memory-space inference's worklist (`--dump-ip-msp`).
    pub dump_ip_msp: String,
    /// Each pointer value's final space and why (`--explain-memspace`).
    pub explain_memspace: String,
    /// The accesses restrict processing stamped (`--dump-restrict`).
    pub dump_restrict: String,
}

/// Everything the passes of a pipeline report: errors and warnings
/// (memory-space inference, restrict processing, the atomic checks), the
/// `--explain-nc` notes of `mark-invariant`, and the transcripts.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// One note per global load of a kernel: whether it became
    /// `ld.global.nc`, and why not (`--explain-nc`; empty unless asked for).
    pub notes: Vec<Note>,
    pub transcript: Transcript,
}

impl Report {
    /// Whether a diagnostic is an error: the compilation fails.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}
