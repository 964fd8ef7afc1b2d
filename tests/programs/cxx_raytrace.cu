// A small ray tracer (spheres, one light, hard shadows, one bounce of
// reflection) written with the float3 operators of the shared vec_math.cuh,
// small classes with member functions, and a scene in constant memory. The
// image is written as a binary PPM; the host checks a few pixels against
// the same tracer run on the CPU (the device code is __host__ __device__).

#include <cfloat>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/vec_math.cuh"

#define CUDA_OK(x)                                                                           \
  do {                                                                                       \
    cudaError_t e = (x);                                                                     \
    if (e != cudaSuccess) {                                                                  \
      std::cerr << #x << " failed: " << cudaGetErrorString(e) << " (" << __FILE__ << ":"     \
                << __LINE__ << ")\n";                                                        \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

struct Ray {
  float3 origin, dir;
  __host__ __device__ Ray(float3 o, float3 d) : origin(o), dir(normalize(d)) {}
  __host__ __device__ float3 at(float t) const { return origin + dir * t; }
};

struct Hit {
  float t;
  float3 point, normal;
  int material;
};

struct Sphere {
  float3 center;
  float radius;
  int material;

  __host__ __device__ bool intersect(const Ray &ray, float tMin, float tMax, Hit &hit) const {
    float3 oc = ray.origin - center;
    float b = dot(oc, ray.dir);
    float c = dot(oc, oc) - radius * radius;
    float disc = b * b - c;
    if (disc < 0.0f) return false;
    float s = sqrtf(disc);
    float t = -b - s;
    if (t < tMin || t > tMax) t = -b + s;
    if (t < tMin || t > tMax) return false;
    hit.t = t;
    hit.point = ray.at(t);
    hit.normal = (hit.point - center) / radius;
    hit.material = material;
    return true;
  }
};

struct Material {
  float3 albedo;
  float reflectivity;
};

constexpr int kSpheres = 4;
constexpr int kMaterials = 3;

struct Scene {
  Sphere spheres[kSpheres];
  Material materials[kMaterials];
  float3 lightPos;
  float3 sky;

  __host__ __device__ bool closest(const Ray &ray, Hit &best) const {
    bool any = false;
    best.t = FLT_MAX;
    for (int i = 0; i < kSpheres; ++i) {
      Hit h;
      if (spheres[i].intersect(ray, 1e-3f, best.t, h)) {
        best = h;
        any = true;
      }
    }
    return any;
  }

  __host__ __device__ float3 shade(Ray ray, int maxBounces = 2) const {
    float3 color = make_float3(0.0f);
    float3 weight = make_float3(1.0f);
    for (int bounce = 0; bounce < maxBounces; ++bounce) {
      Hit hit;
      if (!closest(ray, hit)) {
        color += weight * sky;
        break;
      }
      const Material &m = materials[hit.material];
      float3 toLight = normalize(lightPos - hit.point);
      Hit blocker;
      bool shadowed = closest(Ray(hit.point, toLight), blocker) &&
                      blocker.t < length(lightPos - hit.point);
      float diffuse = shadowed ? 0.1f : fmaxf(dot(hit.normal, toLight), 0.1f);
      color += weight * m.albedo * (diffuse * (1.0f - m.reflectivity));
      weight *= m.reflectivity;
      float3 reflected = ray.dir - hit.normal * (2.0f * dot(ray.dir, hit.normal));
      ray = Ray(hit.point, reflected);
    }
    return color;
  }
};

__constant__ Scene c_scene;

__host__ __device__ inline Ray cameraRay(int x, int y, int width, int height) {
  float aspect = float(width) / height;
  float u = (2.0f * (x + 0.5f) / width - 1.0f) * aspect;
  float v = 1.0f - 2.0f * (y + 0.5f) / height;
  return Ray(make_float3(0.0f, 1.0f, -4.0f), make_float3(u, v, 1.5f));
}

__host__ __device__ inline uchar4 toRGBA(float3 c) {
  return make_uchar4((unsigned char)(255.0f * clampf(c.x, 0.0f, 1.0f)),
                     (unsigned char)(255.0f * clampf(c.y, 0.0f, 1.0f)),
                     (unsigned char)(255.0f * clampf(c.z, 0.0f, 1.0f)), 255);
}

__global__ void render(uchar4 *image, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  image[y * width + x] = toRGBA(c_scene.shade(cameraRay(x, y, width, height)));
}

static Scene makeScene() {
  Scene s{};
  s.spheres[0] = {make_float3(0.0f, -1000.0f, 0.0f), 1000.0f, 0};
  s.spheres[1] = {make_float3(-1.2f, 1.0f, 1.0f), 1.0f, 1};
  s.spheres[2] = {make_float3(1.2f, 1.0f, 1.0f), 1.0f, 2};
  s.spheres[3] = {make_float3(0.0f, 0.4f, -0.6f), 0.4f, 1};
  s.materials[0] = {make_float3(0.6f, 0.6f, 0.55f), 0.1f};
  s.materials[1] = {make_float3(0.9f, 0.25f, 0.2f), 0.0f};
  s.materials[2] = {make_float3(0.8f), 0.7f};
  s.lightPos = make_float3(5.0f, 8.0f, -3.0f);
  s.sky = make_float3(0.5f, 0.7f, 1.0f);
  return s;
}

int main(int argc, char **argv) {
  const int width = 640, height = 360;
  const std::string outPath = argc > 1 ? argv[1] : "raytrace.ppm";
  const Scene scene = makeScene();
  CUDA_OK(cudaMemcpyToSymbol(c_scene, &scene, sizeof(Scene)));

  uchar4 *dImage = nullptr;
  CUDA_OK(cudaMalloc(&dImage, width * height * sizeof(uchar4)));
  dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  render<<<grid, block>>>(dImage, width, height);
  CUDA_OK(cudaGetLastError());
  std::vector<uchar4> image(width * height);
  CUDA_OK(cudaMemcpy(image.data(), dImage, image.size() * sizeof(uchar4), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(dImage));

  int mismatches = 0;
  for (int y = 0; y < height; y += 37)
    for (int x = 0; x < width; x += 53) {
      uchar4 ref = toRGBA(scene.shade(cameraRay(x, y, width, height)));
      uchar4 got = image[y * width + x];
      mismatches += abs(ref.x - got.x) > 2 || abs(ref.y - got.y) > 2 || abs(ref.z - got.z) > 2;
    }

  std::ofstream out(outPath, std::ios::binary);
  out << "P6\n" << width << " " << height << "\n255\n";
  for (const uchar4 &p : image) out.put(char(p.x)).put(char(p.y)).put(char(p.z));
  std::cout << "wrote " << outPath << "; " << mismatches << " sampled pixels differ from the CPU\n";
  return mismatches == 0 ? 0 : 1;
}
