// Sparse and graph kernels: CSR scalar (double), CSR warp-per-row with
// __ldg, COO SpMV with atomics, sliced ELL, BFS frontier expansion,
// BFS level-synchronous top-down, Floyd-Warshall step, blocked FW phase,
// PageRank pull, label propagation.

extern "C" __global__ void csr_scalar_d(int rows, const int *__restrict__ rowptr, const int *__restrict__ colind,
                                        const double *__restrict__ val, const double *__restrict__ x,
                                        double *__restrict__ y, double alpha, double beta) {
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) {
        double sum = 0.0;
        int end = rowptr[r + 1];
        for (int j = rowptr[r]; j < end; ++j) sum += val[j] * x[colind[j]];
        y[r] = alpha * sum + beta * y[r];
    }
}

extern "C" __global__ void csr_warp_row(int rows, const int *__restrict__ rowptr, const int *__restrict__ colind,
                                        const float *__restrict__ val, const float *__restrict__ x, float *__restrict__ y) {
    int lane = threadIdx.x & (warpSize - 1);
    int warpsPerBlock = blockDim.x / warpSize;
    int row = blockIdx.x * warpsPerBlock + threadIdx.x / warpSize;
    if (row >= rows) return;
    int start = __ldg(&rowptr[row]);
    int end = __ldg(&rowptr[row + 1]);
    float sum = 0.0f;
    for (int j = start + lane; j < end; j += warpSize) sum += __ldg(&val[j]) * __ldg(&x[__ldg(&colind[j])]);
    sum += __shfl_xor_sync(0xffffffff, sum, 16);
    sum += __shfl_xor_sync(0xffffffff, sum, 8);
    sum += __shfl_xor_sync(0xffffffff, sum, 4);
    sum += __shfl_xor_sync(0xffffffff, sum, 2);
    sum += __shfl_xor_sync(0xffffffff, sum, 1);
    if (lane == 0) y[row] = sum;
}

extern "C" __global__ void coo_spmv_atomic(int nnz, const int *__restrict__ ri, const int *__restrict__ ci,
                                           const float *__restrict__ v, const float *__restrict__ x, float *y) {
    int stride = gridDim.x * blockDim.x;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride) {
        float p = v[k] * x[ci[k]];
        if (p != 0.0f) atomicAdd(&y[ri[k]], p);
    }
}

// Sliced ELL: slices of 32 rows, each slice with its own width, column-major inside a slice.
extern "C" __global__ void sell_spmv(int rows, const int *__restrict__ sliceptr, const int *__restrict__ slicewidth,
                                     const int *__restrict__ col, const float *__restrict__ val,
                                     const float *__restrict__ x, float *__restrict__ y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    int slice = row >> 5, lane = row & 31;
    int base = sliceptr[slice], w = slicewidth[slice];
    float acc = 0.0f;
    for (int k = 0; k < w; ++k) {
        int idx = base + k * 32 + lane;
        int c = col[idx];
        if (c >= 0) acc = fmaf(val[idx], x[c], acc);
    }
    y[row] = acc;
}

extern "C" __global__ void bfs_expand(const int *__restrict__ rowptr, const int *__restrict__ adj,
                                      const int *__restrict__ frontier, int frontierSize,
                                      int *dist, int *nextFrontier, int *nextSize, int level) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontierSize) return;
    int u = frontier[t];
    for (int e = rowptr[u]; e < rowptr[u + 1]; ++e) {
        int v = adj[e];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) {
            int pos = atomicAdd(nextSize, 1);
            nextFrontier[pos] = v;
        }
    }
}

extern "C" __global__ void bfs_topdown_level(int n, const int *__restrict__ rowptr, const int *__restrict__ adj,
                                             int *__restrict__ level, int cur, int *__restrict__ changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || level[v] != cur) return;
    int any = 0;
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) {
        int w = adj[e];
        if (level[w] < 0) { level[w] = cur + 1; any = 1; }
    }
    if (any) *changed = 1;
}

extern "C" __global__ void floyd_step(int *__restrict__ d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= n) return;
    int dik = d[i * n + k];
    int dkj = d[k * n + j];
    if (dik == INT_MAX || dkj == INT_MAX) return;
    int cand = dik + dkj;
    if (cand < d[i * n + j]) d[i * n + j] = cand;
}

#define FW 32
// Phase-3 of blocked Floyd-Warshall: tile (bi,bj) updated from row/column pivot tiles in shared memory.
extern "C" __global__ void floyd_blocked_phase3(float *__restrict__ d, int n, int kb) {
    __shared__ float rowT[FW][FW];
    __shared__ float colT[FW][FW];
    int bi = blockIdx.y, bj = blockIdx.x;
    if (bi == kb || bj == kb) return;
    int ty = threadIdx.y, tx = threadIdx.x;
    int i = bi * FW + ty, j = bj * FW + tx;
    colT[ty][tx] = d[i * n + kb * FW + tx];
    rowT[ty][tx] = d[(kb * FW + ty) * n + j];
    __syncthreads();
    float best = d[i * n + j];
#pragma unroll 8
    for (int k = 0; k < FW; ++k) best = fminf(best, colT[ty][k] + rowT[k][tx]);
    d[i * n + j] = best;
}

extern "C" __global__ void pagerank_pull(int n, const int *__restrict__ inptr, const int *__restrict__ inadj,
                                         const int *__restrict__ outdeg, const float *__restrict__ rank,
                                         float *__restrict__ next, float damping, float *__restrict__ diff) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float s = 0.0f;
    for (int e = inptr[v]; e < inptr[v + 1]; ++e) {
        int u = inadj[e];
        int d = outdeg[u];
        s += d > 0 ? rank[u] / (float)d : 0.0f;
    }
    float nr = (1.0f - damping) / n + damping * s;
    next[v] = nr;
    atomicAdd(diff, fabsf(nr - rank[v]));
}

extern "C" __global__ void label_propagate(int n, const int *__restrict__ rowptr, const int *__restrict__ adj,
                                           int *labels, int *changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int best = labels[v];
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) best = min(best, labels[adj[e]]);
    if (best < labels[v]) {
        atomicMin(&labels[v], best);
        *changed = 1;
    }
}
