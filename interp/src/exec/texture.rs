//! `tex`, `suld` and `sust` against the launch's texture model
//! (`stdx::texture`), as the PTX emulator runs them: the handle names a
//! resource the arguments bound.

use super::Exec;
use crate::FaultKind;
use midend::ir::{AccelOp, SurfMode, SurfOp, TexOp, TexType};
use stdx::texture::{Boundary, Coords};

type Fail = (String, FaultKind);

fn boundary(m: SurfMode) -> Boundary {
    match m {
        SurfMode::Trap => Boundary::Trap,
        SurfMode::Clamp => Boundary::Clamp,
        SurfMode::Zero => Boundary::Zero,
    }
}

impl Exec<'_> {
    fn texture_index(&self, handle: u64) -> Result<usize, Fail> {
        stdx::texture::resource(&self.textures, handle)
            .map_err(|m| (m.to_string(), FaultKind::OutOfBounds))
    }

    /// The four components of a fetch, as the results' bits.
    pub(super) fn tex(&self, x: TexOp, argv: &[u64]) -> Result<Vec<u64>, Fail> {
        let k = self.texture_index(argv[0])?;
        let res = &self.textures[k];
        let float = x.dty == TexType::F32;
        if res.returns_floats() != float {
            let (has, asks) = if float {
                ("integers", "floats")
            } else {
                ("floats", "integers")
            };
            let msg =
                format!("the texture's elements read as {has}, but the fetch asks for {asks}");
            return Err((msg, FaultKind::Unsupported));
        }
        let at = if x.cty == TexType::S32 {
            Coords::Index(argv[1] as u32 as i32)
        } else {
            let (layer, rest) = if x.geom.layered() {
                (Some(argv[1] as u32 as i32), &argv[2..])
            } else {
                (None, &argv[1..])
            };
            let mut c = [0f32; 3];
            for (d, &v) in rest.iter().take(x.geom.dims()).enumerate() {
                c[d] = f32::from_bits(v as u32);
            }
            Coords::Float {
                c,
                dims: x.geom.dims(),
                layer,
            }
        };
        Ok(res.fetch(at).iter().map(|&v| u64::from(v)).collect())
    }

    /// A surface read's elements, or a write's (no results).
    pub(super) fn surface(
        &mut self,
        op: AccelOp,
        s: SurfOp,
        argv: &[u64],
    ) -> Result<Vec<u64>, Fail> {
        let k = self.texture_index(argv[0])?;
        let address = &argv[1..1 + s.address_len()];
        let (layer, coords) = if s.geom.layered() {
            (Some(address[0] as u32 as i32), &address[1..])
        } else {
            (None, address)
        };
        let coords: Vec<i32> = coords.iter().map(|&v| v as u32 as i32).collect();
        let n = usize::from(s.bits / 8);
        let size = usize::from(s.vec) * n;
        let off = self.textures[k]
            .surface_offset(&coords, layer, size, boundary(s.mode))
            .map_err(|m| (m, FaultKind::OutOfBounds))?;
        let data = &mut self.textures[k].data;
        if matches!(op, AccelOp::Sust(_)) {
            if let Some(off) = off {
                for (i, v) in argv[1 + s.address_len()..].iter().enumerate() {
                    let at = off + i * n;
                    data[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
                }
            }
            return Ok(Vec::new());
        }
        Ok((0..usize::from(s.vec))
            .map(|i| match off {
                None => 0,
                Some(off) => {
                    let mut raw = [0u8; 8];
                    let at = off + i * n;
                    raw[..n].copy_from_slice(&data[at..at + n]);
                    u64::from_le_bytes(raw)
                }
            })
            .collect())
    }
}
