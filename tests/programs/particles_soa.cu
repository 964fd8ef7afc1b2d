// A particle system stored as a struct of arrays, with aligned vector
// members for coalesced 16-byte access, seeded per thread from cuRAND's
// device API: one kernel initializes the generator states, one spawns
// particles from normal and uniform draws, one integrates them under
// gravity with a floor bounce.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <helper_cuda.h>

#define GRAVITY -9.81f
#define RESTITUTION 0.6f

// Four floats that always move together: position and lifetime.
struct __align__(16) PosLife {
  float x, y, z, life;
};

struct __align__(8) Spin {
  float angle, rate;
};

// Struct of arrays: each field is its own device array.
struct ParticlesSoA {
  PosLife *posLife;
  float4 *velocity;  // w unused
  Spin *spin;
  int count;
};

__global__ void setupRng(curandState *states, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) curand_init(seed, i, 0, &states[i]);
}

__global__ void spawn(ParticlesSoA p, curandState *states) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.count) return;
  curandState local = states[i];
  float2 g = curand_normal2(&local);
  PosLife pl;
  pl.x = g.x;
  pl.y = 1.0f + curand_uniform(&local);
  pl.z = g.y;
  pl.life = 2.0f + 3.0f * curand_uniform(&local);
  p.posLife[i] = pl;
  p.velocity[i] = make_float4(0.5f * curand_normal(&local),
                              4.0f * curand_uniform(&local), 0.0f, 0.0f);
  Spin s = {0.0f, 6.2831853f * (curand_uniform(&local) - 0.5f)};
  p.spin[i] = s;
  states[i] = local;
}

__global__ void integrate(ParticlesSoA p, float dt, int *alive) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.count) return;
  PosLife pl = p.posLife[i];
  if (pl.life <= 0.0f) return;
  float4 v = p.velocity[i];
  v.y += GRAVITY * dt;
  pl.x += v.x * dt;
  pl.y += v.y * dt;
  pl.z += v.z * dt;
  if (pl.y < 0.0f) {
    pl.y = -pl.y;
    v.y = -v.y * RESTITUTION;
  }
  pl.life -= dt;
  Spin s = p.spin[i];
  s.angle = fmodf(s.angle + s.rate * dt, 6.2831853f);
  p.posLife[i] = pl;
  p.velocity[i] = v;
  p.spin[i] = s;
  if (pl.life > 0.0f) atomicAdd(alive, 1);
}

int main() {
  const int n = 10000, threads = 128, blocks = (n + threads - 1) / threads;
  ParticlesSoA p;
  p.count = n;
  curandState *states;
  int *dAlive;
  checkCudaErrors(cudaMalloc(&p.posLife, n * sizeof(PosLife)));
  checkCudaErrors(cudaMalloc(&p.velocity, n * sizeof(float4)));
  checkCudaErrors(cudaMalloc(&p.spin, n * sizeof(Spin)));
  checkCudaErrors(cudaMalloc(&states, n * sizeof(curandState)));
  checkCudaErrors(cudaMalloc(&dAlive, sizeof(int)));
  setupRng<<<blocks, threads>>>(states, 1234ull, n);
  spawn<<<blocks, threads>>>(p, states);
  int alive = 0;
  for (int step = 0; step < 100; ++step) {
    checkCudaErrors(cudaMemset(dAlive, 0, sizeof(int)));
    integrate<<<blocks, threads>>>(p, 0.02f, dAlive);
  }
  getLastCudaError("simulation");
  checkCudaErrors(cudaMemcpy(&alive, dAlive, sizeof alive, cudaMemcpyDeviceToHost));
  printf("particles alive after 2 s: %d of %d\n", alive, n);
  bool ok = alive > 0 && alive < n;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  cudaFree(p.posLife);
  cudaFree(p.velocity);
  cudaFree(p.spin);
  cudaFree(states);
  cudaFree(dAlive);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
