//! `memcpy` and `memset` in device code, and type punning through them and
//! through unions. `tests/fixtures/memcpy/memcpy.cu` compiled by kernelc
//! and by nvcc (both through ptxas) writes the same words on the emulator;
//! constant sizes become vector accesses as wide as the pointers'
//! alignment allows; punned objects stay in registers (`sroa`); misuses
//! are located errors.

mod common;

use common::{emu_buffers, fixture_ptx_and_nvcc, kernelc, rejected_with, scratch, stderr};

/// `k` of memcpy.cu, and its arguments for 64 threads (48 words each).
const COPIES: (&str, &[&str]) = (
    "_Z1kPKfPji",
    &["f32[]:rand:72:5", "u32[]:zeros:3072", "i32:64"],
);

#[test]
fn memcpy_and_memset_compute_what_nvcc_computes() {
    let dir = scratch("memcpy-fixture");
    let fixture = common::root().join("tests/fixtures/memcpy/memcpy.cu");
    let (_, theirs_ptx) = fixture_ptx_and_nvcc(&fixture, &dir);
    let ours = emu_buffers(&dir.join("kernelc.ptx"), COPIES, &dir.join("ours"));
    let words = common::u32s(&ours[0]);
    // Thread 1: the union gives the float's bits; memset(0x3f) makes
    // 0x3f3f3f3f of both ends of a float4; memcpy returns its destination.
    let x1 = f32::from_bits(words[48]);
    assert!(x1.is_finite() && words[48] != 0, "{:#x}", words[48]);
    assert_eq!(words[48 + 24], 0, "0x3f3f3f3f ^ 0x3f3f3f3f");
    assert_eq!(words[48 + 37], 1, "memset returns its destination");
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    let theirs = emu_buffers(&theirs_ptx, COPIES, &dir.join("theirs"));
    for (t, (a, b)) in words.iter().zip(common::u32s(&theirs[0])).enumerate() {
        assert_eq!(*a, b, "thread {}, word {}", t / 48, t % 48);
    }
}

/// kernelc's PTX for `source` at sm_90 (assembled by ptxas).
fn compile(name: &str, source: &str) -> String {
    let dir = scratch(name);
    let src = dir.join("k.cu");
    std::fs::write(&src, source).unwrap();
    let ptx = dir.join("k.ptx");
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-arch=sm_90",
        "-o",
        ptx.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ptx).unwrap();
    common::assert_ptxas_accepts(&text, "sm_90", name);
    text
}

/// The lines of `ptx` that contain `what`.
fn count(ptx: &str, what: &str) -> usize {
    ptx.lines().filter(|l| l.contains(what)).count()
}

#[test]
fn constant_sizes_move_as_wide_as_the_alignment_allows() {
    // A float[4] member of a 16-byte aligned struct into an int4: one
    // vector load and one vector store (nvcc loads it byte by byte).
    let ptx = compile(
        "memcpy-widths-16",
        "struct __align__(16) Packed { float payload[4]; };\n\
         __global__ void k(const Packed *p, int4 *o) {\n\
           int4 bits; memcpy(&bits, &p[threadIdx.x].payload, sizeof(bits));\n\
           o[threadIdx.x] = bits;\n\
         }\n",
    );
    assert_eq!(count(&ptx, "ld.global.v4.u32"), 1, "{ptx}");
    assert_eq!(count(&ptx, "st.global.v4.u32"), 1, "{ptx}");
    // Only a float's alignment: four words, no vector.
    let ptx = compile(
        "memcpy-widths-4",
        "__global__ void k(const float *p, unsigned *o) {\n\
           memcpy(o + 4 * threadIdx.x, p + threadIdx.x, 16);\n\
         }\n",
    );
    assert_eq!(count(&ptx, "ld.global.u32"), 4, "{ptx}");
    assert_eq!(count(&ptx, "st.global.u32"), 4, "{ptx}");
    // `void *` knows nothing: bytes; a 13-byte copy between doubles:
    // one doubleword, one word and one byte.
    let ptx = compile(
        "memcpy-widths-void",
        "__global__ void k(void *d, const void *s, double *e, const double *f) {\n\
           memcpy(d, s, 3);\n\
           memcpy(e, f, 13);\n\
         }\n",
    );
    assert_eq!(count(&ptx, "ld.global.u8"), 4, "{ptx}");
    assert_eq!(count(&ptx, "ld.global.u64"), 1, "{ptx}");
    assert_eq!(count(&ptx, "ld.global.u32"), 1, "{ptx}");
    // memset of a float4: one vector store of a constant; of a byte
    // computed at run time, the byte times 0x01010101.
    let ptx = compile(
        "memset-widths",
        "__global__ void k(float4 *o, int v) {\n\
           memset(o + threadIdx.x, 0, sizeof(float4));\n\
           memset(o + threadIdx.x + 64, v, sizeof(float4));\n\
         }\n",
    );
    assert_eq!(count(&ptx, "st.global.v4.u32"), 2, "{ptx}");
    assert_eq!(count(&ptx, "16843009"), 1, "{ptx}");
}

#[test]
fn sizes_known_at_run_time_are_byte_loops() {
    let ptx = compile(
        "memcpy-loop",
        "__global__ void k(int *d, const int *s, int n) {\n\
           memcpy(d, s, n * sizeof(int));\n\
           memset(d + n, 0, n);\n\
         }\n",
    );
    assert_eq!(count(&ptx, "ld.global.u8"), 1, "{ptx}");
    assert_eq!(count(&ptx, "st.global.u8"), 2, "{ptx}");
}

#[test]
fn punned_objects_stay_in_registers() {
    // A union written as a float and read as an unsigned, a float[4] read
    // as an int4 through memcpy, a float read as its bits through memcpy,
    // an int4 into a float[4], a struct with a char member copied whole:
    // no local memory, `mov.b32` between the register kinds.
    let ptx = compile(
        "memcpy-pun",
        "union Bits { float f; unsigned u; };\n\
         struct __align__(16) Packed { float payload[4]; };\n\
         __global__ void u(const float *in, unsigned *o) {\n\
           Bits b; b.f = in[threadIdx.x] * 2.0f; o[threadIdx.x] = b.u;\n\
         }\n\
         __global__ void m(const float *in, int *o) {\n\
           Packed p;\n\
           for (int k = 0; k < 4; ++k) p.payload[k] = in[4 * threadIdx.x + k] + 1.0f;\n\
           int4 bits; memcpy(&bits, &p.payload, sizeof(bits));\n\
           o[threadIdx.x] = bits.x ^ bits.w;\n\
         }\n\
         __global__ void f(const float *in, unsigned *o) {\n\
           float x = in[threadIdx.x] + 1.0f; unsigned u;\n\
           memcpy(&u, &x, sizeof(u)); o[threadIdx.x] = u >> 1;\n\
         }\n\
         __global__ void i(const int4 *in, float *o) {\n\
           int4 raw = in[threadIdx.x]; float f[4]; memcpy(f, &raw, sizeof(raw));\n\
           o[threadIdx.x] = f[0] + f[1] * f[2] - f[3];\n\
         }\n\
         struct Mixed { double d; int a; short s; char c; };\n\
         __global__ void s(const float *in, int *o) {\n\
           Mixed m = {in[threadIdx.x], (int)threadIdx.x, 3, 4}; Mixed c;\n\
           memcpy(&c, &m, sizeof(m)); o[threadIdx.x] = (int)c.d + c.a + c.s + c.c;\n\
         }\n",
    );
    assert_eq!(count(&ptx, ".local"), 0, "{ptx}");
    assert!(count(&ptx, "mov.b32") >= 4, "{ptx}");
}

#[test]
fn std_spelling_and_host_memcpy() {
    // `std::memcpy` and `::memcpy` are the same function; host code's
    // memcpy is host code, skipped by the split.
    let ptx = compile(
        "memcpy-spellings",
        "#include <cstring>\n\
         #include <cstdlib>\n\
         __global__ void k(float *o, const float *s) {\n\
           std::memcpy(o, s, 8);\n\
           memcpy(o + 2, s, 4);\n\
           std::memset(o + 3, 0, 4);\n\
           ::memset(o + 4, 0, 4);\n\
         }\n\
         int main() {\n\
           float h[4], g[4] = {1, 2, 3, 4};\n\
           memcpy(h, g, sizeof(h));\n\
           std::memset(h, 0, sizeof(h));\n\
           return (int)h[0];\n\
         }\n",
    );
    assert_eq!(count(&ptx, "st.global.u32"), 5, "{ptx}");
}

#[test]
fn misuses_of_memcpy_and_memset_are_located_errors() {
    let err = rejected_with(
        "memcpy-arity",
        "__global__ void k(int *d, const int *s) { memcpy(d, s); }\n",
        "E0099",
    );
    assert!(err.contains("`memcpy` takes 3 arguments, have 2"), "{err}");
    assert!(err.contains("e.cu:1:43"), "{err}");
    // The destination must be writable: no `const`, no `volatile`.
    let err = rejected_with(
        "memcpy-const",
        "__global__ void k(const int *d, const int *s) { memcpy(d, s, 4); }\n",
        "E0005",
    );
    assert!(err.contains("argument 1 of `memcpy`"), "{err}");
    let err = rejected_with(
        "memset-volatile",
        "__global__ void k(volatile int *d) { memset(d, 0, 4); }\n",
        "E0005",
    );
    assert!(err.contains("argument 1 of `memset`"), "{err}");
    let err = rejected_with(
        "memcpy-int",
        "__global__ void k(int *d, int s) { memcpy(d, s, 4); }\n",
        "E0004",
    );
    assert!(err.contains("argument 2 of `memcpy`"), "{err}");
    // Of `<cstring>`, only these two are device functions.
    let err = rejected_with(
        "memmove",
        "#include <cstring>\n__global__ void k(int *d) { std::memmove(d, d + 1, 4); }\n",
        "E0002",
    );
    assert!(err.contains("`std::memmove` is not supported"), "{err}");
    // A name qualified by the global namespace is a built-in or one of the
    // file's declarations.
    let err = rejected_with(
        "memcpy-global",
        "__global__ void k(int *d) { ::memcopy(d, d + 1, 4); }\n",
        "E0001",
    );
    assert!(err.contains("e.cu:1:29"), "{err}");
}
