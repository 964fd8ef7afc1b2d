// Overlaps copies and kernels with several CUDA streams: the array is cut
// into chunks, and each stream copies its chunk in (pinned memory),
// transforms it, and copies it out. The same work is run once on the
// default stream for the timing comparison. Sample-style.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define NSTREAMS 4

// A deliberately arithmetic-heavy transform so the kernel time is visible.
__global__ void polishChunk(float *data, int offset, int count, int rounds) {
  int i = offset + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= offset + count) return;
  float v = data[i];
  for (int r = 0; r < rounds; ++r) v = sinf(v) * 0.5f + cosf(v) * 0.5f;
  data[i] = v;
}

static float referenceValue(float v, int rounds) {
  for (int r = 0; r < rounds; ++r) v = sinf(v) * 0.5f + cosf(v) * 0.5f;
  return v;
}

int main() {
  const int n = 1 << 22;
  const int rounds = 20;
  const int threads = 256;
  findCudaDevice();

  float *hData, *dData;
  checkCudaErrors(cudaMallocHost(&hData, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dData, n * sizeof(float)));
  for (int i = 0; i < n; ++i) hData[i] = (i % 1024) / 1024.0f;

  cudaStream_t streams[NSTREAMS];
  for (int s = 0; s < NSTREAMS; ++s) checkCudaErrors(cudaStreamCreate(&streams[s]));
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));

  // Sequential: one copy in, one kernel, one copy out.
  checkCudaErrors(cudaEventRecord(start));
  checkCudaErrors(cudaMemcpy(dData, hData, n * sizeof(float), cudaMemcpyHostToDevice));
  polishChunk<<<iDivUp(n, threads), threads>>>(dData, 0, n, rounds);
  checkCudaErrors(cudaMemcpy(hData, dData, n * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaEventRecord(stop));
  checkCudaErrors(cudaEventSynchronize(stop));
  float msSequential;
  checkCudaErrors(cudaEventElapsedTime(&msSequential, start, stop));

  // Check the sequential run, then reset the input.
  int bad = 0;
  for (int i = 0; i < n; i += 4099)
    if (fabsf(hData[i] - referenceValue((i % 1024) / 1024.0f, rounds)) > 1e-4f) ++bad;
  for (int i = 0; i < n; ++i) hData[i] = (i % 1024) / 1024.0f;

  // Streamed: chunks overlap copy-in, compute and copy-out.
  const int chunk = n / NSTREAMS;
  checkCudaErrors(cudaEventRecord(start));
  for (int s = 0; s < NSTREAMS; ++s) {
    int offset = s * chunk;
    checkCudaErrors(cudaMemcpyAsync(dData + offset, hData + offset, chunk * sizeof(float),
                                    cudaMemcpyHostToDevice, streams[s]));
    polishChunk<<<iDivUp(chunk, threads), threads, 0, streams[s]>>>(dData, offset, chunk, rounds);
    checkCudaErrors(cudaMemcpyAsync(hData + offset, dData + offset, chunk * sizeof(float),
                                    cudaMemcpyDeviceToHost, streams[s]));
  }
  checkCudaErrors(cudaEventRecord(stop));
  checkCudaErrors(cudaEventSynchronize(stop));
  getLastCudaError("streamed polishChunk");
  float msStreamed;
  checkCudaErrors(cudaEventElapsedTime(&msStreamed, start, stop));

  for (int i = 0; i < n; i += 4099)
    if (fabsf(hData[i] - referenceValue((i % 1024) / 1024.0f, rounds)) > 1e-4f) ++bad;
  printf("sequential %.3f ms, %d streams %.3f ms, %d bad samples\n", msSequential, NSTREAMS,
         msStreamed, bad);

  for (int s = 0; s < NSTREAMS; ++s) checkCudaErrors(cudaStreamDestroy(streams[s]));
  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaFreeHost(hData));
  checkCudaErrors(cudaFree(dData));
  return reportResult("stream_overlap", bad == 0);
}
