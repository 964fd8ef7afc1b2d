//! The instantiations of kernel templates that host code asks for.
//!
//! A kernel template is instantiated where host code names it with its
//! arguments: a launch (`reduce<float, 256><<<g, b>>>(...)`), its address
//! (`&k<16>`, `cudaFuncSetAttribute(k<T>, ...)`). Host code is never parsed
//! (`crate::split`), so this module reads those uses from its tokens, with
//! just enough evaluation for the ways programs write them:
//!
//! - arguments written out (`k<16>`, `k<float, true>`), or naming a
//!   constant of the function or the file (`const int kThreads = 256;`),
//!   substituted by its value's tokens;
//! - uses inside a host function template, instantiated in turn from the
//!   uses of *that* template with its arguments written out
//!   (`template <class T> void run(...) { switch (n) { case 256:
//!   reduce<T, 256><<<...>>>` called as `run<float>(...)` from `main`):
//!   each distinct instantiation of a host template is followed once;
//!   a host template whose last parameter is a pack (`template <int...
//!   Rs>`) is followed once an element when its body names the pack only
//!   element by element (a fold over `k<Rs><<<...>>>`), else once with the
//!   elements written where the body expands it (`stamp<Rs...>`).
//!
//! What it finds are token lists, one per argument; the parser reads them
//! as template arguments (`Parser::host_use_args`) and the checker
//! evaluates them. A launch also keeps its call's arguments, as
//! expressions the checker can type (`crate::host_args`), so that the
//! template arguments it does not write are deduced from them
//! (`k<<<g, b>>>(d_x, n)`). A host template called with deduced
//! arguments (`run(dIn, n)`), or with some written and the rest deduced
//! (`run<256>(dIn, n)`), is followed as a [`HostFrame`], which the checker
//! deduces as C++ would (`crate::sema::host_frames`). A member function
//! template of a class template is one too, its frame's declaration and
//! its body read with the class's arguments: those written before `::`
//! (`Sorter<float>::sortWith(d, n, Less())`), or for a call inside the
//! class those it is followed with; where kernelc knows neither (a call
//! through an object) the checker warns (W0010) at the uses it reaches.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diag::Span;
use crate::host_args::{HostArg, HostScope, Occurrences};
use crate::token::{Keyword, NameBefore, Punct, Token, TokenKind};

/// A use of a template with explicit arguments, found in host code.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TemplateUse {
    /// The template's name as written, qualified or not (`gpu::reduce`).
    pub name: String,
    /// Each argument's tokens, host constants and host template parameters
    /// replaced by their values.
    pub args: Vec<Vec<Token>>,
    /// The template's name where the use (or the use that led to it) is.
    pub span: Span,
    /// A launch that writes no template arguments (`k<<<g, b>>>(dIn,
    /// n)`; `args` is empty): all are deduced from `call`.
    pub deduced: bool,
    /// A launch's call arguments, as the checker can type them.
    pub call: Option<Vec<HostArg>>,
    /// The host function templates called with deduced arguments that
    /// lead to the use, outermost first: their parameters are bound by
    /// deduction, which the checker does (`args` and `call` may name
    /// them).
    pub frames: Vec<HostFrame>,
    /// The namespace of the host function the use is written in, where
    /// its arguments' names are looked up (`using Op = typename
    /// OpFor<K, T>::type;` in `reduce::run` names `reduce::OpFor`).
    pub scope: Vec<String>,
}

/// A call of a host function template whose template arguments are
/// deduced (`launch2D(w, h, [=] __device__ (int x, int y) { ... })`),
/// which the uses in its body are found through.
#[derive(Clone, Debug, PartialEq)]
pub struct HostFrame {
    /// The template's declaration up to its body (`template <class F>
    /// void launch2D(int w, int h, F f)`), shared by every frame of it.
    pub header: Arc<[Token]>,
    /// The call's arguments, in the caller's scope (which the frames
    /// before this one bind), shared by the frames of its templates.
    pub args: Arc<[HostArg]>,
    /// The template arguments the call writes, in the same scope
    /// (`launch<4>(p)`: `4`; deduction gives the rest).
    pub explicit: Arc<[Vec<Token>]>,
}

/// The most host template instantiations followed, and how deep.
const MAX_HOST_INSTANCES: usize = 4096;
const MAX_HOST_DEPTH: usize = 32;

/// A host function, as the search needs it.
struct HostFn<'t> {
    /// Its tokens' range, and where its body starts.
    range: (usize, usize),
    body: usize,
    /// Its template parameters' names (empty for a plain function).
    params: Vec<&'t str>,
    /// How its body uses its last template parameter when that is a pack
    /// (`int... Rs`), which the written arguments past the others fill.
    pack: Option<PackUse>,
    /// The uses of templates in its body.
    uses: Vec<RawUse>,
    /// The `const`/`constexpr` locals and type aliases of its body, by
    /// name, each with where it is in scope.
    consts: Locals<'t>,
    /// The namespace it is declared in.
    scope: Vec<String>,
    /// Its declaration up to its body, for a template (what its frames
    /// and [`HostUses::templates`] hold).
    header: Arc<[Token]>,
    /// For a member of a class template defined outside the class
    /// (`template <class T> void Solver<T>::run(T *p) { ... }`, kept
    /// under the class's name): the member's name.
    member: Option<&'t str>,
    /// Whether host code names that member outside its definitions, so
    /// that an implicit instantiation of the class may instantiate it.
    named: bool,
    /// For a member function template of a class template: the class's
    /// name and template parameters, which a call binds
    /// (`Sorter<float>::sortWith(...)`, or `sortWith(...)` inside the
    /// class).
    class: Option<(&'t str, Vec<&'t str>)>,
    /// For a class template's body: its member functions defined in the
    /// class, by name, each with its token range (a use of one member,
    /// `Blas<float>::gemv(...)`, instantiates that member alone).
    in_class: Vec<(&'t str, (usize, usize))>,
}

/// A use as written: the template's name and each argument's token range
/// (`None`: a launch without them).
struct RawUse {
    name_at: usize,
    /// The first token of the name with its qualifiers (`gpu` of
    /// `gpu::reduce`).
    qualified_at: usize,
    args: Option<Vec<(usize, usize)>>,
    /// The list's closing token is a `>>` whose first half closes the
    /// last argument's own list (`k<int, Sum<int>>`): that argument lacks
    /// its `>`.
    split_close: bool,
    /// A launch: the `(` of its call.
    call_open: Option<usize>,
    /// A call of a host function template with its arguments deduced
    /// (`call_open` is its `(`).
    host_call: bool,
    /// The `(` right after the argument list of a use that is not a
    /// launch (`launch<4>(p)`, `img::fetch<Border>(src, x, y)`), for the
    /// arguments a call that writes only some of its template arguments
    /// deduces the rest from: of a host template, or of a `__host__
    /// __device__` one.
    paren: Option<usize>,
    /// Which members defined outside a class template a use of the
    /// class follows.
    members: Members,
}

/// The members of a class template, defined outside the class, that a
/// use of the class instantiates. C++ instantiates a member of an
/// implicitly instantiated class only where it is used; an explicit
/// instantiation of the class instantiates all of them, one of a member
/// just that member.
#[derive(Clone, Copy, PartialEq)]
enum Members {
    /// An implicit instantiation (`Solver<double> s;`): those host code
    /// names ([`HostFn::named`]).
    Named,
    /// `template struct Solver<float>;`.
    All,
    /// `template void Solver<float>::run(float *);`: the name's token.
    Only(usize),
}

/// Finds the uses of `device_templates` in the host functions `host_fns`
/// (token ranges `start..end` of whole declarations, each with the
/// namespace it is declared in), following host
/// function templates through their own uses; `file_consts` are the
/// file-scope `const` variables' declarations, `globals` every file-scope
/// declaration a launch's arguments may name.
pub(crate) fn find(
    tokens: &[Token],
    device_templates: &FxHashSet<&str>,
    host_fns: &[(usize, usize, Vec<String>)],
    file_consts: &[(usize, usize)],
    globals: &[(usize, usize)],
) -> HostUses {
    let mut fns: Vec<(Option<&str>, HostFn<'_>)> = Vec::new();
    let mut host_templates: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    // A host class's member function templates are host function
    // templates too (`system.step<Scheme>(...)` launching
    // `k<Scheme><<<...>>>`); names are coarse here, as in the split.
    let free_fns = host_fns.len();
    let mut all_fns = host_fns.to_vec();
    // Each member's class template (none for a class), with the class's
    // range. A class's member functions defined in it are host functions
    // too (`void run() { k<Op><<<...>>>(); }`); a class template's are
    // followed through its instances.
    let mut classes = vec![None; free_fns];
    for &(start, end) in globals {
        let class = class_template(tokens, start, end);
        let mut members = member_templates(tokens, start, end);
        if class.is_none() {
            members.extend(member_functions(tokens, start, end));
        }
        classes.extend(members.iter().map(|_| Some((class.clone(), (start, end)))));
        all_fns.extend(members.into_iter().map(|(s, e)| (s, e, Vec::new())));
    }
    let host_fns = &all_fns[..];
    // Names of host templates first: a use is of a device or a host template.
    for (&(start, end, _), class) in host_fns.iter().zip(&classes) {
        if let Some((name, params, member)) = template_header(tokens, start, end) {
            host_templates.entry(name).or_default();
            let mut f = empty_fn(params);
            f.pack = pack_use(tokens, start, end, &f.params);
            f.member = member;
            f.class = class.as_ref().and_then(|(c, _)| c.clone());
            fns.push((Some(name), f));
        } else {
            fns.push((None, empty_fn(Vec::new())));
        }
    }
    for (i, (name, _)) in fns.iter().enumerate() {
        if let Some(n) = name {
            host_templates.entry(n).or_default().push(i);
        }
    }
    mark_named_members(tokens, host_fns, &mut fns);
    let wanted = |name: &str| device_templates.contains(name) || host_templates.contains_key(name);
    // After `.` or `->` only a member function template is a use.
    let members = |name: &str| host_templates.contains_key(name);
    for ((f, (start, end, scope)), class) in fns.iter_mut().zip(host_fns).zip(&classes) {
        let (start, end) = (*start, *end);
        f.1.scope = scope.clone();
        let body = body_start(tokens, start, end);
        f.1.uses = if is_explicit_instantiation(tokens, start) {
            instantiated(tokens, start, end, &wanted, &members)
        } else {
            raw_uses(tokens, body, end, &wanted, &members)
        };
        let mut consts = consts_in(tokens, body, end);
        if let Some((_, (cs, ce))) = class {
            // A member names its class's constants and aliases
            // (`static constexpr int kTile = 256;`, `using Op = ...;`).
            consts.extend(class_consts(tokens, *cs, *ce));
        }
        f.1.consts = Locals::of(consts);
        if f.0.is_some() && is_class_header(&tokens[start..body]) {
            split_class_body(tokens, (start, end), &mut f.1);
        }
        f.1.range = (start, end);
        f.1.body = body;
        if f.0.is_some() {
            f.1.header = tokens[start..body].into();
        }
    }
    let mut file: FxHashMap<&str, (usize, usize)> = FxHashMap::default();
    for &(start, end) in file_consts {
        file.extend(
            consts_in(tokens, start, end)
                .into_iter()
                .map(|(name, c)| (name, c.value)),
        );
    }
    let occurrences = Occurrences::of(tokens);
    let known_templates: FxHashSet<&str> = device_templates
        .iter()
        .copied()
        .chain(host_templates.keys().copied())
        .collect();
    let mut search = Search {
        tokens,
        occurrences: &occurrences,
        known_templates: &known_templates,
        device_templates,
        host_templates: &host_templates,
        fns: &fns,
        file: &file,
        globals,
        seen_host: FxHashSet::default(),
        seen_device: FxHashSet::default(),
        out: Vec::new(),
    };
    for (i, (name, _)) in fns.iter().enumerate() {
        if name.is_none() {
            search.follow(i, &FxHashMap::default(), None, 0, &[], None);
        }
    }
    let mut headers: FxHashMap<String, Vec<Arc<[Token]>>> = FxHashMap::default();
    for (name, f) in fns.iter().take(free_fns) {
        // A class template's uses are followed, but it is no function
        // template that a host call deduces.
        if let Some(name) = name.filter(|_| !is_class_header(&f.header) && f.member.is_none()) {
            headers
                .entry(name.to_string())
                .or_default()
                .push(f.header.clone());
        }
    }
    HostUses {
        uses: search.out,
        templates: headers,
    }
}

/// What [`find`] finds.
pub(crate) struct HostUses {
    pub uses: Vec<TemplateUse>,
    /// The declarations of host function templates at namespace scope,
    /// up to their bodies, by name (`crate::sema::host_frames`).
    pub templates: FxHashMap<String, Vec<Arc<[Token]>>>,
}

impl HostFn<'_> {
    /// Whether the token at `at` is inside the class's member function
    /// `member` defined in the class.
    fn in_member(&self, member: &str, at: usize) -> bool {
        (self.in_class.iter()).any(|&(n, (s, e))| n == member && (s..e).contains(&at))
    }
}

fn empty_fn(params: Vec<&str>) -> HostFn<'_> {
    HostFn {
        range: (0, 0),
        body: 0,
        params,
        pack: None,
        uses: Vec::new(),
        consts: Locals::default(),
        scope: Vec::new(),
        header: Arc::from([]),
        member: None,
        named: false,
        class: None,
        in_class: Vec::new(),
    }
}

/// The state of the search through host functions.
struct Search<'a, 't> {
    tokens: &'t [Token],
    device_templates: &'a FxHashSet<&'a str>,
    host_templates: &'a FxHashMap<&'t str, Vec<usize>>,
    fns: &'a [(Option<&'t str>, HostFn<'t>)],
    file: &'a FxHashMap<&'t str, (usize, usize)>,
    globals: &'a [(usize, usize)],
    occurrences: &'a Occurrences<'t>,
    /// The names of the device and host templates.
    known_templates: &'a FxHashSet<&'a str>,
    /// Host template instantiations followed, by name and arguments' text.
    seen_host: FxHashSet<String>,
    /// Device template uses found, by the same key.
    seen_device: FxHashSet<String>,
    out: Vec<TemplateUse>,
}

impl<'t> Search<'_, 't> {
    /// Follows the uses in host function `f`, its template parameters bound
    /// to `bindings` (or by deduction, through `frames`); `origin` is the
    /// use in non-template code that led here (where a device use found
    /// here is reported). `only` names the member function whose uses
    /// alone a class template's body has followed (`Blas<T>::gemv(...)`
    /// instantiates `gemv`, not the class's other members).
    fn follow(
        &mut self,
        f: usize,
        bindings: &FxHashMap<&'t str, Vec<Token>>,
        origin: Option<Span>,
        depth: usize,
        frames: &[HostFrame],
        only: Option<&str>,
    ) {
        let fns = self.fns;
        let host = &fns[f].1;
        let scope = HostScope {
            tokens: self.tokens,
            function: host.range,
            body: host.body,
            globals: self.globals,
            bindings,
            occurrences: self.occurrences,
            templates: self.known_templates,
        };
        let context = frames_key(frames);
        for u in &host.uses {
            if only.is_some_and(|m| !host.in_member(m, u.name_at)) {
                continue;
            }
            let name = self.tokens[u.name_at].text.as_str();
            let span = origin.unwrap_or(self.tokens[u.name_at].span);
            // A launch's call, or the call of a `__host__ __device__`
            // template that may write only some of its arguments
            // (`img::fetch<Border>(src, x, y)` deduces `Pixel` from `src`).
            let call = u
                .call_open
                .or(u.paren.filter(|_| self.device_templates.contains(name)))
                .map(|open| scope.launch_args(open));
            let call_key = call.as_ref().map_or(String::new(), |c| {
                format!("({}){context}", key_text(c.iter().map(|a| &a.tokens[..])))
            });
            let written: String = self.tokens[u.qualified_at..=u.name_at]
                .iter()
                .map(|t| t.text.as_str())
                .collect();
            if u.host_call {
                if let Some(call) = call {
                    let class = self.class_args(f, u, bindings);
                    let call = DeducedCall {
                        explicit: Vec::new(),
                        args: call,
                        key: format!("{call_key}{}", class_key(&class)),
                        class,
                    };
                    self.follow_deduced(name, call, span, depth, frames);
                }
                continue;
            }
            let Some(raw_args) = &u.args else {
                if self.device_templates.contains(name)
                    && self.seen_device.insert(format!("{written}<<<{call_key}"))
                {
                    self.out.push(TemplateUse {
                        name: written,
                        args: Vec::new(),
                        span: self.tokens[u.name_at].span,
                        deduced: true,
                        call,
                        frames: frames.to_vec(),
                        scope: host.scope.clone(),
                    });
                }
                continue;
            };
            let mut args: Vec<Vec<Token>> = raw_args
                .iter()
                .flat_map(|&(s, e)| match decltype_operand(self.tokens, s, e) {
                    Some((os, oe)) => vec![decltype_of(&scope, (s, e), (os, oe))],
                    // `Rs...` stands for as many arguments as elements.
                    None => split_elements(self.resolve(s, e, bindings, &host.consts, 0)),
                })
                .collect();
            if let (true, Some(last)) = (u.split_close, args.last_mut()) {
                let span = self.tokens[u.name_at].span;
                last.push(Token {
                    kind: TokenKind::Punct(Punct::Gt),
                    text: ">".into(),
                    span,
                });
            }
            let key = format!("{name}<{}>{context}", key_text(args.iter().map(|a| &a[..])));
            let class = self.class_args(f, u, bindings);
            if self.device_templates.contains(name) {
                if self.seen_device.insert(format!(
                    "{written}<{}>{call_key}",
                    key_text(args.iter().map(|a| &a[..]))
                )) {
                    self.out.push(TemplateUse {
                        name: written,
                        args,
                        span,
                        deduced: false,
                        call,
                        frames: frames.to_vec(),
                        scope: host.scope.clone(),
                    });
                }
            } else if let Some(open) = u.paren.filter(|_| self.writes_part(name, args.len())) {
                let call = scope.launch_args(open);
                let key = format!(
                    "<{}>({}){context}",
                    key_text(args.iter().map(|a| &a[..])),
                    key_text(call.iter().map(|a| &a.tokens[..]))
                );
                let call = DeducedCall {
                    explicit: args,
                    args: call,
                    key: format!("{key}{}", class_key(&class)),
                    class,
                };
                self.follow_deduced(name, call, span, depth, frames);
            } else if depth < MAX_HOST_DEPTH
                && self.seen_host.len() < MAX_HOST_INSTANCES
                && self.seen_host.insert(format!(
                    "{key}{}{}",
                    self.members_key(u.members),
                    class_key(&class)
                ))
            {
                for &g in self.host_templates.get(name).into_iter().flatten() {
                    let params = &fns[g].1.params;
                    if !self.instantiates(u.members, &fns[g].1) {
                        continue;
                    }
                    for args in pack_elements(&fns[g].1, &args) {
                        if params.len() < args.len() {
                            continue;
                        }
                        let mut inner: FxHashMap<&str, Vec<Token>> =
                            params.iter().copied().zip(args.iter().cloned()).collect();
                        if !bind_class(&fns[g].1, &class, &mut inner) {
                            continue;
                        }
                        let only = self.only_member(u.members, &fns[g].1);
                        self.follow(g, &inner, Some(span), depth + 1, frames, only);
                    }
                }
            }
        }
    }

    /// The member function a use of a class template that instantiates
    /// `members` follows alone in the class's body `g` (none: all of it).
    fn only_member(&self, members: Members, g: &HostFn<'_>) -> Option<&'t str> {
        match members {
            Members::Only(at) if g.member.is_none() => Some(self.tokens[at].text.as_str()),
            _ => None,
        }
    }

    /// The class template (and its arguments) whose member function
    /// template host call `u`, written in host function `f` followed with
    /// `bindings`, may call ([`ClassArgs`]).
    fn class_args(
        &self,
        f: usize,
        u: &RawUse,
        bindings: &FxHashMap<&'t str, Vec<Token>>,
    ) -> ClassArgs<'t> {
        let tokens = self.tokens;
        let host = &self.fns[f];
        if u.qualified_at == u.name_at {
            let (class, params) = match (&host.1.class, host.0) {
                (Some((k, params)), _) => (*k, params),
                (None, Some(k)) if is_class_header(&host.1.header) => (k, &host.1.params),
                _ => return None,
            };
            let args = params.iter().map(|p| bindings.get(p).cloned());
            return Some((class, args.collect::<Option<Vec<_>>>()?));
        }
        // `K<args>::name(`: the list closes two tokens before the name.
        let colons = u.name_at.checked_sub(1)?;
        if tokens[colons].kind != TokenKind::Punct(Punct::ColonColon) {
            return None;
        }
        let stops = |t: &Token| matches!(t.kind, TokenKind::Punct(Punct::Semi | Punct::LBrace));
        let from = (host.1.body..colons).rev().find(|&j| stops(&tokens[j]))?;
        (from + 1..colons.saturating_sub(2)).find_map(|j| {
            let opens = tokens[j].kind == TokenKind::Ident
                && tokens[j + 1].kind == TokenKind::Punct(Punct::Lt);
            let (_, args) = angle_list(tokens, j + 1, colons)
                .filter(|&(close, _)| opens && close + 1 == colons)?;
            let resolved = args
                .iter()
                .map(|&(s, e)| self.resolve(s, e, bindings, &host.1.consts, 0))
                .collect();
            Some((tokens[j].text.as_str(), resolved))
        })
    }

    /// Whether a use of a class template that instantiates `members`
    /// instantiates host function `g` of the class's name: the class's
    /// own body, or a member defined outside it that `members` takes.
    fn instantiates(&self, members: Members, g: &HostFn<'_>) -> bool {
        match (members, g.member) {
            (_, None) | (Members::All, _) => true,
            (Members::Named, Some(_)) => g.named,
            (Members::Only(at), Some(m)) => self.tokens[at].text == m,
        }
    }

    /// What tells apart uses of one class instance that instantiate
    /// different members.
    fn members_key(&self, members: Members) -> String {
        match members {
            Members::Named => String::new(),
            Members::All => "{all}".into(),
            Members::Only(at) => format!("{{{}}}", self.tokens[at].text),
        }
    }

    /// Whether a call of host function template `name` that writes
    /// `written` template arguments leaves some of a template of that name
    /// to deduction (`template <int V, class T> void launch(T *)` called
    /// as `launch<4>(p)`).
    fn writes_part(&self, name: &str, written: usize) -> bool {
        let fns = self.fns;
        self.host_templates
            .get(name)
            .into_iter()
            .flatten()
            .any(|&g| fns[g].1.params.len() > written)
    }

    /// Follows a call of host function template `name` whose arguments
    /// are deduced from `call` (its arguments' stand-ins; `key` tells the
    /// call apart) after those it writes (`explicit`): each template of
    /// that name with one more frame.
    fn follow_deduced(
        &mut self,
        name: &str,
        call: DeducedCall<'t>,
        span: Span,
        depth: usize,
        frames: &[HostFrame],
    ) {
        if depth >= MAX_HOST_DEPTH
            || self.seen_host.len() >= MAX_HOST_INSTANCES
            || !self.seen_host.insert(format!("{name}{}", call.key))
        {
            return;
        }
        let fns = self.fns;
        let class = call.class;
        let explicit: Arc<[Vec<Token>]> = call.explicit.into();
        let call: Arc<[HostArg]> = call.args.into();
        for &g in self.host_templates.get(name).into_iter().flatten() {
            let host = &fns[g].1;
            // A member template of a class template is followed with the
            // class's parameters bound, in its declaration as in its body.
            let (bindings, header) = match (&host.class, &class) {
                (None, _) => (FxHashMap::default(), host.header.clone()),
                (Some((k, params)), Some((c, args))) if k == c && args.len() <= params.len() => {
                    let bindings: FxHashMap<&str, Vec<Token>> =
                        params.iter().copied().zip(args.iter().cloned()).collect();
                    let (start, body) = (host.range.0, host.body);
                    let header = self.resolve(start, body, &bindings, &Locals::default(), 0);
                    (bindings, header.into())
                }
                // Another class's member.
                (Some(_), Some(_)) => continue,
                // A call through an object (`s.sortWith(d, c)`): kernelc
                // does not know the class's arguments, and the checker
                // warns (W0010) at the uses that need them.
                (Some(_), None) => (FxHashMap::default(), host.header.clone()),
            };
            let mut inner = frames.to_vec();
            inner.push(HostFrame {
                header,
                args: call.clone(),
                explicit: explicit.clone(),
            });
            self.follow(g, &bindings, Some(span), depth + 1, &inner, None);
        }
    }

    /// The tokens `start..end` with template parameters and constants
    /// replaced by their values (parenthesized when they are expressions).
    fn resolve(
        &self,
        start: usize,
        end: usize,
        bindings: &FxHashMap<&'t str, Vec<Token>>,
        locals: &Locals<'t>,
        depth: usize,
    ) -> Vec<Token> {
        let mut out = Vec::new();
        let mut after_pack = false;
        for (i, t) in self.tokens[start..end].iter().enumerate() {
            // `Rs...` of a pack bound whole: its elements are written
            // already.
            if std::mem::take(&mut after_pack) && t.kind == TokenKind::Punct(Punct::Ellipsis) {
                continue;
            }
            let member = i > 0
                && matches!(
                    self.tokens[start + i - 1].kind,
                    TokenKind::Punct(Punct::Dot | Punct::Arrow | Punct::ColonColon)
                );
            let value = if t.kind != TokenKind::Ident || member {
                None
            } else if let Some(v) = bindings.get(t.text.as_str()) {
                Some(v.clone())
            } else if let Some((s, e)) = locals
                .get(t.text.as_str(), start + i)
                .or_else(|| self.file.get(t.text.as_str()).copied())
                .filter(|_| depth < 8)
            {
                Some(self.resolve(s, e, bindings, locals, depth + 1))
            } else {
                None
            };
            let expands = self
                .tokens
                .get(start + i + 1)
                .is_some_and(|n| n.kind == TokenKind::Punct(Punct::Ellipsis));
            match value {
                Some(v) if expands => {
                    out.extend(v);
                    after_pack = true;
                }
                Some(v) if is_expression(&v) => {
                    out.push(punct(Punct::LParen, "(", t.span));
                    out.extend(v);
                    out.push(punct(Punct::RParen, ")", t.span));
                }
                Some(v) => out.extend(v),
                None => out.push(t.clone()),
            }
        }
        out
    }
}

fn punct(p: Punct, text: &str, span: Span) -> Token {
    Token {
        kind: TokenKind::Punct(p),
        text: text.into(),
        span,
    }
}

/// Whether substituted tokens need parentheses to keep their meaning: an
/// operator other than those that spell types (`*`, `&`, `::`, `<`, `>`),
/// outside template argument lists (`Shift<-3>` is a type).
fn is_expression(tokens: &[Token]) -> bool {
    let mut angles = 0usize;
    tokens.len() > 1
        && tokens.iter().any(|t| match t.kind {
            TokenKind::Punct(Punct::Lt) => {
                angles += 1;
                false
            }
            TokenKind::Punct(Punct::Gt) => {
                angles = angles.saturating_sub(1);
                false
            }
            TokenKind::Punct(Punct::Shr) if angles > 0 => {
                angles = angles.saturating_sub(2);
                false
            }
            TokenKind::Punct(_) if angles > 0 => false,
            TokenKind::Punct(p) => !matches!(
                p,
                Punct::Star
                    | Punct::Amp
                    | Punct::ColonColon
                    | Punct::Lt
                    | Punct::Gt
                    | Punct::Comma
                    | Punct::LParen
                    | Punct::RParen
            ),
            _ => false,
        })
}

/// What tells the frames of a use apart: their calls' arguments.
fn frames_key(frames: &[HostFrame]) -> String {
    frames
        .iter()
        .map(|f| {
            let call = key_text(f.args.iter().map(|a| &a.tokens[..]));
            match f.explicit.is_empty() {
                true => format!("[{call}]"),
                false => format!("<{}>[{call}]", key_text(f.explicit.iter().map(|a| &a[..]))),
            }
        })
        .collect()
}

/// The operand of a template argument `decltype(operand)` in `start..end`:
/// its range.
fn decltype_operand(tokens: &[Token], start: usize, end: usize) -> Option<(usize, usize)> {
    let is_decltype = tokens[start].kind == TokenKind::Keyword(Keyword::Decltype)
        && end >= start + 3
        && tokens[start + 1].kind == TokenKind::Punct(Punct::LParen)
        && tokens[end - 1].kind == TokenKind::Punct(Punct::RParen);
    is_decltype.then_some((start + 2, end - 1))
}

/// The argument `decltype(operand)` (its range `whole`) with its operand's
/// host variables replaced by their stand-ins (`decltype(plus)` of a
/// lambda is its closure type).
fn decltype_of(
    scope: &HostScope<'_, '_>,
    whole: (usize, usize),
    operand: (usize, usize),
) -> Vec<Token> {
    let mut out = scope.tokens[whole.0..operand.0].to_vec();
    out.extend(scope.expression(operand.0, operand.1));
    out.extend_from_slice(&scope.tokens[operand.1..whole.1]);
    out
}

/// The arguments' text, to tell instantiations apart.
fn key_text<'a>(args: impl Iterator<Item = &'a [Token]>) -> String {
    args.map(|a| {
        a.iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    })
    .collect::<Vec<_>>()
    .join(", ")
}

/// Whether a host template's declaration up to its body (`template
/// <typename T> struct Blas`) declares a class, not a function.
fn is_class_header(header: &[Token]) -> bool {
    let close = crate::token::template_args(header, 1, header.len(), NameBefore::Template)
        .map_or(0, |list| list.close);
    header
        .get(close + 1)
        .is_some_and(|t| matches!(t.kind, TokenKind::Keyword(Keyword::Class | Keyword::Struct)))
}

/// For a declaration starting with `template <...>` and declaring a
/// function or a class: its name and the parameters' names. A member of a
/// class template defined outside the class (`template <class T> void
/// Solver<T>::run(T *p)`, `template <class T> const void *Reg<T>::addr =
/// ...`) goes by the class's name, as the class's own body does, with the
/// member's name beside it.
fn template_header(
    tokens: &[Token],
    start: usize,
    end: usize,
) -> Option<(&str, Vec<&str>, Option<&str>)> {
    if !tokens
        .get(start)
        .is_some_and(|t| t.kind == TokenKind::Keyword(Keyword::Template))
        || !tokens
            .get(start + 1)
            .is_some_and(|t| t.kind == TokenKind::Punct(Punct::Lt))
    {
        return None;
    }
    let (close, segments) = angle_list(tokens, start + 1, end)?;
    let params = segments
        .iter()
        .filter_map(|&(s, e)| {
            // The name is the last identifier before any `=`.
            let stop = (s..e)
                .find(|&i| tokens[i].kind == TokenKind::Punct(Punct::Assign))
                .unwrap_or(e);
            (s..stop)
                .rev()
                .find(|&i| tokens[i].kind == TokenKind::Ident)
                .map(|i| tokens[i].text.as_str())
        })
        .collect::<Vec<&str>>();
    if let [class, name, ..] = &tokens[close + 1..end] {
        if matches!(
            class.kind,
            TokenKind::Keyword(Keyword::Class | Keyword::Struct)
        ) && name.kind == TokenKind::Ident
        {
            return Some((name.text.as_str(), params, None));
        }
    }
    if let Some((class, member)) = class_member_declarator(tokens, close + 1, end, &params) {
        return Some((class, params, Some(member)));
    }
    let mut depth = 0usize;
    for i in close + 1..end {
        match tokens[i].kind {
            TokenKind::Punct(Punct::LParen) if depth == 0 => {
                let prev = &tokens[i - 1];
                return (prev.kind == TokenKind::Ident).then_some((
                    prev.text.as_str(),
                    params,
                    None,
                ));
            }
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::LBrace | Punct::Semi) => return None,
            _ => {}
        }
    }
    None
}

/// In the declaration `start..end` after a template's parameter list
/// `params`: the class and member names of a declarator that names a
/// member of the class template with those parameters, written in order
/// (`Solver<T, N>::run(`, `Solver<T>::Solver(`, `Solver<T>::~Solver(`,
/// `(*Reg<T>::fn)(T *) =`, `*Reg<T>::addr =`). The declarator is the
/// last such qualified name before the function's `(`, the initializer or
/// the body; the qualifier of a partial specialization's member
/// (`Solver<T *>::run`) is none, since its parameters are not the class's.
fn class_member_declarator<'t>(
    tokens: &'t [Token],
    start: usize,
    end: usize,
    params: &[&str],
) -> Option<(&'t str, &'t str)> {
    let punct = |i: usize, p: Punct| tokens.get(i).is_some_and(|t| t.kind == TokenKind::Punct(p));
    let mut found = None;
    let mut depth = 0usize;
    let mut i = start;
    while i < end {
        match tokens[i].kind {
            TokenKind::Punct(Punct::LParen) if depth == 0 && i > start => {
                if tokens[i - 1].kind == TokenKind::Ident {
                    break;
                }
                depth += 1;
            }
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::LBrace | Punct::Assign | Punct::Semi) if depth == 0 => break,
            TokenKind::Ident if punct(i + 1, Punct::Lt) => {
                if let Some((close, args)) = angle_list(tokens, i + 1, end) {
                    let member_at = close + 2 + usize::from(punct(close + 2, Punct::Tilde));
                    let names_params = args.len() == params.len()
                        && args
                            .iter()
                            .zip(params)
                            .all(|(&(s, e), p)| e == s + 1 && tokens[s].text == *p);
                    if punct(close + 1, Punct::ColonColon)
                        && tokens
                            .get(member_at)
                            .is_some_and(|t| t.kind == TokenKind::Ident)
                        && !punct(member_at + 1, Punct::ColonColon)
                    {
                        found = names_params
                            .then(|| (tokens[i].text.as_str(), tokens[member_at].text.as_str()));
                        i = member_at;
                        continue;
                    }
                    i = close;
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Where the body of the host function `start..end` starts: its `{`, or
/// the `=` of a static data member's initializer (after any template
/// parameter list, whose defaults are no initializer).
fn body_start(tokens: &[Token], start: usize, end: usize) -> usize {
    let from = match tokens[start].kind {
        TokenKind::Keyword(Keyword::Template) => {
            angle_list(tokens, start + 1, end).map_or(start, |(close, _)| close + 1)
        }
        _ => start,
    };
    let mut depth = 0usize;
    for i in from..end {
        match tokens[i].kind {
            TokenKind::Punct(Punct::LBrace) => return i,
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::Assign)
                if depth == 0 && tokens[i - 1].kind != TokenKind::Keyword(Keyword::Operator) =>
            {
                return i
            }
            _ => {}
        }
    }
    end
}

/// Marks the members of class templates defined outside their classes
/// (`fns`, of the declarations `host_fns`) that host code names outside
/// the definitions of members of that name (`s.run(p)`,
/// `Reg<long>::addr`), besides the one declaration in the class: those an
/// implicit instantiation of the class instantiates. A constructor or
/// destructor is named by every object of the class.
fn mark_named_members(
    tokens: &[Token],
    host_fns: &[(usize, usize, Vec<String>)],
    fns: &mut [(Option<&str>, HostFn<'_>)],
) {
    for i in 0..fns.len() {
        let (Some(class), Some(member)) = (fns[i].0, fns[i].1.member) else {
            continue;
        };
        let defining: Vec<(usize, usize)> = fns
            .iter()
            .zip(host_fns)
            .filter(|((_, f), _)| f.member == Some(member))
            .map(|(_, &(s, e, _))| (s, e))
            .collect();
        let outside = tokens
            .iter()
            .enumerate()
            .filter(|&(at, t)| {
                t.kind == TokenKind::Ident
                    && t.text == member
                    && !defining.iter().any(|&(s, e)| (s..e).contains(&at))
            })
            .count();
        fns[i].1.named = member == class || outside > 1;
    }
}

/// The member declarations starting with `template` in the body of the
/// class declared in `start..end` (none when it declares no class): each
/// one's token range, from its `template` through its body's `}` or its
/// `;`.
fn member_templates(tokens: &[Token], start: usize, end: usize) -> Vec<(usize, usize)> {
    class_members(tokens, start, end)
        .into_iter()
        .filter_map(|(s, e)| {
            let at = after_labels(tokens, s, e);
            (at < e && tokens[at].kind == TokenKind::Keyword(Keyword::Template)).then_some((at, e))
        })
        .collect()
}

/// The member functions defined (not only declared) in the body of the
/// class declared in `start..end`, but member templates: each one's
/// token range after its access labels, through its body's `}`.
fn member_functions(tokens: &[Token], start: usize, end: usize) -> Vec<(usize, usize)> {
    class_members(tokens, start, end)
        .into_iter()
        .filter_map(|(s, e)| {
            let at = after_labels(tokens, s, e);
            let defined = tokens[e - 1].kind == TokenKind::Punct(Punct::RBrace);
            let template = tokens[at].kind == TokenKind::Keyword(Keyword::Template);
            (at < e && defined && !template && member_name(tokens, at, e).is_some())
                .then_some((at, e))
        })
        .collect()
}

/// The first token of the member declaration `start..end` after its
/// access labels (`public:`).
fn after_labels(tokens: &[Token], start: usize, end: usize) -> usize {
    let mut at = start;
    while at + 1 < end
        && crate::access::Access::from_keyword(&tokens[at].text).is_some()
        && tokens[at + 1].kind == TokenKind::Punct(Punct::Colon)
    {
        at += 2;
    }
    at
}

/// The member declarations in the body of the class declared in
/// `start..end` (none when it declares no class): each one's token range,
/// with its access labels, through its body's `}` or its `;`.
fn class_members(tokens: &[Token], start: usize, end: usize) -> Vec<(usize, usize)> {
    let is_class = tokens[start..end]
        .iter()
        .take_while(|t| t.kind != TokenKind::Punct(Punct::LBrace))
        .any(|t| matches!(t.kind, TokenKind::Keyword(Keyword::Class | Keyword::Struct)));
    let Some(open) = (start..end).find(|&i| tokens[i].kind == TokenKind::Punct(Punct::LBrace))
    else {
        return Vec::new();
    };
    if !is_class {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut from = open + 1;
    for (i, t) in tokens.iter().enumerate().take(end).skip(open + 1) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::RBrace) => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0 {
                    out.push((from, i + 1));
                    from = i + 1;
                }
            }
            TokenKind::Punct(Punct::Semi) if depth == 0 => {
                if from < i {
                    out.push((from, i + 1));
                }
                from = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// The name and template parameters of the class template declared in
/// `start..end`, if it declares one.
fn class_template(tokens: &[Token], start: usize, end: usize) -> Option<(&str, Vec<&str>)> {
    let (name, params, member) = template_header(tokens, start, end)?;
    let body = body_start(tokens, start, end);
    (member.is_none() && is_class_header(&tokens[start..body])).then_some((name, params))
}

/// The name of the member function declared in `start..end`: the
/// identifier before its parameter list (none for an operator, a data
/// member or a type).
fn member_name(tokens: &[Token], start: usize, end: usize) -> Option<&str> {
    let mut depth = 0usize;
    for i in start..end {
        match tokens[i].kind {
            TokenKind::Punct(Punct::LParen) if depth == 0 => {
                let prev = &tokens[i.checked_sub(1)?];
                return (i > start && prev.kind == TokenKind::Ident).then_some(prev.text.as_str());
            }
            TokenKind::Punct(Punct::Lt | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::Gt | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::LBrace | Punct::Semi | Punct::Assign) if depth == 0 => {
                return None
            }
            _ => {}
        }
    }
    None
}

/// Splits the body of class template `f` (declared in `range`) by member:
/// the uses inside its member function templates are no uses of the
/// class's instances (they are followed through the calls that deduce the
/// members' own parameters, `Search::follow_deduced`), and its other
/// member functions are kept by name.
fn split_class_body<'t>(tokens: &'t [Token], range: (usize, usize), f: &mut HostFn<'t>) {
    for (s, e) in class_members(tokens, range.0, range.1) {
        let at = after_labels(tokens, s, e);
        if tokens[at].kind == TokenKind::Keyword(Keyword::Template) {
            f.uses.retain(|u| !(at..e).contains(&u.name_at));
        } else if let Some(name) = member_name(tokens, at, e) {
            f.in_class.push((name, (at, e)));
        }
    }
}

/// A resolved template argument split at its top-level commas: a pack
/// expanded whole (`Rs...` bound to `5 , 6`) is several arguments; any
/// other argument has no such comma and stays one.
fn split_elements(tokens: Vec<Token>) -> Vec<Vec<Token>> {
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    for t in tokens {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace | Punct::Lt) => {
                depth += 1
            }
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace | Punct::Gt) => {
                depth -= 1
            }
            TokenKind::Punct(Punct::Shr) => depth -= 2,
            TokenKind::Punct(Punct::Comma) if depth == 0 => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(t);
        }
    }
    out
}

/// How a host template's body uses its parameter pack.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PackUse {
    /// Element by element only (`(k<Rs><<<1, 1>>>(p), ...)`, a fold):
    /// the body is followed once an element, the pack's name bound to it.
    Elements,
    /// Expanded whole somewhere (`stamp<Rs...>`): followed once, the name
    /// bound to the elements separated by commas, its `...` dropped.
    Whole,
}

/// How the template declared in `start..end` with parameters `params`
/// uses its last parameter, if that is a pack (declared with `...`:
/// `int... Rs`, `class... Ts`).
fn pack_use(tokens: &[Token], start: usize, end: usize, params: &[&str]) -> Option<PackUse> {
    let &last = params.last()?;
    let is = |i: usize, p: Punct| tokens.get(i).is_some_and(|t| t.kind == TokenKind::Punct(p));
    let (close, segments) = angle_list(tokens, start + 1, end)?;
    let &(s, e) = segments.last()?;
    if !(s..e).any(|i| is(i, Punct::Ellipsis)) {
        return None;
    }
    let named = |i: usize| tokens[i].kind == TokenKind::Ident && tokens[i].text == last;
    let whole = (close + 1..end).any(|i| named(i) && is(i + 1, Punct::Ellipsis));
    Some(if whole {
        PackUse::Whole
    } else {
        PackUse::Elements
    })
}

/// The argument lists a host template `f` is followed with for the
/// written `args`: with an element pack ([`PackUse::Elements`]), one an
/// element (`dispatch<1, 2, 3>` follows its body with `Rs` as 1, as 2
/// and as 3, as its fold over `k<Rs>` instantiates each); with a pack
/// expanded whole, the elements as one argument (`5 , 6`, which
/// [`Search::resolve`] writes for `Rs...`); else `args` itself.
fn pack_elements(f: &HostFn<'_>, args: &[Vec<Token>]) -> Vec<Vec<Vec<Token>>> {
    let fixed = f.params.len().saturating_sub(1);
    if f.pack.is_none() || args.len() <= fixed {
        return vec![args.to_vec()];
    }
    let with_last = |last: Vec<Token>| {
        let mut one = args[..fixed].to_vec();
        one.push(last);
        one
    };
    match f.pack {
        Some(PackUse::Elements) => args[fixed..].iter().cloned().map(with_last).collect(),
        _ => {
            let mut joined = Vec::new();
            for (k, element) in args[fixed..].iter().enumerate() {
                if k > 0 {
                    let at = element.first().map_or_else(Span::default, |t| t.span);
                    joined.push(punct(Punct::Comma, ",", at));
                }
                joined.extend(element.iter().cloned());
            }
            vec![with_last(joined)]
        }
    }
}

/// The `<...>` list opening at `open`, after a template's name: the index
/// of its closing `>` (or of a `>>` whose first half closes the last
/// argument's list) and each top-level argument's token range. `None` when
/// it is not closed before `end` or a `;`, or a `>>` closes it with its
/// first half (`k<int>>`: a shift after the list, not C++ kernelc reads as
/// a use).
fn angle_list(tokens: &[Token], open: usize, end: usize) -> Option<(usize, Vec<(usize, usize)>)> {
    let list = crate::token::template_args(tokens, open, end, NameBefore::Template).ok()?;
    (!list.half_close).then_some((list.close, list.args))
}

/// The uses of the templates `wanted` names in `start..end`: a name
/// followed by `<` and a closed argument list, or by `<<<` (a launch whose
/// arguments are deduced).
fn raw_uses(
    tokens: &[Token],
    start: usize,
    end: usize,
    wanted: &dyn Fn(&str) -> bool,
    members: &dyn Fn(&str) -> bool,
) -> Vec<RawUse> {
    let mut out = Vec::new();
    for i in start..end.saturating_sub(1) {
        let t = &tokens[i];
        let member = i > 0
            && matches!(
                tokens[i - 1].kind,
                TokenKind::Punct(Punct::Dot | Punct::Arrow)
            );
        if t.kind != TokenKind::Ident || !wanted(&t.text) || (member && !members(&t.text)) {
            continue;
        }
        let launch = tokens[i + 1].kind == TokenKind::Punct(Punct::Shl)
            && tokens
                .get(i + 2)
                .is_some_and(|t| t.kind == TokenKind::Punct(Punct::Lt));
        let qualified_at = qualifier_start(tokens, start, i);
        if launch {
            out.push(RawUse {
                name_at: i,
                qualified_at,
                args: None,
                split_close: false,
                call_open: launch_call(tokens, i + 1, end),
                host_call: false,
                paren: None,
                members: Members::Named,
            });
        } else if tokens[i + 1].kind == TokenKind::Punct(Punct::Lt) {
            if let Some((close, args)) = angle_list(tokens, i + 1, end) {
                out.push(RawUse {
                    name_at: i,
                    qualified_at,
                    args: Some(args),
                    split_close: tokens[close].kind == TokenKind::Punct(Punct::Shr),
                    call_open: launch_call(tokens, close + 1, end),
                    host_call: false,
                    paren: tokens
                        .get(close + 1)
                        .is_some_and(|t| t.kind == TokenKind::Punct(Punct::LParen))
                        .then_some(close + 1),
                    members: named_member(tokens, close, end),
                });
            }
        } else if tokens[i + 1].kind == TokenKind::Punct(Punct::LParen) && members(&t.text) {
            // `launch2D(w, h, f)`: a host template whose arguments the
            // call deduces.
            out.push(RawUse {
                name_at: i,
                qualified_at,
                args: None,
                split_close: false,
                call_open: Some(i + 1),
                host_call: true,
                paren: None,
                members: Members::Named,
            });
        }
    }
    out
}

/// Which members a use of a class template whose argument list closes at
/// `close` instantiates: the member function it names
/// (`Sorter<float>::sort(...)`, `&Sorter<float>::sort`,
/// `S<float>::go<4>(p)`), else those host code names.
fn named_member(tokens: &[Token], close: usize, end: usize) -> Members {
    let is = |i: usize, p: Punct| i < end && tokens[i].kind == TokenKind::Punct(p);
    let names = is(close + 1, Punct::ColonColon)
        && tokens
            .get(close + 2)
            .is_some_and(|t| close + 2 < end && t.kind == TokenKind::Ident)
        && !is(close + 3, Punct::ColonColon);
    match names {
        true => Members::Only(close + 2),
        false => Members::Named,
    }
}

/// Whether the declaration at `start` is an explicit instantiation
/// (`template void run<float>(float *, int);`: `template` without `<`).
fn is_explicit_instantiation(tokens: &[Token], start: usize) -> bool {
    tokens[start].kind == TokenKind::Keyword(Keyword::Template)
        && tokens
            .get(start + 1)
            .is_some_and(|t| t.kind != TokenKind::Punct(Punct::Lt))
}

/// The use an explicit instantiation `start..end` of a host function
/// template makes: its template-id with the arguments written out
/// (`run<float>` of `template void run<float>(float *, int);`), which is
/// followed as a call writing them would be. Its parameter list declares
/// and calls nothing, so a template argument left to deduction from it
/// stays unbound.
fn instantiated(
    tokens: &[Token],
    start: usize,
    end: usize,
    wanted: &dyn Fn(&str) -> bool,
    members: &dyn Fn(&str) -> bool,
) -> Vec<RawUse> {
    let mut uses = raw_uses(tokens, start + 1, end, wanted, members);
    uses.retain(|u| u.args.is_some() && members(&tokens[u.name_at].text));
    uses.truncate(1);
    let class = tokens
        .get(start + 1)
        .is_some_and(|t| matches!(t.kind, TokenKind::Keyword(Keyword::Class | Keyword::Struct)));
    for u in &mut uses {
        (u.call_open, u.paren) = (None, None);
        // `template struct Solver<float>;` instantiates every member,
        // `template void Solver<float>::run(float *);` the one it names.
        let close = u
            .args
            .as_ref()
            .map_or(u.name_at, |a| a.last().map_or(u.name_at + 2, |l| l.1));
        let member = close + 2;
        if class {
            u.members = Members::All;
        } else if tokens
            .get(close + 1)
            .is_some_and(|t| t.kind == TokenKind::Punct(Punct::ColonColon))
            && tokens
                .get(member)
                .is_some_and(|t| t.kind == TokenKind::Ident)
        {
            u.members = Members::Only(member);
        }
    }
    uses
}

/// The first token of the qualified name ending with the name at `name`
/// (`gpu` of `gpu::reduce`, `::` of `::k`), not before `start`.
fn qualifier_start(tokens: &[Token], start: usize, name: usize) -> usize {
    let mut at = name;
    while at > start && tokens[at - 1].kind == TokenKind::Punct(Punct::ColonColon) {
        if at >= start + 2 && tokens[at - 2].kind == TokenKind::Ident {
            at -= 2;
        } else {
            return at - 1;
        }
    }
    at
}

/// For `<<<...>>>(` at `at` (after a template's name or arguments): the
/// index of the call's `(`.
fn launch_call(tokens: &[Token], at: usize, end: usize) -> Option<usize> {
    let is = |i: usize, p: Punct| tokens.get(i).is_some_and(|t| t.kind == TokenKind::Punct(p));
    if !(is(at, Punct::Shl) && is(at + 1, Punct::Lt)) {
        return None;
    }
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().take(end).skip(at + 2) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.checked_sub(1)?,
            TokenKind::Punct(Punct::Shr) if depth == 0 && is(i + 1, Punct::Gt) => {
                return is(i + 2, Punct::LParen).then_some(i + 2);
            }
            TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::RBrace) => return None,
            _ => {}
        }
    }
    None
}

/// A `const`/`constexpr` variable or a type alias of a host function:
/// its value's token range, and the tokens it is in scope for (from its
/// name to the `}` closing its block).
#[derive(Clone, Copy, Debug)]
struct LocalConst {
    from: usize,
    until: usize,
    value: (usize, usize),
}

/// A host function's constants and aliases by name, in order of
/// declaration. A name may be declared in several blocks: a dispatch
/// macro's `case` blocks each say `using scalar_t = ...;` before the same
/// launch (`k<scalar_t><<<...>>>`), and each launch sees its own.
#[derive(Default)]
struct Locals<'t>(FxHashMap<&'t str, Vec<LocalConst>>);

impl<'t> Locals<'t> {
    fn of(decls: Vec<(&'t str, LocalConst)>) -> Self {
        let mut map: FxHashMap<&'t str, Vec<LocalConst>> = FxHashMap::default();
        for (name, c) in decls {
            map.entry(name).or_default().push(c);
        }
        Locals(map)
    }

    /// The value of `name` as the token at `at` sees it: the nearest
    /// declaration before it whose block is still open, as C++ looks up.
    fn get(&self, name: &str, at: usize) -> Option<(usize, usize)> {
        let decls = self.0.get(name)?;
        let in_scope = |c: &&LocalConst| c.from <= at && at < c.until;
        decls.iter().rev().find(in_scope).map(|c| c.value)
    }
}

/// The `const`/`constexpr` variables declared in `start..end` with an
/// initializer: name → the initializer's token range (`const int N = 4;`,
/// `constexpr unsigned kBlock = 2 * 128;`); and the type aliases declared
/// there: name → the type's range (`using Op = ops::Max<float>;`,
/// `typedef Sum<int> Op;`), which a use's arguments name as well. Each
/// with the tokens it is in scope for.
fn consts_in(tokens: &[Token], start: usize, end: usize) -> Vec<(&str, LocalConst)> {
    let mut out: Vec<(&str, LocalConst)> = Vec::new();
    // Where each open block's declarations start in `out` (the outermost
    // one's stay in scope to `end`).
    let mut blocks: Vec<usize> = Vec::new();
    let mut stmt_start = start;
    let mut i = start;
    while i < end {
        match tokens[i].kind {
            TokenKind::Punct(Punct::Semi) => {
                let alias = typedef_at(tokens, stmt_start, i)
                    .or_else(|| using_declaration_at(tokens, stmt_start, i));
                if let Some((name, value)) = alias {
                    let (from, until) = (i, end);
                    out.push((name, LocalConst { from, until, value }));
                }
                stmt_start = i + 1;
            }
            TokenKind::Punct(Punct::LBrace) => {
                blocks.push(out.len());
                stmt_start = i + 1;
            }
            // A class's access label (`public:`) starts no declaration.
            TokenKind::Punct(Punct::Colon)
                if i == stmt_start + 1
                    && crate::access::Access::from_keyword(&tokens[stmt_start].text).is_some() =>
            {
                stmt_start = i + 1;
            }
            TokenKind::Punct(Punct::RBrace) => {
                let first = blocks.pop().unwrap_or(out.len());
                for (_, c) in &mut out[first..] {
                    c.until = c.until.min(i);
                }
                stmt_start = i + 1;
            }
            TokenKind::Punct(Punct::Assign)
                if i > stmt_start && tokens[i - 1].kind == TokenKind::Ident =>
            {
                let is_const = tokens[stmt_start..i].iter().any(|t| {
                    matches!(
                        t.kind,
                        TokenKind::Keyword(Keyword::Const | Keyword::Constexpr)
                    )
                }) || (i == stmt_start + 2
                    && tokens[stmt_start].kind == TokenKind::Keyword(Keyword::Using));
                let alias = tokens[stmt_start].kind == TokenKind::Keyword(Keyword::Using);
                let value_end = value_end(tokens, i + 1, end, alias);
                if is_const && value_end > i + 1 {
                    let (from, until, value) = (i, end, (i + 1, value_end));
                    out.push((
                        tokens[i - 1].text.as_str(),
                        LocalConst { from, until, value },
                    ));
                }
                i = value_end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The constants and aliases that the class declared in `start..end`
/// declares among its members (not those of its member functions'
/// bodies), each in scope in the whole class: C++ reads a member
/// function's body as if after the class (`using Wide = ...;` below it).
fn class_consts(tokens: &[Token], start: usize, end: usize) -> Vec<(&str, LocalConst)> {
    let open = body_start(tokens, start, end);
    let mut depth = 0usize;
    let close = (open..end)
        .find(|&i| {
            match tokens[i].kind {
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => depth = depth.saturating_sub(1),
                _ => return false,
            }
            depth == 0
        })
        .unwrap_or(end);
    consts_in(tokens, open, end)
        .into_iter()
        .filter(|(_, c)| c.until >= close)
        .map(|(name, c)| (name, LocalConst { from: start, ..c }))
        .collect()
}

/// The end of the initializer (or aliased type, `alias`) starting at
/// `start`: the `;`, or the `,` ending its declarator, outside brackets
/// (and, in a type, outside template argument lists: `using P =
/// Pipeline<A, B>;`).
fn value_end(tokens: &[Token], start: usize, end: usize, alias: bool) -> usize {
    let mut depth = 0usize;
    let mut angles = 0usize;
    for (j, t) in tokens.iter().enumerate().take(end).skip(start) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1)
            }
            TokenKind::Punct(Punct::Lt) if alias => angles += 1,
            TokenKind::Punct(Punct::Gt) if alias => angles = angles.saturating_sub(1),
            TokenKind::Punct(Punct::Shr) if alias => angles = angles.saturating_sub(2),
            TokenKind::Punct(Punct::Semi) => return j,
            TokenKind::Punct(Punct::Comma) if depth == 0 && angles == 0 => return j,
            _ => {}
        }
    }
    end
}

/// `typedef TYPE NAME` in `start..semi` (a statement ending at the `;`
/// `semi`): the name and the type's token range.
fn typedef_at(tokens: &[Token], start: usize, semi: usize) -> Option<(&str, (usize, usize))> {
    let first = tokens.get(start)?;
    let name = tokens.get(semi.checked_sub(1)?)?;
    (first.kind == TokenKind::Keyword(Keyword::Typedef)
        && name.kind == TokenKind::Ident
        && semi >= start + 3)
        .then(|| (name.text.as_str(), (start + 1, semi - 1)))
}

/// `using NS::NAME;` in `start..semi` (a using-declaration, which a
/// function body may hold: `using phys::Boundary;` before
/// `run<Boundary::Open>(...)`): the name and its qualified name's range,
/// which stands for the name as an alias would.
fn using_declaration_at(
    tokens: &[Token],
    start: usize,
    semi: usize,
) -> Option<(&str, (usize, usize))> {
    let is = |i: usize, kind: TokenKind| tokens.get(i).is_some_and(|t| t.kind == kind);
    let name = tokens.get(semi.checked_sub(1)?)?;
    let qualified = semi >= start + 4
        && is(start, TokenKind::Keyword(Keyword::Using))
        && is(start + 1, TokenKind::Ident)
        && name.kind == TokenKind::Ident
        && is(semi - 2, TokenKind::Punct(Punct::ColonColon))
        && tokens[start + 1..semi].iter().all(|t| {
            matches!(
                t.kind,
                TokenKind::Ident | TokenKind::Punct(Punct::ColonColon)
            )
        });
    qualified.then(|| (name.text.as_str(), (start + 1, semi)))
}

/// A call of a host function template whose remaining template arguments
/// are deduced (`Search::follow_deduced`): the arguments it writes,
/// its call arguments' stand-ins, and the key that tells the call apart.
struct DeducedCall<'t> {
    explicit: Vec<Vec<Token>>,
    args: Vec<HostArg>,
    key: String,
    class: ClassArgs<'t>,
}

/// The class template whose member a host call may call, with its
/// template arguments: the class the call names (`Sorter<float, Less>::
/// sortWith(...)`), or for an unqualified call the class it is written
/// in, its parameters' arguments those the caller is followed with.
type ClassArgs<'t> = Option<(&'t str, Vec<Vec<Token>>)>;

/// Binds in `inner` the parameters of the class template of member
/// template `g` to the arguments of `class`, the class a call names
/// (`Sorter<float>::run<4>(p)`); false when `class` is another class.
fn bind_class<'t>(
    g: &HostFn<'t>,
    class: &ClassArgs<'t>,
    inner: &mut FxHashMap<&'t str, Vec<Token>>,
) -> bool {
    match (&g.class, class) {
        (Some((k, params)), Some((c, args))) if k == c => {
            inner.extend(params.iter().copied().zip(args.iter().cloned()));
            true
        }
        (Some(_), Some(_)) => false,
        _ => true,
    }
}

/// What tells apart calls of members of different class instances.
fn class_key(class: &ClassArgs<'_>) -> String {
    class.as_ref().map_or(String::new(), |(name, args)| {
        format!("{name}<{}>::", key_text(args.iter().map(|a| &a[..])))
    })
}
