//! Expression typing: C's operator rules producing explicit typed nodes.
//!
//! The checker (`sema/`) sits between the parser and lowering: parse →
//! check → lower (ARCHITECTURE.md, docs/frontend.md §1). This file types
//! each `ast::Expr` into a `typed::Expr` that carries its C type, with
//! every conversion C performs silently made an explicit `Cast` node
//! (`convert.rs`), so lowering never applies C's rules itself.
//!
//! Where to look:
//! - [`Checker::expr`] / [`Checker::expr_nodecay`]: the entry points; one
//!   `match` on the kind of expression dispatches to the functions below.
//! - Names (`ident`), members (`member`), lvalues and places
//!   (`lvalue_place`, `writable_place`, `addr_of`).
//! - Operators of C 6.5: `unary`, `inc_dec`, `binary`, `assign`,
//!   `ternary`, `explicit_cast`, `sizeof`, `index`.
//! - Calls (`call`, `call_resolved`): which function a call names, its
//!   arguments converted as by assignment, `constexpr` calls folded.
//!
//! Much lives elsewhere and is reached from here: operators on class
//! operands and methods (`classes.rs`), `__half` (`half.rs`), templates
//! and overloads (`templates.rs`, `overload.rs`), function pointers
//! (`fn_pointers.rs`), the C++ spellings (`cxx.rs`), CUDA's builtins,
//! vectors and textures (`builtins.rs`, `vectors.rs`, `texture.rs`).

use super::convert::{cast_kind, convert, is_null_const, offset64, pointees_compatible, promote};
use super::{Binding, Checker};
use crate::ast::{self, BinaryOp, UnaryOp};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{
    BinOp, BuiltinVar, CmpOp, Dim, Expr, ExprKind, LogicalOp, MemSpace, Place, UnOp,
};
use crate::types::{usual_arithmetic, CType};

/// CUDA/libc functions programs commonly call that kernelc does not provide yet.
const UNSUPPORTED_FUNCTIONS: &[&str] = &[
    "malloc",
    "free",
    "j0",
    "j0f",
    "j1",
    "j1f",
    "jn",
    "jnf",
    "y0",
    "y0f",
    "y1",
    "y1f",
    "yn",
    "ynf",
    "__sin2pif",
    "__cos2pif",
    "__sincos2pif",
    "__shfl",
    "__shfl_down",
    "__shfl_up",
    "__shfl_xor",
    "__ballot",
    "__any",
    "__all",
    "__prof_trigger",
    "__brkpt",
];

/// The CUDA built-in index variable `name` spells (`threadIdx`, ...), each
/// a `uint3`/`dim3` read one component at a time.
fn builtin_var(name: &str) -> Option<BuiltinVar> {
    Some(match name {
        "threadIdx" => BuiltinVar::ThreadIdx,
        "blockIdx" => BuiltinVar::BlockIdx,
        "blockDim" => BuiltinVar::BlockDim,
        "gridDim" => BuiltinVar::GridDim,
        _ => return None,
    })
}

/// `const char *`, the type of a string literal once it decays.
pub(super) fn const_char_ptr() -> CType {
    CType::Pointer {
        pointee: Box::new(CType::Int {
            bits: 8,
            signed: true,
        }),
        pointee_const: true,
        pointee_volatile: false,
        restrict: false,
    }
}

/// A typed expression node; the shorthand every typing function builds with.
pub(super) fn mk(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// An integer constant `v` of type `ty`.
fn int_const(v: i128, ty: CType, span: Span) -> Expr {
    mk(ExprKind::IntConst(v), ty, span)
}

impl Checker {
    /// Types an expression; arrays decay to a pointer to their first element
    /// (C 6.3.2.1). `None` means an error was reported.
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Option<Expr> {
        let t = self.expr_nodecay(e)?;
        Some(self.decay(t))
    }

    /// An array-typed lvalue as a pointer to its first element.
    pub(super) fn decay(&mut self, e: Expr) -> Expr {
        let CType::Array { elem, .. } = &e.ty else {
            return e;
        };
        let elem = (**elem).clone();
        let span = e.span;
        match self.lvalue_place(e) {
            Some((place, is_const)) => mk(
                ExprKind::AddrOf(Box::new(place)),
                CType::Pointer {
                    pointee: Box::new(elem),
                    pointee_const: is_const,
                    pointee_volatile: false,
                    restrict: false,
                },
                span,
            ),
            // Not a place `lvalue_place` knows: a `long` zero stands in,
            // and nothing is reported here.
            None => mk(ExprKind::IntConst(0), CType::LONG, span),
        }
    }

    /// The place an lvalue expression designates, and whether it is `const`.
    /// Taking a local's place this way puts the local in memory.
    fn lvalue_place(&mut self, e: Expr) -> Option<(Place, bool)> {
        let pointee_const = |t: &CType| {
            matches!(
                t,
                CType::Pointer {
                    pointee_const: true,
                    ..
                }
            )
        };
        // The `const` returned is the object's own, which becomes the
        // `pointee_const` of a pointer to it (`decay`, `addr_of`).
        let (kind, _, _) = e.into_parts();
        Some(match kind {
            ExprKind::Local(id) => {
                let v = &mut self.func.locals[id.0 as usize];
                v.in_memory = true;
                (Place::Local(id), v.is_const)
            }
            ExprKind::Global(id) => (Place::Global(id), self.globals[id.0 as usize].is_const),
            ExprKind::Deref(p) => {
                let c = pointee_const(&p.ty);
                (Place::Deref(p), c)
            }
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => {
                let c = pointee_const(&base.ty);
                (
                    Place::Index {
                        base,
                        index,
                        elem_size,
                    },
                    c,
                )
            }
            ExprKind::Field { base, offset } => {
                let c = self.lvalue_is_const(&base);
                if let ExprKind::Local(id) = base.kind {
                    self.func.locals[id.0 as usize].in_memory = true;
                }
                (Place::Field { base, offset }, c)
            }
            _ => return None,
        })
    }

    /// Types an expression without array decay (operands of `sizeof`, `&`).
    /// Every level of an expression's typing passes here, on a stack that
    /// grows as deep as the tree nests (`stack.rs`).
    pub(super) fn expr_nodecay(&mut self, e: &ast::Expr) -> Option<Expr> {
        stdx::stack::with_stack(|| self.expr_nodecay_level(e))
    }

    /// One level of [`Checker::expr_nodecay`]: dispatches on the kind of
    /// expression. Literals are typed here (a character constant is `int`,
    /// C 6.4.4.4; a string literal's array is taken as its decayed
    /// `const char *`); every operator has a function of its own below.
    fn expr_nodecay_level(&mut self, e: &ast::Expr) -> Option<Expr> {
        use ast::ExprKind as A;
        let span = e.span;
        match &e.kind {
            A::Ident(name) => self.ident(name, span),
            A::TemplateId { name, .. } => {
                self.error(
                    span,
                    Code::E0002,
                    format!("`{name}<...>` is supported by kernelc only as the function of a call"),
                );
                None
            }
            A::IntLit { value, ty, .. } => Some(int_const(i128::from(*value), ty.clone(), span)),
            // C++'s `'a'` is a `char` (C's is an `int`): it picks `f(char)`
            // over `f(int)` and deduces `T` = `char`; arithmetic promotes it.
            A::CharLit(v) => Some(int_const(i128::from(*v), CType::CHAR, span)),
            A::StrLit(bytes) => Some(mk(ExprKind::Str(bytes.clone()), const_char_ptr(), span)),
            A::BoolLit(b) => Some(int_const(i128::from(*b), CType::Bool, span)),
            A::FloatLit { value, ty } => Some(mk(ExprKind::FloatConst(*value), ty.clone(), span)),
            A::Unary { op, operand } => self.unary(*op, operand, span),
            A::IncDec {
                inc,
                prefix,
                operand,
            } => self.inc_dec(*inc, *prefix, operand, span),
            A::Binary { op, lhs, rhs } => {
                // Both operands are typed before either error returns, so
                // one statement reports the mistakes of both sides.
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let (l, r) = (l?, r?);
                match op {
                    BinaryOp::Comma => {
                        // C 6.5.17: the value and type of the right operand.
                        let ty = r.ty.clone();
                        Some(mk(
                            ExprKind::Comma {
                                lhs: Box::new(l),
                                rhs: Box::new(r),
                            },
                            ty,
                            span,
                        ))
                    }
                    BinaryOp::LogAnd | BinaryOp::LogOr => {
                        // C 6.5.13-14: each operand compared with 0; the
                        // result is an `int` 0 or 1.
                        let l = self.make_bool(l);
                        let r = self.make_bool(r);
                        let op = if *op == BinaryOp::LogAnd {
                            LogicalOp::And
                        } else {
                            LogicalOp::Or
                        };
                        Some(mk(
                            ExprKind::Logical {
                                op,
                                lhs: Box::new(l?),
                                rhs: Box::new(r?),
                            },
                            CType::INT,
                            span,
                        ))
                    }
                    _ => {
                        // A class operand: an overloaded operator when the
                        // program declares one ([over.match.oper]); else
                        // the built-in operator, which reports the types.
                        if l.ty.is_struct() || r.ty.is_struct() {
                            let operands = [l, r];
                            if let Some(call) = self.operator_call(op.as_str(), &operands, span) {
                                return call;
                            }
                            let [l, r] = operands;
                            return self.binary(*op, l, r, span);
                        }
                        self.binary(*op, l, r, span)
                    }
                }
            }
            A::Assign { op, lhs, rhs } => self.assign(*op, lhs, rhs, span),
            A::Ternary { cond, then, els } => self.ternary(cond, then, els, span),
            // `Scan(storage)`, `(S)x`: for a class with constructors, a
            // construction, as C++ reads a functional cast.
            A::Cast { ty, expr } if self.has_constructors(&ty.ty) => {
                self.construct(&ty.ty, std::slice::from_ref(expr), span)
            }
            A::Cast { ty, expr } => {
                let inner = self.expr(expr)?;
                self.explicit_cast(inner, &ty.ty, span)
            }
            A::NamedCast { kind, ty, expr } => self.named_cast(*kind, ty, expr, span),
            A::ZeroInit(ty) => self.zero_init(ty, span),
            A::BracedList(_) => {
                // `return_stmt` gives the list its type where C++ can.
                self.error(
                    span,
                    Code::E0004,
                    "a braced list has no type here (write the type before it: `T{...}`)",
                );
                None
            }
            A::Construct { ty, args } => self.construct(&ty.ty, args, span),
            A::Nullptr => Some(super::cxx::null_pointer(span)),
            A::SizeofType(t) => self.sizeof(&t.ty, span),
            A::SizeofExpr(x) => {
                let inner = self.expr_nodecay(x)?;
                self.sizeof(&inner.ty, span)
            }
            A::Index { base, index } => {
                if let Some(element) = self.const_array_element(base, index, span) {
                    return element;
                }
                let b = self.expr(base);
                let i = self.expr(index);
                let (b, i) = (b?, i?);
                // `obj[i]` on a class: its `operator[]`, if declared.
                if b.ty.is_struct() {
                    let operands = [b, i];
                    if let Some(call) = self.operator_call("[]", &operands, span) {
                        return call;
                    }
                    let [b, i] = operands;
                    return self.index(b, i, span);
                }
                self.index(b, i, span)
            }
            A::Call { callee, args } => self.call(callee, args, span),
            A::Member {
                base,
                field,
                field_span,
                arrow,
                ..
            } => self.member(base, field, *field_span, *arrow, span),
            A::Lambda(l) => self.lambda(l),
        }
    }

    /// A name used as a value. In order: what a scope binds (variables,
    /// enumerators and constants, references as the object they refer to),
    /// CUDA's `warpSize` and index variables, a host declaration that
    /// device code cannot use (E0017), a function (its address, as a
    /// function designator decays, C 6.3.2.1p4), else E0001 with a
    /// suggestion of a similar name in scope.
    fn ident(&mut self, name: &str, span: Span) -> Option<Expr> {
        if name.contains("::") && !self.check_static_access(name, span) {
            return None;
        }
        match self.lookup(name) {
            Some(Binding::Local(id)) => {
                self.mark_used(id);
                let ty = self.func.locals[id.0 as usize].ty.clone();
                return Some(mk(ExprKind::Local(id), ty, span));
            }
            Some(Binding::Const(v, ty)) => return Some(int_const(v, ty, span)),
            Some(Binding::ConstFloat(v, ty)) => return Some(mk(ExprKind::FloatConst(v), ty, span)),
            Some(Binding::ConstArray(..)) => {
                self.host_table_in_device_code(name, span);
                return None;
            }
            Some(Binding::Ref(id)) => {
                self.mark_used(id);
                let ptr = self.func.locals[id.0 as usize].ty.clone();
                let ty = ptr.pointee().cloned().unwrap_or(CType::INT);
                let p = mk(ExprKind::Local(id), ptr, span);
                return Some(mk(ExprKind::Deref(Box::new(p)), ty, span));
            }
            Some(Binding::Global(id)) => {
                let ty = self.globals[id.0 as usize].ty.clone();
                return Some(mk(ExprKind::Global(id), ty, span));
            }
            Some(Binding::Failed) => return None,
            None => {}
        }
        if let Some(key) = self.base_static_member(name) {
            return self.ident(&key, span);
        }
        if name == "warpSize" {
            // A constant on every GPU kernelc targets.
            return Some(int_const(32, CType::INT, span));
        }
        if let Some(var) = builtin_var(name) {
            return Some(self.builtin_vector(var, span));
        }
        if let Some(d) = self.host_declaration_used(name, span, false) {
            self.diags.push(d);
            return None;
        }
        if self.by_name.contains_key(name) {
            return self.function_address(name, span);
        }
        // A builtin is known but has no address kernelc can take.
        let (code, msg) = if name == "__syncthreads" || super::builtins::is_builtin_name(name) {
            (Code::E0002, format!("built-in function `{name}` can only be called (kernelc cannot take its address)"))
        } else {
            (
                Code::E0001,
                format!("use of undeclared identifier `{name}`"),
            )
        };
        let mut d = Diagnostic::error(span, code, msg);
        if let Some(similar) = self.similar_name(name) {
            d = d.with_note(format!("help: a name in scope is similar: `{similar}`"));
        }
        self.diags.push(d);
        None
    }

    /// A name in scope within two edits of `name` (a likely typo).
    fn similar_name(&self, name: &str) -> Option<String> {
        let names = self
            .func
            .scopes
            .iter()
            .flat_map(|s| s.iter().map(|(n, _)| n))
            .chain(self.file_scope.iter().map(|(n, _, _)| n));
        names
            .filter(|n| n.len() > 1 && n.as_str() != name)
            .map(|n| (edit_distance(n, name), n))
            .filter(|(d, _)| *d <= 2)
            .min()
            .map(|(_, n)| n.clone())
    }

    /// `base.field` and `base->field` (C 6.5.2.3). `threadIdx.x` and its
    /// kin are read as built-in registers; a class's static member named
    /// through an object is the static member; a bit-field is read through
    /// `bit_fields.rs`; a reference member is the object it refers to.
    fn member(
        &mut self,
        base: &ast::Expr,
        field: &str,
        field_span: Span,
        arrow: bool,
        span: Span,
    ) -> Option<Expr> {
        if let ast::ExprKind::Ident(name) = &base.kind {
            if let (Some(var), None, false) = (builtin_var(name), self.lookup(name), arrow) {
                let dim = match field {
                    "x" => Dim::X,
                    "y" => Dim::Y,
                    "z" => Dim::Z,
                    _ => {
                        self.error(
                            field_span,
                            Code::E0008,
                            format!("`{name}` has no member `{field}`; use `.x`, `.y` or `.z`"),
                        );
                        return None;
                    }
                };
                return Some(mk(ExprKind::Builtin(var, dim), CType::UINT, span));
            }
        }
        let op = if arrow { "->" } else { "." };
        // `->` needs a pointer, so its base decays (`a->f` of an array is
        // `a[0].f`); for `.` decay would change only an array, refused below.
        let b = if arrow {
            self.expr(base)?
        } else {
            self.expr_nodecay(base)?
        };
        let base_span = b.span;
        let sty = if arrow {
            match b.ty.pointee() {
                Some(t @ CType::Struct(_)) => t.clone(),
                _ => {
                    let mut d = Diagnostic::error(
                        field_span,
                        Code::E0008,
                        format!(
                            "member reference type `{}` is not a pointer to a struct",
                            b.ty
                        ),
                    );
                    if b.ty.is_struct() {
                        d = d.with_note(format!(
                            "use `.` instead of `->`: `{}` is a struct, not a pointer",
                            b.ty
                        ));
                    }
                    self.diags.push(d);
                    return None;
                }
            }
        } else if b.ty.is_struct() {
            b.ty.clone()
        } else {
            let mut d = Diagnostic::error(
                field_span,
                Code::E0008,
                format!("member reference base type `{}` is not a struct", b.ty),
            );
            if b.ty.pointee().is_some_and(CType::is_struct) {
                d = d.with_note(format!("`{}` is a pointer; use `->` instead of `.`", b.ty));
            }
            self.diags.push(d);
            return None;
        };
        if self.refuse_incomplete(&sty, &format!("`{op}{field}`"), field_span) {
            return None;
        }
        let def = sty.struct_def()?;
        // `field&`, which only a constructor's member initializer makes
        // (`parser/classes.rs`): the reference member itself, the address.
        let (field, binding) = match field.strip_suffix('&') {
            Some(f) => (f, true),
            None => (field, false),
        };
        if self.ambiguous_member(def, field, field_span) {
            return None;
        }
        let found = crate::bases::member_field(def, field);
        let static_member = self.static_member_key(def, field);
        if found.is_none() && self.lookup(&static_member).is_some() {
            // `pack.size` of `static constexpr int size`: the class's
            // static member (C++ evaluates the object and ignores it).
            let named = ast::Expr {
                kind: ast::ExprKind::Ident(static_member),
                span,
            };
            return self.expr(&named);
        }
        let Some(f) = found else {
            let names: Vec<String> = crate::bases::all_field_names(def)
                .iter()
                .map(|f| format!("`{f}`"))
                .collect();
            let mut d = Diagnostic::error(
                field_span,
                Code::E0008,
                format!("no member named `{field}` in `{sty}`"),
            );
            if !names.is_empty() {
                d = d.with_note(format!("`{sty}` has {}", names.join(", ")));
            }
            self.diags.push(d);
            return None;
        };
        if let Some(((), path)) =
            crate::bases::find_in_bases(def, &mut |d| d.field(field).map(|_| ()))
        {
            let owner = path.steps.last().map_or(def, |(d, _)| &**d);
            if !self.check_base_path(def, &path, field, field_span)
                || !self.check_access(owner, field, None, field_span)
            {
                return None;
            }
        }
        let (fty, offset, bits, reference) = (f.ty.clone(), f.offset, f.bits, f.reference);
        // `p->f` is `(*p).f` (C 6.5.2.3p4): one form for lowering.
        let base = if arrow {
            mk(ExprKind::Deref(Box::new(b)), sty, base_span)
        } else {
            b
        };
        let _ = op;
        let member = mk(
            ExprKind::Field {
                base: Box::new(base),
                offset,
            },
            fty,
            span,
        );
        Some(self.member_value(member, bits, reference && !binding, span))
    }

    /// What the member `member` designates: a bit-field's value (kept
    /// with its unit, which a write stores to), the object a reference
    /// member refers to (`deref`), or the member itself.
    fn member_value(
        &mut self,
        member: Expr,
        bits: Option<crate::types::BitField>,
        deref: bool,
        span: Span,
    ) -> Expr {
        match bits {
            Some(bits) => {
                self.bit_field_reads.insert(span, (member.clone(), bits));
                super::bit_fields::read(member, bits, span)
            }
            None => {
                // A span a template's other instance read a bit-field at.
                self.bit_field_reads.remove(&span);
                if deref {
                    let ty = member.ty.pointee().cloned().unwrap_or(CType::INT);
                    mk(ExprKind::Deref(Box::new(member)), ty, span)
                } else {
                    member
                }
            }
        }
    }

    /// Whether `e` designates an object (so it may be assigned or have its
    /// address taken); struct rvalues such as call results do not.
    pub(super) fn is_lvalue(e: &Expr) -> bool {
        stdx::stack::with_stack(|| match &e.kind {
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Deref(_)
            | ExprKind::Index { .. } => true,
            ExprKind::Field { base, .. } => Self::is_lvalue(base),
            _ => false,
        })
    }

    /// Whether the object an lvalue designates is `const` (a `const`
    /// variable, or reached through a pointer to `const`).
    pub(super) fn lvalue_is_const(&self, e: &Expr) -> bool {
        stdx::stack::with_stack(|| {
            let through = |t: &CType| {
                matches!(
                    t,
                    CType::Pointer {
                        pointee_const: true,
                        ..
                    }
                )
            };
            match &e.kind {
                ExprKind::Local(id) => self.func.locals[id.0 as usize].is_const,
                ExprKind::Global(id) => self.globals[id.0 as usize].is_const,
                ExprKind::Deref(p) => through(&p.ty),
                ExprKind::Index { base, .. } => through(&base.ty),
                ExprKind::Field { base, .. } => self.lvalue_is_const(base),
                _ => false,
            }
        })
    }

    /// A unary operator (C 6.5.3): `&` takes its operand undecayed (the
    /// address of an array is the array's, C 6.5.3.2); on a class operand
    /// the program's overloaded operator, if any, is called instead.
    fn unary(&mut self, op: UnaryOp, operand: &ast::Expr, span: Span) -> Option<Expr> {
        if op == UnaryOp::AddrOf {
            let e = self.expr_nodecay(operand)?;
            if matches!(e.kind, ExprKind::FuncAddr { .. }) {
                // `&f` of a function `f`: its address, as `f` alone is.
                return Some(e.with_span(span));
            }
            return self.addr_of(e, span);
        }
        let e = self.expr(operand)?;
        if e.ty.is_struct() {
            let sym = match op {
                UnaryOp::Plus => "+",
                UnaryOp::Neg => "-",
                UnaryOp::Not => "!",
                UnaryOp::BitNot => "~",
                UnaryOp::Deref | UnaryOp::AddrOf => "*",
            };
            let operands = [e];
            if let Some(call) = self.operator_call(sym, &operands, span) {
                return call;
            }
            let [e2] = operands;
            return self.unary_typed(op, e2, span);
        }
        self.unary_typed(op, e, span)
    }

    /// [`Checker::unary`] once its operand is typed:
    /// `+`, `-`, `~` promote their operand (C 6.5.3.3), `!` compares it
    /// with 0 and yields `int`, `*` yields the pointee (C 6.5.3.2);
    /// `__half` operands go to `half.rs` (except `!`, a plain test).
    fn unary_typed(&mut self, op: UnaryOp, e: Expr, span: Span) -> Option<Expr> {
        let bad = |c: &mut Checker, what: &str, e: &Expr| {
            c.error(
                span,
                Code::E0004,
                format!("invalid operand of type `{}` to unary `{what}`", e.ty),
            );
            None
        };
        if crate::half::is_half_type(&e.ty) && op != UnaryOp::Not {
            return self.half_unary(op, e, span);
        }
        match op {
            UnaryOp::Plus | UnaryOp::Neg => {
                if !e.ty.is_arithmetic() {
                    return bad(self, if op == UnaryOp::Plus { "+" } else { "-" }, &e);
                }
                let e = promote(e);
                if op == UnaryOp::Plus {
                    return Some(e.with_span(span));
                }
                let ty = e.ty.clone();
                Some(mk(
                    ExprKind::Unary {
                        op: UnOp::Neg,
                        operand: Box::new(e),
                    },
                    ty,
                    span,
                ))
            }
            UnaryOp::BitNot => {
                if !e.ty.is_integer() {
                    return bad(self, "~", &e);
                }
                let e = promote(e);
                let ty = e.ty.clone();
                Some(mk(
                    ExprKind::Unary {
                        op: UnOp::BitNot,
                        operand: Box::new(e),
                    },
                    ty,
                    span,
                ))
            }
            UnaryOp::Not => {
                let b = self.make_bool(e)?;
                Some(mk(ExprKind::Not(Box::new(b)), CType::INT, span))
            }
            UnaryOp::Deref => match e.ty.pointee().cloned() {
                // `*f` designates the function, which decays to `f` again.
                Some(CType::Function(_)) => Some(e.with_span(span)),
                Some(CType::Void) => {
                    self.error(span, Code::E0004, "cannot dereference a `void *` pointer");
                    None
                }
                Some(t) => Some(mk(ExprKind::Deref(Box::new(e)), t, span)),
                None => {
                    self.error(
                        span,
                        Code::E0004,
                        format!(
                            "indirection requires a pointer operand (`{}` is not a pointer)",
                            e.ty
                        ),
                    );
                    None
                }
            },
            UnaryOp::AddrOf => unreachable!("handled before typing the operand"),
        }
    }

    /// `&e` on a typed operand (C 6.5.3.2): `&*p` and `&p[i]` fold to the
    /// pointer arithmetic they stand for (no load is made); variables and
    /// members become an `AddrOf` of their place, which puts a local in
    /// memory. Anything else is an rvalue, whose address C refuses (E0005).
    pub(super) fn addr_of(&mut self, e: Expr, span: Span) -> Option<Expr> {
        if self.bit_field_of(&e).is_some() {
            self.error(span, Code::E0005, "cannot take the address of a bit-field");
            return None;
        }
        let is_lvalue = Self::is_lvalue(&e);
        let (kind, ty, e_span) = e.into_parts();
        match kind {
            // `&*p` is `p`.
            ExprKind::Deref(p) => Some(p.with_span(span)),
            // `&p[i]` is `p + i`.
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => {
                let ty = super::convert::strip_restrict(&base.ty).0;
                Some(mk(
                    ExprKind::PtrAdd {
                        ptr: base,
                        offset: index,
                        elem_size,
                    },
                    ty,
                    span,
                ))
            }
            ExprKind::Field { .. } if !is_lvalue => {
                self.error(
                    span,
                    Code::E0005,
                    "cannot take the address of a member of a temporary struct",
                );
                None
            }
            kind @ (ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Field { .. }) => {
                let operand = Expr {
                    kind,
                    ty: ty.clone(),
                    span: e_span,
                };
                let (place, is_const) = self.lvalue_place(operand)?;
                Some(mk(
                    ExprKind::AddrOf(Box::new(place)),
                    CType::Pointer {
                        pointee: Box::new(ty),
                        pointee_const: is_const,
                        pointee_volatile: false,
                        restrict: false,
                    },
                    span,
                ))
            }
            _ => {
                self.error(span, Code::E0005, "cannot take the address of an rvalue");
                None
            }
        }
    }

    /// Converts an lvalue expression into a place, checking it is writable.
    pub(super) fn writable_place(&mut self, e: Expr, op_span: Span) -> Option<Place> {
        // A modifiable lvalue (C 6.3.2.1p1): not an array, not `const`,
        // not in `__constant__` memory (read-only to device code in CUDA),
        // not a built-in index variable.
        if e.ty.is_array() {
            self.error(e.span, Code::E0004, "arrays cannot be assigned");
            return None;
        }
        // What the member case needs of the whole expression, asked before
        // it is taken apart.
        let member = matches!(e.kind, ExprKind::Field { .. }) && Self::is_lvalue(&e);
        let member_facts = member.then(|| (self.is_constant_object(&e), self.lvalue_is_const(&e)));
        let (kind, _, span) = e.into_parts();
        let (place, is_const, what) = match kind {
            ExprKind::Global(id) => {
                let g = &self.globals[id.0 as usize];
                if g.space == MemSpace::Constant {
                    self.error(
                        span,
                        Code::E0005,
                        "`__constant__` variables cannot be written in device code",
                    );
                    return None;
                }
                (
                    Place::Global(id),
                    g.is_const,
                    format!("variable `{}`", g.name),
                )
            }
            ExprKind::Local(id) => {
                let v = &self.func.locals[id.0 as usize];
                (
                    Place::Local(id),
                    v.is_const,
                    format!("variable `{}`", v.name),
                )
            }
            ExprKind::Deref(p) => {
                let c = matches!(
                    p.ty,
                    CType::Pointer {
                        pointee_const: true,
                        ..
                    }
                );
                let what = format!("`*` of a `{}`", p.ty);
                (Place::Deref(p), c, what)
            }
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => {
                if self.is_constant_memory(&base) {
                    self.error(
                        span,
                        Code::E0005,
                        "`__constant__` variables cannot be written in device code",
                    );
                    return None;
                }
                let c = matches!(
                    base.ty,
                    CType::Pointer {
                        pointee_const: true,
                        ..
                    }
                );
                let what = format!("element of a `{}`", base.ty);
                (
                    Place::Index {
                        base,
                        index,
                        elem_size,
                    },
                    c,
                    what,
                )
            }
            ExprKind::Builtin(..) => {
                self.error(span, Code::E0005, "built-in index variables are read-only");
                return None;
            }
            ExprKind::Field { base, offset } if member => {
                let (constant, c) = member_facts.unwrap_or_default();
                if constant {
                    self.error(
                        span,
                        Code::E0005,
                        "`__constant__` variables cannot be written in device code",
                    );
                    return None;
                }
                let what = format!("a member of a `{}`", base.ty);
                (Place::Field { base, offset }, c, what)
            }
            // A bit-field read (`bit_fields.rs`) is a computed value by
            // now, no place: its writes take another path.
            _ if self.bit_field_reads.contains_key(&span) => {
                self.error(
                    span,
                    Code::E0005,
                    "a bit-field cannot be written through a reference or a pointer",
                );
                return None;
            }
            _ => {
                self.diags.push(
                    Diagnostic::error(span, Code::E0005, "expression is not assignable")
                        .with_label(op_span, "assignment here"),
                );
                return None;
            }
        };
        if is_const {
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0005,
                    format!("cannot assign to {what} because it is `const`"),
                )
                .with_label(op_span, "assignment here"),
            );
            return None;
        }
        Some(place)
    }

    /// Whether the lvalue `e` lies in a `__constant__` variable.
    fn is_constant_object(&self, e: &Expr) -> bool {
        stdx::stack::with_stack(|| match &e.kind {
            ExprKind::Global(g) => self.globals[g.0 as usize].space == MemSpace::Constant,
            ExprKind::Field { base, .. } => self.is_constant_object(base),
            ExprKind::Index { base, .. } | ExprKind::Deref(base) => self.is_constant_memory(base),
            _ => false,
        })
    }

    /// Whether `ptr` is the address of (an element of) a `__constant__`
    /// variable, known without any analysis.
    fn is_constant_memory(&self, ptr: &Expr) -> bool {
        stdx::stack::with_stack(|| {
            let mut p = ptr;
            loop {
                match &p.kind {
                    ExprKind::AddrOf(place) => {
                        return match &**place {
                            Place::Global(g) => {
                                self.globals[g.0 as usize].space == MemSpace::Constant
                            }
                            Place::Index { base, .. } => self.is_constant_memory(base),
                            Place::Field { base, .. } => self.is_constant_object(base),
                            _ => false,
                        }
                    }
                    ExprKind::PtrAdd { ptr, .. } | ExprKind::PtrSub { ptr, .. } => p = ptr,
                    _ => return false,
                }
            }
        })
    }

    /// `++it` or `it++` of a class object: its `operator++`, the postfix
    /// form called with C++'s extra `int` argument (`operator++(int)`);
    /// the object back when the class has none.
    fn class_inc_dec(
        &mut self,
        inc: bool,
        pre: bool,
        e: Expr,
        span: Span,
    ) -> Result<Option<Expr>, Expr> {
        let name = if inc { "++" } else { "--" };
        let mut operands = vec![e];
        if !pre {
            operands.push(int_const(0, CType::INT, span));
        }
        match self.operator_call(name, &operands, span) {
            Some(call) => Ok(call),
            None => Err(operands.swap_remove(0)),
        }
    }

    /// `++`/`--`, prefix or postfix (C 6.5.2.4, 6.5.3.1): the new value is
    /// written in terms of the old one (`TargetValue`) so the operand's
    /// address is computed once; on a pointer it steps by one element,
    /// otherwise it is `e + 1` converted back to `e`'s type, as for `+=`.
    fn inc_dec(&mut self, inc: bool, pre: bool, operand: &ast::Expr, span: Span) -> Option<Expr> {
        let e = self.expr(operand)?;
        if let Some(field) = self.bit_field_of(&e) {
            return self.bit_field_inc_dec(inc, pre, field, span);
        }
        let e = if e.ty.is_struct() {
            match self.class_inc_dec(inc, pre, e, span) {
                Ok(call) => return call,
                // No `operator++`: the built-in meaning (CUDA's half pairs).
                Err(e) => e,
            }
        } else {
            e
        };
        let ty = e.ty.clone();
        if !ty.is_scalar() && !crate::half::is_half_type(&ty) {
            self.error(
                span,
                Code::E0004,
                format!("cannot increment or decrement a value of type `{ty}`"),
            );
            return None;
        }
        let place = self.writable_place(e, span)?;
        let old = mk(ExprKind::TargetValue, ty.clone(), span);
        let new_value = if let Some(p) = ty.pointee() {
            let elem_size = self.elem_size(p, span)?;
            let one = Box::new(int_const(1, CType::LONG, span));
            let kind = if inc {
                ExprKind::PtrAdd {
                    ptr: Box::new(old),
                    offset: one,
                    elem_size,
                }
            } else {
                ExprKind::PtrSub {
                    ptr: Box::new(old),
                    offset: one,
                    elem_size,
                }
            };
            mk(kind, ty.clone(), span)
        } else {
            let op = if inc { BinaryOp::Add } else { BinaryOp::Sub };
            let one = if crate::half::is_half_type(&ty) {
                Checker::half_one(&ty, span)
            } else {
                int_const(1, CType::INT, span)
            };
            let sum = self.binary(op, old, one, span)?;
            convert(sum, &ty)
        };
        Some(mk(
            ExprKind::IncDec {
                target: place,
                pre,
                inc,
                new_value: Box::new(new_value),
            },
            ty,
            span,
        ))
    }

    /// The size of the element a pointer steps over in pointer arithmetic;
    /// E0004 for `void` and function pointees, which have no size in C
    /// (C 6.5.6p2 wants a pointer to a complete object type).
    fn elem_size(&mut self, pointee: &CType, span: Span) -> Option<u64> {
        if self.refuse_incomplete(pointee, "pointer arithmetic", span) {
            return None;
        }
        match pointee.size() {
            Some(s) => Some(s),
            None if matches!(pointee, CType::Function(_)) => {
                self.error(
                    span,
                    Code::E0004,
                    "arithmetic on a function pointer is not allowed",
                );
                None
            }
            None => {
                self.error(
                    span,
                    Code::E0004,
                    "arithmetic on a pointer to `void` is not allowed",
                );
                None
            }
        }
    }

    /// `l op r` with both operands converted to their common type by the
    /// usual arithmetic conversions (C 6.3.1.8), which is also its type.
    fn arith(&mut self, op: BinOp, l: Expr, r: Expr, span: Span) -> Expr {
        let ty = usual_arithmetic(&l.ty, &r.ty);
        mk(
            ExprKind::Binary {
                op,
                lhs: Box::new(convert(l, &ty)),
                rhs: Box::new(convert(r, &ty)),
            },
            ty,
            span,
        )
    }

    /// Binary arithmetic, bitwise, shift and comparison operators on typed
    /// operands (also used for compound assignment and `++`/`--`).
    pub(super) fn binary(&mut self, op: BinaryOp, l: Expr, r: Expr, span: Span) -> Option<Expr> {
        use BinaryOp as B;
        if crate::half::is_half_type(&l.ty) || crate::half::is_half_type(&r.ty) {
            return self.half_binary(op, l, r, span);
        }
        let l = self.builtin_operand(l, span)?;
        let r = self.builtin_operand(r, span)?;
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        let invalid = |c: &mut Checker| {
            c.error(
                span,
                Code::E0004,
                format!(
                    "invalid operands to binary `{}` (`{lt}` and `{rt}`)",
                    op.as_str()
                ),
            );
            None
        };
        let both_arith = lt.is_arithmetic() && rt.is_arithmetic();
        let both_int = lt.is_integer() && rt.is_integer();
        match op {
            // C 6.5.6: pointer ± integer steps by elements; the offset is
            // widened to 64 bits, and the result drops `restrict`.
            B::Add | B::Sub if lt.is_pointer() && rt.is_integer() => {
                let elem_size = self.elem_size(lt.pointee()?, span)?;
                let ty = super::convert::strip_restrict(&lt).0;
                let (ptr, offset) = (Box::new(l), Box::new(offset64(r)));
                let kind = if op == B::Add {
                    ExprKind::PtrAdd {
                        ptr,
                        offset,
                        elem_size,
                    }
                } else {
                    ExprKind::PtrSub {
                        ptr,
                        offset,
                        elem_size,
                    }
                };
                Some(mk(kind, ty, span))
            }
            // `i + p` is `p + i`.
            B::Add if lt.is_integer() && rt.is_pointer() => self.binary(op, r, l, span),
            // Pointer difference: pointees of one type (qualifiers aside),
            // counted in elements, as a `ptrdiff_t` (`long`).
            B::Sub if lt.is_pointer() && rt.is_pointer() => {
                let (lp, rp) = (lt.pointee()?, rt.pointee()?);
                if lp.unqualified() != rp.unqualified() {
                    return invalid(self);
                }
                let elem_size = self.elem_size(lp, span)?;
                Some(mk(
                    ExprKind::PtrDiff {
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                        elem_size,
                    },
                    CType::LONG,
                    span,
                ))
            }
            // C 6.5.5-6; a `float` division may become nvcc's approximate
            // one (`-prec-div=false`, `--use_fast_math`: `fast_division`).
            B::Add | B::Sub | B::Mul | B::Div if both_arith => {
                let op = match op {
                    B::Add => BinOp::Add,
                    B::Sub => BinOp::Sub,
                    B::Mul => BinOp::Mul,
                    _ => BinOp::Div,
                };
                let e = self.arith(op, l, r, span);
                Some(if op == BinOp::Div {
                    self.fast_division(e)
                } else {
                    e
                })
            }
            // C 6.5.5 `%` and 6.5.10-12: integer operands only.
            B::Rem | B::BitAnd | B::BitOr | B::BitXor if both_int => {
                let op = match op {
                    B::Rem => BinOp::Rem,
                    B::BitAnd => BinOp::BitAnd,
                    B::BitOr => BinOp::BitOr,
                    _ => BinOp::BitXor,
                };
                Some(self.arith(op, l, r, span))
            }
            // C 6.5.7: the type is the promoted left operand's alone (no
            // usual arithmetic conversions); the count is converted to it.
            B::Shl | B::Shr if both_int => {
                let ty = lt.promoted();
                let rhs = convert(promote(r), &ty);
                let op = if op == B::Shl { BinOp::Shl } else { BinOp::Shr };
                Some(mk(
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(convert(l, &ty)),
                        rhs: Box::new(rhs),
                    },
                    ty,
                    span,
                ))
            }
            // C 6.5.8-9: arithmetic operands in their common type (with
            // -Wsign-compare's warning for mixed integers), pointers to
            // compatible types, or a pointer and a null pointer constant;
            // the result is an `int` 0 or 1.
            B::Lt | B::Le | B::Gt | B::Ge | B::Eq | B::Ne => {
                let cmp = match op {
                    B::Lt => CmpOp::Lt,
                    B::Le => CmpOp::Le,
                    B::Gt => CmpOp::Gt,
                    B::Ge => CmpOp::Ge,
                    B::Eq => CmpOp::Eq,
                    _ => CmpOp::Ne,
                };
                let (l, r) = if both_arith {
                    if both_int {
                        self.sign_compare_warning(&l, &r, span);
                    }
                    let ty = usual_arithmetic(&lt, &rt);
                    (convert(l, &ty), convert(r, &ty))
                } else if lt.is_pointer() && rt.is_pointer() {
                    if !pointees_compatible(lt.pointee()?, rt.pointee()?) {
                        return invalid(self);
                    }
                    let to = lt.clone();
                    (l, convert(r, &to))
                } else if lt.is_pointer() && is_null_const(&r) {
                    (l, convert(r, &lt))
                } else if rt.is_pointer() && is_null_const(&l) {
                    (convert(l, &rt), r)
                } else {
                    return invalid(self);
                };
                Some(mk(
                    ExprKind::Compare {
                        op: cmp,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    CType::INT,
                    span,
                ))
            }
            _ => invalid(self),
        }
    }

    /// `lhs = rhs` and `lhs op= rhs` (C 6.5.16). The left side is typed
    /// without decay so an array target is reported as such; a class
    /// target calls the program's `operator=`/`operator op=` if it has one.
    fn assign(
        &mut self,
        op: Option<BinaryOp>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let l = self.expr_nodecay(lhs);
        let r = self.expr(rhs);
        let (l, r) = (l?, r?);
        if let Some(field) = self.bit_field_of(&l) {
            let op_span = Span::new(lhs.span.end, rhs.span.start);
            return self.bit_field_assign(op, field, r, op_span, span);
        }
        if l.ty.is_struct() {
            let name = op.map_or("=".to_string(), |o| format!("{}=", o.as_str()));
            let operands = [l, r];
            if let Some(call) = self.operator_call(&name, &operands, span) {
                return call;
            }
            let [l2, r2] = operands;
            return self.assign_typed(op, l2, r2, lhs.span, rhs.span, span);
        }
        self.assign_typed(op, l, r, lhs.span, rhs.span, span)
    }

    /// [`Checker::assign`] once its operands are typed (`lhs_span` and
    /// `rhs_span` are where they were written).
    fn assign_typed(
        &mut self,
        op: Option<BinaryOp>,
        l: Expr,
        r: Expr,
        lhs_span: Span,
        rhs_span: Span,
        span: Span,
    ) -> Option<Expr> {
        let ty = l.ty.clone();
        let op_span = Span::new(lhs_span.end, rhs_span.start);
        let place = self.writable_place(l, op_span)?;
        // Simple assignment converts `r` to the target's type as C 6.5.16.1
        // allows; compound assignment is `l = l op r` with `l`'s place
        // evaluated once (C 6.5.16.2), its old value a `TargetValue`.
        let (value, bin) = match op {
            None => (self.assign_convert(r, &ty, "assignment", op_span)?, None),
            Some(op) => {
                let old = mk(ExprKind::TargetValue, ty.clone(), lhs_span);
                let r = if ty.is_half() || r.ty.is_half() {
                    self.half_compound_operand(&ty, r, op_span)?
                } else {
                    r
                };
                let computed = self.binary(op, old, r, span)?;
                let value = self.assign_convert(computed, &ty, "compound assignment", op_span)?;
                (value, Some(to_binop(op)))
            }
        };
        Some(mk(
            ExprKind::Assign {
                target: place,
                op: bin,
                value: Box::new(value),
            },
            ty,
            span,
        ))
    }

    /// `cond ? then : els` (C 6.5.15, [expr.cond]): the condition compared
    /// with 0; the result type is the arithmetic operands' common type, the
    /// one type both share, the composite of two compatible pointers, or
    /// the pointer beside a null pointer constant. Both arms are converted
    /// to it.
    fn ternary(
        &mut self,
        cond: &ast::Expr,
        then: &ast::Expr,
        els: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let c = self.expr(cond).and_then(|c| self.make_bool(c));
        let t = self.expr(then);
        let e = self.expr(els);
        let (c, t, e) = (c?, t?, e?);
        let (tt, et) = (t.ty.clone(), e.ty.clone());
        // Operands of one type give that type (C++ [expr.cond]: `c ? 'q' :
        // 'r'` is a `char`, not C's promoted `int`); other arithmetic
        // operands their usual arithmetic conversion.
        let ty = if tt == et {
            tt.clone()
        } else if tt.is_arithmetic() && et.is_arithmetic() {
            usual_arithmetic(&tt, &et)
        } else if tt.is_pointer()
            && et.is_pointer()
            && pointees_compatible(tt.pointee()?, et.pointee()?)
        {
            // Composite pointer type: union of the pointee qualifiers.
            let q = |t: &CType| match t {
                CType::Pointer {
                    pointee_const,
                    pointee_volatile,
                    ..
                } => (*pointee_const, *pointee_volatile),
                _ => (false, false),
            };
            let (a, b) = (q(&tt), q(&et));
            // `void *` beside `T *` is `void *` (C 6.5.15p6): the pointee
            // is taken from the `void *` side when there is one.
            let pointee = if tt.pointee() == Some(&CType::Void) {
                &et
            } else {
                &tt
            };
            CType::Pointer {
                pointee: Box::new(pointee.pointee()?.clone()),
                pointee_const: a.0 || b.0,
                pointee_volatile: a.1 || b.1,
                restrict: false,
            }
        } else if tt.is_pointer() && is_null_const(&e) {
            tt.clone()
        } else if et.is_pointer() && is_null_const(&t) {
            et.clone()
        } else {
            self.error(
                span,
                Code::E0004,
                format!("incompatible operand types in `?:` (`{tt}` and `{et}`)"),
            );
            return None;
        };
        Some(mk(
            ExprKind::Ternary {
                cond: Box::new(c),
                then: Box::new(convert(t, &ty)),
                els: Box::new(convert(e, &ty)),
            },
            ty,
            span,
        ))
    }

    /// `(T)e` (C 6.5.4): any conversion `cast_kind` knows, except from
    /// `void` to anything but `void`; a cast to `e`'s own type is `e`.
    /// `restrict` on the target type is dropped (it qualifies objects,
    /// not values).
    pub(super) fn explicit_cast(&mut self, e: Expr, to: &CType, span: Span) -> Option<Expr> {
        let to = super::convert::strip_restrict(to).0;
        if e.ty == to {
            return Some(e.with_span(span));
        }
        if let Some(offset) = Self::class_pointer_offset(&e.ty, &to, true) {
            // Between a class and its base: the base's offset.
            return Some(self.adjust_class_pointer(e, &to, offset).with_span(span));
        }
        let allowed = match cast_kind(&e.ty, &to) {
            Some(_) if to == CType::Void => true,
            Some(_) => e.ty != CType::Void,
            None => false,
        };
        if !allowed {
            self.error(
                span,
                Code::E0004,
                format!("cannot cast `{}` to `{to}`", e.ty),
            );
            return None;
        }
        Some(convert(e, &to).with_span(span))
    }

    /// `sizeof` of a type (C 6.5.3.4): a `size_t` (`unsigned long`)
    /// constant; E0004 for a type without a size (`void`, a function).
    fn sizeof(&mut self, ty: &CType, span: Span) -> Option<Expr> {
        if self.refuse_incomplete(ty, "`sizeof`", span) {
            return None;
        }
        match ty.size() {
            Some(s) => Some(int_const(i128::from(s), CType::ULONG, span)),
            None => {
                self.error(
                    span,
                    Code::E0004,
                    format!("invalid application of `sizeof` to `{ty}`"),
                );
                None
            }
        }
    }

    /// `b[i]` (C 6.5.2.1): `*(b + i)`, so either operand may be the
    /// pointer (`2[a]` is `a[2]`); kept as an `Index` node with the index
    /// widened to 64 bits and the element size, for lowering to address.
    fn index(&mut self, b: Expr, i: Expr, span: Span) -> Option<Expr> {
        let (base, index) = if b.ty.is_pointer() && i.ty.is_integer() {
            (b, i)
        } else if i.ty.is_pointer() && b.ty.is_integer() {
            (i, b)
        } else {
            let msg = if b.ty.is_pointer() {
                format!("array subscript has type `{}`, expected an integer", i.ty)
            } else {
                format!("subscripted value of type `{}` is not a pointer", b.ty)
            };
            self.error(span, Code::E0004, msg);
            return None;
        };
        let pointee = base.ty.pointee()?.clone();
        if pointee == CType::Void {
            self.error(span, Code::E0004, "cannot index a `void *` pointer");
            return None;
        }
        let elem_size = self.elem_size(&pointee, span)?;
        Some(mk(
            ExprKind::Index {
                base: Box::new(base),
                index: Box::new(offset64(index)),
                elem_size,
            },
            pointee,
            span,
        ))
    }

    /// `table[i]` where `table` names a host `const` integer array
    /// (`Binding::ConstArray`): `Some` of the element as a constant, or of
    /// `None` after an error when `i` is no constant index into it or the
    /// read is in a function body outside a template argument (nvcc's
    /// "undefined in device code"); `None` when `base` names anything else.
    fn const_array_element(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> Option<Option<Expr>> {
        let ast::ExprKind::Ident(name) = &base.kind else {
            return None;
        };
        let Some(Binding::ConstArray(values, elem)) = self.lookup(name) else {
            return None;
        };
        if !self.func.scopes.is_empty() && !self.func.in_template_arg {
            self.host_table_in_device_code(name, base.span);
            return Some(None);
        }
        let at = self.expr(index).and_then(|i| self.const_int(&i));
        match at
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i < values.len())
        {
            Some(i) => Some(Some(int_const(values[i], elem, span))),
            None => {
                let msg = format!(
                    "`{name}` is a host array: device code may read only its elements at constant indices within its {} elements",
                    values.len()
                );
                self.error(index.span, Code::E0002, msg);
                Some(None)
            }
        }
    }

    /// E0017 for `name`, a host `const` table, read where nvcc says it is
    /// "undefined in device code": anywhere but the constant initializer of
    /// a module variable or a template argument.
    fn host_table_in_device_code(&mut self, name: &str, at: Span) {
        let d = Diagnostic::error(
            at,
            Code::E0017,
            format!("host variable `{name}` cannot be used in device code"),
        )
        .with_note("only the initializers of `__device__` and `__constant__` variables and template arguments may read a host `const` array's elements; declare it `__constant__` to read it in device code");
        self.diags.push(d);
    }

    /// A call of a name no declaration introduces: E0002 for a function
    /// kernelc knows it does not support yet, E0001 for any other.
    fn unknown_function(&mut self, name: &str, span: Span) {
        if let Some(d) = self.host_declaration_used(name, span, true) {
            self.diags.push(d);
            return;
        }
        let (code, msg) = if UNSUPPORTED_FUNCTIONS.contains(&name) {
            (
                Code::E0002,
                format!("`{name}` is not supported by kernelc yet"),
            )
        } else {
            (
                Code::E0001,
                format!("use of undeclared identifier `{name}`"),
            )
        };
        self.error(span, code, msg);
    }

    /// A function call (C 6.5.2.2, [expr.call]). What the callee names is
    /// decided in order: a texture or surface function, `std::` names,
    /// a method (`obj.f(...)`), a call through an expression, an object of
    /// a class (its `operator()`), a host template in a host stand-in, a
    /// variable of function pointer type; else a function, builtin, template
    /// instance or overload, chosen from the typed arguments
    /// (`resolve_callee`) and checked by [`Checker::call_resolved`].
    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> Option<Expr> {
        if let Some(made) = self.texture_call(callee, args, span) {
            return made;
        }
        if let (Some((rvalue, ty)), [operand]) = (reference_cast(callee), args) {
            return self.reference_cast(rvalue, ty, operand, span);
        }
        if let (Some(forward), [operand]) = (self.utility_function(callee), args) {
            // `std::move(x)`, `std::forward<T>(x)`: the object itself, whose
            // value category deduction asks (`value_category_call`) and
            // overload resolution (`xvalues`).
            let e = self.expr(operand)?;
            if !(forward && self.is_lvalue_reference(operand)) {
                self.xvalues.insert(e.span);
            }
            return Some(e);
        }
        if let ast::ExprKind::Ident(name) = &callee.kind {
            // `std::` names a header of source declares (`<limits>`'s
            // members) are functions like any other.
            let declared = self.by_name.contains_key(name.as_str())
                || self.overloads.by_plain.contains_key(name.as_str())
                || self.host.contains_key(name.as_str());
            if let Some(base) = name.strip_prefix("std::").filter(|_| !declared) {
                return self.std_call(base, callee.span, args, span);
            }
        }
        let inherited;
        let (name, explicit) = match &callee.kind {
            ast::ExprKind::Ident(name) if !self.by_name.contains_key(name.as_str()) => {
                // A static member function of a base, named plainly.
                inherited = self.base_static_member(name);
                (inherited.as_ref().unwrap_or(name), &[][..])
            }
            ast::ExprKind::Ident(name) => (name, &[][..]),
            ast::ExprKind::TemplateId { name, args } => (name, &args[..]),
            ast::ExprKind::Member {
                base,
                field,
                field_span,
                arrow,
                template_args,
            } => {
                let member = super::classes::MemberCall {
                    field,
                    field_span: *field_span,
                    arrow: *arrow,
                    explicit: template_args,
                };
                return self.method_call(base, &member, args, span);
            }
            _ => return self.call_through(callee, args, span),
        };
        if self.lookup(name).is_some_and(|b| self.is_class_object(&b)) {
            return self.functor_call(name, callee.span, args, span);
        }
        if self.typing_host && explicit.is_empty() && !self.by_name.contains_key(name.as_str()) {
            if let Some(value) = self.host_template_call(name, args, span) {
                return Some(value);
            }
        }
        if explicit.is_empty() && self.lookup(name).is_some() {
            // A variable of function pointer type (anything else is
            // reported as not a function).
            let ty = self.expr(callee).map(|c| c.ty.clone());
            if ty.is_some_and(|t| t.is_fn_pointer()) {
                return self.call_through(callee, args, span);
            }
        }
        // Every argument is typed (errors and all) before the callee is
        // chosen: overloads and template deduction need their types.
        let typed_args = self.call_args(args);
        if let Some(made) = self.builtin_beside_overloads(name, &typed_args, span) {
            return made;
        }
        if explicit.is_empty() {
            if let Some(made) = self.qualified_member_call(name, &typed_args, callee.span, span) {
                return made;
            }
        }
        // Argument-dependent lookup: a function (a hidden friend among
        // them) of a class argument's namespace, alone or beside the
        // functions ordinary lookup finds.
        if explicit.is_empty() && self.lookup(name).is_none() {
            if let Some(keys) = self.with_adl_overloads(name, &typed_args) {
                let key = self.choose_overload(name, &keys, &typed_args, callee.span)?;
                return self.call_resolved(&key, typed_args, callee.span, span);
            }
        }
        let found_by_adl = self.adl_callee(name, &typed_args);
        let name = found_by_adl.as_ref().unwrap_or(name);
        let resolved = self.resolve_callee(callee, name, explicit, &typed_args, args)?;
        self.call_resolved(&resolved, typed_args, callee.span, span)
    }

    /// A call's arguments, typed without array decay: an array stays one
    /// until the parameter it is passed to is known, where a reference
    /// binds the array itself (`const T (&v)[N]` deduces `N` from it) and
    /// any other parameter takes the pointer it decays to
    /// ([`Checker::decay_all`], `convert_arguments`).
    pub(super) fn call_args(&mut self, args: &[ast::Expr]) -> Vec<Option<Expr>> {
        args.iter().map(|a| self.expr_nodecay(a)).collect()
    }

    /// Call arguments `args` with every array decayed, for what takes
    /// values only (CUDA's built-in functions).
    pub(super) fn decay_all(&mut self, args: Vec<Option<Expr>>) -> Vec<Option<Expr>> {
        args.into_iter().map(|a| a.map(|a| self.decay(a))).collect()
    }

    /// A call of the function `name` (resolved: an overload's key, a
    /// template's instance) with `typed_args`; `callee` is where it is named.
    pub(super) fn call_resolved(
        &mut self,
        name: &str,
        typed_args: Vec<Option<Expr>>,
        callee: Span,
        span: Span,
    ) -> Option<Expr> {
        let written = typed_args.len();
        let name = &name.to_string();
        // A variable or constant by this name hides the function.
        if let Some(b) = self.lookup(name) {
            self.not_a_function(name, b, callee);
            return None;
        }
        if self.undeduced.contains(name) {
            return None;
        }
        if name == "__syncthreads" {
            if written != 0 {
                self.error(span, Code::E0007, "`__syncthreads` takes no arguments");
                return None;
            }
            return Some(mk(ExprKind::SyncThreads, CType::Void, span));
        }
        if name == "dim3" && !self.by_name.contains_key("dim3") {
            return self.dim3_make(&typed_args, span);
        }
        // No declaration in the program: CUDA's own functions (vector
        // makers, `__half`, builtins), tried before E0001/E0002.
        if !self.by_name.contains_key(name.as_str()) {
            let typed_args = self.decay_all(typed_args);
            if let Some(result) = self.vector_make(name, &typed_args, span) {
                return result;
            }
            if let Some(result) = self.half_call(name, &typed_args, span) {
                return result;
            }
            if let Some(result) = self.builtin_call(name, typed_args, span) {
                return result;
            }
            self.unknown_function(name, callee);
            return None;
        }
        let Some(&sig_idx) = self.by_name.get(name.as_str()) else {
            self.unknown_function(name, callee);
            return None;
        };
        let sig = &self.sigs[sig_idx];
        // A function declared only after this item is undeclared here:
        // C99 has no implicit declarations (C 6.5.1p2), nor has C++.
        if sig.first_item > self.item {
            let decl = sig.first_decl;
            self.diags.push(
                Diagnostic::error(
                    callee,
                    Code::E0001,
                    format!("use of undeclared identifier `{name}`"),
                )
                .with_label(decl, "declared later here")
                .with_note("add a prototype before the first use"),
            );
            return None;
        }
        if sig.is_kernel {
            self.error(
                callee,
                Code::E0007,
                format!("cannot call `__global__` function `{name}` from device code"),
            );
            return None;
        }
        let (params, ret, decl) = (sig.params.clone(), sig.ret.clone(), sig.first_decl);
        if !self.check_function_access(name, decl, callee) {
            return None;
        }
        if self.sigs[sig_idx].host_constexpr {
            self.host_constexpr_call(name, Some(decl), callee)?;
        }
        let defaults = self.sigs[sig_idx].defaults.clone();
        let mut typed_args = typed_args;
        // [dcl.fct.default]: trailing parameters left out take their
        // default arguments, typed afresh at each call.
        if written < params.len() && defaults.iter().any(Option::is_some) {
            // A default argument names what its function may name.
            let filled = self.with_rights_of(name.clone(), |c| {
                c.default_arguments(name, &defaults[written..], written, decl, span)
            })?;
            typed_args.extend(filled);
        }
        if self.sigs[sig_idx].first_call.is_none() {
            self.sigs[sig_idx].first_call = Some(span);
        }
        if params.len() != typed_args.len() {
            let which = if typed_args.len() < params.len() {
                "few"
            } else {
                "many"
            };
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0007,
                    format!(
                        "too {which} arguments to function call `{name}`, expected {}, have {}",
                        params.len(),
                        written
                    ),
                )
                .with_label(decl, format!("`{name}` declared here")),
            );
            return None;
        }
        let out = self.convert_arguments(name, sig_idx, typed_args, &params)?;
        let func_id = self.definition(sig_idx, span);
        self.check_constexpr_instance_now(name);
        let call = mk(
            ExprKind::Call {
                // Never-defined callees are reported after all bodies are checked.
                callee: func_id.unwrap_or(crate::typed::FuncId(u32::MAX)),
                name: name.clone(),
                args: out,
            },
            ret,
            span,
        );
        let returns = self.sigs[sig_idx].returns;
        if returns.reference() {
            // A call of a function returning a reference is the object;
            // of one returning an rvalue reference, an xvalue, which
            // overload resolution lets an rvalue reference bind.
            if returns == ast::Returns::RRef {
                self.xvalues.insert(span);
            }
            let ty = call.ty.pointee().cloned().unwrap_or(CType::INT);
            return Some(mk(ExprKind::Deref(Box::new(call)), ty, span));
        }
        Some(self.fold_constexpr_call(call))
    }

    /// Converts a call's arguments to the parameters of `sigs[sig_idx]` as
    /// if by assignment (C 6.5.2.2p7): a method's `this` gets the object's
    /// address, a reference parameter the argument's. `None` when any fails
    /// (each failure is reported, so all are).
    fn convert_arguments(
        &mut self,
        name: &str,
        sig_idx: usize,
        typed_args: Vec<Option<Expr>>,
        params: &[CType],
    ) -> Option<Vec<Expr>> {
        let refs = self.sigs[sig_idx].refs.clone();
        let rvalue_refs = self.sigs[sig_idx].rvalue_refs.clone();
        let is_method = self.sigs[sig_idx].is_method;
        let mut out = Vec::new();
        let mut ok = true;
        for (i, (a, p)) in typed_args.into_iter().zip(params).enumerate() {
            let what = format!("argument {} of `{name}`", i + 1);
            let by_ref = refs.get(i).copied().unwrap_or(false);
            match a.and_then(|a| {
                let at = a.span;
                // A method's first parameter is `this`: the object's address.
                if i == 0 && is_method {
                    return self.object_address(a, p);
                }
                if by_ref {
                    // A reference parameter receives the object's address.
                    let rvalue = rvalue_refs.get(i).copied().unwrap_or(false);
                    let addr = self.bind_reference_as(a, p, rvalue, &what)?;
                    return self.assign_convert(addr, p, &what, at);
                }
                let a = self.decay(a);
                self.assign_convert(a, p, &what, at)
            }) {
                Some(a) => out.push(a),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A call of a `constexpr` function with constant arguments is its
    /// value, as nvcc's front end computes it (`fib(12)` is 144 in the
    /// PTX, however deep the recursion).
    fn fold_constexpr_call(&self, call: Expr) -> Expr {
        let ExprKind::Call { name, .. } = &call.kind else {
            return call;
        };
        if !self.constexpr_bodies.contains_key(name) {
            return call;
        }
        let kind = if call.ty.is_float() {
            self.const_float(&call).map(ExprKind::FloatConst)
        } else if call.ty.is_integer() || call.ty == CType::Bool {
            self.const_int(&call).map(ExprKind::IntConst)
        } else {
            None
        };
        match kind {
            Some(kind) => mk(kind, call.ty.clone(), call.span),
            None => call,
        }
    }
}

impl Checker {
    /// E0007 for calling `name`, a variable or constant (`b`).
    fn not_a_function(&mut self, name: &str, b: Binding, at: Span) {
        let ty = match b {
            Binding::Failed => return,
            Binding::Local(id) => self.func.locals[id.0 as usize].ty.clone(),
            Binding::Ref(id) => self.func.locals[id.0 as usize]
                .ty
                .pointee()
                .cloned()
                .unwrap_or(CType::INT),
            Binding::Const(_, t) | Binding::ConstFloat(_, t) => t,
            Binding::ConstArray(values, t) => CType::Array {
                elem: Box::new(t),
                len: Some(values.len() as u64),
            },
            Binding::Global(id) => self.globals[id.0 as usize].ty.clone(),
        };
        self.error(
            at,
            Code::E0007,
            format!("called object `{name}` of type `{ty}` is not a function"),
        );
    }

    /// The function a call of `name` names: a template's instance (written
    /// or deduced arguments), the overload the arguments choose, or `name`
    /// itself. `None` after an error (reported).
    fn resolve_callee(
        &mut self,
        callee: &ast::Expr,
        name: &str,
        explicit: &[crate::templates::TemplateArg],
        typed_args: &[Option<Expr>],
        written: &[ast::Expr],
    ) -> Option<String> {
        let is_template_id = matches!(callee.kind, ast::ExprKind::TemplateId { .. });
        let name = if is_template_id
            || (!self.by_name.contains_key(name)
                && self.lookup(name).is_none()
                && self.tmpl.templates.is_template(name))
        {
            self.template_call_written(name, explicit, typed_args, written, callee.span)?
        } else {
            name.to_string()
        };
        if !is_template_id && self.tmpl.templates.is_template(&name) {
            // A function and a template of one name: the template's
            // instance competes, and wins when it converts better
            // (`f(5)` takes `template <class T> f(T)` over `f(bool)`).
            if let Some(keys) = self.with_template_instance(&name, typed_args, written, callee.span)
            {
                return self.choose_overload(&name, &keys, typed_args, callee.span);
            }
        }
        match self.overloads.by_plain.get(name.as_str()) {
            Some(keys) if keys.len() > 1 => {
                let keys = keys.clone();
                self.choose_overload(&name, &keys, typed_args, callee.span)
            }
            _ => Some(name),
        }
    }

    /// The overloads of function `name` and the instance of its template
    /// that the call's arguments deduce, or `None` when none deduces (the
    /// functions alone are then the candidates). Deduction that fails is no
    /// error here: its diagnostics are dropped, as SFINAE drops the
    /// candidate.
    fn with_template_instance(
        &mut self,
        name: &str,
        typed_args: &[Option<Expr>],
        written: &[ast::Expr],
        span: Span,
    ) -> Option<Vec<String>> {
        if !self.by_name.contains_key(name) {
            return None;
        }
        let before = self.diags.len();
        let instance = self.template_call_written(name, &[], typed_args, written, span);
        if self.diags.len() > before {
            self.diags.truncate(before);
            return None;
        }
        let instance = instance?;
        let mut keys = match self.overloads.by_plain.get(name) {
            Some(keys) => keys.clone(),
            None => vec![name.to_string()],
        };
        self.overloads.instances.insert(instance.clone());
        keys.push(instance);
        Some(keys)
    }

    /// The default arguments of the parameters a call leaves out (`missing`,
    /// after the `given` arguments), each typed and evaluated at the call as
    /// C++ does; E0018 when one of them has none.
    fn default_arguments(
        &mut self,
        name: &str,
        missing: &[Option<ast::Expr>],
        given: usize,
        decl: Span,
        span: Span,
    ) -> Option<Vec<Option<Expr>>> {
        if let Some(k) = missing.iter().position(Option::is_none) {
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0018,
                    format!(
                        "too few arguments to function call `{name}`: parameter {} has no default argument",
                        given + k + 1
                    ),
                )
                .with_label(decl, format!("`{name}` declared here")),
            );
            return None;
        }
        Some(
            missing
                .iter()
                .flatten()
                .map(|d| self.expr_nodecay(d))
                .collect(),
        )
    }

    /// `std::f(args)`: `<cmath>`'s functions (CUDA's device overloads of
    /// them) are the built-ins of the same name, and `std::min`/`std::max`
    /// the host `constexpr` templates of the C++ library
    /// (`Checker::std_min_max`); kernelc has no other function of `std`.
    /// Whether `callee` names `<utility>`'s `std::move` (`Some(false)`) or
    /// `std::forward` (`Some(true)`), also as `cuda::std::`, when the
    /// program declares no function of that name.
    pub(super) fn utility_function(&self, callee: &ast::Expr) -> Option<bool> {
        let name = match &callee.kind {
            ast::ExprKind::Ident(name) | ast::ExprKind::TemplateId { name, .. } => name,
            _ => return None,
        };
        let base = name
            .strip_prefix("cuda::std::")
            .or_else(|| name.strip_prefix("std::"))?;
        let forward = match base {
            "move" => false,
            "forward" => true,
            _ => return None,
        };
        let declared = self.by_name.contains_key(name.as_str())
            || self.tmpl.templates.is_template(name)
            || self.overloads.by_plain.contains_key(name.as_str());
        (!declared).then_some(forward)
    }

    /// The value category a call of `std::move` or `std::forward` gives
    /// its operand, `None` for any other expression: `std::move(x)` is
    /// an rvalue, `std::forward<T>(x)` an lvalue when `x` is an lvalue
    /// reference (a forwarding reference that deduced `T &`, collapsed to
    /// `T &`), else an rvalue.
    pub(super) fn value_category_call(&self, e: &ast::Expr) -> Option<bool> {
        let ast::ExprKind::Call { callee, args } = &e.kind else {
            return None;
        };
        if let Some((rvalue, _)) = reference_cast(callee) {
            return Some(!rvalue);
        }
        let forward = self.utility_function(callee)?;
        let [operand] = &args[..] else {
            return None;
        };
        Some(forward && self.is_lvalue_reference(operand))
    }

    /// `static_cast<T &&>(e)` (`rvalue`) and `static_cast<T &>(e)`: `e`
    /// itself when it has type `T` (its value category, which deduction
    /// asks, is `value_category_call`'s); to an rvalue reference of
    /// another type, the temporary `static_cast<T>(e)`. An lvalue
    /// reference to another type (a base or derived class) is E0002.
    fn reference_cast(
        &mut self,
        rvalue: bool,
        ty: &ast::QualType,
        operand: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let e = self.expr_nodecay(operand)?;
        if e.ty == ty.ty {
            if rvalue {
                self.xvalues.insert(span);
            }
            return Some(e.with_span(span));
        }
        if !rvalue && e.ty.is_struct() && ty.ty.is_struct() {
            // Between a base and a derived class: the pointer cast's
            // adjustment, `*static_cast<T *>(&e)`.
            let via_pointer = ast::reference_through_pointer(
                Some(ast::NamedCastKind::Static),
                ty.clone(),
                operand.clone(),
                span,
            );
            return self.expr(&via_pointer);
        }
        if !rvalue {
            self.error(
                span,
                Code::E0002,
                format!(
                    "`static_cast` of a `{}` to `{} &` is not supported by kernelc",
                    e.ty, ty.ty
                ),
            );
            return None;
        }
        self.named_cast(ast::NamedCastKind::Static, ty, operand, span)
    }

    fn std_call(&mut self, base: &str, at: Span, args: &[ast::Expr], span: Span) -> Option<Expr> {
        if base == "min" || base == "max" {
            return self.std_min_max(base == "max", at, args, span);
        }
        if !super::builtins::is_cmath_function(base) && !super::builtins::is_cstring_function(base)
        {
            self.error(
                at,
                Code::E0002,
                format!("`std::{base}` is not supported by kernelc (of `std`, device code may call `<cmath>`'s functions, `memcpy`/`memset` and, under `--expt-relaxed-constexpr`, `std::min`/`std::max`)"),
            );
            return None;
        }
        let callee = ast::Expr {
            kind: ast::ExprKind::Ident(base.to_string()),
            span: at,
        };
        self.call(&callee, args, span)
    }
}

/// Whether `callee` is one of the parser's `static_cast`s to a reference
/// type (`ast::REFERENCE_CASTS`): to an rvalue reference (`true`), and
/// the type written.
fn reference_cast(callee: &ast::Expr) -> Option<(bool, &ast::QualType)> {
    let ast::ExprKind::TemplateId { name, args } = &callee.kind else {
        return None;
    };
    let rvalue = ast::REFERENCE_CASTS.iter().position(|c| c == name)? == 0;
    match args.as_slice() {
        [crate::templates::TemplateArg::Type(ty)] => Some((rvalue, ty)),
        _ => None,
    }
}

/// Levenshtein distance (names are short, so the quadratic table is fine).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The typed operator of a compound assignment's `op=` (only arithmetic,
/// bitwise and shift operators can be compounded, C 6.5.16).
fn to_binop(op: BinaryOp) -> BinOp {
    match op {
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Sub => BinOp::Sub,
        BinaryOp::Mul => BinOp::Mul,
        BinaryOp::Div => BinOp::Div,
        BinaryOp::Rem => BinOp::Rem,
        BinaryOp::Shl => BinOp::Shl,
        BinaryOp::Shr => BinOp::Shr,
        BinaryOp::BitAnd => BinOp::BitAnd,
        BinaryOp::BitOr => BinOp::BitOr,
        _ => BinOp::BitXor,
    }
}
