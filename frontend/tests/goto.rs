//! `goto` and labels: backward and forward jumps, out of nested loops and
//! into blocks, lowered through the SSA builder (a label's block is sealed
//! once the whole body is lowered, so a later `goto` can still reach it).
//! The kernels run in the IR interpreter against results computed here; the
//! jumps C++ forbids (into the scope of an initialized variable) are
//! located errors, as in nvcc.

mod common;

use common::{errors, ok};
use frontend::lower;
use kir_interp::{run_kernel, KernelArg, LaunchConfig};

fn run(src: &str, threads: u32, args: Vec<KernelArg>) -> Vec<Vec<u8>> {
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
    let out = run_kernel(&m, "k", &args, &config).unwrap_or_else(|e| panic!("{e}"));
    out.buffers.into_iter().flatten().collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn buf(v: &[i32]) -> KernelArg {
    KernelArg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// The same kernel `tests/cxx_syntax.rs` compiles with nvcc and ptxas.
const SEARCH: &str = "
__global__ void k(const int *m, int *out, int rows, int cols, int target) {
    int t = threadIdx.x;
    int hit = -1;
    int tries = 0;
    int r, c;
retry:
    tries++;
    for (r = 0; r < rows; r++) {
        for (c = 0; c < cols; c++) {
            if (m[r * cols + c] == target + t) goto found;
        }
    }
    if (tries < 2) goto retry;
    goto done;
found:
    hit = r * cols + c;
done:
    out[2 * t] = hit;
    out[2 * t + 1] = tries;
}
";

#[test]
fn goto_out_of_nested_loops_and_back() {
    let m: Vec<i32> = (0..12).map(|x| (x * 7) % 12).collect();
    let out = run(
        SEARCH,
        4,
        vec![
            buf(&m),
            buf(&[0; 8]),
            KernelArg::Scalar {
                ty: midend::ir::Type::I32,
                bits: 3,
            },
            KernelArg::Scalar {
                ty: midend::ir::Type::I32,
                bits: 4,
            },
            KernelArg::Scalar {
                ty: midend::ir::Type::I32,
                bits: 9,
            },
        ],
    );
    let got = i32s(&out[1]);
    for t in 0..4 {
        let want = m
            .iter()
            .position(|&x| x == 9 + t as i32)
            .map_or(-1, |p| p as i32);
        let tries = if want < 0 { 2 } else { 1 };
        assert_eq!(&got[2 * t..2 * t + 2], &[want, tries], "thread {t}");
    }
}

#[test]
fn goto_into_blocks_and_over_dead_code() {
    let out = run(
        "__global__ void k(int *o) {
            int i = threadIdx.x;
            int v = 0;
            if (i % 2) goto odd;
            v = 10;
            goto end;
            {
                v = 99;
            odd:
                v += 1;
                if (i > 2) goto end;
                v += 100;
            }
        end:
            o[i] = v;
            goto tail;
            o[i] = -1;
        tail:;
        }",
        4,
        vec![buf(&[7; 4])],
    );
    assert_eq!(i32s(&out[0]), [10, 101, 10, 1]);
}

#[test]
fn label_misuse_is_located() {
    let r = errors("__global__ void k(int *o, int n) {\n    if (n) goto L;\n    int x = 1;\nL:\n    o[0] = x;\n}\n");
    assert!(
        r.contains("jump to label `L` bypasses the initialization of `x`"),
        "{r}"
    );
    assert!(r.contains("test.cu:2:12"), "{r}");
    assert!(r.contains("initialized here"), "{r}");
    // Into a `for` over its initialized counter, as nvcc also rejects.
    let r = errors("__global__ void k(int *o, int n) { goto in; for (int i = 0; i < n; i++) { in: o[i] = 1; } }");
    assert!(r.contains("bypasses the initialization of `i`"), "{r}");
    // A declaration without an initializer may be jumped over (C++ allows it).
    ok("__global__ void k(int *o, int n) { if (n) goto L; int y; y = 3; o[1] = y; L: o[0] = 1; }");
    let r = errors("__global__ void k() { goto nowhere; }");
    assert!(r.contains("use of undeclared label `nowhere`"), "{r}");
    let r = errors("__global__ void k() { a: ; a: ; }");
    assert!(r.contains("redefinition of label `a`"), "{r}");
    let r = errors("__global__ void k(void *p) { goto *p; }");
    assert!(
        r.contains("error[E0002]: computed `goto` is not supported by kernelc"),
        "{r}"
    );
    let r = errors("__global__ void k() { goto 3; }");
    assert!(r.contains("expected a label name after `goto`"), "{r}");
    let r = errors("__global__ void k() { { a: } }");
    assert!(r.contains("a label must be followed by a statement"), "{r}");
}
