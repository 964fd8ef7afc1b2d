//! `tex`, `suld.b` and `sust.b` against the launch's texture model
//! (`stdx::texture`): the handle names a resource the arguments bound.

use super::{arg, e, Exec, Flow, Thread, R};
use crate::decode::texture::{Surf, Tex};
use crate::program::{Inst, Kind, Operand, Ty};
use crate::FaultKind;
use stdx::texture::Coords;

/// The elements of a scalar or `{...}` vector operand.
fn elements(o: &Operand) -> &[Operand] {
    match o {
        Operand::Vector(items) => items,
        o => std::slice::from_ref(o),
    }
}

impl Exec<'_> {
    /// The resource a `[%rd, {...}]` operand names and its coordinates.
    fn object<'o>(&self, t: &Thread, o: &'o Operand) -> R<(usize, &'o [Operand])> {
        let Operand::Handle(base, coords) = o else {
            return Err(e(FaultKind::Unsupported, "not a texture or surface object"));
        };
        let handle = self.get(t, base, Ty::B64)?;
        let k = stdx::texture::resource(&self.setup.textures, handle)
            .map_err(|m| e(FaultKind::OutOfBounds, m))?;
        Ok((k, coords))
    }

    pub(super) fn tex(&mut self, t: &mut Thread, inst: &Inst, x: Tex) -> R<Flow> {
        let (k, coords) = self.object(t, arg(inst, 1)?)?;
        let res = &self.setup.textures[k];
        if res.returns_floats() != x.float {
            let (has, asks) = if x.float {
                ("integers", "floats")
            } else {
                ("floats", "integers")
            };
            let msg =
                format!("the texture's elements read as {has}, but the fetch asks for {asks}");
            return Err(e(FaultKind::Unsupported, msg));
        }
        let at = if x.int_coords {
            Coords::Index(self.get(t, &coords[0], Ty::S32)? as u32 as i32)
        } else {
            let (layer, rest) = if x.layered {
                let l = self.get(t, &coords[0], Ty::S32)? as u32 as i32;
                (Some(l), &coords[1..])
            } else {
                (None, coords)
            };
            let mut c = [0f32; 3];
            for (d, o) in rest.iter().take(x.dims).enumerate() {
                c[d] = f32::from_bits(self.get(t, o, Ty::S32)? as u32);
            }
            Coords::Float {
                c,
                dims: x.dims,
                layer,
            }
        };
        let texel = self.setup.textures[k].fetch(at);
        let ty = Ty {
            kind: if x.float { Kind::F } else { Kind::B },
            bits: 32,
        };
        for (d, v) in elements(arg(inst, 0)?).iter().zip(texel) {
            self.set(t, d, u64::from(v), ty)?;
        }
        Ok(Flow::Next)
    }

    pub(super) fn surf(&mut self, t: &mut Thread, inst: &Inst, s: Surf) -> R<Flow> {
        let (k, coords) = self.object(t, arg(inst, usize::from(!s.store))?)?;
        let (layer, coords) = match coords {
            [l, rest @ ..] if s.layered => (Some(self.get(t, l, Ty::S32)? as u32 as i32), rest),
            _ => (None, coords),
        };
        let mut at = Vec::new();
        for o in coords.iter().take(s.dims) {
            at.push(self.get(t, o, Ty::S32)? as u32 as i32);
        }
        let size = s.vec * (s.bits as usize / 8);
        let off = self.setup.textures[k]
            .surface_offset(&at, layer, size, s.mode)
            .map_err(|m| e(FaultKind::OutOfBounds, m))?;
        let ty = Ty {
            kind: Kind::B,
            bits: s.bits,
        };
        let n = s.bits as usize / 8;
        if s.store {
            let Some(off) = off else {
                return Ok(Flow::Next);
            };
            for (i, o) in elements(arg(inst, 1)?).iter().enumerate().take(s.vec) {
                let v = self.get(t, o, ty)?;
                let at = off + i * n;
                self.setup.textures[k].data[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
            }
        } else {
            for (i, d) in elements(arg(inst, 0)?).iter().enumerate().take(s.vec) {
                let v = match off {
                    None => 0,
                    Some(off) => {
                        let mut raw = [0u8; 8];
                        let at = off + i * n;
                        raw[..n].copy_from_slice(&self.setup.textures[k].data[at..at + n]);
                        u64::from_le_bytes(raw)
                    }
                };
                self.set(t, d, v, ty)?;
            }
        }
        Ok(Flow::Next)
    }
}
