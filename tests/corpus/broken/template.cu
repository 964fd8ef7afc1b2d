// expect: 2:16: variadic templates (parameter packs) are not supported
template <class... Ts>
__global__ void fill(float *p, Ts... v) {}
