//! Function templates (issue 26): kernel and device function templates
//! instantiated the ways programs ask for them, named as nvcc names them,
//! accepted by ptxas, computing what nvcc's PTX computes; and the located
//! errors of instantiations kernelc cannot make.

mod common;

use common::{kernelc, scratch, stderr, stdout};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The buffers of a launch of `kernel`, on the emulator, from nvcc's PTX of
/// `src` under `--expt-relaxed-constexpr`; `None` (a loud skip, or a
/// failure under CI=true) without nvcc.
fn relaxed_nvcc_buffers(
    what: &str,
    src: &Path,
    kernel: (&str, &[&str]),
    shape: &[&str],
    dir: &Path,
) -> Option<Vec<Option<Vec<u8>>>> {
    let nvcc = common::nvcc_or_skip(what)?;
    let theirs = dir.join("theirs.ptx");
    let flags = ["--expt-relaxed-constexpr".to_string()];
    common::nvcc_ptx_to(&nvcc, src, "sm_90", &flags, &theirs);
    Some(common::launch_buffers(
        &theirs,
        "emu",
        kernel,
        &dir.join("nv"),
        shape,
    ))
}

fn fixture(name: &str) -> PathBuf {
    common::root().join("tests/fixtures/templates").join(name)
}

fn entries(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect()
}

/// kernelc's PTX for `src` at sm_90 (written to `out`), checked by ptxas.
fn kernelc_ptx(src: &Path, out: &Path) -> String {
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-arch=sm_90",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}: {}", src.display(), stderr(&o));
    let ptx = std::fs::read_to_string(out).unwrap();
    common::assert_ptxas_accepts(&ptx, "sm_90", &src.display().to_string());
    ptx
}

#[test]
fn kernel_template_instantiations_are_nvccs() {
    let dir = scratch("templates-entries");
    for name in ["entries.cu", "runs.cu"] {
        let src = fixture(name);
        let ours = entries(&kernelc_ptx(&src, &dir.join(format!("{name}.ptx"))));
        // Every argument kind is present (the fixture is what it says).
        assert!(ours.len() >= 6, "{name}: {ours:?}");
        let Some(theirs) = common::nvcc_ptx(&src, "sm_90", &format!("templates {name}")) else {
            continue;
        };
        assert_eq!(ours, entries(&theirs), "{name}: the .entry names differ");
    }
}

#[test]
fn deduced_launches_and_namespaced_templates_are_nvccs() {
    // Launches without written template arguments, or with only the
    // first (deduced from host variables, casts, literals, a `char`
    // literal, arithmetic, `auto`, a host template's parameters), and
    // templates declared in namespaces.
    let dir = scratch("templates-deduced-entries");
    let expected: [(&str, &[&str]); 2] = [
        (
            "deduced.cu",
            &[
                "_Z4fillIcEvPT_S0_i",
                "_Z4fillIdEvPT_S0_i",
                "_Z4fillIfEvPT_S0_i",
                "_Z4fillIjEvPT_S0_i",
                "_Z4fillIxEvPT_S0_i",
                "_Z4fillIyEvPT_S0_i",
                "_Z5scaleIfEvPT_S0_i",
                "_Z5scaleIiEvPT_S0_i",
                "_Z5scaleIsEvPT_S0_i",
                "_Z6firstNILi8EdEvPT0_S0_",
                "_Z7convertIfiEvPKT_PT0_i",
                "_Z8clampAllIfEvPT_PK5Span2i",
            ],
        ),
        (
            "namespaced.cu",
            &[
                "_ZN3sim4stepIdEEvPT_PKS1_NS_6ParamsE",
                "_ZN3sim4stepIfEEvPT_PKS1_NS_6ParamsE",
                "_ZN3sim6detail10addSquaresILi3EfEEvPT0_PKS2_i",
                "_ZN3sim7squaresIdEEvPT_i",
                "_ZN3sim7squaresIfEEvPT_i",
            ],
        ),
    ];
    for (name, names) in expected {
        let src = fixture(name);
        let ours = entries(&kernelc_ptx(&src, &dir.join(format!("{name}.ptx"))));
        let want: BTreeSet<String> = names.iter().map(|n| n.to_string()).collect();
        assert_eq!(ours, want, "{name}");
        let Some(theirs) = common::nvcc_ptx(&src, "sm_90", &format!("templates {name}")) else {
            continue;
        };
        assert_eq!(ours, entries(&theirs), "{name}: the .entry names differ");
    }
}

#[test]
fn deduced_and_namespaced_instances_compute_what_nvccs_ptx_computes() {
    let dir = scratch("templates-deduced-runs");
    let launches: [(&str, &str, &[&str]); 5] = [
        (
            "deduced.cu",
            "_Z5scaleIfEvPT_S0_i",
            &["f32[]:rand:1000:1", "f32:2.5", "i32:1000"],
        ),
        (
            "deduced.cu",
            "_Z7convertIfiEvPKT_PT0_i",
            &["f32[]:rand:1000:2", "i32[]:zeros:1000", "i32:1000"],
        ),
        (
            "deduced.cu",
            "_Z8clampAllIfEvPT_PK5Span2i",
            &["f32[]:rand:1000:3", "f32[]:rand:2:4", "i32:1000"],
        ),
        (
            "namespaced.cu",
            "_ZN3sim6detail10addSquaresILi3EfEEvPT0_PKS2_i",
            &["f32[]:rand:1000:5", "f32[]:rand:1000:6", "i32:1000"],
        ),
        (
            "namespaced.cu",
            "_ZN3sim7squaresIdEEvPT_i",
            &["f64[]:rand:1000:7", "i32:1000"],
        ),
    ];
    let nvcc = common::nvcc_or_skip("deduced launches through nvcc");
    for (name, kernel, args) in launches {
        let src = fixture(name);
        let ours = dir.join(format!("{name}.kernelc.ptx"));
        kernelc_ptx(&src, &ours);
        let a = emulate(&ours, kernel, "4", "256", args);
        let Some(nvcc) = &nvcc else { continue };
        let theirs = dir.join(format!("{name}.nvcc.ptx"));
        common::nvcc_ptx_to(nvcc, &src, "sm_90", &[], &theirs);
        let b = emulate(&theirs, kernel, "4", "256", args);
        assert_eq!(a, b, "{kernel}: kernelc's PTX and nvcc's disagree");
    }
}

/// `kernelc run` of `ptx` on the emulator; the report of every buffer.
#[test]
fn type_traits_and_alias_templates_compute_what_nvccs_ptx_computes() {
    // <type_traits> and <cuda/std/type_traits> as kernelc's class
    // templates; nvcc reads CCCL's.
    let dir = scratch("templates-traits");
    let src = fixture("traits.cu");
    let ours_ptx = dir.join("traits.kernelc.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let kernels = [
        ("_Z10magnitudesIfEvPKT_Pxi", "f32[]:rand:300:1"),
        ("_Z10magnitudesIiEvPKT_Pxi", "i32[]:rand:300:2"),
        ("_Z10magnitudesIjEvPKT_Pxi", "u32[]:rand:300:3"),
    ];
    assert_eq!(
        entries(&ours),
        kernels.iter().map(|(k, _)| k.to_string()).collect(),
        "the instances nvcc makes"
    );
    let run = |ptx: &Path, (kernel, input): (&str, &str)| {
        emulate(
            ptx,
            kernel,
            "2",
            "256",
            &[input, "i64[]:zeros:300", "i32:300"],
        )
    };
    let results: Vec<String> = kernels.iter().map(|k| run(&ours_ptx, *k)).collect();
    let (Some(nvcc), Some(headers)) = (
        common::nvcc_or_skip("type traits through nvcc"),
        common::cuda_headers_or_skip(),
    ) else {
        return;
    };
    let theirs = dir.join("traits.nvcc.ptx");
    let cccl = format!("-I{}", headers.join("cccl").display());
    common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[cccl], &theirs);
    for (k, ours) in kernels.iter().zip(&results) {
        assert_eq!(
            *ours,
            run(&theirs, *k),
            "{}: kernelc's PTX and nvcc's disagree",
            k.0
        );
    }
}

fn emulate(ptx: &Path, kernel: &str, grid: &str, block: &str, args: &[&str]) -> String {
    let mut argv = vec![
        "run",
        ptx.to_str().unwrap(),
        "--engine",
        "emu",
        "--fmad=false",
        "--kernel",
        kernel,
        "--grid",
        grid,
        "--block",
        block,
    ];
    argv.extend_from_slice(args);
    let o = kernelc(&argv);
    assert!(o.status.success(), "{kernel}: {}", stderr(&o));
    stdout(&o)
}

/// Runs `kernel` (a name and `kernelc run` arguments) from kernelc's PTX
/// and from nvcc's on the emulator with the launch options `shape`; the
/// buffers must be equal.
fn assert_same_launch(
    dir: &Path,
    (ours, theirs): (&Path, &Path),
    kernel: (&str, &[&str]),
    shape: &[&str],
) {
    let a = common::launch_buffers(ours, "emu", kernel, &dir.join("a"), shape);
    let b = common::launch_buffers(theirs, "emu", kernel, &dir.join("b"), shape);
    assert_eq!(a, b, "{}: kernelc's PTX and nvcc's disagree", kernel.0);
}

#[test]
fn templated_kernels_compute_what_nvccs_ptx_computes() {
    let dir = scratch("templates-runs");
    let src = fixture("runs.cu");
    let ours = dir.join("kernelc.ptx");
    kernelc_ptx(&src, &ours);
    let Some(nvcc) = common::nvcc_or_skip("templates runs.cu through nvcc") else {
        return;
    };
    common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
    let launches: [(&str, &str, &str, &[&str]); 4] = [
        (
            "_Z8blockSumIfLj128EEvPKT_PS0_j",
            "8",
            "128",
            &["f32[]:rand:1000:1", "f32[]:zeros:8", "u32:1000"],
        ),
        (
            "_Z8blockSumIiLj64EEvPKT_PS0_j",
            "16",
            "64",
            &["i32[]:rand:1000:2", "i32[]:zeros:16", "u32:1000"],
        ),
        (
            "_Z4axpyIfLb0EEvPT_PKS0_S0_i",
            "4",
            "256",
            &[
                "f32[]:zeros:1000",
                "f32[]:rand:1000:3",
                "f32:2.0",
                "i32:1000",
            ],
        ),
        (
            "_Z4axpyIdLb1EEvPT_PKS0_S0_i",
            "4",
            "256",
            &[
                "f64[]:rand:1000:4",
                "f64[]:rand:1000:5",
                "f64:0.5",
                "i32:1000",
            ],
        ),
    ];
    for (kernel, grid, block, args) in launches {
        let a = emulate(&ours, kernel, grid, block, args);
        let b = emulate(&dir.join("nvcc.ptx"), kernel, grid, block, args);
        assert_eq!(a, b, "{kernel}: kernelc's PTX and nvcc's disagree");
        assert!(a.contains("sum"), "{kernel}: {a}");
    }
}

/// Compiles `source`; it must fail with `code` and a message containing
/// `message`, exit 1, and leave no output file ([`common::rejected_with`]).
fn rejects(source: &str, code: &str, message: &str) -> String {
    let err = common::rejected_with("templates-errors", source, code);
    assert!(
        err.contains(message),
        "{source}: expected {code} `{message}`, got:\n{err}"
    );
    err
}

#[test]
fn instantiations_kernelc_cannot_make_are_located_errors() {
    rejects(
        "template <class T> __device__ T twice(T a, T b) { return a + b; }\n\
         __global__ void k(float *o) { o[0] = twice(1, 2.0f); }\n",
        "E0019",
        "deduced as both `int` and `float`",
    );
    rejects(
        "template <class T> __device__ T make() { return T(1); }\n\
         extern \"C\" __global__ void k(float *o) { o[0] = make(); }\n",
        "E0019",
        "cannot deduce template parameter `T` of `make`",
    );
    rejects(
        "template <int N> __device__ int f() { return N; }\n\
         extern \"C\" __global__ void k(int *o, int n) { o[0] = f<n>(); }\n",
        "E0019",
        "must be a constant expression",
    );
    rejects(
        "template <int N> __device__ int f() { return N; }\n\
         extern \"C\" __global__ void k(int *o) { o[0] = f<int>(); }\n",
        "E0019",
        "takes a value, not a type",
    );
    let untyped = rejects(
        "template <class T> __global__ void k(T *o, int n) { o[0] = n; }\n\
         #include <vector>\n\
         int main() { std::vector<float> f(4); k<<<1, 1>>>(f, 3); }\n",
        "E0019",
        "kernelc cannot find the type of `f` in host code, which deducing the template arguments of `k` needs",
    );
    assert!(untyped.contains("the launch"), "{untyped}");
    rejects(
        "template <class T> __global__ void k(T *o) { o[0] = 1; }\n\
         float *hostPointer();\n\
         int main() { k<<<1, 1>>>(hostPointer()); }\n",
        "E0019",
        "kernelc cannot find the type of this argument in host code",
    );
    let chain = rejects(
        "template <class T> __global__ void k(T *o) { o[0] = undefinedThing; }\n\
         int main() { float *p; k<float><<<1, 1>>>(p); }\n",
        "E0001",
        "undefinedThing",
    );
    assert!(
        chain.contains("in `k<float>`, instantiated here"),
        "{chain}"
    );
    rejects(
        "template <template <int> class C>\n__global__ void k(int *o) { }\n",
        "E0002",
        "kernelc supports template template parameters of type parameters only",
    );
    // Declared, never defined: an instance is incomplete.
    rejects(
        "template <class T> struct S;\n__global__ void k(int *o) { S<int> s; }\n",
        "E0004",
        "`S<int>` is an incomplete type",
    );
    // An instance that needs another instance of itself, without end.
    rejects(
        "template <int N> struct R { R<N + 1> next; };\n__global__ void k(R<0> *o) { }\n",
        "E0019",
        "class template instances nest more than 64 deep",
    );
    // Parameter packs: tests/variadic.rs.
}

#[test]
fn endless_instantiation_stops_at_the_depth_limit() {
    let err = rejects(
        "template <int N> __device__ int f() { return f<N + 1>(); }\n\
         extern \"C\" __global__ void k(int *o) { o[0] = f<0>(); }\n",
        "E0019",
        "nest more than 900 deep",
    );
    assert!(err.contains("without a base case"), "{err}");
}

#[test]
fn device_function_templates_are_instantiated_once_per_argument_list() {
    // Three calls, two argument lists: two instantiations, each a function
    // of the module under its Itanium name (kept out of line).
    let dir = scratch("templates-memo");
    let src = dir.join("memo.cu");
    std::fs::write(
        &src,
        "template <typename T> __noinline__ __device__ T sq(T v) { return v * v; }\n\
         extern \"C\" __global__ void k(float *f, int *i) {\n\
           f[0] = sq(f[1]); f[2] = sq<float>(f[3]); i[0] = sq(i[1]);\n\
         }\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&src, &dir.join("memo.ptx"));
    let funcs: Vec<&str> = ptx
        .lines()
        .filter(|l| l.contains(".func") && l.contains("_Z2sq"))
        .collect();
    assert_eq!(funcs.len(), 2, "{funcs:?}");
    assert!(ptx.contains("_Z2sqIfET_S0_"), "{ptx}");
    assert!(ptx.contains("_Z2sqIiET_S0_"), "{ptx}");
}

#[test]
fn if_constexpr_checks_only_the_branch_it_takes() {
    // `v % 3` is no operation on a `float`: the float instance compiles
    // only because that branch is discarded, as in C++.
    let dir = scratch("templates-if-constexpr");
    let src = dir.join("ic.cu");
    std::fs::write(
        &src,
        "template <typename T, bool INTEGRAL> __device__ T wrap(T v) {\n\
           if constexpr (INTEGRAL) { return v % 3; } else { return v * 0.5f; }\n\
         }\n\
         __global__ void k(int *i, float *f) {\n\
           i[0] = wrap<int, true>(i[1]);\n\
           f[0] = wrap<float, false>(f[1]);\n\
         }\n",
    )
    .unwrap();
    let ours = dir.join("kernelc.ptx");
    kernelc_ptx(&src, &ours);
    let args = ["i32[]:rand:2:1", "f32[]:rand:2:2"];
    let a = emulate(&ours, "_Z1kPiPf", "1", "1", &args);
    let Some(nvcc) = common::nvcc_or_skip("if constexpr through nvcc") else {
        return;
    };
    common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
    let b = emulate(&dir.join("nvcc.ptx"), "_Z1kPiPf", "1", "1", &args);
    assert_eq!(a, b);
    rejects(
        "template <int N> __device__ int f(int n) { if constexpr (n > 1) { return 1; } return 0; }\n\
         extern \"C\" __global__ void k(int *o) { o[0] = f<1>(o[1]); }\n",
        "E0099",
        "the condition of `if constexpr` must be a constant expression",
    );
}

/// A local that only a discarded `if constexpr` branch names (a lambda
/// called in one branch) is used, as nvcc sees it in the template: no
/// W0001 for it in any instance; a local no branch names still has one.
#[test]
fn locals_named_in_discarded_constexpr_branches_are_used() {
    let dir = scratch("templates-if-constexpr-uses");
    let src = dir.join("uses.cu");
    std::fs::write(
        &src,
        "template <int M> __device__ int pick(int v) {\n\
           auto twice = [](int x) { return 2 * x; };\n\
           int offset = 3;\n\
           int unused = 1;\n\
           if constexpr (M == 0) { return twice(v); }\n\
           else if constexpr (M == 1) { return v + offset; }\n\
           return v;\n\
         }\n\
         __global__ void k(int *o) { o[0] = pick<0>(o[0]) + pick<1>(o[1]) + pick<2>(o[2]); }\n",
    )
    .unwrap();
    let out = kernelc(&[
        src.to_str().unwrap(),
        "-o",
        dir.join("k.ptx").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let warnings: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| l.starts_with("warning["))
        .map(str::to_string)
        .collect();
    assert_eq!(warnings, ["warning[W0001]: unused variable `unused`"]);
    if let Some(nvcc) = common::nvcc_or_skip("discarded branches through nvcc") {
        common::nvcc_ptx_to(
            &nvcc,
            &src,
            "sm_90",
            &["-std=c++17".into()],
            &dir.join("nvcc.ptx"),
        );
    }
}

/// The names of the functions `ptx` defines (`.func`), kernels left out.
fn funcs(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|l| l.strip_prefix(".func"))
        .filter_map(|rest| rest.split_whitespace().find(|w| w.starts_with("_Z")))
        .map(|name| name.trim_end_matches('(').to_string())
        .collect()
}

/// `longLongSources` of long_long_sources.cu and its arguments for 64
/// threads: the outputs, then 64 `S` and 64 `D` of random words.
const LONG_LONG_SOURCES: (&str, &[&str]) = (
    "_Z15longLongSourcesPxPK1SPK1D",
    &["i64[]:zeros:512", "i64[]:rand:128:2", "i64[]:rand:256:3"],
);

/// `long long` data members (a base's, through pointer and reference
/// members, an array member's elements), results of functions returning `long long` (and `long long
/// &`), and a local passed to a member function template deduce `long
/// long`: nvcc's instance names, and the values nvcc's PTX computes, on
/// the emulator and the interpreter.
#[test]
fn long_long_members_and_results_deduce_long_long() {
    let dir = scratch("templates-long-long-sources");
    let src = fixture("long_long_sources.cu");
    let runs = common::fixture_runs(&src, &dir, LONG_LONG_SOURCES);
    let expected: BTreeSet<String> = [
        "_Z2idIxET_S0_",
        "_Z2idIyET_S0_",
        "_Z3addIxET_RKS0_S2_",
        "_ZNK3BoxIiE3getIxEET_S2_",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(funcs(&runs.ptx), expected);
    let longs = |b: &[u8]| -> Vec<i64> {
        b.chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (out, s, d) = (
        longs(&runs.ours[0]),
        longs(&runs.ours[1]),
        longs(&runs.ours[2]),
    );
    for i in 0..64 {
        let (v, u, big) = (s[2 * i], s[2 * i + 1], 3 * i as i64);
        let (dv, dw) = (d[4 * i], d[4 * i + 3]);
        let want = [
            v.wrapping_add(1),
            big + 1,
            u.wrapping_add(1),
            v.wrapping_add(2),
            big + 2,
            dw.wrapping_add(1).wrapping_add(dv.wrapping_add(1)),
            2 * big + 3,
            v.wrapping_mul(2).wrapping_add(big),
        ];
        assert_eq!(out[8 * i..8 * i + 8], want, "thread {i}");
    }
    if let Some((theirs_ptx, theirs)) = runs.theirs {
        assert_eq!(funcs(&theirs_ptx), expected, "nvcc's instances");
        assert_eq!(runs.ours, theirs);
    }
}

/// `numeric_limits`: every value of the fixture's kernel from kernelc's PTX
/// equals nvcc's, with `cuda::std`'s alone and with `std`'s under
/// `--expt-relaxed-constexpr`; without the flag, `std`'s are nvcc's error.
#[test]
fn numeric_limits_are_nvccs() {
    let dir = scratch("templates-limits");
    let src = fixture("limits.cu");
    let args: &[&str] = &[
        "f32[]:zeros:8",
        "f64[]:zeros:4",
        "i64[]:zeros:8",
        "u32[]:zeros:2",
    ];
    let kernel = ("_Z1kPfPdPxPj", args);
    let shape = ["--grid", "1", "--block", "1"];
    let variants: [&[&str]; 2] = [&[], &["-DRELAXED", "--expt-relaxed-constexpr"]];
    for (i, flags) in variants.iter().enumerate() {
        let ours = dir.join(format!("ours{i}.ptx"));
        let mut argv = vec![
            src.to_str().unwrap(),
            "-arch=sm_90",
            "-o",
            ours.to_str().unwrap(),
        ];
        argv.extend_from_slice(flags);
        let o = kernelc(&argv);
        assert!(o.status.success(), "{flags:?}: {}", stderr(&o));
        let text = std::fs::read_to_string(&ours).unwrap();
        common::assert_ptxas_accepts(&text, "sm_90", "limits.cu");
        let mine = common::launch_buffers(&ours, "emu", kernel, &dir.join("mine"), &shape);
        assert!(
            mine.iter().all(Option::is_some),
            "{flags:?}: a buffer is missing"
        );
        let (Some(nvcc), Some(headers)) = (
            common::nvcc_or_skip("numeric_limits through nvcc"),
            common::cuda_headers_or_skip(),
        ) else {
            continue;
        };
        let theirs = dir.join(format!("theirs{i}.ptx"));
        let mut nv_flags = vec![format!("-I{}", headers.join("cccl").display())];
        nv_flags.extend(flags.iter().map(|f| f.to_string()));
        common::nvcc_ptx_to(&nvcc, &src, "sm_90", &nv_flags, &theirs);
        let expected = common::launch_buffers(&theirs, "emu", kernel, &dir.join("nv"), &shape);
        assert_eq!(
            mine, expected,
            "{flags:?}: kernelc's values and nvcc's differ"
        );
    }
    let o = kernelc(&[src.to_str().unwrap(), "-DRELAXED", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(
            "error[E0017]: calling constexpr host function `std::numeric_limits<float>::max` from device code is not allowed"
        ),
        "{err}"
    );
    assert!(err.contains("--expt-relaxed-constexpr"), "{err}");
}

/// A `constexpr` function without `__device__`, free or a member: device
/// code calls it under `--expt-relaxed-constexpr` (it is compiled for the
/// device), and gets nvcc's error naming the flag without it.
#[test]
fn relaxed_constexpr_compiles_host_constexpr_functions_for_the_device() {
    let dir = scratch("templates-relaxed");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "struct L {\n  static constexpr float big() { return 3.0f; }\n};\n\
         constexpr int twice(int x) { return 2 * x; }\n\
         int hostOnly(int x) { return x; }\n\
         __global__ void k(float *o) { o[0] = L::big(); o[1] = twice(3); }\n",
    )
    .unwrap();
    let out = dir.join("k.ptx");
    let (s, o) = (src.to_str().unwrap(), out.to_str().unwrap());
    let relaxed = kernelc(&[s, "--expt-relaxed-constexpr", "-o", o]);
    assert!(relaxed.status.success(), "{}", stderr(&relaxed));
    let ptx = std::fs::read_to_string(&out).unwrap();
    assert!(
        !ptx.contains("hostOnly"),
        "a host function unused by device code was compiled"
    );
    let strict = kernelc(&[s, "-o", o]);
    assert_eq!(strict.status.code(), Some(1));
    let err = stderr(&strict);
    for name in ["L::big", "twice"] {
        assert!(
            err.contains(&format!("calling constexpr host function `{name}`")),
            "{name}: {err}"
        );
    }
    assert!(err.contains("k.cu:6:"), "{err}");
}

/// `constexpr` functions run at compile time: the fixture's file-scope
/// `static_assert`s hold, its array size, constexpr locals and template
/// argument are computed, calls with constant arguments are folded (no
/// call of `fib(20)` is left, as in nvcc's PTX), and every value equals
/// nvcc's on the emulator.
#[test]
fn constexpr_functions_are_evaluated_at_compile_time() {
    let dir = scratch("templates-constexpr");
    let src = fixture("constexpr.cu");
    let ours = dir.join("ours.ptx");
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-arch=sm_90",
        "--expt-relaxed-constexpr",
        "-o",
        ours.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ours).unwrap();
    common::assert_ptxas_accepts(&text, "sm_90", "constexpr.cu");
    assert!(text.contains("6765;"), "fib(20) is not folded:\n{text}");
    assert!(
        text.contains("867;"),
        "sumSkippingThirds(100) is not folded"
    );
    let args: &[&str] = &[
        "i32[]:zeros:768",
        "f32[]:zeros:256",
        "f64[]:zeros:128",
        "i32[]:rand:128:1",
    ];
    let kernel = ("_Z9constantsPiPfPdPKi", args);
    let shape = ["--grid", "1", "--block", "128"];
    let mine = common::launch_buffers(&ours, "emu", kernel, &dir.join("mine"), &shape);
    let Some(expected) = relaxed_nvcc_buffers("constexpr through nvcc", &src, kernel, &shape, &dir)
    else {
        return;
    };
    assert_eq!(mine, expected, "kernelc's values and nvcc's differ");
}

/// Without `--expt-relaxed-constexpr`, a file-scope `static_assert` may
/// call a `constexpr` host function, and device code may not, even where
/// the value is needed at compile time: nvcc's two errors, at its places.
#[test]
fn device_code_calls_host_constexpr_functions_only_when_relaxed() {
    let dir = scratch("templates-constexpr-host");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "constexpr int twice(int x) { return 2 * x; }\n\
         static_assert(twice(2) == 4, \"file scope\");\n\
         __global__ void k(int *o) {\n  constexpr int a = twice(3);\n  o[0] = a + twice(1);\n}\n",
    )
    .unwrap();
    let out = dir.join("k.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let calls: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(calls.len(), 2, "{err}");
    assert!(
        err.contains("k.cu:4:21") && err.contains("k.cu:5:14"),
        "{err}"
    );
    let o = kernelc(&[
        src.to_str().unwrap(),
        "--expt-relaxed-constexpr",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ptx = std::fs::read_to_string(&out).unwrap();
    assert!(ptx.contains("8;") && !ptx.contains("call"), "{ptx}");
}

/// A launch whose last template argument is itself a template-id closed by
/// `>>` (`k<int, 4, Sum<int>><<<1, 1>>>(p)`), and a default argument so
/// closed, make nvcc's instances.
#[test]
fn double_angle_brackets_close_host_template_arguments() {
    let dir = scratch("templates-shr");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "template <class T> struct Sum { __device__ T operator()(T a, T b) const { return a + b; } };\n\
         template <typename T, int B, typename Op = Sum<T>>\n\
         __global__ void k(T *o) { Op op; o[0] = op(o[1], (T)B); }\n\
         void host(int *p) { k<int, 4, Sum<int>><<<1, 1>>>(p); k<int, 8><<<1, 1>>>(p); }\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&src, &dir.join("k.ptx"));
    let expected: BTreeSet<String> = ["_Z1kIiLi4E3SumIiEEvPT_", "_Z1kIiLi8E3SumIiEEvPT_"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(entries(&ptx), expected);
    if let Some(nvcc) = common::nvcc_or_skip("the >> launch through nvcc") {
        let theirs = common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// A host function's type aliases name a launch's template arguments
/// (`using Op = ops::Max<float>; k<float, Op><<<1, 1>>>(p);`, a `typedef`
/// too): nvcc's instances.
#[test]
fn host_type_aliases_name_template_arguments() {
    let dir = scratch("templates-host-aliases");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "namespace ops { template <class T> struct Max { __device__ T operator()(T a, T b) const { return a < b ? b : a; } }; }\n\
         template <class T> struct Sum { __device__ T operator()(T a, T b) const { return a + b; } };\n\
         template <typename T, typename Op> __global__ void k(T *o) { Op op; o[0] = op(o[1], o[2]); }\n\
         void host(float *p, int *q) {\n  using Op = ops::Max<float>;\n  typedef Sum<int> IntSum;\n  \
         k<float, Op><<<1, 1>>>(p);\n  k<int, IntSum><<<1, 1>>>(q);\n}\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&src, &dir.join("k.ptx"));
    let expected: BTreeSet<String> = ["_Z1kIfN3ops3MaxIfEEEvPT_", "_Z1kIi3SumIiEEvPT_"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(entries(&ptx), expected);
    if let Some(nvcc) = common::nvcc_or_skip("host aliases through nvcc") {
        let theirs = common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// A host function's constants and aliases are block-scoped: a dispatch
/// macro's `case` blocks each declare `using scalar_t` before the same
/// launch (PyTorch's `AT_DISPATCH_*` shape), and each launch sees the
/// nearest declaration whose block is still open, so there is one instance
/// per case and the outer declarations are seen again after the blocks.
#[test]
fn host_aliases_and_constants_are_block_scoped() {
    let dir = scratch("templates-host-scoped-aliases");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "template <typename T> __global__ void k(T *o) { o[0] = o[1] + o[2]; }\n\
         template <int N> __global__ void w(int *o) { o[0] = N; }\n\
         #define CASE(V, TYPE, ...) case V: { using scalar_t = TYPE; __VA_ARGS__(); break; }\n\
         #define DISPATCH(T, ...) switch (T) { CASE(0, float, __VA_ARGS__) CASE(1, double, __VA_ARGS__) }\n\
         void host(void *p, int *q, int t) {\n  using scalar_t = int;\n  \
         DISPATCH(t, [&] { k<scalar_t><<<1, 1>>>(static_cast<scalar_t *>(p)); });\n  \
         k<scalar_t><<<1, 1>>>(static_cast<scalar_t *>(p));\n  \
         { const int N = 2; w<N><<<1, 1>>>(q); }\n  const int N = 3;\n  w<N><<<1, 1>>>(q);\n}\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&src, &dir.join("k.ptx"));
    let expected: BTreeSet<String> = [
        "_Z1kIfEvPT_",
        "_Z1kIdEvPT_",
        "_Z1kIiEvPT_",
        "_Z1wILi2EEvPi",
        "_Z1wILi3EEvPi",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ptx), expected);
    if let Some(nvcc) = common::nvcc_or_skip("block-scoped host aliases through nvcc") {
        let theirs = common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// A using-declaration in a host function (`using ns::E;`) names what it
/// brings in for the launches and calls after it (`k<E::A>`,
/// `run<E::B>(p)`), as nvcc reads them.
#[test]
fn host_using_declarations_name_template_arguments() {
    let dir = scratch("templates-host-using-declarations");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "namespace ns { enum class E { A, B }; }\n\
         template <ns::E e> __global__ void k(int *o) { o[0] = (int)e; }\n\
         template <ns::E e> void run(int *p) { k<e><<<1, 1>>>(p); }\n\
         int main() { using ns::E; int *p = 0; run<E::B>(p); k<E::A><<<1, 1>>>(p); }\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&src, &dir.join("k.ptx"));
    let expected: BTreeSet<String> = ["_Z1kILN2ns1EE0EEvPi", "_Z1kILN2ns1EE1EEvPi"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(entries(&ptx), expected);
    if let Some(nvcc) = common::nvcc_or_skip("host using-declarations through nvcc") {
        let theirs = common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// Two launches whose arguments are different class template instances
/// (`red<int, MaxOp<int> >`, `red<int, SumOp<int> >`, also through a
/// partial specialization's member type) are two instances, as nvcc's.
#[test]
fn host_uses_with_different_class_instances_are_different_instances() {
    let dir = scratch("templates-host-instances");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "template <class T> struct SumOp { __device__ T operator()(T a, T b) const { return a + b; } };\n\
         template <class T> struct MaxOp { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };\n\
         template <int K, class T> struct OpFor;\n\
         template <class T> struct OpFor<0, T> { using type = SumOp<T>; };\n\
         template <class T> struct OpFor<1, T> { using type = MaxOp<T>; };\n\
         template <class T, class Op> __global__ void red(T *o) { Op op; o[0] = op(o[1], o[2]); }\n\
         void host(int *p, float *q) {\n  red<int, MaxOp<int> ><<<1, 1>>>(p);\n  red<int, SumOp<int> ><<<1, 1>>>(p);\n  \
         red<float, OpFor<0, float>::type><<<1, 1>>>(q);\n  red<float, OpFor<1, float>::type><<<1, 1>>>(q);\n}\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&src, &dir.join("k.ptx"));
    let expected: BTreeSet<String> = [
        "_Z3redIi5MaxOpIiEEvPT_",
        "_Z3redIi5SumOpIiEEvPT_",
        "_Z3redIf5MaxOpIfEEvPT_",
        "_Z3redIf5SumOpIfEEvPT_",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ptx), expected);
    if let Some(nvcc) = common::nvcc_or_skip("class-instance launches through nvcc") {
        let theirs = common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// `long long` and `long` (`signed char` and `char`) are one width but two
/// C++ types: launches with each make two instances, named as nvcc names
/// them (`IxE` and `IlE`, `IaE` and `IcE`), deduced or written.
#[test]
fn same_width_integer_types_are_different_instances() {
    let dir = scratch("templates-same-width");
    let src = dir.join("k.cu");
    std::fs::write(
        &src,
        "template <typename T> __global__ void fill(T *p, T v) { p[threadIdx.x] = v; }\n\
         int main() {\n  long long *a; long *b; unsigned long long *c; signed char *d; char *e; long long v = 3;\n  \
         fill<<<1, 1>>>(a, v);\n  fill<<<1, 1>>>(b, 5l);\n  fill<<<1, 1>>>(c, 5ull);\n  \
         fill<<<1, 1>>>(d, (signed char)1);\n  fill<<<1, 1>>>(e, 'e');\n  fill<long long><<<1, 1>>>(a, 2);\n}\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&src, &dir.join("k.ptx"));
    let expected: BTreeSet<String> = [
        "_Z4fillIxEvPT_S0_",
        "_Z4fillIlEvPT_S0_",
        "_Z4fillIyEvPT_S0_",
        "_Z4fillIaEvPT_S0_",
        "_Z4fillIcEvPT_S0_",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ptx), expected);
    if let Some(nvcc) = common::nvcc_or_skip("same-width instances through nvcc") {
        let theirs = common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[], &dir.join("nvcc.ptx"));
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// `std::min`/`std::max` in device code under `--expt-relaxed-constexpr`:
/// every buffer equals nvcc's on the emulator (NaN arguments included, which
/// the library's `<` picks unlike `fminf`); without the flag each call is
/// nvcc's E0017, and arguments of two types fail deduction as in nvcc.
#[test]
fn std_min_and_max_are_the_librarys_under_relaxed_constexpr() {
    let dir = scratch("templates-std-min-max");
    let src = fixture("std_min_max.cu");
    let args: &[&str] = &[
        "f32[]:rand:33:1",
        "f32[]:zeros:192",
        "i32[]:rand:33:2",
        "i32[]:zeros:96",
        "f64[]:rand:33:3",
        "f64[]:zeros:32",
    ];
    let kernel = ("_Z1kPKfPfPKiPiPKdPd", args);
    let shape = ["--grid", "1", "--block", "32", "--fmad=false"];
    let ours = dir.join("ours.ptx");
    let (s, o) = (src.to_str().unwrap(), ours.to_str().unwrap());
    let relaxed = kernelc(&[s, "-arch=sm_90", "--expt-relaxed-constexpr", "-o", o]);
    assert!(relaxed.status.success(), "{}", stderr(&relaxed));
    let text = std::fs::read_to_string(&ours).unwrap();
    common::assert_ptxas_accepts(&text, "sm_90", "std_min_max.cu");
    let mine = common::launch_buffers(&ours, "emu", kernel, &dir.join("mine"), &shape);
    let strict = kernelc(&[s, "-arch=sm_90", "-o", o]);
    assert_eq!(strict.status.code(), Some(1));
    let err = stderr(&strict);
    for name in ["std::min", "std::max"] {
        assert!(
            err.contains(&format!(
                "error[E0017]: calling constexpr host function `{name}` from device code is not allowed"
            )),
            "{name}: {err}"
        );
    }
    assert!(
        !err.contains("std_min_max.cu:7:"),
        "the file-scope static_assert: {err}"
    );
    rejects(
        "__global__ void k(float *f) { f[0] = std::max(f[1], 0); }\n",
        "E0007",
        "no instance of `std::max` matches the argument types (`float`, `int`)",
    );
    let Some(expected) =
        relaxed_nvcc_buffers("std::min/max through nvcc", &src, kernel, &shape, &dir)
    else {
        return;
    };
    assert_eq!(mine, expected, "kernelc's values and nvcc's differ");
}

/// A kernel template instantiated from a host function template of a
/// namespace through a local alias of a traits template's member type,
/// selected by an enum class value (a partial specialization's pattern);
/// a parameter of dependent member type (`typename Wide<T>::type *`) is
/// spelled in the name as nvcc spells it, and the instances compute what
/// nvcc's do.
#[test]
fn traits_chosen_policies_are_nvccs() {
    let dir = scratch("templates-policies");
    let src = fixture("traits_policies.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let short = "_ZN3pol7combineIsLi128ENS_3MaxIsEEEEvPKT_PNS_4WideIS3_E4typeEi";
    let expected: BTreeSet<String> = [
        "_ZN3pol7combineIfLi128ENS_3SumIfEEEEvPKT_PNS_4WideIS3_E4typeEi",
        "_ZN3pol7combineIiLi128ENS_3MaxIiEEEEvPKT_PNS_4WideIS3_E4typeEi",
        short,
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ours), expected);
    let launches: [(&str, &[&str]); 2] = [
        (
            "_ZN3pol7combineIfLi128ENS_3SumIfEEEEvPKT_PNS_4WideIS3_E4typeEi",
            &["f32[]:rand:300:1", "f32[]:zeros:300", "i32:300"],
        ),
        (short, &["i16[]:rand:300:2", "i32[]:zeros:300", "i32:300"]),
    ];
    let shape = ["--grid", "3", "--block", "128"];
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "traits_policies.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    for kernel in launches {
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), kernel, &shape);
    }
}

/// Class template value arguments that cast constants
/// (`Table<int, static_cast<int>(Kind::Count)>`, `(int)Kind::C * 2 +
/// int(Kind::B)`, `static_cast<unsigned char>(258)`, which wraps to 2):
/// the kernel's name spells the instance as nvcc does, and its values are
/// nvcc's on the emulator.
#[test]
fn cast_template_arguments_are_nvccs() {
    let dir = scratch("templates-casts");
    let src = fixture("cast_arguments.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let name = "_Z5sizesPiP5TableIiLi3EE";
    assert_eq!(entries(&ours), BTreeSet::from([name.to_string()]));
    let kernel = (name, &["i32[]:zeros:32", "i32[]:zeros:3"][..]);
    let shape = ["--grid", "1", "--block", "32"];
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "cast_arguments.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), BTreeSet::from([name.to_string()]));
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), kernel, &shape);
}

/// Kernel instances launched from host function templates whose value
/// and pack parameters are deduced from class template temporaries
/// (`launchAll(OpList<Op::Add, Op::Mul, Op::Max>{}, ...)` recursing over
/// `OpList<First, Rest...>`, `launchScale(Factor<3, 5>{}, out)`): the
/// `.entry` set is nvcc's, and each instance computes what nvcc's does on
/// the emulator.
#[test]
fn instances_through_deduced_value_and_pack_frames_are_nvccs() {
    let dir = scratch("templates-frame-packs");
    let src = fixture("frame_packs.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let expected: BTreeSet<String> = [
        "_Z5applyIL2Op0EEvPKiPii",
        "_Z5applyIL2Op1EEvPKiPii",
        "_Z5applyIL2Op2EEvPKiPii",
        "_Z5scaleILi15EEvPi",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "frame_packs.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    let apply: &[&str] = &["i32[]:rand:70:4", "i32[]:zeros:70", "i32:70"];
    let launches: [(&str, &[&str], &str); 4] = [
        ("_Z5applyIL2Op0EEvPKiPii", apply, "3"),
        ("_Z5applyIL2Op1EEvPKiPii", apply, "3"),
        ("_Z5applyIL2Op2EEvPKiPii", apply, "3"),
        ("_Z5scaleILi15EEvPi", &["i32[]:rand:32:5"], "1"),
    ];
    for (name, args, grid) in launches {
        let shape = ["--grid", grid, "--block", "32"];
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), (name, args), &shape);
    }
}

/// Kernel instances launched from host function templates called with
/// some template arguments written and the rest deduced
/// (`launchAdd<3>(f, n)` of `template <int V, typename T>`), and from one
/// such call inside another whose written argument names the outer
/// template's parameter (`launchAdd<B * 2>(out, n)`): the `.entry` set is
/// nvcc's, and each instance computes what nvcc's does on the emulator.
#[test]
fn instances_through_partly_written_host_template_calls_are_nvccs() {
    let dir = scratch("templates-partial-frames");
    let src = fixture("partial_frames.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let launches: [(&str, &[&str], &str); 4] = [
        ("_Z4addVILi3EfEvPT0_i", &["f32[]:rand:64:1", "i32:64"], "2"),
        ("_Z4addVILi5EiEvPT0_i", &["i32[]:rand:64:2", "i32:64"], "2"),
        ("_Z4addVILi64EdEvPT0_i", &["f64[]:rand:64:3", "i32:64"], "2"),
        (
            "_Z10blockScaleIdLi32EEvPT_i",
            &["f64[]:rand:64:4", "i32:64"],
            "2",
        ),
    ];
    let expected: BTreeSet<String> = launches.iter().map(|l| l.0.to_string()).collect();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "partial_frames.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    for (name, args, grid) in launches {
        let shape = ["--grid", grid, "--block", "32"];
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), (name, args), &shape);
    }
}

/// `constexpr` function template instances that a constant expression in
/// the kernel instance asking for them needs at once (`static_assert(
/// isReal<M>())`, `constexpr int c = cube<N>();`, an array bound, and the
/// chain `sumTo<4>` → `sumTo<3>` → ...) are checked ahead of their turn
/// and evaluated: nvcc's instances, computing nvcc's values.
#[test]
fn constexpr_instances_are_constant_where_their_callers_need_them() {
    let dir = scratch("templates-constexpr-instances");
    let src = fixture("constexpr_instances.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let names = ["_Z4fillIL4Mode0ELi3EEvPKiPi", "_Z4fillIL4Mode1ELi4EEvPKiPi"];
    let expected: BTreeSet<String> = names.into_iter().map(String::from).collect();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "constexpr_instances.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    let shape = ["--grid", "1", "--block", "32"];
    for name in names {
        let kernel = (name, &["i32[]:rand:32:1", "i32[]:zeros:32"][..]);
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), kernel, &shape);
    }
}

/// Kernel templates launched inside host variadic function templates
/// that forward their function parameter pack (`fill<<<1, 256>>>(args...)`
/// in `template <typename... Args> void run(Args... args)` called as
/// `run(f, 1.0f, 100)`), through `std::forward<Args>(args)...`, after
/// leading ordinary parameters, into several launches, with argument
/// types giving different instances, and through a host template that
/// forwards the pack to another: the `.entry` set is nvcc's, and each
/// instance computes what nvcc's does on the emulator.
#[test]
fn instances_through_forwarded_host_parameter_packs_are_nvccs() {
    let dir = scratch("templates-variadic-host");
    let src = fixture("variadic_host.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let expected: BTreeSet<String> = [
        "_Z4fillIfEvPT_S0_i",
        "_Z4fillIiEvPT_S0_i",
        "_Z4fillIjEvPT_S0_i",
        "_Z4fillIdEvPT_S0_i",
        "_Z5scaleIfEvPT_S0_i",
        "_Z5scaleIjEvPT_S0_i",
        "_Z3mixIdsEvPT_PKT0_i",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "variadic_host.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    let launches: [(&str, &[&str]); 7] = [
        (
            "_Z4fillIfEvPT_S0_i",
            &["f32[]:zeros:256", "f32:1.5", "i32:100"],
        ),
        (
            "_Z4fillIiEvPT_S0_i",
            &["i32[]:zeros:256", "i32:2", "i32:100"],
        ),
        (
            "_Z4fillIjEvPT_S0_i",
            &["u32[]:zeros:256", "u32:3", "i32:100"],
        ),
        (
            "_Z4fillIdEvPT_S0_i",
            &["f64[]:zeros:256", "f64:0.5", "i32:100"],
        ),
        (
            "_Z5scaleIfEvPT_S0_i",
            &["f32[]:rand:256:2", "f32:2.0", "i32:100"],
        ),
        (
            "_Z5scaleIjEvPT_S0_i",
            &["u32[]:rand:256:3", "u32:3", "i32:100"],
        ),
        (
            "_Z3mixIdsEvPT_PKT0_i",
            &["f64[]:rand:256:4", "i16[]:rand:256:5", "i32:100"],
        ),
    ];
    let shape = ["--grid", "1", "--block", "256"];
    for kernel in launches {
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), kernel, &shape);
    }
}

/// An instantiation's note spells enumeration arguments as C++ does
/// (`k<Mode::Exact, nn::Mul>`, scoped and unscoped), as nvcc's
/// "detected during instantiation" line does (`[with M=Mode::Exact,
/// O=nn::Mul]`), not as their values (`k<1u, 1>`); a value no enumerator
/// has is a cast, as demanglers write it.
#[test]
fn instantiation_notes_name_enumeration_arguments() {
    let source = "namespace nn { enum Op { Add, Mul }; }\n\
         enum class Mode : unsigned { Fast, Exact };\n\
         template <Mode M, nn::Op O> __global__ void k(float *p) {\n\
           static_assert(M == Mode::Fast, \"only fast\");\n\
         }\n\
         int main() { float *p = 0; k<Mode::Exact, nn::Mul><<<1, 1>>>(p); }\n";
    rejects(
        source,
        "E0013",
        "in `k<Mode::Exact, nn::Mul>`, instantiated here",
    );
    let cast = source.replace("nn::Mul>", "(nn::Op)7>");
    rejects(
        &cast,
        "E0013",
        "in `k<Mode::Exact, (nn::Op)7>`, instantiated here",
    );
    let what = "enumeration arguments in nvcc's notes";
    let Some(o) = common::nvcc_run(source, "templates-enum-notes", what) else {
        return;
    };
    let theirs = String::from_utf8_lossy(&o.stderr);
    assert!(
        theirs.contains("[with M=Mode::Exact, O=nn::Mul]"),
        "nvcc's note: {theirs}"
    );
}

/// A deduced launch's arguments `a < b, c > (d)` are two comparisons of
/// host variables, not one template-id (`a` is a variable, so its `<`
/// opens no list): `T` is deduced from the third argument, nvcc's
/// `k<float>`, where kernelc read one argument and failed to deduce.
#[test]
fn a_comparison_after_a_host_variable_is_no_template_argument_list() {
    let dir = scratch("templates-comparison-arguments");
    let src = fixture("comparison_arguments.cu");
    let ours = kernelc_ptx(&src, &dir.join("ours.ptx"));
    let expected: BTreeSet<String> = ["_Z1kIfEviiPT_".to_string()].into();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "comparison_arguments.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
}

/// `__host__ __device__` function templates that host code calls with
/// only their first template argument written (`fetch<Border>(v, i)`,
/// the element type deduced from a `View<T>` in host code, through a
/// reference parameter, a local, and a host template called with deduced
/// arguments; one argument an `std::vector`'s element kernelc cannot
/// type): the program compiles, nvcc's kernels and no more, and each
/// computes the blur it should on kernelc's PTX, the IR interpreter and
/// nvcc's PTX.
#[test]
fn host_calls_of_host_device_templates_deduce_from_class_instances() {
    let dir = scratch("templates-host-device-calls");
    let src = fixture("host_device_calls.cu");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let kernels = ["_Z5blur3I5ClampEvPKiPii", "_Z5blur3I4WrapEvPKiPii"];
    let expected: BTreeSet<String> = kernels.iter().map(|k| k.to_string()).collect();
    assert_eq!(entries(&ours), expected);
    let shape = ["--grid", "2", "--block", "32"];
    for (kernel, border) in kernels.iter().zip([clamp as fn(i64) -> usize, wrap]) {
        let args: &[&str] = &["i32[]:rand:64:5", "i32[]:zeros:64", "i32:64"];
        let run = |file: &Path, engine: &str, out: &str| {
            common::launch_buffers(file, engine, (kernel, args), &dir.join(out), &shape)
        };
        let buffers = run(&dir.join("kernelc.ptx"), "emu", "ours");
        let (input, output) = (
            common::i32s(buffers[0].as_ref().unwrap()),
            common::i32s(buffers[1].as_ref().unwrap()),
        );
        for (i, &got) in output.iter().enumerate() {
            let at = |d: i64| input[border(i as i64 + d)];
            let want = at(-1)
                .wrapping_add(at(0).wrapping_mul(2))
                .wrapping_add(at(1));
            assert_eq!(got, want, "{kernel}: element {i}");
        }
        assert_eq!(
            buffers,
            run(&src, "interp", "interp"),
            "{kernel}: the interpreter"
        );
        if let Some(theirs) = &theirs {
            assert_eq!(
                buffers,
                run(theirs, "emu", "theirs"),
                "{kernel}: nvcc's PTX"
            );
        }
    }
    if let Some(theirs) = &theirs {
        let text = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(entries(&text), expected, "nvcc's instances");
    }
}

/// `Clamp::index` and `Wrap::index` of host_device_calls.cu over 64.
fn clamp(i: i64) -> usize {
    i.clamp(0, 63) as usize
}

fn wrap(i: i64) -> usize {
    i.rem_euclid(64) as usize
}

/// The `.func` names of `ptx` (mangled), as a set.
fn func_names(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|l| l.split(".func").nth(1))
        .filter_map(|rest| {
            let at = rest.find("_Z")?;
            let name = rest[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            Some(name)
        })
        .collect()
}

/// `const T (&v)[N]` and `T (&v)[N]` (`N` an `int` or a `size_t`) deduce
/// the element type and the length from the array an argument names: a
/// local, a `const` local, a member, a row of a 2-D array; the same
/// array passed to `const T *` is its first element's address. The
/// instances are nvcc's (`_Z3sumIfLi8EET_RAT0__KS0_`), and the kernel
/// computes the expected values on kernelc's PTX, the interpreter and
/// nvcc's PTX.
#[test]
fn references_to_arrays_deduce_the_element_type_and_length() {
    let dir = scratch("templates-array-deduction");
    let src = fixture("array_deduction.cu");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let names = func_names(&ours);
    for name in [
        "_Z3sumIfLi8EET_RAT0__KS0_",
        "_Z3sumIdLi2EET_RAT0__KS0_",
        "_Z3sumIiLi3EET_RAT0__KS0_",
        "_Z6rotateIiLm3EEmRAT0__T_",
        "_Z4headIfET_PKS0_",
        "_Z4headIdET_PKS0_",
        "_Z4headIiET_PKS0_",
    ] {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    let kernel = (
        "_Z6arraysPKfPKiPfPi",
        &[
            "f32[]:rand:64:7",
            "i32[]:rand:64:8",
            "f32[]:zeros:64",
            "i32[]:zeros:64",
        ][..],
    );
    let shape = ["--grid", "2", "--block", "32"];
    let run = |file: &Path, engine: &str, out: &str| {
        common::launch_buffers(file, engine, kernel, &dir.join(out), &shape)
    };
    let buffers = run(&dir.join("kernelc.ptx"), "emu", "ours");
    let [ins, seeds, outs, ints] = &buffers[..] else {
        panic!("four buffers: {buffers:?}");
    };
    let (ins, seeds) = (
        common::f32s(ins.as_ref().unwrap()),
        common::i32s(seeds.as_ref().unwrap()),
    );
    let (outs, ints) = (
        common::f32s(outs.as_ref().unwrap()),
        common::i32s(ints.as_ref().unwrap()),
    );
    for (i, &a) in ins.iter().enumerate() {
        let sum_v = (0..8).fold(0.0f32, |s, k| s + (a + k as f32));
        let want = sum_v + (f64::from(a) + 0.5) as f32 + 8.0 + a;
        assert_eq!(outs[i].to_bits(), want.to_bits(), "out[{i}]");
        let n = seeds[i] & 0xff;
        let want = (3 * n + 3) * 1000 + (n + 17) * 10 + (n + 9) + 900_000 + 2 * n * 1_000_000;
        assert_eq!(ints[i], want, "ints[{i}]");
    }
    assert_eq!(buffers, run(&src, "interp", "interp"), "the interpreter");
    // Two lengths for one `N`, and a pointer where an array is wanted
    // (nvcc: "no instance of function template matches").
    let err = rejects(
        "template <class T, int N> __device__ T dot(const T (&a)[N], const T (&b)[N]) { return a[0] * b[N - 1]; }\n\
         __global__ void k(float *o) { float a[4] = {}; float b[8] = {};\n  o[0] = dot(a, b); }\n",
        "E0019",
        "template parameter `N` of `dot` is deduced as both `4` and `8`",
    );
    assert!(err.contains(":3:10"), "{err}");
    rejects(
        "template <class T, int N> __device__ T first(const T (&a)[N]) { return a[0]; }\n\
         __global__ void k(float *o) { o[0] = first(o); }\n",
        "E0019",
        "cannot deduce template parameter `T` of `first`",
    );
    if let Some(theirs) = theirs {
        assert_eq!(buffers, run(&theirs, "emu", "theirs"), "nvcc's PTX");
        let text = std::fs::read_to_string(&theirs).unwrap();
        let nvccs = func_names(&text);
        assert!(
            nvccs.is_subset(&names),
            "nvcc's {nvccs:?}, kernelc's {names:?}"
        );
    }
}

/// Function templates returning references (`T &at(T *, int)`, `const T
/// &pick::larger(const T &, const T &)`), kept out of line: their names
/// spell the return type as a reference, as nvcc's (`_Z2atIiERT_PS0_i`;
/// they were `PT_`), and a call is the object, assigned through and read:
/// the values against nvcc's PTX on the emulator, the interpreter and the
/// expected ones.
#[test]
fn templates_returning_references_are_named_as_nvcc() {
    let dir = scratch("templates-reference-returns");
    let src = fixture("reference_returns.cu");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let expected: BTreeSet<String> = [
        "_Z2atIiERT_PS0_i",
        "_Z2atIfERT_PS0_i",
        "_ZN4pick6largerIiEERKT_S3_S3_",
        "_ZN4pick6largerIfEERKT_S3_S3_",
        "_Z5takenIiEOT_PS0_i",
        "_Z7tighterIKiERT_S2_S2_",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(func_names(&ours), expected);
    let kernel = (
        "_Z10refReturnsPKiPiPf",
        &["i32[]:rand:64:3", "i32[]:zeros:64", "f32[]:rand:64:4"][..],
    );
    let shape = ["--grid", "2", "--block", "32"];
    let run = |file: &Path, engine: &str, out: &str| {
        common::launch_buffers(file, engine, kernel, &dir.join(out), &shape)
    };
    let before = run(&src, "interp", "inputs");
    let buffers = run(&dir.join("kernelc.ptx"), "emu", "ours");
    let ins = common::i32s(buffers[0].as_ref().unwrap());
    let outs = common::i32s(buffers[1].as_ref().unwrap());
    for (i, &x) in ins.iter().enumerate() {
        let n = x & 0xff;
        assert_eq!(outs[i], n.max(105) * 1000 + n, "out[{i}]");
    }
    // `at(f, i) = larger(f[i], 0.5f)`: none is left below one half.
    let floats = common::f32s(buffers[2].as_ref().unwrap());
    assert!(floats.iter().all(|&v| v >= 0.5), "{floats:?}");
    assert_eq!(buffers, before, "the interpreter");
    if let Some(theirs) = &theirs {
        assert_eq!(buffers, run(theirs, "emu", "theirs"), "nvcc's PTX");
        let text = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(func_names(&text), expected, "nvcc's names");
    }
    // `rvalueReturns`: `taken` returns the element itself, `tighter` the
    // smaller of two `const` objects.
    let kernel = (
        "_Z13rvalueReturnsPKiPi",
        &["i32[]:rand:64:3", "i32[]:zeros:64"][..],
    );
    let run = |file: &Path, engine: &str, out: &str| {
        common::launch_buffers(file, engine, kernel, &dir.join(out), &shape)
    };
    let buffers = run(&dir.join("kernelc.ptx"), "emu", "rvalue_ours");
    let ins = common::i32s(buffers[0].as_ref().unwrap());
    let outs = common::i32s(buffers[1].as_ref().unwrap());
    for (i, &x) in ins.iter().enumerate() {
        let (n, c) = (x & 0xff, x >> 8 & 0xff);
        assert_eq!(
            outs[i],
            101 + c.min(77) * 1000 + (n + 3) * 1000000,
            "out[{i}]"
        );
    }
    assert_eq!(
        buffers,
        run(&src, "interp", "rvalue_interp"),
        "the interpreter"
    );
    if let Some(theirs) = theirs {
        assert_eq!(buffers, run(&theirs, "emu", "rvalue_theirs"), "nvcc's PTX");
    }
}

/// Explicit specializations whose arguments name enumerators (scoped and
/// plain, in a namespace) and a `constexpr` constant declared above them
/// (`apply<Kind::Relu>`, `scaled<Twice>`, `shifted<kShift>`): each is the
/// instance the kernels use, as nvcc's PTX computes on the emulator.
#[test]
fn specializations_named_by_enumerators_and_constants_are_nvccs() {
    let dir = scratch("templates-named-specializations");
    let src = fixture("named_specializations.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let kinds = ["0", "1", "2"].map(|k| format!("_ZN3act8activateILNS_4KindE{k}EEEvPKfPfi"));
    let mut expected: BTreeSet<String> = kinds.iter().cloned().collect();
    expected.insert("_Z3mixPKiPii".to_string());
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "named_specializations.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    let shape = ["--grid", "2", "--block", "128"];
    let floats: &[&str] = &["f32[]:rand:200:7", "f32[]:zeros:200", "i32:200"];
    for kernel in &kinds {
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), (kernel, floats), &shape);
    }
    let ints: &[&str] = &["i32[]:rand:200:8", "i32[]:zeros:200", "i32:200"];
    assert_same_launch(
        &dir,
        (&ours_ptx, &theirs_ptx),
        ("_Z3mixPKiPii", ints),
        &shape,
    );
    // The specializations are the instances: ReLU gives `max(x - 0.5, 0)`,
    // the leaky one `x - 0.5` scaled by 1/8 below 0, the unspecialized
    // one `x - 0.5`, and `mix` 2v + 8v + v + v = 12v.
    let run = |kernel: &str, args: &[&str]| {
        common::launch_buffers(&ours_ptx, "emu", (kernel, args), &dir.join("check"), &shape)
    };
    let words = |b: &Option<Vec<u8>>| -> Vec<[u8; 4]> {
        let b = b.as_ref().expect("the buffer is written");
        b.chunks_exact(4).map(|c| c.try_into().unwrap()).collect()
    };
    let leaky = |x: f32| if x > 0.0 { x } else { 0.125 * x };
    let activations: [&dyn Fn(f32) -> f32; 3] = [&|x| x.max(0.0), &leaky, &|x| x];
    for (kernel, f) in kinds.iter().zip(activations) {
        let buffers = run(kernel, floats);
        let pairs = words(&buffers[0]).into_iter().zip(words(&buffers[1]));
        for (x, y) in pairs {
            assert_eq!(
                f32::from_le_bytes(y),
                f(f32::from_le_bytes(x) - 0.5),
                "{kernel}"
            );
        }
    }
    let mixed = run("_Z3mixPKiPii", ints);
    for (v, out) in words(&mixed[0]).into_iter().zip(words(&mixed[1])) {
        assert_eq!(
            i32::from_le_bytes(out),
            i32::from_le_bytes(v).wrapping_mul(12)
        );
    }
}

/// Explicit instantiations of host function templates
/// (`template void block_sums_for<int>(...);`, one in a namespace with a
/// class argument) instantiate the kernels their bodies launch, though no
/// code calls them: the `.entry` set is nvcc's, and the instances compute
/// what nvcc's do on the emulator.
#[test]
fn explicitly_instantiated_host_templates_launch_nvccs_instances() {
    let dir = scratch("templates-host-explicit");
    let src = fixture("host_explicit.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let sums = |t: &str, block: u32, full: u32| {
        format!("_Z10block_sumsI{t}Lj{block}ELb{full}EEvPKT_PS0_j")
    };
    let mut expected: BTreeSet<String> = ["i", "f"]
        .iter()
        .flat_map(|t| [sums(t, 128, 1), sums(t, 128, 0), sums(t, 64, 0)])
        .collect();
    expected.insert("_ZN3ops3mapINS_5TwiceEEEvPKfPfi".to_string());
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "host_explicit.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    let shape = ["--grid", "3", "--block", "128"];
    let launches: [(String, &[&str]); 3] = [
        (
            sums("i", 128, 0),
            &["i32[]:rand:300:1", "i32[]:zeros:3", "u32:300"],
        ),
        (
            sums("f", 128, 1),
            &["f32[]:rand:384:2", "f32[]:zeros:3", "u32:384"],
        ),
        (
            "_ZN3ops3mapINS_5TwiceEEEvPKfPfi".to_string(),
            &["f32[]:rand:300:3", "f32[]:zeros:300", "i32:300"],
        ),
    ];
    for (kernel, args) in &launches {
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), (kernel, args), &shape);
    }
}

/// Functional casts and constructions through dependent member types
/// (`~typename Tr::Bits(0)`, `typename Traits<T>::Bits(i)`,
/// `Traits<T>::Bits()`, `typename Traits<T>::Pair{v, w}`): nvcc's
/// instances, computing nvcc's values on the emulator.
#[test]
fn casts_to_dependent_member_types_are_nvccs() {
    let dir = scratch("templates-dependent-casts");
    let src = fixture("dependent_type_casts.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let launches: [(&str, &[&str]); 2] = [
        (
            "_Z6mixAllIfEvPN6TraitsIT_E4BitsEPKS1_i",
            &["u32[]:zeros:64", "f32[]:rand:64:1", "i32:60"],
        ),
        (
            "_Z6mixAllIdEvPN6TraitsIT_E4BitsEPKS1_i",
            &["u64[]:zeros:64", "f64[]:rand:64:2", "i32:60"],
        ),
    ];
    let expected: BTreeSet<String> = launches.iter().map(|l| l.0.to_string()).collect();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "dependent_type_casts.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    for kernel in launches {
        let shape = ["--grid", "2", "--block", "32"];
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), kernel, &shape);
    }
}

/// Kernel templates launched from member functions of host class
/// templates (`ns::Launcher<T>::fill`, through `using L =
/// ns::Launcher<T>;` in a host template called with deduced arguments,
/// and `ns::Scaler<T, 3>`'s `operator()`), the kernels named relative to
/// the class's namespace (`detail::scale<T, K>` inside `ns`): nvcc's
/// instances, computing nvcc's values on the emulator.
#[test]
fn launches_in_host_class_templates_are_nvccs() {
    let dir = scratch("templates-host-classes");
    let src = fixture("host_class_launchers.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let fill: &[&str] = &["f32[]:zeros:64", "i32:60", "f32:1.5"];
    let fill_wide: &[&str] = &["i64[]:zeros:64", "i32:60", "i64:7"];
    let scale: &[&str] = &["f32[]:rand:64:1", "i32:60"];
    let scale_wide: &[&str] = &["i64[]:rand:64:2", "i32:60"];
    let launches: [(&str, &[&str]); 5] = [
        ("_ZN2ns6detail4fillIfEEvPT_iS2_", fill),
        (
            "_ZN2ns6detail4fillIiEEvPT_iS2_",
            &["i32[]:zeros:64", "i32:60", "i32:3"],
        ),
        ("_ZN2ns6detail4fillIxEEvPT_iS2_", fill_wide),
        ("_ZN2ns6detail5scaleIfLi3EEEvPT_i", scale),
        ("_ZN2ns6detail5scaleIxLi3EEEvPT_i", scale_wide),
    ];
    let expected: BTreeSet<String> = launches.iter().map(|l| l.0.to_string()).collect();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "host_class_launchers.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    for kernel in launches {
        let shape = ["--grid", "2", "--block", "32"];
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), kernel, &shape);
    }
}

/// Kernel templates launched from the member functions of host classes
/// that are not templates (a RAII runner's `run()`, with its class's
/// `typedef` and, after `private:`, its `using` alias), and from a class
/// template's member naming an alias declared after `public:` (a
/// CUTLASS-style `device::Gemm<Shape>` launching `Kernel<GemmKernel>`):
/// nvcc's instances, none missing.
#[test]
fn launches_in_host_class_members_name_the_class_aliases() {
    let dir = scratch("templates-host-class-members");
    let src = dir.join("m.cu");
    std::fs::write(
        &src,
        "template <typename T> struct Op { static constexpr int kThreads = 64; };\n\
         template <typename O> __global__ void Kernel(int *p) { p[threadIdx.x] = O::kThreads; }\n\
         struct Runner {\n\
           typedef Op<char> Narrow;\n\
           void run(int *p) { Kernel<Narrow><<<1, 1>>>(p); Kernel<Op<short>><<<1, 1>>>(p); Kernel<Wide><<<1, 1>>>(p); }\n\
         private:\n\
           using Wide = Op<long>;\n\
         };\n\
         template <typename X>\n\
         class Device {\n\
         public:\n\
           using K = Op<X>;\n\
           void run(int *p) { Kernel<K><<<1, K::kThreads>>>(p); }\n\
         };\n\
         int main() { Runner r; r.run(nullptr); Device<float> d; d.run(nullptr); return 0; }\n",
    )
    .unwrap();
    let ours = kernelc_ptx(&src, &dir.join("ours.ptx"));
    let expected: BTreeSet<String> = ["c", "s", "l", "f"]
        .iter()
        .map(|t| format!("_Z6KernelI2OpI{t}EEvPi"))
        .collect();
    assert_eq!(entries(&ours), expected);
    if let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "host class members") {
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// `<cuda/std/cstdint>` and `<cuda/std/cstddef>`: `cuda::std::int32_t`
/// and the rest are `<cstdint>`'s types (the kernel's name is nvcc's),
/// the limit macros are there, and the values are nvcc's on the emulator.
#[test]
fn cuda_std_fixed_width_types_are_nvccs() {
    let dir = scratch("templates-cuda-std-ints");
    let src = fixture("cuda_std_ints.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    let kernel = "_Z6widthsPiPhmPl";
    assert_eq!(entries(&ours), BTreeSet::from([kernel.to_string()]));
    let args: &[&str] = &["i32[]:zeros:2", "u8[]:zeros:2", "u64:9", "i64[]:zeros:2"];
    let shape = ["--grid", "1", "--block", "1"];
    let mine = common::launch_buffers(&ours_ptx, "emu", (kernel, args), &dir.join("mine"), &shape);
    let bytes = |k: usize| mine[k].clone().expect("the buffer is written");
    let int = |b: &[u8]| i64::from_le_bytes(b.try_into().unwrap());
    assert_eq!(
        bytes(0),
        [i32::MAX.to_le_bytes(), 4464i32.to_le_bytes()].concat()
    );
    assert_eq!(bytes(1), [255, 3]);
    let w = bytes(3);
    assert_eq!([int(&w[..8]), int(&w[8..])], [9 * i64::from(i32::MIN), 82]);
    let (Some(nvcc), Some(headers)) = (
        common::nvcc_or_skip("cuda::std fixed-width types through nvcc"),
        common::cuda_headers_or_skip(),
    ) else {
        return;
    };
    let theirs = dir.join("theirs.ptx");
    let cccl = format!("-I{}", headers.join("cccl").display());
    common::nvcc_ptx_to(&nvcc, &src, "sm_90", &[cccl], &theirs);
    let expected = common::launch_buffers(&theirs, "emu", (kernel, args), &dir.join("nv"), &shape);
    assert_eq!(mine, expected, "kernelc's values and nvcc's differ");
}

/// The launches of outside_members.cu: each kernel's name and its
/// arguments for 2 blocks of 32 threads.
const OUTSIDE_MEMBERS: [(&str, &[&str]); 7] = [
    (
        "_Z10accumulateIfEvPKT_PS0_i",
        &["f32[]:rand:64:1", "f32[]:zeros:64", "i32:60"],
    ),
    (
        "_Z10accumulateIiEvPKT_PS0_i",
        &["i32[]:rand:64:2", "i32[]:zeros:64", "i32:64"],
    ),
    (
        "_Z10accumulateIdEvPKT_PS0_i",
        &["f64[]:rand:64:3", "f64[]:zeros:64", "i32:50"],
    ),
    (
        "_Z6windowIfLi3EEvPKT_PS0_i",
        &["f32[]:rand:64:4", "f32[]:zeros:64", "i32:64"],
    ),
    (
        "_Z6windowIfLi7EEvPKT_PS0_i",
        &["f32[]:rand:64:5", "f32[]:zeros:64", "i32:60"],
    ),
    (
        "_Z6windowIiLi2EEvPKT_PS0_i",
        &["i32[]:rand:64:6", "i32[]:zeros:64", "i32:64"],
    ),
    (
        "_Z6windowIdLi4EEvPKT_PS0_i",
        &["f64[]:rand:64:7", "f64[]:zeros:64", "i32:64"],
    ),
];

/// Members of class templates defined outside their classes. On the
/// device, an instance defines them as it defines the members of its
/// body: member functions, a member template, a constructor with its
/// initializer list, a static member function, two parameters with a value parameter, the
/// definition's own parameter names. On the host, they instantiate the
/// kernels they launch or name as nvcc does: every member for `template
/// struct Runner<float>;` (so `unused`'s `window<float, 7>`), one for
/// `template void Runner<int>::run(...)`, the members host code names for
/// `Runner<double> r; r.run(...)` (not `unused`), a constructor, a
/// static member function and a static data member. The .entry set is
/// nvcc's; every kernel computes on the interpreter and the emulator what
/// nvcc's PTX computes on the emulator.
#[test]
fn members_defined_outside_class_templates_are_nvccs() {
    let dir = scratch("templates-outside-members");
    let src = fixture("outside_members.cu");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let expected: BTreeSet<String> = OUTSIDE_MEMBERS.iter().map(|l| l.0.to_string()).collect();
    assert_eq!(entries(&ours), expected);
    if let Some(theirs) = &theirs {
        let text = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(entries(&text), expected, "nvcc's instances");
    }
    let shape = ["--grid", "2", "--block", "32"];
    for (k, launch) in OUTSIDE_MEMBERS.into_iter().enumerate() {
        let run = |file: &Path, engine: &str| {
            let out = dir.join(format!(
                "{engine}-{k}-{}",
                file.extension().unwrap().to_str().unwrap()
            ));
            common::launch_buffers(file, engine, launch, &out, &shape)
        };
        let mine = run(&dir.join("kernelc.ptx"), "emu");
        assert!(
            mine[1].as_ref().is_some_and(|b| b.iter().any(|&x| x != 0)),
            "{}",
            launch.0
        );
        assert_eq!(mine, run(&src, "interp"), "{}: the interpreter", launch.0);
        if let Some(theirs) = &theirs {
            assert_eq!(mine, run(theirs, "emu"), "{}: nvcc's PTX", launch.0);
        }
    }
    // `accumulate<int>` adds in[i], twice in[i + 1] and 1.
    let ints = &OUTSIDE_MEMBERS[1];
    let out = common::launch_buffers(
        &dir.join("kernelc.ptx"),
        "emu",
        *ints,
        &dir.join("ints"),
        &shape,
    );
    let (ins, sums) = (
        common::words_i32(out[0].as_ref().unwrap()),
        common::words_i32(out[1].as_ref().unwrap()),
    );
    for i in 0..64 {
        let twice = ins[(i + 1) % 64].wrapping_mul(2);
        assert_eq!(
            sums[i],
            ins[i].wrapping_add(twice).wrapping_add(1),
            "thread {i}"
        );
    }
}

/// The members defined outside a class template that kernelc cannot
/// define for its instances yet are located E0002s, never left undefined
/// in silence.
#[test]
fn outside_members_kernelc_cannot_read_are_located_errors() {
    let err = rejects(
        "template <typename T> struct Acc { T v; template <typename U> __device__ void add(U x);\n\
         template <typename U> __device__ void add(U x, U y); };\n\
         template <typename T> template <typename U> __device__ void Acc<T>::add(U x) { v += x; }\n\
         __global__ void k(float *o) { Acc<float> a{0}; a.add(1); o[0] = a.v; }\n",
        "E0002",
        "member templates defined outside their class template",
    );
    assert!(err.contains(":3:1"), "{err}");
    let err = rejects(
        "template <typename T> struct Acc { T v; };\n\
         template <typename T> struct Acc<T *> { T v; __device__ void add(T x); };\n\
         template <typename T> __device__ void Acc<T *>::add(T x) { v += x; }\n\
         __global__ void k(float *o) { Acc<float *> a{0}; a.add(1); o[0] = a.v; }\n",
        "E0002",
        "outside a partial specialization",
    );
    assert!(err.contains(":3:49"), "{err}");
    let err = rejects(
        "template <typename T> struct Acc { static __device__ int count; };\n\
         template <typename T> __device__ int Acc<T>::count = 0;\n\
         __global__ void k(int *o) { o[0] = Acc<float>::count; }\n",
        "E0002",
        "a static data member of a class template defined outside",
    );
    assert!(err.contains(":2:46"), "{err}");
    let err = rejects(
        "template <typename T> struct Acc { T v; __device__ Acc operator+(Acc o) const; };\n\
         template <typename T> __device__ Acc<T> Acc<T>::operator+(Acc<T> o) const { return {v + o.v}; }\n\
         __global__ void k(float *o) { Acc<float> a{1}; o[0] = (a + a).v; }\n",
        "E0002",
        "an operator of a class template defined outside",
    );
    assert!(err.contains(":2:49"), "{err}");
    // Nor is a member template of an ordinary class defined outside it.
    let err = rejects(
        "struct S { float v; template <class U> __device__ void add(U x); };\n\
         template <class U> __device__ void S::add(U x) { v += x; }\n\
         __global__ void k(float *o) { S s{0}; s.add(1); o[0] = s.v; }\n",
        "E0002",
        "member templates defined outside their class are not supported",
    );
    assert!(err.contains(":2:1"), "{err}");
}

/// Argument-dependent lookup through template arguments: `weigh(b)`,
/// `lifted(b)` (a function template) and `total(&p)` with `b` a
/// `Box<geo::V>` and `p` a `Pair<int, Box<geo::V>>` of global class
/// templates find `geo`'s functions, as nvcc does; the values are nvcc's
/// PTX's on the emulator and the interpreter's, and the expected ones.
#[test]
fn lookup_through_template_arguments_finds_their_namespaces_functions() {
    let dir = scratch("templates-adl-arguments");
    let src = fixture("adl_template_args.cu");
    let launch: (&str, &[&str]) = ("_Z3adlPKfPf", &["f32[]:rand:64:9", "f32[]:zeros:64"]);
    let runs = common::fixture_runs(&src, &dir, launch);
    let floats = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (ins, outs) = (floats(&runs.ours[0]), floats(&runs.ours[1]));
    for (i, (&x, &y)) in ins.iter().zip(&outs).enumerate() {
        let expected = x * 5.0 + (x + 1.0) + (i as f32 + x) + x * 3.0;
        assert!(
            (y - expected).abs() <= 1e-5 * expected.abs().max(1.0),
            "thread {i}: {y} vs {expected}"
        );
    }
    if let Some((_, theirs)) = runs.theirs {
        assert_eq!(runs.ours, theirs, "nvcc's PTX");
    }
}

/// The example of issue 26: a kernel instantiated only through a member,
/// defined outside its class, of an explicitly instantiated host class
/// template, and using a device class template's members defined outside
/// theirs. kernelc gave no kernel (and exit 0); the .entry set is nvcc's.
#[test]
fn an_explicitly_instantiated_host_class_instantiates_its_outside_members_launches() {
    let dir = scratch("templates-issue-26-outside");
    let src = dir.join("solver.cu");
    std::fs::write(
        &src,
        "template <typename T> struct Acc { T v; __device__ void add(T x); __device__ T get() const; };\n\
         template <typename T> __device__ void Acc<T>::add(T x) { v += x; }\n\
         template <typename T> __device__ T Acc<T>::get() const { return v; }\n\
         template <typename T> __global__ void k(T *o) { Acc<T> a{0}; a.add(o[0]); o[1] = a.get(); }\n\
         template <typename T> struct Solver { void run(T *p); };\n\
         template <typename T> void Solver<T>::run(T *p) { k<T><<<1,1>>>(p); }\n\
         template struct Solver<float>;\n\
         int main() { return 0; }\n",
    )
    .unwrap();
    let ours = kernelc_ptx(&src, &dir.join("ours.ptx"));
    let expected = BTreeSet::from(["_Z1kIfEvPT_".to_string()]);
    assert_eq!(entries(&ours), expected);
    if let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "the issue's example") {
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// Kernel instances launched from member function templates of host
/// class templates whose own arguments a call deduces
/// (`Sorter<float, Less>::sortWith(f, 64, AbsLess())`, and `sortWith(d,
/// n, Cmp<T>())` inside the class's `sort`), and from a host template
/// whose template template parameter names the deduced argument's class
/// (`run<int, Greater>` calling `sortPair(d, n, Cmp<T>())`): the `.entry`
/// set is nvcc's, with no instance of a member no use names, and each
/// instance computes what nvcc's does on the emulator. A member template
/// called with its arguments written (`Filler<float>::go<4>(f)`) sees its
/// class's arguments too.
#[test]
fn instances_through_member_template_frames_are_nvccs() {
    let dir = scratch("templates-member-frames");
    let src = fixture("member_template_frames.cu");
    let ours_ptx = dir.join("ours.ptx");
    let ours = kernelc_ptx(&src, &ours_ptx);
    // The data, `n`, the empty comparator (and a counter).
    let sort = |ty: &str, seed: &str| {
        vec![
            format!("{ty}[]:rand:64:{seed}"),
            "i32:64".into(),
            "u8:0".into(),
        ]
    };
    let mut count = sort("i32", "5");
    count.push("i32[]:zeros:1".into());
    let launches: [(&str, Vec<String>); 7] = [
        ("_Z10orderPairsIf7AbsLessEvPT_iT0_", sort("f32", "1")),
        ("_Z10orderPairsId7GreaterIdEEvPT_iT0_", sort("f64", "2")),
        ("_Z10orderPairsIi7GreaterIiEEvPT_iT0_", sort("i32", "3")),
        ("_Z10orderPairsIs7GreaterIsEEvPT_iT0_", sort("i16", "4")),
        ("_Z12countOrderedIi7GreaterIiEEvPKT_iT0_Pi", count),
        ("_Z5fillNIfLi4EEvPT_", vec!["f32[]:zeros:32".into()]),
        ("_Z5fillNIiLi8EEvPT_", vec!["i32[]:zeros:32".into()]),
    ];
    let expected: BTreeSet<String> = launches.iter().map(|l| l.0.to_string()).collect();
    assert_eq!(entries(&ours), expected);
    let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "member_template_frames.cu") else {
        return;
    };
    assert_eq!(entries(&theirs), expected, "nvcc's instances");
    let theirs_ptx = dir.join("theirs.ptx");
    std::fs::write(&theirs_ptx, theirs).unwrap();
    for (name, args) in &launches {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let shape = ["--grid", "1", "--block", "32"];
        assert_same_launch(&dir, (&ours_ptx, &theirs_ptx), (name, &args), &shape);
    }
}

/// A kernel instance behind host code kernelc cannot follow is a located
/// warning (W0010), never a silent omission: a host template called with
/// an argument whose type kernelc cannot find (a host function's result),
/// and a member function template called through an object, whose
/// class's arguments kernelc does not read.
#[test]
fn kernel_instances_behind_unfollowed_host_code_are_warned() {
    let dir = scratch("templates-unfollowed");
    let cases = [
        (
            "result.cu",
            "template <class T> __global__ void k(T *d) { d[0] = 1; }\n\
             int pick();\n\
             template <class T> void run(T v) { k<<<1, 1>>>((T *)0); }\n\
             int main() { run(pick()); run(2.0f); }\n",
            "result.cu:3:36",
            &["_Z1kIfEvPT_"][..],
        ),
        (
            "object.cu",
            "template <class T> __global__ void k(T *d, int v) { d[0] = v; }\n\
             template <class T> struct Filler {\n\
             \x20 template <class V> void fill(T *d, V v) { k<<<1, 1>>>(d, v); }\n\
             };\n\
             int main() { Filler<int> f; f.fill((int *)0, 3); }\n",
            "object.cu:3:45",
            &[][..],
        ),
    ];
    for (name, source, at, kept) in cases {
        let src = dir.join(name);
        std::fs::write(&src, source).unwrap();
        let out = dir.join(format!("{name}.ptx"));
        let o = kernelc(&[src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        let err = stderr(&o);
        assert!(o.status.success(), "{name}: {err}");
        assert!(
            err.contains("warning[W0010]") && err.contains(at),
            "{name}: expected W0010 at {at}, got:\n{err}"
        );
        let ptx = std::fs::read_to_string(&out).unwrap();
        let want: BTreeSet<String> = kept.iter().map(|k| k.to_string()).collect();
        assert_eq!(entries(&ptx), want, "{name}");
    }
}

/// Host templates over a parameter pack launch one kernel instance per
/// element (a fold over `||` choosing one, a comma fold over a pack of
/// types) and one for the pack expanded whole (`stamp<Rs...>`): the
/// `.entry` set is nvcc's. These were silently missing (exit 0, no entry).
#[test]
fn launches_in_folds_over_host_packs_are_nvccs() {
    let dir = scratch("templates-pack-dispatch");
    let src = fixture("pack_dispatch.cu");
    let ours = kernelc_ptx(&src, &dir.join("ours.ptx"));
    let expected: BTreeSet<String> = [
        "_Z6radiusILi1EEvPf",
        "_Z6radiusILi2EEvPf",
        "_Z6radiusILi3EEvPf",
        "_Z5widenIdEvPf",
        "_Z5widenIsEvPf",
        "_Z5stampIJLi5ELi6EEEvPf",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ours), expected);
    if let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "pack_dispatch.cu") {
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// Class template instances that host code's launches make, one from a
/// launch argument's type (`const tl<char, short, double> *list`, whose
/// pack `lengths` deduces) and others from written template arguments,
/// are distinct classes: each `sizes<...>` launch has its kernel, as
/// nvcc's PTX has. (The instances' ids once collided, and every `sizes`
/// after the first was silently taken for the first.)
#[test]
fn class_instances_from_host_code_are_distinct() {
    let dir = scratch("templates-class-ids");
    let src = fixture("class_ids.cu");
    let ours = kernelc_ptx(&src, &dir.join("ours.ptx"));
    let expected: BTreeSet<String> = [
        "_Z7lengthsIJcsdEEvPK2tlIJDpT_EEPi",
        "_Z5sizesI2tlIJcsdEEEvPi",
        "_Z5sizesI2tlIJfiEEEvPi",
        "_Z5sizesI2tlIJlEEEvPi",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries(&ours), expected);
    if let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "class_ids.cu") {
        assert_eq!(entries(&theirs), expected, "nvcc's instances");
    }
}

/// References named by types: `typedef T &reference;` and `using
/// reference = T &;` in class templates and a class, `float &` as a
/// template argument (`holder<float &>` holds a reference, `Ts &...`
/// expands to references), `std::is_reference`, `remove_reference(_t)`
/// and `decay`, `decltype(x)` of a reference, `auto &` bound to elements,
/// and a forwarding reference deduced `U &` through `std::forward` and a
/// hand-written `fwd<T>` (`static_cast<T &&>` with `T` = `float &`). The
/// `.func` and `.entry` names are nvcc's (`RKf`, `Of`, `RA4_f`, `RPf`,
/// `IRfE`, `NSt16remove_referenceIT_E4typeE`, `NSt12remove_constIT_E4typeE`),
/// written here and compared with nvcc's PTX; the results are the
/// expected ones, and nvcc's PTX's on the emulator.
#[test]
fn reference_types_are_nvccs() {
    let dir = scratch("templates-reference-types");
    let src = fixture("reference_types.cu");
    let launch: (&str, &[&str]) = ("_Z4refsPKfPf", &["f32[]:rand:64:9", "f32[]:zeros:64"]);
    let runs = common::fixture_runs(&src, &dir, launch);
    let names: BTreeSet<String> = func_names(&runs.ptx)
        .into_iter()
        .chain(entries(&runs.ptx))
        .collect();
    let expected: BTreeSet<String> = [
        "_Z7by_refsRKfRfOfRA4_fRPf",
        "_Z7to_pair7pair_ofIRfRiE",
        "_Z10to_holders6holderIRfE6ref_ofIRKiE",
        "_Z12via_typedefsRfRKf",
        "_Z6add_toIRfEvPNSt16remove_referenceIT_E4typeEf",
        "_Z5applyIR7counterEvOT_f",
        "_Z5twiceIRfEfT_",
        "_Z3incIRfEvOT_",
        "_Z4sinkRf",
        "_Z4sinkOf",
        "_Z5relayIRfEvOT_",
        "_Z5relayIfEvOT_",
        "_Z4bumpIRfEvPNSt16remove_referenceIT_E4typeE",
        "_Z6bump_cIKfEvPNSt12remove_constIT_E4typeE",
        "_Z4refsPKfPf",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(names, expected);
    let floats = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (ins, outs) = (floats(&runs.ours[0]), floats(&runs.ours[1]));
    for (t, (&x, &y)) in ins.iter().zip(&outs).enumerate() {
        let v = [x, x + 2.0, 2.0 * x + 4.0, x + 3.0];
        // v[t % 4] + v.at(1) + w[1] + x + b + c.n + twice(x)
        let expected = v[t % 4] + (x + 2.0) + t as f32 + 16.0 + (x + 11.0) + (x + 4.0) + 14.0;
        assert!(
            (y - expected).abs() <= 1e-4 * expected.abs().max(1.0),
            "thread {t}: {y} vs {expected}"
        );
    }
    if let Some((theirs_ptx, theirs)) = runs.theirs {
        let theirs_names: BTreeSet<String> = func_names(&theirs_ptx)
            .into_iter()
            .chain(entries(&theirs_ptx))
            .collect();
        assert_eq!(names, theirs_names, "nvcc's names");
        assert_eq!(runs.ours, theirs, "nvcc's PTX");
    }
}

/// Launches `kernel` of the fixture `file` on `in` (64 ints, 0 to 63)
/// and `out` (`per` ints a thread), over 2 blocks of 32 threads: kernelc's
/// PTX on the emulator, which the interpreter's run and nvcc's PTX equal
/// ([`common::fixture_runs`]), each thread's ints are `expected(i)`; the
/// `.entry` set is nvcc's. kernelc's PTX text.
fn per_thread_runs(
    file: &str,
    kernel: &str,
    per: usize,
    expected: impl Fn(i32) -> Vec<i32>,
) -> String {
    let dir = scratch(&format!("templates-{}", file.trim_end_matches(".cu")));
    let out = format!("i32[]:zeros:{}", 64 * per);
    let runs = common::fixture_runs(&fixture(file), &dir, (kernel, &["i32[]:iota:64", &out]));
    let got = common::words_i32(&runs.ours[1]);
    let want: Vec<i32> = (0..64).flat_map(&expected).collect();
    assert_eq!(got, want, "{file}: {kernel}");
    if let Some((text, theirs)) = runs.theirs {
        assert_eq!(
            entries(&runs.ptx),
            entries(&text),
            "{file}: the .entry names differ"
        );
        assert_eq!(
            runs.ours, theirs,
            "{file}: {kernel}: kernelc's PTX and nvcc's disagree"
        );
    }
    runs.ptx
}

/// Partial specializations over parameter packs (`tl<H, Ts...>`, ended
/// by the full specialization `tl<>`; `isum<N, Ns...>`; `twice_int<int,
/// int, Ts...>`, a pack's first elements fixed): the instances kernelc
/// picks compute nvcc's values, and kernels over such lists are named as
/// nvcc names them. This was E0002.
#[test]
fn partial_specializations_over_packs_are_nvccs() {
    let file = "pack_partial_specs.cu";
    // `isum<1, 2, 3, 4>` + `twice_int`s: 10 + 101 + 0 + 100.
    let ptx = per_thread_runs(file, "_Z5sizesI2tlIJcsdEEEvPKiPi", 3, |i| {
        vec![3 * i + 11, (i as i8) as i32 + 1, 211]
    });
    let want: BTreeSet<String> = ["_Z5sizesI2tlIJcsdEEEvPKiPi", "_Z5sizesI2tlIJfEEEvPKiPi"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(entries(&ptx), want);
    per_thread_runs(file, "_Z5sizesI2tlIJfEEEvPKiPi", 3, |i| {
        vec![i + 4, i + 4, 211]
    });
}

/// Names through member types of instances, in expressions and types:
/// `conditional<B, A, C>::type::value`, `typename conditional<...>::type::
/// nested`, a static member function down the chain
/// (`Pick<-1>::type::scale(v)`), and a member type of a member type
/// (`Box<T>::inner::type::value`, its template argument a conditional
/// expression). They were E0003; the values and names are nvcc's.
#[test]
fn names_through_member_types_of_instances_are_nvccs() {
    let file = "nested_member_types.cu";
    per_thread_runs(file, "_Z6chainsIfEvPKiPi", 4, |i| {
        vec![12, 4 + i, 5 * i + 1, 4]
    });
    per_thread_runs(file, "_Z6chainsIdEvPKiPi", 4, |i| {
        vec![12, 8 + i, 5 * i + 2, 8]
    });
}

/// Partial specializations whose pattern is an array (`items_of<U[N]>`,
/// `items_of<U[]>`, `extent_of<U[N], 0>`), matched by array types written
/// as template arguments (`float[7]`, `int[2][3]`, `T[4]`) and by an
/// array member's `decltype`: the values are nvcc's. The pattern was
/// E0003. An array bound the parser cannot compute is a located E0019.
#[test]
fn array_patterns_of_partial_specializations_are_nvccs() {
    let file = "array_patterns.cu";
    let values = |size| move |i| vec![107, 212, 4 * i - 1, 23, 14, size];
    per_thread_runs(file, "_Z6countsIdEvPKiPi", 6, values(8));
    per_thread_runs(file, "_Z6countsIhEvPKiPi", 6, values(1));
    let err = common::rejected_with(
        "templates-array-bounds",
        "template <class T> struct A { static constexpr int v = 1; };\n\
         __global__ void k(int *o, int n) { o[0] = A<int[n]>::v; }\n",
        "E0019",
    );
    assert!(
        err.contains(":2:49") && err.contains("array bound"),
        "{err}"
    );
}

/// Function templates whose parameters expand packs inside a class
/// template-id (`const tl<Ts...> &`, `tl<H, Ts...>`, `ilist<Ns...>`):
/// deduced from the argument's class, on the device and from a host
/// launch, and named as nvcc names them (`PK2tlIJDpT_EE`). This was E0002.
#[test]
fn packs_expanded_in_parameter_classes_are_deduced_as_nvcc_does() {
    let dir = scratch("templates-pack-params");
    let kernel = "_Z7lengthsIJcsdEEvPK2tlIJDpT_EEPKiPi";
    let args = ["u8[]:zeros:1", "i32[]:iota:64", "i32[]:zeros:192"];
    let runs = common::fixture_runs(&fixture("pack_params.cu"), &dir, (kernel, &args));
    let want: Vec<i32> = (0..64).flat_map(|i| [3 + i, 200 + i, 6]).collect();
    assert_eq!(common::words_i32(&runs.ours[2]), want);
    assert_eq!(entries(&runs.ptx), BTreeSet::from([kernel.to_string()]));
    if let Some((text, theirs)) = runs.theirs {
        assert_eq!(entries(&text), entries(&runs.ptx), "nvcc's entries");
        assert_eq!(runs.ours, theirs, "kernelc's PTX and nvcc's disagree");
    }
}

/// Rvalue references as template arguments: `H<float &&>` and
/// `H<double &&>` pick the partial specialization over `T &&` (with `T`
/// bound to the referent, its `sizeof` read), `H<int &>` the one over
/// `T &`, `H<float>` the primary; a function template instance over
/// `float &&` is `_Z4kindIOfEif`, as nvcc names it (the names below are
/// nvcc's). This was E0002.
#[test]
fn rvalue_reference_template_arguments_are_nvccs() {
    let ptx = per_thread_runs("rvalue_ref_args.cu", "_Z10rvalueArgsPKiPi", 3, |i| {
        let (rvalue_float, rvalue_double) = (3 + 4, 3 + 8);
        let kinds = rvalue_float + 10 * 2 + 100 + 1000 * rvalue_double;
        vec![kinds, rvalue_float * i, 2 * i + i]
    });
    let want: BTreeSet<String> = ["_Z4kindIOfEif", "_Z4kindIRcEif", "_Z4kindIiEif"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(func_names(&ptx), want);
}

/// Class templates as generic libraries write them
/// (`tests/fixtures/templates/lazy_members.cu`): members valid for some
/// arguments only (bit operations, a `static_assert` on the size, a call
/// of an integer-only function template, in a nested class, defined
/// outside the class) instantiated only where used (C++ [temp.inst]);
/// defaults on a forward declaration; `inline constexpr` variables;
/// partial specializations over lvalue references and a full one of
/// `RefKind<Tag &>`: nvcc's entry, and values expected and nvcc's PTX's,
/// on the emulator and the interpreter.
#[test]
fn class_template_members_are_instantiated_where_used() {
    let dir = scratch("templates-lazy-members");
    let src = fixture("lazy_members.cu");
    let launch: (&str, &[&str]) = (
        "_Z11lazyMembersPKiPi",
        &["i32[]:rand:64:5", "i32[]:zeros:256"],
    );
    let runs = common::fixture_runs(&src, &dir, launch);
    let ours = entries(&runs.ptx);
    assert_eq!(ours, BTreeSet::from([launch.0.to_string()]));
    let ins = common::words_i32(&runs.ours[0]);
    let outs = common::words_i32(&runs.ours[1]);
    for (t, &raw) in ins.iter().enumerate() {
        let x = raw & 0xffff;
        let parity = (x.count_ones() & 1) as i32;
        let expected = [
            x + (x & 1) + (x << 2) + (x & 0xff),
            3 * x + x % 10 + 2 * x + x / 2,
            parity + (x + 6) + (x as i16 as i32 + 4) + 5 * (x & 0x3f),
            // RefKind of `int &`, `const int &`, `Tag &`: 1, 2, 7.
            10 + 100 * 2 + 1000 * 7,
        ];
        assert_eq!(outs[4 * t..4 * t + 4], expected, "thread {t}");
    }
    if let Some((theirs_ptx, theirs)) = runs.theirs {
        assert_eq!(entries(&theirs_ptx), ours, "nvcc's entries");
        assert_eq!(runs.ours, theirs, "nvcc's PTX");
    }
}
