//! C++17 structured bindings in device code (issue 26): `auto [a, b] = s;`,
//! `auto &[x, y] = v;`, `const auto &[k, v] = t;` of classes (their own
//! members, a base's, bit-fields) and arrays, in kernels, device
//! functions, function templates and range-`for`. The fixture's buffers
//! from kernelc's PTX on the emulator, the IR interpreter and nvcc's PTX
//! on the emulator agree with the values its arithmetic gives; bad
//! declarations are located errors that nvcc rejects too.

mod common;

use common::{rejected_with, scratch, words_i32 as words};

/// `bindings` of bindings.cu, and its arguments for 64 threads.
const BINDINGS: (&str, &[&str]) = ("_Z8bindingsPKiPi", &["i32[]:rand:64:3", "i32[]:zeros:640"]);

/// What the fixture writes for the input's low byte `n`.
fn expected(n: i32) -> [i32; 10] {
    // After the reference loop the items are (1, 2), (n, 2n), (3, 6).
    let items = 1 + 2 + n + 2 * n + 3 + 6;
    [
        (n + 2) * 10 + 4,
        2 * n - 1,
        n + 2 + 10 + 100,
        (n & 7) * 100 + (n >> 3) + 1,
        (n + 3) + 4 + (n + 2),
        2 * n + 6,
        n + 3,
        items + 1 + n + 3,
        (n + 2) + 4 + n + 3 * n + n,
        (n + 1) * 2,
    ]
}

#[test]
fn structured_bindings_compute_what_nvcc_computes() {
    let fixture = common::root().join("tests/fixtures/bindings/bindings.cu");
    let runs = common::fixture_runs(&fixture, &scratch("bindings"), BINDINGS);
    let (text, ours) = (&runs.ptx, &runs.ours);
    assert!(text.contains(".entry _Z8bindingsPKiPi("), "{text}");
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &x) in ins.iter().enumerate() {
        assert_eq!(outs[10 * i..10 * i + 10], expected(x & 0xff), "thread {i}");
    }
    if let Some((nvcc_ptx, theirs)) = &runs.theirs {
        assert!(nvcc_ptx.contains(".entry _Z8bindingsPKiPi("), "{nvcc_ptx}");
        assert_eq!(ours, theirs, "nvcc's PTX");
    }
}

/// nvcc rejects `source` too, when it is there.
fn nvcc_rejects(source: &str, what: &str) {
    if let Some(o) = common::nvcc_run(source, "bindings-nvcc", what) {
        assert!(!o.status.success(), "nvcc accepts {what}:\n{source}");
    }
}

/// A bad declaration: kernelc's located error (exit 1, no output), and
/// nvcc's refusal of the same text.
fn refused(source: &str, code: &str, at: &str, says: &str) {
    let err = rejected_with("bindings-errors", source, code);
    assert!(err.contains(at), "{at} in {err}");
    assert!(err.contains(says), "{says} in {err}");
    nvcc_rejects(source, says);
}

#[test]
fn bad_structured_bindings_are_located_errors() {
    let pair = "struct P { int a; float b; float c; };\n";
    refused(
        &format!("{pair}__global__ void k(int *o, P *p) {{\n  auto [x, y] = p[0]; o[0] = x; }}\n"),
        "E0004",
        ":3:8",
        "`P` decomposes into 3 elements, but 2 names are given",
    );
    refused(
        "__global__ void k(int *o) {\n  int v[2] = {1, 2};\n  auto &[x, y, z] = v; o[0] = x; }\n",
        "E0004",
        ":3:9",
        "decomposes into 2 elements, but 3 names are given",
    );
    refused(
        "__global__ void k(int *o) {\n  auto [x] = o[0]; o[1] = x; }\n",
        "E0004",
        ":2:8",
        "cannot decompose a value of type `int`",
    );
    refused(
        "struct B { int x; };\nstruct D : B { int y; };\n__global__ void k(int *o) {\n  D d{};\n  auto [a, b] = d; o[0] = a + b; }\n",
        "E0004",
        ":5:8",
        "in `D` and in its base `B`",
    );
    refused(
        "__global__ void k(int *o) {\n  auto [a, b];\n  o[0] = 1; }\n",
        "E0003",
        ":2:14",
        "needs an initializer",
    );
    refused(
        "struct P { int a; int b; };\n__global__ void k(int *o, P *p) {\n  auto [a, a] = p[0]; o[0] = a; }\n",
        "E0006",
        ":3:12",
        "redefinition of `a`",
    );
    refused(
        "struct P { int a; int b; };\n__global__ void k(int *o, P *p) {\n  const auto &[a, b] = p[0]; a = 1; o[0] = b; }\n",
        "E0005",
        ":3:30",
        "const",
    );
    // Valid C++ kernelc does not compile: a bit-field through a reference.
    let err = rejected_with(
        "bindings-unsupported",
        "struct F { unsigned k : 3; unsigned n : 5; };\n__global__ void k(unsigned *o, F *f) {\n  auto &[a, b] = f[0]; o[0] = a + b; }\n",
        "E0002",
    );
    assert!(err.contains(":3:10"), "{err}");
    assert!(err.contains("bit-field `k` through a reference"), "{err}");
    // A class with a `get` template may be tuple-like (its `std::tuple_size`
    // specialization is host code kernelc does not read): refused, never
    // decomposed by its members, whose values could differ from nvcc's.
    for get in [
        "struct P { int a; int b; template <int I> __device__ int get() const { return I ? a : b; } };\n",
        "struct P { int a; int b; };\ntemplate <int I> __device__ int get(const P &p) { return I ? p.a : p.b; }\n",
    ] {
        let err = rejected_with(
            "bindings-tuple-like",
            &format!("{get}__global__ void k(int *o, P *p) {{\n  auto [x, y] = p[0]; o[0] = x - y; }}\n"),
            "E0002",
        );
        assert!(err.contains("the tuple-like protocol"), "{err}");
    }
}
