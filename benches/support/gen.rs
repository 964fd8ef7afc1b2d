//! Generators of large CUDA-C kernels for the benchmarks: source text whose
//! size is a parameter, so compile time can be measured against it.
//!
//! Every generated program stays inside kernelc's language subset and is
//! also valid CUDA. `tests/bench_generators.rs` compiles small instances
//! of each shape, so a generator that drifts out of the subset fails a test
//! rather than a benchmark run.

use std::fmt::Write;

/// The kind of statement a generated kernel is made of.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Straight-line integer and float arithmetic on a few rotating variables.
    Straight,
    /// Small counted `for` loops, each with an arithmetic body.
    Loops,
    /// `if`/`else` diamonds.
    Ifs,
    /// Loads and stores through global pointers and a local array.
    Indexing,
    /// All of the above, in turn.
    Mixed,
    /// Loops whose trip count is a kernel argument, every third one with a
    /// `break`: the loops that `rotate`, `strength-reduce` and
    /// `unroll-runtime` transform (and that must not cost a pass over the
    /// whole function each).
    RuntimeLoops,
}

impl Shape {
    /// `Mixed` takes its statements from the first four, in turn.
    pub const ALL: [Shape; 6] = [
        Shape::Straight,
        Shape::Loops,
        Shape::Ifs,
        Shape::Indexing,
        Shape::Mixed,
        Shape::RuntimeLoops,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Straight => "straight",
            Shape::Loops => "loops",
            Shape::Ifs => "ifs",
            Shape::Indexing => "indexing",
            Shape::Mixed => "mixed",
            Shape::RuntimeLoops => "runtime-loops",
        }
    }
}

/// How many float and int variables the statements rotate through.
const VARS: usize = 8;

/// A kernel `big` of about `statements` statements of the given shape. A
/// compound statement (a loop or an `if`) counts as the statements it holds
/// plus one.
pub fn kernel(shape: Shape, statements: usize) -> String {
    let mut s = String::with_capacity(statements * 48 + 512);
    s.push_str(
        "extern \"C\" __global__ void big(float* out, const float* in, int* idx, int n)\n{\n",
    );
    s.push_str("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n");
    s.push_str("    float buf[8] = {0.0f};\n");
    for v in 0..VARS {
        let _ = writeln!(s, "    float f{v} = in[i + {v}];");
        let _ = writeln!(s, "    int k{v} = i + {v};");
    }
    let mut emitted = 0;
    let mut step = 0usize;
    while emitted < statements {
        let kind = match shape {
            Shape::Mixed => Shape::ALL[step % 4],
            other => other,
        };
        emitted += chunk(&mut s, kind, step);
        step += 1;
    }
    for v in 0..VARS {
        let _ = writeln!(
            s,
            "    out[i * {VARS} + {v}] = f{v} + (float)k{v} + buf[{v}];"
        );
    }
    s.push_str("}\n");
    s
}

/// Appends one chunk of `kind` and returns how many statements it counts.
fn chunk(s: &mut String, kind: Shape, step: usize) -> usize {
    let a = step % VARS;
    let b = (step + 3) % VARS;
    let c = (step + 5) % VARS;
    match kind {
        Shape::Straight | Shape::Mixed => {
            let _ = writeln!(s, "    f{a} = f{b} * 1.5f + f{c} - (float)k{a};");
            let _ = writeln!(s, "    k{a} = k{b} * 3 + (k{c} >> 1) + {step};");
            2
        }
        Shape::Loops => {
            let _ = writeln!(s, "    for (int j = 0; j < {}; ++j) {{", 2 + step % 5);
            let _ = writeln!(s, "        f{a} = f{a} * 0.5f + f{b};");
            let _ = writeln!(s, "        k{a} = k{a} + j * k{c};");
            s.push_str("    }\n");
            3
        }
        Shape::Ifs => {
            let _ = writeln!(s, "    if (f{a} > f{b}) {{");
            let _ = writeln!(s, "        f{a} = f{a} - f{c};");
            s.push_str("    } else {\n");
            let _ = writeln!(s, "        k{a} = k{a} ^ k{c};");
            s.push_str("    }\n");
            3
        }
        Shape::RuntimeLoops => {
            let _ = writeln!(s, "    for (int j = {}; j < n; ++j) {{", step % 3);
            let _ = writeln!(s, "        f{a} = f{a} * 0.5f + f{b};");
            let _ = writeln!(s, "        k{a} = k{a} + j * k{c};");
            if step % 3 == 2 {
                let _ = writeln!(s, "        if (k{a} > {}) break;", 1000 + step);
                s.push_str("    }\n");
                return 4;
            }
            s.push_str("    }\n");
            3
        }
        Shape::Indexing => {
            let _ = writeln!(s, "    f{a} = f{a} + in[(k{b} & 1023) + {}];", step % 64);
            let _ = writeln!(s, "    buf[k{c} & 7] = f{a};");
            let _ = writeln!(s, "    idx[(k{a} & 255) * {}] = k{b};", 1 + step % 4);
            3
        }
    }
}

/// A kernel with `helpers` `__noinline__` helpers that take generic
/// pointers, and `calls` call sites that pass them global and shared
/// pointers in turn. Each helper also calls the previous one, so the spaces
/// the call sites prove must travel down a chain of callers: the worst case
/// for inter-procedural memory-space propagation.
pub fn helpers(helpers: usize, calls: usize) -> String {
    assert!(helpers > 0);
    let mut s = String::with_capacity(helpers * 160 + calls * 80 + 512);
    s.push_str("__device__ __noinline__ float h0(const float* p, int k)\n{\n");
    s.push_str("    return p[k & 63] * 2.0f;\n}\n\n");
    for h in 1..helpers {
        let _ = writeln!(
            s,
            "__device__ __noinline__ float h{h}(const float* p, int k)\n{{\n    return p[k & 63] + h{}(p, k + {h});\n}}\n",
            h - 1
        );
    }
    s.push_str("extern \"C\" __global__ void calls(const float* in, float* out, int n)\n{\n");
    s.push_str("    __shared__ float tile[256];\n");
    s.push_str("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n");
    s.push_str("    tile[threadIdx.x] = in[i];\n");
    s.push_str("    __syncthreads();\n");
    s.push_str("    float acc = 0.0f;\n");
    for c in 0..calls {
        let h = c % helpers;
        let ptr = if c % 2 == 0 { "tile" } else { "in" };
        let _ = writeln!(s, "    acc = acc + h{h}({ptr} + {}, i + {c});", c % 64);
    }
    s.push_str("    out[i] = acc;\n}\n");
    s
}

/// A kernel whose passes rewrite many places of one long block: half the
/// statements divide loaded values by constants in straight-line code
/// (`divconst` expands each division in place, `load-elim` forwards the
/// repeated loads), the other half are loop-invariant products in one
/// loop body (`licm` moves them all to the preheader). Passes that edit
/// such a block one instruction at a time, each edit a scan of the block,
/// grow quadratically here.
pub fn rewrites(statements: usize) -> String {
    let half = statements / 2;
    let mut s = String::with_capacity(statements * 48 + 512);
    s.push_str("extern \"C\" __global__ void rewrites(int* out, const int* in, const float* x, float a, float b, int n)\n{\n");
    s.push_str("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    int acc = 0;\n");
    for j in 0..half {
        let _ = writeln!(s, "    acc += in[i + {}] / {};", j % 64, j % 29 + 3);
    }
    s.push_str("    float f = 0.0f;\n    for (int t = 0; t < n; ++t) {\n");
    for j in 0..statements - half {
        let _ = writeln!(s, "        f += x[t] * (a * {j}.0f + b);");
    }
    s.push_str("    }\n    out[i] = acc + (int)f;\n}\n");
    s
}

/// A kernel with blocks of many predecessors or exits: a `switch` with
/// half the statements as cases, each adding to a local array (its exit
/// block is entered from every case, the case tests form a chain as deep
/// as the switch, and `sroa` places the array's values at the exit), then a
/// loop with the other half as `break`s (an exit edge each). Analyses that
/// walk a chain per predecessor (dominators, dominance frontiers), or look each edge up in a
/// list of the others (loop exits, load forwarding, duplicate cases), grow
/// quadratically here.
pub fn fan_in(statements: usize) -> String {
    let half = statements / 2;
    let mut s = String::with_capacity(statements * 48 + 512);
    s.push_str("extern \"C\" __global__ void fan_in(float* out, const float* in, const int* sel, int n)\n{\n");
    s.push_str("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float acc = 0.0f;\n");
    s.push_str("    float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n");
    s.push_str("    switch (sel[i]) {\n");
    for j in 0..half {
        let _ = writeln!(
            s,
            "    case {j}: part[{}] += in[i + {}]; break;",
            j % 4,
            j % 64
        );
    }
    s.push_str("    }\n    acc = part[0] + part[1] + part[2] + part[3];\n");
    s.push_str("    for (int t = 0; t < n; ++t) {\n");
    for j in 0..statements - half {
        let _ = writeln!(s, "        if (in[t + {}] > {j}.0f) break;", j % 64);
    }
    s.push_str("        acc += in[t];\n    }\n    out[i] = acc;\n}\n");
    s
}

/// A kernel that reads `arrays` `__constant__` arrays, one load each, in
/// one block: many module variables and many loads from distinct bases
/// (value numbering keys, the loads remembered as available, the window
/// of vector grouping, the checker's variable names).
pub fn globals(arrays: usize) -> String {
    let mut s = String::with_capacity(arrays * 80 + 256);
    for j in 0..arrays {
        let _ = writeln!(
            s,
            "__constant__ float c{j}[4] = {{1.0f, 2.0f, 3.0f, {j}.0f}};"
        );
    }
    s.push_str("extern \"C\" __global__ void globals(float* out, const int* sel)\n{\n");
    s.push_str("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float acc = 0.0f;\n");
    for j in 0..arrays {
        let _ = writeln!(s, "    acc += c{j}[sel[i] & 3];");
    }
    s.push_str("    out[i] = acc;\n}\n");
    s
}

/// `kernels` kernels, each with its own `__shared__` array, calling one
/// `__noinline__` helper with it or with global memory in turn: per-module
/// work done once per function (the alias analysis's table of module
/// variables, the helper's votes and clones) grows quadratically here.
pub fn kernels(kernels: usize) -> String {
    let mut s = String::with_capacity(kernels * 200 + 128);
    s.push_str(
        "__device__ __noinline__ float pick(const float* p, int i) { return p[i & 63] * 2.0f; }\n",
    );
    for j in 0..kernels {
        let ptr = if j % 2 == 0 { "tile" } else { "in" };
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void k{j}(const float* in, float* out)\n{{\n    __shared__ float tile[64];\n    tile[threadIdx.x & 63] = in[threadIdx.x];\n    __syncthreads();\n    out[threadIdx.x] = pick({ptr}, threadIdx.x + {j});\n}}"
        );
    }
    s
}

/// One kernel after `functions` host functions of the C++ a `.cu` file's
/// host side holds (classes, templates, lambdas, STL calls, launches): the
/// split phase skips them all, in time linear in their size.
pub fn host_code(functions: usize) -> String {
    let mut s = String::with_capacity(functions * 400 + 256);
    for j in 0..functions {
        let _ = writeln!(
            s,
            "template <typename T> struct Box{j} {{ T v; virtual ~Box{j}() {{}} T get() const {{ return v; }} }};"
        );
        let _ = writeln!(
            s,
            "static std::vector<float> host{j}(int n) {{\n    std::vector<float> v(n);\n    \
             auto f = [&](int i) {{ return Box{j}<float>{{float(i)}}.get() * {j}.5f; }};\n    \
             for (int i = 0; i < n; ++i) v[i] = f(i);\n    \
             k<<<(n + 255) / 256, 256>>>(nullptr, n);\n    return v;\n}}"
        );
    }
    s.push_str(
        "extern \"C\" __global__ void k(float *out, int n) {\n    int i = threadIdx.x;\n    if (i < n) out[i] = 2.0f * i;\n}\n",
    );
    s
}

/// `instances` instantiations of one kernel template, each launched from
/// `main` with its own value argument and calling a device function
/// template deduced from its arguments: the template machinery (host uses,
/// memoized instances, Itanium names) at scale.
pub fn instances(instances: usize) -> String {
    let mut s = String::with_capacity(instances * 48 + 512);
    s.push_str(
        "template <typename T> __device__ T step(T v, int n) { return v * T(n) + T(1); }
         template <int N, typename T = float>
         __global__ void k(T *out, const T *in, int n) {
             __shared__ T tile[32];
    int i = threadIdx.x;
             tile[i % 32] = i < n ? step(in[i], N) : T(0);
    __syncthreads();
             if (i < n) out[i] = tile[(i + N) % 32];
}
         int main() {
",
    );
    for j in 0..instances {
        let _ = writeln!(s, "    k<{j}><<<1, 32>>>(nullptr, nullptr, 32);");
    }
    s.push_str(
        "    return 0;
}
",
    );
    s
}

/// The samples shipped in `samples/`, as (name, source). The benchmarks
/// compile for sm_90, so a sample whose `// kernelc-target:` line names an
/// architecture-specific target (`sm_90a`, `sm_100a`: wgmma, tcgen05) is
/// left out: its code is only valid on that exact target.
pub fn samples() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("samples/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let src = std::fs::read_to_string(&p).expect("sample is readable");
            (name, src)
        })
        .filter(|(_, src)| {
            !src.lines().any(|l| {
                l.trim()
                    .strip_prefix("// kernelc-target:")
                    .is_some_and(|t| t.trim().ends_with('a') || t.trim().ends_with('f'))
            })
        })
        .collect();
    out.sort();
    out
}
