//! `memcpy` and `memset` in device code.
//!
//! CUDA declares both for device code and nvcc expands them inline. A call
//! whose size is a constant (sema folds `sizeof(x)` and `4 * sizeof(float)`
//! to one) becomes loads and stores planned here, one *chunk* at a time: at
//! each offset, the widest power of two of at most 8 bytes that
//!
//! * both addresses are known to be aligned to there ([`Object::align`]:
//!   from the place a pointer was taken from, or its pointee type, under
//!   the conversion to `void *`),
//! * is no wider than the widest scalar of either object there, and
//! * cuts no scalar of either object in two.
//!
//! So a `float[4]` copied into an `int4` moves four 32-bit words, each one
//! scalar on both sides, and the backend makes one `ld.v4`/`st.v4` of them.
//! The last two rules keep type punning in registers: `sroa` replaces a
//! slot whose accesses at one offset have one size (of any type), and
//! chunks of another size than the objects' scalars would keep the slot in
//! `.local` memory. A type of bytes alone (a `char` buffer, a `uchar4`) is
//! raw storage and constrains nothing; the `char` member of a struct is a
//! scalar like the others.
//! The chunks of a copy go through [`FunctionLowerer::copy_chunks`], the
//! 16-byte windows a struct copy uses, with the same alignment flags.
//!
//! Any other size is a loop of byte accesses, which is what nvcc emits for
//! one; so is a constant size that would take more than
//! [`MAX_COPY_LEAVES`] accesses. C's rules hold: `memcpy`'s objects do not
//! overlap (so a window may be loaded before any of it is stored), and both
//! functions return `dst`.

use super::aggregate::{offset_flags, Aligned, Chunk, CopyHints, MAX_COPY_LEAVES};
use super::FunctionLowerer;
use crate::typed::{CastKind, Expr, ExprKind, Place};
use crate::types::{leaf_count, scalar_leaves, CType};
use midend::builder::InstBuilder;
use midend::ir::{IntCC, MemFlags, Opcode, Type, Value};

/// The widest chunk: PTX's widest scalar access (wider ones are vectors of
/// chunks).
const MAX_CHUNK: u64 = 8;

/// What lowering knows of the object a `memcpy`/`memset` pointer argument
/// points to.
struct Object {
    /// The alignment the address is known to have (a power of two).
    align: u64,
    /// The scalars of one period of the pointee type, as (offset, size);
    /// empty when the type is unknown (`void`) or raw storage (bytes
    /// alone).
    scalars: Vec<(u64, u64)>,
    /// The size of the pointee type: a `T *` may point into an array of
    /// `T`, so its layout repeats with this period.
    period: u64,
}

impl Object {
    /// The alignment of the address `off` bytes further on.
    fn align_at(&self, off: u64) -> u64 {
        if off == 0 {
            self.align
        } else {
            self.align.min(1 << off.trailing_zeros())
        }
    }

    /// Each scalar (absolute offset, size) that overlaps `[off, off + w)`.
    fn scalars_over(&self, off: u64, w: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        // Without scalars the period is 0; the few steps of 1 find nothing.
        let period = self.period.max(1);
        let periods = (off / period * period..off + w).step_by(period as usize);
        periods.flat_map(move |base| {
            self.scalars
                .iter()
                .map(move |&(at, size)| (base + at, size))
                .filter(move |&(at, size)| at < off + w && at + size > off)
        })
    }

    /// Whether a chunk `[off, off + w)` would cut one of the scalars that
    /// lie inside the `n` bytes moved (one that reaches past them is cut by
    /// the end of the copy whatever the chunks are).
    fn cuts(&self, off: u64, w: u64, n: u64) -> bool {
        self.scalars_over(off, w)
            .any(|(at, size)| at + size <= n && (at < off || at + size > off + w))
    }
}

/// The layout [`Object`] keeps of a pointee type: its scalars and its
/// size. Arrays repeat their element, so the element is enough; a type
/// of more scalars than a copy may move counts as unknown.
fn layout(pointee: &CType) -> (Vec<(u64, u64)>, u64) {
    let mut ty = pointee;
    while let CType::Array { elem, .. } = ty {
        ty = elem;
    }
    let size = ty.size().unwrap_or(0);
    if size == 0 || leaf_count(ty) > MAX_COPY_LEAVES {
        return (Vec::new(), 0);
    }
    let mut leaves = Vec::new();
    scalar_leaves(ty, 0, &mut leaves);
    let scalars: Vec<(u64, u64)> = leaves
        .into_iter()
        .filter_map(|(off, t)| Some((off, t.size()?)))
        .collect();
    if scalars.iter().all(|&(_, size)| size == 1) {
        // Bytes alone (a `char` buffer, a `uchar4`) are raw storage.
        return (Vec::new(), 0);
    }
    (scalars, size)
}

/// The alignment a pointer of type `ty` guarantees: its pointee's (C's
/// rule for an object of that type), 1 for `void *`.
fn pointee_align(ty: &CType) -> u64 {
    match ty.pointee() {
        Some(p) if p.size().is_some_and(|s| s > 0) => p.align().max(1),
        _ => 1,
    }
}

/// The lowest set bit of `x`, the alignment an offset of `x` bytes keeps
/// (`u64::MAX` for 0: it keeps any).
fn offset_align(x: u64) -> u64 {
    if x == 0 {
        u64::MAX
    } else {
        1 << x.trailing_zeros()
    }
}

/// The widest chunk at `off` of a copy of `n` bytes, for the rules in the
/// module docs.
fn chunk_width(off: u64, n: u64, objects: &[&Object]) -> u64 {
    let mut w = MAX_CHUNK.min(1 << (n - off).ilog2());
    for o in objects {
        w = w.min(o.align_at(off));
    }
    let widest = objects
        .iter()
        .flat_map(|o| o.scalars_over(off, 1))
        .map(|(_, size)| size)
        .max();
    if let Some(widest) = widest {
        w = w.min(widest.next_power_of_two());
    }
    while w > 1 && objects.iter().any(|o| o.cuts(off, w, n)) {
        w /= 2;
    }
    w
}

/// The chunks of `n` bytes between `objects`, or `None` when there would
/// be more than [`MAX_COPY_LEAVES`] (the caller loops instead).
fn plan(n: u64, objects: &[&Object]) -> Option<Vec<Chunk>> {
    if n > MAX_CHUNK * MAX_COPY_LEAVES {
        return None;
    }
    let mut chunks = Vec::new();
    let mut off = 0;
    while off < n {
        if chunks.len() as u64 == MAX_COPY_LEAVES {
            return None;
        }
        let w = chunk_width(off, n, objects);
        let ty = match w {
            1 => Type::I8,
            2 => Type::I16,
            4 => Type::I32,
            _ => Type::I64,
        };
        chunks.push(Chunk { off, ty });
        off += w;
    }
    Some(chunks)
}

/// `byte` (the low 8 bits of `v`) repeated over the width of `ty`.
fn splat_constant(v: i64, ty: Type) -> i64 {
    let byte = (v & 0xff) as u64;
    let pattern = (0..ty.bytes()).fold(0u64, |acc, _| (acc << 8) | byte);
    // The canonical form of a constant: sign-extended from its width.
    let shift = 64 - ty.bits();
    ((pattern << shift) as i64) >> shift
}

/// What a byte loop writes.
#[derive(Clone, Copy)]
enum Fill {
    /// The byte at the same offset from this address (`memcpy`).
    From(Value),
    /// This `i8` (`memset`).
    Byte(Value),
}

impl FunctionLowerer<'_, '_> {
    /// `memcpy(args[0], args[1], args[2])`; its result, the destination.
    pub(crate) fn memcpy(&mut self, args: &[Expr]) -> Value {
        let (to, from) = (self.object(&args[0]), self.object(&args[1]));
        let dst = self.expr(&args[0]);
        let src = self.expr(&args[1]);
        let n = self.expr(&args[2]);
        let chunks = self.constant(n).and_then(|n| plan(n, &[&to, &from]));
        match chunks {
            Some(chunks) => self.copy_chunks(
                Aligned {
                    addr: dst,
                    align: to.align,
                },
                Aligned {
                    addr: src,
                    align: from.align,
                },
                &chunks,
                &CopyHints::default(),
            ),
            None => self.byte_loop(dst, Fill::From(src), n),
        }
        dst
    }

    /// `memset(args[0], args[1], args[2])`; its result, the destination.
    pub(crate) fn memset(&mut self, args: &[Expr]) -> Value {
        let to = self.object(&args[0]);
        let dst = self.expr(&args[0]);
        let value = self.expr(&args[1]);
        let n = self.expr(&args[2]);
        let Some(chunks) = self.constant(n).and_then(|n| plan(n, &[&to])) else {
            let byte = self.b.convert(Opcode::Trunc, Type::I8, value);
            self.byte_loop(dst, Fill::Byte(byte), n);
            return dst;
        };
        // One splat of each width, made where first needed.
        let mut splats: Vec<(Type, Value)> = Vec::new();
        for c in chunks {
            let v = match splats.iter().find(|(t, _)| *t == c.ty) {
                Some(&(_, v)) => v,
                None => {
                    let v = self.splat(value, c.ty);
                    splats.push((c.ty, v));
                    v
                }
            };
            let at = self.member_at(dst, c.off);
            self.b.store(v, at, offset_flags(to.align, c.off, c.ty));
        }
        dst
    }

    /// The value of `v` when it is a constant.
    fn constant(&self, v: Value) -> Option<u64> {
        self.b.func.dfg.iconst_value(v).map(|k| k as u64)
    }

    /// The low byte of the `int` `value` repeated over the width of `ty`:
    /// a constant when `value` is one, else the byte times `0x01...01`.
    fn splat(&mut self, value: Value, ty: Type) -> Value {
        if let Some(k) = self.b.func.dfg.iconst_value(value) {
            return self.b.iconst(ty, splat_constant(k, ty));
        }
        if ty == Type::I8 {
            return self.b.convert(Opcode::Trunc, Type::I8, value);
        }
        let mask = self.b.iconst(Type::I32, 0xff);
        let byte = self.b.binary(Opcode::Band, value, mask);
        let byte = match ty {
            Type::I64 => self.b.convert(Opcode::Zext, Type::I64, byte),
            Type::I32 => byte,
            _ => self.b.convert(Opcode::Trunc, ty, byte),
        };
        let ones = self.b.iconst(ty, splat_constant(1, ty));
        self.b.binary(Opcode::Imul, byte, ones)
    }

    /// `for (i = 0; i < n; ++i) dst[i] = fill;`, one byte at a time.
    fn byte_loop(&mut self, dst: Value, fill: Fill, n: Value) {
        let zero = self.b.iconst(Type::I64, 0);
        let header = self.b.create_block();
        let i = self.b.append_block_param(header, Type::I64);
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.jump(header, vec![zero]);
        self.b.switch_to_block(header);
        let more = self.b.icmp(IntCC::Ult, i, n);
        self.b.brif(more, body, vec![], exit, vec![]);
        self.b.seal_block(body);
        self.b.switch_to_block(body);
        let byte = match fill {
            Fill::From(src) => {
                let at = self.b.ptroffset(src, i);
                self.b.load(Type::I8, at, MemFlags::default())
            }
            Fill::Byte(b) => b,
        };
        let at = self.b.ptroffset(dst, i);
        self.b.store(byte, at, MemFlags::default());
        let one = self.b.iconst(Type::I64, 1);
        let next = self.b.iadd(i, one);
        self.b.jump(header, vec![next]);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
    }

    /// What the pointer argument `e` (converted to `void *`) is known to
    /// point to: the pointer as written, under its conversions, gives the
    /// layout; its type and the place it was taken from, the alignment.
    fn object(&self, e: &Expr) -> Object {
        let mut align = pointee_align(&e.ty);
        let mut written = e;
        while let ExprKind::Cast {
            kind: CastKind::PtrToPtr,
            expr,
        } = &written.kind
        {
            written = expr;
            align = align.max(pointee_align(&written.ty));
        }
        align = align.max(self.address_align(written));
        let (scalars, period) = written.ty.pointee().map_or((Vec::new(), 0), layout);
        Object {
            // Alignments are powers of two; a chunk needs no more than 16.
            align: align.min(16),
            scalars,
            period,
        }
    }

    /// The alignment the pointer `e` is known to have from how it was
    /// made (1 when nothing is known beyond its type).
    fn address_align(&self, e: &Expr) -> u64 {
        stdx::stack::with_stack(|| match &e.kind {
            ExprKind::AddrOf(place) => self.place_align(place),
            ExprKind::Cast {
                kind: CastKind::PtrToPtr,
                expr,
            } => self.pointer_align(expr),
            ExprKind::PtrAdd {
                ptr,
                offset,
                elem_size,
            }
            | ExprKind::PtrSub {
                ptr,
                offset,
                elem_size,
            } => {
                let step = match offset.kind {
                    ExprKind::IntConst(k) => (k as u64).wrapping_mul(*elem_size),
                    _ => *elem_size,
                };
                self.pointer_align(ptr).min(offset_align(step))
            }
            _ => 1,
        })
    }

    /// The alignment of the pointer `e`: its type's or its making's.
    fn pointer_align(&self, e: &Expr) -> u64 {
        pointee_align(&e.ty).max(self.address_align(e))
    }

    /// The alignment of the object a place designates.
    fn place_align(&self, place: &Place) -> u64 {
        match place {
            Place::Local(id) => self.typed.locals[id.0 as usize].ty.align(),
            Place::Global(id) => {
                let g = &self.globals.0[id.0 as usize];
                g.ty.align().max(g.align)
            }
            Place::Deref(p) => self.pointer_align(p),
            Place::Index {
                base,
                index,
                elem_size,
            } => {
                let step = match index.kind {
                    ExprKind::IntConst(k) => (k as u64).wrapping_mul(*elem_size),
                    _ => *elem_size,
                };
                self.pointer_align(base).min(offset_align(step))
            }
            Place::Field { base, offset } => self.lvalue_align(base).min(offset_align(*offset)),
        }
    }

    /// The alignment of the object the struct-typed lvalue `e` designates.
    fn lvalue_align(&self, e: &Expr) -> u64 {
        let made = match &e.kind {
            ExprKind::Local(id) => self.place_align(&Place::Local(*id)),
            ExprKind::Global(id) => self.place_align(&Place::Global(*id)),
            ExprKind::Deref(p) => self.pointer_align(p),
            ExprKind::Field { base, offset } => {
                stdx::stack::with_stack(|| self.lvalue_align(base).min(offset_align(*offset)))
            }
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => {
                let step = match index.kind {
                    ExprKind::IntConst(k) => (k as u64).wrapping_mul(*elem_size),
                    _ => *elem_size,
                };
                self.pointer_align(base).min(offset_align(step))
            }
            _ => 1,
        };
        e.ty.align().max(made)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(align: u64, ty: &CType) -> Object {
        let (scalars, period) = layout(ty);
        Object {
            align,
            scalars,
            period,
        }
    }

    fn widths(chunks: &[Chunk]) -> Vec<u32> {
        chunks.iter().map(|c| c.ty.bytes()).collect()
    }

    #[test]
    fn chunks_follow_alignment_and_scalars() {
        let f4 = CType::Array {
            elem: Box::new(CType::FLOAT),
            len: Some(4),
        };
        let int4 = crate::types::vector_type("int4").unwrap();
        // A float[4] (aligned to 16 as a member) into an int4: four words.
        let (a, b) = (object(16, &f4), object(16, &int4));
        assert_eq!(widths(&plan(16, &[&a, &b]).unwrap()), [4, 4, 4, 4]);
        // Raw memory aligned to 8 on both sides: doublewords, then the
        // tail; the same between doubles, the last one copied in part.
        let v = object(8, &CType::Void);
        assert_eq!(widths(&plan(13, &[&v, &v]).unwrap()), [8, 4, 1]);
        let d = object(8, &CType::DOUBLE);
        assert_eq!(widths(&plan(13, &[&d, &d]).unwrap()), [8, 4, 1]);
        // A `float *` known only to its type: words; with `void *`, bytes.
        let f = object(4, &CType::FLOAT);
        let bytes = object(1, &CType::Void);
        assert_eq!(widths(&plan(8, &[&f]).unwrap()), [4, 4]);
        assert_eq!(widths(&plan(3, &[&f, &bytes]).unwrap()), [1, 1, 1]);
        // A double into an int4: one doubleword holds the two whole ints.
        assert_eq!(widths(&plan(8, &[&d, &b]).unwrap()), [8]);
        // Bytes alone are raw storage: a uchar4 into a float, one word.
        let u4 = object(4, &crate::types::vector_type("uchar4").unwrap());
        assert_eq!(widths(&plan(4, &[&u4, &f]).unwrap()), [4]);
        // Halves (aligned to 16 as a member) from floats: each word holds
        // two whole halves, so words.
        let h8 = CType::Array {
            elem: Box::new(CType::Half(crate::types::HalfFormat::F16)),
            len: Some(8),
        };
        let h = object(16, &h8);
        assert_eq!(widths(&plan(16, &[&h, &a]).unwrap()), [4, 4, 4, 4]);
        assert_eq!(widths(&plan(16, &[&h, &v]).unwrap()), [2; 8]);
        // Too many accesses: the caller loops.
        assert!(plan(MAX_COPY_LEAVES + 1, &[&bytes]).is_none());
    }

    #[test]
    fn splats_repeat_the_low_byte() {
        assert_eq!(
            splat_constant(0x1ab, Type::I32),
            0xabababab_u32 as i32 as i64
        );
        assert_eq!(splat_constant(1, Type::I64), 0x0101010101010101);
        assert_eq!(splat_constant(-1, Type::I16), -1);
        assert_eq!(splat_constant(0, Type::I8), 0);
    }
}
