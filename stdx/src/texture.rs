//! The texture model both engines run `tex`, `suld` and `sust` against.
//!
//! A texture or surface object is a 64-bit handle; here handle `k + 1`
//! names the `k`-th [`Resource`] of a launch (0 is no object). A resource
//! is an array of elements (1-D, 2-D or 3-D, maybe layered) with a
//! [`Format`], and the sampler state a texture descriptor gives it:
//! addressing, filtering, normalized coordinates and read mode. Fetches
//! follow the CUDA programming guide's appendix on texture fetching:
//! nearest-point sampling takes the texel `floor(x)`, linear filtering
//! blends the texels around `x - 0.5` with weights held in 9-bit fixed
//! point (8 fractional bits), and addressing decides what an index outside
//! the array reads. The model has one level of detail, so a level or
//! gradient fetch reads the base level. A component the format lacks reads
//! as 0.

/// What an element's channels hold.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    Float,
    Signed,
    Unsigned,
}

/// An element: `channels` (1, 2 or 4) of `bits` (8, 16 or 32; floats 32).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Format {
    pub kind: Kind,
    pub bits: u8,
    pub channels: u8,
}

impl Format {
    /// Bytes of one element.
    pub fn size(self) -> usize {
        usize::from(self.bits / 8) * usize::from(self.channels)
    }
}

/// What an index outside the array reads (`cudaAddressMode*`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Address {
    Clamp,
    Border,
    Wrap,
    Mirror,
}

/// A texture or surface resource with its sampler state.
#[derive(Clone, PartialEq, Debug)]
pub struct Resource {
    pub format: Format,
    /// Width, height, depth in elements (1 where unused).
    pub extent: [u32; 3],
    /// Layers of a layered array (0: not layered).
    pub layers: u32,
    /// The elements, row by row, then slice by slice, then layer by layer.
    pub data: Vec<u8>,
    pub address: Address,
    /// Linear filtering (else nearest point).
    pub linear: bool,
    /// Coordinates in `[0, 1)` span the array.
    pub normalized: bool,
    /// `cudaReadModeNormalizedFloat`: 8- and 16-bit integers read as
    /// floats in `[0, 1]` (`[-1, 1]` signed).
    pub read_normalized: bool,
}

/// How a fetch addresses the resource.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum Coords {
    /// `tex1Dfetch`: an element index, never filtered; outside reads 0.
    Index(i32),
    /// Float coordinates (1 to 3) and a layer.
    Float {
        c: [f32; 3],
        dims: usize,
        layer: Option<i32>,
    },
}

impl Resource {
    fn texel_count(&self) -> usize {
        self.extent.iter().map(|&e| e as usize).product::<usize>() * self.layers.max(1) as usize
    }

    /// Whether the data holds exactly the elements the extent says.
    pub fn check(&self) -> Result<(), TextureError> {
        let needs = self.texel_count() * self.format.size();
        if self.data.len() != needs {
            return Err(TextureError::DataSize {
                bytes: self.data.len(),
                needs,
            });
        }
        Ok(())
    }

    /// Whether a fetch returns floats (float elements, or integers read as
    /// normalized floats) rather than integers.
    pub fn returns_floats(&self) -> bool {
        self.format.kind == Kind::Float || (self.read_normalized && self.format.bits < 32)
    }

    /// Channel `ch` of element `index` as the fetch returns it: an `f32`
    /// or an integer, as bits.
    fn channel_value(&self, index: usize, ch: usize) -> Texel {
        if ch >= usize::from(self.format.channels) {
            return Texel::Bits(0);
        }
        let b = usize::from(self.format.bits / 8);
        let at = index * self.format.size() + ch * b;
        let mut raw = [0u8; 4];
        raw[..b].copy_from_slice(&self.data[at..at + b]);
        let u = u32::from_le_bytes(raw);
        let bits = u32::from(self.format.bits);
        match self.format.kind {
            Kind::Float => Texel::Float(f32::from_bits(u)),
            Kind::Unsigned if self.returns_floats() => {
                Texel::Float(u as f32 / ((1u64 << bits) - 1) as f32)
            }
            Kind::Signed => {
                let s = ((u << (32 - bits)) as i32) >> (32 - bits);
                if self.returns_floats() {
                    let max = ((1i64 << (bits - 1)) - 1) as f32;
                    Texel::Float((s as f32 / max).max(-1.0))
                } else {
                    Texel::Bits(s as u32)
                }
            }
            Kind::Unsigned => Texel::Bits(u),
        }
    }

    /// The element index of integer coordinates after addressing; `None`
    /// reads the border (zero).
    fn locate(&self, idx: [i64; 3], dims: usize, layer: i64) -> Option<usize> {
        let mut at = [0usize; 3];
        for d in 0..dims {
            let n = i64::from(self.extent[d]);
            let i = idx[d];
            let i = match self.address {
                Address::Clamp => i.clamp(0, n - 1),
                Address::Border if !(0..n).contains(&i) => return None,
                Address::Border => i,
                Address::Wrap => i.rem_euclid(n),
                Address::Mirror => {
                    let m = i.rem_euclid(2 * n);
                    if m >= n {
                        2 * n - 1 - m
                    } else {
                        m
                    }
                }
            };
            at[d] = i as usize;
        }
        let [w, h, dpt] = self.extent.map(|e| e as usize);
        let layer = layer.clamp(0, i64::from(self.layers.max(1)) - 1) as usize;
        Some(((layer * dpt + at[2]) * h + at[1]) * w + at[0])
    }

    /// One fetch: the four components as bits (`f32` bits when
    /// [`Resource::returns_floats`]).
    pub fn fetch(&self, coords: Coords) -> [u32; 4] {
        match coords {
            Coords::Index(i) => {
                let n = self.texel_count();
                let mut out = [0u32; 4];
                if i >= 0 && (i as usize) < n {
                    for (ch, o) in out.iter_mut().enumerate() {
                        *o = self.channel_value(i as usize, ch).bits();
                    }
                }
                out
            }
            Coords::Float { c, dims, layer } => {
                let layer = i64::from(layer.unwrap_or(0));
                let mut x = [0f32; 3];
                for d in 0..dims {
                    x[d] = if self.normalized {
                        c[d] * self.extent[d] as f32
                    } else {
                        c[d]
                    };
                }
                if self.linear && self.returns_floats() {
                    self.linear_fetch(x, dims, layer)
                } else {
                    let idx = x.map(|v| v.floor() as i64);
                    self.texel(idx, dims, layer).map(Texel::bits)
                }
            }
        }
    }

    fn texel(&self, idx: [i64; 3], dims: usize, layer: i64) -> [Texel; 4] {
        match self.locate(idx, dims, layer) {
            Some(at) => std::array::from_fn(|ch| self.channel_value(at, ch)),
            None if self.returns_floats() => [Texel::Float(0.0); 4],
            None => [Texel::Bits(0); 4],
        }
    }

    /// Linear filtering: the `2^dims` texels around `x - 0.5`, weighted
    /// by the fractions rounded to 8 fractional bits.
    fn linear_fetch(&self, x: [f32; 3], dims: usize, layer: i64) -> [u32; 4] {
        let mut base = [0i64; 3];
        let mut frac = [0f32; 3];
        for d in 0..dims {
            let b = x[d] - 0.5;
            base[d] = b.floor() as i64;
            frac[d] = ((b - b.floor()) * 256.0).round() / 256.0;
        }
        let mut sum = [0f32; 4];
        for corner in 0..(1usize << dims) {
            let mut idx = base;
            let mut weight = 1f32;
            for d in 0..dims {
                let hi = corner >> d & 1 == 1;
                idx[d] += i64::from(hi);
                weight *= if hi { frac[d] } else { 1.0 - frac[d] };
            }
            for (s, t) in sum.iter_mut().zip(self.texel(idx, dims, layer)) {
                *s += weight * t.float();
            }
        }
        sum.map(f32::to_bits)
    }

    /// The byte offset of a surface access of `size` bytes at `coords`
    /// (x in bytes) in `layer` (a layered access's), after the boundary
    /// mode: `Ok(None)` when a `zero` access is outside, `Err` when a
    /// `trap` one is (or x is not a multiple of the size, or the access
    /// and the array disagree on having layers). The layer, an unsigned
    /// index as PTX reads it, is outside at or past the array's layers
    /// and obeys the mode like a coordinate.
    pub fn surface_offset(
        &self,
        coords: &[i32],
        layer: Option<i32>,
        size: usize,
        mode: Boundary,
    ) -> Result<Option<usize>, String> {
        let row = self.extent[0] as i64 * self.format.size() as i64;
        let limits = [row, i64::from(self.extent[1]), i64::from(self.extent[2])];
        let mut at = [0i64; 3];
        for (d, &c) in coords.iter().enumerate().take(3) {
            let step = if d == 0 { size as i64 } else { 1 };
            match surface_index(i64::from(c), limits[d] - step, mode, || format!("axis {d}"))? {
                Some(i) => at[d] = i,
                None => return Ok(None),
            }
        }
        if at[0] % size as i64 != 0 {
            return Err(format!(
                "surface x coordinate {} is not a multiple of the access size {size}",
                at[0]
            ));
        }
        let Some(layer) = self.surface_layer(layer, mode)? else {
            return Ok(None);
        };
        let [h, d] = [limits[1], limits[2]];
        let at = ((layer * d + at[2]) * h + at[1]) * row + at[0];
        Ok(Some(at as usize))
    }

    /// The layer a surface access reaches (0 in an array without layers),
    /// after the boundary mode; `Ok(None)` drops a `zero` access.
    fn surface_layer(&self, layer: Option<i32>, mode: Boundary) -> Result<Option<i64>, String> {
        match (layer, self.layers) {
            (None, 0) => Ok(Some(0)),
            (Some(_), 0) => Err("a layered surface access to an array without layers".into()),
            (None, _) => Err("a surface access without a layer to a layered array".into()),
            (Some(l), n) => {
                let last = i64::from(n) - 1;
                surface_index(i64::from(l as u32), last, mode, || "the layer".into())
            }
        }
    }
}

/// A surface coordinate `c` against its last valid value, after the
/// boundary mode: `Ok(None)` drops a `zero` access; `what` names the axis
/// in a `trap`'s error.
fn surface_index(
    c: i64,
    last: i64,
    mode: Boundary,
    what: impl Fn() -> String,
) -> Result<Option<i64>, String> {
    if (0..=last).contains(&c) {
        return Ok(Some(c));
    }
    match mode {
        Boundary::Trap => Err(format!(
            "surface coordinate {c} ({}) is outside the array (trap mode)",
            what()
        )),
        Boundary::Zero => Ok(None),
        Boundary::Clamp => Ok(Some(c.clamp(0, last.max(0)))),
    }
}

/// A surface access's boundary mode (`.trap`, `.clamp`, `.zero`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Boundary {
    Trap,
    Clamp,
    Zero,
}

/// One channel as read: a float, or integer bits.
#[derive(Copy, Clone, PartialEq, Debug)]
enum Texel {
    Float(f32),
    Bits(u32),
}

impl Texel {
    fn bits(self) -> u32 {
        match self {
            Texel::Float(f) => f.to_bits(),
            Texel::Bits(b) => b,
        }
    }

    fn float(self) -> f32 {
        match self {
            Texel::Float(f) => f,
            Texel::Bits(b) => f32::from_bits(b),
        }
    }
}

/// The resource a handle names among `table`, or why it names none.
pub fn resource(table: &[Resource], handle: u64) -> Result<usize, TextureError> {
    match usize::try_from(handle) {
        Ok(k) if k >= 1 && k <= table.len() => Ok(k - 1),
        _ => Err(TextureError::NoObject { handle }),
    }
}

/// Why a resource cannot be bound, or a handle names none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextureError {
    /// The data is `bytes` long where the extent and format need `needs`.
    DataSize { bytes: usize, needs: usize },
    /// `handle` is no texture or surface object of the launch.
    NoObject { handle: u64 },
}

impl std::fmt::Display for TextureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextureError::DataSize { bytes, needs } => write!(
                f,
                "the resource's data has {bytes} bytes, its extent needs {needs}"
            ),
            TextureError::NoObject { handle } => write!(
                f,
                "{handle:#x} is not a texture or surface object of this launch"
            ),
        }
    }
}

impl std::error::Error for TextureError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn float_texture(w: u32, h: u32, values: &[f32]) -> Resource {
        Resource {
            format: Format {
                kind: Kind::Float,
                bits: 32,
                channels: 1,
            },
            extent: [w, h, 1],
            layers: 0,
            data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            address: Address::Clamp,
            linear: false,
            normalized: false,
            read_normalized: false,
        }
    }

    #[test]
    fn a_resource_that_does_not_hold_together_and_a_stray_handle_say_why() {
        let mut res = float_texture(2, 2, &[1.0; 4]);
        assert_eq!(res.check(), Ok(()));
        res.data.pop();
        let short = res.check().unwrap_err();
        assert_eq!(
            short,
            TextureError::DataSize {
                bytes: 15,
                needs: 16
            }
        );
        assert_eq!(
            short.to_string(),
            "the resource's data has 15 bytes, its extent needs 16"
        );
        let table = [res];
        assert_eq!(resource(&table, 1), Ok(0));
        let stray = resource(&table, 2).unwrap_err();
        assert_eq!(stray, TextureError::NoObject { handle: 2 });
        assert_eq!(
            stray.to_string(),
            "0x2 is not a texture or surface object of this launch"
        );
    }

    fn at(r: &Resource, x: f32, y: f32) -> f32 {
        f32::from_bits(
            r.fetch(Coords::Float {
                c: [x, y, 0.0],
                dims: 2,
                layer: None,
            })[0],
        )
    }

    #[test]
    fn point_sampling_takes_the_floor_and_addressing_decides_outside() {
        let mut t = float_texture(2, 2, &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(at(&t, 1.5, 0.5), 2.0);
        assert_eq!(at(&t, 0.99, 1.0), 3.0);
        assert_eq!(at(&t, -3.0, 7.0), 3.0);
        t.address = Address::Border;
        assert_eq!(at(&t, -0.5, 0.5), 0.0);
        t.address = Address::Wrap;
        assert_eq!(at(&t, 2.5, 0.5), 1.0);
        t.address = Address::Mirror;
        assert_eq!(at(&t, 2.5, 0.5), 2.0);
        t.normalized = true;
        t.address = Address::Clamp;
        assert_eq!(at(&t, 0.75, 0.25), 2.0);
    }

    #[test]
    fn linear_filtering_uses_eight_fractional_bits() {
        let mut t = float_texture(2, 1, &[0.0, 1.0]);
        t.linear = true;
        // x = 1.0: halfway between the texel centres 0.5 and 1.5.
        assert_eq!(at(&t, 1.0, 0.5), 0.5);
        // A fraction of 0.3 becomes 77/256.
        assert_eq!(at(&t, 0.8, 0.5), 77.0 / 256.0);
    }

    #[test]
    fn integers_read_as_normalized_floats() {
        let t = Resource {
            format: Format {
                kind: Kind::Unsigned,
                bits: 8,
                channels: 4,
            },
            data: vec![0, 255, 51, 7],
            read_normalized: true,
            ..float_texture(1, 1, &[0.0])
        };
        let got = t.fetch(Coords::Index(0)).map(f32::from_bits);
        assert_eq!(got, [0.0, 1.0, 0.2, 7.0 / 255.0]);
    }

    #[test]
    fn surface_modes() {
        let t = float_texture(4, 2, &[0.0; 8]);
        let at = |c: &[i32], mode| t.surface_offset(c, None, 4, mode);
        assert_eq!(at(&[4, 1], Boundary::Trap), Ok(Some(20)));
        assert!(at(&[16, 0], Boundary::Trap).is_err());
        assert_eq!(at(&[16, 0], Boundary::Zero), Ok(None));
        assert_eq!(at(&[16, 5], Boundary::Clamp), Ok(Some(28)));
        let layered = t.surface_offset(&[0, 0], Some(0), 4, Boundary::Trap);
        assert!(layered.is_err());
    }

    #[test]
    fn a_layered_surface_starts_each_layer_after_the_last() {
        let mut t = float_texture(4, 2, &[0.0; 24]);
        t.layers = 3;
        let at = |c: &[i32], layer, mode| t.surface_offset(c, Some(layer), 4, mode);
        // Layer 2 starts after two layers of 4x2 floats (64 bytes).
        assert_eq!(at(&[4, 1], 2, Boundary::Trap), Ok(Some(64 + 20)));
        assert!(at(&[0, 0], 3, Boundary::Trap).is_err());
        assert!(at(&[0, 0], -1, Boundary::Trap).is_err());
        assert_eq!(at(&[0, 0], 3, Boundary::Zero), Ok(None));
        // A negative layer is a large unsigned index: the last layer.
        assert_eq!(at(&[0, 0], -1, Boundary::Clamp), Ok(Some(64)));
        assert!(t.surface_offset(&[0, 0], None, 4, Boundary::Trap).is_err());
    }
}
