//! Device function pointers: a function's name used as a value, calls
//! through a pointer, and the conversions of function pointer types.
//!
//! A function designator decays to its address wherever it is not called
//! (`f = relu;`, `&relu`, `table[k] = relu`), which is
//! [`ExprKind::FuncAddr`] of type `R (*)(P...)`; `*f` is `f` again. A call
//! whose callee is a value of function pointer type (a variable, a member,
//! an element, `(*f)`) is [`ExprKind::CallIndirect`]. The name of an
//! overloaded function stands for its first overload until a conversion to
//! a function pointer type picks the overload of exactly that type
//! ([`Checker::pick_overload_address`], C++ [over.over]).

use super::Checker;
use crate::ast;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::FuncLink;
use crate::typed::{Expr, ExprKind, FuncId};
use crate::types::{CType, FnType};
use std::sync::Arc;

impl Checker {
    /// The address of the function `name` (a key of `by_name`), used as a
    /// value at `span`. Kernels, member functions and functions whose
    /// parameters or result kernelc cannot pass through a pointer are
    /// refused.
    pub(super) fn function_address(&mut self, name: &str, span: Span) -> Option<Expr> {
        let &idx = self.by_name.get(name)?;
        let sig = &self.sigs[idx];
        let refusal = if sig.is_kernel {
            Some((
                Code::E0002,
                format!("the address of `__global__` function `{name}` in device code (for a launch from the device) is not supported by kernelc"),
            ))
        } else if sig.is_method {
            Some((
                Code::E0002,
                format!("pointers to member functions (`{name}`) are not supported by kernelc"),
            ))
        } else if sig.returns.reference() {
            Some((
                Code::E0002,
                format!("pointers to functions with reference results (`{name}`) are not supported by kernelc"),
            ))
        } else if sig.ret.is_struct() || sig.params.iter().any(CType::is_struct) {
            Some((
                Code::E0002,
                format!("pointers to functions that pass structs by value (`{name}`) are not supported by kernelc"),
            ))
        } else {
            None
        };
        if let Some((code, msg)) = refusal {
            self.error(span, code, msg);
            return None;
        }
        if sig.first_item > self.item {
            let decl = sig.first_decl;
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0001,
                    format!("use of undeclared identifier `{name}`"),
                )
                .with_label(decl, "declared later here")
                .with_note("add a prototype before the first use"),
            );
            return None;
        }
        let ty = CType::ptr_to(CType::Function(Arc::new(FnType {
            ret: sig.ret.clone(),
            params: self.params_as_written(idx),
        })));
        let callee = self.definition(idx, span).unwrap_or(FuncId(u32::MAX));
        if self.sigs[idx].first_call.is_none() {
            // A function used but never defined is reported as a call is.
            self.sigs[idx].first_call = Some(span);
        }
        let name = name.to_string();
        Some(Expr {
            kind: ExprKind::FuncAddr { callee, name },
            ty,
            span,
        })
    }

    /// `e` converted to the function pointer type `to` when `e` is the
    /// address of an overloaded function and another of its overloads has
    /// exactly that type; otherwise `e` unchanged (the caller's conversion
    /// then accepts it or reports the mismatch).
    pub(super) fn pick_overload_address(&mut self, e: Expr, to: &CType) -> Expr {
        let ExprKind::FuncAddr { name, .. } = &e.kind else {
            return e;
        };
        if e.ty.unqualified() == to.unqualified() || !to.is_fn_pointer() {
            return e;
        }
        let plain = self
            .overloads
            .plain_of
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.clone());
        let Some(keys) = self.overloads.by_plain.get(&plain).cloned() else {
            return e;
        };
        let want = to.fn_pointee().cloned();
        let matching = keys.iter().find(|k| {
            self.by_name.get(k.as_str()).is_some_and(|&i| {
                want.as_ref().is_some_and(|w| {
                    w.ret == self.sigs[i].ret && w.params == self.params_as_written(i)
                })
            })
        });
        match matching.cloned() {
            Some(key) => self.function_address(&key, e.span).unwrap_or(e),
            None => e,
        }
    }

    /// A call through `callee`, a value of function pointer type, with
    /// the arguments `typed` (already checked; `None` after an error).
    pub(super) fn indirect_call(
        &mut self,
        callee: Expr,
        typed: Vec<Option<Expr>>,
        span: Span,
    ) -> Option<Expr> {
        let Some(f) = callee.ty.fn_pointee().cloned() else {
            self.error(
                callee.span,
                Code::E0007,
                format!("called object of type `{}` is not a function", callee.ty),
            );
            return None;
        };
        if typed.len() != f.params.len() {
            let which = if typed.len() < f.params.len() {
                "few"
            } else {
                "many"
            };
            self.error(
                span,
                Code::E0007,
                format!(
                    "too {which} arguments to a call through `{}`, expected {}, have {}",
                    callee.ty,
                    f.params.len(),
                    typed.len()
                ),
            );
            return None;
        }
        let mut args = Vec::with_capacity(typed.len());
        for (i, (a, p)) in typed.into_iter().zip(&f.params).enumerate() {
            let a = a?;
            let what = format!("argument {} of a call through a function pointer", i + 1);
            let at = a.span;
            if let CType::Ref { rvalue, .. } = p {
                // A reference parameter receives the object's address, as
                // in a direct call.
                let ptr = p.passed_as();
                let addr = self.bind_reference_as(a, &ptr, *rvalue, &what)?;
                args.push(self.assign_convert(addr, &ptr, &what, at)?);
                continue;
            }
            let a = self.pick_overload_address(a, p);
            args.push(self.assign_convert(a, p, &what, at)?);
        }
        let kind = ExprKind::CallIndirect {
            callee: Box::new(callee),
            args,
        };
        Some(Expr {
            kind,
            ty: f.ret.clone(),
            span,
        })
    }

    /// A call `callee(args)` whose callee is an expression (not a name the
    /// checker resolves as a function): a call through a function pointer.
    pub(super) fn call_through(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let c = self.expr_nodecay(callee);
        let typed: Vec<Option<Expr>> = args.iter().map(|a| self.expr(a)).collect();
        let c = c?;
        if c.ty.is_struct() {
            // `Op()(a, b)`, `table[i](x)`: a class object's `operator()`.
            return self.call_operator(c, callee.span, typed, span);
        }
        let c = self.decay(c);
        self.indirect_call(c, typed, span)
    }
}

impl Checker {
    /// The argument of the template parameter `param` of function pointer
    /// type `ty`: a function of exactly that type, named (`warpMax`) or with
    /// `&`. The instance is parsed with the function's name in place of the
    /// parameter's, so it calls it directly, as nvcc's inlining does.
    pub(super) fn function_template_arg(
        &mut self,
        e: &ast::Expr,
        ty: &CType,
        param: &str,
    ) -> Option<crate::templates::ArgValue> {
        let typed = self.expr(e)?;
        let typed = self.pick_overload_address(typed, ty);
        let ExprKind::FuncAddr { name, .. } = &typed.kind else {
            self.error(
                e.span,
                Code::E0019,
                format!("the argument of template parameter `{param}` must name a function"),
            );
            return None;
        };
        if typed.ty.fn_pointee() != ty.fn_pointee() {
            self.error(
                e.span,
                Code::E0019,
                format!(
                    "template parameter `{param}` takes a `{ty}`, but the argument is a `{}`",
                    typed.ty
                ),
            );
            return None;
        }
        let plain = self.overloads.plain_of.get(name).unwrap_or(name).clone();
        let idx = *self.by_name.get(name)?;
        let sig = &self.sigs[idx];
        let link = match sig.extern_c {
            true => FuncLink::C(crate::mangle::unqualified(&plain).to_string()),
            false => FuncLink::Cxx {
                key: crate::mangle::linkage_key(&plain, sig.internal_name),
                params: self.params_as_written(idx),
            },
        };
        Some(crate::templates::ArgValue::Func { name: plain, link })
    }
}

impl Checker {
    /// The parameter types of function `idx` as its type and its name
    /// write them: a reference parameter (a pointer in the signature) as
    /// the reference.
    fn params_as_written(&self, idx: usize) -> Vec<CType> {
        let sig = &self.sigs[idx];
        (sig.params.iter().zip(&sig.refs).zip(&sig.rvalue_refs))
            .map(|((ty, &is_ref), &rvalue)| as_written(ty, is_ref, rvalue))
            .collect()
    }
}

/// A parameter's type as its function's name writes it: a reference
/// parameter, a pointer in the signature, as the reference.
fn as_written(ty: &CType, is_ref: bool, rvalue: bool) -> CType {
    match (is_ref, ty) {
        (
            true,
            CType::Pointer {
                pointee,
                pointee_const,
                pointee_volatile,
                ..
            },
        ) => CType::Ref {
            referent: pointee.clone(),
            referent_const: *pointee_const,
            referent_volatile: *pointee_volatile,
            rvalue,
        },
        _ => ty.clone(),
    }
}

/// Whether `e` is the null pointer constant `nullptr` (`(void *)0`), which
/// converts to every function pointer type.
pub(super) fn is_nullptr(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Cast { expr, .. } => {
            e.ty.pointee() == Some(&CType::Void) && matches!(expr.kind, ExprKind::IntConst(0))
        }
        _ => false,
    }
}
