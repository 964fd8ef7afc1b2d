//! Classes named before they are complete
//! (`tests/fixtures/incomplete_types/incomplete_types.cu`): self-pointing
//! list and tree nodes, structs that point at each other, a class
//! template with a pointer to itself, members that take and return their
//! own class, and pointers to a class that is never defined. Each kernel
//! builds its structure with real pointers in a device buffer and walks
//! it; what it writes is computed here, and kernelc's PTX on the emulator,
//! its IR in the interpreter (-O0 and -O3) and nvcc's PTX on the emulator
//! must all give it. The kernels' names are nvcc's, and the uses C++
//! refuses for an incomplete class are located errors.

mod common;

use common::{f32s, i32s, launch_buffers, scratch};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/incomplete_types/incomplete_types.cu")
}

/// The places one kernel runs: kernelc's PTX on the emulator, the source
/// in the interpreter at -O0 and -O3, and nvcc's PTX on the emulator when
/// nvcc is there.
struct Engines {
    dir: PathBuf,
    ptx: PathBuf,
    nvcc: Option<PathBuf>,
}

impl Engines {
    fn new() -> Engines {
        let dir = scratch("incomplete-types");
        let (_, nvcc) = common::fixture_ptx_and_nvcc(&fixture(), &dir);
        let ptx = dir.join("kernelc.ptx");
        Engines { dir, ptx, nvcc }
    }

    /// Runs `kernel` with `args` over one block of 64 threads everywhere;
    /// the buffers of each run, named by where it ran.
    fn run(&self, kernel: &str, args: &[&str]) -> Vec<(String, Vec<Option<Vec<u8>>>)> {
        let mut runs: Vec<(&Path, &str, &str)> = vec![
            (&self.ptx, "emu", "kernelc"),
            (fixture_path(), "interp", "-O0"),
            (fixture_path(), "interp", "-O3"),
        ];
        if let Some(theirs) = &self.nvcc {
            runs.push((theirs, "emu", "nvcc"));
        }
        runs.into_iter()
            .map(|(file, engine, what)| {
                let out = self.dir.join(format!("{kernel}-{engine}{what}"));
                let mut options = vec!["--grid", "1", "--block", "64", "--fmad", "false"];
                if engine == "interp" {
                    options.push(what);
                }
                let name = format!("{engine} {what}");
                (
                    name,
                    launch_buffers(file, engine, (kernel, args), &out, &options),
                )
            })
            .collect()
    }
}

fn fixture_path() -> &'static Path {
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(fixture)
}

fn buffer(run: &[Option<Vec<u8>>], k: usize) -> &[u8] {
    run[k].as_deref().expect("an array argument")
}

#[test]
fn kernel_names_are_nvccs() {
    let dir = scratch("incomplete-types-names");
    let (text, theirs) = common::fixture_ptx_and_nvcc(&fixture(), &dir);
    let entries = |ptx: &str| {
        let mut names: Vec<String> = ptx
            .lines()
            .filter_map(|l| l.strip_prefix(".visible .entry "))
            .map(|l| l.trim_end_matches('(').to_string())
            .collect();
        names.sort();
        names
    };
    let ours = entries(&text);
    for name in [
        "_Z9list_walkP4NodePi",
        "_Z6opaqueP6OpaqueS0_Pi",
        "_Z13template_listP4ListIfEPf",
        "_Z10graph_walkP6VertexP4EdgePi",
        "_Z9bvh_countP7BVHNodePKfS2_Pi",
        "_Z6taggedP6TaggedI3TagEPi",
        "_Z6holderPN2ns3FwdEPNS_6HolderEPi",
    ] {
        assert!(ours.iter().any(|e| e == name), "{name}: {ours:?}");
    }
    let funcs = [
        "_Z6linkedIN5OuterIiE5InnerEEiPKT_",
        "_Z6linkedI4ListIfEEiPKT_",
    ];
    for name in funcs {
        assert!(text.contains(&format!(" {name}(")), "{name}: {text}");
    }
    if let Some(theirs) = theirs {
        let theirs = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(ours, entries(&theirs));
        for name in funcs {
            assert!(theirs.contains(&format!(" {name}(")), "{name}: {theirs}");
        }
    }
}

#[test]
fn a_list_linked_in_device_memory_is_walked() {
    let engines = Engines::new();
    let order: Vec<usize> = (0..64).map(|k| (k * 37) % 64).collect();
    let mut want = vec![0i32; 128];
    for (k, &node) in order.iter().enumerate() {
        let rest = &order[k..];
        want[node] = rest.iter().map(|&n| 3 * n as i32 + 1).sum();
        want[64 + node] = rest.len() as i32;
    }
    for (name, run) in engines.run(
        "_Z9list_walkP4NodePi",
        &["u64[]:zeros:128", "i32[]:zeros:128"],
    ) {
        assert_eq!(i32s(buffer(&run, 1)), want, "{name}");
    }
}

/// What `bvh_count` writes for the points `xs` and widths `ws`: per
/// thread the leaves holding its point, the sum of their indices, and the
/// nodes the traversal visits (children of a node holding the point).
fn bvh_expected(xs: &[f32], ws: &[f32]) -> Vec<i32> {
    let mut lo = vec![0f32; 63];
    let mut hi = vec![0f32; 63];
    for k in 0..32 {
        lo[31 + k] = k as f32;
        hi[31 + k] = k as f32 + 0.5 + 2.0 * ws[k];
    }
    for k in (0..31).rev() {
        lo[k] = lo[2 * k + 1].min(lo[2 * k + 2]);
        hi[k] = hi[2 * k + 1].max(hi[2 * k + 2]);
    }
    let mut out = vec![0i32; 192];
    for (i, &x) in xs.iter().enumerate() {
        let x = x * 34.0 - 1.0;
        let (mut hits, mut sum, mut visited) = (0, 0, 0);
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            visited += 1;
            if x < lo[n] || x >= hi[n] {
                continue;
            }
            if n >= 31 {
                hits += 1;
                sum += n as i32 - 31;
            } else {
                stack.extend([2 * n + 2, 2 * n + 1]);
            }
        }
        (out[i], out[64 + i], out[128 + i]) = (hits, sum, visited);
    }
    out
}

#[test]
fn a_tree_of_self_pointing_nodes_is_traversed_with_a_stack() {
    let engines = Engines::new();
    let args = [
        "u64[]:zeros:256",
        "f32[]:rand:64:11",
        "f32[]:rand:32:12",
        "i32[]:zeros:192",
    ];
    let mut overlapping = false;
    for (name, run) in engines.run("_Z9bvh_countP7BVHNodePKfS2_Pi", &args) {
        let want = bvh_expected(&f32s(buffer(&run, 1)), &f32s(buffer(&run, 2)));
        overlapping |= want[..64].iter().any(|&h| h > 1);
        assert_eq!(i32s(buffer(&run, 3)), want, "{name}");
    }
    assert!(overlapping, "some point lies in two leaves");
}

#[test]
fn structs_that_point_at_each_other_are_followed() {
    let engines = Engines::new();
    let want: Vec<i32> = (0..64)
        .map(|i: i32| {
            let (mut v, mut total) = (i % 8, 0);
            for k in 0..5 {
                let heavy = (i >> k) & 1 == 1;
                total += 10 * v + if heavy { 3 } else { 1 };
                v = (v + if heavy { 3 } else { 1 }) % 8;
            }
            total * 100 + v
        })
        .collect();
    let args = ["u64[]:zeros:16", "u64[]:zeros:48", "i32[]:zeros:64"];
    for (name, run) in engines.run("_Z10graph_walkP6VertexP4EdgePi", &args) {
        assert_eq!(i32s(buffer(&run, 2)), want, "{name}");
    }
}

#[test]
fn a_class_template_points_at_its_own_instance() {
    let engines = Engines::new();
    let want: Vec<f32> = (0..64)
        .map(|i| (0..i % 5 + 1).map(|k| 0.5 * (i + k) as f32).sum())
        .collect();
    let args = ["u64[]:zeros:640", "f32[]:zeros:64"];
    for (name, run) in engines.run("_Z13template_listP4ListIfEPf", &args) {
        assert_eq!(f32s(buffer(&run, 1)), want, "{name}");
    }
}

#[test]
fn members_take_and_return_their_own_class() {
    let engines = Engines::new();
    let args = ["f32[]:rand:64:5", "f32[]:zeros:64", "i32[]:zeros:64"];
    for (name, run) in engines.run("_Z10accumulatePKfPfPi", &args) {
        let want: Vec<f32> = f32s(buffer(&run, 0))
            .iter()
            .map(|&x| x + 2.0 * x + 1.0)
            .collect();
        assert_eq!(f32s(buffer(&run, 1)), want, "{name}");
        assert_eq!(i32s(buffer(&run, 2)), vec![3; 64], "{name}");
    }
}

#[test]
fn pointers_to_a_class_never_defined_are_passed_stored_and_compared() {
    let engines = Engines::new();
    // Thread i reads slot i ^ 1, which holds `a` when i ^ 1 is odd.
    let want: Vec<i32> = (0..64)
        .map(|i| if (i ^ 1) & 1 == 1 { 1 } else { 2 } + 4 + 8)
        .collect();
    let args = ["i32[]:zeros:4", "i32[]:zeros:4", "i32[]:zeros:64"];
    for (name, run) in engines.run("_Z6opaqueP6OpaqueS0_Pi", &args) {
        assert_eq!(i32s(buffer(&run, 2)), want, "{name}");
    }
}

#[test]
fn names_declared_before_the_definition_copy_the_whole_class() {
    let engines = Engines::new();
    let args = ["f32[]:rand:64:9", "f32[]:zeros:64"];
    for (name, run) in engines.run("_Z14declared_firstPKfPf", &args) {
        let want: Vec<f32> = f32s(buffer(&run, 0))
            .iter()
            .map(|&x| x + 2.0 * x + 8.0 + (x + 1.0))
            .collect();
        assert_eq!(f32s(buffer(&run, 1)), want, "{name}");
    }
}

/// Compiles `source`: it must fail with E0004 at `at`, saying the class is
/// incomplete, exit 1 and write nothing.
fn refused(source: &str, at: &str) {
    let err = common::rejected_with("incomplete-type-errors", source, "E0004");
    assert!(err.contains(at), "{at}: {err}");
    assert!(err.contains("incomplete type"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn objects_of_an_incomplete_class_are_located_errors() {
    let fwd = "struct O;\n";
    for (body, at) in [
        ("struct S { O o; }; __global__ void k(S *p) {}", "e.cu:2:14"),
        (
            "struct S { O a[2]; }; __global__ void k(S *p) {}",
            "e.cu:2:14",
        ),
        (
            "struct S { int v; S inner; }; __global__ void k(S *p) {}",
            "e.cu:2:21",
        ),
        ("__global__ void k(O *p) { O x; }", "e.cu:2:29"),
        ("__global__ void k(O v, int *q) { }", "e.cu:2:19"),
        (
            "__global__ void k(O *p, int *q) { *q = sizeof(O); }",
            "e.cu:2:40",
        ),
        (
            "__global__ void k(O *p, int *q) { *q = p->x; }",
            "e.cu:2:43",
        ),
        ("__global__ void k(O *p, int *q) { p++; }", "e.cu:2:35"),
        (
            "__global__ void k(O *p, int *q) { *q = p[1].x; }",
            "e.cu:2:40",
        ),
        ("__global__ void k(O *p, O *q) { *q = *p; }", "e.cu:2:38"),
        ("__device__ O make(O *p) { return *p; }", "e.cu:2:1"),
    ] {
        refused(&format!("{fwd}{body}\n"), at);
    }
}
