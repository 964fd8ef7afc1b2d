// A 3-D grid of floats with a one-cell halo on every side, stored
// x-fastest, and the coefficients of a 7-point stencil. Found through
// -I tests/programs/stencil3d/include.
#pragma once

#include <cstddef>
#include <cuda_runtime.h>

namespace stencil {

struct Extent {
  int nx, ny, nz; // interior size

  __host__ __device__ constexpr int pitchX() const { return nx + 2; }
  __host__ __device__ constexpr int pitchXY() const { return (nx + 2) * (ny + 2); }
  __host__ __device__ constexpr size_t cells() const { return (size_t)pitchXY() * (nz + 2); }
  // Index of interior cell (x, y, z), each in [-1, n] (the halo included).
  __host__ __device__ constexpr size_t at(int x, int y, int z) const {
    return (size_t)(z + 1) * pitchXY() + (size_t)(y + 1) * pitchX() + (x + 1);
  }
};

struct Coefficients {
  float center;
  float neighbour;
};

} // namespace stencil
