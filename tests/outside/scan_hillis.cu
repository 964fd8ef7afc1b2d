// Inclusive block scan (Hillis-Steele, double buffered in shared memory),
// plus a warp-level inclusive scan with __shfl_up_sync.
#define N_SCAN 512

extern "C" __global__ void scan_hillis_steele(const int *in, int *out, int *blockTotals, int n) {
    __shared__ int buf[2][N_SCAN];
    int tid = threadIdx.x;
    int gid = blockIdx.x * N_SCAN + tid;
    int pout = 0, pin = 1;
    buf[pout][tid] = gid < n ? in[gid] : 0;
    __syncthreads();
    for (int offset = 1; offset < N_SCAN; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        int v = buf[pin][tid];
        if (tid >= offset) v += buf[pin][tid - offset];
        buf[pout][tid] = v;
        __syncthreads();
    }
    if (gid < n) out[gid] = buf[pout][tid];
    if (tid == N_SCAN - 1) blockTotals[blockIdx.x] = buf[pout][tid];
}

extern "C" __global__ void warp_scan(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = i < n ? in[i] : 0.0f;
    for (int d = 1; d < 32; d <<= 1) {
        float t = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += t;
    }
    if (i < n) out[i] = v;
}
