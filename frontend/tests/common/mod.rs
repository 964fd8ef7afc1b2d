//! Shared helpers for the frontend integration tests.
#![allow(dead_code)]

use frontend::typed::{ExprKind, Program, StmtKind};
use frontend::{check, CType, Options};

/// Parameters available to expression snippets, one per interesting type.
pub const PARAMS: &str = "int i, unsigned u, long l, unsigned long ul, long long ll, \
    unsigned long long ull, char c, short s, bool b, float f, double d, int* p, float* fp, \
    const float* cfp, void* vp";

/// Type-checks `expr;` inside a kernel and returns the typed expression.
pub fn typed_expr(expr: &str) -> frontend::typed::Expr {
    let src = format!("__global__ void t({PARAMS}) {{ {expr}; }}");
    let prog = check(&src, &Options::default())
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("t.cu", &src, &d)));
    match &prog.functions[0].body.stmts[0].kind {
        StmtKind::Expr(e) => e.clone(),
        other => panic!("unexpected statement {other:?}"),
    }
}

/// The C type of `expr`.
pub fn ty(expr: &str) -> CType {
    typed_expr(expr).ty.clone()
}

/// Checks `src`, expecting errors; returns the rendered diagnostics.
pub fn errors(src: &str) -> String {
    match check(src, &Options::default()) {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(d) => frontend::render_diagnostics("test.cu", src, &d),
    }
}

/// Checks `src`, expecting success.
pub fn ok(src: &str) -> Program {
    check(src, &Options::default())
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("test.cu", src, &d)))
}

/// Whether `e` is a cast node.
pub fn is_cast(e: &frontend::typed::Expr) -> bool {
    matches!(e.kind, ExprKind::Cast { .. })
}
