// Sorts a batch of random scores on the device with Thrust, then counts how
// many fall in each of 32 buckets with a kernel of its own (one shared-memory
// histogram per block, merged with atomics), and checks the counts against
// Thrust's reduction and a host pass. Thrust is used by host code alone: the
// functor below is `__host__ __device__`, but only Thrust's algorithms call
// it.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/functional.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define BUCKETS 32
#define THREADS 256

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
                    cudaGetErrorString(err_));                                   \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

// A cheap integer hash mapped to [0, 1): the scores' generator.
struct HashToUnit {
    unsigned seed;
    __host__ __device__ float operator()(unsigned i) const {
        unsigned h = (i ^ seed) * 0x9E3779B1u;
        h ^= h >> 15;
        h *= 0x85EBCA77u;
        h ^= h >> 13;
        return (h & 0xFFFFFF) / 16777216.0f;
    }
};

__device__ __forceinline__ int bucketOf(float score) {
    int b = (int)(score * BUCKETS);
    return b < 0 ? 0 : (b >= BUCKETS ? BUCKETS - 1 : b);
}

// One private histogram per block in shared memory, then one atomic per
// bucket and block into the global counts.
__global__ void bucketCounts(const float *__restrict__ scores, int n,
                             unsigned *__restrict__ counts) {
    __shared__ unsigned local[BUCKETS];
    for (int b = threadIdx.x; b < BUCKETS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        atomicAdd(&local[bucketOf(scores[i])], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BUCKETS; b += blockDim.x)
        if (local[b])
            atomicAdd(&counts[b], local[b]);
}

// The first index of each bucket in the sorted scores: a binary search per
// bucket, one thread each.
__global__ void bucketStarts(const float *__restrict__ sorted, int n,
                             int *__restrict__ starts) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b > BUCKETS)
        return;
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (bucketOf(sorted[mid]) < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    starts[b] = lo;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : (1 << 20);
    thrust::device_vector<unsigned> ids(n);
    thrust::sequence(ids.begin(), ids.end());
    thrust::device_vector<float> scores(n);
    thrust::transform(ids.begin(), ids.end(), scores.begin(), HashToUnit{2024u});
    thrust::sort(scores.begin(), scores.end());

    thrust::device_vector<unsigned> counts(BUCKETS, 0u);
    thrust::device_vector<int> starts(BUCKETS + 1);
    const float *raw = thrust::raw_pointer_cast(scores.data());
    bucketCounts<<<128, THREADS>>>(raw, n, thrust::raw_pointer_cast(counts.data()));
    CHECK(cudaGetLastError());
    bucketStarts<<<1, 64>>>(raw, n, thrust::raw_pointer_cast(starts.data()));
    CHECK(cudaDeviceSynchronize());

    unsigned total = thrust::reduce(counts.begin(), counts.end(), 0u, thrust::plus<unsigned>());
    thrust::host_vector<unsigned> h_counts = counts;
    thrust::host_vector<int> h_starts = starts;
    thrust::host_vector<float> h_scores = scores;

    std::vector<unsigned> expect(BUCKETS, 0);
    for (int i = 0; i < n; ++i) {
        int b = (int)(h_scores[i] * BUCKETS);
        expect[b < BUCKETS ? b : BUCKETS - 1]++;
    }
    int bad = total != (unsigned)n;
    for (int b = 0; b < BUCKETS; ++b) {
        bad |= h_counts[b] != expect[b];
        bad |= (unsigned)(h_starts[b + 1] - h_starts[b]) != expect[b];
    }
    printf("%d scores in %d buckets: %s\n", n, BUCKETS, bad ? "FAILED" : "ok");
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
