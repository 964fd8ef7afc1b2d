//! `struct` definitions and references.
//!
//! The parser lays a struct out as soon as its closing `}` is read, because
//! types are resolved while parsing (a typedef name is replaced by its type,
//! see `ast.rs`). That needs the sizes of member arrays, so they must be
//! constant expressions the parser can evaluate on its own: literals,
//! arithmetic and `sizeof(type)` (macros are already expanded). Enumerators
//! and `const` variables are values only sema knows, so they are rejected
//! with a hint.

use rustc_hash::FxHashMap;
use std::sync::Arc;

use super::fn_pointers::Naming;
use super::{PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, NamedCastKind, UnaryOp};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, TokenKind};
use crate::types::{CType, MemberDecl, StructDef};

/// Largest struct member array kernelc lays out (as for variables).
const MAX_MEMBER_SIZE: u64 = u32::MAX as u64;

/// Evaluates a member array size written with literals, operators,
/// `sizeof(type)`, casts to integer types and the named integer constants
/// `constant` knows
/// (themselves so written); `None` when it uses anything else.
pub(super) fn const_dim(e: &Expr, constant: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
    stdx::stack::with_stack(|| {
        let const_dim = |e: &Expr| const_dim(e, constant);
        Some(match &e.kind {
            ExprKind::Ident(name) => constant(name)?,
            // An element of a constant array (`kBits[2]`).
            ExprKind::Index { base, index } => match &base.kind {
                ExprKind::Ident(name) => constant(&format!("{name}[{}]", const_dim(index)?))?,
                _ => return None,
            },
            ExprKind::IntLit { value, .. } => i128::from(*value),
            ExprKind::CharLit(v) => i128::from(*v),
            ExprKind::BoolLit(b) => i128::from(*b),
            ExprKind::SizeofType(t) => i128::from(t.ty.size()?),
            // `static_cast<int>(Kind::Count)`, `(int)x`, `int(x)`: an
            // integer or enumeration type's conversion of a constant.
            ExprKind::Cast { ty, expr }
            | ExprKind::NamedCast {
                kind: NamedCastKind::Static,
                ty,
                expr,
            } if ty.ty.is_integer() => crate::templates::wrap_to(const_dim(expr)?, &ty.ty),
            ExprKind::Ternary { cond, then, els } => match const_dim(cond)? {
                0 => const_dim(els)?,
                _ => const_dim(then)?,
            },
            ExprKind::Unary { op, operand } => {
                let v = const_dim(operand)?;
                match op {
                    UnaryOp::Plus => v,
                    UnaryOp::Neg => -v,
                    UnaryOp::Not => i128::from(v == 0),
                    UnaryOp::BitNot => !v,
                    _ => return None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (const_dim(lhs)?, const_dim(rhs)?);
                match op {
                    BinaryOp::Add => a.checked_add(b)?,
                    BinaryOp::Sub => a.checked_sub(b)?,
                    BinaryOp::Mul => a.checked_mul(b)?,
                    BinaryOp::Div => a.checked_div(b)?,
                    BinaryOp::Rem => a.checked_rem(b)?,
                    BinaryOp::Shl => a.checked_shl(u32::try_from(b).ok()?)?,
                    BinaryOp::Shr => a.checked_shr(u32::try_from(b).ok()?)?,
                    BinaryOp::Lt => i128::from(a < b),
                    BinaryOp::Le => i128::from(a <= b),
                    BinaryOp::Gt => i128::from(a > b),
                    BinaryOp::Ge => i128::from(a >= b),
                    BinaryOp::Eq => i128::from(a == b),
                    BinaryOp::Ne => i128::from(a != b),
                    BinaryOp::BitAnd => a & b,
                    BinaryOp::BitOr => a | b,
                    BinaryOp::BitXor => a ^ b,
                    BinaryOp::LogAnd => i128::from(a != 0 && b != 0),
                    BinaryOp::LogOr => i128::from(a != 0 || b != 0),
                    BinaryOp::Comma => return None,
                }
            }
            _ => return None,
        })
    })
}

impl Parser<'_> {
    /// After `struct`: `Tag`, `Tag { members }` or `{ members }`.
    pub(super) fn struct_specifier(&mut self, kw: Span) -> PResult<CType> {
        let kw_is = |k| self.pos > 0 && self.toks[self.pos - 1].kind == TokenKind::Keyword(k);
        let (is_union, is_class) = (kw_is(Keyword::Union), kw_is(Keyword::Class));
        // `struct __align__(16) V { ... }` (or `alignas(16)`): the
        // struct's least alignment.
        let mut align = 1;
        if self.peek().kind == TokenKind::Ident && super::decl::is_align_kw(&self.peek().text) {
            let kw = self.bump().text;
            align = self.align_arg(&kw)?;
        }
        let tag = if self.peek().kind == TokenKind::Ident && !self.at_eof() {
            Some(self.bump())
        } else {
            None
        };
        let mut reserved_id = None;
        let mut bases = Vec::new();
        let mut base_access = Vec::new();
        if let Some(tag) = tag.as_ref().filter(|_| self.base_clause_follows()) {
            let (id, read) = self.base_clause(tag)?;
            reserved_id = Some(id);
            (bases, base_access) = read
                .into_iter()
                .map(|(b, a)| (b, a.unwrap_or(crate::access::Access::default_for(is_class))))
                .unzip();
        }
        if !self.is_punct(Punct::LBrace) {
            if align > 1 {
                let sp = self.span();
                return self.error(sp, Code::E0003, "expected `{` after `__align__(N)`: the alignment belongs to a struct definition");
            }
            let Some(tag) = tag else {
                let msg = format!("expected a struct name or `{{`, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            };
            if let Some(def) = self.structs.get(&self.type_key(&tag.text)) {
                return Ok(CType::Struct(def.clone()));
            }
            // `struct Tree;`, or `struct Tree *t` before any declaration:
            // a class declared, defined later or never (an opaque
            // pointer's pointee).
            return Ok(CType::Struct(self.class_stand_in(&tag)));
        }
        let key = tag.as_ref().map(|t| self.names.qualify(&t.text));
        if let (Some(t), Some(key)) = (&tag, &key) {
            let hides = self.names.block_depth > 0 && !self.defined_in_this_block(key);
            if !hides && self.structs.get(key).is_some_and(|d| !d.is_incomplete()) {
                let msg = format!("redefinition of `struct {}`", t.text);
                return self.error(t.span, Code::E0006, msg);
            }
        }
        let hidden = key.as_deref().and_then(|k| self.hidden_by_local(k));
        // The class names itself from here on (`Node *next;`), complete
        // once its `}` is read.
        let stand_in = tag.as_ref().map(|t| self.class_stand_in(t));
        self.enter()?;
        let mut class = super::classes::ClassMembers {
            // A `class`'s members are private until an access specifier.
            access: crate::access::Access::default_for(is_class),
            ..Default::default()
        };
        let in_function = self.names.block_depth > 0;
        let class_key = key.as_deref().filter(|_| !in_function);
        // The body is read in the class's scope: a nested type is the
        // class's (`Box<int, 64>::Storage`).
        let base_keys: Vec<String> = bases.iter().map(|b| b.name.clone()).collect();
        if let Some(k) = class_key {
            // The bases' members are the class's from its `{` on.
            self.names.inherit_types(k, &base_keys);
            self.inherit_constants(k, &base_keys);
        }
        let outer = class_key.map(|k| self.names.enter_scope(&super::names::key_path(k)));
        let outer_refs = std::mem::take(&mut self.reference_members);
        let members = self.struct_members(class_key, &mut class);
        let references = std::mem::replace(&mut self.reference_members, outer_refs);
        if let Some(outer) = outer {
            self.names.leave_scope(outer);
            self.enclosing_classes.pop();
        }
        self.leave();
        let members = members?;
        let id = stand_in
            .as_ref()
            .map_or_else(|| self.next_struct_id.fresh(), |s| s.id);
        let (name, tagged) = match &key {
            Some(k) => (k.clone(), true),
            None => (String::new(), false),
        };
        let shape = crate::bases::ClassShape {
            bases,
            pod: !class.non_pod,
        };
        let mut def = StructDef::lay_out_class(id, name, tagged, shape, members, align, is_union);
        for f in &mut def.fields {
            f.reference = references.contains(&f.name);
            f.spelling = class.spellings.remove(&f.name).unwrap_or_default();
        }
        def.using_members = std::mem::take(&mut class.using);
        def.access = std::mem::take(&mut class.rights);
        def.access.bases = base_access;
        if let (Some(t), Some((instance_tag, instance))) = (&tag, &self.instancing) {
            if t.text == *instance_tag {
                def.instance_of = self.instancing.take().map(|(_, i)| i);
            } else {
                // A class nested in the instance being read.
                def.enclosing_instance = Some(instance.clone());
            }
        }
        let def = Arc::new(def);
        if let Some(stand_in) = &stand_in {
            stand_in.completion.complete(&def);
        }
        let tag_span = tag.as_ref().map(|t| t.span);
        if let (Some(t), Some(_)) = (tag, key) {
            let key = self.declare_type(&t.text, t.span);
            Arc::make_mut(&mut self.structs).insert(key.clone(), def.clone());
            self.inherit_constants(&key, &base_keys);
            self.inherit_constant_names(&key, &base_keys);
            if in_function {
                self.local_structs.push((key, hidden));
            }
        }
        let ty = CType::Struct(def.clone());
        if in_function && self.local_defaults_only(&class) {
            // Its implicit default constructor runs them: an item before
            // the function that defines the class.
            self.one_local_class_with_defaults(&def.name, tag_span)?;
            self.class_bodies(&ty, class);
        } else if in_function {
            self.refuse_deferred(&class, kw);
        } else if !self.enclosing_classes.is_empty() && reserved_id.is_none() {
            self.nested_bodies.push((ty.clone(), class));
        } else if !class.deferred.is_empty()
            || !class.templates.is_empty()
            || !class.defaults.is_empty()
            || reserved_id.is_some()
        {
            let first = self.pending_items.len();
            self.member_bodies_of(&ty, class);
            if reserved_id.is_some() {
                self.parse_postponed_for(&def, first);
            }
        }
        if self.enclosing_classes.is_empty() {
            self.nested_class_bodies();
        }
        Ok(ty)
    }

    /// The complete class a local class named `key` hides, if any (read
    /// before the class names itself).
    fn hidden_by_local(&self, key: &str) -> Option<Arc<StructDef>> {
        let def = self.structs.get(key).filter(|d| !d.is_incomplete());
        def.filter(|_| self.names.block_depth > 0).cloned()
    }

    /// E0002 for a second local class named `name` with default member
    /// initializers: its implicit constructor is named by the class's name
    /// alone (not nvcc's local name), which one class only may have.
    fn one_local_class_with_defaults(&mut self, name: &str, at: Option<Span>) -> PResult<()> {
        match at {
            Some(at) if !self.local_default_names.insert(name.to_string()) => {
                let msg = format!(
                    "kernelc cannot yet compile a second local class `{name}` with default member initializers: their constructors would share one name"
                );
                self.error(at, Code::E0002, msg)
            }
            _ => Ok(()),
        }
    }

    /// Whether the class `key` was defined in the innermost block being
    /// read (a second definition there is a redefinition; one in another
    /// block hides it).
    fn defined_in_this_block(&self, key: &str) -> bool {
        self.local_structs[self.local_structs_from..]
            .iter()
            .any(|(k, _)| k == key)
    }

    /// Ends the classes the block being left defined: their names are the
    /// classes they hid again. `outer`: where the enclosing block's began.
    pub(super) fn end_local_structs(&mut self, outer: usize) {
        while self.local_structs.len() > self.local_structs_from {
            let Some((key, hidden)) = self.local_structs.pop() else {
                break;
            };
            let structs = Arc::make_mut(&mut self.structs);
            match hidden {
                Some(def) => structs.insert(key, def),
                None => structs.remove(&key),
            };
        }
        self.local_structs_from = outer;
    }

    /// Whether a class defined in a function body needs no member bodies
    /// but the implicit default constructor its default member
    /// initializers make, in a function of the file itself (a template's
    /// instance, or a member function, keeps only its own declaration).
    fn local_defaults_only(&self, class: &super::classes::ClassMembers) -> bool {
        !class.defaults.is_empty()
            && class.deferred.is_empty()
            && class.templates.is_empty()
            && !self.in_instance
            && !self.in_pattern
            && self.class.is_none()
    }

    /// The error for a member declaration without a type: an unknown
    /// type name, or no declaration at all. `span`: the specifiers'.
    fn no_member_type<T>(&mut self, span: Span) -> PResult<T> {
        let (code, msg) = if self.peek().kind == TokenKind::Ident {
            (
                Code::E0001,
                format!("unknown type name `{}`", self.peek().text),
            )
        } else {
            let found = self.found();
            (
                Code::E0003,
                format!("expected a member declaration, found {found}"),
            )
        };
        let sp = if self.at_eof() { span } else { self.span() };
        self.error(sp, code, msg)
    }

    /// E0004 for member `name` of type `ty` when `ty` is a class declared
    /// but not defined (`struct Tree; struct F { Tree t; };`, or the class
    /// being defined): a member may point to it, not hold one (nvcc:
    /// "incomplete type is not allowed").
    fn refuse_incomplete_member(&mut self, name: &str, span: Span, ty: &CType) -> PResult<()> {
        if !ty.is_incomplete() {
            return Ok(());
        }
        let class = ty.scalar_elem().to_string();
        self.diags.push(
            Diagnostic::error(
                span,
                Code::E0004,
                format!("member `{name}` needs the incomplete type `{class}`, which is declared but not defined here"),
            )
            .with_note(format!("incomplete type is not allowed: a member may point to `{class}` (`{class} *`), not hold one")),
        );
        Err(super::Recorded)
    }

    /// `{ T a; U b[4], *c; ... }`, consuming both braces; the members
    /// that are not data (functions, static members) go to `class`.
    fn struct_members(
        &mut self,
        class_key: Option<&str>,
        class: &mut super::classes::ClassMembers,
    ) -> PResult<Vec<MemberDecl>> {
        self.bump();
        // Popped by the caller, after the body.
        if let Some(key) = class_key {
            self.enclosing_classes.push(key.to_string());
        }
        let mut members: Vec<MemberDecl> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        while !self.is_punct(Punct::RBrace) {
            if self.at_eof() {
                let sp = self.span();
                return self.error(
                    sp,
                    Code::E0003,
                    "expected `}` to close the struct, found end of file",
                );
            }
            if self.class_member(class_key, class)? {
                continue;
            }
            let (base, span, ds) = self.specifiers()?;
            if let Some(sp) = ds.first_non_type() {
                return self.error(
                    sp,
                    Code::E0008,
                    "a storage or function specifier cannot appear on a struct member",
                );
            }
            let Some(base) = base else {
                return self.no_member_type(span);
            };
            if self.is_punct(Punct::Semi)
                && (is_named_type(&base) || matches!(base.spelling, crate::ast::Spelling::Enum(_)))
            {
                // A nested type's definition (`struct TempStorage { ... };`)
                // or an enumeration's, named or not (`enum { size = 8 };`),
                // whose enumerators the enum specifier declared.
                self.bump();
                continue;
            }
            if self.is_punct(Punct::Semi) {
                if !base.ty.is_struct() {
                    let sp = self.span();
                    return self.error(sp, Code::E0003, "a member declaration needs a name");
                }
                // An anonymous union or struct (`union { struct { half d,
                // m; }; half2 dm; };`): an unnamed member whose members
                // the class's scope names (`StructDef::field`).
                self.bump();
                if !is_layout_pod(&base.ty) {
                    class.non_pod = true;
                }
                members.push((String::new(), base.ty, ds.storage.align.max(1), None));
                spans.push(span);
                continue;
            }
            loop {
                let ty = self.pointers(base.clone());
                let (ty, name, dims) = self.member_declarator(ty)?;
                let width = if self.is_punct(Punct::Colon) {
                    Some(self.bit_field_width(&ty.ty, &dims, &name)?)
                } else {
                    None
                };
                let default = match self.is_punct(Punct::Assign) || self.is_punct(Punct::LBrace) {
                    true => Some(self.member_default(&name, &dims, width.is_some())?),
                    false => None,
                };
                let sizes = FixedArray::Member(&class.constants);
                let mty = self.fixed_array(ty.ty, &dims, name.span, sizes)?;
                if let Some(default) = default {
                    self.array_default(&default, &mty)?;
                    class.defaults.push(default);
                    // Its default constructor is not trivial: not a POD.
                    class.non_pod = true;
                }
                self.refuse_incomplete_member(&name.text, name.span, &mty)?;
                if mty.size().is_none() {
                    return self.error(
                        name.span,
                        Code::E0004,
                        format!("member `{}` has type `void`", name.text),
                    );
                }
                if mty.size().is_some_and(|s| s > MAX_MEMBER_SIZE) {
                    return self.error(name.span, Code::E0008, "struct member is too large");
                }
                let named = !name.text.is_empty();
                if let Some(k) = members.iter().position(|m| named && m.0 == *name.text) {
                    self.diags.push(
                        Diagnostic::error(
                            name.span,
                            Code::E0006,
                            format!("duplicate member `{}`", name.text),
                        )
                        .with_label(spans[k], "previous declaration is here"),
                    );
                    return Err(super::Recorded);
                }
                if class.access != crate::access::Access::Public || !is_layout_pod(&mty) {
                    class.non_pod = true;
                }
                class.restrict(&name.text, name.span);
                if ty.spelling != crate::ast::Spelling::Plain {
                    class
                        .spellings
                        .insert(name.text.to_string(), ty.spelling.clone());
                }
                members.push((name.text.into(), mty, ds.storage.align.max(1), width));
                spans.push(name.span);
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
            }
            self.expect_punct(Punct::Semi, "after a struct member")?;
        }
        self.bump();
        Ok(members)
    }

    /// A member's declarator after its specifiers and `*`s: its type, its
    /// name and its array sizes.
    fn member_declarator(
        &mut self,
        ty: crate::ast::QualType,
    ) -> PResult<(crate::ast::QualType, crate::token::Token, Vec<Option<Expr>>)> {
        if self.at_fn_pointer() {
            let d = self.fn_pointer_declarator(ty, Naming::Required)?;
            let Some(name) = d.name else {
                return Err(super::Recorded); // `Naming::Required` reported it
            };
            return Ok((d.ty, name, d.dims));
        }
        // `reference r;` with `typedef T &reference;` (or `T r;` with `T`
        // bound to `float &`) is a reference member as `T &r;` is.
        let (ty, by_type) = self.declared_reference(ty, None)?;
        if let Some(r) = by_type.filter(|r| r.rvalue) {
            return self.error(
                r.at,
                Code::E0002,
                "rvalue reference members are not supported by kernelc",
            );
        }
        if by_type.is_some() || self.is_punct(Punct::Amp) {
            // A reference member holds the object's address; the class
            // marks it (`Field::reference`) once laid out.
            // A written `&` or `&&` after a reference type collapses.
            if by_type.is_none() || self.is_punct(Punct::Amp) || self.is_punct(Punct::AndAnd) {
                self.bump();
            }
            let (inner, name, dims) = self.member_declarator(ty)?;
            if !dims.is_empty() {
                return self.error(
                    name.span,
                    Code::E0002,
                    "arrays of references are not allowed",
                );
            }
            self.reference_members.push(name.text.to_string());
            let pointer = CType::Pointer {
                pointee: Box::new(inner.ty.clone()),
                pointee_const: inner.is_const,
                pointee_volatile: inner.is_volatile,
                restrict: false,
            };
            let ty = crate::ast::QualType {
                spelling: inner.spelling,
                ..crate::ast::QualType::plain(pointer, inner.span)
            };
            return Ok((ty, name, dims));
        }
        if self.is_punct(Punct::AndAnd) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "rvalue reference members are not supported by kernelc",
            );
        }
        if self.is_punct(Punct::Colon) {
            // An unnamed bit-field (`unsigned : 4;`): padding.
            let name = crate::token::Token {
                kind: TokenKind::Ident,
                text: crate::token::TokenText::default(),
                span: self.span(),
            };
            return Ok((ty, name, Vec::new()));
        }
        if self.peek().kind != TokenKind::Ident || self.at_eof() {
            let msg = format!("expected a member name, found {}", self.found());
            let sp = self.span();
            return self.error(sp, Code::E0003, msg);
        }
        let name = self.bump();
        Ok((ty, name, self.dims()?))
    }

    /// `elem` with the array sizes `dims` (outermost first), each a
    /// constant the parser computes now, for the declaration `of` (which
    /// limits and messages apply); `at` is where an unknown size is
    /// reported.
    pub(super) fn fixed_array(
        &mut self,
        elem: CType,
        dims: &[Option<Expr>],
        at: Span,
        of: FixedArray<'_>,
    ) -> PResult<CType> {
        let mut ty = elem;
        for d in dims.iter().rev() {
            let Some(e) = d else {
                return self.error(at, Code::E0002, of.unknown_size());
            };
            if let Some(len) = self.pattern_bound(&of, e) {
                ty = CType::Array {
                    elem: Box::new(ty),
                    len: Some(len),
                };
                continue;
            }
            let size = const_dim(e, &|n| {
                let own = match of {
                    FixedArray::Member(constants) => constants.get(n).copied(),
                    FixedArray::Referenced | FixedArray::Named => None,
                };
                own.or_else(|| self.enclosing_constant(n))
                    .or_else(|| self.constant(n))
            });
            let len = match size {
                Some(v) if v > 0 && v <= i128::from(of.max_size()) => v as u64,
                Some(v) => {
                    return self.error(e.span, Code::E0009, format!("invalid array size {v}"))
                }
                None => {
                    self.diags.push(of.not_constant(e.span));
                    return Err(super::Recorded);
                }
            };
            ty = CType::Array {
                elem: Box::new(ty),
                len: Some(len),
            };
        }
        Ok(ty)
    }

    /// C++'s rule for an array member's default initializer: no more
    /// values than elements. Elements of a class type left without a value
    /// would be value-initialized (zeroed, then constructed), which kernelc
    /// does not do yet.
    fn array_default(&mut self, default: &super::bases::MemberInit, ty: &CType) -> PResult<()> {
        let (name, values, span) = default;
        match ty {
            CType::Array { elem, len: Some(n) } if elem.is_struct() && (values.len() as u64) < *n => {
                self.error(
                    *span,
                    Code::E0002,
                    format!(
                        "a default initializer that leaves elements of `{elem}` to value-initialization is not supported by kernelc yet; give every element a value"
                    ),
                )
            }
            CType::Array { len: Some(n), .. } if values.len() as u64 > *n => self.error(
                *span,
                Code::E0004,
                format!(
                    "too many values for member `{}` of type `{ty}`: {} for {n} elements",
                    name.text,
                    values.len()
                ),
            ),
            _ => Ok(()),
        }
    }

    /// The bound of a referenced array in a function template's pattern
    /// that is one of its value parameters (`const T (&v)[N]`), which
    /// deduction reads from the argument: its stand-in length
    /// ([`crate::types::dependent_len`]).
    fn pattern_bound(&self, of: &FixedArray<'_>, e: &Expr) -> Option<u64> {
        let (FixedArray::Referenced, true, ExprKind::Ident(name)) = (of, self.in_pattern, &e.kind)
        else {
            return None;
        };
        let i = self.pattern_values.iter().position(|p| p == name)?;
        Some(crate::types::dependent_len(i))
    }

    /// A default member initializer, at its `=` or `{`: `= value`,
    /// `= {values}` or `{values}`, as the member initializer
    /// `name(values)` a constructor would write.
    fn member_default(
        &mut self,
        name: &crate::token::Token,
        dims: &[Option<Expr>],
        bit_field: bool,
    ) -> PResult<super::bases::MemberInit> {
        let start = self.span();
        if bit_field {
            return self.error(
                start,
                Code::E0002,
                "a default initializer of a bit-field is not supported by kernelc yet; initialize it in a constructor",
            );
        }
        if dims.len() > 1 {
            return self.error(
                start,
                Code::E0002,
                "a default initializer of an array of arrays is not supported by kernelc yet; initialize it in a constructor",
            );
        }
        let braced = self.is_punct(Punct::LBrace) || self.is_punct_at(1, Punct::LBrace);
        if !dims.is_empty() && !braced {
            return self.error(
                start,
                Code::E0004,
                format!(
                    "array member `{}` is initialized with a braced list (`= {{values}}` or `{{values}}`)",
                    name.text
                ),
            );
        }
        self.eat_punct(Punct::Assign);
        let args = if braced {
            self.bump(); // `{`
            let mut args = Vec::new();
            while !self.is_punct(Punct::RBrace) {
                args.push(self.assign_expr()?);
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
            }
            self.expect_punct(Punct::RBrace, "to close the member's initializer")?;
            args
        } else {
            vec![self.assign_expr()?]
        };
        Ok((name.clone(), args, start.to(self.prev_span())))
    }

    /// A bit-field's `: width` (at the `:`): a constant from 0 (only
    /// unnamed) to the bits of its type, which must be an integer type.
    fn bit_field_width(
        &mut self,
        ty: &CType,
        dims: &[Option<Expr>],
        name: &crate::token::Token,
    ) -> PResult<u32> {
        let colon = self.bump().span;
        // A conditional expression: a default initializer (`: 4 = 3`) may
        // follow.
        let e = self.cond_value()?;
        let bits = match ty {
            CType::Int { bits, .. } if dims.is_empty() => u32::from(*bits),
            CType::Bool if dims.is_empty() => 8,
            _ => {
                return self.error(
                    colon,
                    Code::E0004,
                    format!(
                        "bit-field `{}` has type `{ty}`, which is not an integer type",
                        name.text
                    ),
                )
            }
        };
        let Some(w) = const_dim(&e, &|n| self.constant(n)) else {
            return self.error(
                e.span,
                Code::E0008,
                "kernelc needs the width of a bit-field to be a literal expression",
            );
        };
        let ok = if name.text.is_empty() {
            (0..=i128::from(bits)).contains(&w)
        } else {
            (1..=i128::from(bits)).contains(&w)
        };
        if !ok {
            return self.error(
                e.span,
                Code::E0009,
                format!("invalid width {w} of a bit-field of type `{ty}`"),
            );
        }
        Ok(w as u32)
    }

    /// `typedef struct { ... } Name;` names the anonymous struct `Name`
    /// in messages (its identity, the id, stays the same).
    pub(super) fn name_anonymous_struct(ty: CType, name: &str) -> CType {
        match &ty {
            CType::Struct(s) if s.name.is_empty() => {
                let mut def = (**s).clone();
                def.name = name.to_string();
                CType::Struct(Arc::new(def))
            }
            _ => ty,
        }
    }

    /// Whether the keyword starts a struct specifier.
    pub(super) fn is_struct_kw(k: Keyword) -> bool {
        matches!(k, Keyword::Struct | Keyword::Class | Keyword::Union)
    }
}

/// Whether `ty` is a named struct or union (a declaration of it alone
/// declares a type, not an anonymous member).
fn is_named_type(ty: &crate::ast::QualType) -> bool {
    matches!(&ty.ty, CType::Struct(def) if def.tagged)
}

/// Whether a member of type `ty` leaves its class a POD for the purpose
/// of layout (a class member must be one itself).
fn is_layout_pod(ty: &CType) -> bool {
    match ty {
        CType::Struct(def) => def.pod,
        CType::Array { elem, .. } => is_layout_pod(elem),
        _ => true,
    }
}

/// What an array of sizes the parser computes is declared for
/// ([`Parser::fixed_array`]).
pub(super) enum FixedArray<'c> {
    /// A struct member, whose sizes may name the class's own constants.
    Member(&'c FxHashMap<String, i128>),
    /// The array a reference parameter refers to (`float (&v)[4]`).
    Referenced,
    /// The array a pointer declarator points to (`float (*rows)[4]`) or a
    /// `typedef` names (`typedef float Row[4];`).
    Named,
}

impl FixedArray<'_> {
    /// The largest size allowed.
    fn max_size(&self) -> u64 {
        match self {
            FixedArray::Member(_) => MAX_MEMBER_SIZE,
            FixedArray::Referenced | FixedArray::Named => u64::from(u32::MAX),
        }
    }

    /// The message for a size left out (`T m[];`).
    fn unknown_size(&self) -> &'static str {
        match self {
            FixedArray::Member(_) => "flexible array members are not supported by kernelc",
            FixedArray::Referenced => {
                "a reference to an array of unknown size is not supported by kernelc"
            }
            FixedArray::Named => {
                "a pointer to or a typedef of an array of unknown size is not supported by kernelc"
            }
        }
    }

    /// The error for a size the parser cannot compute, at `span`.
    fn not_constant(&self, span: Span) -> Diagnostic {
        match self {
            FixedArray::Member(_) => Diagnostic::error(
                span,
                Code::E0008,
                "kernelc needs the size of a struct member array to be a literal expression",
            )
            .with_note("use a number, a `#define`, an enumerator, or a `constexpr` integer of the file or the class"),
            FixedArray::Referenced => Diagnostic::error(
                span,
                Code::E0008,
                "kernelc needs the size of an array a reference parameter refers to to be a constant it can compute here",
            ),
            FixedArray::Named => Diagnostic::error(
                span,
                Code::E0008,
                "kernelc needs the size of an array in a type to be a constant it can compute here",
            )
            .with_note("use a number, a `#define`, an enumerator, or a `constexpr` integer"),
        }
    }
}
