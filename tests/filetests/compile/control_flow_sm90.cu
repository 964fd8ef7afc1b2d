// test compile sm_90
// Loops of every kind, break and continue, short-circuit conditions, the
// ternary operator and device-function calls, including recursion.
__device__ int fact(int n)
{
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}

__device__ __noinline__ bool is_even(unsigned v) { return (v & 1u) == 0; }

extern "C" __global__ void flow(int* out, int n)
{
    int acc = 0;
    for (int i = 0; i < n; i++) {
        if (i % 3 == 0)
            continue;
        if (acc > 1000 && i > 10 || acc < -1000)
            break;
        acc += is_even(i) ? i : -i;
    }
    int k = 0;
    do {
        k += 2;
        if (k == 6)
            continue;
        if (k > 10)
            break;
    } while (k < 20);
    while (k > 0)
        k -= 3;
    bool b = !(acc < -5);
    if (b)
        acc++;
    else
        --acc;
    out[threadIdx.x] = acc + k + fact(5);
}

// check: .func (.param .b32 func_retval0) _Z4facti(
// check: call.uni (retval0), _Z4facti, (param0);
// check: .func (.param .b8 func_retval0) _Z7is_evenj(
// check: .visible .entry flow(
// check: mul.hi.s32
// check: call.uni (retval0), _Z7is_evenj, (param0);
// check: call.uni (retval0), _Z4facti, (param0);
// check: st.global.u32
