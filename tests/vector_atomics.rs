//! `atomicAdd` on `float2`/`float4` (sm_90: `atom.global.add.v2.f32`,
//! `.v4`, PTX ISA 8.1) and `atomicCAS` on `unsigned short` (`atom.cas.b16`)
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
