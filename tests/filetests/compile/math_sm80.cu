// test compile sm_80
// The math library (docs/math.md): exact instructions where they exist,
// the .approx ones otherwise; expf splits x*log2e with fma; tanhf is a
// polynomial or the expf formula; double sqrt/fabs/floor/fma.
__global__ void m(const float *x, float *o, double *d) {
  int t = threadIdx.x;
  float v = x[t];
  o[0] = sqrtf(v) + rsqrtf(v) + expf(v) + exp2f(v) + logf(v) + log2f(v);
  o[1] = sinf(v) + cosf(v) + tanhf(v) + powf(v, 2.5f) + fabsf(v);
  o[2] = fminf(v, 1.0f) + fmaxf(v, 2.0f) + floorf(v) + ceilf(v) + truncf(v) + roundf(v);
  o[3] = fmaf(v, v, 1.0f) + __expf(v) + __logf(v) + __sinf(v) + __cosf(v) + __powf(v, 3.0f);
  o[4] = __fdividef(v, 3.0f) + sqrt(v) + exp(v);
  d[0] = sqrt(d[1]) + fabs(d[2]) + fmin(d[3], d[4]) + fmax(d[3], d[4]) + floor(d[5]) +
         ceil(d[5]) + trunc(d[5]) + round(d[5]) + fma(d[1], d[2], d[3]);
}
// check: sqrt.rn.f32
// check: rsqrt.approx.f32
// check: ex2.approx.f32
// check: lg2.approx.f32
// check: sin.approx.f32
// check: cos.approx.f32
// check: div.approx.f32
// check: sqrt.rn.f64
// check: cvt.rmi.f64.f64
