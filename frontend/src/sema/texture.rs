//! CUDA's texture fetch and surface functions on texture and surface
//! objects (`crate::texture`): `tex2D<float>(tex, x, y)`,
//! `surf2Dwrite(v, surf, x * 4, y)`,
//! `surf2DLayeredread<float>(surf, x * 4, y, layer)`, ... Each call is
//! one `accel` instruction (`tex`, `suld`, `sust`; `midend::ir::TexOp`,
//! `SurfOp`), typed here as an [`Intrinsic::Texture`] whose arguments are
//! in the instruction's operand order (the handle, a layer, the
//! coordinates, then a level, gradients or the value written).
//!
//! The element type `T` decides the instruction: a fetch returns four
//! 32-bit components (`f32` for `float` elements, also read as normalized
//! floats; `s32`/`u32` for integers) of which `T` keeps as many as it has;
//! a surface access moves `T`'s bytes as 1, 2 or 4 elements of 8 to 64
//! bits. The void forms CUDA also declares (`surf2Dread(&v, surf, x, y)`)
//! store through their first argument.

use super::Checker;
use crate::ast;
use crate::codes::Code;
use crate::diag::Span;
use crate::texture::components;
use crate::typed::{Expr, ExprKind, Intrinsic, Place};
use crate::types::{vector_type, CType};
use midend::ir::{AccelOp, SurfMode, SurfOp, TexGeom, TexLod, TexOp, TexType};

/// What a texture or surface function does.
#[derive(Clone, Copy)]
enum Func {
    /// A fetch; `fetch` for `tex1Dfetch` (an integer element index).
    Tex {
        geom: TexGeom,
        lod: TexLod,
        fetch: bool,
    },
    SurfRead(TexGeom),
    SurfWrite(TexGeom),
}

fn func(name: &str) -> Option<Func> {
    use TexGeom::*;
    use TexLod::*;
    let tex = |geom, lod| Func::Tex {
        geom,
        lod,
        fetch: false,
    };
    Some(match name {
        "tex1Dfetch" => Func::Tex {
            geom: D1,
            lod: Base,
            fetch: true,
        },
        "tex1D" => tex(D1, Base),
        "tex2D" => tex(D2, Base),
        "tex3D" => tex(D3, Base),
        "tex1DLayered" => tex(A1, Base),
        "tex2DLayered" => tex(A2, Base),
        "tex1DLod" => tex(D1, Level),
        "tex2DLod" => tex(D2, Level),
        "tex3DLod" => tex(D3, Level),
        "tex1DGrad" => tex(D1, Grad),
        "tex2DGrad" => tex(D2, Grad),
        "tex3DGrad" => tex(D3, Grad),
        "surf1Dread" => Func::SurfRead(D1),
        "surf2Dread" => Func::SurfRead(D2),
        "surf3Dread" => Func::SurfRead(D3),
        "surf1DLayeredread" => Func::SurfRead(A1),
        "surf2DLayeredread" => Func::SurfRead(A2),
        "surf1Dwrite" => Func::SurfWrite(D1),
        "surf2Dwrite" => Func::SurfWrite(D2),
        "surf3Dwrite" => Func::SurfWrite(D3),
        "surf1DLayeredwrite" => Func::SurfWrite(A1),
        "surf2DLayeredwrite" => Func::SurfWrite(A2),
        _ => return None,
    })
}

/// The fetch result type for elements of `scalar`: `f32` for `float`,
/// `s32`/`u32` for 8- to 32-bit integers.
fn tex_type(scalar: &CType) -> Option<TexType> {
    match scalar {
        CType::Float { bits: 32 } => Some(TexType::F32),
        CType::Int { bits, signed } if *bits <= 32 => {
            Some(if *signed { TexType::S32 } else { TexType::U32 })
        }
        _ => None,
    }
}

/// The `(vec, bits)` of a surface access of `ty`: integers of 8 to 64
/// bits and `float`, at most 16 bytes.
fn surf_shape(ty: &CType) -> Option<(u8, u8)> {
    let (scalar, n) = components(ty)?;
    let bits = match scalar {
        CType::Float { bits: 32 } => 32,
        CType::Int { bits, .. } => bits,
        _ => return None,
    };
    (u32::from(n) * u32::from(bits) <= 128).then_some((n, bits))
}

/// The boundary mode a written name or constant means
/// (`cudaSurfaceBoundaryMode`: zero 0, clamp 1, trap 2).
fn mode_named(name: &str) -> Option<SurfMode> {
    Some(match name {
        "cudaBoundaryModeZero" => SurfMode::Zero,
        "cudaBoundaryModeClamp" => SurfMode::Clamp,
        "cudaBoundaryModeTrap" => SurfMode::Trap,
        _ => return None,
    })
}

/// One call's pieces after its element type is known.
struct Call<'a> {
    name: &'a str,
    /// The pointer of a void form (`surf2Dread(&v, ...)`), typed.
    out: Option<Expr>,
    args: &'a [ast::Expr],
    span: Span,
}

impl Checker {
    /// A call of a texture or surface function, if `callee` names one
    /// that the program does not declare itself. `Some(None)` after an
    /// error (reported).
    pub(super) fn texture_call(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<Expr>> {
        let (name, explicit) = match &callee.kind {
            ast::ExprKind::Ident(name) => (name, &[][..]),
            ast::ExprKind::TemplateId { name, args } => (name, &args[..]),
            _ => return None,
        };
        let f = func(name)?;
        if self.by_name.contains_key(name.as_str()) || self.lookup(name).is_some() {
            return None;
        }
        Some(self.texture_checked(name, f, explicit, args, span))
    }

    fn texture_checked(
        &mut self,
        name: &str,
        f: Func,
        explicit: &[crate::templates::TemplateArg],
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let written = match explicit {
            [] => None,
            [crate::templates::TemplateArg::Type(t)] => Some(t.ty.clone()),
            _ => {
                let msg = format!("`{name}` takes one template argument, the element type");
                self.error(span, Code::E0025, msg);
                return None;
            }
        };
        // A write deduces `T` from its value; a read takes it written, or
        // from the pointer of its void form.
        if let Func::SurfWrite(geom) = f {
            return self.surf_write(name, geom, written, args, span);
        }
        let (elem, out, args) = match written {
            Some(t) => (t, None, args),
            None => {
                let first = match args.first() {
                    Some(a) => self.expr(a)?,
                    None => return self.texture_arity(name, span),
                };
                let Some(pointee) = first
                    .ty
                    .pointee()
                    .filter(|_| first.ty.is_pointer())
                    .cloned()
                else {
                    let msg = format!(
                        "`{name}` needs its element type: `{name}<float>(...)`, or a pointer to the result as the first argument"
                    );
                    self.error(span, Code::E0025, msg);
                    return None;
                };
                (pointee, Some(first), &args[1..])
            }
        };
        let call = Call {
            name,
            out,
            args,
            span,
        };
        match f {
            Func::Tex { geom, lod, fetch } => self.tex_fetch(call, elem, geom, lod, fetch),
            Func::SurfRead(geom) => self.surf_read(call, elem, geom),
            Func::SurfWrite(_) => None,
        }
    }

    /// Reports a call with too many or too few arguments; `None`.
    fn texture_arity<T>(&mut self, name: &str, span: Span) -> Option<T> {
        let msg = format!("wrong number of arguments to `{name}`");
        self.error(span, Code::E0025, msg);
        None
    }

    /// `args[k]` converted to `ty` (a coordinate, a handle, a level).
    fn texture_arg(&mut self, name: &str, a: &ast::Expr, ty: &CType, k: usize) -> Option<Expr> {
        let e = self.expr(a)?;
        let at = e.span;
        self.assign_convert(e, ty, &format!("argument {} of `{name}`", k + 1), at)
    }

    fn element_error(&mut self, name: &str, elem: &CType, span: Span, allowed: &str) {
        let msg = format!("`{name}` cannot read or write elements of type `{elem}`");
        self.diags.push(
            crate::diag::Diagnostic::error(span, Code::E0025, msg).with_note(allowed.to_string()),
        );
    }

    fn tex_fetch(
        &mut self,
        call: Call<'_>,
        elem: CType,
        geom: TexGeom,
        lod: TexLod,
        fetch: bool,
    ) -> Option<Expr> {
        let name = call.name;
        let Some(dty) = components(&elem).and_then(|(s, _)| tex_type(&s)) else {
            self.element_error(
                name,
                &elem,
                call.span,
                "a texture's elements are `float`, 8- to 32-bit integers, or their vectors of 1, 2 or 4 (`float4`, `uchar4`, ...)",
            );
            return None;
        };
        let extra = match lod {
            TexLod::Base => 0,
            TexLod::Level => 1,
            TexLod::Grad => 2,
        };
        let want = 1 + geom.dims() + usize::from(geom.layered()) + extra;
        if call.args.len() != want {
            return self.texture_arity(name, call.span);
        }
        let coord = if fetch { CType::INT } else { CType::FLOAT };
        let handle = CType::ULONG;
        let mut typed = vec![self.texture_arg(name, &call.args[0], &handle, 0)?];
        let coords = &call.args[1..1 + geom.dims()];
        if geom.layered() {
            let k = 1 + geom.dims();
            typed.push(self.texture_arg(name, &call.args[k], &CType::INT, k)?);
        }
        for (k, a) in coords.iter().enumerate() {
            typed.push(self.texture_arg(name, a, &coord, k + 1)?);
        }
        let first_extra = 1 + geom.dims() + usize::from(geom.layered());
        let grad_ty = match geom.dims() {
            1 => CType::FLOAT,
            2 => vector_type("float2")?,
            _ => vector_type("float4")?,
        };
        for (k, a) in call.args[first_extra..].iter().enumerate() {
            let ty = if lod == TexLod::Grad {
                &grad_ty
            } else {
                &CType::FLOAT
            };
            typed.push(self.texture_arg(name, a, ty, first_extra + k)?);
        }
        let cty = if fetch { TexType::S32 } else { TexType::F32 };
        let op = AccelOp::Tex(TexOp {
            geom,
            lod,
            dty,
            cty,
        });
        Some(self.texture_result(call.out, op, typed, elem, call.span))
    }

    /// The call's value, or its store through the void form's pointer.
    fn texture_result(
        &mut self,
        out: Option<Expr>,
        op: AccelOp,
        args: Vec<Expr>,
        elem: CType,
        span: Span,
    ) -> Expr {
        let value = Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Texture(op),
                args,
            },
            ty: elem.clone(),
            span,
        };
        match out {
            None => value,
            Some(ptr) => Expr {
                kind: ExprKind::Assign {
                    target: Place::Deref(Box::new(ptr)),
                    op: None,
                    value: Box::new(value),
                },
                ty: elem,
                span,
            },
        }
    }

    /// The handle and the coordinates of a surface access (`args` starts
    /// at the handle), and the boundary mode after them, if written. CUDA
    /// writes a layer after the coordinates (`surf2DLayeredread<T>(s, x,
    /// y, layer)`); the operation takes it before them, as PTX does.
    fn surf_address(
        &mut self,
        name: &str,
        geom: TexGeom,
        args: &[ast::Expr],
        first: usize,
        span: Span,
    ) -> Option<(Vec<Expr>, SurfMode)> {
        let n = 1 + geom.dims() + usize::from(geom.layered());
        if args.len() != n && args.len() != n + 1 {
            return self.texture_arity(name, span);
        }
        let mut typed = vec![self.texture_arg(name, &args[0], &CType::ULONG, first)?];
        for (k, a) in args[1..n].iter().enumerate() {
            typed.push(self.texture_arg(name, a, &CType::INT, first + 1 + k)?);
        }
        if geom.layered() {
            let layer = typed.pop()?;
            typed.insert(1, layer);
        }
        let mode = match args.get(n) {
            None => SurfMode::Trap,
            Some(m) => self.surf_mode(name, m)?,
        };
        Some((typed, mode))
    }

    /// A boundary mode argument: one of the enumerators, or a constant.
    fn surf_mode(&mut self, name: &str, m: &ast::Expr) -> Option<SurfMode> {
        if let ast::ExprKind::Ident(id) = &m.kind {
            if let Some(mode) = mode_named(id).filter(|_| self.lookup(id).is_none()) {
                return Some(mode);
            }
        }
        let e = self.expr(m)?;
        let mode = match self.const_int(&e) {
            Some(0) => Some(SurfMode::Zero),
            Some(1) => Some(SurfMode::Clamp),
            Some(2) => Some(SurfMode::Trap),
            _ => None,
        };
        if mode.is_none() {
            let msg = format!(
                "the boundary mode of `{name}` must be a constant (`cudaBoundaryModeTrap`, `cudaBoundaryModeClamp` or `cudaBoundaryModeZero`): PTX writes it in the instruction"
            );
            self.error(e.span, Code::E0025, msg);
        }
        mode
    }

    fn surf_shape_of(&mut self, name: &str, elem: &CType, span: Span) -> Option<(u8, u8)> {
        let shape = surf_shape(elem);
        if shape.is_none() {
            self.element_error(
                name,
                elem,
                span,
                "a surface's elements are `float`, 8- to 64-bit integers, or their vectors of 1, 2 or 4 of at most 16 bytes (`float4`, `uchar4`, `short2`, ...)",
            );
        }
        shape
    }

    fn surf_read(&mut self, call: Call<'_>, elem: CType, geom: TexGeom) -> Option<Expr> {
        let (vec, bits) = self.surf_shape_of(call.name, &elem, call.span)?;
        let first = usize::from(call.out.is_some());
        let (typed, mode) = self.surf_address(call.name, geom, call.args, first, call.span)?;
        let op = AccelOp::Suld(SurfOp {
            geom,
            vec,
            bits,
            mode,
        });
        Some(self.texture_result(call.out, op, typed, elem, call.span))
    }

    fn surf_write(
        &mut self,
        name: &str,
        geom: TexGeom,
        written: Option<CType>,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let Some((value, rest)) = args.split_first() else {
            return self.texture_arity(name, span);
        };
        let value = self.expr(value)?;
        let elem = written.unwrap_or_else(|| value.ty.clone());
        let (vec, bits) = self.surf_shape_of(name, &elem, span)?;
        let at = value.span;
        let value = self.assign_convert(value, &elem, &format!("argument 1 of `{name}`"), at)?;
        let (mut typed, mode) = self.surf_address(name, geom, rest, 1, span)?;
        typed.push(value);
        let op = AccelOp::Sust(SurfOp {
            geom,
            vec,
            bits,
            mode,
        });
        Some(Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Texture(op),
                args: typed,
            },
            ty: CType::Void,
            span,
        })
    }
}
