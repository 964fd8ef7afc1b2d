//! Decoding of the texture and surface instructions: `tex` (with `.level`
//! and `.grad`) and `suld.b`/`sust.b`, on texture and surface objects
//! (`[%rd, {coords}]`, the handle a 64-bit register).

use super::{Op, Parts};
use crate::error::DecodeError;
use crate::program::{Kind, Operand};
use stdx::texture::Boundary;

/// A decoded `tex`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tex {
    /// Coordinates within a layer (1 to 3).
    pub dims: usize,
    pub layered: bool,
    /// `.level` (one more operand) or `.grad` (two vectors).
    pub level: bool,
    pub grad: bool,
    /// The results are `.f32` (else `.s32`/`.u32`).
    pub float: bool,
    /// `.s32` coordinates (`tex1Dfetch`'s index).
    pub int_coords: bool,
}

/// A decoded `suld.b` or `sust.b`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Surf {
    pub store: bool,
    /// Coordinates within a layer (1 to 3).
    pub dims: usize,
    /// `.a1d`/`.a2d`: the layer comes before the coordinates.
    pub layered: bool,
    pub vec: usize,
    pub bits: u32,
    pub mode: Boundary,
}

fn handle_shape(p: &Parts, k: usize) -> Result<(), DecodeError> {
    match p.args.get(k) {
        Some(Operand::Handle(base, _)) if matches!(**base, Operand::Reg(_)) => Ok(()),
        _ => Err(super::unsupported(format!(
            "operand {} of `{}` (not a texture or surface object `[%rd, {{...}}]`)",
            k + 1,
            p.name
        ))),
    }
}

/// Decodes `p` if it is one of this module's instructions.
pub(super) fn decode(p: &Parts) -> Result<Option<Op>, DecodeError> {
    Ok(Some(match p.opcode {
        "tex" => Op::Tex(tex(p)?),
        "suld" | "sust" => Op::Surf(surf(p)?),
        _ => return Ok(None),
    }))
}

/// The geometries of `tex`, `suld` and `sust`: the modifier, its number
/// of coordinates and whether it is layered (an array of images, the
/// layer an operand of its own).
const GEOMETRIES: &[(&str, (usize, bool))] = &[
    ("1d", (1, false)),
    ("2d", (2, false)),
    ("3d", (3, false)),
    ("a1d", (1, true)),
    ("a2d", (2, true)),
];

fn tex(p: &Parts) -> Result<Tex, DecodeError> {
    let (dims, layered) = p.mods.first_of(GEOMETRIES).ok_or_else(|| p.unsupported())?;
    let types = p.mods.types();
    let [d, c] = types[..] else {
        return Err(p.unsupported());
    };
    let ok_d = d.bits == 32 && matches!(d.kind, Kind::F | Kind::S | Kind::U);
    let ok_c = c.bits == 32 && matches!(c.kind, Kind::F | Kind::S);
    if !p.mods.has(".v4") || !ok_d || !ok_c {
        return Err(p.unsupported());
    }
    handle_shape(p, 1)?;
    Ok(Tex {
        dims,
        layered,
        level: p.mods.has(".level"),
        grad: p.mods.has(".grad"),
        float: d.kind == Kind::F,
        int_coords: c.kind == Kind::S,
    })
}

fn surf(p: &Parts) -> Result<Surf, DecodeError> {
    let store = p.opcode == "sust";
    let (dims, layered) = p.mods.first_of(GEOMETRIES).ok_or_else(|| p.unsupported())?;
    let vec = p.mods.first_of(&[("v2", 2), ("v4", 4)]).unwrap_or(1);
    let ty = p.mods.last_type().ok_or_else(|| p.unsupported())?;
    if !p.mods.has(".b") || ty.kind != Kind::B || ty.bits > 64 {
        return Err(p.unsupported());
    }
    let mode = p
        .mods
        .first_of(&[
            ("trap", Boundary::Trap),
            ("clamp", Boundary::Clamp),
            ("zero", Boundary::Zero),
        ])
        .unwrap_or(Boundary::Trap);
    handle_shape(p, usize::from(!store))?;
    Ok(Surf {
        store,
        dims,
        layered,
        vec,
        bits: ty.bits,
        mode,
    })
}
