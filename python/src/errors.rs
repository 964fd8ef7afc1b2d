//! The Python exceptions the extension raises. They are defined in Python
//! (`kernelc/_errors.py`, with their fields and docs); this module builds
//! them from the library's structured errors.

use kernelc::driver::{CompileError, DiagnosticRecord};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Builds `kernelc._errors.<class>(*args)` as a Python exception.
fn raise<'py>(py: Python<'py>, class: &str, args: Bound<'py, PyTuple>) -> PyErr {
    let made = py
        .import("kernelc._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1(args));
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(e) => e,
    }
}

/// A diagnostic as the tuple `kernelc._errors.Diagnostic` is made from:
/// `(severity, code, message, file, line, column, notes)`.
fn diagnostic_tuple<'py>(py: Python<'py>, d: &DiagnosticRecord) -> PyResult<Bound<'py, PyTuple>> {
    let severity = match d.severity {
        frontend::Severity::Error => "error",
        frontend::Severity::Warning => "warning",
        frontend::Severity::Note => "note",
    };
    let (file, line, column) = match &d.location {
        Some((file, line, column)) => (Some(file.as_str()), Some(*line), Some(*column)),
        None => (None, None, None),
    };
    (
        severity,
        d.code.as_deref(),
        d.message.as_str(),
        file,
        line,
        column,
        d.notes.clone(),
    )
        .into_pyobject(py)
}

/// The diagnostics as a list of tuples ([`diagnostic_tuple`]).
pub fn diagnostic_tuples<'py>(
    py: Python<'py>,
    records: &[DiagnosticRecord],
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    records.iter().map(|d| diagnostic_tuple(py, d)).collect()
}

/// `kernelc.CompileError(rendered, diagnostics)`.
pub fn compile_error(py: Python<'_>, e: CompileError) -> PyErr {
    match diagnostic_tuples(py, &e.diagnostics) {
        Ok(diags) => match (e.rendered, diags).into_pyobject(py) {
            Ok(args) => raise(py, "CompileError", args),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

/// Where a kernel faulted, as `kernelc.KernelFault` carries it.
pub struct FaultSite {
    pub rendered: String,
    pub engine: &'static str,
    pub kernel: String,
    /// Where the fault happened; `None` when the engine cannot say (a
    /// fault the GPU reported and the emulator could not locate).
    pub block: Option<[u32; 3]>,
    pub thread: Option<[u32; 3]>,
    /// The source line (file, line, column) of the faulting instruction,
    /// when the engine knows it.
    pub source: Option<(String, usize, usize)>,
    /// The PTX line, on the emulator.
    pub ptx_line: Option<u32>,
}

/// `kernelc.KernelFault(rendered, engine, kernel, block, thread, file,
/// line, column, ptx_line)`.
pub fn kernel_fault(py: Python<'_>, f: FaultSite) -> PyErr {
    let (file, line, column) = match f.source {
        Some((file, line, column)) => (Some(file), Some(line), Some(column)),
        None => (None, None, None),
    };
    let args = (
        f.rendered,
        f.engine,
        stdx::itanium::readable(&f.kernel),
        f.block,
        f.thread,
        file,
        line,
        column,
        f.ptx_line,
    );
    match args.into_pyobject(py) {
        Ok(args) => raise(py, "KernelFault", args),
        Err(e) => e,
    }
}

/// `kernelc.LaunchError(message)`: a launch that could not start (a bad
/// argument, an unknown kernel, no GPU).
pub fn launch_error(py: Python<'_>, message: String) -> PyErr {
    message_error(py, "LaunchError", message)
}

/// `kernelc.ToolError(message)`: an NVIDIA tool is missing or failed.
pub fn tool_error(py: Python<'_>, message: String) -> PyErr {
    message_error(py, "ToolError", message)
}

/// `kernelc._errors.<class>(message)`.
fn message_error(py: Python<'_>, class: &str, message: String) -> PyErr {
    match (message,).into_pyobject(py) {
        Ok(args) => raise(py, class, args),
        Err(e) => e,
    }
}
