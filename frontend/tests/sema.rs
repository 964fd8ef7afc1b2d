//! Semantic analysis: C conversions, pointer arithmetic, typed-tree shape.

mod common;

use common::{is_cast, ok, ty, typed_expr};
use frontend::typed::{CastKind, ExprKind, Place, StmtKind};
use frontend::CType;

const UINT: CType = CType::UINT;
const INT: CType = CType::INT;
const LONG: CType = CType::LONG;
const ULONG: CType = CType::ULONG;

#[test]
fn usual_arithmetic_conversions() {
    assert_eq!(ty("i + u"), UINT);
    assert_eq!(ty("i + l"), LONG);
    assert_eq!(ty("u + l"), LONG);
    assert_eq!(ty("ul + ll"), ULONG);
    assert_eq!(ty("ull + l"), ULONG);
    assert_eq!(ty("c + c"), INT);
    assert_eq!(ty("s * b"), INT);
    assert_eq!(ty("f + d"), CType::DOUBLE);
    assert_eq!(ty("i + f"), CType::FLOAT);
    assert_eq!(ty("ul * f"), CType::FLOAT);
    assert_eq!(ty("i % u"), UINT);
    assert_eq!(ty("c << l"), INT);
    assert_eq!(ty("u >> i"), UINT);
    assert_eq!(ty("-c"), INT);
    assert_eq!(ty("~u"), UINT);
    assert_eq!(ty("!f"), INT);
    assert_eq!(ty("i < u"), INT);
    assert_eq!(ty("f && p"), INT);
    assert_eq!(ty("b ? i : d"), CType::DOUBLE);
    assert_eq!(ty("sizeof(double)"), ULONG);
    // C++: a character literal is a `char`; `?:` of one type keeps it.
    assert_eq!(ty("'a'"), CType::CHAR);
    assert_eq!(ty("b ? c : c"), CType::CHAR);
    assert_eq!(ty("b ? c : i"), INT);
    assert_eq!(ty("threadIdx.x"), UINT);
    assert_eq!(ty("(i, f)"), CType::FLOAT);
}

#[test]
fn conversions_are_explicit_nodes() {
    let e = typed_expr("i + u");
    let ExprKind::Binary { lhs, rhs, .. } = &e.kind else {
        panic!("{e:?}")
    };
    assert!(matches!(
        lhs.kind,
        ExprKind::Cast {
            kind: CastKind::IntToInt,
            ..
        }
    ));
    assert_eq!(lhs.ty, UINT);
    assert!(!is_cast(rhs));
    let e = typed_expr("f * 2");
    let ExprKind::Binary { rhs, .. } = &e.kind else {
        panic!()
    };
    assert!(matches!(
        rhs.kind,
        ExprKind::Cast {
            kind: CastKind::IntToFloat,
            ..
        }
    ));
    // Conditions are converted to bool.
    let e = typed_expr("i && p");
    let ExprKind::Logical { lhs, rhs, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(lhs.ty, CType::Bool);
    assert!(matches!(
        rhs.kind,
        ExprKind::Cast {
            kind: CastKind::ToBool,
            ..
        }
    ));
    // Shift count converted to the (promoted) left type.
    let e = typed_expr("i << l");
    let ExprKind::Binary { rhs, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(rhs.ty, INT);
}

#[test]
fn pointer_arithmetic() {
    assert_eq!(ty("p + i"), CType::ptr_to(INT));
    assert_eq!(ty("i + p"), CType::ptr_to(INT));
    assert_eq!(ty("p - 1"), CType::ptr_to(INT));
    assert_eq!(ty("p - p"), LONG);
    assert_eq!(ty("p[i]"), INT);
    assert_eq!(ty("*fp"), CType::FLOAT);
    assert_eq!(ty("p < p"), INT);
    assert_eq!(ty("p == 0"), INT);
    assert_eq!(ty("&fp[3]"), CType::ptr_to(CType::FLOAT));
    let e = typed_expr("fp + u");
    let ExprKind::PtrAdd {
        offset, elem_size, ..
    } = &e.kind
    else {
        panic!("{e:?}")
    };
    assert_eq!(*elem_size, 4);
    assert_eq!(offset.ty, ULONG); // zero-extended
    let e = typed_expr("p - p");
    assert!(matches!(e.kind, ExprKind::PtrDiff { elem_size: 4, .. }));
    let e = typed_expr("fp[i]");
    let ExprKind::Index { index, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(index.ty, LONG); // sign-extended
}

#[test]
fn assignments_and_inc_dec() {
    let e = typed_expr("i = f");
    let ExprKind::Assign { target, op, value } = &e.kind else {
        panic!()
    };
    assert!(matches!(target, Place::Local(_)));
    assert!(op.is_none());
    assert!(matches!(
        value.kind,
        ExprKind::Cast {
            kind: CastKind::FloatToInt,
            ..
        }
    ));
    let e = typed_expr("c += 1");
    let ExprKind::Assign { op, value, .. } = &e.kind else {
        panic!()
    };
    assert!(op.is_some());
    assert_eq!(
        value.ty,
        CType::Int {
            bits: 8,
            signed: true
        }
    );
    let e = typed_expr("fp++");
    assert!(matches!(e.kind, ExprKind::IncDec { pre: false, .. }));
    let e = typed_expr("fp[0] *= 2");
    assert!(matches!(
        e.kind,
        ExprKind::Assign {
            target: Place::Index { .. },
            ..
        }
    ));
    assert_eq!(
        ty("cfp = fp"),
        CType::Pointer {
            pointee: Box::new(CType::FLOAT),
            pointee_const: true,
            pointee_volatile: false,
            restrict: false,
        }
    );
    assert_eq!(ty("p = 0"), CType::ptr_to(INT));
    assert_eq!(ty("vp = p"), CType::ptr_to(CType::Void));
    assert_eq!(ty("b = p"), CType::Bool);
}

#[test]
fn casts() {
    let e = typed_expr("(float)i");
    assert!(matches!(
        e.kind,
        ExprKind::Cast {
            kind: CastKind::IntToFloat,
            ..
        }
    ));
    let e = typed_expr("(unsigned long)p");
    assert!(matches!(
        e.kind,
        ExprKind::Cast {
            kind: CastKind::PtrToInt,
            ..
        }
    ));
    let e = typed_expr("(float*)p");
    assert!(matches!(
        e.kind,
        ExprKind::Cast {
            kind: CastKind::PtrToPtr,
            ..
        }
    ));
    let e = typed_expr("(void)i");
    assert_eq!(e.ty, CType::Void);
    let e = typed_expr("(bool)f");
    assert!(matches!(
        e.kind,
        ExprKind::Cast {
            kind: CastKind::ToBool,
            ..
        }
    ));
}

const KERNELS: &str = r#"
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
__device__ float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) { acc += A[row * n + k] * B[k * n + col]; }
    int j = 0; while (j < 4) { if (acc > 100.0f) break; acc *= 0.5f; j++; }
    do { acc -= 1.0; } while (acc > 10.0);
    C[row * n + col] = clampf(acc, -1.0f, 1.0f);
}
"#;

#[test]
fn example_kernels_type_check() {
    let prog = ok(KERNELS);
    let names: Vec<_> = prog.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["vadd", "saxpy", "clampf", "matmul"]);
    let vadd = &prog.functions[0];
    assert!(vadd.is_kernel && vadd.is_extern_c);
    assert_eq!(vadd.locals.len(), 5);
    assert_eq!(vadd.locals[4].name, "i");
    let saxpy = &prog.functions[1];
    assert!(saxpy.params[2].restrict && saxpy.params[3].restrict);
    assert!(!saxpy.params[0].restrict);
    let clampf = &prog.functions[2];
    assert!(!clampf.is_kernel);
    assert_eq!(clampf.ret, CType::FLOAT);
    let matmul = &prog.functions[3];
    let call_found = format!("{:?}", matmul.body).contains("Call { callee: FuncId(2)");
    assert!(call_found);
    // `row >= n` compares as unsigned: `n` is converted.
    assert_eq!(matmul.locals[4].ty, UINT);
}

#[test]
fn scoping_shadowing_and_prototypes() {
    let prog = ok(r#"
__device__ int twice(int x);
__global__ void k(int* out) {
    int x = 1;
    { int x = 2; out[0] = x; }
    for (int x = 0; x < 3; x++) out[x] = twice(x);
    out[1] = x;
}
__device__ int twice(int x) { return 2 * x; }
"#);
    assert_eq!(prog.functions.len(), 2);
    let k = &prog.functions[0];
    assert_eq!(k.locals.len(), 4);
    let StmtKind::Decl { local, .. } = &k.body.stmts[0].kind else {
        panic!()
    };
    // The last statement reads the outer `x`.
    let last = format!("{:?}", k.body.stmts.last().unwrap());
    assert!(last.contains(&format!("Local({local:?})")), "{last}");
}

#[test]
fn return_values_convert() {
    let prog = ok("__device__ double f(int i) { return i; } __device__ void g() { return; }");
    let StmtKind::Return(Some(e)) = &prog.functions[0].body.stmts[0].kind else {
        panic!()
    };
    assert!(matches!(
        e.kind,
        ExprKind::Cast {
            kind: CastKind::IntToFloat,
            ..
        }
    ));
}

#[test]
fn syncthreads_and_builtins() {
    let prog = ok("__global__ void k() { __syncthreads(); unsigned z = gridDim.z; }");
    let s = format!("{:?}", prog.functions[0].body);
    assert!(s.contains("SyncThreads"));
    assert!(s.contains("Builtin(GridDim, Z)"));
}
