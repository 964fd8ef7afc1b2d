//! The emulator's memory: PTX's state spaces kept apart, each a list of
//! allocations, and the two kinds of address that reach them.
//!
//! A *generic* address is `tag << 48 | (index + 1) << 32 | offset`, the same
//! windows the IR interpreter uses (`interp/src/memory.rs`): the tag
//! names the space (1 global, 2 shared, 3 const, 4 local, 5 param), the index
//! the allocation and the offset the byte. A *space* address (what
//! `cvta.to.SPACE` produces, what `mov %r, smem` gives, what `ld.shared`
//! expects) is, for global memory, the generic address itself (on a GPU
//! `cvta.to.global` is the identity), and for the other spaces a compact
//! 32-bit number `(index + 1) << 20 | offset`, because PTX code truncates
//! shared and local addresses to 32 bits (`cvt.u32.u64` after
//! `cvta.to.shared`). Keeping the two kinds distinct is what lets the
//! emulator catch the backend bugs that matter: an `ld.shared` through a
//! generic or global address, an `ld.global` through a shared window
//! address, or a generic access through a shared-space number that was
//! never converted with `cvta.shared`.

use crate::FaultKind;
use std::fmt;

/// A PTX state space that holds data.
#[derive(Copy, Clone, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub enum Space {
    Global,
    Shared,
    Const,
    Local,
    Param,
}

impl Space {
    /// The space a modifier names (`.shared::cta` is the CTA's shared
    /// memory; clusters have one CTA here).
    pub fn from_mod(m: &str) -> Option<Space> {
        Some(match m {
            ".global" => Space::Global,
            ".shared" | ".shared::cta" | ".shared::cluster" => Space::Shared,
            ".const" => Space::Const,
            ".local" => Space::Local,
            ".param" | ".param::entry" | ".param::func" => Space::Param,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Const => "const",
            Space::Local => "local",
            Space::Param => "param",
        }
    }

    fn tag(self) -> u64 {
        match self {
            Space::Global => 1,
            Space::Shared => 2,
            Space::Const => 3,
            Space::Local => 4,
            Space::Param => 5,
        }
    }

    fn of_tag(tag: u64) -> Option<Space> {
        Some(match tag {
            1 => Space::Global,
            2 => Space::Shared,
            3 => Space::Const,
            4 => Space::Local,
            5 => Space::Param,
            _ => return None,
        })
    }
}

/// Bits of the offset in a generic address.
const GEN_OFFSET_BITS: u32 = 32;
/// Bits of the offset in a compact (32-bit) space address: 1 MiB, more than
/// any shared (227 KiB), const (64 KiB), param or local (512 KiB) object.
pub const SPACE_OFFSET_BITS: u32 = 20;
/// The most allocations a compact space address can name.
pub const MAX_SPACE_ALLOCS: usize = (1 << (32 - SPACE_OFFSET_BITS)) - 1;

/// The most shared allocations (variables) of one block: a shared
/// allocation index past them names a block of the cluster as well (see
/// [`cluster_index`]).
pub const BLOCK_SHARED_ALLOCS: usize = 255;
/// The shared allocation indices of one block of a cluster.
const RANK_STRIDE: usize = BLOCK_SHARED_ALLOCS + 1;
/// The most blocks of a cluster: CUDA's portable limit (a compact shared
/// address has room for 15).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

/// The shared allocation index that names allocation `index` of the block
/// of rank `rank` in the cluster (what `mapa` gives). The indices below
/// [`RANK_STRIDE`] name the accessing block's own allocations, so the
/// addresses of a kernel without clusters are unchanged, and both kinds of
/// address, generic and compact, carry the rank with the index.
pub fn cluster_index(rank: usize, index: usize) -> usize {
    (rank + 1) * RANK_STRIDE + index % RANK_STRIDE
}

/// Splits a shared allocation index into the rank of the block it names
/// (`None`: the accessing block) and the allocation in that block.
pub fn split_cluster_index(index: usize) -> (Option<usize>, usize) {
    match index / RANK_STRIDE {
        0 => (None, index),
        r => (Some(r - 1), index % RANK_STRIDE),
    }
}

/// Where each shared allocation of a block starts in its shared window:
/// one after the other, each 128-byte aligned (TMA's alignment) or more
/// where its `.align` asks (`aligns`, one per allocation: a swizzled tile
/// is `.align 1024`, since the swizzle works on address bits), as a GPU
/// lays out a block's shared variables. A shared address's offset is the
/// window's (the allocation's start plus the byte's offset in it), so the
/// low 18 bits of a shared address name the byte as on a GPU: what a
/// matrix descriptor keeps of the address (`crate::descriptor`).
pub fn shared_window(allocs: &[Alloc], aligns: &[u64]) -> Vec<u64> {
    let mut next = 0u64;
    allocs
        .iter()
        .zip(aligns)
        .map(|(a, &align)| {
            let base = next.next_multiple_of(align.max(1));
            next = (base + a.bytes.len() as u64).next_multiple_of(128);
            base
        })
        .collect()
}

/// What `cvta` gives for an address outside the window (or the space) it
/// converts: PTX leaves the result undefined and does not trap, and
/// compilers run `cvta` speculatively (above the `isspacep` test that guards
/// it), so the conversion itself is no fault. This value is in no window
/// and names no allocation of any space, in its 64 bits and in its low 32
/// (`0xbad` is allocation 2988), so any access through it, or near it, is.
pub const BAD_CONVERSION: u64 = 0xbad0_0000_bad0_0000;

/// Whether `loc`, an allocation that does not exist, is what an address
/// made from [`BAD_CONVERSION`] (its low 32 bits, or near them) names.
pub fn is_bad_conversion(loc: &Loc) -> bool {
    let index = (BAD_CONVERSION & 0xffff_ffff) >> SPACE_OFFSET_BITS;
    loc.index == index as usize - 1
}

/// The generic address of byte `offset` of allocation `index` of `space`.
pub fn generic(space: Space, index: usize, offset: u64) -> u64 {
    (space.tag() << 48) | ((index as u64 + 1) << GEN_OFFSET_BITS) | offset
}

/// The tag of a function's address: no space's, so that a load or store
/// through it faults.
const CODE_TAG: u64 = 6;

/// The address of function `index` (what `mov %rd, f` gives, and an
/// indirect `call` takes).
pub fn code_addr(index: usize) -> u64 {
    (CODE_TAG << 48) | ((index as u64 + 1) << GEN_OFFSET_BITS)
}

/// The function whose address `addr` is, if it is one.
pub fn code_index(addr: u64) -> Option<usize> {
    let index = (addr >> GEN_OFFSET_BITS) & 0xffff;
    let exact = addr == code_addr(index.checked_sub(1)? as usize);
    exact.then(|| index as usize - 1)
}

/// The address of the byte in `space` itself (what `cvta.to` gives).
pub fn space_addr(space: Space, index: usize, offset: u64) -> u64 {
    match space {
        Space::Global => generic(space, index, offset),
        _ => ((index as u64 + 1) << SPACE_OFFSET_BITS).wrapping_add(offset) & 0xffff_ffff,
    }
}

/// A location: which space, which allocation (`usize::MAX` below the first),
/// which byte.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Loc {
    pub space: Space,
    pub index: usize,
    pub offset: u64,
}

/// Takes a generic address apart; `None` when it is in no window.
pub fn decode_generic(addr: u64) -> Option<Loc> {
    let space = Space::of_tag(addr >> 48)?;
    Some(Loc {
        space,
        index: (((addr >> GEN_OFFSET_BITS) & 0xffff) as usize).wrapping_sub(1),
        offset: addr & 0xffff_ffff,
    })
}

/// Takes a space address of `space` apart, or says why it is not one.
pub fn decode_space(space: Space, addr: u64) -> Result<Loc, AddressError> {
    let wrong = |window: Option<Space>| match window {
        Some(window) => AddressError::OtherWindow {
            addr,
            window,
            space,
        },
        None => AddressError::NotOfSpace { addr, space },
    };
    if space == Space::Global {
        return match decode_generic(addr) {
            Some(l) if l.space == Space::Global => Ok(l),
            other => Err(wrong(other.map(|l| l.space))),
        };
    }
    if addr >> 32 != 0 {
        return Err(wrong(decode_generic(addr).map(|l| l.space)));
    }
    Ok(Loc {
        space,
        index: ((addr >> SPACE_OFFSET_BITS) as usize).wrapping_sub(1),
        offset: addr & ((1 << SPACE_OFFSET_BITS) - 1),
    })
}

/// Why an address is not one of the space an instruction names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddressError {
    /// `addr` is a generic address in the window of `window` memory (a
    /// global address is one), not an address of `space`.
    OtherWindow {
        addr: u64,
        window: Space,
        space: Space,
    },
    /// `addr` is in no window and is no address of `space`.
    NotOfSpace { addr: u64, space: Space },
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AddressError::OtherWindow {
                addr,
                window,
                space: Space::Global,
            } => write!(
                f,
                "wrong state space: {addr:#x} is an address in the generic window of {} memory, not a global address",
                window.name()
            ),
            AddressError::OtherWindow {
                addr,
                window: Space::Global,
                space,
            } => write!(
                f,
                "wrong state space: {addr:#x} is a global address (global addresses are generic ones), not a {} address",
                space.name()
            ),
            AddressError::OtherWindow {
                addr,
                window,
                space,
            } => write!(
                f,
                "wrong state space: {addr:#x} is a generic address (in the window of {} memory), not a {} address; convert it with cvta.to.{}",
                window.name(),
                space.name(),
                space.name()
            ),
            AddressError::NotOfSpace { addr, space } => {
                write!(f, "{addr:#x} is not a {} address", space.name())
            }
        }
    }
}

impl std::error::Error for AddressError {}

/// One block of memory: a buffer, a variable, a parameter.
#[derive(Clone, Debug)]
pub struct Alloc {
    /// What it is, for fault messages (`buffer arg2`, `smem`).
    pub name: String,
    pub bytes: Vec<u8>,
    /// Stores fault (kernel parameters, `.const`).
    pub read_only: bool,
}

impl Alloc {
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Alloc {
        Alloc {
            name: name.into(),
            bytes,
            read_only: false,
        }
    }

    /// Checks that `len` bytes at `offset` lie inside, and are aligned.
    pub fn check(&self, offset: u64, len: u64) -> Result<usize, AccessError> {
        if offset
            .checked_add(len)
            .is_none_or(|e| e > self.bytes.len() as u64)
        {
            return Err(AccessError::OutOfBounds {
                len,
                offset,
                alloc: self.name.clone(),
                size: self.bytes.len(),
            });
        }
        if len > 1 && !offset.is_multiple_of(len.min(16)) {
            return Err(AccessError::Misaligned {
                len,
                offset,
                alloc: self.name.clone(),
            });
        }
        Ok(offset as usize)
    }

    /// Reads `len` (1..=8) bytes, little-endian; the caller has checked.
    pub fn read(&self, offset: usize, len: usize) -> u64 {
        let mut v = 0u64;
        for (i, b) in self.bytes[offset..offset + len].iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        v
    }

    /// Writes the low `len` bytes of `value`; the caller has checked.
    pub fn write(&mut self, offset: usize, len: usize, value: u64) {
        for (i, b) in self.bytes[offset..offset + len].iter_mut().enumerate() {
            *b = (value >> (8 * i)) as u8;
        }
    }
}

/// Why `len` bytes at `offset` of an allocation cannot be accessed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// They do not all lie inside `alloc` (its [`Alloc::name`]), of `size`
    /// bytes.
    OutOfBounds {
        len: u64,
        offset: u64,
        alloc: String,
        size: usize,
    },
    /// `offset` is not a multiple of `len` (of 16 for wider accesses).
    Misaligned {
        len: u64,
        offset: u64,
        alloc: String,
    },
}

impl AccessError {
    /// The kind of fault the access is.
    pub fn fault_kind(&self) -> FaultKind {
        match self {
            AccessError::OutOfBounds { .. } => FaultKind::OutOfBounds,
            AccessError::Misaligned { .. } => FaultKind::Misaligned,
        }
    }
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::OutOfBounds {
                len,
                offset,
                alloc,
                size,
            } => write!(
                f,
                "out-of-bounds access: {len} bytes at offset {offset} of {alloc} ({size} bytes)"
            ),
            AccessError::Misaligned { len, offset, alloc } => {
                write!(
                    f,
                    "misaligned access: {len} bytes at offset {offset} of {alloc}"
                )
            }
        }
    }
}

impl std::error::Error for AccessError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_and_spaces_are_told_apart() {
        let g = generic(Space::Shared, 2, 12);
        assert_eq!(
            decode_generic(g),
            Some(Loc {
                space: Space::Shared,
                index: 2,
                offset: 12
            })
        );
        let s = space_addr(Space::Shared, 2, 12);
        assert!(s < 1 << 32);
        assert_eq!(decode_space(Space::Shared, s).unwrap().index, 2);
        let shared_window = |space| AddressError::OtherWindow {
            addr: g,
            window: Space::Shared,
            space,
        };
        assert_eq!(
            decode_space(Space::Shared, g),
            Err(shared_window(Space::Shared))
        );
        let gl = generic(Space::Global, 0, 4);
        assert_eq!(space_addr(Space::Global, 0, 4), gl);
        assert_eq!(
            decode_space(Space::Global, g),
            Err(shared_window(Space::Global))
        );
        assert_eq!(
            decode_space(Space::Shared, u64::MAX),
            Err(AddressError::NotOfSpace {
                addr: u64::MAX,
                space: Space::Shared
            })
        );
        assert_eq!(decode_generic(s), None);
    }

    #[test]
    fn address_and_access_errors_say_what_users_read() {
        let other = |window, space| AddressError::OtherWindow {
            addr: 0x10,
            window,
            space,
        };
        let texts = [
            (
                other(Space::Shared, Space::Global),
                "wrong state space: 0x10 is an address in the generic window of shared memory, not a global address",
            ),
            (
                other(Space::Global, Space::Local),
                "wrong state space: 0x10 is a global address (global addresses are generic ones), not a local address",
            ),
            (
                other(Space::Const, Space::Shared),
                "wrong state space: 0x10 is a generic address (in the window of const memory), not a shared address; convert it with cvta.to.shared",
            ),
            (
                AddressError::NotOfSpace {
                    addr: 0x10,
                    space: Space::Global,
                },
                "0x10 is not a global address",
            ),
        ];
        for (error, text) in texts {
            assert_eq!(error.to_string(), text);
        }
        let a = Alloc::new("smem", vec![0; 8]);
        let far = a.check(6, 4).unwrap_err();
        assert_eq!(far.fault_kind(), FaultKind::OutOfBounds);
        assert_eq!(
            far.to_string(),
            "out-of-bounds access: 4 bytes at offset 6 of smem (8 bytes)"
        );
        let askew = a.check(2, 4).unwrap_err();
        assert_eq!(askew.fault_kind(), FaultKind::Misaligned);
        assert_eq!(
            askew.to_string(),
            "misaligned access: 4 bytes at offset 2 of smem"
        );
    }

    #[test]
    fn a_cluster_index_names_a_rank_and_round_trips_through_both_kinds() {
        assert_eq!(split_cluster_index(3), (None, 3));
        let i = cluster_index(5, 3);
        assert_eq!(split_cluster_index(i), (Some(5), 3));
        // mapa of an address that already names a rank re-targets it.
        assert_eq!(split_cluster_index(cluster_index(0, i)), (Some(0), 3));
        let last = cluster_index(MAX_CLUSTER_BLOCKS as usize - 1, BLOCK_SHARED_ALLOCS);
        let s = space_addr(Space::Shared, last, 12);
        assert!(s < 1 << 32);
        assert_eq!(decode_space(Space::Shared, s).unwrap().index, last);
        let g = generic(Space::Shared, last, 12);
        assert_eq!(decode_generic(g).unwrap().index, last);
    }
}
