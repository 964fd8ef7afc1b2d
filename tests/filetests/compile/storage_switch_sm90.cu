// test compile sm_90
// Preprocessor (function-like macros, #if on __CUDA_ARCH__), typedef, enum,
// switch with fallthrough, local arrays with initializers (stack slots),
// &local, __shared__ (file and function scope, dynamic), __constant__ and
// __device__ variables with initializers, __launch_bounds__, #pragma unroll.
#include <cuda_runtime.h>
#define TILE 16
#define SQ(x) ((x) * (x))
#if __CUDA_ARCH__ >= 700 && defined(TILE)
#define FAST 1
#else
#define FAST 0
#endif
typedef unsigned int u32;
enum Mode { ADD, MUL = 4, SUB };
__constant__ float coef[4] = {1.0f, 2.0f, 0.5f};
__device__ int counter = 7;
__shared__ float file_tile[TILE];
extern __shared__ float dyn[];
const int N = 8;

__device__ __noinline__ int pick(int m, int x) {
    int r = 0;
    switch (m) {
    case ADD: r = x + 1; break;
    case MUL: r = x * 2;
    case SUB: r -= 3; break;
    default: r = -1;
    }
    return r;
}

__global__ void __launch_bounds__(256, 2) k(float *out, const float *in, int n) {
    __shared__ float tile[TILE][TILE + 1];
    float acc[N] = {0};
    int idx[2][3] = {{1, 2, 3}, {4, 5, 6}};
    u32 t = threadIdx.x;
    int local = 5;
    int *pl = &local;
    *pl += 2;
    tile[t % TILE][t / TILE] = in[t];
    file_tile[t % TILE] = coef[t & 3];
    dyn[t] = (float)counter;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = tile[i][t % TILE] * SQ(2);
#pragma unroll 4
    for (int i = 0; i < N; ++i) acc[0] += acc[i];
    out[t] = acc[0] + idx[1][2] + local + pick(t % 6, FAST) + sizeof(acc) + warpSize + dyn[t + 1];
}

// check: .const .align 4 .b8 coef[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 0, 63, 0, 0, 0, 0};
// check: .global .align 4 .b8 counter[4] = {7, 0, 0, 0};
// check: .shared .align 4 .b8 file_tile[64];
// check: .extern .shared .align 4 .b8 dyn[];
// check: .shared .align 4 .b8 _ZZ1kPfPKfiE4tile[1088];
// check: .func (.param .b32 func_retval0) _Z4pickii(
// check: .entry _Z1kPfPKfi(
// check: .maxntid 256, 1, 1
// check: .minnctapersm 2
// check: .local .align 4 .b8
// check: st.shared.f32
// check: ld.const.f32
// check: bar.sync 0;
