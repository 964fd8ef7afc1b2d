// expect: 12:16: classes with virtual functions are not supported
struct Shape {
  float scale;
  __device__ float twice() const { return 2.0f * scale; }
};

// Inheritance itself compiles (tests/programs/cxx_inheritance.cu); a
// virtual function would give the objects a hidden pointer to a table of
// functions, which kernelc does not make.
struct Circle : Shape {
    float r;
    __device__ virtual float area() const { return 3.14159f * r * r; }
};

extern "C" __global__ void areas(const Circle *c, float *out) {
    out[0] = c->area();
}
