__global__ void k(float* o, int* oi, cudaTextureObject_t t, cudaSurfaceObject_t s, float x, float y, float z, int i) {
  o[0] = tex1Dfetch<float>(t, i);
  oi[0] = tex1Dfetch<int>(t, i);
  oi[1] = tex1Dfetch<unsigned int>(t, i);
  float4 f4 = tex1Dfetch<float4>(t, i); o[1] = f4.w;
  o[2] = tex1D<float>(t, x);
  o[3] = tex2D<float>(t, x, y);
  o[4] = tex3D<float>(t, x, y, z);
  o[5] = tex1DLayered<float>(t, x, i);
  o[6] = tex2DLayered<float>(t, x, y, i);
  o[7] = tex2DLod<float>(t, x, y, z);
  o[8] = tex2DGrad<float>(t, x, y, make_float2(x,y), make_float2(z,z));
  uchar4 u4 = tex2D<uchar4>(t, x, y); oi[2] = u4.x;
  float2 f2 = tex2D<float2>(t, x, y); o[9] = f2.y;
  short sh = tex2D<short>(t, x, y); oi[3] = sh;
  char c = tex1Dfetch<char>(t, i); oi[4] = c;
  unsigned char uc = tex1Dfetch<unsigned char>(t, i); oi[5] = uc;
  oi[6] = tex2D<int>(t, x, y);
  float v = surf2Dread<float>(s, i*4, i);
  surf2Dwrite(v, s, i*4, i);
  int iv; surf1Dread(&iv, s, i); surf1Dwrite(iv+1, s, i);
  uchar4 q = surf2Dread<uchar4>(s, i*4, i, cudaBoundaryModeClamp);
  surf2Dwrite(q, s, i*4, i, cudaBoundaryModeZero);
  float4 w = surf3Dread<float4>(s, i*16, i, i);
  surf3Dwrite(w, s, i*16, i, i);
  short2 s2 = surf1Dread<short2>(s, i*4); surf1Dwrite(s2, s, i*4);
  char c1 = surf1Dread<char>(s, i); surf1Dwrite(c1, s, i);
  float2 ff = surf1Dread<float2>(s, i*8); surf1Dwrite(ff, s, i*8);
}
