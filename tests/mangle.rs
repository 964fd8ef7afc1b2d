//! Names and linkage as nvcc gives them: a generated file of a few hundred
//! kernels and device functions (every builtin type, the `<stdint.h>`
//! typedefs, user typedefs, structs, enumerations, CUDA's vector types,
//! pointers of several levels with `const`/`volatile`/`__restrict__` at
//! each, references, array parameters, types repeated to exercise the
//! substitutions) compiled by kernelc and by `nvcc -ptx -arch=sm_90`, whose
//! `.entry`, `.func` and module-variable declarations must name the same
//! things with the same linkage; then the linkage of a small program with
//! and without `-rdc=true`.

mod common;

use common::{kernelc, scratch, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Command;
use stdx::rng::SplitMix64;

/// Base types a parameter may have, as written (each is declared by the
/// file's prologue or is a builtin or CUDA type).
const BASES: &[&str] = &[
    "char",
    "signed char",
    "unsigned char",
    "short",
    "unsigned short",
    "int",
    "unsigned",
    "unsigned int",
    "long",
    "unsigned long",
    "long long",
    "unsigned long long",
    "long int",
    "short int",
    "float",
    "double",
    "bool",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "ll",
    "byte",
    "Pair",
    "Node",
    "Anon",
    "Color",
    "Mode",
    "float4",
    "int2",
    "uchar4",
    "double2",
    "longlong2",
    "uint3",
    "short2",
];

/// The declarations the generated signatures use.
const PROLOGUE: &str = "\
#include <stdint.h>
#include <stddef.h>
typedef long long ll;
typedef unsigned char byte;
struct Pair { int a; float b; };
struct Node { double v; int n; };
typedef struct { int x; } Anon;
enum Color { Red, Green, Blue };
typedef enum { Fast, Slow } Mode;
";

/// One parameter: a base type, then pointer levels with qualifiers, and
/// the parameter's own qualifiers or an array or reference declarator.
fn param(rng: &mut SplitMix64, index: usize, device: bool) -> String {
    let pick = |rng: &mut SplitMix64, n: usize| (rng.next_u64() % n as u64) as usize;
    let base = BASES[pick(rng, BASES.len())];
    let mut ty = String::new();
    match pick(rng, 4) {
        0 => ty.push_str("const "),
        1 if pick(rng, 2) == 0 => ty.push_str("volatile "),
        1 => ty.push_str("const volatile "),
        _ => {}
    }
    ty.push_str(base);
    let levels = [0, 1, 1, 1, 2, 2, 3][pick(rng, 7)];
    for level in 0..levels {
        ty.push_str(" *");
        let outermost = level + 1 == levels;
        match pick(rng, 6) {
            0 => ty.push_str("const "),
            1 => ty.push_str("volatile "),
            2 if outermost => ty.push_str("__restrict__ "),
            3 => ty.push_str("const __restrict__ "),
            _ => {}
        }
    }
    let name = format!("p{index}");
    match pick(rng, 10) {
        0 => format!("{ty} {name}[]"),
        1 => format!("{ty} {name}[][4]"),
        2 => format!("{ty} {name}[3][5]"),
        3 if device => format!("{ty} &{name}"),
        _ => format!("{ty} {name}"),
    }
}

/// The generated file: `kernels` kernels and `devices` device functions
/// (references only on these: a kernel's parameters cannot be references),
/// a few `extern "C"` ones, and module variables.
fn generated_source(seed: u64, kernels: usize, devices: usize) -> String {
    let mut rng = SplitMix64(seed);
    let mut src = PROLOGUE.to_string();
    src.push_str("__device__ int counter;\n__constant__ float table[8];\n");
    src.push_str("__device__ float4 origin;\n__shared__ int scratch_pad[32];\n");
    for i in 0..kernels + devices {
        let device = i >= kernels;
        let n = (rng.next_u64() % 7) as usize;
        let params: Vec<String> = (0..n).map(|k| param(&mut rng, k, device)).collect();
        // Names of one to many digits of length, to exercise `<source-name>`.
        let name = match i % 3 {
            0 => format!("k{i}"),
            1 => format!("kernel_number_{i}"),
            _ => format!("f{i}_with_a_rather_long_name_for_the_length_prefix"),
        };
        let (space, ret) = if device {
            (
                "__device__ __noinline__",
                if i % 2 == 0 { "int" } else { "void" },
            )
        } else {
            ("__global__", "void")
        };
        let linkage = if i % 41 == 7 { "extern \"C\" " } else { "" };
        let body = if ret == "int" { "{ return 0; }" } else { "{}" };
        src.push_str(&format!(
            "{linkage}{space} {ret} {name}({}) {body}\n",
            params.join(", ")
        ));
    }
    src
}

/// One declaration of a PTX file that names something at module scope.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Declared {
    /// `.entry`, `.func`, `.global`, `.const` or `.shared`.
    kind: String,
    /// `.visible` or `.extern`, or empty.
    linkage: String,
    name: String,
}

/// The module-scope declarations of a PTX file (definitions, not the
/// forward declarations of functions, which end in `;`).
fn declarations(ptx: &str) -> Vec<Declared> {
    let mut out = Vec::new();
    for line in ptx.lines() {
        if line.starts_with(char::is_whitespace) || line.starts_with("//") {
            continue;
        }
        let mut words = line.split_whitespace().peekable();
        let linkage = match words.peek() {
            Some(&w) if w == ".visible" || w == ".extern" || w == ".weak" => {
                words.next();
                w.to_string()
            }
            _ => String::new(),
        };
        let Some(kind) = words.next() else { continue };
        let rest: Vec<&str> = words.collect();
        let rest = rest.join(" ");
        let name = match kind {
            ".entry" => rest.split('(').next().unwrap_or("").trim().to_string(),
            ".func" if line.trim_end().ends_with(';') => continue,
            ".func" => {
                // Skip the return parameter, `(.param .b32 func_retval0)`.
                let after_ret = match rest.strip_prefix('(') {
                    Some(r) => r.split_once(')').map_or("", |(_, a)| a),
                    None => &rest,
                };
                after_ret.split('(').next().unwrap_or("").trim().to_string()
            }
            ".global" | ".const" | ".shared" => {
                let decl = rest.split(['=', ';', '[']).next().unwrap_or("");
                decl.split_whitespace().last().unwrap_or("").to_string()
            }
            _ => continue,
        };
        out.push(Declared {
            kind: kind.to_string(),
            linkage,
            name,
        });
    }
    out.sort();
    out
}

fn nvcc_ptx(nvcc: &Path, src: &Path, extra: &[&str]) -> String {
    let out_file = src.with_extension(format!("nvcc{}.ptx", extra.len()));
    let out = Command::new(nvcc)
        .args(["-ptx", "-arch=sm_90"])
        .args(extra)
        .arg(src)
        .arg("-o")
        .arg(&out_file)
        .output()
        .expect("cannot run nvcc");
    assert!(
        out.status.success(),
        "nvcc rejected {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(out_file).unwrap()
}

fn kernelc_ptx(src: &Path, extra: &[&str]) -> String {
    let mut args = vec![src.to_str().unwrap(), "-arch=sm_90"];
    args.extend_from_slice(extra);
    let out = kernelc(&args);
    assert!(
        out.status.success(),
        "kernelc rejected {}:\n{}",
        src.display(),
        stderr(&out)
    );
    stdout(&out)
}

/// Where two lists of declarations differ, one line per difference.
fn differences(ours: &[Declared], theirs: &[Declared]) -> String {
    let mut text = String::new();
    for d in ours.iter().filter(|d| !theirs.contains(d)) {
        text.push_str(&format!("  kernelc only: {d:?}\n"));
    }
    for d in theirs.iter().filter(|d| !ours.contains(d)) {
        text.push_str(&format!("  nvcc only:    {d:?}\n"));
    }
    text
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn generated_signatures_have_nvccs_names() {
    let Some(nvcc) = common::nvcc_or_skip("the generated signatures through nvcc") else {
        return;
    };
    let dir = scratch("mangle-generated");
    let src = write(&dir, "signatures.cu", &generated_source(25, 240, 120));
    // `-rdc=true` keeps every device function (nothing calls them), so
    // each of their names is compared too.
    let ours = declarations(&kernelc_ptx(&src, &["-rdc=true"]));
    let theirs = declarations(&nvcc_ptx(&nvcc, &src, &["-rdc=true"]));
    let entries = ours.iter().filter(|d| d.kind == ".entry").count();
    let funcs = ours.iter().filter(|d| d.kind == ".func").count();
    assert_eq!((entries, funcs), (240, 120), "{ours:#?}");
    assert!(
        ours == theirs,
        "names or linkage differ from nvcc's ({}):\n{}",
        src.display(),
        differences(&ours, &theirs)
    );
}

/// A program whose device functions are used, unused, `static` and
/// `extern "C"`, with device variables of each space. (A `static`
/// variable is left out: nvcc names it `__nv_static_<hash of the file>_`
/// under `-rdc=true`, which kernelc does not reproduce.)
const LINKAGE: &str = "\
__device__ int dv;
__device__ int dvi = 5;
__constant__ float cv[4];
__shared__ float sv[32];
extern \"C\" __device__ int cdv = 3;
__device__ __noinline__ float helper(float x) { return x * 2.0f; }
static __device__ __noinline__ float twice(float x) { return x * 2.0f; }
__device__ __noinline__ float unused(float x) { return x * 3.0f; }
extern \"C\" __device__ __noinline__ float chelper(float x) { return x * 4.0f; }
extern \"C\" __device__ __noinline__ float cunused(float x) { return x * 4.0f; }
__global__ void scale(float *c, int n) {
    sv[threadIdx.x] = n;
    __syncthreads();
    c[threadIdx.x] = helper(c[n]) + chelper(c[n + 1]) + dv + dvi + cv[n] + sv[n] + cdv + twice(c[n + 2]);
}
extern \"C\" __global__ void plain(float *c) { c[0] = helper(c[1]); }
";

#[test]
fn linkage_is_nvccs_with_and_without_rdc() {
    let Some(nvcc) = common::nvcc_or_skip("linkage against nvcc") else {
        return;
    };
    let dir = scratch("mangle-linkage");
    let src = write(&dir, "linkage.cu", LINKAGE);
    for flags in [&[][..], &["-rdc=true"][..]] {
        let ours = declarations(&kernelc_ptx(&src, flags));
        let mut theirs = declarations(&nvcc_ptx(&nvcc, &src, flags));
        if flags.is_empty() {
            // Without -rdc nvcc moves a `__shared__` variable that one
            // kernel uses into that kernel; it is the same memory.
            theirs.push(Declared {
                kind: ".shared".into(),
                linkage: String::new(),
                name: "sv".into(),
            });
            theirs.sort();
        }
        assert!(
            ours == theirs,
            "{flags:?}: names or linkage differ from nvcc's:\n{}",
            differences(&ours, &theirs)
        );
    }
    // nvcc's spellings of the option all mean the same.
    let rdc = kernelc_ptx(&src, &["-rdc=true"]);
    for spelling in [
        &["-rdc", "true"][..],
        &["--relocatable-device-code=true"][..],
        &["--relocatable-device-code", "true"][..],
    ] {
        assert_eq!(kernelc_ptx(&src, spelling), rdc, "{spelling:?}");
    }
    assert_eq!(
        kernelc_ptx(&src, &["-rdc=false"]),
        kernelc_ptx(&src, &[]),
        "-rdc=false is the default"
    );
}

/// Functions that are inline in C++'s sense, each called and kept out of
/// line (`__noinline__`): declared `inline`, defined in their class (a
/// `static` member too, which has its class's linkage), a template's
/// instance, a member of a class template's instance; a kernel template's
/// instance; a `__shared__` variable of an inline function; and beside
/// them functions that are not inline: defined outside their class, in an
/// anonymous namespace, `static`. Under `-rdc=true` nvcc makes the inline
/// ones weak (every module that includes their header defines them, and
/// the linker keeps one).
const INLINE_LINKAGE: &str = "\
inline __device__ __noinline__ float il(float x) { __shared__ float s; s = x; __syncthreads(); return s + 1; }
struct S {
    __device__ __noinline__ float in_class(float x) { return x * 3; }
    static __device__ __noinline__ float static_member(float x) { return x - 1; }
    __device__ __noinline__ float out_of_class(float x);
};
__device__ __noinline__ float S::out_of_class(float x) { return x * 5; }
template <class T> __device__ __noinline__ T twice(T x) { return x + x; }
template <class T> struct Box {
    T v;
    __device__ __noinline__ T get() const { return v; }
    // Never used, so never instantiated: no weak function in nvcc's PTX.
    __device__ __noinline__ T unused() const { return v * 2; }
};
namespace { __device__ __noinline__ float hidden(float x) { return x / 2; } }
static __device__ __noinline__ float file_static(float x) { return x * x; }
template <class T> __global__ void fill(T *p) { p[threadIdx.x] = T(1); }
template __global__ void fill<float>(float *);
__global__ void k(float *p) {
    S s;
    Box<float> b{p[7]};
    p[0] = il(p[1]) + s.in_class(p[2]) + S::static_member(p[3]) + s.out_of_class(p[4])
        + twice(p[5]) + b.get() + hidden(p[6]) + file_static(p[8]);
}
";

/// C++17's inline variables at namespace scope, of each space and in a
/// namespace, beside an `inline constexpr` constant.
const INLINE_VARIABLES: &str = "\
inline __device__ int counter = 3;
inline __constant__ float scale = 2.0f;
inline constexpr int kStep = 5;
namespace cfg { inline __device__ float bias[2] = {1, 2}; }
__global__ void k(float *o) { counter += kStep; o[0] = counter * scale + cfg::bias[1]; }
";

/// Under `-rdc=true` an inline variable is one object that every module
/// defining it shares: weak, as nvcc makes it (without `-rdc` nvcc
/// refuses it, as kernelc does: `frontend/tests/cxx.rs`).
#[test]
fn inline_variables_are_weak_under_rdc_as_nvccs() {
    let dir = scratch("mangle-inline-variables");
    let src = write(&dir, "inline_variables.cu", INLINE_VARIABLES);
    let ptx = kernelc_ptx(&src, &["-rdc=true"]);
    common::assert_ptxas_accepts(&ptx, "sm_90", "inline variables under -rdc=true");
    let ours = declarations(&ptx);
    for name in ["counter", "scale", "_ZN3cfg4biasE"] {
        let weak = ours.iter().any(|d| d.linkage == ".weak" && d.name == name);
        assert!(weak, "{name} is not weak: {ours:#?}");
    }
    let Some(nvcc) = common::nvcc_or_skip("inline variables against nvcc") else {
        return;
    };
    let theirs = declarations(&nvcc_ptx(&nvcc, &src, &["-rdc=true"]));
    assert!(
        ours == theirs,
        "names or linkage differ from nvcc's:\n{}",
        differences(&ours, &theirs)
    );
}

#[test]
fn inline_functions_are_weak_under_rdc_as_nvccs() {
    let dir = scratch("mangle-inline-linkage");
    let src = write(&dir, "inline_linkage.cu", INLINE_LINKAGE);
    let ptx = kernelc_ptx(&src, &["-rdc=true"]);
    common::assert_ptxas_accepts(&ptx, "sm_90", "inline functions under -rdc=true");
    // Clones the address-space specialization made (`__local`: `this` in
    // local memory) are kernelc's own, internal functions.
    let mut ours: Vec<Declared> = declarations(&ptx)
        .into_iter()
        .filter(|d| !d.name.ends_with("__local"))
        .collect();
    let weak = |name: &str| ours.iter().any(|d| d.linkage == ".weak" && d.name == name);
    for name in [
        "_Z2ilf",
        "_ZN1S8in_classEf",
        "_ZN1S13static_memberEf",
        "_Z5twiceIfET_S0_",
    ] {
        assert!(weak(name), "{name} is not weak: {ours:#?}");
    }
    assert!(
        weak("_ZZ2ilfE1s"),
        "il's __shared__ s is not weak: {ours:#?}"
    );
    let Some(nvcc) = common::nvcc_or_skip("inline linkage against nvcc") else {
        return;
    };
    let mut theirs = declarations(&nvcc_ptx(&nvcc, &src, &["-rdc=true"]));
    // nvcc declares a function before the kernel that calls it, on lines
    // of their own (no `;` on the first): one entry a name.
    for list in [&mut ours, &mut theirs] {
        list.sort();
        list.dedup();
    }
    assert!(
        ours == theirs,
        "names or linkage differ from nvcc's:\n{}",
        differences(&ours, &theirs)
    );
    // Without -rdc nothing but the kernels is visible, and nothing weak.
    let whole = declarations(&kernelc_ptx(&src, &[]));
    assert!(
        whole
            .iter()
            .all(|d| d.linkage.is_empty() || d.kind == ".entry" && d.linkage == ".visible"),
        "{whole:#?}"
    );
}

/// `__shared__` variables declared in functions: in a kernel, in
/// `extern "C"` one, repeated in sibling blocks, in a member function, in a
/// function template in a namespace, and in one in the anonymous namespace,
/// whose name nvcc gives a file-unique namespace.
const LOCAL_SHARED: &str = "\
__global__ void k(float *p) {
    __shared__ float tile[32];
    tile[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = tile[31 - threadIdx.x];
}
extern \"C\" __global__ void kc(float *p) {
    __shared__ float tile[32];
    tile[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = tile[31 - threadIdx.x];
}
__global__ void blocks(float *p) {
    { __shared__ float t[4]; t[threadIdx.x & 3] = 1; __syncthreads(); p[0] += t[1]; }
    { __shared__ float t[4]; t[threadIdx.x & 3] = 2; __syncthreads(); p[1] += t[2]; }
    { __shared__ int t[4]; t[threadIdx.x & 3] = 3; __syncthreads(); p[2] += t[3]; }
}
struct Stage {
    __device__ float load(float x) { __shared__ float s[4]; s[threadIdx.x & 3] = x; __syncthreads(); return s[0]; }
};
namespace ns {
template <int N> __device__ float first(float x) { __shared__ float buf[N]; buf[threadIdx.x % N] = x; __syncthreads(); return buf[0]; }
}
namespace {
__device__ float hidden(float x) { __shared__ float b[4]; b[threadIdx.x & 3] = x; __syncthreads(); return b[0]; }
}
__global__ void calls(float *p) { Stage s; p[0] = s.load(p[1]) + ns::first<8>(p[2]) + ns::first<2>(p[3]) + hidden(p[4]); }
";

/// The names of every `.shared` declaration of a PTX file, at module
/// scope or in a function (where nvcc puts a variable only one kernel
/// uses), sorted.
fn shared_names(ptx: &str) -> Vec<String> {
    let mut names: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix(".shared "))
        .filter_map(|decl| {
            decl.split(['=', ';', '['])
                .next()?
                .split_whitespace()
                .last()
        })
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

#[test]
fn local_shared_variables_have_nvccs_names() {
    let dir = scratch("mangle-local-shared");
    let src = write(&dir, "local_shared.cu", LOCAL_SHARED);
    let ours = shared_names(&kernelc_ptx(&src, &[]));
    // Without nvcc, the ABI's forms: the encoding of the function, an
    // `extern "C"` name as its source name, the repeats' discriminators.
    for name in [
        "_ZZ1kPfE4tile",
        "_ZZ2kcE4tile",
        "_ZZ6blocksPfE1t_0",
        "_ZZ6blocksPfE1t_1",
    ] {
        assert!(ours.iter().any(|n| n == name), "{name} not in {ours:?}");
    }
    let Some(nvcc) = common::nvcc_or_skip("local __shared__ names against nvcc") else {
        return;
    };
    let theirs = shared_names(&nvcc_ptx(&nvcc, &src, &[]));
    assert_eq!(ours, theirs);
}

/// Names with internal linkage, each kept out of line (`__noinline__`):
/// `static` functions and function templates, functions and variables in
/// anonymous namespaces (also inside a named one, with a parameter of a
/// type of that namespace: a substitution), a `static` variable in
/// a namespace, a prototype that alone says `static`, and `static`
/// functions as a kernel template's arguments (llama.cpp's dequantizers),
/// which bring their names into the kernels' names. Beside them what nvcc
/// names as usual: `static` kernels and kernel templates, members of a
/// class in an anonymous namespace, a function whose parameter is such a
/// class, a global-namespace `static` variable. (That function is
/// defined after the kernel: nvcc does not take it for the first
/// definition with external linkage, whose name tags the file's unique
/// namespaces, and kernelc would.)
const INTERNAL_NAMES: &str = "\
typedef float (*dequantize_t)(const unsigned char *, int);
static __device__ __noinline__ float dq4(const unsigned char *q, int i) { return (q[i / 2] >> (4 * (i & 1))) & 15; }
static __device__ __noinline__ float dq8(const unsigned char *q, int i) { return q[i]; }
template <int QK, dequantize_t DQ> __global__ void dequantize(const unsigned char *q, float *y) { y[threadIdx.x] = DQ(q, threadIdx.x) * QK; }
static __device__ int hits;
namespace { __device__ int anon_count; __constant__ float anon_tab[4]; struct A { int x; __device__ __noinline__ int get() const { return x; } static __device__ __noinline__ int twice(int v) { return 2 * v; } }; }
__device__ int by_value(A a);
namespace ns { enum class Stat { Sum, Max }; static __device__ int ns_static; namespace { __device__ __noinline__ int nested(int x, Stat s) { return s == Stat::Sum ? x + ns_static : x; } } }
static __device__ __noinline__ int two(A *a, A *b) { return a->x + b->x; }
template <class T> static __device__ __noinline__ T scaled(T x) { return x * 3 + anon_count + anon_tab[1]; }
static __device__ float proto(float x);
__device__ __noinline__ float proto(float x) { __shared__ float t[4]; t[threadIdx.x & 3] = x; __syncthreads(); return t[0]; }
static __global__ void hidden_kernel(int *p) { p[0] = hits; }
template <class T> static __global__ void hidden_template(T *p) { p[0] = T(1); }
__global__ void k(int *p, float *f) {
    A a{p[0]};
    p[1] = by_value(a) + a.get() + A::twice(p[2]) + ns::nested(p[3], ns::Stat::Sum) + two(&a, &a) + scaled(p[4]);
    f[0] = proto(f[1]) + scaled(f[2]);
    hits++;
}
__device__ __noinline__ int by_value(A a) { return a.x; }
void launch(const unsigned char *q, float *y, int *p) {
    dequantize<32, dq4><<<1, 32>>>(q, y);
    dequantize<32, dq8><<<1, 32>>>(q, y);
    hidden_kernel<<<1, 1>>>(p);
    hidden_template<<<1, 1>>>(y);
}
";

#[test]
fn internal_names_are_nvccs() {
    let dir = scratch("mangle-internal");
    let src = write(&dir, "internal_names.cu", INTERNAL_NAMES);
    let ptx = kernelc_ptx(&src, &[]);
    common::assert_ptxas_accepts(&ptx, "sm_90", "names with internal linkage");
    let ours = declarations(&ptx);
    // Without nvcc, the shape of its names: the `_INTERNAL_` namespace has
    // the anonymous namespace's file-unique part.
    let anonymous = ours.iter().find_map(|d| {
        let at = d.name.find("_GLOBAL__N__")?;
        let unique = &d.name[at + "_GLOBAL__N__".len()..];
        Some(unique[..unique.find("_cu_")? + 4].to_string())
    });
    let unique = anonymous.unwrap_or_else(|| panic!("no anonymous namespace name in {ours:#?}"));
    let internal = format!("_INTERNAL_{unique}");
    for (kind, starts) in [
        (".func", "_ZN"),
        (".global", "_ZN"),
        (".const", "_ZN"),
        (".entry", "_Z10dequantizeILi32EXadL_ZN"),
    ] {
        assert!(
            ours.iter().any(|d| d.kind == kind
                && d.name.starts_with(starts)
                && d.name.contains(&internal)),
            "no {kind} named in {internal}: {ours:#?}"
        );
    }
    let Some(nvcc) = common::nvcc_or_skip("names with internal linkage against nvcc") else {
        return;
    };
    let nvcc_ptx = nvcc_ptx(&nvcc, &src, &[]);
    let theirs = declarations(&nvcc_ptx);
    assert_eq!(shared_names(&ptx), shared_names(&nvcc_ptx));
    // kernelc keeps a static kernel `.visible`; nvcc leaves it unmarked
    // (its name is the same: the runtime registers it by that name).
    let entries = |list: &[Declared]| -> Vec<String> {
        let mut names: Vec<String> = list
            .iter()
            .filter(|d| d.kind == ".entry")
            .map(|d| d.name.clone())
            .collect();
        names.sort();
        names
    };
    assert_eq!(entries(&ours), entries(&theirs));
    // nvcc moves a `__shared__` variable one kernel uses into it (compared
    // above, wherever it is declared), and declares a function before the
    // kernel that calls it on lines of their own: one entry a name.
    let others = |list: &[Declared]| -> Vec<Declared> {
        let mut kept: Vec<Declared> = list
            .iter()
            .filter(|d| d.kind != ".entry" && d.kind != ".shared")
            .cloned()
            .collect();
        kept.dedup();
        kept
    };
    assert!(
        others(&ours) == others(&theirs),
        "names differ from nvcc's:\n{}",
        differences(&others(&ours), &others(&theirs))
    );
}

#[test]
fn rdc_defines_cudacc_rdc() {
    let dir = scratch("mangle-rdc-macro");
    let src = write(
        &dir,
        "rdc.cu",
        "#ifdef __CUDACC_RDC__\n__global__ void rdc_on() {}\n#else\n__global__ void rdc_off() {}\n#endif\n",
    );
    assert!(kernelc_ptx(&src, &["-rdc=true"]).contains(".entry _Z6rdc_onv("));
    assert!(kernelc_ptx(&src, &[]).contains(".entry _Z7rdc_offv("));
    let Some(nvcc) = common::nvcc_or_skip("__CUDACC_RDC__ against nvcc") else {
        return;
    };
    assert!(nvcc_ptx(&nvcc, &src, &["-rdc=true"]).contains(".entry _Z6rdc_onv("));
    assert!(nvcc_ptx(&nvcc, &src, &[]).contains(".entry _Z7rdc_offv("));
}

#[test]
fn generated_ptx_assembles() {
    let dir = scratch("mangle-assemble");
    let src = write(&dir, "signatures.cu", &generated_source(7, 60, 30));
    for flags in [&[][..], &["-rdc=true"][..]] {
        let ptx = kernelc_ptx(&src, flags);
        common::assert_ptxas_accepts(&ptx, "sm_90", &format!("generated signatures {flags:?}"));
    }
}

/// A mangled kernel with a device function, for the tools a person uses.
const VECTOR_ADD: &str = "\
__device__ __noinline__ float twice(float x) { return 2.0f * x; }
__global__ void vectorAdd(const float *A, const float *B, float *C, int n) {
    int i = threadIdx.x;
    if (i < n) C[i] = A[i] + twice(B[i]);
}
extern \"C\" __global__ void vadd(const float *a, float *c) { c[threadIdx.x] += a[threadIdx.x]; }
";

#[test]
fn list_kernels_prints_both_names() {
    let dir = scratch("mangle-list");
    let src = write(&dir, "vector_add.cu", VECTOR_ADD);
    let out = kernelc(&["--list-kernels", src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "_Z9vectorAddPKfS0_Pfi\tvectorAdd(const float*, const float*, float*, int)\nvadd\tvadd\n"
    );
    // A file that does not compile gives its diagnostics, exit 1.
    let bad = write(&dir, "bad.cu", "__global__ void k( {}\n");
    let out = kernelc(&["--list-kernels", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("bad.cu:1:"), "{}", stderr(&out));
}

#[test]
fn run_finds_a_kernel_by_its_plain_or_mangled_name() {
    let dir = scratch("mangle-run");
    let src = write(&dir, "vector_add.cu", VECTOR_ADD);
    let src = src.to_str().unwrap();
    let args = ["f32[]:iota:4", "f32[]:iota:4", "f32[]:zeros:4", "i32:4"];
    for engine in ["interp", "emu"] {
        for name in ["vectorAdd", "_Z9vectorAddPKfS0_Pfi"] {
            let mut cmd = vec!["run", src, "--kernel", name, "--grid", "1", "--block", "4"];
            cmd.extend_from_slice(&["--engine", engine]);
            cmd.extend_from_slice(&args);
            let out = kernelc(&cmd);
            assert!(out.status.success(), "{engine} {name}: {}", stderr(&out));
            // C[i] = i + 2 i.
            let text = stdout(&out);
            assert!(
                text.contains("arg2 f32[4]: first 0, 3, 6, ... sum 18"),
                "{engine} {name}: {text}"
            );
        }
    }
}

/// nvcc's PTX of two overloads of one kernel, `scale(float*)` and
/// `scale(double*)`, written out so the test needs no nvcc.
const OVERLOADS: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry _Z5scalePf(
\t.param .u64 _Z5scalePf_param_0
)
{
\tret;
}

.visible .entry _Z5scalePd(
\t.param .u64 _Z5scalePd_param_0
)
{
\tret;
}
";

#[test]
fn an_ambiguous_plain_name_is_a_located_error() {
    let dir = scratch("mangle-ambiguous");
    let ptx = write(&dir, "overloads.ptx", OVERLOADS);
    let ptx = ptx.to_str().unwrap();
    let run = |kernel: &str| {
        kernelc(&[
            "run",
            ptx,
            "--engine",
            "emu",
            "--kernel",
            kernel,
            "--grid",
            "1",
            "--block",
            "1",
            "f32[]:zeros:1",
        ])
    };
    let out = run("scale");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("error: `--kernel scale` is ambiguous: 2 kernels have that name"),
        "{err}"
    );
    assert!(
        err.contains("overloads.ptx:5:17: `_Z5scalePf` (scale(float*))"),
        "{err}"
    );
    assert!(
        err.contains("overloads.ptx:12:17: `_Z5scalePd` (scale(double*))"),
        "{err}"
    );
    let out = run("_Z5scalePf");
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn stats_and_diagnostics_show_readable_names() {
    let dir = scratch("mangle-readable");
    let src = write(&dir, "vector_add.cu", VECTOR_ADD);
    let src = src.to_str().unwrap();
    if common::ptxas_or_skip("--stats with readable names").is_some() {
        let out = kernelc(&[src, "--stats", "-o", dir.join("v.ptx").to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.lines()
                .any(|l| l.starts_with("vectorAdd(const float*, const float*, float*, int) ")),
            "{err}"
        );
    }
    // A pass's diagnostic names the function readably.
    let local = write(
        &dir,
        "local_atomic.cu",
        "__device__ __noinline__ void bump(int *p) { atomicAdd(p, 1); }\n\
         __global__ void k(int *o) { int x = 0; bump(&x); o[0] = x; }\n",
    );
    let out = kernelc(&[local.to_str().unwrap()]);
    let err = stderr(&out);
    assert!(err.contains("in function `bump(int*)`"), "{err}");
    assert!(!err.contains("_Z4bumpPi"), "{err}");
}
