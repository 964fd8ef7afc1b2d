/* The two passes of one speckle-reducing diffusion step. Written in the
   C style of older benchmark suites: declarations first, `register`
   locals, macros for indexing; the driver includes this file. */
#include "srad.h"

__global__ void
srad_cuda_1(real_t *E_C, real_t *W_C, real_t *N_C, real_t *S_C,
            real_t *J_cuda, real_t *C_cuda, int cols, int rows, real_t q0sqr)
{
  register int bx, by, tx, ty;
  int r, c, k;
  real_t n, s, w, e, jc, g2, l, num, den, qsqr, cval;

  bx = blockIdx.x; by = blockIdx.y;
  tx = threadIdx.x; ty = threadIdx.y;
  r = by * BLOCK_SIZE + ty;
  c = bx * BLOCK_SIZE + tx;
  if (r >= rows || c >= cols)
    return;
  k = IDX(r, c, cols);

  jc = J_cuda[k];
  n = J_cuda[IDX(r > 0 ? r - 1 : 0, c, cols)] - jc;
  s = J_cuda[IDX(r < rows - 1 ? r + 1 : rows - 1, c, cols)] - jc;
  w = J_cuda[IDX(r, c > 0 ? c - 1 : 0, cols)] - jc;
  e = J_cuda[IDX(r, c < cols - 1 ? c + 1 : cols - 1, cols)] - jc;

  g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  l = (n + s + w + e) / jc;
  num = (real_t)0.5 * g2 - ((real_t)1.0 / (real_t)16.0) * (l * l);
  den = 1 + (real_t).25 * l;
  qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
  cval = (real_t)1.0 / ((real_t)1.0 + den);
  if (cval < 0) cval = 0;
  else if (cval > 1) cval = 1;

  C_cuda[k] = cval;
  N_C[k] = n; S_C[k] = s; W_C[k] = w; E_C[k] = e;
}

__global__ void
srad_cuda_2(real_t *E_C, real_t *W_C, real_t *N_C, real_t *S_C,
            real_t *J_cuda, real_t *C_cuda, int cols, int rows, real_t lambda)
{
  int r, c, k;
  real_t cn, cs, cw, ce, d;

  r = blockIdx.y * BLOCK_SIZE + threadIdx.y;
  c = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (r >= rows || c >= cols)
    goto done;
  k = IDX(r, c, cols);

  cn = C_cuda[k];
  cs = C_cuda[IDX(r < rows - 1 ? r + 1 : rows - 1, c, cols)];
  cw = C_cuda[k];
  ce = C_cuda[IDX(r, c < cols - 1 ? c + 1 : cols - 1, cols)];
  d = cn * N_C[k] + cs * S_C[k] + cw * W_C[k] + ce * E_C[k];
  J_cuda[k] = J_cuda[k] + (real_t)0.25 * lambda * d;
done:
  ;
}
