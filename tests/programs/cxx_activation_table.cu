// Activation functions chosen at run time through a table of device
// function pointers (`using activation_fn = float (*)(float)`), filled on
// the device and copied back with cudaMemcpyFromSymbol so the host can pass
// a pointer to the kernel; plus bit-level work through a union (float <->
// uint32 punning, as CUDA code often does for fast approximations) and a
// struct with a bit-field header packing each row's configuration.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                                  \
  do {                                                                                    \
    cudaError_t err = (call);                                                             \
    if (err != cudaSuccess) {                                                             \
      printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err));                 \
      return EXIT_FAILURE;                                                                \
    }                                                                                     \
  } while (0)

using activation_fn = float (*)(float);

union FloatBits {
  float f;
  uint32_t u;
};

// A rough log2 from the exponent and mantissa bits, refined by one
// polynomial step: good to about 1e-2, which is what a cheap softplus needs.
__device__ float fastLog2(float x) {
  FloatBits b;
  b.f = x;
  float exponent = float(int((b.u >> 23) & 0xff) - 127);
  b.u = (b.u & 0x007fffffu) | 0x3f800000u; // mantissa in [1, 2)
  float m = b.f;
  return exponent + (-0.34484843f * m + 2.02466578f) * m - 0.67487759f;
}

__device__ float reluAct(float x) { return fmaxf(x, 0.0f); }
__device__ float siluAct(float x) { return x / (1.0f + __expf(-x)); }
__device__ float softplusApprox(float x) { return 0.69314718f * fastLog2(1.0f + __expf(x)); }
__device__ float hardTanh(float x) { return fminf(fmaxf(x, -1.0f), 1.0f); }

constexpr int kActivations = 4;
__device__ activation_fn d_table[kActivations];

__global__ void fillTable() {
  d_table[0] = reluAct;
  d_table[1] = siluAct;
  d_table[2] = softplusApprox;
  d_table[3] = hardTanh;
}

struct RowHeader {
  unsigned activation : 2; // index into the table
  unsigned negate : 1;     // apply to -x instead of x
  unsigned scaleLog2 : 5;  // output scaled by 2^-scaleLog2
  unsigned reserved : 24;
};

__global__ void applyRows(float *data, const RowHeader *headers, int rows, int cols) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  RowHeader h = headers[row];
  activation_fn f = d_table[h.activation];
  float x = data[row * cols + col];
  float y = f(h.negate ? -x : x);
  data[row * cols + col] = ldexpf(y, -int(h.scaleLog2));
}

__global__ void applyOne(float *data, int n, activation_fn f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[i]);
}

static float hostActivation(unsigned which, float x) {
  switch (which) {
    case 0: return std::fmax(x, 0.0f);
    case 1: return x / (1.0f + std::exp(-x));
    case 2: return std::log1p(std::exp(x));
    default: return std::fmin(std::fmax(x, -1.0f), 1.0f);
  }
}

int main() {
  const int rows = 8, cols = 1000;
  std::vector<float> data(rows * cols);
  for (int i = 0; i < rows * cols; ++i) data[i] = std::sin(0.37f * i) * 4.0f;
  std::vector<RowHeader> headers(rows);
  for (int r = 0; r < rows; ++r) {
    std::memset(&headers[r], 0, sizeof(RowHeader));
    headers[r].activation = r % kActivations;
    headers[r].negate = (r / kActivations) & 1;
    headers[r].scaleLog2 = r % 3;
  }

  fillTable<<<1, 1>>>();
  CHECK_CUDA(cudaGetLastError());
  activation_fn table[kActivations];
  CHECK_CUDA(cudaMemcpyFromSymbol(table, d_table, sizeof(table)));

  float *dData, *dCopy;
  RowHeader *dHeaders;
  CHECK_CUDA(cudaMalloc(&dData, data.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dCopy, cols * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dHeaders, rows * sizeof(RowHeader)));
  CHECK_CUDA(cudaMemcpy(dData, data.data(), data.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dCopy, data.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dHeaders, headers.data(), rows * sizeof(RowHeader), cudaMemcpyHostToDevice));

  applyRows<<<dim3((cols + 255) / 256, rows), 256>>>(dData, dHeaders, rows, cols);
  applyOne<<<(cols + 255) / 256, 256>>>(dCopy, cols, table[1]); // SiLU through a host-held pointer
  CHECK_CUDA(cudaGetLastError());

  std::vector<float> out(data.size()), silu(cols);
  CHECK_CUDA(cudaMemcpy(out.data(), dData, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(silu.data(), dCopy, cols * sizeof(float), cudaMemcpyDeviceToHost));

  std::map<std::string, double> worst;
  const char *names[kActivations] = {"relu", "silu", "softplus~", "hardtanh"};
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float x = data[r * cols + c];
      float ref = std::ldexp(hostActivation(headers[r].activation, headers[r].negate ? -x : x),
                             -int(headers[r].scaleLog2));
      double &w = worst[names[headers[r].activation]];
      w = std::fmax(w, std::fabs(ref - out[r * cols + c]));
    }
  for (int c = 0; c < cols; ++c)
    worst["silu (pointer from host)"] =
        std::fmax(worst["silu (pointer from host)"], std::fabs(hostActivation(1, data[c]) - silu[c]));

  bool ok = true;
  for (const auto &[name, err] : worst) {
    double tol = name == "softplus~" ? 5e-2 : 1e-4;
    printf("%-26s max error %.2e%s\n", name.c_str(), err, err <= tol ? "" : "  TOO LARGE");
    ok &= err <= tol;
  }
  cudaFree(dData);
  cudaFree(dCopy);
  cudaFree(dHeaders);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
