//! CUDA's vector types (`int2`, `float4`, ...) in sema: the `make_<type>`
//! functions. The types themselves are ordinary structs with members
//! `x`, `y`, `z`, `w` and CUDA's alignment (`types::vector_type`), so
//! member access, copies and `sizeof` need nothing special.

use super::Checker;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{BuiltinVar, Dim, Expr, ExprKind};
use crate::types::{vector_type, CType};

impl Checker {
    /// `dim3(x, y, z)`: CUDA's constructor, with each argument converted
    /// to `unsigned` and the ones left out 1.
    pub(super) fn dim3_make(&mut self, args: &[Option<Expr>], span: Span) -> Option<Expr> {
        let ty = crate::types::dim3_type();
        let def = ty.struct_def()?.clone();
        if args.len() > 3 {
            self.diags.push(Diagnostic::error(
                span,
                Code::E0007,
                format!(
                    "`dim3` takes at most 3 arguments, but {} were given",
                    args.len()
                ),
            ));
            return None;
        }
        let mut fields = Vec::new();
        for (k, f) in def.fields.iter().enumerate() {
            let v = match args.get(k) {
                Some(a) => {
                    let a = a.clone()?;
                    let at = a.span;
                    let what = format!("argument {} of `dim3`", k + 1);
                    self.assign_convert(a, &CType::UINT, &what, at)?
                }
                None => Expr {
                    kind: ExprKind::IntConst(1),
                    ty: CType::UINT,
                    span,
                },
            };
            fields.push((f.offset, v));
        }
        Some(Expr {
            kind: ExprKind::StructLit(fields),
            ty,
            span,
        })
    }

    /// `threadIdx`, `blockIdx` (`uint3`), `blockDim`, `gridDim` (`dim3`)
    /// as whole values: their three components.
    pub(super) fn builtin_vector(&mut self, var: BuiltinVar, span: Span) -> Expr {
        let ty = match var {
            BuiltinVar::ThreadIdx | BuiltinVar::BlockIdx => {
                vector_type("uint3").expect("uint3 is a vector type")
            }
            BuiltinVar::BlockDim | BuiltinVar::GridDim => crate::types::dim3_type(),
        };
        let fields = [Dim::X, Dim::Y, Dim::Z]
            .into_iter()
            .zip([0, 4, 8])
            .map(|(d, offset)| {
                let e = Expr {
                    kind: ExprKind::Builtin(var, d),
                    ty: CType::UINT,
                    span,
                };
                (offset, e)
            })
            .collect();
        Expr {
            kind: ExprKind::StructLit(fields),
            ty,
            span,
        }
    }

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
