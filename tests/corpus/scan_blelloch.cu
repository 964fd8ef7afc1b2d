// Work-efficient exclusive prefix sum (Blelloch) of one block's segment of
// 2 * blockDim.x integers, in shared memory. Each block scans its own
// segment independently; block sums go to sums[blockIdx.x].
#define MAX_ELEMS 512

extern "C" __global__ void scan_blelloch(const int *in, int *out, int *sums, int n) {
    __shared__ int temp[MAX_ELEMS];
    int tid = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;

    temp[2 * tid] = (base + 2 * tid < n) ? in[base + 2 * tid] : 0;
    temp[2 * tid + 1] = (base + 2 * tid + 1 < n) ? in[base + 2 * tid + 1] : 0;

    // Up-sweep (reduce) phase.
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }

    if (tid == 0) {
        sums[blockIdx.x] = temp[m - 1];
        temp[m - 1] = 0;
    }

    // Down-sweep phase.
    for (int d = 1; d < m; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();

    if (base + 2 * tid < n)
        out[base + 2 * tid] = temp[2 * tid];
    if (base + 2 * tid + 1 < n)
        out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

// Inclusive Hillis-Steele scan of one block with double buffering.
extern "C" __global__ void scan_hillis_steele(const unsigned int *in, unsigned int *out, int n) {
    __shared__ unsigned int buf[2][256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;

    buf[pout][tid] = (gid < n) ? in[gid] : 0u;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
        else
            buf[pout][tid] = buf[pin][tid];
        __syncthreads();
    }
    if (gid < n)
        out[gid] = buf[pout][tid];
}
