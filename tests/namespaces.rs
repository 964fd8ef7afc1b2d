//! Namespaces, `using` and `enum class` in device code (docs/language.md,
//! "Namespaces"): tests/fixtures/namespaces/namespaces.cu compiled by
//! kernelc and by nvcc must declare the same kernels under the same
//! Itanium names (nested names, prefix substitutions, scoped enumerations
//! with their underlying types), ptxas must accept kernelc's PTX, and every
//! kernel run on the emulator from either PTX file must write the same
//! bytes. Then the located errors for names lookup cannot find.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ARCH: &str = "sm_90";

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/namespaces/namespaces.cu")
}

/// The `.entry` names of a PTX module.
fn entries(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|line| {
            let rest = line.split(".entry ").nth(1)?;
            Some(rest.split('(').next()?.trim().to_string())
        })
        .collect()
}

/// Whether `name` is the shape nvcc gives a name in namespaces.cu's
/// anonymous namespace: `_GLOBAL__N__<crc of the path>_13_namespaces_cu_`
/// and a tag (unnamed_namespace.rs). Its exact value, which hashes the
/// checkout's path, is compared with nvcc's.
fn in_files_anonymous_namespace(name: &str) -> bool {
    let Some(rest) = name.split("_GLOBAL__N__").nth(1) else {
        return false;
    };
    let (crc, rest) = rest.split_at(8.min(rest.len()));
    crc.chars().all(|c| c.is_ascii_hexdigit()) && rest.starts_with("_13_namespaces_cu_")
}

/// The launches: kernel, grid, block, arguments.
const LAUNCHES: &[(&str, &str, &str, &[&str])] = &[
    (
        "sim::kineticEnergy",
        "2",
        "32",
        &["f32[]:iota:448", "i32:60", "f32[]:zeros:64"],
    ),
    ("phases", "1", "1", &["u8:4", "i16:7", "i32[]:zeros:7"]),
    ("phases", "1", "1", &["u8:5", "i16:0", "i32[]:zeros:7"]),
    ("step", "1", "16", &["f32[]:iota:112", "i32:13"]),
    ("anonKernel", "1", "32", &["i32[]:zeros:32"]),
    ("reverseTile", "1", "32", &["f32[]:iota:32"]),
    ("sim::damp", "1", "32", &["f32[]:iota:32", "i32:20"]),
    ("globalQualified", "1", "32", &["f32[]:iota:32"]),
    (
        "operators",
        "1",
        "32",
        &["f32[]:rand:128:4", "i32[]:iota:64", "f32:1.5"],
    ),
];

/// Runs launch `l` of `ptx` on the emulator; the bytes of each buffer.
fn run(ptx: &Path, l: &(&str, &str, &str, &[&str]), out: &Path) -> Vec<Vec<u8>> {
    let (kernel, grid, block, args) = l;
    let (ptx_s, out_s) = (ptx.display().to_string(), out.display().to_string());
    let mut words = vec!["run", "--engine", "emu", "--gpu-architecture", ARCH];
    words.extend([ptx_s.as_str(), "--out", out_s.as_str(), "--kernel", kernel]);
    words.extend(["--grid", grid, "--block", block]);
    words.extend(args.iter().copied());
    let done = common::kernelc(&words);
    assert!(
        done.status.success(),
        "{kernel} on {ptx_s}: {}",
        common::stderr(&done)
    );
    (0..args.len())
        .filter_map(|k| std::fs::read(out.join(format!("arg{k}.bin"))).ok())
        .collect()
}

#[test]
fn kernels_are_named_and_compute_as_nvccs() {
    let dir = common::scratch("namespaces");
    let ours = dir.join("kernelc.ptx");
    let src = fixture().display().to_string();
    let done = common::kernelc(&[&src, "-arch=sm_90", "-o", &ours.display().to_string()]);
    assert!(done.status.success(), "{}", common::stderr(&done));
    let text = std::fs::read_to_string(&ours).unwrap();
    let expected: BTreeSet<&str> = [
        "_ZN3sim13kineticEnergyEPKNS_8ParticleEiPf",
        "_Z6phasesN3sim5PhaseENS_4FlagEPi",
        "_Z4stepPN3sim8ParticleEi",
        "reverseTile",
        "_ZN3sim4dampEPfi",
        "_Z15globalQualifiedPf",
        "_Z9operatorsP6float4P4int2f",
    ]
    .into_iter()
    .collect();
    let written = entries(&text);
    let (anonymous, named): (BTreeSet<&str>, BTreeSet<&str>) = written
        .iter()
        .map(String::as_str)
        .partition(|n| n.contains("_GLOBAL__N_"));
    assert_eq!(named, expected);
    assert!(
        anonymous.len() == 1 && anonymous.iter().all(|n| in_files_anonymous_namespace(n)),
        "the anonymous namespace's kernel: {anonymous:?}"
    );
    common::assert_ptxas_accepts(&text, ARCH, "namespaces.cu");
    let Some(nvcc) = common::nvcc_or_skip("namespaces.cu against nvcc") else {
        return;
    };
    let theirs = dir.join("nvcc.ptx");
    let nvcc_text = common::nvcc_ptx_to(&nvcc, &fixture(), ARCH, &[], &theirs);
    assert_eq!(
        written,
        entries(&nvcc_text),
        "kernelc's entries against nvcc's"
    );
    for (i, l) in LAUNCHES.iter().enumerate() {
        let a = run(&ours, l, &dir.join(format!("ours{i}")));
        let b = run(&theirs, l, &dir.join(format!("theirs{i}")));
        assert!(!a.is_empty(), "{}: no buffers written", l.0);
        assert_eq!(a, b, "{} {:?}: kernelc's results against nvcc's", l.0, l.3);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_kernels_shows_qualified_names() {
    let src = fixture().display().to_string();
    let done = common::kernelc(&[&src, "--list-kernels"]);
    let out = common::stdout(&done);
    for line in [
        "_ZN3sim13kineticEnergyEPKNS_8ParticleEiPf\tsim::kineticEnergy(const sim::Particle*, int, float*)",
        "_Z6phasesN3sim5PhaseENS_4FlagEPi\tphases(sim::Phase, sim::Flag, int*)",
    ] {
        assert!(out.lines().any(|l| l == line), "missing {line:?} in:\n{out}");
    }
    let anonymous = out
        .lines()
        .find_map(|l| l.strip_suffix("\t(anonymous namespace)::anonKernel(int*)"));
    assert!(
        anonymous.is_some_and(in_files_anonymous_namespace),
        "the anonymous namespace's kernel in:\n{out}"
    );
}

/// Compiles `source`; its stderr, after checking that it failed.
fn rejected(name: &str, source: &str) -> String {
    let dir = common::scratch(&format!("namespaces-{name}"));
    let file = dir.join(format!("{name}.cu"));
    std::fs::write(&file, source).unwrap();
    let done = common::kernelc(&[&file.display().to_string(), "-o", "-"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(done.status.code(), Some(1), "{name} should be rejected");
    common::stderr(&done)
}

#[test]
fn unknown_namespaces_and_names_are_located_errors() {
    let err = rejected(
        "unknown_ns",
        "__global__ void k(int *o) { o[0] = nowhere::x; }\n",
    );
    assert!(
        err.contains("error[E0001]: unknown namespace `nowhere`"),
        "{err}"
    );
    assert!(err.contains("unknown_ns.cu:1:36"), "{err}");
    let err = rejected(
        "unknown_member",
        "namespace sim { __device__ int y; }\n__global__ void k(int *o) { o[0] = sim::x; }\n",
    );
    assert!(
        err.contains("error[E0001]: unknown name `x` in namespace `sim`"),
        "{err}"
    );
    let err = rejected(
        "undeclared_member",
        "namespace sim { __device__ float f(float); }\n__device__ float sim::g(float x) { return x; }\n",
    );
    assert!(
        err.contains("error[E0001]: unknown name `g` in namespace `sim`")
            && err.contains("must be declared in it first"),
        "{err}"
    );
    let err = rejected(
        "unknown_type",
        "namespace sim { struct P { int a; }; }\n__global__ void k(sim::Q *q) {}\n",
    );
    assert!(err.contains("E0001"), "{err}");
}

#[test]
fn ambiguity_lists_both_declarations() {
    let err = rejected(
        "ambiguous",
        "namespace a { __device__ int scale = 2; }\n\
         namespace b { __device__ int scale = 3; }\n\
         using namespace a;\n\
         using namespace b;\n\
         __global__ void k(int *o) { o[0] = scale; }\n",
    );
    assert!(err.contains("error[E0021]: `scale` is ambiguous"), "{err}");
    assert!(
        err.contains("it could be `a::scale`, declared here"),
        "{err}"
    );
    assert!(
        err.contains("it could be `b::scale`, declared here"),
        "{err}"
    );
}

#[test]
fn an_alias_of_an_unknown_namespace_errs_only_where_used() {
    let dir = common::scratch("namespaces-alias");
    let file = dir.join("alias.cu");
    let unused = "namespace cg = cooperative_groups;\nusing namespace std;\n\
                  __global__ void k(int *o) { o[0] = 1; }\n";
    std::fs::write(&file, unused).unwrap();
    let done = common::kernelc(&[&file.display().to_string(), "-o", "-"]);
    assert!(done.status.success(), "{}", common::stderr(&done));
    let _ = std::fs::remove_dir_all(&dir);
    let err = rejected(
        "alias_used",
        "namespace cg = cooperative_groups;\n__global__ void k(int *o) { o[0] = cg::x; }\n",
    );
    assert!(
        err.contains(
            "namespace alias `cg` names `cooperative_groups`, a namespace kernelc does not know"
        ),
        "{err}"
    );
}

/// The lines of `source` that hold `marker`, from 1.
fn marked_lines(source: &str, marker: &str) -> BTreeSet<usize> {
    source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn scoped_enumerations_do_not_convert_implicitly_as_nvcc_says() {
    let file = common::root().join("tests/fixtures/namespaces/scoped_enum_conversions.cu");
    let source = std::fs::read_to_string(&file).unwrap();
    let expected = marked_lines(&source, "// E0022");
    assert_eq!(expected.len(), 8);
    let done = common::kernelc(&[&file.display().to_string(), "-o", "-"]);
    assert_eq!(done.status.code(), Some(1));
    let err = common::stderr(&done);
    let ours: BTreeSet<usize> = err
        .lines()
        .filter_map(|l| {
            let at = l.split("scoped_enum_conversions.cu:").nth(1)?;
            at.split(':').next()?.parse().ok()
        })
        .collect();
    assert_eq!(ours, expected, "{err}");
    assert_eq!(err.matches("error[E0022]").count(), expected.len(), "{err}");
    let Some(nvcc) = common::nvcc_or_skip("scoped enumerations through nvcc") else {
        return;
    };
    let out = std::process::Command::new(nvcc)
        .args(["-ptx", "-arch=sm_90", "-o", "/dev/null"])
        .arg(&file)
        .output()
        .unwrap();
    let theirs: BTreeSet<usize> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| {
            let at = l.split("scoped_enum_conversions.cu(").nth(1)?;
            let (line, what) = at.split_once(')')?;
            what.starts_with(": error").then(|| line.parse().ok())?
        })
        .collect();
    assert_eq!(theirs, expected, "nvcc's errors");
}

/// The declarations between an anonymous namespace's kernel and `main` in
/// the files of [`anonymous_namespaces_are_named_as_nvcc_names_them`]:
/// the first definition with external linkage among them names the
/// namespace, or `main` when there is none (unnamed_namespace.rs).
const FIRST_DEFINITIONS: &[(&str, &str)] = &[
    ("main_only", ""),
    ("declarations", "void f(int); extern int ev;"),
    ("host_function", "int h(int x) { return x; }"),
    ("long_host_function", "void initialize(float *a, int n) {}"),
    (
        "device_function",
        "__device__ float sq(float x) { return x * x; }",
    ),
    ("kernel", "__global__ void k2(int *p) {}"),
    ("extern_c", "extern \"C\" void cfun() {}"),
    ("long_extern_c", "extern \"C\" { void launch_kernel() {} }"),
    (
        "const_member",
        "struct S { void m() const; }; void S::m() const {}",
    ),
    (
        "namespace",
        "namespace ns { int f(const int *x) { return *x; } }",
    ),
    ("initialized", "float scale = 2.0f;"),
    (
        "uninitialized",
        "int counter; __device__ int g; __constant__ float cf[4];",
    ),
    (
        "device_initialized",
        "__device__ float table[4] = {1, 2, 3, 4};",
    ),
    (
        "internal",
        "const int c = 3; constexpr int d = 4; static int e = 5;",
    ),
    (
        "inline_and_templates",
        "inline int f(int x) { return x; } template <class T> int t(T) { return 0; } \
         template int t<int>(int); template <> int t<float>(float) { return 1; }",
    ),
    ("static_member", "struct Q { static int s; }; int Q::s = 5;"),
    ("closure", "auto twice = [](int x) { return 2 * x; };"),
    (
        "references",
        "void take(const float &x, int &&y, float a[]) {}",
    ),
    // Types only host code knows (unnamed_namespace/host_signature.rs).
    (
        "host_library_types",
        "#include <string>\n#include <vector>\n\
         void load(const std::string &path, std::vector<float> &out, std::vector<float> &aux) {}",
    ),
    (
        "cuda_runtime_types",
        "void launch(float *d, int n, cudaStream_t stream, cudaEvent_t done, cudaError_t *e) {}",
    ),
    (
        "host_class",
        "#include <cstdio>\n#include <map>\n\
         namespace app { struct Opts { std::map<int, float> m; }; void run(const Opts &o, FILE *log) {} }",
    ),
    (
        "using_std",
        "#include <vector>\nusing namespace std;\nvoid fill(vector<vector<int>> &grid, size_t n) {}",
    ),
];

/// nvcc names a file's anonymous namespace after the file's canonical path
/// and its first definition with external linkage; kernelc's kernel names
/// must be nvcc's for each of [`FIRST_DEFINITIONS`], for anonymous
/// namespaces nested in one another, for a file reached through a symbolic
/// link, and for a kernel in an included header.
#[test]
fn anonymous_namespaces_are_named_as_nvcc_names_them() {
    let dir = common::scratch("namespaces-unnamed");
    let mut files = Vec::new();
    for (name, between) in FIRST_DEFINITIONS {
        let file = dir.join(format!("{name}.cu"));
        let source = format!(
            "namespace {{ __global__ void anon(float *p) {{ p[0] = 1; }} }}\n{between}\n\
             int main() {{ anon<<<1, 1>>>(nullptr); return 0; }}\n"
        );
        std::fs::write(&file, source).unwrap();
        files.push(file);
    }
    std::fs::write(
        dir.join("kernels.cuh"),
        "namespace { __global__ void inHeader(int *p) { *p = 7; } }\n",
    )
    .unwrap();
    let header_user = dir.join("header-user.v2.cu");
    std::fs::write(
        &header_user,
        "#include \"kernels.cuh\"\nvoid zz() {}\nint main() { inHeader<<<1, 1>>>(nullptr); }\n",
    )
    .unwrap();
    files.push(header_user);
    let nested = dir.join("nested.cu");
    std::fs::write(
        &nested,
        "namespace { __device__ int twice(int x) { return 2 * x; }\n\
         namespace { namespace { __global__ void k(int *p) { *p = twice(*p); } } }\n}\n\
         int main() {}\n",
    )
    .unwrap();
    files.push(nested);
    let linked = dir.join("linked");
    std::os::unix::fs::symlink(&dir, &linked).unwrap();
    files.push(linked.join("kernel.cu"));
    let ours: Vec<BTreeSet<String>> = files.iter().map(|f| kernelc_entries(f)).collect();
    for (file, names) in files.iter().zip(&ours) {
        assert!(
            names.iter().any(|n| n.contains("_GLOBAL__N__")),
            "{}: {names:?}",
            file.display()
        );
    }
    let Some(nvcc) = common::nvcc_or_skip("anonymous namespaces' names against nvcc") else {
        return;
    };
    let theirs: Vec<BTreeSet<String>> = std::thread::scope(|s| {
        let runs: Vec<_> = files
            .iter()
            .enumerate()
            .map(|(k, f)| {
                let out = dir.join(format!("nvcc{k}.ptx"));
                let nvcc = &nvcc;
                s.spawn(move || entries(&common::nvcc_ptx_to(nvcc, f, ARCH, &[], &out)))
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for ((file, ours), theirs) in files.iter().zip(&ours).zip(&theirs) {
        assert_eq!(
            ours,
            theirs,
            "{}: kernelc's names against nvcc's",
            file.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `.entry` names kernelc writes for `file`.
fn kernelc_entries(file: &Path) -> BTreeSet<String> {
    let done = common::kernelc(&[&file.display().to_string(), "-arch=sm_90", "-o", "-"]);
    assert!(
        done.status.success(),
        "{}: {}",
        file.display(),
        common::stderr(&done)
    );
    entries(&common::stdout(&done))
}

/// Names are found through nested anonymous namespaces, each an implicit
/// using-directive in its parent: a kernel 300 levels down calls a
/// function of the outermost one. Lookup walks each directive once (it
/// took seconds at this depth, and minutes at 400 levels).
#[test]
fn names_are_found_through_nested_anonymous_namespaces() {
    let dir = common::scratch("namespaces-nested-anonymous");
    let file = dir.join("nested.cu");
    let depth = 300;
    let source = format!(
        "namespace {{ __device__ int twice(int x) {{ return 2 * x; }}\n{}\
         __global__ void k(int *p) {{ *p = twice(*p); }}{}\n}}\nint main() {{}}\n",
        "namespace { ".repeat(depth),
        " }".repeat(depth)
    );
    std::fs::write(&file, source).unwrap();
    let names = kernelc_entries(&file);
    assert_eq!(names.len(), 1, "{names:?}");
    let name = names.iter().next().unwrap();
    // The outermost is named after the file, the ones inside it `_GLOBAL__N_`.
    assert!(
        name.ends_with("1kEPi")
            && name.matches("_GLOBAL__N__").count() == 1
            && name.matches("11_GLOBAL__N_").count() == depth,
        "{name}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
