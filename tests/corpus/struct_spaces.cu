// Pointers that travel inside structs passed by value: a "span" of a source
// and a destination handed to a __noinline__ helper once as global -> shared
// and once as shared -> global, and a struct holding a span (copied whole)
// and another pointer, handed to a static helper. nvcc keeps one body per
// __noinline__ helper, so its accesses there are generic; kernelc follows
// the pointers through the structs' fields and clones the helper per field
// space.
struct Span {
    const float *src;
    float *dst;
    int count;
};

struct Pair {
    Span span;
    float *acc;
};

__device__ __noinline__ void copy_scaled(Span s, float k, int t) {
    if (t < s.count)
        s.dst[t] = k * s.src[t];
}

static __device__ __noinline__ float sum_two(Pair p, int t) {
    return p.span.src[t] + p.acc[t];
}

extern "C" __global__ void struct_spaces(const float *in, float *out, float *acc, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int count = n - base < (int)blockDim.x ? n - base : (int)blockDim.x;

    Span load;
    load.src = in + base;
    load.dst = tile;
    load.count = count;
    copy_scaled(load, 2.0f, t);
    __syncthreads();

    Span store;
    store.src = tile;
    store.dst = out + base;
    store.count = count;
    copy_scaled(store, 0.5f, t);

    Pair p;
    p.span = store;
    p.acc = acc + base;
    if (t < count)
        acc[base + t] = sum_two(p, t);
}
