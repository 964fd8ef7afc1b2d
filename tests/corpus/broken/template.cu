// expect: 2:11: kernelc supports template template parameters of type parameters only
template <template <int> class C>
__global__ void fill(float *p) {}
