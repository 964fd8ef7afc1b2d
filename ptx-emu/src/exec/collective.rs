//! Warp collectives and block barriers: what happens once the threads
//! that take part have all stopped at them.
//!
//! The lanes of one warp waiting at the same collective form a group; each
//! lane's member mask must name only lanes of the group (or lanes that have
//! finished), else it is warp divergence. All lanes read their inputs
//! before any writes its result.

use super::{e, Exec, Flow, State, Thread, R};
use crate::decode::{AtomOp, BarRed, Op, ShflMode, VoteMode};
use crate::ops;
use crate::program::{Inst, Operand, Ty};
use crate::{FaultKind, RunError};
use std::collections::BTreeMap;

/// The operand holding a collective's member mask, if it has one (without
/// one, the lanes present take part).
fn mask_operand(op: &Op) -> Option<usize> {
    match op {
        Op::Shfl(_) => Some(4),
        Op::Vote(_) | Op::Redux { .. } | Op::Match { .. } => Some(2),
        Op::WarpSync => Some(0),
        // `.sync.aligned`: the whole warp, checked by `resolve_tensor`.
        _ => None,
    }
}

/// One lane's result: the value, and `shfl`'s in-range predicate.
type LaneResult = (u64, Option<u64>);

impl Exec<'_> {
    /// Resolves every group of lanes of one warp waiting at the same warp
    /// collective; returns whether any thread can run again.
    pub(super) fn resolve_warp(&mut self, threads: &mut [Thread]) -> Result<bool, RunError> {
        let mut groups: BTreeMap<(u32, usize, usize), Vec<usize>> = BTreeMap::new();
        for (i, t) in threads.iter().enumerate() {
            if let State::AtWarp(f, pc) = t.state {
                groups.entry((t.linear / 32, f, pc)).or_default().push(i);
            }
        }
        let progress = !groups.is_empty();
        for ((warp, f, pc), members) in groups {
            let inst = &self.func(f).insts[pc];
            let masks = self.member_masks(threads, &members, warp, inst)?;
            if let Op::Tensor(op) = inst.op {
                self.resolve_tensor(threads, &members, inst, op)?;
            } else {
                let results = self.warp_results(threads, &members, &masks, inst)?;
                for (&i, (v, p)) in members.iter().zip(results) {
                    self.write_warp_result(&mut threads[i], inst, v, p)?;
                }
            }
            for &i in &members {
                threads[i].frames.last_mut().expect("frame").pc += 1;
                threads[i].state = State::Running;
            }
        }
        Ok(progress)
    }

    /// Each member's mask, checked: a lane in it that is neither in the
    /// group nor finished waits elsewhere, which is divergence.
    fn member_masks(
        &self,
        threads: &[Thread],
        members: &[usize],
        warp: u32,
        inst: &Inst,
    ) -> Result<Vec<u32>, RunError> {
        let lane = |i: usize| threads[i].linear % 32;
        let present: u32 = members.iter().fold(0, |m, &i| m | (1 << lane(i)));
        let mask_op = mask_operand(&inst.op).and_then(|k| inst.args.get(k));
        let mut masks = Vec::with_capacity(members.len());
        for &i in members {
            let m = match mask_op {
                Some(o) => {
                    self.get(&threads[i], o, Ty::B32)
                        .map_err(|x| self.fault(&threads[i], x, vec![]))? as u32
                }
                None => present,
            };
            for l in 0..32u32 {
                if m & (1 << l) == 0 || present & (1 << l) != 0 {
                    continue;
                }
                let j = (warp * 32 + l) as usize;
                if j < threads.len() && threads[j].state != State::Done {
                    let opcode = inst.name.split('.').next().unwrap_or("");
                    let msg = format!(
                        "warp divergence: lane {l} is in the member mask {m:#010x} of this `{opcode}` but waits at another instruction"
                    );
                    return Err(self.fault(
                        &threads[i],
                        e(FaultKind::BarrierDivergence, msg),
                        vec![],
                    ));
                }
            }
            masks.push(m);
        }
        Ok(masks)
    }

    /// Operand `k` of `inst` in thread `i`, as a located error if it fails.
    fn lane_value(
        &self,
        threads: &[Thread],
        i: usize,
        inst: &Inst,
        k: usize,
        ty: Ty,
    ) -> Result<u64, RunError> {
        super::arg(inst, k)
            .and_then(|o| self.get(&threads[i], o, ty))
            .map_err(|x| self.fault(&threads[i], x, vec![]))
    }

    /// Every member's result of a shuffle, vote, reduction, match or
    /// `activemask` (nothing for `bar.warp.sync`).
    fn warp_results(
        &self,
        threads: &[Thread],
        members: &[usize],
        masks: &[u32],
        inst: &Inst,
    ) -> Result<Vec<LaneResult>, RunError> {
        let lane = |i: usize| threads[i].linear % 32;
        let val = |i: usize, k: usize, ty: Ty| self.lane_value(threads, i, inst, k, ty);
        let inputs = |k: usize, ty: Ty| -> Result<Vec<u64>, RunError> {
            members.iter().map(|&i| val(i, k, ty)).collect()
        };
        // The members whose lanes a mask names, with their inputs.
        let voters = |m: u32, xs: &[u64]| -> Vec<(u32, u64)> {
            members
                .iter()
                .zip(xs)
                .filter(|(&j, _)| m & (1 << lane(j)) != 0)
                .map(|(&j, &x)| (lane(j), x))
                .collect()
        };
        let present: u32 = members.iter().fold(0, |m, &i| m | (1 << lane(i)));
        Ok(match inst.op {
            Op::Activemask => vec![(u64::from(present), None); members.len()],
            Op::Shfl(mode) => {
                let a = inputs(1, Ty::B32)?;
                let mut results = Vec::with_capacity(members.len());
                for (k, &i) in members.iter().enumerate() {
                    let b = val(i, 2, Ty::B32)? as u32;
                    let c = val(i, 3, Ty::B32)? as u32;
                    let (src, ok) = shuffle_source(mode, lane(i), b, c);
                    let from = members.iter().position(|&m| lane(m) == src).unwrap_or(k);
                    results.push((a[from], Some(u64::from(ok))));
                }
                results
            }
            Op::Vote(mode) => {
                let ps = inputs(1, Ty::PRED)?;
                masks
                    .iter()
                    .map(|&m| (vote(mode, &voters(m, &ps)), None))
                    .collect()
            }
            Op::Redux { op, ty } => {
                let xs = inputs(1, ty)?;
                masks
                    .iter()
                    .map(|&m| (reduce(op, ty, &voters(m, &xs)), None))
                    .collect()
            }
            Op::Match { all, ty } => {
                let xs = inputs(1, ty)?;
                masks
                    .iter()
                    .zip(&xs)
                    .map(|(&m, &mine)| match_lanes(all, mine, &voters(m, &xs)))
                    .collect()
            }
            _ => vec![(0, None); members.len()],
        })
    }

    /// Writes one lane's collective result (`d|p` for a shuffle or a
    /// `match.all`).
    fn write_warp_result(
        &self,
        t: &mut Thread,
        inst: &Inst,
        v: u64,
        p: Option<u64>,
    ) -> Result<(), RunError> {
        let ty = match inst.op {
            Op::WarpSync => return Ok(()),
            Op::Vote(mode) if mode != VoteMode::Ballot => Ty::PRED,
            _ => Ty::B32,
        };
        let r = match (inst.args.first(), p) {
            (Some(Operand::Pair(d, q)), Some(p)) => self
                .set(t, d, v, ty)
                .and_then(|_| self.set(t, q, p, Ty::PRED)),
            (Some(d), _) => self.set(t, d, v, ty),
            (None, _) => Ok(()),
        };
        r.map_err(|x| self.fault(t, x, vec![]))
    }

    /// Releases a block barrier that every live thread waits at; a barrier
    /// that some threads wait at while others have finished is divergence.
    pub(super) fn release_barrier(&mut self, threads: &mut [Thread]) -> Result<(), RunError> {
        let waiting: Vec<usize> = (0..threads.len())
            .filter(|&i| matches!(threads[i].state, State::AtBarrier(..)))
            .collect();
        if let Some(done) = threads.iter().find(|t| t.state == State::Done) {
            let [x, y, z] = done.tid;
            let first = &threads[waiting[0]];
            let msg = format!(
                "barrier divergence: {} of {} threads of the block wait at a barrier that the other {} have returned without reaching",
                waiting.len(),
                threads.len(),
                threads.len() - waiting.len()
            );
            return Err(self.fault(
                first,
                e(FaultKind::BarrierDivergence, msg),
                vec![format!("thread ({x},{y},{z}), for one, returned")],
            ));
        }
        // `bar.red`: combine the predicates of every waiting thread.
        let (mut count, mut all, mut any) = (0u64, true, false);
        for &i in &waiting {
            let Some(inst) = self.barrier_inst(&threads[i]) else {
                continue;
            };
            if let Op::Barrier { red: Some(_) } = inst.op {
                let last = inst.args.len().saturating_sub(1);
                let p = self.lane_value(threads, i, inst, last, Ty::PRED)? & 1 == 1;
                count += u64::from(p);
                all &= p;
                any |= p;
            }
        }
        for &i in &waiting {
            if let Some(inst) = self.barrier_inst(&threads[i]) {
                let result = match inst.op {
                    Op::Barrier {
                        red: Some(BarRed::Popc),
                    } => Some((count, Ty::U32)),
                    Op::Barrier {
                        red: Some(BarRed::And),
                    } => Some((u64::from(all), Ty::PRED)),
                    Op::Barrier {
                        red: Some(BarRed::Or),
                    } => Some((u64::from(any), Ty::PRED)),
                    _ => None,
                };
                if let (Some((v, ty)), Some(d)) = (result, inst.args.first()) {
                    self.set(&mut threads[i], d, v, ty)
                        .map_err(|x| self.fault(&threads[i], x, vec![]))?;
                }
            }
            threads[i].frames.last_mut().expect("frame").pc += 1;
            threads[i].state = State::Running;
        }
        Ok(())
    }

    /// `barrier.cluster.arrive`: the thread counts in the cluster barrier's
    /// phase and goes on. Arriving again before waiting is undefined in
    /// PTX (the phase it would count in is ambiguous), so it is a fault.
    pub(super) fn cluster_arrive(&mut self, t: &mut Thread) -> R<Flow> {
        if t.cluster_arrived.is_some() {
            return Err(e(
                FaultKind::BarrierDivergence,
                "the thread arrives at the cluster barrier again without a `barrier.cluster.wait` after its last arrival",
            ));
        }
        t.cluster_arrived = Some(self.cluster_phase);
        Ok(Flow::Next)
    }

    /// `barrier.cluster.wait`: goes on once the phase the thread arrived in
    /// has ended, else waits for it (`exec::release_cluster_barrier`).
    pub(super) fn cluster_wait(&mut self, t: &mut Thread) -> R<Flow> {
        match t.cluster_arrived {
            None => Err(e(
                FaultKind::BarrierDivergence,
                "`barrier.cluster.wait` without a `barrier.cluster.arrive` before it",
            )),
            Some(phase) if phase < self.cluster_phase => {
                t.cluster_arrived = None;
                Ok(Flow::Next)
            }
            Some(_) => {
                t.state = State::AtClusterWait;
                Ok(Flow::Stop)
            }
        }
    }

    /// The barrier instruction thread `t` waits at.
    fn barrier_inst(&self, t: &Thread) -> Option<&Inst> {
        match t.state {
            State::AtBarrier(f, pc) => self.func(f).insts.get(pc),
            _ => None,
        }
    }
}

/// `vote`'s result for one lane, given the lanes its mask names and their
/// predicates.
fn vote(mode: VoteMode, voters: &[(u32, u64)]) -> u64 {
    let ballot: u32 = voters
        .iter()
        .filter(|v| v.1 & 1 == 1)
        .fold(0, |acc, v| acc | (1 << v.0));
    let count = voters.len() as u32;
    u64::from(match mode {
        VoteMode::Ballot => return u64::from(ballot),
        VoteMode::All => ballot.count_ones() == count,
        VoteMode::Any => ballot != 0,
        VoteMode::Uni => ballot == 0 || ballot.count_ones() == count,
    })
}

/// `redux`'s result for one lane: its operation over the named lanes'
/// values, in lane order.
fn reduce(op: AtomOp, ty: Ty, voters: &[(u32, u64)]) -> u64 {
    voters
        .iter()
        .map(|v| v.1)
        .reduce(|acc, x| ops::atomic(op, ty, acc, x))
        .unwrap_or(0)
}

/// `match`'s result for one lane whose value is `mine`, given the lanes its
/// mask names and their values: `any` gives the lanes with the same value;
/// `all` gives them all, and a true predicate, when every value is the
/// same, else 0 and false.
fn match_lanes(all: bool, mine: u64, voters: &[(u32, u64)]) -> LaneResult {
    let lanes = |keep: &dyn Fn(u64) -> bool| {
        voters
            .iter()
            .filter(|v| keep(v.1))
            .fold(0u32, |acc, v| acc | (1 << v.0))
    };
    let same = lanes(&|x| x == mine);
    if !all {
        return (u64::from(same), None);
    }
    let agree = same == lanes(&|_| true);
    (
        if agree { u64::from(same) } else { 0 },
        Some(u64::from(agree)),
    )
}

/// The source lane of `shfl` for `lane`, by PTX's rules (`c` packs the clamp
/// in bits 0-4 and the segment mask in bits 8-12), and whether it is in
/// range; out of range, a lane reads its own value.
fn shuffle_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let (bval, cval, segmask) = (b & 31, c & 31, (c >> 8) & 31);
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, ok) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok {
        (j as u32, true)
    } else {
        (lane, false)
    }
}
