// Per-thread local arrays: each thread sorts a window of 8 values with an
// insertion sort and writes the median of its window and a small per-thread
// histogram of the low 3 bits.
#define WINDOW 8

extern "C" __global__ void median_window(const int *in, int *median, int *lowbits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + WINDOW > n)
        return;

    int w[WINDOW];
    int counts[8] = {0};
    for (int k = 0; k < WINDOW; ++k) {
        w[k] = in[i + k];
        counts[w[k] & 7]++;
    }
    for (int a = 1; a < WINDOW; ++a) {
        int key = w[a];
        int b = a - 1;
        while (b >= 0 && w[b] > key) {
            w[b + 1] = w[b];
            --b;
        }
        w[b + 1] = key;
    }
    median[i] = w[WINDOW / 2];
    int packed = 0;
    for (int k = 0; k < 8; ++k)
        packed |= counts[k] << (4 * k);
    lowbits[i] = packed;
}
