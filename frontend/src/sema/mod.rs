//! Semantic analysis: name resolution, C typing rules, and construction of
//! the explicit [`typed`](crate::typed) program.
//!
//! The checker keeps going after errors (an erroneous expression simply
//! yields `None` and is dropped) so every independent error in the file is
//! reported in one run.

mod convert;
mod expr;

use std::collections::HashMap;

use crate::ast;
use crate::diag::{Diagnostic, Span};
use crate::typed::{Block, FuncId, Function, LocalId, LocalVar, Param, Program, Stmt, StmtKind};
use crate::types::CType;
use convert::strip_restrict;

/// What is known about a function name from its declarations.
struct FnSig {
    ret: CType,
    params: Vec<CType>,
    is_kernel: bool,
    /// Name span of the first declaration (calls must come after it).
    first_decl: Span,
    /// Set once the definition has been seen.
    def: Option<(FuncId, Span)>,
    extern_c: bool,
    noinline: bool,
    forceinline: bool,
    /// The first call, to report calls to never-defined functions.
    first_call: Option<Span>,
}

/// Checker state: global function table plus per-function scopes.
pub(crate) struct Checker {
    sigs: Vec<FnSig>,
    by_name: HashMap<String, usize>,
    diags: Vec<Diagnostic>,
    locals: Vec<LocalVar>,
    scopes: Vec<Vec<(String, LocalId)>>,
    ret: CType,
    fn_name: String,
    loop_depth: u32,
}

/// Checks a translation unit.
pub(crate) fn check_program(tu: &ast::TranslationUnit) -> (Program, Vec<Diagnostic>) {
    let mut c = Checker {
        sigs: Vec::new(),
        by_name: HashMap::new(),
        diags: Vec::new(),
        locals: Vec::new(),
        scopes: Vec::new(),
        ret: CType::Void,
        fn_name: String::new(),
        loop_depth: 0,
    };
    // Pass 1: signatures, so bodies can check calls and so prototypes merge.
    let mut defs = Vec::new();
    for f in &tu.functions {
        if let Some(idx) = c.declare_function(f, defs.len()) {
            if f.body.is_some() {
                defs.push((f, idx));
            }
        }
    }
    // Pass 2: bodies.
    let mut functions = Vec::new();
    for (f, idx) in defs {
        functions.push(c.function(f, idx));
    }
    for (name, &i) in &c.by_name {
        let s = &c.sigs[i];
        if let (None, Some(call)) = (s.def, s.first_call) {
            c.diags.push(
                Diagnostic::error(
                    call,
                    format!("function `{name}` is called but never defined"),
                )
                .with_label(s.first_decl, "declared here"),
            );
        }
    }
    // Merge attributes from all declarations into the definitions.
    for f in &mut functions {
        if let Some(&i) = c.by_name.get(&f.name) {
            let s = &c.sigs[i];
            f.is_extern_c |= s.extern_c;
            f.noinline |= s.noinline;
            f.forceinline |= s.forceinline;
        }
    }
    (Program { functions }, c.diags)
}

impl Checker {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    /// Records a declaration; returns its signature index, or `None` if the
    /// declaration is unusable.
    fn declare_function(&mut self, f: &ast::FunctionDecl, next_def: usize) -> Option<usize> {
        let s = &f.specs;
        if s.global && s.device {
            self.error(
                f.name_span,
                "`__global__` and `__device__` cannot be combined",
            );
        } else if s.global && s.host {
            self.error(
                f.name_span,
                "`__global__` and `__host__` cannot be combined",
            );
        } else if !s.global && !s.device {
            self.diags.push(
                Diagnostic::error(
                    f.name_span,
                    format!("host function `{}` is not supported by kernelc", f.name),
                )
                .with_note("mark it `__global__` (a kernel) or `__device__` (called from kernels)"),
            );
        }
        if s.global && f.ret != CType::Void {
            self.error(
                f.ret_span,
                format!("kernel `{}` must return `void`, not `{}`", f.name, f.ret),
            );
        }
        let mut params = Vec::new();
        for p in &f.params {
            if p.ty.ty == CType::Void {
                self.error(p.span, "a parameter cannot have type `void`");
            }
            params.push(strip_restrict(&p.ty.ty).0);
        }
        if let Some(&i) = self.by_name.get(&f.name) {
            let prev = &self.sigs[i];
            let prev_decl = prev.first_decl;
            if prev.ret != f.ret || prev.params != params || prev.is_kernel != s.global {
                self.diags.push(
                    Diagnostic::error(f.name_span, format!("conflicting types for `{}`", f.name))
                        .with_label(prev_decl, "previous declaration is here")
                        .with_note("kernelc does not support overloading"),
                );
                return None;
            }
            if f.body.is_some() {
                if let Some((_, def_span)) = prev.def {
                    self.diags.push(
                        Diagnostic::error(f.name_span, format!("redefinition of `{}`", f.name))
                            .with_label(def_span, "previous definition is here"),
                    );
                    return None;
                }
            }
            let sig = &mut self.sigs[i];
            sig.extern_c |= s.extern_c;
            sig.noinline |= s.noinline;
            sig.forceinline |= s.forceinline;
            if f.body.is_some() {
                sig.def = Some((FuncId(next_def as u32), f.name_span));
            }
            return Some(i);
        }
        self.sigs.push(FnSig {
            ret: f.ret.clone(),
            params,
            is_kernel: s.global,
            first_decl: f.name_span,
            def: f
                .body
                .as_ref()
                .map(|_| (FuncId(next_def as u32), f.name_span)),
            extern_c: s.extern_c,
            noinline: s.noinline,
            forceinline: s.forceinline,
            first_call: None,
        });
        self.by_name.insert(f.name.clone(), self.sigs.len() - 1);
        Some(self.sigs.len() - 1)
    }

    /// Checks one function definition.
    fn function(&mut self, f: &ast::FunctionDecl, _sig: usize) -> Function {
        self.locals = Vec::new();
        self.scopes = vec![Vec::new()];
        self.ret = f.ret.clone();
        self.fn_name = f.name.clone();
        self.loop_depth = 0;
        let mut params = Vec::new();
        for p in &f.params {
            let (ty, restrict) = strip_restrict(&p.ty.ty);
            let name = p.name.clone().unwrap_or_default();
            let local = self.declare_local(&name, ty.clone(), p.ty.is_const, true, p.span);
            params.push(Param {
                name,
                ty,
                restrict,
                span: p.span,
                local,
            });
        }
        // The body shares the parameters' scope, as in C.
        let empty = ast::Block {
            stmts: Vec::new(),
            span: f.span,
        };
        let body_ast = f.body.as_ref().unwrap_or(&empty);
        let stmts = body_ast.stmts.iter().map(|s| self.stmt(s)).collect();
        let s = &f.specs;
        Function {
            name: f.name.clone(),
            span: f.name_span,
            is_kernel: s.global,
            is_extern_c: s.extern_c,
            is_static: s.is_static,
            is_inline: s.inline,
            noinline: s.noinline,
            forceinline: s.forceinline,
            params,
            ret: f.ret.clone(),
            body: Block {
                stmts,
                span: body_ast.span,
            },
            locals: std::mem::take(&mut self.locals),
        }
    }

    /// Adds a variable to the innermost scope (unnamed parameters get an id
    /// but no name binding).
    fn declare_local(
        &mut self,
        name: &str,
        ty: CType,
        is_const: bool,
        is_param: bool,
        span: Span,
    ) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        if !name.is_empty() {
            let scope = self.scopes.last_mut();
            if let Some(scope) = scope {
                if let Some((_, prev)) = scope.iter().find(|(n, _)| n == name) {
                    let prev_span = self.locals[prev.0 as usize].span;
                    self.diags.push(
                        Diagnostic::error(span, format!("redefinition of `{name}`"))
                            .with_label(prev_span, "previous declaration is here"),
                    );
                }
            }
            if let Some(scope) = self.scopes.last_mut() {
                scope.push((name.to_string(), id));
            }
        }
        self.locals.push(LocalVar {
            name: name.to_string(),
            ty,
            is_const,
            is_param,
            span,
        });
        id
    }

    fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }

    fn block(&mut self, b: &ast::Block) -> Block {
        self.scopes.push(Vec::new());
        let stmts = b.stmts.iter().map(|s| self.stmt(s)).collect();
        self.scopes.pop();
        Block {
            stmts,
            span: b.span,
        }
    }

    /// A condition expression converted to `bool`.
    fn cond(&mut self, e: &ast::Expr) -> Option<crate::typed::Expr> {
        let e = self.expr(e)?;
        self.make_bool(e)
    }

    fn loop_body(&mut self, s: &ast::Stmt) -> Box<Stmt> {
        self.loop_depth += 1;
        let body = self.stmt(s);
        self.loop_depth -= 1;
        Box::new(body)
    }

    /// Checks declarations, returning one `Decl` statement per declarator.
    fn decls(&mut self, vars: &[ast::VarDecl]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for v in vars {
            let ty = strip_restrict(&v.ty.ty).0;
            if ty == CType::Void {
                self.error(
                    v.name_span,
                    format!("variable `{}` has type `void`", v.name),
                );
            }
            // As in C, the name is in scope in its own initializer.
            let local = self.declare_local(&v.name, ty.clone(), v.ty.is_const, false, v.name_span);
            let init = match &v.init {
                Some(i) => self
                    .expr(i)
                    .and_then(|e| self.assign_convert(e, &ty, "initialization", v.name_span)),
                None => None,
            };
            out.push(Stmt {
                kind: StmtKind::Decl { local, init },
                span: v.span,
            });
        }
        out
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Stmt {
        use ast::StmtKind as A;
        let kind = match &s.kind {
            A::Expr(e) => match self.expr(e) {
                Some(e) => StmtKind::Expr(e),
                None => StmtKind::Empty,
            },
            A::Decl(vars) => {
                let mut d = self.decls(vars);
                if d.len() == 1 {
                    return d.remove(0);
                }
                // Several declarators: a block would open a new scope in
                // lowering's eyes, but the names are already resolved to ids.
                StmtKind::Block(Block {
                    stmts: d,
                    span: s.span,
                })
            }
            A::Block(b) => StmtKind::Block(self.block(b)),
            A::If { cond, then, els } => {
                let cond = self.cond(cond);
                let then = Box::new(self.stmt(then));
                let els = els.as_ref().map(|e| Box::new(self.stmt(e)));
                match cond {
                    Some(cond) => StmtKind::If { cond, then, els },
                    None => StmtKind::Empty,
                }
            }
            A::While { cond, body } => {
                let cond = self.cond(cond);
                let body = self.loop_body(body);
                match cond {
                    Some(cond) => StmtKind::While { cond, body },
                    None => StmtKind::Empty,
                }
            }
            A::DoWhile { body, cond } => {
                let body = self.loop_body(body);
                let cond = self.cond(cond);
                match cond {
                    Some(cond) => StmtKind::DoWhile { body, cond },
                    None => StmtKind::Empty,
                }
            }
            A::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(Vec::new());
                let init = match init.as_deref() {
                    Some(ast::Stmt {
                        kind: A::Decl(vars),
                        ..
                    }) => self.decls(vars),
                    Some(other) => vec![self.stmt(other)],
                    None => Vec::new(),
                };
                let cond = cond.as_ref().map(|c| self.cond(c));
                let step = step.as_ref().and_then(|e| self.expr(e));
                let body = self.loop_body(body);
                self.scopes.pop();
                match cond {
                    Some(None) => StmtKind::Empty,
                    Some(Some(c)) => StmtKind::For {
                        init,
                        cond: Some(c),
                        step,
                        body,
                    },
                    None => StmtKind::For {
                        init,
                        cond: None,
                        step,
                        body,
                    },
                }
            }
            A::Break | A::Continue => {
                let is_break = matches!(s.kind, A::Break);
                if self.loop_depth == 0 {
                    let what = if is_break { "break" } else { "continue" };
                    self.error(s.span, format!("`{what}` statement not in a loop"));
                }
                if is_break {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                }
            }
            A::Return(v) => self.return_stmt(v.as_ref(), s.span),
            A::Empty => StmtKind::Empty,
        };
        Stmt { kind, span: s.span }
    }

    fn return_stmt(&mut self, v: Option<&ast::Expr>, span: Span) -> StmtKind {
        let ret = self.ret.clone();
        let name = self.fn_name.clone();
        match (v, ret == CType::Void) {
            (None, true) => StmtKind::Return(None),
            (None, false) => {
                self.error(
                    span,
                    format!("non-void function `{name}` must return a value of type `{ret}`"),
                );
                StmtKind::Empty
            }
            (Some(e), true) => {
                match self.expr(e) {
                    Some(e) if e.ty == CType::Void => {
                        // `return f();` with void `f`: evaluate, then return.
                        let e_span = e.span;
                        let stmts = vec![
                            Stmt {
                                kind: StmtKind::Expr(e),
                                span: e_span,
                            },
                            Stmt {
                                kind: StmtKind::Return(None),
                                span,
                            },
                        ];
                        StmtKind::Block(Block { stmts, span })
                    }
                    Some(e) => {
                        self.error(
                            e.span,
                            format!("void function `{name}` should not return a value"),
                        );
                        StmtKind::Empty
                    }
                    None => StmtKind::Empty,
                }
            }
            (Some(e), false) => {
                let e = self
                    .expr(e)
                    .and_then(|e| self.assign_convert(e, &ret, "return", span));
                match e {
                    Some(e) => StmtKind::Return(Some(e)),
                    None => StmtKind::Empty,
                }
            }
        }
    }
}
