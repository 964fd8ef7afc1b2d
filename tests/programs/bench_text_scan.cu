// Text processing on the GPU in the style of a benchmark-suite program:
// classify every byte of a buffer against delimiter and vowel tables kept
// in constant memory, count words per block, and hex-encode a buffer with a
// digit table in global memory. The tables are C strings, as older suites
// write them. The driver reads a file named on the command line (or makes
// text), times each kernel with events and checks against a CPU pass.

#include <cuda_runtime.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define BLOCK 256
#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(err_));                                   \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__constant__ char c_delimiters[] = " \t\n.,;:!?";
__constant__ char c_vowels[8] = "aeiouy";
__device__ const char g_hexDigits[] = "0123456789abcdef";

__device__ int inTable(const char *table, char c) {
  for (int i = 0; table[i] != '\0'; ++i)
    if (table[i] == c) return 1;
  return 0;
}

// A word starts at a non-delimiter byte whose predecessor is a delimiter
// (or the start). Each block counts its starts; vowels are counted too.
__global__ void countWords(const char *text, int n, int *wordsPerBlock, int *vowels) {
  __shared__ int blockWords;
  __shared__ int blockVowels;
  if (threadIdx.x == 0) {
    blockWords = 0;
    blockVowels = 0;
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    char c = text[i];
    char lower = (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
    int here = !inTable(c_delimiters, c);
    int before = i > 0 ? !inTable(c_delimiters, text[i - 1]) : 0;
    if (here && !before) atomicAdd(&blockWords, 1);
    if (inTable(c_vowels, lower)) atomicAdd(&blockVowels, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    wordsPerBlock[blockIdx.x] = blockWords;
    atomicAdd(vowels, blockVowels);
  }
}

// Two output characters per input byte, high nibble first.
__global__ void hexEncode(const unsigned char *in, int n, char *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  char pair[3] = "..";
  pair[0] = g_hexDigits[in[i] >> 4];
  pair[1] = g_hexDigits[in[i] & 15];
  out[2 * i] = pair[0];
  out[2 * i + 1] = pair[1];
}

static double nowMs(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}

static char *readText(const char *path, int *n) {
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f) {
    const char *words[] = {"alpha", "beta", "gamma", "delta", "Echo", "fox"};
    *n = 1 << 16;
    char *text = (char *)malloc(*n);
    int at = 0;
    for (int w = 0; at < *n; ++w) {
      const char *s = words[w % 6];
      for (int k = 0; s[k] && at < *n; ++k) text[at++] = s[k];
      if (at < *n) text[at++] = (w % 7 == 6) ? '\n' : ' ';
    }
    return text;
  }
  fseek(f, 0, SEEK_END);
  *n = (int)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = (char *)malloc(*n);
  if (fread(text, 1, *n, f) != (size_t)*n) *n = 0;
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  int n = 0;
  char *text = readText(argc > 1 ? argv[1] : NULL, &n);
  int blocks = (n + BLOCK - 1) / BLOCK;
  char *dText, *dHex;
  int *dWords, *dVowels;
  CHECK(cudaMalloc(&dText, n));
  CHECK(cudaMalloc(&dHex, 2 * n));
  CHECK(cudaMalloc(&dWords, blocks * sizeof(int)));
  CHECK(cudaMalloc(&dVowels, sizeof(int)));
  CHECK(cudaMemcpy(dText, text, n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dVowels, 0, sizeof(int)));

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  double t0 = nowMs();
  cudaEventRecord(start);
  countWords<<<blocks, BLOCK>>>(dText, n, dWords, dVowels);
  hexEncode<<<blocks, BLOCK>>>((const unsigned char *)dText, n, dHex);
  cudaEventRecord(stop);
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);

  int *words = (int *)malloc(blocks * sizeof(int));
  char *hex = (char *)malloc(2 * n);
  int vowels = 0;
  CHECK(cudaMemcpy(words, dWords, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&vowels, dVowels, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hex, dHex, 2 * n, cudaMemcpyDeviceToHost));

  long total = 0, cpuWords = 0, cpuVowels = 0;
  for (int b = 0; b < blocks; ++b) total += words[b];
  for (int i = 0; i < n; ++i) {
    int here = !strchr(" \t\n.,;:!?", text[i]) || text[i] == '\0';
    int before = i > 0 && (!strchr(" \t\n.,;:!?", text[i - 1]) || text[i - 1] == '\0');
    cpuWords += here && !before;
    cpuVowels += strchr("aeiouy", tolower(text[i])) != NULL && text[i] != '\0';
  }
  int hexOk = n == 0 || (hex[0] == "0123456789abcdef"[(unsigned char)text[0] >> 4]);
  printf("words %ld (cpu %ld), vowels %d (cpu %ld), %.3f ms GPU, %.3f ms total\n", total,
         cpuWords, vowels, cpuVowels, ms, nowMs() - t0);
  int ok = total == cpuWords && vowels == cpuVowels && hexOk;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  cudaFree(dText);
  cudaFree(dHex);
  cudaFree(dWords);
  cudaFree(dVowels);
  free(text);
  free(words);
  free(hex);
  return ok ? 0 : 1;
}
