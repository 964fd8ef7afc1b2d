// test compile sm_90
// Memory-space inference on source: kernel pointers copied into locals,
// moved in a loop, chosen by a select, and passed to __device__ helpers are
// all proved global, so the kernel has no generic load or store and the
// helpers are called through their `__global` clones.
__device__ __noinline__ float load_at(const float* p, int i) { return p[i]; }
__device__ __noinline__ void bump(float* p, float v) { *p += v; }

__global__ void locals(float* a, float* b, int n) {
    int i = threadIdx.x;
    float* p = a;
    float* q = n > 0 ? a : b;
    for (int k = 0; k < n; k++) {
        p = p + 1;
    }
    float s = load_at(p, i) + load_at(b, i);
    q[i] = s;
    bump(q + 1, 2.0f);
    a = a + 2;
    *a = s;
}

// check: .func (.param .b32 func_retval0) _Z7load_atPKfi(
// check: ld.global.f32
// check: .func _Z4bumpPff(
// check: ld.global.f32
// check: st.global.f32
// check: .visible .entry _Z6localsPfS_i(
// not: ld.f32
// not: st.f32
// not: cvta.global
// check: call.uni (retval0), _Z7load_atPKfi, (param0, param1);
