"""kernelc.compile: PTX, kernels, IR stages, warnings, diagnostics, options."""

import subprocess
import textwrap
import threading

import pytest

import kernelc
from conftest import require_ptxas

SAXPY = textwrap.dedent(
    """\
    __global__ void saxpy(float a, const float *x, float *y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }
    """
)


def test_ptx_names_kernels_as_nvcc_does():
    program = kernelc.compile(SAXPY)
    assert ".entry _Z5saxpyfPKfPfi(" in program.ptx
    assert ".target sm_90" in program.ptx
    [k] = program.kernels
    assert (k.name, k.mangled) == ("saxpy", "_Z5saxpyfPKfPfi")
    assert k.readable == "saxpy(float, const float*, float*, int)"
    assert k.location == "<source>.cu:1:17"
    assert [(p.name, p.kind, p.dtype) for p in k.params] == [
        ("a", "scalar", "f4"),
        ("x", "pointer", "f4"),
        ("y", "pointer", "f4"),
        ("n", "scalar", "i4"),
    ]


def test_extern_c_kernels_keep_their_names():
    program = kernelc.compile('extern "C" __global__ void k(int *p) { p[0] = 1; }')
    assert [k.mangled for k in program.kernels] == ["k"]


def test_the_ptx_is_what_the_command_line_writes(tmp_path):
    """The package and `kernelc FILE.cu` are one compiler: same options,
    same bytes."""
    source = tmp_path / "saxpy.cu"
    source.write_text(SAXPY)
    cli = kernelc_binary()
    expected = subprocess.run(
        [cli, str(source), "-arch=sm_80", "-O2", "-DUNUSED=1"],
        check=True, capture_output=True, text=True,
    ).stdout
    program = kernelc.compile(
        SAXPY, arch="sm_80", opt=2, defines={"UNUSED": 1}, file_name=str(source)
    )
    assert program.ptx == expected


def kernelc_binary():
    import os
    path = os.environ.get("KERNELC_BIN")
    if not path:
        if os.environ.get("CI") == "true":
            pytest.fail("KERNELC_BIN must name the kernelc binary in CI")
        pytest.skip("KERNELC_BIN not set")
    return path


def test_ptxas_accepts_the_ptx(tmp_path):
    ptxas = require_ptxas()
    path = tmp_path / "saxpy.ptx"
    path.write_text(kernelc.compile(SAXPY).ptx)
    subprocess.run([ptxas, "-arch=sm_90", str(path), "-o", str(tmp_path / "out.cubin")], check=True)


def test_cubin_and_stats_come_from_ptxas(monkeypatch):
    monkeypatch.setenv("KERNELC_PTXAS", require_ptxas())
    program = kernelc.compile(SAXPY)
    assert program.cubin()[:4] == b"\x7fELF"
    assert "saxpy(float, const float*, float*, int)" in program.stats()


def test_ir_at_every_stage():
    program = kernelc.compile(SAXPY)
    frontend = program.ir("frontend")
    final = program.ir("final")
    assert "kernel external @_Z5saxpyfPKfPfi" in frontend
    assert frontend != final
    assert program.passes[0] == "contract"
    assert "memspace" in program.passes
    # After the last pass, the IR is the final IR.
    assert program.ir(len(program.passes) - 1) == final
    assert program.ir("memspace") == program.ir(program.passes.index("memspace"))
    with pytest.raises(ValueError, match="no pass `nonesuch` ran"):
        program.ir("nonesuch")


def test_opt_zero_runs_no_optimizing_pass():
    program = kernelc.compile(SAXPY, opt=0)
    assert "memspace" not in program.passes


def test_explanations():
    program = kernelc.compile(
        "__global__ void k(const float *__restrict__ a, float *__restrict__ b) { b[0] = a[0]; }"
    )
    assert "ld.global.nc" in program.ptx
    assert "`v" in program.explain_nc() and ".nc" in program.explain_nc()
    shared = kernelc.compile(
        "__global__ void k(float *o) { __shared__ float s[32]; float *p = s; "
        "p[threadIdx.x] = 1; __syncthreads(); o[0] = p[1]; }"
    )
    assert "shared" in shared.explain_memspace()


def test_warnings_are_data():
    program = kernelc.compile("__global__ void k(int *p) { int unused; p[0] = 1; }")
    assert program.warnings, program.messages
    w = program.warnings[0]
    assert w.severity == "warning" and w.code and w.code.startswith("W")
    assert (w.file, w.line) == ("<source>.cu", 1)
    assert w.code in program.messages


def test_compile_error_carries_located_diagnostics():
    with pytest.raises(kernelc.CompileError) as caught:
        kernelc.compile("__global__ void k(int *p) {\n    p[0] = q;\n}\n", file_name="bad.cu")
    e = caught.value
    assert "error[E0001]" in str(e) and "bad.cu:2:12" in str(e)
    [d] = e.diagnostics
    assert (d.severity, d.code, d.file, d.line, d.column) == ("error", "E0001", "bad.cu", 2, 12)
    assert "`q`" in d.message


def test_werror_makes_a_warning_an_error():
    with pytest.raises(kernelc.CompileError) as caught:
        kernelc.compile("__global__ void k(int *p) { int unused; p[0] = 1; }", options=["-Werror"])
    assert caught.value.diagnostics[0].severity == "error"


def test_includes_are_searched_as_nvcc_does(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "twice.h").write_text("__device__ int twice(int x) { return 2 * x; }\n")
    (tmp_path / "local.h").write_text("#define LOCAL 3\n")
    source = '#include "local.h"\n#include "twice.h"\n__global__ void k(int *p) { p[0] = twice(LOCAL); }\n'
    path = tmp_path / "k.cu"
    path.write_text(source)
    module = kernelc.Module(path, include_dirs=[tmp_path / "inc"])
    assert [k.name for k in module.program.kernels] == ["k"]
    with pytest.raises(kernelc.CompileError, match="twice.h"):
        kernelc.compile(source, file_name=str(path))


def test_options_in_nvcc_spellings():
    fast = kernelc.compile(
        "__global__ void k(float *p) { p[0] = expf(p[1]); }", options=["--use_fast_math"]
    )
    assert "ex2.approx.ftz.f32" in fast.ptx
    with pytest.raises(ValueError, match="--emit"):
        kernelc.compile(SAXPY, options=["--emit", "ir"])
    with pytest.raises(ValueError, match="unexpected argument"):
        kernelc.compile(SAXPY, options=["--no-such-option"])
    with pytest.raises(ValueError, match="sm_12"):
        kernelc.compile(SAXPY, arch="sm_12")


def test_compiles_run_in_parallel_threads():
    """Threads may compile at once (the GIL is released while compiling),
    and each gets what a compilation alone gives."""
    results = {}

    def work(n):
        results[n] = kernelc.compile(SAXPY, defines={"N": n}).ptx

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {n: kernelc.compile(SAXPY, defines={"N": n}).ptx for n in range(4)}


def test_the_cache_gives_back_what_compiling_again_would(tmp_path):
    source = '#include "consts.h"\n__global__ void k(int *p) { p[0] = VALUE; }\n'
    (tmp_path / "consts.h").write_text("#define VALUE 41\n")
    name = str(tmp_path / "k.cu")
    first = kernelc.compile(source, file_name=name)
    again = kernelc.compile(source, file_name=name)
    assert not first.from_cache and again.from_cache
    assert again.ptx == first.ptx
    # An edited header misses the cache.
    (tmp_path / "consts.h").write_text("#define VALUE 42\n")
    edited = kernelc.compile(source, file_name=name)
    assert not edited.from_cache and "42" in edited.ptx and edited.ptx != first.ptx
    # So does a header put where the search looked first: with -I a -I b,
    # a `consts.h` newly in `a` hides `b`'s.
    for folder in ("a", "b", "src"):
        (tmp_path / folder).mkdir()
    (tmp_path / "b" / "consts.h").write_text("#define VALUE 7\n")
    inner = str(tmp_path / "src" / "k.cu")
    folders = [tmp_path / "a", tmp_path / "b"]
    assert "7" in kernelc.compile(source, file_name=inner, include_dirs=folders).ptx
    assert kernelc.compile(source, file_name=inner, include_dirs=folders).from_cache
    (tmp_path / "a" / "consts.h").write_text("#define VALUE 8\n")
    hidden = kernelc.compile(source, file_name=inner, include_dirs=folders)
    assert not hidden.from_cache and "8" in hidden.ptx
    # Other options, or cache=False, compile.
    assert not kernelc.compile(source, file_name=name, opt=2).from_cache
    assert not kernelc.compile(source, file_name=name, cache=False).from_cache


def test_failed_compilations_are_not_cached():
    for _ in range(2):
        with pytest.raises(kernelc.CompileError):
            kernelc.compile("__global__ void k() { nope(); }")
