// <cuda_pipeline.h> (and <cuda_pipeline_primitives.h>) for kernelc: the
// pipeline primitives over kernelc's `cp.async` built-ins
// (docs/tensor-cores.md). A copy of 4, 8 or 16 bytes is one `cp.async`; one
// that zero-fills its tail (`zfill` > 0) is done with plain loads and stores
// before the call returns, which every wait then finds complete.
#pragma once

#pragma kernelc unsupported __pipeline_arrive_on "the pipeline primitives' arrivals on an mbarrier"

__device__ __forceinline__ void __pipeline_memcpy_async(void *dst, const void *src,
                                                        unsigned long long size_and_align,
                                                        unsigned long long zfill = 0) {
  if (zfill == 0 && size_and_align == 16) {
    kernelc_cp_async_cg_16(dst, src);
  } else if (zfill == 0 && size_and_align == 8) {
    kernelc_cp_async_ca_8(dst, src);
  } else if (zfill == 0 && size_and_align == 4) {
    kernelc_cp_async_ca_4(dst, src);
  } else {
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    for (unsigned long long i = 0; i < size_and_align; ++i) d[i] = i + zfill < size_and_align ? s[i] : 0;
  }
}

__device__ __forceinline__ void __pipeline_commit() { kernelc_cp_async_commit(); }

// Waits until at most `prior` of this thread's commit groups are in flight.
// `cp.async.wait_group` takes a constant: up to 7 exactly, past that 7
// (waiting for more groups than asked is never wrong).
__device__ __forceinline__ void __pipeline_wait_prior(unsigned long long prior) {
  switch (prior) {
    case 0: kernelc_cp_async_wait(0); break;
    case 1: kernelc_cp_async_wait(1); break;
    case 2: kernelc_cp_async_wait(2); break;
    case 3: kernelc_cp_async_wait(3); break;
    case 4: kernelc_cp_async_wait(4); break;
    case 5: kernelc_cp_async_wait(5); break;
    case 6: kernelc_cp_async_wait(6); break;
    default: kernelc_cp_async_wait(7); break;
  }
}
