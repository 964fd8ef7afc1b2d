//! `template` declarations, explicit instantiations and template-ids
//! (`reduce<float, 256>`). What a template keeps and how it is instantiated
//! is `crate::templates`.

use std::sync::Arc;

use super::names::{Found, Kind};
use super::namespaces::QualName;
use super::{PResult, Parser, Recorded};
use crate::ast::Spelling;
use crate::ast::{Expr, ExprKind, FunctionDecl, Item};
use crate::codes::Code;
use crate::diag::Span;
use crate::templates::{
    CallArg, FunctionTemplate, ParamKind, Request, Specialization, TemplateArg, TemplateParam,
};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::CType;

impl Parser<'_> {
    /// Whether `name` names a function template here.
    pub(super) fn is_template_name(&self, name: &str) -> bool {
        self.template_key(name).is_some()
    }

    /// The key of the function template an unqualified `name` names here
    /// (found in the enclosing namespaces like any name), or `None`.
    pub(super) fn template_key(&self, name: &str) -> Option<String> {
        if self.names.is_local(name) {
            return None;
        }
        match self.names.lookup(Kind::Value, name) {
            Found::One(key) if self.templates.is_template(&key) => Some(key),
            _ => self.templates.is_template(name).then(|| name.to_string()),
        }
    }

    /// The key of the function template the (possibly qualified) name
    /// at the current token names when `<` follows it, and how many tokens
    /// the name takes.
    fn template_id_at(&self) -> Option<(String, usize)> {
        if let Some(q) = self.qualified_at(0) {
            if !self.is_punct_at(q.tokens, Punct::Lt) {
                return None;
            }
            let key = self.resolve_qualified(&q, Kind::Value).ok()?;
            return self.templates.is_template(&key).then_some((key, q.tokens));
        }
        if self.peek().kind != TokenKind::Ident || !self.is_punct_at(1, Punct::Lt) {
            return None;
        }
        let name = &self.peek().text;
        let builtin = || {
            (crate::texture::is_function(name) && !self.names.is_local(name))
                .then(|| name.to_string())
        };
        self.template_key(name).or_else(builtin).map(|k| (k, 1))
    }

    /// At `template`: a template declaration (kept as tokens), an explicit
    /// instantiation (`template __global__ void k<16>(float *);`, recorded
    /// as a request), or an explicit specialization (not supported yet).
    pub(super) fn template_decl(&mut self) -> PResult<()> {
        let kw = self.bump().span;
        if !self.is_punct(Punct::Lt) {
            return self.explicit_instantiation(kw);
        }
        if self.is_punct_at(1, Punct::Gt) {
            self.pos += 2;
            return self.explicit_specialization(kw);
        }
        self.bump();
        let params = self.template_params()?;
        let start = self.pos;
        let end = self.item_end(start);
        let tokens = self.toks[start..end].to_vec();
        if let Some(name_at) = super::class_templates::class_name_at(&tokens) {
            self.pos = end;
            return self.class_template_decl(params, tokens, name_at);
        }
        if let Some(at) = self.outside_member_at(&tokens) {
            self.pos = end;
            return self.outside_member_decl(kw, &params, tokens, at);
        }
        let Some((name_at, is_kernel)) = function_name(&tokens) else {
            if let Some(name_at) = super::class_templates::variable_name_at(&tokens) {
                // Kept as a class template is: an instance is its
                // initializer read with the arguments bound.
                self.pos = end;
                return self.class_template_decl(params, tokens, name_at);
            }
            let what = if tokens.first().map(|t| &t.kind)
                == Some(&TokenKind::Keyword(Keyword::Template))
            {
                // `template <class T> template <class U> T A<T>::f(U)`.
                "member templates defined outside their class template are"
            } else if tokens.iter().any(|t| {
                matches!(
                    t.kind,
                    TokenKind::Keyword(Keyword::Struct | Keyword::Class | Keyword::Union)
                )
            }) {
                "class templates are"
            } else {
                "variable templates other than `constexpr` ones are"
            };
            self.pos = end;
            return self.error(
                kw,
                Code::E0002,
                format!("{what} not supported by kernelc yet"),
            );
        };
        if let Some(class) = self.class_qualifying(&tokens, name_at) {
            // `template <class U> __device__ void S::add(U x) {...}`.
            self.pos = end;
            let msg = format!("member templates defined outside their class are not supported by kernelc yet; define `{}` in `{class}`", tokens[name_at].text);
            return self.error(kw, Code::E0002, msg);
        }
        let written = if tokens[name_at].kind == TokenKind::Keyword(Keyword::Operator) {
            super::classes::operator_name_at(&tokens, name_at).0
        } else {
            tokens[name_at].text.to_string()
        };
        let name = self.names.qualify(&written);
        let name_span = tokens[name_at].span;
        self.names.declare(Kind::Value, &name, name_span);
        let scope = match self.names.current_key() {
            k if k.is_empty() => Vec::new(),
            k => k.split("::").map(str::to_string).collect(),
        };
        if let Some(at) = template_param_in_header(&tokens, &params) {
            self.pos = end;
            return self.error(
                at,
                Code::E0002,
                "a template template parameter in a function template's parameter or return types (`C<T> x`, whose argument a call would deduce) is not supported by kernelc yet; use it in the body (`Op<T>()(a, b)`)",
            );
        }
        let (pattern, param_pack) = self.pattern(&tokens, &params);
        if pattern.is_none() && params.iter().any(|p| p.pack) {
            // A pack's instances need the pattern for their names.
            self.pos = end;
            return self.unreadable_variadic(&tokens, &params, name_span);
        }
        let index = self.templates.functions.len();
        self.templates.functions.push(FunctionTemplate {
            name: name.clone(),
            scope,
            params,
            tokens,
            name_span,
            is_kernel,
            pattern,
            member_of: None,
            param_pack,
        });
        Arc::make_mut(&mut self.templates.by_name)
            .entry(name)
            .or_default()
            .push(index);
        self.pos = end;
        Ok(())
    }

    /// After `template <>`: an explicit specialization of a function
    /// template, `float fromFloat<float>(float v) { ... }`, read as the
    /// declaration without its template arguments and kept with them.
    fn explicit_specialization(&mut self, kw: Span) -> PResult<()> {
        let start = self.pos;
        let end = self.item_end(start);
        let tokens = self.toks[start..end].to_vec();
        if let Some(name_at) = super::class_templates::class_name_at(&tokens) {
            self.pos = end;
            return self.class_specialization(kw, &tokens, name_at);
        }
        let name_at = tokens.iter().enumerate().position(|(i, t)| {
            t.kind == TokenKind::Ident
                && self.is_template_name(&t.text)
                && matches!(
                    tokens.get(i + 1).map(|t| &t.kind),
                    Some(TokenKind::Punct(Punct::Lt))
                )
        });
        let Some(name_at) = name_at else {
            self.pos = end;
            return self.error(
                kw,
                Code::E0002,
                "this explicit specialization is not supported by kernelc yet (only of a function template, with its arguments written: `template <> float f<float>(float x) { ... }`)",
            );
        };
        let mut sub = self.sub_parser(&tokens[name_at + 1..], Vec::new());
        let args = sub.template_args();
        let after = name_at + 1 + sub.pos;
        self.diags.append(&mut sub.diags);
        let args = args?;
        let mut plain = tokens[..=name_at].to_vec();
        plain.extend_from_slice(&tokens[after..]);
        let mut sub = self.sub_parser(&plain, Vec::new());
        let items = sub.external_decl(false);
        self.diags.append(&mut sub.diags);
        self.pos = end;
        let decl = items?.into_iter().find_map(|item| match item {
            Item::Function(f) => Some(f),
            _ => None,
        });
        let Some(decl) = decl else {
            return self.error(kw, Code::E0003, "expected a function after `template <>`");
        };
        let Some(key) = self.template_key(&tokens[name_at].text) else {
            return Ok(());
        };
        self.templates.specializations.push(Specialization {
            name: key,
            args,
            decl,
        });
        Ok(())
    }

    /// The parameter list after `template <`, through its `>`.
    pub(super) fn template_params(&mut self) -> PResult<Vec<TemplateParam>> {
        let mut params = Vec::new();
        if self.eat_punct(Punct::Gt) {
            return Ok(params);
        }
        loop {
            let start = self.span();
            // `float (*Op)(float)` names the parameter inside its type.
            let mut named_inside = None;
            let mut dependent_type = None;
            let kind = if let Some((tokens, name)) = self.dependent_value_param(&params) {
                named_inside = name;
                dependent_type = Some(tokens);
                ParamKind::Value(CType::INT, Spelling::Plain)
            } else if self.eat_kw(Keyword::Typename) || self.eat_kw(Keyword::Class) {
                ParamKind::Type
            } else if self.eat_kw(Keyword::Template) {
                self.template_template_param(start)?
            } else {
                let (ty, name) = self.value_param_type()?;
                named_inside = name;
                ParamKind::Value(ty.ty, ty.spelling)
            };
            let pack = named_inside.is_none() && self.eat_punct(Punct::Ellipsis);
            if named_inside.is_none() && self.unnamed_param_ends_here() {
                // `typename = void`, `int = 0`: a name no code can write.
                named_inside = Some(Token {
                    kind: TokenKind::Ident,
                    text: format!("<unnamed {}>", params.len() + 1).into(),
                    span: start,
                });
            }
            if named_inside.is_none() && (self.peek().kind != TokenKind::Ident || self.at_eof()) {
                let found = self.found();
                let sp = self.span();
                return self.error(
                    sp,
                    Code::E0003,
                    format!("expected a template parameter name, found {found}"),
                );
            }
            if params.len() == crate::types::MAX_TEMPLATE_PARAMS {
                return self.error(
                    start,
                    Code::E0002,
                    format!(
                        "kernelc supports at most {} template parameters",
                        crate::types::MAX_TEMPLATE_PARAMS
                    ),
                );
            }
            let name_tok = match named_inside {
                Some(t) => t,
                None => self.bump(),
            };
            let default = if self.eat_punct(Punct::Assign) {
                Some(self.default_template_arg())
            } else {
                None
            };
            if pack && default.is_some() {
                let sp = start.to(self.prev_span());
                return self.error(
                    sp,
                    Code::E0003,
                    "a parameter pack cannot have a default argument",
                );
            }
            params.push(TemplateParam {
                name: name_tok.text.into(),
                kind,
                default,
                span: start.to(self.prev_span()),
                pack,
                dependent_type,
            });
            if self.eat_punct(Punct::Comma) {
                continue;
            }
            if !self.close_template_args() || self.split_shr {
                // A `>>` of its own is not one `>`: report it as missing.
                self.split_shr = false;
                self.expect_punct(Punct::Gt, "to close the template parameter list")?;
            }
            return Ok(params);
        }
    }

    /// After `template` in a template parameter list: `<typename> class`
    /// (or `typename`, C++17) of a template template parameter, whose kind
    /// says how many type parameters its argument takes.
    fn template_template_param(&mut self, start: Span) -> PResult<ParamKind> {
        if !self.is_punct(Punct::Lt) {
            let found = self.found();
            let sp = self.span();
            return self.error(
                sp,
                Code::E0003,
                format!("expected `<` after `template`, found {found}"),
            );
        }
        self.pos += 1;
        let inner = self.template_params()?;
        if inner.iter().any(|p| p.kind != ParamKind::Type) {
            return self.error(
                start.to(self.prev_span()),
                Code::E0002,
                "kernelc supports template template parameters of type parameters only (`template <typename> class Op`) yet",
            );
        }
        if !self.eat_kw(Keyword::Class) && !self.eat_kw(Keyword::Typename) {
            let found = self.found();
            let sp = self.span();
            return self.error(
                sp,
                Code::E0003,
                format!("expected `class` or `typename` after a template template parameter's `template <...>`, found {found}"),
            );
        }
        if self.is_punct(Punct::Ellipsis) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "a pack of template template parameters is not supported by kernelc yet",
            );
        }
        let variadic = inner.iter().any(|p| p.pack);
        Ok(ParamKind::Template((!variadic).then_some(inner.len())))
    }

    /// Whether an unnamed template parameter ends here: its default, or
    /// the next parameter, or the list's end follows its kind.
    fn unnamed_param_ends_here(&self) -> bool {
        matches!(
            self.peek().kind,
            TokenKind::Punct(Punct::Assign | Punct::Comma | Punct::Gt | Punct::Shr)
        ) && !self.at_eof()
    }

    /// At a value template parameter whose type names the parameters
    /// before it (`params`): `typename std::enable_if<C<T>::value,
    /// int>::type = 0`, `std::enable_if_t<std::is_integral_v<T>, bool> N =
    /// true`. Steps past the type and its name (if written) and gives
    /// them, the type unread (it is read once those parameters have
    /// arguments, `crate::templates::TemplateParam::dependent_type`).
    fn dependent_value_param(
        &mut self,
        params: &[TemplateParam],
    ) -> Option<(Vec<Token>, Option<Token>)> {
        let typename = self.is_kw(Keyword::Typename);
        let from = self.pos + usize::from(typename);
        if typename {
            // `typename T` and `typename T = X` declare a type parameter.
            let qualified = matches!(
                self.toks.get(from + 1).map(|t| &t.kind),
                Some(TokenKind::Punct(Punct::ColonColon | Punct::Lt))
            ) || matches!(
                self.toks.get(from).map(|t| &t.kind),
                Some(TokenKind::Punct(Punct::ColonColon))
            );
            if !qualified {
                return None;
            }
        } else if self.is_kw(Keyword::Class) || self.is_kw(Keyword::Template) {
            return None;
        }
        let end = param_type_end(self.toks, from)?;
        let mut tokens = self.toks[from..end].to_vec();
        let names_earlier = tokens
            .iter()
            .any(|t| t.kind == TokenKind::Ident && params.iter().any(|p| *p.name == *t.text));
        if !typename && !names_earlier {
            return None;
        }
        let named = tokens.len() >= 2
            && tokens.last().is_some_and(|t| t.kind == TokenKind::Ident)
            && tokens[tokens.len() - 2].kind != TokenKind::Punct(Punct::ColonColon);
        let name = if named { tokens.pop() } else { None };
        self.pos = end;
        Some((tokens, name))
    }

    /// The tokens of a default template argument: up to the `,` or `>` that
    /// ends it outside brackets.
    fn default_template_arg(&mut self) -> Vec<Token> {
        let mut depth = 0usize;
        let mut out = Vec::new();
        while !self.at_eof() {
            match self.peek().kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::Lt) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => {
                    depth = depth.saturating_sub(1)
                }
                TokenKind::Punct(Punct::Gt | Punct::Comma) if depth == 0 => break,
                TokenKind::Punct(Punct::Gt) => depth -= 1,
                TokenKind::Punct(Punct::Shr) if depth >= 2 => depth -= 2,
                TokenKind::Punct(Punct::Shr) if depth == 1 => {
                    // `Sum<T>>`: the first `>` closes the argument's list,
                    // the second the parameter list (`close_template_args`
                    // consumes the token).
                    let shr = self.peek().clone();
                    out.push(Token {
                        kind: TokenKind::Punct(Punct::Gt),
                        text: ">".into(),
                        span: shr.span,
                    });
                    self.split_shr = true;
                    break;
                }
                _ => {}
            }
            out.push(self.bump());
        }
        out
    }

    /// The index just past the item starting at `start` (its `;`, or the
    /// `}` closing its body), without moving.
    pub(super) fn item_end(&mut self, start: usize) -> usize {
        let here = self.pos;
        self.skip_item_from(start);
        let end = self.pos;
        self.pos = here;
        end
    }

    /// The header of a template's declaration parsed with each type
    /// parameter bound to its placeholder: the parameter types as written,
    /// for deduction and names, a function parameter pack as one parameter
    /// (whose index comes along). `None` when it does not parse.
    fn pattern(
        &self,
        tokens: &[Token],
        params: &[TemplateParam],
    ) -> (Option<FunctionDecl>, Option<usize>) {
        let (header, param_pack) = pattern_header(tokens, params);
        let decl = self
            .pattern_decl(&header, params)
            .or_else(|| self.pattern_decl(&without_return_type(&header)?, params));
        (decl, param_pack)
    }

    /// `header` read as a pattern, or `None`.
    fn pattern_decl(&self, header: &[Token], params: &[TemplateParam]) -> Option<FunctionDecl> {
        let mut sub = self.pattern_parser(header, params);
        // A class template-id's arguments may end with a pack's expansion
        // (`const tl<Ts...> &`), which deduction binds.
        sub.pack_expansions = true;
        let items = sub.external_decl(false).ok()?;
        if !sub.diags.is_empty() {
            return None;
        }
        items.into_iter().find_map(|item| match item {
            Item::Function(f) => Some(f),
            _ => None,
        })
    }

    /// Reports the variadic template declared by `tokens` whose pattern
    /// does not parse (its name at `at`), with why.
    fn unreadable_variadic(
        &mut self,
        tokens: &[Token],
        params: &[TemplateParam],
        at: Span,
    ) -> PResult<()> {
        let (header, _) = pattern_header(tokens, params);
        let why = if header
            .iter()
            .any(|t| t.kind == TokenKind::Punct(Punct::Ellipsis))
        {
            "a pack may be expanded there only as the last parameter (`Ts... xs`) yet".to_string()
        } else {
            let mut sub = self.pattern_parser(&header, params);
            let _ = sub.external_decl(false);
            match sub.diags.first() {
                Some(d) => d.message.clone(),
                None => "kernelc does not support these parameter types in templates yet".into(),
            }
        };
        self.error(
            at,
            Code::E0002,
            format!("kernelc cannot read the parameters of this variadic template: {why}"),
        )
    }

    /// A parser of `tokens` that reads them as a template's pattern: each
    /// type parameter of `params` bound to its placeholder
    /// ([`crate::types::template_param`]), each value parameter known by
    /// name, class template-ids dependent.
    pub(super) fn pattern_parser<'s>(
        &self,
        tokens: &'s [Token],
        params: &[TemplateParam],
    ) -> Parser<'s> {
        let types = params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.kind == ParamKind::Type)
            .map(|(i, p)| {
                let placeholder = crate::types::template_param(i, &p.name);
                (p.name.clone(), (placeholder, false, Default::default()))
            })
            .collect();
        let mut sub = self.sub_parser(tokens, types);
        sub.in_pattern = true;
        sub.pack_expansions = self.pack_expansions;
        sub.pattern_values = params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Value(..) => p.name.clone(),
                ParamKind::Type | ParamKind::Template(_) => String::new(),
            })
            .collect();
        sub
    }

    /// `template` not followed by `<`: an explicit instantiation of a
    /// function template, `template __global__ void k<16>(float *);`. Its
    /// template-id is what matters; the rest is skipped to the `;`.
    fn explicit_instantiation(&mut self, kw: Span) -> PResult<()> {
        let start = self.pos;
        let end = self.item_end(start);
        // The template-id, qualified or not (`sim::step<float>`).
        let mut found = None;
        for i in start..end {
            self.pos = i;
            if let Some(id) = self.template_id_at() {
                found = Some(id);
                break;
            }
        }
        let Some((key, len)) = found else {
            self.pos = end;
            return self.error(
                kw,
                Code::E0002,
                "this explicit instantiation is not supported by kernelc (only of a function template, with its arguments written: `template __global__ void k<16>(float *);`)",
            );
        };
        let span = self.toks[self.pos + len - 1].span;
        self.pos += len;
        let args = self.template_args()?;
        self.templates.requests.push(Request {
            name: key,
            args,
            span,
            call: Vec::new(),
            frames: Vec::new(),
            written: Vec::new(),
            explicit: true,
        });
        self.pos = end;
        Ok(())
    }

    /// A name in an expression: a template-id when it names a function
    /// or class template and `<` follows, else a (possibly qualified)
    /// name.
    pub(super) fn name_or_template_id(&mut self) -> PResult<Expr> {
        if let Some(member) = self.implicit_member_template()? {
            return Ok(member);
        }
        if self.template_id_at().is_some() {
            return self.template_id();
        }
        if self.class_template_at(0).is_some() {
            return self.class_template_expr();
        }
        if let Some((len, (ty, is_const, spelling))) = self.qualified_type_at(0) {
            let at = self.span();
            let is_struct = ty.is_struct();
            let ty = crate::ast::QualType {
                ty,
                is_const,
                is_volatile: false,
                spelling,
                span: at,
            };
            // `ops::Max()`, `geo::Vec3{1, 2, 3}`: a qualified class's
            // construction.
            if is_struct
                && (self.is_punct_at(len, Punct::LParen) || self.is_punct_at(len, Punct::LBrace))
            {
                self.pos += len;
                return self.construct(ty, at);
            }
            // `Tile::Kind(i)`, `ns::real_t(x)`: a qualified scalar or enum
            // type's functional cast.
            if !is_struct && self.is_punct_at(len, Punct::LParen) {
                self.pos += len - 1;
                return self.cast_to(ty, at);
            }
        }
        self.name_expr()
    }

    /// `step<3>` in a member function's body, of a member template of its
    /// class or of a base: `this->step<3>`, called on the object as
    /// `obj.step<3>` is. `None` (nothing read) for any other name.
    fn implicit_member_template(&mut self) -> PResult<Option<Expr>> {
        let tok = self.peek().clone();
        if tok.kind != TokenKind::Ident || !self.is_punct_at(1, Punct::Lt) {
            return Ok(None);
        }
        let Some(mut member) = self.implicit_member(&tok.text, tok.span) else {
            return Ok(None);
        };
        self.bump();
        if !self.member_template_args_follow(&tok.text, false) {
            return Ok(Some(member));
        }
        let args = self.template_args()?;
        if let ExprKind::Member { template_args, .. } = &mut member.kind {
            *template_args = args;
        }
        member.span = tok.span.to(self.prev_span());
        Ok(Some(member))
    }

    /// A template-id in an expression: `reduce<float, 256>`,
    /// `gpu::reduce<float>`, at the name; the expression names the
    /// template by its key.
    pub(super) fn template_id(&mut self) -> PResult<Expr> {
        let start = self.span();
        let (key, len) = match self.template_id_at() {
            Some(found) => found,
            None => (self.peek().text.to_string(), 1),
        };
        self.pos += len;
        let args = self.template_args()?;
        Ok(Expr {
            kind: ExprKind::TemplateId { name: key, args },
            span: start.to(self.prev_span()),
        })
    }

    /// Whether `<` after the member name `field` opens template arguments:
    /// after `.template`, or when a class declares a member template of
    /// that name (C++ looks the name up in the object's class; the parser
    /// does not know the object's type, so any class's will do).
    pub(super) fn member_template_args_follow(&self, field: &str, keyword: bool) -> bool {
        self.is_punct(Punct::Lt)
            && (keyword
                || self.templates.by_name.keys().any(|k| {
                    k.rsplit_once("::").is_some_and(|(class, name)| {
                        name == field && self.structs.contains_key(class)
                    })
                })
                || self.instance_has_member_template(field))
    }

    /// `<arg, ...>` after a template's name: each argument a type or a
    /// constant expression in which `>` closes the list (C++ [temp.names]:
    /// `>>` closes two lists).
    pub(super) fn template_args(&mut self) -> PResult<Vec<TemplateArg>> {
        self.expect_punct(Punct::Lt, "to open the template arguments")?;
        let mut args = Vec::new();
        if self.close_template_args() {
            return Ok(args);
        }
        loop {
            let arg = self.template_arg(true)?;
            args.push(self.pack_expansion(arg));
            if self.eat_punct(Punct::Comma) {
                continue;
            }
            if self.close_template_args() {
                return Ok(args);
            }
            let found = self.found();
            let sp = self.span();
            self.diags.push(crate::diag::Diagnostic::error(
                sp,
                Code::E0003,
                format!("expected `,` or `>` in the template arguments, found {found}"),
            ));
            return Err(Recorded);
        }
    }

    /// `arg`, or where a pattern may expand a pack (`pack_expansions`: a
    /// host template's, a partial specialization's), its expansion: a
    /// value pack's name spelled `Rest...`, which `pattern_value` reads as
    /// [`crate::templates::expansion`], or a type pack's placeholder
    /// named `Ts...` (`class_templates.rs`, `expanded_type_param`).
    fn pack_expansion(&mut self, arg: TemplateArg) -> TemplateArg {
        if !self.pack_expansions || !self.is_punct(Punct::Ellipsis) {
            return arg;
        }
        let value_pack = match &arg {
            TemplateArg::Value(e) => match &e.kind {
                ExprKind::Ident(name) if self.pattern_values.contains(name) => {
                    Some((format!("{name}..."), e.span))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some((name, span)) = value_pack {
            self.pos += 1;
            let kind = ExprKind::Ident(name);
            return TemplateArg::Value(Expr { kind, span });
        }
        // Only a pack may be expanded, so a placeholder before `...` is a
        // type pack's.
        let TemplateArg::Type(mut qt) = arg else {
            return arg;
        };
        if let Some(i) = crate::types::template_param_index(&qt.ty) {
            if !qt.is_const && !qt.is_volatile {
                self.pos += 1;
                let name = qt.ty.struct_def().map_or(String::new(), |d| d.name.clone());
                qt.ty = crate::types::template_param(i, &format!("{name}..."));
            }
        }
        TemplateArg::Type(qt)
    }

    /// One template argument: a type, or a constant expression (in an
    /// argument list, `in_list`, one that a `>` ends).
    pub(super) fn template_arg(&mut self, in_list: bool) -> PResult<TemplateArg> {
        if self.is_kw(Keyword::Decltype) && self.is_punct_at(1, Punct::LParen) {
            self.pos += 2;
            let outer = std::mem::replace(&mut self.in_template_args, false);
            let e = self.expr();
            self.in_template_args = outer;
            let e = e?;
            self.expect_punct(Punct::RParen, "to close `decltype(`")?;
            return Ok(TemplateArg::Decltype(e));
        }
        if let Some(arg) = self.template_name_arg() {
            return Ok(arg);
        }
        if let Some(ty) = self.template_type_arg() {
            let ty = self.argument_reference(ty);
            return self.array_type_arg(ty).map(TemplateArg::Type);
        }
        if self.starts_type(0) && self.class_template_at(0).is_none() {
            let ty = self.type_name()?;
            let ty = self.argument_reference(ty);
            return self.array_type_arg(ty).map(TemplateArg::Type);
        }
        let outer = std::mem::replace(&mut self.in_template_args, in_list);
        let e = self.cond_value();
        self.in_template_args = outer;
        e.map(TemplateArg::Value)
    }

    /// `ty` followed by an array's bounds in a template argument
    /// (`float[7]`, `int[2][3]`, `T[]`; in a partial specialization's
    /// pattern `U[N]`, whose bound `N` matching binds,
    /// [`crate::types::dependent_len`]). A bound is a constant the parser
    /// computes.
    fn array_type_arg(&mut self, mut ty: crate::ast::QualType) -> PResult<crate::ast::QualType> {
        let mut lens = Vec::new();
        while self.eat_punct(Punct::LBracket) {
            if self.eat_punct(Punct::RBracket) {
                lens.push(None);
                continue;
            }
            let outer = std::mem::replace(&mut self.in_template_args, false);
            let e = self.cond_value();
            self.in_template_args = outer;
            let e = e?;
            let len = match &e.kind {
                crate::ast::ExprKind::Ident(name) if self.in_pattern => {
                    let i = self.pattern_values.iter().position(|p| p == name);
                    i.map(crate::types::dependent_len)
                }
                _ => None,
            };
            let len = len.or_else(|| {
                let v = self.parse_time_value(&e)?;
                u64::try_from(v).ok().filter(|v| *v > 0)
            });
            let Some(len) = len else {
                return self.error(
                    e.span,
                    Code::E0019,
                    "kernelc cannot compute this array bound while parsing: write a positive integer constant",
                );
            };
            self.expect_punct(Punct::RBracket, "to close the array bound")?;
            lens.push(Some(len));
        }
        for len in lens.into_iter().rev() {
            ty.ty = CType::Array {
                elem: Box::new(ty.ty),
                len,
            };
        }
        ty.span = ty.span.to(self.prev_span());
        Ok(ty)
    }

    /// A class template's (possibly qualified) name that a template
    /// argument is all of (`MaxOp` in `f<MaxOp, float>`): the argument of
    /// a template template parameter.
    fn template_name_arg(&mut self) -> Option<TemplateArg> {
        if self.templates.classes.templates.is_empty() {
            return None;
        }
        let start = self.span();
        let (key, len) = match self.qualified_at(0) {
            Some(q) => (self.resolve_qualified(&q, Kind::Type).ok()?, q.tokens),
            None if self.peek().kind == TokenKind::Ident => {
                let i = self.class_template_named(&self.peek().text.clone())?;
                (self.templates.classes.templates[i].name.clone(), 1)
            }
            None => return None,
        };
        self.templates.classes.by_name.get(&key)?;
        let ends = matches!(
            self.peek_at(len).kind,
            TokenKind::Punct(Punct::Comma | Punct::Gt | Punct::Shr)
        ) || self.at_eof_at(len);
        if !ends {
            return None;
        }
        self.pos += len;
        Some(TemplateArg::Template(key, start.to(self.prev_span())))
    }

    /// A template argument that reads as a type. A class template-id
    /// may start a type (`Pack<float>`, `Traits<T>::Acc`) or a value
    /// (`is_same<T, float>::value`), which only its member tells; it is
    /// read as a type, and if that fails the reading is undone.
    fn template_type_arg(&mut self) -> Option<crate::ast::QualType> {
        if !self.starts_type(0) || self.class_template_at(0).is_none() {
            return None;
        }
        let (pos, diags, split) = (self.pos, self.diags.len(), self.split_shr);
        let ty = self.type_name().ok();
        if ty.is_none() || self.diags.len() > diags {
            self.pos = pos;
            self.diags.truncate(diags);
            self.split_shr = split;
            return None;
        }
        ty
    }

    /// A type argument `ty` and the `&` or `&&` that end it
    /// (`holder<float &>`, `tuple<Ts &...>`): a reference type. An `&&`
    /// that does not end the argument is left to the caller.
    fn argument_reference(&mut self, ty: crate::ast::QualType) -> crate::ast::QualType {
        let mut n = 0;
        while self.is_punct_at(n, Punct::Amp) || self.is_punct_at(n, Punct::AndAnd) {
            n += 1;
        }
        let ends = [Punct::Comma, Punct::Gt, Punct::Shr, Punct::Ellipsis]
            .iter()
            .any(|&p| self.is_punct_at(n, p));
        if n == 0 || !ends {
            return ty;
        }
        self.reference_type(ty)
    }

    /// Consumes the `>` closing a template argument list; half of a `>>`
    /// closes an inner list and leaves the other half for the outer one.
    pub(super) fn close_template_args(&mut self) -> bool {
        if self.split_shr {
            self.split_shr = false;
            self.pos += 1;
            return true;
        }
        if self.eat_punct(Punct::Gt) {
            return true;
        }
        if self.is_punct(Punct::Shr) {
            self.split_shr = true;
            return true;
        }
        false
    }

    /// Records the instantiation a use in host code asks for
    /// (`crate::host_uses`), its arguments' tokens read as template
    /// arguments, and a launch's call arguments as expressions to deduce
    /// the others from; E0019 when kernelc cannot read the written ones,
    /// since the program would lack the kernel nvcc gives it. A name that
    /// is no template here is left alone.
    pub(super) fn host_use(&mut self, u: &crate::split::TemplateUse) {
        let Some(key) = self.host_template_key(&u.name, &u.scope, u.span) else {
            return;
        };
        // Through host templates' frames, the frames' template parameters
        // are deduced by the checker: what names them is read then.
        let framed = !u.frames.is_empty();
        let args = if framed || u.deduced {
            Some(Vec::new())
        } else {
            self.host_use_args(&u.args, &u.scope)
        };
        let Some(args) = args else {
            let why = format!(
                "kernelc cannot read the template arguments of this use of `{}` in host code",
                u.name
            );
            self.diags.push(
                crate::diag::Diagnostic::error(u.span, Code::E0019, why).with_note(format!(
                    "write them as literals, types or constants: `{}<float, 256><<<grid, block>>>(...)`; host code is not compiled, so kernelc reads only such arguments",
                    u.name
                )),
            );
            return;
        };
        let call = u
            .call
            .iter()
            .flatten()
            .map(|a| CallArg {
                expr: if framed {
                    None
                } else {
                    self.host_call_arg(&a.tokens)
                },
                tokens: a.tokens.clone(),
                span: a.span,
                text: a.text.clone(),
            })
            .collect();
        let (frames, written) = if framed {
            (u.frames.clone(), u.args.clone())
        } else {
            (Vec::new(), Vec::new())
        };
        self.templates.requests.push(Request {
            name: key,
            args,
            span: u.span,
            call,
            frames,
            written,
            explicit: false,
        });
    }

    /// The key of the function template a host use names as `written`
    /// (`reduce`, `gpu::reduce`) in the host function of namespace `scope`:
    /// a qualified name is looked up from `scope` outwards, as C++ does
    /// (`detail::fill` in `ns` is `ns::detail::fill` when that exists).
    fn host_template_key(&self, written: &str, scope: &[String], span: Span) -> Option<String> {
        let global = written.starts_with("::");
        let parts: Vec<(String, Span)> = written
            .trim_start_matches("::")
            .split("::")
            .map(|p| (p.to_string(), span))
            .collect();
        if parts.len() == 1 && !global {
            return self
                .template_key(written)
                .or_else(|| self.only_template_named(written));
        }
        let enclosing = if global { 0 } else { scope.len() };
        (0..=enclosing).rev().find_map(|depth| {
            let mut path: Vec<(String, Span)> =
                scope[..depth].iter().map(|n| (n.clone(), span)).collect();
            path.extend(parts.iter().cloned());
            let q = QualName {
                global,
                parts: path,
                tokens: 0,
                span,
            };
            let key = self.resolve_qualified(&q, Kind::Value).ok()?;
            self.templates.is_template(&key).then_some(key)
        })
    }

    /// The one function template whose name, in whatever namespace, is
    /// `name`: what an unqualified use in host code inside a namespace
    /// names (the split does not keep host code's namespaces, so the use
    /// is looked up from the global one; a name several namespaces
    /// declare stays unresolved).
    fn only_template_named(&self, name: &str) -> Option<String> {
        let mut keys = self
            .templates
            .by_name
            .keys()
            .filter(|k| crate::mangle::unqualified(k) == name);
        let key = keys.next()?;
        keys.next().is_none().then(|| key.clone())
    }

    /// A launch's call argument (its host variables replaced by
    /// stand-ins) read as an expression, or `None`.
    fn host_call_arg(&self, tokens: &[Token]) -> Option<Expr> {
        let mut sub = self.sub_parser(tokens, Vec::new());
        let e = sub.cond_value().ok()?;
        (sub.at_eof() && sub.diags.is_empty()).then_some(e)
    }

    /// Each argument of a host use read as a template argument in the
    /// namespace `scope` of the host function it is written in, or `None`.
    fn host_use_args(&mut self, args: &[Vec<Token>], scope: &[String]) -> Option<Vec<TemplateArg>> {
        let mut out = Vec::new();
        for tokens in args {
            let mut sub = self.sub_parser(tokens, Vec::new());
            sub.names.enter_scope(scope);
            let arg = sub.template_arg(false);
            let complete = sub.at_eof();
            let diags = std::mem::take(&mut sub.diags);
            match arg {
                Ok(a) if complete && diags.is_empty() => out.push(a),
                _ => return None,
            }
        }
        Some(out)
    }
}

/// In a template's declaration tokens: the index of the function's name
/// (the first name followed by `(` outside brackets, not an attribute) and
/// whether it is a kernel; `None` for a declaration that is not a function.
pub(super) fn function_name(tokens: &[Token]) -> Option<(usize, bool)> {
    let mut depth = 0usize;
    let mut kernel = false;
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::LBrace | Punct::Semi | Punct::Assign) if depth == 0 => {
                return None
            }
            TokenKind::Keyword(
                Keyword::Struct | Keyword::Class | Keyword::Union | Keyword::Using,
            ) if depth == 0 => return None,
            TokenKind::Keyword(Keyword::Global) if depth == 0 => kernel = true,
            // `template <typename T> V<T> operator*(V<T>, V<T>)`.
            TokenKind::Keyword(Keyword::Operator) if depth == 0 => return Some((i, kernel)),
            TokenKind::Ident
                if depth == 0
                    && matches!(
                        tokens.get(i + 1).map(|t| &t.kind),
                        Some(TokenKind::Punct(Punct::LParen))
                    ) =>
            {
                return Some((i, kernel));
            }
            _ => {}
        }
    }
    None
}

/// Where the header of a function template's declaration (`tokens`)
/// names one of its template template parameters, if it does: nvcc's
/// names spell such a type as the parameter applied to arguments
/// (`T_IS1_E`), which kernelc's patterns cannot hold yet.
fn template_param_in_header(tokens: &[Token], params: &[TemplateParam]) -> Option<Span> {
    let names: Vec<&str> = params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Template(_)))
        .map(|p| p.name.as_str())
        .collect();
    if names.is_empty() {
        return None;
    }
    header_only(tokens)
        .iter()
        .find(|t| t.kind == TokenKind::Ident && names.contains(&&*t.text))
        .map(|t| t.span)
}

/// The header of a template's declaration (`tokens`) as its pattern reads
/// it: without the body, its function parameter pack without its `...`
/// (`crate::packs::strip_param_pack`), whose index comes along.
pub(super) fn pattern_header(
    tokens: &[Token],
    params: &[TemplateParam],
) -> (Vec<Token>, Option<usize>) {
    let header = header_only(tokens);
    let packs: Vec<&str> = params
        .iter()
        .filter(|p| p.pack)
        .map(|p| p.name.as_str())
        .collect();
    if packs.is_empty() {
        return (header, None);
    }
    crate::packs::strip_param_pack(&header, &packs)
}

/// A function declaration's tokens without its body: the header, ended by
/// a `;` (a prototype).
pub(super) fn header_only(tokens: &[Token]) -> Vec<Token> {
    let body = body_start(tokens);
    let mut header = tokens[..body].to_vec();
    let end_span = header.last().map(|t| t.span).unwrap_or_default();
    header.push(Token {
        kind: TokenKind::Punct(Punct::Semi),
        text: ";".into(),
        span: end_span,
    });
    header
}

/// Where a function declaration's body starts (its `{` outside
/// parentheses), or the end of `tokens` for a prototype.
fn body_start(tokens: &[Token]) -> usize {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::LBrace | Punct::Semi) if depth == 0 => return i,
            _ => {}
        }
    }
    tokens.len()
}

/// Where the type of a template parameter starting at `from` ends (with
/// its name, if written): the `=`, `,`, `>` or `...` after it outside
/// brackets, or the `>>` whose first half closes a list inside it and
/// whose second closes the parameter list (that end is the `>>`'s
/// index, and the type lacks its first `>`: `None`, as kernelc does not
/// read such a type here).
fn param_type_end(toks: &[Token], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(from) {
        match t.kind {
            TokenKind::Punct(Punct::Lt | Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.checked_sub(1)?,
            TokenKind::Punct(Punct::Assign | Punct::Comma | Punct::Gt | Punct::Ellipsis)
                if depth == 0 =>
            {
                return Some(i)
            }
            TokenKind::Punct(Punct::Gt) => depth -= 1,
            TokenKind::Punct(Punct::Shr) if depth >= 2 => depth -= 2,
            TokenKind::Punct(Punct::Shr) | TokenKind::Punct(Punct::LBrace | Punct::Semi) => {
                return None
            }
            _ => {}
        }
    }
    None
}

/// A function template's header with its return type written `void`,
/// its specifiers kept: the pattern of a template whose return type
/// reads only with arguments (`typename std::enable_if<C<T>::value,
/// T>::type`, where the header decides whether the template is a
/// candidate), for deduction, which the return type takes no part in.
/// `None` for a header without a function name.
fn without_return_type(header: &[Token]) -> Option<Vec<Token>> {
    let (name_at, _) = function_name(header)?;
    let mut out: Vec<Token> = header[..name_at]
        .iter()
        .filter(|t| t.is_function_specifier())
        .cloned()
        .collect();
    out.push(Token {
        kind: TokenKind::Keyword(Keyword::Void),
        text: "void".into(),
        span: header[name_at].span,
    });
    out.extend_from_slice(&header[name_at..]);
    Some(out)
}
