//! The memory-space lattice.
//!
//! Every pointer value gets one element: [`Space::Bottom`] when nothing is
//! known yet, one concrete state space when every way the value can be made
//! agrees on it, or [`Space::Generic`] when two spaces met or provenance was
//! lost. The concrete spaces are pairwise incomparable, so the lattice is
//! three levels high and a value can change at most twice; that bound is
//! what makes every fixed point in this pass terminate.
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
    /// No evidence yet (the bottom element, the identity of [`Space::meet`]).
    #[default]
    Bottom,
    /// Proved to point into exactly this state space. Never `Generic`.
    Concrete(AddrSpace),
    /// Conflicting or unknown provenance (the top element, absorbing).
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

    /// The meet used at every merge (block parameters, selects, votes): equal
    /// elements stay, `Bottom` gives way to the other side, and anything else
    /// is a conflict.
    pub fn meet(self, other: Space) -> Space {
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

    /// Whether `self` is below or equal to `other` in the lattice order
    /// (`Bottom` ≤ concrete ≤ `Generic`).
    pub fn le(self, other: Space) -> bool {
        self.meet(other) == other
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

/// Folds a sequence of observations into one element (the meet of all of
/// them, `Bottom` for none).
pub fn meet_all(items: impl IntoIterator<Item = Space>) -> Space {
    items.into_iter().fold(Space::Bottom, Space::meet)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_concrete_spaces_conflict() {
        let g = Space::Concrete(AddrSpace::Global);
        let s = Space::Concrete(AddrSpace::Shared);
        assert_eq!(g.meet(s), Space::Generic);
        assert_eq!(g.meet(g), g);
        assert_eq!(Space::Bottom.meet(s), s);
        assert_eq!(meet_all([]), Space::Bottom);
        assert!(Space::Bottom.le(g) && g.le(Space::Generic) && !g.le(s));
    }
}
