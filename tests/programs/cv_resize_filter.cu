// An image-processing stage in the style of computer-vision libraries: a
// uchar3 (packed RGB) frame is converted to uchar4, resized with bilinear
// interpolation written by hand and, for comparison, through a texture
// object (cudaCreateTextureObject over a cudaArray, linear filtering,
// normalized float reads), blurred with a separable filter whose taps live
// in __constant__ memory, and turned to grey with __saturatef.

#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>

#define CV_CUDA_CHECK(expr)                                                              \
    do {                                                                                 \
        cudaError_t _e = (expr);                                                         \
        if (_e != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,        \
                    cudaGetErrorString(_e));                                             \
            std::exit(1);                                                                \
        }                                                                                \
    } while (false)

#define MAX_KERNEL_RADIUS 8
__constant__ float c_taps[2 * MAX_KERNEL_RADIUS + 1];

namespace cv_device {

__device__ __forceinline__ float4 to_float4(uchar4 p) { return make_float4(p.x, p.y, p.z, p.w); }

__device__ __forceinline__ unsigned char saturate_u8(float v) {
    return (unsigned char)__float2int_rn(fminf(fmaxf(v, 0.0f), 255.0f));
}

__device__ __forceinline__ uchar4 to_uchar4(float4 v) {
    return make_uchar4(saturate_u8(v.x), saturate_u8(v.y), saturate_u8(v.z), saturate_u8(v.w));
}

__device__ __forceinline__ float4 lerp4(float4 a, float4 b, float t) {
    return make_float4(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t,
                       a.w + (b.w - a.w) * t);
}

template <typename T>
__device__ __forceinline__ T clampi(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// Reads pixel (x, y) with replicated borders.
__device__ __forceinline__ uchar4 fetch(const uchar4 *img, int w, int h, size_t pitchPx, int x, int y) {
    x = clampi(x, 0, w - 1);
    y = clampi(y, 0, h - 1);
    return img[(size_t)y * pitchPx + x];
}

__device__ float4 bilinear(const uchar4 *img, int w, int h, size_t pitchPx, float fx, float fy) {
    const float x = fx - 0.5f, y = fy - 0.5f; // pixel centres
    const int x0 = (int)floorf(x), y0 = (int)floorf(y);
    const float ax = x - x0, ay = y - y0;
    const float4 p00 = to_float4(fetch(img, w, h, pitchPx, x0, y0));
    const float4 p10 = to_float4(fetch(img, w, h, pitchPx, x0 + 1, y0));
    const float4 p01 = to_float4(fetch(img, w, h, pitchPx, x0, y0 + 1));
    const float4 p11 = to_float4(fetch(img, w, h, pitchPx, x0 + 1, y0 + 1));
    return lerp4(lerp4(p00, p10, ax), lerp4(p01, p11, ax), ay);
}

} // namespace cv_device

using namespace cv_device;

__global__ void rgbToRgba(const uchar3 *__restrict__ src, uchar4 *__restrict__ dst, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const uchar3 p = src[y * width + x];
    dst[y * width + x] = make_uchar4(p.x, p.y, p.z, 255);
}

__global__ void resizeBilinear(const uchar4 *__restrict__ src, int srcW, int srcH, uchar4 *__restrict__ dst,
                               int dstW, int dstH) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dstW || y >= dstH) return;
    const float sx = (float)srcW / dstW, sy = (float)srcH / dstH;
    const float4 v = bilinear(src, srcW, srcH, srcW, (x + 0.5f) * sx, (y + 0.5f) * sy);
    dst[y * dstW + x] = to_uchar4(v);
}

// The same resize through the texture unit (normalized coordinates,
// cudaReadModeNormalizedFloat: channels arrive in [0, 1]).
__global__ void resizeTexture(cudaTextureObject_t tex, uchar4 *dst, int dstW, int dstH) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dstW || y >= dstH) return;
    const float u = (x + 0.5f) / dstW, v = (y + 0.5f) / dstH;
    const float4 c = tex2D<float4>(tex, u, v);
    dst[y * dstW + x] = make_uchar4(__float2uint_rn(__saturatef(c.x) * 255.0f),
                                    __float2uint_rn(__saturatef(c.y) * 255.0f),
                                    __float2uint_rn(__saturatef(c.z) * 255.0f), 255);
}

// Separable filter, one pass per direction, taps from constant memory.
__global__ void filterRows(const uchar4 *__restrict__ src, float4 *__restrict__ dst, int w, int h, int radius) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
    for (int k = -radius; k <= radius; ++k) {
        const float4 p = to_float4(fetch(src, w, h, w, x + k, y));
        const float t = c_taps[k + radius];
        sum.x += t * p.x;
        sum.y += t * p.y;
        sum.z += t * p.z;
        sum.w += t * p.w;
    }
    dst[y * w + x] = sum;
}

__global__ void filterColumns(const float4 *__restrict__ src, uchar4 *__restrict__ dst, int w, int h, int radius) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int k = -radius; k <= radius; ++k) {
        const float4 p = src[clampi(y + k, 0, h - 1) * w + x];
        const float t = c_taps[k + radius];
        sum.x += t * p.x;
        sum.y += t * p.y;
        sum.z += t * p.z;
        sum.w += t * p.w;
    }
    dst[y * w + x] = to_uchar4(sum);
}

// Rec. 601 luma, normalized to [0, 1] and saturated.
__global__ void rgbaToGray(const uchar4 *__restrict__ src, float *__restrict__ gray, int n, float gain) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uchar4 p = src[i];
    gray[i] = __saturatef(gain * (0.299f * p.x + 0.587f * p.y + 0.114f * p.z) / 255.0f);
}

// ---------------------------------------------------------------- host --

static std::vector<float> gaussianTaps(int radius, float sigma) {
    std::vector<float> taps(2 * radius + 1);
    float sum = 0.f;
    for (int i = -radius; i <= radius; ++i) sum += taps[i + radius] = std::exp(-(i * i) / (2.f * sigma * sigma));
    for (auto &t : taps) t /= sum;
    return taps;
}

static inline dim3 gridFor(int w, int h, dim3 block) {
    return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

int main() {
    const int srcW = 320, srcH = 240, dstW = 200, dstH = 150;
    std::vector<uchar3> frame(srcW * srcH);
    for (int y = 0; y < srcH; ++y)
        for (int x = 0; x < srcW; ++x)
            frame[y * srcW + x] = make_uchar3((x * 255) / srcW, (y * 255) / srcH, ((x ^ y) & 0x3f) * 4);

    uchar3 *dFrame;
    uchar4 *dRgba, *dResized, *dResizedTex, *dBlur;
    float4 *dTmp;
    float *dGray;
    CV_CUDA_CHECK(cudaMalloc(&dFrame, srcW * srcH * sizeof(uchar3)));
    CV_CUDA_CHECK(cudaMalloc(&dRgba, srcW * srcH * sizeof(uchar4)));
    CV_CUDA_CHECK(cudaMalloc(&dResized, dstW * dstH * sizeof(uchar4)));
    CV_CUDA_CHECK(cudaMalloc(&dResizedTex, dstW * dstH * sizeof(uchar4)));
    CV_CUDA_CHECK(cudaMalloc(&dBlur, dstW * dstH * sizeof(uchar4)));
    CV_CUDA_CHECK(cudaMalloc(&dTmp, dstW * dstH * sizeof(float4)));
    CV_CUDA_CHECK(cudaMalloc(&dGray, dstW * dstH * sizeof(float)));
    CV_CUDA_CHECK(cudaMemcpy(dFrame, frame.data(), frame.size() * sizeof(uchar3), cudaMemcpyHostToDevice));

    const dim3 block(16, 16);
    rgbToRgba<<<gridFor(srcW, srcH, block), block>>>(dFrame, dRgba, srcW, srcH);
    resizeBilinear<<<gridFor(dstW, dstH, block), block>>>(dRgba, srcW, srcH, dResized, dstW, dstH);

    // texture path: copy the RGBA frame into an array and wrap it
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array;
    CV_CUDA_CHECK(cudaMallocArray(&array, &desc, srcW, srcH));
    CV_CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, dRgba, srcW * sizeof(uchar4), srcW * sizeof(uchar4), srcH,
                                      cudaMemcpyDeviceToDevice));
    cudaResourceDesc resDesc = {};
    resDesc.resType = cudaResourceTypeArray;
    resDesc.res.array.array = array;
    cudaTextureDesc texDesc = {};
    texDesc.addressMode[0] = cudaAddressModeClamp;
    texDesc.addressMode[1] = cudaAddressModeClamp;
    texDesc.filterMode = cudaFilterModeLinear;
    texDesc.readMode = cudaReadModeNormalizedFloat;
    texDesc.normalizedCoords = 1;
    cudaTextureObject_t tex = 0;
    CV_CUDA_CHECK(cudaCreateTextureObject(&tex, &resDesc, &texDesc, nullptr));
    resizeTexture<<<gridFor(dstW, dstH, block), block>>>(tex, dResizedTex, dstW, dstH);

    const int radius = 3;
    std::vector<float> taps = gaussianTaps(radius, 1.2f);
    CV_CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps.data(), taps.size() * sizeof(float)));
    filterRows<<<gridFor(dstW, dstH, block), block>>>(dResized, dTmp, dstW, dstH, radius);
    filterColumns<<<gridFor(dstW, dstH, block), block>>>(dTmp, dBlur, dstW, dstH, radius);
    rgbaToGray<<<(dstW * dstH + 255) / 256, 256>>>(dBlur, dGray, dstW * dstH, 1.1f);
    CV_CUDA_CHECK(cudaGetLastError());

    std::vector<uchar4> resized(dstW * dstH), resizedTex(dstW * dstH);
    std::vector<float> gray(dstW * dstH);
    CV_CUDA_CHECK(cudaMemcpy(resized.data(), dResized, resized.size() * sizeof(uchar4), cudaMemcpyDeviceToHost));
    CV_CUDA_CHECK(cudaMemcpy(resizedTex.data(), dResizedTex, resizedTex.size() * sizeof(uchar4),
                             cudaMemcpyDeviceToHost));
    CV_CUDA_CHECK(cudaMemcpy(gray.data(), dGray, gray.size() * sizeof(float), cudaMemcpyDeviceToHost));

    // The texture unit interpolates with 8-bit weights; allow a few levels.
    int worst = 0;
    for (size_t i = 0; i < resized.size(); ++i) {
        worst = std::max(worst, std::abs(resized[i].x - resizedTex[i].x));
        worst = std::max(worst, std::abs(resized[i].y - resizedTex[i].y));
        worst = std::max(worst, std::abs(resized[i].z - resizedTex[i].z));
    }
    double mean = 0.0;
    for (float g : gray) mean += g;
    mean /= gray.size();
    printf("bilinear vs texture: max difference %d levels; mean grey %.4f\n", worst, mean);

    cudaDestroyTextureObject(tex);
    cudaFreeArray(array);
    cudaFree(dFrame);
    cudaFree(dRgba);
    cudaFree(dResized);
    cudaFree(dResizedTex);
    cudaFree(dBlur);
    cudaFree(dTmp);
    cudaFree(dGray);
    const bool ok = worst <= 3 && mean > 0.0 && mean < 1.0;
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
