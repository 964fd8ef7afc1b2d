// expect: 9:16: inheritance is not supported
struct Base {
  int x;
  __device__ int twice() const { return 2 * x; }
};

// A derived class in device code: kernelc names the base clause rather
// than calling the class incomplete.
struct Derived : Base {
  int y;
};

extern "C" __global__ void sums(const Derived *d, int *out) {
    out[0] = d->y;
}
