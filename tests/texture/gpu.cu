// Launches tests/texture.rs runs on every engine, the GPU included, and
// compares byte for byte: each sampler state (filters, addressing modes,
// normalized coordinates, read modes), each rank, layered arrays,
// tex1Dfetch, and surfaces read and written (layered ones too). Coordinates step across the
// array and beyond it; `s`, `sx`, `sy` scale them (1/W for normalized
// coordinates).
__global__ void sample1d(float4 *o, cudaTextureObject_t t, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = tex1D<float4>(t, (i * 0.37f - 3.0f) * s);
}

__global__ void sample2d(float4 *o, cudaTextureObject_t t, float sx, float sy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = (threadIdx.x * 0.37f - 2.0f) * sx, y = (blockIdx.x * 0.61f - 1.0f) * sy;
  o[i] = tex2D<float4>(t, x, y);
}

__global__ void sample2d_int(int4 *o, cudaTextureObject_t t, float sx, float sy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = (threadIdx.x * 0.37f - 2.0f) * sx, y = (blockIdx.x * 0.61f - 1.0f) * sy;
  o[i] = tex2D<int4>(t, x, y);
}

__global__ void sample3d(float4 *o, cudaTextureObject_t t, float s) {
  int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  float x = (threadIdx.x * 0.41f - 1.5f) * s, y = (threadIdx.y * 0.53f - 1.0f) * s;
  float z = (blockIdx.x * 0.7f - 0.9f) * s;
  o[i] = tex3D<float4>(t, x, y, z);
}

__global__ void layered1d(float4 *o, cudaTextureObject_t t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = tex1DLayered<float4>(t, threadIdx.x * 0.37f - 2.0f, blockIdx.x);
}

__global__ void layered2d(float4 *o, cudaTextureObject_t t) {
  int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  float x = threadIdx.x * 0.45f - 1.0f, y = threadIdx.y * 0.55f - 0.5f;
  o[i] = tex2DLayered<float4>(t, x, y, blockIdx.x);
}

__global__ void fetch(float4 *o, cudaTextureObject_t t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = tex1Dfetch<float4>(t, i - 3);
}

__global__ void fetch_int(int4 *o, cudaTextureObject_t t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = tex1Dfetch<int4>(t, i - 3);
}

// One block per row: each thread reads its element and the one two to its
// left (zero outside), then writes a new value and one outside (dropped).
__global__ void surface2d(float *o, cudaSurfaceObject_t s, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  float v = surf2Dread<float>(s, 4 * x, y);
  float left = surf2Dread<float>(s, 4 * (x - 2), y, cudaBoundaryModeZero);
  o[y * w + x] = left;
  __syncthreads();
  surf2Dwrite(v * 2.0f + x, s, 4 * x, y);
  surf2Dwrite(-1.0f, s, 4 * (x + w), y, cudaBoundaryModeZero);
}

__global__ void surface1d(cudaSurfaceObject_t s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uchar4 v = surf1Dread<uchar4>(s, 4 * i);
  surf1Dwrite(make_uchar4(v.w, v.z, v.y, v.x + 1), s, 4 * i);
}

__global__ void surface3d(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  float4 v = surf3Dread<float4>(s, 16 * x, y, z);
  surf3Dwrite(make_float4(v.w, v.x * 2.0f, v.y + z, v.z - y), s, 16 * x, y, z);
}

// One block per layer: each thread swaps its element's two channels and
// adds the layer, in a layered 2-D array and a layered 1-D one.
__global__ void surface_layered2d(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
  float2 v = surf2DLayeredread<float2>(s, 8 * x, y, layer);
  surf2DLayeredwrite(make_float2(v.y + layer, v.x), s, 8 * x, y, layer);
}

__global__ void surface_layered1d(cudaSurfaceObject_t s) {
  int x = threadIdx.x, layer = blockIdx.x;
  ushort2 v = surf1DLayeredread<ushort2>(s, 4 * x, layer);
  surf1DLayeredwrite(make_ushort2(v.y + layer, v.x), s, 4 * x, layer);
}
