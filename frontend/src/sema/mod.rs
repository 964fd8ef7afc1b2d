//! Semantic analysis: name resolution, C typing rules, and construction of
//! the explicit [`typed`](crate::typed) program.
//!
//! The checker keeps going after errors (an erroneous expression simply
//! yields `None` and is dropped) so every independent error in the file is
//! reported in one run.

mod access;
mod asm;
mod bases;
mod bindings;
mod bit_fields;
mod builtins;
mod classes;
mod const_addr;
mod consteval;
mod convert;
mod cxx;
mod decl;
mod decltype;
mod destructors;
mod device_fns;
mod expr;
mod fn_pointers;
mod half;
mod host_frames;
mod labels;
mod lambdas;
mod overload;
mod runtime;
mod templates;
mod tensor;
mod texture;
mod vectors;
mod warnings;
mod wgmma_tcgen05;
pub(crate) use convert::strip_restrict;
pub(crate) use lambdas::written_type;
pub(crate) use tensor::fragment_lengths;
pub(crate) use wgmma_tcgen05::fragment_lengths as fragment_lengths_b;

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::ast;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::ClassInstance;
use crate::typed::{
    Block, FuncId, Function, GlobalId, GlobalVar, LocalId, LocalVar, Param, Program, Stmt,
    StmtKind, Unroll,
};
use crate::types::{CType, StructDef};

/// What is known about a function name from its declarations.
struct FnSig {
    ret: CType,
    /// How the return type was written where `ret` forgets it.
    ret_spelling: ast::Spelling,
    /// Parameter types; a reference parameter `T &` is a `T *` here.
    params: Vec<CType>,
    /// Which parameters are references (the call passes an address).
    refs: Vec<bool>,
    /// Which of those are rvalue references (`T &&x`), which bind a
    /// temporary as a `const` reference does.
    rvalue_refs: Vec<bool>,
    is_kernel: bool,
    /// Name span of the first declaration.
    first_decl: Span,
    /// The top-level item of the first declaration: calls must come in
    /// it or after it. (Spans cannot say: an included file's offsets come
    /// after the whole main file's, `source_map.rs`.)
    first_item: usize,
    /// Set once the definition has been seen.
    def: Option<(FuncId, Span)>,
    extern_c: bool,
    /// Named in nvcc's namespace of names with internal linkage
    /// (`crate::mangle::has_internal_name`), which any of its declarations
    /// can give it (`static` on the prototype alone).
    internal_name: bool,
    noinline: bool,
    forceinline: bool,
    /// The first call, to report calls to never-defined functions.
    first_call: Option<Span>,
    /// Each parameter's default argument, typed at each call that leaves it
    /// out (from whichever declaration gives it).
    defaults: Vec<Option<ast::Expr>>,
    /// A non-static member function: parameter 0 is `this`, which a call
    /// binds to the object (`classes.rs`).
    is_method: bool,
    /// Its ref-qualifier: with one, `this` binds as a reference parameter
    /// of that kind; without, any object.
    ref_qualifier: ast::RefQualifier,
    /// A value, or a reference: then `ret` is a pointer, and a call
    /// designates the object it points to (an xvalue for `T &&`).
    returns: ast::Returns,
    /// `constexpr` without `__device__` (host code the split kept because
    /// kept code names it): device code may call it only under
    /// `--expt-relaxed-constexpr`.
    host_constexpr: bool,
    /// The implicit default constructor of an aggregate with default
    /// member initializers (`ast::Method::aggregate`).
    aggregate_ctor: bool,
}

/// What a name in scope refers to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Binding {
    Local(LocalId),
    /// An enumerator or a file-scope `const` integer: a constant of a type.
    Const(i128, CType),
    /// A file-scope `constexpr` floating constant.
    ConstFloat(f64, CType),
    /// A file-scope `const` or `constexpr` integer array with constant
    /// elements: host data, of which device code may read an element at a
    /// constant index as a constant (in a `__constant__` initializer, a
    /// template argument), as C++ reads it without odr-using the array.
    ConstArray(std::sync::Arc<[i128]>, CType),
    Global(GlobalId),
    /// A reference: the local holds the address of the object it names,
    /// and every use of the name is an implicit dereference.
    Ref(LocalId),
    /// A name whose declaration failed with an error already reported:
    /// its uses are left untyped without a second error (not "undeclared").
    Failed,
}

/// The `switch` being checked: its controlling type and labels so far.
struct SwitchCtx {
    cases: Vec<(i128, u32, Span)>,
    /// The span of each value's `case`, to find a duplicate at once.
    case_spans: FxHashMap<i128, Span>,
    default: Option<(u32, Span)>,
    labels: u32,
}

/// One block scope: its bindings in declaration order, and the position of
/// the latest binding of each name (finding a name was a scan of every
/// name in scope, quadratic in a scope of thousands of names).
#[derive(Default)]
struct Scope {
    names: Vec<(String, Binding)>,
    index: FxHashMap<String, usize>,
    /// Its locals whose lifetime's end calls a destructor, in order of
    /// declaration (`destructors.rs`).
    destroy: Vec<LocalId>,
}

impl Scope {
    fn push(&mut self, name: &str, b: Binding) {
        self.index.insert(name.to_string(), self.names.len());
        self.names.push((name.to_string(), b));
    }

    /// The latest binding of `name` in this scope.
    fn get(&self, name: &str) -> Option<&Binding> {
        self.index.get(name).map(|&i| &self.names[i].1)
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Binding> {
        self.index.get(name).map(|&i| &mut self.names[i].1)
    }

    /// The bindings in declaration order.
    fn iter(&self) -> std::slice::Iter<'_, (String, Binding)> {
        self.names.iter()
    }
}

/// Checker state: global function table plus per-function scopes.
pub(crate) struct Checker {
    sigs: Vec<FnSig>,
    by_name: FxHashMap<String, usize>,
    diags: Vec<Diagnostic>,
    /// What checking the current function body keeps; saved and put
    /// back around a lambda's body, checked in the middle of another's
    /// (`lambdas.rs`).
    func: FnState,
    /// Enumerators, file-scope constants and module variables.
    file_scope: Vec<(String, Binding, Span)>,
    /// The position in `file_scope` of the latest binding of each name.
    file_index: FxHashMap<String, usize>,
    globals: Vec<GlobalVar>,
    /// The index of each module variable by name (names are unique).
    global_index: FxHashMap<String, usize>,
    /// The checked bodies of the `constexpr` functions checked so far, by
    /// key: constant expressions call them (`consteval.rs`).
    constexpr_bodies: FxHashMap<String, std::sync::Arc<crate::typed::Function>>,
    /// The floating-point options (`-prec-div`, `--use_fast_math`, ...),
    /// which decide how `/` and some math functions are typed.
    opts: crate::Options,
    /// The host functions and variables the split phase skipped, by name
    /// (the first declaration of each), for E0017.
    host: FxHashMap<String, ast::HostDecl>,
    /// The index of the top-level item being checked.
    item: usize,
    /// The function templates and their instantiations.
    tmpl: templates::Instances,
    /// The overloads of each function name.
    overloads: overload::Overloads,
    /// The bit-field reads by their spans, each with its storage unit and
    /// bits, so that an assignment to one stores to the unit
    /// (`bit_fields.rs`).
    bit_field_reads: FxHashMap<Span, (crate::typed::Expr, crate::types::BitField)>,
    /// The spans of lvalues made rvalues (`std::move(x)`,
    /// `static_cast<T &&>(x)`): an rvalue reference parameter binds them,
    /// no other lvalue (`overload.rs`).
    xvalues: rustc_hash::FxHashSet<Span>,
    /// Closure types and generic lambdas.
    lambdas: lambdas::Lambdas,
    /// Functions and lambdas whose return type is deduced but could not
    /// be, after an error in a `return` (reported): their calls are left
    /// untyped, not reported again as `void` values.
    undeduced: rustc_hash::FxHashSet<String>,
    /// Typing host code's stand-ins (`crate::host_args`): a call of a host
    /// function template has the type its declaration deduces
    /// (`host_frames.rs`).
    typing_host: bool,
    /// The functions whose bodies hold the lambda being checked, outermost
    /// first, and those whose rights code checked for them has (a default
    /// argument's function): their access rights are the code's
    /// (`access.rs`).
    enclosing_fns: Vec<String>,
}

/// What the checker keeps while it checks one function body.
pub(super) struct FnState {
    /// The locals of the current function, by `LocalId`.
    locals: Vec<LocalVar>,
    /// Whether each local of the current function has been referenced.
    used: Vec<bool>,
    /// Block scopes of the current function, innermost last.
    scopes: Vec<Scope>,
    /// The current function's return type.
    ret: CType,
    /// What the current function returns: a value, or a reference
    /// (`ret` is its pointer; an rvalue one binds as a `const` one).
    returns: ast::Returns,
    /// The current function's name.
    fn_name: String,
    /// A template argument is being evaluated: a constant expression in
    /// which device code may read a host `const` table's element
    /// ([`Binding::ConstArray`]).
    in_template_arg: bool,
    /// The current function's Itanium name (a lambda's closure type in it
    /// is named after it).
    fn_link: String,
    /// The current function is inline in C++'s sense ([`Checker::is_inline`]).
    fn_inline: bool,
    /// The current function has internal linkage ([`internal_linkage`]).
    fn_static: bool,
    /// The current function as `__PRETTY_FUNCTION__` names it
    /// (`void k(float *, int)`), for `assert`.
    pretty_fn: String,
    /// Loops around the current statement (`continue` targets).
    loop_depth: u32,
    /// Loops and `switch`es around the current statement (`break` targets).
    break_depth: u32,
    switches: Vec<SwitchCtx>,
    /// Set while checking the statements directly in a `switch` body, the
    /// only place kernelc accepts `case` labels.
    label_ok: bool,
    /// Values of `constexpr` floating locals of the current function, for
    /// constant expressions (integer constants are `LocalVar::const_value`).
    const_floats: FxHashMap<LocalId, f64>,
    /// Locals declared with an initializer (a jump into their scope is
    /// ill-formed C++; see `labels.rs`).
    initialized: rustc_hash::FxHashSet<LocalId>,
    /// The labels of the current function, by name.
    goto_labels: FxHashMap<String, labels::LabelInfo>,
    /// `goto`s of the current function, checked at its end.
    gotos: Vec<labels::PendingGoto>,
    /// In a lambda's body whose return type is not written: the type its
    /// `return` statements gave so far (`lambdas.rs`).
    deduced_ret: Option<Option<CType>>,
    /// A `return` whose value had an error (reported): with no other
    /// `return` giving the deduced type, the type stays unknown.
    return_untyped: bool,
    /// How the base type of each local declared with a spelling that its
    /// `CType` forgets was written (`long long x`): a call deducing a
    /// template argument from the local names that type (`twice<long
    /// long>`, not `twice<long>`).
    spellings: FxHashMap<LocalId, ast::Spelling>,
    /// The parameters declared as rvalue references (`T &&x`, not
    /// collapsed to `T &`): `std::forward` makes an rvalue of them.
    rvalue_refs: rustc_hash::FxHashSet<LocalId>,
    /// Temporaries of the current full-expression whose lifetime's end
    /// calls a destructor (`destructors.rs`).
    temporaries: Vec<LocalId>,
    /// In a constructor: where its body's `{` is. The statements before
    /// it are its base and member initializers, which construct the
    /// subobject in place (their temporary *is* the subobject).
    initializers_end: Option<u32>,
    /// The number of scopes outside each loop around the current
    /// statement, innermost last: what a `continue` leaves.
    continue_scopes: Vec<usize>,
    /// The same for each loop and `switch`: what a `break` leaves.
    break_scopes: Vec<usize>,
}

impl Default for FnState {
    fn default() -> FnState {
        FnState {
            locals: Default::default(),
            used: Default::default(),
            scopes: Default::default(),
            ret: CType::Void,
            returns: Default::default(),
            fn_name: Default::default(),
            in_template_arg: false,
            fn_link: Default::default(),
            fn_inline: false,
            fn_static: false,
            pretty_fn: Default::default(),
            loop_depth: Default::default(),
            break_depth: Default::default(),
            switches: Default::default(),
            label_ok: Default::default(),
            const_floats: Default::default(),
            initialized: Default::default(),
            goto_labels: Default::default(),
            gotos: Default::default(),
            deduced_ret: Default::default(),
            return_untyped: Default::default(),
            spellings: Default::default(),
            rvalue_refs: Default::default(),
            temporaries: Default::default(),
            initializers_end: Default::default(),
            continue_scopes: Default::default(),
            break_scopes: Default::default(),
        }
    }
}

impl Checker {
    /// E0017 when `name`, not declared for device code, is a host function
    /// or variable that the split phase skipped: what it is and where
    /// (`called`: a function is called, not used as a value).
    fn host_declaration_used(&self, name: &str, span: Span, called: bool) -> Option<Diagnostic> {
        let host = self.host.get(name)?;
        let what = if called {
            format!("calling host function `{name}` from device code is not allowed")
        } else {
            format!(
                "host function `{name}` cannot be used in device code (it has no device address)"
            )
        };
        let d = match host.kind {
            ast::HostKind::Function => Diagnostic::error(span, Code::E0017, what)
                .with_label(host.span, "declared here without `__device__`")
                .with_note("mark it `__host__ __device__` to compile it for the GPU too"),

            ast::HostKind::Variable => Diagnostic::error(
                span,
                Code::E0017,
                format!("host variable `{name}` cannot be used in device code"),
            )
            .with_label(
                host.span,
                "declared here without `__device__` or `__constant__`",
            )
            .with_note(
                "declare it `__device__` or `__constant__`, or pass its value as a kernel argument",
            ),
        };
        Some(d)
    }
}

/// Checks a translation unit.
pub(crate) fn check_program(
    tu: &ast::TranslationUnit,
    opts: &crate::Options,
) -> (Program, Vec<Diagnostic>) {
    let mut c = Checker {
        sigs: Vec::new(),
        by_name: FxHashMap::default(),
        diags: Vec::new(),
        func: FnState::default(),
        file_scope: Vec::new(),
        file_index: FxHashMap::default(),
        globals: Vec::new(),
        global_index: FxHashMap::default(),
        constexpr_bodies: FxHashMap::default(),
        opts: opts.clone(),
        host: FxHashMap::default(),
        item: 0,
        tmpl: templates::Instances::default(),
        overloads: overload::Overloads::default(),
        bit_field_reads: Default::default(),
        xvalues: Default::default(),
        lambdas: Default::default(),
        undeduced: Default::default(),
        typing_host: false,
        enclosing_fns: Vec::new(),
    };
    for h in &tu.host {
        c.host.entry(h.name.clone()).or_insert_with(|| h.clone());
    }
    // Pass 1: signatures, so bodies can check calls and so prototypes merge.
    // Each definition is numbered, and keyed as its overload, by its item:
    // the friends that two instances of a class template define share
    // their name and span.
    let mut defs: FxHashMap<usize, String> = FxHashMap::default();
    let mut deduced = FxHashMap::default();
    c.tmpl.templates = tu.templates.clone();
    for (index, item) in tu.items.iter().enumerate() {
        c.item = index;
        if let ast::Item::Function(f) = item {
            if c.declare_dormant(f, 0) {
            } else if f.deduced_ret.is_some() {
                // Declared once its body gives its return type (pass 2,
                // before any use: C++ requires the definition first); a
                // prototype (a class's member's) waits for it.
                if f.body.is_some() {
                    deduced.insert(index, defs.len());
                    defs.insert(index, f.name.clone());
                }
            } else if let (Some(sig), true) = (c.declare_function(f, defs.len()), f.body.is_some())
            {
                defs.insert(index, c.key_of(&f.name, sig));
            }
        }
    }
    c.tmpl.next_def = defs.len();
    // Class instances that host code's template uses made.
    c.class_instance_items(1);
    c.specializations(false);
    // Pass 2: file-scope declarations and bodies, in source order (a body
    // sees the variables and enumerators declared above it).
    let mut functions = Vec::new();
    let mut ahead = c.constexpr_definitions(&tu.items, &defs, &deduced);
    for (index, item) in tu.items.iter().enumerate() {
        if crate::diag::over_error_limit(&c.diags, opts.error_limit) {
            break;
        }
        c.item = index;
        match item {
            ast::Item::Function(f) if f.body.is_some() && deduced.contains_key(&index) => {
                let def = deduced[&index];
                let mut f = f.clone();
                let checked = c.deduce_return(&mut f, None);
                if c.declare_function(&f, def).is_some() {
                    functions.push(c.keep_if_constexpr(&f, checked));
                }
            }
            ast::Item::Function(f) if f.body.is_some() && ahead.checked(index) => {}
            ast::Item::Function(f) if f.body.is_some() && defs.contains_key(&index) => {
                let key = &defs[&index];
                if *key == f.name {
                    let checked = c.function(f, 0);
                    functions.push(c.keep_if_constexpr(f, checked));
                } else {
                    // A later overload is checked under its key.
                    let mut f = f.clone();
                    f.name = key.clone();
                    let checked = c.function(&f, 0);
                    functions.push(c.keep_if_constexpr(&f, checked));
                }
            }
            ast::Item::Function(_) => {}
            ast::Item::Var(v) => {
                c.define_called_constexprs(v, &tu.items, &mut ahead, &mut functions);
                c.file_var(v);
                c.specializations(false);
            }
            ast::Item::Enum(e) => {
                c.func.scopes.clear();
                c.enum_decl(e);
                c.specializations(false);
            }
            ast::Item::StaticAssert(sa) => {
                c.func.scopes.clear();
                c.static_assert(sa);
            }
        }
    }
    c.item = tu.items.len();
    c.func.scopes.clear();
    c.specializations(true);
    c.requested_instances();
    c.instance_bodies(&mut functions);
    for (name, &i) in &c.by_name {
        let s = &c.sigs[i];
        if let (None, Some(call)) = (s.def, s.first_call) {
            c.diags.push(
                Diagnostic::error(
                    call,
                    Code::E0007,
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
            if f.is_extern_c {
                f.link_name = crate::mangle::unqualified(&f.name).to_string();
            }
            f.noinline |= s.noinline;
            f.forceinline |= s.forceinline;
        }
    }
    let globals = std::mem::take(&mut c.globals);
    let ftz = c.opts.ftz;
    let relocatable = c.opts.relocatable;
    (
        Program {
            functions,
            globals,
            ftz,
            relocatable,
        },
        c.diags,
    )
}

impl Checker {
    /// For the key of a member of a class template's instance
    /// (`Packed128<float>::zeros`): the class, and the member's name.
    pub(super) fn instance_class_of<'k>(
        &self,
        key: &'k str,
    ) -> Option<(Arc<StructDef>, Arc<ClassInstance>, &'k str)> {
        let (class, name) = crate::mangle::split_member(key)?;
        if !class.contains('>') {
            return None;
        }
        let shared = self.tmpl.templates.env.instances.lock().ok()?;
        // An instance is a struct of its own; a class nested in one, a
        // member type of it.
        let def = match (shared.structs.get(class), shared.typedefs.get(class)) {
            (Some(def), _) => def.clone(),
            (None, Some((CType::Struct(def), _, _))) => def.clone(),
            _ => return None,
        };
        let inst = def
            .instance_of
            .clone()
            .or_else(|| def.enclosing_instance.clone())?;
        Some((def, inst, name))
    }

    /// Checks the body of `f`, whose return type is deduced, at once
    /// (as an instance at instantiation depth `depth`, when given): its
    /// callers need that type. `f.ret` becomes it.
    fn deduce_return(
        &mut self,
        f: &mut ast::FunctionDecl,
        depth: Option<usize>,
    ) -> crate::typed::Function {
        let saved = std::mem::take(&mut self.func);
        let from_returns = matches!(
            f.deduced_ret,
            Some(ast::DeducedRet::Auto | ast::DeducedRet::DecltypeAuto)
        );
        self.func.deduced_ret = from_returns.then_some(None);
        let mut checked = match depth {
            Some(depth) => self.instance_body(f, depth),
            None => self.function(f, 0),
        };
        if from_returns {
            checked.ret = self.take_deduced_return(&f.name).unwrap_or(CType::Void);
        }
        self.func = saved;
        f.ret = checked.ret.clone();
        checked
    }

    /// `checked`, the checked body of `f`, kept for constant evaluation
    /// too when `f` is `constexpr`.
    fn keep_if_constexpr(
        &mut self,
        f: &ast::FunctionDecl,
        checked: crate::typed::Function,
    ) -> crate::typed::Function {
        if f.specs.constexpr {
            let body = std::sync::Arc::new(checked.clone());
            self.constexpr_bodies.insert(checked.name.clone(), body);
        }
        checked
    }

    /// E0017 when device code calls the `constexpr` host function `name`
    /// (declared at `decl`; the C++ library's have no declaration here)
    /// without `--expt-relaxed-constexpr`, as nvcc says. A file-scope
    /// constant expression (a `static_assert`, a constant's initializer)
    /// and another `constexpr` host function may call it: they are never
    /// device code of their own.
    fn host_constexpr_call(&mut self, name: &str, decl: Option<Span>, span: Span) -> Option<()> {
        let caller_is_host = self
            .by_name
            .get(&self.func.fn_name)
            .is_some_and(|&i| self.sigs[i].host_constexpr);
        if self.func.scopes.is_empty() || caller_is_host || self.opts.relaxed_constexpr() {
            return Some(());
        }
        let d = Diagnostic::error(
            span,
            Code::E0017,
            format!("calling constexpr host function `{name}` from device code is not allowed"),
        );
        self.diags.push(match decl {
            Some(decl) => d
                .with_label(decl, "declared here `constexpr` without `__device__`")
                .with_note(
                    "nvcc allows it under `--expt-relaxed-constexpr`, as kernelc does; or mark it `__host__ __device__`",
                ),
            None => d.with_note("nvcc allows it under `--expt-relaxed-constexpr`, as kernelc does"),
        });
        None
    }

    fn error(&mut self, span: Span, code: Code, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, code, msg));
    }

    /// E0004 where `what` (`variable \`x\``, `\`sizeof\``) needs an
    /// object of `ty` and `ty` is a class declared but not defined
    /// (`struct Tree;`): C++ allows only pointers and references to it
    /// (nvcc: "incomplete type is not allowed"). Whether it was refused.
    pub(super) fn refuse_incomplete(&mut self, ty: &CType, what: &str, span: Span) -> bool {
        if !ty.is_incomplete() {
            return false;
        }
        let class = ty.scalar_elem();
        self.diags.push(
            Diagnostic::error(
                span,
                Code::E0004,
                format!("{what} needs the incomplete type `{class}`, which is declared but not defined here"),
            )
            .with_note(format!("incomplete type is not allowed: define `{class}` before this use, or use a pointer or reference to it")),
        );
        true
    }

    /// Records a declaration; returns its signature index, or `None` if the
    /// declaration is unusable.
    fn declare_function(&mut self, f: &ast::FunctionDecl, next_def: usize) -> Option<usize> {
        let s = &f.specs;
        if s.global && s.device {
            self.error(
                f.name_span,
                Code::E0012,
                "`__global__` and `__device__` cannot be combined",
            );
        } else if s.global && s.host {
            self.error(
                f.name_span,
                Code::E0012,
                "`__global__` and `__host__` cannot be combined",
            );
        }
        if s.global && f.ret != CType::Void {
            self.error(
                f.ret_span,
                Code::E0012,
                format!("kernel `{}` must return `void`, not `{}`", f.name, f.ret),
            );
        }
        let mut params = Vec::new();
        let mut refs = Vec::new();
        let mut rvalue_refs = Vec::new();
        for p in &f.params {
            if p.ty.ty == CType::Void {
                self.error(p.span, Code::E0012, "a parameter cannot have type `void`");
            }
            if let (Some(r), true) = (p.by_ref, s.global) {
                self.error(r, Code::E0002, "reference parameters of kernels are not supported by kernelc (the host cannot pass a device reference); pass a pointer");
            }
            // An array parameter (`float v[9]`) is a pointer, as in the
            // definition's own typing.
            let ty = strip_restrict(&self.param_type(p)).0;
            params.push(match p.by_ref {
                Some(_) => cxx::reference_to(&p.ty),
                None => ty,
            });
            refs.push(p.by_ref.is_some());
            rvalue_refs.push(p.rvalue);
        }
        if let Some(m) = &f.method {
            // `this` binds to the object as a reference parameter binds
            // its argument, so overload resolution ranks the object's
            // type against the class (`get() &&` is an rvalue reference's).
            refs[0] = true;
            rvalue_refs[0] = m.ref_qualifier == ast::RefQualifier::Rvalue;
        }
        let same = self.same_function(&f.name, &params, &refs, &rvalue_refs);
        let key = match same {
            None if self.by_name.contains_key(&f.name) => self.overload_key(f, &params)?,
            _ => f.name.clone(),
        };
        if let Some(i) = same {
            let prev = &self.sigs[i];
            let prev_decl = prev.first_decl;
            if prev.ret != f.ret || prev.is_kernel != s.global {
                self.diags.push(
                    Diagnostic::error(
                        f.name_span,
                        Code::E0006,
                        format!("conflicting types for `{}`", f.name),
                    )
                    .with_label(prev_decl, "previous declaration is here")
                    .with_note("functions that differ only in their return type cannot overload each other"),
                );
                return None;
            }
            let prev_key = (prev_decl, f.name.clone());
            if let Some(k) = self.overloads.key_at.get(&prev_key).cloned() {
                self.overloads
                    .key_at
                    .insert((f.name_span, f.name.clone()), k);
            }
            if f.body.is_some() {
                if let Some((_, def_span)) = prev.def {
                    self.diags.push(
                        Diagnostic::error(
                            f.name_span,
                            Code::E0006,
                            format!("redefinition of `{}`", f.name),
                        )
                        .with_label(def_span, "previous definition is here"),
                    );
                    return None;
                }
            }
            let sig = &mut self.sigs[i];
            for (d, p) in sig.defaults.iter_mut().zip(&f.params) {
                if d.is_none() {
                    d.clone_from(&p.default);
                }
            }
            sig.extern_c |= s.extern_c;
            sig.internal_name |= crate::mangle::has_internal_name(f);
            sig.noinline |= s.noinline;
            sig.forceinline |= s.forceinline;
            if f.body.is_some() {
                sig.def = Some((FuncId(next_def as u32), f.name_span));
            }
            return Some(i);
        }
        self.sigs.push(FnSig {
            ret: f.ret.clone(),
            ret_spelling: f.ret_spelling.clone(),
            params,
            refs,
            rvalue_refs,
            is_kernel: s.global,
            first_decl: f.name_span,
            host_constexpr: s.constexpr && !s.device && !s.global,
            // A class template instance's members exist wherever the
            // instance does, however late in the file the parser made it.
            first_item: if f.method.as_ref().is_some_and(|m| m.class.contains('<')) {
                0
            } else {
                self.item
            },
            def: f
                .body
                .as_ref()
                .map(|_| (FuncId(next_def as u32), f.name_span)),
            extern_c: s.extern_c,
            internal_name: crate::mangle::has_internal_name(f),
            noinline: s.noinline,
            forceinline: s.forceinline,
            first_call: None,
            defaults: f.params.iter().map(|p| p.default.clone()).collect(),
            is_method: f.method.is_some(),
            ref_qualifier: f
                .method
                .as_ref()
                .map(|m| m.ref_qualifier)
                .unwrap_or_default(),
            returns: f.returns,
            aggregate_ctor: f.method.as_ref().is_some_and(|m| m.aggregate),
        });
        self.by_name.insert(key.clone(), self.sigs.len() - 1);
        self.overloads
            .by_plain
            .entry(f.name.clone())
            .or_default()
            .push(key);
        Some(self.sigs.len() - 1)
    }

    /// The key of signature `sig`, an overload of `name`: `name` itself
    /// for its first, its readable signature for a later one.
    fn key_of(&self, name: &str, sig: usize) -> String {
        self.overloads
            .by_plain
            .get(name)
            .and_then(|keys| {
                keys.iter()
                    .find(|k| self.by_name.get(k.as_str()) == Some(&sig))
            })
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    /// The signature index of the declared function named `name` with
    /// these parameters, if there is one (a redeclaration, not an
    /// overload).
    fn same_function(
        &self,
        name: &str,
        params: &[CType],
        refs: &[bool],
        rvalue_refs: &[bool],
    ) -> Option<usize> {
        let keys = self.overloads.by_plain.get(name)?;
        keys.iter().map(|k| self.by_name[k.as_str()]).find(|&i| {
            let sig = &self.sigs[i];
            sig.params == params && sig.refs == refs && sig.rvalue_refs == rvalue_refs
        })
    }

    /// The key of a new overload of `f`'s name, its readable signature
    /// (`toFloat(__half)`); `None` after E0006 when C linkage forbids it.
    fn overload_key(&mut self, f: &ast::FunctionDecl, params: &[CType]) -> Option<String> {
        let first = self.by_name[f.name.as_str()];
        if f.specs.extern_c || self.sigs[first].extern_c {
            let prev = self.sigs[first].first_decl;
            self.diags.push(
                Diagnostic::error(
                    f.name_span,
                    Code::E0006,
                    format!("conflicting types for `{}`", f.name),
                )
                .with_label(prev, "previous declaration is here")
                .with_note("a function with C linkage (`extern \"C\"`) cannot be overloaded"),
            );
            return None;
        }
        // A reference shows as one, so `f(float &)`, `f(float &&)` and
        // `f(float *)` are three overloads.
        let shown: Vec<String> = params
            .iter()
            .zip(&f.params)
            .map(|(ty, p)| overload::shown_param(ty, p.by_ref.is_some(), p.rvalue))
            .collect();
        let key = format!("{}({})", f.name, shown.join(", "));
        self.overloads
            .key_at
            .insert((f.name_span, f.name.clone()), key.clone());
        self.overloads.plain_of.insert(key.clone(), f.name.clone());
        Some(key)
    }

    /// Whether a `__grid_constant__` parameter is allowed: only on a
    /// kernel, and only `const`, as CUDA requires (the kernel reads the
    /// parameter where the launch put it, so it must not change it).
    fn grid_constant(&mut self, f: &ast::FunctionDecl, p: &ast::ParamDecl, sp: Span) -> bool {
        if !f.specs.global {
            self.error(
                sp,
                Code::E0012,
                "`__grid_constant__` applies only to parameters of a `__global__` function",
            );
            return false;
        }
        if !p.ty.is_const || !p.dims.is_empty() {
            self.error(
                p.span,
                Code::E0099,
                "a `__grid_constant__` parameter must be `const`-qualified, as CUDA requires (e.g. `const __grid_constant__ CUtensorMap tmap`)",
            );
            return false;
        }
        true
    }

    /// Checks one function definition.
    fn function(&mut self, f: &ast::FunctionDecl, _sig: usize) -> Function {
        self.func.locals = Vec::new();
        self.func.const_floats.clear();
        self.func.initialized.clear();
        self.func.spellings.clear();
        self.func.rvalue_refs.clear();
        self.func.goto_labels.clear();
        self.func.gotos.clear();
        self.func.used = Vec::new();
        self.func.scopes = vec![Scope::default()];
        self.func.ret = f.ret.clone();
        self.func.returns = f.returns;
        self.func.fn_name = f.name.clone();
        self.func.loop_depth = 0;
        self.func.break_depth = 0;
        self.func.switches.clear();
        self.func.temporaries.clear();
        self.func.continue_scopes.clear();
        self.func.break_scopes.clear();
        self.func.initializers_end = match (&f.method, &f.body) {
            (Some(m), Some(b)) if m.is_ctor => Some(b.span.start),
            _ => None,
        };
        if !f.returns.reference() && self.has_destructor(&f.ret) {
            self.error(
                f.ret_span,
                Code::E0002,
                format!("returning a `{}` by value, whose destruction calls a destructor, is not supported by kernelc yet", f.ret),
            );
        }
        if !f.returns.reference() && f.body.is_some() {
            self.refuse_incomplete(&f.ret, "the return type", f.ret_span);
        }
        let mut params = Vec::new();
        let mut written = Vec::new();
        let mut shown = Vec::new();
        for p in &f.params {
            let ty = self.param_type(p);
            if p.by_ref.is_none() {
                let name = p.name.as_deref().unwrap_or_default();
                self.refuse_incomplete(&ty, &format!("parameter `{name}`"), p.span);
            }
            written.push(match p.by_ref {
                Some(_) => (p.ty.ty.clone(), Some((p.ty.is_const, p.ty.is_volatile))),
                None => (ty.clone(), None),
            });
            let (ty, restrict) = strip_restrict(&ty);
            let ty = match p.by_ref {
                Some(_) => cxx::reference_to(&p.ty),
                None => ty,
            };
            let name = p.name.clone().unwrap_or_default();
            shown.push(match (&p.by_ref, ty.pointee()) {
                (Some(_), Some(t)) => format!("{t} &"),
                _ => ty.to_string(),
            });
            let local = self.declare_local(&name, ty.clone(), p.ty.is_const, true, p.span);
            self.record_spelling(local, &p.ty.spelling);
            if p.rvalue {
                self.func.rvalue_refs.insert(local);
            }
            if p.by_ref.is_some() {
                self.rebind_as_ref(&name, local);
            }
            let grid_constant = p
                .grid_constant
                .is_some_and(|sp| self.grid_constant(f, p, sp));
            params.push(Param {
                name,
                ty,
                restrict,
                grid_constant,
                span: p.span,
                local,
            });
        }
        if let Some(ast::DeducedRet::Decltype(e)) = &f.deduced_ret {
            // `-> decltype(x + 1)`: the expression's type, its parameters
            // in scope.
            if let Some(typed) = self.expr_nodecay(e) {
                self.func.ret = typed.ty.clone();
            }
        }
        self.func.pretty_fn = format!("{} {}({})", self.func.ret, f.name, shown.join(", "));
        self.func.fn_link = self.link_name_of(f, &written);
        self.func.fn_inline = self.is_inline(f);
        self.func.fn_static = internal_linkage(f);
        // The body shares the parameters' scope, as in C.
        let empty = ast::Block {
            stmts: Vec::new(),
            span: f.span,
        };
        let body_ast = f.body.as_ref().unwrap_or(&empty);
        let mut stmts: Vec<Stmt> = body_ast.stmts.iter().map(|s| self.stmt(s)).collect();
        if !stmts
            .last()
            .is_some_and(|s| matches!(s.kind, StmtKind::Return(_)))
        {
            let dtors = self.scope_end(body_ast.span);
            stmts.extend(dtors);
        }
        self.finish_labels();
        let launch_bounds = self.launch_bounds(f);
        let cluster_dims = self.cluster_dims(f);
        self.unused_warnings();
        let s = &f.specs;
        let link_name = self.func.fn_link.clone();
        Function {
            name: f.name.clone(),
            link_name,
            span: f.name_span,
            is_kernel: s.global,
            is_extern_c: s.extern_c,
            is_static: self.func.fn_static,
            is_inline: self.func.fn_inline,
            noinline: s.noinline,
            forceinline: s.forceinline,
            params,
            ret: self.func.ret.clone(),
            body: Block {
                stmts,
                span: body_ast.span,
            },
            locals: std::mem::take(&mut self.func.locals),
            launch_bounds,
            cluster_dims,
        }
    }

    /// Whether nvcc names the function `f` defines in its file's
    /// `_INTERNAL_` namespace, by this declaration or an earlier one.
    fn has_internal_name(&self, f: &ast::FunctionDecl) -> bool {
        crate::mangle::has_internal_name(f)
            || self
                .by_name
                .get(&f.name)
                .is_some_and(|&i| self.sigs[i].internal_name)
    }

    /// Whether `f` is inline in C++'s sense: each module that uses it
    /// defines it, and the linker keeps one (a weak symbol under
    /// `-rdc=true`). So is a function declared `inline` or
    /// `__forceinline__` (CUDA's headers spell it `__inline__` too), a
    /// `constexpr` one, one defined in its class (the parser marks it), and
    /// an instance of a template or a member of a class template's instance.
    fn is_inline(&self, f: &ast::FunctionDecl) -> bool {
        let s = &f.specs;
        let plain = self.overloads.plain_of.get(&f.name).unwrap_or(&f.name);
        s.inline
            || s.forceinline
            || s.constexpr
            || self.tmpl.link_names.contains_key(&f.name)
            || self.instance_class_of(plain).is_some()
    }

    /// The Itanium name of function `f`, whose parameters have the types
    /// `written` (a reference parameter's referenced type, with its
    /// qualifiers).
    fn link_name_of(
        &self,
        f: &ast::FunctionDecl,
        written: &[(CType, Option<(bool, bool)>)],
    ) -> String {
        let mangled: Vec<crate::mangle::ParamType<'_>> = written
            .iter()
            .zip(&f.params)
            .map(|((ty, reference), p)| crate::mangle::ParamType {
                ty,
                spelling: &p.ty.spelling,
                reference: *reference,
                rvalue: p.rvalue,
            })
            .collect();
        if let Some(link) = self.tmpl.link_names.get(&f.name) {
            return link.clone();
        }
        if f.specs.extern_c {
            return crate::mangle::unqualified(&f.name).to_string();
        }
        let plain = self.overloads.plain_of.get(&f.name).unwrap_or(&f.name);
        // `this` is not one of the parameters a name lists.
        let (this, listed) = match &f.method {
            Some(m) => (Some(crate::mangle::ThisQuals::of(m)), &mangled[1..]),
            None => (None, &mangled[..]),
        };
        // A conversion function is named by the type it returns.
        let converts_to = crate::mangle::unqualified(plain)
            .starts_with("operator ")
            .then_some(crate::mangle::ParamType {
                ty: &f.ret,
                spelling: &ast::Spelling::Plain,
                reference: None,
                rvalue: false,
            });
        match self.instance_class_of(plain) {
            Some((class, inst, name)) => {
                crate::mangle::instance_member(&class, &inst, name, this, listed, converts_to)
            }
            None => {
                let key = crate::mangle::linkage_key(plain, self.has_internal_name(f));
                crate::mangle::member(&key, this, listed, converts_to)
            }
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
        let id = LocalId(self.func.locals.len() as u32);
        let ty_is_struct = ty.is_struct();
        if !name.is_empty() {
            self.bind(name, Binding::Local(id), span);
            if ty_is_struct || matches!(ty, CType::Array { .. }) {
                self.note_destructible(id, &ty, is_param, span);
            }
        }
        self.func.used.push(is_param);
        self.func.locals.push(LocalVar {
            name: name.to_string(),
            ty,
            is_const,
            is_param,
            span,
            // Structs always live in memory (their value is their address
            // in lowering; see `lower/aggregate.rs`).
            in_memory: ty_is_struct,
            const_value: None,
            align: 0,
        });
        id
    }

    /// Keeps how `local`'s base type was written, when its `CType` does
    /// not say it ([`FnState::spellings`]).
    fn record_spelling(&mut self, local: LocalId, spelling: &ast::Spelling) {
        if *spelling != ast::Spelling::Plain {
            self.func.spellings.insert(local, spelling.clone());
        }
    }

    /// How the base type of the variable `name` names was written
    /// (`Spelling::Plain` for anything but such a local).
    pub(super) fn spelling_of(&self, name: &str) -> ast::Spelling {
        match self.lookup(name) {
            Some(Binding::Local(id) | Binding::Ref(id)) => {
                self.func.spellings.get(&id).cloned().unwrap_or_default()
            }
            _ => ast::Spelling::Plain,
        }
    }

    /// Whether `e` names a reference that is no rvalue reference (what
    /// `std::forward` keeps an lvalue).
    pub(super) fn is_lvalue_reference(&self, e: &ast::Expr) -> bool {
        let ast::ExprKind::Ident(name) = &e.kind else {
            return false;
        };
        matches!(self.lookup(name), Some(Binding::Ref(id)) if !self.func.rvalue_refs.contains(&id))
    }

    /// Binds `name` in the innermost scope (the file scope outside
    /// functions), reporting a redefinition in the same scope.
    fn bind(&mut self, name: &str, b: Binding, span: Span) {
        let prev = match self.func.scopes.last() {
            Some(scope) => scope.get(name).cloned(),
            None => self
                .file_index
                .get(name)
                .map(|&i| self.file_scope[i].1.clone()),
        };
        if let Some(prev) = prev {
            let mut d = Diagnostic::error(span, Code::E0006, format!("redefinition of `{name}`"));
            if let Binding::Local(l) = prev {
                d = d.with_label(
                    self.func.locals[l.0 as usize].span,
                    "previous declaration is here",
                );
            }
            self.diags.push(d);
        }
        match self.func.scopes.last_mut() {
            Some(scope) => scope.push(name, b),
            None => {
                self.file_index
                    .insert(name.to_string(), self.file_scope.len());
                self.file_scope.push((name.to_string(), b, span));
            }
        }
    }

    /// Binds the local `name`, whose declaration failed with an error,
    /// as [`Binding::Failed`] unless it got as far as binding it: its uses
    /// are not errors again.
    fn bind_failed(&mut self, name: &str) {
        if let Some(scope) = self.func.scopes.last_mut() {
            if !name.is_empty() && scope.get(name).is_none() {
                scope.push(name, Binding::Failed);
            }
        }
    }

    /// Makes the innermost binding of `name` (just declared as `id`) a
    /// reference.
    fn rebind_as_ref(&mut self, name: &str, id: LocalId) {
        if let Some(scope) = self.func.scopes.last_mut() {
            if let Some(b) = scope.get_mut(name) {
                *b = Binding::Ref(id);
            }
        }
    }

    /// The local `name` names in the innermost scope, if any.
    fn lookup_local(&self, name: &str) -> Option<LocalId> {
        match self.lookup(name)? {
            Binding::Local(id) => Some(id),
            _ => None,
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.func
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.file_index.get(name).map(|&i| &self.file_scope[i].1))
            .cloned()
    }

    fn block(&mut self, b: &ast::Block) -> Block {
        self.func.scopes.push(Scope::default());
        let saved = std::mem::replace(&mut self.func.label_ok, false);
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for s in &b.stmts {
            if crate::diag::over_error_limit(&self.diags, self.opts.error_limit) {
                break;
            }
            stmts.push(self.stmt(s));
        }
        self.func.label_ok = saved;
        let ends_in_jump = stmts.last().is_some_and(|s| {
            matches!(
                s.kind,
                StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue | StmtKind::Goto(_)
            )
        });
        if !ends_in_jump {
            let dtors = self.scope_end(b.span);
            stmts.extend(dtors);
        }
        self.func.scopes.pop();
        Block {
            stmts,
            span: b.span,
        }
    }

    /// A condition expression converted to `bool`.
    fn cond(&mut self, e: &ast::Expr) -> Option<crate::typed::Expr> {
        let e = self.expr(e);
        self.refuse_temporaries(e.as_ref().map_or(Span::default(), |e| e.span));
        self.make_bool(e?)
    }

    fn loop_body(&mut self, s: &ast::Stmt) -> Box<Stmt> {
        self.func.loop_depth += 1;
        self.func.break_depth += 1;
        let depth = self.func.scopes.len();
        self.func.continue_scopes.push(depth);
        self.func.break_scopes.push(depth);
        let saved = std::mem::replace(&mut self.func.label_ok, false);
        let body = self.stmt(s);
        self.func.label_ok = saved;
        self.func.continue_scopes.pop();
        self.func.break_scopes.pop();
        self.func.loop_depth -= 1;
        self.func.break_depth -= 1;
        Box::new(body)
    }

    /// `#pragma unroll [count]` before a statement, which must be a loop.
    fn unroll(&mut self, count: Option<&ast::Expr>, s: &ast::Stmt, span: Span) -> Stmt {
        let hint = match count {
            None => Some(Unroll::Full),
            Some(c) => {
                let v = self.expr(c).and_then(|e| self.const_int(&e));
                match v.and_then(|v| u32::try_from(v).ok()).filter(|v| *v >= 1) {
                    Some(n) => Some(Unroll::Count(n)),
                    None => {
                        self.error(
                            c.span,
                            Code::E0009,
                            "the `#pragma unroll` count must be a positive integer constant",
                        );
                        None
                    }
                }
            }
        };
        let mut st = self.stmt(s);
        match &mut st.kind {
            StmtKind::While { unroll, .. }
            | StmtKind::DoWhile { unroll, .. }
            | StmtKind::For { unroll, .. } => *unroll = hint,
            StmtKind::Empty => {}
            _ => self.diags.push(Diagnostic::warning(
                span,
                Code::W0099,
                "`#pragma unroll` must be followed by a loop; ignored",
            )),
        }
        st
    }

    /// Checks declarations, returning one `Decl` statement per declarator.
    fn decls(&mut self, vars: &[ast::VarDecl]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for v in vars {
            if let Some(of) = &v.decltype {
                match self.decltype_written(v, of) {
                    Some(written) => out.extend(self.decls(std::slice::from_ref(&written))),
                    None => self.bind_failed(&v.name),
                }
                continue;
            }
            if v.storage.shared {
                self.local_shared(v);
                continue;
            }
            if v.by_ref.is_some() {
                let decl = self.reference_decl(v);
                if decl.is_none() {
                    self.bind_failed(&v.name);
                }
                out.extend(decl);
                continue;
            }
            let mut deduced = None;
            let ty = if v.auto.is_some() {
                let Some((ty, e)) = self.auto_init(v) else {
                    self.bind_failed(&v.name);
                    continue;
                };
                deduced = Some(e);
                ty
            } else {
                let Some(ty) = self.var_type(v) else {
                    self.bind_failed(&v.name);
                    continue;
                };
                strip_restrict(&ty).0
            };
            if ty == CType::Void {
                self.error(
                    v.name_span,
                    Code::E0004,
                    format!("variable `{}` has type `void`", v.name),
                );
            }
            self.refuse_incomplete(&ty, &format!("variable `{}`", v.name), v.name_span);
            // As in C, the name is in scope in its own initializer.
            let local = self.declare_local(&v.name, ty.clone(), v.ty.is_const, false, v.name_span);
            self.func.locals[local.0 as usize].align = v.storage.align;
            if v.auto.is_none() {
                self.record_spelling(local, &v.ty.spelling);
            }
            let (mut init, mut list) = (None, None);
            let braces = matches!(v.init, Some(ast::Init::List(..)));
            match (&v.init, deduced) {
                (_, Some(e)) => {
                    init = self.assign_convert(e, &ty, "initialization", v.name_span);
                }
                (Some(ast::Init::List(items, span)), None)
                    if ty
                        .struct_def()
                        .is_some_and(|d| !self.constructors(d).is_empty()) =>
                {
                    // `S s{a, b}` and `S s = {a, b}` of a class: its
                    // constructor (C++ [dcl.init.list]).
                    init = self.list_construction(&ty, items, *span);
                }
                (Some(ast::Init::List(items, span)), None) if !ty.is_array() && !ty.is_struct() => {
                    init = self.scalar_braces(items, *span, &ty, v.name_span);
                    if let Some(e) = &init {
                        self.brace_narrowing(&e.clone());
                    }
                }
                (Some(ast::Init::Expr(i)), None) if !ty.is_array() => {
                    init = self
                        .expr(i)
                        .and_then(|e| self.assign_convert(e, &ty, "initialization", v.name_span));
                }
                (Some(i), None) => {
                    if let Some((leaves, len)) = self.flatten_init(&ty, i) {
                        if braces {
                            for (_, leaf) in &leaves {
                                self.brace_narrowing(leaf);
                            }
                        }
                        list = Some(leaves);
                        if let CType::Array { elem, len: None } = &ty {
                            let full = CType::Array {
                                elem: elem.clone(),
                                len: Some(len),
                            };
                            self.func.locals[local.0 as usize].ty = full;
                        }
                    }
                }
                (None, None) => {
                    if let Some(made) = self.default_construction(&ty, v.name_span) {
                        init = made;
                    }
                }
            }
            if let Some(sp) = v.storage.constexpr {
                self.constexpr_check(v, sp, init.as_ref(), list.as_deref());
            }
            let final_ty = self.func.locals[local.0 as usize].ty.clone();
            if final_ty.is_array() {
                self.func.locals[local.0 as usize].in_memory = true;
                if final_ty.size().is_none() {
                    self.error(
                        v.name_span,
                        Code::E0009,
                        format!("array `{}` needs a size or an initializer", v.name),
                    );
                }
            }
            if v.ty.is_const && final_ty.is_integer() {
                let value = init.as_ref().and_then(|e| self.const_int(e));
                self.func.locals[local.0 as usize].const_value = value;
            }
            if init.is_some() || list.is_some() {
                self.func.initialized.insert(local);
            }
            out.push(Stmt {
                kind: StmtKind::Decl { local, init, list },
                span: v.span,
            });
        }
        out
    }

    /// Checks one statement, on a stack that grows as deep as statements
    /// nest (`stack.rs`).
    fn stmt(&mut self, s: &ast::Stmt) -> Stmt {
        stdx::stack::with_stack(|| self.stmt_level(s))
    }

    fn stmt_level(&mut self, s: &ast::Stmt) -> Stmt {
        use ast::StmtKind as A;
        let kind = match &s.kind {
            A::Expr(e) => return self.expr_stmt(e, s.span),
            A::Decl(vars) => {
                let d = self.decls(vars);
                return self.declaration(d, s.span);
            }
            A::Bindings(b) => {
                let d = self.structured_bindings(b);
                return self.declaration(d, s.span);
            }
            A::Block(b) => StmtKind::Block(self.block(b)),
            A::If { cond, then, els } => self.if_stmt(cond, then, els.as_deref()),
            A::ConstexprIf {
                cond,
                then,
                els,
                mentions,
            } => self.constexpr_if(cond, (then, els.as_deref()), mentions),
            A::While { cond, body } => {
                let cond = self.cond(cond);
                let body = self.loop_body(body);
                match cond {
                    Some(cond) => StmtKind::While {
                        cond,
                        body,
                        unroll: None,
                    },
                    None => StmtKind::Empty,
                }
            }
            A::DoWhile { body, cond } => {
                let body = self.loop_body(body);
                let cond = self.cond(cond);
                match cond {
                    Some(cond) => StmtKind::DoWhile {
                        body,
                        cond,
                        unroll: None,
                    },
                    None => StmtKind::Empty,
                }
            }
            A::Switch { cond, body } => self.switch_stmt(cond, body),
            A::Case(_) | A::Default => {
                let what = if matches!(s.kind, A::Case(_)) {
                    "`case`"
                } else {
                    "`default`"
                };
                let (code, msg) = if self.func.switches.is_empty() {
                    (
                        Code::E0011,
                        format!("{what} label not within a `switch` statement"),
                    )
                } else {
                    (Code::E0002, format!("{what} labels nested inside another statement of the `switch` are not supported by kernelc"))
                };
                self.error(s.span, code, msg);
                StmtKind::Empty
            }
            A::Enum(e) => {
                self.enum_decl(e);
                StmtKind::Empty
            }
            A::StaticAssert(sa) => {
                self.static_assert(sa);
                StmtKind::Empty
            }
            A::RangeFor { var, range, body } => self.range_for(var, range, body, s.span),
            A::Goto(label) => self.goto_stmt(label, s.span),
            A::Labeled {
                label,
                label_span,
                stmt,
            } => self.labeled_stmt(label, *label_span, stmt, s.span),
            A::Unroll { count, stmt } => return self.unroll(count.as_ref(), stmt, s.span),
            A::For {
                init,
                cond,
                step,
                body,
            } => return self.for_stmt(init.as_deref(), cond.as_ref(), step.as_ref(), body, s.span),
            A::Break | A::Continue => {
                let is_break = matches!(s.kind, A::Break);
                let depth = if is_break {
                    self.func.break_depth
                } else {
                    self.func.loop_depth
                };
                if depth == 0 {
                    let what = if is_break { "break" } else { "continue" };
                    self.error(
                        s.span,
                        Code::E0011,
                        format!("`{what}` statement not in a loop"),
                    );
                }
                self.jump_out(is_break, s.span)
            }
            A::Return(v) => {
                let kind = self.return_stmt(v.as_ref(), s.span);
                self.return_destroying(kind, s.span)
            }
            A::Empty => StmtKind::Empty,
            A::Asm(a) => self.asm_stmt(a),
        };
        Stmt { kind, span: s.span }
    }

    /// The statement of a declaration's checked declarators, followed by
    /// the destruction of its temporaries.
    fn declaration(&mut self, d: Vec<Stmt>, span: Span) -> Stmt {
        let mut d = self.end_full_expression(d);
        if d.len() == 1 {
            return d.remove(0);
        }
        // Several declarators: a block would open a new scope in
        // lowering's eyes, but the names are already resolved to ids.
        Stmt {
            kind: StmtKind::Block(Block { stmts: d, span }),
            span,
        }
    }

    /// An expression statement, followed by the destruction of its
    /// temporaries.
    fn expr_stmt(&mut self, e: &ast::Expr, span: Span) -> Stmt {
        let kind = match self.expr(e) {
            Some(e) => StmtKind::Expr(e),
            None => StmtKind::Empty,
        };
        let stmt = Stmt { kind, span };
        if self
            .func
            .initializers_end
            .is_some_and(|end| span.start <= end)
        {
            // A base or member initializer: its object is the
            // subobject, destroyed with the whole object.
            self.func.temporaries.clear();
            return stmt;
        }
        let mut d = self.end_full_expression(vec![stmt]);
        if d.len() == 1 {
            return d.remove(0);
        }
        let kind = StmtKind::Block(Block { stmts: d, span });
        Stmt { kind, span }
    }

    /// `for (init; cond; step) body`: the init's locals live in a scope
    /// around the loop, destroyed after it.
    fn for_stmt(
        &mut self,
        init: Option<&ast::Stmt>,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        body: &ast::Stmt,
        span: Span,
    ) -> Stmt {
        self.func.scopes.push(Scope::default());
        let init = match init {
            Some(ast::Stmt {
                kind: ast::StmtKind::Decl(vars),
                ..
            }) => {
                let d = self.decls(vars);
                self.end_full_expression(d)
            }
            Some(other) => vec![self.stmt(other)],
            None => Vec::new(),
        };
        let cond = cond.map(|c| self.cond(c));
        let step = step.and_then(|e| self.expr(e));
        self.refuse_temporaries(span);
        let body = self.loop_body(body);
        let dtors = self.scope_end(span);
        self.func.scopes.pop();
        if !dtors.is_empty() {
            let mut init = init;
            let for_stmt = Stmt {
                kind: StmtKind::For {
                    init: Vec::new(),
                    cond: cond.flatten(),
                    step,
                    body,
                    unroll: None,
                },
                span,
            };
            init.push(for_stmt);
            init.extend(dtors);
            return Stmt {
                kind: StmtKind::Block(Block { stmts: init, span }),
                span,
            };
        }
        let kind = match cond {
            Some(None) => StmtKind::Empty,
            Some(Some(c)) => StmtKind::For {
                init,
                cond: Some(c),
                step,
                body,
                unroll: None,
            },
            None => StmtKind::For {
                init,
                cond: None,
                step,
                body,
                unroll: None,
            },
        };
        Stmt { kind, span }
    }

    /// A braced list that copy-list-initializes an object of type `ret`
    /// (`return {a, b};`, a member's `{limit}` in `Cell{x, {limit}, 1}`):
    /// as `Ret{a, b}` for a class (its constructor, or its members in
    /// order), `{}` as `Ret()` and `{x}` as `x` for a scalar. `None` for
    /// any other value (or a type a list cannot give, which the list's
    /// own check reports).
    pub(super) fn list_of_type(&self, e: &ast::Expr, ret: &CType) -> Option<ast::Expr> {
        let ast::ExprKind::BracedList(items) = &e.kind else {
            return None;
        };
        let ty = ast::QualType::plain(ret.clone(), e.span);
        let kind = match (ret, &items[..]) {
            (CType::Void, _) => return None,
            (CType::Struct(_), _) => ast::ExprKind::Construct {
                ty,
                args: items.clone(),
            },
            (_, []) => ast::ExprKind::ZeroInit(ty),
            (_, [one]) => return Some(one.clone()),
            _ => return None,
        };
        Some(ast::Expr { kind, span: e.span })
    }

    fn if_stmt(&mut self, cond: &ast::Expr, then: &ast::Stmt, els: Option<&ast::Stmt>) -> StmtKind {
        let cond = self.cond(cond);
        let then = Box::new(self.stmt(then));
        let els = els.map(|e| Box::new(self.stmt(e)));
        match cond {
            Some(cond) => StmtKind::If { cond, then, els },
            None => StmtKind::Empty,
        }
    }

    fn return_stmt(&mut self, v: Option<&ast::Expr>, span: Span) -> StmtKind {
        if self.func.deduced_ret.is_some() {
            return self.deduced_return(v, span);
        }
        let ret = self.func.ret.clone();
        let typed_list = v.and_then(|e| self.list_of_type(e, &ret));
        let v = typed_list.as_ref().or(v);
        let name = self.func.fn_name.clone();
        match (v, ret == CType::Void) {
            (None, true) => StmtKind::Return(None),
            (None, false) => {
                self.error(
                    span,
                    Code::E0011,
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
                            Code::E0011,
                            format!("void function `{name}` should not return a value"),
                        );
                        StmtKind::Empty
                    }
                    None => StmtKind::Empty,
                }
            }
            (Some(e), false) if self.func.returns.reference() => {
                // The returned reference is the object's address.
                let rvalue = self.func.returns == ast::Returns::RRef;
                let e = self
                    .expr_nodecay(e)
                    .filter(|e| !rvalue || self.returns_xvalue(e, &ret))
                    .and_then(|e| {
                        self.bind_reference_as(e, &ret, rvalue, "the returned reference")
                    });
                match e {
                    Some(e) => StmtKind::Return(Some(e)),
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

/// Whether `f` has internal linkage: declared `static` (not a member: the
/// parser leaves a static member's `static` out of its specifiers) or in
/// an anonymous namespace. Other modules cannot name it.
fn internal_linkage(f: &ast::FunctionDecl) -> bool {
    f.specs.is_static || crate::mangle::in_anonymous_namespace(&f.name)
}
