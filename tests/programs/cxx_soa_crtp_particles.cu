// A particle system written as a small header-only physics library would:
//   - `SoA<T, Fields...>`-style storage: a class template holding one
//     device pointer per component, a `Particle` proxy returned by
//     `operator[]` whose members are references into the arrays, and a
//     view struct passed to kernels by value;
//   - integrators as CRTP policies (`Integrator<Derived>` with
//     `SymplecticEuler` and `VelocityVerlet`), each with `static constexpr`
//     traits read by the kernel template;
//   - boundary handling chosen with `if constexpr` over an `enum class`
//     template argument (periodic wrap, reflecting walls, open);
//   - generic lambdas (`auto` parameters, one taking `auto &`) in device
//     code, a `decltype(auto)` accessor unpacked by a structured binding;
//   - host: the owner class keeps its pointers in a `std::array`, the
//     cases' error counts are summed by a fold over a parameter pack, and
//     the CPU reference runs the same `__host__ __device__` physics through
//     a view of host vectors.
//
// nvcc-flags: -std=c++17

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CU(call)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

#define HD __host__ __device__

namespace phys {

template <typename T>
struct Vec2 {
  T x, y;
};

template <typename T>
struct ParticleRef {
  T &x, &y, &vx, &vy;
  const T &mass;
};

// The arrays of one particle set; a trivially copyable view.
template <typename T>
struct ParticleView {
  T *x, *y, *vx, *vy, *mass;
  int count;

  HD ParticleRef<T> operator[](int i) const { return {x[i], y[i], vx[i], vy[i], mass[i]}; }
  HD decltype(auto) position(int i) const { return Vec2<T>{x[i], y[i]}; }
};

// Owns the device arrays of a particle set.
template <typename T>
class ParticleArrays {
 public:
  static constexpr int kComponents = 5;
  explicit ParticleArrays(int n) : n_(n) {
    for (auto &p : ptrs_) CU(cudaMalloc(&p, n * sizeof(T)));
  }
  ~ParticleArrays() {
    for (auto p : ptrs_) cudaFree(p);
  }
  ParticleArrays(const ParticleArrays &) = delete;
  ParticleArrays &operator=(const ParticleArrays &) = delete;

  ParticleView<T> view() const { return {ptrs_[0], ptrs_[1], ptrs_[2], ptrs_[3], ptrs_[4], n_}; }
  void upload(int component, const std::vector<T> &h) {
    CU(cudaMemcpy(ptrs_[component], h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download(int component) const {
    std::vector<T> h(n_);
    CU(cudaMemcpy(h.data(), ptrs_[component], n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  int n_;
  std::array<T *, kComponents> ptrs_{};
};

// A harmonic well toward the origin plus a weak drag.
template <typename T>
struct Field {
  T k = T(1), drag = T(0.01);
  HD void accel(T x, T y, T vx, T vy, T m, T &ax, T &ay) const {
    ax = (-k * x - drag * vx) / m;
    ay = (-k * y - drag * vy) / m;
  }
};

template <class Derived>
struct Integrator {
  template <typename T>
  HD void step(ParticleRef<T> p, const Field<T> &f, T dt) const {
    static_cast<const Derived *>(this)->advance(p, f, dt);
  }
};

struct SymplecticEuler : Integrator<SymplecticEuler> {
  static constexpr int kForceEvaluations = 1;
  template <typename T>
  HD void advance(ParticleRef<T> p, const Field<T> &f, T dt) const {
    T ax, ay;
    f.accel(p.x, p.y, p.vx, p.vy, p.mass, ax, ay);
    p.vx += dt * ax;
    p.vy += dt * ay;
    p.x += dt * p.vx;
    p.y += dt * p.vy;
  }
};

struct VelocityVerlet : Integrator<VelocityVerlet> {
  static constexpr int kForceEvaluations = 2;
  template <typename T>
  HD void advance(ParticleRef<T> p, const Field<T> &f, T dt) const {
    T ax, ay;
    f.accel(p.x, p.y, p.vx, p.vy, p.mass, ax, ay);
    const T half = T(0.5) * dt;
    T vxh = p.vx + half * ax, vyh = p.vy + half * ay;
    p.x += dt * vxh;
    p.y += dt * vyh;
    f.accel(p.x, p.y, vxh, vyh, p.mass, ax, ay);
    p.vx = vxh + half * ax;
    p.vy = vyh + half * ay;
  }
};

enum class Boundary { Periodic, Reflect, Open };

constexpr float kBox = 4.0f;

template <Boundary B, typename T>
HD void applyBoundary(ParticleRef<T> p) {
  auto wrap = [](auto v, auto lo, auto hi) {
    const auto span = hi - lo;
    while (v < lo) v += span;
    while (v >= hi) v -= span;
    return v;
  };
  auto reflect = [](auto &v, auto &vel, auto lo, auto hi) {
    if (v < lo) { v = lo + (lo - v); vel = -vel; }
    if (v > hi) { v = hi - (v - hi); vel = -vel; }
  };
  if constexpr (B == Boundary::Periodic) {
    p.x = wrap(p.x, T(-kBox), T(kBox));
    p.y = wrap(p.y, T(-kBox), T(kBox));
  } else if constexpr (B == Boundary::Reflect) {
    reflect(p.x, p.vx, T(-kBox), T(kBox));
    reflect(p.y, p.vy, T(-kBox), T(kBox));
  }
}

}  // namespace phys

template <typename T, class Integ, phys::Boundary B>
__global__ void advanceParticles(phys::ParticleView<T> ps, phys::Field<T> field, T dt, int steps,
                                 int *forceEvaluations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ps.count) return;
  const Integ integ{};
  auto p = ps[i];
  for (int s = 0; s < steps; ++s) {
    integ.step(p, field, dt);
    phys::applyBoundary<B>(p);
  }
  if (i == 0) atomicAdd(forceEvaluations, steps * Integ::kForceEvaluations);
}

// Energy per particle in the well (a reduction is left to the host).
template <typename T>
__global__ void particleEnergy(phys::ParticleView<T> ps, phys::Field<T> field, T *energy) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ps.count) return;
  auto sq = [](auto v) { return v * v; };
  auto [x, y] = ps.position(i);
  energy[i] = T(0.5) * (ps.mass[i] * (sq(ps.vx[i]) + sq(ps.vy[i])) + field.k * (sq(x) + sq(y)));
}

template <typename T, class Integ, phys::Boundary B>
static int runCase(const char *name, int n, int steps, T dt, T tol) {
  std::vector<std::vector<T>> init(5, std::vector<T>(n));
  for (int i = 0; i < n; ++i) {
    init[0][i] = T(std::sin(0.7 * i) * 3.5);
    init[1][i] = T(std::cos(1.3 * i) * 3.5);
    init[2][i] = T(std::sin(0.2 * i) * 2);
    init[3][i] = T(std::cos(0.5 * i) * 2);
    init[4][i] = T(1 + (i % 3));
  }
  phys::ParticleArrays<T> ps(n);
  for (int c = 0; c < 5; ++c) ps.upload(c, init[c]);
  int *dEvals;
  T *dEnergy;
  CU(cudaMalloc(&dEvals, sizeof(int)));
  CU(cudaMalloc(&dEnergy, n * sizeof(T)));
  CU(cudaMemset(dEvals, 0, sizeof(int)));
  const phys::Field<T> field{};
  advanceParticles<T, Integ, B><<<(n + 127) / 128, 128>>>(ps.view(), field, dt, steps, dEvals);
  particleEnergy<<<(n + 127) / 128, 128>>>(ps.view(), field, dEnergy);
  CU(cudaGetLastError());
  int evals = 0;
  CU(cudaMemcpy(&evals, dEvals, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<T> x = ps.download(0), y = ps.download(1), energy(n);
  CU(cudaMemcpy(energy.data(), dEnergy, n * sizeof(T), cudaMemcpyDeviceToHost));

  // CPU reference through the same views on host arrays.
  phys::ParticleView<T> hv{init[0].data(), init[1].data(), init[2].data(), init[3].data(),
                           init[4].data(), n};
  int errors = evals != steps * Integ::kForceEvaluations;
  for (int i = 0; i < n; ++i) {
    auto p = hv[i];
    for (int s = 0; s < steps; ++s) {
      Integ{}.step(p, field, dt);
      phys::applyBoundary<B>(p);
    }
    const T e = T(0.5) * (p.mass * (p.vx * p.vx + p.vy * p.vy) + field.k * (p.x * p.x + p.y * p.y));
    if (std::abs(x[i] - p.x) > tol || std::abs(y[i] - p.y) > tol ||
        std::abs(energy[i] - e) > tol * (1 + std::abs(e)))
      ++errors;
  }
  std::printf("%-28s %s\n", name, errors ? "FAILED" : "ok");
  CU(cudaFree(dEvals));
  CU(cudaFree(dEnergy));
  return errors;
}

template <typename... Cases>
static int runAll(Cases... results) {
  return (results + ... + 0);
}

int main() {
  using phys::Boundary;
  const int errors = runAll(
      runCase<float, phys::SymplecticEuler, Boundary::Periodic>("float euler periodic", 1000, 200, 0.01f, 1e-3f),
      runCase<float, phys::VelocityVerlet, Boundary::Reflect>("float verlet reflect", 1000, 200, 0.01f, 1e-3f),
      runCase<double, phys::VelocityVerlet, Boundary::Open>("double verlet open", 500, 400, 0.005, 1e-9),
      runCase<double, phys::SymplecticEuler, Boundary::Reflect>("double euler reflect", 500, 400, 0.005, 1e-9));
  std::printf("%s\n", errors ? "FAILED" : "PASSED");
  return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
