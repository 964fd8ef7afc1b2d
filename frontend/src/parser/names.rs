//! C++ names in the parser: namespaces, `using`, namespace aliases and
//! qualified names (`sim::Particle`, `::f`, `a::b::c`).
//!
//! The model is docs/frontend.md §5's, kept as small as the rest of the
//! parser allows:
//!
//! - **Keys.** Every entity declared at namespace scope has a key: its
//!   qualified name, the namespace path joined with `::` (`sim::Particle`,
//!   `a::b::f`; a name in the global namespace is its own key). The
//!   parser's tables (typedefs, struct tags) and the checker's (functions,
//!   file-scope names) are keyed by it, so nothing after the parser needs
//!   to know about namespaces. An anonymous namespace is the path component
//!   [`ANONYMOUS`]; mangling turns it into `_GLOBAL__N_1`, and then
//!   `crate::unnamed_namespace` into nvcc's name for it.
//! - **Scopes.** A scope is a namespace path. Unqualified lookup walks the
//!   enclosing namespaces outward from the current one; at each level it
//!   finds what is declared there and what the using-directives in effect
//!   make appear there (C++ [namespace.udir]: as if declared in the nearest
//!   namespace enclosing both the directive and the nominated namespace).
//!   Two different entities found at the same level are ambiguous (E0021).
//!   An inline or anonymous namespace is an implicit using-directive in its
//!   parent, so its members are found from there, qualified or not.
//! - **Qualified lookup** (`N::x`) finds `x` declared in `N`, or else
//!   through the using-directives written in `N`, transitively.
//! - **Locals hide.** Identifiers in expressions are resolved here, not in
//!   the checker, so the parser tracks the names of the locals in scope:
//!   an unqualified name that is a local is left alone, as is one found in
//!   the global namespace or not found at all (the checker reports those as
//!   it always did).
//!
//! A class or template scope can later be one more kind of path component
//! whose members are found by [`Names::member`].

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diag::Span;

/// The path component of an anonymous namespace, as C++ tools print it.
pub(crate) const ANONYMOUS: &str = "(anonymous namespace)";

/// What a name denotes, for lookup: each kind has its own table, as C++
/// lets a type and a function share a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Type,
    Value,
    Namespace,
}

impl Kind {
    fn index(self) -> usize {
        self as usize
    }
}

/// The result of a lookup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// One entity: its key.
    One(String),
    /// Several entities at the same level: their keys and declarations.
    Ambiguous(Vec<(String, Span)>),
    None,
}

/// A using-directive (`using namespace N;`), or the implicit one of an
/// inline or anonymous namespace.
#[derive(Clone, Debug)]
struct Directive {
    /// The namespace it is written in.
    scope: Vec<String>,
    /// `scope` as a key, which qualified lookup compares.
    scope_key: String,
    /// The nominated namespace's key.
    target: String,
    /// The depth of the namespace its names appear in: the nearest one
    /// enclosing both the directive and the nominated namespace.
    appears_in: usize,
}

impl Directive {
    /// `using namespace target;` written in `scope`. What lookup asks of
    /// it is computed once: nested anonymous namespaces make a directive
    /// per level, which every lookup below them walks.
    fn new(scope: Vec<String>, target: String) -> Directive {
        let parent: Vec<&str> = target.split("::").collect();
        let parent = &parent[..parent.len().saturating_sub(1)];
        let appears_in = scope
            .iter()
            .zip(parent)
            .take_while(|(a, b)| a.as_str() == **b)
            .count();
        Directive {
            scope_key: scope.join("::"),
            scope,
            target,
            appears_in,
        }
    }
}

/// An open `namespace ... {`: how many path components it added, and the
/// number of `extern "C" {` blocks open around it (a `}` closes whichever
/// was opened last).
#[derive(Clone, Debug)]
pub(super) struct OpenNamespace {
    pub components: usize,
    pub extern_c_depth: usize,
    /// `namespace ... {`, for the error when it is never closed.
    pub span: Span,
}

/// Where a namespace alias leads.
#[derive(Clone, Debug)]
enum AliasTarget {
    /// A namespace kernelc knows, by key.
    Known(String),
    /// A name kernelc does not know as a namespace (`cooperative_groups`):
    /// accepted, and an error only where it is used.
    Unknown(String),
}

/// The parser's C++ name state: see the module documentation. A template's
/// instance is parsed with a copy of the state at the end of the file
/// (`crate::templates::ParseEnv`), and every sub-parser starts from a copy
/// of its parser's: the namespace-scope tables, which only grow and which
/// a copy rarely changes, are shared between copies (copied on a copy's
/// first write), so a copy costs what the function-scope state does.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    /// The namespace being parsed, outermost first.
    current: Vec<String>,
    pub(super) open: Vec<OpenNamespace>,
    /// Declarations by kind ([`Kind::index`]), key to the declared name's span.
    decls: Arc<[FxHashMap<String, Span>; 3]>,
    /// `using N::x;` and `E::A` for an unscoped enumerator: the key it
    /// declares, per kind, to the key of the entity it names.
    aliases: Arc<[FxHashMap<String, String>; 3]>,
    /// `namespace cg = ...;`: the alias's key to its target.
    ns_aliases: Arc<FxHashMap<String, AliasTarget>>,
    directives: Vec<Directive>,
    /// Every namespace a using-directive (at any scope) nominated in the
    /// file: where the checker looks for an operator function the usual
    /// scopes lack ([`Names::nominated`]).
    nominated: Arc<std::collections::BTreeSet<String>>,
    /// The inline and anonymous namespaces, by key: their members are
    /// also members of the enclosing namespace.
    transparent: Arc<std::collections::BTreeSet<String>>,
    /// Block-scope `using N::x;`: the name and the key it denotes.
    block_aliases: Vec<(String, Kind, String)>,
    /// The names of the locals in scope in the current function, in
    /// declaration order.
    locals: Vec<String>,
    /// How many locals in scope have each name (a lookup per identifier
    /// must not scan them all).
    local_counts: FxHashMap<String, usize>,
    /// The declared type of each of `locals` where it was written (not
    /// `auto`, not a reference or an array): what `decltype(x)` names in
    /// a class template's arguments.
    local_types: Vec<Option<crate::parser::typedefs::Typedef>>,
    /// The declared type of each variable at namespace scope whose type
    /// was written (not an array), by key: what `decltype(v)` names.
    global_types: Arc<FxHashMap<String, crate::parser::typedefs::Typedef>>,
    /// Open blocks of the current function (0 at namespace scope).
    pub(super) block_depth: usize,
}

/// What a block restores when it ends.
pub(super) struct BlockMark {
    directives: usize,
    aliases: usize,
    locals: usize,
}

/// `scope::name` (just `name` in the global namespace).
pub(crate) fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}::{name}")
    }
}

/// The components of a key, outermost first: split at each `::` outside
/// a class template instance's arguments (`gpu::Vec<ns::T>` is `gpu`,
/// `Vec<ns::T>`).
pub(crate) fn key_path(key: &str) -> Vec<String> {
    split_key(key).into_iter().map(str::to_string).collect()
}

/// [`key_path`] as slices of `key`.
pub(crate) fn split_key(key: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let bytes = key.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth = depth.saturating_sub(1),
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                parts.push(&key[start..i]);
                i += 2;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&key[start..]);
    parts
}

impl Names {
    /// The key of the current namespace.
    pub(crate) fn current_key(&self) -> String {
        self.current.join("::")
    }

    /// The current namespace's path (with the class of a member function
    /// being read, which is entered as one).
    pub(crate) fn current_path(&self) -> Vec<String> {
        self.current.clone()
    }

    /// The key a declaration of `name` gets here: qualified at namespace
    /// scope, unchanged inside a function (locals are not keyed).
    pub(crate) fn qualify(&self, name: &str) -> String {
        if self.block_depth > 0 {
            name.to_string()
        } else {
            join(&self.current_key(), name)
        }
    }

    /// Records a declaration of `key` (from [`Names::qualify`]) of `kind`;
    /// a redeclaration keeps the first span.
    pub(crate) fn declare(&mut self, kind: Kind, key: &str, span: Span) {
        if !self.decls[kind.index()].contains_key(key) {
            Arc::make_mut(&mut self.decls)[kind.index()].insert(key.to_string(), span);
        }
        // A class's own member type hides the one it inherits
        // ([`Names::inherit_types`]).
        if kind == Kind::Type && self.aliases[kind.index()].contains_key(key) {
            Arc::make_mut(&mut self.aliases)[kind.index()].remove(key);
        }
    }

    /// Makes the member types of the classes keyed `bases` (declared in
    /// them, or inherited by them in turn) members of the class keyed
    /// `class` too, as C++'s lookup in a class goes on into its bases:
    /// `idx_t` in `struct Der : Base` is `Base::idx_t`.
    pub(crate) fn inherit_types(&mut self, class: &str, bases: &[String]) {
        let mut inherited = Vec::new();
        for base in bases {
            let prefix = format!("{base}::");
            let declared = self.decls[Kind::Type.index()].keys().map(|k| (k, k));
            let aliased = self.aliases[Kind::Type.index()].iter();
            for (key, target) in declared.chain(aliased) {
                let Some(member) = key.strip_prefix(&prefix) else {
                    continue;
                };
                if split_key(member).len() == 1 {
                    inherited.push((join(class, member), target.clone()));
                }
            }
        }
        for (key, target) in inherited {
            if !self.decls[Kind::Type.index()].contains_key(&key) {
                self.alias_key(Kind::Type, &key, &target);
            }
        }
    }

    /// Makes the key `alias` (`Wide::kTile`) name the value `target`
    /// (`Grid::kTile`, or what it names in turn) names: a static member
    /// a class inherits, unless the class declares its own.
    pub(crate) fn inherit_value(&mut self, alias: &str, target: &str) {
        let values = Kind::Value.index();
        if self.decls[values].contains_key(alias) || self.aliases[values].contains_key(alias) {
            return;
        }
        let target = self.aliases[values]
            .get(target)
            .map_or(target, String::as_str);
        if self.decls[values].contains_key(target) {
            let target = target.to_string();
            self.alias_key(Kind::Value, alias, &target);
        }
    }

    /// Declares `name` in the current scope as another name of `target`.
    pub(crate) fn declare_alias(&mut self, kind: Kind, name: &str, target: &str) {
        if self.block_depth > 0 {
            self.block_aliases
                .push((name.to_string(), kind, target.to_string()));
        } else {
            let key = join(&self.current_key(), name);
            Arc::make_mut(&mut self.aliases)[kind.index()].insert(key, target.to_string());
        }
    }

    /// Makes the key `alias` name the entity keyed `target`.
    pub(crate) fn alias_key(&mut self, kind: Kind, alias: &str, target: &str) {
        Arc::make_mut(&mut self.aliases)[kind.index()]
            .insert(alias.to_string(), target.to_string());
    }

    /// The keys of the unscoped enumerators of the enumeration keyed
    /// `enum_key` (each is also named `enum_key::name`, an alias).
    pub(crate) fn unscoped_enumerators<'a>(
        &'a self,
        enum_key: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.aliases[Kind::Value.index()]
            .iter()
            .filter(move |(alias, _)| {
                alias
                    .strip_prefix(enum_key)
                    .and_then(|rest| rest.strip_prefix("::"))
                    .is_some_and(|name| !name.is_empty() && !name.contains("::"))
            })
            .map(|(_, target)| target.as_str())
    }

    /// Opens `namespace path {` (`path` has one component, or several for
    /// `a::b`; an anonymous namespace is [`ANONYMOUS`]).
    pub(super) fn open_namespace(
        &mut self,
        path: &[String],
        inline: bool,
        span: Span,
        extern_c_depth: usize,
    ) {
        for (i, c) in path.iter().enumerate() {
            let parent = self.current.clone();
            self.current.push(c.clone());
            let key = self.current_key();
            let new = !self.decls[Kind::Namespace.index()].contains_key(&key);
            self.declare(Kind::Namespace, &key, span);
            let last = i + 1 == path.len();
            if new && (c == ANONYMOUS || (inline && last)) {
                Arc::make_mut(&mut self.transparent).insert(key.clone());
                self.directives.push(Directive::new(parent, key));
            }
        }
        self.open.push(OpenNamespace {
            components: path.len(),
            extern_c_depth,
            span,
        });
    }

    /// Makes `path` the current namespace (for the rest of a member
    /// defined outside it); returns the namespace to go back to.
    pub(super) fn enter_scope(&mut self, path: &[String]) -> Vec<String> {
        std::mem::replace(&mut self.current, path.to_vec())
    }

    /// This state as seen from namespace `path` outside any function:
    /// where a class template's instance is parsed.
    pub(super) fn at_namespace_scope(&self, path: &[String]) -> Names {
        let mut n = self.clone();
        n.current = path.to_vec();
        n.open.clear();
        n.block_aliases.clear();
        n.block_depth = 0;
        n.truncate_locals(0);
        n
    }

    /// Goes back to the namespace [`Names::enter_scope`] left.
    pub(super) fn leave_scope(&mut self, outer: Vec<String>) {
        self.current = outer;
    }

    /// Closes the innermost open namespace.
    pub(super) fn close_namespace(&mut self) {
        if let Some(o) = self.open.pop() {
            let keep = self.current.len().saturating_sub(o.components);
            self.current.truncate(keep);
        }
    }

    /// The outermost namespace block still open (at the end of input).
    pub(super) fn unclosed(&self) -> Option<Span> {
        self.open.first().map(|o| o.span)
    }

    /// `using namespace target;` here (`target` a namespace key).
    pub(crate) fn using_directive(&mut self, target: String) {
        if !self.nominated.contains(&target) {
            Arc::make_mut(&mut self.nominated).insert(target.clone());
        }
        self.directives
            .push(Directive::new(self.current.clone(), target));
    }

    /// The namespaces using-directives nominated anywhere in the file. The checker does not see which
    /// directives are in effect where an operator is used (the parser
    /// resolves names, but an operator's operand types are the
    /// checker's), so it looks there for operator functions only when
    /// the scopes C++ always searches have none: a little more than C++
    /// finds (a directive in one function serves another), never less.
    pub(crate) fn nominated(&self) -> &std::collections::BTreeSet<String> {
        &self.nominated
    }

    /// The inline and anonymous namespaces of the file, by key.
    pub(crate) fn transparent(&self) -> &std::collections::BTreeSet<String> {
        &self.transparent
    }

    /// `namespace name = target;`: `Ok(key)` for a known namespace, or the
    /// target as written when kernelc does not know it.
    pub(crate) fn namespace_alias(
        &mut self,
        name: &str,
        target: Result<String, String>,
        span: Span,
    ) {
        if self.block_depth > 0 {
            // A block-scope alias lasts to the end of its block; one of an
            // unknown namespace is left out (a use says "unknown").
            if let Ok(key) = target {
                self.declare_alias(Kind::Namespace, name, &key);
            }
            return;
        }
        let key = self.qualify(name);
        let target = match target {
            Ok(k) => AliasTarget::Known(k),
            Err(text) => AliasTarget::Unknown(text),
        };
        Arc::make_mut(&mut self.ns_aliases).insert(key.clone(), target);
        self.declare(Kind::Namespace, &key, span);
    }

    /// Where a block begins: what [`Names::end_block`] restores.
    pub(super) fn begin_block(&mut self) -> BlockMark {
        self.block_depth += 1;
        BlockMark {
            directives: self.directives.len(),
            aliases: self.block_aliases.len(),
            locals: self.locals.len(),
        }
    }

    /// Ends a block: its directives, aliases and locals go out of scope.
    pub(super) fn end_block(&mut self, mark: BlockMark) {
        self.block_depth = self.block_depth.saturating_sub(1);
        self.directives.truncate(mark.directives);
        self.block_aliases.truncate(mark.aliases);
        self.truncate_locals(mark.locals);
        if self.block_depth == 0 {
            self.truncate_locals(0);
        }
    }

    /// A function's parameters are the locals in scope at its body's start.
    pub(crate) fn start_function<'a>(&mut self, params: impl Iterator<Item = &'a str>) {
        self.truncate_locals(0);
        for p in params {
            self.declare_local(p);
        }
    }

    /// Drops the locals declared after the first `len`.
    fn truncate_locals(&mut self, len: usize) {
        self.local_types.truncate(len);
        for name in self.locals.drain(len.min(self.locals.len())..) {
            if let Some(n) = self.local_counts.get_mut(&name) {
                *n -= 1;
                if *n == 0 {
                    self.local_counts.remove(&name);
                }
            }
        }
    }

    /// A local (or parameter) named `name` is in scope from here on.
    pub(crate) fn declare_local(&mut self, name: &str) {
        self.locals.push(name.to_string());
        self.local_types.push(None);
        *self.local_counts.entry(name.to_string()).or_insert(0) += 1;
    }

    /// The latest local's declared type is `ty` (its base's `const` and
    /// spelling with it).
    pub(crate) fn type_last_local(&mut self, ty: crate::parser::typedefs::Typedef) {
        if let Some(last) = self.local_types.last_mut() {
            *last = Some(ty);
        }
    }

    /// The declared type of the local `name` in scope, when it was written.
    pub(crate) fn local_type(&self, name: &str) -> Option<&crate::parser::typedefs::Typedef> {
        let at = self.locals.iter().rposition(|l| l == name)?;
        self.local_types.get(at)?.as_ref()
    }

    /// The variable at namespace scope keyed `key` was declared `ty`.
    pub(crate) fn type_global(&mut self, key: &str, ty: crate::parser::typedefs::Typedef) {
        Arc::make_mut(&mut self.global_types).insert(key.to_string(), ty);
    }

    /// The declared type of the variable an expression's name resolved
    /// to (`name`: a local's name, or a namespace-scope variable's key),
    /// when it was written.
    pub(crate) fn variable_type(&self, name: &str) -> Option<&crate::parser::typedefs::Typedef> {
        if self.is_local(name) {
            return self.local_type(name);
        }
        self.global_types.get(name)
    }

    /// Whether `name` is a local in scope.
    pub(crate) fn is_local(&self, name: &str) -> bool {
        self.local_counts.contains_key(name)
    }

    /// The declaration span of `key` as a `kind`.
    pub(crate) fn span_of(&self, kind: Kind, key: &str) -> Option<Span> {
        self.decls[kind.index()].get(key).copied()
    }

    /// The entity `scope::name` declares directly, through a `using`
    /// declaration, or (for an unscoped enumerator) as `E::A`.
    fn direct(&self, kind: Kind, scope: &str, name: &str) -> Option<String> {
        let key = join(scope, name);
        if let Some(t) = self.aliases[kind.index()].get(&key) {
            return Some(t.clone());
        }
        self.decls[kind.index()].contains_key(&key).then_some(key)
    }

    /// Qualified lookup of `name` in the namespace `scope` (C++
    /// [namespace.qual]): declared there, or else found through the
    /// using-directives written there, transitively.
    pub(crate) fn member(&self, kind: Kind, scope: &str, name: &str) -> Found {
        let mut seen = FxHashSet::default();
        let mut found = Vec::new();
        self.member_into(kind, scope, name, &mut seen, &mut found);
        self.found(kind, found)
    }

    fn member_into(
        &self,
        kind: Kind,
        scope: &str,
        name: &str,
        seen: &mut FxHashSet<String>,
        found: &mut Vec<String>,
    ) {
        if !seen.insert(scope.to_string()) {
            return;
        }
        if let Some(k) = self.direct(kind, scope, name) {
            found.push(k);
            return;
        }
        for d in &self.directives {
            if d.scope_key == scope {
                self.member_into(kind, &d.target, name, seen, found);
            }
        }
    }

    /// Unqualified lookup of `name` from the current scope (see the module
    /// documentation). Block-scope `using` declarations come first.
    pub(crate) fn lookup(&self, kind: Kind, name: &str) -> Found {
        if self.is_c(kind) {
            // No namespace, `using` or alias so far: the global namespace
            // is all there is, and its names are their own keys.
            return match self.decls[kind.index()].contains_key(name) {
                true => Found::One(name.to_string()),
                false => Found::None,
            };
        }
        if let Some((_, _, t)) = self
            .block_aliases
            .iter()
            .rev()
            .find(|(n, k, _)| n == name && *k == kind)
        {
            return Found::One(t.clone());
        }
        // A namespace the directives of an inner level led to holds nothing
        // of the name, or the lookup would have ended there: each is
        // searched once per lookup.
        let mut seen = FxHashSet::default();
        let mut by_level: Vec<Vec<&Directive>> = vec![Vec::new(); self.current.len() + 1];
        for d in self.active_directives() {
            if let Some(at) = by_level.get_mut(d.appears_in) {
                at.push(d);
            }
        }
        for level in (0..=self.current.len()).rev() {
            let scope = self.current[..level].join("::");
            let mut found: Vec<String> = self.direct(kind, &scope, name).into_iter().collect();
            for d in &by_level[level] {
                self.member_into(kind, &d.target, name, &mut seen, &mut found);
            }
            found.sort();
            found.dedup();
            if !found.is_empty() {
                return self.found(kind, found);
            }
        }
        Found::None
    }

    /// Whether the program so far is C as far as `kind` is concerned: no
    /// namespace, directive or alias (the common case, looked up without
    /// walking scopes).
    fn is_c(&self, kind: Kind) -> bool {
        self.current.is_empty()
            && self.directives.is_empty()
            && self.block_aliases.is_empty()
            && self.aliases[kind.index()].is_empty()
            && self.decls[Kind::Namespace.index()].is_empty()
    }

    /// The directives in effect here: those written in the current
    /// namespace or one enclosing it (block ones are dropped with their
    /// block).
    fn active_directives(&self) -> impl Iterator<Item = &Directive> {
        self.directives
            .iter()
            .filter(|d| self.current.starts_with(&d.scope))
    }

    fn found(&self, kind: Kind, mut keys: Vec<String>) -> Found {
        keys.sort();
        keys.dedup();
        match keys.len() {
            0 => Found::None,
            1 => Found::One(keys.pop().unwrap_or_default()),
            _ => Found::Ambiguous(
                keys.into_iter()
                    .map(|k| {
                        let span = self.span_of(kind, &k).unwrap_or_default();
                        (k, span)
                    })
                    .collect(),
            ),
        }
    }

    /// The namespace a namespace name or alias key leads to: `Ok(key)`,
    /// or `Err(written target)` for an alias of a namespace kernelc does
    /// not know.
    pub(crate) fn namespace_target(&self, key: &str) -> Result<String, String> {
        match self.ns_aliases.get(key) {
            Some(AliasTarget::Known(k)) => Ok(k.clone()),
            Some(AliasTarget::Unknown(t)) => Err(t.clone()),
            None => Ok(key.to_string()),
        }
    }
}
