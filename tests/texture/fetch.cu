// Texture fetches and surface accesses with results computed by hand in
// tests/texture.rs: point sampling with clamping, an integer fetch outside
// the array, surface reads in zero mode, and vector surface writes.
__global__ void fetches(float *out, int *iout, cudaTextureObject_t ft, cudaTextureObject_t it,
                        cudaSurfaceObject_t s) {
  int i = threadIdx.x;
  out[i] = tex2D<float>(ft, i * 0.5f, 0.5f);
  out[8 + i] = tex2D<float>(ft, i * 0.5f - 1.0f, 7.0f);
  iout[i] = tex1Dfetch<int>(it, i - 2);
  int word = surf2Dread<int>(s, 4 * (i - 2), 0, cudaBoundaryModeZero);
  uchar4 v = surf2Dread<uchar4>(s, 4 * (i % 4), i / 4);
  __syncthreads();
  iout[8 + i] = word;
  surf2Dwrite(make_uchar4(v.w, v.z, v.y, v.x), s, 4 * (i % 4), i / 4);
}
