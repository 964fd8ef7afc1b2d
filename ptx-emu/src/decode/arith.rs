//! Decoding of the arithmetic, comparison, conversion and bit instructions.

use super::{
    unsupported, Arith, BoolOp, Cmp, Cvt, CvtRnd, FloatClass, FloatMods, FloatUnOp, Half, HalfOp,
    IntOp, IntUnOp, Op, Parts, Shape,
};
use crate::error::DecodeError;
use crate::ops::{self, bits::PrmtMode};
use crate::program::{Kind, Operand, Ty};
use Shape::{Dst, DstPair, Src};

/// Decodes `p` if it is one of this module's instructions.
pub(super) fn decode(p: &Parts) -> Result<Option<Op>, DecodeError> {
    if let Some(op) = half(p)? {
        return Ok(Some(op));
    }
    let op = match p.opcode {
        "mov" => mov(p)?,
        "add" | "sub" | "mad" if p.mods.has(".cc") => carry(p)?,
        "addc" | "subc" | "madc" => carry(p)?,
        "add" | "sub" | "mul" | "div" | "rem" | "and" | "or" | "xor" | "min" | "max" => binary(p)?,
        "mad" | "fma" => mad(p)?,
        "sad" => {
            let ty = p.ty()?;
            p.expect(&[Dst, Src, Src, Src])?;
            if !matches!(ty.kind, Kind::U | Kind::S) {
                return Err(p.unsupported());
            }
            Op::Sad(ty)
        }
        "mul24" | "mad24" => mul24(p)?,
        "shl" | "shr" => {
            p.expect(&[Dst, Src, Src])?;
            Op::Shift {
                left: p.opcode == "shl",
                ty: p.ty()?,
            }
        }
        "not" | "cnot" | "neg" | "abs" | "popc" | "clz" | "brev" => unary(p)?,
        "sqrt" | "rsqrt" | "rcp" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => float_unary(p)?,
        "copysign" => {
            let ty = p.ty()?;
            p.expect(&[Dst, Src, Src])?;
            if !float_arith(ty) {
                return Err(p.unsupported());
            }
            Op::Copysign(ty)
        }
        "setp" => setp(p, p.ty()?)?,
        "selp" => {
            p.expect(&[Dst, Src, Src, Src])?;
            Op::Selp(p.ty()?)
        }
        "cvt" => cvt(p)?,
        "slct" => slct(p)?,
        _ => match video(p)? {
            Some(op) => op,
            None => return bits(p),
        },
    };
    Ok(Some(op))
}

/// The 16-bit float element type of `p` and whether it is packed two to a
/// register (`.f16x2`), when its type is one of those.
fn half_type(p: &Parts) -> Option<(Ty, bool)> {
    let (kind, packed) = match p.mods.0.last()?.as_str() {
        ".f16" => (Kind::F, false),
        ".bf16" => (Kind::BF, false),
        ".f16x2" => (Kind::F, true),
        ".bf16x2" => (Kind::BF, true),
        _ => return None,
    };
    Some((Ty { kind, bits: 16 }, packed))
}

/// The arithmetic, `min`/`max`, sign and comparison instructions on 16-bit
/// floats, one or two to a register.
fn half(p: &Parts) -> Result<Option<Op>, DecodeError> {
    let Some((ty, packed)) = half_type(p) else {
        return Ok(None);
    };
    let op = match p.opcode {
        "add" => HalfOp::Add,
        "sub" => HalfOp::Sub,
        "mul" => HalfOp::Mul,
        "fma" => HalfOp::Fma,
        "min" => HalfOp::Min,
        "max" => HalfOp::Max,
        "neg" => HalfOp::Neg,
        "abs" => HalfOp::Abs,
        "setp" if packed => {
            let Op::Setp {
                cmp, ftz, combine, ..
            } = setp(p, ty)?
            else {
                return Err(p.unsupported());
            };
            return Ok(Some(Op::SetpPacked {
                cmp,
                ty,
                ftz,
                combine,
            }));
        }
        _ => return Ok(None),
    };
    let fl = float_mods(p);
    // Only `.rn` rounds 16-bit arithmetic, and `min`/`max` do not round;
    // `.xorsign.abs` is not modelled.
    let known = |m: &str| {
        matches!(m, ".rn" | ".ftz" | ".sat" | ".relu" | ".NaN")
            || m == p.mods.0.last().map_or("", String::as_str)
    };
    if fl.dir.is_some() || !p.mods.0.iter().all(|m| known(m)) {
        return Err(p.unsupported());
    }
    match op.sources() {
        1 => p.expect(&[Dst, Src])?,
        2 => p.expect(&[Dst, Src, Src])?,
        _ => p.expect(&[Dst, Src, Src, Src])?,
    }
    Ok(Some(Op::Half {
        op,
        ty,
        packed,
        fl,
        relu: p.mods.has(".relu"),
    }))
}

/// `mov`, with the vector forms that pack and unpack a wide register.
fn mov(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.ty()?;
    p.expect(&[Shape::Dsts, Shape::Srcs])?;
    Ok(match (&p.args[0], &p.args[1]) {
        (Operand::Vector(_), Operand::Vector(_)) => {
            return Err(unsupported(format!("`{}` between two vectors", p.name)))
        }
        (Operand::Vector(_), _) => Op::Unpack(ty),
        (_, Operand::Vector(items)) => {
            if items.iter().any(|i| matches!(i, Operand::Sink)) {
                return Err(p.unsupported());
            }
            Op::Pack(ty)
        }
        _ => Op::Mov(ty),
    })
}

/// The float modifiers of `p`.
fn float_mods(p: &Parts) -> FloatMods {
    FloatMods {
        ftz: p.mods.has(".ftz"),
        sat: p.mods.has(".sat"),
        nan: p.mods.has(".NaN"),
        dir: p.mods.dir(),
    }
}

/// Whether the emulator computes arithmetic in `ty`'s float format.
fn float_arith(ty: Ty) -> bool {
    ty.kind == Kind::F && matches!(ty.bits, 32 | 64)
}

/// The two-operand arithmetic and logic instructions.
fn binary(p: &Parts) -> Result<Op, DecodeError> {
    if let Some(op) = int_lanes(p)? {
        return Ok(op);
    }
    let ty = p.ty()?;
    p.expect(&[Dst, Src, Src])?;
    let code = p.opcode;
    if ty.is_float() {
        if !float_arith(ty) {
            return Err(unsupported(format!(
                "{}-bit {} arithmetic (`{}`)",
                ty.bits,
                if ty.kind == Kind::BF { "bf16" } else { "float" },
                p.name
            )));
        }
        let fl = float_mods(p);
        return Ok(match code {
            "min" | "max" => Op::FloatMinMax {
                max: code == "max",
                ty,
                fl,
            },
            "add" => Op::Float {
                op: Arith::Add,
                ty,
                fl,
            },
            "sub" => Op::Float {
                op: Arith::Sub,
                ty,
                fl,
            },
            "mul" => Op::Float {
                op: Arith::Mul,
                ty,
                fl,
            },
            "div" if p.mods.has(".approx") => {
                if ty.bits != 32 || fl.dir.is_some() {
                    return Err(p.unsupported());
                }
                Op::DivApprox { ftz: fl.ftz }
            }
            "div" => Op::Float {
                op: Arith::Div,
                ty,
                fl,
            },
            _ => return Err(unsupported(format!("float `{code}`"))),
        });
    }
    if code == "mul" && p.mods.has(".wide") {
        if ty.bits > 32 {
            return Err(p.unsupported());
        }
        return Ok(Op::MulWide(ty));
    }
    let op = match code {
        "add" => IntOp::Add,
        "sub" => IntOp::Sub,
        "mul" if p.mods.has(".hi") => IntOp::MulHi,
        "mul" => IntOp::MulLo,
        "div" => IntOp::Div,
        "rem" => IntOp::Rem,
        "and" => IntOp::And,
        "or" => IntOp::Or,
        "xor" => IntOp::Xor,
        "min" => IntOp::Min,
        _ => IntOp::Max,
    };
    Ok(Op::Int {
        op,
        ty,
        sat: p.mods.has(".sat"),
    })
}

/// Integer `add`/`min`/`max` on two 16-bit lanes (`add.u16x2`,
/// `max.s16x2.relu`) and the 32-bit `min`/`max` with `.relu`; `None` for
/// every other form of a binary instruction.
fn int_lanes(p: &Parts) -> Result<Option<Op>, DecodeError> {
    let pair = p.mods.first_of(&[("u16x2", Kind::U), ("s16x2", Kind::S)]);
    let relu = p.mods.has(".relu");
    let lane = match (pair, relu) {
        (Some(kind), _) => Ty { kind, bits: 16 },
        (None, true) => match p.mods.last_type() {
            Some(ty) if matches!(ty.kind, Kind::S | Kind::U) => {
                if ty.bits != 32 {
                    return Err(p.unsupported());
                }
                ty
            }
            _ => return Ok(None),
        },
        (None, false) => return Ok(None),
    };
    p.expect(&[Dst, Src, Src])?;
    let op = match p.opcode {
        "add" => IntOp::Add,
        "min" => IntOp::Min,
        "max" => IntOp::Max,
        _ => return Err(p.unsupported()),
    };
    if p.mods.has(".sat") || (op == IntOp::Add && relu) {
        return Err(p.unsupported());
    }
    Ok(Some(Op::IntLanes { op, lane, relu }))
}

/// The SIMD video instructions `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`
/// on two or four lanes, in the forms without lane selectors or mask:
/// `.sat`, or (`vabsdiff` only) `.add`, which sums the lanes into `c`.
fn video(p: &Parts) -> Result<Option<Op>, DecodeError> {
    use ops::int::{Video, VideoOp};
    let (stem, lane_bits) = match (p.opcode.strip_suffix('2'), p.opcode.strip_suffix('4')) {
        (Some(stem), _) => (stem, 16),
        (_, Some(stem)) => (stem, 8),
        _ => return Ok(None),
    };
    let op = match stem {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vabsdiff" => VideoOp::AbsDiff,
        "vmin" => VideoOp::Min,
        "vmax" => VideoOp::Max,
        _ => return Ok(None),
    };
    p.expect(&[Dst, Src, Src, Src])?;
    let types = p.mods.types();
    let [d, a, b] = types[..] else {
        return Err(p.unsupported());
    };
    let int32 = |t: Ty| matches!(t.kind, Kind::S | Kind::U) && t.bits == 32;
    let (sat, add) = (p.mods.has(".sat"), p.mods.has(".add"));
    let known = p
        .mods
        .0
        .iter()
        .all(|m| Ty::parse(m).is_some() || m == ".sat" || m == ".add");
    if !known || ![d, a, b].into_iter().all(int32) || (add && (sat || op != VideoOp::AbsDiff)) {
        return Err(p.unsupported());
    }
    Ok(Some(Op::Video(Video {
        op,
        lane_bits,
        signed: [d.is_signed(), a.is_signed(), b.is_signed()],
        sat,
        add,
    })))
}

/// `mad` and `fma`: a fused multiply-add on floats, an integer multiply
/// and add otherwise.
fn mad(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.ty()?;
    p.expect(&[Dst, Src, Src, Src])?;
    if ty.is_float() {
        if !float_arith(ty) {
            return Err(p.unsupported());
        }
        return Ok(Op::Fma {
            ty,
            fl: float_mods(p),
        });
    }
    let half = if p.mods.has(".wide") {
        if ty.bits > 32 {
            return Err(p.unsupported());
        }
        Half::Wide
    } else if p.mods.has(".hi") {
        Half::Hi
    } else {
        Half::Lo
    };
    // `.sat` applies to `mad.hi.s32` only.
    let sat = p.mods.has(".sat");
    if sat && (half != Half::Hi || ty.kind != Kind::S || ty.bits != 32) {
        return Err(p.unsupported());
    }
    Ok(Op::Mad { ty, half, sat })
}

/// `mul24.{hi,lo}.{u32,s32}` and `mad24.{hi,lo}[.sat].{u32,s32}`.
fn mul24(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.ty()?;
    let add = p.opcode == "mad24";
    if add {
        p.expect(&[Dst, Src, Src, Src])?;
    } else {
        p.expect(&[Dst, Src, Src])?;
    }
    let hi = p.mods.has(".hi");
    let sat = p.mods.has(".sat");
    let int32 = ty.bits == 32 && matches!(ty.kind, Kind::U | Kind::S);
    // `.sat` applies to `mad24.hi.s32` only.
    if !int32 || !hi && !p.mods.has(".lo") || sat && !(add && hi && ty.kind == Kind::S) {
        return Err(p.unsupported());
    }
    Ok(Op::Mul24 {
        hi,
        signed: ty.is_signed(),
        add,
        sat,
    })
}

/// The extended-precision instructions, which read or write the carry
/// flag: `add.cc`, `addc[.cc]`, `sub.cc`, `subc[.cc]` on 32- and 64-bit
/// integers, and `mad.cc`, `madc[.cc]` with `.lo` or `.hi`.
fn carry(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.ty()?;
    if !matches!(ty.kind, Kind::U | Kind::S) || !matches!(ty.bits, 32 | 64) {
        return Err(p.unsupported());
    }
    let carry_in = p.opcode.ends_with('c');
    let carry_out = p.mods.has(".cc");
    if p.opcode.starts_with("mad") {
        p.expect(&[Dst, Src, Src, Src])?;
        let hi = p.mods.has(".hi");
        if !hi && !p.mods.has(".lo") {
            return Err(p.unsupported());
        }
        return Ok(Op::MadCarry {
            hi,
            carry_in,
            carry_out,
            ty,
        });
    }
    p.expect(&[Dst, Src, Src])?;
    Ok(Op::AddCarry {
        sub: p.opcode.starts_with("sub"),
        carry_in,
        carry_out,
        ty,
    })
}

/// The one-operand instructions that do not round: bit operations on
/// integers, the sign bit on floats.
fn unary(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.ty()?;
    p.expect(&[Dst, Src])?;
    if ty.is_float() {
        return match p.opcode {
            "neg" | "abs" => Ok(Op::FloatSign {
                neg: p.opcode == "neg",
                ty,
                ftz: p.mods.has(".ftz"),
            }),
            code => Err(unsupported(format!("float `{code}`"))),
        };
    }
    let op = match p.opcode {
        "not" => IntUnOp::Not,
        "cnot" => IntUnOp::Cnot,
        "neg" => IntUnOp::Neg,
        "abs" => IntUnOp::Abs,
        "popc" => IntUnOp::Popc,
        "clz" => IntUnOp::Clz,
        _ => IntUnOp::Brev,
    };
    Ok(Op::IntUnary { op, ty })
}

/// The float functions: `sqrt` and `rcp` round (in any direction), the
/// others are approximations (computed exactly, rounded once).
fn float_unary(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.ty()?;
    p.expect(&[Dst, Src])?;
    if !float_arith(ty) {
        return Err(p.unsupported());
    }
    let op = match p.opcode {
        "sqrt" => FloatUnOp::Sqrt,
        "rsqrt" => FloatUnOp::Rsqrt,
        "rcp" => FloatUnOp::Rcp,
        "ex2" => FloatUnOp::Ex2,
        "lg2" => FloatUnOp::Lg2,
        "sin" => FloatUnOp::Sin,
        "cos" => FloatUnOp::Cos,
        _ => FloatUnOp::Tanh,
    };
    let fl = float_mods(p);
    if fl.dir.is_some() && !matches!(op, FloatUnOp::Sqrt | FloatUnOp::Rcp) {
        return Err(unsupported(format!("`{}` (directed rounding)", p.name)));
    }
    Ok(Op::FloatUnary { op, ty, fl })
}

/// `setp.CMP[.BOOL][.ftz].TYPE d[|q], a, b[, c]`.
fn setp(p: &Parts, ty: Ty) -> Result<Op, DecodeError> {
    let first = p.mods.0.first().map_or("", |m| m.trim_start_matches('.'));
    let cmp = comparison(first, ty.is_float())
        .ok_or_else(|| unsupported(format!("comparison `{first}`")))?;
    let combine = p.mods.first_of(&[
        ("and", BoolOp::And),
        ("or", BoolOp::Or),
        ("xor", BoolOp::Xor),
    ]);
    if combine.is_some() {
        p.expect(&[DstPair, Src, Src, Src])?;
    } else {
        p.expect(&[DstPair, Src, Src])?;
    }
    Ok(Op::Setp {
        cmp,
        ty,
        ftz: ty.is_float() && p.mods.has(".ftz"),
        combine,
    })
}

/// A comparison's name, as integer (`lo ls hi hs` too) or float (the
/// unordered ones, `num`, `nan`) comparisons spell it.
fn comparison(name: &str, float: bool) -> Option<Cmp> {
    Some(match (name, float) {
        ("eq", _) => Cmp::Eq,
        ("ne", _) => Cmp::Ne,
        ("lt", _) => Cmp::Lt,
        ("le", _) => Cmp::Le,
        ("gt", _) => Cmp::Gt,
        ("ge", _) => Cmp::Ge,
        ("lo", false) => Cmp::Lo,
        ("ls", false) => Cmp::Ls,
        ("hi", false) => Cmp::Hi,
        ("hs", false) => Cmp::Hs,
        ("equ", true) => Cmp::Equ,
        ("neu", true) => Cmp::Neu,
        ("ltu", true) => Cmp::Ltu,
        ("leu", true) => Cmp::Leu,
        ("gtu", true) => Cmp::Gtu,
        ("geu", true) => Cmp::Geu,
        ("num", true) => Cmp::Num,
        ("nan", true) => Cmp::Nan,
        _ => return None,
    })
}

/// `slct.dtype.s32` and `slct[.ftz].dtype.f32`.
fn slct(p: &Parts) -> Result<Op, DecodeError> {
    let tys = p.mods.types();
    let (Some(&ty), Some(&c), None) = (tys.first(), tys.get(1), tys.get(2)) else {
        return Err(unsupported(format!("`{}` without two types", p.name)));
    };
    p.expect(&[Dst, Src, Src, Src])?;
    let float = c.kind == Kind::F && c.bits == 32;
    let ftz = p.mods.has(".ftz");
    let int = c.kind == Kind::S && c.bits == 32;
    if ty.bits > 64 || ty.kind == Kind::Pred || !float && !int || ftz && !float {
        return Err(p.unsupported());
    }
    Ok(Op::Slct { ty, float, ftz })
}

/// `cvt.RND.DST.SRC` with `.ftz` and `.sat`.
fn cvt(p: &Parts) -> Result<Op, DecodeError> {
    if let Some(elem) = p.mods.packed_half() {
        return cvt_pack(p, elem);
    }
    let tys = p.mods.types();
    let (Some(&dst), Some(&src)) = (tys.first(), tys.get(1)) else {
        return Err(unsupported(format!("`{}` without two types", p.name)));
    };
    if dst.bits > 64 || src.bits > 64 {
        return Err(p.unsupported());
    }
    p.expect(&[Dst, Src])?;
    let written = p
        .mods
        .0
        .iter()
        .find(|m| m.starts_with(".r") && m.len() <= 4)
        .map_or("", String::as_str);
    let rnd = match written {
        "" => CvtRnd::Default,
        ".rn" => CvtRnd::Rn,
        ".rz" => CvtRnd::Rz,
        ".rm" => CvtRnd::Rm,
        ".rp" => CvtRnd::Rp,
        ".rni" => CvtRnd::Rni,
        ".rzi" => CvtRnd::Rzi,
        ".rmi" => CvtRnd::Rmi,
        ".rpi" => CvtRnd::Rpi,
        _ => return Err(p.unsupported()),
    };
    let c = Cvt {
        dst,
        src,
        rnd,
        ftz: p.mods.has(".ftz"),
        sat: p.mods.has(".sat"),
        satfinite: p.mods.has(".satfinite"),
    };
    let half_dst = dst.bits == 16 && dst.is_float();
    if p.mods.has(".relu") || c.satfinite && !half_dst {
        return Err(p.unsupported());
    }
    if !ops::cvt_supported(&c) {
        return Err(unsupported(
            format!(
                "cvt{written}.{:?}{}.{:?}{}",
                dst.kind, dst.bits, src.kind, src.bits
            )
            .to_lowercase(),
        ));
    }
    Ok(Op::Cvt(c))
}

/// `cvt.rn[.relu][.satfinite].{f16x2,bf16x2}.f32 d, a, b`: the only
/// rounding PTX allows here is `.rn`, and the source is `f32`.
fn cvt_pack(p: &Parts, elem: Ty) -> Result<Op, DecodeError> {
    let f32_source = p.mods.types()
        == [Ty {
            kind: Kind::F,
            bits: 32,
        }];
    if !f32_source || !p.mods.has(".rn") || p.mods.has(".ftz") || p.mods.has(".sat") {
        return Err(p.unsupported());
    }
    p.expect(&[Dst, Src, Src])?;
    Ok(Op::CvtPack {
        elem,
        relu: p.mods.has(".relu"),
        satfinite: p.mods.has(".satfinite"),
    })
}

/// The bit-field and byte instructions, and `testp`.
fn bits(p: &Parts) -> Result<Option<Op>, DecodeError> {
    let op = match p.opcode {
        "bfe" => {
            p.expect(&[Dst, Src, Src, Src])?;
            Op::Bfe(p.ty()?)
        }
        "bfi" => {
            p.expect(&[Dst, Src, Src, Src, Src])?;
            Op::Bfi(p.ty()?)
        }
        "prmt" => {
            let ty = p.ty()?;
            p.expect(&[Dst, Src, Src, Src])?;
            let mode = p.mods.first_of(&[
                ("f4e", PrmtMode::F4e),
                ("b4e", PrmtMode::B4e),
                ("rc8", PrmtMode::Rc8),
                ("ecl", PrmtMode::Ecl),
                ("ecr", PrmtMode::Ecr),
                ("rc16", PrmtMode::Rc16),
            ]);
            if ty.bits != 32 || p.mods.0.len() > 1 + usize::from(mode.is_some()) {
                return Err(p.unsupported());
            }
            Op::Prmt(mode)
        }
        "dp4a" | "dp2a" => dot_product(p)?,
        "lop3" => lop3(p)?,
        "fns" => {
            p.expect(&[Dst, Src, Src, Src])?;
            Op::Fns
        }
        "bmsk" | "szext" => {
            let ty = p.ty()?;
            p.expect(&[Dst, Src, Src])?;
            let wrap = p.mods.has(".wrap");
            if ty.bits != 32 || !wrap && !p.mods.has(".clamp") {
                return Err(p.unsupported());
            }
            if p.opcode == "bmsk" {
                Op::Bmsk { wrap }
            } else if matches!(ty.kind, Kind::U | Kind::S) {
                Op::Szext {
                    wrap,
                    signed: ty.is_signed(),
                }
            } else {
                return Err(p.unsupported());
            }
        }
        "shf" => {
            p.ty()?;
            p.expect(&[Dst, Src, Src, Src])?;
            Op::Shf {
                left: p.mods.has(".l"),
                wrap: p.mods.has(".wrap"),
            }
        }
        "bfind" => {
            p.expect(&[Dst, Src])?;
            Op::Bfind {
                ty: p.ty()?,
                shiftamt: p.mods.has(".shiftamt"),
            }
        }
        "testp" => {
            let ty = p.ty()?;
            p.expect(&[Dst, Src])?;
            let class = match p.mods.0.first().map_or("", String::as_str) {
                ".finite" => FloatClass::Finite,
                ".infinite" => FloatClass::Infinite,
                ".number" => FloatClass::Number,
                ".notanumber" => FloatClass::NotANumber,
                ".normal" => FloatClass::Normal,
                ".subnormal" => FloatClass::Subnormal,
                _ => return Err(p.unsupported()),
            };
            Op::Testp { class, ty }
        }
        _ => return Ok(None),
    };
    Ok(Some(op))
}

/// `dp4a.atype.btype d, a, b, c` and `dp2a.{lo,hi}.atype.btype d, a, b,
/// c`, each type `.u32` or `.s32`.
fn dot_product(p: &Parts) -> Result<Op, DecodeError> {
    let tys = p.mods.types();
    let (Some(&a), Some(&b), None) = (tys.first(), tys.get(1), tys.get(2)) else {
        return Err(unsupported(format!("`{}` without two types", p.name)));
    };
    let int32 = |x: Ty| x.bits == 32 && matches!(x.kind, Kind::U | Kind::S);
    if !int32(a) || !int32(b) {
        return Err(p.unsupported());
    }
    p.expect(&[Dst, Src, Src, Src])?;
    let (a_signed, b_signed) = (a.is_signed(), b.is_signed());
    if p.opcode == "dp4a" {
        return Ok(Op::Dp4a { a_signed, b_signed });
    }
    let hi = p.mods.has(".hi");
    if !hi && !p.mods.has(".lo") {
        return Err(p.unsupported());
    }
    Ok(Op::Dp2a {
        hi,
        a_signed,
        b_signed,
    })
}

/// `lop3.b32 d, a, b, c, lut` and `lop3.{or,and}.b32 d|p, a, b, c, lut, q`.
fn lop3(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.ty()?;
    let pred = p.mods.first_of(&[("or", BoolOp::Or), ("and", BoolOp::And)]);
    if ty.bits != 32 {
        return Err(p.unsupported());
    }
    if pred.is_some() {
        p.expect(&[DstPair, Src, Src, Src, Src, Src])?;
        if !matches!(p.args[0], Operand::Pair(..)) {
            return Err(p.unsupported());
        }
    } else {
        p.expect(&[Dst, Src, Src, Src, Src])?;
    }
    let lut = match p.args[4] {
        Operand::Imm(v @ 0..=255) => v as u8,
        _ => {
            return Err(unsupported(format!(
                "`{}` with a lookup table that is not a constant from 0 to 255",
                p.name
            )))
        }
    };
    Ok(Op::Lop3 { lut, pred })
}
