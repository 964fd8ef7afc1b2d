// All-pairs gravitational n-body simulation. Each block loads a tile of
// bodies into shared memory at a time and every thread accumulates the
// acceleration of its own body over the tile; the integration step is a
// separate kernel. Bodies and the interaction live in bodies.cuh, shared
// with the CPU reference. Benchmark-suite style: reports interactions per
// second and checks a short run against the CPU.
//
// usage: nbody [bodies] [steps]

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bodies.cuh"

#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

using nbody::Body;

template <int TILE>
__global__ void computeAccelerations(float3 *__restrict__ accel, const Body *__restrict__ bodies,
                                     int count) {
  __shared__ Body tile[TILE];
  const int i = blockIdx.x * TILE + threadIdx.x;
  const Body me = i < count ? bodies[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 acc = make_float3(0.f, 0.f, 0.f);

  for (int base = 0; base < count; base += TILE) {
    int j = base + threadIdx.x;
    // Bodies past the end get zero mass: they exert no force.
    tile[threadIdx.x] = j < count ? bodies[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; ++k) acc = nbody::accumulate(acc, me, tile[k]);
    __syncthreads();
  }
  if (i < count) accel[i] = acc;
}

__global__ void integrate(Body *bodies, float3 *velocities, const float3 *accel,
                          nbody::SimParams params) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= params.count) return;
  float3 v = velocities[i];
  float3 a = accel[i];
  v.x = (v.x + a.x * params.dt) * params.damping;
  v.y = (v.y + a.y * params.dt) * params.damping;
  v.z = (v.z + a.z * params.dt) * params.damping;
  Body b = bodies[i];
  b.x += v.x * params.dt;
  b.y += v.y * params.dt;
  b.z += v.z * params.dt;
  bodies[i] = b;
  velocities[i] = v;
}

static void stepCpu(std::vector<Body> &bodies, std::vector<float3> &vel, const nbody::SimParams &p) {
  std::vector<float3> acc(p.count);
  for (int i = 0; i < p.count; ++i) {
    float3 a = make_float3(0, 0, 0);
    for (int j = 0; j < p.count; ++j) a = nbody::accumulate(a, bodies[i], bodies[j]);
    acc[i] = a;
  }
  for (int i = 0; i < p.count; ++i) {
    vel[i].x = (vel[i].x + acc[i].x * p.dt) * p.damping;
    vel[i].y = (vel[i].y + acc[i].y * p.dt) * p.damping;
    vel[i].z = (vel[i].z + acc[i].z * p.dt) * p.damping;
    bodies[i].x += vel[i].x * p.dt;
    bodies[i].y += vel[i].y * p.dt;
    bodies[i].z += vel[i].z * p.dt;
  }
}

int main(int argc, char **argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 4000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 5;
  constexpr int kTile = 128;
  nbody::SimParams params{count, 0.001f, 0.9995f};

  std::vector<Body> bodies(count);
  std::vector<float3> vel(count, make_float3(0, 0, 0));
  for (int i = 0; i < count; ++i) {
    float t = 0.37f * i, r = 1.0f + 0.001f * i;
    bodies[i] = make_float4(r * std::cos(t), r * std::sin(t), 0.1f * std::sin(3.0f * t), 1.0f / count);
  }

  Body *dBodies;
  float3 *dVel, *dAcc;
  CUDA_CHECK(cudaMalloc(&dBodies, count * sizeof(Body)));
  CUDA_CHECK(cudaMalloc(&dVel, count * sizeof(float3)));
  CUDA_CHECK(cudaMalloc(&dAcc, count * sizeof(float3)));
  CUDA_CHECK(cudaMemcpy(dBodies, bodies.data(), count * sizeof(Body), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dVel, vel.data(), count * sizeof(float3), cudaMemcpyHostToDevice));

  const int blocks = (count + kTile - 1) / kTile;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int s = 0; s < steps; ++s) {
    computeAccelerations<kTile><<<blocks, kTile>>>(dAcc, dBodies, count);
    integrate<<<blocks, kTile>>>(dBodies, dVel, dAcc, params);
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  double interactions = (double)count * count * steps;
  std::printf("%d bodies, %d steps: %.3f ms, %.2f billion interactions/s\n", count, steps, ms,
              interactions / (ms * 1e6));

  std::vector<Body> gpu(count);
  CUDA_CHECK(cudaMemcpy(gpu.data(), dBodies, count * sizeof(Body), cudaMemcpyDeviceToHost));
  for (int s = 0; s < steps; ++s) stepCpu(bodies, vel, params);
  double maxErr = 0;
  for (int i = 0; i < count; ++i)
    maxErr = std::fmax(maxErr, std::fabs(gpu[i].x - bodies[i].x) + std::fabs(gpu[i].y - bodies[i].y) +
                                   std::fabs(gpu[i].z - bodies[i].z));
  std::printf("max position difference vs CPU: %.3e\n", maxErr);
  cudaFree(dBodies); cudaFree(dVel); cudaFree(dAcc);
  bool ok = maxErr < 1e-4;
  std::puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
