// kernelc's <curand_kernel.h>: cuRAND's device API for the XORWOW and
// Philox4x32-10 generators, written for kernelc from cuRAND's documented
// behaviour and the published algorithms (Marsaglia's xorwow, "Xorshift
// RNGs", 2003; Salmon et al.'s Philox4x32-10, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011). States, draws and uniform values have the
// bits NVIDIA's header gives; normal values are those of kernelc's logf,
// log and sincospi (within 2 ulp of NVIDIA's). tests/curand.rs compares
// them on the PTX emulator.
//
// kernelc compiles this text as it compiles a program's own header
// (frontend/src/curand.rs adds the one generated table); each function is
// `static`, so one that no kernel calls leaves nothing in the PTX.
#pragma once

// The types and names are NVIDIA's, so kernels taking a state pointer have
// nvcc's mangled names (`P17curandStateXORWOW`, `P24curandStatePhilox4_32_10`).
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef curandStateXORWOW_t curandState_t;
typedef curandState_t curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

// The other generators are cuRAND's, not kernelc's: naming one is a
// located error that says so.
#pragma kernelc unsupported curandStateMRG32k3a curandStateMRG32k3a_t "cuRAND's MRG32k3a generator"
#pragma kernelc unsupported curandStateMtgp32 curandStateMtgp32_t mtgp32_kernel_params mtgp32_kernel_params_t curand_mtgp32_single curand_mtgp32_specific curand_mtgp32_single_specific curandMakeMTGP32Constants curandMakeMTGP32KernelState "cuRAND's MTGP32 generator"
#pragma kernelc unsupported curandStateSobol32 curandStateSobol32_t curandStateScrambledSobol32 curandStateScrambledSobol32_t curandStateSobol64 curandStateSobol64_t curandStateScrambledSobol64 curandStateScrambledSobol64_t curandDirectionVectors32_t curandDirectionVectors64_t "cuRAND's Sobol generators"
#pragma kernelc unsupported curand_log_normal curand_log_normal2 curand_log_normal4 curand_log_normal_double curand_log_normal2_double curand_log_normal4_double "cuRAND's log-normal distribution"
#pragma kernelc unsupported curand_poisson curand_poisson4 curand_discrete curand_discrete4 curandDiscreteDistribution_t curandDiscreteDistribution_st "cuRAND's Poisson and discrete distributions"

// Scales from 32 and 53 random bits to (0, 1]: a draw x becomes
// x * 2^-32 + 2^-33, never 0 (and 1 only by rounding).
#define __KERNELC_CURAND_2POW32_INV 0x1p-32f
#define __KERNELC_CURAND_2POW32_INV_2PI 0x1.921fb6p-30f
#define __KERNELC_CURAND_2POW53_INV 0x1p-53
#define __KERNELC_CURAND_2POW32_INV_DOUBLE 0x1p-32

// Box-Muller's flag: the second value of the last pair is waiting.
#define __KERNELC_CURAND_EXTRA_NORMAL 1

// ---------------------------------------------------------------------
// Shared conversions.

static __forceinline__ __device__ float __kernelc_curand_unit(unsigned int x) {
  return x * __KERNELC_CURAND_2POW32_INV + (__KERNELC_CURAND_2POW32_INV / 2.0f);
}

static __forceinline__ __device__ double __kernelc_curand_unit_double(unsigned int x,
                                                                      unsigned int y) {
  unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
  return z * __KERNELC_CURAND_2POW53_INV + (__KERNELC_CURAND_2POW53_INV / 2.0);
}

// Box-Muller: two uniform draws become two independent normal values.
static __forceinline__ __device__ float2 __kernelc_curand_box_muller(unsigned int x,
                                                                     unsigned int y) {
  float u = x * __KERNELC_CURAND_2POW32_INV + (__KERNELC_CURAND_2POW32_INV / 2.0f);
  float v = y * __KERNELC_CURAND_2POW32_INV_2PI + (__KERNELC_CURAND_2POW32_INV_2PI / 2.0f);
  float s = sqrtf(-2.0f * logf(u));
  float sn, cs;
  __sincosf(v, &sn, &cs);
  return make_float2(sn * s, cs * s);
}

static __forceinline__ __device__ double2 __kernelc_curand_box_muller_double(
    unsigned int x0, unsigned int x1, unsigned int y0, unsigned int y1) {
  unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << (53 - 32));
  double u = zx * __KERNELC_CURAND_2POW53_INV + (__KERNELC_CURAND_2POW53_INV / 2.0);
  unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << (53 - 32));
  double v = zy * (__KERNELC_CURAND_2POW53_INV * 2.0) + __KERNELC_CURAND_2POW53_INV;
  double s = sqrt(-2.0 * log(u));
  double sn, cs;
  sincospi(v, &sn, &cs);
  return make_double2(sn * s, cs * s);
}

// ---------------------------------------------------------------------
// XORWOW: a 160-bit xorshift (v) plus a Weyl sequence (d, step 362437).

static __forceinline__ __device__ unsigned int curand(curandStateXORWOW_t *state) {
  unsigned int t = state->v[0] ^ (state->v[0] >> 2);
  state->v[0] = state->v[1];
  state->v[1] = state->v[2];
  state->v[2] = state->v[3];
  state->v[3] = state->v[4];
  state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
  state->d += 362437;
  return state->v[4] + state->d;
}

// x^(2^i) modulo the xorshift's characteristic polynomial, for i in
// 0..=130, as 160 coefficients (bit j of word j/32 is that of x^j):
// generated by frontend/src/curand.rs when the header is first included.
__KERNELC_XORWOW_JUMPS__

// v becomes p(A) v, where A is one xorshift step and p one of the
// polynomials above: the sum of A^j v over p's coefficients, which is
// A^k v for p = x^k mod the characteristic polynomial (Cayley-Hamilton).
static __forceinline__ __device__ void __kernelc_xorwow_jump(curandStateXORWOW_t *state,
                                                             int power) {
  unsigned int w0 = state->v[0], w1 = state->v[1], w2 = state->v[2], w3 = state->v[3],
               w4 = state->v[4];
  unsigned int a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0;
  for (int word = 0; word < 5; word++) {
    unsigned int bits = __kernelc_xorwow_jumps[power][word];
    for (int b = 0; b < 32; b++) {
      if (bits & 1) {
        a0 ^= w0;
        a1 ^= w1;
        a2 ^= w2;
        a3 ^= w3;
        a4 ^= w4;
      }
      bits >>= 1;
      unsigned int t = w0 ^ (w0 >> 2);
      w0 = w1;
      w1 = w2;
      w2 = w3;
      w3 = w4;
      w4 = (w4 ^ (w4 << 4)) ^ (t ^ (t << 1));
    }
  }
  state->v[0] = a0;
  state->v[1] = a1;
  state->v[2] = a2;
  state->v[3] = a3;
  state->v[4] = a4;
}

// n draws ahead: the xorshift by A^n, one jump per bit of n, and the Weyl
// sequence by n steps.
static __forceinline__ __device__ void skipahead(unsigned long long n,
                                                 curandStateXORWOW_t *state) {
  state->d += 362437 * (unsigned int)n;
  for (int i = 0; n != 0; i++, n >>= 1) {
    if (n & 1)
      __kernelc_xorwow_jump(state, i);
  }
}

// n subsequences ahead: a subsequence is 2^67 draws (the Weyl sequence
// comes back to where it was: 362437 * 2^67 is 0 modulo 2^32).
static __forceinline__ __device__ void skipahead_sequence(unsigned long long n,
                                                          curandStateXORWOW_t *state) {
  for (int i = 67; n != 0; i++, n >>= 1) {
    if (n & 1)
      __kernelc_xorwow_jump(state, i);
  }
}

static __forceinline__ __device__ void curand_init(unsigned long long seed,
                                                   unsigned long long subsequence,
                                                   unsigned long long offset,
                                                   curandStateXORWOW_t *state) {
  // The seed's halves, salted and mixed, fill the state.
  unsigned int s0 = (unsigned int)seed ^ 0xaad26b49U;
  unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddU;
  unsigned int t0 = 1099087573U * s0;
  unsigned int t1 = 2591861531U * s1;
  state->d = 6615241U + t1 + t0;
  state->v[0] = 123456789U + t0;
  state->v[1] = 362436069U ^ t0;
  state->v[2] = 521288629U + t1;
  state->v[3] = 88675123U ^ t1;
  state->v[4] = 5783321U + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
}

static __forceinline__ __device__ float curand_uniform(curandStateXORWOW_t *state) {
  return __kernelc_curand_unit(curand(state));
}

static __forceinline__ __device__ double curand_uniform_double(curandStateXORWOW_t *state) {
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  return __kernelc_curand_unit_double(x, y);
}

static __forceinline__ __device__ float2 curand_normal2(curandStateXORWOW_t *state) {
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  return __kernelc_curand_box_muller(x, y);
}

// One value of a Box-Muller pair; the other is kept for the next call.
static __forceinline__ __device__ float curand_normal(curandStateXORWOW_t *state) {
  if (state->boxmuller_flag != __KERNELC_CURAND_EXTRA_NORMAL) {
    float2 r = curand_normal2(state);
    state->boxmuller_extra = r.y;
    state->boxmuller_flag = __KERNELC_CURAND_EXTRA_NORMAL;
    return r.x;
  }
  state->boxmuller_flag = 0;
  return state->boxmuller_extra;
}

static __forceinline__ __device__ double2 curand_normal2_double(curandStateXORWOW_t *state) {
  unsigned int x0 = curand(state);
  unsigned int x1 = curand(state);
  unsigned int y0 = curand(state);
  unsigned int y1 = curand(state);
  return __kernelc_curand_box_muller_double(x0, x1, y0, y1);
}

static __forceinline__ __device__ double curand_normal_double(curandStateXORWOW_t *state) {
  if (state->boxmuller_flag_double != __KERNELC_CURAND_EXTRA_NORMAL) {
    double2 r = curand_normal2_double(state);
    state->boxmuller_extra_double = r.y;
    state->boxmuller_flag_double = __KERNELC_CURAND_EXTRA_NORMAL;
    return r.x;
  }
  state->boxmuller_flag_double = 0;
  return state->boxmuller_extra_double;
}

// ---------------------------------------------------------------------
// Philox4x32-10: a counter (ctr) enciphered under the seed (key); each
// counter gives four draws (output), handed out in turn (STATE).

static __forceinline__ __device__ uint4 __kernelc_philox_round(uint4 ctr, uint2 key) {
  unsigned int hi0 = __umulhi(0xD2511F53U, ctr.x);
  unsigned int lo0 = 0xD2511F53U * ctr.x;
  unsigned int hi1 = __umulhi(0xCD9E8D57U, ctr.z);
  unsigned int lo1 = 0xCD9E8D57U * ctr.z;
  return make_uint4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
}

// Ten rounds, the key bumped by the Weyl constants between them.
static __forceinline__ __device__ uint4 __kernelc_philox4x32_10(uint4 ctr, uint2 key) {
  for (int round = 0; round < 9; round++) {
    ctr = __kernelc_philox_round(ctr, key);
    key.x += 0x9E3779B9U;
    key.y += 0xBB67AE85U;
  }
  return __kernelc_philox_round(ctr, key);
}

// The 128-bit counter plus one.
static __forceinline__ __device__ void __kernelc_philox_next(curandStatePhilox4_32_10_t *state) {
  if (++state->ctr.x)
    return;
  if (++state->ctr.y)
    return;
  if (++state->ctr.z)
    return;
  ++state->ctr.w;
}

// The counter plus n (its low 64 bits, carrying into the high ones).
static __forceinline__ __device__ void __kernelc_philox_add(curandStatePhilox4_32_10_t *state,
                                                            unsigned long long n) {
  unsigned int lo = (unsigned int)n;
  unsigned int hi = (unsigned int)(n >> 32);
  state->ctr.x += lo;
  if (state->ctr.x < lo)
    hi++;
  state->ctr.y += hi;
  if (hi <= state->ctr.y)
    return;
  if (++state->ctr.z)
    return;
  ++state->ctr.w;
}

// The counter's high 64 bits plus n: a subsequence is 2^64 counters.
static __forceinline__ __device__ void __kernelc_philox_add_high(
    curandStatePhilox4_32_10_t *state, unsigned long long n) {
  unsigned int lo = (unsigned int)n;
  unsigned int hi = (unsigned int)(n >> 32);
  state->ctr.z += lo;
  if (state->ctr.z < lo)
    hi++;
  state->ctr.w += hi;
}

static __forceinline__ __device__ void skipahead(unsigned long long n,
                                                 curandStatePhilox4_32_10_t *state) {
  state->STATE += (unsigned int)(n & 3);
  n /= 4;
  if (state->STATE > 3) {
    n += 1;
    state->STATE -= 4;
  }
  __kernelc_philox_add(state, n);
  state->output = __kernelc_philox4x32_10(state->ctr, state->key);
}

static __forceinline__ __device__ void skipahead_sequence(unsigned long long n,
                                                          curandStatePhilox4_32_10_t *state) {
  __kernelc_philox_add_high(state, n);
  state->output = __kernelc_philox4x32_10(state->ctr, state->key);
}

static __forceinline__ __device__ void curand_init(unsigned long long seed,
                                                   unsigned long long subsequence,
                                                   unsigned long long offset,
                                                   curandStatePhilox4_32_10_t *state) {
  state->ctr = make_uint4(0, 0, 0, 0);
  state->key.x = (unsigned int)seed;
  state->key.y = (unsigned int)(seed >> 32);
  state->STATE = 0;
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}

static __forceinline__ __device__ unsigned int curand(curandStatePhilox4_32_10_t *state) {
  unsigned int r;
  switch (state->STATE++) {
  case 1:
    r = state->output.y;
    break;
  case 2:
    r = state->output.z;
    break;
  case 3:
    r = state->output.w;
    break;
  default:
    r = state->output.x;
    break;
  }
  if (state->STATE == 4) {
    __kernelc_philox_next(state);
    state->output = __kernelc_philox4x32_10(state->ctr, state->key);
    state->STATE = 0;
  }
  return r;
}

// The next four draws, whatever the position in the current block.
static __forceinline__ __device__ uint4 curand4(curandStatePhilox4_32_10_t *state) {
  uint4 now = state->output;
  __kernelc_philox_next(state);
  state->output = __kernelc_philox4x32_10(state->ctr, state->key);
  uint4 next = state->output;
  switch (state->STATE) {
  case 1:
    return make_uint4(now.y, now.z, now.w, next.x);
  case 2:
    return make_uint4(now.z, now.w, next.x, next.y);
  case 3:
    return make_uint4(now.w, next.x, next.y, next.z);
  default:
    return now;
  }
}

static __forceinline__ __device__ float curand_uniform(curandStatePhilox4_32_10_t *state) {
  return __kernelc_curand_unit(curand(state));
}

static __forceinline__ __device__ float4 curand_uniform4(curandStatePhilox4_32_10_t *state) {
  uint4 x = curand4(state);
  return make_float4(__kernelc_curand_unit(x.x), __kernelc_curand_unit(x.y),
                     __kernelc_curand_unit(x.z), __kernelc_curand_unit(x.w));
}

// One draw (32 random bits) per double, unlike XORWOW's two: (x + 1) / 2^32.
static __forceinline__ __device__ double curand_uniform_double(
    curandStatePhilox4_32_10_t *state) {
  return curand(state) * __KERNELC_CURAND_2POW32_INV_DOUBLE + __KERNELC_CURAND_2POW32_INV_DOUBLE;
}

static __forceinline__ __device__ double2 curand_uniform2_double(
    curandStatePhilox4_32_10_t *state) {
  uint4 x = curand4(state);
  return make_double2(__kernelc_curand_unit_double(x.x, x.y),
                      __kernelc_curand_unit_double(x.z, x.w));
}

static __forceinline__ __device__ float2 curand_normal2(curandStatePhilox4_32_10_t *state) {
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  return __kernelc_curand_box_muller(x, y);
}

static __forceinline__ __device__ float curand_normal(curandStatePhilox4_32_10_t *state) {
  if (state->boxmuller_flag != __KERNELC_CURAND_EXTRA_NORMAL) {
    float2 r = curand_normal2(state);
    state->boxmuller_extra = r.y;
    state->boxmuller_flag = __KERNELC_CURAND_EXTRA_NORMAL;
    return r.x;
  }
  state->boxmuller_flag = 0;
  return state->boxmuller_extra;
}

static __forceinline__ __device__ float4 curand_normal4(curandStatePhilox4_32_10_t *state) {
  uint4 x = curand4(state);
  float2 a = __kernelc_curand_box_muller(x.x, x.y);
  float2 b = __kernelc_curand_box_muller(x.z, x.w);
  return make_float4(a.x, a.y, b.x, b.y);
}

static __forceinline__ __device__ double2 curand_normal2_double(
    curandStatePhilox4_32_10_t *state) {
  uint4 x = curand4(state);
  return __kernelc_curand_box_muller_double(x.x, x.y, x.z, x.w);
}

static __forceinline__ __device__ double curand_normal_double(
    curandStatePhilox4_32_10_t *state) {
  if (state->boxmuller_flag_double != __KERNELC_CURAND_EXTRA_NORMAL) {
    double2 r = curand_normal2_double(state);
    state->boxmuller_extra_double = r.y;
    state->boxmuller_flag_double = __KERNELC_CURAND_EXTRA_NORMAL;
    return r.x;
  }
  state->boxmuller_flag_double = 0;
  return state->boxmuller_extra_double;
}
