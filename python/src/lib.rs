//! `kernelc._kernelc`: the compiler as a Python extension module.
//!
//! This crate is a thin skin over the `kernelc` library: every fact (an
//! option's spelling, how a source is lowered, how an engine binds its
//! arguments, how a fault is rendered) stays in the library, and this layer
//! only converts between Python values and the library's types. The Python
//! side (`python/kernelc/__init__.py`) adds what is easier in Python:
//! arrays through the buffer protocol, dataclasses, notebook display.
//!
//! Errors cross into Python as the exceptions of `kernelc._errors`
//! (`CompileError`, `KernelFault`, `LaunchError`), built from data, never
//! from parsed text. The GIL is released while compiling and running.

mod cache;
mod errors;
mod launch;
mod program;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _kernelc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(program::compile, m)?)?;
    m.add_function(wrap_pyfunction!(program::pass_names, m)?)?;
    m.add_class::<program::Program>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
