//! The memory-space knobs as a user types them (`docs/memspace.md`,
//! "Knobs"), one test each, and the rendered notes of `-Wgeneric` and
//! `--explain-memspace` for a pointer that stays generic: where two spaces
//! met, or where provenance was lost, with source spans.

mod common;

use common::{kernelc, stderr, stdout};
use std::path::PathBuf;

/// A helper called with a global and a shared pointer, a pointer loaded
/// from memory, and a pointer made from an integer. `extern "C"` keeps the
/// names the transcripts are checked for plain.
const MIXED: &str = "\
extern \"C\" __device__ __noinline__ float get(float* p) { return *p; }
extern \"C\" __global__ void k(float* a, float** t, int n) {
    __shared__ float s[32];
    s[threadIdx.x] = get(a);
    float* p = *t;
    unsigned long long bits = (unsigned long long)a;
    float* back = (float*)(bits + 4);
    *back = get(s) + *p;
}
";

/// A select between a shared and a global pointer.
const MEET: &str = "\
extern \"C\" __global__ void k(float* a, int n) {
    __shared__ float s[32];
    float* m = n > 0 ? s : a;
    m[threadIdx.x] = 1.0f;
}
";

fn write(name: &str, text: &str) -> PathBuf {
    let dir = common::scratch(&format!("mscli-{name}"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Compiles `source` with `args` and `-rdc=true`, so the helper stays
/// external and its clones are what the knobs decide (without it every
/// caller is known, and a helper is specialized in place); returns (PTX,
/// stderr).
fn compile(name: &str, source: &str, args: &[&str]) -> (String, String) {
    let path = write(name, source);
    let out_path = path.with_extension("ptx");
    let (p, o) = (path.to_str().unwrap(), out_path.to_str().unwrap());
    let mut all = vec!["-arch=sm_90", "-rdc=true"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[p, "-o", o]);
    let out = kernelc(&all);
    assert!(out.status.success(), "kernelc {all:?}: {}", stderr(&out));
    (std::fs::read_to_string(out_path).unwrap(), stderr(&out))
}

/// PTX loads, stores and atomics without a state space.
fn generic_accesses(ptx: &str) -> usize {
    ptx.lines()
        .map(str::trim)
        .filter(|l| {
            let op = l.split_whitespace().next().unwrap_or("");
            let mut parts = op.split('.');
            matches!(parts.next(), Some("ld" | "st" | "atom" | "red"))
                && !parts.any(|p| {
                    matches!(p, "global" | "shared" | "local" | "const" | "param")
                        || p.starts_with("shared::")
                })
        })
        .count()
}

#[test]
fn memspace_on_and_off() {
    let (on, _) = compile("on.cu", MIXED, &[]);
    let (off, _) = compile("off.cu", MIXED, &["--memspace=off"]);
    assert!(on.contains("get__shared"), "{on}");
    assert!(!off.contains("get__shared"), "{off}");
    assert!(on.contains("ld.shared.f32"), "{on}");
}

#[test]
fn verbose_trace_prints_the_transcript_and_the_explanation() {
    let (_, err) = compile("verbose.cu", MIXED, &["--memspace-verbose"]);
    assert!(err.contains("ip-msp: Initial work list size : 1"), "{err}");
    assert!(err.contains("memspace: @k:"), "{err}");
}

#[test]
fn dump_ip_msp_prints_the_seeds_lines() {
    let (_, err) = compile("dump.cu", MIXED, &["--dump-ip-msp"]);
    for line in [
        "ip-msp: Initial work list size : 1",
        "ip-msp: get__global is cloned",
        "ip-msp: get__shared is cloned",
        "ip-msp: 2 callees are affected",
    ] {
        assert!(err.contains(line), "missing `{line}`:\n{err}");
    }
    let (_, err) = compile("dump0.cu", MIXED, &["--dump-ip-msp", "--clone-budget", "0"]);
    assert!(err.contains("ip-msp: avoid cloning of get"), "{err}");
}

#[test]
fn clone_budget_unlimited_none_and_one() {
    let (all, _) = compile("b-1.cu", MIXED, &["--clone-budget", "-1"]);
    assert!(all.contains("get__global") && all.contains("get__shared"));
    let (none, _) = compile("b0.cu", MIXED, &["--clone-budget", "0"]);
    assert!(!none.contains("get__global") && !none.contains("get__shared"));
    let (one, err) = compile("b1.cu", MIXED, &["--clone-budget", "1", "--dump-ip-msp"]);
    assert!(one.contains("get__global") && !one.contains("get__shared"));
    assert!(err.contains("ip-msp: avoid cloning of get"), "{err}");
}

#[test]
fn conservative_mode_does_no_interprocedural_specialization() {
    let (ptx, err) = compile(
        "cons.cu",
        MIXED,
        &["--memspace-conservative", "--dump-ip-msp"],
    );
    assert!(!ptx.contains("get__"), "{ptx}");
    assert!(err.contains("ip-msp: Initial work list size : 0"), "{err}");
}

/// A kernel that stores a shared pointer to global memory: a pointer loaded
/// from global memory may then be that one.
const SHARED_STORED: &str = "\
__global__ void k(float** slots, float* out) {
    __shared__ float s[32];
    s[threadIdx.x] = 1.0f;
    if (threadIdx.x == 0) slots[blockIdx.x] = s;
    __syncthreads();
    float* p = slots[blockIdx.x];
    out[threadIdx.x] = p[threadIdx.x];
}
";

#[test]
fn track_indir_load_follows_pointers_loaded_from_global_memory() {
    // On by default: MIXED stores no pointer, so the pointer it loads from
    // global memory is global.
    let (off, _) = compile("indir0.cu", MIXED, &["--track-indir-load=false"]);
    let (on, _) = compile("indir1.cu", MIXED, &[]);
    let (named, _) = compile("indir2.cu", MIXED, &["--track-indir-load"]);
    assert!(
        generic_accesses(&on) < generic_accesses(&off),
        "{off}\n----\n{on}"
    );
    assert_eq!(on, named);
    // A shared pointer stored to global memory: the loaded one stays generic.
    let (ptx, err) = compile("indir3.cu", SHARED_STORED, &["--explain-memspace"]);
    assert_eq!(generic_accesses(&ptx), 1, "{ptx}");
    assert!(
        err.contains("loaded from global memory, where the module also stores pointers that are not proved global"),
        "{err}"
    );
}

#[test]
fn track_int2ptr_follows_integers_back_to_the_pointer() {
    let (off, _) = compile("i2p0.cu", MIXED, &["--track-int2ptr=false"]);
    let (on, _) = compile("i2p1.cu", MIXED, &[]);
    let (named, _) = compile("i2p2.cu", MIXED, &["--track-int2ptr=true"]);
    assert!(
        generic_accesses(&on) < generic_accesses(&off),
        "{off}\n----\n{on}"
    );
    assert_eq!(on, named);
}

#[test]
fn the_unsafe_fallback_is_off_by_default_and_warns_when_on() {
    let (ptx, err) = compile("safe.cu", MIXED, &[]);
    assert!(!err.contains("assuming global memory space"), "{err}");
    assert!(generic_accesses(&ptx) > 0);
    let (ptx, err) = compile("unsafe.cu", MIXED, &["--memspace-assume-global"]);
    assert!(
        err.contains(
            "warning[W0008]: Cannot tell what pointer points to, assuming global memory space"
        ),
        "{err}"
    );
    assert_eq!(generic_accesses(&ptx), 0, "{ptx}");
    let help = stdout(&kernelc(&["--help"]));
    assert!(help.contains("--memspace-assume-global"), "{help}");
    assert!(help.contains("UNSAFE"), "{help}");
}

#[test]
fn param_always_point_to_global_decides_generic_kernel_parameters() {
    // The frontend types kernel pointer parameters `ptr<global>` itself, so
    // the knob shows on IR whose kernel takes a generic pointer.
    let ir = "\
kernel external @k(ptr<generic>) {
block0(v0: ptr<generic>):
    v1 = load.f32 v0
    store v1, v0
    return
}
";
    let path = write("k.kir", ir);
    let p = path.to_str().unwrap();
    let on = kernelc(&["opt", "--passes", "memspace", p]);
    assert!(on.status.success(), "{}", stderr(&on));
    assert!(
        stdout(&on).contains("kernel external @k(ptr<global>)"),
        "{}",
        stdout(&on)
    );
    let off = kernelc(&[
        "opt",
        "--passes",
        "memspace",
        "--param-always-point-to-global=false",
        p,
    ]);
    assert!(off.status.success(), "{}", stderr(&off));
    assert!(
        stdout(&off).contains("kernel external @k(ptr<generic>)"),
        "{}",
        stdout(&off)
    );
}

#[test]
fn explain_memspace_says_why_per_pointer() {
    let (_, err) = compile("explain_on.cu", MIXED, &["--explain-memspace"]);
    assert!(
        err.contains("global ← loaded from global memory, where the module stores only global pointers (--track-indir-load)"),
        "{err}"
    );
    let off = [
        "--explain-memspace",
        "--track-indir-load=false",
        "--track-int2ptr=false",
    ];
    let (_, err) = compile("explain.cu", MIXED, &off);
    assert!(err.contains("memspace: @k:"), "{err}");
    assert!(
        err.contains("provenance lost: loaded from memory (--track-indir-load is off)"),
        "{err}"
    );
    assert!(
        err.contains("provenance lost: made from an integer (--track-int2ptr is off)"),
        "{err}"
    );
    let (_, err) = compile("explain_meet.cu", MEET, &["--explain-memspace"]);
    assert!(
        err.contains("(shared) met") || err.contains("(global) met"),
        "{err}"
    );
}

#[test]
fn wgeneric_names_where_two_spaces_met() {
    let (_, err) = compile("meet.cu", MEET, &["-Wgeneric"]);
    assert!(
        err.contains("warning[W0007]: generic store left in kernel `k`"),
        "{err}"
    );
    assert!(err.contains("meet.cu:4:5"), "{err}");
    assert!(
        err.contains("a shared pointer and a global pointer meet here")
            || err.contains("a global pointer and a shared pointer meet here"),
        "{err}"
    );
    assert!(
        err.contains("this pointer points to global memory"),
        "{err}"
    );
    assert!(
        err.contains("this pointer points to shared memory"),
        "{err}"
    );
    assert!(
        err.contains("= the pointer may point to shared or to global memory, so it stays generic")
            || err.contains(
                "= the pointer may point to global or to shared memory, so it stays generic"
            ),
        "{err}"
    );
}

#[test]
fn wgeneric_names_where_provenance_was_lost() {
    let args = [
        "-Wgeneric",
        "--track-indir-load=false",
        "--track-int2ptr=false",
    ];
    let (_, err) = compile("lost.cu", MIXED, &args);
    assert!(
        err.contains("provenance is lost here: loaded from memory (--track-indir-load is off)"),
        "{err}"
    );
    assert!(
        err.contains("provenance is lost here: made from an integer (--track-int2ptr is off)"),
        "{err}"
    );
    // The label sits under the load of line 5 (`float* p = *t;`).
    assert!(err.contains("5 │     float* p = *t;"), "{err}");
}

#[test]
fn a_global_pointer_as_a_tma_destination_is_an_error() {
    let src = "\
#include \"kernelc.cuh\"
__global__ void k(const __grid_constant__ CUtensorMap map, float* out) {
    __shared__ unsigned long long bar;
    kernelc_tma_load_1d(out, &map, &bar, 0);
}
";
    let path = write("tma.cu", src);
    let out = kernelc(&[
        "-arch=sm_90",
        path.to_str().unwrap(),
        "-o",
        path.with_extension("ptx").to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(
            "operand 0 of `tma_load` must point to shared memory, but it points to global memory"
        ),
        "{err}"
    );
}
