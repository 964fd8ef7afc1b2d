//! C++ spellings over the C core: named and functional casts, `nullptr`,
//! `auto`, `constexpr`, brace initialization, `static_assert`, references
//! and range-based `for`. Typing rules are checked on the typed tree,
//! misuse on the rendered diagnostics, and the kernels run in the IR
//! interpreter against results computed here. Every accepted snippet is
//! also valid for nvcc (`tests/cxx_syntax.rs` compiles the kernels with it).

mod common;

use common::{errors, ok, ty};
use frontend::typed::{ExprKind, StmtKind};
use frontend::{check_with_warnings, lower, CType, Code, Options};
use kir_interp::{run_kernel, KernelArg, LaunchConfig};

fn run(src: &str, kernel: &str, threads: u32, args: Vec<KernelArg>) -> Vec<Vec<u8>> {
    let m = lower(&ok(src)).unwrap_or_else(|d| panic!("{d:?}"));
    if let Err(errors) = midend::verifier::verify_module(&m) {
        let text: Vec<String> = errors
            .iter()
            .map(|(f, e)| e.annotate(&m.functions[*f], Some(&m)))
            .collect();
        panic!("invalid IR after lowering:\n{}", text.join("\n"));
    }
    let config = LaunchConfig {
        block: [threads, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run_kernel(&m, kernel, &args, &config).unwrap_or_else(|e| panic!("{e}"));
    out.buffers.into_iter().flatten().collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f32_buf(v: &[f32]) -> KernelArg {
    KernelArg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// Asserts `src` fails with `message` somewhere in the rendering, with a caret.
fn fails(src: &str, message: &str) {
    let r = errors(src);
    assert!(r.contains(message), "missing `{message}` in:\n{r}");
    assert!(r.contains('^'), "no caret in:\n{r}");
}

#[test]
fn named_casts_follow_cpp_rules() {
    assert_eq!(ty("static_cast<int>(f)"), CType::INT);
    assert_eq!(ty("static_cast<double>(i) + 1"), CType::DOUBLE);
    assert_eq!(ty("static_cast<bool>(p)"), CType::Bool);
    assert_eq!(ty("static_cast<float *>(vp)").to_string(), "float *");
    assert_eq!(
        ty("static_cast<const float *>(fp)").to_string(),
        "const float *"
    );
    assert_eq!(ty("static_cast<void>(i)"), CType::Void);
    assert_eq!(ty("reinterpret_cast<int *>(fp)").to_string(), "int *");
    assert_eq!(ty("reinterpret_cast<unsigned long>(p)"), CType::ULONG);
    assert_eq!(ty("reinterpret_cast<float *>(l)").to_string(), "float *");
    assert_eq!(ty("const_cast<float *>(cfp)").to_string(), "float *");
    // A named cast is the C cast once allowed: `(int)f` is FloatToInt.
    let ExprKind::Cast { kind, .. } = common::typed_expr("static_cast<int>(f)").kind else {
        panic!("not a cast");
    };
    assert_eq!(kind, frontend::typed::CastKind::FloatToInt);
    let k = |body: &str| {
        format!("__global__ void k(float *fp, const float *cfp, int i, float f) {{ {body}; }}")
    };
    fails(
        &k("static_cast<int *>(fp)"),
        "unrelated pointer types; use `reinterpret_cast`",
    );
    fails(&k("static_cast<float *>(cfp)"), "cannot cast away `const`");
    fails(&k("static_cast<long>(fp)"), "between pointers and integers");
    fails(&k("reinterpret_cast<int>(fp)"), "narrower than the pointer");
    fails(&k("reinterpret_cast<float>(i)"), "use `static_cast`");
    fails(&k("reinterpret_cast<float *>(cfp)"), "use `const_cast`");
    fails(&k("const_cast<int *>(cfp)"), "`const_cast` only converts");
    fails(&k("const_cast<int>(i)"), "`const_cast` only converts");
    // `static_cast<T &>` designates an object of type `T` itself, or of
    // a base or derived class; one of another type (a temporary) and
    // `reinterpret_cast` to an rvalue reference are not supported.
    fails(
        &k("static_cast<int &>(f)"),
        "`static_cast` of a `float` to `int &` is not supported by kernelc",
    );
    fails(
        &k("reinterpret_cast<int &&>(f)"),
        "`reinterpret_cast` to an rvalue reference type is not supported by kernelc",
    );
    let r = errors(&k("static_cast<int *>(fp)"));
    assert!(
        r.contains("error[E0004]: cannot cast `float *` to `int *` with `static_cast`"),
        "{r}"
    );
}

#[test]
fn functional_casts_zero_and_nullptr() {
    // At the start of a statement `float(i);` declares `i` (C++), so these
    // casts come after a comma.
    assert_eq!(ty("0, float(i)"), CType::FLOAT);
    assert_eq!(ty("0, unsigned(f) + 1"), CType::UINT);
    assert_eq!(ty("0, size_t(i)"), CType::ULONG);
    assert_eq!(ty("(float(i) + 1)"), CType::FLOAT);
    assert_eq!(ty("0, double()"), CType::DOUBLE);
    let ExprKind::Comma { rhs, .. } = common::typed_expr("0, int()").into_parts().0 else {
        panic!()
    };
    assert!(matches!(rhs.kind, ExprKind::IntConst(0)));
    assert_eq!(ty("nullptr").to_string(), "void *");
    assert_eq!(ty("p = nullptr").to_string(), "int *");
    assert_eq!(ty("p == nullptr"), CType::INT);
    assert_eq!(ty("b ? fp : nullptr").to_string(), "float *");
    fails(
        "__global__ void k() { int x = nullptr; }",
        "cannot convert `void *` to `int`",
    );
    fails(
        "__global__ void k(float *o) { o[0] = unsigned int(2); }",
        "expected an expression",
    );
    fails(
        "__global__ void k(float *o) { o[0] = float(1, 2); }",
        "a functional cast takes one value",
    );
}

#[test]
fn a_member_call_on_a_temporary_is_an_expression_statement() {
    // `Acc(t).add(3);` cannot declare `t` (no declarator goes on with `.`):
    // it builds a temporary over `t` and calls its member, CUB's idiom
    // (`BlockScan(temp).InclusiveSum(x, y);`). `Acc(t);` still declares.
    let out = run(
        "struct Acc { int &r; __device__ Acc(int &x) : r(x) {} __device__ void add(int v) { r += v; } };\n\
         __global__ void k(int *o) { int t = 1; Acc(t).add(3); Acc((t)).add(o[1]); o[0] = t; }",
        "k",
        1,
        vec![KernelArg::Buffer([0, 10].iter().flat_map(|v: &i32| v.to_le_bytes()).collect())],
    );
    assert_eq!(i32s(&out[0]), [14, 10]);
}

#[test]
fn value_initialized_struct_temporaries_are_zero() {
    // `S()` of a struct without constructors: every member zero.
    let out = run(
        "struct S { int a; float b; }; __global__ void k(int *o) { S s = S(); o[0] = s.a + 1; o[1] = (int)s.b + 2; }",
        "k",
        1,
        vec![KernelArg::Buffer(vec![0xff; 8])],
    );
    assert_eq!(i32s(&out[0]), [1, 2]);
}

#[test]
fn auto_takes_the_initializers_type_after_decay() {
    let prog = ok("__global__ void k(const float *in, int n) {
        auto a = 1.5f; auto b = n * 2u; auto c = in; const auto d = 'x'; auto *e = in + 1;
        float arr[3] = {1, 2, 3}; auto f = arr; auto g{2.0}; auto h = a;
        (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; (void)h;
    }");
    let locals = &prog.functions[0].locals;
    let t = |name: &str| {
        let l = locals.iter().find(|l| l.name == name).unwrap();
        (l.ty.to_string(), l.is_const)
    };
    assert_eq!(t("a"), ("float".into(), false));
    assert_eq!(t("b"), ("unsigned int".into(), false));
    assert_eq!(t("c"), ("const float *".into(), false));
    assert_eq!(t("d"), ("char".into(), true)); // C++: a character literal is a `char`
    assert_eq!(t("e"), ("const float *".into(), false));
    assert_eq!(t("f"), ("float *".into(), false));
    assert_eq!(t("g"), ("double".into(), false));
    fails(
        "__global__ void k() { auto x; }",
        "`auto` variable `x` needs an initializer",
    );
    fails(
        "__global__ void k(int i) { auto *p = i; }",
        "`auto *` needs a pointer initializer",
    );
    fails(
        "__global__ void k() { auto x = {1, 2}; }",
        "`std::initializer_list`) is not supported by kernelc",
    );
    fails(
        "__device__ void f(auto x) {}",
        "`auto` parameters are not supported by kernelc",
    );
    fails(
        "__device__ auto g = 3;",
        "`auto` outside function bodies is not supported by kernelc",
    );
    fails(
        "__global__ void k() { auto int x = 1; }",
        "`auto` cannot be combined with a type",
    );
}

#[test]
fn constexpr_values_are_constant_expressions() {
    let prog = ok("constexpr int N = 4;
        constexpr float HALF = 0.5f;
        constexpr unsigned MASK = (1u << N) - 1;
        static_assert(MASK == 15, \"mask\");
        constexpr __device__ int twice(int x) { return 2 * x; }
        __host__ __device__ inline float sq(float x) { return x * x; }
        __global__ void k(float *o) {
            constexpr int M = N * 2;
            constexpr float Q = HALF * 3.0f;
            constexpr float R = Q + 1.0f;
            float buf[M];
            #pragma unroll M
            for (int i = 0; i < M; i++) buf[i] = i * HALF;
            static_assert(sizeof(buf) == 32);
            o[threadIdx.x] = buf[threadIdx.x % M] + R + sq(2.0f) + twice(N);
        }");
    assert_eq!(prog.functions.len(), 3);
    fails(
        "__global__ void k(int n) { constexpr int m = n; }",
        "the initializer of `constexpr` variable `m` must be a constant expression",
    );
    fails(
        "__device__ int v; constexpr int c = v;",
        "must be a constant",
    );
    fails(
        "__global__ void k() { constexpr int m; }",
        "needs an initializer",
    );
    fails(
        "constexpr int N = 4; __global__ void k() { N = 5; }",
        "expression is not assignable",
    );
}

#[test]
fn static_assert_is_checked_at_compile_time() {
    ok(
        "static_assert(sizeof(float4) == 16, \"float4\");\nstatic_assert(sizeof(int) == 4);\n\
        __global__ void k() { static_assert(sizeof(long) == 8, \"LP64\" \" model\"); }",
    );
    let r = errors(
        "struct P { float x, y; };\nstatic_assert(sizeof(P) == 12, \"P must be packed\");\n",
    );
    assert!(
        r.contains("static assertion failed: P must be packed"),
        "{r}"
    );
    assert!(r.contains("test.cu:2:15"), "{r}");
    fails("static_assert(0);", "static assertion failed");
    // In a class template's instance: the failure names the instance and
    // where it was instantiated.
    let r = errors(
        "template <class T, int N> struct Buf { static_assert(N % 32 == 0, \"N % 32\"); T d[N]; };\n\
        template <int N> __global__ void k(float *o) { Buf<float, N> b; o[0] = b.d[0]; }\n\
        template __global__ void k<48>(float *);\n",
    );
    assert!(r.contains("static assertion failed: N % 32"), "{r}");
    assert!(r.contains("test.cu:1:54"), "{r}");
    assert!(r.contains("in `Buf<float, 48>`, instantiated here"), "{r}");
    assert!(
        r.contains("2 │"),
        "the label points into the kernel template: {r}"
    );
    fails(
        "__global__ void k(int n) { static_assert(n > 0, \"n\"); }",
        "the condition of `static_assert` must be an integer constant expression",
    );
    fails(
        "static_assert(1, 2);",
        "expected a string literal as the `static_assert` message",
    );
}

#[test]
fn brace_initialization_and_narrowing_warnings() {
    let src = "struct S { int a; float b; };
        __global__ void k(float *o, int i, float f, long l) {
            int x{3}; float y{}; S s{4, 2.5f}; int arr[3]{1, 2}; float4 v{1, 2, 3, 4};
            float n1{i}; int n2{l}; int n3{f}; unsigned n4{i}; char ok1{100}; float ok2{3};
            float ok3[2] = {float(i), (float)l}; int ok4{static_cast<int>(l)};
            o[0] = x + y + s.a + s.b + arr[1] + arr[2] + v.w + n1 + n2 + n3 + n4 + ok1 + ok2
                + ok3[1] + ok4;
        }";
    let (_, warnings) = check_with_warnings(src, &Options::default()).unwrap();
    let w5: Vec<&str> = warnings
        .iter()
        .filter(|w| w.code == Some(Code::W0005))
        .map(|w| &src[w.span.start as usize..w.span.end as usize])
        .collect();
    // `int` to `float`, `long` to `int`, `int` to `unsigned`; `f` to `int`
    // is W0002 (it drops the fraction in any initializer); an explicit cast
    // says the conversion is intended.
    assert_eq!(w5, ["i", "l", "i"], "{warnings:?}");
    assert!(warnings
        .iter()
        .any(|w| w.code == Some(Code::W0002)
            && &src[w.span.start as usize..w.span.end as usize] == "f"));
    let out = run(
        "struct S { int a; float b; };
        __global__ void k(float *o) {
            int x{3}; float y{}; S s{4, 2.5f}; int arr[3]{1, 2}; float4 v{1, 2, 3, 4}; int z = {7};
            o[0] = x; o[1] = y; o[2] = s.a; o[3] = s.b; o[4] = arr[1]; o[5] = arr[2]; o[6] = v.w; o[7] = z;
        }",
        "k",
        1,
        vec![f32_buf(&[9.0; 8])],
    );
    assert_eq!(f32s(&out[0]), [3.0, 0.0, 4.0, 2.5, 2.0, 0.0, 4.0, 7.0]);
    fails(
        "__global__ void k() { int x{1, 2}; }",
        "needs exactly one value",
    );
}

#[test]
fn references_are_addresses_with_implicit_dereference() {
    let prog = ok("__device__ void swap(float &a, float &b) { float t = a; a = b; b = t; }
        __device__ float twice(const float &x) { return 2.0f * x; }
        __global__ void k(float *o) { float a = o[0], b = o[1]; swap(a, b); o[2] = twice(a + b); o[3] = twice(a); }");
    let swap = &prog.functions[0];
    assert_eq!(swap.params[0].ty.to_string(), "float *");
    assert_eq!(prog.functions[1].params[0].ty.to_string(), "const float *");
    let k = &prog.functions[2];
    // `a` and `b` are passed by address, so they live in memory.
    for name in ["a", "b"] {
        let l = k.locals.iter().find(|l| l.name == name).unwrap();
        assert!(l.in_memory, "{name} should be address-taken");
    }
    // `twice(a + b)` binds the `const` reference to a temporary.
    let StmtKind::Expr(e) = &k.body.stmts[2].kind else {
        panic!()
    };
    let ExprKind::Assign { value, .. } = &e.kind else {
        panic!()
    };
    let ExprKind::Call { args, .. } = &value.kind else {
        panic!("{value:?}")
    };
    let ExprKind::Cast { expr: arg, .. } = &args[0].kind else {
        panic!("{:?}", args[0])
    };
    assert!(matches!(arg.kind, ExprKind::Comma { .. }), "{arg:?}");

    let out = run(
        "__device__ void swap(float &a, float &b) { float t = a; a = b; b = t; }
        __device__ void bump(int &c, const int &by) { c += by; }
        __device__ float twice(const float &x) { return 2.0f * x; }
        __global__ void k(float *o, int *counts) {
            __shared__ float tile[4];
            int i = threadIdx.x;
            tile[i] = o[i];
            __syncthreads();
            float a = tile[i], b = tile[(i + 1) % 4];
            swap(a, b);
            float &r = o[i];
            r = a - b + twice(a + 1.0f);
            const float &cr = tile[i];
            int n = 0;
            int &rn = n;
            rn += 5;
            bump(n, i);
            bump(counts[i], n);
            o[4 + i] = cr + n;
        }",
        "k",
        4,
        vec![
            f32_buf(&[1.0, 2.0, 4.0, 8.0, 0.0, 0.0, 0.0, 0.0]),
            KernelArg::Buffer(vec![0; 16]),
        ],
    );
    let o = f32s(&out[0]);
    let input = [1.0f32, 2.0, 4.0, 8.0];
    for i in 0..4 {
        let (a, b) = (input[(i + 1) % 4], input[i]);
        assert_eq!(o[i], a - b + 2.0 * (a + 1.0), "o[{i}]");
        assert_eq!(o[4 + i], input[i] + (5 + i) as f32, "o[4 + {i}]");
    }
    assert_eq!(i32s(&out[1]), [5, 6, 7, 8]);
}

#[test]
fn reference_misuse_is_located() {
    fails(
        "__device__ void f(int &x) { x = 1; }\n__global__ void k() { f(3); }",
        "argument 1 of `f`: a non-const reference `int &` must bind to an object of type `int`, not a temporary value",
    );
    fails(
        "__device__ void f(int &x) { x = 1; }\n__global__ void k(float v) { f(v); }",
        "not an object of type `float`",
    );
    fails(
        "__device__ void f(float &x) { x = 1; }\n__global__ void k(const float *p) { f(p[0]); }",
        "cannot bind to a `const` object",
    );
    fails(
        "__global__ void k(const float *p) { const float &r = p[0]; r = 2.0f; }",
        "because it is `const`",
    );
    fails(
        "__global__ void k() { int &r; }",
        "reference `r` must be initialized",
    );
    fails(
        "__global__ void k(int &x) { }",
        "reference parameters of kernels are not supported by kernelc",
    );
    fails(
        "__device__ int &&f(int *p) { return *p; }",
        "the returned reference: an rvalue reference `int &&` cannot bind to an lvalue",
    );
    fails(
        "__device__ int &f(int v) { return v + 1; }",
        "the returned reference: a non-const reference `int &` must bind to an object",
    );
    fails(
        "__device__ int g; __device__ int &r = g;",
        "not supported by kernelc",
    );
    fails(
        "__global__ void k(int x) { int &&r = x; }",
        "an rvalue reference `int &&` cannot bind to an lvalue",
    );
    fails(
        "__device__ void f(int &x);\n__device__ int f(int &x);",
        "conflicting types for `f`",
    );
}

/// Asserts that `src` fails with error `code` whose message holds
/// `message`, located at `place` (`line:column` in `test.cu`).
fn at(src: &str, code: &str, message: &str, place: &str) {
    let r = errors(src);
    assert!(r.contains(&format!("error[{code}]")), "no {code} in:\n{r}");
    assert!(r.contains(message), "missing `{message}` in:\n{r}");
    assert!(
        r.contains(&format!("test.cu:{place}")),
        "not at {place}:\n{r}"
    );
}

/// A reference named by a type (`CType::Ref`) where C++ or kernelc has
/// no reference: each a located error with its code, none a panic.
#[test]
fn reference_types_misuse_is_located() {
    at(
        "typedef float &ref;\n__global__ void k(float *o) { ref *p = 0; }",
        "E0003",
        "a pointer to or an array of a reference (`float & *`)",
        "2:31",
    );
    at(
        "typedef float &ref;\ntypedef ref *ptr;\n__global__ void k() { ptr p = 0; }",
        "E0003",
        "is a pointer to a reference",
        "2:1",
    );
    at(
        "typedef float &ref[4];\n__global__ void k(float *o) { ref r = {o[0]}; }",
        "E0003",
        "arrays of references are not valid C++",
        "1:19",
    );
    at(
        "using rref = float &&;\nstruct S { rref r; };\n__global__ void k() { S *s = 0; }",
        "E0002",
        "rvalue reference members are not supported by kernelc",
        "2:12",
    );
    at(
        "template <class T> struct H { T v; };\n__global__ void k() { H<float &&> h; }",
        "E0002",
        "rvalue reference members are not supported by kernelc",
        "1:31",
    );
    at(
        "using ref = float &;\n__global__ void k(float *o) { o[0] = ref(o[1]); }",
        "E0002",
        "a functional cast to the reference type `float &` is not supported by kernelc",
        "2:38",
    );
    at(
        "typedef float &ref;\n__global__ void k(ref x) { x = 1; }",
        "E0002",
        "reference parameters of kernels are not supported by kernelc",
        "2:19",
    );
    at(
        "struct S { int v; __device__ S() & : v(1) {} };\n__global__ void k(int *o) { S s; o[0] = s.v; }",
        "E0003",
        "a constructor or a destructor cannot have a ref-qualifier",
        "1:30",
    );
    // A lvalue has no `get() &&` to call.
    at(
        "struct S { int v; __device__ int get() && { return v; } };\n__global__ void k(int *o) { S s{1}; o[0] = s.get(); }",
        "E0007",
        "an lvalue, which an rvalue reference cannot bind",
        "2:46",
    );
}

/// `decltype` of an operand only the checker types (`decltype(a + b)`)
/// is a local's type only; elsewhere, and before `::`, a located E0002,
/// never a panic. The checker's own errors in the operand stay located.
#[test]
fn decltype_kernelc_cannot_type_is_located() {
    at(
        "__device__ float g;\n__device__ float f(decltype(g * 2) x) { return x; }",
        "E0002",
        "only as a local variable's type",
        "2:29",
    );
    at(
        "struct V { using T = int; };\n__global__ void k(int *o) { V v; decltype(v.x)::T t = 1; o[0] = t; }",
        "E0002",
        "`decltype(...)::` is supported by kernelc of a variable",
        "2:34",
    );
    at(
        "__global__ void k(int *o) { decltype(o[0] + nope) t = 1; o[0] = t; }",
        "E0001",
        "nope",
        "1:45",
    );
    // `auto`'s reading of the element would type it wrongly, silently.
    at(
        "__global__ void k(int *o) { int a[3] = {1, 2, 3};\nfor (decltype(a[0] * 2.0) x : a) o[0] += x; }",
        "E0002",
        "range-based `for` variable declared with `decltype`",
        "2:15",
    );
}

#[test]
fn range_for_over_arrays() {
    let out = run(
        "struct P { float x, y; };
        __constant__ float weights[4] = {0.5f, 0.25f, 2.0f, 1.0f};
        __global__ void k(float *o) {
            float v[4] = {1, 2, 3, 4};
            float s = 0;
            for (float x : v) s += x;
            for (float &x : v) x *= 2;
            for (auto x : v) s += x;
            float w = 0;
            for (const auto &c : weights) w += c;
            int m[2][3] = {{1, 2, 3}, {4, 5, 6}};
            int t = 0;
            for (auto &row : m) for (int e : row) { if (e == 5) continue; t += e; }
            P ps[2] = {{1, 2}, {3, 4}};
            float py = 0;
            for (P p : ps) { p.x = 100; py += p.y; }
            for (P &p : ps) p.x += 1;
            int n = 0;
            for (int e : v) { if (e > 4) break; n++; }
            o[0] = s; o[1] = w; o[2] = t; o[3] = py; o[4] = ps[0].x + ps[1].x; o[5] = n;
        }",
        "k",
        1,
        vec![f32_buf(&[0.0; 6])],
    );
    assert_eq!(f32s(&out[0]), [30.0, 3.75, 16.0, 6.0, 6.0, 2.0]);
    fails(
        "__global__ void k(float *p) { for (float x : p) { } }",
        "range-based `for` over a `float *` is not supported by kernelc",
    );
    fails(
        "__global__ void k() { const int c[2] = {1, 2}; for (int &x : c) x = 0; }",
        "cannot bind to a `const` object",
    );
}

#[test]
fn default_arguments_fill_the_parameters_a_call_leaves_out() {
    // A prototype gives the defaults, the definition repeats none (C++).
    let src = "__device__ float scale(float x, float s = 2.0f, int n = 3 + 1);
        __device__ float scale(float x, float s, int n) { return x * s + n; }
        __global__ void k(float *o) {
            o[0] = scale(1.0f);
            o[1] = scale(1.0f, 0.5f);
            o[2] = scale(1.0f, 0.5f, 7);
        }";
    let out = run(src, "k", 1, vec![KernelArg::Buffer(vec![0; 12])]);
    assert_eq!(f32s(&out[0]), vec![6.0, 4.5, 7.5]);
}

#[test]
fn default_arguments_missing_are_located_errors() {
    let r = errors("__device__ float f(float x, float s = 1.0f, int n) { return x; }");
    assert!(r.contains("error[E0018]"), "{r}");
    assert!(
        r.contains("this parameter needs a default argument: it follows one that has a default"),
        "{r}"
    );
    assert!(r.contains("test.cu:1:45"), "{r}");
    let r = errors(
        "__device__ float f(float x, float s = 1.0f) { return x * s; }
        __global__ void k(float *o) { o[0] = f(); }",
    );
    assert!(r.contains("error[E0018]"), "{r}");
    assert!(
        r.contains("too few arguments to function call `f`: parameter 1 has no default argument"),
        "{r}"
    );
}

#[test]
fn std_names_the_cmath_functions_and_min_max_only() {
    ok("__global__ void k(float *o) { o[0] = std::abs(o[1]) + std::pow(o[2], 2) + std::sqrt(o[3]); }");
    let r = errors("__global__ void k(float *o) { o[0] = std::swap(o[1], o[2]); }");
    assert!(r.contains("error[E0002]"), "{r}");
    assert!(r.contains("`std::swap` is not supported by kernelc"), "{r}");
    // std::min is a host constexpr template: nvcc's E0017 without the flag.
    let r = errors("__global__ void k(float *o) { o[0] = std::min(o[1], o[2]); }");
    assert!(r.contains("error[E0017]"), "{r}");
    assert!(
        r.contains("calling constexpr host function `std::min` from device code is not allowed"),
        "{r}"
    );
}

/// Checks `src` under `--expt-relaxed-constexpr`.
fn check_relaxed(src: &str) -> Result<frontend::typed::Program, String> {
    let mut opts = frontend::Options::default();
    opts.defines.push((
        "__CUDACC_RELAXED_CONSTEXPR__".to_string(),
        Some("1".to_string()),
    ));
    frontend::check(src, &opts).map_err(|d| frontend::render_diagnostics("test.cu", src, &d))
}

#[test]
fn std_min_max_deduce_one_type_and_fold_constants() {
    check_relaxed(
        "static_assert(std::max(2, 3) == 3, \"folds\");\n\
         __global__ void k(float *o, int *i) {\n\
           constexpr int c = std::min(4, 9);\n\
           int a[std::max(c, 2)];\n\
           a[0] = std::max(i[0], i[1]);\n\
           o[0] = std::min(o[1], o[2]) + a[0] + sizeof(a);\n\
         }",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = check_relaxed("__global__ void k(float *o) { o[0] = std::max(o[1], 1); }")
        .expect_err("two argument types");
    assert!(r.contains("error[E0007]"), "{r}");
    assert!(
        r.contains("no instance of `std::max` matches the argument types (`float`, `int`)"),
        "{r}"
    );
    let r = check_relaxed("__global__ void k(float *o) { o[0] = std::max(o[1], o[2], o[3]); }")
        .expect_err("a comparator");
    assert!(r.contains("error[E0002]"), "{r}");
}

#[test]
fn static_members_are_read_through_objects() {
    // `pack.size` of `static constexpr int size` (llm.c's loops over a
    // `Packed128`), through `.` and `->`, and usable as a constant.
    let out = run(
        "template <class T> struct Pack { static constexpr int size = 16 / sizeof(T); T v[size]; };\n\
         struct Grid { static constexpr int kDim = 3; int x; };\n\
         __global__ void k(int *o) {\n\
           Pack<float> p; Grid g{1}; Grid *q = &g;\n\
           int a[p.size];\n\
           for (int i = 0; i < p.size; ++i) a[i] = i;\n\
           o[0] = a[p.size - 1] + g.kDim * 10 + q->kDim * 100 + (int)sizeof(a);\n\
         }",
        "k",
        1,
        vec![KernelArg::Buffer(vec![0; 4])],
    );
    assert_eq!(i32s(&out[0]), [3 + 30 + 300 + 16]);
}

#[test]
fn double_angle_brackets_close_default_template_arguments() {
    // `typename Op = Sum<T>>`: the `>>` closes the argument's list and the
    // parameter list, for function and class templates alike.
    let out = run(
        "template <class T> struct Sum { __device__ T operator()(T a, T b) const { return a + b; } };\n\
         template <typename T, typename Op = Sum<T>> struct Holder { Op op; };\n\
         template <typename T, int B, typename Op = Sum<T>>\n\
         __device__ T apply(T x) { Holder<T> h; Op op; return h.op(op(x, (T)B), x); }\n\
         __global__ void k(int *o) { o[0] = apply<int, 5>(o[0]); }",
        "k",
        1,
        vec![KernelArg::Buffer(7i32.to_le_bytes().to_vec())],
    );
    assert_eq!(i32s(&out[0]), [19]);
}

#[test]
fn operator_function_templates_are_deduced_at_each_use() {
    // `operator*` of two matrices whose sizes deduce, and `operator+` of a
    // class template, in a namespace; `3 + 4` keeps its built-in meaning.
    let out = run(
        "namespace num {\n\
         template <class T, int R, int C> struct Mat { T v[R * C];\n\
           __device__ T at(int r, int c) const { return v[r * C + c]; } };\n\
         template <class T, int R, int K, int C>\n\
         __device__ Mat<T, R, C> operator*(const Mat<T, R, K> &a, const Mat<T, K, C> &b) {\n\
           Mat<T, R, C> out;\n\
           for (int r = 0; r < R; ++r) for (int c = 0; c < C; ++c) {\n\
             T s = 0; for (int k = 0; k < K; ++k) s += a.at(r, k) * b.at(k, c); out.v[r * C + c] = s; }\n\
           return out; }\n\
         template <typename T> struct V2 { T x, y; };\n\
         template <typename T> __device__ V2<T> operator+(V2<T> a, V2<T> b) { return V2<T>{a.x + b.x, a.y + b.y}; }\n\
         }\n\
         __global__ void k(int *o) {\n\
           num::Mat<int, 2, 3> a; num::Mat<int, 3, 2> b;\n\
           for (int i = 0; i < 6; ++i) { a.v[i] = i + 1; b.v[i] = 6 - i; }\n\
           num::Mat<int, 2, 2> c = a * b;\n\
           num::V2<int> p{1, 2}, q{30, 40};\n\
           num::V2<int> s = p + q;\n\
           for (int i = 0; i < 4; ++i) o[i] = c.v[i];\n\
           o[4] = s.x + s.y; o[5] = 3 + 4; }",
        "k",
        1,
        vec![KernelArg::Buffer(vec![0; 24])],
    );
    // a = [1 2 3; 4 5 6], b = [6 5; 4 3; 2 1].
    assert_eq!(i32s(&out[0]), [20, 14, 56, 41, 73, 7]);
}

#[test]
fn a_parenthesized_template_argument_may_start_with_a_class_template() {
    // `(std::is_integral<T>::value && sizeof(T) < 4)` is a value, read
    // after trying it as a cast's type.
    let out = run(
        "#include <type_traits>\n\
         template <class T> struct Acc { using type = typename std::conditional<(std::is_integral<T>::value && sizeof(T) < 4), int, T>::type; };\n\
         __global__ void k(int *o) { o[0] = sizeof(Acc<char>::type) * 10 + sizeof(Acc<double>::type); }",
        "k",
        1,
        vec![KernelArg::Buffer(vec![0; 4])],
    );
    assert_eq!(i32s(&out[0]), [48]);
}

#[test]
fn parameter_packs_expand_into_ordinary_functions() {
    // Type and value packs, deduced and written, the folds (an empty
    // comma fold among them), `sizeof...`, a pack expansion in a call, a
    // class template over a pack.
    let src =
        "template <typename... Ts> __device__ float sum(Ts... xs) { return (xs + ... + 0.0f); }\n\
        template <int... Ns> __device__ int count() { return sizeof...(Ns) * 10 + (... - Ns); }\n\
        template <typename... Ts> __device__ float twiceSum(Ts... xs) { return sum(2 * xs...); }\n\
        template <typename... Ts> struct Tuple { static constexpr int size = sizeof...(Ts); };\n\
        __device__ void bump(float *o, float v) { o[5] += v; }\n\
        template <typename... Ts> __device__ void each(float *o, Ts... xs) { (bump(o, xs), ...); }\n\
        extern \"C\" __global__ void k(float *o) {\n\
          o[0] = sum(1.0f, 2, 3.5f); o[1] = count<9, 2, 3>(); o[2] = sum();\n\
          o[3] = twiceSum(1, 2.5f); o[4] = Tuple<int, float, char>::size + Tuple<>::size;\n\
          each(o); each(o, 1, 2.5f);\n\
        }\n";
    let p = ok(src);
    let sum = p
        .functions
        .iter()
        .find(|f| f.name == "sum<float, int, float>")
        .expect("the instance");
    let types: Vec<String> = sum.params.iter().map(|p| p.ty.to_string()).collect();
    assert_eq!(types, ["float", "int", "float"]);
    assert_eq!(sum.link_name, "_Z3sumIJfifEEfDpT_");
    assert!(p.functions.iter().any(|f| f.name == "sum<>"));
    assert!(p.functions.iter().any(|f| f.name == "count<9, 2, 3>"));
    let out = run(src, "k", 1, vec![f32_buf(&[0.0; 6])]);
    assert_eq!(f32s(&out[0]), [6.5, 34.0, 0.0, 7.0, 3.0, 3.5]);
}

#[test]
fn misused_packs_are_located_errors() {
    fails(
        "template <typename... Ts = int> __device__ void f(Ts... xs) {}\n",
        "a parameter pack cannot have a default argument",
    );
    fails(
        "template <typename... Ts> __device__ int f(Ts... xs) { return (xs * ...); }\n\
         extern \"C\" __global__ void k(int *o) { o[0] = f(); }\n",
        "a fold over `*` of an empty pack has no value",
    );
    fails(
        "template <typename... Ts> __device__ int f(Ts... xs) { return xs; }\n\
         extern \"C\" __global__ void k(int *o) { o[0] = f(1); }\n",
        "parameter pack `xs` is used without `...` expanding it",
    );
}

#[test]
fn deduced_return_types_that_disagree_are_errors() {
    fails(
        "template <typename T> __device__ auto pick(T x) { if (x) return 1; return 2.0f; }\n\
         __global__ void k(float *o) { o[0] = pick(1); }",
        "its `return` statements disagree on its return type: `int` and `float`",
    );
    fails(
        "__device__ int f(int x) -> int { return x; }",
        "a function with a trailing return type must be declared `auto`",
    );
}

/// A class template's member functions are instantiated where they are
/// used (C++ [temp.inst]): an unused member's body is never checked, so an
/// error there is none, and a used one is checked once however often it is
/// called, its errors labelled with its first use.
#[test]
fn class_template_members_are_instantiated_where_used() {
    let lib = "template <class T> struct Box {\n  T v;\n  __device__ T half() const { return v / 2; }\n  __device__ T bits() const { return v & 1; }\n  static __device__ T low(T x) { static_assert(sizeof(T) == 4, \"32-bit\"); return x & 0xff; }\n  struct Inner { T n; __device__ T odd() const { return n % 2; } };\n};\n";
    let p = ok(&format!(
        "{lib}__global__ void k(float *o, int *q) {{ Box<float> b{{o[0]}}; Box<int> n{{q[0]}};\n  o[1] = b.half() + b.half(); q[1] = n.bits() + n.bits() + Box<int>::low(q[2]); }}\n"
    ));
    let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
    for (member, count) in [
        ("Box<float>::half", 1),
        ("Box<int>::bits", 1),
        ("Box<int>::low", 1),
        ("Box<float>::bits", 0),
        ("Box<int>::half", 0),
        ("Box<float>::Inner::odd", 0),
    ] {
        let made = names.iter().filter(|&&n| n == member).count();
        assert_eq!(made, count, "{member} in {names:?}");
    }
    // Used, the member's errors are errors, labelled with the use.
    let r = errors(&format!(
        "{lib}__global__ void k(float *o) {{ Box<float> b{{o[0]}};\n  o[1] = b.half() + b.bits(); }}\n"
    ));
    assert!(r.contains("error[E0004]"), "{r}");
    assert!(r.contains("test.cu:4:38"), "{r}");
    assert!(
        r.contains("in `Box<float>::bits`, instantiated here"),
        "{r}"
    );
    assert!(r.contains("9 │"), "the label points at the call: {r}");
    let r = errors(&format!(
        "{lib}__global__ void k(double *o) {{ o[0] = Box<double>::low(o[1]); }}\n"
    ));
    assert!(r.contains("static assertion failed: 32-bit"), "{r}");
    let r = errors(&format!(
        "{lib}__global__ void k(float *o) {{ Box<float>::Inner i{{o[0]}}; o[1] = i.odd(); }}\n"
    ));
    assert!(
        r.contains("in `Box<float>::Inner::odd`, instantiated here"),
        "{r}"
    );
}

/// What C++ allows of declarations that nvcc compiles: defaults on a class
/// template's forward declaration, `inline` variables at namespace scope;
/// and what it refuses: one explicit instantiation twice, an `inline`
/// module variable in a whole program (nvcc's rule), each located.
#[test]
fn declarations_cxx_merges_or_refuses() {
    ok("template <class T, int N = 4, class U = T> struct Arr;\n\
        template <class V, int M, class W> struct Arr { V a[M]; W w; };\n\
        template <class T> __global__ void k(T *o) { Arr<T> x; x.a[3] = 1; x.w = 2; o[0] = x.a[3] + x.w + sizeof(x); }\n\
        template __global__ void k<float>(float *);\n");
    ok(
        "inline constexpr int M = 5;\ninline constexpr float H = 0.5f;\n\
        namespace cfg { inline constexpr unsigned W = 7u; }\n\
        static inline __device__ int counter = 3;\n\
        __global__ void k(float *o) { counter += M; o[0] = M * H + cfg::W + counter; }\n",
    );
    let r = errors(
        "template <class T> __global__ void k(T *o) { o[0] = 1; }\n\
        template __global__ void k<float>(float *);\n\
        template __global__ void k<int>(int *);\n\
        template __global__ void k<float>(float *);\n",
    );
    assert!(r.contains("error[E0006]"), "{r}");
    assert!(
        r.contains("`k<float>` is explicitly instantiated more than once"),
        "{r}"
    );
    assert!(r.contains("test.cu:4:"), "{r}");
    assert!(r.contains("first explicitly instantiated here"), "{r}");
    assert_eq!(r.matches("error[").count(), 1, "{r}");
    let r = errors(
        "inline __device__ int counter = 3;\n__global__ void k(int *o) { o[0] = counter; }\n",
    );
    assert!(r.contains("error[E0012]"), "{r}");
    assert!(r.contains("test.cu:1:23"), "{r}");
    let r = errors(
        "inline __forceinline__ __device__ int x = 3;\n__global__ void k(int *o) { o[0] = x; }\n",
    );
    assert!(
        r.contains("`__forceinline__` applies only to functions"),
        "{r}"
    );
}
