//! The device/host split (`frontend/src/split.rs`): host code of any shape
//! is skipped, device code keeps what it names, and device code that names
//! a host declaration gets E0017.

mod common;

use common::{errors, ok};

/// The names of the functions the checker saw, in order.
fn functions(src: &str) -> Vec<String> {
    ok(src).functions.iter().map(|f| f.name.clone()).collect()
}

/// Host code written the way real `.cu` files write it: none of it is
/// kernelc's C++ subset, and none of it may be an error.
const HOST_CODE: &str = r#"
#include <stdio.h>
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)
using namespace std;
static const char *banner = R"(raw "text" with { and ) inside)";
long long big = 1'000'000'000;
class Timer {
  public:
    Timer() : start_(0), ticks_{0} {}
    virtual ~Timer() {}
    Timer &operator=(const Timer &) = default;
    double elapsed() const { return ticks_ - start_; }
  private:
    double start_;
    long ticks_;
};
Timer::Timer(int n) : start_(n), ticks_{n} { if (n) throw n; }
template <typename T> T host_max(T a, T b) { return a > b ? a : b; }
template <> int host_max<int>(int a, int b) { return a; }
namespace util { int twice(int x) { return 2 * x; } struct Opt { int v = 3; }; }
auto add_one = [](int x) { return x + 1; };
int table[] = {1, 2, 3};
struct Config { int n; float alpha; } config = {4, 0.5f};
enum class Color : unsigned char { Red, Green };
void run_kernels(float *d, int n) {
    try { vector<int> v{1, 2}; auto t = 100ms; char c = u8'a'; wchar_t w = L'w';
          k<<<(n + 255) / 256, 256>>>(d, n); } catch (const exception &e) { puts(e.what()); }
}
"#;

const KERNELS: &str = r#"
__device__ float twice_dev(float x) { return 2.0f * x; }
extern "C" __global__ void k(float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = twice_dev(d[i]);
}
"#;

#[test]
fn host_code_of_any_shape_is_skipped() {
    let src =
        format!("{HOST_CODE}{KERNELS}\nint main() {{ run_kernels(nullptr, 0); return 0; }}\n");
    assert_eq!(functions(&src), ["twice_dev", "k"]);
    // The same with the kernels first, and host code after them.
    let src = format!("{KERNELS}{HOST_CODE}");
    assert_eq!(functions(&src), ["twice_dev", "k"]);
}

#[test]
fn containers_keep_only_their_device_declarations() {
    let src = r#"
extern "C" {
void host_helper(void);
__global__ void in_block(int *o) { o[0] = 1; }
}
namespace host_only { void f() {} }
extern "C" { int host_var; }
"#;
    assert_eq!(functions(src), ["in_block"]);
}

#[test]
fn device_code_keeps_the_types_and_constants_it_names() {
    let src = r#"
const int N = 1'024;
constexpr int M = N / 4;
enum Mode { FAST = 1, SLOW = 2 };
typedef struct { float x, y; } Point;
struct Pair { Point a, b; };
typedef Pair Segment;
struct Unused { virtual void f(); };
extern "C" __global__ void k(float *o, Segment s) {
    __shared__ float tile[M];
    tile[threadIdx.x] = s.a.x * FAST;
    o[0] = tile[0] + N;
}
"#;
    let p = ok(src);
    assert_eq!(p.functions.len(), 1);
    // `Unused` would be an error ("virtual" is C++ kernelc lacks) if it
    // were kept: device code never names it, so it is not.
    let with_use = src.replace("Segment s)", "Segment s, Unused *u)");
    assert!(errors(&with_use).contains("error["));
}

/// A name used as a template argument in a host type is not declared by
/// that type's alias, typedef or variable: device code naming `Vertex` keeps
/// `Vertex`, not the declarations that spell `std::tuple<Vertex, ...>`,
/// which only host code can compile.
#[test]
fn template_arguments_declare_nothing() {
    let src = r#"
using Vertex = int;
using Edge = std::tuple<Vertex, Vertex, float>;
template <typename T> using Pair = std::pair<Vertex, T>;
typedef std::map<Vertex, Edge> Adjacency;
const std::pair<Vertex, int> kRoot = {0, 1};
__global__ void k(Vertex *v) { v[0] = 1; }
"#;
    assert_eq!(functions(src), ["k"]);
    // A kernel that names the alias still keeps it, and gets its error.
    let with_use = src.replace("Vertex *v)", "Vertex *v, Edge *e)");
    assert!(errors(&with_use).contains("error["));
}

#[test]
fn device_code_naming_a_host_declaration_is_e0016() {
    let src = "float scale(float x) { return 2 * x; }\nint counter;\n\
               __global__ void k(float *p) {\n    p[0] = scale(p[0]) + counter;\n}\n";
    let e = errors(src);
    assert!(
        e.contains("error[E0017]: calling host function `scale` from device code is not allowed"),
        "{e}"
    );
    assert!(e.contains("declared here without `__device__`"), "{e}");
    assert!(
        e.contains("error[E0017]: host variable `counter` cannot be used in device code"),
        "{e}"
    );
    // The label points at the declaration, the caret at the use.
    assert!(e.contains("1 │ float scale(float x)"), "{e}");
    assert!(e.contains("4 │     p[0] = scale(p[0]) + counter;"), "{e}");
    // `__host__` alone is host code too.
    let e = errors("__host__ int h() { return 1; }\n__global__ void k(int *o) { o[0] = h(); }");
    assert!(e.contains("E0017"), "{e}");
}

#[test]
fn a_device_name_that_shadows_a_host_one_is_no_error() {
    let src = "int n;\nvoid f() {}\n\
               __global__ void k(int *o, int n) { int f = n; o[0] = f; }";
    assert_eq!(functions(src), ["k"]);
}

#[test]
fn host_and_device_functions_are_device_code() {
    let src = "__host__ __device__ inline float sq(float x) { return x * x; }\n\
               __global__ void k(float *o) { o[0] = sq(o[0]); }";
    assert_eq!(functions(src), ["sq", "k"]);
}

#[test]
fn an_unclosed_host_function_is_a_located_error() {
    let e = errors("__global__ void k() {}\nint main() {\n    return 0;\n");
    assert!(e.contains("error[E0003]: this `{` is never closed"), "{e}");
    assert!(e.contains("2 │ int main() {"), "{e}");
}

#[test]
fn what_kernelc_cannot_compile_is_an_error_only_in_device_code() {
    // Host code: a user-defined literal, a wide string, a `$`.
    let host = "auto t = 10ms; const wchar_t *w = L\"wide\"; int a$b = 1;\n\
                __global__ void k(int *o) { o[0] = 1'000; }";
    assert_eq!(functions(host), ["k"]);
    let e = errors("__global__ void k(int *o) { o[0] = 10ms; }");
    assert!(e.contains("invalid integer literal `10ms`"), "{e}");
    let e = errors("__global__ void k(int *o) { o[0] = L'x'; }");
    assert!(
        e.contains("`L` character literals are not supported by kernelc"),
        "{e}"
    );
}

#[test]
fn a_missing_semicolon_before_a_kernel_is_still_reported() {
    let e = errors("struct S { int a; }\n__global__ void k(S *p) { p->a = 1; }");
    assert!(e.contains("error["), "{e}");
}

/// A file-scope `static_assert` over a constant only host code reads (a
/// `constexpr std::array` of names that `main` prints) is the host
/// compilation's: neither is kept, so host C++ kernelc cannot compile is no
/// error. One over a constant device code reads, or over a type, is still
/// checked, with nvcc's error when it fails.
#[test]
fn assertions_over_host_constants_are_left_to_the_host() {
    let src = "#include <array>\n\
               constexpr std::array<const char *, 2> kNames = {\"a\", \"b\"};\n\
               static_assert(kNames.size() == 2, \"one name each\");\n\
               constexpr int kN = 4;\n\
               struct P { float x, y; };\n\
               static_assert(kN == 4 && sizeof(P) == 8, \"device\");\n\
               __global__ void k(int *o) { o[0] = kN; }\n";
    assert_eq!(functions(src), ["k"]);
    let e = errors(&src.replace("kN == 4 &&", "kN == 5 &&"));
    assert!(
        e.contains("error[E0013]: static assertion failed: device"),
        "{e}"
    );
    assert!(e.contains("6 │ static_assert(kN == 5"), "{e}");
    assert!(!e.contains("kNames"), "{e}");
}

/// The same for an assertion over a host `constexpr` function (a table of
/// finite-difference weights that host code copies to the device): the
/// function is host code until device code names it.
#[test]
fn assertions_over_host_constexpr_functions_are_left_to_the_host() {
    let src = "#include <array>\n\
               template <int R> constexpr std::array<float, 3> weights() { return {-2.0f, 1.0f, 0.0f}; }\n\
               static_assert(weights<1>()[0] + 2 * weights<1>()[1] == 0.0f);\n\
               __global__ void k(float *o) { o[0] = 1.0f; }\n";
    assert_eq!(functions(src), ["k"]);
    // Once device code calls it, it is kept, and so is the assertion.
    let e = errors(&src.replace("o[0] = 1.0f", "o[0] = weights<1>()[0]"));
    assert!(e.contains("error["), "{e}");
}
