//! Addresses as constants: the pointer values a module variable's
//! initializer may hold.
//!
//! The loader places module variables and functions, so their addresses
//! are known only once the module is loaded; an initializer holds them as
//! relocations (a target and a byte offset from it), which the PTX writes
//! as `generic(buf)+32` or a function's name. What qualifies is what nvcc
//! accepts: a variable in global or constant memory (`buf`, `&buf[8]`,
//! `&s.next`, `buf + 4`), a device function (`add`, `&add`), a string
//! literal and the null pointer. The address of a local or of a
//! `__shared__` variable (one per block, so no address before a launch)
//! is refused, as nvcc refuses it.

use super::Checker;
use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{AddrTarget, CastKind, Expr, ExprKind, InitAddr, MemSpace, Place};

/// The value of a constant pointer.
enum ConstAddr {
    /// An integer address (`nullptr`, `(float *)0`).
    Int(u64),
    /// `target`'s address plus `addend` bytes.
    Reloc { target: AddrTarget, addend: i64 },
}

impl ConstAddr {
    /// This address `bytes` further on. Only a relocation's addend moves;
    /// an integer address wraps as the 64-bit pointer does.
    fn offset(self, bytes: i64) -> ConstAddr {
        match self {
            ConstAddr::Int(a) => ConstAddr::Int(a.wrapping_add(bytes as u64)),
            ConstAddr::Reloc { target, addend } => ConstAddr::Reloc {
                target,
                addend: addend.wrapping_add(bytes),
            },
        }
    }
}

impl Checker {
    /// The 8 bytes of the pointer `e` at byte `offset` of an initializer:
    /// zero for null and for an address, which goes into `addrs`.
    pub(super) fn pointer_bytes(
        &mut self,
        offset: u64,
        e: &Expr,
        addrs: &mut Vec<InitAddr>,
    ) -> Option<[u8; 8]> {
        match self.const_addr(e)? {
            ConstAddr::Int(0) => Some([0; 8]),
            ConstAddr::Int(_) => {
                // Memory-space inference takes a pointer loaded from memory
                // for one the host or a relocation put there: global.
                self.error(
                    e.span,
                    Code::E0002,
                    "an integer address other than 0 in a module variable's initializer is not supported by kernelc",
                );
                None
            }
            ConstAddr::Reloc { addend, .. } if addend < 0 => {
                self.error(
                    e.span,
                    Code::E0009,
                    "an address before the start of its object cannot be a module variable's initial value (PTX can only add to an address there)",
                );
                None
            }
            ConstAddr::Reloc { target, addend } => {
                addrs.push(InitAddr {
                    offset,
                    target,
                    addend,
                });
                Some([0; 8])
            }
        }
    }

    /// The constant address `e` (of pointer type) stands for; reports why
    /// not at `e` (E0009) and gives `None` otherwise.
    fn const_addr(&mut self, e: &Expr) -> Option<ConstAddr> {
        stdx::stack::with_stack(|| match &e.kind {
            ExprKind::IntConst(v) => Some(ConstAddr::Int(*v as u64)),
            ExprKind::Str(bytes) => Some(ConstAddr::Reloc {
                target: AddrTarget::Str(bytes.clone()),
                addend: 0,
            }),
            ExprKind::FuncAddr { callee, .. } => Some(ConstAddr::Reloc {
                target: AddrTarget::Func(*callee),
                addend: 0,
            }),
            ExprKind::AddrOf(place) => self.place_addr(place, e.span),
            ExprKind::Cast {
                kind: CastKind::PtrToPtr,
                expr,
            } => self.const_addr(expr),
            ExprKind::Cast {
                kind: CastKind::IntToPtr,
                expr,
            } => match self.const_int(expr) {
                Some(v) => Some(ConstAddr::Int(v as u64)),
                None => self.not_an_address(e.span),
            },
            ExprKind::PtrAdd {
                ptr,
                offset,
                elem_size,
            } => self.moved_addr(ptr, offset, *elem_size as i64),
            ExprKind::PtrSub {
                ptr,
                offset,
                elem_size,
            } => self.moved_addr(ptr, offset, -(*elem_size as i64)),
            _ => self.not_an_address(e.span),
        })
    }

    /// `ptr + offset * step` with a constant `offset`.
    fn moved_addr(&mut self, ptr: &Expr, offset: &Expr, step: i64) -> Option<ConstAddr> {
        let base = self.const_addr(ptr)?;
        let Some(k) = self.const_int(offset) else {
            return self.not_an_address(offset.span);
        };
        Some(base.offset((k as i64).wrapping_mul(step)))
    }

    /// The address of the object `place` designates.
    fn place_addr(&mut self, place: &Place, span: Span) -> Option<ConstAddr> {
        match place {
            Place::Global(g) => {
                let var = &self.globals[g.0 as usize];
                if var.space == MemSpace::Shared {
                    self.error(
                        span,
                        Code::E0009,
                        format!(
                            "the address of `__shared__` variable `{}` is not a constant: each block has its own",
                            var.name
                        ),
                    );
                    return None;
                }
                Some(ConstAddr::Reloc {
                    target: AddrTarget::Global(*g),
                    addend: 0,
                })
            }
            Place::Local(_) => {
                self.error(
                    span,
                    Code::E0009,
                    "the address of a local variable is not a constant",
                );
                None
            }
            Place::Deref(p) => self.const_addr(p),
            Place::Index {
                base,
                index,
                elem_size,
            } => self.moved_addr(base, index, *elem_size as i64),
            Place::Field { base, offset } => Some(self.lvalue_addr(base)?.offset(*offset as i64)),
        }
    }

    /// The address of the object the lvalue `e` reads (the base of a
    /// member access: `n.next`, `arr[2].v`).
    fn lvalue_addr(&mut self, e: &Expr) -> Option<ConstAddr> {
        match &e.kind {
            ExprKind::Global(g) => self.place_addr(&Place::Global(*g), e.span),
            ExprKind::Local(l) => self.place_addr(&Place::Local(*l), e.span),
            ExprKind::Deref(p) => self.const_addr(p),
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => self.moved_addr(base, index, *elem_size as i64),
            ExprKind::Field { base, offset } => {
                Some(self.lvalue_addr(base)?.offset(*offset as i64))
            }
            _ => self.not_an_address(e.span),
        }
    }

    fn not_an_address(&mut self, span: Span) -> Option<ConstAddr> {
        self.error(
            span,
            Code::E0009,
            "a pointer in a module variable's initializer must be a constant address: of a `__device__` or `__constant__` variable, a function or a string literal, plus a constant offset",
        );
        None
    }
}
