//! C++ spellings over what the C core already has: named casts, `nullptr`,
//! `T()`, `static_assert`, `auto`, `constexpr`, brace initialization,
//! references and range-based `for`.
//!
//! None of them needs a new node in the typed tree. A reference is a local
//! (or parameter) holding the address of the object it names, and every use
//! of its name is a dereference ([`super::Binding::Ref`]); so `swap(a, b)`
//! on two locals takes their addresses, which puts them in stack slots that
//! the midend's promotion pass turns back into registers after inlining,
//! and a reference to shared or global memory is a pointer whose space
//! memory-space inference recovers. A range-based `for` over an array is
//! the counted loop it means.

use super::convert::{is_null_const, strip_restrict};
use super::Checker;
use crate::ast::{self, NamedCastKind, QualType};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{CastKind, CmpOp, Expr, ExprKind, Place, Stmt, StmtKind};
use crate::types::CType;

fn mk(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// The pointer type a reference to `t` is lowered as.
pub(super) fn reference_to(t: &QualType) -> CType {
    CType::Pointer {
        pointee: Box::new(strip_restrict(&t.ty).0),
        pointee_const: t.is_const,
        pointee_volatile: t.is_volatile,
        restrict: false,
    }
}

/// `nullptr`: a null `void *`, which converts to every pointer type and to
/// no integer (C++'s `std::nullptr_t` behaves the same in every context
/// kernelc accepts).
pub(super) fn null_pointer(span: Span) -> Expr {
    let zero = mk(ExprKind::IntConst(0), CType::LONG, span);
    mk(
        ExprKind::Cast {
            kind: CastKind::IntToPtr,
            expr: Box::new(zero),
        },
        CType::ptr_to(CType::Void),
        span,
    )
}

/// The `const`/`volatile` of a pointer's pointee.
fn pointee_quals(t: &CType) -> (bool, bool) {
    match t {
        CType::Pointer {
            pointee_const,
            pointee_volatile,
            ..
        } => (*pointee_const, *pointee_volatile),
        _ => (false, false),
    }
}

/// Whether converting pointer `from` to pointer `to` drops a qualifier of
/// the pointee, which only `const_cast` may do.
pub(super) fn casts_away_quals(from: &CType, to: &CType) -> bool {
    let (fc, fv) = pointee_quals(from);
    let (tc, tv) = pointee_quals(to);
    (fc && !tc) || (fv && !tv)
}

/// Why C++ rejects `kind<to>(e)`, or `None` when it is allowed.
fn named_cast_error(kind: NamedCastKind, e: &Expr, to: &CType) -> Option<&'static str> {
    let from = &e.ty;
    let same = from.unqualified() == to.unqualified();
    match kind {
        NamedCastKind::Static => {
            if from.is_pointer() && to.is_pointer() && casts_away_quals(from, to) {
                return Some(
                    "`static_cast` cannot cast away `const` or `volatile`; use `const_cast`",
                );
            }
            if *to == CType::Void || same || (from.is_arithmetic() && to.is_arithmetic()) {
                return None;
            }
            if from.is_pointer() && *to == CType::Bool {
                return None;
            }
            if to.is_pointer() && is_null_const(e) {
                return None;
            }
            if from.is_pointer() && to.is_pointer() {
                let (fp, tp) = (from.pointee()?, to.pointee()?);
                let related = Checker::class_pointer_offset(from, to, true).is_some();
                if fp.unqualified() != tp.unqualified()
                    && *fp != CType::Void
                    && *tp != CType::Void
                    && !related
                {
                    return Some("`static_cast` cannot convert between unrelated pointer types; use `reinterpret_cast`");
                }
                if casts_away_quals(from, to) {
                    return Some(
                        "`static_cast` cannot cast away `const` or `volatile`; use `const_cast`",
                    );
                }
                return None;
            }
            if (from.is_pointer() && to.is_integer()) || (from.is_integer() && to.is_pointer()) {
                return Some("`static_cast` cannot convert between pointers and integers; use `reinterpret_cast`");
            }
            Some("`static_cast` cannot perform this conversion")
        }
        NamedCastKind::Reinterpret => {
            if from.is_pointer() && to.is_pointer() {
                if casts_away_quals(from, to) {
                    return Some("`reinterpret_cast` cannot cast away `const` or `volatile`; use `const_cast`");
                }
                return None;
            }
            if from.is_pointer() && to.is_integer() {
                return match to {
                    CType::Int { bits: 64, .. } => None,
                    _ => Some("`reinterpret_cast` from a pointer to an integer narrower than the pointer loses its value"),
                };
            }
            if from.is_integer() && *from != CType::Bool && to.is_pointer() {
                return None;
            }
            if same && from.is_integer() {
                return None;
            }
            Some("`reinterpret_cast` converts only between pointers, and between pointers and integers; use `static_cast` for arithmetic conversions")
        }
        NamedCastKind::Const => {
            if from.is_pointer() && to.is_pointer() {
                let (fp, tp) = (from.pointee()?, to.pointee()?);
                if fp.unqualified() == tp.unqualified() {
                    return None;
                }
            }
            Some("`const_cast` only converts between pointer types that differ in `const` or `volatile`")
        }
    }
}

impl Checker {
    /// `static_cast<T>(e)`, `reinterpret_cast<T>(e)`, `const_cast<T>(e)`:
    /// C++'s rules decide whether the cast is allowed; an allowed one is
    /// then the same conversion as the C cast.
    #[inline(never)]
    pub(super) fn named_cast(
        &mut self,
        kind: NamedCastKind,
        ty: &QualType,
        expr: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let e = self.expr(expr)?;
        let to = strip_restrict(&ty.ty).0;
        if let Some(why) = named_cast_error(kind, &e, &to) {
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0004,
                    format!("cannot cast `{}` to `{to}` with `{}`", e.ty, kind.as_str()),
                )
                .with_note(why),
            );
            return None;
        }
        self.explicit_cast(e, &to, span)
    }

    /// `T()`: zero of a scalar type.
    #[inline(never)]
    pub(super) fn zero_init(&mut self, ty: &QualType, span: Span) -> Option<Expr> {
        let t = strip_restrict(&ty.ty).0;
        let zero = match &t {
            CType::Float { .. } => mk(ExprKind::FloatConst(0.0), t.clone(), span),
            CType::Int { .. } | CType::Bool => mk(ExprKind::IntConst(0), t.clone(), span),
            CType::Pointer { .. } => {
                let n = null_pointer(span);
                return self.explicit_cast(n, &t, span);
            }
            CType::Void => {
                let z = mk(ExprKind::IntConst(0), CType::INT, span);
                return self.explicit_cast(z, &CType::Void, span);
            }
            _ => {
                self.error(
                    span,
                    Code::E0002,
                    format!("value-initialized temporaries of type `{t}` (`{t}()`) are not supported by kernelc"),
                );
                return None;
            }
        };
        Some(zero)
    }

    /// `static_assert(cond[, "message"])`, checked now.
    #[inline(never)]
    pub(super) fn static_assert(&mut self, sa: &ast::StaticAssert) {
        let Some(e) = self.expr(&sa.cond) else {
            return;
        };
        let value = if e.ty.is_integer() {
            self.const_int(&e)
        } else {
            None
        };
        match value {
            None => self.error(
                sa.cond.span,
                Code::E0009,
                "the condition of `static_assert` must be an integer constant expression",
            ),
            Some(0) => {
                let msg = match &sa.message {
                    Some(m) => format!("static assertion failed: {m}"),
                    None => "static assertion failed".to_string(),
                };
                let mut d = Diagnostic::error(sa.cond.span, Code::E0013, msg);
                for (tag, site) in sa.instantiated.iter().rev() {
                    d = d.with_label(*site, format!("in `{tag}`, instantiated here"));
                }
                self.diags.push(d);
            }
            Some(_) => {}
        }
    }

    /// The address a reference of pointer type `ptr_ty` (to `T`) binds to
    /// for the value `e`: an lvalue of type `T` itself, or, for a `const`
    /// reference, a temporary holding `e` converted to `T` (C++'s
    /// temporary materialization). `what` names the reference for messages.
    pub(super) fn bind_reference(&mut self, e: Expr, ptr_ty: &CType, what: &str) -> Option<Expr> {
        self.bind_reference_as(e, ptr_ty, false, what)
    }

    /// [`Checker::bind_reference`] for an rvalue reference when `rvalue`
    /// (`T &&x`), which binds a temporary as a `const` reference does.
    pub(super) fn bind_reference_as(
        &mut self,
        e: Expr,
        ptr_ty: &CType,
        rvalue: bool,
        what: &str,
    ) -> Option<Expr> {
        let span = e.span;
        let e = self.lvalue_conditional(e)?;
        let e = self.assigned_object(e);
        let want = ptr_ty.pointee().cloned().unwrap_or(CType::INT);
        let (const_ref, _) = pointee_quals(ptr_ty);
        let const_ref = const_ref || rvalue;
        // A derived object binds a reference to its base by its base
        // subobject, never a copy (CRTP's `static_cast<const D *>(this)`
        // must see the whole object).
        let e = match Self::is_lvalue(&e) {
            true => Self::to_base_object(e, &want).unwrap_or_else(|e| e),
            false => e,
        };
        if Self::is_lvalue(&e) && e.ty.unqualified() == want.unqualified() {
            if !const_ref && self.lvalue_is_const(&e) {
                self.error(
                    span,
                    Code::E0005,
                    format!(
                        "{what}: a non-const reference `{want} &` cannot bind to a `const` object"
                    ),
                );
                return None;
            }
            return self.addr_of(e, span);
        }
        if !const_ref {
            let found = if Self::is_lvalue(&e) {
                format!("an object of type `{}`", e.ty)
            } else {
                "a temporary value".to_string()
            };
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0004,
                    format!("{what}: a non-const reference `{want} &` must bind to an object of type `{want}`, not {found}"),
                )
                .with_note("make the reference `const` to bind it to a value"),
            );
            return None;
        }
        let value = self.assign_convert(e, &want, what, span)?;
        self.temporary_address(value, span)
    }

    /// Whether `e`, returned by a function returning the rvalue
    /// reference of pointer type `ptr_ty`, may bind it: a temporary or an
    /// xvalue (`static_cast<T &&>(x)`), not an lvalue (E0004, as C++17
    /// has it: `return x;` does not move a reference).
    pub(super) fn returns_xvalue(&mut self, e: &Expr, ptr_ty: &CType) -> bool {
        if !Self::is_lvalue(e) || self.xvalues.contains(&e.span) {
            return true;
        }
        let want = ptr_ty.pointee().cloned().unwrap_or(CType::INT);
        self.error(
            e.span,
            Code::E0004,
            format!(
                "the returned reference: an rvalue reference `{want} &&` cannot bind to an lvalue"
            ),
        );
        false
    }

    /// `c ? a : b` whose arms are lvalues of one type is an lvalue in C++
    /// ([expr.cond]/4): a reference binds the object it chooses, as
    /// `*(c ? &a : &b)`, never a temporary copy (which a function
    /// returning `const T &` would return the address of after its end).
    /// Only where a reference binds it: elsewhere the value form keeps
    /// its arms out of memory.
    fn lvalue_conditional(&mut self, e: Expr) -> Option<Expr> {
        let ExprKind::Ternary { then, els, .. } = &e.kind else {
            return Some(e);
        };
        if !(Self::is_lvalue(then) && Self::is_lvalue(els) && then.ty == els.ty) {
            return Some(e);
        }
        let konst = self.lvalue_is_const(then) || self.lvalue_is_const(els);
        let (kind, ty, span) = e.into_parts();
        let ExprKind::Ternary { cond, then, els } = kind else {
            unreachable!("matched above")
        };
        let then = self.addr_of(*then, span)?;
        let els = self.addr_of(*els, span)?;
        let ptr = CType::Pointer {
            pointee: Box::new(ty.clone()),
            pointee_const: konst,
            pointee_volatile: false,
            restrict: false,
        };
        let chosen = ExprKind::Ternary {
            cond,
            then: Box::new(super::convert::convert(then, &ptr)),
            els: Box::new(super::convert::convert(els, &ptr)),
        };
        Some(mk(
            ExprKind::Deref(Box::new(mk(chosen, ptr, span))),
            ty,
            span,
        ))
    }

    /// An assignment (`a = x`, `a += x`) or a prefix `++a`/`--a` is an
    /// lvalue in C++ ([expr.ass]/1, [expr.pre.incr]/1): a reference binds
    /// the object it stored to, as `*(p = &a, *p = x, p)`, the target's
    /// address taken once (before the store, as the store's own target
    /// is). Any other `e` is returned as it is.
    fn assigned_object(&mut self, e: Expr) -> Expr {
        let stores = match &e.kind {
            ExprKind::Assign { .. } => true,
            ExprKind::IncDec { pre, .. } => *pre,
            _ => false,
        };
        if !stores {
            return e;
        }
        let (mut kind, ty, span) = e.into_parts();
        let (ExprKind::Assign { target, .. } | ExprKind::IncDec { target, .. }) = &mut kind else {
            unreachable!("matched above")
        };
        let ptr = CType::Pointer {
            pointee: Box::new(ty.clone()),
            pointee_const: false,
            pointee_volatile: false,
            restrict: false,
        };
        let comma = |lhs: Expr, rhs: Expr| {
            let ty = rhs.ty.clone();
            let (lhs, rhs) = (Box::new(lhs), Box::new(rhs));
            mk(ExprKind::Comma { lhs, rhs }, ty, span)
        };
        let object = |address: Expr| mk(ExprKind::Deref(Box::new(address)), ty.clone(), span);
        if let Place::Local(_) | Place::Global(_) = target {
            // Naming a variable has no side effect: its address again.
            let address = mk(ExprKind::AddrOf(Box::new(target.clone())), ptr, span);
            return object(comma(mk(kind, ty.clone(), span), address));
        }
        let p = self.declare_local("", ptr.clone(), false, false, span);
        self.mark_used(p);
        let read_p = mk(ExprKind::Local(p), ptr.clone(), span);
        let place = std::mem::replace(target, Place::Deref(Box::new(read_p.clone())));
        let take = mk(
            ExprKind::Assign {
                target: Place::Local(p),
                op: None,
                value: Box::new(mk(ExprKind::AddrOf(Box::new(place)), ptr.clone(), span)),
            },
            ptr,
            span,
        );
        let stored = mk(kind, ty.clone(), span);
        object(comma(comma(take, stored), read_p))
    }

    /// The address of a new temporary holding `value` (C++'s temporary
    /// materialization): `(tmp = value, &tmp)`.
    pub(super) fn temporary_address(&mut self, value: Expr, span: Span) -> Option<Expr> {
        if let Some(made) = self.pending_temporary(&value) {
            // A class prvalue already has its temporary (one whose
            // destructor runs): that object is the one bound.
            let addr = self.addr_of(mk(ExprKind::Local(made), value.ty.clone(), span), span)?;
            let ty = addr.ty.clone();
            return Some(mk(
                ExprKind::Comma {
                    lhs: Box::new(value),
                    rhs: Box::new(addr),
                },
                ty,
                span,
            ));
        }
        let (store, local) = self.temporary(value, span);
        let addr = self.addr_of(local, span)?;
        let ty = addr.ty.clone();
        Some(mk(
            ExprKind::Comma {
                lhs: Box::new(store),
                rhs: Box::new(addr),
            },
            ty,
            span,
        ))
    }

    /// `T &r = init;` (or `auto &r`, `const T &r`): a local holding the
    /// object's address, bound so that `r` dereferences it.
    #[inline(never)]
    pub(super) fn reference_decl(&mut self, v: &ast::VarDecl) -> Option<Stmt> {
        let init = match &v.init {
            Some(ast::Init::Expr(e)) => e,
            Some(ast::Init::List(items, _)) if items.len() == 1 => match &items[0] {
                ast::Init::Expr(e) => e,
                ast::Init::List(_, sp) => {
                    self.error(
                        *sp,
                        Code::E0099,
                        "a reference cannot be initialized with a nested list",
                    );
                    return None;
                }
            },
            _ => {
                self.error(
                    v.name_span,
                    Code::E0004,
                    format!("reference `{}` must be initialized with an object", v.name),
                );
                return None;
            }
        };
        // `std::move(x)`, `static_cast<T &&>(x)`: the object itself.
        let xvalue = self.value_category_call(init) == Some(false);
        let e = self.expr_nodecay(init)?;
        // A call of a function returning `T &&` is one too.
        let xvalue = xvalue || self.xvalues.contains(&e.span);
        self.reference_bound(v, e, xvalue)
    }

    /// The declaration of the reference `v` bound to the checked
    /// initializer `e`; `xvalue`: `e` is an lvalue made an rvalue, which a
    /// `T &&` binds as it is.
    pub(super) fn reference_bound(
        &mut self,
        v: &ast::VarDecl,
        e: Expr,
        xvalue: bool,
    ) -> Option<Stmt> {
        let target = if v.auto.is_some() {
            QualType {
                ty: e.ty.clone(),
                is_const: v.ty.is_const || self.lvalue_is_const(&e),
                is_volatile: v.ty.is_volatile,
                spelling: Default::default(),
                span: v.ty.span,
            }
        } else {
            v.ty.clone()
        };
        if target.ty == CType::Void {
            self.error(
                v.name_span,
                Code::E0004,
                "a reference to `void` is not valid C++",
            );
            return None;
        }
        let ptr_ty = reference_to(&target);
        let what = format!("reference `{}`", v.name);
        // `T &&r` binds a temporary (materialized, and living as long as
        // `r`), never an lvalue; `auto &&x` binds what it is given.
        let binds_temporary = v.rvalue && !Self::is_lvalue(&e);
        if v.rvalue && v.auto.is_none() && !binds_temporary && !xvalue {
            self.error(
                e.span,
                Code::E0004,
                format!(
                    "{what}: an rvalue reference `{} &&` cannot bind to an lvalue",
                    target.ty
                ),
            );
            return None;
        }
        let addr = self.bind_reference_as(e, &ptr_ty, binds_temporary, &what)?;
        let addr = self.assign_convert(addr, &ptr_ty, "initialization", v.name_span)?;
        let local = self.declare_local(&v.name, ptr_ty, true, false, v.name_span);
        self.rebind_as_ref(&v.name, local);
        self.func.initialized.insert(local);
        Some(Stmt {
            kind: StmtKind::Decl {
                local,
                init: Some(addr),
                list: None,
            },
            span: v.span,
        })
    }

    /// The type and typed initializer of `auto x = init;` (arrays decay,
    /// top-level `const` is dropped unless written: C++'s deduction for
    /// `auto`). `auto x{init}` deduces the same way.
    #[inline(never)]
    pub(super) fn auto_init(&mut self, v: &ast::VarDecl) -> Option<(CType, Expr)> {
        let init = match &v.init {
            Some(ast::Init::Expr(e)) => e,
            Some(ast::Init::List(items, sp)) => match items.as_slice() {
                [ast::Init::Expr(e)] if v.direct_braces => e,
                _ => {
                    self.error(
                        *sp,
                        Code::E0002,
                        "`auto` with a braced list (a `std::initializer_list`) is not supported by kernelc",
                    );
                    return None;
                }
            },
            None => {
                self.error(
                    v.name_span,
                    Code::E0004,
                    format!("`auto` variable `{}` needs an initializer", v.name),
                );
                return None;
            }
        };
        let e = self.expr(init)?;
        if e.ty == CType::Void {
            self.error(
                e.span,
                Code::E0004,
                "cannot deduce `auto` from a `void` value",
            );
            return None;
        }
        let ty = strip_restrict(&e.ty).0;
        if v.ty.ty.is_pointer() && !ty.is_pointer() {
            self.error(
                e.span,
                Code::E0004,
                format!("`auto *` needs a pointer initializer, not `{ty}`"),
            );
            return None;
        }
        Some((ty, e))
    }

    /// A scalar initialized with braces, `int x{3}`, `float y = {}`: one
    /// value (or none, for zero).
    #[inline(never)]
    pub(super) fn scalar_braces(
        &mut self,
        items: &[ast::Init],
        span: Span,
        ty: &CType,
        at: Span,
    ) -> Option<Expr> {
        match items {
            [] => {
                let z = mk(ExprKind::IntConst(0), CType::INT, span);
                Some(super::convert::convert(z, ty))
            }
            [ast::Init::Expr(e)] => {
                let t = self.expr(e)?;
                self.assign_convert(t, ty, "initialization", at)
            }
            _ => {
                self.error(
                    span,
                    Code::E0004,
                    format!("a braced initializer for `{ty}` needs exactly one value"),
                );
                None
            }
        }
    }

    /// C++ forbids narrowing conversions in brace initialization; nvcc
    /// warns (#2361-D) rather than failing, and so does kernelc: W0004 for
    /// the cases W0002 does not already report (a non-constant integer
    /// converted to `float`, or to an integer type that cannot hold all its
    /// values).
    #[inline(never)]
    pub(super) fn brace_narrowing(&mut self, converted: &Expr) {
        let ExprKind::Cast { expr: from, .. } = &converted.kind else {
            return;
        };
        if from.span != converted.span {
            // An explicit cast (`float(n)`, `(float)n`), which spans more
            // than its operand; an implicit conversion spans just it
            // (`convert::convert`).
            return;
        }
        let (ft, tt) = (&from.ty, &converted.ty);
        let narrowing = match (ft, tt) {
            (CType::Int { .. }, CType::Float { bits: fb }) => match self.const_int(from) {
                Some(v) => {
                    let mant = if *fb == 32 { 24 } else { 53 };
                    let mag = v.unsigned_abs();
                    mag >= 1u128 << mant && mag.trailing_zeros() < 128 - mag.leading_zeros() - mant
                }
                // C++: any non-constant integer to a floating type.
                None => true,
            },
            (
                CType::Int {
                    bits: fb,
                    signed: fs,
                },
                CType::Int {
                    bits: tb,
                    signed: ts,
                },
            ) => self.const_int(from).is_none() && (tb < fb || (fs != ts && (tb == fb || *fs))),
            _ => false,
        };
        if narrowing {
            self.diags.push(
                Diagnostic::warning(
                    from.span,
                    Code::W0005,
                    format!("narrowing conversion from `{ft}` to `{tt}` in a brace initializer"),
                )
                .with_note(format!(
                    "standard C++ rejects this; write `({tt})` before the value if it is intended"
                )),
            );
        }
    }

    /// `for (T x : arr) body` and `for (T &x : arr) body` over an array of
    /// known length `n`: `for (T *p = arr, long k = 0; k < n; ++k) { T x =
    /// p[k]; body }`, with `x` a reference to `p[k]` in the second form.
    #[inline(never)]
    pub(super) fn range_for(
        &mut self,
        var: &ast::VarDecl,
        range: &ast::Expr,
        body: &ast::Stmt,
        span: Span,
    ) -> StmtKind {
        self.func.scopes.push(super::Scope::default());
        let r = self.range_for_inner(var, range, body, span);
        self.func.scopes.pop();
        r.unwrap_or(StmtKind::Empty)
    }

    fn range_for_inner(
        &mut self,
        var: &ast::VarDecl,
        range: &ast::Expr,
        body: &ast::Stmt,
        span: Span,
    ) -> Option<StmtKind> {
        if let Some(of) = &var.decltype {
            // Its type is the declared one, not the element's: `auto`'s
            // reading would give a wrong type without a word.
            let msg = "a range-based `for` variable declared with `decltype` of an expression is not supported by kernelc; declare it `auto` or with the type";
            self.error(of.operand.span, Code::E0002, msg);
            return None;
        }
        let r = self.expr_nodecay(range)?;
        let (elem, n) = match &r.ty {
            CType::Array { elem, len: Some(n) } => ((**elem).clone(), *n),
            CType::Struct(def) if self.has_begin_and_end(def) => {
                return Some(self.range_for_over_class(var, range, body, span));
            }
            other => {
                self.error(
                    range.span,
                    Code::E0002,
                    format!("range-based `for` over a `{other}` is not supported by kernelc (only over arrays of known length)"),
                );
                return None;
            }
        };
        let rspan = r.span;
        let elem_const = Self::is_lvalue(&r) && self.lvalue_is_const(&r);
        let base = self.decay(r);
        let elem_size = elem.size().unwrap_or(1);
        let p = self.declare_local("", base.ty.clone(), false, false, rspan);
        let k = self.declare_local("", CType::LONG, false, false, rspan);
        self.mark_used(p);
        self.mark_used(k);
        let local = |id, ty: &CType| mk(ExprKind::Local(id), ty.clone(), rspan);
        let long = |v: i128| mk(ExprKind::IntConst(v), CType::LONG, rspan);
        let ptr_ty = base.ty.clone();
        let init = vec![
            Stmt {
                kind: StmtKind::Decl {
                    local: p,
                    init: Some(base),
                    list: None,
                },
                span: rspan,
            },
            Stmt {
                kind: StmtKind::Decl {
                    local: k,
                    init: Some(long(0)),
                    list: None,
                },
                span: rspan,
            },
        ];
        let cmp = mk(
            ExprKind::Compare {
                op: CmpOp::Lt,
                lhs: Box::new(local(k, &CType::LONG)),
                rhs: Box::new(long(i128::from(n))),
            },
            CType::INT,
            rspan,
        );
        let cond = self.make_bool(cmp)?;
        let next = mk(
            ExprKind::Binary {
                op: crate::typed::BinOp::Add,
                lhs: Box::new(mk(ExprKind::TargetValue, CType::LONG, rspan)),
                rhs: Box::new(long(1)),
            },
            CType::LONG,
            rspan,
        );
        let step = mk(
            ExprKind::IncDec {
                target: Place::Local(k),
                pre: true,
                inc: true,
                new_value: Box::new(next),
            },
            CType::LONG,
            rspan,
        );
        let element = mk(
            ExprKind::Index {
                base: Box::new(local(p, &ptr_ty)),
                index: Box::new(local(k, &CType::LONG)),
                elem_size,
            },
            elem.clone(),
            rspan,
        );
        // The loop variable, declared in a scope of its own around the body.
        self.func.scopes.push(super::Scope::default());
        let decl = self.range_for_var(var, element, elem, elem_const);
        if self.destructible_in_scope_innermost() {
            self.error(
                var.name_span,
                Code::E0002,
                "a range-`for` variable whose destruction calls a destructor is not supported by kernelc yet",
            );
        }
        let body = self.loop_body(body);
        self.func.scopes.pop();
        let decl = decl?;
        let block = crate::typed::Block {
            stmts: vec![decl, *body],
            span,
        };
        Some(StmtKind::For {
            init,
            cond: Some(cond),
            step: Some(step),
            body: Box::new(Stmt {
                kind: StmtKind::Block(block),
                span,
            }),
            unroll: None,
        })
    }

    /// Whether the class `def` declares `begin` and `end` members, which a
    /// range-`for` over its objects calls.
    fn has_begin_and_end(&self, def: &crate::types::StructDef) -> bool {
        // The class's own members, else its bases'.
        let member = |name: &str| self.inherited_members(def, name).is_some();
        member("begin") && member("end")
    }

    /// `for (T x : c) body` over an object of a class with `begin()` and
    /// `end()` members, as C++ defines it ([stmt.ranged]): `{ auto &&r = c;
    /// auto b = r.begin(); auto e = r.end(); for (; b != e; ++b) { T x =
    /// *b; body } }`, checked as if so written. The hidden locals' names
    /// hold `@`, which no program can spell.
    fn range_for_over_class(
        &mut self,
        var: &ast::VarDecl,
        range: &ast::Expr,
        body: &ast::Stmt,
        span: Span,
    ) -> StmtKind {
        use ast::{Expr as E, ExprKind as K};
        let at = range.span;
        let e = |kind| E { kind, span: at };
        let ident = |name: &str| e(K::Ident(name.to_string()));
        let call_member = |name: &str| {
            e(K::Call {
                callee: Box::new(e(K::Member {
                    base: Box::new(ident("range@")),
                    field: name.to_string(),
                    field_span: at,
                    arrow: false,
                    template_args: Vec::new(),
                })),
                args: Vec::new(),
            })
        };
        let auto_local = |name: &str, init: E, by_ref: bool| ast::VarDecl {
            name: name.to_string(),
            name_span: at,
            ty: QualType::plain(CType::Void, at),
            dims: Vec::new(),
            storage: Default::default(),
            init: Some(ast::Init::Expr(init)),
            by_ref: by_ref.then_some(at),
            rvalue: by_ref,
            auto: Some(at),
            decltype: None,
            direct_braces: false,
            span: at,
        };
        let stmt = |kind| ast::Stmt { kind, span };
        let mut element = var.clone();
        element.init = Some(ast::Init::Expr(e(K::Unary {
            op: ast::UnaryOp::Deref,
            operand: Box::new(ident("begin@")),
        })));
        let inner = ast::Block {
            stmts: vec![stmt(ast::StmtKind::Decl(vec![element])), body.clone()],
            span,
        };
        let lowered = ast::Block {
            stmts: vec![
                stmt(ast::StmtKind::Decl(vec![auto_local(
                    "range@",
                    range.clone(),
                    true,
                )])),
                stmt(ast::StmtKind::Decl(vec![auto_local(
                    "begin@",
                    call_member("begin"),
                    false,
                )])),
                stmt(ast::StmtKind::Decl(vec![auto_local(
                    "end@",
                    call_member("end"),
                    false,
                )])),
                stmt(ast::StmtKind::For {
                    init: None,
                    cond: Some(e(K::Binary {
                        op: ast::BinaryOp::Ne,
                        lhs: Box::new(ident("begin@")),
                        rhs: Box::new(ident("end@")),
                    })),
                    step: Some(e(K::IncDec {
                        inc: true,
                        prefix: true,
                        operand: Box::new(ident("begin@")),
                    })),
                    body: Box::new(stmt(ast::StmtKind::Block(inner))),
                }),
            ],
            span,
        };
        StmtKind::Block(self.block(&lowered))
    }

    /// The declaration of a range-`for` variable from the current element.
    fn range_for_var(
        &mut self,
        var: &ast::VarDecl,
        element: Expr,
        elem: CType,
        elem_const: bool,
    ) -> Option<Stmt> {
        if var.by_ref.is_some() {
            let target = if var.auto.is_some() {
                QualType {
                    ty: elem,
                    is_const: var.ty.is_const || elem_const,
                    is_volatile: var.ty.is_volatile,
                    spelling: Default::default(),
                    span: var.ty.span,
                }
            } else {
                var.ty.clone()
            };
            let ptr_ty = reference_to(&target);
            let what = format!("reference `{}`", var.name);
            let addr = self.bind_reference(element, &ptr_ty, &what)?;
            let local = self.declare_local(&var.name, ptr_ty, true, false, var.name_span);
            self.rebind_as_ref(&var.name, local);
            self.func.initialized.insert(local);
            return Some(Stmt {
                kind: StmtKind::Decl {
                    local,
                    init: Some(addr),
                    list: None,
                },
                span: var.span,
            });
        }
        let ty = if var.auto.is_some() {
            elem
        } else {
            strip_restrict(&var.ty.ty).0
        };
        if ty.is_array() {
            self.error(
                var.name_span,
                Code::E0099,
                "a range-based `for` over an array of arrays needs a reference variable (`auto &row`)",
            );
            return None;
        }
        self.copy_initialized(var, element, ty)
    }

    /// The declaration of `var`, a new local of type `ty` copy-initialized
    /// from the checked `value` (a range-`for` element, a structured
    /// binding's object).
    pub(super) fn copy_initialized(
        &mut self,
        var: &ast::VarDecl,
        value: Expr,
        ty: CType,
    ) -> Option<Stmt> {
        let init = self.assign_convert(value, &ty, "initialization", var.name_span)?;
        let local = self.declare_local(&var.name, ty, var.ty.is_const, false, var.name_span);
        self.func.initialized.insert(local);
        Some(Stmt {
            kind: StmtKind::Decl {
                local,
                init: Some(init),
                list: None,
            },
            span: var.span,
        })
    }

    /// A `constexpr` local needs a constant initializer (nvcc rejects any
    /// other); its value is then known to constant expressions.
    #[inline(never)]
    pub(super) fn constexpr_check(
        &mut self,
        v: &ast::VarDecl,
        at: Span,
        init: Option<&Expr>,
        list: Option<&[(u64, Expr)]>,
    ) {
        if v.init.is_none() {
            self.error(
                at,
                Code::E0009,
                format!("`constexpr` variable `{}` needs an initializer", v.name),
            );
            return;
        }
        let leaves = init
            .into_iter()
            .chain(list.into_iter().flat_map(|l| l.iter().map(|(_, e)| e)));
        for e in leaves {
            let constant = match &e.ty {
                CType::Int { .. } | CType::Bool => self.const_int(e).is_some(),
                CType::Float { .. } => self.const_float(e).is_some(),
                _ => false,
            };
            if !constant {
                self.error(
                    e.span,
                    Code::E0009,
                    format!(
                        "the initializer of `constexpr` variable `{}` must be a constant expression",
                        v.name
                    ),
                );
                return;
            }
        }
        if let (Some(e), Some(id)) = (init, self.lookup_local(&v.name)) {
            if e.ty.is_float() {
                if let Some(x) = self.const_float(e) {
                    self.func.const_floats.insert(id, x);
                }
            }
        }
    }
}

impl Checker {
    /// `if constexpr`: the condition must be a constant; only the branch
    /// it takes is checked, and it is the statement (C++ [stmt.if]: the
    /// other is discarded, which lets a template's instance hold code that
    /// is valid only for other arguments). The locals it `mentions` count
    /// as used: a discarded branch uses them in the template.
    pub(super) fn constexpr_if(
        &mut self,
        cond: &ast::Expr,
        (then, els): (&ast::Stmt, Option<&ast::Stmt>),
        mentions: &[String],
    ) -> StmtKind {
        for name in mentions {
            if let Some(id) = self.lookup_local(name) {
                self.mark_used(id);
            }
        }
        let span = cond.span;
        let Some(value) = self.expr(cond).and_then(|c| self.const_int(&c)) else {
            self.error(
                span,
                Code::E0099,
                "the condition of `if constexpr` must be a constant expression",
            );
            return StmtKind::Empty;
        };
        let taken = if value != 0 { Some(then) } else { els };
        match taken {
            Some(s) => StmtKind::Block(crate::typed::Block {
                span: s.span,
                stmts: vec![self.stmt(s)],
            }),
            None => StmtKind::Empty,
        }
    }
}

impl Checker {
    /// `std::min(a, b)` and `std::max(a, b)`: the C++ library's `constexpr`
    /// host function templates over `const T &`, which nvcc's
    /// `cuda_runtime.h` makes visible without an include. Device code may
    /// call them only under `--expt-relaxed-constexpr`, as nvcc says. Each
    /// is the library's comparison, `b < a ? b : a` (`a < b ? b : a` for
    /// `max`), not CUDA's `fminf`: a NaN picks as in nvcc's PTX. Both
    /// arguments deduce `T`, so they must have one type; constants fold.
    /// Each argument is evaluated once, into a temporary.
    pub(super) fn std_min_max(
        &mut self,
        is_max: bool,
        at: Span,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let name = if is_max { "std::max" } else { "std::min" };
        let [a, b] = args else {
            self.error(
                at,
                Code::E0002,
                format!("`{name}` with a comparison or an initializer list is not supported by kernelc (it takes two values of one arithmetic type)"),
            );
            return None;
        };
        let (a, b) = (self.expr(a), self.expr(b));
        let (a, b) = (a?, b?);
        if a.ty != b.ty || !a.ty.is_arithmetic() || a.ty.is_half() {
            let msg = if a.ty == b.ty {
                format!("`{name}` of `{}` values is not supported by kernelc (only of arithmetic types)", a.ty)
            } else {
                format!(
                    "no instance of `{name}` matches the argument types (`{}`, `{}`)",
                    a.ty, b.ty
                )
            };
            let code = if a.ty == b.ty {
                Code::E0002
            } else {
                Code::E0007
            };
            self.diags.push(
                Diagnostic::error(span, code, msg)
                    .with_note("its two arguments deduce one `T` (`const T &a, const T &b`)"),
            );
            return None;
        }
        // Overload resolution comes first, then where it may be called.
        self.host_constexpr_call(name, None, at)?;
        if let Some(b_first) = self.const_less(&a, &b, is_max) {
            return Some(if b_first { b } else { a });
        }
        let (store_a, a) = self.temporary(a, span);
        let (store_b, b) = self.temporary(b, span);
        let (lhs, rhs) = if is_max {
            (a.clone(), b.clone())
        } else {
            (b.clone(), a.clone())
        };
        let less = self.binary(ast::BinaryOp::Lt, lhs, rhs, span)?;
        let cond = self.make_bool(less)?;
        let ty = a.ty.clone();
        let pick = mk(
            ExprKind::Ternary {
                cond: Box::new(cond),
                then: Box::new(b),
                els: Box::new(a),
            },
            ty.clone(),
            span,
        );
        let comma = |lhs: Expr, rhs: Expr| {
            mk(
                ExprKind::Comma {
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                ty.clone(),
                span,
            )
        };
        Some(comma(store_a, comma(store_b, pick)))
    }

    /// Whether `std::max` (`is_max`) or `std::min` of the constants `a`
    /// and `b` is `b`; `None` unless both are constants.
    fn const_less(&self, a: &Expr, b: &Expr, is_max: bool) -> Option<bool> {
        let less = if a.ty.is_integer() {
            let (x, y) = (self.const_int(a)?, self.const_int(b)?);
            if is_max {
                x < y
            } else {
                y < x
            }
        } else {
            let (x, y) = (self.const_float(a)?, self.const_float(b)?);
            if is_max {
                x < y
            } else {
                y < x
            }
        };
        Some(less)
    }

    /// A new temporary holding `value`: its store, and a read of it.
    fn temporary(&mut self, value: Expr, span: Span) -> (Expr, Expr) {
        let ty = value.ty.clone();
        let tmp = self.declare_local("", ty.clone(), false, false, span);
        self.mark_used(tmp);
        let store = mk(
            ExprKind::Assign {
                target: Place::Local(tmp),
                op: None,
                value: Box::new(value),
            },
            ty.clone(),
            span,
        );
        (store, mk(ExprKind::Local(tmp), ty, span))
    }
}
