//! Lexing and preprocessing: literal values, literal types, macros.

use frontend::{dump_tokens, lex, CType, Options, TokenKind};

fn one(src: &str) -> TokenKind {
    let toks = lex(src, &Options::default()).expect("lexes");
    assert_eq!(toks.len(), 1, "{toks:?}");
    toks[0].kind.clone()
}

fn int(src: &str) -> (u64, CType) {
    match one(src) {
        TokenKind::Int { value, ty } => (value, ty),
        other => panic!("{src}: {other:?}"),
    }
}

fn float(src: &str) -> (f64, CType) {
    match one(src) {
        TokenKind::Float { value, ty } => (value, ty),
        other => panic!("{src}: {other:?}"),
    }
}

const UINT: CType = CType::UINT;
const INT: CType = CType::INT;
const LONG: CType = CType::LONG;
const ULONG: CType = CType::ULONG;

#[test]
fn decimal_literals_pick_first_fitting_signed_type() {
    assert_eq!(int("42"), (42, INT));
    assert_eq!(int("2147483647"), (2147483647, INT));
    assert_eq!(int("2147483648"), (2147483648, LONG));
    assert_eq!(int("4294967295"), (4294967295, LONG));
    assert_eq!(int("0"), (0, INT));
}

#[test]
fn hex_and_octal_literals_may_be_unsigned() {
    assert_eq!(int("0x10"), (16, INT));
    assert_eq!(int("0xFFFFFFFF"), (0xffff_ffff, UINT));
    assert_eq!(int("0x100000000"), (0x1_0000_0000, LONG));
    assert_eq!(int("0xFFFFFFFFFFFFFFFF"), (u64::MAX, ULONG));
    assert_eq!(int("017"), (15, INT));
    assert_eq!(int("037777777777"), (0xffff_ffff, UINT));
}

#[test]
fn integer_suffixes_in_any_case_and_order() {
    assert_eq!(int("1u"), (1, UINT));
    assert_eq!(int("1U"), (1, UINT));
    assert_eq!(int("1l"), (1, LONG));
    assert_eq!(int("1L"), (1, LONG));
    assert_eq!(int("1ll"), (1, LONG));
    assert_eq!(int("1LL"), (1, LONG));
    assert_eq!(int("1ul"), (1, ULONG));
    assert_eq!(int("1LU"), (1, ULONG));
    assert_eq!(int("1ull"), (1, ULONG));
    assert_eq!(int("1LLU"), (1, ULONG));
    assert_eq!(int("0x10u"), (16, UINT));
    assert_eq!(int("5000000000u"), (5_000_000_000, ULONG));
}

#[test]
fn bad_integer_literals_are_errors() {
    for src in [
        "1uu",
        "1f",
        "0x",
        "99999999999999999999",
        "9223372036854775808",
        "08",
    ] {
        assert!(lex(src, &Options::default()).is_err(), "{src}");
    }
}

#[test]
fn float_literals() {
    assert_eq!(float("1.0"), (1.0, CType::DOUBLE));
    assert_eq!(float("1.f"), (1.0, CType::FLOAT));
    assert_eq!(float(".5"), (0.5, CType::DOUBLE));
    assert_eq!(float("1e-3"), (1e-3, CType::DOUBLE));
    assert_eq!(float("2.5e+2f"), (250.0, CType::FLOAT));
    assert_eq!(float("0.1f"), (f64::from(0.1f32), CType::FLOAT));
    assert!(lex("1e", &Options::default()).is_err());
}

#[test]
fn char_literals() {
    assert_eq!(one("'a'"), TokenKind::Char(97));
    assert_eq!(one("'\\n'"), TokenKind::Char(10));
    assert_eq!(one("'\\0'"), TokenKind::Char(0));
    assert_eq!(one("'\\x41'"), TokenKind::Char(65));
    assert_eq!(one("'\\xff'"), TokenKind::Char(-1));
    assert!(lex("'ab'", &Options::default()).is_err());
    assert!(lex("'a", &Options::default()).is_err());
}

#[test]
fn comments_and_punctuators() {
    let toks = lex("a /* x */ <<= b // c\n >>= ...", &Options::default()).unwrap();
    let texts: Vec<_> = toks.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["a", "<<=", "b", ">>=", "..."]);
    assert!(lex("/* open", &Options::default()).is_err());
}

#[test]
fn dump_tokens_format() {
    let toks = lex("int x = 10ul;", &Options::default()).unwrap();
    let dump = dump_tokens(&toks);
    assert!(dump.contains("keyword 'int' @0..3"), "{dump}");
    assert!(dump.contains("ident 'x' @4..5"), "{dump}");
    assert!(
        dump.contains("int-literal(unsigned long) '10ul' @8..12"),
        "{dump}"
    );
    assert!(dump.contains("punct ';' @12..13"), "{dump}");
}

#[test]
fn defines_from_options_and_file() {
    let opts = Options {
        defines: vec![("N".into(), Some("256".into())), ("FLAG".into(), None)],
        ..Options::default()
    };
    let toks = lex("#define M N\nM FLAG\n#undef M\nM", &opts).unwrap();
    let texts: Vec<_> = toks.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["256", "1", "M"]);
    // Expanded tokens point at the use site.
    assert_eq!(toks[0].span.start, 12);
}

#[test]
fn self_referential_macro_terminates() {
    let toks = lex("#define A A + 1\nA", &Options::default()).unwrap();
    assert_eq!(toks.len(), 3);
}

#[test]
fn directives() {
    let ok = "#include <cuda_runtime.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <vector>\n#pragma once\nx";
    assert_eq!(lex(ok, &Options::default()).unwrap().len(), 1);
    // A file kernelc does not have (the single-text `lex` reads none).
    let err = lex("#include \"foo.h\"", &Options::default()).unwrap_err();
    assert_eq!(err[0].code, Some(frontend::Code::E0016), "{err:?}");
    assert_eq!((err[0].span.start, err[0].span.end), (0, 16));
    for bad in [
        "#include <cuda_fp8.h>",
        "#include <cuda_awbarrier_primitives.h>",
        "#define V(args...) args",
        "#define W(f, ...) f(0 __VA_OPT__(,) __VA_ARGS__)",
        "#line 4",
    ] {
        let err = lex(bad, &Options::default()).unwrap_err();
        assert!(err[0].message.contains("not supported"), "{bad}: {err:?}");
        assert!(err[0].span.end > err[0].span.start, "{bad}: no span");
    }
}

#[test]
fn hexadecimal_floating_literals() {
    let value = |src: &str| match &lex(src, &Options::default()).unwrap()[0].kind {
        TokenKind::Float { value, ty } => (*value, ty.to_string()),
        other => panic!("{src}: {other:?}"),
    };
    assert_eq!(value("0x1p-3f"), (0.125, "float".into()));
    assert_eq!(value("0x1.8p1"), (3.0, "double".into()));
    assert_eq!(value("0X.8P0"), (0.5, "double".into()));
    assert_eq!(value("0xAp+2"), (40.0, "double".into()));
    assert_eq!(value("0x1.fffffep127f").0, f64::from(f32::MAX));
    assert_eq!(value("0x1p-149f").0, f64::from(f32::from_bits(1)));
    assert_eq!(value("0x1.fffffffffffffp1023").0, f64::MAX);
    assert_eq!(value("0x1p-1074").0, f64::from_bits(1));
    // Rounded once, to nearest-even, straight to the literal's type:
    // 1 + 2^-24 + 2^-52 is just above the halfway point between two floats.
    assert_eq!(
        value("0x1.0000010000001p0f").0,
        f64::from(1.0f32 + f32::EPSILON)
    );
    assert_eq!(value("0x1.000001p0f").0, 1.0);
    assert_eq!(
        value("0x1.000003p0f").0,
        f64::from(1.0f32 + 2.0 * f32::EPSILON)
    );
    // Digits beyond 64 bits still count (as a sticky bit).
    assert_eq!(value("0x1.00000000000000000000001p0").0, 1.0);
    for bad in ["0x1.8", "0x1p", "0x1pq", "0x1p2l", "0x1p200f", "0xg.1p1"] {
        assert!(lex(bad, &Options::default()).is_err(), "{bad}");
    }
}
