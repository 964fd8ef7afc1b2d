//! Value types and address spaces.
//!
//! The address space is part of a pointer's type, as in LLVM and naga: a
//! `ptr<shared>` can only point into shared memory, and the only instruction
//! that changes a pointer's space is `addrspacecast`.

use core::fmt;
use core::str::FromStr;

/// A state space of the PTX memory model, as seen by an IR pointer.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum AddrSpace {
    /// A generic (flat) address: may point into any space that has a generic window.
    Generic,
    /// Device memory (`.global`).
    Global,
    /// Per-CTA shared memory (`.shared::cta`).
    Shared,
    /// Read-only constant bank (`.const`).
    Const,
    /// Per-thread memory (`.local`): stack slots.
    Local,
    /// Kernel parameter space (`.param`).
    Param,
    /// Blackwell tensor memory. It has no generic window and no ordinary load/store.
    Tmem,
    /// Shared memory of any CTA in the cluster (`.shared::cluster`).
    SharedCluster,
}

impl AddrSpace {
    /// Every space, in a fixed order (used by tests and generators).
    pub const ALL: [AddrSpace; 8] = [
        AddrSpace::Generic,
        AddrSpace::Global,
        AddrSpace::Shared,
        AddrSpace::Const,
        AddrSpace::Local,
        AddrSpace::Param,
        AddrSpace::Tmem,
        AddrSpace::SharedCluster,
    ];

    /// The spelling used in the text format and in PTX state-space suffixes.
    pub fn name(self) -> &'static str {
        match self {
            AddrSpace::Generic => "generic",
            AddrSpace::Global => "global",
            AddrSpace::Shared => "shared",
            AddrSpace::Const => "const",
            AddrSpace::Local => "local",
            AddrSpace::Param => "param",
            AddrSpace::Tmem => "tmem",
            AddrSpace::SharedCluster => "shared::cluster",
        }
    }

    /// Whether a pointer of this space can be converted to and from a generic one.
    pub fn has_generic_form(self) -> bool {
        !matches!(self, AddrSpace::Tmem)
    }

    /// Whether ordinary `load`/`store` may access this space.
    pub fn allows_load_store(self) -> bool {
        !matches!(self, AddrSpace::Tmem)
    }

    /// Whether memory in this space can be written by a kernel.
    pub fn is_writable(self) -> bool {
        !matches!(self, AddrSpace::Const | AddrSpace::Param)
    }
}

impl fmt::Display for AddrSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AddrSpace {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        AddrSpace::ALL
            .iter()
            .copied()
            .find(|a| a.name() == s)
            .ok_or(())
    }
}

/// The type of an SSA value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// A boolean (a PTX predicate).
    I1,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
    /// A pointer into the given address space.
    Ptr(AddrSpace),
}

impl Type {
    /// Every non-pointer type plus one pointer per space (for tests and generators).
    pub fn all() -> Vec<Type> {
        let mut v = vec![
            Type::I1,
            Type::I8,
            Type::I16,
            Type::I32,
            Type::I64,
            Type::F16,
            Type::BF16,
            Type::F32,
            Type::F64,
        ];
        v.extend(AddrSpace::ALL.iter().map(|&a| Type::Ptr(a)));
        v
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, Type::F16 | Type::BF16 | Type::F32 | Type::F64)
    }

    pub fn is_ptr(self) -> bool {
        matches!(self, Type::Ptr(_))
    }

    /// The address space of a pointer type.
    pub fn addr_space(self) -> Option<AddrSpace> {
        match self {
            Type::Ptr(a) => Some(a),
            _ => None,
        }
    }

    /// Width in bits. Pointers are 64-bit, except tmem addresses which are 32-bit.
    /// (The backend may still hold shared addresses in 32-bit registers.)
    pub fn bits(self) -> u32 {
        match self {
            Type::I1 => 1,
            Type::I8 => 8,
            Type::I16 | Type::F16 | Type::BF16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 => 64,
            Type::Ptr(AddrSpace::Tmem) => 32,
            Type::Ptr(_) => 64,
        }
    }

    /// Size in memory, in bytes (an `i1` occupies one byte).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::I1 => f.write_str("i1"),
            Type::I8 => f.write_str("i8"),
            Type::I16 => f.write_str("i16"),
            Type::I32 => f.write_str("i32"),
            Type::I64 => f.write_str("i64"),
            Type::F16 => f.write_str("f16"),
            Type::BF16 => f.write_str("bf16"),
            Type::F32 => f.write_str("f32"),
            Type::F64 => f.write_str("f64"),
            Type::Ptr(a) => write!(f, "ptr<{a}>"),
        }
    }
}

impl FromStr for Type {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s {
            "i1" => Type::I1,
            "i8" => Type::I8,
            "i16" => Type::I16,
            "i32" => Type::I32,
            "i64" => Type::I64,
            "f16" => Type::F16,
            "bf16" => Type::BF16,
            "f32" => Type::F32,
            "f64" => Type::F64,
            _ => {
                let inner = s.strip_prefix("ptr<").and_then(|r| r.strip_suffix('>'));
                Type::Ptr(inner.ok_or(())?.parse()?)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_spelling_parses_back() {
        for t in Type::all() {
            assert_eq!(t.to_string().parse::<Type>(), Ok(t));
        }
        assert!("ptr<nowhere>".parse::<Type>().is_err());
        assert!("i7".parse::<Type>().is_err());
    }

    #[test]
    fn tmem_has_no_generic_form() {
        assert!(!AddrSpace::Tmem.has_generic_form());
        assert!(AddrSpace::ALL
            .iter()
            .filter(|a| **a != AddrSpace::Tmem)
            .all(|a| a.has_generic_form()));
    }
}
