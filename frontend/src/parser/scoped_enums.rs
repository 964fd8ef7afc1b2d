//! Scoped enumerations (`enum class`) do not convert implicitly (C++
//! [dcl.enum]): E0022 where a value of one is used as a number.
//!
//! kernelc's types (`CType`) give an enumeration its underlying integer
//! type, so the typed tree cannot tell a scoped enumeration from an
//! integer. The parser can: it knows which enumerations are scoped, and
//! the spelled type of every local, parameter, module variable and
//! function result. After it parses a function, [`Parser::check_scoped_enums`]
//! walks the body with the scoped-enumeration type of each name in scope
//! and reports each implicit conversion of such a value: an arithmetic,
//! bitwise or logical operand, a comparison with anything but the same
//! enumeration, an index, a condition, and an initializer, assignment,
//! argument or `return` value whose target's spelled type is not that
//! enumeration. A switch on it and casts are fine. Where a target's type
//! is not known here (a struct member, a built-in function's parameter),
//! nothing is reported.

use rustc_hash::{FxHashMap, FxHashSet};

use super::Parser;
use crate::ast::{
    BinaryOp, Block, Expr, ExprKind, FunctionDecl, Init, QualType, Spelling, Stmt, StmtKind,
    UnaryOp, VarDecl,
};
use crate::codes::Code;
use crate::diag::Diagnostic;

/// What the parser learned about scoped enumerations so far.
#[derive(Default)]
pub(crate) struct ScopedEnums {
    /// The keys of the scoped enumerations.
    enums: FxHashSet<String>,
    /// Each enumerator's key, to its enumeration's.
    enumerators: FxHashMap<String, String>,
    /// Module variables of a scoped enumeration type.
    variables: FxHashMap<String, String>,
    /// Functions: the result's and each parameter's scoped enumeration.
    functions: FxHashMap<String, (Option<String>, Vec<Option<String>>)>,
}

impl ScopedEnums {
    /// `enum class key { ... }` was declared.
    pub(crate) fn declare_enum(&mut self, key: &str) {
        self.enums.insert(key.to_string());
    }

    /// An enumerator of the scoped enumeration `enum_key`.
    pub(crate) fn declare_enumerator(&mut self, key: &str, enum_key: &str) {
        self.enumerators
            .insert(key.to_string(), enum_key.to_string());
    }

    /// The scoped enumeration a value of the written type is (not a
    /// pointer to one, not an array of them).
    fn of(&self, ty: &QualType, array: bool) -> Option<String> {
        match &ty.spelling {
            Spelling::Enum(k) if self.enums.contains(k) && !ty.ty.is_pointer() && !array => {
                Some(k.clone())
            }
            _ => None,
        }
    }

    /// Records a module variable's type.
    pub(crate) fn declare_variable(&mut self, v: &VarDecl) {
        if let Some(e) = self.of(&v.ty, !v.dims.is_empty()) {
            self.variables.insert(v.name.clone(), e);
        }
    }

    /// Records a function's result and parameter types.
    pub(crate) fn declare_function(&mut self, f: &FunctionDecl, ret: &QualType) {
        let params = f
            .params
            .iter()
            .map(|p| self.of(&p.ty, !p.dims.is_empty()))
            .collect();
        self.functions
            .insert(f.name.clone(), (self.of(ret, false), params));
    }
}

/// The walk of one function body.
struct Walk<'a> {
    reg: &'a ScopedEnums,
    /// Block scopes of names: each local's scoped enumeration, if any.
    scopes: Vec<Vec<(String, Option<String>)>>,
    ret: Option<String>,
    diags: Vec<Diagnostic>,
}

impl Parser<'_> {
    /// Reports the implicit conversions of scoped enumeration values in
    /// the body of `f` (E0022).
    pub(super) fn check_scoped_enums(&mut self, f: &FunctionDecl) {
        let Some(body) = &f.body else { return };
        if self.scoped.enums.is_empty() {
            return;
        }
        let ret = self
            .scoped
            .functions
            .get(&f.name)
            .and_then(|(r, _)| r.clone());
        let params = f
            .params
            .iter()
            .filter_map(|p| {
                let name = p.name.clone()?;
                Some((name, self.scoped.of(&p.ty, !p.dims.is_empty())))
            })
            .collect();
        let mut w = Walk {
            reg: &self.scoped,
            scopes: vec![params],
            ret,
            diags: Vec::new(),
        };
        stdx::stack::with_stack(|| w.block(body));
        self.diags.append(&mut w.diags);
    }
}

impl Walk<'_> {
    /// The scoped enumeration `e`'s value has, when it has one that this
    /// walk can tell.
    fn enum_of(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Ident(name) => {
                for scope in self.scopes.iter().rev() {
                    if let Some((_, t)) = scope.iter().rev().find(|(n, _)| n == name) {
                        return t.clone();
                    }
                }
                self.reg
                    .enumerators
                    .get(name)
                    .or_else(|| self.reg.variables.get(name))
                    .cloned()
            }
            ExprKind::Cast { ty, .. } | ExprKind::NamedCast { ty, .. } => self.reg.of(ty, false),
            ExprKind::Assign { op: None, lhs, .. } => self.enum_of(lhs),
            ExprKind::Ternary { then, els, .. } => {
                let t = self.enum_of(then);
                (t == self.enum_of(els)).then_some(t).flatten()
            }
            ExprKind::Call { callee, .. } => match &callee.kind {
                ExprKind::Ident(f) => self.reg.functions.get(f).and_then(|(r, _)| r.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The scoped enumeration of a local named `name`: `Some(None)` for a
    /// local of another type, `None` when `name` is no local.
    fn local(&self, name: &str) -> Option<Option<String>> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().rev().find(|(n, _)| n == name))
            .map(|(_, t)| t.clone())
    }

    /// E0022 when `e` has a scoped enumeration type and `target` (what it
    /// converts to, when known) is not that type.
    fn convert(&mut self, e: &Expr, target: Option<Option<String>>, to: &str) {
        let Some(from) = self.enum_of(e) else { return };
        match target {
            Some(t) if t.as_deref() == Some(from.as_str()) => {}
            None => {}
            Some(_) => self.report(e, &from, to),
        }
    }

    fn report(&mut self, e: &Expr, from: &str, to: &str) {
        self.diags.push(
            Diagnostic::error(
                e.span,
                Code::E0022,
                format!("a value of scoped enumeration `{from}` does not convert implicitly to {to}"),
            )
            .with_note("convert it explicitly (`static_cast<int>(x)`), or compare it with an enumerator of its own type"),
        );
    }

    /// E0022 when `e` is a scoped enumeration value used as a number.
    fn as_number(&mut self, e: &Expr, to: &str) {
        if let Some(from) = self.enum_of(e) {
            self.report(e, &from, to);
        }
    }

    fn block(&mut self, b: &Block) {
        self.scopes.push(Vec::new());
        for s in &b.stmts {
            self.stmt(s);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Decl(vars) => {
                for v in vars {
                    self.decl(v);
                }
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Bindings(b) => {
                self.decl(&b.object);
                // A name's enumeration is its member's, which only the
                // checker knows: the names are checked as numbers there.
                if let Some(scope) = self.scopes.last_mut() {
                    scope.extend(b.names.iter().map(|(n, _)| (n.clone(), None)));
                }
            }
            StmtKind::If { cond, then, els } => {
                self.cond(cond);
                self.stmt(then);
                if let Some(e) = els {
                    self.stmt(e);
                }
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.cond(cond);
                self.stmt(body);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(Vec::new());
                if let Some(i) = init {
                    self.stmt(i);
                }
                if let Some(c) = cond {
                    self.cond(c);
                }
                if let Some(st) = step {
                    self.expr(st);
                }
                self.stmt(body);
                self.scopes.pop();
            }
            StmtKind::Return(Some(e)) => {
                self.expr(e);
                let target = Some(self.ret.clone());
                self.convert(e, target, "the function's result type");
            }
            StmtKind::Switch { cond, body } => {
                self.expr(cond);
                self.stmt(body);
            }
            StmtKind::RangeFor { var, range, body } => {
                self.expr(range);
                self.scopes.push(Vec::new());
                self.decl(var);
                self.stmt(body);
                self.scopes.pop();
            }
            StmtKind::Labeled { stmt, .. } | StmtKind::Unroll { stmt, .. } => self.stmt(stmt),
            _ => {}
        }
    }

    fn decl(&mut self, v: &VarDecl) {
        let own = self.reg.of(&v.ty, !v.dims.is_empty());
        if let Some(Init::Expr(e)) = &v.init {
            self.expr(e);
            if v.auto.is_none() && v.dims.is_empty() {
                self.convert(e, Some(own.clone()), "the variable's type");
            }
        }
        let own = match (v.auto, &v.init) {
            (Some(_), Some(Init::Expr(e))) if v.ty.ty == crate::types::CType::Void => {
                self.enum_of(e)
            }
            _ => own,
        };
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((v.name.clone(), own));
        }
    }

    fn cond(&mut self, e: &Expr) {
        self.expr(e);
        self.as_number(e, "`bool`");
    }

    fn expr(&mut self, e: &Expr) {
        stdx::stack::with_stack(|| self.expr_inner(e));
    }

    fn expr_inner(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs } => {
                self.expr(lhs);
                self.expr(rhs);
                self.binary(*op, lhs, rhs);
            }
            ExprKind::Unary { op, operand } => {
                self.expr(operand);
                if !matches!(op, UnaryOp::AddrOf | UnaryOp::Deref) {
                    self.as_number(operand, "a number");
                }
            }
            ExprKind::IncDec { operand, .. } => {
                self.expr(operand);
                self.as_number(operand, "a number");
            }
            ExprKind::Assign { op, lhs, rhs } => {
                self.expr(lhs);
                self.expr(rhs);
                match op {
                    Some(_) => {
                        self.as_number(lhs, "a number");
                        self.as_number(rhs, "a number");
                    }
                    None => {
                        let target = match &lhs.kind {
                            ExprKind::Ident(n) => self.local(n),
                            _ => None,
                        };
                        self.convert(rhs, target, "the assigned variable's type");
                    }
                }
            }
            ExprKind::Ternary { cond, then, els } => {
                self.cond(cond);
                self.expr(then);
                self.expr(els);
            }
            ExprKind::Index { base, index } => {
                self.expr(base);
                self.expr(index);
                self.as_number(index, "an index");
            }
            ExprKind::Call { callee, args } => {
                self.expr(callee);
                let params = match &callee.kind {
                    ExprKind::Ident(f) => self.reg.functions.get(f).map(|(_, p)| p.clone()),
                    _ => None,
                };
                for (i, a) in args.iter().enumerate() {
                    self.expr(a);
                    if let Some(p) = &params {
                        let target = p.get(i).cloned();
                        self.convert(a, target, "the parameter's type");
                    }
                }
            }
            ExprKind::Cast { expr, .. }
            | ExprKind::NamedCast { expr, .. }
            | ExprKind::SizeofExpr(expr) => self.expr(expr),
            ExprKind::Member { base, .. } => self.expr(base),
            _ => {}
        }
    }

    /// A binary operator's operands: a comparison needs the same scoped
    /// enumeration on both sides; arithmetic, bitwise and logical
    /// operators none.
    fn binary(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr) {
        use BinaryOp::*;
        match op {
            Comma => {}
            Lt | Le | Gt | Ge | Eq | Ne => {
                let (a, b) = (self.enum_of(lhs), self.enum_of(rhs));
                if a != b {
                    let side = if a.is_some() { lhs } else { rhs };
                    self.as_number(side, "a number to be compared");
                }
            }
            _ => {
                self.as_number(lhs, "a number");
                self.as_number(rhs, "a number");
            }
        }
    }
}
