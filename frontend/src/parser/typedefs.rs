//! The typedef names a parser sees: a table shared with the parser or
//! environment the parse starts from, and the template parameters bound
//! for this parse on top of it.
//!
//! Template instances, class template instances, host frames and default
//! arguments are parsed by thousands of short-lived parsers, nearly all of
//! which bind a few template parameters and declare nothing. Binding into
//! a copy of the table would copy the whole table per parse; keeping the
//! bound names beside the shared table copies only them.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::ast::Spelling;
use crate::types::CType;

/// A typedef: its type, whether it is `const`, and how its type was spelled.
pub(crate) type Typedef = (CType, bool, Spelling);

/// The typedef table of one parse.
#[derive(Clone, Debug, Default)]
pub(crate) struct Typedefs {
    /// The typedefs declared so far; shared, copied on the first
    /// declaration a parse makes.
    declared: Arc<FxHashMap<String, Typedef>>,
    /// Template parameters bound by this parse (or the parse it is a
    /// sub-parser of), later ones first in lookup. A bound name hides a
    /// declared one until a declaration of that name replaces it.
    bound: Vec<(String, Typedef)>,
    /// The typedefs declared in the blocks being read, innermost last:
    /// they hide the others, end with their block (C++ scopes them), and
    /// are not seen by the template instances made inside the block,
    /// whose names are looked up where the template is defined.
    local: Vec<(String, Typedef)>,
}

impl Typedefs {
    /// The typedefs of a finished parse (`crate::templates::ParseEnv`).
    pub(crate) fn from_table(declared: Arc<FxHashMap<String, Typedef>>) -> Typedefs {
        Typedefs {
            declared,
            bound: Vec::new(),
            local: Vec::new(),
        }
    }

    /// The whole table, bound names included, to start later parses from.
    pub(crate) fn into_table(mut self) -> Arc<FxHashMap<String, Typedef>> {
        if !self.bound.is_empty() {
            Arc::make_mut(&mut self.declared).extend(self.bound);
        }
        self.declared
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Typedef> {
        let local = self.local.iter().rev();
        match local
            .chain(self.bound.iter().rev())
            .find(|(n, _)| n == name)
        {
            Some((_, t)) => Some(t),
            None => self.declared.get(name),
        }
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Declares `name` (replacing a binding of it).
    pub(crate) fn insert(&mut self, name: String, t: Typedef) {
        self.bound.retain(|(n, _)| *n != name);
        Arc::make_mut(&mut self.declared).insert(name, t);
    }

    /// Declares `name` in the innermost block being read.
    pub(crate) fn insert_local(&mut self, name: String, t: Typedef) {
        self.local.push((name, t));
    }

    /// Where the typedefs of a block about to open will begin.
    pub(crate) fn local_mark(&self) -> usize {
        self.local.len()
    }

    /// Ends the typedefs declared since `mark`: their block has closed.
    pub(crate) fn end_locals(&mut self, mark: usize) {
        self.local.truncate(mark);
    }

    /// Leaves out the block-scope typedefs: a template instance's parse
    /// starts from the names of namespace scope.
    pub(crate) fn forget_locals(&mut self) {
        self.local.clear();
    }

    /// Binds template parameters to their arguments.
    pub(crate) fn bind(&mut self, types: Vec<(String, Typedef)>) {
        self.bound.extend(types);
    }

    /// The declared typedefs (not the bound template parameters).
    pub(crate) fn declared(&self) -> impl Iterator<Item = (&String, &Typedef)> {
        self.declared.iter()
    }
}
