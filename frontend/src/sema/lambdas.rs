//! Lambdas in the checker: each lambda expression makes a closure type, a
//! class whose members are its captures and whose `operator()` is its body
//! (C++ [expr.prim.lambda.closure]), and its value is an object of that
//! class with the captured values (or, captured by reference, addresses)
//! in its members. From there on a lambda is a class object like any
//! other: `f(x)` calls its `operator()` (`classes.rs`), a function
//! template deduces its type (`apply([&](int i) { ... })`), and host code
//! may pass it to a kernel template (`crate::host_lambdas`).
//!
//! The parser kept the captures as expressions and the call operator as
//! tokens (`crate::parser::lambdas`). Here the captures are typed (their
//! types are the members'), the closure type is laid out and named as
//! nvcc names it, and the call operator is read as a member function of
//! it and checked at once: its return type, when not written, is deduced
//! from its `return` statements, which the lambda's callers need to know.
//! A generic lambda's call operator (`auto` parameters) is a template: it
//! is read and checked for each list of argument types a call deduces.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Checker;
use crate::ast;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::{ArgValue, FunctionTemplate, ParamKind, TemplateParam};
use crate::typed::Expr;
use crate::types::{CType, Closure, ClosureContext, StructDef};

/// The lambdas of a translation unit, as far as the checker keeps them.
#[derive(Default)]
pub(super) struct Lambdas {
    /// The closure types of host code's lambdas, by the offset of their
    /// `[`: a launch's stand-in for a host variable may spell the same
    /// lambda many times, and it is one type.
    host: FxHashMap<u32, Arc<StructDef>>,
    /// Generic lambdas, by their closure type's key.
    generic: FxHashMap<String, GenericLambda>,
    /// How many closure types each function (by its Itanium name) has for
    /// each signature (by its mangling): their discriminators.
    counts: FxHashMap<(String, String), u32>,
    /// The number of the next closure type's key (`(lambda 3)`).
    next: u32,
    /// The closure types of host code's lambdas that are not `__device__`
    /// (by struct id), and where each lambda is.
    host_only: FxHashMap<u32, Span>,
    /// While typing host code's arguments (whose diagnostics are not
    /// kernelc's to report): where the diagnostics of lambda bodies are
    /// kept, which are.
    pub holding: Option<Vec<Diagnostic>>,
}

/// A generic lambda: what instantiates its call operator.
struct GenericLambda {
    lambda: Arc<ast::Lambda>,
    def: Arc<StructDef>,
    /// The call operator as a template over its `auto` parameters, with
    /// the parameters read with placeholders as its pattern.
    template: FunctionTemplate,
    /// Each instance made, by its arguments: the call operator's key.
    instances: FxHashMap<Vec<ArgValue>, String>,
}

impl Checker {
    /// A lambda expression: its closure object (its closure type made
    /// the first time).
    pub(super) fn lambda(&mut self, l: &ast::Lambda) -> Option<Expr> {
        if l.host_site.is_some() {
            if let Some(def) = self.lambdas.host.get(&l.span.start).cloned() {
                return self.closure_object(&def, l);
            }
        }
        let members = self.capture_members(l)?;
        let def = self.closure_type(l, members)?;
        if l.host_site.is_some() {
            self.lambdas.host.insert(l.span.start, def.clone());
        }
        if l.host_site.is_some() && !l.device {
            // Host code: its call operator is not compiled, and its closure
            // type is no kernel's argument (`host_only_argument`).
            self.lambdas.host_only.insert(def.id, l.span);
        } else if l.generic.is_empty() {
            self.lambda_operator(l, &def, None)?;
        } else {
            self.generic_lambda(l, &def)?;
        }
        self.closure_object(&def, l)
    }

    /// Each capture's member: its name, type and whether it is a
    /// reference (a pointer naming the captured object).
    fn capture_members(&mut self, l: &ast::Lambda) -> Option<Vec<(String, CType, bool)>> {
        let mut out = Vec::new();
        let mut ok = true;
        for c in &l.captures {
            let Some(e) = self.expr_nodecay(&c.init) else {
                ok = false;
                continue;
            };
            let global = matches!(e.kind, crate::typed::ExprKind::Global(_));
            if !c.by_ref && !global && matches!(e.ty, CType::Array { .. }) {
                self.error(
                    c.span,
                    Code::E0002,
                    format!(
                        "capturing the array `{}` by copy is not supported by kernelc yet; capture it by reference (`&{}`)",
                        c.name, c.name
                    ),
                );
                ok = false;
                continue;
            }
            // A variable of static storage (`__shared__`) is not copied:
            // the lambda names the variable itself (C++ does not capture
            // it), which its member's reference stands for.
            let by_ref = c.by_ref || matches!(e.kind, crate::typed::ExprKind::Global(_));
            let ty = if by_ref {
                // A reference to a `const` object is one to `const`.
                CType::Pointer {
                    pointee: Box::new(e.ty.clone()),
                    pointee_const: self.lvalue_is_const(&e),
                    pointee_volatile: false,
                    restrict: false,
                }
            } else {
                e.ty.clone()
            };
            out.push((c.name.clone(), ty, by_ref));
        }
        ok.then_some(out)
    }

    /// The closure type of `l` with `members`, named as nvcc names it.
    fn closure_type(
        &mut self,
        l: &ast::Lambda,
        members: Vec<(String, CType, bool)>,
    ) -> Option<Arc<StructDef>> {
        let n = self.lambdas.next;
        self.lambdas.next += 1;
        let name = crate::parser::join(&l.scope.join("::"), &format!("(lambda {n})"));
        let templates = self.tmpl.templates.clone();
        let id = templates.env.next_struct_id.fetch_add(1, Ordering::Relaxed);
        let fields = members
            .iter()
            .map(|(n, t, _)| (n.clone(), t.clone()))
            .collect();
        let mut def = StructDef::layout(id, name, false, fields, 1);
        for (f, (_, _, by_ref)) in def.fields.iter_mut().zip(&members) {
            f.reference = *by_ref;
        }
        let stand_in = Arc::new(def.clone());
        let params = crate::parser::lambda_params(&templates, l, &stand_in, &self.opts);
        self.class_instance_items(self.tmpl.depth);
        let params = match params {
            Ok(p) => p,
            Err(diags) => {
                self.lambda_diagnostics(diags);
                return None;
            }
        };
        let sig: Vec<_> = params.iter().map(signature_param).collect();
        let context = self.closure_context(l)?;
        let discriminator = match &l.host_site {
            Some(site) => site.discriminator,
            None => {
                let key = (
                    self.func.fn_link.clone(),
                    crate::mangle::signature_key(&sig),
                );
                let count = self.lambdas.counts.entry(key).or_insert(0);
                *count += 1;
                *count - 1
            }
        };
        def.closure = Some(Arc::new(Closure {
            context,
            sig,
            discriminator,
        }));
        Some(Arc::new(def))
    }

    /// The function a closure type's name says `l` is written in: the one
    /// being checked, or for a lambda of host code, the host function.
    fn closure_context(&mut self, l: &ast::Lambda) -> Option<ClosureContext> {
        let Some(site) = &l.host_site else {
            if self.func.scopes.is_empty() {
                self.error(
                    l.span,
                    Code::E0002,
                    "lambdas outside a function body are not supported by kernelc yet",
                );
                return None;
            }
            return Some(ClosureContext::Encoding(encoding_of(&self.func.fn_link)));
        };
        match &site.context {
            crate::host_lambdas::HostContext::Main => {
                Some(ClosureContext::Encoding("4main".to_string()))
            }
            crate::host_lambdas::HostContext::Function { key, params } => {
                let templates = self.tmpl.templates.clone();
                let read = crate::parser::host_params(&templates, &[], params, &self.opts);
                self.class_instance_items(self.tmpl.depth);
                let Some(read) = read else {
                    let msg = format!("kernelc cannot name this lambda's closure type yet: the parameters of `{key}`, the host function it is written in, are of types device code does not know");
                    self.lambda_diagnostics(vec![Diagnostic::error(l.span, Code::E0002, msg)]);
                    return None;
                };
                Some(ClosureContext::Function {
                    key: key.clone(),
                    params: read.iter().map(signature_param).collect(),
                })
            }
            crate::host_lambdas::HostContext::Unnamed(what) => {
                let msg = format!(
                    "kernelc cannot name the closure type of a lambda written in {what} yet"
                );
                self.lambda_diagnostics(vec![Diagnostic::error(l.span, Code::E0002, msg)]);
                None
            }
        }
    }

    /// The closure object of `l`, of closure type `def`: a temporary whose
    /// members take the captured values, or (its reference members) bind
    /// the captured objects.
    fn closure_object(&mut self, def: &Arc<StructDef>, l: &ast::Lambda) -> Option<Expr> {
        let args: Vec<ast::Expr> = l.captures.iter().map(|c| c.init.clone()).collect();
        let ty = CType::Struct(def.clone());
        self.members_in_order(&ty, def, &args, l.span)
    }

    /// Reads, checks and declares the call operator of `l`, of closure
    /// type `def` (an instance of a generic one when `instance` gives the
    /// `auto` parameters' types): its key.
    fn lambda_operator(
        &mut self,
        l: &ast::Lambda,
        def: &Arc<StructDef>,
        instance: Option<&[ArgValue]>,
    ) -> Option<String> {
        let templates = self.tmpl.templates.clone();
        let autos = instance
            .map(|args| auto_bindings(&l.generic, args))
            .unwrap_or_default();
        let read = crate::parser::lambda_operator(&templates, l, def, autos, &self.opts);
        self.class_instance_items(self.tmpl.depth);
        let (mut decl, deduced) = match read {
            Ok(read) => read,
            Err(diags) => {
                self.lambda_diagnostics(diags);
                return None;
            }
        };
        if let Some(args) = instance {
            decl.name = crate::templates::instance_name(&decl.name, args);
        }
        let mark = self.diags.len();
        let written: Vec<(CType, Option<(bool, bool)>)> = decl.params[1..]
            .iter()
            .map(|p| {
                (
                    written_type(p),
                    p.by_ref.map(|_| (p.ty.is_const, p.ty.is_volatile)),
                )
            })
            .collect();
        let mangled: Vec<crate::mangle::ParamType<'_>> = written
            .iter()
            .zip(&decl.params[1..])
            .map(|((ty, reference), p)| crate::mangle::ParamType {
                ty,
                spelling: &p.ty.spelling,
                reference: *reference,
                rvalue: p.rvalue,
            })
            .collect();
        let link = crate::mangle::lambda_operator(def, !l.mutable, &mangled, instance);
        self.tmpl.link_names.insert(decl.name.clone(), link);
        // The enclosing body's state waits while the lambda's is checked.
        let saved = std::mem::take(&mut self.func);
        self.func.deduced_ret = deduced.then_some(None);
        self.enclosing_fns.push(saved.fn_name.clone());
        let mut f = self.function(&decl, 0);
        self.enclosing_fns.pop();
        let ret = self
            .func
            .deduced_ret
            .is_some()
            .then(|| self.take_deduced_return(&decl.name).unwrap_or(CType::Void));
        self.func = saved;
        if let Some(ret) = ret {
            f.ret = ret.clone();
            decl.ret = ret;
        }
        let diags = self.diags.split_off(mark);
        self.lambda_diagnostics(diags);
        let id = self.tmpl.next_def;
        self.declare_function(&decl, id)?;
        self.tmpl.next_def += 1;
        self.tmpl
            .pending
            .push_back(super::templates::Pending::Checked(Box::new(f)));
        Some(decl.name)
    }

    /// Keeps a generic lambda, whose call operator is made per call.
    fn generic_lambda(&mut self, l: &ast::Lambda, def: &Arc<StructDef>) -> Option<()> {
        let templates = self.tmpl.templates.clone();
        let pattern = crate::parser::lambda_params(&templates, l, def, &self.opts);
        let pattern = match pattern {
            Ok(p) => p,
            Err(diags) => {
                self.lambda_diagnostics(diags);
                return None;
            }
        };
        let name = crate::parser::join(&def.name, "operator()");
        let params = l
            .generic
            .iter()
            .map(|n| TemplateParam {
                name: n.clone(),
                kind: ParamKind::Type,
                default: None,
                span: l.span,
                pack: false,
                dependent_type: None,
            })
            .collect();
        let decl = ast::FunctionDecl {
            name: name.clone(),
            name_span: l.span,
            span: l.span,
            specs: ast::FnSpecs::default(),
            ret: CType::Void,
            ret_span: l.span,
            ret_spelling: Default::default(),
            returns: ast::Returns::Value,
            params: pattern,
            body: None,
            launch_bounds: None,
            cluster_dims: None,
            method: None,
            deduced_ret: None,
        };
        let template = FunctionTemplate {
            name,
            scope: l.scope.clone(),
            params,
            tokens: Vec::new(),
            name_span: l.span,
            is_kernel: false,
            pattern: Some(decl),
            member_of: Some(def.name.clone()),
            param_pack: None,
        };
        self.lambdas.generic.insert(
            def.name.clone(),
            GenericLambda {
                lambda: Arc::new(l.clone()),
                def: def.clone(),
                template,
                instances: FxHashMap::default(),
            },
        );
        Some(())
    }

    /// `obj(args)` of a generic lambda's closure object: the call of the
    /// instance of its call operator that the arguments deduce, `None`
    /// when `def` is not a generic lambda's (`Some(None)` after an error).
    pub(super) fn generic_lambda_call(
        &mut self,
        def: &StructDef,
        obj: Expr,
        args: Vec<Option<Expr>>,
        at: Span,
        span: Span,
    ) -> Option<Option<Expr>> {
        let g = self.lambdas.generic.get(&def.name)?;
        let (lambda, closure, template) = (g.lambda.clone(), g.def.clone(), g.template.clone());
        let arg_types: Vec<Option<super::templates::ArgType>> = args
            .iter()
            .map(|a| a.as_ref().map(|a| self.c_arg_type(a)))
            .collect();
        let deduced = match self.deduce_pattern(&template, &[], &arg_types) {
            Ok(d) => d,
            Err(why) => {
                self.error(at, Code::E0019, why);
                return Some(None);
            }
        };
        let known = self
            .lambdas
            .generic
            .get(&def.name)
            .and_then(|g| g.instances.get(&deduced).cloned());
        let key = match known {
            Some(k) => k,
            None => {
                let k = self.lambda_operator(&lambda, &closure, Some(&deduced));
                let Some(k) = k else {
                    return Some(None);
                };
                if let Some(g) = self.lambdas.generic.get_mut(&def.name) {
                    g.instances.insert(deduced, k.clone());
                }
                k
            }
        };
        let plain = crate::parser::join(&def.name, "operator()");
        Some(self.call_member(&plain, &[key], obj, args, at, span))
    }

    /// E0024 when one of `args`, the arguments of an instance of kernel
    /// template `kernel` that host code asks for at `launch`, is the
    /// closure type of a lambda of host code that is not `__device__`, as
    /// nvcc says: its call operator is host code.
    pub(super) fn host_only_argument(
        &mut self,
        kernel: &str,
        args: &[ArgValue],
        launch: Span,
    ) -> bool {
        let found = args.iter().find_map(|a| match a {
            ArgValue::Type { ty, .. } => {
                let def = ty.struct_def()?;
                self.lambdas.host_only.get(&def.id).copied()
            }
            _ => None,
        });
        let Some(at) = found else {
            return false;
        };
        self.diags.push(
            Diagnostic::error(
                at,
                Code::E0024,
                format!("the closure type of this lambda cannot be an argument of kernel template `{kernel}`: the lambda is host code"),
            )
            .with_label(launch, "the launch")
            .with_note("annotate it `__device__` or `__host__ __device__` (with `--extended-lambda`), as nvcc requires"),
        );
        true
    }

    /// Reports diagnostics from reading or checking a lambda's body: now,
    /// or while typing host code's arguments, later (the rest of those is
    /// dropped, the lambda's are not).
    fn lambda_diagnostics(&mut self, diags: Vec<Diagnostic>) {
        match &mut self.lambdas.holding {
            Some(held) => held.extend(diags),
            None => self.diags.extend(diags),
        }
    }

    /// `return` in a lambda or function whose return type is deduced (`slot`: the
    /// type deduced so far): the first `return` gives it, as C++'s `auto`
    /// deduces it (a comparison is a `bool`), and the others convert to
    /// it; two that disagree are an error.
    pub(super) fn deduced_return(
        &mut self,
        v: Option<&ast::Expr>,
        span: Span,
    ) -> crate::typed::StmtKind {
        use crate::typed::StmtKind;
        let Some(e) = v else {
            self.deduce_return_type(CType::Void, span);
            return StmtKind::Return(None);
        };
        if matches!(e.kind, ast::ExprKind::BracedList(_)) {
            let msg = "a braced list gives no type to deduce the return type from";
            self.error(e.span, Code::E0004, msg);
            self.func.return_untyped = true;
            return StmtKind::Empty;
        }
        if self.func.returns.reference() {
            return self.deduced_reference_return(e);
        }
        let Some(typed) = self.expr(e) else {
            self.func.return_untyped = true;
            return StmtKind::Empty;
        };
        let ty = if is_boolean(e) {
            CType::Bool
        } else {
            typed.ty.clone()
        };
        let Some(ty) = self.deduce_return_type(ty, e.span) else {
            return StmtKind::Empty;
        };
        if ty == CType::Void {
            let at = typed.span;
            return StmtKind::Block(crate::typed::Block {
                stmts: vec![
                    crate::typed::Stmt {
                        kind: StmtKind::Expr(typed),
                        span: at,
                    },
                    crate::typed::Stmt {
                        kind: StmtKind::Return(None),
                        span,
                    },
                ],
                span,
            });
        }
        match self.assign_convert(typed, &ty, "return", span) {
            Some(e) => StmtKind::Return(Some(e)),
            None => StmtKind::Empty,
        }
    }

    /// `return e;` in a function returning `auto &` (or `auto &&`): the
    /// return type is a reference to `e`'s type (`const` when `e` is a
    /// `const` lvalue), and the value returned is `e`'s address, as for a
    /// written reference return type.
    fn deduced_reference_return(&mut self, e: &ast::Expr) -> crate::typed::StmtKind {
        use crate::typed::StmtKind;
        let Some(typed) = self.expr_nodecay(e) else {
            self.func.return_untyped = true;
            return StmtKind::Empty;
        };
        let pointee_const = Self::is_lvalue(&typed) && self.lvalue_is_const(&typed);
        let reference = CType::Pointer {
            pointee: Box::new(typed.ty.clone()),
            pointee_const,
            pointee_volatile: false,
            restrict: false,
        };
        let Some(reference) = self.deduce_return_type(reference, e.span) else {
            return StmtKind::Empty;
        };
        let rvalue = self.func.returns == ast::Returns::RRef;
        match self.bind_reference_as(typed, &reference, rvalue, "the returned reference") {
            Some(e) => StmtKind::Return(Some(e)),
            None => StmtKind::Empty,
        }
    }

    /// The return type the `return` statements of the function `name`
    /// deduced (`None`: none gave one). When one whose value had an error
    /// was all there was, `name` stays undeduced and its calls unchecked.
    pub(super) fn take_deduced_return(&mut self, name: &str) -> Option<CType> {
        let ty = self.func.deduced_ret.take().flatten();
        if ty.is_none() && self.func.return_untyped {
            self.undeduced.insert(name.to_string());
        }
        ty
    }

    /// Records `ty` as the deduced return type, or checks it against the
    /// one already deduced: the type, or `None` after an error.
    fn deduce_return_type(&mut self, ty: CType, span: Span) -> Option<CType> {
        let slot = self.func.deduced_ret.as_mut()?;
        match slot {
            None => {
                *slot = Some(ty.clone());
                Some(ty)
            }
            Some(old) if *old == ty => Some(ty),
            Some(old) => {
                let msg = format!(
                    "its `return` statements disagree on its return type: `{old}` and `{ty}`"
                );
                self.error(span, Code::E0004, msg);
                None
            }
        }
    }
}

/// The types standing for a generic lambda's `auto` parameters (their
/// names `generic`), bound to `args`.
fn auto_bindings(
    generic: &[String],
    args: &[ArgValue],
) -> Vec<(String, (CType, bool, ast::Spelling))> {
    generic
        .iter()
        .zip(args)
        .filter_map(|(n, a)| match a {
            ArgValue::Type {
                ty,
                is_const,
                spelling,
                ..
            } => Some((n.clone(), (ty.clone(), *is_const, spelling.clone()))),
            _ => None,
        })
        .collect()
}

/// A parameter's type as its function's name spells it: an array
/// parameter is the pointer it decays to, its inner bounds kept where
/// they are literals (`float a[][4]` is `PA4_f`).
pub(crate) fn written_type(p: &ast::ParamDecl) -> CType {
    let mut ty = super::strip_restrict(&p.ty.ty).0;
    if p.dims.is_empty() {
        return ty;
    }
    for dim in p.dims[1..].iter().rev() {
        let len = match dim.as_ref().map(|e| &e.kind) {
            Some(ast::ExprKind::IntLit { value, .. }) => Some(*value),
            _ => None,
        };
        ty = CType::Array {
            elem: Box::new(ty),
            len,
        };
    }
    CType::Pointer {
        pointee: Box::new(ty),
        pointee_const: p.ty.is_const,
        pointee_volatile: p.ty.is_volatile,
        restrict: false,
    }
}

/// A parameter as a closure type's signature spells it.
fn signature_param(p: &ast::ParamDecl) -> crate::types::SigParam {
    let reference = p.by_ref.map(|_| (p.ty.is_const, p.ty.is_volatile));
    (written_type(p), p.ty.spelling.clone(), reference)
}

/// A function's encoding as a local name writes it, from its Itanium
/// name: `4kernPfi` for `_Z4kernPfi`; an `extern "C"` function's is its
/// name.
fn encoding_of(link: &str) -> String {
    match link.strip_prefix("_Z") {
        Some(e) => e.to_string(),
        None => format!("{}{link}", link.len()),
    }
}

/// Whether C++ types `e` as `bool`, where C types it `int`: a comparison,
/// `!`, `&&`, `||`, `true` and `false`.
pub(super) fn is_boolean(e: &ast::Expr) -> bool {
    use ast::BinaryOp as B;
    match &e.kind {
        ast::ExprKind::BoolLit(_) => true,
        ast::ExprKind::Unary {
            op: ast::UnaryOp::Not,
            ..
        } => true,
        ast::ExprKind::Binary { op, .. } => matches!(
            op,
            B::Lt | B::Le | B::Gt | B::Ge | B::Eq | B::Ne | B::LogAnd | B::LogOr
        ),
        _ => false,
    }
}
