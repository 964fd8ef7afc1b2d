"""kernelc: compile, inspect and run CUDA kernels from Python, with or
without a GPU.

    import numpy as np, kernelc
    mod = kernelc.Module(r'''
        __global__ void scale(float *x, float a, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) x[i] *= a;
        }''')
    x = np.arange(8, dtype=np.float32)
    mod.get_function("scale")(1, 8, (x, 2.0, 8))      # the IR interpreter
    mod.get_function("scale")(1, 8, (x, 2.0, 8), engine="emu")  # the PTX

The compiler runs in this process (no subprocess, no GPU needed);
``engine="gpu"`` loads the CUDA driver when it is called. docs/python.md
is the guide.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _kernelc
from ._display import AnnotatedPTX, AnnotatedSource, Graph, IRDiff, program_html
from ._errors import CompileError, Diagnostic, KernelFault, LaunchError, ToolError

__all__ = [
    "compile",
    "Program",
    "Module",
    "Function",
    "KernelInfo",
    "Param",
    "LaunchResult",
    "Diagnostic",
    "CompileError",
    "KernelFault",
    "LaunchError",
    "ToolError",
    "ENGINES",
]

__version__: str = _kernelc.__version__

ENGINES = ("interp", "emu", "gpu")
"""The engines a kernel runs on: the IR interpreter, the PTX emulator, a
real GPU through the CUDA driver."""

Dims = Union[int, Sequence[int]]


@dataclass(frozen=True)
class Param:
    """A kernel parameter as the source declares it."""

    name: str
    type: str
    """The C type, as the compiler writes it (``const float*``)."""
    kind: str
    """``"pointer"`` (pass an array), ``"scalar"`` (a number),
    ``"aggregate"`` (a by-value struct: pass its bytes) or
    ``"unsupported"``."""
    dtype: Optional[str]
    """For a pointer, its element's NumPy type code (``"f4"``); for a
    scalar, its own; ``None`` when it is not a number."""
    size: Optional[int]
    """For an aggregate, its size in bytes."""


@dataclass(frozen=True)
class KernelInfo:
    """A kernel of a program."""

    name: str
    """The name in the source (``vectorAdd``)."""
    mangled: str
    """The name in the PTX: nvcc's (``_Z9vectorAddPKfS0_Pfi``), or the
    source name under ``extern "C"``. CuPy and the CUDA driver find the
    kernel by this name."""
    readable: str
    """``vectorAdd(const float*, const float*, float*, int)``."""
    location: str
    """``FILE:line:col`` of its definition."""
    params: Tuple[Param, ...]


@dataclass(frozen=True)
class LaunchResult:
    """What a launch leaves besides the arrays it wrote."""

    printed: str
    """What the kernel's ``printf`` calls printed (the interpreter's and
    the emulator's; on a GPU the driver prints to the process's stdout)."""
    steps: int
    """Instructions executed over all threads (0 on a GPU)."""


def _param(name: str, ctype: str, kind: str) -> Param:
    what, _, code = kind.partition(":")
    if what == "aggregate":
        return Param(name, ctype, what, None, int(code))
    return Param(name, ctype, what, code or None, None)


def _kernel(t: Tuple[str, str, str, str, List[Tuple[str, str, str]]]) -> KernelInfo:
    name, mangled, readable, location, params = t
    return KernelInfo(name, mangled, readable, location, tuple(_param(*p) for p in params))


def _names_of(k: KernelInfo) -> Tuple[str, ...]:
    """The names a kernel answers to: its source name (``ns::scale<float>``),
    that name without namespaces and template arguments (``scale``), its
    mangled name and its readable signature."""
    base = k.name.split("<", 1)[0].rsplit("::", 1)[-1]
    return (k.name, base, k.mangled, k.readable)


class Program:
    """A compiled source: its PTX, its IR at every stage, its kernels and
    what the compiler has to say about them. Made by :func:`compile`."""

    def __init__(self, native: _kernelc.Program, source: str, file_name: str) -> None:
        self._native = native
        self.source = source
        """The source text that was compiled."""
        self.file_name = file_name
        self._steps: Optional[List[Tuple[str, str]]] = None

    @property
    def from_cache(self) -> bool:
        """Whether the compile cache gave this program (see :func:`compile`)."""
        return self._native.from_cache

    @property
    def ptx(self) -> str:
        """The PTX, ready for ``ptxas``, CuPy's ``RawModule`` or the CUDA
        driver's ``cuModuleLoadData``."""
        return self._native.ptx

    @property
    def kernels(self) -> List[KernelInfo]:
        """The kernels, in source order."""
        return [_kernel(k) for k in self._native.kernels]

    @property
    def warnings(self) -> List[Diagnostic]:
        """The compiler's warnings."""
        return [Diagnostic._from_tuple(d) for d in self._native.warnings]

    @property
    def messages(self) -> str:
        """The warnings and pass reports, as the command line prints them."""
        return self._native.messages

    def _pass_steps(self) -> List[Tuple[str, str]]:
        if self._steps is None:
            self._steps = self._native.pass_steps()
        return self._steps

    @property
    def passes(self) -> List[str]:
        """The passes that ran, in order (a pass may run more than once)."""
        return [name for name, _ in self._pass_steps()]

    def ir(self, stage: Union[str, int] = "final") -> str:
        """The IR at a stage: ``"frontend"`` (as lowered, before any pass),
        ``"final"`` (after the pipeline: what the interpreter runs), a
        pass's name (after its last run) or an index into :attr:`passes`
        (after that step)."""
        if stage == "frontend":
            return self._native.lowered_ir()
        if stage == "final":
            return self._native.optimized_ir()
        steps = self._pass_steps()
        return steps[self._step(stage)][1]

    def _step(self, stage: Union[str, int]) -> int:
        """The index in :attr:`passes` of a pass (its last run) or index."""
        if isinstance(stage, int):
            return range(len(self.passes))[stage]
        runs = [i for i, name in enumerate(self.passes) if name == stage]
        if not runs:
            ran = ", ".join(dict.fromkeys(self.passes))
            raise ValueError(f"no pass `{stage}` ran (passes: {ran})")
        return runs[-1]

    def diff(self, stage: Union[str, int]) -> IRDiff:
        """What one step of the pipeline changed: the IR before and after
        it (a pass's last run, or the step at an index of :attr:`passes`),
        side by side in a notebook, a unified diff as text."""
        step = self._step(stage)
        steps = self._pass_steps()
        if step == 0:
            before_name, before = "frontend", self._native.lowered_ir()
        else:
            before_name, before = steps[step - 1]
            before_name = f"after {before_name} (step {step - 1})"
        return IRDiff(before_name, before, f"after {steps[step][0]} (step {step})", steps[step][1])

    def cfg(self) -> Graph:
        """The control-flow graph of each function of the final IR, its
        blocks with their instructions (``--emit dot``): drawn in a
        notebook when Graphviz is installed."""
        return Graph(self._native.dot())

    def memspace_notes(self) -> List[Tuple[Optional[Tuple[str, int, int]], str, str]]:
        """:meth:`explain_memspace`'s explanations, each with where its
        value is made: ``(location, function, text)``, the location a
        ``(file, line, column)`` or ``None`` (a parameter, say)."""
        return self._native.memspace_notes()

    def annotated_source(self, memspace: bool = True, nc: bool = True) -> AnnotatedSource:
        """The source with the compiler's explanations under the lines they
        are about: each generic pointer's memory space and why
        (:meth:`memspace_notes`), and for every global load whether it
        became ``ld.global.nc`` and why not (:meth:`explain_nc`)."""
        notes: List[str] = []
        if memspace:
            for at, function, text in self.memspace_notes():
                where = f"{at[0]}:{at[1]}:{at[2]}: " if at else ""
                notes.append(f"{where}memspace: @{function} {text}")
        if nc:
            notes += [f"{n}" for n in self.explain_nc().splitlines()]
        return AnnotatedSource(self.file_name, self.source, notes)

    def annotated_ptx(self) -> AnnotatedPTX:
        """The PTX with the source line of each instruction beside it (a
        table in a notebook). The lines come from ``-lineinfo``'s ``.loc``
        directives: when the program was compiled without ``-lineinfo``,
        its PTX is printed again with them for this view (:attr:`ptx`
        stays what was asked for)."""
        ptx, files = self._native.lineinfo_ptx()
        return AnnotatedPTX(ptx, files)

    def _repr_html_(self) -> str:
        kernels = [(k.readable, k.mangled, k.location) for k in self.kernels]
        return program_html(kernels, len(self.passes), len(self.ptx.splitlines()), len(self.warnings))

    def explain_memspace(self) -> str:
        """Each generic pointer's inferred memory space, and why
        (``--explain-memspace``)."""
        return self._native.explain_memspace()

    def explain_nc(self) -> str:
        """For every global load of a kernel, whether it became
        ``ld.global.nc``, and why not (``--explain-nc``)."""
        return self._native.explain_nc()

    def cubin(self) -> bytes:
        """The cubin ptxas makes of the PTX (needs NVIDIA's ptxas: found
        through ``KERNELC_PTXAS``, ``PATH`` or ``CUDA_HOME``)."""
        return self._native.cubin()

    def stats(self) -> str:
        """Each kernel's registers, stack, shared memory, spills and
        barriers, from the cubin (``--stats``; needs ptxas)."""
        return self._native.stats()

    def kernel(self, name: str) -> KernelInfo:
        """The kernel named ``name`` (its source or its mangled name)."""
        matches = [k for k in self.kernels if name in _names_of(k)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            known = ", ".join(k.readable for k in self.kernels)
            raise LaunchError(f"no kernel `{name}` in the program (its kernels: {known})")
        raise LaunchError(
            f"`{name}` is ambiguous: {len(matches)} kernels have that name; "
            f"give the mangled name of one of {', '.join(k.mangled for k in matches)}"
        )


def _options(
    arch: str,
    opt: int,
    defines: Optional[Mapping[str, Any]],
    include_dirs: Optional[Sequence[Union[str, "os.PathLike[str]"]]],
    options: Optional[Sequence[str]],
) -> List[str]:
    words = [f"-arch={arch}", f"-O{opt}"]
    for name, value in (defines or {}).items():
        words.append(f"-D{name}" if value is None else f"-D{name}={value}")
    for folder in include_dirs or ():
        words += ["-I", os.fspath(folder)]
    return words + list(options or ())


def compile(
    source: str,
    arch: str = "sm_90",
    opt: int = 3,
    defines: Optional[Mapping[str, Any]] = None,
    include_dirs: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
    options: Optional[Sequence[str]] = None,
    *,
    file_name: str = "<source>.cu",
    cache: bool = True,
) -> Program:
    """Compiles CUDA source text. ``defines`` maps macro names to values
    (``None``: defined without one); ``options`` are further command-line
    options in nvcc's spellings (``["--use_fast_math", "-std=c++17"]``);
    ``file_name`` names the source in diagnostics, and ``#include "x.h"``
    searches its folder first. Raises :class:`CompileError`.

    A compilation of the same source, name and options as one of the last
    64 gives that one's result back at once, unless a file it included (or
    looked for) has changed since; ``cache=False`` always compiles."""
    words = _options(arch, opt, defines, include_dirs, options)
    return Program(_kernelc.compile(source, file_name, words, cache), source, file_name)


def _dims(d: Dims, what: str) -> Tuple[int, int, int]:
    dims = (d,) if isinstance(d, int) else tuple(d)
    if not 1 <= len(dims) <= 3 or not all(isinstance(x, int) and x >= 1 for x in dims):
        raise LaunchError(f"{what} must be a positive int or a tuple of 1 to 3 of them, not {d!r}")
    return (dims + (1, 1))[:3]  # type: ignore[return-value]


def _compatible(array_code: str, param_code: str) -> bool:
    """Whether an array of NumPy type ``array_code`` may be read as the
    parameter's elements: the same type, or integers of the same size."""
    if array_code == param_code:
        return True
    if param_code[0] == "V":
        # No NumPy type (`__nv_bfloat16`): any array of elements that size.
        return array_code[1:] == param_code[1:]
    ints = ("i", "u")
    return array_code[0] in ints and param_code[0] in ints and array_code[1:] == param_code[1:]


_DLPACK_CPU = 1


def _on_device(arg: Any) -> bool:
    """Whether ``arg`` is an array in GPU memory (CuPy, PyTorch on CUDA)."""
    if hasattr(arg, "__cuda_array_interface__"):
        return True
    device = getattr(arg, "__dlpack_device__", None)
    return device is not None and device()[0] != _DLPACK_CPU


def _device_pointer(arg: Any, param: Param) -> int:
    """The device address of an array in GPU memory, for ``engine="gpu"``:
    from ``__cuda_array_interface__`` (CuPy, Numba, PyTorch), else from a
    DLPack capsule. It is passed as is, without a copy; the kernel's writes
    land in the array."""
    interface = getattr(arg, "__cuda_array_interface__", None)
    if interface is None:
        return _dlpack_pointer(arg)
    strides = interface.get("strides")
    if strides is not None and not _c_contiguous(interface["shape"], strides, interface["typestr"]):
        raise LaunchError(f"`{param.name}`: the device array must be C-contiguous")
    code = interface["typestr"][1:]
    if param.dtype and not _compatible(code, param.dtype):
        raise LaunchError(
            f"`{param.type} {param.name}` expects elements of NumPy type {param.dtype}, "
            f"got a device array of {code}"
        )
    return int(interface["data"][0])


def _c_contiguous(shape: Sequence[int], strides: Sequence[int], typestr: str) -> bool:
    """Whether ``strides`` (in bytes) are a C-ordered array's."""
    step = int(typestr[2:])
    for extent, stride in zip(reversed(list(shape)), reversed(list(strides))):
        if extent > 1 and stride != step:
            return False
        step *= extent
    return True


def _dlpack_pointer(arg: Any) -> int:
    """The data address of a DLPack tensor: the ``data`` and
    ``byte_offset`` fields of the ``DLTensor`` its capsule holds."""
    import ctypes

    class DLTensor(ctypes.Structure):
        _fields_ = [
            ("data", ctypes.c_void_p),
            ("device_type", ctypes.c_int32),
            ("device_id", ctypes.c_int32),
            ("ndim", ctypes.c_int32),
            ("dtype", ctypes.c_uint32),
            ("shape", ctypes.c_void_p),
            ("strides", ctypes.c_void_p),
            ("byte_offset", ctypes.c_uint64),
        ]

    capsule = arg.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    tensor = DLTensor.from_address(get(capsule, b"dltensor"))
    return int(tensor.data or 0) + int(tensor.byte_offset)


def _is_buffer(arg: Any) -> bool:
    try:
        memoryview(arg)
    except TypeError:
        return False
    return True


def _buffer(arg: Any, param: Param, engine: str) -> memoryview:
    """The bytes of an array argument, checked against the parameter."""
    if _on_device(arg):
        raise LaunchError(
            f"`{param.name}` is in GPU memory: only engine='gpu' can use it "
            "(the interpreter and the emulator take host arrays, such as NumPy's)"
        )
    try:
        view = memoryview(arg)
    except TypeError:
        raise LaunchError(
            f"`{param.type} {param.name}` expects an array (anything with the buffer protocol), "
            f"got {type(arg).__name__}"
        ) from None
    if not view.c_contiguous:
        raise LaunchError(f"`{param.name}`: the array must be C-contiguous (numpy.ascontiguousarray)")
    dtype = getattr(arg, "dtype", None)
    if dtype is not None and param.dtype and not _compatible(dtype.str[1:], param.dtype):
        raise LaunchError(
            f"`{param.type} {param.name}` expects elements of NumPy type {param.dtype}, "
            f"got an array of {dtype}"
        )
    return view


class Function:
    """A kernel of a :class:`Module`, callable in the shape of CuPy's
    ``RawKernel``: ``f(grid, block, args, shared_mem=0)``."""

    def __init__(self, program: Program, info: KernelInfo) -> None:
        self._program = program
        self.info = info

    @property
    def name(self) -> str:
        return self.info.mangled

    def __call__(
        self,
        grid: Dims,
        block: Dims,
        args: Sequence[Any],
        shared_mem: int = 0,
        engine: str = "interp",
        max_steps: Optional[int] = None,
    ) -> LaunchResult:
        """Runs the kernel. Arrays (NumPy or anything with the buffer
        protocol) are copied in and their final contents written back;
        numbers are converted to the parameters' types, checked. Raises
        :class:`KernelFault` when the kernel faults and
        :class:`LaunchError` when the launch cannot start."""
        if engine not in ENGINES:
            raise LaunchError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")
        params = self.info.params
        if len(args) != len(params):
            raise LaunchError(
                f"{self.info.readable} takes {len(params)} arguments, {len(args)} given"
            )
        views: Dict[int, memoryview] = {}
        values: List[object] = []
        for i, (arg, param) in enumerate(zip(args, params)):
            if param.kind == "pointer" and engine == "gpu" and _on_device(arg):
                values.append(_device_pointer(arg, param))
            elif param.kind == "pointer":
                views[i] = _buffer(arg, param, engine)
                values.append(views[i].tobytes())
            elif param.kind == "aggregate":
                # A struct's bytes: anything with the buffer protocol (the
                # extension says what it expects of anything else).
                values.append(bytes(memoryview(arg)) if _is_buffer(arg) else arg)
            else:
                values.append(arg)
        buffers, printed, steps = self._program._native.launch(
            self.info.mangled,
            _dims(grid, "grid"),
            _dims(block, "block"),
            values,
            shared_mem,
            engine,
            max_steps,
        )
        for i, view in views.items():
            out = buffers[i]
            if out is not None and not view.readonly:
                view.cast("B")[:] = out
        if printed:
            sys.stdout.write(printed)
        return LaunchResult(printed, steps)


class Module:
    """A compiled CUDA source (text, or the path of a ``.cu`` file) whose
    kernels can be run: ``Module(src).get_function("name")(grid, block,
    args)``. The keyword arguments are :func:`compile`'s."""

    def __init__(
        self,
        source_or_path: Union[str, "os.PathLike[str]"],
        arch: str = "sm_90",
        opt: int = 3,
        defines: Optional[Mapping[str, Any]] = None,
        include_dirs: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
        options: Optional[Sequence[str]] = None,
        cache: bool = True,
    ) -> None:
        source, file_name = _read_source(source_or_path)
        self.program = compile(
            source, arch, opt, defines, include_dirs, options, file_name=file_name, cache=cache
        )

    @property
    def ptx(self) -> str:
        return self.program.ptx

    def get_function(self, name: str) -> Function:
        """The kernel ``name``: its source name, with or without namespaces
        and template arguments (when only one kernel has it), its mangled
        name or its readable signature."""
        return Function(self.program, self.program.kernel(name))


def _read_source(source_or_path: Union[str, "os.PathLike[str]"]) -> Tuple[str, str]:
    """The text and the file name of a source given as text or as a path.
    A string is a path when it names an existing file and holds no line
    break."""
    if isinstance(source_or_path, str) and (
        "\n" in source_or_path or not os.path.isfile(source_or_path)
    ):
        return source_or_path, "<source>.cu"
    path = os.fspath(source_or_path)
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read(), path
