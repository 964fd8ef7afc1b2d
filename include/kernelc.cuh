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

// ---- wgmma and setmaxnreg (sm_90a) ---------------------------------------
// Compiled only for an architecture-specific target (`-arch=sm_90a`); the
// immediates (scales, transposes, counts) are template arguments so that
// the "n" constraints see constants. See docs/tensor-cores.md.
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
KC_INLINE void kernelc_wgmma_fence(void) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
KC_INLINE void kernelc_wgmma_commit(void) {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
#define kernelc_wgmma_wait(N) asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory")

template <int SA, int SB, int TA, int TB>
KC_INLINE void kc_wgmma_m64n64k16_f16(float *d, unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, %35, %36, %37, %38; }"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB)
                 : "memory");
}
#define kernelc_wgmma_m64n64k16_f32_f16(d, a, b, scale_d, sa, sb, ta, tb) \
    kc_wgmma_m64n64k16_f16<(sa), (sb), (ta), (tb)>(d, a, b, scale_d)
template <int SA, int SB, int TA, int TB>
KC_INLINE void kc_wgmma_m64n64k16_bf16(float *d, unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, %35, %36, %37, %38; }"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB)
                 : "memory");
}
#define kernelc_wgmma_m64n64k16_f32_bf16(d, a, b, scale_d, sa, sb, ta, tb) \
    kc_wgmma_m64n64k16_bf16<(sa), (sb), (ta), (tb)>(d, a, b, scale_d)
template <int SA, int SB, int TA, int TB>
KC_INLINE void kc_wgmma_m64n128k16_f16(float *d, unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "%64, %65, p, %67, %68, %69, %70; }"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB)
                 : "memory");
}
#define kernelc_wgmma_m64n128k16_f32_f16(d, a, b, scale_d, sa, sb, ta, tb) \
    kc_wgmma_m64n128k16_f16<(sa), (sb), (ta), (tb)>(d, a, b, scale_d)
template <int SA, int SB, int TA, int TB>
KC_INLINE void kc_wgmma_m64n128k16_bf16(float *d, unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "%64, %65, p, %67, %68, %69, %70; }"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB)
                 : "memory");
}
#define kernelc_wgmma_m64n128k16_f32_bf16(d, a, b, scale_d, sa, sb, ta, tb) \
    kc_wgmma_m64n128k16_bf16<(sa), (sb), (ta), (tb)>(d, a, b, scale_d)
template <int SA, int SB, int TA, int TB>
KC_INLINE void kc_wgmma_m64n256k16_f16(float *d, unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
                 "%128, %129, p, %131, %132, %133, %134; }"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                   "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                   "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(a), "l"(b), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB)
                 : "memory");
}
#define kernelc_wgmma_m64n256k16_f32_f16(d, a, b, scale_d, sa, sb, ta, tb) \
    kc_wgmma_m64n256k16_f16<(sa), (sb), (ta), (tb)>(d, a, b, scale_d)
template <int SA, int SB, int TA, int TB>
KC_INLINE void kc_wgmma_m64n256k16_bf16(float *d, unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
                 "%128, %129, p, %131, %132, %133, %134; }"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                   "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                   "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(a), "l"(b), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB)
                 : "memory");
}
#define kernelc_wgmma_m64n256k16_f32_bf16(d, a, b, scale_d, sa, sb, ta, tb) \
    kc_wgmma_m64n256k16_bf16<(sa), (sb), (ta), (tb)>(d, a, b, scale_d)
#endif
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)
#define kernelc_setmaxnreg_inc(N) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N))
#define kernelc_setmaxnreg_dec(N) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N))
#endif

// The start address, leading and stride byte offsets of a shared-memory
// matrix descriptor, each in 16-byte units in a 14-bit field.
KC_INLINE unsigned long long kc_desc_fields(const void *p, unsigned lbo, unsigned sbo) {
    unsigned long long a = kc_smem(p);
    return ((a >> 4) & 0x3FFFull) | ((unsigned long long)((lbo >> 4) & 0x3FFF) << 16) |
           ((unsigned long long)((sbo >> 4) & 0x3FFF) << 32);
}
// wgmma: the layout type in bits 62-63 (0 none, 1 128B, 2 64B, 3 32B).
KC_INLINE unsigned long long kernelc_wgmma_desc(const void *p, unsigned lbo, unsigned sbo, int swizzle) {
    unsigned long long code = swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : 0;
    return kc_desc_fields(p, lbo, sbo) | (code << 62);
}
// tcgen05: version 1 in bits 46-47, the layout type in bits 61-63
// (0 none, 2 128B, 4 64B, 6 32B).
KC_INLINE unsigned long long kernelc_tcgen05_smem_desc(const void *p, unsigned lbo, unsigned sbo, int swizzle) {
    unsigned long long code = swizzle == 128 ? 2 : swizzle == 64 ? 4 : swizzle == 32 ? 6 : 0;
    return kc_desc_fields(p, lbo, sbo) | (1ull << 46) | (code << 61);
}
// The tcgen05.mma instruction descriptor for f32 accumulation: D format
// (bits 4-5), A and B formats (7-9, 10-12), majorness (15, 16), N >> 3
// (17-22), M >> 4 (24-28). kernelc folds it at compile time.
KC_INLINE unsigned kc_idesc(unsigned ab, int m, int n, int a_mn, int b_mn) {
    return (1u << 4) | (ab << 7) | (ab << 10) | ((unsigned)a_mn << 15) | ((unsigned)b_mn << 16) |
           (((unsigned)n >> 3) << 17) | (((unsigned)m >> 4) << 24);
}
#define kernelc_tcgen05_idesc_f16(m, n, a_mn, b_mn) kc_idesc(0, m, n, a_mn, b_mn)
#define kernelc_tcgen05_idesc_bf16(m, n, a_mn, b_mn) kc_idesc(1, m, n, a_mn, b_mn)
#define kernelc_tcgen05_idesc_tf32(m, n, a_mn, b_mn) kc_idesc(2, m, n, a_mn, b_mn)

// ---- tcgen05 (sm_100a, sm_103a) -------------------------------------------
// A tensor-memory address is an unsigned: lane in the high 16 bits, column
// in the low 16.
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)
KC_INLINE void kernelc_tcgen05_alloc(unsigned *slot, unsigned ncols) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
                 ::"r"(kc_smem(slot)), "r"(ncols) : "memory");
}
KC_INLINE void kernelc_tcgen05_relinquish_alloc_permit(void) {
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}
KC_INLINE void kernelc_tcgen05_dealloc(unsigned taddr, unsigned ncols) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}
#define KC_TCGEN05_MMA(NAME, KIND)                                                     \
    KC_INLINE void NAME(unsigned d, unsigned long long a, unsigned long long b,         \
                        unsigned idesc, int accumulate) {                              \
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"                         \
                     "tcgen05.mma.cta_group::1.kind::" KIND " [%0], %1, %2, %3, p; }"   \
                     ::"r"(d), "l"(a), "l"(b), "r"(idesc), "r"(accumulate) : "memory"); \
    }
KC_TCGEN05_MMA(kernelc_tcgen05_mma_f16, "f16")
KC_TCGEN05_MMA(kernelc_tcgen05_mma_tf32, "tf32")
KC_INLINE void kernelc_tcgen05_commit(unsigned long long *bar) {
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 ::"r"(kc_smem(bar)) : "memory");
}
KC_INLINE void kernelc_tcgen05_wait_ld(void) {
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}
KC_INLINE void kernelc_tcgen05_wait_st(void) {
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
}
KC_INLINE void kernelc_tcgen05_fence_before_thread_sync(void) {
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
KC_INLINE void kernelc_tcgen05_fence_after_thread_sync(void) {
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}
#define KC_TCGEN05_CP(SHAPE)                                                           \
    KC_INLINE void kernelc_tcgen05_cp_##SHAPE(unsigned taddr, unsigned long long desc) { \
        asm volatile("tcgen05.cp.cta_group::1." #SHAPE " [%0], %1;"                      \
                     ::"r"(taddr), "l"(desc) : "memory");                              \
    }
KC_TCGEN05_CP(128x256b)
KC_TCGEN05_CP(128x128b)
KC_TCGEN05_CP(4x256b)
KC_INLINE void kernelc_tcgen05_ld_32x32b_x1(unsigned *f, unsigned taddr) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
                 : "=r"(f[0])
                 : "r"(taddr) : "memory");
}
KC_INLINE void kernelc_tcgen05_st_32x32b_x1(unsigned taddr, const unsigned *f) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};"
                 ::"r"(taddr), "r"(f[0])
                 : "memory");
}
KC_INLINE void kernelc_tcgen05_ld_32x32b_x2(unsigned *f, unsigned taddr) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%0, %1}, [%2];"
                 : "=r"(f[0]), "=r"(f[1])
                 : "r"(taddr) : "memory");
}
KC_INLINE void kernelc_tcgen05_st_32x32b_x2(unsigned taddr, const unsigned *f) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1, %2};"
                 ::"r"(taddr), "r"(f[0]), "r"(f[1])
                 : "memory");
}
KC_INLINE void kernelc_tcgen05_ld_32x32b_x4(unsigned *f, unsigned taddr) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3])
                 : "r"(taddr) : "memory");
}
KC_INLINE void kernelc_tcgen05_st_32x32b_x4(unsigned taddr, const unsigned *f) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};"
                 ::"r"(taddr), "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3])
                 : "memory");
}
KC_INLINE void kernelc_tcgen05_ld_32x32b_x8(unsigned *f, unsigned taddr) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3]), "=r"(f[4]), "=r"(f[5]), "=r"(f[6]), "=r"(f[7])
                 : "r"(taddr) : "memory");
}
KC_INLINE void kernelc_tcgen05_st_32x32b_x8(unsigned taddr, const unsigned *f) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 ::"r"(taddr), "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]), "r"(f[4]), "r"(f[5]), "r"(f[6]), "r"(f[7])
                 : "memory");
}
KC_INLINE void kernelc_tcgen05_ld_32x32b_x16(unsigned *f, unsigned taddr) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%16];"
                 : "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3]), "=r"(f[4]), "=r"(f[5]), "=r"(f[6]), "=r"(f[7]),
                   "=r"(f[8]), "=r"(f[9]), "=r"(f[10]), "=r"(f[11]), "=r"(f[12]), "=r"(f[13]), "=r"(f[14]), "=r"(f[15])
                 : "r"(taddr) : "memory");
}
KC_INLINE void kernelc_tcgen05_st_32x32b_x16(unsigned taddr, const unsigned *f) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16};"
                 ::"r"(taddr), "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]), "r"(f[4]), "r"(f[5]), "r"(f[6]), "r"(f[7]),
                   "r"(f[8]), "r"(f[9]), "r"(f[10]), "r"(f[11]), "r"(f[12]), "r"(f[13]), "r"(f[14]), "r"(f[15])
                 : "memory");
}
KC_INLINE void kernelc_tcgen05_ld_32x32b_x32(unsigned *f, unsigned taddr) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
                 : "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3]), "=r"(f[4]), "=r"(f[5]), "=r"(f[6]), "=r"(f[7]),
                   "=r"(f[8]), "=r"(f[9]), "=r"(f[10]), "=r"(f[11]), "=r"(f[12]), "=r"(f[13]), "=r"(f[14]), "=r"(f[15]),
                   "=r"(f[16]), "=r"(f[17]), "=r"(f[18]), "=r"(f[19]), "=r"(f[20]), "=r"(f[21]), "=r"(f[22]), "=r"(f[23]),
                   "=r"(f[24]), "=r"(f[25]), "=r"(f[26]), "=r"(f[27]), "=r"(f[28]), "=r"(f[29]), "=r"(f[30]), "=r"(f[31])
                 : "r"(taddr) : "memory");
}
KC_INLINE void kernelc_tcgen05_st_32x32b_x32(unsigned taddr, const unsigned *f) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32};"
                 ::"r"(taddr), "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]), "r"(f[4]), "r"(f[5]), "r"(f[6]), "r"(f[7]),
                   "r"(f[8]), "r"(f[9]), "r"(f[10]), "r"(f[11]), "r"(f[12]), "r"(f[13]), "r"(f[14]), "r"(f[15]),
                   "r"(f[16]), "r"(f[17]), "r"(f[18]), "r"(f[19]), "r"(f[20]), "r"(f[21]), "r"(f[22]), "r"(f[23]),
                   "r"(f[24]), "r"(f[25]), "r"(f[26]), "r"(f[27]), "r"(f[28]), "r"(f[29]), "r"(f[30]), "r"(f[31])
                 : "memory");
}
#endif
