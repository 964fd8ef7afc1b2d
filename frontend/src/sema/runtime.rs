//! The CUDA runtime's device library: `printf` and `assert`.
//!
//! `printf(format, args...)` is C's variadic call: the format converts to
//! `const char *` and each further argument gets C's default argument
//! promotions (`float` to `double`, `bool`, `char` and `short` to `int`),
//! which are the types the runtime's argument buffer holds.
//!
//! `assert(e)` is a macro kernelc predefines, as `<assert.h>` defines it
//! (`headers.rs`): it expands to `__kernelc_assert((e), "e", __FILE__,
//! __LINE__, NDEBUG-as-text)`, so the text of the condition, the file and
//! the line come from the preprocessor, which knows them. The last argument
//! is `NDEBUG` stringized after expansion: `"NDEBUG"` while the macro is not
//! defined, which turns the check on, as `<assert.h>` does.

use super::expr::const_char_ptr;
use super::Checker;
use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{Expr, ExprKind, Intrinsic};
use crate::types::CType;

/// The builtin the `assert` macro expands to.
pub(super) const ASSERT_BUILTIN: &str = "__kernelc_assert";

impl Checker {
    /// The current function as `__PRETTY_FUNCTION__` names it.
    fn pretty_function(&self) -> String {
        self.func.pretty_fn.clone()
    }

    /// `printf(format, args...)`: `int`, the runtime's `vprintf` result.
    pub(super) fn printf_call(&mut self, args: Vec<Expr>, span: Span) -> Option<Expr> {
        let mut args = args.into_iter();
        let Some(format) = args.next() else {
            self.error(span, Code::E0099, "`printf` takes a format string");
            return None;
        };
        let at = format.span;
        let format =
            self.assign_convert(format, &const_char_ptr(), "the format of `printf`", at)?;
        let mut out = vec![format];
        for a in args {
            out.push(self.vararg(a)?);
        }
        Some(Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Printf,
                args: out,
            },
            ty: CType::INT,
            span,
        })
    }

    /// A variadic argument after C's default argument promotions.
    fn vararg(&mut self, a: Expr) -> Option<Expr> {
        match &a.ty {
            CType::Float { bits: 32 } => Some(super::convert::convert(a, &CType::DOUBLE)),
            t if t.is_arithmetic() => Some(super::convert::promote(a)),
            CType::Pointer { .. } => Some(a),
            other => {
                self.error(
                    a.span,
                    Code::E0099,
                    format!(
                        "cannot pass `{other}` to `printf`: its arguments are numbers, pointers and strings"
                    ),
                );
                None
            }
        }
    }

    /// `__kernelc_assert(cond, "cond", file, line, ndebug)` (the expansion
    /// of `assert(cond)`): on a false condition, a call of the runtime's
    /// `__assertfail(text, file, line, function, sizeof(char))`, or nothing
    /// under `NDEBUG`.
    pub(super) fn assert_call(&mut self, args: Vec<Expr>, span: Span) -> Option<Expr> {
        let is_str = |a: &Expr| matches!(a.kind, ExprKind::Str(_));
        let well_formed = args.len() == 5
            && is_str(&args[1])
            && is_str(&args[2])
            && matches!(args[3].kind, ExprKind::IntConst(_))
            && is_str(&args[4]);
        if !well_formed {
            self.error(
                span,
                Code::E0099,
                format!(
                    "`{ASSERT_BUILTIN}` is the expansion of `assert(condition)`; call `assert`"
                ),
            );
            return None;
        }
        let [cond, text, file, line, ndebug]: [Expr; 5] = args.try_into().ok()?;
        let cond = self.make_bool(cond)?;
        let enabled = matches!(&ndebug.kind, ExprKind::Str(s) if s == b"NDEBUG");
        let (op, args) = if enabled {
            let function = Expr {
                kind: ExprKind::Str(self.pretty_function().into_bytes()),
                ty: const_char_ptr(),
                span,
            };
            let line = super::convert::convert(line, &CType::UINT);
            (Intrinsic::Assert, vec![cond, text, file, line, function])
        } else {
            // `NDEBUG`: the condition is checked as C++ but never evaluated.
            (Intrinsic::Nothing, Vec::new())
        };
        Some(Expr {
            kind: ExprKind::Intrinsic { op, args },
            ty: CType::Void,
            span,
        })
    }
}
