//! Recursive-descent parser: tokens to [`ast::TranslationUnit`].
//!
//! Errors are recorded and the parser resynchronises at statement or
//! function boundaries, so one run reports many independent mistakes.
//!
//! Flat chains (`a + b + c ...`, `a = b = c ...`, `c1 ? x : c2 ? y : ...`,
//! `if ... else if ...`, `a, b, c`) are parsed by loops, so their length is
//! unbounded. True nesting (parentheses, blocks, statement bodies, operands
//! of unary operators and casts) recurses; every recursive level runs on a
//! stack that grows on demand ([`stdx::stack::with_stack`]), and the depth
//! is bounded by [`crate::Options::nesting_limit`] (error E0014) so that
//! hostile input cannot exhaust memory.

mod asm;
mod bases;
mod bindings;
mod class_templates;
mod classes;
mod decl;
mod decltype;
mod expr;
mod fn_pointers;
mod host_frames;
mod lambdas;
mod names;
mod namespaces;
mod references;
mod scoped_enums;
mod stmt;
mod structs;
mod templates;
mod typedefs;

pub(crate) use bases::BaseFacts;
pub(crate) use class_templates::is_dependent_type;
pub(crate) use classes::ClassCtx;
pub(crate) use host_frames::{
    host_expr, host_template, host_template_arg, host_type, HostTemplate,
};
pub(crate) use lambdas::{host_params, lambda_operator, lambda_params};
pub(crate) use names::{join, split_key, Names, ANONYMOUS};

use std::sync::atomic::Ordering;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::ast::{EnumDecl, Item, TranslationUnit};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::{ParseEnv, Templates};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::CType;

/// Marker error: a diagnostic has been recorded; the caller should resync.
#[derive(Debug)]
pub(crate) struct Recorded;

pub(crate) type PResult<T> = Result<T, Recorded>;

/// What the split phase found in host code that the parse needs.
pub(crate) struct HostCode<'a> {
    /// The uses of device templates (instantiation requests).
    pub uses: &'a [crate::split::TemplateUse],
    /// The lambdas (`crate::host_lambdas`).
    pub lambdas: crate::host_lambdas::HostLambdas,
    /// The host function templates' declarations, by name.
    pub templates: FxHashMap<String, Vec<Arc<[Token]>>>,
}

/// Parses preprocessed tokens: the device code, and the template uses the
/// split phase found in host code (instantiation requests).
pub(crate) fn parse_tokens(
    tokens: &[Token],
    host: HostCode<'_>,
    source_len: u32,
    opts: &crate::Options,
) -> (TranslationUnit, Vec<Diagnostic>) {
    let eof = Span::new(source_len, source_len);
    let mut p = Parser::new(tokens, eof, opts);
    p.host_lambdas = host.lambdas;
    let items = p.translation_unit();
    for u in host.uses {
        p.host_use(u);
    }
    let mut templates = std::mem::take(&mut p.templates);
    templates.host_templates = host.templates;
    templates.env = ParseEnv {
        typedefs: std::mem::take(&mut p.typedefs).into_table(),
        structs: std::mem::take(&mut p.structs),
        next_struct_id: p.next_struct_id.next().into(),
        names: std::mem::take(&mut p.names),
        constants: std::mem::take(&mut p.constants),
        instances: p.instances.clone(),
        classes: std::mem::take(&mut p.classes),
        host_lambdas: p.host_lambdas.clone(),
        nominated_in_instances: Default::default(),
    };
    templates.adopt_member_templates();
    (
        TranslationUnit {
            items,
            host: Vec::new(),
            templates: Arc::new(templates),
        },
        p.diags,
    )
}

/// Parses the default argument `tokens` of a parameter of template `t`,
/// with the arguments `known` of the parameters before it bound.
pub(crate) fn parse_template_arg(
    templates: &Templates,
    t: &crate::templates::FunctionTemplate,
    tokens: &[Token],
    known: &[crate::templates::ArgValue],
    opts: &crate::Options,
) -> Result<crate::templates::TemplateArg, Vec<Diagnostic>> {
    let tokens = crate::templates::substitute_values_in(t, known, tokens);
    let types = crate::templates::type_bindings(t, known);
    let mut p = Parser::from_env(templates, &t.scope, &tokens, types, opts);
    let arg = p.template_arg(false);
    p.leave_env(templates);
    match arg {
        Ok(a) if p.diags.is_empty() && p.at_eof() => Ok(a),
        _ => Err(p.diags),
    }
}

/// Parses the declaration of a template's instantiation: `tokens` (its
/// value parameters already replaced, `crate::templates`) with each type
/// parameter in `types` bound as a typedef of its argument, in the
/// namespace `scope` the template is declared in.
pub(crate) fn parse_instance(
    templates: &Templates,
    scope: &[String],
    tokens: &[Token],
    types: Vec<(String, (CType, bool, crate::ast::Spelling))>,
    opts: &crate::Options,
) -> Result<crate::ast::FunctionDecl, Vec<Diagnostic>> {
    let mut p = Parser::from_env(templates, scope, tokens, types, opts);
    let items = p.external_decl(false);
    p.leave_env(templates);
    let function = items.ok().and_then(|items| {
        items.into_iter().find_map(|item| match item {
            Item::Function(f) => Some(f),
            _ => None,
        })
    });
    match function {
        Some(f) if p.diags.is_empty() && p.at_eof() => Ok(f),
        _ => Err(p.diags),
    }
}

/// Parses the instance of member template `t` of `class` (its key):
/// `tokens`, the member's declaration with the value parameters replaced,
/// read as a member of the class with `types` bound, as the class's own
/// members are read.
/// `tokens`, a type written in template `t` (a value parameter's), read
/// with the arguments `known` of the parameters before it bound.
pub(crate) fn parse_template_type(
    templates: &Templates,
    t: &crate::templates::FunctionTemplate,
    tokens: &[Token],
    known: &[crate::templates::ArgValue],
    opts: &crate::Options,
) -> Result<crate::ast::QualType, Vec<Diagnostic>> {
    let tokens = crate::templates::substitute_values_in(t, known, tokens);
    let types = crate::templates::type_bindings(t, known);
    let mut p = Parser::from_env(templates, &t.scope, &tokens, types, opts);
    let ty = p.type_name();
    p.leave_env(templates);
    match ty {
        Ok(ty) if p.diags.is_empty() && p.at_eof() => Ok(ty),
        _ => Err(p.diags),
    }
}

/// A function template's declaration tokens without its body, ended by a
/// `;`: the header, whose substitution decides whether the template is a
/// candidate ([temp.deduct]).
pub(crate) fn header_tokens(tokens: &[Token]) -> Vec<Token> {
    templates::header_only(tokens)
}

pub(crate) fn parse_member_instance(
    templates: &Templates,
    t: &crate::templates::FunctionTemplate,
    class: &str,
    tokens: &[Token],
    types: Vec<(String, (CType, bool, crate::ast::Spelling))>,
    opts: &crate::Options,
) -> Result<crate::ast::FunctionDecl, Vec<Diagnostic>> {
    let mut p = Parser::from_env(templates, &t.scope, tokens, types, opts);
    // The member's tokens name the class by its tag (`T2<float, int>`,
    // the injected class name), which the class's parse declared in its
    // namespace; this parse declares it again.
    p.names.declare(names::Kind::Type, class, Span::default());
    let f = p.member_template_instance(class);
    p.leave_env(templates);
    match f {
        Some(f) if p.diags.is_empty() && p.at_eof() => Ok(f),
        _ => Err(p.diags),
    }
}

impl<'t> Parser<'t> {
    /// A parser of `tokens` that starts from the state at the end of the
    /// file (`templates.env`) and the class instances made since, in
    /// namespace `scope`, with `types` bound as typedefs.
    fn from_env(
        templates: &Templates,
        scope: &[String],
        tokens: &'t [Token],
        types: Vec<(String, (CType, bool, crate::ast::Spelling))>,
        opts: &crate::Options,
    ) -> Parser<'t> {
        let eof = tokens.last().map(|t| t.span).unwrap_or_default();
        let mut p = Parser::new(tokens, eof, opts);
        let env = &templates.env;
        p.typedefs = typedefs::Typedefs::from_table(env.typedefs.clone());
        p.structs = env.structs.clone();
        p.next_struct_id = StructIds::starting_at(env.next_struct_id.load(Ordering::Relaxed));
        p.names = env.names.clone();
        p.constants = env.constants.clone();
        p.classes = env.classes.clone();
        p.names.enter_scope(scope);
        p.templates.by_name = templates.by_name.clone();
        p.templates.classes = templates.classes.clone();
        p.instances = env.instances.clone();
        p.host_lambdas = env.host_lambdas.clone();
        p.in_instance = true;
        p.bind_types(types);
        p
    }

    /// Hands the struct ids this parse used on to later ones.
    fn leave_env(&mut self, templates: &Templates) {
        let env = &templates.env;
        env.next_struct_id
            .fetch_max(self.next_struct_id.next(), Ordering::Relaxed);
        let new: Vec<&String> = self
            .names
            .nominated()
            .iter()
            .filter(|n| !env.names.nominated().contains(*n))
            .collect();
        if let (false, Ok(mut later)) = (new.is_empty(), env.nominated_in_instances.lock()) {
            later.extend(new.into_iter().cloned());
        }
    }
}

pub(crate) struct Parser<'t> {
    toks: &'t [Token],
    pos: usize,
    diags: Vec<Diagnostic>,
    depth: usize,
    /// The deepest `depth` accepted (E0014): true nesting (parentheses,
    /// blocks, statement bodies, unary operands, casts, initializer braces)
    /// opens a level; flat chains do not.
    nesting_limit: usize,
    /// [`crate::Options::error_limit`]: past it, parsing stops.
    error_limit: usize,
    /// Set when the nesting limit is hit: every level returns at once, and
    /// the top level skips the rest of the item, so one error is reported
    /// instead of one per enclosing level and per statement after it.
    abandon_item: bool,
    /// `typedef` names seen so far: the type and whether it is `const`
    /// (those of the blocks being read end with their block).
    typedefs: typedefs::Typedefs,
    /// `enum { ... }` bodies met inside declaration specifiers, emitted as
    /// their own item or statement before the declaration that holds them.
    pending_enums: Vec<EnumDecl>,
    /// The member functions and static data members of the classes
    /// defined in the current declaration, emitted before it
    /// (`classes.rs`).
    pending_items: Vec<Item>,
    /// The class whose member function is being parsed.
    class: Option<classes::ClassCtx>,
    /// The keys of the classes whose bodies are being read, outermost
    /// first (a nested struct sees its outer classes' constants).
    enclosing_classes: Vec<String>,
    /// The reference members of the struct whose body is being read.
    reference_members: Vec<String>,
    /// The classes with member functions defined so far, by key (for
    /// member functions defined outside their class).
    classes: Arc<FxHashMap<String, classes::ClassCtx>>,
    /// File-scope `const`/`constexpr` integers whose values the parser can
    /// compute, by key: struct member array sizes may use them.
    constants: Arc<FxHashMap<String, i128>>,
    /// Struct tags defined so far (one table, like `typedefs`).
    structs: Arc<FxHashMap<String, std::sync::Arc<crate::types::StructDef>>>,
    /// The classes defined in the blocks being read, innermost last, each
    /// with the definition its name hid (`structs.rs`): a local class is
    /// scoped to its block, so another function may define its own.
    local_structs: Vec<(String, Option<std::sync::Arc<crate::types::StructDef>>)>,
    /// Where the innermost block's entries of `local_structs` begin.
    local_structs_from: usize,
    /// The local classes whose default member initializers made an
    /// implicit default constructor, by name (`structs.rs`).
    local_default_names: rustc_hash::FxHashSet<String>,
    /// The ids of struct definitions, shared with this parser's
    /// sub-parsers.
    next_struct_id: StructIds,
    /// Namespaces, `using` and the scopes of names (`names.rs`).
    names: names::Names,
    /// Scoped enumerations and the types that hold them (E0022).
    scoped: scoped_enums::ScopedEnums,
    /// Returned by `peek` past the end; its empty text marks it as EOF.
    eof: Token,
    /// The function templates declared so far, and the instantiations
    /// asked for (`crate::templates`).
    templates: Templates,
    /// Set while parsing a template argument: `>` closes the list instead
    /// of comparing (parentheses clear it again).
    in_template_args: bool,
    /// Set when the first `>` of a `>>` closed an inner template argument
    /// list: the token stays, as the `>` that closes the outer one.
    split_shr: bool,
    /// Set while reading a function template's pattern: class
    /// template-ids there are dependent (`class_templates.rs`).
    in_pattern: bool,
    /// A parse of a template's instance or part of one (`from_env`,
    /// `sub_parser`), whose caller keeps only the declaration it asked
    /// for: items made on the side (a local class's constructor) are lost.
    in_instance: bool,
    /// Reading `if (T x = e)`'s declaration, which its `)` ends rather
    /// than a `;` (`stmt.rs`, `Parser::paren_header`).
    condition_decl: bool,
    /// In a pattern: the template's parameters by index, the names of its
    /// value parameters (a type parameter's entry is empty).
    pattern_values: Vec<String>,
    /// In a template's pattern (a function template's, a host template's
    /// in `host_frames.rs`, a partial specialization's): a pack's
    /// expansion may end a class template-id's arguments (`List<First,
    /// Rest...>`, `tl<Ts...>`), which deduction or matching binds to the
    /// arguments left.
    pack_expansions: bool,
    /// The class template instances that enclose this parse, outermost
    /// first: each one's tag and where it was instantiated (errors found
    /// later, such as a member `static_assert`'s, name the chain).
    instance_sites: Vec<(String, Span)>,
    /// While parsing a class template's instance: the instance's tag and
    /// what it is an instance of, which its struct records.
    instancing: Option<(String, Arc<crate::templates::ClassInstance>)>,
    /// While parsing a class template's instance: its parameters'
    /// bindings, which the instances of its member templates need too.
    instance_bindings: crate::templates::TypeBindings,
    /// The class template instances of the translation unit, shared with
    /// every sub-parser.
    instances: crate::templates::SharedInstances,
    /// The member functions of a class instance whose arguments name a
    /// class still being defined (CRTP's `Base<K>` in `K`'s base clause),
    /// kept to parse once that class is complete (`bases.rs`).
    stashed_bodies: Option<(CType, classes::ClassMembers)>,
    /// The member bodies of classes nested in the class being read, read
    /// once the outermost enclosing class is complete (C++'s
    /// complete-class context covers the enclosing classes too: a nested
    /// class's member may name the outer class's later members).
    nested_bodies: Vec<(CType, classes::ClassMembers)>,
    /// Set while an outermost class reads its nested classes' bodies: the
    /// outer class then declares their prototypes with its own, ahead of
    /// every body.
    prototypes_by_outer: bool,
    /// The lambdas of host code, by the offset of their `[`
    /// (`crate::host_lambdas`): a launch's argument may be one.
    host_lambdas: crate::host_lambdas::HostLambdas,
    /// `--extended-lambda`: `__host__` and `__device__` lambdas are
    /// allowed.
    extended_lambda: bool,
}

impl<'t> Parser<'t> {
    fn new(toks: &'t [Token], eof: Span, opts: &crate::Options) -> Parser<'t> {
        Parser {
            toks,
            pos: 0,
            diags: Vec::new(),
            depth: 0,
            nesting_limit: opts.nesting_limit,
            error_limit: opts.error_limit,
            abandon_item: false,
            typedefs: Default::default(),
            pending_enums: Vec::new(),
            pending_items: Vec::new(),
            class: None,
            enclosing_classes: Vec::new(),
            reference_members: Vec::new(),
            classes: Default::default(),
            constants: Default::default(),
            structs: Default::default(),
            local_structs: Vec::new(),
            local_structs_from: 0,
            local_default_names: Default::default(),
            next_struct_id: StructIds::starting_at(crate::types::FIRST_USER_STRUCT_ID),
            eof: Token {
                kind: TokenKind::Punct(Punct::Semi),
                text: crate::token::TokenText::default(),
                span: eof,
            },
            names: names::Names::default(),
            scoped: scoped_enums::ScopedEnums::default(),
            templates: Templates::default(),
            in_template_args: false,
            split_shr: false,
            in_pattern: false,
            in_instance: false,
            condition_decl: false,
            pattern_values: Vec::new(),
            pack_expansions: false,
            instance_sites: Vec::new(),
            instancing: None,
            instance_bindings: Vec::new(),
            instances: Default::default(),
            stashed_bodies: None,
            nested_bodies: Vec::new(),
            prototypes_by_outer: false,
            host_lambdas: Default::default(),
            extended_lambda: opts.extended_lambda(),
        }
    }

    /// The instance chain of a parse nested in this one for the instance
    /// `tag`, instantiated at `site`.
    fn nested_sites(&self, tag: &str, site: Span) -> Vec<(String, Span)> {
        let mut sites = self.instance_sites.clone();
        sites.push((tag.to_string(), site));
        sites
    }

    /// A parser of `toks` that sees this one's types and templates, with
    /// `types` bound as typedefs on top.
    fn sub_parser<'s>(
        &self,
        toks: &'s [Token],
        types: Vec<(String, (CType, bool, crate::ast::Spelling))>,
    ) -> Parser<'s> {
        let eof = toks.last().map(|t| t.span).unwrap_or_default();
        let mut p = Parser {
            nesting_limit: self.nesting_limit,
            error_limit: self.error_limit,
            typedefs: self.typedefs.clone(),
            structs: self.structs.clone(),
            local_structs: Vec::new(),
            local_structs_from: 0,
            local_default_names: Default::default(),
            next_struct_id: self.next_struct_id.clone(),
            names: self.names.clone(),
            classes: self.classes.clone(),
            // Enumerators and integer constants: a partial
            // specialization's pattern (`OpFor<Kind::Sum, T>`) and a host
            // use's arguments are computed from them.
            constants: self.constants.clone(),
            ..Parser::new(toks, eof, &crate::Options::default())
        };
        p.templates.by_name = self.templates.by_name.clone();
        p.templates.classes = self.templates.classes.clone();
        p.in_pattern = self.in_pattern;
        p.in_instance = true;
        p.instance_sites = self.instance_sites.clone();
        p.instances = self.instances.clone();
        p.host_lambdas = self.host_lambdas.clone();
        p.extended_lambda = self.extended_lambda;
        p.bind_types(types);
        p
    }

    /// A sub-parser for a class template's definition (or its alias,
    /// variable or default argument) with `types` bound: its names are
    /// looked up where the template is defined, so the typedefs of the
    /// block that instantiates it stay out of sight.
    fn template_parser<'s>(
        &self,
        toks: &'s [Token],
        types: Vec<(String, (CType, bool, crate::ast::Spelling))>,
    ) -> Parser<'s> {
        let mut p = self.sub_parser(toks, types);
        p.typedefs.forget_locals();
        p
    }

    /// Binds `types` as typedefs (template parameters to their arguments)
    /// on top of the ones seen. The tables a parser starts with are shared
    /// with the parser or environment it comes from, and copied only when
    /// one of them is written (`typedefs.rs` keeps bound names apart).
    fn bind_types(&mut self, types: Vec<(String, (CType, bool, crate::ast::Spelling))>) {
        self.typedefs.bind(types);
    }
}

impl Parser<'_> {
    fn at_eof(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.eof)
    }

    fn span(&self) -> Span {
        self.peek().span
    }

    /// The span of the previously consumed token.
    fn prev_span(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.toks.get(i)) {
            Some(t) => t.span,
            None => Span::default(),
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if !self.at_eof() {
            self.pos += 1;
        }
        t
    }

    fn is_punct_at(&self, n: usize, p: Punct) -> bool {
        !self.at_eof_at(n) && self.peek_at(n).kind == TokenKind::Punct(p)
    }

    fn at_eof_at(&self, n: usize) -> bool {
        self.pos + n >= self.toks.len()
    }

    fn is_punct(&self, p: Punct) -> bool {
        self.is_punct_at(0, p)
    }

    fn is_kw(&self, k: Keyword) -> bool {
        self.peek().kind == TokenKind::Keyword(k)
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn eat_kw(&mut self, k: Keyword) -> bool {
        let yes = self.is_kw(k);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn error<T>(&mut self, span: Span, code: Code, msg: impl Into<String>) -> PResult<T> {
        self.diags.push(Diagnostic::error(span, code, msg));
        Err(Recorded)
    }

    /// Describes the current token for "expected X, found Y" messages.
    fn found(&self) -> String {
        if self.at_eof() {
            "end of file".to_string()
        } else {
            format!("`{}`", self.peek().text)
        }
    }

    fn expect_punct(&mut self, p: Punct, context: &str) -> PResult<Span> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            // A missing `;` (or anything at end of input) belongs to the end
            // of the previous token: the next token is often on another line.
            let span = if self.at_eof() || p == Punct::Semi {
                self.prev_span()
            } else {
                self.span()
            };
            let msg = format!(
                "expected `{}` {context}, found {}",
                p.as_str(),
                self.found()
            );
            let help = match p {
                Punct::Semi => {
                    Some("help: C ends every statement and declaration with `;`; add one here")
                }
                Punct::RParen => Some(
                    "help: every `(` needs a matching `)`; check the parentheses before this point",
                ),
                _ => None,
            };
            let mut d = Diagnostic::error(span, Code::E0003, msg);
            if let Some(h) = help {
                d = d.with_note(h);
            }
            self.diags.push(d);
            // A `;` missing before something that starts a new statement
            // (a name, a keyword, `}`) was most likely forgotten at the end
            // of a line: go on as if it were there, so the next statement
            // is still checked instead of being skipped by resync.
            let starts_next = !self.at_eof()
                && matches!(
                    self.peek().kind,
                    TokenKind::Ident | TokenKind::Keyword(_) | TokenKind::Punct(Punct::RBrace)
                );
            if p == Punct::Semi && starts_next {
                return Ok(span);
            }
            Err(Recorded)
        }
    }

    /// Enters one nesting level; errors when the input nests deeper than
    /// the limit and gives up the current item (see `abandon_item`).
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > self.nesting_limit {
            self.depth -= 1;
            let span = self.span();
            self.abandon_item = true;
            let limit = self.nesting_limit;
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0014,
                    format!("nesting is too deep: more than {limit} levels"),
                )
                .with_note("parentheses, blocks, statement bodies, unary operators and casts each open a level; the rest of this declaration is skipped"),
            );
            return Err(Recorded);
        }
        Ok(())
    }

    /// Whether more errors than the limit were reported: the parser stops
    /// (the parser reports only errors, so the count is the length).
    fn over_error_limit(&self) -> bool {
        self.error_limit != 0 && self.diags.len() > self.error_limit
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips to a likely statement boundary: past a `;` or a balanced `{}`
    /// group at the current level, or up to (not past) an unmatched `}`.
    fn sync_stmt(&mut self) {
        let start = self.pos;
        let mut parens = 0usize;
        while !self.at_eof() {
            match &self.peek().kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket) => parens += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => {
                    parens = parens.saturating_sub(1)
                }
                TokenKind::Punct(Punct::Semi) if parens == 0 => {
                    self.pos += 1;
                    return;
                }
                TokenKind::Punct(Punct::LBrace) => {
                    self.skip_braces();
                    if parens == 0 {
                        // `struct ... { ... };`: the `;` belongs to it.
                        self.eat_punct(Punct::Semi);
                        return;
                    }
                    continue;
                }
                TokenKind::Punct(Punct::RBrace) => {
                    if self.pos == start {
                        self.pos += 1;
                    }
                    return;
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Moves past the end of the top-level item that starts at token
    /// `start`: its `;` at bracket depth 0, or the `}` that closes its
    /// outermost `{`. Counting brackets from the start (not from where the
    /// parser gave up) costs no recursion, however deep the item nests.
    fn skip_item_from(&mut self, start: usize) {
        let mut depth = 0usize;
        let mut pos = start;
        while pos < self.toks.len() {
            match self.toks[pos].kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => {
                    depth = depth.saturating_sub(1)
                }
                TokenKind::Punct(Punct::RBrace) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        pos += 1;
                        // `struct S { ... };`: the `;` belongs to it.
                        if matches!(
                            self.toks.get(pos).map(|t| &t.kind),
                            Some(TokenKind::Punct(Punct::Semi))
                        ) {
                            pos += 1;
                        }
                        break;
                    }
                }
                TokenKind::Punct(Punct::Semi) if depth == 0 => {
                    pos += 1;
                    break;
                }
                _ => {}
            }
            pos += 1;
        }
        self.pos = pos.max(self.pos);
    }

    /// Skips a balanced `{ ... }` group starting at the current `{`.
    fn skip_braces(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            match self.bump().kind {
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Top level: declarations and `extern "C" { ... }` blocks.
    fn translation_unit(&mut self) -> Vec<Item> {
        let mut out = Vec::new();
        let mut extern_c_blocks = Vec::new();
        while !self.at_eof() {
            if self.over_error_limit() {
                break;
            }
            if self.is_kw(Keyword::Extern)
                && matches!(&self.peek_at(1).kind, TokenKind::Str(s) if s == "C")
                && self.is_punct_at(2, Punct::LBrace)
            {
                self.pos += 3;
                extern_c_blocks.push(self.prev_span());
                continue;
            }
            if self.at_namespace_close(extern_c_blocks.len()) {
                self.pos += 1;
                self.names.close_namespace();
                continue;
            }
            if !extern_c_blocks.is_empty() && self.is_punct(Punct::RBrace) {
                self.pos += 1;
                extern_c_blocks.pop();
                continue;
            }
            let start = self.pos;
            if self.is_kw(Keyword::Template) {
                if self.template_decl().is_err() {
                    self.pos = start;
                    self.skip_item_from(start);
                }
                // The class instances an explicit instantiation named.
                out.append(&mut self.take_instance_items());
                continue;
            }
            if self.is_kw(Keyword::StaticAssert) {
                match self.static_assert() {
                    Ok(sa) => {
                        out.append(&mut self.take_instance_items());
                        out.push(Item::StaticAssert(sa));
                    }
                    Err(Recorded) => self.sync_stmt(),
                }
                continue;
            }
            if self.at_namespace_item() {
                if self.namespace_item(extern_c_blocks.len()).is_err() {
                    self.sync_stmt();
                    if self.pos == start {
                        self.pos += 1;
                    }
                }
                continue;
            }
            let r = self.external_decl(!extern_c_blocks.is_empty());
            out.extend(self.pending_enums.drain(..).map(Item::Enum));
            out.append(&mut self.take_instance_items());
            out.append(&mut self.pending_items);
            match r {
                Ok(items) => out.extend(items),
                Err(Recorded) if self.abandon_item => {
                    self.abandon_item = false;
                    self.depth = 0;
                    self.skip_item_from(start);
                }
                Err(Recorded) => {
                    self.sync_stmt();
                    if self.pos == start {
                        self.pos += 1;
                    }
                }
            }
        }
        out.append(&mut self.take_instance_items());
        if let Some(open) = self.names.unclosed() {
            self.diags.push(Diagnostic::error(
                open,
                Code::E0003,
                "unclosed `namespace` block",
            ));
        }
        if let Some(open) = extern_c_blocks.pop() {
            self.diags.push(Diagnostic::error(
                open,
                Code::E0003,
                "unclosed `extern \"C\" {` block",
            ));
        }
        out
    }
}

/// The source of struct ids of one parse, which its sub-parsers share: a
/// struct's id is its identity (`StructDef`'s equality), so two structs
/// never get one id, whichever parser defines them (a class instance a
/// launch's argument made while reading host code and the one a later
/// template argument made were once both 1000, and a kernel instance for
/// the second was taken for the first's and left out).
#[derive(Clone, Debug)]
pub(super) struct StructIds(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl StructIds {
    fn starting_at(first: u32) -> StructIds {
        StructIds(std::sync::Arc::new(first.into()))
    }

    /// A new id.
    pub(super) fn fresh(&self) -> u32 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }

    /// The id the next struct gets.
    pub(super) fn next(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    /// Makes the next id at least `n`: after a parser with ids of its
    /// own (`Parser::from_env`) defined structs.
    pub(super) fn at_least(&self, n: u32) {
        self.0.fetch_max(n, Ordering::Relaxed);
    }
}
