// expect: 5:8: partial specializations of class templates are not supported
template <typename T>
struct Box { T value; };
template <typename T>
struct Box<T *> { T value; };
__global__ void fill(Box<float> *p, float v) { p->value = v; }
