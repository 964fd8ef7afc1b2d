"""Running kernels with NumPy arrays on the interpreter and the emulator,
checked against NumPy; bad launches and faults."""

import textwrap

import numpy as np
import pytest

import kernelc

ENGINES = ["interp", "emu"]

KERNELS = textwrap.dedent(
    """\
    #define TILE 16

    __global__ void saxpy(float a, const float *x, float *y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }

    // A block-wide sum in shared memory, one partial sum per block.
    __global__ void blockSum(const int *in, long long *out, unsigned n) {
        __shared__ long long part[256];
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        part[threadIdx.x] = i < n ? in[i] : 0;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
            __syncthreads();
        }
        if (threadIdx.x == 0) out[blockIdx.x] = part[0];
    }

    // C = A * B for row-major square matrices, tiled through shared memory.
    __global__ void matmul(const double *A, const double *B, double *C, int n) {
        __shared__ double a[TILE][TILE], b[TILE][TILE];
        int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
        double acc = 0;
        for (int t = 0; t < n; t += TILE) {
            a[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
            b[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
            __syncthreads();
            for (int k = 0; k < TILE; ++k) acc += a[threadIdx.y][k] * b[k][threadIdx.x];
            __syncthreads();
        }
        C[row * n + col] = acc;
    }

    struct Affine { float scale; float shift; };

    __global__ void affine(Affine f, float *x, short count) {
        int i = threadIdx.x;
        if (i < count) x[i] = f.scale * x[i] + f.shift;
    }

    __global__ void scaleHalf(__half *x, __half k) { x[threadIdx.x] = __hmul(x[threadIdx.x], k); }

    __global__ void hello(int tag) { printf("thread %d says %d\\n", threadIdx.x, tag); }

    __device__ int twice(int x) { return 2 * x; }
    __global__ void over(int *p) { p[0] = twice(1); }
    __global__ void over(float *p) { p[0] = 2.5f; }
    """
)


@pytest.fixture(scope="module")
def module():
    return kernelc.Module("#include <cuda_fp16.h>\n" + KERNELS)


@pytest.mark.parametrize("engine", ENGINES)
def test_saxpy_matches_numpy(module, engine):
    rng = np.random.default_rng(7)
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    want = np.float32(1.5) * x + y
    module.get_function("saxpy")((n + 127) // 128, 128, (1.5, x, y, n), engine=engine)
    # One rounding per element (a fused multiply-add); NumPy rounds twice.
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("engine", ENGINES)
def test_block_sums_match_numpy(module, engine):
    data = np.arange(-300, 700, dtype=np.int32) * 12345
    out = np.zeros(4, dtype=np.int64)
    module.get_function("blockSum")(4, 256, [data, out, data.size], engine=engine)
    padded = np.concatenate([data.astype(np.int64), np.zeros(24, np.int64)])
    assert out.tolist() == padded.reshape(4, 256).sum(axis=1).tolist()


@pytest.mark.parametrize("engine", ENGINES)
def test_tiled_matmul_matches_numpy(module, engine):
    n = 32
    rng = np.random.default_rng(3)
    a, b = rng.random((n, n)), rng.random((n, n))
    c = np.zeros((n, n))
    module.get_function("matmul")((n // 16, n // 16), (16, 16), (a, b, c, n), engine=engine)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_by_value_struct_and_short(module, engine):
    affine = np.zeros((), dtype=[("scale", "<f4"), ("shift", "<f4")])
    affine["scale"], affine["shift"] = 3.0, -1.0
    x = np.arange(8, dtype=np.float32)
    module.get_function("affine")(1, 8, (affine.tobytes(), x, 6), engine=engine)
    assert x.tolist() == [-1.0, 2.0, 5.0, 8.0, 11.0, 14.0, 6.0, 7.0]


@pytest.mark.parametrize("engine", ENGINES)
def test_half_arrays_and_scalars(module, engine):
    x = np.array([1.0, -2.5, 0.125, 60000.0], dtype=np.float16)
    module.get_function("scaleHalf")(1, 4, (x, 0.5), engine=engine)
    assert x.tolist() == [0.5, -1.25, 0.0625, 30000.0]


@pytest.mark.parametrize("engine", ENGINES)
def test_printf_comes_back_as_text(module, engine, capsys):
    result = module.get_function("hello")(1, 2, (7,), engine=engine)
    assert result.printed == "thread 0 says 7\nthread 1 says 7\n"
    assert result.steps > 0
    assert capsys.readouterr().out == result.printed


def test_kernels_are_found_by_either_name(module):
    assert module.get_function("saxpy").name == "_Z5saxpyfPKfPfi"
    assert module.get_function("_Z4overPi").info.readable == "over(int*)"
    assert module.get_function("over(float*)").name == "_Z4overPf"
    with pytest.raises(kernelc.LaunchError, match="ambiguous"):
        module.get_function("over")
    with pytest.raises(kernelc.LaunchError, match="no kernel `nope`"):
        module.get_function("nope")
    p = np.zeros(1, dtype=np.int32)
    module.get_function("_Z4overPi")(1, 1, (p,))
    assert p[0] == 2


def test_bad_arguments_are_clear_errors(module):
    saxpy = module.get_function("saxpy")
    x = np.zeros(4, np.float32)
    with pytest.raises(kernelc.LaunchError, match="takes 4 arguments, 3 given"):
        saxpy(1, 4, (1.0, x, x))
    with pytest.raises(kernelc.LaunchError, match="expects elements of NumPy type f4, got an array of float64"):
        saxpy(1, 4, (1.0, np.zeros(4), x, 4))
    with pytest.raises(kernelc.LaunchError, match="does not fit a signed 32-bit integer"):
        saxpy(1, 4, (1.0, x, x, 2**31))
    with pytest.raises(kernelc.LaunchError, match="expects an integer, got the float 4.5"):
        saxpy(1, 4, (1.0, x, x, 4.5))
    with pytest.raises(kernelc.LaunchError, match="expects an array"):
        saxpy(1, 4, (1.0, 3, x, 4))
    with pytest.raises(kernelc.LaunchError, match="C-contiguous"):
        saxpy(1, 4, (1.0, np.zeros(8, np.float32)[::2], x, 4))
    with pytest.raises(kernelc.LaunchError, match="is 8 bytes, 4 given"):
        module.get_function("affine")(1, 1, (b"abcd", x, 1))
    with pytest.raises(kernelc.LaunchError, match="expects the struct's bytes, got dict"):
        module.get_function("affine")(1, 1, ({"scale": 1.0}, x, 1))
    with pytest.raises(kernelc.LaunchError, match="unknown engine"):
        saxpy(1, 4, (1.0, x, x, 4), engine="cpu")
    with pytest.raises(kernelc.LaunchError, match="grid must be"):
        saxpy(0, 4, (1.0, x, x, 4))


@pytest.mark.parametrize("engine", ENGINES)
def test_an_array_too_small_is_a_fault_not_corruption(module, engine):
    x = np.zeros(4, np.float32)
    y = np.zeros(8, np.float32)
    with pytest.raises(kernelc.KernelFault) as caught:
        module.get_function("saxpy")(1, 8, (1.0, x, y, 8), engine=engine)
    fault = caught.value
    assert fault.engine == engine
    assert fault.block == (0, 0, 0) and fault.thread == (4, 0, 0)
    assert fault.kernel == "saxpy(float, const float*, float*, int)"
    assert "out-of-bounds" in str(fault)
    if engine == "interp":
        assert (fault.file, fault.line) == ("<source>.cu", 6)
    else:
        assert fault.ptx_line and fault.line is None


def test_endless_loops_stop_at_max_steps():
    module = kernelc.Module("__global__ void spin(volatile int *p) { while (p[0] == 0) {} }")
    with pytest.raises(kernelc.KernelFault, match="step limit of 10000"):
        module.get_function("spin")(1, 1, (np.zeros(1, np.int32),), max_steps=10_000)


def test_read_only_arrays_are_read_not_written(module):
    x = np.ones(4, np.float32)
    x.setflags(write=False)
    y = np.zeros(4, np.float32)
    module.get_function("saxpy")(1, 4, (2.0, x, y, 4))
    assert y.tolist() == [2.0] * 4


def test_gpu_engine_without_a_driver_is_a_clear_error(module):
    try:
        import ctypes

        ctypes.CDLL("libcuda.so.1")
        pytest.skip("a CUDA driver is present: the GPU tests of the Rust suite run it")
    except OSError:
        pass
    y = np.zeros(4, np.float32)
    with pytest.raises(kernelc.LaunchError, match="(?i)cuda"):
        module.get_function("saxpy")(1, 4, (1.0, y, y, 4), engine="gpu")


class FakeDeviceArray:
    """An array in GPU memory as CuPy describes one (no GPU needed to
    describe it)."""

    def __init__(self, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {
            "shape": (4,), "typestr": typestr, "data": (0x7F0000001000, False),
            "version": 3, "strides": strides,
        }


def test_device_arrays_need_the_gpu_engine(module):
    saxpy = module.get_function("saxpy")
    y = np.zeros(4, np.float32)
    for engine in ENGINES:
        with pytest.raises(kernelc.LaunchError, match="in GPU memory: only engine='gpu'"):
            saxpy(1, 4, (1.0, FakeDeviceArray(), y, 4), engine=engine)


def test_device_arrays_are_checked_before_the_gpu_runs(module):
    saxpy = module.get_function("saxpy")
    with pytest.raises(kernelc.LaunchError, match="got a device array of f8"):
        saxpy(1, 4, (1.0, FakeDeviceArray("<f8"), FakeDeviceArray(), 4), engine="gpu")
    with pytest.raises(kernelc.LaunchError, match="C-contiguous"):
        saxpy(1, 4, (1.0, FakeDeviceArray(strides=(8,)), FakeDeviceArray(), 4), engine="gpu")


def test_dlpack_addresses_are_read_from_the_capsule():
    """The DLPack path of engine='gpu', checked on a host array: the
    address read from the capsule is the array's own."""
    from kernelc import _dlpack_pointer

    a = np.arange(16, dtype=np.float32)
    assert _dlpack_pointer(a) == a.ctypes.data
    assert _dlpack_pointer(a[3:]) == a[3:].ctypes.data
