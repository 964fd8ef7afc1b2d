//! `kernelc run`'s texture and surface object arguments:
//! `tex:FORMAT:EXTENT[:OPTIONS]:SOURCE` (and `surf:` with the same
//! syntax), a resource of the texture model both engines share
//! (`stdx::texture`), bound to a `cudaTextureObject_t` or
//! `cudaSurfaceObject_t` parameter as its handle.
//!
//! - FORMAT: the channel type `f32`, `i8`, `u8`, `i16`, `u16`, `i32` or
//!   `u32`, with `x2` or `x4` for two or four channels (`u8x4`, `f32x2`).
//! - EXTENT: `W`, `WxH` or `WxHxD` elements.
//! - OPTIONS, comma-separated: the addressing mode `clamp` (default),
//!   `border`, `wrap` or `mirror`; the filter `point` (default) or
//!   `linear`; `normalized` (coordinates in `[0, 1)`); `normalized-float`
//!   (`cudaReadModeNormalizedFloat`: 8- and 16-bit integers read as
//!   floats); `layers=N` (a layered array of N layers).
//! - SOURCE: the elements' channels, as a buffer's after `T[]:`, without
//!   the count (the extent gives it): `zeros`, `iota`, `rand:SEED`,
//!   `@FILE`.

use stdx::texture::{Address, Format, Kind, Resource};

/// The channel type of a format word and its channel count (`u8x4`).
fn format(word: &str) -> Result<(&str, Format), String> {
    let (ty, channels) = match word.split_once('x') {
        Some((ty, "2")) => (ty, 2),
        Some((ty, "4")) => (ty, 4),
        Some(_) => return Err(format!("`{word}`: a format has 1, 2 or 4 channels")),
        None => (word, 1),
    };
    let (kind, bits) = match ty {
        "f32" => (Kind::Float, 32),
        "i8" => (Kind::Signed, 8),
        "u8" => (Kind::Unsigned, 8),
        "i16" => (Kind::Signed, 16),
        "u16" => (Kind::Unsigned, 16),
        "i32" => (Kind::Signed, 32),
        "u32" => (Kind::Unsigned, 32),
        _ => {
            return Err(format!(
                "`{ty}` is not a texture channel type (use f32, i8, u8, i16, u16, i32 or u32)"
            ))
        }
    };
    Ok((
        ty,
        Format {
            kind,
            bits,
            channels,
        },
    ))
}

fn extent(word: &str) -> Result<[u32; 3], String> {
    let bad = || format!("`{word}` is not an extent (W, WxH or WxHxD, each at least 1)");
    let parts: Vec<u32> = word
        .split('x')
        .map(|p| p.parse::<u32>().ok().filter(|&n| n >= 1))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    match parts[..] {
        [w] => Ok([w, 1, 1]),
        [w, h] => Ok([w, h, 1]),
        [w, h, d] => Ok([w, h, d]),
        _ => Err(bad()),
    }
}

/// Whether `word` starts a SOURCE rather than being the OPTIONS.
fn is_source(word: &str) -> bool {
    matches!(word, "zeros" | "iota" | "rand") || word.starts_with('@')
}

fn apply_option(res: &mut Resource, opt: &str) -> Result<(), String> {
    match opt {
        "clamp" => res.address = Address::Clamp,
        "border" => res.address = Address::Border,
        "wrap" => res.address = Address::Wrap,
        "mirror" => res.address = Address::Mirror,
        "point" => res.linear = false,
        "linear" => res.linear = true,
        "normalized" => res.normalized = true,
        "normalized-float" => res.read_normalized = true,
        _ => match opt.strip_prefix("layers=").map(str::parse::<u32>) {
            Some(Ok(n)) if n >= 1 => res.layers = n,
            _ => {
                return Err(format!(
                    "`{opt}` is not a texture option (clamp, border, wrap, mirror, point, linear, normalized, normalized-float, layers=N)"
                ))
            }
        },
    }
    Ok(())
}

/// Parses what follows `tex:` or `surf:`: the resource, and the name of
/// its channel type (for the run's summary of its final elements).
pub fn parse(rest: &str) -> Result<(&str, Resource), String> {
    let usage = "a texture is `tex:FORMAT:EXTENT[:OPTIONS]:SOURCE` (e.g. \
                 `tex:f32:64x32:linear,border:rand:1`)";
    let mut parts = rest.splitn(3, ':');
    let (Some(fmt), Some(ext), Some(tail)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(usage.into());
    };
    let (ty, format) = format(fmt)?;
    let mut res = Resource {
        format,
        extent: extent(ext)?,
        layers: 0,
        data: Vec::new(),
        address: Address::Clamp,
        linear: false,
        normalized: false,
        read_normalized: false,
    };
    let source = match tail.split_once(':') {
        Some((opts, source)) if !is_source(opts) => {
            for opt in opts.split(',') {
                apply_option(&mut res, opt)?;
            }
            source
        }
        _ => tail,
    };
    if res.linear && format.kind != Kind::Float && !res.read_normalized {
        return Err("linear filtering needs float elements or `normalized-float`".into());
    }
    let channels = res.extent.iter().map(|&e| u64::from(e)).product::<u64>()
        * u64::from(res.layers.max(1))
        * u64::from(format.channels);
    let counted = match source.split_once(':') {
        Some((kind, more)) => format!("{kind}:{channels}:{more}"),
        None if source.starts_with('@') => source.to_string(),
        None => format!("{source}:{channels}"),
    };
    res.data = crate::run::buffer_of(ty, &counted)?;
    res.check().map_err(|e| e.to_string())?;
    Ok((ty, res))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_sources() {
        let (ty, r) = parse("u8x4:4x2:wrap,linear,normalized,normalized-float:iota").unwrap();
        assert_eq!(ty, "u8");
        assert_eq!(r.data.len(), 32);
        assert_eq!(r.data[5], 5);
        assert!(r.linear && r.normalized && r.read_normalized);
        assert_eq!(r.address, Address::Wrap);
        let (_, r) = parse("f32:3:rand:7").unwrap();
        assert_eq!(r.data.len(), 12);
        assert!(parse("f32:3x0:zeros").is_err());
        assert!(parse("i32:4:linear:zeros").is_err());
        assert!(parse("f64:4:zeros").is_err());
        let (_, r) = parse("f32:2x2:layers=3:zeros").unwrap();
        assert_eq!(r.data.len(), 48);
    }
}
