// expect: 5:5: cannot be written
__constant__ float c_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};

extern "C" __global__ void set_scale(float v) {
    c_scale[threadIdx.x & 3] = v;
}
