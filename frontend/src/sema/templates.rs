//! Instantiating function templates (`crate::templates` says how a
//! template is kept): evaluating written arguments, deducing the others
//! from a call, and checking each distinct instantiation once.
//!
//! An instantiation is an ordinary function named by its arguments
//! (`reduce<float, 256u, true>`, the name `by_name` and messages use) with
//! nvcc's Itanium name. Its body is checked after the functions of the
//! file, in the order instantiations were asked for; an instantiation asked
//! for while checking another is one level deeper, and the depth is
//! bounded ([`MAX_DEPTH`], E0019) so that a template that instantiates
//! itself without end stops.

use std::collections::VecDeque;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Checker;
use crate::ast;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::{self, ArgValue, ParamKind, TemplateArg, Templates};
use crate::typed::FuncId;
use crate::types::{template_param_index, CType, StructDef};

/// How deep instantiations may nest (clang's default is 1024; nvcc's
/// front end stops near this).
pub(super) const MAX_DEPTH: usize = 900;

/// How many `constexpr` instances may be checked ahead of their turn one
/// inside another (each holds its caller's state on the stack); past it a
/// call of one is not yet a constant, as before.
const MAX_EAGER: usize = 64;

/// A definition made after the file's own, waiting for its place among
/// the checked functions.
pub(super) enum Pending {
    /// A declaration whose body is checked then, at this instantiation
    /// depth.
    Body(Box<ast::FunctionDecl>, usize),
    /// A function checked already (a lambda's call operator, checked where
    /// the lambda is, since its callers need its deduced return type).
    Checked(Box<crate::typed::Function>),
}

/// The instantiations of a translation unit.
#[derive(Default)]
pub(super) struct Instances {
    pub templates: Arc<Templates>,
    /// Each instantiation made, by template and arguments: its name.
    done: FxHashMap<(usize, Vec<ArgValue>), String>,
    /// Each instantiation's Itanium name, by its name.
    pub link_names: FxHashMap<String, String>,
    /// Declarations whose bodies wait to be checked, in the order of the
    /// ids their definitions were given.
    pub pending: VecDeque<Pending>,
    /// The depth of the instantiation being checked (0: none).
    pub depth: usize,
    /// How many `constexpr` instances are being checked ahead of their
    /// turn, one inside another (`check_constexpr_instance_now`).
    pub eager: usize,
    /// The instantiation being checked and where it was asked for, for the
    /// note on errors inside it.
    pub origin: FxHashMap<String, Span>,
    /// How an instantiation reads in those notes where that is not its
    /// name: one with enumeration arguments
    /// (`templates::shown_instance_name`).
    shown: FxHashMap<String, String>,
    /// How many definitions the file itself has: instantiations are
    /// numbered after them.
    pub next_def: usize,
    /// The syntax errors reported in templates' tokens: an error that
    /// every instance's parse meets is reported once.
    reported: rustc_hash::FxHashSet<(Span, String)>,
    /// The host function templates' declarations read (`host_frames.rs`).
    pub host_reads: super::host_frames::HostReads,
    /// The explicit specializations declared so far, by their index in
    /// `Templates::specializations` (`Checker::specializations`).
    specialized: rustc_hash::FxHashSet<usize>,
    /// The member functions of class template instances not used yet, by
    /// their signature, with the instantiation depth of what made their
    /// class: C++ instantiates a member's definition only where it is
    /// used ([temp.inst]), so an unused one is never checked and an error
    /// in its body is none (`Checker::definition`).
    dormant: FxHashMap<usize, (Box<ast::FunctionDecl>, usize)>,
    /// The explicit instantiations made, by template and arguments, and
    /// where each was written: a second is an error, as in C++.
    explicit: FxHashMap<(usize, Vec<ArgValue>), Span>,
}

impl Checker {
    /// The instantiation a call of template `name` asks for, with the
    /// written arguments `explicit` and the call's typed arguments: its
    /// name, once declared. `None` after an error (reported).
    pub(super) fn template_call(
        &mut self,
        name: &str,
        explicit: &[TemplateArg],
        call_args: &[Option<crate::typed::Expr>],
        span: Span,
    ) -> Option<String> {
        self.template_call_written(name, explicit, call_args, &[], span)
    }

    /// [`Checker::template_call`], with the call's arguments as written
    /// (`written`, the last of `call_args`'s), whose C++ types deduction
    /// takes where the typed tree has C's: a comparison is a `bool`, a
    /// `long long` variable a `long long` ([`Checker::cxx_arg_type`]).
    pub(super) fn template_call_written(
        &mut self,
        name: &str,
        explicit: &[TemplateArg],
        call_args: &[Option<crate::typed::Expr>],
        written: &[ast::Expr],
        span: Span,
    ) -> Option<String> {
        let templates = self.tmpl.templates.clone();
        let candidates = templates.by_name.get(name)?.clone();
        let mut explicit_values: Option<Vec<ArgValue>> = None;
        let mut failures = Vec::new();
        for &index in &candidates {
            let t = &templates.functions[index];
            if explicit.len() > t.params.len() && !t.params.iter().any(|p| p.pack) {
                failures.push((
                    t.name_span,
                    format!(
                        "`{name}` has {} template parameters; {} arguments were given",
                        t.params.len(),
                        explicit.len()
                    ),
                ));
                continue;
            }
            if explicit_values.is_none() {
                explicit_values = Some(self.template_arg_values(explicit, &t.params)?);
            }
            let unwritten = call_args.len().saturating_sub(written.len());
            let arg_types: Vec<Option<ArgType>> = call_args
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    let a = a.as_ref()?;
                    Some(match k.checked_sub(unwritten).map(|w| &written[w]) {
                        Some(e) => self.cxx_arg_type(e, a),
                        None => self.c_arg_type(a),
                    })
                })
                .collect();
            let written = explicit_values.as_deref().unwrap_or_default();
            let deduced = self
                .deduce(index, written, &arg_types)
                .and_then(|args| self.classes_fit(t, call_args).map(|()| args))
                .and_then(|args| self.header_fits(index, args, candidates.len()));
            match deduced {
                Ok(args) => return self.instance(index, args, span),
                Err(why) => failures.push((t.name_span, why)),
            }
        }
        self.no_candidate_fits(name, &candidates, failures, span);
        None
    }

    /// `args` when template `index` (one of `overloads` templates of its
    /// name) takes them in its header, or why not: with several
    /// templates, a header that does not read with the arguments drops
    /// this one from the candidates (SFINAE) rather than failing the
    /// call. A member template's, or an instance made already, is not
    /// read again.
    fn header_fits(
        &mut self,
        index: usize,
        args: Vec<ArgValue>,
        overloads: usize,
    ) -> Result<Vec<ArgValue>, String> {
        let templates = self.tmpl.templates.clone();
        let t = &templates.functions[index];
        let key = (index, args);
        if overloads < 2 || t.member_of.is_some() || self.tmpl.done.contains_key(&key) {
            return Ok(key.1);
        }
        match templates::substitute_header(&templates, index, &key.1, &self.opts) {
            Ok(()) => Ok(key.1),
            Err(diags) => Err(substitution_failure(t, &key.1, &diags)),
        }
    }

    /// E0019 at a call of `name` that none of its templates `candidates`
    /// fits, with why each does not (`failures`, at their declarations).
    fn no_candidate_fits(
        &mut self,
        name: &str,
        candidates: &[usize],
        failures: Vec<(Span, String)>,
        span: Span,
    ) {
        let templates = self.tmpl.templates.clone();
        if let [(decl, why)] = failures.as_slice() {
            self.diags.push(
                Diagnostic::error(span, Code::E0019, why.clone())
                    .with_label(*decl, format!("template `{name}` declared here")),
            );
            return;
        }
        let mut d = Diagnostic::error(
            span,
            Code::E0019,
            format!("no template `{name}` fits this call"),
        );
        if failures.is_empty() {
            let decl = templates.functions[candidates[0]].name_span;
            d = d.with_label(decl, format!("template `{name}` declared here"));
        }
        for (k, (decl, why)) in failures.into_iter().enumerate() {
            d = d
                .with_label(decl, format!("candidate {}", k + 1))
                .with_note(format!("candidate {}: {why}", k + 1));
        }
        self.diags.push(d);
    }

    /// Whether the call's arguments fit template `t`'s parameters beyond
    /// deduction: as many as it takes, and each argument of class type the
    /// same class as a parameter that names one outright (`const
    /// thread_block &`), or one with a conversion function to it. Without
    /// this the first of two overloaded templates would take any call.
    fn classes_fit(
        &self,
        t: &crate::templates::FunctionTemplate,
        call_args: &[Option<crate::typed::Expr>],
    ) -> Result<(), String> {
        let Some(pattern) = &t.pattern else {
            return Ok(());
        };
        let pack = pack_index(t, pattern);
        let required = pattern
            .params
            .iter()
            .enumerate()
            .filter(|&(i, p)| p.default.is_none() && Some(i) != pack)
            .count();
        let most = match pack {
            Some(_) => usize::MAX,
            None => pattern.params.len(),
        };
        if call_args.len() < required || call_args.len() > most {
            return Err(format!(
                "`{}` takes {} arguments; the call gives {}",
                pattern.name,
                pattern.params.len(),
                call_args.len()
            ));
        }
        for (i, a) in call_args.iter().enumerate() {
            let Some((at, _)) = pattern_param(t, pattern, i, None) else {
                break;
            };
            let p = &pattern.params[at];
            let Some(a) = a else { continue };
            let (CType::Struct(want), CType::Struct(have)) = (&p.ty.ty, &a.ty) else {
                continue;
            };
            let converts = || {
                self.conversion_function(&a.ty, &p.ty.ty)
                    .is_some_and(|k| self.sigs[self.by_name[k.as_str()]].ret == p.ty.ty)
            };
            // A class the parameter names outright (`std::true_type`, not
            // `Vec<T>`) takes the class, a class derived from it or one
            // that converts to it (tag dispatch on a trait's base).
            let fits = crate::parser::is_dependent_type(&p.ty.ty)
                || want.name == have.name
                || crate::bases::is_base_of(want, have)
                || converts();
            if !fits {
                return Err(format!(
                    "argument {} is `{}`, which does not convert to `{}`",
                    i + 1,
                    a.ty,
                    p.ty.ty
                ));
            }
        }
        Ok(())
    }

    /// Checks the bodies of the instantiations, appending them to
    /// `functions` in the order their ids were given; an error inside one
    /// is labelled with where it was instantiated.
    pub(super) fn instance_bodies(&mut self, functions: &mut Vec<crate::typed::Function>) {
        while let Some(next) = self.tmpl.pending.pop_front() {
            if crate::diag::over_error_limit(&self.diags, self.opts.error_limit) {
                break;
            }
            let (decl, depth) = match next {
                Pending::Body(decl, depth) => (*decl, depth),
                Pending::Checked(f) => {
                    functions.push(*f);
                    continue;
                }
            };
            self.item = usize::MAX;
            functions.push(self.instance_body(&decl, depth));
        }
        self.tmpl.depth = 0;
    }

    /// Checks an instance's body at instantiation depth `depth` (which it
    /// leaves set); an error inside it is labelled with where it was
    /// instantiated.
    pub(super) fn instance_body(
        &mut self,
        decl: &ast::FunctionDecl,
        depth: usize,
    ) -> crate::typed::Function {
        let before = self.diags.len();
        self.tmpl.depth = depth;
        let checked = self.function(decl, 0);
        let checked = self.keep_if_constexpr(decl, checked);
        if let Some(&origin) = self.tmpl.origin.get(&decl.name) {
            for d in &mut self.diags[before..] {
                if d.severity == crate::diag::Severity::Error {
                    let shown = self.tmpl.shown.get(&decl.name).unwrap_or(&decl.name);
                    let label = format!("in `{shown}`, instantiated here");
                    d.labels.push((origin, label));
                }
            }
        }
        checked
    }

    /// Checks the body of `name` now if it is a `constexpr` instance still
    /// waiting for its turn, so that the constant expression calling it
    /// can run it (`static_assert(isMonotone<A>())` in the kernel instance
    /// that asked for `isMonotone<A>`, C++'s instantiation where a
    /// constant expression needs the definition). Its place among the
    /// functions stays; instances it asks for in turn are checked as
    /// their callers need them, at most [`MAX_EAGER`] nested.
    pub(super) fn check_constexpr_instance_now(&mut self, name: &str) {
        if self.constexpr_bodies.contains_key(name) || self.tmpl.eager >= MAX_EAGER {
            return;
        }
        let waiting = self.tmpl.pending.iter().position(
            |p| matches!(p, Pending::Body(decl, _) if decl.name == name && decl.specs.constexpr),
        );
        let Some(at) = waiting else { return };
        let Some(Pending::Body(decl, depth)) = self.tmpl.pending.remove(at) else {
            return;
        };
        let saved = std::mem::take(&mut self.func);
        let item = std::mem::replace(&mut self.item, usize::MAX);
        let outer = self.tmpl.depth;
        self.tmpl.eager += 1;
        let checked = self.instance_body(&decl, depth);
        self.tmpl.eager -= 1;
        self.tmpl.depth = outer;
        self.item = item;
        self.func = saved;
        // New instances were queued at the back: `at` is still its place.
        self.tmpl
            .pending
            .insert(at, Pending::Checked(Box::new(checked)));
    }

    /// Makes the instantiations the program asks for outside device
    /// code's calls: explicit instantiations and uses in host code, a
    /// launch's template arguments that are not written deduced from its
    /// call's arguments.
    pub(super) fn requested_instances(&mut self) {
        let templates = self.tmpl.templates.clone();
        for r in &templates.requests {
            if r.frames.is_empty() {
                self.request(r, &r.args, &r.call);
                continue;
            }
            match self.read_in_frames(r) {
                Ok((args, call)) => self.request(r, &args, &call),
                Err(super::host_frames::Unfollowed::Unread) => self.unfollowed(r),
                Err(super::host_frames::Unfollowed::NotCalled) => {}
            }
        }
    }

    /// Makes the instance `r` asks for, with its template arguments
    /// `args` as written and its call's arguments `call`.
    fn request(
        &mut self,
        r: &templates::Request,
        args: &[TemplateArg],
        call: &[templates::CallArg],
    ) {
        let templates = self.tmpl.templates.clone();
        let Some(candidates) = templates.by_name.get(&r.name) else {
            return;
        };
        // With several templates of the name, the first whose header
        // takes the arguments (SFINAE, as a device call chooses).
        let mut first_failure = None;
        for &index in candidates {
            let params = &templates.functions[index].params;
            let Some(values) = self.template_arg_values(args, params) else {
                return;
            };
            // A pack's written arguments may be followed by deduced ones.
            let deduces = values.len() < params.len() || params.iter().any(|p| p.pack);
            let arg_types: Vec<Option<ArgType>> = if deduces {
                call.iter().map(|a| self.host_arg_type(a)).collect()
            } else {
                Vec::new()
            };
            let deduced = self
                .deduce(index, &values, &arg_types)
                .and_then(|args| self.header_fits(index, args, candidates.len()));
            match deduced {
                Ok(args) if self.host_only_argument(&r.name, &args, r.span) => return,
                Ok(args) if r.explicit && self.instantiated_before(index, &args, r.span) => return,
                Ok(args) => {
                    self.instance(index, args, r.span);
                    return;
                }
                Err(why) => {
                    first_failure.get_or_insert((index, arg_types, why));
                }
            }
        }
        // A use found through host templates called with deduced
        // arguments is followed as far as kernelc can type host code,
        // and no further (W0010 for a kernel whose arguments kernelc
        // cannot type). Host code's call of a `__host__ __device__`
        // template is followed that far too: nvcc compiles its device
        // side but emits nothing for it unless device code calls it, so
        // the program lacks nothing when kernelc cannot deduce its
        // arguments; a kernel it cannot deduce is one missing from the PTX.
        let Some((index, arg_types, why)) = first_failure else {
            return;
        };
        if !templates.functions[index].is_kernel {
            return;
        }
        if r.frames.is_empty() {
            self.request_failed(r, index, &arg_types, why);
        } else if arg_types.iter().any(Option::is_none) {
            self.unfollowed(r);
        }
    }

    /// Whether the explicit instantiation at `span` of template `index`
    /// with `args` repeats an earlier one: E0006 then, as nvcc's
    /// "explicitly instantiated more than once" (C++ [temp.spec]).
    fn instantiated_before(&mut self, index: usize, args: &[ArgValue], span: Span) -> bool {
        let first = *self
            .tmpl
            .explicit
            .entry((index, args.to_vec()))
            .or_insert(span);
        if first == span {
            return false;
        }
        let name = &self.tmpl.templates.functions[index].name;
        let msg = format!(
            "`{}` is explicitly instantiated more than once",
            templates::instance_name(name, args)
        );
        let d = Diagnostic::error(span, Code::E0006, msg);
        self.diags
            .push(d.with_label(first, "first explicitly instantiated here"));
        true
    }

    /// W0010 at `r`: a kernel instance that host code asks for through
    /// host templates, which kernelc cannot follow (once per place and
    /// kernel).
    fn unfollowed(&mut self, r: &templates::Request) {
        let templates = self.tmpl.templates.clone();
        let is_kernel = |&i: &usize| templates.functions[i].is_kernel;
        if !templates
            .by_name
            .get(&r.name)
            .is_some_and(|c| c.iter().any(is_kernel))
        {
            return;
        }
        let msg = format!(
            "kernelc cannot follow the host code that launches `{}` here: nvcc's PTX holds an instance of it that kernelc's lacks",
            r.name
        );
        let known = self
            .diags
            .iter()
            .any(|d| d.span == r.span && d.message == msg);
        if !known {
            let d = crate::diag::Diagnostic::warning(r.span, Code::W0010, msg);
            self.diags.push(d.with_note(
                "kernelc follows host template calls whose arguments are host variables, literals, casts and temporaries of known types; write the template arguments out where it stops",
            ));
        }
    }

    /// The type of a host launch's argument, or `None` when the checker
    /// cannot type it (what it reports about it is dropped: host code is
    /// not kernelc's to judge).
    pub(super) fn host_arg_type(&mut self, a: &templates::CallArg) -> Option<ArgType> {
        let e = a.expr.as_ref()?;
        self.host_expr_type(e)
    }

    /// [`Checker::host_arg_type`] of the expression `e`.
    pub(super) fn host_expr_type(&mut self, e: &ast::Expr) -> Option<ArgType> {
        let before = self.diags.len();
        let was_host = std::mem::replace(&mut self.typing_host, true);
        let outer = self.lambdas.holding.replace(Vec::new());
        let typed = self.expr(e);
        let held = std::mem::replace(&mut self.lambdas.holding, outer).unwrap_or_default();
        let failed = self.diags[before..]
            .iter()
            .any(|d| d.severity == crate::diag::Severity::Error);
        self.diags.truncate(before);
        self.typing_host = was_host;
        // A lambda's body is device code: what it reports is reported.
        self.diags.extend(held);
        let typed = typed.filter(|_| !failed)?;
        Some(self.cxx_arg_type(e, &typed))
    }

    /// The C++ type of argument `e`, which the checker typed `ty` by C's
    /// rules: a comparison, `!`, `&&` and `||` are `bool` (nvcc deduces
    /// `flag<bool>` from `flag(n > 0)`), and the base type keeps its
    /// spelling where a cast or a variable's declaration writes it.
    /// An lvalue is one unless it is `std::move(x)`, or `std::forward<T>(x)`
    /// of an `x` that is no lvalue reference (`Checker::forwards_lvalue`).
    pub(super) fn cxx_arg_type(&self, e: &ast::Expr, typed: &crate::typed::Expr) -> ArgType {
        let ty = if super::lambdas::is_boolean(e) {
            CType::Bool
        } else {
            typed.ty.clone()
        };
        let lvalue = match self.value_category_call(e) {
            Some(forwarded) => forwarded.then(|| self.lvalue_is_const(typed)),
            None if names_an_object(e) => self.c_arg_type(typed).lvalue,
            // A call of a function returning `T &` is an lvalue (one
            // returning `T &&`, an xvalue, is not).
            None if returned_reference(typed) && !self.xvalues.contains(&typed.span) => {
                Some(self.lvalue_is_const(typed))
            }
            // A temporary (`Add{}`, `S(x)`, a call's result) is none,
            // though the typed tree may hold it in a local.
            None => None,
        };
        let spelling = match base_spelling(e, &|name| self.spelling_of(name)) {
            ast::Spelling::Plain => self.declared_spelling(typed),
            written => written,
        };
        ArgType {
            ty,
            spelling,
            lvalue,
        }
    }

    /// The type of typed argument `a` as C gives it, with the spelling its
    /// declaration gives.
    pub(super) fn c_arg_type(&self, a: &crate::typed::Expr) -> ArgType {
        ArgType {
            ty: a.ty.clone(),
            spelling: self.declared_spelling(a),
            lvalue: Self::is_lvalue(a).then(|| self.lvalue_is_const(a)),
        }
    }

    /// How the base type of typed `e` was written where a declaration
    /// says it and `e.ty` forgets it (`long long`): a local's, a data
    /// member's, a called function's return type; through `*` and `[]`
    /// (a pointer's spelling is its base type's).
    fn declared_spelling(&self, e: &crate::typed::Expr) -> ast::Spelling {
        use crate::typed::{ExprKind as K, Place};
        match &e.kind {
            K::Local(id) => self.func.spellings.get(id).cloned().unwrap_or_default(),
            K::Field { base, offset } => base
                .ty
                .struct_def()
                .and_then(|d| field_at(d, *offset, &e.ty))
                .map(|f| f.spelling.clone())
                .unwrap_or_default(),
            K::Call { name, .. } => self
                .by_name
                .get(name.as_str())
                .map(|&i| self.sigs[i].ret_spelling.clone())
                .unwrap_or_default(),
            K::Deref(inner) | K::Index { base: inner, .. } => self.declared_spelling(inner),
            // An array decayed to its first element's address.
            K::AddrOf(place) => match (&**place, e.ty.pointee()) {
                (Place::Local(id), _) => self.func.spellings.get(id).cloned().unwrap_or_default(),
                (Place::Field { base, offset }, Some(elem)) => base
                    .ty
                    .struct_def()
                    .and_then(|d| field_at(d, *offset, elem))
                    .map(|f| f.spelling.clone())
                    .unwrap_or_default(),
                (Place::Deref(inner) | Place::Index { base: inner, .. }, _) => {
                    self.declared_spelling(inner)
                }
                _ => ast::Spelling::Plain,
            },
            _ => ast::Spelling::Plain,
        }
    }

    /// Reports a request whose arguments could not all be found: at the
    /// first launch argument kernelc could not type that deduction needed,
    /// when there is one, else with `why`.
    fn request_failed(
        &mut self,
        r: &templates::Request,
        index: usize,
        arg_types: &[Option<ArgType>],
        why: String,
    ) {
        let templates = self.tmpl.templates.clone();
        let t = &templates.functions[index];
        let untyped = t.pattern.as_ref().and_then(|p| {
            let param = |i: usize| pattern_param(t, p, i, None).map(|(at, _)| &p.params[at]);
            r.call
                .iter()
                .zip(arg_types)
                .enumerate()
                .find(|(i, (_, ty))| {
                    ty.is_none() && param(*i).is_some_and(|p| mentions_param(&p.ty.ty))
                })
                .map(|(_, (a, _))| a)
        });
        let Some(a) = untyped else {
            self.error(r.span, Code::E0019, why);
            return;
        };
        let reported = self
            .diags
            .iter()
            .any(|d| d.severity == crate::diag::Severity::Error && d.span.start == a.span.start);
        if reported {
            // What made the argument untyped (a lambda kernelc cannot
            // name) is reported there already.
            return;
        }
        // A name is named; a longer argument is shown by the snippet.
        let what = if a.text.chars().all(|c| c.is_alphanumeric() || c == '_') {
            format!("`{}`", a.text)
        } else {
            "this argument".to_string()
        };
        self.diags.push(
            Diagnostic::error(
                a.span,
                Code::E0019,
                format!(
                    "kernelc cannot find the type of {what} in host code, which deducing the template arguments of `{}` needs",
                    r.name
                ),
            )
            .with_label(r.span, "the launch")
            .with_note(format!(
                "kernelc reads the types of host variables, literals, casts and arithmetic on them; write the template arguments instead: `{}<float><<<grid, block>>>(...)`",
                r.name
            )),
        );
    }

    /// Evaluates written template arguments against `params`: a type for a
    /// type parameter, a constant converted to the parameter's type for a
    /// value parameter, and for a pack every argument left, as a pack
    /// ([`ArgValue::Pack`]).
    pub(super) fn template_arg_values(
        &mut self,
        args: &[TemplateArg],
        params: &[templates::TemplateParam],
    ) -> Option<Vec<ArgValue>> {
        let mut out = Vec::new();
        let mut rest = args;
        for p in params {
            let Some((a, after)) = rest.split_first() else {
                break;
            };
            if p.pack {
                let elems = rest.iter().map(|a| self.template_arg_value(a, p));
                out.push(ArgValue::Pack(elems.collect::<Option<_>>()?));
                rest = &[];
            } else {
                out.push(self.template_arg_value(a, p)?);
                rest = after;
            }
        }
        Some(out)
    }

    fn template_arg_value(
        &mut self,
        a: &TemplateArg,
        p: &templates::TemplateParam,
    ) -> Option<ArgValue> {
        match (a, &p.kind) {
            (TemplateArg::Type(t), ParamKind::Type) => match ArgValue::of_type(t) {
                Ok(v) => Some(v),
                Err(why) => {
                    self.error(t.span, Code::E0002, why);
                    None
                }
            },
            (TemplateArg::Value(e), ParamKind::Value(ty, _)) if ty.is_fn_pointer() => {
                self.function_template_arg(e, ty, &p.name)
            }
            // `typename enable_if<C>::type * = nullptr`: a null pointer
            // (`LPv0E` in names).
            (TemplateArg::Value(e), ParamKind::Value(ty, _))
                if ty.is_pointer() && matches!(e.kind, ast::ExprKind::Nullptr) =>
            {
                Some(ArgValue::Int(0, ty.clone()))
            }
            (TemplateArg::Value(e), ParamKind::Value(ty, _)) => {
                let outer = std::mem::replace(&mut self.func.in_template_arg, true);
                let typed = self.expr(e);
                self.func.in_template_arg = outer;
                let typed = typed?;
                let Some(v) = self.const_int(&typed) else {
                    self.error(
                        e.span,
                        Code::E0019,
                        format!(
                            "the argument of template parameter `{}` must be a constant expression",
                            p.name
                        ),
                    );
                    return None;
                };
                Some(ArgValue::Int(templates::wrap_to(v, ty), ty.clone()))
            }
            (TemplateArg::Type(t), ParamKind::Value(..)) => {
                self.error(
                    t.span,
                    Code::E0019,
                    format!("template parameter `{}` takes a value, not a type", p.name),
                );
                None
            }
            (TemplateArg::Value(e), ParamKind::Type) => {
                self.error(
                    e.span,
                    Code::E0019,
                    format!("template parameter `{}` takes a type, not a value", p.name),
                );
                None
            }
            (TemplateArg::Decltype(e), ParamKind::Type) => self.decltype_arg(e),
            (TemplateArg::Template(key, span), _) => {
                match templates::template_template_arg(&self.tmpl.templates.classes, key, p) {
                    Ok(v) => Some(v),
                    Err(why) => {
                        self.error(*span, Code::E0019, why);
                        None
                    }
                }
            }
            (TemplateArg::Type(ast::QualType { span, .. }), ParamKind::Template(_))
            | (TemplateArg::Decltype(ast::Expr { span, .. }), ParamKind::Template(_)) => {
                self.error(
                    *span,
                    Code::E0019,
                    format!(
                        "template parameter `{}` takes a class template, not a type",
                        p.name
                    ),
                );
                None
            }
            (TemplateArg::Value(e), ParamKind::Template(_)) => {
                self.error(
                    e.span,
                    Code::E0019,
                    format!(
                        "template parameter `{}` takes a class template, not a value",
                        p.name
                    ),
                );
                None
            }
            (TemplateArg::Decltype(e), ParamKind::Value(..)) => {
                self.error(
                    e.span,
                    Code::E0019,
                    format!("template parameter `{}` takes a value, not a type", p.name),
                );
                None
            }
        }
    }

    /// Every argument of template `index`: the written ones, then those the
    /// call's arguments deduce, then the defaults. `Err` says why not.
    fn deduce(
        &mut self,
        index: usize,
        explicit: &[ArgValue],
        call_args: &[Option<ArgType>],
    ) -> Result<Vec<ArgValue>, String> {
        let templates = self.tmpl.templates.clone();
        let t = &templates.functions[index];
        let mut args: Vec<Option<ArgValue>> = vec![None; t.params.len()];
        for (slot, v) in args.iter_mut().zip(explicit) {
            *slot = Some(v.clone());
        }
        // Each pack's elements: the written ones, then the deduced ones.
        let mut packs: Vec<Vec<ArgValue>> = args
            .iter()
            .map(|a| match a {
                Some(ArgValue::Pack(elems)) => elems.clone(),
                _ => Vec::new(),
            })
            .collect();
        if let Some(pattern) = &t.pattern {
            let written_pack = t
                .params
                .iter()
                .position(|p| p.pack)
                .filter(|&i| i < explicit.len())
                .map(|i| packs[i].len());
            let mut element = 0;
            for (k, a) in call_args.iter().enumerate() {
                let Some((at, in_pack)) = pattern_param(t, pattern, k, written_pack) else {
                    break;
                };
                let p = &pattern.params[at];
                let Some(ArgType {
                    ty: a,
                    spelling,
                    lvalue,
                }) = a
                else {
                    // An untyped argument leaves a pack's length unknown,
                    // unless the written elements cover it.
                    if in_pack && element >= written_pack.unwrap_or(0) {
                        return Err(format!(
                            "cannot deduce the parameter pack of `{}` from argument {}",
                            t.name,
                            k + 1
                        ));
                    }
                    element += usize::from(in_pack);
                    continue;
                };
                let mut d = Deduction {
                    args: &mut args,
                    written: explicit.len(),
                    t,
                    spelling,
                    lvalue: *lvalue,
                };
                let place = in_pack.then_some((packs.as_mut_slice(), element));
                d.call_argument(p, a, place)?;
                element += usize::from(in_pack);
            }
        }
        // A pack is the function parameter pack's elements, unless a
        // class template-id bound it (`const tl<Ts...> &`).
        for (i, p) in t.params.iter().enumerate() {
            if p.pack && (args[i].is_none() || !packs[i].is_empty()) {
                args[i] = Some(ArgValue::Pack(std::mem::take(&mut packs[i])));
            }
        }
        for i in 0..args.len() {
            let param = match &t.params[i].dependent_type {
                Some(tokens) => self.dependent_param(index, i, tokens, &args)?,
                None => t.params[i].clone(),
            };
            match (&args[i], &param.kind) {
                (None, _) => args[i] = self.default_template_arg(index, &param, &args[..i])?,
                // A written value converts to the type now known.
                (Some(ArgValue::Int(v, _)), ParamKind::Value(ty, _)) => {
                    args[i] = Some(ArgValue::Int(templates::wrap_to(*v, ty), ty.clone()))
                }
                _ => {}
            }
        }
        args.into_iter()
            .enumerate()
            .map(|(i, a)| {
                a.ok_or_else(|| {
                    format!(
                        "cannot deduce template parameter `{}` of `{}`; write it: `{}<...>(...)`",
                        t.params[i].name, t.name, t.name
                    )
                })
            })
            .collect()
    }

    /// The arguments of template `t` (without defaults): the written ones
    /// (`explicit`), then those the typed call arguments `call_args`
    /// deduce against its pattern.
    pub(super) fn deduce_pattern(
        &mut self,
        t: &templates::FunctionTemplate,
        explicit: &[ArgValue],
        call_args: &[Option<ArgType>],
    ) -> Result<Vec<ArgValue>, String> {
        let mut args: Vec<Option<ArgValue>> = vec![None; t.params.len()];
        for (slot, v) in args.iter_mut().zip(explicit) {
            *slot = Some(v.clone());
        }
        // The elements a function parameter pack's arguments deduce
        // (`Args... args` of a host template), by template parameter.
        let mut packs: Vec<Vec<ArgValue>> = vec![Vec::new(); t.params.len()];
        if let Some(pattern) = &t.pattern {
            let mut element = 0;
            for (k, a) in call_args.iter().enumerate() {
                let Some((at, in_pack)) = pattern_param(t, pattern, k, None) else {
                    break;
                };
                let p = &pattern.params[at];
                let Some(ArgType {
                    ty: a,
                    spelling,
                    lvalue,
                }) = a
                else {
                    if in_pack {
                        return Err(format!(
                            "cannot deduce the parameter pack of `{}` from argument {}",
                            t.name,
                            k + 1
                        ));
                    }
                    continue;
                };
                let mut d = Deduction {
                    args: &mut args,
                    written: explicit.len(),
                    t,
                    spelling,
                    lvalue: *lvalue,
                };
                let place = in_pack.then_some((packs.as_mut_slice(), element));
                d.call_argument(p, a, place)?;
                element += usize::from(in_pack);
            }
        }
        // A pack no class template-id bound is the function parameter
        // pack's elements (none when it has no arguments).
        for (i, p) in t.params.iter().enumerate() {
            if p.pack && args[i].is_none() {
                args[i] = Some(ArgValue::Pack(std::mem::take(&mut packs[i])));
            }
        }
        args.into_iter()
            .enumerate()
            .map(|(i, a)| {
                a.ok_or_else(|| {
                    format!(
                        "cannot deduce the type of `auto` parameter {} of this lambda",
                        i + 1
                    )
                })
            })
            .collect()
    }

    /// The default argument of parameter `p` of template `index`, read
    /// with the arguments before it (`args`) bound: `None` when it has
    /// none or those are not all known, `Err` when it does not read with
    /// them (a substitution failure, [temp.deduct]).
    fn default_template_arg(
        &mut self,
        index: usize,
        p: &templates::TemplateParam,
        args: &[Option<ArgValue>],
    ) -> Result<Option<ArgValue>, String> {
        let templates = self.tmpl.templates.clone();
        let t = &templates.functions[index];
        let Some(tokens) = p.default.as_ref() else {
            return Ok(None);
        };
        let Some(known) = args.iter().cloned().collect::<Option<Vec<ArgValue>>>() else {
            return Ok(None);
        };
        match crate::parser::parse_template_arg(&templates, t, tokens, &known, &self.opts) {
            Ok(arg) => Ok(self.template_arg_value(&arg, p)),
            Err(diags) => Err(substitution_failure(t, &known, &diags)),
        }
    }

    /// Value parameter `i` of template `index` (whose type's tokens are
    /// `tokens`) with its type read with the arguments before it bound;
    /// `Err` when the type does not read (a substitution failure:
    /// `enable_if<false, int>::type`).
    fn dependent_param(
        &mut self,
        index: usize,
        i: usize,
        tokens: &[crate::token::Token],
        args: &[Option<ArgValue>],
    ) -> Result<templates::TemplateParam, String> {
        let templates = self.tmpl.templates.clone();
        let t = &templates.functions[index];
        let Some(known) = args[..i].iter().cloned().collect::<Option<Vec<ArgValue>>>() else {
            return Err(format!(
                "cannot deduce the template parameters that the type of template parameter {} of `{}` names",
                i + 1,
                t.name
            ));
        };
        let read = crate::parser::parse_template_type(&templates, t, tokens, &known, &self.opts);
        let ty = match read {
            Ok(ty) if ty.ty.is_integer() || ty.ty == CType::Bool || ty.ty.is_pointer() => ty,
            Ok(ty) => {
                return Err(format!(
                "the type of template parameter {} of `{}` is `{}`, not an integer or pointer type",
                i + 1,
                t.name,
                ty.ty
            ))
            }
            Err(diags) => return Err(substitution_failure(t, &known, &diags)),
        };
        let mut p = t.params[i].clone();
        p.kind = ParamKind::Value(ty.ty, ty.spelling);
        Ok(p)
    }

    /// Declares the instantiation of template `index` with `args` (once)
    /// and queues its body: its name.
    fn instance(&mut self, index: usize, args: Vec<ArgValue>, span: Span) -> Option<String> {
        let key = (index, args);
        if let Some(name) = self.tmpl.done.get(&key) {
            return Some(name.clone());
        }
        let templates = self.tmpl.templates.clone();
        let t = &templates.functions[index];
        let name = templates::instance_name(&t.name, &key.1);
        let shown = templates::shown_instance_name(t, &key.1, &templates.env)
            .unwrap_or_else(|| name.clone());
        let depth = self.tmpl.depth + 1;
        if depth > MAX_DEPTH {
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0019,
                    format!(
                        "template instantiations nest more than {MAX_DEPTH} deep, at `{shown}`"
                    ),
                )
                .with_label(t.name_span, "the template")
                .with_note("does the template instantiate itself without a base case?"),
            );
            return None;
        }
        self.tmpl.done.insert(key.clone(), name.clone());
        if shown != name {
            self.tmpl.shown.insert(name.clone(), shown.clone());
        }
        let decl = match templates::instantiate(&templates, index, &key.1, &self.opts) {
            Ok(d) => {
                self.class_instance_items(depth);
                d
            }
            Err(diags) => {
                for d in diags {
                    if self.tmpl.reported.insert((d.span, d.message.clone())) {
                        let label = format!("in `{shown}`, instantiated here");
                        self.diags.push(d.with_label(span, label));
                    }
                }
                return None;
            }
        };
        self.declare_instance(index, &key.1, decl, name, span, depth)
    }

    /// Declares the member functions and static members of the class
    /// template instances made since the last call
    /// (`crate::templates::ClassInstances`), and queues the functions'
    /// bodies with the instantiation depth `depth` of what made them.
    pub(super) fn class_instance_items(&mut self, depth: usize) {
        self.adopt_member_templates();
        let templates = self.tmpl.templates.clone();
        let mut items = match templates.env.instances.lock() {
            Ok(mut shared) => std::mem::take(&mut shared.items),
            Err(_) => return,
        };
        // The member functions are declared before the static data
        // members, whose initializers may call them (`static constexpr
        // int W = width();`: the class is complete there in C++).
        items.sort_by_key(|i| !matches!(i, ast::Item::Function(f) if f.deduced_ret.is_none()));
        // A file-scope declaration is checked outside any function.
        let scopes = std::mem::take(&mut self.func.scopes);
        let item = std::mem::replace(&mut self.item, 0);
        for i in items {
            match i {
                ast::Item::Var(v) => self.file_var(&v),
                ast::Item::Function(f) if f.deduced_ret.is_some() => {
                    // A member whose return type its body gives: the
                    // prototype waits for the definition, checked now.
                    if f.body.is_some() {
                        self.declare_deduced_instance(f, depth);
                    }
                }
                ast::Item::Function(f) if self.declare_dormant(&f, depth) => {}
                ast::Item::Function(mut f) => {
                    let def = self.tmpl.next_def;
                    let Some(sig) = self.declare_function(&f, def) else {
                        continue;
                    };
                    if f.body.is_none() {
                        continue;
                    }
                    f.name = self.key_of(&f.name, sig);
                    self.tmpl.next_def += 1;
                    self.tmpl
                        .pending
                        .push_back(Pending::Body(Box::new(f), depth));
                }
                ast::Item::Enum(e) => self.enum_decl(&e),
                ast::Item::StaticAssert(sa) => self.static_assert(&sa),
            }
        }
        self.item = item;
        self.func.scopes = scopes;
    }

    /// Declares `f` without its definition when it is a member function
    /// of a class template's implicit instance (`Instances::dormant`);
    /// whether it was one. A member whose return type its body gives is
    /// checked where it is declared, since its callers need that type.
    pub(super) fn declare_dormant(&mut self, f: &ast::FunctionDecl, depth: usize) -> bool {
        if f.body.is_none() || f.deduced_ret.is_some() || !self.instantiated_on_use(&f.name) {
            return false;
        }
        let mut decl = f.clone();
        let body = decl.body.take();
        let Some(sig) = self.declare_function(&decl, 0) else {
            return true;
        };
        decl.body = body;
        decl.name = self.key_of(&decl.name, sig);
        self.tmpl.dormant.insert(sig, (Box::new(decl), depth));
        true
    }

    /// Whether function `name` is a member of a class template's implicit
    /// instance (or of a class nested in one), whose definition C++
    /// instantiates where it is used; a member of an explicit
    /// specialization is an ordinary function's.
    fn instantiated_on_use(&self, name: &str) -> bool {
        let Some((_, instance, _)) = self.instance_class_of(name) else {
            return false;
        };
        let classes = &self.tmpl.templates.classes;
        !classes
            .specializations
            .iter()
            .any(|s| s.name == instance.template && s.args == instance.args)
    }

    /// The definition of the function of signature `sig`, used at
    /// `used_at`: a dormant member's is instantiated now (its body queued,
    /// errors in it labelled with this first use). `None` for a function
    /// never defined.
    pub(super) fn definition(&mut self, sig: usize, used_at: Span) -> Option<FuncId> {
        if let Some((decl, depth)) = self.tmpl.dormant.remove(&sig) {
            let id = FuncId(self.tmpl.next_def as u32);
            self.tmpl.next_def += 1;
            self.sigs[sig].def = Some((id, decl.name_span));
            self.tmpl.origin.entry(decl.name.clone()).or_insert(used_at);
            self.tmpl.pending.push_back(Pending::Body(decl, depth));
        }
        self.sigs[sig].def.map(|d| d.0)
    }

    /// The struct of the class template instance keyed `key`, if one is.
    fn instance_struct(&self, key: &str) -> Option<Arc<crate::types::StructDef>> {
        let shared = self.tmpl.templates.env.instances.lock().ok()?;
        shared.structs.get(key).cloned()
    }

    /// Takes on the member templates of the class template instances made
    /// since the last call (`crate::templates::InstanceMemberTemplates`),
    /// in a copy of the templates when others share them.
    fn adopt_member_templates(&mut self) {
        let pending = self
            .tmpl
            .templates
            .env
            .instances
            .lock()
            .is_ok_and(|shared| !shared.member_templates.templates.is_empty());
        if !pending {
            return;
        }
        if let Some(own) = Arc::get_mut(&mut self.tmpl.templates) {
            own.adopt_member_templates();
            return;
        }
        let mut copy = self.tmpl.templates.copy();
        copy.adopt_member_templates();
        self.tmpl.templates = Arc::new(copy);
    }

    /// Declares `decl` as the instance of template `index` with `args`,
    /// named `name` and asked for at `span`, and queues its body.
    fn declare_instance(
        &mut self,
        index: usize,
        args: &[ArgValue],
        mut decl: ast::FunctionDecl,
        name: String,
        span: Span,
        depth: usize,
    ) -> Option<String> {
        let templates = self.tmpl.templates.clone();
        let t = &templates.functions[index];
        decl.name = name.clone();
        let class = t.member_of.as_deref().and_then(|k| self.instance_struct(k));
        let link = crate::mangle::instance(t, args, &decl, &templates.classes, class.as_deref());
        let def = self.tmpl.next_def;
        if decl.deduced_ret.is_some() && decl.body.is_some() {
            self.tmpl.link_names.insert(name.clone(), link);
            self.tmpl.origin.insert(name.clone(), span);
            return self.declare_deduced_instance(decl, depth);
        }
        let item = std::mem::replace(&mut self.item, 0);
        let sig = self.declare_function(&decl, def);
        self.item = item;
        // An instance of one of several templates of a name (`g<Add>` of
        // `g(T, Op)` and of `g(T, Op, int)`) is an overload of the others'
        // instances: keyed by its signature, it keeps its own body and
        // link name.
        let key = self.key_of(&name, sig?);
        if key != name {
            self.rekey_instance(index, args, &name, &key);
            decl.name = key.clone();
        }
        self.tmpl.link_names.insert(key.clone(), link);
        self.tmpl.origin.insert(key.clone(), span);
        if decl.body.is_some() {
            self.tmpl.next_def += 1;
            self.tmpl
                .pending
                .push_back(Pending::Body(Box::new(decl), depth));
        }
        Some(key)
    }

    /// The instance of template `index` with `args`, named `name` so far,
    /// is the overload keyed `key`.
    fn rekey_instance(&mut self, index: usize, args: &[ArgValue], name: &str, key: &str) {
        self.tmpl
            .done
            .insert((index, args.to_vec()), key.to_string());
        if let Some(shown) = self.tmpl.shown.get(name).cloned() {
            self.tmpl.shown.insert(key.to_string(), shown);
        }
    }

    /// Checks the body of instance `decl`, whose return type is deduced,
    /// now (its caller needs the type), then declares it: its name.
    fn declare_deduced_instance(
        &mut self,
        mut decl: ast::FunctionDecl,
        depth: usize,
    ) -> Option<String> {
        let item = std::mem::replace(&mut self.item, usize::MAX);
        let outer = self.tmpl.depth;
        let checked = self.deduce_return(&mut decl, Some(depth));
        self.tmpl.depth = outer;
        self.item = 0;
        let def = self.tmpl.next_def;
        let sig = self.declare_function(&decl, def);
        self.item = item;
        sig?;
        self.tmpl.next_def += 1;
        let checked = self.keep_if_constexpr(&decl, checked);
        self.tmpl
            .pending
            .push_back(Pending::Checked(Box::new(checked)));
        Some(decl.name)
    }

    /// Declares the explicit specializations not declared yet: each is the
    /// instance its arguments name, so a use of that instance finds it.
    /// Their arguments may name enumerators and constants, which the
    /// checker binds in source order: one whose arguments do not evaluate
    /// yet waits for the next call, and the `last` call reports why.
    /// (C++ declares those names before the specialization, and the
    /// specialization before any use of its instance, so declaring it once
    /// its arguments evaluate is in time for every use.)
    pub(super) fn specializations(&mut self, last: bool) {
        let templates = self.tmpl.templates.clone();
        for (i, sp) in templates.specializations.iter().enumerate() {
            if !self.tmpl.specialized.insert(i) {
                continue;
            }
            let Some(&index) = templates.by_name.get(&sp.name).and_then(|c| c.first()) else {
                continue;
            };
            let params = &templates.functions[index].params;
            let mark = self.diags.len();
            let Some(values) = self.template_arg_values(&sp.args, params) else {
                if !last {
                    self.diags.truncate(mark);
                    self.tmpl.specialized.remove(&i);
                }
                continue;
            };
            let args = match self.deduce(index, &values, &[]) {
                Ok(args) => args,
                Err(why) => {
                    self.error(sp.decl.name_span, Code::E0019, why);
                    continue;
                }
            };
            let key = (index, args);
            let name = templates::instance_name(&sp.name, &key.1);
            if let Some(prev) = self.tmpl.done.get(&key) {
                let prev = prev.clone();
                self.error(
                    sp.decl.name_span,
                    Code::E0006,
                    format!("`{prev}` is specialized twice"),
                );
                continue;
            }
            self.tmpl.done.insert(key.clone(), name.clone());
            self.declare_instance(index, &key.1, sp.decl.clone(), name, sp.decl.name_span, 1);
        }
    }
}

/// Why substituting `known` into template `t` failed, from the
/// diagnostics of reading what names them.
fn substitution_failure(
    t: &templates::FunctionTemplate,
    known: &[ArgValue],
    diags: &[Diagnostic],
) -> String {
    let why = diags
        .first()
        .map(|d| d.message.clone())
        .unwrap_or_else(|| "it does not read".to_string());
    format!(
        "substituting the arguments into `{}` fails: {why}",
        templates::instance_name(&t.name, known)
    )
}

/// A call argument's type for deduction.
#[derive(Clone, Debug)]
pub(super) struct ArgType {
    pub ty: CType,
    /// How its base type was written (`Spelling::Plain` when that is not
    /// known).
    pub spelling: ast::Spelling,
    /// `Some(is_const)` for an lvalue: a forwarding reference `T &&`
    /// deduces `T` as a reference from one.
    pub lvalue: Option<bool>,
}

/// Whether typed expression `e` is the object a call of a function
/// returning a reference designates (the call's pointer, dereferenced).
fn returned_reference(e: &crate::typed::Expr) -> bool {
    use crate::typed::ExprKind;
    matches!(&e.kind, ExprKind::Deref(call) if matches!(call.kind, ExprKind::Call { .. }))
}

/// Whether `e` is written as C++'s lvalues are: a name, an element, a
/// member, or `*p` (a temporary, a literal, a call's result are not).
fn names_an_object(e: &ast::Expr) -> bool {
    matches!(
        e.kind,
        ast::ExprKind::Ident(_)
            | ast::ExprKind::Index { .. }
            | ast::ExprKind::Member { .. }
            | ast::ExprKind::Unary {
                op: ast::UnaryOp::Deref,
                ..
            }
    )
}

/// How the base type of a call's argument was written, where the
/// argument spells it: a cast, a stand-in (`crate::host_args`), a literal
/// (`5LL`), or a variable, whose declaration's spelling `named` gives,
/// seen through unary operators, indexing, assignments and arithmetic.
fn base_spelling(e: &ast::Expr, named: &dyn Fn(&str) -> ast::Spelling) -> ast::Spelling {
    let base_spelling = |e: &ast::Expr| base_spelling(e, named);
    match &e.kind {
        ast::ExprKind::Cast { ty, .. } | ast::ExprKind::NamedCast { ty, .. } => ty.spelling.clone(),
        ast::ExprKind::Ident(name) => named(name),
        ast::ExprKind::IntLit { spelling, .. } => spelling.clone(),
        ast::ExprKind::Unary { operand, .. } | ast::ExprKind::IncDec { operand, .. } => {
            base_spelling(operand)
        }
        ast::ExprKind::Index { base, .. } => base_spelling(base),
        // A shift has its left operand's type, an assignment its target's,
        // a comma its right operand's.
        ast::ExprKind::Binary {
            op: ast::BinaryOp::Shl | ast::BinaryOp::Shr,
            lhs: a,
            ..
        }
        | ast::ExprKind::Assign { lhs: a, .. }
        | ast::ExprKind::Binary {
            op: ast::BinaryOp::Comma,
            rhs: a,
            ..
        } => base_spelling(a),
        // The usual arithmetic conversions give `long long` when either
        // operand is one (a narrower result ignores the spelling).
        ast::ExprKind::Binary { lhs: a, rhs: b, .. }
        | ast::ExprKind::Ternary {
            then: a, els: b, ..
        } => match (base_spelling(a), base_spelling(b)) {
            (ast::Spelling::LongLong, _) | (_, ast::Spelling::LongLong) => ast::Spelling::LongLong,
            _ => ast::Spelling::Plain,
        },
        _ => ast::Spelling::Plain,
    }
}

/// The index of the function parameter pack among the parameters of
/// `pattern` (template `t`'s), `this` counted.
fn pack_index(t: &templates::FunctionTemplate, pattern: &ast::FunctionDecl) -> Option<usize> {
    t.param_pack
        .map(|p| p + usize::from(pattern.method.is_some()))
}

/// The parameter of `pattern` (template `t`'s) that call argument `k`
/// binds, and whether the argument is an element of the function
/// parameter pack: every argument from the pack's place on is when it is
/// the last parameter, else as many as `written_pack` (its written
/// elements; none when `None`). `None` past the parameters.
fn pattern_param(
    t: &templates::FunctionTemplate,
    pattern: &ast::FunctionDecl,
    k: usize,
    written_pack: Option<usize>,
) -> Option<(usize, bool)> {
    let count = pattern.params.len();
    let Some(p) = pack_index(t, pattern).filter(|&p| k >= p) else {
        return (k < count).then_some((k, false));
    };
    let len = if p + 1 == count {
        usize::MAX
    } else {
        written_pack.unwrap_or(0)
    };
    if k - p < len {
        return Some((p, true));
    }
    let at = k - len + 1;
    (at < count).then_some((at, false))
}

/// Whether a parameter type written with placeholders names one.
fn mentions_param(ty: &CType) -> bool {
    if template_param_index(ty).is_some() {
        return true;
    }
    match ty {
        CType::Pointer { pointee, .. } => mentions_param(pointee),
        CType::Array { elem, .. } => mentions_param(elem),
        _ => false,
    }
}

/// Deduction in progress: the arguments found so far, of which the first
/// `written` were written and are not deduced (C++ [temp.deduct.call]).
struct Deduction<'a> {
    args: &'a mut [Option<ArgValue>],
    written: usize,
    t: &'a templates::FunctionTemplate,
    /// How the argument's base type was written, where the typed tree
    /// forgets it (`long long` and `long` are one `CType`).
    spelling: &'a ast::Spelling,
    /// The argument is an lvalue (`Some(is_const)`), which a forwarding
    /// reference deduces as a reference.
    lvalue: Option<bool>,
}

impl Deduction<'_> {
    /// Deduces from call argument type `arg` against parameter `param`;
    /// `pack` is the packs and the element index when the parameter is the
    /// function parameter pack. A by-value parameter sees arrays as the
    /// pointers they decay to (to `const` elements for a `const` array); a
    /// reference sees the array (`const T (&v)[N]` deduces `N`).
    fn call_argument(
        &mut self,
        param: &ast::ParamDecl,
        arg: &CType,
        pack: Option<(&mut [Vec<ArgValue>], usize)>,
    ) -> Result<(), String> {
        let arg = match (&param.by_ref, arg) {
            (None, CType::Array { elem, .. }) => CType::Pointer {
                pointee: elem.clone(),
                pointee_const: self.lvalue == Some(true),
                pointee_volatile: false,
                restrict: false,
            },
            (_, t) => t.clone(),
        };
        match pack {
            Some((packs, element)) => self.pack_element(param, &arg, packs, element),
            None => self.match_param(param, &arg),
        }
    }

    /// Deduces from `arg` against parameter `param`'s type. A forwarding
    /// reference (`T &&x`, `T` a parameter, unqualified) deduces `T` as
    /// an lvalue reference from an lvalue ([temp.deduct.call] p3):
    /// `float &` (`const float &` from a `const` one).
    fn match_param(&mut self, param: &ast::ParamDecl, arg: &CType) -> Result<(), String> {
        let forwarding = param.rvalue && !param.ty.is_const && !param.ty.is_volatile;
        if let (true, Some(i), Some(is_const)) =
            (forwarding, template_param_index(&param.ty.ty), self.lvalue)
        {
            let value = ArgValue::Type {
                ty: super::convert::strip_restrict(arg).0,
                is_const,
                is_volatile: false,
                spelling: self.spelling.clone(),
            };
            return self.bind(i, ArgValue::LvalueRef(Box::new(value)));
        }
        // `T &x` against a `const` lvalue deduces `const float`
        // ([temp.deduct.call] p4: the referenced type keeps its `const`).
        let lvalue_ref = param.by_ref.is_some() && !param.rvalue && !param.ty.is_const;
        if let (true, Some(i), Some(true)) =
            (lvalue_ref, template_param_index(&param.ty.ty), self.lvalue)
        {
            let value = ArgValue::Type {
                ty: super::convert::strip_restrict(arg).0,
                is_const: true,
                is_volatile: false,
                spelling: self.spelling.clone(),
            };
            return self.bind(i, value);
        }
        self.match_type(&param.ty.ty, arg)
    }

    /// Deduces from parameter type `param` (written with placeholders)
    /// against argument type `arg`: binds each placeholder it meets, or
    /// says why the two disagree. A top-level `const` of `param` (`const T
    /// &x`) deduces nothing.
    fn match_type(&mut self, param: &CType, arg: &CType) -> Result<(), String> {
        if let Some(i) = template_param_index(param) {
            let value = ArgValue::Type {
                ty: super::convert::strip_restrict(arg).0,
                is_const: false,
                is_volatile: false,
                spelling: self.spelling.clone(),
            };
            return self.bind(i, value);
        }
        match (param, arg) {
            (
                CType::Pointer {
                    pointee: p,
                    pointee_const: pc,
                    pointee_volatile: pv,
                    ..
                },
                CType::Pointer {
                    pointee: a,
                    pointee_const: ac,
                    pointee_volatile: av,
                    ..
                },
            ) => {
                if let Some(i) = template_param_index(p) {
                    // `T *` against `const float *` deduces `const float`.
                    let value = ArgValue::Type {
                        ty: (**a).clone(),
                        is_const: *ac && !*pc,
                        is_volatile: *av && !*pv,
                        spelling: self.spelling.clone(),
                    };
                    return self.bind(i, value);
                }
                self.match_type(p, a)
            }
            (CType::Array { elem: p, len: pl }, CType::Array { elem: a, len: al }) => {
                self.match_bound(*pl, *al)?;
                self.match_type(p, a)
            }
            (CType::Struct(p), _) => self.match_instance(param, p, arg),
            _ => Ok(()),
        }
    }

    /// `Pack<T>` against `Pack<float>`: argument by argument; against a
    /// class derived from an instance of `Pack`, that base's arguments (C++
    /// [temp.deduct.call]p4.3: CRTP's `Base<D> &`). Against any other type
    /// deduction fails when the pattern names parameters: no conversion is
    /// considered (`operator*(const complex<T> &, const complex<T> &)` is
    /// no candidate for `2.0f * z`).
    fn match_instance(
        &mut self,
        param: &CType,
        p: &crate::types::StructDef,
        arg: &CType,
    ) -> Result<(), String> {
        let Some(pi) = &p.instance_of else {
            return Ok(());
        };
        let found = match arg {
            CType::Struct(a) => instance_or_base(a, &pi.template),
            _ => None,
        };
        let Some(ai) = found else {
            if crate::parser::is_dependent_type(param) {
                return Err(format!(
                    "`{arg}` is not `{}` nor derived from an instance of it",
                    pi.template
                ));
            }
            return Ok(());
        };
        for (pa, aa) in pi.args.iter().zip(&ai.args) {
            self.match_class_arg(pa, aa)?;
        }
        Ok(())
    }

    /// Deduces an array bound that is a value parameter (`N` of `const T
    /// (&v)[N]`, [`crate::types::dependent_len`]) from the argument
    /// array's length, as a value of the parameter's type.
    fn match_bound(&mut self, param: Option<u64>, arg: Option<u64>) -> Result<(), String> {
        let (Some(i), Some(len)) = (param.and_then(crate::types::dependent_len_index), arg) else {
            return Ok(());
        };
        let Some(templates::ParamKind::Value(ty, _)) = self.t.params.get(i).map(|p| &p.kind) else {
            return Ok(());
        };
        self.bind(i, ArgValue::Int(i128::from(len), ty.clone()))
    }

    /// Deduces from one argument of a class template-id of the pattern
    /// (`T`, `N`, or a pack's `First, Rest...`) against the instance's
    /// (a value argument the pattern computes is not known: no deduction).
    fn match_class_arg(&mut self, pa: &ArgValue, aa: &ArgValue) -> Result<(), String> {
        match (pa, aa) {
            (ArgValue::Type { ty: pt, .. }, ArgValue::Type { ty: at, .. }) => {
                self.match_type(pt, at)
            }
            (ArgValue::Param(i), ArgValue::Int(..)) => self.bind(*i, aa.clone()),
            (ArgValue::Pack(ps), ArgValue::Pack(args)) => self.match_pack(ps, args),
            _ => Ok(()),
        }
    }

    /// Deduces from a class's pack: element by element, a pack expansion
    /// that ends the pattern (`Rest...`, [`templates::expansion`]) bound to
    /// the elements left, none included. Without one the pack's lengths
    /// must agree (`tuple<A, B>` is no `tuple<float, int, float>`).
    fn match_pack(&mut self, ps: &[ArgValue], args: &[ArgValue]) -> Result<(), String> {
        let expanded = ps.last().and_then(templates::expanded_param);
        let init = if expanded.is_some() {
            &ps[..ps.len() - 1]
        } else {
            ps
        };
        if expanded.is_none() && ps.len() != args.len() {
            return Err(format!(
                "a pack of {} arguments is not one of {}",
                args.len(),
                ps.len()
            ));
        }
        for (p, a) in init.iter().zip(args) {
            self.match_class_arg(p, a)?;
        }
        match expanded {
            Some(j) if args.len() >= init.len() => {
                self.bind(j, ArgValue::Pack(args[init.len()..].to_vec()))
            }
            _ => Ok(()),
        }
    }

    /// Deduces element `element` of the packs the function parameter
    /// pack's type `param` names, from argument type `arg`: each pack of
    /// `packs` not yet that long gets the type deduced for its parameter
    /// (the placeholders of the packs stand for one element here); the
    /// other parameters it binds are bound as by [`Self::match_type`].
    fn pack_element(
        &mut self,
        param: &ast::ParamDecl,
        arg: &CType,
        packs: &mut [Vec<ArgValue>],
        element: usize,
    ) -> Result<(), String> {
        let mut scratch: Vec<Option<ArgValue>> = self.args.to_vec();
        for (slot, p) in scratch.iter_mut().zip(&self.t.params) {
            if p.pack {
                *slot = None;
            }
        }
        let mut d = Deduction {
            args: &mut scratch,
            written: 0,
            t: self.t,
            spelling: self.spelling,
            lvalue: self.lvalue,
        };
        d.match_param(param, arg)?;
        for (i, value) in scratch.into_iter().enumerate() {
            let Some(value) = value else { continue };
            if self.t.params[i].pack {
                if packs[i].len() == element {
                    packs[i].push(value);
                }
            } else if self.args[i].is_none() {
                self.args[i] = Some(value);
            }
        }
        Ok(())
    }

    /// Binds placeholder `i` to `value`, or says it was bound to another.
    fn bind(&mut self, i: usize, value: ArgValue) -> Result<(), String> {
        if i < self.written {
            return Ok(());
        }
        let Some(slot) = self.args.get_mut(i) else {
            return Ok(());
        };
        match slot {
            None => {
                *slot = Some(value);
                Ok(())
            }
            Some(old) if *old == value => Ok(()),
            Some(old) => Err(format!(
                "template parameter `{}` of `{}` is deduced as both `{}` and `{}`",
                self.t.params[i].name,
                self.t.name,
                old.readable(),
                value.readable()
            )),
        }
    }
}

/// `class` itself when it is an instance of class template `template`,
/// else the first of its bases (depth first, in declaration order) that
/// is: where deduction finds a class template-id's arguments.
fn instance_or_base(
    class: &crate::types::StructDef,
    template: &str,
) -> Option<std::sync::Arc<crate::templates::ClassInstance>> {
    if let Some(i) = &class.instance_of {
        if i.template == template {
            return Some(i.clone());
        }
    }
    class.fields[..class.bases.min(class.fields.len())]
        .iter()
        .find_map(|f| match &f.ty {
            CType::Struct(base) => instance_or_base(base, template),
            _ => None,
        })
}

/// The data member at byte `offset` of class `def`, its bases' included,
/// that is an object of type `ty` or an array of them (a union's first
/// such member).
fn field_at<'a>(def: &'a StructDef, offset: u64, ty: &CType) -> Option<&'a crate::types::Field> {
    let holds = |f: &crate::types::Field| match &f.ty {
        CType::Array { elem, .. } => **elem == *ty || f.ty == *ty,
        fty => fty == ty,
    };
    def.fields
        .iter()
        .find_map(|f| match crate::bases::base_class(f) {
            Some(base) if offset >= f.offset => field_at(base, offset - f.offset, ty),
            Some(_) => None,
            None => (f.offset == offset && holds(f) && f.bits.is_none()).then_some(f),
        })
}
