//! Lambdas (issue 26): in device code, as closure objects whose call
//! operators are member functions (`tests/fixtures/lambdas/device.cu`),
//! and written in host code as nvcc's extended lambdas, passed to kernel
//! templates (`extended.cu`, `--extended-lambda`). kernelc's PTX and
//! nvcc's have the same `.entry` names and parameters, ptxas accepts
//! both, and every kernel computes the same bytes on the emulator from
//! both PTX files, and in the interpreter from the source; what nvcc
//! refuses (and what kernelc cannot do yet) are located errors.

mod common;

use common::{kernelc, launch_buffers, scratch, stderr};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    common::root().join("tests/fixtures/lambdas").join(name)
}

/// The lines of `ptx` that declare its kernels and their parameters,
/// sorted: the names and the closure objects' sizes and alignments.
fn signatures(ptx: &str) -> Vec<String> {
    let mut lines: Vec<String> = ptx
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with(".visible .entry") || l.starts_with(".param"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .map(|l| l.trim_end_matches(',').to_string())
        .collect();
    lines.sort();
    lines
}

/// kernelc's PTX of `src` at sm_90 without contraction, with `flags`,
/// written to `out` and checked by ptxas.
fn kernelc_ptx(src: &Path, flags: &[&str], out: &Path) -> String {
    let mut argv = vec![src.to_str().unwrap(), "-arch=sm_90", "-fmad=false"];
    argv.extend_from_slice(flags);
    argv.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let o = kernelc(&argv);
    assert!(o.status.success(), "{}: {}", src.display(), stderr(&o));
    let ptx = std::fs::read_to_string(out).unwrap();
    common::assert_ptxas_accepts(&ptx, "sm_90", &src.display().to_string());
    ptx
}

/// nvcc's PTX of `src` at sm_90 without contraction, with `flags`, written
/// to `out` and checked by ptxas; `None` (a loud skip) without nvcc.
fn nvcc_ptx(src: &Path, flags: &[&str], out: &Path) -> Option<String> {
    let nvcc = common::nvcc_or_skip(&format!("{} through nvcc", src.display()))?;
    let mut all = vec!["-fmad=false".to_string()];
    all.extend(flags.iter().map(|f| f.to_string()));
    let ptx = common::nvcc_ptx_to(&nvcc, src, "sm_90", &all, out);
    common::assert_ptxas_accepts(&ptx, "sm_90", &format!("nvcc's PTX of {}", src.display()));
    Some(ptx)
}

/// A launch: the kernel, the grid and block, and the arguments.
type Launch<'a> = (&'a str, &'a str, &'a str, &'a [&'a str]);

/// Runs each launch from kernelc's PTX and nvcc's on the emulator and, with
/// `source` (and `flags`), in the interpreter: the buffers must be the
/// same bytes.
fn compare(
    dir: &Path,
    ours: &Path,
    theirs: &Path,
    source: (&Path, &[&str]),
    launches: &[Launch<'_>],
) {
    for (i, &(kernel, grid, block, args)) in launches.iter().enumerate() {
        let shape = ["--grid", grid, "--block", block, "--fmad=false"];
        let at = |what: &str| dir.join(format!("{what}{i}"));
        let expected = launch_buffers(theirs, "emu", (kernel, args), &at("nv"), &shape);
        let mine = launch_buffers(ours, "emu", (kernel, args), &at("emu"), &shape);
        assert_eq!(
            mine, expected,
            "{kernel}: kernelc's PTX and nvcc's disagree"
        );
        let mut options = shape.to_vec();
        options.extend_from_slice(source.1);
        let interp = launch_buffers(source.0, "interp", (kernel, args), &at("interp"), &options);
        assert_eq!(
            interp, expected,
            "{kernel}: the interpreter and nvcc's PTX disagree"
        );
    }
}

#[test]
fn device_lambdas_compute_what_nvcc_computes() {
    let dir = scratch("lambdas-device");
    let src = fixture("device.cu");
    let ours = dir.join("kernelc.ptx");
    let text = kernelc_ptx(&src, &[], &ours);
    let theirs = dir.join("nvcc.ptx");
    let Some(nvcc_text) = nvcc_ptx(&src, &[], &theirs) else {
        return;
    };
    assert_eq!(signatures(&text), signatures(&nvcc_text));
    let launches: [Launch<'_>; 6] = [
        (
            "_Z8capturesPKfPfi",
            "2",
            "32",
            &["f32[]:rand:64:1", "f32[]:zeros:512", "i32:60"],
        ),
        (
            "_Z7genericPKfPfPii",
            "2",
            "32",
            &[
                "f32[]:rand:64:2",
                "f32[]:zeros:128",
                "i32[]:zeros:64",
                "i32:60",
            ],
        ),
        (
            "_Z9templatedIfEvPKT_PS0_i",
            "2",
            "32",
            &["f32[]:rand:64:3", "f32[]:zeros:64", "i32:60"],
        ),
        (
            "_Z9templatedIiEvPKT_PS0_i",
            "2",
            "32",
            &["i32[]:rand:64:4", "i32[]:zeros:64", "i32:60"],
        ),
        (
            "_Z7membersPKfPfi",
            "2",
            "32",
            &["f32[]:rand:64:5", "f32[]:zeros:192", "i32:60"],
        ),
        (
            "_Z17sharedByReferencePKfPf",
            "2",
            "64",
            &["f32[]:rand:128:6", "f32[]:zeros:128"],
        ),
    ];
    compare(&dir, &ours, &theirs, (&src, &[]), &launches);
}

#[test]
fn extended_lambdas_are_named_and_laid_out_as_nvcc_does() {
    let dir = scratch("lambdas-extended");
    let src = fixture("extended.cu");
    let ours = dir.join("kernelc.ptx");
    let flags: &[&str] = &["--extended-lambda"];
    let text = kernelc_ptx(&src, flags, &ours);
    let theirs = dir.join("nvcc.ptx");
    let Some(nvcc_text) = nvcc_ptx(&src, flags, &theirs) else {
        return;
    };
    // Names (a closure type is numbered among its host function's lambdas
    // of the same signature, host lambdas counted) and parameters (each
    // closure's captures, in the order the body names them).
    assert_eq!(signatures(&text), signatures(&nvcc_text));
    let one = "u8[]:zeros:1";
    let launches: [Launch<'_>; 10] = [
        (
            "_Z3mapIfZ4mainEUlfE0_EvPKT_PS1_iT0_",
            "1",
            "64",
            &[
                "f32[]:rand:64:1",
                "f32[]:zeros:64",
                "i32:64",
                "f32[]:rand:2:5",
            ],
        ),
        (
            "_Z3mapIfZ4mainEUlfE1_EvPKT_PS1_iT0_",
            "1",
            "64",
            &["f32[]:rand:64:1", "f32[]:zeros:64", "i32:64", one],
        ),
        (
            "_Z3mapIfZ4mainEUlfE2_EvPKT_PS1_iT0_",
            "1",
            "64",
            &[
                "f32[]:rand:64:1",
                "f32[]:zeros:64",
                "i32:64",
                "f32[]:rand:1:6",
            ],
        ),
        (
            "_Z3mapIf5ScaleEvPKT_PS1_iT0_",
            "1",
            "64",
            &[
                "f32[]:rand:64:1",
                "f32[]:zeros:64",
                "i32:64",
                "f32[]:rand:1:7",
            ],
        ),
        (
            "_Z4fillIZ4mainEUliE_EvPfiT_",
            "1",
            "64",
            &["f32[]:zeros:64", "i32:64", one],
        ),
        (
            "_Z4fillIZ4mainEUliE0_EvPfiT_",
            "1",
            "64",
            &["f32[]:zeros:64", "i32:64", one],
        ),
        (
            "_Z4fillIZ6helperPfiEUliE_EvS0_iT_",
            "1",
            "64",
            &["f32[]:zeros:64", "i32:64", one],
        ),
        (
            "_Z4fillIZN3app3runEPfiEUliE_EvS1_iT_",
            "1",
            "64",
            &["f32[]:zeros:64", "i32:64", "i32[]:rand:1:8"],
        ),
        (
            "_Z7composeIZ4mainEUlfE1_Z4mainEUliE_EvPfiT_T0_",
            "1",
            "64",
            &["f32[]:zeros:64", "i32:64", one, one],
        ),
        (
            "_Z7composeIZ4mainEUlT_E_Z4mainEUliE_EvPfiS0_T0_",
            "1",
            "64",
            &["f32[]:zeros:64", "i32:64", "f32[]:rand:1:9", one],
        ),
    ];
    compare(&dir, &ours, &theirs, (&src, flags), &launches);
    // The readable names spell closure types as c++filt does.
    let o = kernelc(&["--list-kernels", "--extended-lambda", src.to_str().unwrap()]);
    let listed = common::stdout(&o);
    assert!(
        listed
            .contains("\tfill<app::run::{lambda(int)#1}>(float*, int, app::run::{lambda(int)#1})")
            && listed.contains("\tcompose<main::{lambda(auto)#1}, main::{lambda(int)#1}>("),
        "{listed}"
    );
}

/// Compiles `source` with `flags`; it must fail with `code` and a message
/// containing `message`.
fn rejects(source: &str, flags: &[&str], code: &str, message: &str) -> String {
    let dir = scratch(&format!("lambdas-errors-{code}-{}", message.len()));
    let src = dir.join(format!("{code}-{}.cu", message.len()));
    std::fs::write(&src, source).unwrap();
    let out = dir.join("out.ptx");
    let mut argv = vec![src.to_str().unwrap(), "-o", out.to_str().unwrap()];
    argv.extend_from_slice(flags);
    let o = kernelc(&argv);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{source}\n{err}");
    assert!(
        err.contains(&format!("error[{code}]")) && err.contains(message),
        "{source}: expected {code} `{message}`, got:\n{err}"
    );
    err
}

const KERNEL: &str = "template <typename F> __global__ void k(float *d, F f) { d[0] = f(d[0]); }\n";

#[test]
fn what_nvcc_refuses_in_lambdas_is_a_located_error() {
    // nvcc: "__host__ or __device__ annotation on lambda requires
    // --extended-lambda nvcc flag", in host code and in device code.
    let err = rejects(
        &format!("{KERNEL}int main() {{ float *d = 0; k<<<1, 1>>>(d, [] __device__ (float x) {{ return 3 * x; }}); }}\n"),
        &[],
        "E0024",
        "needs `--extended-lambda`",
    );
    assert!(err.contains(":2:"), "{err}");
    rejects(
        "__global__ void g(float *d) { auto f = [] __device__ (float x) { return x; }; d[0] = f(1); }\n",
        &[],
        "E0024",
        "needs `--extended-lambda`",
    );
    // nvcc: "An extended __device__ lambda cannot capture variables by
    // reference".
    rejects(
        &format!("{KERNEL}int main() {{ float *d = 0, s = 2; k<<<1, 1>>>(d, [&] __device__ (float x) {{ return s * x; }}); }}\n"),
        &["--extended-lambda"],
        "E0024",
        "cannot capture variables by reference",
    );
    // nvcc: the closure type of a host lambda cannot be a kernel template's
    // argument.
    rejects(
        &format!("{KERNEL}int main() {{ float *d = 0; k<<<1, 1>>>(d, [](float x) {{ return 3 * x; }}); }}\n"),
        &["--extended-lambda"],
        "E0024",
        "the lambda is host code",
    );
}

#[test]
fn what_kernelc_cannot_do_with_lambdas_yet_is_a_located_error() {
    rejects(
        &format!("{KERNEL}struct H {{ float s; void go(float *d); }};\nvoid H::go(float *d) {{ k<<<1, 1>>>(d, [=] __device__ (float x) {{ return s * x; }}); }}\n"),
        &["--extended-lambda"],
        "E0002",
        "a member function",
    );
    rejects(
        &format!("{KERNEL}template <class T> void run(T *d) {{ k<<<1, 1>>>(d, [] __device__ (T x) {{ return 2 * x; }}); }}\nint main() {{ float *d = 0; run<float>(d); }}\n"),
        &["--extended-lambda"],
        "E0002",
        "a host function template",
    );
    rejects(
        "__global__ void g(float *d) { float a[4] = {1, 2, 3, 4}; d[0] = [=]() { return a[1]; }(); }\n",
        &[],
        "E0002",
        "capturing the array `a` by copy",
    );
    rejects(
        "__global__ void g(float *d) { d[0] = []<typename T>(T x) { return x; }(1.0f); }\n",
        &[],
        "E0002",
        "template parameter list",
    );
    rejects(
        "__global__ void g(float *d, int n) { d[0] = [](int n) { if (n) return 1; return 2.0f; }(n); }\n",
        &[],
        "E0004",
        "disagree on its return type",
    );
}
