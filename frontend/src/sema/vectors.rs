//! CUDA's vector types (`int2`, `float4`, ...) in sema: the `make_<type>`
//! functions. The types themselves are ordinary structs with members
//! `x`, `y`, `z`, `w` and CUDA's alignment (`types::vector_type`), so
//! member access, copies and `sizeof` need nothing special.

use super::Checker;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{Expr, ExprKind};
use crate::types::{vector_type, CType};

impl Checker {
    /// `make_float4(x, y, z, w)` and friends: each argument is converted to
    /// the element type as if by assignment, as CUDA's inline functions do.
    /// `None` when `name` is not such a function; `Some(None)` after an
    /// error was reported.
    pub(super) fn vector_make(
        &mut self,
        name: &str,
        args: &[Option<Expr>],
        span: Span,
    ) -> Option<Option<Expr>> {
        let ty = vector_type(name.strip_prefix("make_")?)?;
        let def = ty.struct_def()?.clone();
        if args.len() != def.fields.len() {
            self.diags.push(Diagnostic::error(
                span,
                Code::E0007,
                format!(
                    "`{name}` takes {} arguments, but {} were given",
                    def.fields.len(),
                    args.len()
                ),
            ));
            return Some(None);
        }
        let mut fields = Vec::new();
        for (k, (a, f)) in args.iter().zip(&def.fields).enumerate() {
            let Some(a) = a.clone() else {
                return Some(None);
            };
            let at = a.span;
            let what = format!("argument {} of `{name}`", k + 1);
            let Some(v) = self.assign_convert(a, &f.ty, &what, at) else {
                return Some(None);
            };
            fields.push((f.offset, v));
        }
        Some(Some(Expr {
            kind: ExprKind::StructLit(fields),
            ty: CType::Struct(std::sync::Arc::new(def)),
            span,
        }))
    }
}
