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
    let dir = common::scratch(&format!("predefined-{arch}"));
    let src = dir.join("empty.cu");
    std::fs::write(&src, "").unwrap();
    let out = std::process::Command::new(nvcc)
        .args(["-E", "-Xcompiler", "-dM", &format!("-arch={arch}")])
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
        .map(|t| t.text.clone())
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
