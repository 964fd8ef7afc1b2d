//! Collectives: the instructions whose result depends on other threads.
//!
//! Threads run one at a time, each until it reaches a collective, a barrier
//! or its end. Then the scheduler looks at where everyone stopped:
//!
//! - **Warp collectives** (`shfl`, `vote`, `redux`, `match`, `warp_sync`, reading
//!   `activemask`): the lanes of one warp that stopped at the *same*
//!   instruction form a group and get their results together, as if they
//!   had run it in lockstep. A lane named in a member mask that has not
//!   exited but waits somewhere else would wait forever on a GPU, so it is a
//!   fault. Lanes that have exited, or do not exist (a partial last warp),
//!   simply take no part.
//! - **Block barriers** (`barrier`, `barrier_red`): once every thread that
//!   has not returned waits at one, they are all released; `barrier_red`
//!   gives each the count, and or or of the block's predicates.

use super::{raw, Exec, State, Thread};
use crate::{FaultKind, RunError};
use cranelift_entity::EntityRef;
use midend::ir::Opcode;
use midend::ir::{
    AccelOp, AddrSpace, BarrierRedOp, FuncId, Function, Inst, InstData, MatchMode, ReduxOp,
    ShuffleMode, SpecialReg, Value, ValueDef, VoteMode,
};
use std::collections::BTreeMap;

/// The bits of `v` in the thread's current frame.
fn value_of(t: &Thread, func: &Function, v: Value) -> u64 {
    let v = match func.dfg.values.get(v).map(|d| d.def) {
        Some(ValueDef::Alias(_)) => func.dfg.resolve_aliases(v),
        _ => v,
    };
    let frame = t.frames.last().expect("a waiting thread has a frame");
    frame.values.get(v.index()).copied().unwrap_or(0)
}

/// Gives the thread's collective its result.
fn set_result(t: &mut Thread, func: &Function, inst: Inst, value: u64) {
    if let Some(&r) = func.dfg.inst_results(inst).first() {
        let frame = t.frames.last_mut().expect("a waiting thread has a frame");
        if let Some(slot) = frame.values.get_mut(r.index()) {
            *slot = value;
        }
    }
}

/// The source lane of `shfl` for `lane`, by PTX's rules: `c` packs the
/// clamp value (bits 0-4) and the segment mask (bits 8-12); a source
/// outside the lane's segment reads the lane's own value.
fn shuffle_source(mode: ShuffleMode, lane: u32, b: u32, c: u32) -> u32 {
    let (bval, cval, segmask) = (b & 31, c & 31, (c >> 8) & 31);
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, ok) = match mode {
        ShuffleMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ShuffleMode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShuffleMode::Bfly => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShuffleMode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok {
        j as u32
    } else {
        lane
    }
}

/// `redux`'s result for one lane: `op` over the values of the lanes its
/// mask names that take part, in lane order (0 when there are none: PTX
/// leaves a lane outside its own mask undefined).
fn reduce(op: ReduxOp, values: impl Iterator<Item = u32>) -> u32 {
    values
        .reduce(|a, b| match op {
            ReduxOp::Add => a.wrapping_add(b),
            ReduxOp::Umin => a.min(b),
            ReduxOp::Umax => a.max(b),
            ReduxOp::Smin => (a as i32).min(b as i32) as u32,
            ReduxOp::Smax => (a as i32).max(b as i32) as u32,
            ReduxOp::And => a & b,
            ReduxOp::Or => a | b,
            ReduxOp::Xor => a ^ b,
        })
        .unwrap_or(0)
}

/// `match`'s result for one lane whose value is `mine`, given the lanes
/// its mask names that take part and their values: for `any` the lanes
/// whose value is `mine`; for `all` the lanes taking part when they all
/// have it, else 0. (PTX leaves a lane outside its own mask undefined.)
fn matching_lanes(
    mode: MatchMode,
    mine: u64,
    voters: impl Iterator<Item = (u32, u64)> + Clone,
) -> u32 {
    let lanes = |only_mine: bool| {
        voters
            .clone()
            .filter(|&(_, v)| !only_mine || v == mine)
            .fold(0u32, |m, (lane, _)| m | (1 << lane))
    };
    let same = lanes(true);
    match mode {
        MatchMode::Any => same,
        MatchMode::All if same == lanes(false) => same,
        MatchMode::All => 0,
    }
}

impl Exec<'_> {
    /// Resolves every group of lanes waiting at the same warp collective.
    /// Returns whether any thread can run again.
    pub(super) fn resolve_warp_collectives(
        &mut self,
        threads: &mut [Thread],
    ) -> Result<bool, RunError> {
        // (warp, function, instruction) -> indices of the waiting threads.
        let mut groups: BTreeMap<(u32, FuncId, Inst), Vec<usize>> = BTreeMap::new();
        // linear thread id -> index, to find the thread of a lane.
        let mut by_linear: BTreeMap<u32, usize> = BTreeMap::new();
        for (i, t) in threads.iter().enumerate() {
            by_linear.insert(t.linear, i);
            if let State::AtWarp(f, inst) = t.state {
                groups.entry((t.linear / 32, f, inst)).or_default().push(i);
            }
        }
        let progress = !groups.is_empty();
        for ((warp, fid, inst), members) in groups {
            let func = self.func(fid);
            let data = &func.dfg.insts[inst];
            let lane_of = |i: usize| threads[i].linear % 32;
            // The members a lane's mask names (vote, redux and match read them).
            let lanes_in_mask = |mask: u32| {
                members
                    .iter()
                    .copied()
                    .filter(move |&k| mask & (1 << lane_of(k)) != 0)
            };
            let present: u32 = members.iter().fold(0, |m, &i| m | (1 << lane_of(i)));
            // The member mask each lane passed (none for `activemask`).
            let mask_arg = match data {
                InstData::Shuffle { args, .. } => Some(args[3]),
                InstData::Vote { args, .. }
                | InstData::Redux { args, .. }
                | InstData::Match { args, .. } => Some(args[1]),
                InstData::Effect { arg, .. } => Some(*arg),
                _ => None,
            };
            if let InstData::Accel { op, args } = data {
                self.resolve_accel(threads, &members, fid, inst, *op, args)?;
                continue;
            }
            if let (
                InstData::Effect {
                    opcode: Opcode::WarpSync,
                    ..
                },
                Some(race),
            ) = (data, self.race.as_mut())
            {
                race.warp_sync(warp);
            }
            for &i in &members {
                let Some(m) = mask_arg else { break };
                let mask = value_of(&threads[i], func, m) as u32;
                for lane in 0..32 {
                    if mask & (1 << lane) == 0 || present & (1 << lane) != 0 {
                        continue;
                    }
                    let Some(&j) = by_linear.get(&(warp * 32 + lane)) else {
                        continue; // no such thread in a partial warp
                    };
                    if threads[j].state != State::Done {
                        let op = data.opcode();
                        let r = raw(
                            FaultKind::BarrierDivergence,
                            format!(
                                "warp divergence: lane {lane} is in the member mask {mask:#010x} of this `{op}` but waits at another instruction"
                            ),
                            fid,
                            Some(inst),
                        );
                        return Err(self.fault(&threads[i], r));
                    }
                }
            }
            let results: Vec<u64> = match data {
                InstData::SpecialReg {
                    reg: SpecialReg::ActiveMask,
                } => vec![u64::from(present); members.len()],
                InstData::Shuffle { mode, args } => members
                    .iter()
                    .map(|&i| {
                        let t = &threads[i];
                        let b = value_of(t, func, args[1]) as u32;
                        let c = value_of(t, func, args[2]) as u32;
                        let src = shuffle_source(*mode, lane_of(i), b, c);
                        // A source lane that takes no part gives the lane's own value.
                        let from = members
                            .iter()
                            .copied()
                            .find(|&k| lane_of(k) == src)
                            .unwrap_or(i);
                        value_of(&threads[from], func, args[0])
                    })
                    .collect(),
                InstData::Vote { mode, args } => members
                    .iter()
                    .map(|&i| {
                        let mask = value_of(&threads[i], func, args[1]) as u32;
                        let voters = lanes_in_mask(mask)
                            .map(|k| (lane_of(k), value_of(&threads[k], func, args[0]) & 1));
                        let ballot: u32 = voters
                            .clone()
                            .filter(|&(_, p)| p == 1)
                            .fold(0, |m, (lane, _)| m | (1 << lane));
                        let count = voters.clone().count() as u32;
                        match mode {
                            VoteMode::Ballot => u64::from(ballot),
                            VoteMode::All => u64::from(ballot.count_ones() == count),
                            VoteMode::Any => u64::from(ballot != 0),
                            VoteMode::Uni => u64::from(ballot == 0 || ballot.count_ones() == count),
                        }
                    })
                    .collect(),
                InstData::Redux { op, args } => members
                    .iter()
                    .map(|&i| {
                        let mask = value_of(&threads[i], func, args[1]) as u32;
                        let values = lanes_in_mask(mask)
                            .map(|k| value_of(&threads[k], func, args[0]) as u32);
                        u64::from(reduce(*op, values))
                    })
                    .collect(),
                InstData::Match { mode, args } => {
                    let bits = func.dfg.value_type(args[0]).bits();
                    let keep = u64::MAX >> (64 - bits);
                    let key = |k: usize| value_of(&threads[k], func, args[0]) & keep;
                    members
                        .iter()
                        .map(|&i| {
                            let mask = value_of(&threads[i], func, args[1]) as u32;
                            let voters = lanes_in_mask(mask).map(|k| (lane_of(k), key(k)));
                            u64::from(matching_lanes(*mode, key(i), voters))
                        })
                        .collect()
                }
                _ => vec![0; members.len()],
            };
            for (&i, r) in members.iter().zip(results) {
                set_result(&mut threads[i], func, inst, r);
                threads[i].state = State::Running;
            }
        }
        Ok(progress)
    }

    /// Runs a warp-wide `accel` instruction (`.sync.aligned` in PTX: the
    /// whole warp must reach it together) and releases its lanes.
    fn resolve_accel(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        fid: FuncId,
        inst: Inst,
        op: AccelOp,
        args: &[Value],
    ) -> Result<(), RunError> {
        let func = self.func(fid);
        let mut members = members.to_vec();
        members.sort_by_key(|&i| threads[i].linear % 32);
        if members.len() != 32 {
            let r = raw(
                FaultKind::BarrierDivergence,
                format!(
                    "`{}` needs all 32 lanes of the warp together, but {} reached it",
                    op.opcode(),
                    members.len()
                ),
                fid,
                Some(inst),
            );
            return Err(self.fault(&threads[members[0]], r));
        }
        let argv: Vec<Vec<u64>> = members
            .iter()
            .map(|&i| {
                args.iter()
                    .map(|&a| value_of(&threads[i], func, a))
                    .collect()
            })
            .collect();
        let space = args
            .first()
            .and_then(|&a| func.dfg.value_type(a).addr_space())
            .unwrap_or(AddrSpace::Generic);
        let results = self
            .accel_warp(threads, &members, (fid, inst), op, &argv, space)
            .map_err(|r| self.fault(&threads[members[0]], r))?;
        for (&i, vals) in members.iter().zip(results) {
            let frame = threads[i]
                .frames
                .last_mut()
                .expect("a waiting thread has a frame");
            for (&r, v) in func.dfg.inst_results(inst).iter().zip(vals) {
                if let Some(slot) = frame.values.get_mut(r.index()) {
                    *slot = v;
                }
            }
            threads[i].state = State::Running;
        }
        Ok(())
    }

    /// Releases a block barrier that every live thread waits at (or the
    /// grid barrier, once every block has parked there), computing
    /// `barrier_red` results. Threads waiting at different kinds of
    /// barrier are a fault.
    pub(super) fn release_barrier(&mut self, threads: &mut [Thread]) -> Result<(), RunError> {
        let waiting: Vec<usize> = (0..threads.len())
            .filter(|&i| matches!(threads[i].state, State::AtBarrier(..)))
            .collect();
        let red_op = |t: &Thread| match t.state {
            State::AtBarrier(f, inst) => match self.func(f).dfg.insts[inst] {
                InstData::BarrierRed { op, arg } => Some((op, f, inst, arg)),
                _ => None,
            },
            _ => None,
        };
        // The kind of barrier: its reduction, if any, and whether it is the
        // grid barrier.
        let kind = |t: &Thread| (red_op(t).map(|(op, ..)| op), self.at_grid_barrier(t));
        let first_kind = kind(&threads[waiting[0]]);
        let first = first_kind.0;
        if let Some(&odd) = waiting.iter().find(|&&i| kind(&threads[i]) != first_kind) {
            let State::AtBarrier(f, inst) = threads[odd].state else {
                unreachable!("filtered above")
            };
            let r = raw(
                FaultKind::BarrierDivergence,
                "barrier divergence: the threads of the block wait at different kinds of barrier"
                    .to_string(),
                f,
                Some(inst),
            );
            return Err(self.fault(&threads[odd], r));
        }
        if first.is_some() {
            let preds: Vec<bool> = waiting
                .iter()
                .map(|&i| {
                    let (_, f, _, arg) = red_op(&threads[i]).expect("checked above");
                    value_of(&threads[i], self.func(f), arg) & 1 == 1
                })
                .collect();
            let count = preds.iter().filter(|&&p| p).count() as u64;
            for &i in &waiting {
                let (op, f, inst, _) = red_op(&threads[i]).expect("checked above");
                let value = match op {
                    BarrierRedOp::Popc => count,
                    BarrierRedOp::And => u64::from(count == preds.len() as u64),
                    BarrierRedOp::Or => u64::from(count > 0),
                };
                let func = self.func(f);
                set_result(&mut threads[i], func, inst, value);
            }
        }
        for &i in &waiting {
            threads[i].state = State::Running;
        }
        Ok(())
    }
}
