//! The preprocessor: conditionals, function-like macros, `__CUDA_ARCH__`,
//! `#pragma unroll` markers.

use frontend::{lex, Code, Keyword, Options, TokenKind};

fn texts(src: &str, opts: &Options) -> Vec<String> {
    lex(src, opts)
        .unwrap_or_else(|d| panic!("{d:?}"))
        .into_iter()
        .map(|t| t.text.into())
        .collect()
}

fn plain(src: &str) -> Vec<String> {
    texts(src, &Options::default())
}

fn err(src: &str) -> String {
    match lex(src, &Options::default()) {
        Ok(t) => panic!("expected an error, got {t:?}"),
        Err(d) => d[0].message.clone(),
    }
}

#[test]
fn function_like_macros_substitute_expanded_arguments() {
    assert_eq!(
        plain("#define SQ(x) ((x) * (x))\nSQ(a + 1)"),
        ["(", "(", "a", "+", "1", ")", "*", "(", "a", "+", "1", ")", ")"]
    );
    assert_eq!(
        plain("#define N 4\n#define ADD(a, b) a + b\nADD(N, f(1, 2))"),
        ["4", "+", "f", "(", "1", ",", "2", ")"]
    );
    // Nested calls and a macro name without `(` left alone.
    assert_eq!(plain("#define ID(x) x\nID(ID(y)) ID"), ["y", "ID"]);
    assert_eq!(plain("#define Z() 0\nZ()"), ["0"]);
    // A space before `(` makes an object-like macro.
    assert_eq!(plain("#define P (x)\nP"), ["(", "x", ")"]);
    assert!(err("#define F(a, b) a\nF(1)").contains("takes 2 argument(s)"));
    assert!(err("#define F(a) a\nF(1").contains("unterminated call"));
}

#[test]
fn conditionals() {
    let src = "#define A 2\n#if A > 1 && !defined(B)\nyes\n#elif 1\nno1\n#else\nno2\n#endif\n\
               #ifdef A\na\n#endif\n#ifndef A\nna\n#endif\n#if 0\n#if 1\nx\n#endif\n#error no\n#else\nz\n#endif";
    assert_eq!(plain(src), ["yes", "a", "z"]);
    assert_eq!(plain("#if (3 * 4) % 5 == 2 ? 1 : 0\nt\n#endif"), ["t"]);
    assert_eq!(plain("#if UNDEFINED_NAME\nt\n#else\nf\n#endif"), ["f"]);
    assert_eq!(plain("#if defined X || -1 < 0\nt\n#endif"), ["t"]);
    assert!(err("#if 1\nx").contains("unterminated `#if`"));
    assert!(err("#endif").contains("without `#if`"));
    assert!(err("#if 1\n#else\n#else\n#endif").contains("after `#else`"));
    assert!(err("#if 1 / 0\n#endif").contains("division by zero"));
    assert!(err("#error stop").contains("#error"));
}

#[test]
fn cuda_arch_and_defines() {
    assert_eq!(plain("__CUDA_ARCH__"), ["750"]);
    let o = Options::default().with_cuda_arch(90);
    assert_eq!(o.cuda_arch(), 900);
    assert_eq!(texts("__CUDA_ARCH__", &o), ["900"]);
    assert_eq!(
        texts("#if __CUDA_ARCH__ >= 800\nnew\n#else\nold\n#endif", &o),
        ["new"]
    );
    let d = Options {
        defines: vec![("DEBUG".into(), None)],
        ..Options::default()
    };
    assert_eq!(texts("#ifdef DEBUG\nd\n#endif __CUDACC__", &d), ["d"]);
    // CUDA's headers make the GNU spelling `__inline__` plain `inline`.
    let toks = lex("__inline__ __device__", &Options::default()).unwrap();
    assert_eq!(toks[0].kind, TokenKind::Keyword(Keyword::Inline));
}

#[test]
fn pragma_unroll_becomes_markers() {
    let toks = lex("#define U 4\n#pragma unroll U\nfor", &Options::default()).unwrap();
    assert_eq!(toks[0].kind, TokenKind::Keyword(Keyword::PragmaUnroll));
    assert_eq!(toks[1].text, "4");
    assert_eq!(toks[2].kind, TokenKind::Keyword(Keyword::PragmaEnd));
}

#[test]
fn stringizing_pasting_and_variadic_macros() {
    // `#x` makes a string of the argument as written (not expanded).
    let toks = lex(
        "#define N 4\n#define S(x) #x\nS(a + N) S(\"q\")",
        &Options::default(),
    )
    .unwrap();
    assert_eq!(toks[0].kind, TokenKind::Str("a + N".into()));
    assert_eq!(toks[0].text, "\"a + N\"");
    assert_eq!(toks[1].kind, TokenKind::Str("\"q\"".into()));
    // `##` pastes unexpanded operands into one token, which is rescanned.
    assert_eq!(
        plain("#define CAT(a, b) a ## b\nCAT(x, 1) CAT(1, 2u)"),
        ["x1", "12u"]
    );
    assert_eq!(
        plain("#define AB 7\n#define CAT(a, b) a ## b\nCAT(A, B)"),
        ["7"]
    );
    // An empty operand pastes as nothing.
    assert_eq!(
        plain("#define CAT(a, b) a ## b\nCAT(, y) CAT(x,)"),
        ["y", "x"]
    );
    // `...` and `__VA_ARGS__`, with GNU's `, ## __VA_ARGS__`.
    assert_eq!(
        plain("#define F(x, ...) g(x, __VA_ARGS__)\nF(1, 2, 3)"),
        ["g", "(", "1", ",", "2", ",", "3", ")"]
    );
    assert_eq!(
        plain("#define L(fmt, ...) p(fmt, ## __VA_ARGS__)\nL(a) L(a, b)"),
        ["p", "(", "a", ")", "p", "(", "a", ",", "b", ")"]
    );
    assert_eq!(plain("#define ALL(...) [__VA_ARGS__]\nALL()"), ["[", "]"]);
    assert!(err("#define F(x, y, ...) x\nF(1)").contains("at least 2 argument"));
    assert!(err("#define S(x) #y").contains("followed by a parameter name"));
    assert!(err("#define P(x) ## x").contains("either end"));
    assert!(err("#define O __VA_ARGS__").contains("variadic macro"));
    assert!(err("#define V(x, ..., y) x").contains("last macro parameter"));
    assert!(err("#define CAT(a, b) a ## b\nCAT(+, /)").contains("does not give a valid token"));
}

#[test]
fn line_file_and_pragmas() {
    assert_eq!(
        plain("a\n\n__LINE__\n#define L __LINE__\nL"),
        ["a", "3", "5"]
    );
    let toks = lex("__FILE__", &Options::default().with_file_name("k.cu")).unwrap();
    assert_eq!(toks[0].kind, TokenKind::Str("k.cu".into()));
    // `#pragma once` is accepted silently; an unknown pragma is a warning
    // (W0006) in device code, silent elsewhere (the host compiler's), as in
    // nvcc, and the file still compiles.
    let src = "#pragma once\n#pragma GCC diagnostic push\n__global__ void k() {\n#pragma GCC ivdep\n}\nvoid h() {\n#pragma omp parallel\n}\n";
    let (_, warnings) = frontend::check_with_warnings(src, &Options::default()).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].code, Some(Code::W0006));
    assert!(warnings[0].message.contains("unknown `#pragma` ignored"));
    assert_eq!(warnings[0].span.start, 63);
    let (_, warnings) =
        frontend::check_with_warnings("#warning slow path\n", &Options::default()).unwrap();
    assert!(warnings[0].message.contains("slow path"), "{warnings:?}");
}

/// The constant bytes of `__constant__ T name[] = {...}` after checking.
fn constant_bytes(src: &str) -> Vec<u8> {
    let prog = frontend::check(src, &Options::default())
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("t.cu", src, &d)));
    prog.globals[0].init.clone().expect("an initializer")
}

fn words32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn words64(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The bit patterns below are the ones nvcc 13.5 writes into its PTX for
/// the same names (`mov.u32`/`mov.u64` of each value, `-arch=sm_90`).
#[test]
fn predefined_and_header_macros_have_nvcc_values() {
    // Visible with no `#include`, as in nvcc.
    let f = words32(&constant_bytes(
        "__constant__ float c[] = {INFINITY, -INFINITY, NAN, HUGE_VALF, M_PI, M_PIf, M_E, MAXFLOAT, M_SQRT1_2f};",
    ));
    assert_eq!(
        f,
        [
            0x7f800000, 0xff800000, 0x7fc00000, 0x7f800000, 0x40490fdb, 0x40490fdb, 0x402df854,
            0x7f7fffff, 0x3f3504f3
        ]
    );
    let d = words64(&constant_bytes(
        "__constant__ double c[] = {HUGE_VAL, M_PI, M_LN2};",
    ));
    assert_eq!(
        d,
        [0x7ff0000000000000, 0x400921fb54442d18, 0x3fe62e42fefa39ef]
    );
    let i = constant_bytes(
        "__constant__ long long c[] = {INT_MAX, INT_MIN, UINT_MAX, LLONG_MAX, LLONG_MIN, SHRT_MIN, UCHAR_MAX, CHAR_BIT, RAND_MAX};",
    );
    assert_eq!(
        words64(&i).iter().map(|&w| w as i64).collect::<Vec<_>>(),
        [
            2147483647,
            -2147483648,
            4294967295,
            i64::MAX,
            i64::MIN,
            -32768,
            255,
            8,
            2147483647
        ]
    );
    let u = words64(&constant_bytes(
        "__constant__ unsigned long long c[] = {ULLONG_MAX, ULONG_MAX};",
    ));
    assert_eq!(u, [u64::MAX, u64::MAX]);
    // Their types follow C: `UINT_MAX` is `unsigned int`, `LLONG_MAX` `long long`.
    let prog = frontend::check(
        "static_assert(sizeof(UINT_MAX) == 4 && UINT_MAX > 0 && sizeof(LLONG_MAX) == 8 && sizeof(NULL) == 8);\n\
         static_assert(sizeof(M_PI) == 8 && sizeof(M_PIf) == 4 && sizeof(INFINITY) == 4);",
        &Options::default(),
    );
    assert!(prog.is_ok(), "{prog:?}");
    // Only after their header.
    let f = words32(&constant_bytes(
        "#include <cfloat>\n__constant__ float c[] = {FLT_MAX, FLT_MIN, FLT_EPSILON, FLT_TRUE_MIN, FLT_MANT_DIG};",
    ));
    assert_eq!(
        f,
        [0x7f7fffff, 0x00800000, 0x34000000, 0x00000001, 0x41c00000]
    );
    let d = words64(&constant_bytes(
        "#include <float.h>\n__constant__ double c[] = {DBL_MAX, DBL_MIN, DBL_EPSILON, DBL_TRUE_MIN};",
    ));
    assert_eq!(
        d,
        [
            0x7fefffffffffffff,
            0x0010000000000000,
            0x3cb0000000000000,
            1
        ]
    );
    let f = words32(&constant_bytes(
        "#include <math_constants.h>\n__constant__ float c[] = {CUDART_INF_F, CUDART_NAN_F, CUDART_MIN_DENORM_F, CUDART_MAX_NORMAL_F, CUDART_NEG_ZERO_F, CUDART_PI_F, CUDART_SQRT_HALF_F, CUDART_TWO_TO_M126_F};",
    ));
    assert_eq!(
        f,
        [
            0x7f800000, 0x7fffffff, 0x00000001, 0x7f7fffff, 0x80000000, 0x40490fdb, 0x3f3504f3,
            0x00800000
        ]
    );
    let d = words64(&constant_bytes(
        "#include <math_constants.h>\n__constant__ double c[] = {CUDART_INF, CUDART_NAN, CUDART_NEG_ZERO, CUDART_MIN_DENORM, CUDART_PI, CUDART_PI_LO};",
    ));
    assert_eq!(
        d,
        [
            0x7ff0000000000000,
            0xfff8000000000000,
            0x8000000000000000,
            1,
            0x400921fb54442d18,
            0x3ca1a62633145c07
        ]
    );
    let i = words64(&constant_bytes(
        "#include <cstdint>\n__constant__ long c[] = {INT32_MAX, INT32_MIN, INT64_MIN, INT64_C(5), (long)SIZE_MAX, (long)UINT64_C(3)};",
    ));
    assert_eq!(
        i.iter().map(|&w| w as i64).collect::<Vec<_>>(),
        [i64::from(i32::MAX), i64::from(i32::MIN), i64::MIN, 5, -1, 3]
    );
    for name in [
        "FLT_MAX",
        "DBL_EPSILON",
        "INT32_MAX",
        "CUDART_PI_F",
        "SIZE_MAX",
    ] {
        assert_eq!(plain(name), [name], "{name} must need its header");
    }
    // A program's own definition wins over the header's.
    assert_eq!(
        plain("#define FLT_MAX 1\n#include <cfloat>\nFLT_MAX"),
        ["1"]
    );
    // `-D` wins over a predefined macro.
    let o = Options {
        defines: vec![("M_PI".into(), Some("3".into()))],
        ..Options::default()
    };
    assert_eq!(texts("M_PI", &o), ["3"]);
}

#[test]
fn every_accepted_header_is_known_and_others_are_located_errors() {
    for h in [
        "<math.h>",
        "<cmath>",
        "<float.h>",
        "<cfloat>",
        "<limits.h>",
        "<climits>",
        "<stdio.h>",
        "<cstdio>",
        "<stdlib.h>",
        "<cstdlib>",
        "<stdint.h>",
        "<cstdint>",
        "<stddef.h>",
        "<cstddef>",
        "<assert.h>",
        "<cassert>",
        "<cuda.h>",
        "<cuda_runtime.h>",
        "<cuda_runtime_api.h>",
        "<device_launch_parameters.h>",
        "<math_constants.h>",
        "\"kernelc.cuh\"",
    ] {
        let src = format!("#include {h}\n#include {h}\nx");
        assert_eq!(plain(&src), ["x"], "{h}");
    }
    let d = lex("int a;\n#include <cuda_fp8.h>\n", &Options::default()).unwrap_err();
    assert!(d[0]
        .message
        .contains("`#include <cuda_fp8.h>` is not supported by kernelc"));
    assert!(d[0].notes[0].contains("fp8"), "{:?}", d[0].notes);
    assert_eq!((d[0].span.start, d[0].span.end), (7, 28));
    assert_eq!(d[0].code, Some(Code::E0002));
    // A file: the single-text entry points read none (`NoFiles`).
    let d = lex("#include \"util.h\"", &Options::default()).unwrap_err();
    assert_eq!(d[0].code, Some(Code::E0016));
}

/// The files of an in-memory program, compiled from `main.cu`.
fn lex_files(
    files: &frontend::MemoryFiles,
    main: &str,
    opts: &Options,
) -> (
    frontend::SourceMap,
    Result<Vec<String>, Vec<frontend::Diagnostic>>,
) {
    let mut map = frontend::SourceMap::new("src/main.cu", main);
    let result = frontend::lex_files(&mut map, opts, files)
        .map(|toks| toks.iter().map(|t| t.text.to_string()).collect());
    (map, result)
}

#[test]
fn includes_read_through_the_loader_get_their_own_offsets() {
    let files = frontend::MemoryFiles::new()
        .with(
            "src/a.h",
            "#pragma once\nint A = __LINE__;\n#include <b.h>\n",
        )
        .with(
            "inc/b.h",
            "#ifndef B\n#define B\nconst char *f = __FILE__;\n#endif\n",
        );
    let opts = Options {
        include_dirs: vec!["inc".to_string()],
        ..Options::default()
    };
    let main = "#include \"a.h\"\n#include \"a.h\"\n#include <b.h>\nint z;";
    let (map, toks) = lex_files(&files, main, &opts);
    assert_eq!(
        toks.unwrap(),
        [
            "int",
            "A",
            "=",
            "2",
            ";",
            "const",
            "char",
            "*",
            "f",
            "=",
            "\"inc/b.h\"",
            ";",
            "int",
            "z",
            ";"
        ]
    );
    let names: Vec<&str> = map.files().iter().map(|f| f.name()).collect();
    // `a.h` is read once (`#pragma once`); `b.h` twice (its guard skips the second).
    assert_eq!(names, ["src/main.cu", "src/a.h", "inc/b.h", "inc/b.h"]);
    // An error in a header is at the header's offsets, and renders there.
    let files = files.with("src/bad.h", "\n  #error stop\n");
    let (map, result) = lex_files(&files, "int x;\n#include \"bad.h\"\n", &opts);
    let diags = result.unwrap_err();
    assert_eq!(map.position_text(diags[0].span.start), "src/bad.h:2:3");
    let text = frontend::render_diagnostics_in(&map, &diags);
    assert!(text.contains("┌─ src/bad.h:2:3"), "{text}");
    assert!(
        text.contains("= in file included from src/main.cu:2"),
        "{text}"
    );
}

#[test]
fn std_and_flag_macros() {
    let opts = Options {
        std: frontend::CxxStd::parse("c++20"),
        ..Options::default()
    };
    assert_eq!(
        lex_texts("__cplusplus __STRICT_ANSI__ linux __linux__", &opts),
        ["202002L", "1", "linux", "1"]
    );
    assert_eq!(
        lex_texts("__cplusplus linux", &Options::default()),
        ["201703L", "1"]
    );
    assert_eq!(frontend::CxxStd::parse("gnu++17"), None);
}

fn lex_texts(src: &str, opts: &Options) -> Vec<String> {
    lex(src, opts)
        .unwrap()
        .iter()
        .map(|t| t.text.to_string())
        .collect()
}
