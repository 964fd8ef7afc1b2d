// Layered surfaces with results computed by hand in tests/texture.rs: one
// block per layer of a 4x2 int array and of a 4-element uchar2 array.
// Each thread reads its element, its right neighbour in zero mode (0 past
// the row) and the element two to its right in clamp mode (the last of the
// row past it), then writes a new value in its layer and one past the row
// in zero mode (dropped).
__global__ void layers(int *out, cudaSurfaceObject_t s2, cudaSurfaceObject_t s1) {
  const int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
  const int at = (layer * 2 + y) * 4 + x;
  const int v = surf2DLayeredread<int>(s2, 4 * x, y, layer);
  const int right = surf2DLayeredread<int>(s2, 4 * (x + 1), y, layer, cudaBoundaryModeZero);
  int clamped;
  surf2DLayeredread(&clamped, s2, 4 * (x + 2), y, layer, cudaBoundaryModeClamp);
  const uchar2 c = surf1DLayeredread<uchar2>(s1, 2 * x, layer);
  __syncthreads();
  out[at] = v;
  out[24 + at] = right;
  out[48 + at] = clamped;
  surf2DLayeredwrite(v * 10 + layer, s2, 4 * x, y, layer);
  surf2DLayeredwrite(-1, s2, 4 * (x + 4), y, layer, cudaBoundaryModeZero);
  if (y == 0) surf1DLayeredwrite(make_uchar2(c.y, c.x + layer), s1, 2 * x, layer);
}
