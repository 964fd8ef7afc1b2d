// test compile sm_80
// `__umulhi(K, x)` and `__mulhi(K, x)` with the constant first (Philox
// rounds are written so): the 64-bit product `K * ext(x)` commutes, and its
// high half is one `mul.hi` with an immediate, as with the constant second.
// Multiplying the other way round was a `cvt.u64`, a `mul.lo.s64`, a shift
// and a `cvt`. Results: `mulhi_operand_orders_agree` in tests/lang.rs.
extern "C" __global__ void hi(unsigned *u, int *s) {
  unsigned a = u[0];
  int b = s[0];
  u[1] = __umulhi(0xD2511F53u, a);
  s[1] = __mulhi(-12345, b);
}
// check: .entry hi(
// not: mul.lo.s64
// check: mul.hi.u32 %r3, %r1, 3528531795;
// check: mul.hi.s32 %r4, %r2, -12345;
// not: shr
// check: ret;
