//! Itanium C++ ABI names, as nvcc gives them to kernels and device
//! functions outside `extern "C"` (`stdx::itanium` reads them back into
//! their readable form, for every tool that shows them).
//!
//! The rules implemented, by their section of the Itanium C++ ABI
//! ("External Names", 5.1):
//!
//! - 5.1.2 `<mangled-name> ::= _Z <encoding>`, and
//!   `<encoding> ::= <name> <bare-function-type>`: a function at namespace
//!   scope is `_Z`, its `<source-name>` (length, then the identifier), then
//!   its parameter types; no parameters is `v` (`_Z2k7v`). The return type
//!   is not part of a non-template function's name.
//! - 5.1.5 `<builtin-type>`: `v` void, `b` bool, `c` char, `a` signed char,
//!   `h` unsigned char, `s`/`t` short, `i`/`j` int, `l`/`m` long, `x`/`y`
//!   long long, `f` float, `d` double. kernelc's `CType` merges `char` with
//!   `signed char` and `long` with `long long`; the written [`Spelling`]
//!   tells them apart (`int8_t` is `signed char`, `int64_t` and `size_t`
//!   are `long`, as in glibc's headers, which nvcc's host compiler reads).
//! - 5.1.5 `<CV-qualifiers> ::= [r] [V] [K]`: the qualifiers of a pointee
//!   or a referenced type (`PKf`, `PVKi`); the qualifiers of the parameter
//!   itself (`float *const p`, `float *__restrict__ p`) are not part of the
//!   function's type (C++ [dcl.fct] p5) and are dropped.
//! - 5.1.5 `P` pointer, `R` lvalue reference, `A <number> _ <type>` array
//!   (what an array parameter `float m[][4]` decays to: `PA4_f`). The
//!   qualifiers of an array's element stay on the element (`PA4_Kf`).
//! - 5.1.5 `<class-enum-type> ::= <source-name>`: a struct (CUDA's vector
//!   types too: `6float4`) or an enumeration, by name.
//! - 5.1.8 substitutions: every type that is not a builtin type, and every
//!   qualified type, is a candidate, numbered in the order its mangling
//!   ends; a later occurrence is `S_`, `S0_`, `S1_`, ... (`<seq-id>` in
//!   base 36, digits then capital letters).
//!
//! Device variables at namespace scope keep their names, as nvcc keeps
//! them: C++ does not mangle a variable outside a namespace.
//!
//! A function or variable with internal linkage, declared `static` at
//! namespace scope or in an anonymous namespace, is named as nvcc names
//! it: inside a namespace unique to the file,
//! `_ZN33_INTERNAL_4ba832fb_5_g9_cu__Z1kPf1hEf` for `static float
//! h(float)` ([`has_internal_name`]); a kernel is not. Its name reaches
//! kernels' names when it is a template argument
//! (`_Z10dequantizeILi32EXadL_ZN35_INTERNAL_...3dq4EPKhiEEEvS2_Pf`).

use crate::ast::{Returns, Spelling};
use crate::types::{CType, TENSOR_MAP_ID};

mod dependent;

/// One parameter of a function, as its name needs it.
#[derive(Clone, Copy, Debug)]
pub struct ParamType<'a> {
    /// The type after array-to-pointer adjustment (`T *` for `T a[]`);
    /// for a reference, the referenced type.
    pub ty: &'a CType,
    /// How the innermost base type was written.
    pub spelling: &'a Spelling,
    /// `Some((const, volatile))` for a reference parameter `T &`: the
    /// qualifiers of the referenced object.
    pub reference: Option<(bool, bool)>,
    /// With `reference`, an rvalue reference (`float &&x`, `O`).
    pub rvalue: bool,
}

impl<'a> ParamType<'a> {
    /// A parameter of type `ty` as nothing but its type says it: not a
    /// reference, its base type written plainly.
    pub fn plain(ty: &'a CType) -> Self {
        ParamType {
            ty,
            spelling: &Spelling::Plain,
            reference: None,
            rvalue: false,
        }
    }
}

/// The Itanium name of a function at namespace scope with these
/// parameters: `_Z9vectorAddPKfS0_Pfi`.
pub fn function(name: &str, params: &[ParamType<'_>]) -> String {
    member(name, None, params, None)
}

/// The qualifiers of a member function's `this` that its nested name
/// spells after `N` (5.1.3 `[<CV-qualifiers>] [<ref-qualifier>]`): `K`
/// for `const`, then `R` for `&` or `O` for `&&` (`_ZNKR1W3getEv`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThisQuals {
    pub is_const: bool,
    pub ref_qualifier: crate::ast::RefQualifier,
}

impl ThisQuals {
    /// A `const` member function's.
    pub const CONST: ThisQuals = ThisQuals {
        is_const: true,
        ref_qualifier: crate::ast::RefQualifier::None,
    };

    /// Those `m` declares.
    pub fn of(m: &crate::ast::Method) -> ThisQuals {
        ThisQuals {
            is_const: m.is_const,
            ref_qualifier: m.ref_qualifier,
        }
    }

    fn code(self) -> &'static str {
        use crate::ast::RefQualifier::{Lvalue, None, Rvalue};
        match (self.is_const, self.ref_qualifier) {
            (false, None) => "",
            (true, None) => "K",
            (false, Lvalue) => "R",
            (true, Lvalue) => "KR",
            (false, Rvalue) => "O",
            (true, Rvalue) => "KO",
        }
    }
}

/// The Itanium name of a function keyed `key`, a member function when
/// `this` is `Some` (with its qualifiers), with these parameters
/// (`this` not among them): 5.1.3's `<nested-name> ::= N [<CV-qualifiers>]
/// <prefix> <unqualified-name> E`, where a constructor is `C1` (the
/// complete-object constructor), a destructor `D1` and an operator function its
/// `<operator-name>` (5.1.3: `pl` for `operator+`, `ng` for unary `-`):
/// `_ZNK3Ray2atEf`, `_ZN3RayC1E6float3S0_`, `_Zpl6float3S_`.
pub fn member(
    key: &str,
    this: Option<ThisQuals>,
    params: &[ParamType<'_>],
    converts_to: Option<ParamType<'_>>,
) -> String {
    let encoding = Mangler::default().encoding(key, this, params, converts_to);
    format!("_Z{encoding}")
}

/// The class template instance a member template's pattern `shape` is a
/// non-static member of (its `this` points to it), if it is one.
fn instance_class(shape: &crate::ast::FunctionDecl) -> Option<&crate::types::StructDef> {
    shape.method.as_ref()?;
    let def = shape.params.first()?.ty.ty.pointee()?.struct_def()?;
    def.instance_of.is_some().then_some(def)
}

/// [`member`] for a member `name` of `class`, an instance `inst` of a
/// class template or a class nested in one: its nested name's prefix is
/// the template's name and arguments (`_ZN9Packed128IfE8constantEf`,
/// `_ZNK3gpu3VecIfLi4EE3sumEv`), then the nested class's name
/// (`_ZNK2TOIiE2TI3getEv`), and a constructor is named `C1` whatever the
/// class's name.
pub fn instance_member(
    class: &crate::types::StructDef,
    inst: &crate::templates::ClassInstance,
    name: &str,
    this: Option<ThisQuals>,
    params: &[ParamType<'_>],
    converts_to: Option<ParamType<'_>>,
) -> String {
    let mut m = Mangler::default();
    let operands = params.len() + usize::from(this.is_some());
    let simple = unqualified(&inst.template);
    let mut out = String::from("_ZN");
    out.push_str(this.unwrap_or_default().code());
    out.push_str(&m.instance_inner(inst));
    m.candidates.push(instance_key(inst));
    if class.instance_of.is_none() {
        // A class nested in the instance (`TO<int>::TI`): its name after
        // the instance's, a candidate keyed as its type's.
        let nested = key_parts(&class.name).last().copied().unwrap_or_default();
        out.push_str(&source_name(nested));
        m.candidates.push(nested_name(&class.name));
    }
    let last = if let Some(to) = converts_to {
        // 5.1.3 `cv <type>`: a conversion function, by its type.
        format!("cv{}", m.ty(to.ty, Quals::NONE, to.spelling))
    } else if let Some(code) = operator_code(name, operands) {
        code.to_string()
    } else if name == simple || Some(name) == key_parts(&class.name).last().copied() {
        "C1".to_string()
    } else if name.starts_with('~') {
        "D1".to_string()
    } else {
        source_name(name)
    };
    out.push_str(&last);
    out.push('E');
    m.params(params, &mut out);
    out
}

/// The Itanium name of an instantiation of function template `t` with
/// `args`, whose declaration is `decl`: 5.1.2's `<unscoped-template-name>
/// <template-args>`, then the return type and the parameter types *as the
/// template writes them* (5.1.5 `<template-param>`: `T_` for the first
/// parameter, `T0_`, `T1_`, ... for the next), from the template's pattern
/// (`crate::templates`). `_Z15biasGeluForwardIfEvPT_PKS0_S3_ii` is
/// `biasGeluForward<float>(T *, const T *, const T *, int, int)` returning
/// `void`. The template's name is the first substitution candidate (after
/// its namespaces, for a template in one: `_ZN3gpu6reduceIfEEvPKT_`); a
/// `<template-param>` is one too, apart from the type it stands for.
///
/// `member_of` is the class of a member template, when the caller knows
/// it: a static member template's pattern has no `this` to tell it.
pub fn instance(
    t: &crate::templates::FunctionTemplate,
    args: &[crate::templates::ArgValue],
    decl: &crate::ast::FunctionDecl,
    classes: &crate::templates::ClassTemplates,
    member_of: Option<&crate::types::StructDef>,
) -> String {
    let mut m = Mangler::default();
    let key = linkage_key(&t.name, t.member_of.is_none() && has_internal_name(decl));
    let nested = key.contains("::");
    let shape = t.pattern.as_ref().unwrap_or(decl);
    // A member template's `this` is not among the parameters a name
    // lists; a `const` one is `NK...`.
    let this = shape.method.as_ref();
    let params = &shape.params[usize::from(this.is_some())..];
    let mut out = String::from("_Z");
    let names = key_parts(&key);
    let operands = params.len() + usize::from(this.is_some());
    let operator = names.last().and_then(|l| operator_code(l, operands));
    let is_ctor = this.is_some_and(|m| m.is_ctor);
    let member_of = member_of.filter(|d| d.instance_of.is_some());
    if let Some(class) = instance_class(shape).or(member_of) {
        out.push_str(&m.instance_member_prefix(class, names.last(), operator, shape));
    } else if t.member_of.is_some() || (nested && operator.is_some()) {
        let mut parts: Vec<String> = names.iter().map(|n| component(n)).collect();
        if let Some(code) = operator {
            parts.pop();
            parts.push(code.to_string());
        }
        let name = m.prefixed(&parts, this.map(ThisQuals::of).unwrap_or_default());
        out.push_str(name.strip_suffix('E').unwrap_or(&name));
    } else if let Some(code) = operator {
        out.push_str(code);
    } else if nested {
        // 5.1.3 `N <prefix> <template-prefix> <template-args> E`: the
        // namespaces are candidates before the template.
        let name = m.name(&key);
        out.push_str(name.strip_suffix('E').unwrap_or(&name));
    } else {
        out.push_str(&source_name(&t.name));
    }
    m.candidates.push(format!("template {key}"));
    out.push('I');
    for (a, p) in args.iter().zip(&t.params) {
        out.push_str(&m.template_arg(a, &p.kind));
    }
    out.push('E');
    if nested {
        out.push('E');
    }
    let cx = dependent::Context {
        template: t,
        classes,
    };
    match dependent_return(&m, &cx, shape) {
        // 5.1.1: a constructor's encoding has no return type.
        _ if is_ctor => {}
        Some((text, after)) => {
            m = after;
            out.push_str(&text);
        }
        None => out.push_str(&declared_return(&mut m, shape, params)),
    }
    if params.is_empty() {
        out.push('v');
    }
    for (k, p) in params.iter().enumerate() {
        if t.param_pack == Some(k) {
            // 5.1.5 `Dp <type>`: a pack expansion, the function parameter
            // pack's type as written (`DpT_`, `DpRKT_`).
            out.push_str("Dp");
        }
        let text = match p.by_ref {
            // 5.1.5 `O`: an rvalue (or forwarding) reference, `OT_`.
            Some(_) if p.rvalue => m.rvalue_reference(
                &p.ty.ty,
                quals(p.ty.is_const, p.ty.is_volatile, false),
                &p.ty.spelling,
            ),
            Some(_) => m.reference(
                &p.ty.ty,
                quals(p.ty.is_const, p.ty.is_volatile, false),
                &p.ty.spelling,
            ),
            None => {
                // An array parameter is the pointer it decays to.
                let ty = if p.dims.is_empty() {
                    p.ty.ty.clone()
                } else {
                    CType::Pointer {
                        pointee: Box::new(p.ty.ty.clone()),
                        pointee_const: p.ty.is_const,
                        pointee_volatile: p.ty.is_volatile,
                        restrict: false,
                    }
                };
                m.ty(&ty, Quals::NONE, &p.ty.spelling)
            }
        };
        if t.param_pack == Some(k) {
            // The expansion is a candidate of its own, after its type.
            m.candidates.push(format!("Dp{text}"));
        }
        out.push_str(&text);
    }
    out
}

/// The Itanium name of the call operator of the closure type `def`
/// (`const` unless the lambda is `mutable`), with these parameters: a
/// member function of a local class, `_ZZ4kernPfiENKUliE_clEi` (5.1.2
/// `<local-name>`, its entity the nested name of `operator()`, `cl`). An
/// instance of a generic lambda's call operator has its template
/// arguments, and `Da` (`auto`) for its return type.
pub fn lambda_operator(
    def: &crate::types::StructDef,
    this_const: bool,
    params: &[ParamType<'_>],
    instance: Option<&[crate::templates::ArgValue]>,
) -> String {
    let Some(c) = def.closure.as_deref() else {
        let this = ThisQuals {
            is_const: this_const,
            ..ThisQuals::default()
        };
        return member(&def.name, Some(this), params, None);
    };
    let mut m = Mangler::default();
    let (context, unnamed) = m.closure_parts(c);
    let mut out = format!("_ZZ{context}EN");
    if this_const {
        out.push('K');
    }
    out.push_str(&unnamed);
    out.push_str("cl");
    if let Some(args) = instance {
        out.push('I');
        for a in args {
            out.push_str(&m.template_arg(a, &crate::templates::ParamKind::Type));
        }
        out.push('E');
    }
    out.push('E');
    if instance.is_some() {
        out.push_str("Da");
    }
    m.params(params, &mut out);
    out
}

/// A closure type's signature as its name spells it, without
/// substitutions from around it: what tells two lambdas' signatures apart.
pub fn signature_key(sig: &[crate::types::SigParam]) -> String {
    let mut out = String::new();
    Mangler::default().params(&param_types(sig), &mut out);
    out
}

/// Parameter types from their parts.
fn param_types(params: &[crate::types::SigParam]) -> Vec<ParamType<'_>> {
    params
        .iter()
        .map(|(ty, spelling, reference)| ParamType {
            ty,
            spelling,
            reference: *reference,
            rvalue: false,
        })
        .collect()
}

/// The Itanium name of a device variable: its key unchanged in the global
/// namespace (C++ does not mangle those), `_ZN3sim7counterE` in one; in
/// one and `static`, or in an anonymous namespace, inside nvcc's namespace
/// of names with internal linkage ([`INTERNAL`]).
pub fn variable(key: &str, is_static: bool) -> String {
    if !key.contains("::") {
        return key.to_string();
    }
    let key = linkage_key(key, is_static || in_anonymous_namespace(key));
    format!("_Z{}", nested_name(&key))
}

/// 5.1.6 `<local-name> ::= Z <function encoding> E <entity name>
/// [<discriminator>]`: the name of a static-storage variable (a
/// `__shared__` array) declared in the function whose Itanium name is
/// `function` (`tile` in `k(float *)` is `_ZZ1kPfE4tile`; in `extern "C"`
/// `kc`, whose name is its encoding's `<source-name>`, `_ZZ2kcE4tile`).
/// `earlier` counts the variables of the same name declared before it in
/// the function: the second is `_0`, the eleventh `__10_`.
pub fn local_variable(function: &str, name: &str, earlier: usize) -> String {
    let encoding = match function.strip_prefix("_Z") {
        Some(encoding) => encoding.to_string(),
        None => source_name(function),
    };
    let discriminator = match earlier {
        0 => String::new(),
        1..=10 => format!("_{}", earlier - 1),
        _ => format!("__{}_", earlier - 1),
    };
    format!("_ZZ{encoding}E{}{discriminator}", source_name(name))
}

/// The path component kernelc's keys give an anonymous namespace
/// (`parser/names.rs`), and the `<source-name>` the Itanium ABI gives it
/// (5.1.2 `<unnamed-namespace-name>`); `crate::unnamed_namespace` makes
/// it nvcc's, unique to the file, once the whole file is checked.
const ANONYMOUS: (&str, &str) = ("(anonymous namespace)", "_GLOBAL__N_1");

/// Whether the key names something declared in an anonymous namespace.
pub fn in_anonymous_namespace(key: &str) -> bool {
    key_parts(key).contains(&ANONYMOUS.0)
}

/// The component a mangling key gets in front of a name with internal
/// linkage ([`linkage_key`]), and the `<source-name>` that stands for
/// nvcc's namespace of such names until `crate::unnamed_namespace`, once
/// the whole file is checked, writes nvcc's (`_INTERNAL_<crc>_...`, the
/// anonymous namespace's file-unique part). Not every name with internal
/// linkage is in it: only a function or variable declared at namespace
/// scope `static` or in an anonymous namespace, and not a kernel
/// (`static __global__ void k(float *)` is `_Z1kPf`): a member of a class
/// in an anonymous namespace, or a function with such a class as a
/// parameter, is named as usual.
const INTERNAL: (&str, &str) = ("(internal linkage)", "_INTERNAL_1");

/// Whether nvcc names the function declared by `f` inside its file's
/// `_INTERNAL_` namespace (see [`INTERNAL`]).
pub fn has_internal_name(f: &crate::ast::FunctionDecl) -> bool {
    let s = &f.specs;
    !s.global
        && !s.class_member
        && f.method.is_none()
        && (s.is_static || in_anonymous_namespace(&f.name))
}

/// The key of a function, as the mangler names it: in nvcc's namespace
/// of names with internal linkage when it has one there
/// ([`has_internal_name`]).
pub fn linkage_key(key: &str, internal_name: bool) -> String {
    match internal_name {
        true => format!("{}::{key}", INTERNAL.0),
        false => key.to_string(),
    }
}

/// `<source-name>` of one component of a qualified name.
fn component(part: &str) -> String {
    match part {
        _ if part == ANONYMOUS.0 => source_name(ANONYMOUS.1),
        _ if part == INTERNAL.0 => source_name(INTERNAL.1),
        _ => source_name(part),
    }
}

/// The `<source-name>`s the checker gives the anonymous namespace and
/// nvcc's namespace of names with internal linkage, to be rewritten once
/// the file's unique part is known (`crate::unnamed_namespace::rename`).
pub(crate) fn placeholder_source_names() -> (String, String) {
    (source_name(ANONYMOUS.1), source_name(INTERNAL.1))
}

/// 5.1.3 `<nested-name> ::= N <prefix> <unqualified-name> E` of a key
/// (`sim::Particle` is `N3sim8ParticleE`), without substitutions; a key
/// in the global namespace is its `<source-name>`.
fn nested_name(key: &str) -> String {
    if !key.contains("::") {
        return component(key);
    }
    let parts: String = key.split("::").map(component).collect();
    format!("N{parts}E")
}

/// The name a key gives in the global namespace's terms: its last
/// component (`ck` for `sim::ck`), the name of an `extern "C"` function,
/// which C linkage does not qualify.
pub fn unqualified(key: &str) -> &str {
    key_parts(key).last().copied().unwrap_or(key)
}

/// The components of a key, split outside template arguments
/// (`parser::split_key`), a conversion function's name whole: the type it
/// names may be qualified itself (`a::S::operator b::T`).
fn key_parts(key: &str) -> Vec<&str> {
    match split_member(key) {
        Some((scope, name)) if name.starts_with("operator ") => {
            let mut parts = crate::parser::split_key(scope);
            parts.push(name);
            parts
        }
        _ => crate::parser::split_key(key),
    }
}

/// A qualified key's scope and last name (`S::operator b::T` is `S` and
/// `operator b::T`; `Vec<ns::T>::sum` is `Vec<ns::T>` and `sum`), or
/// `None` for an unqualified one.
pub fn split_member(key: &str) -> Option<(&str, &str)> {
    let operator = key
        .match_indices("operator ")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || key[..i].ends_with("::"));
    match operator {
        Some(0) => None,
        Some(i) => Some((&key[..i - 2], &key[i..])),
        None => {
            let parts = crate::parser::split_key(key);
            let last = *parts.last()?;
            (parts.len() > 1).then(|| (&key[..key.len() - last.len() - 2], last))
        }
    }
}

/// CV-qualifiers in the ABI's order: `r` (restrict), `V`, `K`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Quals {
    restrict: bool,
    volatile: bool,
    konst: bool,
}

impl Quals {
    const NONE: Quals = Quals {
        restrict: false,
        volatile: false,
        konst: false,
    };

    fn is_empty(self) -> bool {
        self == Quals::NONE
    }

    pub(crate) fn code(self) -> String {
        let mut s = String::new();
        for (on, c) in [
            (self.restrict, 'r'),
            (self.volatile, 'V'),
            (self.konst, 'K'),
        ] {
            if on {
                s.push(c);
            }
        }
        s
    }
}

pub(crate) fn quals(konst: bool, volatile: bool, restrict: bool) -> Quals {
    Quals {
        restrict,
        volatile,
        konst,
    }
}

/// Whether `ty` is a `__restrict__` pointer (the qualifier lives on the
/// pointer type in `CType`, `const` and `volatile` on what holds it).
fn is_restrict(ty: &CType) -> bool {
    matches!(ty, CType::Pointer { restrict: true, .. })
}

/// The qualifiers a pointer gives the object it points to.
fn pointee_quals(ty: &CType) -> Quals {
    match ty {
        CType::Pointer {
            pointee,
            pointee_const,
            pointee_volatile,
            ..
        } => quals(*pointee_const, *pointee_volatile, is_restrict(pointee)),
        CType::Ref {
            referent,
            referent_const,
            referent_volatile,
            ..
        } => quals(*referent_const, *referent_volatile, is_restrict(referent)),
        _ => Quals::NONE,
    }
}

/// The qualifiers of an array's element: the array's, and the element's
/// own `__restrict__` (`float *__restrict__ a[4]`).
fn element_quals(q: Quals, elem: &CType) -> Quals {
    Quals {
        restrict: q.restrict || is_restrict(elem),
        ..q
    }
}

/// The builtin type's code, or `None` for a type that is a substitution
/// candidate (5.1.5 `<builtin-type>`).
fn builtin(ty: &CType, spelling: &Spelling) -> Option<&'static str> {
    Some(match (ty, spelling) {
        (CType::Int { .. }, Spelling::Enum(tag)) if !tag.is_empty() => return None,
        (CType::Void, _) => "v",
        (CType::Bool, _) => "b",
        (CType::Int { bits: 8, signed }, s) => match (signed, s) {
            (false, _) => "h",
            (true, Spelling::SignedChar) => "a",
            (true, _) => "c",
        },
        (CType::Int { bits: 16, signed }, _) => pick(*signed, "s", "t"),
        (CType::Int { bits: 32, signed }, _) => pick(*signed, "i", "j"),
        (CType::Int { signed, .. }, Spelling::LongLong) => pick(*signed, "x", "y"),
        (CType::Int { signed, .. }, _) => pick(*signed, "l", "m"),
        (CType::Float { bits: 32 }, _) => "f",
        (CType::Float { .. }, _) => "d",
        _ => return None,
    })
}

fn pick(signed: bool, s: &'static str, u: &'static str) -> &'static str {
    if signed {
        s
    } else {
        u
    }
}

/// 5.1.3's `<operator-name>` of an operator function's name taking
/// `operands` operands (which tells unary `-` from binary `-`).
fn operator_code(name: &str, operands: usize) -> Option<&'static str> {
    let op = name.strip_prefix("operator")?;
    let unary = operands == 1;
    Some(match op {
        "+" if unary => "ps",
        "-" if unary => "ng",
        "*" if unary => "de",
        "&" if unary => "ad",
        "+" => "pl",
        "-" => "mi",
        "*" => "ml",
        "/" => "dv",
        "%" => "rm",
        "&" => "an",
        "|" => "or",
        "^" => "eo",
        "=" => "aS",
        "+=" => "pL",
        "-=" => "mI",
        "*=" => "mL",
        "/=" => "dV",
        "%=" => "rM",
        "&=" => "aN",
        "|=" => "oR",
        "^=" => "eO",
        "<<" => "ls",
        ">>" => "rs",
        "<<=" => "lS",
        ">>=" => "rS",
        "==" => "eq",
        "!=" => "ne",
        "<" => "lt",
        ">" => "gt",
        "<=" => "le",
        ">=" => "ge",
        "!" => "nt",
        "&&" => "aa",
        "||" => "oo",
        "++" => "pp",
        "--" => "mm",
        "," => "cm",
        "->" => "pt",
        "()" => "cl",
        "[]" => "ix",
        "~" => "co",
        _ => return None,
    })
}

/// `<source-name>`: the identifier after its length.
pub(crate) fn source_name(name: &str) -> String {
    format!("{}{name}", name.len())
}

/// The name a struct or enumeration is mangled by; a template
/// parameter's placeholder is its `<template-param>` (`T_`, `T0_`, ...).
fn class_name(ty: &CType, spelling: &Spelling) -> String {
    if let Some(i) = crate::types::template_param_index(ty) {
        return match i {
            0 => "T_".to_string(),
            i => format!("T{}_", i - 1),
        };
    }
    if let Some(c) = ty.struct_def().and_then(|d| d.closure.as_deref()) {
        return Mangler::default().closure(c);
    }
    if let Some(inst) = ty.struct_def().and_then(|d| d.instance_of.as_deref()) {
        return instance_key(inst);
    }
    match (ty, spelling) {
        // `CUtensorMap` is a typedef of `struct CUtensorMap_st` in cuda.h.
        (CType::Struct(s), _) if s.id == TENSOR_MAP_ID => source_name("CUtensorMap_st"),
        (CType::Struct(s), _) => nested_name(&s.name),
        (CType::Half(h), _) => source_name(h.name()),
        (_, Spelling::Enum(tag)) => nested_name(tag),
        _ => String::new(),
    }
}

/// Whether `inst` is of a template in namespace `::std` (not libcu++'s
/// `cuda::std`), whose name starts `St`.
fn is_std_template(inst: &crate::templates::ClassInstance) -> bool {
    inst.template.starts_with("std::")
}

/// A class template instance's mangling without substitutions: its key
/// as a substitution candidate.
fn instance_key(inst: &crate::templates::ClassInstance) -> String {
    let parts: String = inst.template.split("::").map(component).collect();
    let mut args = String::new();
    for (a, k) in inst.args.iter().zip(&inst.kinds) {
        args.push_str(&Mangler::default().template_arg(a, k));
    }
    if inst.template.contains("::") {
        format!("N{parts}I{args}EE")
    } else {
        format!("{parts}I{args}E")
    }
}

/// A return type the pattern could not read, which depends on the
/// parameters through a class template's member (SFINAE's `typename
/// std::enable_if<C, T>::type`), as nvcc spells it from the tokens
/// (`dependent`), with the candidates it adds; `None` for any other.
fn dependent_return(
    m: &Mangler,
    cx: &dependent::Context<'_>,
    shape: &crate::ast::FunctionDecl,
) -> Option<(String, Mangler)> {
    if shape.deduced_ret.is_some() {
        return None;
    }
    let tokens = dependent::return_tokens(cx.template)?;
    let mut trial = m.clone();
    let text = dependent::return_type(&mut trial, cx, tokens)?;
    // A pattern that read the type kept a value it could not compute as
    // a stand-in (`!is_integral<T>::value` as `false`): the expression
    // (`X...E`) is what nvcc names.
    (shape.ret == CType::Void || text.contains('X')).then_some((text, trial))
}

/// A template's return type as its declaration writes it (5.1.5): the
/// type (a reference as one), or the placeholder `auto` (`Da`) or
/// `decltype(auto)` (`Dc`), or `DT <expression> E` for a trailing
/// `decltype(expr)` over `params`.
fn declared_return(
    m: &mut Mangler,
    shape: &crate::ast::FunctionDecl,
    params: &[crate::ast::ParamDecl],
) -> String {
    use crate::ast::DeducedRet;
    match &shape.deduced_ret {
        Some(DeducedRet::Auto) => "Da".to_string(),
        Some(DeducedRet::DecltypeAuto) => "Dc".to_string(),
        Some(DeducedRet::Decltype(e)) => format!("DT{}E", expression(e, params)),
        // A reference is `R` (`O` for an rvalue one) and the referenced
        // type (`RT_`), though the declaration's type is the pointer it
        // is lowered as.
        None => match (shape.returns, &shape.ret) {
            (Returns::RRef, CType::Pointer { pointee, .. }) => {
                m.rvalue_reference(pointee, pointee_quals(&shape.ret), &Spelling::Plain)
            }
            (Returns::LRef, CType::Pointer { pointee, .. }) => {
                m.reference(pointee, pointee_quals(&shape.ret), &Spelling::Plain)
            }
            (_, ret) => m.ty(ret, Quals::NONE, &Spelling::Plain),
        },
    }
}

/// 5.1.6 `<expression>` for the forms a `decltype` over a function's
/// parameters takes: the parameters (`fp_`, `fp0_`, ...), integer and
/// `bool` literals, unary and binary operators, calls (`cl ... E`) and
/// other names (as written).
fn expression(e: &crate::ast::Expr, params: &[crate::ast::ParamDecl]) -> String {
    use crate::ast::ExprKind;
    match &e.kind {
        ExprKind::Ident(name) => {
            match params.iter().position(|p| p.name.as_deref() == Some(name)) {
                Some(0) => "fp_".to_string(),
                Some(i) => format!("fp{}_", i - 1),
                None => source_name(name),
            }
        }
        ExprKind::IntLit {
            value,
            ty,
            spelling,
        } => {
            let code = Mangler::default().ty(ty, Quals::NONE, spelling);
            format!("L{code}{value}E")
        }
        ExprKind::BoolLit(b) => format!("Lb{}E", i32::from(*b)),
        ExprKind::Binary { op, lhs, rhs } => format!(
            "{}{}{}",
            operator_code(&format!("operator{}", op.as_str()), 2).unwrap_or_default(),
            expression(lhs, params),
            expression(rhs, params)
        ),
        ExprKind::Unary { op, operand } => {
            let code = operator_code(&format!("operator{}", op.as_str()), 1).unwrap_or_default();
            format!("{code}{}", expression(operand, params))
        }
        ExprKind::Call { callee, args } => {
            let args: String = args.iter().map(|a| expression(a, params)).collect();
            format!("cl{}{args}E", expression(callee, params))
        }
        _ => String::new(),
    }
}

/// The substitution candidates seen so far, each by its full mangling
/// without substitutions (equal text is the same type).
#[derive(Clone, Default)]
struct Mangler {
    candidates: Vec<String>,
}

impl Mangler {
    /// One `<template-arg>`: a type, or 5.1.6's `<expr-primary>` for a
    /// value (`Li16E`, `Lb1E`, `Lin1E` for -1).
    fn template_arg(
        &mut self,
        a: &crate::templates::ArgValue,
        kind: &crate::templates::ParamKind,
    ) -> String {
        use crate::templates::{ArgValue, ParamKind};
        match (a, kind) {
            (
                ArgValue::Type {
                    ty,
                    is_const,
                    is_volatile,
                    spelling,
                },
                _,
            ) => self.ty(ty, quals(*is_const, *is_volatile, false), spelling),
            (ArgValue::Int(v, ty), ParamKind::Value(_, spelling)) => {
                let code = self.ty(ty, Quals::NONE, spelling);
                match (ty, *v < 0) {
                    (CType::Bool, _) => format!("L{code}{}E", i32::from(*v != 0)),
                    (_, true) => format!("L{code}n{}E", v.unsigned_abs()),
                    (_, false) => format!("L{code}{v}E"),
                }
            }
            (ArgValue::Int(v, _), ParamKind::Type | ParamKind::Template(_)) => format!("Li{v}E"),
            // A type pack's expansion in a pattern (`Ts...` of `tl<Ts...>`,
            // `crate::templates::expansion`): `Dp` and the parameter, each
            // a substitution candidate (`2tlIJDpT_EE`).
            (ArgValue::Param(i), ParamKind::Type) => {
                let param = crate::types::template_param(*i, "");
                let expansion = format!("Dp{}", key(&param, Quals::NONE, &Spelling::Plain));
                if let Some(s) = self.substitution(&expansion) {
                    return s;
                }
                let out = format!("Dp{}", self.ty(&param, Quals::NONE, &Spelling::Plain));
                self.candidates.push(expansion);
                out
            }
            // 5.1.5 `<template-param>` as an expression (5.1.6 `X
            // <expression> E`): `XT0_E`; a value pack's expansion is the
            // same (`2ilIJXT_EE`).
            (ArgValue::Param(i), _) => match i {
                0 => "XT_E".to_string(),
                i => format!("XT{}_E", i - 1),
            },
            // `&f` as an expression (5.1.6 `X <expression> E`, `ad` its
            // operator, `L <mangled-name> E` the function), as nvcc writes
            // it whether the argument says `f` or `&f`.
            (ArgValue::Func { link, .. }, _) => match link {
                crate::templates::FuncLink::C(name) => format!("XadL{name}EE"),
                crate::templates::FuncLink::Cxx { key, params } => {
                    let params: Vec<ParamType<'_>> = params.iter().map(ParamType::plain).collect();
                    format!("XadL_Z{}EE", self.encoding(key, None, &params, None))
                }
            },
            // A template template argument: the template's name, a
            // substitution candidate as a type's name is (`5MaxOp`,
            // `N2ns5MinOpE`).
            (ArgValue::Template(key), _) => self.template_name(key),
            // `R` (`O` for an rvalue reference) and the referenced type,
            // a candidate as a reference parameter's type is (`JRffE`,
            // `R3Add`, `IOfE`).
            (ArgValue::LvalueRef(t) | ArgValue::RvalueRef(t), _) => match &**t {
                ArgValue::Type {
                    ty,
                    is_const,
                    is_volatile,
                    spelling,
                } => {
                    let code = if matches!(a, ArgValue::RvalueRef(_)) {
                        'O'
                    } else {
                        'R'
                    };
                    let q = quals(*is_const, *is_volatile, false);
                    self.reference_as(code, ty, q, spelling)
                }
                other => self.template_arg(other, kind),
            },
            // 5.1.5 `<template-arg> ::= J <template-arg>* E`: an argument
            // pack, each argument as its parameter's kind says.
            // A pattern's expansion among them is its parameter's
            // (`IJT_DpT0_E`).
            (ArgValue::Pack(elems), _) => {
                let args: String = elems
                    .iter()
                    .map(|e| match crate::templates::expanded_param(e) {
                        Some(i) => self.template_arg(&ArgValue::Param(i), kind),
                        None => self.template_arg(e, kind),
                    })
                    .collect();
                format!("J{args}E")
            }
        }
    }

    /// 5.1.2 `<encoding>` (the name after `_Z`) of the function keyed
    /// `key` with these parameters: see [`member`]. A function named
    /// inside another name (a template argument's `L_Z <encoding> E`)
    /// shares that name's substitutions.
    fn encoding(
        &mut self,
        key: &str,
        this: Option<ThisQuals>,
        params: &[ParamType<'_>],
        converts_to: Option<ParamType<'_>>,
    ) -> String {
        let operands = params.len() + usize::from(this.is_some());
        let names = key_parts(key);
        let mut parts: Vec<String> = names.iter().map(|n| component(n)).collect();
        if let Some(to) = converts_to {
            // 5.1.3 `cv <type>`: a conversion function, by its type (after
            // the class, whose prefixes come first).
            parts.pop();
            let class = self.prefixed(&parts, this.unwrap_or_default());
            let class = class.strip_suffix('E').unwrap_or(&class).to_string();
            let code = format!("cv{}", self.ty(to.ty, Quals::NONE, to.spelling));
            let mut out = format!("{class}{code}E");
            self.params(params, &mut out);
            return out;
        }
        if let Some(last) = names.last() {
            if let Some(code) = operator_code(last, operands) {
                parts.pop();
                parts.push(code.to_string());
            } else if names.len() >= 2 && names[names.len() - 2] == *last {
                parts.pop();
                parts.push("C1".to_string());
            } else if last.starts_with('~') {
                // The complete-object destructor.
                parts.pop();
                parts.push("D1".to_string());
            }
        }
        let mut out = if parts.len() == 1 && this.is_none() {
            parts.pop().unwrap_or_default()
        } else {
            self.prefixed(&parts, this.unwrap_or_default())
        };
        self.params(params, &mut out);
        out
    }

    /// A function's parameter types after its name (`v` for none).
    fn params(&mut self, params: &[ParamType<'_>], out: &mut String) {
        if params.is_empty() {
            out.push('v');
            return;
        }
        for p in params {
            let text = match p.reference {
                Some((c, v)) if p.rvalue => {
                    self.rvalue_reference(p.ty, quals(c, v, is_restrict(p.ty)), p.spelling)
                }
                Some((c, v)) => self.reference(p.ty, quals(c, v, is_restrict(p.ty)), p.spelling),
                // The parameter's own qualifiers are not part of its type.
                None => self.ty(p.ty, Quals::NONE, p.spelling),
            };
            out.push_str(&text);
        }
    }

    /// A class nested in a class template's instance: `N <instance>
    /// <source-name> E`, the instance a substitution when seen before
    /// (`NS2_11TempStorageE` after the instance's constructor's name).
    fn nested_in_instance(&mut self, def: &crate::types::StructDef) -> String {
        let Some(inst) = def.enclosing_instance.as_deref() else {
            return String::new();
        };
        let last = key_parts(&def.name).last().copied().unwrap_or_default();
        let prefix = match self.substitution(&instance_key(inst)) {
            Some(sub) => sub,
            None => {
                let inner = self.instance_inner(inst);
                self.candidates.push(instance_key(inst));
                inner
            }
        };
        format!("N{prefix}{}E", source_name(last))
    }

    /// The inside of a class template instance's name: the template's
    /// name (after its namespaces, each prefix a substitution candidate,
    /// and the template name one too) and `I <template-args> E`
    /// (`3gpu3VecIfLi4EE` for `gpu::Vec<float, 4>`).
    /// `N [K] <instance> <name>` of a member template of class template
    /// instance `class`, before its template arguments: the instance's
    /// name and arguments (`1AIfE`, both candidates), then the member's
    /// name, `C1` for a constructor (`_ZN1AIfEC1IiEERKS_IT_E`), an
    /// operator's code for an operator.
    fn instance_member_prefix(
        &mut self,
        class: &crate::types::StructDef,
        name: Option<&&str>,
        operator: Option<&str>,
        shape: &crate::ast::FunctionDecl,
    ) -> String {
        let method = shape.method.as_ref();
        let this = method.map(ThisQuals::of).unwrap_or_default();
        let mut out = format!("N{}", this.code());
        if let Some(inst) = class.instance_of.as_deref() {
            out.push_str(&self.instance_inner(inst));
            self.candidates.push(instance_key(inst));
        }
        if method.is_some_and(|m| m.is_ctor) {
            out.push_str("C1");
        } else if let Some(code) = operator {
            out.push_str(code);
        } else {
            out.push_str(&source_name(name.copied().unwrap_or_default()));
        }
        out
    }

    fn instance_inner(&mut self, inst: &crate::templates::ClassInstance) -> String {
        let parts: Vec<String> = inst.template.split("::").map(component).collect();
        let prefix_key = |n: usize| -> String {
            if n == 1 {
                parts[0].clone()
            } else {
                format!("N{}E", parts[..n].concat())
            }
        };
        // 5.1.7: `::std::` is `St`, no candidate of its own
        // (`NSt16remove_referenceIT_E4typeE`).
        let in_std = is_std_template(inst);
        let mut out = String::new();
        let mut start = 0;
        for n in (1 + usize::from(in_std)..=parts.len()).rev() {
            if let Some(sub) = self.substitution(&prefix_key(n)) {
                out.push_str(&sub);
                start = n;
                break;
            }
        }
        for (i, part) in parts.iter().enumerate().skip(start) {
            if i == 0 && in_std {
                out.push_str("St");
                continue;
            }
            out.push_str(part);
            self.candidates.push(prefix_key(i + 1));
        }
        out.push('I');
        for (a, k) in inst.args.iter().zip(&inst.kinds) {
            out.push_str(&self.template_arg(a, k));
        }
        out.push('E');
        out
    }

    /// A class template's name as a template argument: its `<source-name>`
    /// or nested name, a substitution when seen before, each prefix and
    /// the whole a candidate otherwise.
    fn template_name(&mut self, key: &str) -> String {
        let whole = nested_name(key);
        if let Some(sub) = self.substitution(&whole) {
            return sub;
        }
        let out = self.prefixes(&whole);
        self.candidates.push(whole);
        out
    }

    /// A closure type's name (5.1.2 `<local-name>`, 5.1.8
    /// `<closure-type-name>`): `Z <context> E Ul <lambda-sig> E [<n>] _`.
    fn closure(&mut self, c: &crate::types::Closure) -> String {
        let (context, unnamed) = self.closure_parts(c);
        format!("Z{context}E{unnamed}")
    }

    /// A closure type's context (the enclosing function's encoding) and
    /// its own name (`UlfE0_`).
    fn closure_parts(&mut self, c: &crate::types::Closure) -> (String, String) {
        let mut context = String::new();
        match &c.context {
            crate::types::ClosureContext::Encoding(e) => context.push_str(e),
            crate::types::ClosureContext::Function { key, params } => {
                context.push_str(&self.name(key));
                self.params(&param_types(params), &mut context);
            }
        }
        let mut unnamed = String::from("Ul");
        self.params(&param_types(&c.sig), &mut unnamed);
        unnamed.push('E');
        if c.discriminator > 0 {
            unnamed.push_str(&(c.discriminator - 1).to_string());
        }
        unnamed.push('_');
        (context, unnamed)
    }

    /// `R` and the referenced type.
    fn reference(&mut self, ty: &CType, q: Quals, spelling: &Spelling) -> String {
        self.reference_as('R', ty, q, spelling)
    }

    /// `O` and the referenced type: an rvalue reference.
    fn rvalue_reference(&mut self, ty: &CType, q: Quals, spelling: &Spelling) -> String {
        self.reference_as('O', ty, q, spelling)
    }

    /// A reference of kind `code` (`R` or `O`) to `ty`, a candidate.
    fn reference_as(&mut self, code: char, ty: &CType, q: Quals, spelling: &Spelling) -> String {
        let key = format!("{code}{}", key(ty, q, spelling));
        if let Some(s) = self.substitution(&key) {
            return s;
        }
        let out = format!("{code}{}", self.ty(ty, q, spelling));
        self.candidates.push(key);
        out
    }

    /// The type `ty` with qualifiers `q`, with substitutions.
    fn ty(&mut self, ty: &CType, q: Quals, spelling: &Spelling) -> String {
        // An array's qualifiers belong to its element.
        if let CType::Array { elem, len } = ty {
            let key = key(ty, q, spelling);
            if let Some(s) = self.substitution(&key) {
                return s;
            }
            let elem_quals = element_quals(q, elem);
            let out = format!(
                "A{}_{}",
                array_bound(*len),
                self.ty(elem, elem_quals, spelling)
            );
            self.candidates.push(key);
            return out;
        }
        if q.is_empty() {
            if let Some(b) = builtin(ty, spelling) {
                return b.to_string();
            }
        }
        let key = key(ty, q, spelling);
        if let Some(s) = self.substitution(&key) {
            return s;
        }
        let out = if !q.is_empty() {
            format!("{}{}", q.code(), self.ty(ty, Quals::NONE, spelling))
        } else if let CType::Pointer { pointee, .. } = ty {
            format!("P{}", self.ty(pointee, pointee_quals(ty), spelling))
        } else if let CType::Ref {
            referent, rvalue, ..
        } = ty
        {
            let code = if *rvalue { 'O' } else { 'R' };
            format!("{code}{}", self.ty(referent, pointee_quals(ty), spelling))
        } else if let Some(c) = ty.struct_def().and_then(|d| d.closure.clone()) {
            self.closure(&c)
        } else if let Some(inst) = ty.struct_def().and_then(|d| d.instance_of.clone()) {
            let inner = self.instance_inner(&inst);
            // A template directly in `std` is an unscoped name
            // (`St16remove_referenceIfE`).
            let unscoped = is_std_template(&inst) && inst.template.matches("::").count() == 1;
            if inst.template.contains("::") && !unscoped {
                format!("N{inner}E")
            } else {
                inner
            }
        } else if let Some(def) = ty.struct_def().filter(|d| d.enclosing_instance.is_some()) {
            self.nested_in_instance(def)
        } else if let CType::Function(f) = ty {
            // 5.1.5.3 `F <return type> <parameter types> E`.
            let mut out = format!("F{}", self.ty(&f.ret, Quals::NONE, spelling));
            if f.params.is_empty() {
                out.push('v');
            }
            for p in &f.params {
                out.push_str(&self.ty(p, Quals::NONE, &Spelling::Plain));
            }
            out.push('E');
            out
        } else {
            let name = class_name(ty, spelling);
            self.prefixes(&name)
        };
        self.candidates.push(key);
        out
    }

    /// A nested name `N ... E` (from [`nested_name`]) with its longest
    /// prefix seen before replaced by a substitution, and each prefix not
    /// seen before made a candidate (5.1.8: `sim::Particle` after
    /// `sim::f` is `NS_8ParticleE`). The whole name is not made one here:
    /// a type is a candidate as a type, a function's own name never.
    fn prefixes(&mut self, name: &str) -> String {
        let Some(inner) = name.strip_prefix('N').and_then(|n| n.strip_suffix('E')) else {
            return name.to_string();
        };
        let parts: Vec<String> = split_source_names(inner)
            .into_iter()
            .map(str::to_string)
            .collect();
        self.prefixed(&parts, ThisQuals::default())
    }

    /// The name of an entity with key `key`: a `<source-name>`, or a
    /// nested name whose prefixes become substitution candidates.
    fn name(&mut self, key: &str) -> String {
        let name = nested_name(key);
        self.prefixes(&name)
    }

    /// `N [K] <parts> E` with its longest prefix seen before replaced by a
    /// substitution, and each prefix not seen before made a candidate.
    /// nvcc's namespace of names with internal linkage ([`INTERNAL`]) is a
    /// candidate of its own, but the prefixes after it are the namespaces
    /// they name: `ns::Stat` after `_ZN<internal>2ns1fE...` is `NS0_4StatE`.
    fn prefixed(&mut self, parts: &[String], this: ThisQuals) -> String {
        let internal = usize::from(parts.first() == Some(&source_name(INTERNAL.1)));
        let key = |n: usize| -> String {
            let named = if n > internal {
                &parts[internal..n]
            } else {
                &parts[..n]
            };
            match named {
                [one] => one.to_string(),
                _ => format!("N{}E", named.concat()),
            }
        };
        let mut out = format!("N{}", this.code());
        let mut start = 0;
        for n in (1..parts.len()).rev() {
            if let Some(sub) = self.substitution(&key(n)) {
                out.push_str(&sub);
                start = n;
                break;
            }
        }
        for (i, part) in parts.iter().enumerate().skip(start) {
            out.push_str(part);
            if i + 1 < parts.len() {
                self.candidates.push(key(i + 1));
            }
        }
        out.push('E');
        out
    }

    /// `S_`, `S0_`, ... for a candidate seen before.
    fn substitution(&self, key: &str) -> Option<String> {
        let i = self.candidates.iter().position(|c| c == key)?;
        Some(stdx::itanium::substitution(i))
    }
}

/// The `<source-name>`s (`3sim8Particle`) of a nested name's inside, in
/// order.
fn split_source_names(mut s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    while !s.is_empty() {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = s[..digits].parse().unwrap_or(0);
        let end = (digits + len).min(s.len());
        if digits == 0 || !s.is_char_boundary(end) {
            parts.push(s);
            break;
        }
        parts.push(&s[..end]);
        s = &s[end..];
    }
    parts
}

/// 5.1.5.4 `<array-type>`'s dimension: the length, or in a template's
/// pattern the value parameter that is its bound (`T0_` of `RAT0__KS0_`,
/// `const T (&)[N]`), a `<template-param>` as an expression is written.
fn array_bound(len: Option<u64>) -> String {
    match len.map(|l| (l, crate::types::dependent_len_index(l))) {
        Some((_, Some(0))) => "T_".to_string(),
        Some((_, Some(i))) => format!("T{}_", i - 1),
        Some((l, None)) => l.to_string(),
        None => "0".to_string(),
    }
}

/// The mangling of a type without substitutions.
fn key(ty: &CType, q: Quals, spelling: &Spelling) -> String {
    match ty {
        CType::Array { elem, len } => {
            let elem_quals = element_quals(q, elem);
            format!("A{}_{}", array_bound(*len), key(elem, elem_quals, spelling))
        }
        _ if !q.is_empty() => format!("{}{}", q.code(), key(ty, Quals::NONE, spelling)),
        CType::Pointer { pointee, .. } => format!("P{}", key(pointee, pointee_quals(ty), spelling)),
        CType::Ref {
            referent, rvalue, ..
        } => {
            let code = if *rvalue { 'O' } else { 'R' };
            format!("{code}{}", key(referent, pointee_quals(ty), spelling))
        }
        CType::Function(f) => {
            let params: String = if f.params.is_empty() {
                "v".into()
            } else {
                f.params
                    .iter()
                    .map(|p| key(p, Quals::NONE, &Spelling::Plain))
                    .collect()
            };
            format!("F{}{params}E", key(&f.ret, Quals::NONE, spelling))
        }
        _ => builtin(ty, spelling)
            .map(str::to_string)
            .unwrap_or_else(|| class_name(ty, spelling)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stdx::itanium::{demangle, plain_name};

    fn ptr(pointee: CType, konst: bool, volatile: bool) -> CType {
        CType::Pointer {
            pointee: Box::new(pointee),
            pointee_const: konst,
            pointee_volatile: volatile,
            restrict: false,
        }
    }

    #[test]
    fn vector_add_as_nvcc() {
        let cf = ptr(CType::FLOAT, true, false);
        let f = ptr(CType::FLOAT, false, false);
        let params = [
            ParamType::plain(&cf),
            ParamType::plain(&cf),
            ParamType::plain(&f),
            ParamType::plain(&CType::INT),
        ];
        let name = function("vectorAdd", &params);
        assert_eq!(name, "_Z9vectorAddPKfS0_Pfi");
        assert_eq!(
            demangle(&name).as_deref(),
            Some("vectorAdd(const float*, const float*, float*, int)")
        );
        assert_eq!(plain_name(&name), "vectorAdd");
        assert_eq!(function("k7", &[]), "_Z2k7v");
        assert_eq!(demangle("_Z2k7v").as_deref(), Some("k7()"));
    }

    #[test]
    fn builtins_by_spelling() {
        let c = CType::Int {
            bits: 8,
            signed: true,
        };
        let signed_char = ParamType {
            ty: &c,
            spelling: &Spelling::SignedChar,
            reference: None,
            rvalue: false,
        };
        let ll = ParamType {
            ty: &CType::LONG,
            spelling: &Spelling::LongLong,
            reference: None,
            rvalue: false,
        };
        let ull = ParamType {
            ty: &CType::ULONG,
            spelling: &Spelling::LongLong,
            reference: None,
            rvalue: false,
        };
        let params = [
            ParamType::plain(&c),
            signed_char,
            ParamType::plain(&CType::LONG),
            ParamType::plain(&CType::ULONG),
            ll,
            ull,
            ParamType::plain(&CType::Bool),
            ParamType::plain(&CType::DOUBLE),
        ];
        assert_eq!(function("k", &params), "_Z1kcalmxybd");
    }

    #[test]
    fn qualifiers_and_substitutions() {
        // nvcc: `k5(float **, float **, const float **, float *const *,
        // int &, const int &)` is `_Z2k5PPfS0_PPKfPKS_RiRKi`.
        let pf = ptr(CType::FLOAT, false, false);
        let ppf = ptr(pf.clone(), false, false);
        let ppkf = ptr(ptr(CType::FLOAT, true, false), false, false);
        let pkpf = ptr(pf.clone(), true, false);
        let params = [
            ParamType::plain(&ppf),
            ParamType::plain(&ppf),
            ParamType::plain(&ppkf),
            ParamType::plain(&pkpf),
            ParamType {
                ty: &CType::INT,
                spelling: &Spelling::Plain,
                reference: Some((false, false)),
                rvalue: false,
            },
            ParamType {
                ty: &CType::INT,
                spelling: &Spelling::Plain,
                reference: Some((true, false)),
                rvalue: false,
            },
        ];
        let name = function("k5", &params);
        assert_eq!(name, "_Z2k5PPfS0_PPKfPKS_RiRKi");
        assert_eq!(
            demangle(&name).as_deref(),
            Some("k5(float**, float**, const float**, float* const*, int&, const int&)")
        );
        // `volatile int *`, `const volatile int *`, and a restrict pointer
        // as the parameter itself (dropped): `PViPVKiPf`.
        let vi = ptr(CType::INT, false, true);
        let cvi = ptr(CType::INT, true, true);
        let rf = CType::Pointer {
            pointee: Box::new(CType::FLOAT),
            pointee_const: false,
            pointee_volatile: false,
            restrict: true,
        };
        let name = function(
            "q",
            &[
                ParamType::plain(&vi),
                ParamType::plain(&cvi),
                ParamType::plain(&rf),
            ],
        );
        assert_eq!(name, "_Z1qPViPVKiPf");
        assert_eq!(
            demangle(&name).as_deref(),
            Some("q(volatile int*, const volatile int*, float*)")
        );
    }

    #[test]
    fn arrays_and_seq_ids() {
        let arr = ptr(
            CType::Array {
                elem: Box::new(CType::FLOAT),
                len: Some(4),
            },
            false,
            false,
        );
        assert_eq!(function("m", &[ParamType::plain(&arr)]), "_Z1mPA4_f");
        assert_eq!(demangle("_Z1mPA4_f").as_deref(), Some("m(float (*)[4])"));
        // Twelve pointer types in one (`Pf` ... `P...Pf`, candidates 0 to
        // 11), then the outermost again: candidate 11 is `SA_`.
        let pointers: Vec<CType> = (0..12)
            .map(|k| {
                let mut t = CType::FLOAT;
                for _ in 0..=k {
                    t = ptr(t, false, false);
                }
                t
            })
            .collect();
        let mut params: Vec<ParamType<'_>> = vec![ParamType::plain(&pointers[11])];
        params.push(ParamType::plain(&pointers[11]));
        let name = function("s", &params);
        assert_eq!(name, "_Z1sPPPPPPPPPPPPfSA_");
    }

    /// A struct type keyed `key` (its members do not matter to names).
    fn named_struct(key: &str, id: u32) -> CType {
        let def = crate::types::StructDef::layout(id, key.to_string(), true, Vec::new(), 1);
        CType::Struct(std::sync::Arc::new(def))
    }

    #[test]
    fn nested_names_as_nvcc() {
        // nvcc 13.5: `namespace sim { __global__ void kineticEnergy(const
        // Particle *, int, float *); }`.
        let particle = named_struct("sim::Particle", 2000);
        let cp = ptr(particle.clone(), true, false);
        let f = ptr(CType::FLOAT, false, false);
        let params = [
            ParamType::plain(&cp),
            ParamType::plain(&CType::INT),
            ParamType::plain(&f),
        ];
        let name = function("sim::kineticEnergy", &params);
        assert_eq!(name, "_ZN3sim13kineticEnergyEPKNS_8ParticleEiPf");
        assert_eq!(
            demangle(&name).as_deref(),
            Some("sim::kineticEnergy(const sim::Particle*, int, float*)")
        );
        // `sim::k2(d::V *, d::V, Particle *)`: the prefix `sim::d` is a
        // candidate of its own (`S0_`), the type `sim::d::V` the next.
        let v = named_struct("sim::d::V", 2001);
        let pv = ptr(v.clone(), false, false);
        let pp = ptr(particle.clone(), false, false);
        let name = function(
            "sim::k2",
            &[
                ParamType::plain(&pv),
                ParamType::plain(&v),
                ParamType::plain(&pp),
            ],
        );
        assert_eq!(name, "_ZN3sim2k2EPNS_1d1VES1_PNS_8ParticleE");
        // A function in another namespace: no prefix to share.
        let name = function("a::b::ab", &[ParamType::plain(&pp), ParamType::plain(&pp)]);
        assert_eq!(name, "_ZN1a1b2abEPN3sim8ParticleES3_");
        // A scoped enumeration by its key; an anonymous namespace.
        let phase = ParamType {
            ty: &CType::Int {
                bits: 8,
                signed: false,
            },
            spelling: &Spelling::Enum("sim::Phase".into()),
            reference: None,
            rvalue: false,
        };
        assert_eq!(function("act", &[phase]), "_Z3actN3sim5PhaseE");
        assert_eq!(
            function("(anonymous namespace)::anon", &[ParamType::plain(&f)]),
            "_ZN12_GLOBAL__N_14anonEPf"
        );
        assert_eq!(variable("sim::counter", false), "_ZN3sim7counterE");
        assert_eq!(variable("counter", false), "counter");
        // `static`, or in an anonymous namespace: in the placeholder of
        // nvcc's file-unique namespace; unmangled in the global namespace.
        assert_eq!(variable("counter", true), "counter");
        assert_eq!(
            variable("sim::counter", true),
            "_ZN11_INTERNAL_13sim7counterE"
        );
        assert_eq!(
            variable("(anonymous namespace)::n", false),
            "_ZN11_INTERNAL_112_GLOBAL__N_11nE"
        );
    }
}
