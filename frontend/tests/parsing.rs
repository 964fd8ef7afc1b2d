//! Parser: precedence, associativity, declarations, AST dump.

use frontend::{dump_ast, parse, Options};

fn ast(body: &str) -> String {
    let src = format!("__global__ void f() {{ {body} }}");
    let tu = parse(&src, &Options::default()).unwrap_or_else(|d| panic!("{d:?}"));
    dump_ast(&tu)
}

/// Strips the function/block header lines and common indentation.
fn expr_tree(body: &str) -> String {
    let dump = ast(&format!("{body};"));
    dump.lines()
        .skip(3)
        .map(|l| l.strip_prefix("      ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn full_precedence_ladder() {
    let tree = expr_tree("a = b + c * d << 2 > e && f || g ? h : i");
    let expected = "\
Assign =
  Ident a
  Ternary
    Binary ||
      Binary &&
        Binary >
          Binary <<
            Binary +
              Ident b
              Binary *
                Ident c
                Ident d
            IntLit 2 (int)
          Ident e
        Ident f
      Ident g
    Ident h
    Ident i";
    assert_eq!(tree, expected);
}

#[test]
fn bitwise_and_equality_levels() {
    let tree = expr_tree("a | b ^ c & d == e");
    let expected = "\
Binary |
  Ident a
  Binary ^
    Ident b
    Binary &
      Ident c
      Binary ==
        Ident d
        Ident e";
    assert_eq!(tree, expected);
}

#[test]
fn left_and_right_associativity() {
    assert_eq!(
        expr_tree("a - b - c"),
        "Binary -\n  Binary -\n    Ident a\n    Ident b\n  Ident c"
    );
    assert_eq!(
        expr_tree("a = b += c"),
        "Assign =\n  Ident a\n  Assign +=\n    Ident b\n    Ident c"
    );
    assert_eq!(
        expr_tree("a ? b : c ? d : e"),
        "Ternary\n  Ident a\n  Ident b\n  Ternary\n    Ident c\n    Ident d\n    Ident e"
    );
}

#[test]
fn unary_postfix_cast_sizeof() {
    assert_eq!(
        expr_tree("-*p++"),
        "Unary -\n  Unary *\n    PostIncDec ++\n      Ident p"
    );
    assert_eq!(
        expr_tree("(float)x / 2"),
        "Binary /\n  Cast to float\n    Ident x\n  IntLit 2 (int)"
    );
    assert_eq!(
        expr_tree("sizeof(unsigned long)"),
        "SizeofType unsigned long"
    );
    assert_eq!(expr_tree("sizeof x"), "SizeofExpr\n  Ident x");
    assert_eq!(
        expr_tree("f(a, (b, c))[1]"),
        "Index\n  Call\n    Ident f\n    Ident a\n    Binary ,\n      Ident b\n      Ident c\n  IntLit 1 (int)"
    );
}

#[test]
fn declarations_with_qualifiers() {
    let d =
        ast("const float* __restrict__ p = 0, **q; unsigned long long n; size_t s; signed char c;");
    assert!(d.contains("Decl p: const float * __restrict__"), "{d}");
    assert!(d.contains("Decl q: const float **"), "{d}");
    assert!(d.contains("Decl n: unsigned long"), "{d}");
    assert!(d.contains("Decl s: unsigned long"), "{d}");
    assert!(d.contains("Decl c: char"), "{d}");
    let d = ast("float * const cp = 0; const int * const * v;");
    assert!(d.contains("Decl cp: float * const"), "{d}");
    assert!(d.contains("Decl v: const int *const *"), "{d}");
}

#[test]
fn function_specifiers_and_extern_block() {
    let src = r#"
extern "C" {
__device__ static inline __forceinline__ int g(int);
__global__ void k(void) {}
}
__device__ __noinline__ int h(int a) { return a; }
"#;
    let d = dump_ast(&parse(src, &Options::default()).unwrap());
    assert!(
        d.contains("Prototype g -> int extern \"C\" static inline __forceinline__ __device__"),
        "{d}"
    );
    assert!(
        d.contains("Function k -> void extern \"C\" __global__"),
        "{d}"
    );
    assert!(
        d.contains("Function h -> int __noinline__ __device__"),
        "{d}"
    );
}

#[test]
fn statements() {
    let d =
        ast("for (;;) { break; } do ; while (0); while (1) continue; if (a) b; else c; return;");
    for s in [
        "For",
        "<no init>",
        "DoWhile",
        "While",
        "Continue",
        "If",
        "Else",
        "Return",
        "Empty",
    ] {
        assert!(d.contains(s), "{s} in {d}");
    }
}

/// The C++ spellings keep their shape in `--emit ast`.
#[test]
fn cxx_spellings_in_the_ast() {
    let src = "static_assert(sizeof(int) == 4, \"int\");
constexpr int N = 4;
__device__ void swap(float &a, float &b) { float t = a; a = b; b = t; }
__global__ void f(float *p) {
    auto x = static_cast<float>(N);
    const auto &r = p[0];
    int v{3};
    float *q = nullptr;
    for (float &e : p) e = float(v) + int();
}";
    let tu = parse(src, &Options::default()).unwrap_or_else(|d| panic!("{d:?}"));
    let dump = dump_ast(&tu);
    for needle in [
        "StaticAssert \"int\"",
        "Decl N: const int constexpr",
        "Param a: float &",
        "Decl x: auto\n",
        "static_cast to float",
        "Decl r: const auto &",
        "Decl v: int {init}",
        "Nullptr",
        "RangeFor\n",
        "Decl e: float &",
        "Cast to float",
        "ZeroInit int",
    ] {
        assert!(dump.contains(needle), "no `{needle}` in\n{dump}");
    }
    let tu = parse(
        "__global__ void f() { again: goto again; }",
        &Options::default(),
    )
    .unwrap();
    assert!(
        dump_ast(&tu).contains("Label again\n      Goto again"),
        "{}",
        dump_ast(&tu)
    );
    // `(float(x) + 1)` is a parenthesized expression, not a C cast.
    assert!(expr_tree("(float(x) + 1)").starts_with("Binary +\n  Cast to float"));
    // Hex floats and the `<math.h>` built-ins are floating literals.
    assert_eq!(expr_tree("0x1p-2f"), "FloatLit 0.25 (float)");
    assert_eq!(expr_tree("__builtin_inff()"), "FloatLit inf (float)");
    assert_eq!(expr_tree("__builtin_huge_val()"), "FloatLit inf (double)");
    assert!(expr_tree("__builtin_nanf(\"\")").starts_with("FloatLit NaN (float)"));
}
