// Quantized weight blocks in the style of a GGML backend: 32 weights share
// one half-precision scale (q4_0, q8_0) or a scale and a minimum (q4_1).
// Dequantizers are static __forceinline__ device functions passed as
// non-type template arguments to kernel templates (dequantize a whole
// tensor to float, or fuse dequantization into a matrix-vector product
// reduced across the warp); the host picks the instantiation by switching
// over the tensor type, as a backend's dispatcher does.

#include <cuda_fp16.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define GGML_UNUSED(x) (void)(x)
#define GGML_ASSERT(x)                                                  \
    do {                                                                \
        if (!(x)) {                                                     \
            fprintf(stderr, "%s:%d: GGML_ASSERT(%s) failed\n", __FILE__, \
                    __LINE__, #x);                                      \
            abort();                                                    \
        }                                                               \
    } while (0)
#define CUDA_CHECK(err)                                                  \
    do {                                                                 \
        cudaError_t err_ = (err);                                        \
        if (err_ != cudaSuccess) {                                       \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                  \
                    cudaGetErrorString(err_), __FILE__, __LINE__);       \
            exit(1);                                                     \
        }                                                                \
    } while (0)

#define WARP_SIZE 32
#define CUDA_DEQUANTIZE_BLOCK_SIZE 256
#define CUDA_MMV_Y 1

#define QK4_0 32
#define QR4_0 2
#define QK4_1 32
#define QR4_1 2
#define QK8_0 32
#define QR8_0 1

typedef half ggml_half;
typedef half2 ggml_half2;

typedef struct {
    ggml_half d;           // scale
    uint8_t qs[QK4_0 / 2]; // two 4-bit weights per byte
} block_q4_0;
static_assert(sizeof(block_q4_0) == sizeof(ggml_half) + QK4_0 / 2, "wrong q4_0 block size/padding");

typedef struct {
    union {
        struct {
            ggml_half d; // scale
            ggml_half m; // minimum
        };
        ggml_half2 dm;
    };
    uint8_t qs[QK4_1 / 2];
} block_q4_1;
static_assert(sizeof(block_q4_1) == 2 * sizeof(ggml_half) + QK4_1 / 2, "wrong q4_1 block size/padding");

typedef struct {
    ggml_half d;
    int8_t qs[QK8_0];
} block_q8_0;
static_assert(sizeof(block_q8_0) == sizeof(ggml_half) + QK8_0, "wrong q8_0 block size/padding");

enum ggml_type {
    GGML_TYPE_F32 = 0,
    GGML_TYPE_Q4_0 = 2,
    GGML_TYPE_Q4_1 = 3,
    GGML_TYPE_Q8_0 = 8,
};

typedef float dfloat;
typedef float2 dfloat2;

typedef void (*dequantize_kernel_t)(const void *vx, const int64_t ib, const int iqs, dfloat2 &v);

static __device__ __forceinline__ void dequantize_q4_0(const void *vx, const int64_t ib, const int iqs, dfloat2 &v) {
    const block_q4_0 *x = (const block_q4_0 *)vx;

    const dfloat d = __half2float(x[ib].d);
    const int vui = x[ib].qs[iqs];

    v.x = vui & 0xF;
    v.y = vui >> 4;

    v.x = (v.x - 8.0f) * d;
    v.y = (v.y - 8.0f) * d;
}

static __device__ __forceinline__ void dequantize_q4_1(const void *vx, const int64_t ib, const int iqs, dfloat2 &v) {
    const block_q4_1 *x = (const block_q4_1 *)vx;

    const dfloat d = __low2float(x[ib].dm);
    const dfloat m = __high2float(x[ib].dm);
    const int vui = x[ib].qs[iqs];

    v.x = vui & 0xF;
    v.y = vui >> 4;

    v.x = (v.x * d) + m;
    v.y = (v.y * d) + m;
}

static __device__ __forceinline__ void dequantize_q8_0(const void *vx, const int64_t ib, const int iqs, dfloat2 &v) {
    const block_q8_0 *x = (const block_q8_0 *)vx;

    const dfloat d = __half2float(x[ib].d);

    v.x = x[ib].qs[iqs + 0];
    v.y = x[ib].qs[iqs + 1];

    v.x *= d;
    v.y *= d;
}

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, 32);
    }
    return x;
}

static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, 32));
    }
    return x;
}

template <int qk, int qr, dequantize_kernel_t dequantize_kernel, typename dst_t>
static __global__ void dequantize_block(const void *__restrict__ vx, dst_t *__restrict__ y, const int64_t k) {
    const int64_t i = 2 * ((int64_t)blockDim.x * blockIdx.x + threadIdx.x);

    if (i >= k) {
        return;
    }

    const int64_t ib = i / qk;            // block index
    const int64_t iqs = (i % qk) / qr;    // quant index
    const int64_t iybs = i - i % qk;      // y block start index
    const int64_t y_offset = qr == 1 ? 1 : qk / 2;

    dfloat2 v;
    dequantize_kernel(vx, ib, iqs, v);

    y[iybs + iqs + 0] = v.x;
    y[iybs + iqs + y_offset] = v.y;
}

template <int qk, int qr, dequantize_kernel_t dequantize_kernel>
static __global__ void dequantize_mul_mat_vec(const void *__restrict__ vx, const dfloat *__restrict__ y,
                                              float *__restrict__ dst, const int ncols, const int nrows) {
    const int row = blockIdx.x * blockDim.y + threadIdx.y;

    if (row >= nrows) {
        return;
    }

    const int tid = threadIdx.x;

    const int iter_stride = 2 * WARP_SIZE;
    const int vals_per_iter = iter_stride / WARP_SIZE; // weights one thread handles per iteration
    const int y_offset = qr == 1 ? 1 : qk / 2;

    float tmp = 0.0f;

    for (int i = 0; i < ncols; i += iter_stride) {
        const int col = i + vals_per_iter * tid;
        const int ib = (row * ncols + col) / qk;
        const int iqs = (col % qk) / qr;
        const int iybs = col - col % qk;

#pragma unroll
        for (int j = 0; j < vals_per_iter; j += 2) {
            dfloat2 v;
            dequantize_kernel(vx, ib, iqs + j / qr, v);

            tmp += v.x * y[iybs + iqs + j / qr + 0];
            tmp += v.y * y[iybs + iqs + j / qr + y_offset];
        }
    }

    tmp = warp_reduce_sum(tmp);

    if (tid == 0) {
        dst[row] = tmp;
    }
}

// Quantizes rows of floats to q8_0: one warp per block of 32, the scale
// from the warp's absolute maximum.
static __global__ void quantize_q8_0(const float *__restrict__ x, void *__restrict__ vy, const int64_t kx) {
    const int64_t i = (int64_t)blockDim.x * blockIdx.x + threadIdx.x;

    if (i >= kx) {
        return;
    }

    block_q8_0 *y = (block_q8_0 *)vy;

    const int64_t ib = i / QK8_0;
    const int64_t iqs = i % QK8_0;

    const float xi = x[i];
    float amax = fabsf(xi);
    amax = warp_reduce_max(amax);

    const float d = amax / 127;
    const int8_t q = amax == 0.0f ? 0 : roundf(xi / d);

    y[ib].qs[iqs] = q;

    if (iqs > 0) {
        return;
    }

    y[ib].d = __float2half(d);
}

static __global__ void scale_f32(const float *x, float *dst, const float scale, const int k) {
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= k) {
        return;
    }
    dst[i] = scale * x[i];
}

// ---------------------------------------------------------------- host --

template <int qk, int qr, dequantize_kernel_t dequantize_kernel, typename dst_t>
static void dequantize_block_cuda(const void *vx, dst_t *y, const int64_t k, cudaStream_t stream) {
    const int64_t num_blocks = (k + 2 * CUDA_DEQUANTIZE_BLOCK_SIZE - 1) / (2 * CUDA_DEQUANTIZE_BLOCK_SIZE);
    dequantize_block<qk, qr, dequantize_kernel><<<num_blocks, CUDA_DEQUANTIZE_BLOCK_SIZE, 0, stream>>>(vx, y, k);
}

static void dequantize_mul_mat_vec_q4_0_cuda(const void *vx, const dfloat *y, float *dst, const int ncols,
                                             const int nrows, cudaStream_t stream) {
    GGML_ASSERT(ncols % (2 * WARP_SIZE) == 0);
    const int block_num_y = (nrows + CUDA_MMV_Y - 1) / CUDA_MMV_Y;
    const dim3 block_nums(block_num_y, 1, 1);
    const dim3 block_dims(WARP_SIZE, CUDA_MMV_Y, 1);
    dequantize_mul_mat_vec<QK4_0, QR4_0, dequantize_q4_0><<<block_nums, block_dims, 0, stream>>>(vx, y, dst, ncols, nrows);
}

static void dequantize_mul_mat_vec_q4_1_cuda(const void *vx, const dfloat *y, float *dst, const int ncols,
                                             const int nrows, cudaStream_t stream) {
    GGML_ASSERT(ncols % (2 * WARP_SIZE) == 0);
    const dim3 block_nums((nrows + CUDA_MMV_Y - 1) / CUDA_MMV_Y, 1, 1);
    const dim3 block_dims(WARP_SIZE, CUDA_MMV_Y, 1);
    dequantize_mul_mat_vec<QK4_1, QR4_1, dequantize_q4_1><<<block_nums, block_dims, 0, stream>>>(vx, y, dst, ncols, nrows);
}

static void dequantize_mul_mat_vec_q8_0_cuda(const void *vx, const dfloat *y, float *dst, const int ncols,
                                             const int nrows, cudaStream_t stream) {
    GGML_ASSERT(ncols % (2 * WARP_SIZE) == 0);
    const dim3 block_nums((nrows + CUDA_MMV_Y - 1) / CUDA_MMV_Y, 1, 1);
    const dim3 block_dims(WARP_SIZE, CUDA_MMV_Y, 1);
    dequantize_mul_mat_vec<QK8_0, QR8_0, dequantize_q8_0><<<block_nums, block_dims, 0, stream>>>(vx, y, dst, ncols, nrows);
}

typedef void (*to_fp32_cuda_t)(const void *x, float *y, int64_t k, cudaStream_t stream);

static to_fp32_cuda_t ggml_get_to_fp32_cuda(ggml_type type) {
    switch (type) {
    case GGML_TYPE_Q4_0:
        return dequantize_block_cuda<QK4_0, QR4_0, dequantize_q4_0>;
    case GGML_TYPE_Q4_1:
        return dequantize_block_cuda<QK4_1, QR4_1, dequantize_q4_1>;
    case GGML_TYPE_Q8_0:
        return dequantize_block_cuda<QK8_0, QR8_0, dequantize_q8_0>;
    default:
        return nullptr;
    }
}

static void ggml_cuda_op_dequantize_mul_mat_vec(ggml_type type, const void *vx, const dfloat *y, float *dst,
                                                int ncols, int nrows, cudaStream_t stream) {
    switch (type) {
    case GGML_TYPE_Q4_0:
        dequantize_mul_mat_vec_q4_0_cuda(vx, y, dst, ncols, nrows, stream);
        break;
    case GGML_TYPE_Q4_1:
        dequantize_mul_mat_vec_q4_1_cuda(vx, y, dst, ncols, nrows, stream);
        break;
    case GGML_TYPE_Q8_0:
        dequantize_mul_mat_vec_q8_0_cuda(vx, y, dst, ncols, nrows, stream);
        break;
    default:
        GGML_ASSERT(false);
        break;
    }
}

static size_t ggml_row_size(ggml_type type, int64_t ne) {
    switch (type) {
    case GGML_TYPE_Q4_0: return ne / QK4_0 * sizeof(block_q4_0);
    case GGML_TYPE_Q4_1: return ne / QK4_1 * sizeof(block_q4_1);
    case GGML_TYPE_Q8_0: return ne / QK8_0 * sizeof(block_q8_0);
    default: return ne * sizeof(float);
    }
}

// Host quantizers (the reference the device results are checked against).
static void quantize_row_q4_0_ref(const float *x, block_q4_0 *y, int64_t k) {
    for (int64_t i = 0; i < k / QK4_0; i++) {
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < QK4_0; j++) {
            const float v = x[i * QK4_0 + j];
            if (amax < fabsf(v)) {
                amax = fabsf(v);
                max = v;
            }
        }
        const float d = max / -8;
        const float id = d ? 1.0f / d : 0.0f;
        y[i].d = __float2half(d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            const float x0 = x[i * QK4_0 + 0 + j] * id;
            const float x1 = x[i * QK4_0 + QK4_0 / 2 + j] * id;
            const uint8_t xi0 = (uint8_t)fminf(15, x0 + 8.5f);
            const uint8_t xi1 = (uint8_t)fminf(15, x1 + 8.5f);
            y[i].qs[j] = xi0 | (xi1 << 4);
        }
    }
}

static void quantize_row_q4_1_ref(const float *x, block_q4_1 *y, int64_t k) {
    for (int64_t i = 0; i < k / QK4_1; i++) {
        float min = INFINITY, max = -INFINITY;
        for (int j = 0; j < QK4_1; j++) {
            min = fminf(min, x[i * QK4_1 + j]);
            max = fmaxf(max, x[i * QK4_1 + j]);
        }
        const float d = (max - min) / ((1 << 4) - 1);
        const float id = d ? 1.0f / d : 0.0f;
        y[i].d = __float2half(d);
        y[i].m = __float2half(min);
        for (int j = 0; j < QK4_1 / 2; ++j) {
            const float x0 = (x[i * QK4_1 + j] - min) * id;
            const float x1 = (x[i * QK4_1 + QK4_1 / 2 + j] - min) * id;
            y[i].qs[j] = (uint8_t)fminf(15, x0 + 0.5f) | ((uint8_t)fminf(15, x1 + 0.5f) << 4);
        }
    }
}

static void quantize_row_q8_0_ref(const float *x, block_q8_0 *y, int64_t k) {
    for (int64_t i = 0; i < k / QK8_0; i++) {
        float amax = 0.0f;
        for (int j = 0; j < QK8_0; j++) {
            amax = fmaxf(amax, fabsf(x[i * QK8_0 + j]));
        }
        const float d = amax / 127;
        const float id = d ? 1.0f / d : 0.0f;
        y[i].d = __float2half(d);
        for (int j = 0; j < QK8_0; ++j) {
            y[i].qs[j] = (int8_t)roundf(x[i * QK8_0 + j] * id);
        }
    }
}

static void quantize_host(ggml_type type, const float *x, void *y, int64_t k) {
    switch (type) {
    case GGML_TYPE_Q4_0: quantize_row_q4_0_ref(x, (block_q4_0 *)y, k); break;
    case GGML_TYPE_Q4_1: quantize_row_q4_1_ref(x, (block_q4_1 *)y, k); break;
    case GGML_TYPE_Q8_0: quantize_row_q8_0_ref(x, (block_q8_0 *)y, k); break;
    default: GGML_ASSERT(false);
    }
}

static const char *ggml_type_name(ggml_type type) {
    switch (type) {
    case GGML_TYPE_Q4_0: return "q4_0";
    case GGML_TYPE_Q4_1: return "q4_1";
    case GGML_TYPE_Q8_0: return "q8_0";
    default: return "f32";
    }
}

int main(int argc, char **argv) {
    GGML_UNUSED(argc);
    GGML_UNUSED(argv);
    const int ncols = 512, nrows = 64;
    const int64_t nel = (int64_t)ncols * nrows;

    std::vector<float> w(nel), x(ncols);
    srand(7);
    for (auto &v : w) v = (float)rand() / RAND_MAX * 2.0f - 1.0f;
    for (auto &v : x) v = (float)rand() / RAND_MAX;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float *d_w, *d_x, *d_dst, *d_deq;
    void *d_q;
    CUDA_CHECK(cudaMalloc(&d_x, ncols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_dst, nrows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_deq, nel * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, nel * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_q, ggml_row_size(GGML_TYPE_F32, nel)));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), ncols * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_w, w.data(), nel * sizeof(float), cudaMemcpyHostToDevice));

    int failures = 0;
    const ggml_type types[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q8_0};
    for (ggml_type type : types) {
        std::vector<uint8_t> q(ggml_row_size(type, nel));
        quantize_host(type, w.data(), q.data(), nel);
        CUDA_CHECK(cudaMemcpyAsync(d_q, q.data(), q.size(), cudaMemcpyHostToDevice, stream));

        to_fp32_cuda_t to_fp32 = ggml_get_to_fp32_cuda(type);
        to_fp32(d_q, d_deq, nel, stream);
        ggml_cuda_op_dequantize_mul_mat_vec(type, d_q, d_x, d_dst, ncols, nrows, stream);
        CUDA_CHECK(cudaGetLastError());

        std::vector<float> deq(nel), dst(nrows);
        CUDA_CHECK(cudaMemcpyAsync(deq.data(), d_deq, nel * sizeof(float), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), d_dst, nrows * sizeof(float), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        double max_err = 0.0;
        for (int r = 0; r < nrows; ++r) {
            double ref = 0.0;
            for (int c = 0; c < ncols; ++c) ref += (double)deq[(int64_t)r * ncols + c] * x[c];
            max_err = fmax(max_err, fabs(ref - dst[r]));
        }
        printf("%-5s mul_mat_vec max error %.3g\n", ggml_type_name(type), max_err);
        if (max_err > 1e-3) failures++;
    }

    // Round trip through the device quantizer.
    quantize_q8_0<<<(nel + 255) / 256, 256, 0, stream>>>(d_w, d_q, nel);
    dequantize_block_cuda<QK8_0, QR8_0, dequantize_q8_0>(d_q, d_deq, nel, stream);
    scale_f32<<<(nel + 255) / 256, 256, 0, stream>>>(d_deq, d_deq, 1.0f, nel);
    std::vector<float> rt(nel);
    CUDA_CHECK(cudaMemcpyAsync(rt.data(), d_deq, nel * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double rt_err = 0.0;
    for (int64_t i = 0; i < nel; ++i) rt_err = fmax(rt_err, fabs(rt[i] - w[i]));
    printf("q8_0 round trip max error %.3g\n", rt_err);
    if (rt_err > 1.0 / 127) failures++;

    cudaFree(d_x);
    cudaFree(d_dst);
    cudaFree(d_deq);
    cudaFree(d_w);
    cudaFree(d_q);
    cudaStreamDestroy(stream);
    printf(failures ? "FAILED\n" : "PASSED\n");
    return failures ? 1 : 0;
}
