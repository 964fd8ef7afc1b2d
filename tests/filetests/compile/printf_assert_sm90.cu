// test compile sm_90
// Device `printf` calls the runtime's `vprintf` with nvcc's argument
// buffer, and a failed `assert` calls `__assertfail`, both declared as nvcc
// declares them.
#include <assert.h>
#include <stdio.h>
extern "C" __global__ void k(const int* in, int n)
{
    int i = threadIdx.x;
    assert(i < n);
    printf("thread %d reads %d\n", i, in[i]);
}

// check: .global .align 1 .b8 $str[6] = {105, 32, 60, 32, 110, 0};
// check: .extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
// nextln: .extern .func __assertfail(.param .b64 __assertfail_param_0, .param .b64 __assertfail_param_1, .param .b32 __assertfail_param_2, .param .b64 __assertfail_param_3, .param .b64 __assertfail_param_4);
// check: call.uni __assertfail, (param0, param1, param2, param3, param4);
// check: call.uni (retval0), vprintf, (param0, param1);
