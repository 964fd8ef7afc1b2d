//! The preprocessor: conditionals, function-like macros, `__CUDA_ARCH__`,
//! `#pragma unroll` markers.

use frontend::{lex, Keyword, Options, TokenKind};

fn texts(src: &str, opts: &Options) -> Vec<String> {
    lex(src, opts)
        .unwrap_or_else(|d| panic!("{d:?}"))
        .into_iter()
        .map(|t| t.text)
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
