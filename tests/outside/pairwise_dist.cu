// Pairwise squared Euclidean distances between N query points and M
// reference points of runtime dimension D, plus k=1 nearest neighbour
// with an index tie-break.
extern "C" __global__ void pairwise_l2(const float *__restrict__ q, const float *__restrict__ r,
                                       float *__restrict__ d, int N, int M, int D) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N || j >= M) return;
    float s = 0.0f;
    for (int k = 0; k < D; ++k) {
        float t = q[i * D + k] - r[j * D + k];
        s += t * t;
    }
    d[i * M + j] = s;
}

extern "C" __global__ void nearest1(const float *__restrict__ d, int N, int M, int *__restrict__ nn,
                                    float *__restrict__ nd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float best = INFINITY;
    int bi = -1;
    for (int j = 0; j < M; ++j) {
        float v = d[(long long)i * M + j];
        if (v < best) { best = v; bi = j; }
    }
    nn[i] = bi;
    nd[i] = sqrtf(best);
}
