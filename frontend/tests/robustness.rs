//! The frontend never panics: garbage, truncation and deep nesting all end
//! in diagnostics (or success), never a crash or stack overflow.

use frontend::{check, render_diagnostics, Options};

const KERNEL: &str = r#"#define N 4
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) { acc += A[row * n + k] * B[k * n + col]; }
    int j = 0; while (j < N) { if (acc > 100.0f) break; acc *= 0.5f; j++; }
    do { acc -= 1.0; } while (acc > 10.0);
    C[row * n + col] = acc > 1 ? 1.0f : (float)(char)'\x41' + sizeof(long) - (A - B);
}
"#;

/// Checks and renders; the point is that neither panics.
fn run(src: &str) {
    if let Err(d) = check(src, &Options::default()) {
        assert!(!d.is_empty());
        let _ = render_diagnostics("fuzz.cu", src, &d);
    }
}

/// A small deterministic PRNG (xorshift) so the test needs no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn every_truncation_of_a_kernel() {
    for end in 0..=KERNEL.len() {
        if KERNEL.is_char_boundary(end) {
            run(&KERNEL[..end]);
        }
    }
}

#[test]
fn random_bytes_and_token_soup() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let pieces = [
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ";",
        ",",
        "int",
        "float*",
        "x",
        "=",
        "+",
        "?",
        ":",
        "__global__",
        "void",
        "f",
        "1",
        "2.5f",
        "'a'",
        "\"s\"",
        "#define",
        "\n",
        "&",
        "*",
        "->",
        ".",
        "if",
        "for",
        "while",
        "do",
        "return",
        "const",
        "extern",
        "\"C\"",
        "threadIdx",
        "sizeof",
        "++",
        "<<=",
    ];
    for _ in 0..400 {
        let len = (rng.next() % 60) as usize;
        let soup: String = (0..len)
            .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ");
        run(&soup);
        let bytes: Vec<u8> = (0..len).map(|_| (rng.next() % 256) as u8).collect();
        run(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn random_mutations_of_a_kernel() {
    let mut rng = Rng(12345);
    let src = KERNEL.as_bytes();
    for _ in 0..300 {
        let mut b = src.to_vec();
        for _ in 0..3 {
            let i = (rng.next() % b.len() as u64) as usize;
            match rng.next() % 3 {
                0 => b[i] = (rng.next() % 128) as u8,
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b"(){};*&"[(rng.next() % 7) as usize]),
            }
        }
        run(&String::from_utf8_lossy(&b));
    }
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    for (open, close) in [
        ("(", ")"),
        ("-", ""),
        ("{", "}"),
        ("if (1) ", ""),
        ("x = ", ""),
        ("!", ""),
    ] {
        let body = format!("{}1{};", open.repeat(5000), close.repeat(5000));
        let src = format!("__global__ void k(int x) {{ {body} }}");
        let err = check(&src, &Options::default()).expect_err("too deep");
        assert!(
            err.iter()
                .any(|d| d.message == "expression nests too deeply"),
            "{open}: {err:?}"
        );
    }
    let chain = format!(
        "__global__ void k(int x) {{ x = {}1; }}",
        "x + ".repeat(5000)
    );
    let err = check(&chain, &Options::default()).expect_err("too deep");
    assert!(err
        .iter()
        .any(|d| d.message == "expression nests too deeply"));
    // Moderate nesting is fine.
    let ok = format!(
        "__global__ void k(int x) {{ x = {}1{}; }}",
        "(".repeat(40),
        ")".repeat(40)
    );
    assert!(check(&ok, &Options::default()).is_ok());
}

#[test]
fn rendering_clamps_bad_spans() {
    let d = vec![frontend::Diagnostic::error(
        frontend::Span { start: 3, end: 999 },
        "boom",
    )];
    let out = render_diagnostics("x.cu", "aé b", &d);
    assert!(out.contains("boom"));
}

/// A kernel written with the C++ spellings and the preprocessor's `#`,
/// `##` and `__VA_ARGS__`: every truncation and random mutation is checked
/// and, when it passes, lowered, without a panic.
const CXX_KERNEL: &str = r#"#include <cfloat>
#define CAT(a, b) a ## b
#define S(x) #x
#define CALL(f, ...) f(__VA_ARGS__)
constexpr int N = 4;
struct __align__(16) P { float x; int n; };
static_assert(sizeof(P) == 16, S(P));
__device__ void swap(float &a, float &b) { float t = a; a = b; b = t; }
__global__ void k(float *o, const P *ps) {
    float v[N]{1, 2, 3, 4};
    auto best = -FLT_MAX;
    for (const float &x : v) best = x > best ? x : best;
    for (auto &x : v) x *= static_cast<float>(ps[0].n);
    float a = v[0], CAT(b, 2) = float(v[1]);
    CALL(swap, a, b2);
    const P &p = ps[threadIdx.x];
    int *q = nullptr;
    o[threadIdx.x] = a + b2 + best + p.x + 0x1p-4f + (q == nullptr);
}
"#;

fn run_and_lower(src: &str) {
    match check(src, &Options::default()) {
        Err(d) => {
            assert!(!d.is_empty());
            let _ = render_diagnostics("fuzz.cu", src, &d);
        }
        Ok(p) => {
            let _ = frontend::lower(&p);
        }
    }
}

#[test]
fn cxx_kernel_truncations_and_mutations() {
    assert!(check(CXX_KERNEL, &Options::default()).is_ok());
    for end in 0..=CXX_KERNEL.len() {
        if CXX_KERNEL.is_char_boundary(end) {
            run_and_lower(&CXX_KERNEL[..end]);
        }
    }
    let mut rng = Rng(777);
    let src = CXX_KERNEL.as_bytes();
    for _ in 0..400 {
        let mut b = src.to_vec();
        for _ in 0..3 {
            let i = (rng.next() % b.len() as u64) as usize;
            match rng.next() % 3 {
                0 => b[i] = (rng.next() % 128) as u8,
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b"(){};*&#:<>"[(rng.next() % 11) as usize]),
            }
        }
        run_and_lower(&String::from_utf8_lossy(&b));
    }
    // Pasting and stringizing in hostile shapes end in diagnostics.
    for src in [
        "#define P(a, b) a ## b\nP(P(1, 2), P(3, 4))",
        "#define P(...) __VA_ARGS__ ## __VA_ARGS__\nP(a, b)",
        "#define Q(x) # x ## x\nQ(y)",
        "#define E(...) , ## __VA_ARGS__\nE()",
        "#define R(x) R(x) ## x\nR(1)",
        "static_cast<",
        "__global__ void k() { for (auto &x : ) ; }",
        "__global__ void k() { __builtin_nanf(1); }",
        "__global__ void k() { __builtin_nanf(\"0x\"); }",
    ] {
        run_and_lower(src);
    }
}
