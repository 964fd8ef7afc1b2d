// Nearest-hit ray casting against random spheres through a bounding volume
// hierarchy whose nodes point at their children (`BVHNode *left, *right`),
// in the style of small GPU ray tracers:
//   - the host builds a median-split BVH, writing the children's *device*
//     addresses into the nodes (the device array's base plus an index), and
//     copies the nodes over; the same build with the host array's base
//     gives the CPU's copy;
//   - a kernel builds a second, complete BVH over a power of two of
//     spheres in place (node k's children at 2k+1 and 2k+2), each thread
//     one node;
//   - rays walk either tree with an explicit stack of node pointers;
//   - a one-block kernel builds and traverses a small scene in one launch.
// The node type is declared before it is defined (a device function takes
// a pointer to it), and the box class's members take and return it by
// value and by reference. The host checks every hit against a brute-force
// loop over all spheres.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err_));       \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// Raw inputs are numbers in [0, 1): a sphere is 4 of them, a ray 6.
struct Sphere {
  float x, y, z, r;
};

struct Ray {
  float o[3], d[3];
};

// Scene coordinates from the raw numbers: centers in [0, 10)^3, radii in
// [0.1, 0.5); rays start on the plane z = -1 and head into the scene.
__host__ __device__ inline Sphere sceneSphere(Sphere raw) {
  Sphere s;
  s.x = 10.0f * raw.x;
  s.y = 10.0f * raw.y;
  s.z = 10.0f * raw.z;
  s.r = 0.1f + 0.4f * raw.r;
  return s;
}

__host__ __device__ inline Ray sceneRay(const float *raw) {
  Ray ray;
  ray.o[0] = 10.0f * raw[0];
  ray.o[1] = 10.0f * raw[1];
  ray.o[2] = -1.0f;
  float dx = raw[3] - 0.5f, dy = raw[4] - 0.5f, dz = 1.0f + raw[5];
  float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz);
  ray.d[0] = dx * inv;
  ray.d[1] = dy * inv;
  ray.d[2] = dz * inv;
  return ray;
}

// The distance along `ray` to sphere `s`, or -1 when it misses.
__host__ __device__ inline float hitSphere(const Ray &ray, const Sphere &s) {
  float ox = ray.o[0] - s.x, oy = ray.o[1] - s.y, oz = ray.o[2] - s.z;
  float b = ox * ray.d[0] + oy * ray.d[1] + oz * ray.d[2];
  float c = ox * ox + oy * oy + oz * oz - s.r * s.r;
  float disc = b * b - c;
  if (disc < 0.0f) return -1.0f;
  float root = sqrtf(disc);
  float t = -b - root;
  if (t > 1e-4f) return t;
  t = -b + root;
  return t > 1e-4f ? t : -1.0f;
}

struct AABB {
  float lo[3], hi[3];

  static __host__ __device__ AABB empty() {
    AABB b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = 1e30f;
      b.hi[a] = -1e30f;
    }
    return b;
  }
  static __host__ __device__ AABB around(const Sphere &s) {
    AABB b;
    b.lo[0] = s.x - s.r;
    b.lo[1] = s.y - s.r;
    b.lo[2] = s.z - s.r;
    b.hi[0] = s.x + s.r;
    b.hi[1] = s.y + s.r;
    b.hi[2] = s.z + s.r;
    return b;
  }
  __host__ __device__ AABB &grow(const AABB &o) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = fminf(lo[a], o.lo[a]);
      hi[a] = fmaxf(hi[a], o.hi[a]);
    }
    return *this;
  }
  __host__ __device__ AABB merged(AABB o) const {
    AABB m = *this;
    return m.grow(o);
  }
  // Whether `ray` enters the box before `tmax` (the slab test).
  __host__ __device__ bool hit(const Ray &ray, float tmax) const {
    float t0 = 0.0f, t1 = tmax;
    for (int a = 0; a < 3; ++a) {
      float inv = 1.0f / ray.d[a];
      float ta = (lo[a] - ray.o[a]) * inv, tb = (hi[a] - ray.o[a]) * inv;
      if (ta > tb) {
        float s = ta;
        ta = tb;
        tb = s;
      }
      t0 = fmaxf(t0, ta);
      t1 = fminf(t1, tb);
      if (t0 > t1) return false;
    }
    return true;
  }
};

struct BVHNode;

// The nearest hit below `root`, declared while BVHNode is incomplete.
__device__ int traceFrom(const BVHNode *root, const Sphere *spheres, const Ray &ray, float *tOut,
                         int *visits);

// A leaf holds spheres[first .. first + count); an inner node has both
// children.
struct BVHNode {
  AABB box;
  BVHNode *left, *right;
  int first, count;
  __host__ __device__ bool isLeaf() const { return left == nullptr; }
};

const int kStackDepth = 64;

__device__ int traceFrom(const BVHNode *root, const Sphere *spheres, const Ray &ray, float *tOut,
                         int *visits) {
  const BVHNode *stack[kStackDepth];
  int top = 0, best = -1, seen = 0;
  float bestT = 1e30f;
  stack[top++] = root;
  while (top > 0) {
    const BVHNode *n = stack[--top];
    ++seen;
    if (!n->box.hit(ray, bestT)) continue;
    if (n->isLeaf()) {
      for (int k = n->first; k < n->first + n->count; ++k) {
        float t = hitSphere(ray, sceneSphere(spheres[k]));
        if (t > 0.0f && t < bestT) {
          bestT = t;
          best = k;
        }
      }
    } else if (top + 2 <= kStackDepth) {
      stack[top++] = n->right;
      stack[top++] = n->left;
    }
  }
  *tOut = best >= 0 ? bestT : -1.0f;
  *visits = seen;
  return best;
}

__global__ void traceRays(const BVHNode *root, const Sphere *spheres, const float *rawRays,
                          int nrays, int *hitIndex, float *hitT, int *visits) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrays; i += gridDim.x * blockDim.x) {
    Ray ray = sceneRay(rawRays + 6 * i);
    hitIndex[i] = traceFrom(root, spheres, ray, &hitT[i], &visits[i]);
  }
}

// Node k of the complete tree over `leafCount` (a power of two) leaves,
// leaf j at leafCount - 1 + j holding sphere j: its links and its box,
// the union of the spheres under it.
__device__ void buildNode(BVHNode *nodes, const Sphere *spheres, int leafCount, int k) {
  BVHNode *n = &nodes[k];
  int lo = k, hi = k;
  while (lo < leafCount - 1) {
    lo = 2 * lo + 1;
    hi = 2 * hi + 2;
  }
  n->first = lo - (leafCount - 1);
  n->count = hi - lo + 1;
  AABB box = AABB::empty();
  for (int j = n->first; j < n->first + n->count; ++j) {
    box.grow(AABB::around(sceneSphere(spheres[j])));
  }
  n->box = box;
  bool leaf = k >= leafCount - 1;
  n->left = leaf ? nullptr : &nodes[2 * k + 1];
  n->right = leaf ? nullptr : &nodes[2 * k + 2];
}

__global__ void buildCompleteBvh(BVHNode *nodes, const Sphere *spheres, int leafCount) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < 2 * leafCount - 1;
       k += gridDim.x * blockDim.x) {
    buildNode(nodes, spheres, leafCount, k);
  }
}

// One block: the tree over a small scene, then its rays.
__global__ void buildAndTrace(BVHNode *nodes, const Sphere *spheres, int leafCount,
                              const float *rawRays, int nrays, int *hitIndex, float *hitT,
                              int *visits) {
  for (int k = threadIdx.x; k < 2 * leafCount - 1; k += blockDim.x) {
    buildNode(nodes, spheres, leafCount, k);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nrays; i += blockDim.x) {
    Ray ray = sceneRay(rawRays + 6 * i);
    hitIndex[i] = traceFrom(&nodes[0], spheres, ray, &hitT[i], &visits[i]);
  }
}

// ---- host ----

struct HostBvh {
  std::vector<BVHNode> nodes;
  std::vector<int> order;  // sphere indices in leaf order
};

// Median split on the longest axis of the centers, at most 2 spheres a
// leaf; children are written as `base + index`, so the same tree serves the
// device (base: the device array) and the CPU (base: the host array).
static int buildRange(HostBvh &bvh, const std::vector<Sphere> &scene, int first, int count,
                      BVHNode *base) {
  int index = (int)bvh.nodes.size();
  bvh.nodes.push_back(BVHNode());
  AABB box = AABB::empty(), centers = AABB::empty();
  for (int k = first; k < first + count; ++k) {
    const Sphere &s = scene[bvh.order[k]];
    box.grow(AABB::around(s));
    Sphere point = {s.x, s.y, s.z, 0.0f};
    centers.grow(AABB::around(point));
  }
  BVHNode node;
  node.box = box;
  node.first = first;
  node.count = count;
  node.left = node.right = nullptr;
  if (count > 2) {
    int axis = 0;
    for (int a = 1; a < 3; ++a) {
      if (centers.hi[a] - centers.lo[a] > centers.hi[axis] - centers.lo[axis]) axis = a;
    }
    auto key = [&](int i) {
      const Sphere &s = scene[i];
      return axis == 0 ? s.x : axis == 1 ? s.y : s.z;
    };
    int half = count / 2;
    std::nth_element(bvh.order.begin() + first, bvh.order.begin() + first + half,
                     bvh.order.begin() + first + count, [&](int a, int b) { return key(a) < key(b); });
    int l = buildRange(bvh, scene, first, half, base);
    int r = buildRange(bvh, scene, first + half, count - half, base);
    node.left = base + l;
    node.right = base + r;
  }
  bvh.nodes[index] = node;
  return index;
}

static int bruteForce(const std::vector<Sphere> &scene, const Ray &ray, float *t) {
  int best = -1;
  float bestT = 1e30f;
  for (size_t k = 0; k < scene.size(); ++k) {
    float h = hitSphere(ray, scene[k]);
    if (h > 0.0f && h < bestT) {
      bestT = h;
      best = (int)k;
    }
  }
  *t = best >= 0 ? bestT : -1.0f;
  return best;
}

// Compares the device's hits (sphere indices through `toScene`) with the
// brute-force ones; the number of mismatches.
static int checkHits(const char *what, const std::vector<Sphere> &scene,
                     const std::vector<float> &rawRays, const std::vector<int> &toScene,
                     const std::vector<int> &hitIndex, const std::vector<float> &hitT,
                     const std::vector<int> &visits) {
  int bad = 0, hits = 0;
  long total = 0;
  for (size_t i = 0; i < hitIndex.size(); ++i) {
    float t;
    int want = bruteForce(scene, sceneRay(&rawRays[6 * i]), &t);
    int got = hitIndex[i] < 0 ? -1 : toScene[hitIndex[i]];
    if (got != want || std::fabs(hitT[i] - t) > 1e-3f * std::max(1.0f, t)) {
      if (bad < 5) std::printf("  %s ray %zu: sphere %d at %f, expected %d at %f\n", what, i, got, hitT[i], want, t);
      ++bad;
    }
    hits += want >= 0;
    total += visits[i];
  }
  std::printf("%-22s %zu rays, %d hit, %.1f nodes visited per ray, %d mismatches\n", what,
              hitIndex.size(), hits, (double)total / hitIndex.size(), bad);
  return bad;
}

int main() {
  const int nSpheres = 1024, nRays = 8192;
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<Sphere> raw(nSpheres), scene(nSpheres);
  for (int k = 0; k < nSpheres; ++k) {
    raw[k] = {unit(rng), unit(rng), unit(rng), unit(rng)};
    scene[k] = sceneSphere(raw[k]);
  }
  std::vector<float> rawRays(6 * nRays);
  for (float &v : rawRays) v = unit(rng);

  float *dRays;
  int *dIndex, *dVisits;
  float *dT;
  Sphere *dSpheres;
  BVHNode *dNodes;
  const int maxNodes = 2 * nSpheres;
  CHECK(cudaMalloc(&dRays, rawRays.size() * sizeof(float)));
  CHECK(cudaMalloc(&dIndex, nRays * sizeof(int)));
  CHECK(cudaMalloc(&dVisits, nRays * sizeof(int)));
  CHECK(cudaMalloc(&dT, nRays * sizeof(float)));
  CHECK(cudaMalloc(&dSpheres, nSpheres * sizeof(Sphere)));
  CHECK(cudaMalloc(&dNodes, maxNodes * sizeof(BVHNode)));
  CHECK(cudaMemcpy(dRays, rawRays.data(), rawRays.size() * sizeof(float), cudaMemcpyHostToDevice));

  std::vector<int> hitIndex(nRays), visits(nRays);
  std::vector<float> hitT(nRays);
  auto fetch = [&]() {
    CHECK(cudaMemcpy(hitIndex.data(), dIndex, nRays * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hitT.data(), dT, nRays * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(visits.data(), dVisits, nRays * sizeof(int), cudaMemcpyDeviceToHost));
  };
  int bad = 0;

  // 1. The host's median-split tree, children at device addresses.
  HostBvh bvh;
  for (int k = 0; k < nSpheres; ++k) bvh.order.push_back(k);
  buildRange(bvh, scene, 0, nSpheres, dNodes);
  std::vector<Sphere> leafOrder(nSpheres);
  for (int k = 0; k < nSpheres; ++k) leafOrder[k] = raw[bvh.order[k]];
  CHECK(cudaMemcpy(dSpheres, leafOrder.data(), nSpheres * sizeof(Sphere), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dNodes, bvh.nodes.data(), bvh.nodes.size() * sizeof(BVHNode),
                   cudaMemcpyHostToDevice));
  traceRays<<<(nRays + 127) / 128, 128>>>(dNodes, dSpheres, dRays, nRays, dIndex, dT, dVisits);
  CHECK(cudaGetLastError());
  fetch();
  std::printf("host BVH: %zu nodes\n", bvh.nodes.size());
  bad += checkHits("median-split BVH", scene, rawRays, bvh.order, hitIndex, hitT, visits);

  // 2. The complete tree, built on the device over the spheres in order.
  std::vector<int> identity(nSpheres);
  for (int k = 0; k < nSpheres; ++k) identity[k] = k;
  CHECK(cudaMemcpy(dSpheres, raw.data(), nSpheres * sizeof(Sphere), cudaMemcpyHostToDevice));
  buildCompleteBvh<<<(2 * nSpheres + 255) / 256, 256>>>(dNodes, dSpheres, nSpheres);
  CHECK(cudaGetLastError());
  traceRays<<<(nRays + 127) / 128, 128>>>(dNodes, dSpheres, dRays, nRays, dIndex, dT, dVisits);
  CHECK(cudaGetLastError());
  fetch();
  bad += checkHits("device-built BVH", scene, rawRays, identity, hitIndex, hitT, visits);

  // 3. A small scene built and traced in one block.
  const int small = 64, smallRays = 256;
  std::vector<Sphere> smallScene(scene.begin(), scene.begin() + small);
  buildAndTrace<<<1, 256>>>(dNodes, dSpheres, small, dRays, smallRays, dIndex, dT, dVisits);
  CHECK(cudaGetLastError());
  fetch();
  hitIndex.resize(smallRays);
  hitT.resize(smallRays);
  visits.resize(smallRays);
  bad += checkHits("one-block BVH", smallScene, rawRays, identity, hitIndex, hitT, visits);

  CHECK(cudaFree(dRays));
  CHECK(cudaFree(dIndex));
  CHECK(cudaFree(dVisits));
  CHECK(cudaFree(dT));
  CHECK(cudaFree(dSpheres));
  CHECK(cudaFree(dNodes));
  std::printf("%s\n", bad == 0 ? "PASSED" : "FAILED");
  return bad == 0 ? 0 : 1;
}
