"""engine="gpu" on a real GPU: host arrays, printf, faults, arrays already
in GPU memory (CuPy, PyTorch, DLPack), and kernelc's PTX loaded by CuPy's
RawModule and by cuda-python's cuModuleLoadData, each checked against the
emulator running the same launch.

Without a CUDA driver every test here is skipped, as the Rust suite's GPU
tests are (no CI machine has a GPU); test_run.py checks the no-driver
error instead. The packages that hold GPU arrays (CuPy, PyTorch,
cuda-python) are optional: a test that needs one that is missing is
skipped."""

import ctypes
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kernelc


def _driver_present() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _driver_present(), reason="SKIPPED: no CUDA driver")

KERNELS = textwrap.dedent(
    """\
    __global__ void saxpy(float a, const float *x, float *y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }

    __global__ void histogram(const unsigned *in, unsigned *bins, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicAdd(&bins[in[i] % 64], 1u);
    }

    __global__ void poly(const double *x, double *y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = ((0.25 * x[i] - 1.5) * x[i] + 2.0) * x[i] - sin(x[i]);
    }

    __global__ void hello(int tag) {
        if (threadIdx.x < 3) printf("block %d thread %d says %d\\n", blockIdx.x, threadIdx.x, tag);
    }

    __global__ void farWrite(int *p, int far) {
        if (blockIdx.x == 1 && threadIdx.x == 5) p[far] = 1;
    }
    """
)


@pytest.fixture(scope="module")
def module():
    return kernelc.Module(KERNELS)


def _both(module, name, grid, block, make_args):
    """Runs the launch on the emulator and on the GPU, each on fresh
    arguments from ``make_args()``, and returns both argument lists."""
    runs = []
    for engine in ("emu", "gpu"):
        args = make_args()
        module.get_function(name)(grid, block, args, engine=engine)
        runs.append(args)
    return runs


def test_numpy_arrays_give_the_emulators_bytes(module):
    rng = np.random.default_rng(11)
    n = 100_000
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    emu, gpu = _both(module, "saxpy", (n + 255) // 256, 256, lambda: [2.5, x.copy(), y.copy(), n])
    assert gpu[2].tobytes() == emu[2].tobytes()
    assert not np.array_equal(gpu[2], y)

    keys = rng.integers(0, 1 << 30, n, dtype=np.uint32)
    emu, gpu = _both(
        module, "histogram", (n + 127) // 128, 128, lambda: [keys, np.zeros(64, np.uint32), n]
    )
    assert gpu[1].tolist() == emu[1].tolist()
    assert gpu[1].sum() == n

    xs = rng.uniform(-4, 4, 4096)
    emu, gpu = _both(module, "poly", 16, 256, lambda: [xs, np.zeros_like(xs), xs.size])
    # sin is kernelc's own code on both engines: the same instructions,
    # the same bits.
    assert gpu[1].tobytes() == emu[1].tobytes()


def test_printf_comes_back_as_text(module):
    hello = module.get_function("hello")
    on_gpu = hello(2, 32, (7,), engine="gpu").printed
    on_emu = hello(2, 32, (7,), engine="emu").printed
    # The GPU orders the blocks as it runs them.
    assert sorted(on_gpu.splitlines()) == sorted(on_emu.splitlines())
    assert "block 1 thread 2 says 7" in on_gpu.splitlines()


def _in_a_fresh_process(code: str) -> str:
    """Runs ``code`` in a new Python: a fault leaves the CUDA context it
    happened in unusable, and must not break the other tests."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_gpu_fault_is_located_by_the_interpreter():
    out = _in_a_fresh_process(
        f"""
        import numpy as np, kernelc
        m = kernelc.Module({KERNELS!r})
        try:
            m.get_function("farWrite")(2, 32, (np.zeros(4, np.int32), 1 << 28), engine="gpu")
        except kernelc.KernelFault as f:
            print(f.engine, f.block, f.thread, f.line)
            print(str(f))
        """
    )
    first, rest = out.split("\n", 1)
    assert first == "gpu (1, 0, 0) (5, 0, 0) 21"
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in rest
    assert "the interpreter ran the same launch and located the fault" in rest


def test_cupy_arrays_are_used_in_place(module):
    cp = pytest.importorskip("cupy")
    n = 50_000
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    address = y.data.ptr
    module.get_function("saxpy")((n + 255) // 256, 256, (0.5, x, y, n), engine="gpu")
    assert y.data.ptr == address
    want = np.float32(0.5) * np.arange(n, dtype=np.float32) + np.float32(1)
    assert cp.asnumpy(y).tobytes() == want.tobytes()
    # A host array and a device array in one launch.
    host = np.ones(n, np.float32)
    module.get_function("saxpy")((n + 255) // 256, 256, (2.0, x, host, n), engine="gpu")
    assert host.tobytes() == (np.float32(2) * np.arange(n, dtype=np.float32) + 1).tobytes()


class DLPackOnly:
    """A GPU array seen only through DLPack (no __cuda_array_interface__)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_arrays_are_used_in_place(module):
    cp = pytest.importorskip("cupy")
    n = 1000
    x = cp.arange(n, dtype=cp.float32)
    y = cp.zeros(n, dtype=cp.float32)
    module.get_function("saxpy")(4, 256, (3.0, DLPackOnly(x), DLPackOnly(y[0:]), n), engine="gpu")
    assert cp.asnumpy(y).tolist() == [3.0 * i for i in range(n)]


def test_torch_tensors_are_used_in_place(module):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    n = 1000
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    y = torch.ones(n, dtype=torch.float32, device="cuda")
    module.get_function("saxpy")(4, 256, (2.0, x, y, n), engine="gpu")
    torch.cuda.synchronize()
    assert y.cpu().tolist() == [2.0 * i + 1 for i in range(n)]


def test_the_ptx_loads_in_cupys_raw_module(module, tmp_path):
    cp = pytest.importorskip("cupy")
    path = tmp_path / "kernels.ptx"
    path.write_text(module.ptx)
    raw = cp.RawModule(path=str(path))
    name = module.program.kernel("saxpy").mangled
    saxpy = raw.get_function(name)
    n = 4096
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    saxpy((n // 256,), (256,), (cp.float32(4.0), x, y, cp.int32(n)))
    want = np.ones(n, np.float32)
    module.get_function("saxpy")(n // 256, 256, (4.0, np.arange(n, dtype=np.float32), want, n), engine="emu")
    assert cp.asnumpy(y).tobytes() == want.tobytes()


def test_the_ptx_loads_with_cuda_python(module):
    driver = pytest.importorskip("cuda.bindings.driver")

    def ok(result):
        err, *rest = result
        assert err == driver.CUresult.CUDA_SUCCESS, err
        return rest[0] if len(rest) == 1 else rest

    ok(driver.cuInit(0))
    device = ok(driver.cuDeviceGet(0))
    context = ok(driver.cuDevicePrimaryCtxRetain(device))
    try:
        ok(driver.cuCtxSetCurrent(context))
        loaded = ok(driver.cuModuleLoadData(module.ptx.encode() + b"\0"))
        name = module.program.kernel("histogram").mangled
        function = ok(driver.cuModuleGetFunction(loaded, name.encode()))
        n = 10_000
        keys = np.arange(n, dtype=np.uint32) * 7
        bins = np.zeros(64, np.uint32)
        d_keys = ok(driver.cuMemAlloc(keys.nbytes))
        d_bins = ok(driver.cuMemAlloc(bins.nbytes))
        ok(driver.cuMemcpyHtoD(d_keys, keys.ctypes.data, keys.nbytes))
        ok(driver.cuMemcpyHtoD(d_bins, bins.ctypes.data, bins.nbytes))
        args = ((d_keys, d_bins, n), (None, None, ctypes.c_int))
        ok(driver.cuLaunchKernel(function, (n + 127) // 128, 1, 1, 128, 1, 1, 0, 0, args, 0))
        ok(driver.cuCtxSynchronize())
        ok(driver.cuMemcpyDtoH(bins.ctypes.data, d_bins, bins.nbytes))
        ok(driver.cuMemFree(d_keys))
        ok(driver.cuMemFree(d_bins))
        ok(driver.cuModuleUnload(loaded))
    finally:
        ok(driver.cuDevicePrimaryCtxRelease(device))
    want = np.bincount((np.arange(n, dtype=np.uint32) * 7) % 64, minlength=64)
    assert bins.tolist() == want.tolist()
