// kernelc.cuh: kernelc's tensor-core and async-copy built-ins for nvcc.
//
// kernelc knows these functions itself and ignores this header. nvcc does
// not, so here each one is a one-instruction inline-PTX function with the
// same name and signature, and a kernel that includes this header builds
// with both compilers:
//
//     nvcc -ptx -arch=sm_80 -I include kernel.cu
//
// A fragment is a local array passed by pointer (`unsigned a[8]`). 16-bit
// floats are `unsigned short` bit patterns. See docs/tensor-cores.md for
// every function, its PTX instruction and the minimum target.
#pragma once

#define KC_INLINE static __device__ __forceinline__

/// The 32-bit shared-memory address of a generic pointer, as cp.async,
/// mbarrier, ldmatrix and stmatrix take it.
KC_INLINE unsigned kc_smem(const void *p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

// ---- cp.async (sm_80) --------------------------------------------------
#define KC_CP_ASYNC(NAME, CACHE, SIZE)                                              \
    KC_INLINE void NAME(void *smem, const void *gmem) {                             \
        asm volatile("cp.async." CACHE ".shared.global [%0], [%1], " #SIZE ";"      \
                     ::"r"(kc_smem(smem)), "l"(gmem) : "memory");                   \
    }
KC_CP_ASYNC(kernelc_cp_async_ca_4, "ca", 4)
KC_CP_ASYNC(kernelc_cp_async_ca_8, "ca", 8)
KC_CP_ASYNC(kernelc_cp_async_ca_16, "ca", 16)
KC_CP_ASYNC(kernelc_cp_async_cg_16, "cg", 16)

KC_INLINE void kernelc_cp_async_commit(void) {
    asm volatile("cp.async.commit_group;" ::: "memory");
}
// The count must be a constant (PTX takes an immediate): a macro keeps it one.
#define kernelc_cp_async_wait(N) asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory")
KC_INLINE void kernelc_cp_async_wait_all(void) {
    asm volatile("cp.async.wait_all;" ::: "memory");
}

// ---- mbarrier (sm_80; expect_tx and try_wait.parity sm_90) ---------------
KC_INLINE void kernelc_mbarrier_init(unsigned long long *bar, unsigned count) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(kc_smem(bar)), "r"(count) : "memory");
}
KC_INLINE unsigned long long kernelc_mbarrier_arrive(unsigned long long *bar) {
    unsigned long long token;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(token) : "r"(kc_smem(bar)) : "memory");
    return token;
}
KC_INLINE int kernelc_mbarrier_test_wait(unsigned long long *bar, unsigned long long token) {
    unsigned done;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(kc_smem(bar)), "l"(token) : "memory");
    return (int)done;
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
KC_INLINE unsigned long long kernelc_mbarrier_arrive_expect_tx(unsigned long long *bar, unsigned bytes) {
    unsigned long long token;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(token) : "r"(kc_smem(bar)), "r"(bytes) : "memory");
    return token;
}
KC_INLINE int kernelc_mbarrier_try_wait_parity(unsigned long long *bar, unsigned parity) {
    unsigned done;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(kc_smem(bar)), "r"(parity) : "memory");
    return (int)done;
}
KC_INLINE void kernelc_fence_proxy_async(void) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
#endif

// ---- WMMA m16n16k16 (f16: sm_75; bf16: sm_80) ---------------------------
// A and B: 8 registers for f16, 4 for bf16. C and D: 8 floats.
#define KC_R8(f) "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3]), "=r"(f[4]), "=r"(f[5]), "=r"(f[6]), "=r"(f[7])
#define KC_R4(f) "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3])
#define KC_F8(f) "=f"(f[0]), "=f"(f[1]), "=f"(f[2]), "=f"(f[3]), "=f"(f[4]), "=f"(f[5]), "=f"(f[6]), "=f"(f[7])
#define KC_V8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define KC_V4 "{%0, %1, %2, %3}"

#define KC_WMMA_LOAD8(NAME, FRAG, LAYOUT, TY)                                          \
    KC_INLINE void NAME(unsigned *f, const unsigned short *p, unsigned ldm) {           \
        asm volatile("wmma.load." FRAG ".sync.aligned." LAYOUT ".m16n16k16" TY " " KC_V8 \
                     ", [%8], %9;" : KC_R8(f) : "l"(p), "r"(ldm) : "memory");          \
    }
#define KC_WMMA_LOAD4(NAME, FRAG, LAYOUT, TY)                                          \
    KC_INLINE void NAME(unsigned *f, const unsigned short *p, unsigned ldm) {           \
        asm volatile("wmma.load." FRAG ".sync.aligned." LAYOUT ".m16n16k16" TY " " KC_V4 \
                     ", [%4], %5;" : KC_R4(f) : "l"(p), "r"(ldm) : "memory");          \
    }
KC_WMMA_LOAD8(kernelc_wmma_load_a_f16_row, "a", "row", ".f16")
KC_WMMA_LOAD8(kernelc_wmma_load_a_f16_col, "a", "col", ".f16")
KC_WMMA_LOAD8(kernelc_wmma_load_b_f16_row, "b", "row", ".f16")
KC_WMMA_LOAD8(kernelc_wmma_load_b_f16_col, "b", "col", ".f16")
KC_WMMA_LOAD4(kernelc_wmma_load_a_bf16_row, "a", "row", ".bf16")
KC_WMMA_LOAD4(kernelc_wmma_load_a_bf16_col, "a", "col", ".bf16")
KC_WMMA_LOAD4(kernelc_wmma_load_b_bf16_row, "b", "row", ".bf16")
KC_WMMA_LOAD4(kernelc_wmma_load_b_bf16_col, "b", "col", ".bf16")

#define KC_WMMA_LOAD_C(NAME, LAYOUT)                                                   \
    KC_INLINE void NAME(float *f, const float *p, unsigned ldm) {                       \
        asm volatile("wmma.load.c.sync.aligned." LAYOUT ".m16n16k16.f32 " KC_V8          \
                     ", [%8], %9;" : KC_F8(f) : "l"(p), "r"(ldm) : "memory");          \
    }
KC_WMMA_LOAD_C(kernelc_wmma_load_c_f32_row, "row")
KC_WMMA_LOAD_C(kernelc_wmma_load_c_f32_col, "col")

#define KC_WMMA_STORE(NAME, LAYOUT)                                                    \
    KC_INLINE void NAME(float *p, const float *d, unsigned ldm) {                       \
        asm volatile("wmma.store.d.sync.aligned." LAYOUT ".m16n16k16.f32 [%0], "        \
                     "{%1, %2, %3, %4, %5, %6, %7, %8}, %9;" ::"l"(p),                  \
                     "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]), "f"(d[4]), "f"(d[5]),   \
                     "f"(d[6]), "f"(d[7]), "r"(ldm) : "memory");                        \
    }
KC_WMMA_STORE(kernelc_wmma_store_d_f32_row, "row")
KC_WMMA_STORE(kernelc_wmma_store_d_f32_col, "col")

#define KC_IN8(f) "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]), "r"(f[4]), "r"(f[5]), "r"(f[6]), "r"(f[7])
#define KC_IN4(f) "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3])
#define KC_INF8(f) "f"(f[0]), "f"(f[1]), "f"(f[2]), "f"(f[3]), "f"(f[4]), "f"(f[5]), "f"(f[6]), "f"(f[7])

#define KC_WMMA_MMA_F16(NAME, AL, BL)                                                  \
    KC_INLINE void NAME(float *d, const unsigned *a, const unsigned *b, const float *c) { \
        asm volatile("wmma.mma.sync.aligned." AL "." BL ".m16n16k16.f32.f32 " KC_V8     \
                     ", {%8, %9, %10, %11, %12, %13, %14, %15}"                         \
                     ", {%16, %17, %18, %19, %20, %21, %22, %23}"                       \
                     ", {%24, %25, %26, %27, %28, %29, %30, %31};"                      \
                     : KC_F8(d) : KC_IN8(a), KC_IN8(b), KC_INF8(c));                    \
    }
KC_WMMA_MMA_F16(kernelc_wmma_mma_f16_row_col, "row", "col")
KC_WMMA_MMA_F16(kernelc_wmma_mma_f16_row_row, "row", "row")
KC_WMMA_MMA_F16(kernelc_wmma_mma_f16_col_col, "col", "col")
KC_WMMA_MMA_F16(kernelc_wmma_mma_f16_col_row, "col", "row")

#define KC_WMMA_MMA_BF16(NAME, AL, BL)                                                 \
    KC_INLINE void NAME(float *d, const unsigned *a, const unsigned *b, const float *c) { \
        asm volatile("wmma.mma.sync.aligned." AL "." BL ".m16n16k16.f32.bf16.bf16.f32 "  \
                     KC_V8 ", {%8, %9, %10, %11}, {%12, %13, %14, %15}"                 \
                     ", {%16, %17, %18, %19, %20, %21, %22, %23};"                      \
                     : KC_F8(d) : KC_IN4(a), KC_IN4(b), KC_INF8(c));                    \
    }
KC_WMMA_MMA_BF16(kernelc_wmma_mma_bf16_row_col, "row", "col")
KC_WMMA_MMA_BF16(kernelc_wmma_mma_bf16_row_row, "row", "row")
KC_WMMA_MMA_BF16(kernelc_wmma_mma_bf16_col_col, "col", "col")
KC_WMMA_MMA_BF16(kernelc_wmma_mma_bf16_col_row, "col", "row")

// ---- mma.sync m16n8k16 (sm_80) -----------------------------------------
#define KC_MMA(NAME, TY)                                                               \
    KC_INLINE void NAME(float *d, const unsigned *a, const unsigned *b, const float *c) { \
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32" TY TY ".f32 "              \
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};" \
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                   \
                     : KC_IN4(a), "r"(b[0]), "r"(b[1]),                                 \
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));                    \
    }
KC_MMA(kernelc_mma_m16n8k16_f16, ".f16")
KC_MMA(kernelc_mma_m16n8k16_bf16, ".bf16")

// ---- ldmatrix (sm_75) and stmatrix (sm_90) --------------------------------
#define KC_LDMATRIX(NAME, TRANS)                                                       \
    KC_INLINE void NAME##_x1(unsigned *f, const void *s) {                              \
        asm volatile("ldmatrix.sync.aligned.m8n8.x1" TRANS ".shared.b16 {%0}, [%1];"     \
                     : "=r"(f[0]) : "r"(kc_smem(s)) : "memory");                        \
    }                                                                                  \
    KC_INLINE void NAME##_x2(unsigned *f, const void *s) {                              \
        asm volatile("ldmatrix.sync.aligned.m8n8.x2" TRANS ".shared.b16 {%0, %1}, [%2];" \
                     : "=r"(f[0]), "=r"(f[1]) : "r"(kc_smem(s)) : "memory");            \
    }                                                                                  \
    KC_INLINE void NAME##_x4(unsigned *f, const void *s) {                              \
        asm volatile("ldmatrix.sync.aligned.m8n8.x4" TRANS ".shared.b16 " KC_V4 ", [%4];" \
                     : KC_R4(f) : "r"(kc_smem(s)) : "memory");                          \
    }
KC_LDMATRIX(kernelc_ldmatrix, "")
#define kernelc_ldmatrix_x1_trans kc_ldmatrix_trans_x1
#define kernelc_ldmatrix_x2_trans kc_ldmatrix_trans_x2
#define kernelc_ldmatrix_x4_trans kc_ldmatrix_trans_x4
KC_LDMATRIX(kc_ldmatrix_trans, ".trans")

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define KC_STMATRIX(NAME, TRANS)                                                       \
    KC_INLINE void NAME##_x1(void *s, const unsigned *f) {                              \
        asm volatile("stmatrix.sync.aligned.m8n8.x1" TRANS ".shared.b16 [%0], {%1};"     \
                     ::"r"(kc_smem(s)), "r"(f[0]) : "memory");                          \
    }                                                                                  \
    KC_INLINE void NAME##_x2(void *s, const unsigned *f) {                              \
        asm volatile("stmatrix.sync.aligned.m8n8.x2" TRANS ".shared.b16 [%0], {%1, %2};" \
                     ::"r"(kc_smem(s)), "r"(f[0]), "r"(f[1]) : "memory");               \
    }                                                                                  \
    KC_INLINE void NAME##_x4(void *s, const unsigned *f) {                              \
        asm volatile("stmatrix.sync.aligned.m8n8.x4" TRANS ".shared.b16 [%0], "          \
                     "{%1, %2, %3, %4};" ::"r"(kc_smem(s)), KC_IN4(f) : "memory");       \
    }
KC_STMATRIX(kernelc_stmatrix, "")
#define kernelc_stmatrix_x1_trans kc_stmatrix_trans_x1
#define kernelc_stmatrix_x2_trans kc_stmatrix_trans_x2
#define kernelc_stmatrix_x4_trans kc_stmatrix_trans_x4
KC_STMATRIX(kc_stmatrix_trans, ".trans")
#endif

// ---- Hopper: TMA and thread-block clusters (sm_90) ------------------------
// CUDA's tensor map (cuda.h): 128 opaque bytes that the host encodes with
// cuTensorMapEncodeTiled and passes as `const __grid_constant__ CUtensorMap`.
#if !defined(__cuda_cuda_h__) && !defined(KC_HAVE_CUTENSORMAP)
#define KC_HAVE_CUTENSORMAP
typedef struct __align__(64) CUtensorMap_st {
    unsigned long long opaque[16];
} CUtensorMap;
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// TMA load: the box at the coordinates into shared memory; the mbarrier
// counts its bytes down. TMA store: the inverse, in a bulk group.
#define KC_COMMA ,
#define KC_TMA(RANK, COORDS_DECL, COORDS_PTX, COORDS_IN)                                  \
    KC_INLINE void kernelc_tma_load_##RANK(void *smem, const CUtensorMap *map,            \
                                           unsigned long long *bar COORDS_DECL) {         \
        asm volatile("cp.async.bulk.tensor." #RANK ".shared::cluster.global"              \
                     ".mbarrier::complete_tx::bytes [%0], [%1, {" COORDS_PTX "}], [%2];"   \
                     ::"r"(kc_smem(smem)), "l"(map), "r"(kc_smem(bar)) COORDS_IN          \
                     : "memory");                                                         \
    }                                                                                     \
    KC_INLINE void kernelc_tma_store_##RANK(const CUtensorMap *map,                       \
                                            const void *smem COORDS_DECL) {               \
        asm volatile("cp.async.bulk.tensor." #RANK ".global.shared::cta.bulk_group"       \
                     " [%1, {" COORDS_PTX "}], [%0];"                                      \
                     ::"r"(kc_smem(smem)), "l"(map), "r"(0) COORDS_IN : "memory");        \
    }
// Operands %0-%2 are taken by the addresses; the coordinates follow.
KC_TMA(1d, KC_COMMA int c0, "%3", KC_COMMA "r"(c0))
KC_TMA(2d, KC_COMMA int c0 KC_COMMA int c1, "%3, %4", KC_COMMA "r"(c0) KC_COMMA "r"(c1))
KC_TMA(3d, KC_COMMA int c0 KC_COMMA int c1 KC_COMMA int c2, "%3, %4, %5",
       KC_COMMA "r"(c0) KC_COMMA "r"(c1) KC_COMMA "r"(c2))
KC_TMA(4d, KC_COMMA int c0 KC_COMMA int c1 KC_COMMA int c2 KC_COMMA int c3, "%3, %4, %5, %6",
       KC_COMMA "r"(c0) KC_COMMA "r"(c1) KC_COMMA "r"(c2) KC_COMMA "r"(c3))
KC_TMA(5d, KC_COMMA int c0 KC_COMMA int c1 KC_COMMA int c2 KC_COMMA int c3 KC_COMMA int c4,
       "%3, %4, %5, %6, %7",
       KC_COMMA "r"(c0) KC_COMMA "r"(c1) KC_COMMA "r"(c2) KC_COMMA "r"(c3) KC_COMMA "r"(c4))

KC_INLINE void kernelc_cp_async_bulk_commit(void) {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
#define kernelc_cp_async_bulk_wait(N) \
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory")
#define kernelc_cp_async_bulk_wait_read(N) \
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory")

// Distributed shared memory: the same variable in the block of the
// cluster with this rank (generic in, generic out).
KC_INLINE void *kernelc_mapa(void *p, unsigned rank) {
    void *r;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank));
    return r;
}
KC_INLINE void kernelc_cluster_arrive(void) {
    asm volatile("barrier.cluster.arrive.release;" ::: "memory");
}
KC_INLINE void kernelc_cluster_arrive_relaxed(void) {
    asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
}
KC_INLINE void kernelc_cluster_wait(void) {
    asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
}
#define KC_SREG(NAME, REG)                                                 \
    KC_INLINE unsigned NAME(void) {                                         \
        unsigned v;                                                         \
        asm volatile("mov.u32 %0, %%" REG ";" : "=r"(v));                   \
        return v;                                                           \
    }
KC_SREG(kernelc_cluster_ctarank, "cluster_ctarank")
KC_SREG(kernelc_cluster_nctarank, "cluster_nctarank")
KC_SREG(kernelc_clusterid_x, "clusterid.x")
KC_SREG(kernelc_clusterid_y, "clusterid.y")
KC_SREG(kernelc_clusterid_z, "clusterid.z")
KC_SREG(kernelc_nclusterid_x, "nclusterid.x")
KC_SREG(kernelc_nclusterid_y, "nclusterid.y")
KC_SREG(kernelc_nclusterid_z, "nclusterid.z")
KC_SREG(kernelc_cluster_ctaid_x, "cluster_ctaid.x")
KC_SREG(kernelc_cluster_ctaid_y, "cluster_ctaid.y")
KC_SREG(kernelc_cluster_ctaid_z, "cluster_ctaid.z")
KC_SREG(kernelc_cluster_nctaid_x, "cluster_nctaid.x")
KC_SREG(kernelc_cluster_nctaid_y, "cluster_nctaid.y")
KC_SREG(kernelc_cluster_nctaid_z, "cluster_nctaid.z")
#endif
