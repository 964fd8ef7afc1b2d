// A small particle system in C++ style: float3 operators from the shared
// vec_math.cuh, a namespace per concern, integration schemes as tag types
// selected by template, a host-side class that owns the device memory
// (RAII, move-only), and iostream reporting. The particles fall under
// gravity and bounce off the floor y = 0 with restitution.

#include <cmath>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/vec_math.cuh"

namespace sim {

struct Particle {
  float3 position;
  float3 velocity;
  float mass;
};

struct World {
  float3 gravity;
  float restitution;
  float dt;
};

namespace integrators {
struct ExplicitEuler {
  static constexpr const char *name = "explicit Euler";
};
struct SemiImplicitEuler {
  static constexpr const char *name = "semi-implicit Euler";
};
} // namespace integrators

template <class Scheme>
__host__ __device__ inline void advance(Particle &p, const World &w);

template <>
__host__ __device__ inline void advance<integrators::ExplicitEuler>(Particle &p, const World &w) {
  float3 oldVelocity = p.velocity;
  p.velocity += w.gravity * w.dt;
  p.position += oldVelocity * w.dt;
}

template <>
__host__ __device__ inline void advance<integrators::SemiImplicitEuler>(Particle &p, const World &w) {
  p.velocity += w.gravity * w.dt;
  p.position += p.velocity * w.dt;
}

__host__ __device__ inline void collideWithFloor(Particle &p, const World &w) {
  if (p.position.y < 0.0f) {
    p.position.y = -p.position.y * w.restitution;
    p.velocity.y = -p.velocity.y * w.restitution;
  }
}

template <class Scheme>
__global__ void stepParticles(Particle *particles, int count, World world, int substeps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  Particle p = particles[i];
  for (int s = 0; s < substeps; ++s) {
    advance<Scheme>(p, world);
    collideWithFloor(p, world);
  }
  particles[i] = p;
}

__global__ void kineticEnergy(const Particle *particles, int count, float *energy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    const Particle &p = particles[i];
    atomicAdd(energy, 0.5f * p.mass * dot(p.velocity, p.velocity));
  }
}

inline void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Owns the device copy of the particles.
class ParticleSystem {
public:
  explicit ParticleSystem(const std::vector<Particle> &initial) : count_(static_cast<int>(initial.size())) {
    check(cudaMalloc(&device_, initial.size() * sizeof(Particle)), "cudaMalloc");
    check(cudaMemcpy(device_, initial.data(), initial.size() * sizeof(Particle), cudaMemcpyHostToDevice),
          "upload");
  }
  ParticleSystem(const ParticleSystem &) = delete;
  ParticleSystem &operator=(const ParticleSystem &) = delete;
  ParticleSystem(ParticleSystem &&other) noexcept : device_(std::exchange(other.device_, nullptr)), count_(other.count_) {}
  ~ParticleSystem() { cudaFree(device_); }

  template <class Scheme>
  void run(const World &world, int steps) {
    const int threads = 128;
    stepParticles<Scheme><<<(count_ + threads - 1) / threads, threads>>>(device_, count_, world, steps);
    check(cudaGetLastError(), "stepParticles");
  }

  float energy() const {
    float *d;
    float result = 0.0f;
    check(cudaMalloc(&d, sizeof(float)), "cudaMalloc");
    check(cudaMemset(d, 0, sizeof(float)), "cudaMemset");
    kineticEnergy<<<(count_ + 127) / 128, 128>>>(device_, count_, d);
    check(cudaMemcpy(&result, d, sizeof(float), cudaMemcpyDeviceToHost), "download");
    cudaFree(d);
    return result;
  }

  std::vector<Particle> download() const {
    std::vector<Particle> out(count_);
    check(cudaMemcpy(out.data(), device_, count_ * sizeof(Particle), cudaMemcpyDeviceToHost), "download");
    return out;
  }

private:
  Particle *device_ = nullptr;
  int count_ = 0;
};

} // namespace sim

template <class Scheme>
static bool simulateAndCheck(const std::vector<sim::Particle> &initial, const sim::World &world, int steps) {
  sim::ParticleSystem system(initial);
  system.run<Scheme>(world, steps);
  std::vector<sim::Particle> gpu = system.download();

  std::vector<sim::Particle> cpu = initial;
  for (auto &p : cpu)
    for (int s = 0; s < steps; ++s) {
      sim::advance<Scheme>(p, world);
      sim::collideWithFloor(p, world);
    }
  float worst = 0.0f;
  for (size_t i = 0; i < cpu.size(); ++i) worst = std::fmax(worst, length(gpu[i].position - cpu[i].position));
  bool aboveFloor = true;
  for (const auto &p : gpu) aboveFloor = aboveFloor && p.position.y >= 0.0f;
  std::cout << std::left << std::setw(22) << Scheme::name << " max deviation " << std::scientific
            << std::setprecision(2) << worst << ", kinetic energy " << std::fixed << system.energy()
            << (aboveFloor ? "" : " (particle below the floor!)") << '\n';
  return worst < 1e-3f && aboveFloor;
}

int main() {
  try {
    std::vector<sim::Particle> particles(10000);
    for (size_t i = 0; i < particles.size(); ++i) {
      float t = static_cast<float>(i);
      particles[i] = {make_float3(std::cos(t), 1.0f + (i % 50) * 0.1f, std::sin(t)),
                      make_float3(0.1f * std::sin(3 * t), 0.0f, 0.1f * std::cos(5 * t)), 1.0f + (i % 3)};
    }
    const sim::World world{make_float3(0.0f, -9.81f, 0.0f), 0.8f, 1e-3f};
    bool ok = simulateAndCheck<sim::integrators::ExplicitEuler>(particles, world, 2000);
    ok = simulateAndCheck<sim::integrators::SemiImplicitEuler>(particles, world, 2000) && ok;
    std::cout << (ok ? "PASSED" : "FAILED") << std::endl;
    return ok ? 0 : 1;
  } catch (const std::exception &e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
}
