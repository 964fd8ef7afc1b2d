// test compile sm_75
// A volatile access that memory-space inference proves local. ptxas wants
// PTX ISA 9.1 for `ld.volatile.local`/`st.volatile.local` on every target,
// so the access goes through the generic window (`cvta.local`, then a
// generic volatile access) under the target's own `.version`, still once
// per access in the source.
extern "C" __global__ void k(int *o)
{
    int x;
    volatile int *p = &x;
    *p = o[1];
    o[0] = *p;
}

// check: .version 6.3
// not: volatile.local
// check: cvta.local.u64 %rd4, $local_ss0;
// nextln: st.volatile.u32 [%rd4], %r1;
// not: volatile.local
// check: cvta.local.u64 %rd5, $local_ss0;
// nextln: ld.volatile.u32 %r2, [%rd5];
// not: volatile.local
// check: ret;
