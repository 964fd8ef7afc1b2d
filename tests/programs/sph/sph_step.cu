// nvcc-flags: -I tests/programs/sph/include
// Smoothed-particle hydrodynamics in the style of the CUDA particles
// sample: particles are hashed to a uniform grid (__umul24 cell hashes),
// sorted by hash on the host, cell start/end found in shared memory, then
// density, pressure and viscosity forces are summed over the 27
// neighbouring cells and the particles integrated with damped walls.
// Vector arithmetic comes from a helper_math.h-style header under -I.

#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <numeric>

#include "sph_params.h"

#define checkCuda(val) check((val), #val, __FILE__, __LINE__)
static void check(cudaError_t result, char const *const func, const char *const file, int const line) {
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line, static_cast<unsigned int>(result),
                cudaGetErrorName(result), func);
        exit(EXIT_FAILURE);
    }
}

__constant__ SimParams params;

// calculate position in uniform grid
__device__ int3 calcGridPos(float3 p) {
    int3 gridPos;
    gridPos.x = floorf((p.x - params.worldOrigin.x) / params.cellSize.x);
    gridPos.y = floorf((p.y - params.worldOrigin.y) / params.cellSize.y);
    gridPos.z = floorf((p.z - params.worldOrigin.z) / params.cellSize.z);
    return gridPos;
}

// calculate address in grid from position (clamping to edges)
__device__ uint calcGridHash(int3 gridPos) {
    gridPos.x = gridPos.x & (params.gridSize.x - 1); // wrap grid, assumes size is power of 2
    gridPos.y = gridPos.y & (params.gridSize.y - 1);
    gridPos.z = gridPos.z & (params.gridSize.z - 1);
    return __umul24(__umul24(gridPos.z, params.gridSize.y), params.gridSize.x) +
           __umul24(gridPos.y, params.gridSize.x) + gridPos.x;
}

__global__ void calcHashD(uint *gridParticleHash, uint *gridParticleIndex, const float4 *pos, uint numParticles) {
    uint index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (index >= numParticles) return;

    volatile float4 p = pos[index];
    int3 gridPos = calcGridPos(make_float3(p.x, p.y, p.z));
    uint hash = calcGridHash(gridPos);

    gridParticleHash[index] = hash;
    gridParticleIndex[index] = index;
}

// Finds the first and last particle of each cell in the sorted hash list
// and reorders positions and velocities into sorted order.
__global__ void reorderDataAndFindCellStartD(uint *cellStart, uint *cellEnd, float4 *sortedPos, float4 *sortedVel,
                                             const uint *gridParticleHash, const uint *gridParticleIndex,
                                             const float4 *oldPos, const float4 *oldVel, uint numParticles) {
    extern __shared__ uint sharedHash[]; // blockSize + 1 elements
    uint index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;

    uint hash;
    if (index < numParticles) {
        hash = gridParticleHash[index];
        sharedHash[threadIdx.x + 1] = hash;
        if (index > 0 && threadIdx.x == 0) {
            sharedHash[0] = gridParticleHash[index - 1];
        }
    }

    __syncthreads();

    if (index < numParticles) {
        if (index == 0 || hash != sharedHash[threadIdx.x]) {
            cellStart[hash] = index;
            if (index > 0) cellEnd[sharedHash[threadIdx.x]] = index;
        }
        if (index == numParticles - 1) {
            cellEnd[hash] = index + 1;
        }

        uint sortedIndex = gridParticleIndex[index];
        sortedPos[index] = oldPos[sortedIndex];
        sortedVel[index] = oldVel[sortedIndex];
    }
}

__device__ float poly6(float r2) {
    float h2 = params.smoothingRadius * params.smoothingRadius;
    if (r2 >= h2) return 0.0f;
    float d = h2 - r2;
    return params.poly6Coeff * d * d * d;
}

__device__ float densityInCell(int3 gridPos, float3 pos, const float4 *sortedPos, const uint *cellStart,
                               const uint *cellEnd) {
    uint gridHash = calcGridHash(gridPos);
    uint startIndex = cellStart[gridHash];
    float sum = 0.0f;
    if (startIndex != 0xffffffff) {
        uint endIndex = cellEnd[gridHash];
        for (uint j = startIndex; j < endIndex; j++) {
            float3 d = pos - make_float3(sortedPos[j]);
            sum += poly6(dot(d, d));
        }
    }
    return sum;
}

__global__ void computeDensityD(float *density, float *pressure, const float4 *sortedPos, const uint *cellStart,
                                const uint *cellEnd, uint numParticles) {
    uint index = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (index >= numParticles) return;

    float3 pos = make_float3(sortedPos[index]);
    int3 gridPos = calcGridPos(pos);

    float rho = 0.0f;
    for (int z = -1; z <= 1; z++)
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++)
                rho += densityInCell(gridPos + make_int3(x, y, z), pos, sortedPos, cellStart, cellEnd);

    rho *= params.particleMass;
    density[index] = rho;
    pressure[index] = params.gasStiffness * fmaxf(rho - params.restDensity, 0.0f);
}

__global__ void computeForceD(float4 *force, const float4 *sortedPos, const float4 *sortedVel, const float *density,
                              const float *pressure, const uint *cellStart, const uint *cellEnd, uint numParticles) {
    uint index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (index >= numParticles) return;

    float3 pos = make_float3(sortedPos[index]);
    float3 vel = make_float3(sortedVel[index]);
    float rho_i = density[index];
    float p_i = pressure[index];
    int3 gridPos = calcGridPos(pos);
    float h = params.smoothingRadius;

    float3 f = make_float3(0.0f);
    for (int z = -1; z <= 1; z++) {
        for (int y = -1; y <= 1; y++) {
            for (int x = -1; x <= 1; x++) {
                uint gridHash = calcGridHash(gridPos + make_int3(x, y, z));
                uint startIndex = cellStart[gridHash];
                if (startIndex == 0xffffffff) continue;
                uint endIndex = cellEnd[gridHash];
                for (uint j = startIndex; j < endIndex; j++) {
                    if (j == index) continue;
                    float3 rel = pos - make_float3(sortedPos[j]);
                    float r = length(rel);
                    if (r >= h || r < 1e-6f) continue;
                    float rho_j = density[j];
                    float diff = h - r;
                    // pressure: symmetric spiky gradient
                    float3 dir = normalize(rel);
                    f += dir * (-params.particleMass * (p_i + pressure[j]) / (2.0f * rho_j) * params.spikyGradCoeff *
                                diff * diff);
                    // viscosity: laplacian of the viscosity kernel
                    float3 dv = make_float3(sortedVel[j]) - vel;
                    f += dv * (params.viscosity * params.particleMass / rho_j * params.viscLapCoeff * diff);
                }
            }
        }
    }
    force[index] = make_float4(f / fmaxf(rho_i, 1e-6f), 0.0f);
}

__global__ void integrateD(float4 *pos, float4 *vel, const float4 *force, const uint *gridParticleIndex, float deltaTime,
                           uint numParticles) {
    uint index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (index >= numParticles) return;

    // forces were computed in sorted order; write back in original order
    uint original = gridParticleIndex[index];
    float4 p4 = pos[original];
    float3 p = make_float3(p4);
    float3 v = make_float3(vel[original]);
    float3 a = make_float3(force[index]) + params.gravity;

    v += a * deltaTime;
    p += v * deltaTime;

    float3 lo = params.worldOrigin + 0.5f * params.smoothingRadius;
    float3 hi = params.worldOrigin + make_float3(params.gridSize.x * params.cellSize.x,
                                                 params.gridSize.y * params.cellSize.y,
                                                 params.gridSize.z * params.cellSize.z) -
                0.5f * params.smoothingRadius;
    float3 clamped = clamp(p, lo, hi);
    if (clamped.x != p.x) v.x *= -params.boundaryDamping;
    if (clamped.y != p.y) v.y *= -params.boundaryDamping;
    if (clamped.z != p.z) v.z *= -params.boundaryDamping;
    p = lerp(p, clamped, 1.0f);

    pos[original] = make_float4(p, p4.w);
    vel[original] = make_float4(v, 0.0f);
}

// Kinetic energy per block, for the host to watch the simulation settle.
__global__ void kineticEnergyD(float *blockEnergy, const float4 *vel, uint numParticles) {
    __shared__ float partial[SPH_BLOCK];
    uint index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    float3 v = index < numParticles ? make_float3(vel[index]) : make_float3(0.0f);
    partial[threadIdx.x] = 0.5f * params.particleMass * dot(v, v);
    __syncthreads();
    for (uint s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) blockEnergy[blockIdx.x] = partial[0];
}

// ---------------------------------------------------------------- host --

static uint iDivUp(uint a, uint b) { return (a % b != 0) ? (a / b + 1) : (a / b); }

int main(int argc, char **argv) {
    uint numParticles = argc > 1 ? atoi(argv[1]) : 4096;
    int steps = argc > 2 ? atoi(argv[2]) : 20;

    SimParams h;
    const float pi = 3.14159265358979f;
    h.smoothingRadius = 1.0f / 32.0f;
    h.gridSize = make_uint3(32, 32, 32);
    h.numCells = h.gridSize.x * h.gridSize.y * h.gridSize.z;
    h.worldOrigin = make_float3(-1.0f);
    h.cellSize = make_float3(2.0f * h.smoothingRadius * 2.0f);
    h.gravity = make_float3(0.0f, -9.8f, 0.0f);
    h.particleMass = 0.02f;
    h.restDensity = 1000.0f;
    h.gasStiffness = 3.0f;
    h.viscosity = 0.25f;
    h.boundaryDamping = 0.5f;
    float h9 = powf(h.smoothingRadius, 9.0f), h6 = powf(h.smoothingRadius, 6.0f);
    h.poly6Coeff = 315.0f / (64.0f * pi * h9);
    h.spikyGradCoeff = -45.0f / (pi * h6);
    h.viscLapCoeff = 45.0f / (pi * h6);
    checkCuda(cudaMemcpyToSymbol(params, &h, sizeof(SimParams)));

    std::vector<float4> hPos(numParticles), hVel(numParticles, make_float4(0.0f));
    srand(1973);
    uint side = (uint)ceilf(cbrtf((float)numParticles));
    for (uint i = 0; i < numParticles; ++i) {
        float3 cell = make_float3(float(i % side), float((i / side) % side), float(i / (side * side)));
        float3 jitter = make_float3(rand() / (float)RAND_MAX, rand() / (float)RAND_MAX, rand() / (float)RAND_MAX);
        hPos[i] = make_float4(cell * h.smoothingRadius * 0.9f + jitter * 0.001f - 0.3f, 1.0f);
    }

    float4 *dPos, *dVel, *dSortedPos, *dSortedVel, *dForce;
    uint *dHash, *dIndex, *dCellStart, *dCellEnd;
    float *dDensity, *dPressure, *dEnergy;
    size_t f4 = numParticles * sizeof(float4);
    checkCuda(cudaMalloc(&dPos, f4));
    checkCuda(cudaMalloc(&dVel, f4));
    checkCuda(cudaMalloc(&dSortedPos, f4));
    checkCuda(cudaMalloc(&dSortedVel, f4));
    checkCuda(cudaMalloc(&dForce, f4));
    checkCuda(cudaMalloc(&dHash, numParticles * sizeof(uint)));
    checkCuda(cudaMalloc(&dIndex, numParticles * sizeof(uint)));
    checkCuda(cudaMalloc(&dCellStart, h.numCells * sizeof(uint)));
    checkCuda(cudaMalloc(&dCellEnd, h.numCells * sizeof(uint)));
    checkCuda(cudaMalloc(&dDensity, numParticles * sizeof(float)));
    checkCuda(cudaMalloc(&dPressure, numParticles * sizeof(float)));
    uint numBlocks = iDivUp(numParticles, SPH_BLOCK);
    checkCuda(cudaMalloc(&dEnergy, numBlocks * sizeof(float)));
    checkCuda(cudaMemcpy(dPos, hPos.data(), f4, cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dVel, hVel.data(), f4, cudaMemcpyHostToDevice));

    std::vector<uint> hHash(numParticles), hIndex(numParticles);
    std::vector<float> energy(numBlocks);
    for (int step = 0; step < steps; ++step) {
        calcHashD<<<numBlocks, SPH_BLOCK>>>(dHash, dIndex, dPos, numParticles);
        checkCuda(cudaGetLastError());

        // sort particles by hash on the host (the sample uses thrust)
        checkCuda(cudaMemcpy(hHash.data(), dHash, numParticles * sizeof(uint), cudaMemcpyDeviceToHost));
        std::iota(hIndex.begin(), hIndex.end(), 0u);
        std::stable_sort(hIndex.begin(), hIndex.end(), [&](uint a, uint b) { return hHash[a] < hHash[b]; });
        std::vector<uint> sortedHash(numParticles);
        for (uint i = 0; i < numParticles; ++i) sortedHash[i] = hHash[hIndex[i]];
        checkCuda(cudaMemcpy(dHash, sortedHash.data(), numParticles * sizeof(uint), cudaMemcpyHostToDevice));
        checkCuda(cudaMemcpy(dIndex, hIndex.data(), numParticles * sizeof(uint), cudaMemcpyHostToDevice));

        checkCuda(cudaMemset(dCellStart, 0xffffffff, h.numCells * sizeof(uint)));
        reorderDataAndFindCellStartD<<<numBlocks, SPH_BLOCK, (SPH_BLOCK + 1) * sizeof(uint)>>>(
            dCellStart, dCellEnd, dSortedPos, dSortedVel, dHash, dIndex, dPos, dVel, numParticles);
        computeDensityD<<<numBlocks, SPH_BLOCK>>>(dDensity, dPressure, dSortedPos, dCellStart, dCellEnd, numParticles);
        computeForceD<<<numBlocks, SPH_BLOCK>>>(dForce, dSortedPos, dSortedVel, dDensity, dPressure, dCellStart,
                                                dCellEnd, numParticles);
        integrateD<<<numBlocks, SPH_BLOCK>>>(dPos, dVel, dForce, dIndex, 0.0005f, numParticles);
        kineticEnergyD<<<numBlocks, SPH_BLOCK>>>(dEnergy, dVel, numParticles);
        checkCuda(cudaMemcpy(energy.data(), dEnergy, numBlocks * sizeof(float), cudaMemcpyDeviceToHost));
        float total = std::accumulate(energy.begin(), energy.end(), 0.0f);
        if (step % 5 == 0) printf("step %3d  kinetic energy %.6e\n", step, total);
    }

    checkCuda(cudaMemcpy(hPos.data(), dPos, f4, cudaMemcpyDeviceToHost));
    bool finite = std::all_of(hPos.begin(), hPos.end(), [](float4 p) {
        return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
    });

    cudaFree(dPos); cudaFree(dVel); cudaFree(dSortedPos); cudaFree(dSortedVel); cudaFree(dForce);
    cudaFree(dHash); cudaFree(dIndex); cudaFree(dCellStart); cudaFree(dCellEnd);
    cudaFree(dDensity); cudaFree(dPressure); cudaFree(dEnergy);
    printf("%s\n", finite ? "Test passed" : "Test failed");
    return finite ? EXIT_SUCCESS : EXIT_FAILURE;
}
