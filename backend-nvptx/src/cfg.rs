//! The control-flow graph of a selected function's flat instruction list.
//!
//! Instruction selection produces one flat `Vec<MInst>` with labels and
//! branches; the writer never needs more. Register allocation and the
//! `--emit mir` dump do: they want basic blocks and edges. This module
//! recovers them from the text-like form, so the selector stays simple.

use crate::minst::{Label, MInst};
use core::fmt;
use rustc_hash::FxHashMap;

/// A branch to a label the function does not have (a selection bug).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownLabel(pub Label);

impl fmt::Display for UnknownLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "branch to unknown label `{}`", self.0)
    }
}

/// A straight-line region of the body: `body[start..end]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MBlock {
    pub start: usize,
    pub end: usize,
    /// The label that opens the block, if any (it is `body[start]`).
    pub label: Option<Label>,
    /// Successors: the `bra` target first, then the fall-through block.
    pub succs: Vec<usize>,
    /// Predecessors, once per edge (a block may appear twice when both
    /// edges of a conditional branch lead to the same place).
    pub preds: Vec<usize>,
}

impl MBlock {
    /// Whether the block runs into the next one without a `bra`/`ret`.
    pub fn falls_through(&self, body: &[MInst]) -> bool {
        !matches!(
            body[self.end - 1],
            MInst::Ret | MInst::Bra { guard: None, .. }
        )
    }

    /// Whether the block ends with a conditional branch (two edges).
    pub fn ends_in_cond_branch(&self, body: &[MInst]) -> bool {
        matches!(body[self.end - 1], MInst::Bra { guard: Some(_), .. })
    }
}

/// Splits `body` into basic blocks: a block starts at the first instruction,
/// at every label, and after every branch or return.
pub fn build(body: &[MInst]) -> Result<Vec<MBlock>, UnknownLabel> {
    let mut starts = Vec::new();
    for (i, inst) in body.iter().enumerate() {
        let after_jump = i > 0 && matches!(body[i - 1], MInst::Bra { .. } | MInst::Ret);
        if i == 0 || after_jump || matches!(inst, MInst::Label(_)) {
            starts.push(i);
        }
    }
    let mut blocks: Vec<MBlock> = starts
        .iter()
        .enumerate()
        .map(|(b, &start)| MBlock {
            start,
            end: starts.get(b + 1).copied().unwrap_or(body.len()),
            label: match &body[start] {
                MInst::Label(l) => Some(l.clone()),
                _ => None,
            },
            succs: Vec::new(),
            preds: Vec::new(),
        })
        .collect();
    let by_label: FxHashMap<Label, usize> = blocks
        .iter()
        .enumerate()
        .filter_map(|(b, blk)| blk.label.clone().map(|l| (l, b)))
        .collect();
    for b in 0..blocks.len() {
        let next = (b + 1 < blocks.len()).then_some(b + 1);
        let mut succs = Vec::new();
        match &body[blocks[b].end - 1] {
            MInst::Ret => {}
            MInst::Bra { guard, target } => {
                let t = *by_label
                    .get(target)
                    .ok_or_else(|| UnknownLabel(target.clone()))?;
                succs.push(t);
                if guard.is_some() {
                    succs.extend(next);
                }
            }
            _ => succs.extend(next),
        }
        blocks[b].succs = succs;
    }
    for b in 0..blocks.len() {
        for s in blocks[b].succs.clone() {
            blocks[s].preds.push(b);
        }
    }
    Ok(blocks)
}

/// Which blocks the entry block reaches.
pub fn reachable(blocks: &[MBlock]) -> Vec<bool> {
    let mut seen = vec![false; blocks.len()];
    let mut stack = Vec::new();
    if !blocks.is_empty() {
        stack.push(0);
    }
    while let Some(b) = stack.pop() {
        if !std::mem::replace(&mut seen[b], true) {
            stack.extend(blocks[b].succs.iter().copied());
        }
    }
    seen
}
