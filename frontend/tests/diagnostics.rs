//! Each user error produces a diagnostic with a rendered source snippet.

mod common;

use common::errors;

/// Asserts the rendered output has the message, the offending line and a caret.
fn has(rendered: &str, message: &str, line: &str) {
    assert!(
        rendered.contains(message),
        "missing `{message}` in:\n{rendered}"
    );
    assert!(
        rendered.contains(line),
        "missing line `{line}` in:\n{rendered}"
    );
    assert!(rendered.contains('^'), "no caret in:\n{rendered}");
}

#[test]
fn undeclared_identifier() {
    let r = errors("__global__ void k(int* p) {\n    p[0] = foo + 1;\n}\n");
    has(
        &r,
        "error[E0001]: use of undeclared identifier `foo`",
        "p[0] = foo + 1;",
    );
    assert!(r.contains("test.cu:2:12"), "{r}");
    assert!(r.contains("^^^"), "{r}");
}

#[test]
fn managed_variables_follow_nvccs_rules() {
    // Each of these nvcc 13.5 rejects too.
    for (src, message, at) in [
        (
            "__managed__ __shared__ int m;",
            "`__managed__` variables cannot be `__shared__` or `__constant__`",
            "__managed__",
        ),
        (
            "__constant__ __managed__ int m;",
            "`__managed__` variables cannot be `__shared__` or `__constant__`",
            "__constant__",
        ),
        (
            "__managed__ const int m = 1;",
            "a `__managed__` variable cannot have a `const` type",
            "__managed__ const int m",
        ),
        (
            "__global__ void k() { __managed__ int m; }",
            "a `__managed__` variable inside a function must be `static`",
            "__managed__",
        ),
        (
            "__managed__ void f() {}",
            "a function cannot be `__managed__`",
            "__managed__",
        ),
    ] {
        let r = errors(src);
        assert!(r.contains("error[E0012]"), "{src}: {r}");
        has(&r, message, at);
    }
}

#[test]
fn unsupported_constructs() {
    for launch in ["child<<<1, 32>>>(o)", "child<int><<<g, b, 0, s>>>(o)"] {
        let src = format!(
            "template <class T = int> __global__ void child(int *o) {{}}\n\
             __global__ void k(int *o, dim3 g, dim3 b, int s) {{ {launch}; o[0] = 1 << 2; }}"
        );
        has(
            &errors(&src),
            "a kernel launch in device code (dynamic parallelism) is not supported by kernelc",
            launch,
        );
    }
    has(
        &errors("__global__ void k() { static int x = 0; }"),
        "`static` local variables are not supported by kernelc yet",
        "static int",
    );
    has(
        &errors(
            "struct V { __device__ virtual int f() { return 0; } };\n__global__ void k(V *v) {}",
        ),
        "classes with virtual functions are not supported by kernelc",
        "virtual",
    );
    has(
        &errors("template <template <int> class C>\n__global__ void k(int *b) {}"),
        "kernelc supports template template parameters of type parameters only",
        "template",
    );
    has(
        &errors("__global__ void k(__grid_constant__ CUtensorMap m) { }"),
        "a `__grid_constant__` parameter must be `const`-qualified",
        "__grid_constant__ CUtensorMap m",
    );
    has(
        &errors("__device__ void f(const __grid_constant__ int x) { }"),
        "`__grid_constant__` applies only to parameters of a `__global__` function",
        "__grid_constant__",
    );
    has(
        &errors("__shared__ __grid_constant__ int s;"),
        "`__grid_constant__` applies only to parameters of a `__global__` function",
        "__grid_constant__",
    );
    has(
        &errors("__shared__ __align__(24) int s;"),
        "`__align__` takes a power of two",
        "24",
    );
    has(
        &errors("__global__ void k(float* p) { p[0] = j0f(0.5f); }"),
        "`j0f` is not supported by kernelc yet",
        "j0f",
    );
    has(
        &errors("__global__ void k() { try { } catch (...) { } }"),
        "exception handling is not supported by kernelc yet",
        "try",
    );
    has(
        &errors("void host() {}\n__global__ void k() { host(); }"),
        "calling host function `host` from device code is not allowed",
        "void host()",
    );
}

#[test]
fn assignment_to_const() {
    has(
        &errors("__global__ void k(const float* p) { p[0] = 1.0f; }"),
        "cannot assign to element of a `const float *` because it is `const`",
        "p[0] = 1.0f",
    );
    has(
        &errors("__global__ void k() { const int c = 1; c += 2; }"),
        "cannot assign to variable `c` because it is `const`",
        "c += 2",
    );
    has(
        &errors("__global__ void k(int a) { a + 1 = 2; }"),
        "expression is not assignable",
        "a + 1 = 2",
    );
    has(
        &errors("__global__ void k(const float* p) { float* q = p; }"),
        "discards the `const` qualifier",
        "float* q = p",
    );
}

#[test]
fn wrong_argument_count() {
    let r = errors(
        "__device__ int f(int a, int b) { return a; }\n__global__ void k(int* p) { p[0] = f(1); }",
    );
    has(
        &r,
        "too few arguments to function call `f`, expected 2, have 1",
        "p[0] = f(1)",
    );
    assert!(r.contains("`f` declared here"), "{r}");
    let r = errors(
        "__device__ int f(int a) { return a; }\n__global__ void k(int* p) { p[0] = f(1, 2); }",
    );
    has(&r, "too many arguments", "f(1, 2)");
}

#[test]
fn missing_return_type() {
    has(
        &errors("__global__ k() {}"),
        "missing return type for function `k`",
        "__global__ k()",
    );
}

#[test]
fn kernel_and_function_rules() {
    has(
        &errors("__global__ int k() { return 1; }"),
        "kernel `k` must return `void`",
        "__global__ int k()",
    );
    has(
        &errors("__device__ int f() { return; }"),
        "non-void function `f` must return a value",
        "return;",
    );
    has(
        &errors("__device__ int f(int x);\n__global__ void k(int* p) { p[0] = f(1); }"),
        "function `f` is called but never defined",
        "p[0] = f(1)",
    );
    has(
        &errors(
            "__global__ void k(int* p) { p[0] = g(1); }\n__device__ int g(int x) { return x; }",
        ),
        "use of undeclared identifier `g`",
        "p[0] = g(1)",
    );
    has(
        &errors("__device__ int f(int x) { return x; }\n__device__ float f(int x) { return x; }"),
        "conflicting types for `f`",
        "float f(int x)",
    );
    has(
        &errors("__global__ void k() { break; }"),
        "`break` statement not in a loop",
        "break;",
    );
    has(
        &errors("__global__ void k(int n) { int n = 2; }"),
        "redefinition of `n`",
        "int n = 2",
    );
    has(
        &errors("__global__ void k(int x) { x = threadIdx.w; }"),
        "`threadIdx` has no member `w`",
        "threadIdx.w",
    );
    has(
        &errors("__global__ void k(int x) { int* p = &(x + 1); }"),
        "cannot take the address of an rvalue",
        "&(x + 1)",
    );
    has(
        &errors("__global__ void k(float* p) { p[0] = p; }"),
        "cannot convert `float *` to `float` in assignment",
        "p[0] = p",
    );
}

#[test]
fn syntax_errors_and_sorting() {
    let r = errors("__global__ void k() {\n    int x = ;\n    float y = 1.0f\n}\n");
    has(&r, "expected an expression, found `;`", "int x = ;");
    has(&r, "expected `;` after declaration", "float y");
    assert!(
        r.find("int x").unwrap() < r.find("float y").unwrap(),
        "sorted by position"
    );
}

#[test]
fn many_semantic_errors_reported_together() {
    let r = errors("__global__ void k(int* p) {\n  p[0] = a;\n  p[1] = b;\n  p[2] = c;\n}");
    for n in ["`a`", "`b`", "`c`"] {
        assert!(
            r.contains(&format!("use of undeclared identifier {n}")),
            "{r}"
        );
    }
}

/// A declaration that fails (an `auto` variable, a reference, a function
/// or lambda whose return type comes from a `return` with an error) is one
/// error: its later uses are not reported again as undeclared names or as
/// `void` values.
#[test]
fn a_failed_declaration_is_one_error() {
    for (src, name) in [
        (
            "__global__ void k(float *o) { auto x = a; o[0] = x; o[1] = x + 1.f; }",
            "`a`",
        ),
        (
            "__global__ void k(float *o) { const float &r = a; o[0] = r; }",
            "`a`",
        ),
        (
            "__global__ void k(float *o) { undefined_t y = 1; o[0] = y; }",
            "`undefined_t`",
        ),
        (
            "__global__ void k(float *o) { auto f = [](float v) { return v + a; }; o[0] = f(1.f); }",
            "`a`",
        ),
        (
            "__device__ auto g(float v) { return v * a; }\n__global__ void k(float *o) { o[0] = g(2.f); }",
            "`a`",
        ),
    ] {
        let r = errors(src);
        assert_eq!(r.matches("error[").count(), 1, "{src}:\n{r}");
        assert!(r.contains(name), "{src}:\n{r}");
    }
    // A name failed in an inner scope is unknown outside it, as before.
    let r = errors("__global__ void k(float *o) { { auto x = a; } o[0] = x; }");
    assert_eq!(r.matches("error[").count(), 2, "{r}");
    assert!(r.contains("use of undeclared identifier `x`"), "{r}");
}

/// `return {...};` needs a return type to initialize: with `auto` or
/// `void` it is a located E0004 (nvcc refuses both too).
#[test]
fn a_returned_braced_list_needs_a_return_type() {
    for (src, message) in [
        (
            "__device__ auto f() { return {1, 2}; }",
            "a braced list gives no type to deduce the return type from",
        ),
        (
            "__device__ void f() { return {}; }",
            "a braced list has no type here",
        ),
    ] {
        let r = errors(src);
        has(&r, &format!("error[E0004]: {message}"), "return {");
        assert_eq!(r.matches("error[").count(), 1, "{src}:\n{r}");
    }
}

/// A declaration as an `if` condition has one declarator and an
/// initializer (nvcc refuses the others too).
#[test]
fn a_condition_declaration_is_one_initialized_variable() {
    for (src, message, line) in [
        (
            "__global__ void k(int *o) {\n  if (int x) o[0] = x;\n}",
            "the declaration in the `if` condition needs an initializer",
            "if (int x)",
        ),
        (
            "__global__ void k(int *o) {\n  if (int x = 1, y = 2) o[0] = x + y;\n}",
            "the `if` condition declares one variable",
            "if (int x = 1, y = 2)",
        ),
    ] {
        let r = errors(src);
        has(&r, &format!("error[E0003]: {message}"), line);
    }
}
