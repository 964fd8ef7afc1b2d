//! Sample-style kernels written the way textbook and NVIDIA-sample CUDA is:
//! standard headers and the macros they bring (`INFINITY`, `FLT_MAX`,
//! `CUDART_PI_F`, `INT_MAX`), `#`/`##`/`__VA_ARGS__` macros, `#pragma
//! once`, hexadecimal floats, `struct __align__(16)`, `constexpr`, `auto`,
//! the C++ casts, `nullptr`, brace initialization, `static_assert`,
//! references and range-based `for`. nvcc compiles the same file; kernelc's
//! PTX goes through ptxas for three targets and both register modes; and
//! the kernels give the same buffers in the IR interpreter and the PTX
//! emulator at -O0 and -O3, equal to a reference computed here.

mod common;

use common::{kernelc, scratch, stderr};
use kernelc::run::{execute, Engine, RunRequest};
use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = r#"
#include <math.h>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <math_constants.h>
#include <cuda_runtime.h>
#pragma once

#define TILE 8
#define CHECK(cond) static_assert(cond, #cond)
#define IDX(r, c) ((r) * TILE + (c))
#define CAT(a, b) a##b
#define CALL(f, ...) f(__VA_ARGS__)

constexpr int ROWS = 4;
constexpr int BINS = 8;
constexpr float HALF = 0x1p-1f;
CHECK(ROWS * TILE == 32);

struct __align__(16) Stats {
    float max;
    float min;
    float sum;
    int count;
};
static_assert(sizeof(Stats) == 16, "Stats is one 16-byte vector");

__device__ void swap(float &a, float &b) {
    float t = a;
    a = b;
    b = t;
}

__device__ void accumulate(Stats &s, const float &v) {
    s.max = fmaxf(s.max, v);
    s.min = fminf(s.min, v);
    s.sum += v;
    s.count += 1;
}

__device__ float spread(const Stats &s) { return s.max - s.min; }

__host__ __device__ constexpr int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// One row of a 4x8 tile per group of 8 threads: the row's statistics, and
// each element's sorted neighbour gap scaled by pi.
extern "C" __global__ void row_stats(const float *__restrict__ in, Stats *out, float *scaled, float *spreads) {
    __shared__ float tile[ROWS][TILE];
    int t = threadIdx.x;
    int r = t / TILE, c = t % TILE;
    tile[r][c] = in[IDX(r, c)];
    __syncthreads();
    if (c == 0) {
        Stats s{-INFINITY, FLT_MAX, 0.0f, 0};
        for (float v : tile[r]) {
            CALL(accumulate, s, v);
        }
        out[r] = s;
        spreads[r] = spread(out[r]);
    }
    auto m = static_cast<double>(tile[r][c]) * 0x1p-1;
    float lo = tile[r][c], hi = tile[r][clamp_index(c + 1, TILE)];
    if (lo > hi) swap(lo, hi);
    float CAT(gap, _pi) = (hi - lo) * CUDART_PI_F;
    scaled[t] = float(m) + gap_pi + HALF;
}

// A histogram in shared memory, merged into global bins.
extern "C" __global__ void histogram(const unsigned *data, int n, unsigned *bins) {
    __shared__ unsigned local[BINS];
    int t = threadIdx.x;
    if (t < BINS) local[t] = 0;
    __syncthreads();
    for (auto i = t; i < n; i += blockDim.x) {
        atomicAdd(&local[data[i] % BINS], 1u);
    }
    __syncthreads();
    unsigned *dst = nullptr;
    if (dst == nullptr) dst = const_cast<unsigned *>(reinterpret_cast<const unsigned *>(bins));
    if (t < BINS) atomicAdd(&dst[t], local[t]);
}

// The first position of `target + t` in a matrix, leaving both loops with
// `goto`, and one retry by a backward `goto` when it is missing.
extern "C" __global__ void search(const int *m, int *out, int rows, int cols, int target) {
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

// The values of the header macros, as the kernel sees them.
extern "C" __global__ void limits(int *iout, float *fout, double *dout) {
    int ints[]{INT_MAX, INT_MIN, (int)UINT8_MAX, INT16_MIN, CHAR_BIT, (int)(LLONG_MAX >> 40)};
    int k = 0;
    for (const int &v : ints) iout[k++] = v;
    float f[] = {FLT_MAX, FLT_MIN, FLT_EPSILON, CUDART_INF_F, -HUGE_VALF, (float)M_PI, M_SQRT2f, CUDART_MIN_DENORM_F};
    for (int j = 0; j < 8; j++) fout[j] = f[j];
    float nan = NAN;
    iout[6] = nan != nan;
    iout[7] = static_cast<int>(sizeof(Stats));
    double d[4] = {DBL_MAX, DBL_EPSILON, CUDART_PI, HUGE_VAL};
    for (auto &x : d) *dout++ = x;
}
"#;

fn write_source(dir: &Path) -> PathBuf {
    let path = dir.join("cxx_syntax.cu");
    std::fs::write(&path, SOURCE).unwrap();
    path
}

#[test]
fn sample_style_cxx_assembles_for_every_target_and_register_mode() {
    let dir = scratch("cxx-syntax-ptxas");
    let src = write_source(&dir);
    for arch in ["sm_80", "sm_90", "sm_100a"] {
        for mode in ["virtual", "regalloc2"] {
            let out = dir.join(format!("cxx.{arch}.{mode}.ptx"));
            let o = kernelc(&[
                src.to_str().unwrap(),
                &format!("-arch={arch}"),
                &format!("--regalloc={mode}"),
                "-o",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{arch} {mode}: {}", stderr(&o));
            // No warning either: the file is clean C++.
            assert!(stderr(&o).is_empty(), "{arch} {mode}: {}", stderr(&o));
            let ptx = std::fs::read_to_string(&out).unwrap();
            for needle in [
                ".entry row_stats",
                ".entry histogram",
                ".entry search",
                ".entry limits",
            ] {
                assert!(ptx.contains(needle), "no `{needle}` in\n{ptx}");
            }
            common::assert_ptxas_accepts(&ptx, arch, &format!("cxx_syntax {arch} {mode}"));
        }
    }
}

#[test]
fn sample_style_cxx_compiles_with_nvcc() {
    let Some(nvcc) = common::nvcc_or_skip("cxx_syntax through nvcc") else {
        return;
    };
    let dir = scratch("cxx-syntax-nvcc");
    let src = write_source(&dir);
    let out = Command::new(&nvcc)
        .args(["-ptx", "-arch=sm_90"])
        .arg(&src)
        .arg("-o")
        .arg(dir.join("nvcc.ptx"))
        .output()
        .expect("cannot run nvcc");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "nvcc rejected the file:\n{text}");
    // nvcc's own (device) warnings read `file(line): warning #N-D`; the
    // host compiler's note about `#pragma once` in a main file is fine.
    assert!(!text.contains("): warning #"), "nvcc warned:\n{text}");
}

fn request(input: &Path, kernel: &str, threads: u32, args: &[&str]) -> RunRequest {
    RunRequest {
        input: input.to_path_buf(),
        kernel: kernel.into(),
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
        opt_level: Some(3),
        fmad: false,
        sm: 90,
        defines: Vec::new(),
        engine: Engine::Interp,
        max_steps: kir_interp::DEFAULT_MAX_STEPS,
        args: args.iter().map(|s| s.to_string()).collect(),
        ..RunRequest::default()
    }
}

/// Runs `req` in both engines at -O0 and -O3; all four must agree bitwise.
fn run_everywhere(req: RunRequest) -> Vec<Vec<u8>> {
    let mut first: Option<Vec<Vec<u8>>> = None;
    for engine in [Engine::Interp, Engine::Emu] {
        for opt in [0u8, 3] {
            let mut r = req.clone();
            r.engine = engine;
            r.opt_level = Some(opt);
            let result = execute(&r).unwrap_or_else(|e| panic!("{engine:?} -O{opt}: {e}"));
            let got: Vec<Vec<u8>> = result.args.into_iter().filter_map(|(_, b)| b).collect();
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(f, &got, "{engine:?} -O{opt} disagrees with interp -O0"),
            }
        }
    }
    first.unwrap()
}

fn words32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    words32(b).into_iter().map(f32::from_bits).collect()
}

#[test]
fn row_stats_match_a_reference() {
    let dir = scratch("cxx-syntax-rows");
    let src = write_source(&dir);
    let out = run_everywhere(request(
        &src,
        "row_stats",
        32,
        &[
            "f32[]:rand:32:11",
            "u8[]:zeros:64",
            "f32[]:zeros:32",
            "f32[]:zeros:4",
        ],
    ));
    let spreads = f32s(&out[3]);
    let input = f32s(&out[0]);
    let stats = &out[1];
    let scaled = f32s(&out[2]);
    let pi = f32::from_bits(0x40490fdb);
    for r in 0..4 {
        let row = &input[8 * r..8 * r + 8];
        let (mut max, mut min, mut sum) = (f32::NEG_INFINITY, f32::MAX, 0.0f32);
        for &v in row {
            max = max.max(v);
            min = min.min(v);
            sum += v;
        }
        let got = &stats[16 * r..16 * r + 16];
        let got = words32(got);
        assert_eq!(f32::from_bits(got[0]), max, "max of row {r}");
        assert_eq!(f32::from_bits(got[1]), min, "min of row {r}");
        assert_eq!(f32::from_bits(got[2]), sum, "sum of row {r}");
        assert_eq!(got[3], 8, "count of row {r}");
        assert_eq!(spreads[r], max - min, "spread of row {r}");
        for c in 0..8 {
            let (mut lo, mut hi) = (row[c], row[(c + 1).min(7)]);
            if lo > hi {
                std::mem::swap(&mut lo, &mut hi);
            }
            let m = (f64::from(row[c]) * 0.5) as f32;
            let want = m + (hi - lo) * pi + 0.5;
            assert_eq!(scaled[8 * r + c], want, "scaled[{r}][{c}]");
        }
    }
}

#[test]
fn histogram_matches_a_reference() {
    let dir = scratch("cxx-syntax-hist");
    let src = write_source(&dir);
    let out = run_everywhere(request(
        &src,
        "histogram",
        32,
        &["u32[]:rand:100:5", "i32:100", "u32[]:zeros:8"],
    ));
    let data = words32(&out[0]);
    let mut want = [0u32; 8];
    for d in &data {
        want[(d % 8) as usize] += 1;
    }
    assert_eq!(words32(&out[1]), want);
}

#[test]
fn goto_search_matches_a_reference() {
    let dir = scratch("cxx-syntax-search");
    let src = write_source(&dir);
    let out = run_everywhere(request(
        &src,
        "search",
        8,
        &[
            "i32[]:iota:48",
            "i32[]:zeros:16",
            "i32:6",
            "i32:8",
            "i32:44",
        ],
    ));
    let m: Vec<i32> = words32(&out[0]).into_iter().map(|w| w as i32).collect();
    let got: Vec<i32> = words32(&out[1]).into_iter().map(|w| w as i32).collect();
    // Threads 0-3 find 44..47; threads 4-7 look for 48..51, which are
    // missing, and retry once.
    for t in 0..8 {
        let want = m
            .iter()
            .position(|&x| x == 44 + t as i32)
            .map_or(-1, |p| p as i32);
        let tries = if want < 0 { 2 } else { 1 };
        assert_eq!(&got[2 * t..2 * t + 2], &[want, tries], "thread {t}");
    }
}

#[test]
fn header_macros_reach_the_kernel_exactly() {
    let dir = scratch("cxx-syntax-limits");
    let src = write_source(&dir);
    let out = run_everywhere(request(
        &src,
        "limits",
        1,
        &["i32[]:zeros:8", "f32[]:zeros:8", "f64[]:zeros:4"],
    ));
    let ints: Vec<i32> = words32(&out[0]).into_iter().map(|w| w as i32).collect();
    assert_eq!(
        ints,
        [
            i32::MAX,
            i32::MIN,
            255,
            -32768,
            8,
            (i64::MAX >> 40) as i32,
            1,
            16
        ]
    );
    assert_eq!(
        words32(&out[1]),
        [
            0x7f7fffff, 0x00800000, 0x34000000, 0x7f800000, 0xff800000, 0x40490fdb, 0x3fb504f3,
            0x00000001
        ]
    );
    let d: Vec<u64> = out[2]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        d,
        [
            0x7fefffffffffffff,
            0x3cb0000000000000,
            0x400921fb54442d18,
            0x7ff0000000000000
        ]
    );
}

/// `__FILE__` is the input path exactly as the command line gave it, as in
/// nvcc, both when compiling and under `kernelc run`.
#[test]
fn file_macro_is_the_path_given_on_the_command_line() {
    let dir = scratch("file-macro");
    let src = dir.join("where.cu");
    std::fs::write(
        &src,
        "#define WHERE __FILE__\nextern \"C\" __global__ void k(int *o) { o[0] = __LINE__; }\nWHERE\n",
    )
    .unwrap();
    let path = src.to_str().unwrap();
    let out = kernelc(&[path, "--emit", "tokens"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let tokens = String::from_utf8_lossy(&out.stdout);
    assert!(
        tokens.contains(&format!("string-literal '\"{path}\"'")),
        "__FILE__ expands to the given path:\n{tokens}"
    );
}

/// `attributed` of tests/fixtures/attributes/std_attributes.cu, and its
/// arguments for 64 threads (the last 4 past `n`).
const ATTRIBUTED: (&str, &[&str]) = (
    "_Z10attributedPKiPii",
    &["i32[]:rand:64:7", "i32[]:zeros:128", "i32:60"],
);

/// C++11 attributes (`[[nodiscard]]`, `[[maybe_unused]]` on a parameter
/// and a local, `[[likely]]`/`[[unlikely]]`, `[[fallthrough]]`,
/// `[[noreturn]]`, `[[gnu::always_inline]]`, `[[deprecated]]`) and GNU
/// hints (`__attribute__((noinline, unused))`) are dropped, GNU's
/// `aligned(16)` aligns a struct, and block-scope `alignas(16)`/
/// `__align__(8)` arrays declare: the kernel
/// gives a reference's values and nvcc's buffers from nvcc's PTX.
#[test]
fn std_attributes_and_local_alignment_run_as_nvccs_do() {
    let fixture = common::root().join("tests/fixtures/attributes/std_attributes.cu");
    let runs = common::fixture_runs(&fixture, &scratch("std-attributes"), ATTRIBUTED);
    let ins = common::words_i32(&runs.ours[0]);
    let outs = common::words_i32(&runs.ours[1]);
    for (i, &x) in ins.iter().enumerate() {
        let want = if i >= 60 {
            [0, 0]
        } else {
            // The kernel's `int` arithmetic wraps on the random inputs.
            let (w, times) = (std::num::Wrapping(x), |k: i32, v| std::num::Wrapping(k) * v);
            let sum = match x & 3 {
                0 => times(2, w) + times(3, w + std::num::Wrapping(1)),
                1 => times(3, w + std::num::Wrapping(1)),
                _ => times(2, w) + std::num::Wrapping(5),
            }
            .0;
            [sum, (x & 0xffff) ^ (x >> 16)]
        };
        assert_eq!(outs[2 * i..2 * i + 2], want, "thread {i}");
    }
    // At -O0 the arrays stay in local memory, where the `int4` load needs
    // the 16 bytes `alignas` asked for.
    let o0 = scratch("std-attributes-o0").join("o0.ptx");
    let path = fixture.to_str().unwrap();
    let done = kernelc(&["-O0", "-arch=sm_90", "-w", path, "-o", o0.to_str().unwrap()]);
    assert!(done.status.success(), "{}", stderr(&done));
    let o0 = std::fs::read_to_string(&o0).unwrap();
    assert!(o0.contains(".local .align 16 .b8 $local_ss0[16];"), "{o0}");
    assert!(o0.contains(".local .align 8 .b8 $local_ss1[8];"), "{o0}");
    common::assert_ptxas_accepts(&o0, "sm_90", "std_attributes.cu at -O0");
    if let Some((nvcc_ptx, theirs)) = &runs.theirs {
        assert!(
            nvcc_ptx.contains(".entry _Z10attributedPKiPii("),
            "{nvcc_ptx}"
        );
        assert_eq!(&runs.ours, theirs, "nvcc's PTX");
    }
}

/// `[[no_unique_address]]` and GNU's `packed` change a class's layout,
/// which kernelc does not: an error at the attribute. An attribute kernelc drops leaves no
/// trace in the messages of the code around it.
#[test]
fn layout_changing_attributes_are_located_errors() {
    let err = common::rejected_with(
        "no-unique-address",
        "struct Empty {};\nstruct S { [[no_unique_address]] Empty e; int v; };\n__global__ void k(S *s) { s->v = 1; }\n",
        "E0002",
    );
    assert!(err.contains(":2:14"), "{err}");
    assert!(err.contains("[[no_unique_address]]"), "{err}");
    let err = common::rejected_with(
        "gnu-packed",
        "struct __attribute__((aligned(4), packed)) P { char c; int v; };\n__global__ void k(P *p) { p->v = 1; }\n",
        "E0002",
    );
    assert!(err.contains(":1:35"), "{err}");
    assert!(err.contains("__attribute__((packed))"), "{err}");
    let err = common::rejected_with(
        "attribute-then-error",
        "__global__ void k(int *o) {\n  [[maybe_unused]] int u = undeclared;\n}\n",
        "E0001",
    );
    assert!(err.contains(":2:28"), "{err}");
}

/// Empty braces value-initialize a scalar, a global's as a local's
/// (`__device__ int z {};` was an internal compiler error, found by the
/// bounded fuzz test), on both engines at -O0 and -O3.
#[test]
fn empty_braces_value_initialize_scalars() {
    let dir = scratch("empty-braces");
    let src = dir.join("braces.cu");
    std::fs::write(
        &src,
        "__device__ int z {};\n__device__ float w[3] {};\n\
         __global__ void k(int *o) { int a{}; float b = {}; o[0] = z + a + (int)b + (int)w[1] + 7; }\n",
    )
    .unwrap();
    let out = run_everywhere(request(&src, "_Z1kPi", 1, &["i32[]:zeros:1"]));
    assert_eq!(words32(&out[0]), [7]);
}

/// `alignas` of a constant expression (`alignas(N * sizeof(T))` of a
/// class template, `alignas(2 * sizeof(float))`, `alignas(alignof(double))`
/// on a member, `alignas(kLanes * alignof(int))`) and of a type
/// (`alignas(vec<short, 4>)`): sizes, alignments and offsets are nvcc's,
/// as are the shared array's `.align` and the values on the interpreter
/// and the emulator. Only literals were read before (E0010). One that is
/// no power of two, or that kernelc cannot compute, is a located E0010.
#[test]
fn alignas_of_constant_expressions_lays_out_as_nvcc_does() {
    let fixture = common::root().join("tests/fixtures/attributes/alignas_exprs.cu");
    let launch = ("_Z7layoutsPKiPi", &["i32[]:iota:64", "i32[]:zeros:768"][..]);
    let runs = common::fixture_runs(&fixture, &scratch("alignas-exprs"), launch);
    let outs = common::words_i32(&runs.ours[1]);
    for i in 0..64 {
        let (k, lane) = (i & 3, i % 32);
        let layout = [16, 16, 404, 808, 808, 2408, 816, 1616];
        let mut want = layout.to_vec();
        want.extend([i + k + i * k, i - lane + (lane + 1) % 32, 0, 0]);
        assert_eq!(
            outs[12 * i as usize..12 * i as usize + 12],
            want,
            "thread {i}"
        );
    }
    let shared = ".shared .align 16 .b8 _ZZ7layoutsPKiPiE4tile[512];";
    assert!(runs.ptx.contains(shared), "{}", runs.ptx);
    assert!(runs.ptx.contains(".local .align 8 .b8"), "{}", runs.ptx);
    if let Some((nvcc_ptx, theirs)) = &runs.theirs {
        assert!(nvcc_ptx.contains(".shared .align 16 .b8 _ZZ7layoutsPKiPiE4tile[512];"));
        assert_eq!(&runs.ours, theirs, "nvcc's PTX");
    }
    for (source, at, says) in [
        (
            "template <class T, int N> struct alignas(N * sizeof(T)) V { T v[N]; };\n\
             __global__ void k(int *o) { o[0] = sizeof(V<char, 3>); }\n",
            ":1:42",
            "not 3",
        ),
        (
            "__global__ void k(int *o, int n) { alignas(n) int x[4]; x[0] = n; o[0] = x[0]; }\n",
            ":1:44",
            "as a constant expression kernelc computes",
        ),
    ] {
        let err = common::rejected_with("alignas-exprs-errors", source, "E0010");
        assert!(err.contains(at) && err.contains(says), "{source}: {err}");
    }
}
