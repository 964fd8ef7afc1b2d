//! Texture fetches and surface accesses: the `tex`, `suld` and `sust`
//! operations of the `accel` format.
//!
//! A texture or surface object is a 64-bit handle (CUDA's
//! `cudaTextureObject_t` and `cudaSurfaceObject_t`) that names a resource
//! the host described: an array of elements with a format and, for a
//! texture, how coordinates address it and how texels are filtered. None of
//! that is in the IR: an operation says only the geometry, the types of the
//! coordinates and of the result, and for a surface the access width and
//! what an out-of-range coordinate does. The engines look the rest up in
//! their texture model by the handle.

use super::instructions::Opcode;
use super::types::Type;
use core::fmt;

/// How many coordinates address a texture or surface and whether it is
/// layered (`1d`, `2d`, `3d`, `a1d`, `a2d` in PTX's `tex`, `suld` and
/// `sust`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TexGeom {
    D1,
    D2,
    D3,
    /// A layered 1-D array: an `i32` layer, then one coordinate.
    A1,
    /// A layered 2-D array: an `i32` layer, then two coordinates.
    A2,
}

impl TexGeom {
    pub const ALL: [TexGeom; 5] = [
        TexGeom::D1,
        TexGeom::D2,
        TexGeom::D3,
        TexGeom::A1,
        TexGeom::A2,
    ];

    /// The IR word (the lexer would split `2d`).
    pub fn word(self) -> &'static str {
        match self {
            TexGeom::D1 => "dim1",
            TexGeom::D2 => "dim2",
            TexGeom::D3 => "dim3",
            TexGeom::A1 => "layered1",
            TexGeom::A2 => "layered2",
        }
    }

    /// The PTX geometry (`2d`, `a1d`).
    pub fn ptx(self) -> &'static str {
        match self {
            TexGeom::D1 => "1d",
            TexGeom::D2 => "2d",
            TexGeom::D3 => "3d",
            TexGeom::A1 => "a1d",
            TexGeom::A2 => "a2d",
        }
    }

    /// The coordinates within one layer.
    pub fn dims(self) -> usize {
        match self {
            TexGeom::D1 | TexGeom::A1 => 1,
            TexGeom::D2 | TexGeom::A2 => 2,
            TexGeom::D3 => 3,
        }
    }

    pub fn layered(self) -> bool {
        matches!(self, TexGeom::A1 | TexGeom::A2)
    }
}

/// The type of a fetch's four results (`f32`: the texel as floats, also
/// for a texture read as normalized floats) or of its coordinates (`f32`,
/// or `s32` for `tex1Dfetch`'s element index).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TexType {
    F32,
    S32,
    U32,
}

impl TexType {
    pub fn name(self) -> &'static str {
        match self {
            TexType::F32 => "f32",
            TexType::S32 => "s32",
            TexType::U32 => "u32",
        }
    }

    fn from_name(w: &str) -> Option<TexType> {
        [TexType::F32, TexType::S32, TexType::U32]
            .into_iter()
            .find(|t| t.name() == w)
    }

    /// The IR type of a value of this type.
    pub fn ir(self) -> Type {
        match self {
            TexType::F32 => Type::F32,
            TexType::S32 | TexType::U32 => Type::I32,
        }
    }
}

/// Which level of detail a fetch reads: the base one, an explicit one
/// (`tex.level`, one `f32` operand), or the one gradients choose
/// (`tex.grad`, `dims` of d/dx then `dims` of d/dy).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TexLod {
    Base,
    Level,
    Grad,
}

/// `v0, v1, v2, v3 = tex dim2 f32 f32 h, x, y`: one texel (four
/// components) of the texture `h` at the coordinates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct TexOp {
    pub geom: TexGeom,
    pub lod: TexLod,
    /// The results' type.
    pub dty: TexType,
    /// The coordinates' type (a layer index is `i32` always).
    pub cty: TexType,
}

impl TexOp {
    pub fn result_types(self) -> Vec<Type> {
        vec![self.dty.ir(); 4]
    }

    /// The handle, the layer (layered), the coordinates, then the level
    /// or the gradients.
    pub fn operand_types(self) -> Vec<Type> {
        let mut v = vec![Type::I64];
        if self.geom.layered() {
            v.push(Type::I32);
        }
        v.extend(vec![self.cty.ir(); self.geom.dims()]);
        match self.lod {
            TexLod::Base => {}
            TexLod::Level => v.push(Type::F32),
            TexLod::Grad => v.extend(vec![Type::F32; 2 * self.geom.dims()]),
        }
        v
    }

    pub fn modifiers(self) -> Vec<String> {
        let mut v = vec![self.geom.word().to_string()];
        match self.lod {
            TexLod::Base => {}
            TexLod::Level => v.push("level".into()),
            TexLod::Grad => v.push("grad".into()),
        }
        v.push(self.dty.name().into());
        v.push(self.cty.name().into());
        v
    }

    pub fn from_modifiers(words: &[&str]) -> Result<TexOp, TexModifierError> {
        let (geom, rest) = match words.split_first() {
            Some((g, rest)) => (
                TexGeom::ALL
                    .into_iter()
                    .find(|x| x.word() == *g)
                    .ok_or_else(|| TexModifierError::word(TexWord::Geometry, g))?,
                rest,
            ),
            None => return Err(TexModifierError::NoGeometry),
        };
        let (lod, rest) = match rest {
            ["level", rest @ ..] => (TexLod::Level, rest),
            ["grad", rest @ ..] => (TexLod::Grad, rest),
            _ => (TexLod::Base, rest),
        };
        let [d, c] = rest else {
            return Err(TexModifierError::Types);
        };
        let ty =
            |w: &str| TexType::from_name(w).ok_or_else(|| TexModifierError::word(TexWord::Type, w));
        Ok(TexOp {
            geom,
            lod,
            dty: ty(d)?,
            cty: ty(c)?,
        })
    }

    /// A combination PTX has no instruction for.
    pub fn modifier_error(self) -> Option<String> {
        if self.cty == TexType::U32 {
            return Some("tex: coordinates are f32 or s32".into());
        }
        if self.lod != TexLod::Base && self.cty != TexType::F32 {
            return Some("tex: a level or gradient fetch takes f32 coordinates".into());
        }
        None
    }
}

/// How a surface access treats a coordinate outside the array: `trap`
/// (an error, nvcc's default), `clamp` (the nearest element) or `zero`
/// (reads give zero, writes are dropped).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SurfMode {
    Trap,
    Clamp,
    Zero,
}

impl SurfMode {
    pub fn name(self) -> &'static str {
        match self {
            SurfMode::Trap => "trap",
            SurfMode::Clamp => "clamp",
            SurfMode::Zero => "zero",
        }
    }
}

/// `v0 = suld dim2 x1 b32 trap h, x, y` and `sust dim2 x1 b32 trap h, x,
/// y, v`: `vec` elements (`xN`, not `vN`, which names a value) of `bits`
/// bits at the coordinates (the first in bytes, the others in elements) of
/// the surface `h`; a layered one (`layered2`) takes its `i32` layer
/// before them, as PTX does.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct SurfOp {
    /// The coordinates, and whether a layer comes first.
    pub geom: TexGeom,
    /// 1, 2 or 4 elements.
    pub vec: u8,
    /// 8, 16, 32 or 64 bits each.
    pub bits: u8,
    pub mode: SurfMode,
}

impl SurfOp {
    /// The IR type of one element.
    pub fn elem(self) -> Type {
        match self.bits {
            8 => Type::I8,
            16 => Type::I16,
            64 => Type::I64,
            _ => Type::I32,
        }
    }

    /// The handle, the layer (layered), then the coordinates.
    pub fn address_types(self) -> Vec<Type> {
        let mut v = vec![Type::I64];
        v.extend(vec![Type::I32; self.address_len()]);
        v
    }

    /// How many `i32` operands address the element: the layer, if any,
    /// and the coordinates.
    pub fn address_len(self) -> usize {
        usize::from(self.geom.layered()) + self.geom.dims()
    }

    pub fn modifiers(self) -> Vec<String> {
        vec![
            self.geom.word().to_string(),
            format!("x{}", self.vec),
            format!("b{}", self.bits),
            self.mode.name().into(),
        ]
    }

    /// Reads the modifiers of `op` (`suld` or `sust`).
    pub fn from_modifiers(op: Opcode, words: &[&str]) -> Result<SurfOp, TexModifierError> {
        let [d, v, b, m] = words else {
            return Err(TexModifierError::SurfaceCount { op });
        };
        let num = |w: &str, prefix: char, ok: &[u8]| {
            w.strip_prefix(prefix)
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| ok.contains(n))
                .ok_or_else(|| TexModifierError::SurfaceModifier {
                    op,
                    found: w.to_string(),
                })
        };
        let mode = [SurfMode::Trap, SurfMode::Clamp, SurfMode::Zero]
            .into_iter()
            .find(|x| x.name() == *m)
            .ok_or_else(|| TexModifierError::word(TexWord::SurfMode, m))?;
        let geom = TexGeom::ALL
            .into_iter()
            .find(|g| g.word() == *d)
            .ok_or_else(|| TexModifierError::word(TexWord::SurfDims, d))?;
        Ok(SurfOp {
            geom,
            vec: num(v, 'x', &[1, 2, 4])?,
            bits: num(b, 'b', &[8, 16, 32, 64])?,
            mode,
        })
    }

    /// A combination PTX has no instruction for.
    pub fn modifier_error(self) -> Option<String> {
        let valid_vec = matches!(self.vec, 1 | 2 | 4);
        let valid_bits = matches!(self.bits, 8 | 16 | 32 | 64);
        if !valid_vec || !valid_bits {
            return Some("a surface access moves 1, 2 or 4 elements of 8 to 64 bits".into());
        }
        if u32::from(self.vec) * u32::from(self.bits) > 128 {
            return Some("a surface access moves at most 128 bits".into());
        }
        None
    }
}

/// Why the modifiers of `tex`, `suld` or `sust` do not read; `Display`
/// is the message the IR parser reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TexModifierError {
    /// A word where the words `expected` names belong.
    Word { expected: TexWord, found: String },
    /// `tex` without modifiers.
    NoGeometry,
    /// `tex` without exactly two types after its geometry (and `level` or
    /// `grad`).
    Types,
    /// A surface access (`op`) without its four modifiers.
    SurfaceCount { op: Opcode },
    /// A vector width or size that the surface access `op` does not take.
    SurfaceModifier { op: Opcode, found: String },
}

impl TexModifierError {
    fn word(expected: TexWord, found: &str) -> TexModifierError {
        TexModifierError::Word {
            expected,
            found: found.to_string(),
        }
    }
}

impl fmt::Display for TexModifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TexModifierError::Word { expected, found } => {
                write!(f, "expected {expected}, found '{found}'")
            }
            TexModifierError::NoGeometry => f.write_str("'tex' takes a geometry and two types"),
            TexModifierError::Types => {
                f.write_str("'tex' takes a result type and a coordinate type")
            }
            TexModifierError::SurfaceCount { op } => write!(
                f,
                "'{op}' takes a geometry, a vector width, a size and a mode"
            ),
            TexModifierError::SurfaceModifier { op, found } => {
                write!(f, "'{op}': unexpected modifier '{found}'")
            }
        }
    }
}

impl std::error::Error for TexModifierError {}

/// The words a texture or surface modifier may be; `Display` lists them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TexWord {
    /// `1d`, `2d`, ... ([`TexGeom`]).
    Geometry,
    /// `f32`, `s32` or `u32`.
    Type,
    /// `trap`, `clamp` or `zero`.
    SurfMode,
    /// `dim1`, `dim2`, `dim3`, `layered1` or `layered2` (a surface's
    /// [`TexGeom`]).
    SurfDims,
}

impl fmt::Display for TexWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TexWord::Geometry => "a texture geometry",
            TexWord::Type => "'f32', 's32' or 'u32'",
            TexWord::SurfMode => "'trap', 'clamp' or 'zero'",
            TexWord::SurfDims => "'dim1', 'dim2', 'dim3', 'layered1' or 'layered2'",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifiers_round_trip() {
        for geom in TexGeom::ALL {
            for lod in [TexLod::Base, TexLod::Level, TexLod::Grad] {
                let op = TexOp {
                    geom,
                    lod,
                    dty: TexType::U32,
                    cty: TexType::F32,
                };
                let words = op.modifiers();
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                assert_eq!(TexOp::from_modifiers(&words), Ok(op));
            }
        }
        for geom in TexGeom::ALL {
            let op = SurfOp {
                geom,
                vec: 4,
                bits: 8,
                mode: SurfMode::Zero,
            };
            let words = op.modifiers();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            assert_eq!(SurfOp::from_modifiers(Opcode::Suld, &words), Ok(op));
            assert!(SurfOp { bits: 64, ..op }.modifier_error().is_some());
        }
    }

    #[test]
    fn bad_modifiers_give_their_kind_and_message() {
        let geom = TexOp::from_modifiers(&["4d", "f32", "f32"]).unwrap_err();
        assert_eq!(
            geom,
            TexModifierError::Word {
                expected: TexWord::Geometry,
                found: "4d".into()
            }
        );
        assert_eq!(geom.to_string(), "expected a texture geometry, found '4d'");
        assert_eq!(
            TexOp::from_modifiers(&["dim2", "f32"]),
            Err(TexModifierError::Types)
        );
        let width = SurfOp::from_modifiers(Opcode::Sust, &["dim2", "x3", "b32", "trap"]);
        assert_eq!(
            width,
            Err(TexModifierError::SurfaceModifier {
                op: Opcode::Sust,
                found: "x3".into()
            })
        );
        assert_eq!(
            width.unwrap_err().to_string(),
            "'sust': unexpected modifier 'x3'"
        );
        assert_eq!(
            SurfOp::from_modifiers(Opcode::Suld, &["dim2"]),
            Err(TexModifierError::SurfaceCount { op: Opcode::Suld })
        );
    }
}
