//! The memory-space lattice.
//!
//! Every pointer value gets one element: [`Space::Bottom`] when nothing is
//! known yet, one concrete state space when every way the value can be made
//! agrees on it, or [`Space::Generic`] (the top) when two spaces came
//! together or provenance was lost. The concrete spaces are pairwise
//! incomparable, so the lattice is three levels high. The analysis only
//! goes up: at a merge a value takes the *join* (least upper bound) of
//! its inputs, so it can change at most twice; that bound is what makes
//! every fixed point in this pass terminate.
//!
//! The same lattice serves as the inter-procedural *vote* of a parameter
//! over its call sites: `Bottom` is "no call site has spoken yet" (UNDET),
//! a concrete space is a unanimous vote, and `Generic` is the absorbing
//! POISON of a disagreement.

use crate::ir::AddrSpace;
use core::fmt;

/// One element of the memory-space lattice.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Space {
    /// No evidence yet (the bottom element, the identity of [`Space::join`]).
    #[default]
    Bottom,
    /// Proved to point into exactly this state space. Never `Generic`.
    Concrete(AddrSpace),
    /// Conflicting or unknown provenance (the top element, which absorbs
    /// everything in a join).
    Generic,
}

impl Space {
    /// The element a pointer *type* pins down: `ptr<generic>` says nothing
    /// (`Bottom`, to be inferred), any other space is a fact.
    pub fn of_type_space(space: AddrSpace) -> Space {
        if space == AddrSpace::Generic {
            Space::Bottom
        } else {
            Space::Concrete(space)
        }
    }

    /// The lattice element for an address space, with `generic` as the top.
    pub fn from_addr_space(space: AddrSpace) -> Space {
        if space == AddrSpace::Generic {
            Space::Generic
        } else {
            Space::Concrete(space)
        }
    }

    /// The join (least upper bound) taken at every merge (block
    /// parameters, selects, votes): equal elements stay, `Bottom` gives way
    /// to the other side, and anything else is a conflict, `Generic`.
    pub fn join(self, other: Space) -> Space {
        match (self, other) {
            (Space::Bottom, x) | (x, Space::Bottom) => x,
            (a, b) if a == b => a,
            _ => Space::Generic,
        }
    }

    /// The concrete space, if this element is one.
    pub fn concrete(self) -> Option<AddrSpace> {
        match self {
            Space::Concrete(s) => Some(s),
            _ => None,
        }
    }

    /// The address space the rewrite gives a value with this element:
    /// everything that is not proved concrete stays generic.
    pub fn final_space(self) -> AddrSpace {
        self.concrete().unwrap_or(AddrSpace::Generic)
    }

    /// Every element, for tests and generators.
    pub fn all() -> Vec<Space> {
        let mut v = vec![Space::Bottom, Space::Generic];
        v.extend(
            AddrSpace::ALL
                .iter()
                .filter(|s| **s != AddrSpace::Generic)
                .map(|&s| Space::Concrete(s)),
        );
        v
    }

    /// Whether `self` is below or equal to `other` in the lattice order:
    /// `Bottom` is below everything, everything is below `Generic`, and a
    /// concrete space is below only itself among the concrete spaces.
    pub fn le(self, other: Space) -> bool {
        match (self, other) {
            (Space::Bottom, _) | (_, Space::Generic) => true,
            (Space::Concrete(a), Space::Concrete(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Space::Bottom => f.write_str("bottom"),
            Space::Concrete(s) => write!(f, "{s}"),
            Space::Generic => f.write_str("generic"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_concrete_spaces_conflict() {
        let g = Space::Concrete(AddrSpace::Global);
        let s = Space::Concrete(AddrSpace::Shared);
        assert_eq!(g.join(s), Space::Generic);
        assert_eq!(g.join(g), g);
        assert_eq!(Space::Bottom.join(s), s);
        assert!(Space::Bottom.le(g) && g.le(Space::Generic) && !g.le(s));
    }

    /// Every element: bottom, each concrete space, top.
    fn elements() -> Vec<Space> {
        let concrete = AddrSpace::ALL
            .into_iter()
            .filter(|&s| s != AddrSpace::Generic)
            .map(Space::Concrete);
        [Space::Bottom, Space::Generic]
            .into_iter()
            .chain(concrete)
            .collect()
    }

    /// The join-semilattice laws, checked on every pair and triple.
    #[test]
    fn join_obeys_the_lattice_laws_on_every_element() {
        let all = elements();
        assert_eq!(all.len(), AddrSpace::ALL.len() + 1);
        for &a in &all {
            assert_eq!(a.join(a), a, "idempotent: {a}");
            assert_eq!(Space::Bottom.join(a), a, "bottom is the identity: {a}");
            assert_eq!(Space::Generic.join(a), Space::Generic, "top absorbs: {a}");
            assert!(Space::Bottom.le(a) && a.le(Space::Generic), "bounds: {a}");
            for &b in &all {
                let j = a.join(b);
                assert_eq!(j, b.join(a), "commutative: {a}, {b}");
                assert!(a.le(j) && b.le(j), "an upper bound: {a} {b} -> {j}");
                // The least: below every other upper bound.
                for &c in &all {
                    if a.le(c) && b.le(c) {
                        assert!(j.le(c), "least: {a} {b} -> {j}, not below {c}");
                    }
                    assert_eq!(j.join(c), a.join(b.join(c)), "associative: {a} {b} {c}");
                }
                // The order is the one the join induces.
                assert_eq!(a.le(b), j == b, "a <= b iff a join b == b: {a} {b}");
            }
        }
    }

    /// The lattice is three levels high: a value changes at most twice.
    #[test]
    fn every_chain_has_at_most_three_elements() {
        let all = elements();
        for &a in &all {
            for &b in &all {
                for &c in &all {
                    for &d in &all {
                        let strict = |x: Space, y: Space| x.le(y) && x != y;
                        assert!(
                            !(strict(a, b) && strict(b, c) && strict(c, d)),
                            "a chain of four: {a} < {b} < {c} < {d}"
                        );
                    }
                }
            }
        }
    }
}
