// Per-thread local array: each thread loads 8 values, sorts them with an
// insertion sort (dynamic indexing -> local memory), and writes the median
// and the sorted run. Also a fully unrolled small-window median (registers).
#define K 8

extern "C" __global__ void sort8(const int *__restrict__ in, int *__restrict__ out,
                                 int *__restrict__ med, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t * K >= n) return;
    int a[K];
    for (int k = 0; k < K; ++k) a[k] = in[t * K + k];
    for (int i = 1; i < K; ++i) {
        int v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = v;
    }
    for (int k = 0; k < K; ++k) out[t * K + k] = a[k];
    med[t] = (a[K / 2 - 1] + a[K / 2]) / 2;
}

extern "C" __global__ void minmax_window5(const float *__restrict__ in, float *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 2 || i >= n - 2) return;
    float w[5];
#pragma unroll
    for (int k = 0; k < 5; ++k) w[k] = in[i - 2 + k];
    float lo = w[0], hi = w[0], sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 5; ++k) {
        lo = fminf(lo, w[k]);
        hi = fmaxf(hi, w[k]);
        sum += w[k];
    }
    out[i] = (sum - lo - hi) / 3.0f;
}
