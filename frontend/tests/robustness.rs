//! The frontend never panics: garbage, truncation and deep nesting all end
//! in diagnostics (or success), never a crash or stack overflow; flat code
//! of any length compiles; errors and their output are bounded.

use frontend::{check, render_diagnostics, Code, Options};

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

/// `kernel(body)`: a kernel whose body is `body`.
fn kernel(body: &str) -> String {
    format!("__device__ int g(int v) {{ return v + 1; }}\n__global__ void k(int *o, int x) {{ {body} }}")
}

/// Checks `src` and lowers it to IR, failing with the rendered errors.
fn compiles(what: &str, src: &str) {
    match check(src, &Options::default()) {
        Ok(p) => {
            frontend::lower(&p)
                .unwrap_or_else(|d| panic!("{what}: {}", render_diagnostics("t.cu", src, &d)));
        }
        Err(d) => panic!("{what}: {}", render_diagnostics("t.cu", src, &d)),
    }
}

/// Flat chains are loops in the parser and their trees are walked on a
/// growing stack: no length is too long (nvcc takes them all).
#[test]
fn flat_chains_of_any_length_compile() {
    let n = 20_000;
    let terms = |sep: &str| vec!["x"; n].join(sep);
    compiles("sum", &kernel(&format!("o[0] = {};", terms(" + "))));
    compiles("comma", &kernel(&format!("o[0] = ({});", terms(", "))));
    compiles("&&", &kernel(&format!("if ({}) o[0] = 1;", terms(" && "))));
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    compiles(
        "assignment chain",
        &kernel(&format!(
            "int {}; {} = x; o[0] = a0;",
            names.join(", "),
            names.join(" = ")
        )),
    );
    let arms: String = (0..n).map(|i| format!("x == {i} ? {i} : ")).collect();
    compiles("?: chain", &kernel(&format!("o[0] = {arms}-1;")));
    let elifs: String = (1..n)
        .map(|i| format!("else if (x == {i}) o[0] = {i}; "))
        .collect();
    compiles(
        "else-if chain",
        &kernel(&format!("if (x == 0) o[0] = 0; {elifs}else o[0] = -1;")),
    );
    compiles("statements", &kernel(&"o[0] += x; ".repeat(n)));
    compiles(
        "#if chain",
        &format!(
            "#if {}\n{}\n#endif",
            vec!["1"; n].join(" + "),
            kernel("o[0] = x;")
        ),
    );
}

/// True nesting far beyond what people write (and the old limit of 256)
/// compiles: each level runs on a stack that grows as needed. nvcc 13.5
/// takes over a minute for 1,000 nested loops; kernelc lowers 1,000 nested
/// `do` loops in well under a second (release), and SSA construction stays
/// near-linear in the nest (`midend::ssa`).
#[test]
fn deep_nesting_compiles() {
    let nest = |n: usize, open: &str, inner: &str, close: &str| {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    };
    let n = 5_000;
    compiles(
        "( )",
        &kernel(&format!("o[0] = {};", nest(n, "(", "x", ")"))),
    );
    compiles(
        "unary -",
        &kernel(&format!("o[0] = {};", nest(n, "- ", "x", ""))),
    );
    compiles("!", &kernel(&format!("o[0] = {};", nest(n, "!", "x", ""))));
    compiles(
        "casts",
        &kernel(&format!("o[0] = {};", nest(n, "(int)", "x", ""))),
    );
    compiles(
        "calls",
        &kernel(&format!("o[0] = {};", nest(n, "g(", "x", ")"))),
    );
    compiles(
        "indexing",
        &kernel(&format!("o[0] = {};", nest(n, "o[", "0", "]"))),
    );
    compiles("blocks", &kernel(&nest(n, "{", "o[0] = x;", "}")));
    compiles(
        "#if ( )",
        &format!(
            "#if {}\n{}\n#endif",
            nest(n, "(", "1", ")"),
            kernel("o[0] = x;")
        ),
    );
    // Control flow: each level is blocks and parameters in the IR.
    let n = 1_000;
    compiles(
        "ifs",
        &kernel(&nest(n, "if (x > 0) { x--; ", "o[0] = x;", "}")),
    );
    compiles(
        "do-while",
        &kernel(&format!(
            "{} o[0] = x;",
            nest(n, "do ", "x--;", " while (x > 0);")
        )),
    );
    let macro_args = format!(
        "#define F(a) (a + 1)\n{}",
        kernel(&format!(
            "o[0] = {};",
            "F(".repeat(n) + "x" + &")".repeat(n)
        ))
    );
    compiles("nested macro arguments", &macro_args);
}

/// Past the nesting limit: one E0014 for the declaration, which is
/// skipped, and the rest of the file is still parsed (no cascade: the
/// syntax error in `later` is the only other error).
#[test]
fn nesting_past_the_limit_is_one_error_and_checking_goes_on() {
    let opts = Options {
        nesting_limit: 64,
        ..Options::default()
    };
    for (what, body) in [
        (
            "( )",
            format!("o[0] = {}x{};", "(".repeat(100), ")".repeat(100)),
        ),
        (
            "blocks",
            format!("{}o[0] = x;{}", "{".repeat(100), "}".repeat(100)),
        ),
        ("ifs", format!("{}o[0] = x;", "if (x) ".repeat(100))),
        ("casts", format!("o[0] = {}x;", "(int)".repeat(100))),
    ] {
        let src = format!(
            "__global__ void deep(int *o, int x) {{ {body} int after = 1; }}\n__global__ void later(int *o) {{ o[0] = ; }}"
        );
        let err = check(&src, &opts).expect_err(what);
        let codes: Vec<_> = err
            .iter()
            .map(|d| d.code.map_or("-", Code::as_str))
            .collect();
        assert_eq!(codes, ["E0014", "E0003"], "{what}: {err:?}");
    }
    let pp = format!("#if {}1{}\n#endif\n", "(".repeat(100), ")".repeat(100));
    let err = check(&pp, &opts).expect_err("#if");
    assert_eq!(err.len(), 1, "{err:?}");
    assert_eq!(err[0].code, Some(Code::E0014));
}

/// At most `error_limit` errors, then E0015; the rest of the input is not
/// read (so garbage ends fast). `0` lifts the limit.
#[test]
fn the_error_limit_stops_reading() {
    let src = "__global__ void k(int *o) { o[0] = @; }\n".repeat(500);
    let count = |limit: usize| {
        let opts = Options {
            error_limit: limit,
            ..Options::default()
        };
        check(&src, &opts).expect_err("errors")
    };
    let d = count(frontend::DEFAULT_ERROR_LIMIT);
    assert_eq!(d.len(), 101);
    assert!(d[..100].iter().all(|d| d.code == Some(Code::E0010)));
    assert_eq!(d[100].code, Some(Code::E0015));
    assert!(!d[100].located);
    let text = render_diagnostics("t.cu", &src, &d);
    assert!(text.ends_with("error[E0015]: too many errors (100); stopping here\n = `--error-limit N` changes the limit; `--error-limit 0` removes it\n\n"), "{}", &text[text.len() - 300..]);
    assert_eq!(count(5).len(), 6);
    assert_eq!(count(0).len(), 500);
    // Parse and check errors stop the same way.
    let parse = "__global__ void k(int *o) { o[0] = ; }\n".repeat(300);
    assert_eq!(
        check(&parse, &Options::default()).expect_err("parse").len(),
        101
    );
    let sema = "__global__ void k(int *o) { o[0] = nope; }\n".repeat(300);
    let d = check(&sema, &Options::default()).expect_err("sema");
    assert_eq!(d.len(), 101);
    assert_eq!(d[100].code, Some(Code::E0015));
}

/// A diagnostic on a very long line shows a window of it, with the real
/// line and column, so the output does not grow with the line.
#[test]
fn long_lines_are_shown_as_a_window() {
    let src = kernel(&format!("{} o[1] = ;", "o[0] = 1; ".repeat(100_000)));
    let d = check(&src, &Options::default()).expect_err("syntax error");
    let text = render_diagnostics("long.cu", &src, &d);
    assert!(
        text.len() < 600,
        "{} bytes:\n{}",
        text.len(),
        &text[..600.min(text.len())]
    );
    let at = src.rfind(';').unwrap() - src[..src.rfind('\n').unwrap()].len();
    assert!(text.contains(&format!("long.cu:2:{at}")), "{text}");
    assert!(
        text.contains("│ ...") && text.contains("1;  o[1] = ; }"),
        "{text}"
    );
    // The caret is under the `;` it points at.
    let lines: Vec<&str> = text.lines().collect();
    let code = lines.iter().position(|l| l.starts_with("2 │")).unwrap();
    let caret = lines[code + 1].find('^').unwrap();
    assert_eq!(&lines[code][caret..caret + 1], ";", "{text}");
    // A megabyte-long token in a message is cut too.
    let token = "a".repeat(1 << 20);
    let d = check(&kernel(&format!("o[0] = x {token};")), &Options::default()).expect_err("syntax");
    let text = render_diagnostics("t.cu", &kernel(&format!("o[0] = x {token};")), &d);
    assert!(text.len() < 3000, "{} bytes", text.len());
}

#[test]
fn rendering_clamps_bad_spans() {
    let d = vec![frontend::Diagnostic::error(
        frontend::Span { start: 3, end: 999 },
        Code::E0099,
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
