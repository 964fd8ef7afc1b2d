//! `compile()` and the compiled `Program`: its PTX, its IR at every stage,
//! its kernels, its warnings and the compiler's explanations.

use crate::cache;
use crate::errors;
use kernelc::driver::{self, CompileOptions, KernelSignature};
use midend::ir::Module;
use midend::text::{write_module, PrintOptions};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::sync::Arc;

/// A compiled source: what `kernelc.compile` returns (wrapped by the
/// Python class `kernelc.Program`). Programs of one cached compilation
/// share their [`Build`].
#[pyclass(module = "kernelc._kernelc", frozen)]
pub struct Program {
    pub(crate) build: Arc<Build>,
    /// Whether the build came from the compile cache.
    from_cache: bool,
}

/// Everything one compilation made that a caller may ask for.
pub struct Build {
    pub(crate) opts: CompileOptions,
    /// The IR as the frontend lowered it, before any pass.
    lowered: Module,
    pub(crate) map: frontend::SourceMap,
    /// The IR after the `-O` pipeline: what the interpreter runs.
    pub(crate) optimized: Module,
    pub(crate) ptx: String,
    warnings: Vec<driver::DiagnosticRecord>,
    /// The warnings and the passes' reports, rendered as the CLI prints
    /// them on stderr.
    messages: String,
    pub(crate) kernels: Vec<KernelSignature>,
}

/// Compiles `source` (named `file_name` in diagnostics and for `#include
/// "..."`) with the command-line options `options`, in any of nvcc's
/// spellings (`-arch=sm_90`, `-O3`, `-DN=4`, `-I dir`, `--use_fast_math`).
#[pyfunction]
#[pyo3(signature = (source, file_name, options, cache=true))]
pub fn compile(
    py: Python<'_>,
    source: String,
    file_name: String,
    options: Vec<String>,
    cache: bool,
) -> PyResult<Program> {
    let key = cache::Key {
        source,
        file_name,
        options,
    };
    if cache {
        if let Some(build) = py.detach(|| cache::lookup(&key)) {
            return Ok(Program {
                build,
                from_cache: true,
            });
        }
    }
    let opts = kernelc::cli::compile_options(&key.options)
        .map_err(|m| pyo3::exceptions::PyValueError::new_err(m.trim_end().to_string()))?;
    let (build, reads) = py
        .detach(|| {
            let loader = cache::RecordingLoader::default();
            let build = build(&key.file_name, &key.source, opts, &loader);
            build.map(|b| (Arc::new(b), loader.into_reads()))
        })
        .map_err(|e| errors::compile_error(py, e))?;
    if cache {
        cache::insert(key, build.clone(), reads);
    }
    Ok(Program {
        build,
        from_cache: false,
    })
}

/// The names of every pass, in the order of the `-O3` pipeline's table.
#[pyfunction]
pub fn pass_names() -> Vec<&'static str> {
    midend::passes::PASSES.iter().map(|p| p.name).collect()
}

/// The whole compilation, keeping every stage a caller may ask for.
fn build(
    file_name: &str,
    source: &str,
    opts: CompileOptions,
    loader: &dyn frontend::FileLoader,
) -> Result<Build, driver::CompileError> {
    let lowered = driver::lower_with_loader(file_name, source, &opts, loader)?;
    let mut optimized = lowered.module.clone();
    let report = driver::optimize(
        &mut optimized,
        &driver::pipeline_for(&opts),
        Some(&lowered.map),
    )?;
    let ptx = driver::ptx_of(&lowered.map, &optimized, &opts)?;
    let warning_text = frontend::render_diagnostics_in(&lowered.map, &lowered.warnings);
    Ok(Build {
        warnings: driver::diagnostic_records(&lowered.map, &lowered.warnings),
        messages: warning_text + &report,
        lowered: lowered.module,
        map: lowered.map,
        kernels: lowered.kernels,
        optimized,
        ptx,
        opts,
    })
}

impl Build {
    /// [`Program::lineinfo_ptx`]: the PTX of the optimized module printed
    /// again with `-lineinfo` when the compilation did not ask for it.
    fn lineinfo_ptx(&self) -> Result<(String, Vec<(String, String)>), driver::CompileError> {
        let mut opts = self.opts.clone();
        opts.line_info = true;
        let ptx = if self.opts.line_info {
            self.ptx.clone()
        } else {
            driver::ptx_of(&self.map, &self.optimized, &opts)?
        };
        let lines = driver::source_lines(&self.map, opts.source_dir.as_deref());
        let files = lines
            .files()
            .iter()
            .zip(self.map.files())
            .map(|(l, f)| (l.path.clone(), f.text().to_string()))
            .collect();
        Ok((ptx, files))
    }

    /// The IR text after each step of the pipeline, in order, as
    /// `(pass name, module text)`.
    fn observed(&self) -> Result<Vec<(String, String)>, driver::CompileError> {
        let mut module = self.lowered.clone();
        let mut steps = Vec::new();
        let print = PrintOptions::default();
        driver::pipeline_for(&self.opts).run_observed(&mut module, |name, m| {
            steps.push((name.to_string(), write_module(m, print)));
        })?;
        Ok(steps)
    }

    /// The memory-space explanations, each located at the instruction that
    /// makes its value in the module the pass explained (the IR just
    /// before `memspace` runs).
    fn memspace_notes(&self) -> Result<Vec<MemspaceNote>, driver::CompileError> {
        let mut opts = self.opts.clone();
        opts.memspace_opts.explain = true;
        let mut module = self.lowered.clone();
        let mut previous = self.lowered.clone();
        let mut before = None;
        let report = driver::pipeline_for(&opts).run_observed(&mut module, |name, m| {
            if name == "memspace" && before.is_none() {
                before = Some(previous.clone());
            }
            previous = m.clone();
        })?;
        let before = before.unwrap_or(previous);
        let transcript = &report.transcript.explain_memspace;
        Ok(locate_explanations(transcript, &before, &self.map))
    }

    /// The passes' report under options changed by `adjust` (the
    /// explanations are gathered only when asked for).
    fn report_with(
        &self,
        adjust: impl FnOnce(&mut CompileOptions),
    ) -> Result<String, driver::CompileError> {
        let mut opts = self.opts.clone();
        adjust(&mut opts);
        let mut module = self.lowered.clone();
        let report = driver::pipeline_for(&opts).run(&mut module)?;
        Ok(driver::render_report_in(&report, Some(&self.map)))
    }
}

/// Where a value of `func` is made: the source position of the
/// instruction that defines it (a block parameter has none).
fn value_position(
    func: &midend::ir::Function,
    value: midend::ir::Value,
    map: &frontend::SourceMap,
) -> Option<(String, usize, usize)> {
    use midend::ir::ValueDef;
    if !func.dfg.values.is_valid(value) {
        return None;
    }
    let ValueDef::Result(inst, _) = func.dfg.value_def(func.dfg.resolve_aliases(value)) else {
        return None;
    };
    let span = func.spans.get(inst).copied().filter(|s| !s.is_none())?;
    let (file, line, column) = map.position(span.start);
    Some((file.to_string(), line, column))
}

/// A located memory-space explanation: where the value is made (when the
/// source says), the function's readable name, and the explanation.
type MemspaceNote = (Option<(String, usize, usize)>, String, String);

/// `--explain-memspace`'s transcript (`@function:` headings, then one
/// `  vN: space ← why` line per generic pointer) with each value located
/// in `before`, the module the pass explained.
fn locate_explanations(
    transcript: &str,
    before: &Module,
    map: &frontend::SourceMap,
) -> Vec<MemspaceNote> {
    let mut notes = Vec::new();
    let mut func = None;
    for line in transcript.lines() {
        if let Some(name) = line.strip_prefix('@').and_then(|l| l.strip_suffix(':')) {
            func = before.functions.values().find(|f| f.name == name);
            continue;
        }
        let Some(f) = func else { continue };
        let text = line.trim_start();
        let value = text
            .split_once(':')
            .and_then(|(v, _)| v.strip_prefix('v'))
            .and_then(|n| n.parse::<usize>().ok())
            .map(<midend::ir::Value as cranelift_entity::EntityRef>::new);
        let at = value.and_then(|v| value_position(f, v, map));
        notes.push((at, stdx::itanium::readable(&f.name), text.to_string()));
    }
    notes
}

/// Lines of `text` that start with `prefix`, without it.
fn lines_after(text: &str, prefix: &str) -> String {
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .map(|l| format!("{}\n", l.trim_start()))
        .collect()
}

#[pymethods]
impl Program {
    /// Whether this program came from the compile cache.
    #[getter(from_cache)]
    fn came_from_cache(&self) -> bool {
        self.from_cache
    }

    /// The PTX.
    #[getter]
    fn ptx(&self) -> &str {
        &self.build.ptx
    }

    /// The warnings and pass reports as the command line prints them.
    #[getter]
    fn messages(&self) -> &str {
        &self.build.messages
    }

    /// The warnings, each a diagnostic tuple (see `kernelc._errors`).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        errors::diagnostic_tuples(py, &self.build.warnings)
    }

    /// The kernels in source order, each `(name, mangled, readable,
    /// location, params)` with `params` a list of `(name, C type, kind)`.
    #[getter]
    fn kernels(&self) -> Vec<KernelTuple> {
        self.build.kernels.iter().map(kernel_tuple).collect()
    }

    /// The IR as the frontend lowered it.
    fn lowered_ir(&self) -> String {
        write_module(&self.build.lowered, PrintOptions::default())
    }

    /// The IR after the whole pipeline.
    fn optimized_ir(&self) -> String {
        write_module(&self.build.optimized, PrintOptions::default())
    }

    /// The control-flow graphs of the optimized IR as Graphviz DOT
    /// (`--emit dot`).
    fn dot(&self) -> String {
        midend::text::write_module_dot(&self.build.optimized)
    }

    /// The IR after each step of the pipeline: a list of `(pass, text)`.
    fn pass_steps(&self, py: Python<'_>) -> PyResult<Vec<(String, String)>> {
        py.detach(|| self.build.observed())
            .map_err(|e| errors::compile_error(py, e))
    }

    /// `--explain-memspace`: each generic pointer's inferred space, and why.
    fn explain_memspace(&self, py: Python<'_>) -> PyResult<String> {
        let report = py
            .detach(|| self.build.report_with(|o| o.memspace_opts.explain = true))
            .map_err(|e| errors::compile_error(py, e))?;
        Ok(lines_after(&report, "memspace:"))
    }

    /// `--explain-memspace`'s explanations, located: a list of `(location,
    /// function, text)`, the location `(file, line, column)` of the
    /// instruction that makes the value, or `None`.
    fn memspace_notes(&self, py: Python<'_>) -> PyResult<Vec<MemspaceNote>> {
        py.detach(|| self.build.memspace_notes())
            .map_err(|e| errors::compile_error(py, e))
    }

    /// `--explain-nc`: for every global load of a kernel, whether it became
    /// `ld.global.nc`, and why not.
    fn explain_nc(&self, py: Python<'_>) -> PyResult<String> {
        let report = py
            .detach(|| self.build.report_with(|o| o.explain_nc = true))
            .map_err(|e| errors::compile_error(py, e))?;
        Ok(lines_after(&report, "explain-nc:"))
    }

    /// The PTX with line information (`-lineinfo`'s `.loc` and `.file`),
    /// whether or not the compilation asked for it, and the files the
    /// `.file` lines name: `(ptx, [(path, text)])`.
    fn lineinfo_ptx(&self, py: Python<'_>) -> PyResult<(String, Vec<(String, String)>)> {
        py.detach(|| self.build.lineinfo_ptx())
            .map_err(|e| errors::compile_error(py, e))
    }

    /// The cubin ptxas makes of the PTX (needs NVIDIA's ptxas).
    fn cubin<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| kernelc::ptxas::cubin(&self.build.ptx))
            .map_err(|m| errors::tool_error(py, m))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// `--stats`: each kernel's registers, stack, shared memory, spills and
    /// barriers, read from the cubin (needs NVIDIA's ptxas).
    fn stats(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| kernelc::ptxas::stats(&self.build.ptx))
            .map_err(|m| errors::tool_error(py, m))
    }

    /// Runs kernel `kernel` (its readable or mangled name) on `engine`
    /// (`interp`, `emu` or `gpu`). `args` holds, per parameter, a `bytes`
    /// object for a pointer or by-value aggregate, or a Python number.
    /// Returns `(buffers, printed, steps)`: each argument's final bytes
    /// (`None` for scalars), what `printf` printed, and the instructions
    /// executed.
    #[pyo3(signature = (kernel, grid, block, args, shared_mem, engine, max_steps))]
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        py: Python<'_>,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: Vec<Bound<'_, PyAny>>,
        shared_mem: u32,
        engine: &str,
        max_steps: Option<u64>,
    ) -> PyResult<crate::launch::Launched> {
        crate::launch::launch(
            py,
            &self.build,
            crate::launch::Request {
                kernel,
                grid,
                block,
                shared_mem,
                engine,
                max_steps,
            },
            &args,
        )
    }
}

/// A kernel as Python receives it: `(name, mangled, readable, location,
/// params)`.
type KernelTuple = (
    String,
    String,
    String,
    String,
    Vec<(String, String, String)>,
);

fn kernel_tuple(k: &KernelSignature) -> KernelTuple {
    let params = k
        .params
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                p.ty.to_string(),
                crate::launch::param_kind(&p.ty),
            )
        })
        .collect();
    (
        k.name.plain.clone(),
        k.name.ptx.clone(),
        k.name.readable(),
        k.name.at.clone(),
        params,
    )
}
