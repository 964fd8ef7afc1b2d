//! Switch, enums, typedefs, constant expressions, arrays, address-taken
//! locals, module variables and launch bounds.

mod common;

use common::{errors, ok};
use frontend::typed::{ExprKind, MemSpace, StmtKind, Unroll};
use frontend::{lower, CType};
use midend::text::{write_module, PrintOptions};

fn ir(src: &str) -> String {
    let m = lower(&ok(src)).unwrap_or_else(|d| panic!("{d:?}"));
    write_module(&m, PrintOptions::default())
}

#[test]
fn switch_with_fallthrough_default_and_break() {
    let p = ok("enum { A, B = 4, C };\n__device__ int f(int m) { int r = 0;\n\
        switch (m) { case A: r = 1; break; case B: r = 2; case C: r += 3; break; default: r = -1; }\n\
        return r; }");
    let StmtKind::Switch { cases, default, .. } = &p.functions[0].body.stmts[1].kind else {
        panic!()
    };
    assert_eq!(cases, &[(0, 0), (4, 1), (5, 2)]);
    assert_eq!(*default, Some(3));
    let text = ir(
        "__device__ int f(int m) { switch (m) { case 1: return 5; default: break; } return 0; }",
    );
    assert!(text.contains("icmp eq"), "{text}");
}

#[test]
fn switch_errors() {
    assert!(
        errors("__global__ void k(int m) { switch (m) { case 1: case 1: break; } }")
            .contains("duplicate `case` value 1")
    );
    assert!(
        errors("__global__ void k(int m, int n) { switch (m) { case n: break; } }")
            .contains("must be an integer constant expression")
    );
    assert!(errors("__global__ void k(int m) { case 1: ; }").contains("not within a `switch`"));
    assert!(
        errors("__global__ void k(int m) { switch (m) { default: default: ; } }")
            .contains("multiple `default`")
    );
    assert!(
        errors("__global__ void k(int m) { switch (m) { case 1: continue; } }")
            .contains("`continue` statement not in a loop")
    );
}

#[test]
fn typedef_enum_sizeof_and_constants() {
    let p = ok(
        "typedef unsigned int u32; typedef const float cf;\nconst int N = 3 * 4;\n\
        enum E { X = N, Y };\n__global__ void k(u32 *o) { cf c = 1.0f; int a[Y][2];\n\
        o[0] = sizeof(a) + sizeof(u32) + sizeof a[0] + warpSize + (u32)c; }",
    );
    let f = &p.functions[0];
    assert_eq!(
        f.locals[2].ty.to_string(),
        "int[13][2]",
        "{:?}",
        f.locals[2].ty
    );
    assert!(f.locals[1].is_const);
    assert!(errors("__global__ void k() { int n = 2; int a[n]; }")
        .contains("array size must be an integer constant expression"));
    assert!(errors("__global__ void k() { int a[0]; }").contains("invalid array size 0"));
}

#[test]
fn local_arrays_and_address_taken_locals_live_in_memory() {
    let p = ok(
        "__global__ void k(float *o) { float a[2][3] = {{1, 2}, {3}}; int x = 1; int y = 2;\n\
        int *p = &x; *p = 3; o[0] = a[1][0] + x + y; }",
    );
    let f = &p.functions[0];
    let mem: Vec<bool> = f.locals.iter().map(|l| l.in_memory).collect();
    assert_eq!(mem, [false, true, true, false, false]);
    let StmtKind::Decl {
        list: Some(list), ..
    } = &f.body.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(list.len(), 6);
    assert_eq!(list[3].0, 12);
    assert!(matches!(list[4].1.kind, ExprKind::FloatConst(x) if x == 0.0));
    let text = ir("__global__ void k(int *o) { int a[4] = {1, 2, 3, 4}; int x; int *p = &x; *p = a[o[0]]; o[1] = x; }");
    assert!(text.contains("ss0 = stack 16, align 4"), "{text}");
    assert!(text.contains("ss1 = stack 4, align 4"), "{text}");
    assert!(text.contains("stack_addr ss0"), "{text}");
    // Unsized arrays take their length from the initializer.
    let p = ok("__global__ void k() { int a[] = {1, 2, 3}; }");
    assert_eq!(p.functions[0].locals[0].ty.size(), Some(12));
    assert!(errors("__global__ void k() { int a[2] = {1, 2, 3}; }").contains("excess elements"));
    assert!(errors("__global__ void k() { int a[2]; int b[2]; a = b; }")
        .contains("arrays cannot be assigned"));
}

#[test]
fn module_variables() {
    let p = ok("__constant__ float c[3] = {1.0f, 2.0f};\n__device__ int d = -2;\n\
        __shared__ int s; extern __shared__ float dyn[];\n\
        __global__ void __launch_bounds__(128, 4) k(float *o) { __shared__ float t[8]; __shared__ float t2;\n\
        t[threadIdx.x] = c[1] + d + dyn[0]; s = 1; t2 = 0; o[0] = t[0]; }");
    let g: Vec<(&str, MemSpace, Option<u64>)> = p
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.space, g.ty.size()))
        .collect();
    assert_eq!(
        g,
        [
            ("c", MemSpace::Constant, Some(12)),
            ("d", MemSpace::Device, Some(4)),
            ("s", MemSpace::Shared, Some(4)),
            ("dyn", MemSpace::Shared, None),
            ("_ZZ1kPfE1t", MemSpace::Shared, Some(32)),
            ("_ZZ1kPfE2t2", MemSpace::Shared, Some(4)),
        ]
    );
    assert_eq!(
        p.globals[0].init.as_deref(),
        Some(&[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0, 0][..])
    );
    assert_eq!(
        p.globals[1].init.as_deref(),
        Some(&[0xfe, 0xff, 0xff, 0xff][..])
    );
    assert!(p.globals[3].dynamic);
    assert_eq!(p.functions[0].launch_bounds, Some((128, Some(4))));
    let text = ir("__shared__ float t[4];\n__global__ void k(float *o) { t[0] = 1; o[0] = t[0]; }");
    // Without `-rdc` the module is the whole device program: internal.
    assert!(
        text.contains("gv0 = shared internal @t, size 16, align 4"),
        "{text}"
    );
    assert!(text.contains("global_addr.ptr<shared> gv0"), "{text}");
}

#[test]
fn module_variable_errors() {
    assert!(
        errors("__constant__ int c = 1;\n__global__ void k() { c = 2; }")
            .contains("`__constant__` variables cannot be written")
    );
    assert!(
        errors("__constant__ int c[2];\n__global__ void k() { c[0] = 2; }")
            .contains("`__constant__` variables cannot be written")
    );
    assert!(errors("__shared__ int s = 1;").contains("cannot have an initializer"));
    // A host variable is skipped, and named when device code uses it; a
    // `const` one is kept for device code, which reads only integers.
    let host = errors("int g;\n__global__ void k(int *o) { o[0] = g; }");
    assert!(host.contains("error[E0017]: host variable `g` cannot be used in device code"));
    assert!(host.contains("declared here without `__device__` or `__constant__`"));
    assert!(
        errors("const float g = 1;\n__global__ void k(float *o) { o[0] = g; }")
            .contains("without a memory space")
    );
    assert!(errors("extern __device__ int g;").contains("`extern` variables are supported"));
    assert!(errors("__device__ int g = 1; __device__ int h = g;").contains("must be a constant"));
    assert!(!errors("__device__ void f() __launch_bounds__(32) {}").is_empty());
    assert!(errors("__launch_bounds__(32) __device__ void f() {}")
        .contains("applies only to `__global__`"));
}

#[test]
fn pragma_unroll_is_recorded() {
    let p = ok(
        "__global__ void k(int *o) {\n#pragma unroll\nfor (int i = 0; i < 4; ++i) o[i] = 0;\n\
        #pragma unroll 2\nwhile (o[0]) o[0]--;\n}",
    );
    let body = &p.functions[0].body.stmts;
    assert!(matches!(
        body[0].kind,
        StmtKind::For {
            unroll: Some(Unroll::Full),
            ..
        }
    ));
    assert!(matches!(
        body[1].kind,
        StmtKind::While {
            unroll: Some(Unroll::Count(2)),
            ..
        }
    ));
    assert!(
        errors("__global__ void k(int *o) {\n#pragma unroll 0\nfor (;;) {}\n}")
            .contains("positive integer constant")
    );
}

#[test]
fn array_parameter_is_a_pointer() {
    let p = ok("__device__ float f(float a[], float m[][4]) { return a[0] + m[1][2]; }");
    assert_eq!(p.functions[0].params[0].ty, CType::ptr_to(CType::FLOAT));
    assert_eq!(p.functions[0].params[1].ty.to_string(), "float[4] *");
    // A call passes arrays (and pointers) to them: the function's
    // signature adjusts its parameters as its definition does.
    ok(
        "__device__ unsigned char med(unsigned char v[9]) { return v[4]; }\n\
        __device__ float g(float a[3], float m[][4]) { return a[0] + m[1][2]; }\n\
        __global__ void k(float *o, unsigned char *q) { unsigned char r[9] = {}; q[0] = med(r);\n\
        float a[3] = {}; float m[2][4] = {}; o[0] = g(a, m) + g(o, m); }",
    );
}
