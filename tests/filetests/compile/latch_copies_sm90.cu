// test compile sm_90
// Where a loop's back-edge copies go (docs/backend.md §2.3).
// `dot_rows` counts `k` by 1 up to a bound known only at run time, and its
// addresses read `k`, so `unroll-runtime` leaves it to ptxas: its copies
// stay after the branch, in a stub (`@%p bra $L__edge..`), the shape for
// which ptxas peels the first iteration and loads the pointers once. The
// constant-trip loop of `taps` (too long for `unroll`) and the main loop
// of `column_sums`, which `unroll-runtime` unrolled, keep `copies; @p bra
// header`: ptxas unrolls the first completely, and both ran slower on an
// H200 with a stub (docs/performance.md).
extern "C" __global__ void dot_rows(const float *a, const float *b, float *c, int n) {
    unsigned row = blockIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}

extern "C" __global__ void taps(const float *x, const float *w, float *y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int k = 0; k < 64; ++k)
        s += w[k] * x[i + k];
    y[i] = s;
}

extern "C" __global__ void column_sums(const float *a, float *y, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
        s += a[(size_t)r * cols + col];
    y[col] = s;
}
// check: .entry dot_rows(
// check: fma.rn.f32
// check: setp.lt.s32
// nextln: add.s32
// nextln: @%p2 bra $L__edge0_1;
// nextln: mov.f32
// nextln: bra $L__BB0_4;
// nextln: $L__edge0_1:
// nextln: mov.b32
// nextln: mov.f32
// nextln: mov.b32
// nextln: bra $L__BB0_2;
// check: .entry taps(
// not: $L__edge
// check: setp.lt.s32 %p1, %r8, 64;
// nextln: add.s64
// nextln: mov.b32
// nextln: mov.f32
// nextln: mov.b64
// nextln: @%p1 bra $L__BB1_2;
// check: .entry column_sums(
// not: $L__edge
// check: @%p3 bra $L__BB2_7;
// check: .pragma "nounroll";
// not: $L__edge
// check: ret;
