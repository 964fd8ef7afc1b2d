//! `atomicAdd` on `float2`/`float4` (sm_90: `atom.global.add.v2.f32`,
//! `.v4`, PTX ISA 8.1), `atomicCAS` on `unsigned short` (`atom.cas.b16`)
//! and (at the end) `atomicAdd` on the 16-bit floats and their pairs
//! through the whole pipeline: the PTX forms, real ptxas, the located
//! errors (a target below sm_90, a pointer proved to be in shared or local
//! memory, at -O0 and -O3), and `kernelc run` on the interpreter at -O0 and
//! -O3 and on the PTX emulator, all equal to a reference written here in
//! Rust. The GPU test runs the same kernel on a real Hopper GPU when there
//! is one.

mod common;

use common::{assert_ptxas_accepts, kernelc, scratch, stderr, stdout};
use std::path::Path;

const FIXTURE: &str = "tests/fixtures/atomics/vector_atomics.cu";

/// Writes `text` to `dir/name`; returns the path.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Compiles `file` with `args` and returns the PTX (panics on failure).
fn ptx(file: &str, args: &[&str]) -> String {
    let mut all = vec![file];
    all.extend_from_slice(args);
    let out = kernelc(&all);
    assert!(out.status.success(), "{all:?}: {}", stderr(&out));
    stdout(&out)
}

/// Compiles with `args` and expects exit 1 with no output file; returns
/// the messages.
fn refused(file: &str, args: &[&str], dir: &Path) -> String {
    let out_file = dir.join("never.ptx");
    let out_path = out_file.display().to_string();
    let mut all = vec![file, "-o", &out_path];
    all.extend_from_slice(args);
    let out = kernelc(&all);
    assert_eq!(out.status.code(), Some(1), "{all:?}: {}", stderr(&out));
    assert!(!out_file.exists(), "{all:?} wrote an output file");
    let e = stderr(&out);
    assert!(
        !e.contains("panic") && !e.contains("internal compiler error"),
        "{e}"
    );
    e
}

/// The PTX instruction lines (trimmed) that contain `what`.
fn lines_with<'a>(ptx: &'a str, what: &str) -> Vec<&'a str> {
    ptx.lines()
        .map(str::trim)
        .filter(|l| l.contains(what))
        .collect()
}

// ---------------------------------------------------------------------------
// PTX forms, ptxas, and the minimum target and version.
// ---------------------------------------------------------------------------

#[test]
fn vector_atomics_compile_for_sm90_with_ptx_8_1_and_ptxas_accepts_them() {
    for level in ["-O0", "-O3"] {
        let text = ptx(FIXTURE, &["-arch=sm_90", level]);
        assert!(text.contains("\n.version 8.1\n"), "{level}:\n{text}");
        assert!(text.contains("\n.target sm_90\n"), "{level}");
        assert_ptxas_accepts(&text, "sm_90", &format!("{FIXTURE} {level}"));
        // The float4 forms with their scopes, in the kernel at every level.
        assert!(
            text.contains("atom.sys.global.add.v4.f32 {%f"),
            "{level}:\n{text}"
        );
        // The 16-bit compare-and-swap, global and (via the shared counters)
        // shared or generic, always in 16-bit registers.
        assert!(text.contains("atom.global.cas.b16 %rs"), "{level}:\n{text}");
        for l in lines_with(&text, "cas.b16") {
            assert!(l.contains(" %rs"), "{level}: {l}");
            assert!(!l.contains("%r1") || l.contains("%rs1"), "{level}: {l}");
        }
    }
    // -O3: the unused results become `red`; the noinline helper is
    // specialized to global memory; the shared counters use `atom.shared`.
    let o3 = ptx(FIXTURE, &["-arch=sm_90", "-O3"]);
    assert!(o3.contains("red.cta.global.add.v2.f32 [%rd"), "{o3}");
    assert!(o3.contains("red.global.add.v4.f32 [%rd"), "{o3}");
    assert!(o3.contains("atom.global.add.v2.f32 {%f"), "{o3}");
    assert!(o3.contains("atom.shared.cas.b16 %rs"), "{o3}");
    // -O0: the helper keeps its generic pointer: the generic forms.
    let o0 = ptx(FIXTURE, &["-arch=sm_90", "-O0"]);
    assert!(o0.contains("atom.add.v2.f32 {%f"), "{o0}");
    assert!(o0.contains("atom.cas.b16 %rs"), "{o0}");
    // Newer targets take the same forms.
    assert_ptxas_accepts(
        &ptx(FIXTURE, &["-arch=sm_100a"]),
        "sm_100a",
        "the fixture on sm_100a",
    );
}

/// Each form once, in a small kernel: results used or not, each scope,
/// offsets folded into the address.
#[test]
fn each_vector_atomic_form() {
    let dir = scratch("va-forms");
    let src = write(
        &dir,
        "forms.cu",
        "__global__ void k(float2 *a, float4 *b, float2 *out) {\n\
           out[0] = atomicAdd(a, make_float2(1.0f, 2.0f));\n\
           atomicAdd_block(a + 1, make_float2(1.0f, 2.0f));\n\
           float4 o = atomicAdd_system(b + 2, make_float4(1.0f, 2.0f, 3.0f, 4.0f));\n\
           out[1] = make_float2(o.x, o.w);\n\
           atomicAdd(b, make_float4(1.0f, 2.0f, 3.0f, 4.0f));\n\
         }\n\
         __global__ void c(unsigned short *p, unsigned short *o) {\n\
           __shared__ unsigned short s[4];\n\
           s[threadIdx.x & 3] = 0;\n\
           __syncthreads();\n\
           o[0] = atomicCAS(p, 1, 2);\n\
           o[1] = atomicCAS(&s[1], (unsigned short)0, (unsigned short)threadIdx.x);\n\
         }\n",
    );
    let text = ptx(&src, &["-arch=sm_90"]);
    assert_ptxas_accepts(&text, "sm_90", "each form");
    assert_eq!(lines_with(&text, ".add.v").len(), 4, "{text}");
    assert!(lines_with(&text, "atom.global.add.v2.f32 {%f")
        .iter()
        .any(|l| l.contains("], {%f")));
    assert!(text.contains("red.cta.global.add.v2.f32 [%rd"), "{text}");
    assert!(text.contains("+8], {%f"), "the offset is folded:\n{text}");
    assert!(text.contains("atom.sys.global.add.v4.f32 {%f"), "{text}");
    assert!(text.contains("+32], {%f"), "{text}");
    assert!(text.contains("red.global.add.v4.f32 [%rd"), "{text}");
    assert!(text.contains("atom.global.cas.b16 %rs"), "{text}");
    assert!(
        text.contains(", 1, 2;"),
        "immediates in the b16 cas:\n{text}"
    );
    assert!(text.contains("atom.shared.cas.b16 %rs"), "{text}");
    assert!(text.contains("\n.version 8.1\n"), "{text}");
}

/// The optimizer treats a vector atomic as a write of its memory: two equal
/// ones both stay (no CSE), one in a loop stays in the loop, and a load of
/// a restricted buffer that a vector atomic writes (in the kernel or in a
/// helper it calls) is not made a read-only `ld.global.nc`, while a load of
/// a restricted buffer nothing writes still is.
#[test]
fn vector_atomics_are_memory_writes_to_the_optimizer() {
    let dir = scratch("va-opt");
    let src = write(
        &dir,
        "opt.cu",
        "extern \"C\" __global__ void k(float2 *__restrict__ a, const float *__restrict__ in,\n\
                           float *__restrict__ out, int n) {\n\
           float2 v = make_float2(1.0f, 2.0f);\n\
           float r = ((const float *)a)[3];\n\
           float2 x = atomicAdd(a, v);\n\
           float2 y = atomicAdd(a, v);\n\
           out[0] = x.x + y.x + r + in[0];\n\
           for (int i = 0; i < n; i++) atomicAdd(a + 1, v);\n\
         }\n\
         __device__ __noinline__ void bump(float2 *p) { atomicAdd(p, make_float2(1.0f, 2.0f)); }\n\
         extern \"C\" __global__ void h(float2 *__restrict__ a, float *__restrict__ out) {\n\
           float r = ((const float *)a)[1];\n\
           bump(a);\n\
           out[0] = r;\n\
         }\n",
    );
    for level in ["-O1", "-O3"] {
        let text = ptx(&src, &["-arch=sm_90", level]);
        let k = text
            .split(".entry k(")
            .nth(1)
            .and_then(|rest| rest.split(".entry h(").next())
            .expect("kernel k");
        let h = text.split(".entry h(").nth(1).expect("kernel h");
        assert_eq!(
            lines_with(k, "atom.global.add.v2.f32 {%f").len(),
            2,
            "{level}:\n{text}"
        );
        // `a` is written by the atomics: plain loads; `in` is read-only.
        assert!(k.contains("ld.global.f32 %f"), "{level}:\n{text}");
        assert_eq!(
            lines_with(k, "ld.global.nc.f32").len(),
            1,
            "{level}:\n{text}"
        );
        assert!(h.contains("ld.global.f32 %f"), "{level}:\n{text}");
        assert!(!h.contains(".nc"), "{level}: `bump` writes `a`:\n{text}");
        // The loop's atomic lies between a label and a branch back to it
        // (`@%p bra`: the loop is rotated, it tests at the bottom).
        let at = k
            .find("red.global.add.v2.f32 [%rd")
            .unwrap_or_else(|| panic!("{level}: no loop atomic:\n{text}"));
        let back = k[at..]
            .lines()
            .find_map(|l| l.trim().split("bra ").nth(1))
            .and_then(|l| l.strip_suffix(';'))
            .unwrap_or_else(|| panic!("{level}: no branch after the atomic:\n{text}"));
        assert!(
            k[..at].contains(&format!("{back}:")),
            "{level}: the atomic left its loop:\n{text}"
        );
    }
}

/// A kernel without vector atomics keeps its target's floor version: the
/// 16-bit compare-and-swap needs nothing newer (ptxas takes it from sm_75
/// and PTX 6.3, the floor of every target kernelc has).
#[test]
fn the_16_bit_cas_needs_no_newer_version() {
    let dir = scratch("va-cas80");
    let src = write(
        &dir,
        "cas.cu",
        "__global__ void k(unsigned short *p) { atomicCAS(p + threadIdx.x, 0, 1); }\n",
    );
    for arch in ["sm_75", "sm_80"] {
        let text = ptx(&src, &[&format!("-arch={arch}")]);
        assert!(text.contains("atom.global.cas.b16 %rs"), "{arch}:\n{text}");
        assert!(!text.contains(".version 8.1"), "{arch}:\n{text}");
        assert_ptxas_accepts(&text, arch, &format!("cas.b16 on {arch}"));
    }
}

/// nvcc compiles the fixture (it is valid CUDA) to the same instructions:
/// `atom.global.add.v2.f32`, `.v4` with `.cta`/`.sys`, `atom.global.cas.b16`
/// and `atom.shared.cas.b16`.
#[test]
fn nvcc_emits_the_same_atomic_forms() {
    let Some(text) = common::nvcc_ptx(&common::root().join(FIXTURE), "sm_90", "the fixture") else {
        return;
    };
    for form in [
        "add.v2.f32",
        "global.cta.add.v2.f32",
        "global.sys.add.v4.f32",
        "atom.global.add.v4.f32",
        "atom.global.cas.b16",
        "atom.shared.cas.b16",
    ] {
        assert!(text.contains(form), "nvcc has no `{form}`:\n{text}");
    }
}

// ---------------------------------------------------------------------------
// Located errors.
// ---------------------------------------------------------------------------

/// Below sm_90 the float2/float4 overloads do not exist: a located error at
/// the call (exit 1, no output file), never PTX that ptxas would refuse.
#[test]
fn below_sm90_vector_atomics_are_a_located_error() {
    let dir = scratch("va-sm80");
    let src = write(
        &dir,
        "old.cu",
        "__global__ void k(float2 *a, float4 *b) {\n\
           atomicAdd(a, make_float2(1.0f, 2.0f));\n\
           atomicAdd_block(b, make_float4(1.0f, 2.0f, 3.0f, 4.0f));\n\
         }\n",
    );
    for arch in ["-arch=sm_80", "-arch=sm_89"] {
        for level in ["-O0", "-O3"] {
            let e = refused(&src, &[arch, level], &dir);
            assert!(
                e.contains("`atomicAdd` on `float2 *` needs sm_90 or newer (the target is sm_"),
                "{e}"
            );
            assert!(e.contains("old.cu:2:"), "located at the call: {e}");
            assert!(
                e.contains("`atomicAdd_block` on `float4 *` needs sm_90 or newer"),
                "{e}"
            );
            assert!(e.contains("old.cu:3:"), "{e}");
        }
    }
    // `kernelc run` refuses it the same way.
    let out = kernelc(&[
        "run",
        &src,
        "-arch=sm_80",
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
        "f32[]:zeros:2",
        "f32[]:zeros:4",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("needs sm_90 or newer"),
        "{}",
        stderr(&out)
    );
}

/// A pointer proved to point to shared or local memory (directly, or
/// through a helper) is a located error at every -O level: PTX has vector
/// atomics on global memory only (nvcc warns and emits a trap).
#[test]
fn shared_and_local_pointers_are_located_errors_at_every_level() {
    let dir = scratch("va-space");
    let src = write(
        &dir,
        "space.cu",
        "__device__ __noinline__ float2 add(float2 *p) { return atomicAdd(p, make_float2(1.0f, 1.0f)); }\n\
         __global__ void sh(float2 *o) {\n\
           __shared__ float2 s[4];\n\
           o[0] = atomicAdd(&s[threadIdx.x & 3], make_float2(1.0f, 2.0f));\n\
         }\n\
         __global__ void loc(float4 *o) {\n\
           float4 l = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n\
           atomicAdd(&l, make_float4(1.0f, 2.0f, 3.0f, 4.0f));\n\
           o[0] = l;\n\
         }\n\
         __global__ void helper(float2 *o) {\n\
           __shared__ float2 s[4];\n\
           o[0] = add(s);\n\
         }\n",
    );
    for level in ["-O0", "-O1", "-O3"] {
        let e = refused(&src, &["-arch=sm_90", level], &dir);
        let msg = |space: &str| {
            format!("Cannot do vector atomic on {space} memory: `atomicAdd` on `float2` and `float4` needs global memory")
        };
        assert!(e.contains(&msg("shared")), "{level}: {e}");
        assert!(e.contains(&msg("local")), "{level}: {e}");
        assert!(e.contains("space.cu:4:"), "{level}, located: {e}");
        assert!(e.contains("space.cu:8:"), "{level}, located: {e}");
        assert!(e.contains("space.cu:1:"), "{level}, the helper's call: {e}");
    }
    // With memory-space inference off, the same errors.
    let e = refused(&src, &["-arch=sm_90", "--memspace=off"], &dir);
    assert!(
        e.contains("Cannot do vector atomic on shared memory"),
        "{e}"
    );
}

/// CUDA declares the 16-bit compare-and-swap at the device scope only, and
/// no other 16-bit atomic.
#[test]
fn only_the_device_scope_cas_takes_unsigned_short() {
    let dir = scratch("va-u16");
    for (call, what) in [
        ("atomicCAS_block(p, 0, 1)", "atomicCAS_block"),
        ("atomicCAS_system(p, 0, 1)", "atomicCAS_system"),
        ("atomicAdd(p, 1)", "atomicAdd"),
        ("atomicExch(p, 1)", "atomicExch"),
    ] {
        let src = write(
            &dir,
            "u16.cu",
            &format!("__global__ void k(unsigned short *p) {{ {call}; }}\n"),
        );
        let e = refused(&src, &["-arch=sm_90"], &dir);
        assert!(
            e.contains(&format!("no matching overload of `{what}`")),
            "{call}: {e}"
        );
    }
    // And a float2 is no compare-and-swap or exchange operand.
    let src = write(
        &dir,
        "f2.cu",
        "__global__ void k(float2 *p) { atomicExch(p, make_float2(1.0f, 1.0f)); }\n",
    );
    let e = refused(&src, &["-arch=sm_90"], &dir);
    assert!(e.contains("no matching overload of `atomicExch`"), "{e}");
}

// ---------------------------------------------------------------------------
// Running: interpreter (-O0, -O3), emulator, GPU.
// ---------------------------------------------------------------------------

/// One launch of the fixture: grid and block sizes and the bins per
/// histogram (at least the threads per slot).
#[derive(Clone, Copy)]
struct Launch {
    grid: u32,
    block: u32,
    bins: u32,
}

const SMALL: Launch = Launch {
    grid: 4,
    block: 96,
    bins: 200,
};

/// A larger launch for the GPU, where many warps contend for each slot.
const LARGE: Launch = Launch {
    grid: 64,
    block: 256,
    bins: 8192,
};

impl Launch {
    fn args(self) -> Vec<String> {
        vec![
            "f32[]:zeros:12".into(),
            "f32[]:zeros:16".into(),
            format!("u32[]:zeros:{}", 4 * self.bins + self.grid),
            format!("i32:{}", self.bins),
            // `f16` buffers are 16-bit elements: the unsigned shorts.
            format!("f16[]:zeros:{}", 5 + self.grid),
            format!("f16[]:zeros:{}", 4 * self.grid),
        ]
    }
}

/// The buffers the fixture leaves, in argument order (the scalar has none),
/// as raw bytes.
type Buffers = Vec<Vec<u8>>;

/// Runs the fixture through `kernelc run` with `extra` options.
fn run(launch: Launch, extra: &[&str], tag: &str) -> Buffers {
    let dir = scratch(&format!("va-run-{tag}"));
    let out_dir = dir.join("out").display().to_string();
    let (grid, block) = (launch.grid.to_string(), launch.block.to_string());
    let mut args = vec![
        "run",
        FIXTURE,
        "-arch=sm_90",
        "--kernel",
        "vector_atomics",
        "--grid",
        &grid,
        "--block",
        &block,
        "--out",
        &out_dir,
    ];
    args.extend_from_slice(extra);
    let words = launch.args();
    args.extend(words.iter().map(String::as_str));
    let out = kernelc(&args);
    assert!(out.status.success(), "{args:?}:\n{}", stderr(&out));
    [0, 1, 2, 4, 5]
        .iter()
        .map(|k| std::fs::read(dir.join(format!("out/arg{k}.bin"))).unwrap())
        .collect()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// What the fixture must leave, computed thread by thread in Rust.
fn reference(l: Launch) -> Buffers {
    let threads = l.grid * l.block;
    let n = l.bins as usize;
    let mut acc2 = [0f32; 12];
    let mut acc4 = [0f32; 16];
    let mut hist = vec![0u32; 4 * n + l.grid as usize];
    let mut cnt = vec![0u16; 5 + l.grid as usize];
    // Threads per slot: the old values of a slot are 0, 1, ... once each.
    let mut per2 = [0u32; 3];
    let mut per4 = [0u32; 2];
    for t in 0..threads {
        let (k2, k4) = ((t % 3) as usize, (t & 1) as usize);
        per2[k2] += 1;
        acc2[2 * k2] += 1.0;
        acc2[2 * k2 + 1] += 2.0;
        acc2[2 * (3 + k2)] += (t % 5) as f32;
        acc2[2 * (3 + k2) + 1] -= 1.0;
        per4[k4] += 1;
        let s = 4 * k4;
        acc4[s] += 1.0;
        acc4[s + 1] += (t % 7) as f32;
        acc4[s + 2] -= 3.0;
        acc4[s + 3] += 4.0;
        let s = 4 * (2 + k4);
        acc4[s] += 0.5;
        acc4[s + 2] += (t & 3) as f32;
        acc4[s + 3] += 8.0;
        let c = (t % 5) as usize;
        cnt[c] = cnt[c].wrapping_add(((t * 37) & 0xfff) as u16);
    }
    for (base, per) in [
        (0, &per2[..]),
        (n, &per2[..]),
        (2 * n, &per4[..]),
        (3 * n, &per4[..]),
    ] {
        for &count in per {
            for j in 0..count as usize {
                hist[base + j] += 1;
            }
        }
    }
    let mut blk = vec![0u16; 4 * l.grid as usize];
    for b in 0..l.grid as usize {
        hist[4 * n + b] = 1;
        cnt[5 + b] = 7;
        for i in 0..4u32 {
            let mut v = 0xfff0u16 + i as u16;
            for tid in (0..l.block).filter(|tid| tid & 3 == i) {
                v = v.wrapping_add((1 + tid % 3) as u16);
            }
            blk[4 * b + i as usize] = v;
        }
    }
    vec![
        f32_bytes(&acc2),
        f32_bytes(&acc4),
        u32_bytes(&hist),
        u16_bytes(&cnt),
        u16_bytes(&blk),
    ]
}

fn assert_buffers(got: &Buffers, want: &Buffers, what: &str) {
    let names = ["acc2", "acc4", "hist", "cnt", "blk"];
    for ((g, w), name) in got.iter().zip(want).zip(names) {
        assert_eq!(g.len(), w.len(), "{what}: {name} length");
        if g != w {
            let at = g.iter().zip(w).position(|(a, b)| a != b).unwrap_or(0);
            panic!("{what}: {name} differs first at byte {at}");
        }
    }
}

#[test]
fn the_reference_sees_the_wrap_and_the_histograms() {
    // The reference itself: the 16-bit sums wrap, and every old value
    // 0..threads-per-slot is counted.
    let r = reference(SMALL);
    let cnt: Vec<u16> = r[3]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let exact: u64 = (0..384u64)
        .filter(|t| t % 5 == 0)
        .map(|t| (t * 37) & 0xfff)
        .sum();
    assert!(exact > 65535, "the counters must wrap");
    assert_eq!(u64::from(cnt[0]), exact % 65536);
    let hist: u32 = r[2]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .sum();
    assert_eq!(hist, 4 * 384 + 4);
}

/// The interpreter at -O0 and -O3 and the emulator at -O0 and -O3 leave
/// exactly the reference's bytes.
#[test]
fn interpreter_and_emulator_agree_with_the_reference() {
    let want = reference(SMALL);
    let runs = [
        (vec!["-O0"], "interp -O0"),
        (vec!["-O3"], "interp -O3"),
        (vec!["-O0", "--engine", "emu"], "emu -O0"),
        (vec!["-O3", "--engine", "emu"], "emu -O3"),
    ];
    for (k, (extra, what)) in runs.iter().enumerate() {
        let got = run(SMALL, extra, &format!("{k}"));
        assert_buffers(&got, &want, what);
    }
}

/// Faults: a generic address that lands in shared memory (no static proof,
/// so no compile error) stops both engines with a message; so does a
/// vector that is not aligned to its size.
#[test]
fn engines_fault_on_a_shared_address_and_a_misaligned_vector() {
    let dir = scratch("va-fault");
    let src = write(
        &dir,
        "fault.cu",
        "__device__ float2 *pick(float2 *g, float2 *s, int w) { return w ? s : g; }\n\
         __global__ void k(float2 *g, int w, int off) {\n\
           __shared__ float2 s[2];\n\
           float2 *p = pick(g, s, w);\n\
           atomicAdd((float2 *)((char *)p + off), make_float2(1.0f, 1.0f));\n\
         }\n",
    );
    for (w, off, want) in [
        ("1", "0", "vector atomics need global memory"),
        ("0", "4", "not aligned to the 8-byte vector"),
    ] {
        for engine in ["interp", "emu"] {
            let out = kernelc(&[
                "run",
                &src,
                "-arch=sm_90",
                "--kernel",
                "k",
                "--grid",
                "1",
                "--block",
                "1",
                "--engine",
                engine,
                "-O0",
                "f32[]:zeros:8",
                &format!("i32:{w}"),
                &format!("i32:{off}"),
            ]);
            let e = stderr(&out);
            assert!(!out.status.success(), "{engine} w={w} off={off}");
            assert!(e.contains(want), "{engine} w={w} off={off}: {e}");
            assert!(!e.contains("panic"), "{e}");
        }
    }
}

// ---------------------------------------------------------------------------
// The GPU engine: skipped without a CUDA driver or below sm_90.
// ---------------------------------------------------------------------------

fn gpu_or_skip(what: &str) -> bool {
    if kernelc::gpu::driver_available() {
        true
    } else {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): {what}");
        false
    }
}

/// On a Hopper (or newer) GPU the kernel leaves the emulator's bytes, which
/// are the reference's: the float sums are exact in any order and the old
/// values are only counted. At -O0 the helper's atomics are generic, at
/// -O3 global; a larger launch makes many warps contend for each slot.
#[test]
fn on_the_gpu_vector_atomics_match_the_emulator() {
    if !gpu_or_skip("vector atomics and the 16-bit CAS on the GPU") {
        return;
    }
    let device = kernelc::gpu::device_sm().expect("the device's compute capability");
    if device < 90 {
        eprintln!("SKIPPED: vector atomics need sm_90 or newer; the device is sm_{device}");
        return;
    }
    for (launch, size) in [(SMALL, "small"), (LARGE, "large")] {
        let want = reference(launch);
        for level in ["-O0", "-O3"] {
            let emu = run(
                launch,
                &[level, "--engine", "emu"],
                &format!("emu-{size}{level}"),
            );
            assert_buffers(&emu, &want, &format!("emu {size} {level}"));
            let gpu = run(
                launch,
                &[level, "--engine", "gpu"],
                &format!("gpu-{size}{level}"),
            );
            assert_eq!(
                gpu, emu,
                "{size} {level}: the GPU disagrees with the emulator"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// 16-bit float atomics: `atomicAdd` on `__half`, `__half2`, `__nv_bfloat16`
// and `__nv_bfloat162` (tests/fixtures/atomics/half_atomics.cu).
// ---------------------------------------------------------------------------

const HALF_FIXTURE: &str = "tests/fixtures/atomics/half_atomics.cu";

/// Every target kernelc has, oldest first.
const TARGETS: &[&str] = &[
    "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a",
    "sm_120", "sm_120a",
];

/// The SM number of a target name (`sm_90a` is 90).
fn sm_of(target: &str) -> u32 {
    target[3..]
        .trim_end_matches('a')
        .parse()
        .expect("an sm_XX name")
}

/// `own_slots`'s launch (2 blocks of 32 threads, one slot each): the
/// accumulators and addends are random bits (NaNs, infinities and
/// subnormals among them), the old values start at zero.
const OWN_SLOTS: &[&str] = &[
    "u16[]:rand:64:1",
    "u32[]:rand:64:2",
    "u16[]:rand:64:3",
    "u32[]:rand:64:4",
    "u16[]:rand:128:5",
    "u32[]:rand:128:6",
    "u16[]:zeros:128",
    "u32[]:zeros:128",
    "i32:64",
];

/// `contended`'s launch: the counters and histograms start at zero.
const CONTENDED: &[&str] = &[
    "f16[]:zeros:8",
    "u32[]:zeros:2",
    "u16[]:zeros:4",
    "u32[]:zeros:4",
    "u32[]:zeros:256",
    "u32[]:zeros:12",
];

/// kernelc's PTX of the half fixture for `arch` at `level` (fused
/// multiply-add off, as nvcc's below), written into `dir`; ptxas and
/// ptx-validate accept it.
fn half_ptx(dir: &Path, arch: &str, level: &str) -> (std::path::PathBuf, String) {
    let file = dir.join(format!("kernelc-{arch}{level}.ptx"));
    let arch_flag = format!("-arch={arch}");
    let out = kernelc(&[
        HALF_FIXTURE,
        &arch_flag,
        level,
        "-fmad=false",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{arch} {level}: {}", stderr(&out));
    let text = std::fs::read_to_string(&file).unwrap();
    assert_ptxas_accepts(&text, arch, &format!("{HALF_FIXTURE} {arch} {level}"));
    (file, text)
}

/// nvcc's PTX of the half fixture for `arch` (CUDA's own headers, which
/// need CCCL's), written into `dir`; `None` (after a loud skip) without
/// nvcc or the headers.
fn half_nvcc_ptx(dir: &Path, arch: &str) -> Option<std::path::PathBuf> {
    let nvcc = common::nvcc_or_skip("the half fixture through nvcc")?;
    let headers = common::cuda_headers_or_skip()?;
    let file = dir.join(format!("nvcc-{arch}.ptx"));
    let flags = [
        "-fmad=false".to_string(),
        format!("-I{}", headers.join("cccl").display()),
    ];
    let text = common::nvcc_ptx_to(
        &nvcc,
        &common::root().join(HALF_FIXTURE),
        arch,
        &flags,
        &file,
    );
    assert_ptxas_accepts(&text, arch, &format!("nvcc's PTX of {HALF_FIXTURE} {arch}"));
    Some(file)
}

/// The buffers of one launch of `kernel` from `file` on `engine` (`emu`
/// for PTX, `interp` for the CUDA source), with `options` (`-arch=sm_80`).
fn half_run(file: &Path, engine: &str, kernel: &str, args: &[&str], options: &[&str]) -> Buffers {
    let out = scratch(&format!("half-run-{engine}-{kernel}"));
    let mut with_shape = vec!["--grid", "2", "--block", "32"];
    with_shape.extend_from_slice(options);
    common::launch_buffers(file, engine, (kernel, args), &out, &with_shape)
        .into_iter()
        .flatten()
        .collect()
}

/// The value of 16-bit float bits with `frac` fraction bits (`f16`: 10,
/// `bf16`: 7), exactly.
fn half_value(bits: u16, frac: u32) -> f64 {
    let exp_bits = 15 - frac;
    let bias = (1i32 << (exp_bits - 1)) - 1;
    let e = i32::from(bits >> frac) & ((1 << exp_bits) - 1);
    let m = f64::from(bits & ((1 << frac) - 1));
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let scale = |k: i32| 2f64.powi(k);
    if e == (1 << exp_bits) - 1 {
        return if m == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if e == 0 {
        return sign * m * scale(1 - bias - frac as i32);
    }
    sign * (scale(frac as i32) + m) * scale(e - bias - frac as i32)
}

/// `x` rounded to the 16-bit format with `frac` fraction bits, to nearest
/// with ties to even, as bits (`None` for a NaN, whose payload is the
/// hardware's choice). Written from the formats' definitions, not from
/// either engine: the quantum at `x`'s binade (or the subnormal one) is a
/// power of two, so `x / quantum` rounded to an integer is the rounding.
fn round_half(x: f64, frac: u32) -> Option<u16> {
    if x.is_nan() {
        return None;
    }
    let exp_bits = 15 - frac;
    let bias = (1i32 << (exp_bits - 1)) - 1;
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    let inf = sign | (((1u16 << exp_bits) - 1) << frac);
    if a.is_infinite() {
        return Some(inf);
    }
    if a == 0.0 {
        return Some(sign);
    }
    let binade = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(1 - bias);
    let quantum = 2f64.powi(binade - frac as i32);
    let n = (a / quantum).round_ties_even();
    let r = n * quantum;
    if r >= 2f64.powi(bias + 1) {
        return Some(inf);
    }
    if r < 2f64.powi(1 - bias) {
        return Some(sign | n as u16);
    }
    let e = ((r.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let m = r / 2f64.powi(e - frac as i32) - 2f64.powi(frac as i32);
    Some(sign | (((e + bias) as u16) << frac) | m as u16)
}

/// The reference checks of `own_slots`: every accumulator is the rounded
/// sum of its start and its addend (lane by lane for the pairs), every old
/// value the start. `before` are the launch's buffers as made (the engines
/// read the same seeds).
fn check_own_slots(got: &Buffers, before: &Buffers, what: &str) {
    let u16s = |b: &[u8]| -> Vec<u16> {
        b.chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    };
    let (v16, v32) = (u16s(&before[4]), common::u32s(&before[5]));
    let (old16, old32) = (u16s(&got[6]), common::u32s(&got[7]));
    let mut nans = 0;
    let mut check = |start: u16, add: u16, sum: u16, old: u16, frac: u32, at: &str| {
        assert_eq!(old, start, "{what}: {at}: the old value");
        match round_half(half_value(start, frac) + half_value(add, frac), frac) {
            Some(want) => assert_eq!(
                sum, want,
                "{what}: {at}: {start:#06x} + {add:#06x} gave {sum:#06x}, want {want:#06x}"
            ),
            None => {
                nans += 1;
                assert!(
                    half_value(sum, frac).is_nan(),
                    "{what}: {at}: {sum:#06x} is no NaN"
                )
            }
        }
    };
    let (h, b) = (u16s(&got[0]), u16s(&got[2]));
    let (h0, b0) = (u16s(&before[0]), u16s(&before[2]));
    let (h2, b2) = (common::u32s(&got[1]), common::u32s(&got[3]));
    let (h20, b20) = (common::u32s(&before[1]), common::u32s(&before[3]));
    for t in 0..64 {
        check(h0[t], v16[t], h[t], old16[t], 10, &format!("__half {t}"));
        check(
            b0[t],
            v16[64 + t],
            b[t],
            old16[64 + t],
            7,
            &format!("bf16 {t}"),
        );
        for lane in 0..2 {
            let l = |w: u32| (w >> (16 * lane)) as u16;
            let at = format!("lane {lane} of pair {t}");
            check(
                l(h20[t]),
                l(v32[t]),
                l(h2[t]),
                l(old32[t]),
                10,
                &format!("__half2 {at}"),
            );
            let (start, add) = (l(b20[t]), l(v32[64 + t]));
            check(
                start,
                add,
                l(b2[t]),
                l(old32[64 + t]),
                7,
                &format!("bf162 {at}"),
            );
        }
    }
    assert!(nans < 64, "{what}: most sums are numbers ({nans} NaNs)");
}

/// The buffers `own_slots` starts from: its arguments as `kernelc run`
/// makes them (a launch that returns at once, `n` = 0).
fn own_slots_inputs(file: &Path, engine: &str) -> Buffers {
    let mut args = OWN_SLOTS.to_vec();
    args[8] = "i32:0";
    half_run(file, engine, "own_slots", &args, &[])
}

/// `contended`'s sums and histograms, as a reference written here: 64
/// threads, 2 blocks of 32.
fn check_contended(got: &Buffers, what: &str) {
    let u16s = |b: &[u8]| -> Vec<u16> {
        b.chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    };
    let f16 = |x: f64| round_half(x, 10).unwrap();
    let bf16 = |x: f64| round_half(x, 7).unwrap();
    let pair = |lo: u16, hi: u16| u32::from(lo) | u32::from(hi) << 16;
    // 16 threads per `__half` counter add 1, and 16 per other one 0.5.
    let halves = [vec![f16(16.0); 4], vec![f16(8.0); 4]].concat();
    assert_eq!(u16s(&got[0]), halves, "{what}: __half sums");
    // 32 threads per pair add (1, 2).
    assert_eq!(
        common::u32s(&got[1]),
        vec![pair(f16(32.0), f16(64.0)); 2],
        "{what}: __half2"
    );
    assert_eq!(u16s(&got[2]), vec![bf16(16.0); 4], "{what}: bf16 sums");
    // 32 threads per pair add (2, 1), and 32 per other one (0, 0.5).
    let pairs = [
        vec![pair(bf16(64.0), bf16(32.0)); 2],
        vec![pair(0, bf16(16.0)); 2],
    ];
    assert_eq!(common::u32s(&got[3]), pairs.concat(), "{what}: bf162 sums");
    // Each old value is seen once: 0..15 per counter (four counters), and
    // 0, 1, ... 31 steps per pair (two pairs).
    let hist = common::u32s(&got[4]);
    for (base, seen, times) in [(0, 16, 4), (64, 32, 2), (128, 16, 4), (192, 32, 2)] {
        for k in 0..64 {
            let want = if k < seen { times } else { 0 };
            assert_eq!(hist[base + k], want, "{what}: histogram {base} bin {k}");
        }
    }
    // Per block, in shared memory: 16 threads per `__half`, 32 per pair.
    let sums = common::u32s(&got[5]);
    let block = [
        u32::from(f16(16.0)),
        u32::from(f16(16.0)),
        pair(f16(32.0), f16(8.0)),
        u32::from(bf16(32.0)),
        u32::from(bf16(32.0)),
        pair(bf16(16.0), bf16(32.0)),
    ];
    assert_eq!(sums, [block, block].concat(), "{what}: shared sums");
}

/// The independent reference itself: ties go to even, subnormals and
/// overflow are where the formats put them.
#[test]
fn the_half_reference_rounds_to_nearest_even() {
    assert_eq!(round_half(1.0, 10), Some(0x3c00));
    assert_eq!(round_half(1.0 + 2f64.powi(-11), 10), Some(0x3c00));
    assert_eq!(round_half(1.0 + 3.0 * 2f64.powi(-11), 10), Some(0x3c02));
    assert_eq!(round_half(65520.0, 10), Some(0x7c00));
    assert_eq!(round_half(65519.0, 10), Some(0x7bff));
    assert_eq!(round_half(-2f64.powi(-24), 10), Some(0x8001));
    assert_eq!(round_half(2f64.powi(-25), 10), Some(0));
    assert_eq!(round_half(1.0 + 2f64.powi(-8), 7), Some(0x3f80));
    assert_eq!(round_half(1.0 + 3.0 * 2f64.powi(-8), 7), Some(0x3f82));
    assert_eq!(round_half(2f64.powi(-133), 7), Some(1));
    for bits in [0x3c00u16, 0x0001, 0x7bff, 0xfbff, 0x8400] {
        assert_eq!(round_half(half_value(bits, 10), 10), Some(bits));
        assert_eq!(round_half(half_value(bits, 7), 7), Some(bits));
    }
}

/// On sm_90 (one `atom.add.noftz` each) and sm_80 (CUDA's compare-and-swap
/// loops for `bf16`), kernelc's PTX at -O0 and -O3 leaves the same bits as
/// nvcc's on the emulator, and both the references' values.
#[test]
fn half_atomics_leave_nvcc_s_bits_on_the_emulator() {
    let dir = scratch("half-emu");
    for arch in ["sm_90", "sm_80"] {
        let theirs = half_nvcc_ptx(&dir, arch);
        for level in ["-O0", "-O3"] {
            let (ours, _) = half_ptx(&dir, arch, level);
            let what = format!("kernelc {arch} {level}");
            let before = own_slots_inputs(&ours, "emu");
            let slots = half_run(&ours, "emu", "own_slots", OWN_SLOTS, &[]);
            check_own_slots(&slots, &before, &what);
            let contended = half_run(&ours, "emu", "contended", CONTENDED, &[]);
            check_contended(&contended, &what);
            if let Some(theirs) = &theirs {
                let nvcc_slots = half_run(theirs, "emu", "own_slots", OWN_SLOTS, &[]);
                assert!(nvcc_slots == slots, "{what}: own_slots differs from nvcc's");
                let nvcc_contended = half_run(theirs, "emu", "contended", CONTENDED, &[]);
                assert!(
                    nvcc_contended == contended,
                    "{what}: contended differs from nvcc's"
                );
            }
        }
    }
}

/// The interpreter at -O0 and -O3, for sm_90 and sm_80, leaves the bits
/// the emulator leaves from kernelc's PTX (NaNs included).
#[test]
fn half_atomics_interpreter_agrees_with_the_emulator() {
    let dir = scratch("half-interp");
    let src = common::root().join(HALF_FIXTURE);
    for arch in ["sm_90", "sm_80"] {
        let (ptx_file, _) = half_ptx(&dir, arch, "-O3");
        let emu_slots = half_run(&ptx_file, "emu", "own_slots", OWN_SLOTS, &[]);
        let emu_contended = half_run(&ptx_file, "emu", "contended", CONTENDED, &[]);
        let arch_flag = format!("-arch={arch}");
        for level in ["-O0", "-O3"] {
            let what = format!("interp {arch} {level}");
            let options = [arch_flag.as_str(), level];
            let slots = half_run(&src, "interp", "own_slots", OWN_SLOTS, &options);
            assert!(
                slots == emu_slots,
                "{what}: own_slots differs from the emulator"
            );
            let contended = half_run(&src, "interp", "contended", CONTENDED, &options);
            check_contended(&contended, &what);
            assert!(contended == emu_contended, "{what}: contended differs");
        }
    }
}

/// ptxas takes the fixture on every target from sm_80: from sm_90 each
/// atomic is one `atom`/`red ... add.noftz` in its space (global, shared
/// or, in the helper at -O0, generic); below, `__half` and `__half2` keep
/// theirs and the `bf16` forms are compare-and-swap loops on 16 and 32
/// bits. sm_75 has no `bf16` arithmetic in kernelc (its conversions need
/// sm_80), so there the loop's add is the located error every `bf16` add
/// gets, at the call.
#[test]
fn half_atomic_forms_on_every_target() {
    let dir = scratch("half-forms");
    let e = refused(HALF_FIXTURE, &["-arch=sm_75"], &dir);
    assert!(e.contains("bf16 conversions need sm_80 or newer"), "{e}");
    assert!(e.contains("half_atomics.cu:21:"), "{e}");
    for &arch in &TARGETS[1..] {
        let (_, text) = half_ptx(&dir, arch, "-O3");
        let has = |form: &str| text.contains(form);
        for form in [
            "atom.global.add.noftz.f16 %rs",
            "red.global.add.noftz.f16 [",
            "atom.global.add.noftz.f16x2 %r",
            "red.shared.add.noftz.f16 [",
            "red.shared.add.noftz.f16x2 [",
        ] {
            assert!(has(form), "{arch}: no `{form}`:\n{text}");
        }
        let native = [
            "atom.global.add.noftz.bf16 %rs",
            "atom.global.add.noftz.bf16x2 %r",
            "red.global.add.noftz.bf16x2 [",
            "red.shared.add.noftz.bf16 [",
            "red.shared.add.noftz.bf16x2 [",
        ];
        for form in native {
            assert_eq!(has(form), sm_of(arch) >= 90, "{arch}: `{form}`:\n{text}");
        }
        let loops = [
            "atom.global.cas.b16",
            "atom.global.cas.b32",
            "atom.shared.cas.b16",
        ];
        for form in loops {
            assert_eq!(has(form), sm_of(arch) < 90, "{arch}: `{form}`:\n{text}");
        }
        assert!(
            !text.contains("add.noftz.bf16") || sm_of(arch) >= 90,
            "{arch}"
        );
    }
    // The helper keeps its generic pointer at -O0: nvcc's own form.
    let (_, o0) = half_ptx(&dir, "sm_90", "-O0");
    assert!(o0.contains("atom.add.noftz.f16x2 %r"), "{o0}");
    assert!(o0.contains("mov.b32 {%rs"), "the old pair unpacked:\n{o0}");
}

/// CUDA declares only `atomicAdd` on the 16-bit floats, at the device
/// scope: every other atomic on them, and a scoped add, is E0099 at the
/// argument naming the overloads there are; an atomic on a local pair is
/// located at the call as any atomic on local memory is.
#[test]
fn other_half_atomics_are_located_errors() {
    let dir = scratch("half-errors");
    for (call, said) in [
        (
            "atomicAdd_block(h, __float2half(1.0f));",
            "no matching overload of `atomicAdd_block` for a first argument of type `__half *`",
        ),
        (
            "atomicMax(h2, h2[0]);",
            "no matching overload of `atomicMax` for a first argument of type `__half2 *`",
        ),
        (
            "atomicExch(b, b[0]);",
            "no matching overload of `atomicExch` for a first argument of type `__nv_bfloat16 *`",
        ),
        (
            "atomicCAS(b2, b2[0], b2[0]);",
            "no matching overload of `atomicCAS` for a first argument of type `__nv_bfloat162 *`",
        ),
    ] {
        let src = write(
            &dir,
            "e.cu",
            &format!(
                "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\
                 __global__ void k(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2) {{\n\
                   {call}\n\
                 }}\n"
            ),
        );
        let e = refused(&src, &["-arch=sm_90"], &dir);
        assert!(e.contains("error[E0099]"), "{call}: {e}");
        assert!(e.contains(said), "{call}: {e}");
        assert!(
            e.contains("e.cu:4:"),
            "{call}: located at the call's line:\n{e}"
        );
    }
    let src = write(
        &dir,
        "local.cu",
        "#include <cuda_fp16.h>\n\
         __global__ void k(__half2 *out) {\n\
           __half2 mine = out[0];\n\
           out[1] = atomicAdd(&mine, out[2]);\n\
         }\n",
    );
    for level in ["-O0", "-O3"] {
        let e = refused(&src, &["-arch=sm_90", level], &dir);
        assert!(e.contains("local.cu:4:"), "{level}: {e}");
    }
}
