// Softmax cross-entropy loss per row (one warp per row): max, log-sum-exp,
// loss = lse - logit[label]; gradient softmax - onehot; mean loss via atomicAdd.
extern "C" __global__ void xent_fwd_bwd(const float *__restrict__ logits, const int *__restrict__ labels,
                                        float *__restrict__ grad, float *__restrict__ loss,
                                        int rows, int classes) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float *l = logits + (size_t)row * classes;
    float m = -INFINITY;
    for (int c = lane; c < classes; c += 32) m = fmaxf(m, l[c]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int c = lane; c < classes; c += 32) s += expf(l[c] - m);
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float lse = m + logf(s);
    int label = labels[row];
    float inv_rows = 1.0f / rows;
    for (int c = lane; c < classes; c += 32) {
        float p = expf(l[c] - lse);
        grad[(size_t)row * classes + c] = (p - (c == label ? 1.0f : 0.0f)) * inv_rows;
    }
    if (lane == 0) atomicAdd(loss, (lse - l[label]) * inv_rows);
}
