// A scene of shapes behind an abstract base class with virtual functions,
// as renderers and physics codes write it when objects must live on the
// device: the objects are built by a kernel with placement new into a
// device buffer (a vtable is only valid in the address space that built the
// object), queried through base pointers by a second kernel, and destroyed
// through a virtual destructor by a third. Also: a pure virtual function, an
// override that calls the base version, `final`, a virtual call from a
// non-virtual base member (template method), and `override` on a derived
// class of a derived class. The host computes the same areas and hits
// without any virtual call and compares.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                            \
  do {                                                                              \
    cudaError_t e = (expr);                                                         \
    if (e != cudaSuccess) {                                                         \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__,  \
              __LINE__);                                                            \
      exit(EXIT_FAILURE);                                                           \
    }                                                                               \
  } while (0)

enum ShapeKind : int { kCircle = 0, kRect = 1, kSquare = 2, kRing = 3 };

// One record per shape, as the host describes the scene.
struct ShapeDesc {
  int kind;
  float cx, cy;
  float a, b;  // radius / half-width, half-height / inner radius
};

class Shape {
 public:
  __device__ Shape(float cx, float cy) : cx_(cx), cy_(cy) {}
  __device__ virtual ~Shape() {}

  __device__ virtual float area() const = 0;
  __device__ virtual bool contains(float x, float y) const = 0;
  __device__ virtual int id() const { return -1; }

  // Template method: a non-virtual member that dispatches virtually.
  __device__ float weightedArea(float w) const { return w * area() + (contains(cx_, cy_) ? 1.f : 0.f); }

 protected:
  float cx_, cy_;
};

class Circle : public Shape {
 public:
  __device__ Circle(float cx, float cy, float r) : Shape(cx, cy), r_(r) {}
  __device__ float area() const override { return 3.14159265f * r_ * r_; }
  __device__ bool contains(float x, float y) const override {
    float dx = x - cx_, dy = y - cy_;
    return dx * dx + dy * dy <= r_ * r_;
  }
  __device__ int id() const override { return kCircle; }

 protected:
  float r_;
};

class Rect : public Shape {
 public:
  __device__ Rect(float cx, float cy, float hw, float hh) : Shape(cx, cy), hw_(hw), hh_(hh) {}
  __device__ float area() const override { return 4.f * hw_ * hh_; }
  __device__ bool contains(float x, float y) const override {
    return fabsf(x - cx_) <= hw_ && fabsf(y - cy_) <= hh_;
  }
  __device__ int id() const override { return kRect; }

 protected:
  float hw_, hh_;
};

class Square final : public Rect {
 public:
  __device__ Square(float cx, float cy, float h) : Rect(cx, cy, h, h) {}
  __device__ int id() const override { return kSquare; }
};

// A ring is a circle with a hole: both overrides call the base version.
class Ring : public Circle {
 public:
  __device__ Ring(float cx, float cy, float r, float inner) : Circle(cx, cy, r), inner_(inner) {}
  __device__ float area() const override { return Circle::area() - 3.14159265f * inner_ * inner_; }
  __device__ bool contains(float x, float y) const override {
    float dx = x - cx_, dy = y - cy_;
    return Circle::contains(x, y) && dx * dx + dy * dy >= inner_ * inner_;
  }
  __device__ int id() const override { return kRing; }

 private:
  float inner_;
};

// Room for the largest shape in each slot.
constexpr size_t kSlotBytes = 64;
static_assert(sizeof(Ring) <= kSlotBytes, "slot too small");

__global__ void buildShapes(const ShapeDesc *desc, unsigned char *storage, Shape **shapes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  void *slot = storage + i * kSlotBytes;
  const ShapeDesc d = desc[i];
  Shape *s = nullptr;
  switch (d.kind) {
    case kCircle: s = new (slot) Circle(d.cx, d.cy, d.a); break;
    case kRect: s = new (slot) Rect(d.cx, d.cy, d.a, d.b); break;
    case kSquare: s = new (slot) Square(d.cx, d.cy, d.a); break;
    default: s = new (slot) Ring(d.cx, d.cy, d.a, d.b); break;
  }
  shapes[i] = s;
}

// Area of every shape, and for each probe point the number of shapes that
// contain it.
__global__ void queryShapes(Shape *const *shapes, int n, const float2 *probes, int m,
                            float *areas, int *ids, int *hits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    areas[i] = shapes[i]->weightedArea(1.0f);
    ids[i] = shapes[i]->id();
  }
  if (i < m) {
    int count = 0;
    for (int s = 0; s < n; ++s) count += shapes[s]->contains(probes[i].x, probes[i].y);
    hits[i] = count;
  }
}

__global__ void destroyShapes(Shape **shapes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    shapes[i]->~Shape();
    shapes[i] = nullptr;
  }
}

// The host reference, written with a switch.
static bool hostContains(const ShapeDesc &d, float x, float y) {
  float dx = x - d.cx, dy = y - d.cy, r2 = dx * dx + dy * dy;
  switch (d.kind) {
    case kCircle: return r2 <= d.a * d.a;
    case kRect: return std::fabs(dx) <= d.a && std::fabs(dy) <= d.b;
    case kSquare: return std::fabs(dx) <= d.a && std::fabs(dy) <= d.a;
    default: return r2 <= d.a * d.a && r2 >= d.b * d.b;
  }
}

static float hostArea(const ShapeDesc &d) {
  const float pi = 3.14159265f;
  switch (d.kind) {
    case kCircle: return pi * d.a * d.a;
    case kRect: return 4.f * d.a * d.b;
    case kSquare: return 4.f * d.a * d.a;
    default: return pi * d.a * d.a - pi * d.b * d.b;
  }
}

int main() {
  const int n = 200, m = 1000;
  std::vector<ShapeDesc> desc(n);
  srand(7);
  for (int i = 0; i < n; ++i) {
    ShapeDesc &d = desc[i];
    d.kind = i % 4;
    d.cx = (rand() % 1000) / 100.f;
    d.cy = (rand() % 1000) / 100.f;
    d.a = 0.5f + (rand() % 100) / 50.f;
    d.b = d.kind == kRing ? d.a * 0.5f : 0.25f + (rand() % 100) / 80.f;
  }
  std::vector<float2> probes(m);
  for (auto &p : probes) p = make_float2((rand() % 1000) / 99.f, (rand() % 1000) / 101.f);

  ShapeDesc *dDesc;
  unsigned char *dStorage;
  Shape **dShapes;
  float2 *dProbes;
  float *dAreas;
  int *dIds, *dHits;
  CUDA_CHECK(cudaMalloc(&dDesc, n * sizeof(ShapeDesc)));
  CUDA_CHECK(cudaMalloc(&dStorage, n * kSlotBytes));
  CUDA_CHECK(cudaMalloc(&dShapes, n * sizeof(Shape *)));
  CUDA_CHECK(cudaMalloc(&dProbes, m * sizeof(float2)));
  CUDA_CHECK(cudaMalloc(&dAreas, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dIds, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dHits, m * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(dDesc, desc.data(), n * sizeof(ShapeDesc), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dProbes, probes.data(), m * sizeof(float2), cudaMemcpyHostToDevice));

  const int block = 128;
  buildShapes<<<(n + block - 1) / block, block>>>(dDesc, dStorage, dShapes, n);
  CUDA_CHECK(cudaGetLastError());
  queryShapes<<<(m + block - 1) / block, block>>>(dShapes, n, dProbes, m, dAreas, dIds, dHits);
  CUDA_CHECK(cudaGetLastError());
  destroyShapes<<<(n + block - 1) / block, block>>>(dShapes, n);
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<float> areas(n);
  std::vector<int> ids(n), hits(m);
  CUDA_CHECK(cudaMemcpy(areas.data(), dAreas, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(ids.data(), dIds, n * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hits.data(), dHits, m * sizeof(int), cudaMemcpyDeviceToHost));

  int errors = 0;
  for (int i = 0; i < n; ++i) {
    float want = hostArea(desc[i]) + (hostContains(desc[i], desc[i].cx, desc[i].cy) ? 1.f : 0.f);
    if (std::fabs(areas[i] - want) > 1e-4f * std::fabs(want) + 1e-5f || ids[i] != desc[i].kind) ++errors;
  }
  for (int j = 0; j < m; ++j) {
    int want = 0;
    for (int i = 0; i < n; ++i) want += hostContains(desc[i], probes[j].x, probes[j].y);
    if (hits[j] != want) ++errors;
  }
  printf("%d shapes, %d probes: %s (%d errors)\n", n, m, errors ? "FAILED" : "PASSED", errors);

  cudaFree(dDesc);
  cudaFree(dStorage);
  cudaFree(dShapes);
  cudaFree(dProbes);
  cudaFree(dAreas);
  cudaFree(dIds);
  cudaFree(dHits);
  return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
