// expect: 2:11: template template parameters are not supported
template <template <class> class C>
__global__ void fill(float *p) {}
