//! Function overloading: several functions of one name with different
//! parameter types, and the choice among them at a call (C++
//! [over.match]).
//!
//! Each overload is a function of its own to the checker: the first
//! declared keeps the plain name (so a program without overloads is
//! checked exactly as before), each later one is keyed by its readable
//! signature (`toFloat(__half)`), and all are listed under the plain name
//! ([`Overloads`]). A call ranks each viable candidate's implicit
//! conversion sequences as C++ does, simplified to the conversions kernelc
//! has: exact match (adding `const` to a pointee ranks just below the
//! identity, which is C++'s tie-break between the two), promotion,
//! conversion, user-defined (CUDA's half classes). The best candidate is
//! at least as good for every argument and better for one; a function
//! beats a template instance that is as good. No best candidate is E0007,
//! with each candidate as a label and why it failed or tied.

use rustc_hash::FxHashMap;

use super::Checker;
use crate::ast::RefQualifier;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::Expr;
use crate::types::CType;

/// The overloads of each function name.
#[derive(Default)]
pub(super) struct Overloads {
    /// Plain name → the keys (`by_name` entries) of its overloads.
    pub by_plain: FxHashMap<String, Vec<String>>,
    /// Key of a later overload → its plain name (for its Itanium name).
    pub plain_of: FxHashMap<String, String>,
    /// The key of each later overload's declarations, by their name span
    /// and name (the instances of one class template share the spans).
    pub key_at: FxHashMap<(Span, String), String>,
    /// The keys of template instances, which lose ties to functions.
    pub instances: rustc_hash::FxHashSet<String>,
}

/// How well an argument converts to a parameter: lower is better
/// ([over.ics.rank]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Rank {
    Exact,
    /// An exact match that adds `const` or `volatile` to a pointee: worse
    /// than the identity ([over.ics.rank] 3.2.6), better than the rest.
    Qualified,
    Promotion,
    Conversion,
    /// Through a constructor or conversion operator (CUDA's half classes).
    UserDefined,
}

/// The rank of converting an argument of type `from` (`null`: the
/// constant 0) to a parameter of type `to`, or `None` when it does not
/// convert.
pub(super) fn rank(from: &CType, to: &CType, null: bool) -> Option<Rank> {
    let (from, to) = (
        super::convert::strip_restrict(from).0,
        super::convert::strip_restrict(to).0,
    );
    if from == to {
        return Some(Rank::Exact);
    }
    match (&from, &to) {
        (CType::Half(_), _) | (_, CType::Half(_)) => {
            (from.is_arithmetic() || to.is_arithmetic()).then_some(Rank::UserDefined)
        }
        (f, t) if f.is_arithmetic() && t.is_arithmetic() => Some(arithmetic_rank(f, t)),
        (
            CType::Pointer {
                pointee: fp,
                pointee_const: fc,
                pointee_volatile: fv,
                ..
            },
            CType::Pointer {
                pointee: tp,
                pointee_const: tc,
                pointee_volatile: tv,
                ..
            },
        ) => {
            let drops = (*fc && !*tc) || (*fv && !*tv);
            if drops {
                None
            } else if fp == tp {
                // Adding `const`/`volatile` is a qualification adjustment.
                Some(Rank::Qualified)
            } else if **tp == CType::Void || derives_from(fp, tp) {
                Some(Rank::Conversion)
            } else {
                None
            }
        }
        (CType::Pointer { .. }, CType::Bool) => Some(Rank::Conversion),
        (CType::Int { .. }, CType::Pointer { .. }) if null => Some(Rank::Conversion),
        (a, b) if crate::types::is_dim3_uint3_pair(a, b) => Some(Rank::Conversion),
        // A derived object to its base (a reference or a copy).
        (f, t) if derives_from(f, t) => Some(Rank::Conversion),
        _ => None,
    }
}

/// Whether `from` is a class derived from class `to`.
fn derives_from(from: &CType, to: &CType) -> bool {
    match (from.struct_def(), to.struct_def()) {
        (Some(f), Some(t)) => crate::bases::is_base_of(t, f),
        _ => false,
    }
}

/// Integral promotions (to `int` from a narrower integer or `bool`) and
/// the floating promotion (`float` to `double`); any other arithmetic
/// conversion is a conversion.
fn arithmetic_rank(from: &CType, to: &CType) -> Rank {
    let promotes_to_int = match from {
        CType::Bool => true,
        CType::Int { bits, .. } => *bits < 32,
        _ => false,
    };
    match (from, to) {
        (_, &CType::INT) if promotes_to_int => Rank::Promotion,
        (CType::Float { bits: 32 }, CType::Float { bits: 64 }) => Rank::Promotion,
        _ => Rank::Conversion,
    }
}

/// A candidate's ranks, or why it is not viable.
type Ranks = Result<Vec<Rank>, String>;

impl Checker {
    /// The overload of `plain` a call with `args` chooses: its key. `None`
    /// after E0007 (no viable candidate, or no best one).
    pub(super) fn choose_overload(
        &mut self,
        plain: &str,
        keys: &[String],
        args: &[Option<Expr>],
        span: Span,
    ) -> Option<String> {
        let ranked: Vec<(String, Ranks)> = keys
            .iter()
            .map(|k| (k.clone(), self.candidate_ranks(k, args)))
            .collect();
        let viable: Vec<(&String, &Vec<Rank>)> = ranked
            .iter()
            .filter_map(|(k, r)| r.as_ref().ok().map(|r| (k, r)))
            .collect();
        let best = viable.iter().find(|(k, r)| {
            viable
                .iter()
                .all(|(k2, r2)| k == k2 || self.better(k, r, k2, r2, args))
        });
        if let Some((k, _)) = best {
            return Some((*k).clone());
        }
        let msg = if viable.is_empty() {
            format!("no overload of `{plain}` accepts these arguments")
        } else {
            format!("the call of `{plain}` is ambiguous: no overload is better than the others")
        };
        let mut d = Diagnostic::error(span, Code::E0007, msg);
        for (k, r) in &ranked {
            let decl = self.sigs[self.by_name[k.as_str()]].first_decl;
            let why = match r {
                Ok(_) => "viable".to_string(),
                Err(why) => why.clone(),
            };
            d = d.with_label(decl, format!("candidate `{}`: {why}", self.signature_of(k)));
        }
        self.diags.push(d);
        None
    }

    /// Whether candidate `a` (ranks `ra`) is better than `b` (`rb`) for a
    /// call with `args`: no argument converts worse and one converts
    /// better; or the same, and where both bind a reference, `a`'s are
    /// no more `const` and one is less ([over.ics.rank] 3.2.6: a
    /// non-`const` object calls the non-`const` `operator[]`); or the
    /// same in that too, and `a` is a function where `b` is a template
    /// instance.
    fn better(&self, a: &str, ra: &[Rank], b: &str, rb: &[Rank], args: &[Option<Expr>]) -> bool {
        let no_worse = ra.iter().zip(rb).all(|(x, y)| x <= y);
        let some_better = ra.iter().zip(rb).any(|(x, y)| x < y);
        if no_worse && some_better {
            return true;
        }
        if ra != rb {
            return false;
        }
        let (rvalue_a, rvalue_b) = (
            self.binds_rvalue_refs(a, args),
            self.binds_rvalue_refs(b, args),
        );
        if rvalue_a.iter().zip(&rvalue_b).any(|(x, y)| x != y) {
            return rvalue_a.iter().zip(&rvalue_b).all(|(x, y)| x >= y);
        }
        let both: Vec<(bool, bool)> = self
            .adds_const(a, args)
            .into_iter()
            .zip(self.adds_const(b, args))
            .filter_map(|(x, y)| Some((x?, y?)))
            .collect();
        if both.iter().any(|(x, y)| x != y) {
            return both.iter().all(|(x, y)| !x || *y);
        }
        !self.overloads.instances.contains(a) && self.overloads.instances.contains(b)
    }

    /// For each argument of a call with `args` of candidate `key`: whether
    /// the reference parameter it binds adds `const` to it (`None` for a
    /// parameter that is not a reference).
    fn adds_const(&self, key: &str, args: &[Option<Expr>]) -> Vec<Option<bool>> {
        let sig = &self.sigs[self.by_name[key]];
        args.iter()
            .zip(&sig.params)
            .zip(&sig.refs)
            .map(|((a, p), is_ref)| {
                let to_const = matches!(
                    p,
                    CType::Pointer {
                        pointee_const: true,
                        ..
                    }
                );
                let arg_const = a.as_ref().is_some_and(|a| self.lvalue_is_const(a));
                is_ref.then_some(to_const && !arg_const)
            })
            .collect()
    }

    /// For each argument of a call with `args` of candidate `key`: whether
    /// it is an rvalue that an rvalue reference parameter binds, which
    /// beats binding it to a `const` lvalue reference ([over.ics.rank]
    /// 3.2.3: `f(float &&)` over `f(const float &)` for `f(x + 1)`).
    fn binds_rvalue_refs(&self, key: &str, args: &[Option<Expr>]) -> Vec<bool> {
        let sig = &self.sigs[self.by_name[key]];
        args.iter()
            .zip(&sig.rvalue_refs)
            .map(|(a, &rvalue_ref)| rvalue_ref && a.as_ref().is_some_and(|a| self.is_rvalue(a)))
            .collect()
    }

    /// Whether argument `a` is an rvalue: no lvalue, or an lvalue made an
    /// xvalue (`std::move(x)`, a call returning `T &&`). `c ? x : y` of
    /// two lvalues is an lvalue, as C++ has it.
    fn is_rvalue(&self, a: &Expr) -> bool {
        let lvalue = match &a.kind {
            crate::typed::ExprKind::Ternary { then, els, .. } => {
                Self::is_lvalue(then) && Self::is_lvalue(els) && then.ty == els.ty
            }
            _ => Self::is_lvalue(a),
        };
        !lvalue || self.xvalues.contains(&a.span)
    }

    /// Whether candidate `key` accepts `args`.
    pub(super) fn is_viable(&self, key: &str, args: &[Option<Expr>]) -> bool {
        self.candidate_ranks(key, args).is_ok()
    }

    /// The ranks of each argument against candidate `key`'s parameters.
    fn candidate_ranks(&self, key: &str, args: &[Option<Expr>]) -> Ranks {
        let sig = &self.sigs[self.by_name[key]];
        let required = sig.defaults.iter().take_while(|d| d.is_none()).count();
        if args.len() > sig.params.len() || args.len() < required.min(sig.params.len()) {
            return Err(format!(
                "takes {} arguments, the call gives {}",
                sig.params.len(),
                args.len()
            ));
        }
        let mut ranks = Vec::new();
        for (i, (a, p)) in args.iter().zip(&sig.params).enumerate() {
            let Some(a) = a else {
                // An argument already in error fits any candidate.
                ranks.push(Rank::Exact);
                continue;
            };
            let to = if sig.refs[i] {
                let to_const = matches!(
                    p,
                    CType::Pointer {
                        pointee_const: true,
                        ..
                    }
                );
                if !to_const && self.lvalue_is_const(a) {
                    return Err(format!(
                        "argument {} is a `const` object, which a non-`const` reference cannot bind",
                        i + 1
                    ));
                }
                if sig.rvalue_refs[i] && !self.is_rvalue(a) {
                    return Err(format!(
                        "argument {} is an lvalue, which an rvalue reference cannot bind",
                        i + 1
                    ));
                }
                // `this` binds a temporary too (`S(1).f()`), unless
                // ref-qualified `&` (`f() &`).
                let this = sig.is_method && i == 0 && sig.ref_qualifier == RefQualifier::None;
                let lvalue_ref = !sig.rvalue_refs[i] && !this;
                if lvalue_ref && !to_const && self.is_rvalue(a) {
                    return Err(format!(
                        "argument {} is a temporary, which a non-`const` reference cannot bind",
                        i + 1
                    ));
                }
                p.pointee().cloned().unwrap_or(CType::Void)
            } else {
                p.clone()
            };
            let null = super::convert::is_null_const(a);
            let from = match (&a.ty, sig.refs[i]) {
                (CType::Array { elem, .. }, false) => CType::Pointer {
                    pointee: elem.clone(),
                    pointee_const: self.lvalue_is_const(a),
                    pointee_volatile: false,
                    restrict: false,
                },
                (ty, _) => ty.clone(),
            };
            match rank(&from, &to, null) {
                Some(r) => ranks.push(r),
                None => {
                    return Err(format!(
                        "argument {} is `{from}`, which does not convert to `{to}`",
                        i + 1
                    ))
                }
            }
        }
        Ok(ranks)
    }

    /// A call of one of CUDA's own functions that the program overloads:
    /// a vector maker (`make_float3(float s)`) or a built-in such as a
    /// math function (helper_math.h's `fminf(float3, float3)`, whose own
    /// body calls `fminf(float, float)`). The built-in when none of the
    /// program's overloads accepts the arguments, as the built-in is one
    /// more candidate in C++. `None` when the program's overloads decide.
    pub(super) fn builtin_beside_overloads(
        &mut self,
        name: &str,
        args: &[Option<Expr>],
        span: Span,
    ) -> Option<Option<Expr>> {
        let is_vector_maker = name
            .strip_prefix("make_")
            .is_some_and(|t| crate::types::vector_type(t).is_some());
        if !is_vector_maker && !super::builtins::is_builtin_name(name) {
            return None;
        }
        let keys = match self.overloads.by_plain.get(name) {
            Some(keys) => keys.clone(),
            None if self.by_name.contains_key(name) => vec![name.to_string()],
            None => return None,
        };
        if keys.iter().any(|k| self.candidate_ranks(k, args).is_ok()) {
            return None;
        }
        if is_vector_maker {
            return self.vector_make(name, args, span);
        }
        let args = self.decay_all(args.to_vec());
        self.builtin_call(name, args, span)
    }

    /// `name(T, U)` for the overload keyed `key`.
    pub(super) fn signature_of(&self, key: &str) -> String {
        let sig = &self.sigs[self.by_name[key]];
        let plain = self.overloads.plain_of.get(key).map_or(key, String::as_str);
        let plain = plain.split('(').next().unwrap_or(plain);
        let params: Vec<String> = (0..sig.params.len())
            .map(|i| {
                // `this` shows as the pointer it is.
                let by_ref = sig.refs[i] && !(sig.is_method && i == 0);
                shown_param(&sig.params[i], by_ref, sig.rvalue_refs[i])
            })
            .collect();
        format!("{plain}({})", params.join(", "))
    }
}

/// A parameter of type `ty` as C++ writes it: a reference parameter
/// (`by_ref`, whose `ty` is the pointer it is passed as) as `T &` or, an
/// rvalue reference, `T &&`.
pub(super) fn shown_param(ty: &CType, by_ref: bool, rvalue: bool) -> String {
    match (ty, by_ref) {
        (CType::Pointer { .. }, true) => {
            let shown = ty.to_string();
            let referenced = shown.strip_suffix('*').unwrap_or(&shown);
            format!("{referenced}{}", if rvalue { "&&" } else { "&" })
        }
        _ => ty.to_string(),
    }
}
