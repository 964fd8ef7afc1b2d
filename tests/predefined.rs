//! The macros kernelc predefines for the host platform and the CUDA
//! toolkit agree with what nvcc's device pass predefines: each name below
//! is defined by both, and expands to the same tokens. nvcc's list comes
//! from `nvcc -E -Xcompiler -dM` on an empty file (its device pass, where
//! `__CUDA_ARCH__` is defined). Without nvcc the test prints a loud skip
//! line, and fails under `CI=true`.

mod common;

use std::collections::BTreeMap;

/// The names that must agree: the platform (x86-64 Linux, LP64, little
/// endian, GNU C++17), the CUDA compiler and toolkit, and the target.
const PLATFORM: &[&str] = &[
    "__cplusplus",
    "__STDC__",
    "__STDC_HOSTED__",
    "__linux__",
    "__linux",
    "linux",
    "__gnu_linux__",
    "__unix__",
    "__unix",
    "unix",
    "__ELF__",
    "__x86_64__",
    "__x86_64",
    "__amd64__",
    "__amd64",
    "__LP64__",
    "_LP64",
    "__CHAR_BIT__",
    "__SIZEOF_SHORT__",
    "__SIZEOF_INT__",
    "__SIZEOF_LONG__",
    "__SIZEOF_LONG_LONG__",
    "__SIZEOF_POINTER__",
    "__SIZEOF_SIZE_T__",
    "__SIZEOF_FLOAT__",
    "__SIZEOF_DOUBLE__",
    "__ORDER_LITTLE_ENDIAN__",
    "__ORDER_BIG_ENDIAN__",
    "__BYTE_ORDER__",
    "__CUDACC__",
    "__NVCC__",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
    "__CUDACC_VER_BUILD__",
    "__CUDA_API_VER_MAJOR__",
    "__CUDA_API_VER_MINOR__",
    "__CUDA_ARCH__",
    "__CUDA_ARCH_LIST__",
];

/// `#define NAME VALUE` lines of nvcc's device pass for `arch`.
fn nvcc_defines(nvcc: &std::path::Path, arch: &str) -> BTreeMap<String, String> {
    nvcc_defines_with(nvcc, arch, &[])
}

/// [`nvcc_defines`] with more nvcc `flags`.
fn nvcc_defines_with(
    nvcc: &std::path::Path,
    arch: &str,
    flags: &[&str],
) -> BTreeMap<String, String> {
    let dir = common::scratch(&format!(
        "predefined-{arch}-{}",
        flags.join("").replace('+', "p")
    ));
    let src = dir.join("empty.cu");
    std::fs::write(&src, "").unwrap();
    let out = std::process::Command::new(nvcc)
        .args(["-E", "-Xcompiler", "-dM", &format!("-arch={arch}")])
        .args(flags)
        .arg(&src)
        .output()
        .expect("nvcc runs");
    assert!(
        out.status.success(),
        "nvcc -E -dM: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .filter(|l| !l.contains('('))
        .map(|l| match l.split_once(' ') {
            Some((name, value)) => (name.to_string(), value.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// What `text` becomes after kernelc's preprocessor, token by token.
fn kernelc_expansion(text: &str, sm: u32) -> Vec<String> {
    let opts = frontend::Options::default().with_cuda_arch(sm);
    frontend::lex(text, &opts)
        .unwrap_or_else(|d| panic!("kernelc cannot lex `{text}`: {d:?}"))
        .iter()
        .map(|t| t.text.to_string())
        .collect()
}

#[test]
fn the_platform_macros_are_nvccs() {
    let Some(nvcc) = common::nvcc_or_skip("predefined macros against nvcc -E -dM") else {
        return;
    };
    for (arch, sm) in [("sm_90", 90), ("sm_80", 80)] {
        let nvcc_defs = nvcc_defines(&nvcc, arch);
        for &name in PLATFORM {
            let value = nvcc_defs
                .get(name)
                .unwrap_or_else(|| panic!("nvcc's device pass does not define `{name}`"));
            // nvcc defines a bare `-D NAME` as 1; kernelc's expansion of the
            // name must equal its expansion of nvcc's value.
            let value = if value.is_empty() { "1" } else { value };
            let ours = kernelc_expansion(name, sm);
            assert_ne!(
                ours,
                vec![name.to_string()],
                "kernelc does not define `{name}`"
            );
            assert_eq!(
                ours,
                kernelc_expansion(value, sm),
                "`{name}` at {arch}: nvcc says `{value}`"
            );
        }
    }
}

/// The macros the source flags change: the dialect's and the lambda and
/// constexpr extensions'.
const FLAG_MACROS: &[&str] = &[
    "__cplusplus",
    "__STRICT_ANSI__",
    "linux",
    "unix",
    "__linux__",
    "__unix__",
    "__CUDACC_EXTENDED_LAMBDA__",
    "__CUDACC_RELAXED_CONSTEXPR__",
    "_OPENMP",
    "KERNELC_HOST_FLAG",
];

/// What `text` becomes in the token stream of the `kernelc` binary given
/// `flags` (so the command line's spellings are checked too).
fn kernelc_cli_expansion(text: &str, flags: &[&str]) -> Vec<String> {
    let dir = common::scratch(&format!("flags-{}", flags.join("").replace('+', "p")));
    let src = dir.join("names.cu");
    std::fs::write(&src, text).unwrap();
    let mut args = vec![src.to_str().unwrap(), "--emit", "tokens"];
    args.extend(flags);
    let out = common::kernelc(&args);
    assert!(
        out.status.success(),
        "kernelc {flags:?}: {}",
        common::stderr(&out)
    );
    common::stdout(&out)
        .lines()
        .filter_map(|l| Some(l.split_once(" '")?.1.rsplit_once("' @")?.0.to_string()))
        .collect()
}

#[test]
fn the_source_flags_define_what_nvcc_defines() {
    let Some(nvcc) = common::nvcc_or_skip("the source flags' macros against nvcc -E -dM") else {
        return;
    };
    for flags in [
        &[][..],
        &["--extended-lambda"],
        &["--expt-extended-lambda"],
        &["-expt-extended-lambda"],
        &["--expt-relaxed-constexpr"],
        &["-std=c++03"],
        &["-std=c++11"],
        &["-std=c++14"],
        &["-std=c++17"],
        &["-std=c++20"],
        &["--std", "c++20"],
        &[
            "-std=c++14",
            "--extended-lambda",
            "--expt-relaxed-constexpr",
        ],
        // The host compiler's options reach the device side through its
        // preprocessor: `-fopenmp`'s `_OPENMP`, `-D`s; the rest is ignored.
        &["-Xcompiler", "-fopenmp"],
        &["-Xcompiler=-fopenmp,-DKERNELC_HOST_FLAG=3"],
        &[
            "--compiler-options",
            "-O2,-DKERNELC_HOST_FLAG",
            "-Xcompiler",
            "-Wall",
        ],
    ] {
        let nvcc_defs = nvcc_defines_with(&nvcc, "sm_80", flags);
        for &name in FLAG_MACROS {
            let ours = kernelc_cli_expansion(name, flags);
            match nvcc_defs.get(name) {
                Some(value) => {
                    let value = if value.is_empty() { "1" } else { value };
                    assert_eq!(
                        ours,
                        kernelc_cli_expansion(value, &[]),
                        "`{name}` with {flags:?}: nvcc says `{value}`"
                    );
                }
                None => assert_eq!(
                    ours,
                    [name],
                    "kernelc defines `{name}` with {flags:?}, nvcc does not"
                ),
            }
        }
    }
}

#[test]
fn a_dialect_nvcc_rejects_is_an_error() {
    let out = common::kernelc(&["samples/vadd.cu", "-std=gnu++17"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(common::stderr(&out).contains("`-std=gnu++17` is not a C++ dialect"));
}
