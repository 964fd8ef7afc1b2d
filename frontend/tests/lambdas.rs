//! Lambdas in the frontend: what the parser keeps of a lambda (its
//! captures, explicit then implicit in the order the body names them, and
//! its call operator's tokens), the closure objects the checker makes, and
//! their calls run in the IR interpreter against results computed here.
//! `tests/lambdas.rs` compares the same constructs with nvcc's PTX.

mod common;

use common::{errors, ok};
use frontend::{dump_ast, lower, parse, Options};
use kir_interp::{run_kernel, KernelArg, LaunchConfig};

/// The `--emit ast` lines of the lambda in `body` (a kernel's body with
/// the locals `int x, y; float *p;` in scope).
fn lambda_ast(body: &str) -> Vec<String> {
    let src = format!("__global__ void f(float *p) {{ int x = 1, y = 2; {body} }}");
    let tu = parse(&src, &Options::default()).unwrap_or_else(|d| panic!("{d:?}"));
    dump_ast(&tu)
        .lines()
        .skip_while(|l| !l.contains("Lambda"))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn captures_are_explicit_ones_then_those_the_body_names_in_order() {
    let lines = lambda_ast("auto f = [=, &y](int i) mutable { return p[i] + x * y + i; };");
    assert_eq!(lines[0], "Lambda [=] mutable");
    assert_eq!(lines[1], "Capture &y");
    assert_eq!(lines[3], "Capture p");
    assert_eq!(lines[5], "Capture x");
    assert!(
        lines[7].starts_with("Operator ( int i ) { return p [ i ]"),
        "{lines:?}"
    );
    // A parameter hides a local of the same name: it is not captured.
    let lines = lambda_ast("auto g = [&](int x) { return x + y; };");
    assert_eq!(lines[0], "Lambda [&]");
    assert_eq!(lines[1], "Capture &y");
    assert!(lines[3].starts_with("Operator"), "{lines:?}");
}

#[test]
fn init_captures_this_and_generic_parameters_are_kept() {
    let lines =
        lambda_ast("auto h = [n = x + 1](auto a, const auto &b) -> float { return a * n + b; };");
    assert_eq!(lines[0], "Lambda");
    assert_eq!(lines[1], "Capture n");
    assert_eq!(lines[2], "Binary +");
    // Each `auto` stands for a type the calls deduce.
    assert!(
        lines[5].starts_with("Operator ( auto@0 a , const auto@1 & b ) -> float {"),
        "{lines:?}"
    );
    let src =
        "struct S { float v; __device__ float get() const { return [this] { return v; }(); } };\n\
               __global__ void k(float *o) { S s{2}; o[0] = s.get(); }";
    let dump = dump_ast(&parse(src, &Options::default()).unwrap());
    assert!(dump.contains("Capture this@"), "{dump}");
}

/// Runs `kernel` of `src` over `threads` threads with `args` in the IR
/// interpreter: the buffers after the run.
fn run(src: &str, kernel: &str, threads: u32, args: Vec<KernelArg>) -> Vec<Vec<u8>> {
    let m = lower(&ok(src)).unwrap_or_else(|d| panic!("{d:?}"));
    let config = LaunchConfig {
        block: [threads, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run_kernel(&m, kernel, &args, &config).unwrap_or_else(|e| panic!("{e}"));
    out.buffers.into_iter().flatten().collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn closures_capture_by_copy_and_by_reference_and_deduce_their_results() {
    let src = r#"
template <typename F> __device__ int apply3(F f) { return f(1) + f(2) + f(3); }
extern "C" __global__ void k(int *out) {
    int t = threadIdx.x;
    int total = 0;
    auto add = [&](int v) { total += v * t; return total; };
    int sum = apply3(add);
    int k = 10;
    auto counter = [k]() mutable { return ++k; };
    int first = counter();
    int second = counter();
    auto pick = [](auto a, auto b) { return a > b ? a : b; };
    out[t * 6 + 0] = sum;
    out[t * 6 + 1] = total;
    out[t * 6 + 2] = first * 100 + second;
    out[t * 6 + 3] = k;
    out[t * 6 + 4] = pick(t, 2) + (int)pick(0.5f, 1.5f);
    out[t * 6 + 5] = [=](int m) { return m * t; }(7) + [](int a, int b) { return a < b; }(t, 2);
}
"#;
    let out = run(src, "k", 4, vec![KernelArg::Buffer(vec![0; 4 * 24])]);
    let got = i32s(&out[0]);
    for t in 0..4i32 {
        let totals = [t, t + 2 * t, t + 2 * t + 3 * t];
        let expect = [
            totals.iter().sum::<i32>(),
            totals[2],
            11 * 100 + 12,
            10,
            t.max(2) + 1,
            7 * t + i32::from(t < 2),
        ];
        assert_eq!(
            &got[t as usize * 6..t as usize * 6 + 6],
            &expect,
            "thread {t}"
        );
    }
}

#[test]
fn lambda_mistakes_are_located() {
    // nvcc requires --extended-lambda for the annotation, in device code too.
    let r = errors(
        "__global__ void k(float *o) { auto f = [] __device__ (float x) { return x; }; o[0] = f(1); }",
    );
    assert!(
        r.contains("error[E0024]") && r.contains("--extended-lambda"),
        "{r}"
    );
    let r = errors(
        "struct S { float v; __device__ float get() { return [] { return this->v; }(); } };\n\
         __global__ void k(float *o) { S s{2}; o[0] = s.get(); }",
    );
    assert!(r.contains("`this` is not captured by this lambda"), "{r}");
    let r =
        errors("__global__ void k(float *o) { auto f = [](float x) { return y; }; o[0] = f(1); }");
    assert!(r.contains("error[E0001]") && r.contains("`y`"), "{r}");
    let r =
        errors("__global__ void k(float *o) { auto f = [](float x) { return x }; o[0] = f(1); }");
    assert!(r.contains("error[E0003]"), "{r}");
}
