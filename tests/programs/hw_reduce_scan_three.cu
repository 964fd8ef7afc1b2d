// nvcc-flags:
// nvcc-flags: -DDEBUG
// Homework 3: reduction and scan, each three ways. The block reduction is
// a template over the block size written with interleaved addressing,
// sequential addressing, and warp shuffles for the last warp; the scan is
// Hillis-Steele (double-buffered), Blelloch (work-efficient, with bank
// padding) and a warp-shuffle scan of warp sums. Each is timed with CUDA
// events over several runs and checked against the CPU. Build with -DDEBUG
// to see per-block partial results printed from the kernels.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#define gpuErrchk(ans) \
    { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line, bool abort = true) {
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        if (abort) exit(code);
    }
}

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
#define FULL_MASK 0xffffffff

/* ------------------------------------------------------------------------ */
/* Part 1: reductions                                                        */
/* ------------------------------------------------------------------------ */

// Version 1: interleaved addressing, divergent branch.
template <unsigned int blockSize>
__global__ void reduceInterleaved(const int *g_idata, int *g_odata, unsigned int n) {
    __shared__ int sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();

    for (unsigned int s = 1; s < blockSize; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        g_odata[blockIdx.x] = sdata[0];
#ifdef DEBUG
        printf("[interleaved] block %d partial %d\n", blockIdx.x, sdata[0]);
#endif
    }
}

// Version 2: sequential addressing, two loads per thread.
template <unsigned int blockSize>
__global__ void reduceSequential(const int *g_idata, int *g_odata, unsigned int n) {
    __shared__ int sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    int sum = (i < n) ? g_idata[i] : 0;
    if (i + blockSize < n) sum += g_idata[i + blockSize];
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = sum = sum + sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sum;
}

__device__ __forceinline__ int warpReduceSum(int val) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) val += __shfl_down_sync(FULL_MASK, val, offset);
    return val;
}

// Version 3: grid-stride loads, shuffles within warps, one shared slot per warp.
template <unsigned int blockSize>
__global__ void reduceShuffle(const int *g_idata, int *g_odata, unsigned int n) {
    static __shared__ int warpSums[blockSize / 32];
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockSize + threadIdx.x; i < n; i += blockSize * gridDim.x) sum += g_idata[i];

    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    sum = warpReduceSum(sum);
    if (lane == 0) warpSums[wid] = sum;
    __syncthreads();

    sum = (threadIdx.x < blockSize / warpSize) ? warpSums[lane] : 0;
    if (wid == 0) {
        sum = warpReduceSum(sum);
        if (lane == 0) atomicAdd(g_odata, sum);
    }
}

/* ------------------------------------------------------------------------ */
/* Part 2: scans (inclusive, one block of up to 2 * blockDim elements)      */
/* ------------------------------------------------------------------------ */

// Version 1: Hillis-Steele with double buffering: O(n log n) work.
__global__ void scanHillisSteele(float *g_odata, const float *g_idata, int n) {
    extern __shared__ float temp[]; // 2 * n floats
    int thid = threadIdx.x;
    int pout = 0, pin = 1;
    temp[pout * n + thid] = (thid < n) ? g_idata[thid] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < n; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (thid >= offset)
            temp[pout * n + thid] = temp[pin * n + thid] + temp[pin * n + thid - offset];
        else
            temp[pout * n + thid] = temp[pin * n + thid];
        __syncthreads();
    }
    if (thid < n) g_odata[thid] = temp[pout * n + thid];
}

// Version 2: Blelloch up-sweep / down-sweep with conflict-free padding.
// Produces an exclusive scan, turned inclusive by adding the input back.
__global__ void scanBlelloch(float *g_odata, const float *g_idata, int n) {
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int offset = 1;

    int ai = thid;
    int bi = thid + (n / 2);
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    float a = g_idata[ai], b = g_idata[bi];
    temp[ai + bankOffsetA] = a;
    temp[bi + bankOffsetB] = b;

    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int ai2 = offset * (2 * thid + 1) - 1;
            int bi2 = offset * (2 * thid + 2) - 1;
            ai2 += CONFLICT_FREE_OFFSET(ai2);
            bi2 += CONFLICT_FREE_OFFSET(bi2);
            temp[bi2] += temp[ai2];
        }
        offset *= 2;
    }

    if (thid == 0) {
        temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;
    }

    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai2 = offset * (2 * thid + 1) - 1;
            int bi2 = offset * (2 * thid + 2) - 1;
            ai2 += CONFLICT_FREE_OFFSET(ai2);
            bi2 += CONFLICT_FREE_OFFSET(bi2);
            float t = temp[ai2];
            temp[ai2] = temp[bi2];
            temp[bi2] += t;
        }
    }
    __syncthreads();

    g_odata[ai] = temp[ai + bankOffsetA] + a;
    g_odata[bi] = temp[bi + bankOffsetB] + b;
}

// Version 3: scan within warps by shuffles, then scan the warp totals.
template <typename T>
__device__ T warpInclusiveScan(T val) {
    int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 1; i < 32; i *= 2) {
        T n = __shfl_up_sync(FULL_MASK, val, i);
        if (lane >= i) val += n;
    }
    return val;
}

template <typename T, int BLOCK>
__global__ void scanWarpShuffle(T *g_odata, const T *g_idata, int n) {
    __shared__ T warpTotals[BLOCK / 32];
    int thid = threadIdx.x;
    int lane = thid & 31, warp = thid >> 5;
    T v = thid < n ? g_idata[thid] : T(0);
    v = warpInclusiveScan(v);
    if (lane == 31) warpTotals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        T t = lane < BLOCK / 32 ? warpTotals[lane] : T(0);
        t = warpInclusiveScan(t);
        if (lane < BLOCK / 32) warpTotals[lane] = t;
    }
    __syncthreads();
    if (warp > 0) v += warpTotals[warp - 1];
    if (thid < n) g_odata[thid] = v;
#ifdef DEBUG
    if (thid == n - 1) printf("[warp scan] last element %f\n", (double)v);
#endif
}

/* ------------------------------------------------------------------------ */
/* Host                                                                     */
/* ------------------------------------------------------------------------ */

typedef void (*reduceKernel)(const int *, int *, unsigned int);

static float timeReduce(reduceKernel kernel, const char *name, const int *d_in, int *d_out, int *h_out,
                        unsigned int n, int blocks, int threads, bool finalOnGpu, long long expected) {
    cudaEvent_t start, stop;
    gpuErrchk(cudaEventCreate(&start));
    gpuErrchk(cudaEventCreate(&stop));
    const int reps = 10;
    long long result = 0;
    gpuErrchk(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r) {
        gpuErrchk(cudaMemset(d_out, 0, blocks * sizeof(int)));
        kernel<<<blocks, threads>>>(d_in, d_out, n);
    }
    gpuErrchk(cudaEventRecord(stop));
    gpuErrchk(cudaEventSynchronize(stop));
    float ms = 0;
    gpuErrchk(cudaEventElapsedTime(&ms, start, stop));
    int outCount = finalOnGpu ? 1 : blocks;
    gpuErrchk(cudaMemcpy(h_out, d_out, outCount * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < outCount; ++i) result += h_out[i];
    printf("%-22s %8.4f ms  sum=%lld  %s\n", name, ms / reps, result, result == expected ? "PASS" : "FAIL");
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms / reps;
}

static bool checkScan(const char *name, const float *gpu, const float *in, int n) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
        acc += in[i];
        if (fabsf(gpu[i] - acc) > 1e-3f * fmaxf(1.0f, fabsf(acc))) {
            printf("%-22s mismatch at %d: %f vs %f\n", name, i, gpu[i], acc);
            return false;
        }
    }
    printf("%-22s PASS\n", name);
    return true;
}

int main(int argc, char **argv) {
    unsigned int n = (argc > 1) ? atoi(argv[1]) : (1 << 20);
    const int threads = 256;

    int *h_in = (int *)malloc(n * sizeof(int));
    int *h_out = (int *)malloc(n * sizeof(int));
    srand((unsigned)time(NULL));
    long long cpuSum = 0;
    clock_t c0 = clock();
    for (unsigned int i = 0; i < n; ++i) {
        h_in[i] = rand() & 0xff;
        cpuSum += h_in[i];
    }
    printf("CPU sum %lld (%.3f ms incl. fill)\n", cpuSum, 1000.0 * (clock() - c0) / CLOCKS_PER_SEC);

    int *d_in, *d_out;
    gpuErrchk(cudaMalloc(&d_in, n * sizeof(int)));
    gpuErrchk(cudaMalloc(&d_out, n * sizeof(int)));
    gpuErrchk(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));

    int blocks1 = (n + threads - 1) / threads;
    int blocks2 = (n + threads * 2 - 1) / (threads * 2);
    timeReduce(reduceInterleaved<threads>, "reduce interleaved", d_in, d_out, h_out, n, blocks1, threads, false,
               cpuSum);
    timeReduce(reduceSequential<threads>, "reduce sequential", d_in, d_out, h_out, n, blocks2, threads, false,
               cpuSum);
    timeReduce(reduceShuffle<threads>, "reduce shuffle", d_in, d_out, h_out, n, 64, threads, true, cpuSum);

    // scans over one block
    const int sn = 512;
    float h_fin[sn], h_fout[sn];
    for (int i = 0; i < sn; ++i) h_fin[i] = (float)(rand() % 10) / 4.0f;
    float *d_fin, *d_fout;
    gpuErrchk(cudaMalloc(&d_fin, sn * sizeof(float)));
    gpuErrchk(cudaMalloc(&d_fout, sn * sizeof(float)));
    gpuErrchk(cudaMemcpy(d_fin, h_fin, sizeof(h_fin), cudaMemcpyHostToDevice));
    bool ok = true;

    scanHillisSteele<<<1, sn, 2 * sn * sizeof(float)>>>(d_fout, d_fin, sn);
    gpuErrchk(cudaMemcpy(h_fout, d_fout, sizeof(h_fout), cudaMemcpyDeviceToHost));
    ok &= checkScan("scan Hillis-Steele", h_fout, h_fin, sn);

    scanBlelloch<<<1, sn / 2, (sn + CONFLICT_FREE_OFFSET(sn)) * sizeof(float)>>>(d_fout, d_fin, sn);
    gpuErrchk(cudaMemcpy(h_fout, d_fout, sizeof(h_fout), cudaMemcpyDeviceToHost));
    ok &= checkScan("scan Blelloch", h_fout, h_fin, sn);

    scanWarpShuffle<float, sn><<<1, sn>>>(d_fout, d_fin, sn);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaMemcpy(h_fout, d_fout, sizeof(h_fout), cudaMemcpyDeviceToHost));
    ok &= checkScan("scan warp shuffle", h_fout, h_fin, sn);

    // the integer instantiation, checked exactly
    scanWarpShuffle<int, 1024><<<1, 1024>>>(d_out, d_in, 1000);
    gpuErrchk(cudaMemcpy(h_out, d_out, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
    int run = 0;
    for (int i = 0; i < 1000; ++i) {
        run += h_in[i];
        ok &= h_out[i] == run;
    }

    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_fin);
    cudaFree(d_fout);
    free(h_in);
    free(h_out);
    printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
    return ok ? 0 : 1;
}
