//! C idioms of older and macro-heavy CUDA code, against nvcc: `register`
//! (removed by C++17, still taken by nvcc in device code), pragmas that
//! macros carry through `_Pragma("...")`, the hints `__builtin_expect`
//! and `__builtin_assume`, and GCC's bit builtins (`__builtin_popcount`,
//! `__builtin_clz`, `__builtin_ffs` and their `ll` forms),
//! `__builtin_assume_aligned` and `__builtin_unreachable`, and character
//! arrays initialized by string literals.
//! `tests/fixtures/c_idioms/c_idioms.cu` compiled by kernelc and by nvcc
//! (both through ptxas) gives the same buffers on the emulator, and each
//! pragma acts as its directive does.

mod common;

use common::{emu_buffers, fixture_ptx_and_nvcc, kernelc, scratch, stderr};

/// The kernels of c_idioms.cu and their arguments for 64 threads.
const KERNELS: [(&str, &[&str]); 7] = [
    ("_Z4sum4PKiPi", &["i32[]:rand:512:3", "i32[]:zeros:64"]),
    ("_Z4sum8PKiPi", &["i32[]:rand:512:4", "i32[]:zeros:64"]),
    (
        "_Z7pragmasPKiPii",
        &["i32[]:rand:64:5", "i32[]:zeros:64", "i32:9"],
    ),
    (
        "_Z5hintsPKiPii",
        &["i32[]:rand:64:6", "i32[]:zeros:64", "i32:40"],
    ),
    ("_Z4bitsPKjPi", &["u32[]:rand:64:7", "i32[]:zeros:64"]),
    ("_Z7stringsPKjPi", &["u32[]:rand:64:8", "i32[]:zeros:64"]),
    ("_Z8promisesPKiPi", &["i32[]:rand:65:9", "i32[]:zeros:64"]),
];

#[test]
fn register_pragma_operators_and_hints_compute_what_nvcc_computes() {
    let dir = scratch("c-idioms");
    let fixture = common::root().join("tests/fixtures/c_idioms/c_idioms.cu");
    let (ours_ptx, theirs_ptx) = fixture_ptx_and_nvcc(&fixture, &dir);
    // `_Pragma("unroll 1")` is `#pragma unroll 1`: the loop stays, marked.
    assert!(
        ours_ptx.contains(".pragma \"nounroll\";"),
        "no nounroll in\n{ours_ptx}"
    );
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    let theirs_text = std::fs::read_to_string(&theirs_ptx).unwrap();
    assert!(theirs_text.contains(".pragma \"nounroll\";"));
    for (k, kernel) in KERNELS.iter().enumerate() {
        let ours = emu_buffers(
            &dir.join("kernelc.ptx"),
            *kernel,
            &dir.join(format!("ours{k}")),
        );
        let theirs = emu_buffers(&theirs_ptx, *kernel, &dir.join(format!("theirs{k}")));
        assert_eq!(ours, theirs, "{}", kernel.0);
    }
}

/// kernelc's tokens for `source`.
fn tokens(name: &str, source: &str) -> String {
    let dir = scratch(name);
    let src = dir.join("k.cu");
    std::fs::write(&src, source).unwrap();
    let o = kernelc(&[src.to_str().unwrap(), "--emit", "tokens"]);
    assert!(o.status.success(), "{}", stderr(&o));
    common::stdout(&o)
        .lines()
        .map(|l| l.rsplit_once(" @").map_or(l, |(t, _)| t).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_pragma_operator_is_its_directive() {
    let directive = tokens("pragma-directive", "#pragma unroll 4\nfor\n");
    let operator = tokens("pragma-operator", "_Pragma(\"unroll 4\") for\n");
    assert_eq!(directive, operator);
    let through_macro = tokens(
        "pragma-macro",
        "#define UNROLL(n) _Pragma(#n)\nUNROLL(unroll 4) for\n",
    );
    assert_eq!(directive, through_macro);
}

/// A string literal needs room for its NUL in the array it initializes,
/// as C++ says (nvcc: "a value of type "const char [4]" cannot be used to
/// initialize an entity of type "char [3]"").
#[test]
fn a_string_too_long_for_its_array_is_a_located_error() {
    let dir = scratch("c-idioms-long-string");
    let src = dir.join("long.cu");
    let source = "__global__ void k(char *o) {\n  char a[3] = \"abc\";\n  o[0] = a[1];\n}\n";
    std::fs::write(&src, source).unwrap();
    let out = kernelc(&[
        src.to_str().unwrap(),
        "-o",
        dir.join("long.ptx").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(
            "error[E0004]: a string of 4 characters (with its NUL) cannot initialize `char[3]`"
        ) && err.contains("long.cu:2:15"),
        "{err}"
    );
    assert!(!dir.join("long.ptx").exists());
}

/// File-scope `const`/`constexpr` integer tables read where C++ needs
/// only their values (`tests/fixtures/c_idioms/const_tables.cu`): the
/// initializers of `__constant__` and `__device__` variables and a
/// template argument. kernelc's PTX computes what nvcc's does on the
/// emulator, and its constant data holds the tables' values.
#[test]
fn const_tables_initialize_module_variables_as_nvccs() {
    let dir = scratch("c-idioms-const-tables");
    let fixture = common::root().join("tests/fixtures/c_idioms/const_tables.cu");
    let (ours_ptx, theirs_ptx) = fixture_ptx_and_nvcc(&fixture, &dir);
    assert!(
        ours_ptx.contains("c_widths[16] = {4, 0, 0, 0, 6, 0, 0, 0, 8, 0, 0, 0, 10, 0, 0, 0}"),
        "{ours_ptx}"
    );
    let kernel: (&str, &[&str]) = (
        "_Z10readTablesPiPxi",
        &["i32[]:zeros:64", "i64[]:zeros:64", "i32:60"],
    );
    let shape = ["--grid", "2", "--block", "32"];
    let run = |ptx: &std::path::Path, out: &str| {
        common::launch_buffers(ptx, "emu", kernel, &dir.join(out), &shape)
    };
    let ours = run(&dir.join("kernelc.ptx"), "ours");
    // Element i: widths[i % 4] + 10 * i + (7 * 2 + 0), then 2^40 - 5 + i.
    let ints: Vec<u8> = (0..64)
        .map(|i: i32| {
            if i < 60 {
                [4, 6, 8, 10][i as usize % 4] + 10 * i + 14
            } else {
                0
            }
        })
        .flat_map(i32::to_le_bytes)
        .collect();
    let wide: Vec<u8> = (0..64)
        .map(|i: i64| if i < 60 { (1 << 40) - 5 + i } else { 0 })
        .flat_map(i64::to_le_bytes)
        .collect();
    assert_eq!(ours, [Some(ints), Some(wide), None]);
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    assert_eq!(ours, run(&theirs_ptx, "theirs"));
}

/// A kernel body that reads a host `const` table is E0017, as nvcc's
/// "identifier is undefined in device code", at a constant index too.
#[test]
fn const_tables_read_in_kernel_bodies_are_located_errors() {
    for body in [
        "o[0] = kBits[i];",
        "o[0] = kBits[1];",
        "const int *p = kBits; o[0] = *p;",
    ] {
        let source = format!(
            "constexpr int kBits[4] = {{4, 6, 8, 10}};\n__global__ void k(int *o, int i) {{ {body} }}\n"
        );
        let err = common::rejected_with("c-idioms-const-table-body", &source, "E0017");
        assert!(
            err.contains("host variable `kBits` cannot be used in device code")
                && err.contains(":2:"),
            "{body}: {err}"
        );
    }
}
