//! Structs and CUDA's vector types: layout (checked against offsets
//! computed by hand with C's rules, which nvcc's `static_assert`s
//! confirmed), member access, copies, initializers, struct parameters and
//! results of device functions, and module variables of struct type. The
//! kernels run in the IR interpreter and are compared with results computed
//! here.

mod common;

use common::{errors, ok};
use frontend::lower;
use kir_interp::{run_kernel, KernelArg, LaunchConfig};

/// Runs `kernel` of `src` on one block of `threads` threads; returns the
/// final contents of every buffer argument.
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

fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const TYPES: &str = "
struct Particle { float x, y; int id; double w; char tag[3]; };
typedef struct { int a; Particle p; } Wrap;
struct Mixed { char c; short s; char d; long long l; bool b; };
struct Inner { char c; double d; };
struct Outer { char a; Inner in[2]; int tail; };
struct V { char c; float4 v; };
";

/// `sizeof` and member offsets follow C's layout rules. The expected
/// numbers were computed by hand and confirmed by nvcc with
/// `static_assert(offsetof(...) == ...)`.
#[test]
fn layout_matches_nvcc() {
    let src = format!(
        "{TYPES}
__global__ void k(long *o) {{
    Particle p, three[3]; Wrap w; Mixed m; Outer ou; V v;
    o[0] = sizeof(Particle); o[1] = (char *)&p.w - (char *)&p; o[2] = (char *)&p.tag - (char *)&p;
    o[3] = sizeof(Wrap); o[4] = (char *)&w.p - (char *)&w;
    o[5] = sizeof(Mixed); o[6] = (char *)&m.s - (char *)&m; o[7] = (char *)&m.d - (char *)&m;
    o[8] = (char *)&m.l - (char *)&m; o[9] = (char *)&m.b - (char *)&m;
    o[10] = sizeof(Outer); o[11] = (char *)&ou.in - (char *)&ou; o[12] = (char *)&ou.tail - (char *)&ou;
    o[13] = (char *)&ou.in[1].d - (char *)&ou;
    o[14] = sizeof(V); o[15] = (char *)&v.v - (char *)&v;
    o[16] = sizeof(int2); o[17] = sizeof(int4); o[18] = sizeof(float4); o[19] = sizeof(double2);
    o[20] = sizeof(float3); o[21] = sizeof(char2); o[22] = sizeof(uchar3); o[23] = sizeof three;
}}"
    );
    let out = run(&src, "k", 1, vec![KernelArg::Buffer(vec![0; 24 * 8])]);
    assert_eq!(
        i64s(&out[0]),
        [32, 16, 24, 40, 8, 24, 2, 4, 8, 16, 48, 8, 40, 32, 32, 16, 8, 16, 16, 16, 12, 2, 3, 96]
    );
}

/// `struct __align__(N)` raises a struct's alignment (and so its size);
/// `__align__(N)` on a member raises that member's. A smaller `N` changes
/// nothing (nvcc warns that it is ignored). The `static_assert`s are the
/// ones nvcc 13.5 accepts for the same declarations.
#[test]
fn align_on_structs_and_members_matches_nvcc() {
    let src = "
struct __align__(16) A16 { float a; int b; };
static_assert(sizeof(A16) == 16, \"A16\");
struct W { char c; __align__(8) int x; };
static_assert(sizeof(W) == 16, \"W\");
struct X { char c; A16 v; };
static_assert(sizeof(X) == 32, \"X\");
typedef struct __align__(8) { float a; } T8;
static_assert(sizeof(T8) == 8, \"T8\");
struct __align__(4) Y { double d; };
static_assert(sizeof(Y) == 8, \"Y\");
__shared__ A16 tile[4];
static_assert(alignof(A16) == 16 && alignof(W) == 8 && alignof(T8) == 8 && alignof(Y) == 8, \"alignof\");
static_assert(offsetof(W, x) == 8 && offsetof(X, v) == 16 && offsetof(X, v.b) == 20, \"offsetof\");
struct Arr { char c; A16 a[3]; };
static_assert(offsetof(Arr, a[2].b) == 52 && sizeof(Arr) == 64, \"offsetof into arrays\");
__global__ void k(long *o) {
    W w; X x; T8 t[3];
    o[0] = (char *)&w.x - (char *)&w; o[1] = (char *)&x.v - (char *)&x; o[2] = sizeof t;
    o[3] = (char *)&tile[1] - (char *)&tile[0];
}";
    let out = run(src, "k", 1, vec![KernelArg::Buffer(vec![0; 4 * 8])]);
    assert_eq!(i64s(&out[0]), [8, 16, 24, 16]);
    let m = lower(&ok(src)).unwrap();
    let text = midend::text::write_module(&m, midend::text::PrintOptions::default());
    assert!(
        text.contains("shared [64 x i8] align 16") || text.contains("align 16"),
        "{text}"
    );
    let r = errors("struct __align__(3) S { int a; };\n__global__ void k(S *p) {}");
    assert!(r.contains("`__align__` takes a power of two"), "{r}");
    let r = errors("struct S { int a; };\nstatic_assert(offsetof(S, b) == 0);");
    assert!(r.contains("no member named `b` in `S`"), "{r}");
    let r = errors("struct __align__(16) S;\n__global__ void k(S *p) {}");
    assert!(
        r.contains("the alignment belongs to a struct definition"),
        "{r}"
    );
}

/// Alignment reaches the IR: a struct module variable and a stack slot get
/// the struct's alignment.
#[test]
fn alignment_of_globals_and_slots() {
    let src = "__device__ double2 g; __global__ void k(float *o) { float4 v = make_float4(1, 2, 3, 4); g.x = v.w; o[0] = v.x; }";
    let m = lower(&ok(src)).unwrap();
    let text = midend::text::write_module(&m, midend::text::PrintOptions::default());
    assert!(text.contains("align 16"), "{text}");
}

/// Member access through `.`, `->` and `p[i].x`, struct copies, brace
/// initializers with nested structs and arrays, struct parameters (by
/// value: the callee's changes stay local) and struct results.
#[test]
fn structs_compute_like_c() {
    let src = format!(
        "{TYPES}
__device__ Particle g_parts[4];
__constant__ Particle c_part = {{1.0f, 2.0f, 3, 4.0, {{1, 2, 3}}}};
__device__ Particle mk(float x, int id) {{
    Particle p = {{x, 0.0f, id, 1.0, {{0}}}};
    p.y = x * 2.0f;
    return p;
}}
__device__ float sum(Particle p) {{ p.x += 1.0f; return p.x + p.y + p.id; }}
__global__ void k(Particle *ps, float *out) {{
    int i = threadIdx.x;
    Particle q = ps[i];
    ps[i].x += 1.5f;
    Particle *r = &ps[i];
    r->y = q.x;
    Wrap w;
    w.p = mk(q.x, i);
    w.a = sizeof(Particle) + sizeof(Wrap);
    Particle arr[2] = {{q, w.p}};
    arr[1].tag[2] = 7;
    g_parts[i % 4] = arr[i & 1];
    float s = sum(arr[1]);
    out[i * 4] = s;
    out[i * 4 + 1] = arr[1].x + w.a + c_part.w + arr[1].tag[2];
    out[i * 4 + 2] = g_parts[i % 4].x + q.x;
    out[i * 4 + 3] = w.p.y + c_part.tag[2];
}}"
    );
    let n = 4;
    let mut ps = Vec::new();
    for i in 0..n {
        let mut rec = vec![0u8; 32];
        rec[0..4].copy_from_slice(&(i as f32 + 0.25).to_le_bytes());
        rec[4..8].copy_from_slice(&(10.0f32).to_le_bytes());
        rec[8..12].copy_from_slice(&(100 + i as i32).to_le_bytes());
        ps.extend(rec);
    }
    let out = run(
        &src,
        "k",
        n as u32,
        vec![KernelArg::Buffer(ps), KernelArg::Buffer(vec![0; n * 16])],
    );
    let got = f32s(&out[1]);
    let parts = &out[0];
    for i in 0..n {
        let x = i as f32 + 0.25;
        // sum(arr[1]): the copy of mk(x, i) = {x, 2x, i}, with x + 1.
        assert_eq!(got[i * 4], (x + 1.0) + 2.0 * x + i as f32, "thread {i}");
        assert_eq!(got[i * 4 + 1], x + 72.0 + 4.0 + 7.0, "thread {i}");
        // g_parts[i % 4] is q (even i) or mk(q.x, i) (odd i): x either way.
        assert_eq!(got[i * 4 + 2], x + x, "thread {i}");
        assert_eq!(got[i * 4 + 3], 2.0 * x + 3.0, "thread {i}");
        // ps[i].x += 1.5 and ps[i].y = old x; id untouched.
        let rec = &parts[i * 32..i * 32 + 32];
        assert_eq!(f32s(&rec[0..8]), [x + 1.5, x]);
        assert_eq!(
            i32::from_le_bytes(rec[8..12].try_into().unwrap()),
            100 + i as i32
        );
    }
}

/// CUDA vector types: `make_*`, `.x/.y/.z/.w`, copies through pointers.
#[test]
fn vector_types_compute_like_cuda() {
    let src = "__global__ void v(float4 *a, int2 *b, double2 *d) {
        int i = threadIdx.x;
        float4 x = a[i];
        int2 q = make_int2(i, 2 * i);
        x.w = x.x + x.y + x.z;
        a[i] = x;
        b[i] = q;
        d[i] = make_double2(x.w, q.y);
    }";
    let n = 3usize;
    let a: Vec<u8> = (0..n * 4).flat_map(|k| (k as f32).to_le_bytes()).collect();
    let out = run(
        src,
        "v",
        n as u32,
        vec![
            KernelArg::Buffer(a),
            KernelArg::Buffer(vec![0; n * 8]),
            KernelArg::Buffer(vec![0; n * 16]),
        ],
    );
    let a = f32s(&out[0]);
    for i in 0..n {
        let base = (i * 4) as f32;
        let w = base + (base + 1.0) + (base + 2.0);
        assert_eq!(a[i * 4..i * 4 + 4], [base, base + 1.0, base + 2.0, w]);
        let b: Vec<i32> = out[1][i * 8..i * 8 + 8]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(b, [i as i32, 2 * i as i32]);
        let d: Vec<f64> = out[2][i * 16..i * 16 + 16]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(d, [f64::from(w), 2.0 * i as f64]);
    }
}

/// `__shared__` arrays of structs, and a struct assigned as a whole from
/// a `?:` of two structs.
#[test]
fn shared_structs_and_conditional_copies() {
    let src = "struct P { int a; float b; };
    __global__ void k(int *o) {
        __shared__ P tile[8];
        int t = threadIdx.x;
        P mine = {t, t * 0.5f};
        tile[t] = mine;
        __syncthreads();
        P other = tile[(t + 1) % 8];
        P pick = (t & 1) ? other : mine;
        o[t] = pick.a * 10 + (int)(pick.b * 2);
    }";
    let out = run(src, "k", 8, vec![KernelArg::Buffer(vec![0; 32])]);
    let got: Vec<i32> = out[0]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<i32> = (0..8)
        .map(|t| {
            let s = if t & 1 == 1 { (t + 1) % 8 } else { t };
            s * 10 + s
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn struct_diagnostics() {
    // By-value struct kernel parameters are accepted now (a `.param`
    // aggregate); one of an incomplete struct type is still an error.
    let e = errors("struct S; __global__ void k(S s) { }");
    assert!(e.contains("incomplete type `S`"), "{e}");
    let e = errors("struct S { int a; }; __global__ void k(S *p) { p.a = 1; }");
    assert!(
        e.contains("is not a struct") && e.contains("use `->`"),
        "{e}"
    );
    let e = errors("struct S { int a; }; __global__ void k(S *p) { p->b = 1; }");
    assert!(e.contains("no member named `b` in `S`"), "{e}");
    // A pointer to a class never defined is fine; reaching into it is not
    // (tests/incomplete_types.rs has the rest).
    let e = errors("__global__ void k(int *o) { struct T *p = nullptr; *o = p->x; }");
    assert!(e.contains("incomplete type `T`"), "{e}");
    // Bit-fields are read and written (tests/bit_fields.rs, tests/classes.rs);
    // one has no address.
    let e = errors("struct S { int a : 3; };\n__global__ void k(S *p) { int *q = &p->a; }");
    assert!(e.contains("address of a bit-field"), "{e}");
    let e = errors("struct S { int a; int a; };\n__global__ void k(S *p) {}");
    assert!(e.contains("duplicate member `a`"), "{e}");
    let e = errors("struct S { int a; }; __global__ void k(const S *p) { p->a = 1; }");
    assert!(e.contains("const"), "{e}");
    let e = errors("struct S { int a; }; __constant__ S c; __global__ void k() { c.a = 1; }");
    assert!(
        e.contains("`__constant__` variables cannot be written"),
        "{e}"
    );
    let e = errors("struct S { int a; }; __global__ void k(float *o) { S s; o[0] = s + 1; }");
    assert!(e.contains("invalid operands"), "{e}");
    let e = errors("__global__ void k() { float4 v = make_float4(1, 2); }");
    assert!(e.contains("takes 4 arguments"), "{e}");
}
