//! Function templates: what the parser keeps of a template, and how one is
//! instantiated.
//!
//! kernelc's parser resolves types as it reads (a typedef name becomes its
//! [`CType`], an array bound is evaluated), so the body of a template,
//! whose types and constants are its parameters, cannot be parsed once and
//! for all. A template therefore keeps its *tokens*: the declaration after
//! `template <...>`. Instantiating it parses those tokens again with the
//! parameters bound: a type parameter as a typedef of its argument, a
//! value parameter replaced by its value as a literal. The result is an
//! ordinary [`ast::FunctionDecl`], which the checker declares and checks
//! like any function under the instantiation's name (`reduce<float, 256>`)
//! and its Itanium name (`crate::mangle::function_template`). This is the
//! token-replay model of early C++ compilers (and of MSVC until 2017): a
//! name in the body is looked up where the template is instantiated, so
//! errors in a template appear in the instantiation that has them, and a
//! template that is never used is never checked.
//!
//! The parameters as written matter too: nvcc's names spell a template
//! function's signature with its parameters (`_Z9scaleCopyIfEvPT_PKS0_fi`:
//! `T *`, `const T *`), and deduction matches call arguments against it.
//! [`FunctionTemplate::pattern`] is the header parsed once with each type
//! parameter bound to a placeholder struct ([`crate::types::template_param`]).
//!
//! Which instantiations exist is decided by their uses: calls in device
//! code (the checker, which deduces what the call does not give), explicit
//! instantiations (`template __global__ void k<16>(float *);`), and the uses
//! the split phase finds in host code, which is never parsed
//! (`crate::split::host_uses`). Each distinct instantiation is parsed and
//! checked once (the checker memoizes them by their arguments).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use crate::ast::{self, Spelling};
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::{CType, StructDef};

/// A template parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateParam {
    pub name: String,
    pub kind: ParamKind,
    /// The default argument's tokens (`= float`, `= 256`), if any.
    pub default: Option<Vec<Token>>,
    pub span: Span,
    /// A parameter pack (`typename... Ts`, `int... Ns`): its argument is an
    /// [`ArgValue::Pack`] of arguments of its kind (`crate::packs`).
    pub pack: bool,
    /// A value parameter whose type names the parameters before it
    /// (`typename std::enable_if<cond<T>, int>::type = 0`): the type's
    /// tokens, read with their arguments bound; `kind` holds `int` until
    /// then. A type that does not read is a substitution failure.
    pub dependent_type: Option<Vec<Token>>,
}

/// What a template parameter stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// `typename T` or `class T`.
    Type,
    /// `int N`, `bool B`, `unsigned int blockSize`: a constant of this type
    /// (with the spelling nvcc's names need).
    Value(CType, Spelling),
    /// `template <typename> class Op`: a class template taking this many
    /// type arguments (`None` for `template <typename...> class P`). Its
    /// argument is an [`ArgValue::Template`], whose name replaces the
    /// parameter's in an instance's tokens (`Op<T>` reads `MaxOp<T>`).
    Template(Option<usize>),
}

/// A function template as the parser kept it.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionTemplate {
    /// Its key: the name qualified by the namespaces it is declared in
    /// (`nbody::step`; just the name at file scope).
    pub name: String,
    /// The namespace it is declared in, outermost first: its instances
    /// are parsed there, so the body finds that namespace's names.
    pub scope: Vec<String>,
    pub params: Vec<TemplateParam>,
    /// The declaration after `template <...>`, up to its `;` or the `}` of
    /// its body.
    pub tokens: Vec<Token>,
    /// The declared name.
    pub name_span: Span,
    /// Whether it declares a kernel (`__global__`).
    pub is_kernel: bool,
    /// The header parsed with placeholders for the type parameters, or
    /// `None` when it does not parse that way.
    pub pattern: Option<ast::FunctionDecl>,
    /// A member template's class (its key): the tokens are the member's
    /// declaration in the class, and an instance is that class's member.
    pub member_of: Option<String>,
    /// The function parameter pack (`Ts... xs`): its index among the
    /// parameters written, the one parameter `pattern` keeps for it.
    pub param_pack: Option<usize>,
}

/// The names and types in scope at the end of the file, which an
/// instantiation's parse starts from.
#[derive(Debug, Default)]
pub struct ParseEnv {
    pub typedefs: Arc<FxHashMap<String, (CType, bool, Spelling)>>,
    pub structs: Arc<FxHashMap<String, Arc<StructDef>>>,
    /// The id the next struct defined in an instantiation gets.
    pub next_struct_id: AtomicU32,
    /// Namespaces, `using` declarations and directives, and aliases.
    pub(crate) names: crate::parser::Names,
    /// The integer constants the parser computed (`constexpr` variables,
    /// enumerators, static members), by key.
    pub constants: Arc<FxHashMap<String, i128>>,
    /// The class template instances, shared by every parse of the
    /// translation unit (the file's, and each function template
    /// instance's).
    pub instances: SharedInstances,
    /// The classes with member functions, by key: a member template's
    /// instance is parsed as a member of its class.
    pub(crate) classes: Arc<FxHashMap<String, crate::parser::ClassCtx>>,
    /// The lambdas of host code (`crate::host_lambdas`).
    pub(crate) host_lambdas: crate::host_lambdas::HostLambdas,
    /// The namespaces using-directives in instances' bodies nominated
    /// (`parser::Names::nominated` has the file's own).
    pub(crate) nominated_in_instances: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

impl ParseEnv {
    /// Every namespace a using-directive nominated, in the file or in an
    /// instance parsed so far.
    pub(crate) fn nominated(&self) -> Vec<String> {
        let mut all: Vec<String> = self.names.nominated().iter().cloned().collect();
        if let Ok(later) = self.nominated_in_instances.lock() {
            all.extend(
                later
                    .iter()
                    .filter(|n| !self.names.nominated().contains(*n))
                    .cloned(),
            );
        }
        all
    }
}

/// Every class template of a translation unit, kept as a function
/// template is: the tokens are the class's definition after `template
/// <...>` (none for a template only declared, `template <typename T>
/// struct Traits;`).
#[derive(Debug, Default, PartialEq, Clone)]
pub struct ClassTemplates {
    pub templates: Vec<FunctionTemplate>,
    /// The template of each key.
    pub by_name: FxHashMap<String, usize>,
    pub specializations: Vec<ClassSpecialization>,
    pub partial: Vec<PartialSpecialization>,
    /// The member functions defined outside their class template
    /// (`template <class T> __device__ void Acc<T>::add(T x) { ... }`),
    /// which every instance of the class defines as well.
    pub outside: Vec<OutsideMember>,
}

/// A member function of a class template defined outside the class: its
/// declaration after `template <params>`, with the qualifier that names
/// the class (`Acc<T>::` of `Acc<T>::add`, `ns::Acc<T>::`) replaced by
/// the template's name, and its parameters renamed to the class
/// template's, so that an instance reads it as the members of its own
/// body are read (`crate::parser::class_templates`).
#[derive(Debug, PartialEq, Clone)]
pub struct OutsideMember {
    /// The class template's key.
    pub class: String,
    pub tokens: Vec<Token>,
}

/// A partial specialization, `template <class T> struct is_same<T, T> {
/// ... };`: a template of its own (its parameters, and its tokens without
/// the arguments after the name) that defines the instances whose
/// arguments match `pattern` (the arguments as written, its parameters
/// standing as placeholders, `ArgValue::Param` for its value parameters).
#[derive(Debug, PartialEq, Clone)]
pub struct PartialSpecialization {
    pub template: FunctionTemplate,
    pub pattern: Vec<ArgValue>,
}

impl PartialSpecialization {
    /// The arguments of this specialization's parameters that make its
    /// pattern `args`, or `None` when the pattern does not match them
    /// ([temp.class.spec.match]).
    pub fn match_args(&self, args: &[ArgValue]) -> Option<Vec<ArgValue>> {
        let mut bound = vec![None; self.template.params.len()];
        if self.pattern.len() != args.len() {
            return None;
        }
        for (p, a) in self.pattern.iter().zip(args) {
            if !match_arg(p, a, &mut bound) {
                return None;
            }
        }
        // Each value as its parameter's type.
        let typed =
            bound
                .into_iter()
                .zip(&self.template.params)
                .map(|(b, p)| match (b?, &p.kind) {
                    (ArgValue::Int(v, _), ParamKind::Value(ty, _)) => {
                        Some(ArgValue::Int(wrap_to(v, ty), ty.clone()))
                    }
                    (b, _) => Some(b),
                });
        typed.collect()
    }
}

/// Matches pattern argument `p` against argument `a`, binding the
/// pattern's parameters in `bound`.
fn match_arg(p: &ArgValue, a: &ArgValue, bound: &mut [Option<ArgValue>]) -> bool {
    match (p, a) {
        (
            ArgValue::Type {
                ty: pt,
                is_const: pc,
                is_volatile: pv,
                ..
            },
            ArgValue::Type {
                ty: at,
                is_const: ac,
                is_volatile: av,
                spelling,
            },
        ) => {
            if (*pc && !*ac) || (*pv && !*av) {
                return false;
            }
            if let Some(i) = crate::types::template_param_index(pt) {
                // `const T` against `const float` binds `float`.
                let value = ArgValue::Type {
                    ty: at.clone(),
                    is_const: *ac && !*pc,
                    is_volatile: *av && !*pv,
                    spelling: spelling.clone(),
                };
                return bind(i, value, bound);
            }
            pc == ac && pv == av && match_type(pt, at, bound)
        }
        // `is_reference<T &>` against `float &` binds `float`.
        (ArgValue::LvalueRef(p), ArgValue::LvalueRef(a))
        | (ArgValue::RvalueRef(p), ArgValue::RvalueRef(a)) => match_arg(p, a, bound),
        (ArgValue::Param(i), ArgValue::Int(..)) => bind(*i, a.clone(), bound),
        (ArgValue::Int(x, _), ArgValue::Int(y, _)) => x == y,
        (ArgValue::Pack(ps), ArgValue::Pack(args)) => match_pack(ps, args, bound),
        _ => false,
    }
}

/// In a pattern, the expansion of pack parameter `i` (a value pack's
/// `Rest...` of `List<First, Rest...>`, a type pack's `Ts...` of
/// `tl<H, Ts...>`), as an element of the class's pack: a pack of the one
/// placeholder, which no element otherwise is (a pack's elements are no
/// packs).
pub fn expansion(i: usize) -> ArgValue {
    ArgValue::Pack(vec![ArgValue::Param(i)])
}

/// The pack parameter an [`expansion`] expands.
pub(crate) fn expanded_param(a: &ArgValue) -> Option<usize> {
    match a {
        ArgValue::Pack(elems) => match elems.as_slice() {
            [ArgValue::Param(i)] => Some(*i),
            _ => None,
        },
        _ => None,
    }
}

/// Matches a pack's pattern elements `ps` against its arguments: one to
/// one, but an expansion that ends the pattern takes the arguments left,
/// none included (`List<First, Rest...>` against `List<A, B, C>` binds
/// `Rest` to `B, C`).
fn match_pack(ps: &[ArgValue], args: &[ArgValue], bound: &mut [Option<ArgValue>]) -> bool {
    if let Some((last, init)) = ps.split_last() {
        if let Some(j) = expanded_param(last) {
            return args.len() >= init.len()
                && init.iter().zip(args).all(|(p, a)| match_arg(p, a, bound))
                && bind(j, ArgValue::Pack(args[init.len()..].to_vec()), bound);
        }
    }
    ps.len() == args.len() && ps.iter().zip(args).all(|(p, a)| match_arg(p, a, bound))
}

/// [`match_arg`] for types below the top level.
fn match_type(p: &CType, a: &CType, bound: &mut [Option<ArgValue>]) -> bool {
    if let Some(i) = crate::types::template_param_index(p) {
        let value = ArgValue::Type {
            ty: a.clone(),
            is_const: false,
            is_volatile: false,
            spelling: Spelling::Plain,
        };
        return bind(i, value, bound);
    }
    match (p, a) {
        (
            CType::Pointer {
                pointee: pp,
                pointee_const: pc,
                pointee_volatile: pv,
                ..
            },
            CType::Pointer {
                pointee: ap,
                pointee_const: ac,
                pointee_volatile: av,
                ..
            },
        ) => {
            let p = ArgValue::Type {
                ty: (**pp).clone(),
                is_const: *pc,
                is_volatile: *pv,
                spelling: Spelling::Plain,
            };
            let a = ArgValue::Type {
                ty: (**ap).clone(),
                is_const: *ac,
                is_volatile: *av,
                spelling: Spelling::Plain,
            };
            match_arg(&p, &a, bound)
        }
        (CType::Array { elem: pe, len: pl }, CType::Array { elem: ae, len: al }) => {
            let same_len = match (pl.and_then(crate::types::dependent_len_index), al) {
                // `U[N]` against `float[7]` binds `N` (its type is the
                // parameter's, given by `match_args`).
                (Some(i), Some(len)) => {
                    bind(i, ArgValue::Int(i128::from(*len), CType::ULONG), bound)
                }
                _ => pl == al,
            };
            same_len && match_type(pe, ae, bound)
        }
        (CType::Struct(ps), CType::Struct(as_)) => match (&ps.instance_of, &as_.instance_of) {
            (Some(pi), Some(ai)) if pi.template == ai.template => pi
                .args
                .iter()
                .zip(&ai.args)
                .all(|(p, a)| match_arg(p, a, bound)),
            _ => p == a,
        },
        _ => p == a,
    }
}

/// Binds parameter `i` to `value`, or checks that it is bound to it (a
/// value by its value: an array's bound has no type of its own).
fn bind(i: usize, value: ArgValue, bound: &mut [Option<ArgValue>]) -> bool {
    match bound.get_mut(i) {
        Some(Some(ArgValue::Int(v, _))) => matches!(value, ArgValue::Int(w, _) if w == *v),
        Some(Some(v)) => v.same_as(&value),
        Some(slot) => {
            *slot = Some(value);
            true
        }
        None => false,
    }
}

/// The instances of class templates made so far, by every parse of one
/// translation unit (`crate::parser::class_templates`): one struct per
/// instance, whichever parse made it first.
#[derive(Debug, Default)]
pub struct ClassInstances {
    /// Each instance's struct, by its key (`gpu::Vec<float, 4>`).
    pub structs: FxHashMap<String, Arc<StructDef>>,
    /// Their member types (`Traits<int>::Acc`).
    pub typedefs: FxHashMap<String, (CType, bool, Spelling)>,
    /// Their static integer constants the parser computed
    /// (`is_same<int, int>::value`), for template arguments and array
    /// sizes.
    pub constants: FxHashMap<String, i128>,
    /// Their static data members' keys, by instance.
    pub statics: FxHashMap<String, Vec<String>>,
    /// Their member functions and static members, not yet handed on: the
    /// file's parse emits them before the declaration that made them, and
    /// the checker declares those that function template instances make
    /// as it makes them.
    pub items: Vec<ast::Item>,
    /// What derived classes read of their bases (`parser/bases.rs`).
    pub bases: crate::parser::BaseFacts,
    /// Their member templates.
    pub member_templates: InstanceMemberTemplates,
}

/// Type parameters bound to their arguments, as a parser binds them:
/// name, then type, `const`, and how it is spelled.
pub type TypeBindings = Vec<(String, (CType, bool, Spelling))>;

/// The member templates of class template instances
/// (`template <class U> Vec3(const Vec3<U> &)` in `Vec3<float>`): each
/// instance's parse adds its own, keyed as members of the instance
/// (`md::Vec3<float>::Vec3`), and what their instances' parse needs, the
/// class's context and its parameters' bindings. The file's parse hands
/// the templates on to the translation unit's, the checker those of
/// instances made later.
#[derive(Debug, Default)]
pub struct InstanceMemberTemplates {
    /// Not yet handed on.
    pub templates: Vec<FunctionTemplate>,
    /// By class key, every instance's that has some.
    pub(crate) classes: FxHashMap<String, (crate::parser::ClassCtx, TypeBindings)>,
}

/// [`ClassInstances`], shared between parsers.
pub type SharedInstances = Arc<Mutex<ClassInstances>>;

/// What makes a struct an instance of a class template: the template's
/// key and the arguments, with the kinds of the parameters they bind.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassInstance {
    pub template: String,
    pub args: Vec<ArgValue>,
    pub kinds: Vec<ParamKind>,
}

/// An explicit specialization of a class template, `template <> struct
/// SharedMemory<double> { ... };`: the definition that stands for the
/// instance with `args`, its tokens without the template arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassSpecialization {
    pub name: String,
    pub args: Vec<ArgValue>,
    pub tokens: Vec<Token>,
}

/// Compares the tables of types; `names` holds only what the declarations
/// that made those tables declared.
impl PartialEq for ParseEnv {
    fn eq(&self, other: &Self) -> bool {
        self.typedefs == other.typedefs
            && self.structs == other.structs
            && self.next_struct_id.load(Ordering::Relaxed)
                == other.next_struct_id.load(Ordering::Relaxed)
    }
}

/// A template argument as written.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateArg {
    Type(ast::QualType),
    Value(ast::Expr),
    /// `decltype(expr)`: the type the checker gives `expr` (a lambda's
    /// closure type, `decltype(op)` in host code).
    Decltype(ast::Expr),
    /// A class template's name not followed by `<` (`MaxOp`,
    /// `ns::MinOp`): its key, for a template template parameter.
    Template(String, Span),
}

/// An instantiation the program asks for outside device code's calls: an
/// explicit instantiation, or a use in host code.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The template's key.
    pub name: String,
    pub args: Vec<TemplateArg>,
    pub span: Span,
    /// A launch's call arguments, from which the template arguments it
    /// does not write are deduced (empty for other requests).
    pub call: Vec<CallArg>,
    /// For a use found inside host function templates called with
    /// deduced arguments: those calls, outermost first. The checker
    /// deduces their template parameters, which `written` and the call's
    /// arguments may name; `args` is then empty.
    pub frames: Vec<crate::host_uses::HostFrame>,
    /// With `frames`: the template arguments as written, read once the
    /// frames' parameters are known.
    pub written: Vec<Vec<Token>>,
    /// An explicit instantiation (`template __global__ void k<int>(int *);`),
    /// which C++ allows once per instance; host code may use one often.
    pub explicit: bool,
}

/// An argument of a launch in host code (`crate::host_args`).
#[derive(Clone, Debug, PartialEq)]
pub struct CallArg {
    /// The argument with host variables replaced by stand-ins of their
    /// types, or `None` when that does not parse.
    pub expr: Option<ast::Expr>,
    /// Those stand-ins' tokens (read later when they name the template
    /// parameters of a host function template's frame).
    pub tokens: Vec<Token>,
    /// The argument as written: where it is, and its text.
    pub span: Span,
    pub text: String,
}

/// An explicit specialization, `template <> float fromFloat<float>(float
/// v) { ... }`: the declaration that stands for the instance with `args`.
#[derive(Clone, Debug, PartialEq)]
pub struct Specialization {
    pub name: String,
    pub args: Vec<TemplateArg>,
    pub decl: ast::FunctionDecl,
}

/// Every template of a translation unit.
#[derive(Debug, Default, PartialEq)]
pub struct Templates {
    pub functions: Vec<FunctionTemplate>,
    pub specializations: Vec<Specialization>,
    /// The templates of each name (overloads), in declaration order.
    pub by_name: Arc<FxHashMap<String, Vec<usize>>>,
    /// Class templates (shared: every sub-parser sees them).
    pub classes: Arc<ClassTemplates>,
    pub env: ParseEnv,
    pub requests: Vec<Request>,
    /// The host function templates' declarations up to their bodies, by
    /// name: a host stand-in's call of one has the type it returns
    /// (`crate::sema::host_frames`).
    pub host_templates: FxHashMap<String, Vec<Arc<[Token]>>>,
}

impl Templates {
    /// Whether `name` names a function template.
    pub fn is_template(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Adds the member templates of the class template instances made
    /// since the last call ([`InstanceMemberTemplates`]); whether there
    /// were any.
    pub(crate) fn adopt_member_templates(&mut self) -> bool {
        let new = match self.env.instances.lock() {
            Ok(mut shared) => std::mem::take(&mut shared.member_templates.templates),
            Err(_) => return false,
        };
        let any = !new.is_empty();
        for t in new {
            Arc::make_mut(&mut self.by_name)
                .entry(t.name.clone())
                .or_default()
                .push(self.functions.len());
            self.functions.push(t);
        }
        any
    }

    /// A copy that shares the environment's tables, for a checker that
    /// adds templates to the ones it was given
    /// ([`Templates::adopt_member_templates`]).
    pub(crate) fn copy(&self) -> Templates {
        let env = &self.env;
        let nominated = env
            .nominated_in_instances
            .lock()
            .map(|n| n.clone())
            .unwrap_or_default();
        Templates {
            functions: self.functions.clone(),
            specializations: self.specializations.clone(),
            by_name: self.by_name.clone(),
            classes: self.classes.clone(),
            env: ParseEnv {
                typedefs: env.typedefs.clone(),
                structs: env.structs.clone(),
                next_struct_id: env.next_struct_id.load(Ordering::Relaxed).into(),
                names: env.names.clone(),
                constants: env.constants.clone(),
                instances: env.instances.clone(),
                classes: env.classes.clone(),
                host_lambdas: env.host_lambdas.clone(),
                nominated_in_instances: Mutex::new(nominated),
            },
            requests: self.requests.clone(),
            host_templates: self.host_templates.clone(),
        }
    }
}

/// How a function bound to a function pointer template parameter is
/// named inside its instance's Itanium name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FuncLink {
    /// An `extern "C"` function: by its name.
    C(String),
    /// A C++ function: its mangling key (`crate::mangle::linkage_key`) and
    /// parameter types, mangled where the instance's name holds it, with
    /// that name's substitutions (`_Z1kIXadL_Z3dq4PKhiEEEvS1_Pf`).
    Cxx { key: String, params: Vec<CType> },
}

/// A template argument's value: what an instantiation is keyed by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgValue {
    /// A type, with its `const`/`volatile` and how its base was spelled.
    Type {
        ty: CType,
        is_const: bool,
        is_volatile: bool,
        spelling: Spelling,
    },
    /// A constant of a value parameter's type.
    Int(i128, CType),
    /// In a function template's pattern, its value parameter with this
    /// index (`N` in `Vec<T, N>`): not known until deduction.
    Param(usize),
    /// The function a function pointer parameter is bound to: how the
    /// instance's tokens name it (qualified from the global namespace
    /// when in a namespace) and how its name is written in the instance's.
    Func { name: String, link: FuncLink },
    /// A parameter pack's arguments, in order (`crate::packs`).
    Pack(Vec<ArgValue>),
    /// The class template a template template parameter is bound to, by
    /// its key (`ns::MinOp`).
    Template(String),
    /// An lvalue reference to a type (an [`ArgValue::Type`]): what a
    /// forwarding reference `T &&x` deduces from an lvalue (`float &`,
    /// `Rf` in names). An instance binds `T` to the referenced type and
    /// reads its `T &&` as `T &` (reference collapsing).
    LvalueRef(Box<ArgValue>),
    /// An rvalue reference to a type, as written (`H<float &&>`, `Of` in
    /// names); a `T` bound to it reads `T &&` as itself and `T &` as an
    /// lvalue reference.
    RvalueRef(Box<ArgValue>),
}

impl ArgValue {
    /// Whether two arguments are the same, however their types were
    /// spelled (`long` and `long int`; but `long long` is another type).
    pub fn same_as(&self, other: &ArgValue) -> bool {
        match (self, other) {
            (ArgValue::Type { .. }, ArgValue::Type { .. }) => self.readable() == other.readable(),
            (ArgValue::Pack(a), ArgValue::Pack(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y))
            }
            (ArgValue::LvalueRef(a), ArgValue::LvalueRef(b))
            | (ArgValue::RvalueRef(a), ArgValue::RvalueRef(b)) => a.same_as(b),
            _ => self == other,
        }
    }

    /// The argument a type argument `t` is: a reference type (`float &`,
    /// `T &` with `T` bound to one) is an [`ArgValue::LvalueRef`] of its
    /// referent, so that a reference reads, matches and is named one way
    /// whether it was written or deduced; `float &&` an
    /// [`ArgValue::RvalueRef`]. (`Result` for the callers' sake: every
    /// type is an argument now.)
    pub fn of_type(t: &ast::QualType) -> Result<ArgValue, String> {
        let value = |ty: &CType, is_const, is_volatile| ArgValue::Type {
            ty: crate::sema::strip_restrict(ty).0,
            is_const,
            is_volatile,
            spelling: t.spelling.clone(),
        };
        match &t.ty {
            CType::Ref {
                referent,
                referent_const,
                referent_volatile,
                rvalue,
            } => {
                let referent = Box::new(value(referent, *referent_const, *referent_volatile));
                Ok(match rvalue {
                    true => ArgValue::RvalueRef(referent),
                    false => ArgValue::LvalueRef(referent),
                })
            }
            ty => Ok(value(ty, t.is_const, t.is_volatile)),
        }
    }

    /// The type a reference argument refers to, else the argument.
    pub fn referenced(&self) -> &ArgValue {
        match self {
            ArgValue::LvalueRef(t) | ArgValue::RvalueRef(t) => t,
            a => a,
        }
    }

    /// How the argument reads in an instantiation's name (`float`, `256`,
    /// `true`).
    pub fn readable(&self) -> String {
        match self {
            ArgValue::Type {
                ty,
                is_const,
                is_volatile,
                spelling,
            } => {
                let mut s = String::new();
                if *is_const {
                    s.push_str("const ");
                }
                if *is_volatile {
                    s.push_str("volatile ");
                }
                s.push_str(&spelled(ty, spelling));
                s
            }
            ArgValue::Func { name, .. } | ArgValue::Template(name) => name.clone(),
            ArgValue::Int(v, CType::Bool) => (*v != 0).to_string(),
            ArgValue::Int(v, CType::Int { signed: false, .. }) => format!("{v}u"),
            ArgValue::Int(v, _) => v.to_string(),
            ArgValue::Param(i) => format!("<parameter {i}>"),
            ArgValue::Pack(elems) => {
                let shown: Vec<String> = elems.iter().map(ArgValue::readable).collect();
                shown.join(", ")
            }
            ArgValue::LvalueRef(t) => format!("{} &", t.readable()),
            ArgValue::RvalueRef(t) => format!("{} &&", t.readable()),
        }
    }
}

/// `ty` as C++ writes it, its base spelled as the source spelled it:
/// `long long` and `long` (`signed char` and `char`) are one `CType` but
/// two C++ types, so two instances (`fill<long long>`, `fill<long>`).
fn spelled(ty: &CType, spelling: &Spelling) -> String {
    let shown = ty.to_string();
    let mut base = ty;
    while let CType::Pointer { pointee, .. } | CType::Array { elem: pointee, .. } = base {
        base = pointee;
    }
    let written = match (base, spelling) {
        (CType::Int { bits: 64, signed }, Spelling::LongLong) => {
            if *signed {
                "long long"
            } else {
                "unsigned long long"
            }
        }
        (
            CType::Int {
                bits: 8,
                signed: true,
            },
            Spelling::SignedChar,
        ) => "signed char",
        _ => return shown,
    };
    shown.replacen(&base.to_string(), written, 1)
}

/// The name an instantiation is known by in kernelc's messages and tables:
/// `reduce<float, 256u, true>`.
pub fn instance_name(name: &str, args: &[ArgValue]) -> String {
    // A pack's arguments stand among the others, an empty one nowhere.
    let shown: Vec<String> = args
        .iter()
        .flat_map(|a| match a {
            ArgValue::Pack(elems) => elems.iter().collect(),
            a => vec![a],
        })
        .map(ArgValue::readable)
        .collect();
    format!("{name}<{}>", shown.join(", "))
}

/// How an instantiation of template `t` with `args` reads in messages,
/// when that differs from its [`instance_name`]: an enumeration's value
/// reads as C++ writes it (`activateStatic<Mode::Fast>`, not
/// `activateStatic<0u>`), by the enumerator of that value in `env`, else
/// as a cast (`(Mode)7`, as demanglers write it). `None` when `t` has no
/// parameter of an enumeration type.
pub fn shown_instance_name(
    t: &FunctionTemplate,
    args: &[ArgValue],
    env: &ParseEnv,
) -> Option<String> {
    fn enum_of(p: &TemplateParam) -> Option<&str> {
        match &p.kind {
            ParamKind::Value(_, Spelling::Enum(key)) => Some(key.as_str()),
            _ => None,
        }
    }
    if !t.params.iter().any(|p| enum_of(p).is_some()) {
        return None;
    }
    let shown = |a: &ArgValue, e: Option<&str>| match (a, e) {
        (ArgValue::Int(v, _), Some(e)) => enumerator_named(e, *v, env),
        (a, _) => a.readable(),
    };
    let mut parts = Vec::new();
    for (p, a) in t.params.iter().zip(args) {
        match a {
            ArgValue::Pack(elems) => parts.extend(elems.iter().map(|a| shown(a, enum_of(p)))),
            a => parts.push(shown(a, enum_of(p))),
        }
    }
    Some(format!("{}<{}>", t.name, parts.join(", ")))
}

/// The value `v` of the enumeration keyed `e` as C++ writes it: the key
/// of its enumerator of that value, scoped (`Mode::Fast`) or not
/// (`nn::Mul`), else the cast `(Mode)v`.
fn enumerator_named(e: &str, v: i128, env: &ParseEnv) -> String {
    let prefix = format!("{e}::");
    let scoped = env.constants.keys().filter(|k| {
        k.strip_prefix(&prefix)
            .is_some_and(|name| !name.is_empty() && !name.contains("::"))
    });
    let mut names: Vec<&str> = scoped
        .map(String::as_str)
        .chain(env.names.unscoped_enumerators(e))
        .filter(|k| env.constants.get(*k) == Some(&v))
        .collect();
    // Two enumerators of one value: the first in name order, so that the
    // message does not depend on the tables' order.
    names.sort_unstable();
    match names.first() {
        Some(name) => name.to_string(),
        None => format!("({e}){v}"),
    }
}

/// `tokens` (of template `t`) with each value parameter that has an
/// argument in `args` replaced by it, as a literal at the parameter's place
/// (`N` → `16`, `B` → `true`, negative values parenthesized).
pub fn substitute_values_in(
    t: &FunctionTemplate,
    args: &[ArgValue],
    tokens: &[Token],
) -> Vec<Token> {
    let mut values: FxHashMap<&str, &ArgValue> = FxHashMap::default();
    for (p, a) in t.params.iter().zip(args) {
        if matches!(p.kind, ParamKind::Value(..) | ParamKind::Template(_)) {
            values.insert(&p.name, a);
        }
    }
    let mut out = Vec::with_capacity(tokens.len());
    for tok in tokens {
        match values.get(tok.text.as_str()) {
            Some(ArgValue::Int(v, ty)) if tok.kind == TokenKind::Ident => {
                literal(*v, ty, tok.span, &mut out)
            }
            // The function's own name: a call through the parameter is a
            // direct call of it, which the inliner may then inline.
            Some(ArgValue::Func { name, .. }) if tok.kind == TokenKind::Ident => {
                function_name(name, tok.span, &mut out)
            }
            // The class template's name: `Op<T>` reads `MaxOp<T>`.
            Some(ArgValue::Template(name)) if tok.kind == TokenKind::Ident => {
                function_name(name, tok.span, &mut out)
            }
            _ => out.push(tok.clone()),
        }
    }
    out
}

/// The argument class template `key` gives template template parameter
/// `p` (`template <typename> class Op`), or why it cannot: `p` takes a
/// template of as many type parameters as the class template has
/// ([temp.arg.template]; a variadic one on either side takes any).
pub fn template_template_arg(
    classes: &ClassTemplates,
    key: &str,
    p: &TemplateParam,
) -> Result<ArgValue, String> {
    let ParamKind::Template(arity) = p.kind else {
        let takes = match p.kind {
            ParamKind::Type => "a type",
            _ => "a value",
        };
        return Err(format!(
            "template parameter `{}` takes {takes}, not the class template `{key}`",
            p.name
        ));
    };
    let Some(t) = classes.by_name.get(key).map(|&i| &classes.templates[i]) else {
        return Err(format!(
            "template parameter `{}` takes a class template, and `{key}` is none",
            p.name
        ));
    };
    if t.params.iter().any(|q| q.kind != ParamKind::Type) {
        return Err(format!(
            "kernelc supports only class templates of type parameters as the argument of template template parameter `{}` yet",
            p.name
        ));
    }
    let variadic = t.params.iter().any(|q| q.pack);
    match arity {
        Some(n) if !variadic && n != t.params.len() => Err(format!(
            "template parameter `{}` takes a class template of {n} type parameter(s); `{key}` has {}",
            p.name,
            t.params.len()
        )),
        _ => Ok(ArgValue::Template(key.to_string())),
    }
}

/// Appends the tokens that name the function with key `key`: `f`, or
/// `::ns::f` for one in a namespace.
pub(crate) fn function_name(key: &str, span: Span, out: &mut Vec<Token>) {
    let tok = |kind: TokenKind, text: &str| Token {
        kind,
        text: text.into(),
        span,
    };
    if !key.contains("::") {
        out.push(tok(TokenKind::Ident, key));
        return;
    }
    for part in key.split("::") {
        out.push(tok(TokenKind::Punct(Punct::ColonColon), "::"));
        out.push(tok(TokenKind::Ident, part));
    }
}

/// Appends the tokens of the constant `v` of type `ty`.
pub fn literal(v: i128, ty: &CType, span: Span, out: &mut Vec<Token>) {
    let tok = |kind: TokenKind, text: String| Token {
        kind,
        text: text.into(),
        span,
    };
    if *ty == CType::Bool {
        let (k, text) = if v != 0 {
            (Keyword::True, "true")
        } else {
            (Keyword::False, "false")
        };
        out.push(tok(TokenKind::Keyword(k), text.to_string()));
        return;
    }
    // A value parameter's type is at least `int` wide or converts to it
    // without loss in every use; a literal of the parameter's own type
    // keeps unsigned arithmetic unsigned.
    let lit_ty = match ty {
        CType::Int { bits, signed } if *bits < 32 => CType::Int {
            bits: 32,
            signed: *signed,
        },
        t => t.clone(),
    };
    let magnitude = v.unsigned_abs() as u64;
    let number = tok(
        TokenKind::Int {
            value: magnitude,
            ty: lit_ty,
        },
        magnitude.to_string(),
    );
    if v < 0 {
        out.push(tok(TokenKind::Punct(Punct::LParen), "(".into()));
        out.push(tok(TokenKind::Punct(Punct::Minus), "-".into()));
        out.push(number);
        out.push(tok(TokenKind::Punct(Punct::RParen), ")".into()));
    } else {
        out.push(number);
    }
}

/// `v` converted to integer type `ty` as C++ converts a template argument
/// (wrapping to the width, `bool` as nonzero).
pub fn wrap_to(v: i128, ty: &CType) -> i128 {
    match ty {
        CType::Bool => i128::from(v != 0),
        CType::Int { bits, signed } => {
            let bits = u32::from(*bits);
            let mask = (1i128 << bits) - 1;
            let low = v & mask;
            if *signed && low >> (bits - 1) & 1 == 1 {
                low - (1i128 << bits)
            } else {
                low
            }
        }
        _ => v,
    }
}

/// Parses the instantiation of function template `index` of `templates`
/// with `args` (one per parameter): the declaration it gives, or the
/// diagnostics of its parse.
pub fn instantiate(
    templates: &Templates,
    index: usize,
    args: &[ArgValue],
    opts: &crate::Options,
) -> Result<ast::FunctionDecl, Vec<Diagnostic>> {
    let t = &templates.functions[index];
    let tokens = bind_in(t, args, &t.tokens).map_err(|d| vec![d])?;
    let types = type_bindings(t, args);
    match &t.member_of {
        Some(class) => {
            crate::parser::parse_member_instance(templates, t, class, &tokens, types, opts)
        }
        None => crate::parser::parse_instance(templates, &t.scope, &tokens, types, opts),
    }
}

/// Whether function template `index` of `templates` (not a member
/// template) takes `args`: its header, the return and parameter types,
/// parses with them bound. `Err` holds the diagnostics of the parse that
/// failed, a substitution failure that removes the template from a call's
/// candidates (SFINAE, [temp.deduct]).
pub fn substitute_header(
    templates: &Templates,
    index: usize,
    args: &[ArgValue],
    opts: &crate::Options,
) -> Result<(), Vec<Diagnostic>> {
    let t = &templates.functions[index];
    let header = crate::parser::header_tokens(&t.tokens);
    let tokens = bind_in(t, args, &header).map_err(|d| vec![d])?;
    let types = type_bindings(t, args);
    crate::parser::parse_instance(templates, &t.scope, &tokens, types, opts).map(|_| ())
}

/// `tokens` (of template `t`, or written where its parameters are in
/// scope) with `args` bound: each pack's expansions written out, then
/// each value parameter replaced by its value; the type parameters are
/// the typedefs of [`type_bindings`].
pub(crate) fn bind_in(
    t: &FunctionTemplate,
    args: &[ArgValue],
    tokens: &[Token],
) -> Result<Vec<Token>, Diagnostic> {
    let mut packs = crate::packs::Packs::of(&t.params, args);
    let expanded = crate::packs::expand(tokens, &mut packs)?;
    Ok(substitute_values_in(t, args, &expanded))
}

/// `tokens`, one element of a list (a call's argument) written in the
/// body of template `t`, bound as [`bind_in`] binds them: the elements it
/// stands for, several when it expands a pack (`args...`), else itself.
pub(crate) fn bind_each_in(
    t: &FunctionTemplate,
    args: &[ArgValue],
    tokens: &[Token],
) -> Result<Vec<Vec<Token>>, Diagnostic> {
    let mut packs = crate::packs::Packs::of(&t.params, args);
    match crate::packs::expand_each(tokens, &mut packs)? {
        Some(elements) => Ok(elements
            .iter()
            .map(|e| substitute_values_in(t, args, e))
            .collect()),
        None => Ok(vec![bind_in(t, args, tokens)?]),
    }
}

/// The typedefs that bind the type parameters of `t` that have an argument
/// in `args`, a type pack's elements by their names
/// (`crate::packs::element_name`).
pub fn type_bindings(
    t: &FunctionTemplate,
    args: &[ArgValue],
) -> Vec<(String, (CType, bool, Spelling))> {
    let mut types = Vec::new();
    for (p, a) in t.params.iter().zip(args) {
        if let (ParamKind::Type, ArgValue::Pack(elems)) = (&p.kind, a) {
            for (k, e) in elems.iter().enumerate() {
                if let Some(binding) = type_binding(e) {
                    types.push((crate::packs::element_name(&p.name, k), binding));
                }
            }
        }
        if let (ParamKind::Type, Some(binding)) = (&p.kind, type_binding(a)) {
            types.push((p.name.clone(), binding));
        }
    }
    types
}

/// The typedef a type parameter bound to `a` is: the type, or for a
/// reference argument the reference type (`CType::Ref`), which a
/// declaration of that type reads as a reference (`parser::references`).
fn type_binding(a: &ArgValue) -> Option<(CType, bool, Spelling)> {
    let ArgValue::Type {
        ty,
        is_const,
        is_volatile,
        spelling,
    } = a.referenced()
    else {
        return None;
    };
    let rvalue = match a {
        ArgValue::LvalueRef(_) => false,
        ArgValue::RvalueRef(_) => true,
        _ => return Some((ty.clone(), *is_const, spelling.clone())),
    };
    let reference = CType::Ref {
        referent: Box::new(ty.clone()),
        referent_const: *is_const,
        referent_volatile: *is_volatile,
        rvalue,
    };
    Some((reference, false, spelling.clone()))
}
