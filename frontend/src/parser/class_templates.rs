//! Class templates: their declarations and explicit specializations, and
//! the instances their template-ids name (`Packed128<float>`).
//!
//! A class template is kept as tokens, as a function template is
//! (`crate::templates`). Unlike a function's, a class's instance is needed
//! *while* parsing, since the parser resolves types as it reads: the
//! template-id `Packed128<float>` in a declaration must be a complete
//! struct at once. So the parser instantiates a class template where its
//! template-id is written ([`Parser::class_instance`]): it parses the
//! template's tokens again with a sub-parser, in the namespace the
//! template is declared in, with the type parameters bound as typedefs and
//! the value parameters replaced by their values, and with the class's
//! name (the injected class name, also inside the body) replaced by the
//! instance's, `Packed128<float>`. The struct that gives is an ordinary
//! struct keyed by that name, marked as an instance
//! ([`crate::templates::ClassInstance`]) for its Itanium name; its member
//! functions and static members become items like any class's.
//!
//! Each instance exists once: a later template-id with the same
//! arguments finds it among the structs. Function template instances are
//! parsed after the file, each from the file's end state; the instances
//! they make are shared through [`crate::templates::LateInstances`].
//!
//! A template-id whose arguments involve a function template's parameter
//! placeholders (in a function template's pattern,
//! `crate::templates::FunctionTemplate::pattern`) is *dependent*: it is
//! not instantiated, but stands as an empty struct that carries the
//! template and its arguments, which is what deduction and names need.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::names::{Found, Kind};
use super::{PResult, Parser, Recorded};
use crate::ast::{Expr, ExprKind, QualType, Spelling};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::{
    instance_name, substitute_values_in, type_bindings, ArgValue, ClassInstance,
    ClassSpecialization, FunctionTemplate, OutsideMember, ParamKind, PartialSpecialization,
    TemplateArg, TemplateParam,
};
use crate::token::{Keyword, NameBefore, Punct, Token, TokenKind};
use crate::types::{CType, StructDef};

/// The class template's tokens `class` (`struct Acc { ... };`) with the
/// one declaration of member template `member` in its body (`template
/// <class U> __device__ void add(U x);`) replaced by `definition`, the
/// definition written outside the class without its qualifier. `None`
/// when the body declares no such member, or more than one (overloads,
/// which kernelc does not tell apart here), or defines it already.
fn with_member_defined(class: &[Token], member: &str, definition: &[Token]) -> Option<Vec<Token>> {
    let open = class
        .iter()
        .position(|t| t.kind == TokenKind::Punct(Punct::LBrace))?;
    let mut found = None;
    let mut depth = 0usize;
    let mut start = open + 1;
    for (i, t) in class.iter().enumerate().skip(open + 1) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::RBrace) if depth == 0 => break,
            TokenKind::Punct(Punct::RBrace) => {
                depth -= 1;
                if depth == 0 {
                    // A member defined in the class: a definition of
                    // `member` there leaves nothing to define.
                    if declares(&class[start..=i], member) {
                        return None;
                    }
                    start = i + 1;
                }
            }
            TokenKind::Punct(Punct::Semi) if depth == 0 => {
                if declares(&class[start..=i], member) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some((start, i));
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    let (s, e) = found?;
    let mut out = class[..s].to_vec();
    out.extend_from_slice(definition);
    out.extend_from_slice(&class[e + 1..]);
    Some(out)
}

/// Whether the member declaration `decl` is a template declaring function
/// `member` (`template <class U> __device__ void add(U x);`).
fn declares(mut decl: &[Token], member: &str) -> bool {
    // After an access specifier (`public:`).
    while let [t, colon, rest @ ..] = decl {
        let access = matches!(t.text.as_str(), "public" | "private" | "protected");
        if !(access && colon.kind == TokenKind::Punct(Punct::Colon)) {
            break;
        }
        decl = rest;
    }
    let is_template = decl
        .first()
        .is_some_and(|t| t.kind == TokenKind::Keyword(Keyword::Template));
    is_template
        && decl.windows(2).any(|w| {
            w[0].kind == TokenKind::Ident
                && w[0].text == member
                && w[1].kind == TokenKind::Punct(Punct::LParen)
        })
}

/// Where a declaration names a member of a class template outside the
/// class (`Parser::outside_member_at`), in its tokens.
pub(super) struct OutsideAt {
    /// The class template's index.
    class: usize,
    /// The qualifier's first token (`ns` of `ns::Acc<T>::add`), its
    /// arguments' ranges and its `>`.
    start: usize,
    args: Vec<(usize, usize)>,
    close: usize,
    /// The member's name (after a destructor's `~`).
    member_at: usize,
    /// A member function (its name is followed by `(`), not a static
    /// data member.
    is_function: bool,
}

/// How deep class instances may nest (an instance whose definition names
/// another instance, ...) before kernelc calls it runaway recursion.
const MAX_CLASS_DEPTH: usize = 64;

impl Parser<'_> {
    /// Records the class template declared or defined by `tokens` (the
    /// declaration after `template <params>`), whose name is token
    /// `name_at`.
    pub(super) fn class_template_decl(
        &mut self,
        params: Vec<TemplateParam>,
        tokens: Vec<Token>,
        name_at: usize,
    ) -> PResult<()> {
        let name_tok = tokens[name_at].clone();
        if is_punct(tokens.get(name_at + 1), Punct::Lt) {
            return self.partial_specialization(params, &tokens, name_at);
        }
        let key = self.names.qualify(&name_tok.text);
        self.names.declare(Kind::Type, &key, name_tok.span);
        let has_body = is_alias(&tokens)
            || is_variable(&tokens)
            || tokens
                .iter()
                .any(|t| t.kind == TokenKind::Punct(Punct::LBrace));
        let scope = self.names.current_key();
        let scope = if scope.is_empty() {
            Vec::new()
        } else {
            scope.split("::").map(str::to_string).collect()
        };
        let mut template = FunctionTemplate {
            name: key.clone(),
            scope,
            params,
            tokens: if has_body { tokens } else { Vec::new() },
            name_span: name_tok.span,
            is_kernel: false,
            pattern: None,
            member_of: None,
            param_pack: None,
        };
        let classes = Arc::make_mut(&mut self.templates.classes);
        match classes.by_name.get(&key) {
            Some(&i) if !template.tokens.is_empty() => {
                if !classes.templates[i].tokens.is_empty() {
                    let msg = format!("redefinition of class template `{}`", name_tok.text);
                    return self.error(name_tok.span, Code::E0006, msg);
                }
                take_defaults(&mut template.params, &classes.templates[i].params);
                classes.templates[i] = template;
            }
            Some(&i) => {
                let earlier = &mut classes.templates[i];
                let mut params = std::mem::take(&mut earlier.params);
                take_defaults(&mut params, &template.params);
                earlier.params = params;
            }
            None => {
                classes.by_name.insert(key, classes.templates.len());
                classes.templates.push(template);
            }
        }
        Ok(())
    }

    /// After `template <>`: `struct Name<args> { ... };`, the definition
    /// of the instance with `args` (token `name_at` is the name).
    pub(super) fn class_specialization(
        &mut self,
        kw: Span,
        tokens: &[Token],
        name_at: usize,
    ) -> PResult<()> {
        let name = &tokens[name_at];
        let Some(index) = self.class_template_named(&name.text) else {
            let msg = format!("`{}` is not a class template", name.text);
            return self.error(name.span, Code::E0001, msg);
        };
        let mut sub = self.sub_parser(&tokens[name_at + 1..], Vec::new());
        let args = sub.template_args();
        let after = name_at + 1 + sub.pos;
        self.diags.append(&mut sub.diags);
        let values = self.class_arg_values(index, &args?, kw)?;
        let mut plain = tokens[..=name_at].to_vec();
        plain.extend_from_slice(&tokens[after..]);
        let key = self.templates.classes.templates[index].name.clone();
        Arc::make_mut(&mut self.templates.classes)
            .specializations
            .push(ClassSpecialization {
                name: key,
                args: values,
                tokens: plain,
            });
        Ok(())
    }

    /// `template <params> struct Name<pattern> { ... };`: a partial
    /// specialization of class template `Name` (token `name_at`), its
    /// pattern read with its parameters as placeholders.
    fn partial_specialization(
        &mut self,
        params: Vec<TemplateParam>,
        tokens: &[Token],
        name_at: usize,
    ) -> PResult<()> {
        let name = &tokens[name_at];
        let Some(index) = self.class_template_named(&name.text) else {
            let msg = format!("`{}` is not a class template", name.text);
            return self.error(name.span, Code::E0001, msg);
        };
        let mut sub = self.pattern_parser(&tokens[name_at + 1..], &params);
        // Its packs are expanded last in a pack's arguments (`tl<H,
        // Ts...>`), which matching binds to the arguments left.
        sub.pack_expansions = true;
        let args = sub.template_args();
        let after = name_at + 1 + sub.pos;
        let pattern = args.and_then(|args| sub.class_arg_values(index, &args, name.span));
        self.diags.append(&mut sub.diags);
        let pattern = pattern?;
        let mut plain = tokens[..=name_at].to_vec();
        plain.extend_from_slice(&tokens[after..]);
        let primary = &self.templates.classes.templates[index];
        let template = FunctionTemplate {
            name: primary.name.clone(),
            scope: primary.scope.clone(),
            params,
            tokens: plain,
            name_span: name.span,
            is_kernel: false,
            pattern: None,
            member_of: None,
            param_pack: None,
        };
        Arc::make_mut(&mut self.templates.classes)
            .partial
            .push(PartialSpecialization { template, pattern });
        Ok(())
    }

    /// In a template declaration's tokens (after its parameter list): the
    /// qualifier of a member defined outside its class template, when the
    /// declarator names one (`Acc<T>::add(`, `ns::Acc<T>::Acc(`,
    /// `Acc<T>::count =`).
    pub(super) fn outside_member_at(&self, tokens: &[Token]) -> Option<OutsideAt> {
        if self.templates.classes.templates.is_empty() {
            return None;
        }
        let mut depth = 0usize;
        for (i, t) in tokens.iter().enumerate() {
            match t.kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => {
                    depth = depth.saturating_sub(1)
                }
                TokenKind::Punct(Punct::LBrace | Punct::Semi | Punct::Assign) if depth == 0 => {
                    return None
                }
                TokenKind::Ident if is_punct(tokens.get(i + 1), Punct::Lt) => {
                    if let Some(at) = self.outside_qualifier(tokens, i) {
                        return Some(at);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// [`Parser::outside_member_at`] for the template-id whose name is
    /// token `name_at`: `Some` when it names a class template and `::`
    /// and the declarator's name follow its arguments.
    fn outside_qualifier(&self, tokens: &[Token], name_at: usize) -> Option<OutsideAt> {
        let list =
            crate::token::template_args(tokens, name_at + 1, tokens.len(), NameBefore::Template)
                .ok()?;
        let tilde = usize::from(is_punct(tokens.get(list.close + 2), Punct::Tilde));
        let member_at = list.close + 2 + tilde;
        let operator = tokens
            .get(member_at)
            .is_some_and(|t| t.kind == TokenKind::Keyword(Keyword::Operator));
        // What follows a declarator's name: its parameters, or a static
        // data member's initializer, bounds or end (`(*Acc<T>::fn)`); not
        // a type's (`typename Traits<T>::Bits mix(...)`).
        let after = tokens.get(member_at + 1).map(|t| &t.kind);
        let ends_declarator = matches!(
            after,
            Some(TokenKind::Punct(
                Punct::LParen
                    | Punct::Assign
                    | Punct::Semi
                    | Punct::LBracket
                    | Punct::LBrace
                    | Punct::RParen
            ))
        );
        let declarator = !list.half_close
            && is_punct(tokens.get(list.close + 1), Punct::ColonColon)
            && (operator
                || (tokens
                    .get(member_at)
                    .is_some_and(|t| t.kind == TokenKind::Ident)
                    && ends_declarator));
        // `ns::Acc<T>::`: the qualifier starts at `ns`.
        let mut start = name_at;
        while start >= 2
            && is_punct(tokens.get(start - 1), Punct::ColonColon)
            && tokens[start - 2].kind == TokenKind::Ident
        {
            start -= 2;
        }
        let typename = start > 0 && tokens[start - 1].kind == TokenKind::Keyword(Keyword::Typename);
        if !declarator || typename {
            return None;
        }
        let written: String = tokens[start..=name_at]
            .iter()
            .map(|t| t.text.as_str())
            .collect();
        let classes = &self.templates.classes;
        let class = if start == name_at {
            self.class_template_named(&written)?
        } else {
            let key = self.names.qualify(&written);
            *classes
                .by_name
                .get(&key)
                .or_else(|| classes.by_name.get(&written))?
        };
        Some(OutsideAt {
            class,
            start,
            args: list.args,
            close: list.close,
            member_at,
            is_function: operator || is_punct(tokens.get(member_at + 1), Punct::LParen),
        })
    }

    /// Records the member defined outside its class template by `tokens`
    /// (after `template <params>`; `at` is its qualifier) with the class
    /// template, whose instances define it. Forms kernelc cannot read
    /// yet are located E0002: a static data member, a member of a partial
    /// specialization (whose arguments are not the parameters in order),
    /// a member template.
    pub(super) fn outside_member_decl(
        &mut self,
        kw: Span,
        params: &[TemplateParam],
        tokens: Vec<Token>,
        at: OutsideAt,
    ) -> PResult<()> {
        let member = tokens[at.member_at].clone();
        let member_template = tokens[0].kind == TokenKind::Keyword(Keyword::Template);
        let template = &self.templates.classes.templates[at.class];
        let own: Vec<&str> = at
            .args
            .iter()
            .filter(|&&(s, e)| e == s + 1)
            .map(|&(s, _)| tokens[s].text.as_str())
            .collect();
        let in_order = own.len() == at.args.len()
            && own.len() == params.len()
            && own.len() == template.params.len()
            && own.iter().zip(params).all(|(a, p)| *a == p.name && !p.pack);
        let unsupported = if !at.is_function {
            Some("a static data member of a class template defined outside the class is")
        } else if member.kind == TokenKind::Keyword(Keyword::Operator) {
            Some("an operator of a class template defined outside the class is")
        } else if !in_order {
            Some("a member defined outside a partial specialization of a class template (or with other arguments than its parameters in order) is")
        } else {
            None
        };
        if let Some(what) = unsupported {
            let msg = format!(
                "{what} not supported by kernelc yet; define `{}` in the class",
                member.text
            );
            // A member template's error stands at its `template`.
            let at = if member_template { kw } else { member.span };
            return self.error(at, Code::E0002, msg);
        }
        // The template's parameter names in place of the definition's
        // (`template <class U> void Acc<U>::add(U x)`), and its plain name
        // in place of the qualifier, which an instance renames as it
        // renames the name in its own body.
        let renamed: FxHashMap<&str, &str> = params
            .iter()
            .zip(&template.params)
            .map(|(p, q)| (p.name.as_str(), q.name.as_str()))
            .collect();
        let simple = crate::mangle::unqualified(&template.name).to_string();
        let mut out = Vec::with_capacity(tokens.len());
        for (i, t) in tokens.iter().enumerate() {
            // A member template's definition takes the place of its
            // declaration in the class, so it loses the qualifier.
            if member_template && (at.start..=at.close + 1).contains(&i) {
                continue;
            }
            if i == at.start {
                out.push(Token {
                    kind: TokenKind::Ident,
                    text: simple.as_str().into(),
                    span: tokens[i].span,
                });
                continue;
            }
            if (at.start..=at.close).contains(&i) {
                continue;
            }
            let mut t = t.clone();
            if let Some(name) = renamed
                .get(t.text.as_str())
                .filter(|_| t.kind == TokenKind::Ident)
            {
                t.text = (*name).into();
            }
            out.push(t);
        }
        let class = template.name.clone();
        if member_template {
            let Some(body) = with_member_defined(&template.tokens, &member.text, &out) else {
                let msg = format!("member templates defined outside their class template are not supported by kernelc yet unless the class declares the member once, without a body; define `{}` in the class", member.text);
                return self.error(kw, Code::E0002, msg);
            };
            let classes = Arc::make_mut(&mut self.templates.classes);
            classes.templates[at.class].tokens = body;
            return Ok(());
        }
        let classes = Arc::make_mut(&mut self.templates.classes);
        classes.outside.push(OutsideMember { class, tokens: out });
        Ok(())
    }

    /// The class template an unqualified `name` names here.
    pub(super) fn class_template_named(&self, name: &str) -> Option<usize> {
        if self.names.is_local(name) {
            return None;
        }
        let classes = &self.templates.classes;
        match self.names.lookup(Kind::Type, name) {
            Found::One(key) => classes.by_name.get(&key).copied(),
            _ => classes.by_name.get(name).copied(),
        }
    }

    /// The class template whose (possibly qualified) name starts `n`
    /// tokens ahead, followed by `<`: its index and the name's tokens.
    pub(super) fn class_template_at(&self, n: usize) -> Option<(usize, usize)> {
        if self.templates.classes.templates.is_empty() {
            return None;
        }
        if let Some(q) = self.qualified_at(n) {
            if !self.is_punct_at(n + q.tokens, Punct::Lt) {
                return None;
            }
            let key = self.resolve_qualified(&q, Kind::Type).ok()?;
            let index = self.templates.classes.by_name.get(&key)?;
            return Some((*index, q.tokens));
        }
        let t = self.peek_at(n);
        if t.kind != TokenKind::Ident || !self.is_punct_at(n + 1, Punct::Lt) {
            return None;
        }
        self.class_template_named(&t.text).map(|i| (i, 1))
    }

    /// A class template-id at the current token (`Packed128<float>`,
    /// `gpu::Vec<T, 4>`): the instance's type. A member type after it
    /// (`Traits<int>::Acc`) is that type, and so on down a chain of them
    /// (`conditional<B, A, C>::type::nested`).
    pub(super) fn class_template_type(&mut self) -> PResult<(CType, bool, Spelling)> {
        let mut named = self.class_template_id()?;
        while self.is_punct(Punct::ColonColon) && self.peek_at(1).kind == TokenKind::Ident {
            let member = self.peek_at(1).clone();
            let Some(def) = named.0.struct_def().cloned() else {
                break;
            };
            if let Some(t) = self.member_type_of(&def) {
                self.pos += 2;
                named = t;
                continue;
            }
            if def.instance_of.is_some() && def.fields.is_empty() && self.is_dependent_def(&def) {
                // A member of a dependent instance: dependent too.
                self.pos += 2;
                let ty = self.dependent_member(&def, &member.text);
                return Ok((ty, false, Spelling::Plain));
            }
            let msg = format!("no member type `{}` in `{}`", member.text, def.name);
            return self.error(member.span, Code::E0001, msg);
        }
        Ok(named)
    }

    /// The member type of class `def` that the name one token ahead (after
    /// `::`) names: the class's own (a member typedef, a nested class), or
    /// a base's.
    fn member_type_of(&self, def: &StructDef) -> Option<(CType, bool, Spelling)> {
        let member = self.peek_at(1).text.clone();
        let found = crate::bases::find_in_bases(def, &mut |d| {
            self.instance_typedef(&super::names::join(&d.name, &member))
        });
        // In the instance's own body (`B<T>::Tmp` in a member of `B`), its
        // member types are not yet shared, but declared here; an ordinary
        // class's nested class is a struct keyed by its path.
        let key = super::names::join(&def.name, &member);
        found
            .map(|(t, _)| t)
            .or_else(|| self.type_named_spelled(&key))
            .or_else(|| {
                let nested = self.structs.get(&key)?;
                Some((CType::Struct(nested.clone()), false, Spelling::Plain))
            })
    }

    /// A class template-id in an expression: a static member
    /// (`Packed128<T>::size`, `Pack128<T>::fromBits(...)`), or an object
    /// constructed from `(...)` or `{...}`.
    pub(super) fn class_template_expr(&mut self) -> PResult<Expr> {
        let start = self.span();
        if let Some((index, len)) = self.class_template_at(0) {
            if is_variable(&self.templates.classes.templates[index].tokens) {
                return self.variable_template_expr(index, len);
            }
        }
        let (mut ty, _, _) = self.class_template_id()?;
        // `X<...>::type::value`: the member types before the last name.
        while self.is_punct(Punct::ColonColon)
            && self.peek_at(1).kind == TokenKind::Ident
            && self.is_punct_at(2, Punct::ColonColon)
        {
            let Some(found) = ty.struct_def().and_then(|d| self.member_type_of(d)) else {
                break;
            };
            self.pos += 2;
            ty = found.0;
        }
        // `::template` before a member template's name (`A<T>::template
        // make<3>()`), optional where the class is not dependent.
        let keyword = self.is_punct(Punct::ColonColon)
            && self.peek_at(1).kind == TokenKind::Keyword(Keyword::Template);
        let at = 1 + usize::from(keyword);
        if self.is_punct(Punct::ColonColon) && self.peek_at(at).kind == TokenKind::Ident {
            self.pos += at;
            let member = self.bump();
            let name = ty.struct_def().map_or(String::new(), |d| d.name.clone());
            let key = super::names::join(&name, &member.text);
            if self.is_punct(Punct::LParen) || self.is_punct(Punct::LBrace) {
                if let Some(found) = self.type_named_spelled(&key) {
                    return self.member_type_construction(found, start);
                }
            }
            if self.is_punct(Punct::Lt) && (keyword || self.is_member_template(&key)) {
                let args = self.template_args()?;
                return Ok(Expr {
                    kind: ExprKind::TemplateId { name: key, args },
                    span: start.to(self.prev_span()),
                });
            }
            return Ok(Expr {
                kind: ExprKind::Ident(key),
                span: start.to(member.span),
            });
        }
        if self.is_punct(Punct::LParen) || self.is_punct(Punct::LBrace) {
            let qt = QualType {
                ty,
                is_const: false,
                is_volatile: false,
                spelling: Spelling::Plain,
                span: start.to(self.prev_span()),
            };
            return self.construct(qt, start);
        }
        let found = self.found();
        let sp = self.span();
        self.error(
            sp,
            Code::E0003,
            format!("expected `::`, `(` or `{{` after a class template-id, found {found}"),
        )
    }

    /// `Tr<T>::Bits(v)` or `Tr<T>::Pair{a, b}` at the `(` or `{` after the
    /// member type's name (the expression began at `start`): the cast to a
    /// scalar member type, or the construction of a class one.
    fn member_type_construction(
        &mut self,
        (ty, is_const, spelling): (CType, bool, Spelling),
        start: Span,
    ) -> PResult<Expr> {
        let is_struct = ty.is_struct();
        let qt = QualType {
            ty,
            is_const,
            is_volatile: false,
            spelling,
            span: start.to(self.prev_span()),
        };
        if is_struct {
            return self.construct(qt, start);
        }
        if self.is_punct(Punct::LBrace) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "brace-initialized temporaries (`T{...}`) are not supported by kernelc",
            );
        }
        // `cast_to` starts at the type name's last token.
        self.pos -= 1;
        self.cast_to(qt, start)
    }

    /// The template-id at the current token, consumed: its instance, or
    /// for an alias template the type it stands for (with its `const`
    /// and spelling).
    fn class_template_id(&mut self) -> PResult<(CType, bool, Spelling)> {
        let Some((index, len)) = self.class_template_at(0) else {
            let sp = self.span();
            return self.error(sp, Code::E0003, "expected a class template name");
        };
        let name_span = self.span().to(self.peek_at(len - 1).span);
        if is_variable(&self.templates.classes.templates[index].tokens) {
            let name = self.templates.classes.templates[index].name.clone();
            let msg = format!("`{name}` is a variable template, not a type");
            return self.error(name_span, Code::E0003, msg);
        }
        self.pos += len;
        let args = self.template_args()?;
        let span = name_span.to(self.prev_span());
        let values = self.class_arg_values(index, &args, span)?;
        if is_alias(&self.templates.classes.templates[index].tokens) {
            return self.alias_instance(index, &values, span);
        }
        let ty = self.class_instance(index, values, span)?;
        Ok((ty, false, Spelling::Plain))
    }

    /// A variable template-id (`std::is_integral_v<T>`, the template
    /// `index` named by `len` tokens) in an expression: its initializer
    /// read in the template's namespace with the arguments bound,
    /// converted to the variable's type (`(bool)(std::is_integral<int>::
    /// value)`). A `constexpr` variable's value is its initializer's, so
    /// the instance is that expression wherever it is used.
    fn variable_template_expr(&mut self, index: usize, len: usize) -> PResult<Expr> {
        let start = self.span();
        self.pos += len;
        let args = self.template_args()?;
        let span = start.to(self.prev_span());
        let values = self.class_arg_values(index, &args, span)?;
        let t = self.templates.classes.templates[index].clone();
        let tokens = self.expand_packs(&t, &values, &t.tokens)?;
        let tokens = substitute_values_in(&t, &values, &tokens);
        let Some(name_at) = variable_name_at(&tokens) else {
            return self.error(span, Code::E0003, "expected a variable template");
        };
        let end = tokens.len() - usize::from(is_punct(tokens.last(), Punct::Semi));
        let type_from = tokens[..name_at]
            .iter()
            .position(|t| !is_variable_specifier(t))
            .unwrap_or(name_at);
        let mut sub = self.template_parser(&tokens[type_from..name_at], type_bindings(&t, &values));
        sub.names = self.names.at_namespace_scope(&t.scope);
        let ty = sub.type_name().and_then(|ty| {
            if !sub.at_eof() {
                return sub.error(ty.span, Code::E0003, "expected the variable's name");
            }
            sub.toks = &tokens[name_at + 2..end];
            sub.pos = 0;
            let init = sub.cond_value()?;
            Ok((ty, init))
        });
        let complete = sub.at_eof();
        let shown = instance_name(&t.name, &values);
        for d in sub.diags.drain(..) {
            self.diags
                .push(d.with_label(span, format!("in `{shown}`, used here")));
        }
        self.next_struct_id.at_least(sub.next_struct_id.next());
        let (ty, init) = ty?;
        if !complete {
            return self.error(init.span, Code::E0003, "expected `;` after the initializer");
        }
        let ty = QualType { span, ..ty };
        Ok(Expr {
            kind: ExprKind::Cast {
                ty,
                expr: Box::new(init),
            },
            span,
        })
    }

    /// The type alias template `index` stands for with `values`: the type
    /// after its `=`, read in its namespace with the parameters bound.
    fn alias_instance(
        &mut self,
        index: usize,
        values: &[ArgValue],
        span: Span,
    ) -> PResult<(CType, bool, Spelling)> {
        let t = self.templates.classes.templates[index].clone();
        let tokens = self.expand_packs(&t, values, &t.tokens)?;
        let tokens = substitute_values_in(&t, values, &tokens);
        let end = tokens.len() - usize::from(is_punct(tokens.last(), Punct::Semi));
        let mut sub = self.template_parser(&tokens[3..end], type_bindings(&t, values));
        sub.names = self.names.at_namespace_scope(&t.scope);
        let ty = sub.reference_type_name();
        let complete = sub.at_eof();
        let shown = instance_name(&t.name, values);
        for d in sub.diags.drain(..) {
            self.diags
                .push(d.with_label(span, format!("in `{shown}`, used here")));
        }
        self.next_struct_id.at_least(sub.next_struct_id.next());
        match ty {
            Ok(q) if complete => Ok((q.ty, q.is_const, q.spelling)),
            Ok(q) => self.error(q.span, Code::E0003, "expected `;` after the aliased type"),
            Err(e) => Err(e),
        }
    }

    /// The values of `args` written for class template `index`, with the
    /// defaults of the parameters they leave out.
    fn class_arg_values(
        &mut self,
        index: usize,
        args: &[TemplateArg],
        span: Span,
    ) -> PResult<Vec<ArgValue>> {
        let t = self.templates.classes.templates[index].clone();
        let has_pack = t.params.iter().any(|p| p.pack);
        if args.len() > t.params.len() && !has_pack {
            let msg = format!(
                "too many template arguments for `{}` ({} given, {} expected)",
                t.name,
                args.len(),
                t.params.len()
            );
            return self.error(span, Code::E0019, msg);
        }
        let mut values = Vec::new();
        for (i, p) in t.params.iter().enumerate() {
            let value = match args.get(i) {
                // A pack takes the arguments left (C++ puts a class
                // template's pack last).
                _ if p.pack => {
                    let rest = args.get(i..).unwrap_or_default();
                    let elems = rest.iter().map(|a| self.arg_value(a, p));
                    ArgValue::Pack(elems.collect::<PResult<_>>()?)
                }
                Some(a) => self.arg_value(a, &with_bound_type(p, &t.params, &values))?,
                None => self.default_class_arg(&t, i, &values, span)?,
            };
            values.push(value);
        }
        Ok(values)
    }

    /// One template argument's value, as parameter `p` takes it.
    fn arg_value(&mut self, a: &TemplateArg, p: &TemplateParam) -> PResult<ArgValue> {
        match (a, &p.kind) {
            // A pattern's `Ts...`.
            (TemplateArg::Type(t), ParamKind::Type)
                if self.in_pattern && expanded_type_param(&t.ty).is_some() =>
            {
                Ok(crate::templates::expansion(expanded_type_param(&t.ty).unwrap_or_default()))
            }
            (TemplateArg::Type(t), ParamKind::Type) => match ArgValue::of_type(t) {
                Ok(v) => Ok(v),
                Err(why) => self.error(t.span, Code::E0002, why),
            },
            (TemplateArg::Value(e), ParamKind::Value(ty, _)) => match self.parse_time_value(e) {
                Some(v) => Ok(ArgValue::Int(crate::templates::wrap_to(v, ty), ty.clone())),
                None if self.in_pattern => Ok(self.pattern_value(e, ty)),
                None => {
                    self.diags.push(
                        Diagnostic::error(
                            e.span,
                            Code::E0019,
                            format!(
                                "kernelc cannot compute the argument of template parameter `{}` while parsing",
                                p.name
                            ),
                        )
                        .with_note("a class template's value arguments must be literals, `sizeof`, enumerators, integer constants of the file or of classes, elements of constant integer arrays, integer casts of them, and arithmetic on them"),
                    );
                    Err(Recorded)
                }
            },
            (TemplateArg::Type(t), ParamKind::Value(..)) => self.error(
                t.span,
                Code::E0019,
                format!("template parameter `{}` takes a value, not a type", p.name),
            ),
            (TemplateArg::Value(e), ParamKind::Type) => self.error(
                e.span,
                Code::E0019,
                format!("template parameter `{}` takes a type, not a value", p.name),
            ),
            (TemplateArg::Template(key, span), _) => {
                match crate::templates::template_template_arg(&self.templates.classes, key, p) {
                    Ok(v) => Ok(v),
                    Err(why) => self.error(*span, Code::E0019, why),
                }
            }
            (TemplateArg::Type(t), ParamKind::Template(_)) => self.error(
                t.span,
                Code::E0019,
                format!(
                    "template parameter `{}` takes a class template, not a type",
                    p.name
                ),
            ),
            (TemplateArg::Value(e), ParamKind::Template(_)) => self.error(
                e.span,
                Code::E0019,
                format!(
                    "template parameter `{}` takes a class template, not a value",
                    p.name
                ),
            ),
            (TemplateArg::Decltype(e), ParamKind::Type) if self.decltype_of(e).is_some() => {
                let Some((ty, is_const, spelling)) = self.decltype_of(e) else {
                    unreachable!("the guard found the type");
                };
                // `decltype(x)` of a reference `x` is its reference type.
                let written = crate::ast::QualType {
                    is_const,
                    spelling,
                    ..crate::ast::QualType::plain(ty, e.span)
                };
                match ArgValue::of_type(&written) {
                    Ok(v) => Ok(v),
                    Err(why) => self.error(e.span, Code::E0002, why),
                }
            }
            (TemplateArg::Decltype(e), _) => self.error(
                e.span,
                Code::E0002,
                "`decltype` in a class template's arguments is supported only of a variable or a parameter whose type is written, or a member of one (`decltype(x)`, `decltype(v.x)`)",
            ),
        }
    }

    /// A value argument in a function template's pattern that the parser
    /// cannot compute: the template's value parameter it names, else a
    /// stand-in zero (the pattern's shape is all that is read).
    fn pattern_value(&self, e: &Expr, ty: &CType) -> ArgValue {
        match &e.kind {
            ExprKind::Ident(name) => {
                let pack = name.strip_suffix("...");
                let param = pack.unwrap_or(name);
                match self.pattern_values.iter().position(|p| p == param) {
                    Some(i) if pack.is_some() => crate::templates::expansion(i),
                    Some(i) => ArgValue::Param(i),
                    None => ArgValue::Int(0, ty.clone()),
                }
            }
            _ => ArgValue::Int(0, ty.clone()),
        }
    }

    /// An integer constant the parser can compute
    /// ([`super::structs::const_dim`]); in a class's body, its own
    /// constants and those of the classes around it come first
    /// (`static constexpr int N = 4; Arr<N> a;`).
    pub(super) fn parse_time_value(&self, e: &Expr) -> Option<i128> {
        super::structs::const_dim(e, &|n| {
            self.enclosing_constant(n).or_else(|| self.constant(n))
        })
    }

    /// The value of the integer constant keyed `key` (`kTile`,
    /// `Traits<int>::size`) if the parser knows it.
    /// The `static constexpr` member `name` of a class whose body
    /// encloses the current one (a nested struct's array sized by its
    /// outer class's constant), innermost first.
    pub(super) fn enclosing_constant(&self, name: &str) -> Option<i128> {
        self.enclosing_classes
            .iter()
            .rev()
            .find_map(|class| self.constant(&super::names::join(class, name)))
    }

    pub(super) fn constant(&self, key: &str) -> Option<i128> {
        if let Some(v) = self.constants.get(key) {
            return Some(*v);
        }
        if !key.contains('>') {
            return None;
        }
        self.instances.lock().ok()?.constants.get(key).copied()
    }

    /// The default argument of parameter `i` of class template `t`, read
    /// with the arguments `known` before it bound; E0019 when it has none.
    fn default_class_arg(
        &mut self,
        t: &FunctionTemplate,
        i: usize,
        known: &[ArgValue],
        span: Span,
    ) -> PResult<ArgValue> {
        let p = &t.params[i];
        let Some(tokens) = &p.default else {
            let msg = format!(
                "too few template arguments for `{}`: `{}` has no default",
                t.name, p.name
            );
            return self.error(span, Code::E0019, msg);
        };
        let tokens = substitute_values_in(t, known, tokens);
        let mut sub = self.template_parser(&tokens, type_bindings(t, known));
        sub.names = self.names.at_namespace_scope(&t.scope);
        let arg = sub.template_arg(false);
        self.diags.append(&mut sub.diags);
        let arg = arg?;
        self.arg_value(&arg, p)
    }

    /// The instance of class template `index` with `values`: found, or
    /// made now.
    fn class_instance(
        &mut self,
        index: usize,
        values: Vec<ArgValue>,
        span: Span,
    ) -> PResult<CType> {
        let t = self.templates.classes.templates[index].clone();
        let instance = Arc::new(ClassInstance {
            template: t.name.clone(),
            kinds: t.params.iter().map(|p| p.kind.clone()).collect(),
            args: values,
        });
        let key = instance_name(&t.name, &instance.args);
        if let Some(def) = self.instance_named(&key) {
            return Ok(CType::Struct(def));
        }
        if instance.args.iter().any(is_dependent_arg) || self.in_pattern {
            return Ok(self.dependent_instance(key, instance));
        }
        if self.instance_sites.len() >= MAX_CLASS_DEPTH {
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0019,
                    format!("class template instances nest more than {MAX_CLASS_DEPTH} deep, at `{key}`"),
                )
                .with_label(t.name_span, "the template"),
            );
            return Err(Recorded);
        }
        // The definition: a full specialization's, a matching partial
        // specialization's (its own parameters bound), or the template's.
        let (definition, args) = if let Some(tokens) =
            self.specialization_tokens(&t.name, &instance.args)
        {
            // A full specialization has no parameters to bind.
            let params = Vec::new();
            let full = FunctionTemplate {
                tokens,
                params,
                ..t.clone()
            };
            (full, Vec::new())
        } else if let Some(found) = self.partial_match(&t.name, &instance.args) {
            found
        } else if t.tokens.is_empty() {
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0004,
                    format!("`{key}` is an incomplete type: its template is declared but not defined for these arguments"),
                )
                .with_label(t.name_span, "the template"),
            );
            return Err(Recorded);
        } else {
            // The members defined outside the class follow its body.
            let mut primary = t.clone();
            for m in self
                .templates
                .classes
                .outside
                .iter()
                .filter(|m| m.class == t.name)
            {
                primary.tokens.extend_from_slice(&m.tokens);
            }
            (primary, instance.args.clone())
        };
        let simple = crate::mangle::unqualified(&t.name);
        let tag = instance_name(simple, &instance.args);
        let tokens = self.expand_packs(&definition, &args, &definition.tokens)?;
        let tokens = substitute_values_in(&definition, &args, &tokens);
        let tokens = rename_class(&tokens, simple, &tag);
        let bindings = type_bindings(&definition, &args);
        let scope = definition.scope.clone();
        self.parse_class_instance(&scope, &tokens, &tag, instance, bindings, span);
        match self.instance_named(&key) {
            Some(def) => Ok(CType::Struct(def)),
            None => Err(Recorded),
        }
    }

    /// `tokens` of template `t` with the expansions of the packs `args`
    /// bind written out (`crate::packs`).
    fn expand_packs(
        &mut self,
        t: &FunctionTemplate,
        args: &[ArgValue],
        tokens: &[Token],
    ) -> PResult<Vec<Token>> {
        let mut packs = crate::packs::Packs::of(&t.params, args);
        match crate::packs::expand(tokens, &mut packs) {
            Ok(tokens) => Ok(tokens),
            Err(d) => {
                self.diags.push(d);
                Err(Recorded)
            }
        }
    }

    /// The instance keyed `key` if it exists: made by this parse, or by
    /// another parse of the translation unit.
    pub(super) fn instance_named(&mut self, key: &str) -> Option<Arc<StructDef>> {
        if let Some(def) = self.structs.get(key) {
            return Some(def.clone());
        }
        let def = self.instances.lock().ok()?.structs.get(key)?.clone();
        Arc::make_mut(&mut self.structs).insert(key.to_string(), def.clone());
        Some(def)
    }

    /// The member type keyed `key` of a class template instance.
    pub(super) fn instance_typedef(&self, key: &str) -> Option<(CType, bool, Spelling)> {
        if let Some(t) = self.typedefs.get(key) {
            return Some(t.clone());
        }
        self.instances.lock().ok()?.typedefs.get(key).cloned()
    }

    /// The member functions and static members of the class instances
    /// made since the last call, to emit as items.
    pub(super) fn take_instance_items(&mut self) -> Vec<crate::ast::Item> {
        match self.instances.lock() {
            Ok(mut shared) => std::mem::take(&mut shared.items),
            Err(_) => Vec::new(),
        }
    }

    /// The partial specialization of `template` whose pattern matches
    /// `args` (the first declared, when several do), and the arguments of
    /// its parameters.
    fn partial_match(
        &self,
        template: &str,
        args: &[ArgValue],
    ) -> Option<(FunctionTemplate, Vec<ArgValue>)> {
        self.templates
            .classes
            .partial
            .iter()
            .filter(|p| p.template.name == template)
            .find_map(|p| Some((p.template.clone(), p.match_args(args)?)))
    }

    /// The tokens of the explicit specialization of `template` for
    /// `args`, if there is one.
    fn specialization_tokens(&self, template: &str, args: &[ArgValue]) -> Option<Vec<Token>> {
        self.templates
            .classes
            .specializations
            .iter()
            .find(|s| s.name == template && s.args == args)
            .map(|s| s.tokens.clone())
    }

    /// Parses the definition `tokens` of `instance`, tagged `tag`, in
    /// namespace `scope` with `bindings` for the parameters, and shares
    /// what it declares with every parse: the struct, its
    /// member types, and its member functions and static members as items.
    fn parse_class_instance(
        &mut self,
        scope: &[String],
        tokens: &[Token],
        tag: &str,
        instance: Arc<ClassInstance>,
        bindings: Vec<(String, (CType, bool, Spelling))>,
        span: Span,
    ) {
        let key = instance_name(&instance.template, &instance.args);
        let mut sub = self.template_parser(tokens, bindings.clone());
        sub.names = self.names.at_namespace_scope(scope);
        sub.instance_sites = self.nested_sites(tag, span);
        sub.instancing = Some((tag.to_string(), instance));
        sub.instance_bindings = bindings.clone();
        // The class, then the members defined outside it.
        let mut items = sub.external_decl(false);
        while !sub.at_eof() {
            let at = sub.pos;
            let more = sub.external_decl(false);
            if sub.pos == at {
                break;
            }
            match (&mut items, more) {
                (Ok(all), Ok(more)) => all.extend(more),
                (_, Err(e)) => items = Err(e),
                (Err(_), Ok(_)) => {}
            }
        }
        for d in sub.diags.drain(..) {
            let d = if d.severity == crate::diag::Severity::Error {
                d.with_label(span, format!("in `{tag}`, instantiated here"))
            } else {
                d
            };
            self.diags.push(d);
        }
        self.next_struct_id.at_least(sub.next_struct_id.next());
        self.pending_enums.append(&mut sub.pending_enums);
        self.share_instance_facts(&key, &mut sub, tokens, bindings, scope, span);
        let Some(def) = sub.structs.get(&key).cloned() else {
            return;
        };
        let prefix = format!("{key}::");
        let constants: Vec<(String, i128)> = sub
            .constants
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        let mut member_types: Vec<_> = sub
            .typedefs
            .declared()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // Its nested classes are member types too (`Scan::TempStorage`).
        member_types.extend(
            sub.structs
                .iter()
                .filter(|(k, _)| k.starts_with(&prefix))
                .map(|(k, d)| {
                    (
                        k.clone(),
                        (CType::Struct(d.clone()), false, Default::default()),
                    )
                }),
        );
        for (k, _) in &member_types {
            self.names.declare(Kind::Type, k, span);
        }

        let Ok(mut shared) = self.instances.lock() else {
            return;
        };
        // Its static data members, which its member templates' instances
        // (parsed later, from the file's names) name unqualified.
        let statics = sub.pending_items.iter().chain(items.iter().flatten());
        let statics = statics.filter_map(|i| match i {
            crate::ast::Item::Var(v) => Some(v.name.clone()),
            _ => None,
        });
        shared.statics.insert(key.clone(), statics.collect());
        shared.structs.insert(key, def);
        shared.typedefs.extend(member_types);
        shared.constants.extend(constants);
        shared.items.append(&mut sub.pending_items);
        if let Ok(items) = items {
            shared.items.extend(items);
        }
    }

    /// The stand-in for an instance whose arguments are dependent: an
    /// empty struct that carries the template and the arguments.
    fn dependent_instance(&mut self, key: String, instance: Arc<ClassInstance>) -> CType {
        let id = self.next_struct_id.fresh();
        let mut def = StructDef::layout(id, key.clone(), false, Vec::new(), 1);
        def.instance_of = Some(instance);
        let def = Arc::new(def);
        Arc::make_mut(&mut self.structs).insert(key, def.clone());
        CType::Struct(def)
    }

    /// The stand-in for member type `member` of the dependent instance
    /// `def` (`typename Acc<T>::type`): an empty struct nested in the
    /// instance, which its Itanium name spells (`N3AccIT_E4typeE`).
    fn dependent_member(&mut self, def: &StructDef, member: &str) -> CType {
        let key = super::names::join(&def.name, member);
        if let Some(made) = self.structs.get(&key) {
            return CType::Struct(made.clone());
        }
        let id = self.next_struct_id.fresh();
        let mut stand_in = StructDef::layout(id, key.clone(), false, Vec::new(), 1);
        stand_in.enclosing_instance = def.instance_of.clone();
        let stand_in = Arc::new(stand_in);
        Arc::make_mut(&mut self.structs).insert(key, stand_in.clone());
        CType::Struct(stand_in)
    }

    /// Whether `def` is the stand-in of a dependent instance.
    fn is_dependent_def(&self, def: &StructDef) -> bool {
        self.in_pattern
            || def
                .instance_of
                .as_ref()
                .is_some_and(|i| i.args.iter().any(is_dependent_arg))
    }
}

/// The type pack parameter a pattern's placeholder expands, when it is
/// the placeholder of `Ts...` (`Parser::pack_expansion`).
/// Gives `params`, a class template's parameters as one declaration
/// writes them, the default arguments another declaration of it gives
/// (`other`): C++ merges them across declarations ([temp.param]), so
/// `template <class T, int N = 4> struct Arr;` gives the definition
/// `template <class T, int N> struct Arr { ... };` its default. A default
/// names the parameters as its declaration does, renamed to `params`'.
fn take_defaults(params: &mut [TemplateParam], other: &[TemplateParam]) {
    let renamed: Vec<(String, String)> = other
        .iter()
        .zip(params.iter())
        .map(|(o, p)| (o.name.clone(), p.name.clone()))
        .collect();
    for (p, o) in params.iter_mut().zip(other) {
        let (None, Some(tokens)) = (&p.default, &o.default) else {
            continue;
        };
        let mut tokens = tokens.clone();
        for t in tokens.iter_mut().filter(|t| t.kind == TokenKind::Ident) {
            if let Some((_, to)) = renamed.iter().find(|(from, _)| **from == *t.text) {
                t.text = to.as_str().into();
            }
        }
        p.default = Some(tokens);
    }
}

fn expanded_type_param(ty: &CType) -> Option<usize> {
    let i = crate::types::template_param_index(ty)?;
    ty.struct_def()?.name.ends_with("...").then_some(i)
}

/// Whether an argument involves a function template's parameter
/// placeholder (`crate::types::template_param`).
fn is_dependent_arg(a: &ArgValue) -> bool {
    match a {
        ArgValue::Type { ty, .. } => is_dependent_type(ty),
        ArgValue::Int(..) | ArgValue::Func { .. } | ArgValue::Template(_) => false,
        ArgValue::Param(_) => true,
        ArgValue::Pack(elems) => elems.iter().any(is_dependent_arg),
        ArgValue::LvalueRef(t) | ArgValue::RvalueRef(t) => is_dependent_arg(t),
    }
}

/// Whether `ty` involves a template parameter's placeholder.
/// Parameter `p` of `params`, its value type an earlier type parameter
/// (`T v` of `integral_constant<class T, T v>`, read as `int` until bound)
/// replaced by that parameter's argument in `known`, so the value is of
/// that type and is named so (`Lb1E`, `Ls2E`).
fn with_bound_type(
    p: &TemplateParam,
    params: &[TemplateParam],
    known: &[ArgValue],
) -> TemplateParam {
    let mut p = p.clone();
    let named = match p.dependent_type.as_deref() {
        Some([t]) if t.kind == TokenKind::Ident => params.iter().position(|q| q.name == t.text),
        _ => None,
    };
    if let (ParamKind::Value(ty, spelling), Some(i)) = (&mut p.kind, named) {
        if let Some(ArgValue::Type {
            ty: arg,
            spelling: arg_spelling,
            ..
        }) = known.get(i)
        {
            *ty = arg.clone();
            *spelling = arg_spelling.clone();
            p.dependent_type = None;
        }
    }
    p
}

pub(crate) fn is_dependent_type(ty: &CType) -> bool {
    if crate::types::template_param_index(ty).is_some() {
        return true;
    }
    match ty {
        CType::Pointer { pointee, .. } => is_dependent_type(pointee),
        CType::Array { elem, .. } => is_dependent_type(elem),
        // An instance, or a member type of one (`typename Acc<T>::type`).
        CType::Struct(s) => s
            .instance_of
            .as_ref()
            .or(s.enclosing_instance.as_ref())
            .is_some_and(|i| i.args.iter().any(is_dependent_arg)),
        _ => false,
    }
}

/// In the tokens of a template declaration, the index of the name of the
/// class it declares or defines (`struct alignas(16) Packed128 {`), or
/// `None` when it is not a class.
pub(super) fn class_name_at(tokens: &[Token]) -> Option<usize> {
    let first = tokens.first()?;
    if is_alias(tokens) {
        return Some(1);
    }
    if !matches!(
        first.kind,
        TokenKind::Keyword(Keyword::Struct | Keyword::Class | Keyword::Union)
    ) {
        return None;
    }
    let mut i = 1;
    while let Some(t) = tokens.get(i) {
        if t.kind == TokenKind::Ident
            && super::decl::is_align_kw(&t.text)
            && is_punct(tokens.get(i + 1), Punct::LParen)
        {
            i = skip_parens(tokens, i + 1);
            continue;
        }
        break;
    }
    let name = tokens.get(i)?;
    let after = tokens.get(i + 1);
    let class_like = is_punct(after, Punct::LBrace)
        || is_punct(after, Punct::Semi)
        || is_punct(after, Punct::Lt)
        || is_punct(after, Punct::Colon);
    (name.kind == TokenKind::Ident && class_like).then_some(i)
}

/// Whether a template declaration's tokens are an alias template's,
/// `using Name = type;`.
/// In a template's declaration tokens, a variable template's
/// (`inline constexpr bool is_same_v = is_same<T, U>::value;`): the index
/// of its name, the identifier before the first `=` outside brackets,
/// after a `constexpr` and a type. `None` for another declaration.
pub(super) fn variable_name_at(tokens: &[Token]) -> Option<usize> {
    let mut depth = 0usize;
    let mut constexpr = false;
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            TokenKind::Keyword(Keyword::Constexpr) if depth == 0 => constexpr = true,
            TokenKind::Keyword(
                Keyword::Struct | Keyword::Class | Keyword::Union | Keyword::Using,
            ) if depth == 0 => return None,
            TokenKind::Punct(Punct::Lt | Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::Gt | Punct::RParen | Punct::RBracket) => {
                depth = depth.saturating_sub(1)
            }
            TokenKind::Punct(Punct::Shr) => depth = depth.saturating_sub(2),
            TokenKind::Punct(Punct::LBrace | Punct::Semi) if depth == 0 => return None,
            TokenKind::Punct(Punct::Assign) if depth == 0 => {
                let named = i >= 2 && tokens[i - 1].kind == TokenKind::Ident;
                return (constexpr && named).then(|| i - 1);
            }
            _ => {}
        }
    }
    None
}

/// Whether a class template's tokens are a variable template's.
fn is_variable(tokens: &[Token]) -> bool {
    !is_alias(tokens)
        && tokens.first().is_some_and(|t| {
            !matches!(
                t.kind,
                TokenKind::Keyword(Keyword::Struct | Keyword::Class | Keyword::Union)
            )
        })
}

/// Whether a token before a variable template's type is a specifier
/// (`inline constexpr`, `static`, `__device__`).
fn is_variable_specifier(t: &Token) -> bool {
    matches!(
        t.kind,
        TokenKind::Keyword(
            Keyword::Inline
                | Keyword::Constexpr
                | Keyword::Static
                | Keyword::Device
                | Keyword::Constant
                | Keyword::Host
        )
    )
}

fn is_alias(tokens: &[Token]) -> bool {
    tokens.first().map(|t| &t.kind) == Some(&TokenKind::Keyword(Keyword::Using))
        && tokens.get(1).is_some_and(|t| t.kind == TokenKind::Ident)
        && is_punct(tokens.get(2), Punct::Assign)
}

/// The index after the parenthesized group opening at `open`.
fn skip_parens(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.kind {
            TokenKind::Punct(Punct::LParen) => depth += 1,
            TokenKind::Punct(Punct::RParen) => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

fn is_punct(t: Option<&Token>, p: Punct) -> bool {
    t.is_some_and(|t| t.kind == TokenKind::Punct(p))
}

/// `tokens` with the class's own name `name` (the injected class name:
/// the tag, the constructors, uses in the body) spelled as the
/// instance's `tag`; a use followed by `<` is a template-id and stays.
fn rename_class(tokens: &[Token], name: &str, tag: &str) -> Vec<Token> {
    let mut out = tokens.to_vec();
    for (i, t) in out.iter_mut().enumerate() {
        if t.kind == TokenKind::Ident && t.text == name && !is_punct(tokens.get(i + 1), Punct::Lt) {
            t.text = tag.into();
        }
    }
    out
}
