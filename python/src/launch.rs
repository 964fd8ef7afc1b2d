//! Launching a compiled kernel from Python: each argument converted to the
//! parameter's type (with a clear error when it does not fit), then run by
//! the interpreter, the emulator or the GPU exactly as `kernelc run` runs
//! it ([`kernelc::run`] binds the arguments and renders the faults).

use crate::errors::{self, FaultSite};
use crate::program::Build;
use frontend::typed::Param;
use frontend::types::HalfFormat;
use frontend::CType;
use kernelc::run::{ArgValue, Elem};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The launch's shape and engine, as Python gave them.
pub struct Request<'a> {
    pub kernel: &'a str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_mem: u32,
    pub engine: &'a str,
    pub max_steps: Option<u64>,
}

/// What a launch returns to Python: each argument's final bytes (`None`
/// for scalars), what `printf` printed, and the instructions executed (0
/// on a GPU).
pub type Launched = (Vec<Option<Py<PyBytes>>>, String, u64);

/// How Python should pass a parameter of type `ty`, with the NumPy-style
/// code of its element: `pointer:f4` (an array of `float`), `pointer:`
/// (of something that is not a number), `scalar:i4`, `aggregate:16` (a
/// by-value struct of 16 bytes, passed as bytes), `unsupported:`.
pub fn param_kind(ty: &CType) -> String {
    match ty {
        CType::Pointer { pointee, .. } => format!("pointer:{}", number_code(pointee)),
        CType::Struct(_) | CType::Array { .. } => {
            format!("aggregate:{}", ty.size().unwrap_or(0))
        }
        CType::Function(_) | CType::Void => "unsupported:".to_string(),
        scalar => format!("scalar:{}", number_code(scalar)),
    }
}

/// NumPy's type code of a number type (`f4`, `i8`, `u1`, `b1`, `f2`), or
/// nothing for other types. `__nv_bfloat16` has no NumPy type: `V2`.
fn number_code(ty: &CType) -> String {
    match ty {
        CType::Bool => "b1".into(),
        CType::Int { bits, signed } => format!("{}{}", if *signed { 'i' } else { 'u' }, bits / 8),
        CType::Float { bits } => format!("f{}", bits / 8),
        CType::Half(HalfFormat::F16) => "f2".into(),
        CType::Half(HalfFormat::Bf16) => "V2".into(),
        _ => String::new(),
    }
}

/// Runs `program`'s kernel with `args` (see `Program.launch`).
pub fn launch(
    py: Python<'_>,
    program: &Build,
    req: Request<'_>,
    args: &[Bound<'_, PyAny>],
) -> PyResult<Launched> {
    let kernel = find_kernel(program, req.kernel).map_err(|m| errors::launch_error(py, m))?;
    let on_gpu = req.engine == "gpu";
    let values =
        arg_values(&kernel.params, args, on_gpu).map_err(|m| errors::launch_error(py, m))?;
    let name = kernel.name.ptx.clone();
    let outcome = py.detach(|| run(program, &req, &name, &values));
    let (buffers, printed, steps) = outcome.map_err(|stop| match stop {
        Stop::Setup(m) => errors::launch_error(py, m),
        Stop::Fault(site) => errors::kernel_fault(py, *site),
    })?;
    let buffers = buffers
        .into_iter()
        .map(|b| b.map(|bytes| PyBytes::new(py, &bytes).unbind()))
        .collect();
    Ok((
        buffers,
        String::from_utf8_lossy(&printed).into_owned(),
        steps,
    ))
}

/// The kernel whose PTX name is `mangled`. The Python side finds a kernel
/// by any of its names (`Program.kernel`) and passes its mangled one.
fn find_kernel<'p>(
    program: &'p Build,
    mangled: &str,
) -> Result<&'p kernelc::driver::KernelSignature, String> {
    program
        .kernels
        .iter()
        .find(|k| k.name.ptx == mangled)
        .ok_or_else(|| format!("no kernel `{mangled}` in the program"))
}

/// Each argument converted to its parameter's type. On the GPU a pointer
/// parameter may also take an integer: the address of an array already in
/// device memory (the Python side reads it from CuPy's, PyTorch's or any
/// `__cuda_array_interface__`/DLPack array), passed without a copy.
fn arg_values(
    params: &[Param],
    args: &[Bound<'_, PyAny>],
    on_gpu: bool,
) -> Result<Vec<ArgValue>, String> {
    if params.len() != args.len() {
        return Err(format!(
            "the kernel takes {} argument{}, {} given",
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            args.len()
        ));
    }
    params
        .iter()
        .zip(args)
        .enumerate()
        .map(|(i, (p, a))| {
            arg_value(&p.ty, a, on_gpu)
                .map_err(|why| format!("argument {i} (`{} {}`): {why}", p.ty, p.name))
        })
        .collect()
}

/// One argument for a parameter of type `ty`.
fn arg_value(ty: &CType, value: &Bound<'_, PyAny>, on_gpu: bool) -> Result<ArgValue, String> {
    match ty {
        CType::Pointer { .. } if on_gpu && value.extract::<u64>().is_ok() => Ok(ArgValue::Scalar {
            elem: Elem::U64,
            bits: value.extract::<u64>().unwrap_or_default(),
        }),
        CType::Pointer { .. } => Ok(ArgValue::Buffer {
            elem: Elem::U8,
            bytes: bytes_of(value, "an array (or bytes)")?,
        }),
        CType::Struct(_) | CType::Array { .. } => {
            let bytes = bytes_of(value, "the struct's bytes")?;
            let size = ty.size().unwrap_or(0);
            if bytes.len() as u64 != size {
                return Err(format!(
                    "a by-value `{ty}` is {size} bytes, {} given",
                    bytes.len()
                ));
            }
            Ok(ArgValue::Buffer {
                elem: Elem::U8,
                bytes,
            })
        }
        CType::Int { bits, signed } => int_arg(*bits, *signed, value),
        CType::Bool => {
            let b = value
                .extract::<bool>()
                .map_err(|_| format!("expects a bool, got {}", type_name(value)))?;
            Ok(ArgValue::Scalar {
                elem: Elem::U8,
                bits: u64::from(b),
            })
        }
        CType::Float { bits } => float_arg(*bits, value),
        CType::Half(HalfFormat::F16) => {
            let x = float_of(value)?;
            Ok(ArgValue::Scalar {
                elem: Elem::F16,
                bits: kir_interp::eval::f64_to_float(x, midend::ir::Type::F16),
            })
        }
        _ => Err(format!(
            "parameters of type `{ty}` cannot be passed from Python yet"
        )),
    }
}

/// The bytes of a `bytes`-like object (the Python side turns arrays into
/// `bytes`).
fn bytes_of(value: &Bound<'_, PyAny>, what: &str) -> Result<Vec<u8>, String> {
    match value.cast::<PyBytes>() {
        Ok(b) => Ok(b.as_bytes().to_vec()),
        Err(_) => Err(format!("expects {what}, got {}", type_name(value))),
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an object".to_string())
}

/// An integer argument, which must fit the parameter's type.
fn int_arg(bits: u8, signed: bool, value: &Bound<'_, PyAny>) -> Result<ArgValue, String> {
    let is_float = value.extract::<f64>().is_ok() && value.extract::<i128>().is_err();
    let v: i128 = value.extract().map_err(|_| {
        if is_float {
            format!("expects an integer, got the float {value}")
        } else {
            format!("expects an integer, got {}", type_name(value))
        }
    })?;
    let width = u32::from(bits);
    let (lo, hi) = if signed {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    } else {
        (0, (1i128 << width) - 1)
    };
    if v < lo || v > hi {
        let kind = if signed { "signed" } else { "unsigned" };
        return Err(format!(
            "{v} does not fit a {kind} {bits}-bit integer ({lo} to {hi})"
        ));
    }
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    Ok(ArgValue::Scalar {
        elem: int_elem(bits, signed),
        bits: (v as u64) & mask,
    })
}

fn int_elem(bits: u8, signed: bool) -> Elem {
    match (bits, signed) {
        (8, true) => Elem::I8,
        (8, false) => Elem::U8,
        (16, true) => Elem::I16,
        (16, false) => Elem::U16,
        (32, true) => Elem::I32,
        (32, false) => Elem::U32,
        (_, true) => Elem::I64,
        (_, false) => Elem::U64,
    }
}

/// A Python number as `f64` (integers too, as C converts them).
fn float_of(value: &Bound<'_, PyAny>) -> Result<f64, String> {
    value
        .extract::<f64>()
        .map_err(|_| format!("expects a number, got {}", type_name(value)))
}

fn float_arg(bits: u8, value: &Bound<'_, PyAny>) -> Result<ArgValue, String> {
    let x = float_of(value)?;
    Ok(match bits {
        32 => ArgValue::Scalar {
            elem: Elem::F32,
            bits: u64::from((x as f32).to_bits()),
        },
        _ => ArgValue::Scalar {
            elem: Elem::F64,
            bits: x.to_bits(),
        },
    })
}

/// Why a launch did not finish.
enum Stop {
    /// Nothing ran: a bad launch or a missing engine.
    Setup(String),
    /// The kernel faulted.
    Fault(Box<FaultSite>),
}

type Ran = (Vec<Option<Vec<u8>>>, Vec<u8>, u64);

/// Runs the kernel `kernel` (its PTX name) on the request's engine.
fn run(program: &Build, req: &Request<'_>, kernel: &str, values: &[ArgValue]) -> Result<Ran, Stop> {
    let max_steps = req.max_steps.unwrap_or(kir_interp::DEFAULT_MAX_STEPS);
    match req.engine {
        "interp" => run_interp(program, req, kernel, values, max_steps),
        "emu" => run_emu(program, req, kernel, values, max_steps),
        "gpu" => run_gpu(program, req, kernel, values),
        other => Err(Stop::Setup(format!(
            "unknown engine `{other}`: use \"interp\", \"emu\" or \"gpu\""
        ))),
    }
}

fn run_interp(
    program: &Build,
    req: &Request<'_>,
    kernel: &str,
    values: &[ArgValue],
    max_steps: u64,
) -> Result<Ran, Stop> {
    let config = kir_interp::LaunchConfig {
        grid: req.grid,
        block: req.block,
        dynamic_shared_bytes: req.shared_mem,
        max_steps_per_thread: max_steps,
        ..kir_interp::LaunchConfig::default()
    };
    let args = kernelc::run::interp_args(values);
    match kir_interp::run_kernel(&program.optimized, kernel, &args, &config) {
        Ok(out) => Ok((out.buffers, out.printed, out.steps)),
        Err(kir_interp::RunError::Setup(e)) => Err(Stop::Setup(e.to_string())),
        Err(kir_interp::RunError::Fault(f)) => {
            let source = f.span.map(|s| {
                let (file, line, column) = program.map.position(s.start);
                (file.to_string(), line, column)
            });
            Err(Stop::Fault(Box::new(FaultSite {
                rendered: kernelc::run::render_fault(&f, Some(&program.map)),
                engine: "interp",
                kernel: f.kernel.clone(),
                block: Some(f.block),
                thread: Some(f.thread),
                source,
                ptx_line: None,
            })))
        }
    }
}

fn run_emu(
    program: &Build,
    req: &Request<'_>,
    kernel: &str,
    values: &[ArgValue],
    max_steps: u64,
) -> Result<Ran, Stop> {
    let config = ptx_emu::LaunchConfig {
        grid: req.grid,
        block: req.block,
        dynamic_shared_bytes: req.shared_mem,
        max_steps_per_thread: max_steps,
        ..ptx_emu::LaunchConfig::default()
    };
    let args = kernelc::run::emu_args(values);
    match ptx_emu::run_ptx(&program.ptx, kernel, &args, &config) {
        Ok(out) => Ok((
            kernelc::run::with_param_buffers(values, out.buffers)
                .into_iter()
                .map(|(_, b)| b)
                .collect(),
            out.printed,
            out.steps,
        )),
        Err(ptx_emu::RunError::Load(m)) => Err(Stop::Setup(m.to_string())),
        Err(ptx_emu::RunError::Setup(m)) => Err(Stop::Setup(m.to_string())),
        Err(ptx_emu::RunError::Fault(f)) => Err(Stop::Fault(Box::new(FaultSite {
            rendered: kernelc::run::render_emu_fault(&f, "<program> (as PTX)", &program.ptx),
            engine: "emu",
            kernel: f.kernel.clone(),
            block: Some(f.block),
            thread: Some(f.thread),
            source: f
                .source
                .as_ref()
                .map(|at| (at.file.clone(), at.line as usize, at.col as usize)),
            ptx_line: Some(f.line),
        }))),
    }
}

fn run_gpu(
    program: &Build,
    req: &Request<'_>,
    kernel: &str,
    values: &[ArgValue],
) -> Result<Ran, Stop> {
    kernelc::gpu::probe().map_err(|m| Stop::Setup(m.trim_end().to_string()))?;
    let args = kernelc::run::emu_args(values);
    let tensor_maps: Vec<Option<kernelc::gpu::TensorMapData>> =
        values.iter().map(|_| None).collect();
    let out = kernelc::gpu::run(&kernelc::gpu::Launch {
        ptx: &program.ptx,
        kernel,
        args: &args,
        tensor_maps: &tensor_maps,
        surfaces: &kernelc::run::surface_args(values),
        grid: req.grid,
        block: req.block,
        shared_bytes: req.shared_mem,
        time_launches: 0,
        // A notebook does not show the process's standard output.
        capture_printf: true,
    })
    .map_err(|e| match e {
        kernelc::gpu::RunError::Setup(m) => Stop::Setup(m.trim_end().to_string()),
        kernelc::gpu::RunError::Fault(m) => gpu_fault(program, req, kernel, values, m.trim_end()),
    })?;
    let printed = out.printed.unwrap_or_default().into_bytes();
    let buffers = kernelc::run::with_param_buffers(values, out.buffers)
        .into_iter()
        .map(|(_, b)| b)
        .collect();
    Ok((buffers, printed, 0))
}

/// A fault the GPU reported. The driver names neither the thread nor the
/// instruction, so when every array was copied from the host the same
/// launch runs again on the interpreter, which names the source line,
/// block and thread of the fault; arrays in GPU memory cannot be read
/// there, and such a fault has no location.
fn gpu_fault(
    program: &Build,
    req: &Request<'_>,
    kernel: &str,
    values: &[ArgValue],
    driver_says: &str,
) -> Stop {
    let unlocated = |why: &str| {
        Stop::Fault(Box::new(FaultSite {
            rendered: format!("{driver_says}\n  = note: {why}"),
            engine: "gpu",
            kernel: kernel.to_string(),
            block: None,
            thread: None,
            source: None,
            ptx_line: None,
        }))
    };
    if passes_device_addresses(program, kernel, values) {
        return unlocated(
            "an argument is in GPU memory, so the interpreter cannot run the launch to locate the fault",
        );
    }
    match run_interp(program, req, kernel, values, kir_interp::DEFAULT_MAX_STEPS) {
        Err(Stop::Fault(mut site)) => {
            site.rendered = format!(
                "{driver_says}\n  = note: the interpreter ran the same launch and located the fault:\n{}",
                site.rendered
            );
            site.engine = "gpu";
            Stop::Fault(site)
        }
        _ => unlocated("the interpreter ran the same launch without a fault"),
    }
}

/// Whether a pointer parameter was given an address in GPU memory (an
/// integer) rather than an array copied from the host.
fn passes_device_addresses(program: &Build, kernel: &str, values: &[ArgValue]) -> bool {
    find_kernel(program, kernel).is_ok_and(|k| {
        k.params.iter().zip(values).any(|(p, v)| {
            matches!(p.ty, CType::Pointer { .. }) && matches!(v, ArgValue::Scalar { .. })
        })
    })
}
