//! Parallel copies: how block arguments become `mov`s.
//!
//! A branch `jump block1(v8, v6)` means "assign v8 and v6 to block1's
//! parameters *at the same time*". Written naively as one `mov` after the
//! other, a swap such as `jump header(b, a)` (params `a, b`) would read a
//! value already overwritten. [`sequentialize`] orders the copies so that
//! no destination is written while a later copy still needs to read it, and
//! breaks cycles (swaps, rotations) with one temporary register each.

use crate::minst::{Operand, Reg};

/// One `dst := src` of a parallel copy.
#[derive(Clone, PartialEq, Debug)]
pub struct Copy {
    pub dst: Reg,
    pub src: Operand,
}

/// Orders a parallel copy into sequential moves. Destinations must be
/// distinct. `new_temp` makes a fresh register of the given register's class
/// (used once per cycle). Returns the moves in execution order.
pub fn sequentialize(copies: &[Copy], mut new_temp: impl FnMut(Reg) -> Reg) -> Vec<Copy> {
    // A copy onto itself does nothing.
    let mut pending: Vec<Copy> = copies
        .iter()
        .filter(|c| c.src != Operand::Reg(c.dst))
        .cloned()
        .collect();
    let mut out = Vec::new();
    while !pending.is_empty() {
        // A copy is safe to do now if no other pending copy still reads its
        // destination.
        let ready = (0..pending.len()).find(|&i| {
            let dst = Operand::Reg(pending[i].dst);
            !pending
                .iter()
                .enumerate()
                .any(|(j, c)| j != i && c.src == dst)
        });
        match ready {
            Some(i) => out.push(pending.remove(i)),
            None => {
                // Every destination is still read by someone: the copies form
                // cycles. Save one destination in a temporary and let its
                // readers read the temporary; that breaks the cycle.
                let dst = pending[0].dst;
                let temp = new_temp(dst);
                out.push(Copy {
                    dst: temp,
                    src: Operand::Reg(dst),
                });
                for c in &mut pending {
                    if c.src == Operand::Reg(dst) {
                        c.src = Operand::Reg(temp);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minst::RegClass;
    use rustc_hash::FxHashMap;

    fn r(n: u32) -> Reg {
        Reg {
            class: RegClass::B32,
            num: n,
        }
    }

    /// Runs the sequential moves on a register file and returns it.
    fn run(moves: &[Copy], init: &FxHashMap<u32, i64>) -> FxHashMap<u32, i64> {
        let mut regs = init.clone();
        for m in moves {
            let v = match &m.src {
                Operand::Reg(s) => regs[&s.num],
                Operand::Imm(i) => *i,
                _ => unreachable!(),
            };
            regs.insert(m.dst.num, v);
        }
        regs
    }

    #[test]
    fn swap_and_rotation_use_temporaries() {
        let init: FxHashMap<u32, i64> = (1..=10).map(|n| (n, n as i64 * 100)).collect();
        // r1 <-> r2, rotation r3 <- r4 <- r5 <- r3, plus r6 <- 7, r7 <- r1.
        let par = vec![
            Copy {
                dst: r(1),
                src: r(2).into(),
            },
            Copy {
                dst: r(2),
                src: r(1).into(),
            },
            Copy {
                dst: r(3),
                src: r(4).into(),
            },
            Copy {
                dst: r(4),
                src: r(5).into(),
            },
            Copy {
                dst: r(5),
                src: r(3).into(),
            },
            Copy {
                dst: r(6),
                src: Operand::Imm(7),
            },
            Copy {
                dst: r(7),
                src: r(1).into(),
            },
            Copy {
                dst: r(8),
                src: r(8).into(),
            },
        ];
        let mut next = 100;
        let moves = sequentialize(&par, |_| {
            next += 1;
            r(next)
        });
        let after = run(&moves, &init);
        for c in &par {
            let want = match &c.src {
                Operand::Reg(s) => init[&s.num],
                Operand::Imm(i) => *i,
                _ => unreachable!(),
            };
            assert_eq!(after[&c.dst.num], want, "{:?}", c.dst);
        }
        // Two cycles need exactly two temporaries; the self-copy disappears.
        assert_eq!(next, 102);
        assert!(moves.iter().all(|m| m.dst != r(8)));
    }
}
