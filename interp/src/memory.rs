//! The interpreter's memory: separate state spaces, each a list of
//! allocations, reached through 64-bit addresses that carry their space.
//!
//! An address is `tag << 48 | index << 32 | offset`: the tag names the space
//! (the "window" a generic address falls into), the index names one
//! allocation of that space (a kernel buffer, a module variable, a stack
//! slot), and the offset is the byte inside it. Encoding the space in the
//! number is what lets generic pointers work as windows over the concrete
//! spaces, lets `addrspacecast` check where a generic pointer really points,
//! and lets `ptrtoint`/`inttoptr` round-trip. The encoding is this
//! interpreter's own: programs that look at the bits of an address see
//! different numbers than on a GPU, as they would between two GPUs.
//!
//! Address 0 is the null pointer of every space; no allocation lives there,
//! because every tag is non-zero.

use midend::ir::AddrSpace;

/// Bits of the byte offset inside one allocation.
const OFFSET_BITS: u32 = 32;
/// Bits of the allocation index.
const INDEX_BITS: u32 = 16;
/// The largest allocation an address can reach.
pub const MAX_ALLOC_BYTES: u64 = 1 << OFFSET_BITS;
/// The most allocations one space can hold at once.
pub const MAX_ALLOCS: usize = 1 << INDEX_BITS;

/// The window tag of each space that can be addressed. `shared::cluster`
/// shares the CTA's shared window: the interpreter runs clusters of one CTA.
fn tag_of(space: AddrSpace) -> u64 {
    match space {
        AddrSpace::Global => 1,
        AddrSpace::Shared | AddrSpace::SharedCluster => 2,
        AddrSpace::Const => 3,
        AddrSpace::Local => 4,
        AddrSpace::Param => 5,
        // Generic is not a window of its own and tmem has none; their
        // addresses are never minted (tag 7 decodes to no space).
        AddrSpace::Generic | AddrSpace::Tmem => 7,
    }
}

/// The space whose window `tag` is.
fn space_of_tag(tag: u64) -> Option<AddrSpace> {
    Some(match tag {
        1 => AddrSpace::Global,
        2 => AddrSpace::Shared,
        3 => AddrSpace::Const,
        4 => AddrSpace::Local,
        5 => AddrSpace::Param,
        _ => return None,
    })
}

/// The grid barrier's workspace address a cooperative launch gives
/// (`special grid_workspace`): not null, and in no space's window, so a
/// load or store through it is a wrong-space fault.
pub const GRID_WORKSPACE: u64 = 7 << (OFFSET_BITS + INDEX_BITS);

/// The window tag of function addresses (`func_addr`): no space's, so a
/// load or store through one is a wrong-space fault.
const FUNCTION_TAG: u64 = 6;

/// The address `func_addr` gives the module's function number `index`.
pub fn function_addr(index: usize) -> u64 {
    (FUNCTION_TAG << (OFFSET_BITS + INDEX_BITS)) | (index as u64 + 1)
}

/// The module's function number an address made by [`function_addr`]
/// names; `None` for any other number.
pub fn function_of(addr: u64) -> Option<usize> {
    let index = addr ^ (FUNCTION_TAG << (OFFSET_BITS + INDEX_BITS));
    (addr >> (OFFSET_BITS + INDEX_BITS) == FUNCTION_TAG && index != 0).then(|| index as usize - 1)
}

/// Makes the address of byte `offset` of allocation `index` in `space`.
/// The index field holds `index + 1`, so that a pointer that goes below the
/// first allocation of a space still lands in that space's window (with
/// index field 0) and is reported as out of bounds, not as a wild address.
pub fn make_addr(space: AddrSpace, index: usize, offset: u64) -> u64 {
    (tag_of(space) << (OFFSET_BITS + INDEX_BITS)) | ((index as u64 + 1) << OFFSET_BITS) | offset
}

/// An address taken apart.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Decoded {
    pub space: AddrSpace,
    /// The allocation; `usize::MAX` for the field value 0, below the first.
    pub index: usize,
    pub offset: u64,
}

/// Takes an address apart; `None` for null and for numbers in no window.
pub fn decode(addr: u64) -> Option<Decoded> {
    let space = space_of_tag(addr >> (OFFSET_BITS + INDEX_BITS))?;
    Some(Decoded {
        space,
        index: (((addr >> OFFSET_BITS) & ((1 << INDEX_BITS) - 1)) as usize).wrapping_sub(1),
        offset: addr & ((1 << OFFSET_BITS) - 1),
    })
}

/// The space an address points into, seen as the space a pointer type names
/// (`shared::cluster` pointers land in the shared window).
pub fn space_matches(ptr_space: AddrSpace, actual: AddrSpace) -> bool {
    match ptr_space {
        AddrSpace::Generic => true,
        AddrSpace::SharedCluster => actual == AddrSpace::Shared,
        s => s == actual,
    }
}

/// One block of memory: a kernel buffer, a module variable or a stack slot.
#[derive(Clone, Debug)]
pub struct Alloc {
    /// What it is, for fault messages (`buffer arg2`, `@tile`, `ss0 of @f`).
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Alloc {
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Alloc {
        Alloc {
            name: name.into(),
            bytes,
        }
    }

    /// Reads `len` (1..=8) bytes at `offset` as a little-endian number. The
    /// caller has checked the bounds.
    pub fn read(&self, offset: usize, len: usize) -> u64 {
        let mut v = 0u64;
        for (i, b) in self.bytes[offset..offset + len].iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        v
    }

    /// Writes the low `len` bytes of `value` at `offset`, little-endian.
    pub fn write(&mut self, offset: usize, len: usize, value: u64) {
        for (i, b) in self.bytes[offset..offset + len].iter_mut().enumerate() {
            *b = (value >> (8 * i)) as u8;
        }
    }
}

/// Why an access was refused. The interpreter turns this into a fault with
/// the instruction and thread attached.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AccessError {
    Null,
    /// The number is in no window (a forged or corrupted address).
    Wild(u64),
    /// A `ptr<S>` holds an address of another space.
    WrongSpace {
        ptr: AddrSpace,
        actual: AddrSpace,
    },
    /// The index names no live allocation (e.g. a stack slot of a returned call).
    Dangling {
        space: AddrSpace,
    },
    OutOfBounds {
        space: AddrSpace,
        name: String,
        size: u64,
        /// The offset, negative when the pointer went below the allocation.
        offset: i64,
        len: u32,
    },
    Misaligned {
        addr: u64,
        align: u32,
    },
    ReadOnly {
        space: AddrSpace,
        name: String,
    },
    /// `ptr<tmem>`: tensor memory has no ordinary loads and stores.
    NoLoadStore(AddrSpace),
}

impl std::fmt::Display for AccessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AccessError::Null => write!(f, "null pointer dereference"),
            AccessError::Wild(a) => {
                write!(f, "address {a:#x} is in no memory space (a forged pointer)")
            }
            AccessError::WrongSpace { ptr, actual } => write!(
                f,
                "access through a ptr<{ptr}> to an address in {actual} memory"
            ),
            AccessError::Dangling { space } => write!(
                f,
                "access to a {space} allocation that no longer exists (e.g. a stack slot of a returned call)"
            ),
            AccessError::OutOfBounds {
                space,
                name,
                size,
                offset,
                len,
            } => write!(
                f,
                "out-of-bounds access: {len} bytes at offset {offset} of {space} {name} ({size} bytes)"
            ),
            AccessError::Misaligned { addr, align } => write!(
                f,
                "misaligned access: address {addr:#x} is not a multiple of {align}"
            ),
            AccessError::ReadOnly { space, name } => {
                write!(f, "store to read-only {space} memory ({name})")
            }
            AccessError::NoLoadStore(s) => write!(f, "{s} memory cannot be loaded or stored"),
        }
    }
}

/// Memory every thread of the grid sees: global buffers and module
/// variables, the constant bank, and the kernel's parameter space.
#[derive(Clone, Debug, Default)]
pub struct GridMemory {
    pub global: Vec<Alloc>,
    pub constant: Vec<Alloc>,
    pub param: Vec<Alloc>,
}

/// Checks an access of `len` bytes through a pointer of type `ptr<ptr_space>`
/// holding `addr`, and returns where it lands.
pub fn check_access(addr: u64, len: u32, ptr_space: AddrSpace) -> Result<Decoded, AccessError> {
    if !ptr_space.allows_load_store() {
        return Err(AccessError::NoLoadStore(ptr_space));
    }
    if addr == 0 {
        return Err(AccessError::Null);
    }
    let d = decode(addr).ok_or(AccessError::Wild(addr))?;
    if !space_matches(ptr_space, d.space) {
        return Err(AccessError::WrongSpace {
            ptr: ptr_space,
            actual: d.space,
        });
    }
    if !addr.is_multiple_of(u64::from(len)) {
        return Err(AccessError::Misaligned { addr, align: len });
    }
    Ok(d)
}

/// Finds the bytes `d.offset .. d.offset + len` in `allocs`.
pub fn bounds(allocs: &[Alloc], d: Decoded, len: u32) -> Result<(usize, usize), AccessError> {
    let alloc = allocs.get(d.index);
    let end = d.offset + u64::from(len);
    if let Some(a) = alloc {
        if end <= a.bytes.len() as u64 {
            return Ok((d.index, d.offset as usize));
        }
    }
    // An offset in the top half of the field past the end of its allocation
    // is a pointer that went below the start of the next one: report it as
    // a negative offset of that one.
    if d.offset >= MAX_ALLOC_BYTES / 2 {
        if let Some(next) = allocs.get(d.index.wrapping_add(1)) {
            return Err(AccessError::OutOfBounds {
                space: d.space,
                name: next.name.clone(),
                size: next.bytes.len() as u64,
                offset: d.offset as i64 - MAX_ALLOC_BYTES as i64,
                len,
            });
        }
    }
    match alloc {
        Some(a) => Err(AccessError::OutOfBounds {
            space: d.space,
            name: a.name.clone(),
            size: a.bytes.len() as u64,
            offset: d.offset as i64,
            len,
        }),
        None => Err(AccessError::Dangling { space: d.space }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_and_null_is_nowhere() {
        for space in [
            AddrSpace::Global,
            AddrSpace::Shared,
            AddrSpace::Const,
            AddrSpace::Local,
            AddrSpace::Param,
        ] {
            let a = make_addr(space, 7, 12);
            assert_eq!(
                decode(a),
                Some(Decoded {
                    space,
                    index: 7,
                    offset: 12
                })
            );
        }
        assert_eq!(decode(0), None);
        assert_eq!(
            check_access(0, 4, AddrSpace::Global),
            Err(AccessError::Null)
        );
    }

    #[test]
    fn wrong_space_and_misalignment_are_refused() {
        let a = make_addr(AddrSpace::Shared, 0, 2);
        assert!(matches!(
            check_access(a, 2, AddrSpace::Global),
            Err(AccessError::WrongSpace { .. })
        ));
        assert!(matches!(
            check_access(a, 4, AddrSpace::Generic),
            Err(AccessError::Misaligned { .. })
        ));
        assert!(check_access(a, 2, AddrSpace::SharedCluster).is_ok());
    }

    #[test]
    fn a_pointer_below_an_allocation_reports_a_negative_offset() {
        let allocs = vec![Alloc::new("a", vec![0; 8]), Alloc::new("b", vec![0; 8])];
        for (index, name) in [(0, "a"), (1, "b")] {
            let below = make_addr(AddrSpace::Global, index, 0).wrapping_sub(4);
            let d = decode(below).unwrap();
            match bounds(&allocs, d, 4) {
                Err(AccessError::OutOfBounds {
                    name: n, offset, ..
                }) => {
                    assert_eq!(n, name);
                    assert_eq!(offset, -4);
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
