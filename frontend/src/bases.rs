//! Base classes: where the Itanium C++ ABI places them, and how a name or
//! a conversion reaches one.
//!
//! A base class subobject is an unnamed field of the base's type at the
//! front of the derived class's fields (`StructDef::bases` counts them), so
//! a copy, a braced list (C++17: the bases come first) and the leaves of a
//! struct see the bases as they see members. The placement is the ABI's
//! (nvcc lays out device classes as the host compiler does):
//!
//! - bases in declaration order, then the members;
//! - an empty base takes no room: it sits at offset 0 unless an empty
//!   subobject of the same type is there already, then at the next
//!   multiple of its alignment that is free;
//! - the next subobject after a base starts at the base's *data size*,
//!   which for a class that is not a POD for the purpose of layout leaves
//!   out its tail padding (`struct D : B { char d; }` puts `d` inside `B`'s
//!   padding when `B` has a user-provided constructor or private data).

use std::sync::Arc;

use crate::types::{CType, Field, StructDef};

/// What a class declares beyond its members that its layout depends on.
pub struct ClassShape {
    /// Its direct bases, in declaration order.
    pub bases: Vec<Arc<StructDef>>,
    /// Whether it is a POD for the purpose of layout as far as its own
    /// declarations go (no user-provided constructor, destructor or copy
    /// assignment, no data that is not public, no member of a non-POD
    /// class; having bases is checked by the layout).
    pub pod: bool,
}

/// The bases placed: their fields, the empty subobjects among them, and
/// the data size, size and alignment they take.
pub struct PlacedBases {
    pub fields: Vec<Field>,
    pub empties: Vec<(u32, u64)>,
    pub dsize: u64,
    pub size: u64,
    pub align: u64,
}

/// Places `bases` in order by the Itanium ABI (see the module comment).
pub fn place_bases(bases: &[Arc<StructDef>]) -> PlacedBases {
    let mut placed = PlacedBases {
        fields: Vec::new(),
        empties: Vec::new(),
        dsize: 0,
        size: 0,
        align: 1,
    };
    for b in bases {
        let ty = CType::Struct(b.clone());
        let empty = b.is_empty();
        let start = if empty {
            0
        } else {
            placed.dsize.div_ceil(b.align).saturating_mul(b.align)
        };
        let offset = free_offset(&ty, start, b.align, &mut placed.empties);
        if !empty {
            placed.dsize = offset.saturating_add(b.dsize);
        }
        placed.size = placed.size.max(offset.saturating_add(b.size));
        placed.align = placed.align.max(b.align);
        placed.fields.push(Field {
            name: String::new(),
            ty,
            offset,
            bits: None,
            reference: false,
            spelling: Default::default(),
        });
    }
    placed
}

/// The first offset from `start`, in steps of `align`, where an object of
/// type `ty` puts none of its empty subobjects at the address of another
/// of the same type in `empties`; its empty subobjects are added there.
pub fn free_offset(ty: &CType, start: u64, align: u64, empties: &mut Vec<(u32, u64)>) -> u64 {
    let Some(def) = ty.struct_def() else {
        return start;
    };
    let mut offset = start;
    while def
        .empties
        .iter()
        .any(|&(t, o)| empties.contains(&(t, offset.saturating_add(o))))
    {
        offset = offset.saturating_add(align.max(1));
    }
    empties.extend(def.empties.iter().map(|&(t, o)| (t, offset + o)));
    offset
}

/// The way from a class to one of its bases: the base subobject fields
/// to step through, outermost first (each an index into its class's
/// fields), and the base's offset in the class.
#[derive(Clone, Debug, PartialEq)]
pub struct BasePath {
    pub steps: Vec<(Arc<StructDef>, u64)>,
    pub offset: u64,
}

/// The way from `derived` to its base `base` (a direct or indirect one),
/// the first in declaration order when it is a base more than once; `None`
/// when it is not a base (nor the class itself).
pub fn path_to(derived: &StructDef, base: &StructDef) -> Option<BasePath> {
    if derived.id == base.id {
        return Some(BasePath {
            steps: Vec::new(),
            offset: 0,
        });
    }
    derived.base_fields().iter().find_map(|f| {
        let def = base_class(f)?;
        let rest = path_to(def, base)?;
        let mut steps = vec![(def.clone(), f.offset)];
        steps.extend(rest.steps);
        Some(BasePath {
            steps,
            offset: f.offset + rest.offset,
        })
    })
}

/// Whether `base` is a proper base of `derived`.
pub fn is_base_of(base: &StructDef, derived: &StructDef) -> bool {
    base.id != derived.id && path_to(derived, base).is_some()
}

/// The class that declares what `declares` finds, searched as C++'s member
/// lookup searches: `def` itself, else its bases in order (the first that
/// has it, depth first), with the way there.
pub fn find_in_bases<T>(
    def: &StructDef,
    declares: &mut dyn FnMut(&StructDef) -> Option<T>,
) -> Option<(T, BasePath)> {
    if let Some(found) = declares(def) {
        return Some((
            found,
            BasePath {
                steps: Vec::new(),
                offset: 0,
            },
        ));
    }
    def.base_fields().iter().find_map(|f| {
        let base = base_class(f)?;
        let (found, rest) = find_in_bases(base, declares)?;
        let mut steps = vec![(base.clone(), f.offset)];
        steps.extend(rest.steps);
        Some((
            found,
            BasePath {
                steps,
                offset: f.offset + rest.offset,
            },
        ))
    })
}

/// When what `declares` finds is not in `def` itself but in two base
/// subobjects that are different classes or different copies of one (C++
/// [class.member.lookup]: the lookup sets differ, so the name is
/// ambiguous): the names of the classes each was found in, in base order.
pub fn ambiguous_in_bases<T>(
    def: &StructDef,
    declares: &mut dyn FnMut(&StructDef) -> Option<T>,
) -> Option<Vec<String>> {
    let mut found = Vec::new();
    declaring_subobjects(def, 0, declares, &mut found);
    let first = found.first()?.clone();
    found
        .iter()
        .any(|other| *other != first)
        .then(|| found.into_iter().map(|(name, _)| name).collect())
}

/// The (class, offset) of each subobject of `def` (at `offset` in the
/// whole object) whose class is the first on its way down to declare what
/// `declares` finds.
fn declaring_subobjects<T>(
    def: &StructDef,
    offset: u64,
    declares: &mut dyn FnMut(&StructDef) -> Option<T>,
    found: &mut Vec<(String, u64)>,
) {
    if declares(def).is_some() {
        found.push((def.name.clone(), offset));
        return;
    }
    for f in def.base_fields() {
        if let Some(base) = base_class(f) {
            declaring_subobjects(base, offset + f.offset, declares, found);
        }
    }
}

/// The data member `name` of `def` or of one of its bases, with its
/// offset in `def`.
pub fn member_field(def: &StructDef, name: &str) -> Option<Field> {
    let (field, path) = find_in_bases(def, &mut |d| d.field(name).cloned())?;
    Some(Field {
        offset: field.offset + path.offset,
        ..field
    })
}

/// The names of the data members of `def` and of its bases.
pub fn all_field_names(def: &StructDef) -> Vec<String> {
    let mut names: Vec<String> = def
        .own_fields()
        .iter()
        .filter(|f| !f.name.is_empty())
        .map(|f| f.name.clone())
        .collect();
    for b in def.base_fields() {
        if let Some(base) = b.ty.struct_def() {
            names.extend(all_field_names(base));
        }
    }
    names
}

/// The classes `def` derives from, directly or not, in lookup order.
pub fn all_bases(def: &StructDef) -> Vec<Arc<StructDef>> {
    let mut out = Vec::new();
    for b in def.base_fields() {
        if let Some(base) = base_class(b) {
            out.push(base.clone());
            out.extend(all_bases(base));
        }
    }
    out
}

/// The class of a base subobject's field.
pub fn base_class(f: &Field) -> Option<&Arc<StructDef>> {
    match &f.ty {
        CType::Struct(def) => Some(def),
        _ => None,
    }
}
