//! Dominators, by the iterative algorithm of Cooper, Harvey and Kennedy
//! ("A Simple, Fast Dominance Algorithm", 2001).
//!
//! Block `a` dominates `b` when every path from the entry to `b` passes
//! through `a`. The algorithm numbers blocks in reverse post-order, then
//! repeatedly sets each block's immediate dominator to the common ancestor
//! (in the tree built so far) of its already-processed predecessors, until
//! nothing changes. Unreachable blocks have no dominator and dominate nothing.

use crate::ir::{Block, Function};
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;

#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    /// Reachable blocks in reverse post-order (the entry first).
    rpo: Vec<Block>,
    /// Position of each reachable block in `rpo`, plus one (0 = unreachable).
    rpo_number: SecondaryMap<Block, u32>,
    idom: SecondaryMap<Block, PackedOption<Block>>,
}

impl DominatorTree {
    pub fn compute(func: &Function) -> DominatorTree {
        let mut tree = DominatorTree::default();
        let Some(entry) = func.layout.entry_block() else {
            return tree;
        };
        tree.compute_rpo(func, entry);
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in &tree.rpo {
            for s in func.successors(b) {
                if !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        tree.idom[entry] = entry.into();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in tree.rpo.iter().skip(1) {
                let mut new_idom: Option<Block> = None;
                for &p in &preds[b] {
                    if tree.idom[p].is_none() {
                        continue; // not processed yet (or unreachable)
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => tree.intersect(p, cur),
                    });
                }
                if let Some(d) = new_idom {
                    if tree.idom[b].expand() != Some(d) {
                        tree.idom[b] = d.into();
                        changed = true;
                    }
                }
            }
        }
        tree
    }

    /// Depth-first post-order without recursion (kernels can be long).
    fn compute_rpo(&mut self, func: &Function, entry: Block) {
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut post = Vec::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        visited[entry] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let succs = func.successors(b);
            if let Some(&s) = succs.get(*next) {
                *next += 1;
                if !visited[s] && func.layout.is_block_inserted(s) {
                    visited[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        for (i, &b) in post.iter().enumerate() {
            self.rpo_number[b] = i as u32 + 1;
        }
        self.rpo = post;
    }

    fn intersect(&self, mut a: Block, mut b: Block) -> Block {
        while a != b {
            while self.rpo_number[a] > self.rpo_number[b] {
                a = self.idom[a].expand().expect("processed block has an idom");
            }
            while self.rpo_number[b] > self.rpo_number[a] {
                b = self.idom[b].expand().expect("processed block has an idom");
            }
        }
        a
    }

    /// Reachable blocks, entry first, each after all its dominators.
    pub fn reverse_post_order(&self) -> &[Block] {
        &self.rpo
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_number[b] != 0
    }

    /// The immediate dominator (`None` for the entry and unreachable blocks).
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom[b].expand().filter(|&d| d != b)
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: Block, mut b: Block) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        loop {
            if a == b {
                return true;
            }
            // Dominators come earlier in reverse post-order.
            if self.rpo_number[b] < self.rpo_number[a] {
                return false;
            }
            match self.idom(b) {
                Some(d) => b = d,
                None => return false,
            }
        }
    }
}
