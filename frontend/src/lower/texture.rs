//! Lowering texture fetches and surface accesses (`sema/texture.rs`) to
//! `tex`, `suld` and `sust`. An element of a vector type (`float4`,
//! `uchar4`) is a struct in memory: a fetch's components are stored into a
//! temporary of it, and a written vector's members are loaded from it.

use super::FunctionLowerer;
use crate::texture::components;
use crate::typed::Expr;
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{AccelOp, MemFlags, Opcode, Type, Value};

impl FunctionLowerer<'_, '_> {
    /// A texture or surface built-in; the element it reads (`None` for a
    /// write).
    pub(crate) fn texture_intrinsic(
        &mut self,
        op: AccelOp,
        args: &[Expr],
        ty: &CType,
    ) -> Option<Value> {
        let mut operands = Vec::new();
        for a in args {
            let v = self.expr(a);
            match (op, components(&a.ty)) {
                // A gradient (`float2`, `float4`): its members, as many as
                // the texture has coordinates.
                (AccelOp::Tex(t), Some((_, n))) if n > 1 => {
                    for k in 0..t.geom.dims() {
                        operands.push(self.member(v, 4 * k as u64, Type::F32));
                    }
                }
                (AccelOp::Sust(s), Some((scalar, n))) if a.ty.is_struct() => {
                    let size = scalar.size().unwrap_or(4);
                    for k in 0..u64::from(n) {
                        let m = self.member(v, k * size, super::value_type(&scalar));
                        operands.push(self.surface_bits(m, s.elem()));
                    }
                }
                (AccelOp::Sust(s), Some(_)) => operands.push(self.surface_bits(v, s.elem())),
                _ => operands.push(v),
            }
        }
        let results = self.b.accel(op, operands);
        if matches!(op, AccelOp::Sust(_)) {
            return None;
        }
        let (scalar, n) = components(ty)?;
        let elem_ty = super::value_type(&scalar);
        let values: Vec<Value> = results[..usize::from(n)]
            .iter()
            .map(|&r| self.texel_component(r, elem_ty))
            .collect();
        if !ty.is_struct() {
            return values.first().copied();
        }
        let tmp = self.temp_struct(ty);
        let size = scalar.size().unwrap_or(4);
        for (k, &v) in values.iter().enumerate() {
            let off = self.b.iconst(Type::I64, k as i64 * size as i64);
            let p = self.b.ptroffset(tmp, off);
            self.store_value(p, v, &scalar);
        }
        Some(tmp)
    }

    /// The member at `offset` of the struct at `base`.
    fn member(&mut self, base: Value, offset: u64, ty: Type) -> Value {
        let off = self.b.iconst(Type::I64, offset as i64);
        let p = self.b.ptroffset(base, off);
        self.b.load(ty, p, MemFlags::default())
    }

    /// A value written to a surface as the access's element bits (a
    /// `float` reinterpreted as 32 bits).
    fn surface_bits(&mut self, v: Value, elem: Type) -> Value {
        if self.b.func.dfg.value_type(v) == Type::F32 {
            return self.b.convert(Opcode::Bitcast, elem, v);
        }
        v
    }

    /// A fetched or read component as the element's type: a `float` from
    /// 32 bits, a narrower integer truncated.
    fn texel_component(&mut self, r: Value, elem: Type) -> Value {
        let from = self.b.func.dfg.value_type(r);
        if from == elem {
            r
        } else if elem == Type::F32 {
            self.b.convert(Opcode::Bitcast, Type::F32, r)
        } else {
            self.b.convert(Opcode::Trunc, elem, r)
        }
    }
}
