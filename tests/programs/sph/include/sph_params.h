// Simulation parameters shared between the host and the kernels: a struct
// copied once into __constant__ memory.
#ifndef SPH_PARAMS_H
#define SPH_PARAMS_H

#include "sph_math.h"

struct SimParams {
    float3 gravity;
    float3 worldOrigin;
    float3 cellSize;
    uint3 gridSize;
    uint numCells;

    float smoothingRadius; // h
    float particleMass;
    float restDensity;
    float gasStiffness;
    float viscosity;
    float boundaryDamping;

    float poly6Coeff;      // 315 / (64 pi h^9)
    float spikyGradCoeff;  // -45 / (pi h^6)
    float viscLapCoeff;    // 45 / (pi h^6)
};

#define SPH_BLOCK 128

#endif
