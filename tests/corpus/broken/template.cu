// expect: 2:1: class templates are not supported
template <typename T>
struct Box {
    T value;
};
__global__ void fill(Box<float> *p, float v) { p->value = v; }
