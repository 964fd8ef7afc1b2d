//! The `gpu` engine of `kernelc run`: one launch of a PTX kernel on a real
//! device through the CUDA driver API.
//!
//! The driver library (`libcuda.so`) is loaded at run time by cudarc's
//! `dynamic-loading`, so kernelc builds and runs where there is none. cudarc
//! panics when it cannot find the library or a symbol, so this module looks
//! for both first ([`probe`]) and never lets cudarc search on its own.
//!
//! The sequence is the plainest one the driver API offers: `cuInit`, the
//! primary context of device 0, `cuModuleLoadDataEx` with the JIT's error and
//! info logs captured, one `cuMemAlloc` + `cuMemcpyHtoD` per buffer, a
//! `cuLaunchKernel` on the null stream (`cuLaunchCooperativeKernel` for a
//! kernel that waits at the grid barrier, [`needs_cooperative_launch`]),
//! `cuCtxSynchronize`, and the buffers
//! copied back. Texture and surface arguments become CUDA arrays (or linear
//! memory) with texture or surface objects ([`crate::gpu_texture`]), and a
//! surface's array is copied back like a buffer. Every resource is owned by
//! a guard that frees it on every path. Arguments are bound by
//! [`emu::bind_params`], the emulator's binder, so both engines accept
//! exactly the same launches.

use crate::gpu_texture;
use cudarc::driver::sys;
use ptx_emu::{self as emu, Bound, KernelArg};
use std::ffi::{c_void, CString};

#[cfg(unix)]
mod stdout_capture;

/// The hint every "cannot use the GPU" error ends with.
const HINT: &str =
    "  = help: run without a GPU with `--engine emu` (the PTX emulator) or `--engine interp`\n";

/// The driver entry points this engine calls (the names cudarc loads for
/// the CUDA 13.0 API). Each is looked up before the first call, so an old
/// driver is an error message, not a panic inside cudarc.
const SYMBOLS: &[&str] = &[
    "cuInit",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuModuleLoadDataEx",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuFuncSetAttribute",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2",
    "cuLaunchKernel",
    "cuLaunchCooperativeKernel",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime_v2",
    "cuEventDestroy_v2",
    "cuTensorMapEncodeTiled",
    "cuArray3DCreate_v2",
    "cuArrayDestroy",
    "cuMemcpy3D_v2",
    "cuTexObjectCreate",
    "cuTexObjectDestroy",
    "cuSurfObjectCreate",
    "cuSurfObjectDestroy",
];

/// Bytes of a `CUtensorMap` (the driver's opaque, 64-byte aligned object).
pub const TENSOR_MAP_BYTES: usize = 128;

/// The driver's data type for a tensor map over elements named `elem`
/// (`kernelc run`'s names), or `None` where TMA has none (`i8`).
pub fn tensor_map_type(elem: &str) -> Option<sys::CUtensorMapDataType> {
    use sys::CUtensorMapDataType as T;
    Some(match elem {
        "u8" => T::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        "i32" => T::CU_TENSOR_MAP_DATA_TYPE_INT32,
        "u32" => T::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        "i64" => T::CU_TENSOR_MAP_DATA_TYPE_INT64,
        "u64" => T::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        "f16" => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        "f32" => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        "f64" => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        _ => return None,
    })
}

/// A 2-D tensor map over a row-major `rows x cols` matrix: boxes of
/// `box_rows x box_cols` elements, no swizzle, no interleave, no L2
/// promotion, out-of-bounds elements read as zero.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapShape {
    /// The element type's name (for messages) and the driver's type.
    pub elem: &'static str,
    pub dtype: sys::CUtensorMapDataType,
    pub elem_bytes: u32,
    pub rows: u32,
    pub cols: u32,
    pub box_rows: u32,
    pub box_cols: u32,
}

/// A tensor-map argument: the shape and the matrix's initial contents.
pub struct TensorMapData<'a> {
    pub shape: TensorMapShape,
    pub data: &'a [u8],
}

/// Encodes the tensor map of `shape` over the device matrix at `address`.
fn encode_tensor_map(shape: &TensorMapShape, address: sys::CUdeviceptr) -> Result<Vec<u8>, String> {
    // Innermost dimension first, as the driver wants; the row pitch is the
    // only stride (a multiple of 16 bytes, which the driver checks).
    let dims: [u64; 2] = [u64::from(shape.cols), u64::from(shape.rows)];
    let strides: [u64; 1] = [u64::from(shape.cols) * u64::from(shape.elem_bytes)];
    let boxes: [u32; 2] = [shape.box_cols, shape.box_rows];
    let element_strides: [u32; 2] = [1, 1];
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: every array holds the rank's entries (2, and 1 stride); the
    // address is a live allocation of the matrix's size.
    let r = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            shape.dtype,
            2,
            address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    if r != sys::CUresult::CUDA_SUCCESS {
        return Err(format!(
            "error: engine `gpu`: the driver cannot encode a tensor map of a {}x{} `{}` matrix \
             with {}x{} boxes: {}\n  = note: the row pitch must be a multiple of 16 bytes, each \
             box side at most 256 elements, and a box row a multiple of 16 bytes\n",
            shape.rows,
            shape.cols,
            shape.elem,
            shape.box_rows,
            shape.box_cols,
            describe(r)
        ));
    }
    Ok(map.opaque.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Whether a CUDA driver library can be loaded on this machine.
pub fn driver_available() -> bool {
    // SAFETY: only tries to open the library by its usual names.
    unsafe { sys::is_culib_present() }
}

/// Checks that the driver library and every symbol this engine needs are
/// there, so that no cudarc call can panic for want of them.
pub fn probe() -> Result<(), String> {
    if !driver_available() {
        return Err(format!(
            "error: engine `gpu`: no CUDA driver found (libcuda.so could not be loaded)\n{HINT}"
        ));
    }
    // SAFETY: the library is present (checked above), so `culib` finds it;
    // looking a symbol up does not call it.
    let lib = unsafe { sys::culib() };
    for name in SYMBOLS {
        // SAFETY: as above; the pointer is not used.
        if unsafe { lib.get::<*const c_void>(name.as_bytes()) }.is_err() {
            return Err(format!(
                "error: engine `gpu`: the CUDA driver has no `{name}` (kernelc needs a CUDA 13 driver)\n{HINT}"
            ));
        }
    }
    Ok(())
}

/// `CUDA_ERROR_...: description` for a driver result.
fn describe(r: sys::CUresult) -> String {
    let mut name: *const std::ffi::c_char = std::ptr::null();
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: both calls only write a pointer to a static string.
    unsafe {
        let _ = sys::cuGetErrorName(r, &mut name);
        let _ = sys::cuGetErrorString(r, &mut text);
    }
    let read = |p: *const std::ffi::c_char| {
        if p.is_null() {
            None
        } else {
            // SAFETY: the driver returned a NUL-terminated static string.
            Some(
                unsafe { std::ffi::CStr::from_ptr(p) }
                    .to_string_lossy()
                    .into_owned(),
            )
        }
    };
    match (read(name), read(text)) {
        (Some(n), Some(t)) => format!("{n}: {t}"),
        (Some(n), None) => n,
        _ => format!("{r:?}"),
    }
}

/// Turns a driver result into `Err("error: engine `gpu`: WHAT failed: ...")`.
pub(crate) fn check(r: sys::CUresult, what: &str) -> Result<(), String> {
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!(
            "error: engine `gpu`: {what} failed: {}\n",
            describe(r)
        ))
    }
}

/// `cuInit` and device 0 (the driver library is known to be there).
fn device0() -> Result<sys::CUdevice, String> {
    // SAFETY: plain driver calls with valid out-pointers.
    unsafe {
        check(sys::cuInit(0), "cuInit (is there a usable GPU?)")?;
        let mut dev: sys::CUdevice = 0;
        check(sys::cuDeviceGet(&mut dev, 0), "cuDeviceGet(0)")?;
        Ok(dev)
    }
}

/// The compute capability of device 0 as an SM number (90 for an H100 or
/// H200), so callers can skip kernels built for a newer target.
pub fn device_sm() -> Result<u32, String> {
    probe()?;
    let dev = device0()?;
    // SAFETY: plain driver calls with valid out-pointers.
    unsafe {
        let (mut major, mut minor) = (0i32, 0i32);
        check(
            sys::cuDeviceGetAttribute(
                &mut major,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                dev,
            ),
            "cuDeviceGetAttribute",
        )?;
        check(
            sys::cuDeviceGetAttribute(
                &mut minor,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                dev,
            ),
            "cuDeviceGetAttribute",
        )?;
        Ok((major * 10 + minor) as u32)
    }
}

/// A launch for the GPU.
pub struct Launch<'a> {
    pub ptx: &'a str,
    pub kernel: &'a str,
    pub args: &'a [KernelArg],
    /// For each argument, its tensor map when it is one (`args` then holds
    /// a 128-byte placeholder aggregate in its place).
    pub tensor_maps: &'a [Option<TensorMapData<'a>>],
    /// For each argument, whether it is a surface (`surf:`): a texture
    /// model resource bound as a surface object rather than a texture
    /// object ([`crate::gpu_texture`]).
    pub surfaces: &'a [bool],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// `--time N`: after the checked launch, time `N` more launches.
    pub time_launches: u32,
    /// Return what the kernel's `printf` printed ([`Output::printed`])
    /// instead of letting the driver write it to standard output.
    pub capture_printf: bool,
}

/// What a GPU launch leaves: each argument's final buffer (`None` for
/// scalars and by-value aggregates), the device's name, and with `--time`
/// the median kernel time in milliseconds.
pub struct Output {
    pub buffers: Vec<Option<Vec<u8>>>,
    pub device: String,
    pub median_ms: Option<f64>,
    /// With [`Launch::capture_printf`], what the first launch printed.
    pub printed: Option<String>,
}

/// Why a GPU launch gave no output.
#[derive(Debug)]
pub enum RunError {
    /// Nothing ran, or the driver failed around the kernel (no driver,
    /// a PTX the JIT rejects, a bad argument, an allocation).
    Setup(String),
    /// The kernel started and the driver reported an error when it
    /// finished (an illegal address, a trap, a misaligned access): the
    /// driver says neither the thread nor the instruction.
    Fault(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Setup(m) | RunError::Fault(m) => f.write_str(m),
        }
    }
}

impl From<String> for RunError {
    fn from(message: String) -> RunError {
        RunError::Setup(message)
    }
}

impl From<RunError> for String {
    fn from(e: RunError) -> String {
        e.to_string()
    }
}

/// The primary context of device 0, current while this lives.
struct Context(sys::CUdevice);

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the context was retained by `Context::open`.
        unsafe {
            let _ = sys::cuDevicePrimaryCtxRelease_v2(self.0);
        }
    }
}

impl Context {
    fn open() -> Result<(Context, String), String> {
        // SAFETY: plain driver calls with valid out-pointers.
        unsafe {
            let dev = device0()?;
            let mut ctx: sys::CUcontext = std::ptr::null_mut();
            check(
                sys::cuDevicePrimaryCtxRetain(&mut ctx, dev),
                "cuDevicePrimaryCtxRetain",
            )?;
            let guard = Context(dev);
            check(sys::cuCtxSetCurrent(ctx), "cuCtxSetCurrent")?;
            let mut name = [0 as std::ffi::c_char; 256];
            let name = if sys::cuDeviceGetName(name.as_mut_ptr(), 255, dev)
                == sys::CUresult::CUDA_SUCCESS
            {
                std::ffi::CStr::from_ptr(name.as_ptr())
                    .to_string_lossy()
                    .into_owned()
            } else {
                "device 0".to_string()
            };
            Ok((guard, name))
        }
    }
}

struct Module(sys::CUmodule);

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by `load_module`, unloaded once.
        unsafe {
            let _ = sys::cuModuleUnload(self.0);
        }
    }
}

/// Bytes of each JIT log buffer.
const LOG_BYTES: usize = 64 * 1024;

/// The text the JIT wrote into a log buffer, up to its NUL.
fn log_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
}

/// `cuModuleLoadDataEx` with the JIT's error and info logs captured: a PTX
/// the driver rejects is reported with what the JIT said about it.
fn load_module(ptx: &str) -> Result<Module, String> {
    let image = CString::new(ptx)
        .map_err(|_| "error: engine `gpu`: the PTX contains a NUL byte\n".to_string())?;
    let mut error_log = vec![0u8; LOG_BYTES];
    let mut info_log = vec![0u8; LOG_BYTES];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ];
    // The sizes are passed as pointer-sized integers, as the driver API
    // specifies for these options.
    let mut values: [*mut c_void; 4] = [
        error_log.as_mut_ptr().cast(),
        LOG_BYTES as *mut c_void,
        info_log.as_mut_ptr().cast(),
        LOG_BYTES as *mut c_void,
    ];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: the image is NUL-terminated; the log buffers outlive the call
    // and their sizes are the ones given.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if r == sys::CUresult::CUDA_SUCCESS {
        return Ok(Module(module));
    }
    let mut msg = format!(
        "error: engine `gpu`: the driver's JIT rejected the PTX ({})\n",
        describe(r)
    );
    for (title, log) in [("error log", &error_log), ("info log", &info_log)] {
        let text = log_text(log);
        if !text.is_empty() {
            msg.push_str(&format!("  = JIT {title}:\n"));
            for line in text.lines() {
                msg.push_str(&format!("    {line}\n"));
            }
        }
    }
    Err(msg)
}

/// One device allocation.
pub(crate) struct DeviceBuffer(pub(crate) sys::CUdeviceptr);

impl DeviceBuffer {
    /// `bytes` of device memory (at least one, so each buffer has its own
    /// address).
    pub(crate) fn alloc(bytes: usize) -> Result<DeviceBuffer, String> {
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: a valid out-pointer.
        check(
            unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes.max(1)) },
            "cuMemAlloc",
        )?;
        Ok(DeviceBuffer(ptr))
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated by `cuMemAlloc_v2`, freed once.
        unsafe {
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

struct Event(sys::CUevent);

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created by `cuEventCreate`, destroyed once.
        unsafe {
            let _ = sys::cuEventDestroy_v2(self.0);
        }
    }
}

impl Event {
    fn new() -> Result<Event, String> {
        let mut e: sys::CUevent = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        check(unsafe { sys::cuEventCreate(&mut e, 0) }, "cuEventCreate")?;
        Ok(Event(e))
    }
}

/// Runs `launch` on device 0. The buffers returned are those of the first
/// launch; with `--time N`, N more launches follow, each on a fresh copy of
/// the inputs, and the median of their event-measured times is returned.
// Long: the driver calls of one launch in order (load, buffers, launch,
// timing, copies back), each with its SAFETY comment; splitting them
// would spread the resources' lifetimes over several functions.
pub fn run(launch: &Launch) -> Result<Output, RunError> {
    probe()?;
    let bound = emu::bind_params(launch.ptx, launch.kernel, launch.args)
        .map_err(|e| format!("error: {e}\n"))?;
    let (_ctx, device) = Context::open()?;
    let module = load_module(launch.ptx)?;
    let name = CString::new(launch.kernel)
        .map_err(|_| "error: the kernel name contains a NUL byte\n".to_string())?;
    let mut func: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: the module is loaded and the name NUL-terminated.
    check(
        unsafe { sys::cuModuleGetFunction(&mut func, module.0, name.as_ptr()) },
        &format!("finding kernel `{}`", launch.kernel),
    )?;
    if launch.shared_bytes > 48 * 1024 {
        // Above 48 KiB, dynamic shared memory must be opted into.
        // SAFETY: `func` is a live kernel of the loaded module.
        check(
            unsafe {
                sys::cuFuncSetAttribute(
                    func,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    launch.shared_bytes as i32,
                )
            },
            "allowing the dynamic shared memory (cuFuncSetAttribute)",
        )?;
    }

    // One device buffer per buffer argument (at least one byte, so every
    // buffer has its own address), and each parameter's bytes.
    let mut buffers: Vec<Option<(DeviceBuffer, &[u8])>> = Vec::new();
    let mut param_bytes: Vec<Vec<u8>> = Vec::new();
    // The texture and surface objects, with their argument numbers.
    let mut objects: Vec<(usize, gpu_texture::Object)> = Vec::new();
    for (k, b) in bound.iter().enumerate() {
        if let Some(Some(tmap)) = launch.tensor_maps.get(k) {
            if !matches!(b, Bound::Bytes(bytes) if bytes.len() == TENSOR_MAP_BYTES) {
                return Err(format!(
                    "error: argument {k} is a tensor map, but parameter {k} of `{}` is not a \
                     by-value `CUtensorMap` (a 128-byte `.param` aggregate)\n",
                    launch.kernel
                )
                .into());
            }
            let guard = DeviceBuffer::alloc(tmap.data.len())?;
            param_bytes.push(encode_tensor_map(&tmap.shape, guard.0)?);
            buffers.push(Some((guard, tmap.data)));
            continue;
        }
        match b {
            Bound::Buffer(data) => {
                let buffer = DeviceBuffer::alloc(data.len())?;
                param_bytes.push(buffer.0.to_le_bytes().to_vec());
                buffers.push(Some((buffer, data)));
            }
            Bound::Bytes(bytes) => {
                param_bytes.push(bytes.clone());
                buffers.push(None);
            }
            Bound::Texture(res) => {
                let surface = launch.surfaces.get(k).copied().unwrap_or(false);
                let object = gpu_texture::Object::create(res, surface)?;
                param_bytes.push(object.handle().to_le_bytes().to_vec());
                objects.push((k, object));
                buffers.push(None);
            }
            // The emulator's own tensor maps: the GPU engine binds a
            // `tmap:` as 128 bytes that the driver's encoding replaces
            // (above), never as one of these.
            Bound::TensorMap(_) => {
                return Err(format!(
                    "error: argument {k} is an emulator tensor map, which the GPU cannot read\n"
                )
                .into())
            }
        }
    }
    let upload = |buffers: &[Option<(DeviceBuffer, &[u8])>]| -> Result<(), String> {
        for (dev, data) in buffers.iter().flatten() {
            // SAFETY: the allocation holds at least `data.len()` bytes.
            check(
                unsafe { sys::cuMemcpyHtoD_v2(dev.0, data.as_ptr().cast(), data.len()) },
                "copying a buffer to the device (cuMemcpyHtoD)",
            )?;
        }
        Ok(())
    };
    // Textures were filled when created and no launch changes them; a
    // surface is written back to its initial elements before each timed
    // launch, as buffers are.
    let upload_surfaces = || -> Result<(), String> {
        for (_, object) in objects.iter().filter(|(_, o)| o.is_surface()) {
            object.upload()?;
        }
        Ok(())
    };
    // `cuLaunchKernel` reads each parameter's bytes through one pointer per
    // parameter; `param_bytes` outlives every launch below.
    let mut params: Vec<*mut c_void> = param_bytes
        .iter_mut()
        .map(|p| p.as_mut_ptr().cast())
        .collect();
    let [gx, gy, gz] = launch.grid;
    let [bx, by, bz] = launch.block;
    let cooperative = needs_cooperative_launch(launch.ptx);
    let mut launch_once = || -> Result<(), String> {
        // SAFETY: `func` is live, `params` has one pointer per kernel
        // parameter (checked by `bind_params`), each to bytes of the
        // parameter's size; the null stream is the legacy default stream.
        // A cooperative launch takes the same arguments less `extra`; the
        // driver refuses one of more blocks than the device holds at once.
        if cooperative {
            return check(
                unsafe {
                    sys::cuLaunchCooperativeKernel(
                        func,
                        gx,
                        gy,
                        gz,
                        bx,
                        by,
                        bz,
                        launch.shared_bytes,
                        std::ptr::null_mut(),
                        params.as_mut_ptr(),
                    )
                },
                "cuLaunchCooperativeKernel (a kernel with a grid barrier needs all its blocks resident at once)",
            );
        }
        check(
            unsafe {
                sys::cuLaunchKernel(
                    func,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    launch.shared_bytes,
                    std::ptr::null_mut(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            },
            "cuLaunchKernel",
        )
    };
    let sync = |what: &str| -> Result<(), String> {
        // SAFETY: a plain driver call on the current context.
        check(unsafe { sys::cuCtxSynchronize() }, what)
    };

    upload(&buffers)?;
    let printed = launch_checked(launch.capture_printf, &mut launch_once)?;
    let mut results = Vec::with_capacity(buffers.len());
    for b in &buffers {
        results.push(match b {
            Some((dev, data)) => {
                let mut out = vec![0u8; data.len()];
                // SAFETY: the allocation holds `out.len()` bytes.
                check(
                    unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), dev.0, out.len()) },
                    "copying a buffer back (cuMemcpyDtoH)",
                )?;
                Some(out)
            }
            None => None,
        });
    }
    // A surface's final elements are its argument's output, as the
    // emulator returns them; a texture's are its initial ones.
    for (k, object) in objects.iter().filter(|(_, o)| o.is_surface()) {
        results[*k] = Some(object.download()?);
    }

    let mut median_ms = None;
    if launch.time_launches > 0 {
        let (start, end) = (Event::new()?, Event::new()?);
        let mut times = Vec::new();
        for _ in 0..launch.time_launches {
            upload(&buffers)?;
            upload_surfaces()?;
            sync("copying the inputs (cuCtxSynchronize)")?;
            // SAFETY: live events, recorded on the null stream around the launch.
            check(
                unsafe { sys::cuEventRecord(start.0, std::ptr::null_mut()) },
                "cuEventRecord",
            )?;
            launch_once()?;
            check(
                unsafe { sys::cuEventRecord(end.0, std::ptr::null_mut()) },
                "cuEventRecord",
            )?;
            check(
                unsafe { sys::cuEventSynchronize(end.0) },
                "running the kernel (cuEventSynchronize)",
            )?;
            let mut ms = 0f32;
            check(
                unsafe { sys::cuEventElapsedTime_v2(&mut ms, start.0, end.0) },
                "cuEventElapsedTime",
            )?;
            times.push(f64::from(ms));
        }
        median_ms = Some(median(&mut times));
    }
    Ok(Output {
        buffers: results,
        device,
        median_ms,
        printed,
    })
}

/// Whether the module's PTX waits at the grid barrier (`grid_group::sync`,
/// as kernelc and nvcc both write it: the workspace read from `%envreg1`
/// and the arrival's `atom.add.release.gpu`), so its kernels need a
/// cooperative launch, which gives them the workspace. The interpreter
/// decides the same for the kernels that reach its `grid_barrier`.
pub fn needs_cooperative_launch(ptx: &str) -> bool {
    ptx.contains("%envreg1") && ptx.contains("atom.add.release.gpu")
}

/// The first launch and its synchronization, whose failure is the
/// kernel's fault; with `capture`, fd 1 is captured around both, so what
/// the driver prints for the kernel's `printf` at the synchronization
/// comes back.
fn launch_checked(
    capture: bool,
    launch_once: &mut dyn FnMut() -> Result<(), String>,
) -> Result<Option<String>, RunError> {
    #[cfg(unix)]
    let capture = if capture {
        Some(stdout_capture::Capture::start()?)
    } else {
        None
    };
    launch_once()?;
    // SAFETY: a plain driver call on the current context.
    let r = unsafe { sys::cuCtxSynchronize() };
    #[cfg(unix)]
    let printed = capture.map(stdout_capture::Capture::finish).transpose()?;
    #[cfg(not(unix))]
    let printed = {
        let _ = capture;
        None
    };
    check(r, "running the kernel (cuCtxSynchronize)").map_err(RunError::Fault)?;
    Ok(printed)
}

/// The median (the mean of the two middle values for an even count).
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn jit_logs_stop_at_the_nul() {
        let mut buf = b"ptxas error   : bad\n".to_vec();
        buf.extend([0, b'x', b'y']);
        assert_eq!(log_text(&buf), "ptxas error   : bad");
    }
}
