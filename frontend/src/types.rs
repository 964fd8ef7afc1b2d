//! C types as the frontend understands them (LP64 data model).
//!
//! One type representation is shared by the syntax tree (casts, declarations)
//! and the typed tree: typedef names are replaced while parsing, so a base
//! type is known as soon as its specifiers are parsed.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One member of a struct, at its byte offset.
#[derive(Clone, Debug)]
pub struct Field {
    /// Empty for an unnamed bit-field (`unsigned : 4;`).
    pub name: String,
    pub ty: CType,
    /// The byte offset of the member, or of a bit-field's storage unit (an
    /// object of type `ty`, aligned like it).
    pub offset: u64,
    /// A bit-field's place in its storage unit.
    pub bits: Option<BitField>,
    /// A reference member (`TempStorage &storage_;`): `ty` is a pointer to
    /// the referenced type, and the member names the object it points to.
    pub reference: bool,
    /// How the member's base type was written where `ty` forgets it
    /// (`long long`): what the member deduces as a template argument.
    pub spelling: crate::ast::Spelling,
}

/// Where a bit-field's value sits in its storage unit: `width` bits from
/// bit `shift` (bit 0 the least significant of the little-endian unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    pub shift: u32,
    pub width: u32,
}

/// A member as a struct's definition lists it: name, type, least
/// alignment (`__align__(N)`; 1 when not given), and a bit-field's width.
pub type MemberDecl = (String, CType, u64, Option<u32>);

/// A complete struct type with its layout, computed once when the parser
/// meets the definition. Types are compared by `id` (C's struct types are
/// nominal: two definitions with the same members are still different).
#[derive(Clone, Debug)]
pub struct StructDef {
    /// Unique per definition within one parse; CUDA's vector types use
    /// fixed ids below [`FIRST_USER_STRUCT_ID`].
    pub id: u32,
    /// The tag (`struct P`), or the typedef name of an anonymous struct.
    pub name: String,
    /// Whether `name` is a tag (printed `struct P`) rather than a typedef.
    pub tagged: bool,
    pub fields: Vec<Field>,
    pub size: u64,
    pub align: u64,
    /// A `union`: every member at offset 0.
    pub is_union: bool,
    /// For an instance of a class template (`Packed128<float>`), the
    /// template and its arguments, which its Itanium name spells.
    pub instance_of: Option<Arc<crate::templates::ClassInstance>>,
    /// For a class nested in a class template's instance
    /// (`BlockScan<int, 256>::TempStorage`), that instance: the prefix of
    /// its Itanium name.
    pub enclosing_instance: Option<Arc<crate::templates::ClassInstance>>,
    /// For a lambda's closure type, what its Itanium name spells.
    pub closure: Option<Arc<Closure>>,
    /// How many of `fields`, from the first, are base class subobjects
    /// (unnamed, of the base's type, in declaration order; `bases.rs`).
    pub bases: usize,
    /// The Itanium ABI's data size: the size without the tail padding a
    /// derived class may place its members in. The size itself for a
    /// POD for the purpose of layout, whose tail padding is kept.
    pub dsize: u64,
    /// A POD for the purpose of layout (`crate::bases::is_layout_pod`).
    pub pod: bool,
    /// The empty class subobjects inside (struct id, offset), itself
    /// included when empty: two of one type may not share an address.
    pub empties: Vec<(u32, u64)>,
    /// The names of member functions that using-declarations bring in
    /// from bases (`using Base::get;`): the bases' overloads join the
    /// class's own.
    pub using_members: Vec<String>,
    /// A declared class that is not complete yet: the stand-in that a
    /// forward declaration (`struct Tree;`) makes, or that names a class
    /// inside its own base clause and body (`Node *next;`, CRTP's
    /// `Base<K>`). It has the id and name the definition will have, so
    /// types that name it equal, hash and mangle as the complete class;
    /// `completion` is filled once the definition is laid out.
    pub incomplete: bool,
    /// Its members that are not public, its friends, its bases' access
    /// (`crate::access`).
    pub access: crate::access::ClassAccess,
    /// For a stand-in: the complete class, once defined.
    pub completion: Completion,
    /// The members of its anonymous unions and structs (unnamed own
    /// fields of an unnamed class type: `union { struct { half d, m; };
    /// half2 dm; };`), theirs too, at their offsets in this class: C++
    /// names them in the class's own scope.
    pub anonymous_members: Vec<Field>,
}

/// The complete class a stand-in ([`StructDef::incomplete`]) stands for,
/// set once when the definition's `}` is read.
///
/// A self-referential class makes an `Arc` cycle (`Node`'s definition
/// holds `Node *next`, whose stand-in holds the definition). The cycle is
/// kept on purpose: a translation unit's classes live as long as the
/// compile, and a `Weak` here would make a type's meaning depend on
/// whether some table still holds the definition. The memory is a few
/// class definitions per compile, returned when the process exits.
#[derive(Clone, Default)]
pub struct Completion(std::sync::OnceLock<CType>);

impl Completion {
    /// The complete class (a `CType::Struct`), if defined yet.
    pub fn get(&self) -> Option<&CType> {
        self.0.get()
    }

    /// Records the definition; a second one is ignored (the parser
    /// reports redefinitions before it gets here).
    pub fn complete(&self, def: &Arc<StructDef>) {
        let _ = self.0.set(CType::Struct(def.clone()));
    }
}

impl fmt::Debug for Completion {
    // Not the definition: it may point back at this stand-in.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = if self.0.get().is_some() {
            "complete"
        } else {
            "incomplete"
        };
        f.write_str(state)
    }
}

/// What makes a struct a lambda's closure type (`crate::sema::lambdas`):
/// its Itanium name, the ABI's `<local-name>` of an unnamed type, `Z
/// <encoding of the enclosing function> E Ul <parameter types> E [<n>] _`
/// (`Z4mainEUlfE0_`: the second closure in `main` whose call operator
/// takes a `float`).
#[derive(Clone, Debug, PartialEq)]
pub struct Closure {
    pub context: ClosureContext,
    /// The call operator's parameter types as written: the type (the
    /// referenced one for a reference), its spelling, and for a reference
    /// the referenced object's `const` and `volatile`. An `auto`
    /// parameter is a template parameter's placeholder (`T_`).
    pub sig: Vec<SigParam>,
    /// Its number among the closures of the same context and signature,
    /// in source order: 0 for the first (`_`), 1 for the second (`0_`).
    pub discriminator: u32,
}

/// A parameter as a function's Itanium name spells it: its type (the
/// referenced one for a reference), the spelling of its base type, and
/// for a reference the referenced object's `const` and `volatile`.
pub type SigParam = (CType, crate::ast::Spelling, Option<(bool, bool)>);

/// The function whose body holds a lambda, as a closure type's name
/// spells it.
#[derive(Clone, Debug, PartialEq)]
pub enum ClosureContext {
    /// The function's encoding as its own name writes it, after `_Z`
    /// (`4main`, `4kernPfi`, `2tkIfEvPT_`).
    Encoding(String),
    /// A function at namespace scope (`run(float *, int)`): its key and
    /// parameter types, mangled with the rest of the name so that the
    /// types after it may refer back to them (`S0_`).
    Function { key: String, params: Vec<SigParam> },
}

/// Ids at or above this belong to user-defined structs.
pub const FIRST_USER_STRUCT_ID: u32 = 1000;

impl PartialEq for StructDef {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for StructDef {}

impl Hash for StructDef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl StructDef {
    /// Lays out `fields` (name and type, in order) with C's rules: each
    /// member at the next multiple of its alignment, the struct aligned like
    /// its most aligned member (or `min_align`, for CUDA's vector types) and
    /// padded to a multiple of that. An empty struct has size 1, as in C++.
    pub fn layout(
        id: u32,
        name: String,
        tagged: bool,
        members: Vec<(String, CType)>,
        min_align: u64,
    ) -> StructDef {
        let members = members.into_iter().map(|(n, t)| (n, t, 1, None)).collect();
        Self::lay_out(id, name, tagged, members, min_align, false)
    }

    /// The layout of a struct, or of a union (every member at 0, as large
    /// as its largest member), each member at the next multiple of its
    /// alignment (raised by its least alignment, `__align__(N)`; a smaller
    /// one changes nothing, as in nvcc), aligned like its most aligned
    /// member or `min_align`, and padded to that. Offsets are counted in
    /// bits, so that bit-fields pack: a bit-field of type
    /// `T` and width `w` takes the next `w` bits unless they would cross a
    /// boundary of `T`'s alignment, then starts at that boundary; a zero
    /// width only moves to the next boundary; a named one aligns the
    /// struct like `T` (the System V ABI's rules, which nvcc follows).
    pub fn lay_out(
        id: u32,
        name: String,
        tagged: bool,
        members: Vec<MemberDecl>,
        min_align: u64,
        is_union: bool,
    ) -> StructDef {
        let class = crate::bases::ClassShape {
            bases: Vec::new(),
            pod: true,
        };
        Self::lay_out_class(id, name, tagged, class, members, min_align, is_union)
    }

    /// [`StructDef::lay_out`] after the base class subobjects of `class`,
    /// placed by the Itanium C++ ABI (`crate::bases::place_bases`): the
    /// members start at the bases' data size, and a member whose empty
    /// subobjects would share an address with one of the same type moves
    /// on by its alignment.
    pub fn lay_out_class(
        id: u32,
        name: String,
        tagged: bool,
        class: crate::bases::ClassShape,
        members: Vec<MemberDecl>,
        min_align: u64,
        is_union: bool,
    ) -> StructDef {
        let placed = crate::bases::place_bases(&class.bases);
        let has_bases = !class.bases.is_empty();
        let mut empties = placed.empties;
        let mut bit = placed.dsize.saturating_mul(8);
        let mut end = placed.dsize;
        let mut align = min_align.max(placed.align);
        let mut fields = placed.fields;
        for (name, ty, least, width) in members {
            let a = ty.align().max(least);
            let size = ty.size().unwrap_or(0);
            if let Some(w) = width {
                let unit = a.saturating_mul(8);
                let w = u64::from(w);
                if w == 0 || (bit / unit) != ((bit + w - 1) / unit) {
                    bit = bit.div_ceil(unit).saturating_mul(unit);
                }
                if w == 0 {
                    continue;
                }
                if !name.is_empty() {
                    align = align.max(a);
                }
                let offset = bit / unit * a;
                let shift = (bit - offset * 8) as u32;
                let bits = Some(BitField {
                    shift,
                    width: w as u32,
                });
                fields.push(Field {
                    name,
                    ty,
                    offset,
                    bits,
                    reference: false,
                    spelling: Default::default(),
                });
                end = end.max((bit + w).div_ceil(8));
                if !is_union {
                    bit += w;
                }
                continue;
            }
            let mut offset = bit.div_ceil(8).div_ceil(a).saturating_mul(a);
            if has_bases {
                offset = crate::bases::free_offset(&ty, offset, a, &mut empties);
            }
            align = align.max(a);
            fields.push(Field {
                name,
                ty,
                offset,
                bits: None,
                reference: false,
                spelling: Default::default(),
            });
            end = end.max(offset.saturating_add(size));
            if !is_union {
                bit = end.saturating_mul(8);
            }
        }
        let size = end
            .max(placed.size)
            .max(1)
            .div_ceil(align)
            .saturating_mul(align);
        let pod = class.pod && !has_bases;
        let mut def = StructDef {
            id,
            name,
            tagged,
            fields,
            size,
            align,
            is_union,
            instance_of: None,
            enclosing_instance: None,
            closure: None,
            bases: class.bases.len(),
            dsize: if pod { size } else { end },
            pod,
            empties,
            using_members: Vec::new(),
            incomplete: false,
            access: Default::default(),
            completion: Completion::default(),
            anonymous_members: Vec::new(),
        };
        let anonymous = def
            .own_fields()
            .iter()
            .flat_map(anonymous_members)
            .collect();
        def.anonymous_members = anonymous;
        if def.is_empty() {
            def.empties.insert(0, (id, 0));
        }
        def
    }

    /// An empty class (no data, only empty bases): a base of this type
    /// takes no room.
    pub fn is_empty(&self) -> bool {
        !self.is_union
            && self
                .fields
                .iter()
                .enumerate()
                .all(|(k, f)| k < self.bases && f.ty.struct_def().is_some_and(StructDef::is_empty))
            && self.id >= FIRST_USER_STRUCT_ID
    }

    /// The base class subobjects: fields of the bases' types, unnamed.
    pub fn base_fields(&self) -> &[Field] {
        &self.fields[..self.bases]
    }

    /// The data members, after the bases.
    pub fn own_fields(&self) -> &[Field] {
        &self.fields[self.bases..]
    }

    /// The data member called `name`, declared in this class (or in an
    /// anonymous union or struct of it).
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.own_fields()
            .iter()
            .chain(&self.anonymous_members)
            .find(|f| f.name == name && !name.is_empty())
    }

    /// The stand-in for class `name` (id `id`) while it is declared but
    /// not yet defined.
    pub fn stand_in(id: u32, name: String) -> StructDef {
        let mut def = StructDef::layout(id, name, true, Vec::new(), 1);
        def.incomplete = true;
        def
    }

    /// The complete definition: this one, or for a stand-in the class it
    /// stands for once defined (still the stand-in before that).
    pub fn resolved(&self) -> &StructDef {
        match self.completion.get() {
            Some(CType::Struct(def)) => def,
            _ => self,
        }
    }

    /// Whether this is a stand-in whose class is not defined (yet).
    pub fn is_incomplete(&self) -> bool {
        self.incomplete && self.completion.get().is_none()
    }

    /// Whether a member is a bit-field (a braced list or a constructor
    /// cannot fill it member by member yet).
    pub fn has_bit_fields(&self) -> bool {
        self.fields.iter().any(|f| f.bits.is_some())
    }
}

/// The members that `field`, when it is an anonymous union or struct
/// member, brings into its class's scope, at their offsets in the class.
fn anonymous_members(field: &Field) -> Vec<Field> {
    let anonymous = field.name.is_empty() && field.bits.is_none();
    let Some(def) = field.ty.struct_def().filter(|d| anonymous && !d.tagged) else {
        return Vec::new();
    };
    def.own_fields()
        .iter()
        .filter(|f| !f.name.is_empty())
        .chain(&def.anonymous_members)
        .map(|f| Field {
            offset: field.offset + f.offset,
            ..f.clone()
        })
        .collect()
}

/// CUDA's built-in vector types (`vector_types.h`): element type, count and
/// alignment. Two- and four-element vectors are aligned to their size (at
/// most 16 bytes), three-element ones like their element. Returns `None`
/// for other names. The 64-bit four-element types (`double4`, `long4`, ...)
/// are left out: CUDA 13 deprecates them in favour of `_16a`/`_32a` forms.
pub fn vector_type(name: &str) -> Option<CType> {
    const ELEMS: [(&str, CType); 12] = [
        (
            "char",
            CType::Int {
                bits: 8,
                signed: true,
            },
        ),
        (
            "uchar",
            CType::Int {
                bits: 8,
                signed: false,
            },
        ),
        (
            "short",
            CType::Int {
                bits: 16,
                signed: true,
            },
        ),
        (
            "ushort",
            CType::Int {
                bits: 16,
                signed: false,
            },
        ),
        ("int", CType::INT),
        ("uint", CType::UINT),
        ("long", CType::LONG),
        ("ulong", CType::ULONG),
        ("longlong", CType::LONG),
        ("ulonglong", CType::ULONG),
        ("float", CType::FLOAT),
        ("double", CType::DOUBLE),
    ];
    let split = name.find(|c: char| c.is_ascii_digit())?;
    let (base, count) = name.split_at(split);
    let n: u64 = match count {
        "1" => 1,
        "2" => 2,
        "3" => 3,
        "4" => 4,
        _ => return None,
    };
    let k = ELEMS.iter().position(|(b, _)| *b == base)?;
    let elem = ELEMS[k].1.clone();
    let esize = elem.size()?;
    if n == 4 && esize == 8 {
        return None;
    }
    let align = if n == 3 { esize } else { (esize * n).min(16) };
    let members = ["x", "y", "z", "w"][..n as usize]
        .iter()
        .map(|f| (f.to_string(), elem.clone()))
        .collect();
    let id = 1 + (k as u32) * 4 + (n as u32 - 1);
    Some(CType::Struct(Arc::new(StructDef::layout(
        id,
        name.to_string(),
        false,
        members,
        align,
    ))))
}

/// The id of CUDA's `dim3` (below the user ids, above the vectors').
pub const DIM3_ID: u32 = 901;

/// CUDA's `dim3`: three `unsigned int`s `x`, `y`, `z`, laid out as
/// `uint3` (12 bytes, 4-byte aligned). `blockDim` and `gridDim` have this
/// type; a `dim3` and a `uint3` convert to each other (CUDA's constructor
/// and conversion operator), and `dim3(x, y, z)` leaves out trailing
/// arguments as 1.
pub fn dim3_type() -> CType {
    let members = ["x", "y", "z"]
        .iter()
        .map(|f| (f.to_string(), CType::UINT))
        .collect();
    CType::Struct(Arc::new(StructDef::layout(
        DIM3_ID,
        "dim3".to_string(),
        false,
        members,
        4,
    )))
}

/// The ids of [`template_param`]'s placeholders: `TEMPLATE_PARAM_ID + i`
/// for a template's parameter `i` (below `DIM3_ID`'s neighbours).
pub const TEMPLATE_PARAM_ID: u32 = 800;

/// The most parameters a template may have (each needs its placeholder id).
pub const MAX_TEMPLATE_PARAMS: usize = 64;

/// The placeholder a template's type parameter `index` named `name` stands
/// as while its header is read for deduction and names
/// (`crate::templates`): an empty struct that no real type equals.
pub fn template_param(index: usize, name: &str) -> CType {
    let id = TEMPLATE_PARAM_ID + index.min(MAX_TEMPLATE_PARAMS) as u32;
    CType::Struct(Arc::new(StructDef::layout(
        id,
        name.to_string(),
        false,
        Vec::new(),
        1,
    )))
}

/// The template parameter index `ty` is the placeholder of, if it is one.
pub fn template_param_index(ty: &CType) -> Option<usize> {
    let id = ty.struct_def()?.id;
    (TEMPLATE_PARAM_ID..TEMPLATE_PARAM_ID + MAX_TEMPLATE_PARAMS as u32)
        .contains(&id)
        .then(|| (id - TEMPLATE_PARAM_ID) as usize)
}

/// The lengths that stand, in a function template's pattern, for an
/// array bound that is its value parameter (`const T (&v)[N]`):
/// `DEPENDENT_LEN + i` for parameter `i`, far past any array's length
/// (an object's size is at most 2^32 bytes), so no real array has one
/// and a size computed from one overflows to `None`.
const DEPENDENT_LEN: u64 = 1 << 62;

/// The length of an array whose bound is the template's value parameter
/// `index`, in its pattern ([`dependent_len_index`] reads it back).
pub fn dependent_len(index: usize) -> u64 {
    DEPENDENT_LEN + index.min(MAX_TEMPLATE_PARAMS) as u64
}

/// The value parameter an array length of a pattern stands for, if it is
/// one ([`dependent_len`]).
pub fn dependent_len_index(len: u64) -> Option<usize> {
    (DEPENDENT_LEN..DEPENDENT_LEN + MAX_TEMPLATE_PARAMS as u64)
        .contains(&len)
        .then(|| (len - DEPENDENT_LEN) as usize)
}

/// Whether `a` and `b` are `dim3` and `uint3` (either way round), whose
/// values are the same twelve bytes.
pub fn is_dim3_uint3_pair(a: &CType, b: &CType) -> bool {
    let id = |t: &CType| t.struct_def().map(|d| d.id);
    let uint3 = vector_type("uint3").and_then(|t| t.struct_def().map(|d| d.id));
    matches!(
        (id(a), id(b)),
        (Some(DIM3_ID), u) | (u, Some(DIM3_ID)) if u == uint3
    )
}

/// The id of CUDA's `CUtensorMap` (below the user ids, above the vectors').
pub const TENSOR_MAP_ID: u32 = 900;

/// CUDA's `CUtensorMap` (`cuda.h`): the opaque 128-byte, 64-byte aligned
/// descriptor of a tensor that TMA copies read. The host encodes it
/// (`cuTensorMapEncodeTiled`) and passes it as a `const __grid_constant__`
/// kernel parameter; the kernel only takes its address.
pub fn tensor_map_type() -> CType {
    let opaque = CType::Array {
        elem: Box::new(CType::ULONG),
        len: Some(16),
    };
    CType::Struct(Arc::new(StructDef::layout(
        TENSOR_MAP_ID,
        "CUtensorMap".to_string(),
        false,
        vec![("opaque".to_string(), opaque)],
        64,
    )))
}

/// How many scalars an object of type `ty` holds (saturating), so a copy
/// can be refused before its leaves are listed.
pub fn leaf_count(ty: &CType) -> u64 {
    match ty {
        CType::Array { elem, len } => leaf_count(elem).saturating_mul(len.unwrap_or(0)),
        CType::Struct(s) => s
            .resolved()
            .fields
            .iter()
            .fold(0u64, |n, f| n.saturating_add(leaf_count(&f.ty))),
        CType::Void => 0,
        _ => 1,
    }
}

/// Every scalar inside an object of type `ty` placed at `off`, with its
/// offset: what a struct copy loads and stores.
pub fn scalar_leaves(ty: &CType, off: u64, out: &mut Vec<(u64, CType)>) {
    match ty {
        CType::Array { elem, len } => {
            let esize = elem.size().unwrap_or(0);
            for k in 0..len.unwrap_or(0) {
                scalar_leaves(elem, off + k * esize, out);
            }
        }
        CType::Struct(s) => {
            // A stand-in's class (a prototype's parameter written before
            // the definition) is copied as the class.
            for f in &s.resolved().fields {
                scalar_leaves(&f.ty, off + f.offset, out);
            }
        }
        CType::Void => {}
        other => out.push((off, other.clone())),
    }
}

/// A C type after specifier resolution.
///
/// Qualifiers of an *object* (e.g. `const int x`, `float *const p`) are not part
/// of `CType`; they live on the variable. Qualifiers of the *pointed-to* object
/// live on the pointer (`const float *` is `Pointer { pointee_const: true, .. }`),
/// because that is what lowering needs to know about a memory access.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    /// `void`: only as a return type, a pointee, or a discarded expression.
    Void,
    /// `bool` (`_Bool`): one byte in memory, values 0 or 1.
    Bool,
    /// Integer types. `char` is signed (as on x86-64 and for nvcc);
    /// `long`, `long long` and `size_t` are 64 bits (LP64).
    Int { bits: u8, signed: bool },
    /// `float` (32) or `double` (64).
    Float { bits: u8 },
    /// A (possibly multi-level) pointer.
    Pointer {
        pointee: Box<CType>,
        /// The pointed-to object is `const` (reads only through this pointer).
        pointee_const: bool,
        /// The pointed-to object is `volatile`.
        pointee_volatile: bool,
        /// This pointer itself is `__restrict__`-qualified.
        restrict: bool,
    },
    /// `elem[len]`; `len` is `None` for an incomplete `T[]` (only
    /// `extern __shared__` arrays, and initializers before they are counted).
    Array { elem: Box<CType>, len: Option<u64> },
    /// A struct (also CUDA's vector types such as `float4`).
    Struct(Arc<StructDef>),
    /// CUDA's 16-bit floats, `__half` and `__nv_bfloat16` (`crate::half`):
    /// classes in C++, so not arithmetic types here; their operators and
    /// conversions are CUDA's, given in `sema/half.rs`.
    Half(HalfFormat),
    /// A function type: only ever the pointee of a function pointer
    /// (`float (*)(float)`), whose value is the function's address (an IR
    /// `i64`, never a memory address). A function designator decays to
    /// such a pointer as soon as it is used.
    Function(Arc<FnType>),
    /// A reference type, `T &` or `T &&`, where a type names one: a
    /// typedef's or an alias's target (`typedef T &reference;`), a type
    /// template argument (`holder<float &>`, the `T` bound to it). A
    /// declaration of such a type is read as one written with `&`
    /// (`parser::decl::declared_reference`): the parameter, local, member
    /// or return is a reference by its flags, as elsewhere, and its type
    /// is the referent. A reference is never an object: no value, array
    /// element or pointee has this type.
    Ref {
        referent: Box<CType>,
        /// The referred-to object is `const` (`const T &`).
        referent_const: bool,
        referent_volatile: bool,
        /// `&&`: an rvalue reference.
        rvalue: bool,
    },
}

/// The type of a function that a function pointer points to: its result
/// and parameter types (a reference parameter a [`CType::Ref`], an array
/// one decayed).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnType {
    pub ret: CType,
    pub params: Vec<CType>,
}

impl FnType {
    /// `ret (*)(params)`: how C writes a function pointer's type.
    fn write_pointer(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (*)(", self.ret)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        f.write_str(")")
    }
}

/// The two 16-bit float formats of CUDA's `cuda_fp16.h` and `cuda_bf16.h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfFormat {
    /// IEEE binary16 (`__half`): 5 exponent bits, 10 fraction bits.
    F16,
    /// bfloat16 (`__nv_bfloat16`): 8 exponent bits, 7 fraction bits.
    Bf16,
}

impl HalfFormat {
    /// The class name CUDA gives the scalar type (and nvcc mangles).
    pub fn name(self) -> &'static str {
        match self {
            HalfFormat::F16 => "__half",
            HalfFormat::Bf16 => "__nv_bfloat16",
        }
    }
}

impl CType {
    /// C `int`.
    pub const INT: CType = CType::Int {
        bits: 32,
        signed: true,
    };
    /// C `char` (signed, as on x86-64 hosts; `signed char` is this type
    /// spelled apart, `ast::Spelling::SignedChar`).
    pub const CHAR: CType = CType::Int {
        bits: 8,
        signed: true,
    };
    /// C `unsigned int`.
    pub const UINT: CType = CType::Int {
        bits: 32,
        signed: false,
    };
    /// C `long` (also `long long`, `ptrdiff_t`).
    pub const LONG: CType = CType::Int {
        bits: 64,
        signed: true,
    };
    /// C `unsigned long` (also `unsigned long long`, `size_t`).
    pub const ULONG: CType = CType::Int {
        bits: 64,
        signed: false,
    };
    /// C `float`.
    pub const FLOAT: CType = CType::Float { bits: 32 };
    /// C `double`.
    pub const DOUBLE: CType = CType::Float { bits: 64 };

    /// An unqualified pointer to `pointee`.
    pub fn ptr_to(pointee: CType) -> CType {
        CType::Pointer {
            pointee: Box::new(pointee),
            pointee_const: false,
            pointee_volatile: false,
            restrict: false,
        }
    }

    /// Integer types including `bool`.
    pub fn is_integer(&self) -> bool {
        matches!(self, CType::Int { .. } | CType::Bool)
    }

    /// Integer, bool or floating types.
    pub fn is_arithmetic(&self) -> bool {
        matches!(self, CType::Int { .. } | CType::Bool | CType::Float { .. })
    }

    /// Types usable as a condition (arithmetic or pointer).
    pub fn is_scalar(&self) -> bool {
        self.is_arithmetic() || self.is_pointer()
    }

    /// Whether this is a pointer type.
    pub fn is_pointer(&self) -> bool {
        matches!(self, CType::Pointer { .. })
    }

    /// Whether this is a floating type.
    pub fn is_float(&self) -> bool {
        matches!(self, CType::Float { .. })
    }

    /// A pointer to a function: the function's type.
    pub fn fn_pointee(&self) -> Option<&FnType> {
        match self.pointee() {
            Some(CType::Function(f)) => Some(f),
            _ => None,
        }
    }

    /// The type a parameter of this type is passed as: a reference
    /// ([`CType::Ref`], in a function pointer's type) as the pointer to
    /// its referent, anything else as itself.
    pub fn passed_as(&self) -> CType {
        match self {
            CType::Ref {
                referent,
                referent_const,
                referent_volatile,
                ..
            } => CType::Pointer {
                pointee: referent.clone(),
                pointee_const: *referent_const,
                pointee_volatile: *referent_volatile,
                restrict: false,
            },
            other => other.clone(),
        }
    }

    /// Whether this is a pointer to a function.
    pub fn is_fn_pointer(&self) -> bool {
        self.fn_pointee().is_some()
    }

    /// The pointee of a pointer type.
    /// (A stand-in for a class is resolved to the class once defined.)
    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Pointer { pointee, .. } => Some(pointee.resolved()),
            _ => None,
        }
    }

    /// This type, or for a class's stand-in ([`StructDef::incomplete`])
    /// the complete class once defined: what a pointer to a class declared
    /// before its definition (`Node *next;` inside `Node`, `struct Tree;`)
    /// points to.
    pub fn resolved(&self) -> &CType {
        match self {
            CType::Struct(s) => s.completion.get().unwrap_or(self),
            _ => self,
        }
    }

    /// This type with a completed stand-in at its top (or as its arrays'
    /// element) replaced by the class: what a name declared before the
    /// definition (`typedef struct Pt Pt;`, a prototype's `Pt f();`)
    /// means after it, where code reads the class's members directly.
    pub fn completed(&self) -> CType {
        match self {
            CType::Array { elem, len } => CType::Array {
                elem: Box::new(elem.completed()),
                len: *len,
            },
            other => other.resolved().clone(),
        }
    }

    /// A class declared but not defined (yet): C++ allows only pointers
    /// and references to it, no object (nvcc: "incomplete type is not
    /// allowed").
    pub fn is_incomplete(&self) -> bool {
        match self {
            CType::Struct(s) => s.is_incomplete(),
            CType::Array { elem, .. } => elem.is_incomplete(),
            _ => false,
        }
    }

    /// `sizeof` in bytes; `None` for `void`.
    pub fn size(&self) -> Option<u64> {
        match self {
            CType::Void | CType::Function(_) => None,
            // `sizeof(T &)` is `sizeof(T)`.
            CType::Ref { referent, .. } => referent.size(),
            CType::Bool => Some(1),
            CType::Int { bits, .. } | CType::Float { bits } => Some(u64::from(*bits) / 8),
            CType::Pointer { .. } => Some(8),
            CType::Array { elem, len } => elem.size()?.checked_mul((*len)?),
            CType::Struct(s) if s.incomplete => s.completion.get()?.size(),
            CType::Struct(s) => Some(s.size),
            CType::Half(_) => Some(2),
        }
    }

    /// Alignment in bytes (natural alignment; arrays align like elements).
    pub fn align(&self) -> u64 {
        match self {
            CType::Array { elem, .. } | CType::Ref { referent: elem, .. } => elem.align(),
            CType::Struct(s) => s.resolved().align,
            other => other.size().unwrap_or(1).max(1),
        }
    }

    /// Whether this is `__half` or `__nv_bfloat16`.
    pub fn is_half(&self) -> bool {
        matches!(self, CType::Half(_))
    }

    /// Whether this is a struct type.
    pub fn is_struct(&self) -> bool {
        matches!(self, CType::Struct(_))
    }

    /// The struct definition of a struct type.
    pub fn struct_def(&self) -> Option<&StructDef> {
        match self {
            CType::Struct(s) => Some(s.resolved()),
            _ => None,
        }
    }

    /// Whether this is an array type.
    pub fn is_array(&self) -> bool {
        matches!(self, CType::Array { .. })
    }

    /// The innermost non-array element type (`float` for `float[2][3]`).
    pub fn scalar_elem(&self) -> &CType {
        match self {
            CType::Array { elem, .. } => elem.scalar_elem(),
            other => other,
        }
    }

    /// The same type with all pointer qualifiers (at every level) removed;
    /// used to compare pointee types for compatibility.
    pub fn unqualified(&self) -> CType {
        match self {
            CType::Pointer { pointee, .. } => CType::ptr_to(pointee.unqualified()),
            other => other.clone(),
        }
    }

    /// C integer promotion: `bool`, `char` and `short` become `int`;
    /// other types are unchanged.
    pub fn promoted(&self) -> CType {
        match self {
            CType::Bool => CType::INT,
            CType::Int { bits, .. } if *bits < 32 => CType::INT,
            other => other.clone(),
        }
    }
}

/// C "usual arithmetic conversions": the common type of two arithmetic
/// operands. Callers must pass arithmetic types.
pub fn usual_arithmetic(a: &CType, b: &CType) -> CType {
    match (a, b) {
        (CType::Float { bits: x }, CType::Float { bits: y }) => CType::Float { bits: (*x).max(*y) },
        (CType::Float { .. }, _) => a.clone(),
        (_, CType::Float { .. }) => b.clone(),
        _ => {
            let (a, b) = (a.promoted(), b.promoted());
            let (
                CType::Int {
                    bits: ab,
                    signed: asg,
                },
                CType::Int {
                    bits: bb,
                    signed: bsg,
                },
            ) = (&a, &b)
            else {
                return a;
            };
            if asg == bsg {
                return if ab >= bb { a.clone() } else { b.clone() };
            }
            let (u_bits, s_bits, u, s) = if *asg {
                (*bb, *ab, &b, &a)
            } else {
                (*ab, *bb, &a, &b)
            };
            if u_bits >= s_bits {
                u.clone()
            } else {
                // The signed type is wider, so it represents every value of the
                // unsigned one (LP64: `long` holds all `unsigned int`).
                s.clone()
            }
        }
    }
}

impl fmt::Display for CType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CType::Void => f.write_str("void"),
            CType::Bool => f.write_str("bool"),
            CType::Int { bits, signed } => {
                let name = match bits {
                    8 => "char",
                    16 => "short",
                    32 => "int",
                    _ => "long",
                };
                match (bits, signed) {
                    (8, true) => f.write_str("char"),
                    (_, true) => f.write_str(name),
                    (_, false) => write!(f, "unsigned {name}"),
                }
            }
            CType::Array { .. } => {
                // `float[2][3]`: the outer length is written first.
                let mut dims = String::new();
                let mut t = self;
                while let CType::Array { elem, len } = t {
                    match len {
                        Some(n) => dims.push_str(&format!("[{n}]")),
                        None => dims.push_str("[]"),
                    }
                    t = elem;
                }
                write!(f, "{t}{dims}")
            }
            // CUDA is C++: a struct is named without the `struct` keyword.
            CType::Struct(s) if s.name.is_empty() => f.write_str("(anonymous struct)"),
            CType::Struct(s) => f.write_str(&s.name),
            CType::Half(h) => f.write_str(h.name()),
            CType::Function(t) => {
                write!(f, "{} (", t.ret)?;
                for (i, p) in t.params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_str(")")
            }
            CType::Float { bits: 32 } => f.write_str("float"),
            CType::Float { .. } => f.write_str("double"),
            CType::Ref {
                referent,
                referent_const,
                referent_volatile,
                rvalue,
            } => {
                let quals = match (referent_const, referent_volatile) {
                    (true, true) => "const volatile ",
                    (true, false) => "const ",
                    (false, true) => "volatile ",
                    (false, false) => "",
                };
                let amp = if *rvalue { "&&" } else { "&" };
                write!(f, "{quals}{referent} {amp}")
            }
            CType::Pointer {
                pointee,
                pointee_const,
                pointee_volatile,
                restrict,
            } => {
                if let CType::Function(t) = &**pointee {
                    return t.write_pointer(f);
                }
                let quals = match (pointee_const, pointee_volatile) {
                    (true, true) => "const volatile ",
                    (true, false) => "const ",
                    (false, true) => "volatile ",
                    (false, false) => "",
                };
                if pointee.is_pointer() {
                    write!(f, "{pointee}{quals}*")?;
                } else {
                    write!(f, "{quals}{pointee} *")?;
                }
                if *restrict {
                    f.write_str(" __restrict__")?;
                }
                Ok(())
            }
        }
    }
}
