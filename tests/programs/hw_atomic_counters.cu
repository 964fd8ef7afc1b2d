// Lab 8: atomics. Counts word lengths in a text buffer (an atomicAdd per
// word into a small histogram), finds the longest word with atomicMax,
// and the position of the first 'z' with atomicMin. With -DVERBOSE, block
// 0 prints what it saw.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>

#define BLOCK_SIZE 128
#define MAX_LEN 16

#define CUDA_TRY(x)                                                          \
  if ((x) != cudaSuccess) {                                                  \
    fprintf(stderr, "line %d: %s\n", __LINE__, cudaGetErrorString(x));       \
    return 1;                                                                \
  }

__device__ bool isLetter(char c) { return c >= 'a' && c <= 'z'; }

// A thread whose character starts a word (a letter not preceded by a
// letter) measures the word and records it.
__global__ void wordStats(const char *text, int n, unsigned int *lengthHist,
                          int *longest, int *firstZ) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  char c = text[i];
  if (c == 'z') atomicMin(firstZ, i);
  if (!isLetter(c) || (i > 0 && isLetter(text[i - 1]))) return;
  int len = 0;
  while (i + len < n && isLetter(text[i + len])) len++;
  atomicAdd(&lengthHist[len < MAX_LEN ? len : MAX_LEN - 1], 1u);
  atomicMax(longest, len);
#ifdef VERBOSE
  if (blockIdx.x == 0) printf("thread %d: word of length %d\n", threadIdx.x, len);
#endif
}

int main() {
  const int n = 1 << 20;
  char *text = (char *)malloc(n);
  srand(99);
  for (int i = 0; i < n; i++) {
    int r = rand() % 100;
    text[i] = r < 18 ? ' ' : (char)('a' + r % 25); // 'a'..'y' only
  }
  text[n / 3] = 'z';
  text[n / 2] = 'z';

  // CPU reference
  unsigned int refHist[MAX_LEN] = {0};
  int refLongest = 0, refFirstZ = INT_MAX;
  for (int i = 0; i < n; i++) {
    if (text[i] == 'z' && refFirstZ == INT_MAX) refFirstZ = i;
    bool letter = text[i] >= 'a' && text[i] <= 'z';
    bool prev = i > 0 && text[i - 1] >= 'a' && text[i - 1] <= 'z';
    if (letter && !prev) {
      int len = 0;
      while (i + len < n && text[i + len] >= 'a' && text[i + len] <= 'z') len++;
      refHist[len < MAX_LEN ? len : MAX_LEN - 1]++;
      if (len > refLongest) refLongest = len;
    }
  }

  char *d_text;
  unsigned int *d_hist;
  int *d_longest, *d_firstZ;
  CUDA_TRY(cudaMalloc(&d_text, n));
  CUDA_TRY(cudaMalloc(&d_hist, sizeof(refHist)));
  CUDA_TRY(cudaMalloc(&d_longest, sizeof(int)));
  CUDA_TRY(cudaMalloc(&d_firstZ, sizeof(int)));
  CUDA_TRY(cudaMemcpy(d_text, text, n, cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemset(d_hist, 0, sizeof(refHist)));
  CUDA_TRY(cudaMemset(d_longest, 0, sizeof(int)));
  int big = INT_MAX;
  CUDA_TRY(cudaMemcpy(d_firstZ, &big, sizeof(int), cudaMemcpyHostToDevice));

  wordStats<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(d_text, n, d_hist, d_longest, d_firstZ);
  CUDA_TRY(cudaGetLastError());

  unsigned int hist[MAX_LEN];
  int longest, firstZ;
  CUDA_TRY(cudaMemcpy(hist, d_hist, sizeof(hist), cudaMemcpyDeviceToHost));
  CUDA_TRY(cudaMemcpy(&longest, d_longest, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_TRY(cudaMemcpy(&firstZ, d_firstZ, sizeof(int), cudaMemcpyDeviceToHost));

  int ok = memcmp(hist, refHist, sizeof(hist)) == 0 && longest == refLongest && firstZ == refFirstZ;
  printf("longest word %d (cpu %d), first z at %d (cpu %d)\n", longest, refLongest, firstZ, refFirstZ);
  for (int l = 1; l < 8; l++) printf("  length %d: %u words\n", l, hist[l]);
  printf("%s\n", ok ? "TEST PASSED" : "TEST FAILED");
  cudaFree(d_text);
  cudaFree(d_hist);
  cudaFree(d_longest);
  cudaFree(d_firstZ);
  free(text);
  return !ok;
}
