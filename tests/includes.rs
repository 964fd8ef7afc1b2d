//! `#include` as nvcc finds files: the search order of `"x.h"` and `<x.h>`,
//! `-I` (every spelling), `-include`, `#pragma once`, guards,
//! `__has_include`, `#include_next`, and the errors (a missing file, a
//! cycle, a mistake inside a header) with their include chains; every
//! standard and CUDA header by name. Each program is a tree of files in a
//! scratch folder, compiled by the `kernelc` binary from that folder; where
//! it makes sense, nvcc compiles the same tree and gives the same kernels.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{scratch, stderr, stdout};

/// Writes `files` (path, text) under a fresh scratch folder.
fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = scratch(&format!("includes-{name}"));
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// Runs `kernelc ARGS` in `dir`.
fn kernelc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cannot run kernelc")
}

/// Compiles in `dir` and returns the PTX, failing with the diagnostics.
fn compiles(dir: &Path, args: &[&str]) -> String {
    let out = kernelc_in(dir, args);
    assert!(
        out.status.success(),
        "kernelc {args:?} failed:\n{}",
        stderr(&out)
    );
    stdout(&out)
}

/// Compiles in `dir`, which must fail (exit 1) without writing `out.ptx`,
/// and returns the diagnostics.
fn fails(dir: &Path, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["-o", "out.ptx"]);
    let out = kernelc_in(dir, &all);
    assert_eq!(
        out.status.code(),
        Some(1),
        "kernelc {args:?}: {}",
        stderr(&out)
    );
    assert!(
        !dir.join("out.ptx").exists(),
        "a failed compile wrote out.ptx"
    );
    stderr(&out)
}

/// A kernel that stores `V` (each test's headers define it).
const STORE_V: &str = "extern \"C\" __global__ void k(int *o) { o[0] = V; }\n";

/// The value the PTX stores, as `st.global.u32 [%rdN], VALUE;` shows it.
fn stored(ptx: &str) -> String {
    let line = ptx
        .lines()
        .find(|l| l.contains("st.global"))
        .unwrap_or_else(|| panic!("no store in\n{ptx}"));
    line.rsplit(", ")
        .next()
        .unwrap()
        .trim_end_matches(';')
        .to_string()
}

#[test]
fn quoted_include_searches_the_including_files_folder_first() {
    let main = format!("#include \"v.h\"\n#include \"sub/w.h\"\n{STORE_V}");
    let dir = tree(
        "quoted",
        &[
            ("src/a.cu", &main),
            ("src/v.h", "#define V0 1\n"),
            ("inc/v.h", "#define V0 100\n"),
            // `w.h` includes `x.h` next to itself, not the one in `inc/`.
            ("src/sub/w.h", "#include \"x.h\"\n"),
            ("src/sub/x.h", "#define V (V0 + 10)\n"),
            ("inc/x.h", "#define V 1000\n"),
        ],
    );
    assert_eq!(stored(&compiles(&dir, &["src/a.cu", "-I", "inc"])), "11");
}

#[test]
fn include_folders_are_searched_in_order_in_every_spelling() {
    let main = format!("#include <v.h>\n{STORE_V}");
    let dir = tree(
        "order",
        &[
            ("a.cu", &main),
            ("one/v.h", "#define V 1\n"),
            ("two/v.h", "#define V 2\n"),
        ],
    );
    for (args, want) in [
        (&["-I", "one", "-I", "two"][..], "1"),
        (&["-Itwo", "-Ione"], "2"),
        (&["--include-path", "two", "--include-path=one"], "2"),
        (&["--include-path=one", "-I", "two"], "1"),
    ] {
        let mut all = vec!["a.cu"];
        all.extend(args);
        assert_eq!(stored(&compiles(&dir, &all)), want, "{args:?}");
    }
}

#[test]
fn angled_include_does_not_search_the_including_files_folder() {
    let main = format!("#include <v.h>\n{STORE_V}");
    let dir = tree(
        "angled",
        &[("src/a.cu", &main), ("src/v.h", "#define V 1\n")],
    );
    let err = fails(&dir, &["src/a.cu"]);
    assert!(err.contains("error[E0016]"), "{err}");
    assert!(err.contains("src/a.cu:1:1"), "{err}");
    // With the folder on the path it is found.
    assert_eq!(stored(&compiles(&dir, &["src/a.cu", "-I", "src"])), "1");
}

#[test]
fn pre_include_reads_a_file_before_the_source() {
    let dir = tree(
        "pre",
        &[
            ("a.cu", STORE_V),
            ("config.h", "#define V 7\n"),
            ("inc/deep.h", "#define V 8\n"),
        ],
    );
    assert_eq!(
        stored(&compiles(&dir, &["a.cu", "-include", "config.h"])),
        "7"
    );
    assert_eq!(
        stored(&compiles(
            &dir,
            &["a.cu", "--pre-include", "deep.h", "-I", "inc"]
        )),
        "8"
    );
    assert_eq!(
        stored(&compiles(&dir, &["a.cu", "--pre-include=config.h"])),
        "7"
    );
    let err = fails(&dir, &["a.cu", "-include", "nothing.h"]);
    assert!(err.contains("error[E0016]"), "{err}");
}

#[test]
fn pragma_once_and_guards_read_a_header_once() {
    // Each header defines a function: read twice, it would be redefined.
    let main = "#include \"once.h\"\n#include \"sub/../once.h\"\n#include \"guard.h\"\n\
                #include \"guard.h\"\n\
                extern \"C\" __global__ void k(int *o) { o[0] = f() + g(); }\n";
    let dir = tree(
        "once",
        &[
            ("a.cu", main),
            ("sub/keep", ""),
            ("once.h", "#pragma once\n__device__ int f() { return 1; }\n"),
            (
                "guard.h",
                "#ifndef GUARD_H\n#define GUARD_H\n__device__ int g() { return 2; }\n#endif\n",
            ),
        ],
    );
    let ptx = compiles(&dir, &["a.cu"]);
    assert!(ptx.contains(".entry k("), "{ptx}");
    // Without the pragma, the second read is a redefinition.
    std::fs::write(dir.join("once.h"), "__device__ int f() { return 1; }\n").unwrap();
    let err = fails(&dir, &["a.cu"]);
    assert!(err.contains("error[E0006]"), "{err}");
    assert!(err.contains("once.h"), "{err}");
}

#[test]
fn has_include_sees_files_and_kernelcs_headers() {
    let main = "#if __has_include(\"here.h\") && __has_include(<here.h>) \\\n\
                && __has_include(<vector>) && __has_include(\"cuda_runtime.h\") \\\n\
                && !__has_include(<nowhere.h>) && !__has_include(<cuda_fp8.h>) \\\n\
                && defined(__has_include)\n\
                #define V 1\n#else\n#define V 2\n#endif\n\
                extern \"C\" __global__ void k(int *o) { o[0] = V; }\n";
    let dir = tree("has", &[("a.cu", main), ("inc/here.h", "")]);
    assert_eq!(stored(&compiles(&dir, &["a.cu", "-I", "inc"])), "1");
    assert_eq!(stored(&compiles(&dir, &["a.cu"])), "2");
}

#[test]
fn include_next_continues_after_the_folder_of_the_current_file() {
    let main = format!("#include <v.h>\n{STORE_V}");
    let dir = tree(
        "next",
        &[
            ("a.cu", &main),
            // A wrapper: `one/v.h` adds to what the next `v.h` says.
            ("one/v.h", "#include_next <v.h>\n#define V (V2 + 1)\n"),
            ("two/v.h", "#include_next <v.h>\n#define V2 (V3 * 10)\n"),
            ("three/v.h", "#define V3 4\n"),
        ],
    );
    let ptx = compiles(&dir, &["a.cu", "-I", "one", "-I", "two", "-I", "three"]);
    assert_eq!(stored(&ptx), "41");
    // Past the last folder, kernelc's own headers: `<math.h>` wrapped.
    let dir = tree(
        "next-own",
        &[
            (
                "a.cu",
                "#include <cfloat>\nextern \"C\" __global__ void k(int *o) { o[0] = WRAPPED; }\n",
            ),
            (
                "wrap/cfloat",
                "#include_next <cfloat>\n#define WRAPPED (FLT_MANT_DIG + 1)\n",
            ),
        ],
    );
    assert_eq!(stored(&compiles(&dir, &["a.cu", "-I", "wrap"])), "25");
}

#[test]
fn a_missing_file_is_a_located_error_with_the_include_chain() {
    let dir = tree(
        "missing",
        &[
            ("src/a.cu", "int x;\n#include \"mid.h\"\n"),
            ("src/mid.h", "// mid\n#include <inner.h>\n"),
            ("inc/inner.h", "\n\n#include \"gone.h\"\n"),
        ],
    );
    let err = fails(&dir, &["src/a.cu", "-I", "inc"]);
    assert!(err.contains("error[E0016]"), "{err}");
    assert!(err.contains("`#include \"gone.h\"`"), "{err}");
    assert!(err.contains("┌─ inc/inner.h:3:1"), "{err}");
    assert!(
        err.contains("searched: `inc/gone.h`, kernelc's own headers"),
        "{err}"
    );
    let chain = [
        "= in file included from src/mid.h:2",
        "= in file included from src/a.cu:2",
    ];
    let at = |s: &str| err.find(s).unwrap_or_else(|| panic!("no `{s}` in\n{err}"));
    assert!(at(chain[0]) < at(chain[1]), "{err}");
}

#[test]
fn an_include_cycle_is_a_located_error_not_a_hang() {
    let dir = tree(
        "cycle",
        &[
            ("a.cu", "#include \"b.h\"\n"),
            ("b.h", "#include \"c.h\"\n"),
            ("c.h", "int c;\n#include \"b.h\"\n"),
        ],
    );
    let start = std::time::Instant::now();
    let err = fails(&dir, &["a.cu"]);
    assert!(
        start.elapsed().as_secs() < 20,
        "the cycle took {:?}",
        start.elapsed()
    );
    assert!(err.contains("error[E0014]"), "{err}");
    assert!(err.contains("nests more than 200 files deep"), "{err}");
    assert!(err.contains("in file included from a.cu:1"), "{err}");
    assert!(err.contains("more includes"), "{err}");
}

#[test]
fn a_diagnostic_inside_a_header_points_at_the_header() {
    let dir = tree(
        "inside",
        &[
            (
                "a.cu",
                "// main\n#include \"util.h\"\n__global__ void k() {}\n",
            ),
            (
                "util.h",
                "#pragma once\n\n__device__ int f() {\n    return undeclared_y;\n}\n",
            ),
        ],
    );
    let err = fails(&dir, &["a.cu"]);
    assert!(err.contains("error[E0001]"), "{err}");
    assert!(err.contains("┌─ util.h:4:12"), "{err}");
    assert!(err.contains("return undeclared_y;"), "{err}");
    assert!(err.contains("= in file included from a.cu:2"), "{err}");
}

#[test]
fn every_known_header_is_accepted_in_both_spellings() {
    let mut angled = String::new();
    let mut quoted = String::new();
    for h in kernelc::frontend::provided_headers() {
        angled.push_str(&format!("#include <{h}>\n"));
        quoted.push_str(&format!("#include \"{h}\"\n"));
    }
    for (name, includes) in [("angled", angled), ("quoted", quoted)] {
        let main = format!("{includes}extern \"C\" __global__ void k(int *o) {{ o[0] = 3; }}\n");
        let dir = tree(&format!("known-{name}"), &[("a.cu", &main)]);
        assert_eq!(stored(&compiles(&dir, &["a.cu"])), "3", "{name}");
    }
    for family in [
        "iostream",
        "vector",
        "chrono",
        "cublas_v2.h",
        "nvtx3/nvToolsExt.h",
        "unistd.h",
        "sys/time.h",
        "assert.h",
        "wchar.h",
        "cuda_profiler_api.h",
    ] {
        assert!(
            kernelc::frontend::provided_headers().contains(&family),
            "{family}"
        );
    }
}

#[test]
fn a_host_only_header_gives_the_device_side_nothing() {
    let body = "extern \"C\" __global__ void k(int *o) { o[0] = 1; }\n";
    let with = format!("#include <iostream>\n#include <vector>\n#include <cublas_v2.h>\n{body}");
    let dir = tree("host-only", &[("with.cu", &with), ("without.cu", body)]);
    // The token texts (their offsets differ: the includes are read).
    let tokens = |f: &str| {
        let dump = compiles(&dir, &[f, "--emit", "tokens"]);
        dump.lines()
            .map(|l| l.rsplit_once(" @").unwrap().0.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(tokens("with.cu"), tokens("without.cu"));
}

/// A header kernelc does not know that the system's folders hold (GCC's
/// intrinsics, glibc's POSIX headers, a library's) is host code's, as for
/// the headers kernelc knows by name: the device side gets nothing from it
/// and the kernels are nvcc's. A header no folder holds stays an error.
#[test]
fn a_header_only_the_system_holds_is_host_codes() {
    let src = "#include <regex.h>\n#include <execinfo.h>\n#include <immintrin.h>\n\
        __global__ void k(float *p) { p[0] = 1; }\n\
        int host(const char *s) { regex_t r; return regcomp(&r, s, REG_EXTENDED); }\n";
    let dir = tree("system", &[("sys.cu", src)]);
    let present = ["/usr/include/regex.h", "/usr/include/execinfo.h"]
        .iter()
        .all(|p| Path::new(p).exists());
    if let Some(nvcc) = common::nvcc_or_skip("system headers against nvcc") {
        let out = Command::new(nvcc)
            .args(["-ptx", "-arch=sm_90", "sys.cu", "-o", "sys.nvcc.ptx"])
            .current_dir(&dir)
            .output()
            .expect("cannot run nvcc");
        assert!(
            out.status.success(),
            "nvcc: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    } else if !present {
        eprintln!("SKIPPED: no glibc headers in /usr/include");
        return;
    }
    let ptx = compiles(&dir, &["sys.cu"]);
    assert!(ptx.contains(".visible .entry _Z1kPf("), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90", "sys.cu");
}

#[test]
fn an_unknown_or_declined_header_is_a_located_error() {
    let dir = tree(
        "unknown",
        &[
            ("a.cu", "int a;\n#include <no_such_header.h>\n"),
            ("b.cu", "int b;\n#include <cuda_fp8.h>\n"),
        ],
    );
    let err = fails(&dir, &["a.cu"]);
    assert!(
        err.contains("error[E0016]") && err.contains("a.cu:2:1"),
        "{err}"
    );
    let err = fails(&dir, &["b.cu"]);
    assert!(
        err.contains("error[E0002]") && err.contains("b.cu:2:1"),
        "{err}"
    );
    assert!(err.contains("is not supported by kernelc"), "{err}");
}

/// Thrust and CUB: host code may use them (W0009 at the first include,
/// since nvcc's PTX would also hold their algorithms' kernels); device code
/// that names them is refused where it does, pointing at the include, with
/// no cascade of errors after it, but for CUB's block and warp collectives
/// (tests/cub.rs).
#[test]
fn template_libraries_serve_host_code_only() {
    let host_only = "#include <thrust/device_vector.h>\n#include <thrust/reduce.h>\n\
        #include <cub/device/device_reduce.cuh>\n\
        typedef thrust::device_vector<float> Vec;\n\
        __global__ void twice(float *p) { p[threadIdx.x] *= 2; }\n\
        float total(Vec &v) { twice<<<1, 32>>>(thrust::raw_pointer_cast(v.data()));\n\
        return thrust::reduce(v.begin(), v.end()); }\n";
    let device_use = "#include <cub/cub.cuh>\n\
        __global__ void sum(const float *in, float *out) {\n\
        typedef cub::BlockHistogram<unsigned char, 128, 4, 256> Hist;\n\
        __shared__ typename Hist::TempStorage t;\n\
        out[0] = in[threadIdx.x]; }\n";
    let dir = tree(
        "libraries",
        &[("host.cu", host_only), ("device.cu", device_use)],
    );
    let out = kernelc_in(&dir, &["host.cu", "-o", "host.ptx"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("warning[W0009]").count(), 2, "{err}");
    assert!(
        err.contains("host.cu:1:1") && err.contains("host.cu:3:1"),
        "{err}"
    );
    let ptx = std::fs::read_to_string(dir.join("host.ptx")).unwrap();
    assert!(ptx.contains(".entry _Z5twicePf("), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90", "host.cu");

    let err = fails(&dir, &["device.cu"]);
    assert!(
        err.contains(
            "error[E0002]: `cub::BlockHistogram` is not supported by kernelc, which compiles CUB's block and warp collectives only"
        ) && err.contains("device.cu:3:9")
            && err.contains("CUB is included here"),
        "{err}"
    );
    assert_eq!(err.matches("error[").count(), 1, "{err}");
}

#[test]
fn kernelc_run_reads_includes_too() {
    let main = format!("#include <v.h>\n{STORE_V}");
    let dir = tree("run", &[("a.cu", &main), ("inc/v.h", "#define V 42\n")]);
    let out = kernelc_in(
        &dir,
        &[
            "run",
            "a.cu",
            "-I",
            "inc",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
            "--out",
            "o",
            "i32[]:zeros:1",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(dir.join("o/arg0.bin")).unwrap();
    assert_eq!(bytes, 42i32.to_le_bytes());
    let out = kernelc_in(
        &dir,
        &[
            "run",
            "a.cu",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
            "i32[]:zeros:1",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error[E0016]"), "{}", stderr(&out));
}

/// The `.entry` names of a PTX text, sorted.
fn entries(ptx: &str) -> Vec<String> {
    let mut names: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|rest| rest.split('(').next().unwrap().trim().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn nvcc_finds_the_same_files() {
    let Some(nvcc) = common::nvcc_or_skip("an include tree through nvcc") else {
        return;
    };
    let main = "#include \"local.h\"\n#include <shared.h>\n#include <cstdio>\n#include <vector>\n\
                #if __has_include(<shared.h>)\nextern \"C\" __global__ void has_shared(int *o) { o[0] = SHARED; }\n#endif\n\
                extern \"C\" __global__ void KERNEL_NAME(int *o) { o[0] = LOCAL; }\n";
    let dir = tree(
        "nvcc",
        &[
            ("src/a.cu", main),
            (
                "src/local.h",
                "#pragma once\n#define LOCAL 1\n#include \"local.h\"\n",
            ),
            (
                "inc/shared.h",
                "#ifndef SHARED_H\n#define SHARED_H\n#include_next <shared.h>\n#endif\n",
            ),
            (
                "inc2/shared.h",
                "#define SHARED 2\n#define KERNEL_NAME from_inc2\n",
            ),
        ],
    );
    let ours = compiles(
        &dir,
        &["src/a.cu", "-I", "inc", "-I", "inc2", "-arch=sm_80"],
    );
    let out = Command::new(nvcc)
        .args([
            "-ptx",
            "-arch=sm_80",
            "-I",
            "inc",
            "-I",
            "inc2",
            "src/a.cu",
            "-o",
            "nvcc.ptx",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "nvcc: {}", stderr(&out));
    let theirs = std::fs::read_to_string(dir.join("nvcc.ptx")).unwrap();
    assert_eq!(entries(&ours), entries(&theirs));
    assert_eq!(entries(&ours), ["from_inc2", "has_shared"]);
    common::assert_ptxas_accepts(&ours, "sm_80", "the include tree");
}
