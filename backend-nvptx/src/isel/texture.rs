//! Selection of texture fetches (`tex`) and surface accesses (`suld.b`,
//! `sust.b`), in the forms nvcc writes for CUDA's texture and surface
//! object functions: `tex.2d.v4.f32.f32 {..}, [%rd1, {%f1, %f2}]`,
//! `suld.b.2d.b32.trap {%r1}, [%rd1, {%r2, %r3}]`.

use super::{Isel, IselResult};
use crate::minst::{AccelArg, MInst, Reg};
use midend::ir::{AccelOp, SurfOp, TexLod, TexOp, Value};

/// The coordinate vector of an address: PTX takes one, two or four
/// elements, so a three-element one repeats its last (as nvcc pads it).
fn padded(mut coords: Vec<Reg>) -> Vec<Reg> {
    if coords.len() == 3 {
        coords.push(coords[2]);
    }
    coords
}

impl Isel<'_> {
    /// `tex`, `suld` or `sust`; other operations are not asked here.
    pub(super) fn texture(
        &mut self,
        op: AccelOp,
        args: &[Value],
        results: &[Value],
    ) -> IselResult<()> {
        let (name, out) = match op {
            AccelOp::Tex(t) => self.tex(t, args, results)?,
            AccelOp::Suld(s) => {
                let defs = results.iter().map(|&v| self.def(v)).collect();
                let addr = self.surface_address(s, args)?;
                (
                    format!("suld.b.{}", surface_suffix(s)),
                    vec![AccelArg::DefVec(defs), addr],
                )
            }
            AccelOp::Sust(s) => {
                let at = 1 + s.address_len();
                let addr = self.surface_address(s, &args[..at])?;
                let vals = args[at..]
                    .iter()
                    .map(|&v| self.reg(v))
                    .collect::<IselResult<_>>()?;
                (
                    format!("sust.b.{}", surface_suffix(s)),
                    vec![addr, AccelArg::UseVec(vals)],
                )
            }
            other => return Err(super::error::Malformed::SelectedElsewhere(other.opcode()).into()),
        };
        self.emit(MInst::Accel {
            op: name,
            args: out,
        });
        Ok(())
    }

    fn tex(
        &mut self,
        t: TexOp,
        args: &[Value],
        results: &[Value],
    ) -> IselResult<(String, Vec<AccelArg>)> {
        let handle = self.reg(args[0])?;
        let ncoords = usize::from(t.geom.layered()) + t.geom.dims();
        let coords = args[1..1 + ncoords]
            .iter()
            .map(|&v| self.reg(v))
            .collect::<IselResult<Vec<_>>>()?;
        let extra = args[1 + ncoords..]
            .iter()
            .map(|&v| self.reg(v))
            .collect::<IselResult<Vec<_>>>()?;
        let defs = results.iter().map(|&v| self.def(v)).collect();
        let mut out = vec![
            AccelArg::DefVec(defs),
            AccelArg::TensorAddr {
                map: handle,
                coords: padded(coords),
            },
        ];
        let lod = match t.lod {
            TexLod::Base => "",
            TexLod::Level => {
                out.push(AccelArg::Use(extra[0].into()));
                ".level"
            }
            TexLod::Grad => {
                let (dx, dy) = extra.split_at(extra.len() / 2);
                out.push(AccelArg::UseVec(padded(dx.to_vec())));
                out.push(AccelArg::UseVec(padded(dy.to_vec())));
                ".grad"
            }
        };
        let name = format!(
            "tex{lod}.{}.v4.{}.{}",
            t.geom.ptx(),
            t.dty.name(),
            t.cty.name()
        );
        Ok((name, out))
    }

    /// `[%rd1, {%r1, %r2}]`: the handle and the coordinates (a layered
    /// access's layer first: `[%rd1, {%r3, %r1, %r2, %r2}]`).
    fn surface_address(&mut self, s: SurfOp, args: &[Value]) -> IselResult<AccelArg> {
        let map = self.reg(args[0])?;
        let coords = args[1..1 + s.address_len()]
            .iter()
            .map(|&v| self.reg(v))
            .collect::<IselResult<Vec<_>>>()?;
        Ok(AccelArg::TensorAddr {
            map,
            coords: padded(coords),
        })
    }
}

/// `2d.v4.b8.clamp`, `a1d.b32.trap`: the geometry, the vector, the size
/// and the mode.
fn surface_suffix(s: SurfOp) -> String {
    let v = if s.vec == 1 {
        String::new()
    } else {
        format!(".v{}", s.vec)
    };
    format!("{}{v}.b{}.{}", s.geom.ptx(), s.bits, s.mode.name())
}
