//! C types as the frontend understands them (LP64 data model).
//!
//! One type representation is shared by the syntax tree (casts, declarations)
//! and the typed tree: typedef names are replaced while parsing, so a base
//! type is known as soon as its specifiers are parsed.

use std::fmt;

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
}

impl CType {
    /// C `int`.
    pub const INT: CType = CType::Int {
        bits: 32,
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

    /// The pointee of a pointer type.
    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Pointer { pointee, .. } => Some(pointee),
            _ => None,
        }
    }

    /// `sizeof` in bytes; `None` for `void`.
    pub fn size(&self) -> Option<u64> {
        match self {
            CType::Void => None,
            CType::Bool => Some(1),
            CType::Int { bits, .. } | CType::Float { bits } => Some(u64::from(*bits) / 8),
            CType::Pointer { .. } => Some(8),
            CType::Array { elem, len } => elem.size()?.checked_mul((*len)?),
        }
    }

    /// Alignment in bytes (natural alignment; arrays align like elements).
    pub fn align(&self) -> u64 {
        match self {
            CType::Array { elem, .. } => elem.align(),
            other => other.size().unwrap_or(1).max(1),
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
            CType::Float { bits: 32 } => f.write_str("float"),
            CType::Float { .. } => f.write_str("double"),
            CType::Pointer {
                pointee,
                pointee_const,
                pointee_volatile,
                restrict,
            } => {
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
