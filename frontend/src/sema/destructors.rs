//! Destructors: where an object's lifetime ends, the calls C++ makes.
//!
//! A class's destructor is the member function `Class::~Class` the parser
//! makes of a destructor with a body (an empty one, `~S() {}` or
//! `= default`, is no function). Destroying an object runs, as C++ says
//! ([class.dtor]): its class's destructor body, then the destructors of
//! its members in reverse declaration order, then those of its bases in
//! reverse order; a class whose members or bases have destructors is
//! destroyed that way even when it declares none itself.
//!
//! Sema inserts the calls into the typed tree, so lowering sees C:
//!
//! - a named local is destroyed where its scope ends: at the end of its
//!   block, and before a `return`, `break` or `continue` that leaves the
//!   block (innermost scope first, each scope's locals in reverse order
//!   of declaration);
//! - a temporary made by a constructor (`S(1).get()`, `f(S(2))`) is
//!   destroyed at the end of its full-expression; the one that initializes
//!   a local (`S s(1);`, `S s = S(1);`) *is* the local (C++17's guaranteed
//!   elision), and one a reference is bound to lives as long as the
//!   reference.
//!
//! What kernelc does not do yet is a located E0002: an array of such
//! objects, passing or returning one by value, a `goto` that leaves the
//! scope of one, and a temporary with a destructor in a condition.

use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{Block, Expr, ExprKind, LocalId, Place, Stmt, StmtKind};
use crate::types::{CType, StructDef};

use super::Checker;

fn mk(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

fn expr_stmt(e: Expr) -> Stmt {
    let span = e.span;
    Stmt {
        kind: StmtKind::Expr(e),
        span,
    }
}

/// The local a class prvalue is made in, through the `Comma`s of its
/// construction (`(S::S(&tmp, 1), tmp)`) and the address a reference
/// takes of it (`(.., &tmp)`).
fn made_in(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Comma { rhs, .. } => made_in(rhs),
        ExprKind::Local(id) => Some(*id),
        ExprKind::AddrOf(place) => match place.as_ref() {
            Place::Local(id) => Some(*id),
            _ => None,
        },
        ExprKind::Cast { expr, .. } => made_in(expr),
        _ => None,
    }
}

impl Checker {
    /// The key of class `def`'s destructor, if it has one with a body.
    fn destructor_of(&self, def: &StructDef) -> Option<String> {
        let name = format!("~{}", crate::mangle::unqualified(&def.name));
        self.overloads
            .by_plain
            .get(&crate::parser::join(&def.name, &name))
            .and_then(|keys| keys.first().cloned())
    }

    /// Whether destroying an object of type `ty` calls anything: its
    /// class, one of its members' or one of its bases' has a destructor.
    pub(super) fn has_destructor(&self, ty: &CType) -> bool {
        match ty {
            CType::Array { elem, .. } => self.has_destructor(elem),
            _ => ty.struct_def().is_some_and(|def| {
                self.destructor_of(def).is_some()
                    || def
                        .fields
                        .iter()
                        .any(|f| !f.reference && self.has_destructor(&f.ty))
            }),
        }
    }

    /// The calls that destroy the object `obj` (an lvalue of class type),
    /// in C++'s order: the body, the members in reverse, the bases in
    /// reverse.
    fn destroy(&mut self, obj: Expr, span: Span) -> Vec<Expr> {
        let Some(def) = obj.ty.struct_def().cloned() else {
            return Vec::new();
        };
        let mut calls = Vec::new();
        if let Some(key) = self.destructor_of(&def) {
            let plain = crate::parser::join(&def.name, crate::mangle::unqualified(&key));
            if let Some(call) =
                self.call_member(&plain, &[key], obj.clone(), Vec::new(), span, span)
            {
                calls.push(call);
            }
        }
        // Members, then bases (the first `def.bases` fields), each in
        // reverse order: one reverse walk over the fields.
        for f in def.fields.iter().rev() {
            if f.reference || !self.has_destructor(&f.ty) {
                continue;
            }
            if matches!(f.ty, CType::Array { .. }) {
                self.error(
                    span,
                    Code::E0002,
                    format!(
                        "destroying an array member of type `{}` is not supported by kernelc yet",
                        f.ty
                    ),
                );
                continue;
            }
            let field = mk(
                ExprKind::Field {
                    base: Box::new(obj.clone()),
                    offset: f.offset,
                },
                f.ty.clone(),
                span,
            );
            calls.extend(self.destroy(field, span));
        }
        calls
    }

    /// The statements that destroy `locals`, last declared first.
    fn destroy_locals(&mut self, locals: &[LocalId], span: Span) -> Vec<Stmt> {
        let mut out = Vec::new();
        for &id in locals.iter().rev() {
            let ty = self.func.locals[id.0 as usize].ty.clone();
            let obj = mk(ExprKind::Local(id), ty, span);
            out.extend(self.destroy(obj, span).into_iter().map(expr_stmt));
        }
        out
    }

    /// A named local of type `ty` was declared: it is destroyed where its
    /// scope ends. Parameters and arrays of classes with destructors are
    /// not supported yet.
    pub(super) fn note_destructible(
        &mut self,
        id: LocalId,
        ty: &CType,
        is_param: bool,
        span: Span,
    ) {
        if !self.has_destructor(ty) {
            return;
        }
        if is_param {
            self.error(
                span,
                Code::E0002,
                format!("a parameter of type `{ty}`, whose destruction calls a destructor, is not supported by kernelc yet (pass a reference)"),
            );
        } else if matches!(ty, CType::Array { .. }) {
            self.error(
                span,
                Code::E0002,
                format!("an array `{ty}` of objects whose destruction calls a destructor is not supported by kernelc yet"),
            );
        } else if let Some(scope) = self.func.scopes.last_mut() {
            scope.destroy.push(id);
            // Its destruction uses it: no "unused variable" (a guard).
            self.mark_used(id);
        }
    }

    /// A temporary of class type `ty` was made in `id`: destroyed at the
    /// end of its full-expression unless a local or a reference takes it.
    pub(super) fn note_temporary(&mut self, id: LocalId, ty: &CType) {
        if self.has_destructor(ty) {
            self.func.temporaries.push(id);
        }
    }

    /// The statements that end the innermost scope's locals' lifetimes.
    pub(super) fn scope_end(&mut self, span: Span) -> Vec<Stmt> {
        let locals = self
            .func
            .scopes
            .last()
            .map(|s| s.destroy.clone())
            .unwrap_or_default();
        self.destroy_locals(&locals, span)
    }

    /// The statements that end the lifetimes of the locals of every scope
    /// from `depth` in, innermost first (a jump out of them).
    pub(super) fn leave_scopes(&mut self, depth: usize, span: Span) -> Vec<Stmt> {
        let locals: Vec<LocalId> = self.func.scopes[depth.min(self.func.scopes.len())..]
            .iter()
            .flat_map(|s| s.destroy.iter().copied())
            .collect();
        self.destroy_locals(&locals, span)
    }

    /// Whether a local of the innermost scope will be destroyed.
    pub(super) fn destructible_in_scope_innermost(&self) -> bool {
        self.func
            .scopes
            .last()
            .is_some_and(|s| !s.destroy.is_empty())
    }

    /// The temporary a class prvalue `e` was made in, if its destructor
    /// is to run at the end of the full-expression.
    pub(super) fn pending_temporary(&self, e: &Expr) -> Option<LocalId> {
        made_in(e).filter(|t| {
            self.func.temporaries.contains(t) && matches!(e.kind, ExprKind::Comma { .. })
        })
    }

    /// Whether some local in scope will be destroyed (a `goto` cannot
    /// leave such scopes in kernelc yet).
    pub(super) fn destructible_in_scope(&self) -> bool {
        self.func.scopes.iter().any(|s| !s.destroy.is_empty())
    }

    /// `stmts` (one full-expression's statements: an expression, or a
    /// declaration's declarators) followed by the destruction of the
    /// temporaries they made, but for the one a local is made in and those
    /// a reference is bound to, which live as long as the local.
    pub(super) fn end_full_expression(&mut self, mut stmts: Vec<Stmt>) -> Vec<Stmt> {
        if self.func.temporaries.is_empty() {
            return stmts;
        }
        let temps = std::mem::take(&mut self.func.temporaries);
        let mut taken = Vec::new();
        let mut extended = Vec::new();
        for st in &stmts {
            if let StmtKind::Decl {
                local,
                init: Some(init),
                ..
            } = &st.kind
            {
                if let Some(t) = made_in(init).filter(|t| temps.contains(t)) {
                    taken.push(t);
                    if self.func.locals[local.0 as usize].ty.is_pointer() {
                        extended.push(t);
                    }
                }
            }
        }
        let dying: Vec<LocalId> = temps.into_iter().filter(|t| !taken.contains(t)).collect();
        if let Some(scope) = self.func.scopes.last_mut() {
            scope.destroy.extend(extended);
        }
        let span = stmts.first().map_or(Span::default(), |s| s.span);
        let dtors = self.destroy_locals(&dying, span);
        stmts.extend(dtors);
        stmts
    }

    /// `break` (`is_break`) or `continue`, destroying the locals of the
    /// scopes it leaves.
    pub(super) fn jump_out(&mut self, is_break: bool, span: Span) -> StmtKind {
        let depth = if is_break {
            self.func.break_scopes.last()
        } else {
            self.func.continue_scopes.last()
        };
        let jump = || {
            if is_break {
                StmtKind::Break
            } else {
                StmtKind::Continue
            }
        };
        let Some(&depth) = depth else {
            return jump();
        };
        let mut stmts = self.leave_scopes(depth, span);
        if stmts.is_empty() {
            return jump();
        }
        stmts.push(Stmt { kind: jump(), span });
        StmtKind::Block(Block { stmts, span })
    }

    /// A checked `return` statement, with the destructions on its way
    /// out put before its `Return`.
    pub(super) fn return_destroying(&mut self, kind: StmtKind, span: Span) -> StmtKind {
        match kind {
            StmtKind::Return(v) => self.return_through_destructors(v, span),
            StmtKind::Block(mut b)
                if matches!(
                    b.stmts.last(),
                    Some(Stmt {
                        kind: StmtKind::Return(None),
                        ..
                    })
                ) =>
            {
                b.stmts.pop();
                let ret = self.return_through_destructors(None, span);
                b.stmts.push(Stmt { kind: ret, span });
                StmtKind::Block(b)
            }
            other => other,
        }
    }

    /// A statement whose full-expressions kernelc cannot end in the
    /// middle (a condition): a temporary with a destructor there is E0002.
    pub(super) fn refuse_temporaries(&mut self, span: Span) {
        if !std::mem::take(&mut self.func.temporaries).is_empty() {
            self.error(
                span,
                Code::E0002,
                "a temporary whose destruction calls a destructor is not supported by kernelc in a condition or a loop's step yet",
            );
        }
    }

    /// `return value;` where locals or temporaries are destroyed on the
    /// way out: the value is kept in a new local first.
    pub(super) fn return_through_destructors(
        &mut self,
        value: Option<Expr>,
        span: Span,
    ) -> StmtKind {
        let temps = std::mem::take(&mut self.func.temporaries);
        let mut dtors = self.destroy_locals(&temps, span);
        dtors.extend(self.leave_scopes(0, span));
        if dtors.is_empty() {
            return StmtKind::Return(value);
        }
        let mut stmts = Vec::new();
        let value = value.map(|v| {
            let ty = v.ty.clone();
            let keep = self.declare_local("", ty.clone(), false, false, span);
            self.mark_used(keep);
            stmts.push(Stmt {
                kind: StmtKind::Decl {
                    local: keep,
                    init: Some(v),
                    list: None,
                },
                span,
            });
            mk(ExprKind::Local(keep), ty, span)
        });
        stmts.extend(dtors);
        stmts.push(Stmt {
            kind: StmtKind::Return(value),
            span,
        });
        StmtKind::Block(Block { stmts, span })
    }
}
