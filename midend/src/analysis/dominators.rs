//! Dominators, by the iterative algorithm of Cooper, Harvey and Kennedy
//! ("A Simple, Fast Dominance Algorithm", 2001).
//!
//! Block `a` dominates `b` when every path from the entry to `b` passes
//! through `a`. The algorithm numbers blocks in reverse post-order, then
//! repeatedly sets each block's immediate dominator to the common ancestor
//! (in the tree built so far) of its already-processed predecessors, until
//! nothing changes. Unreachable blocks have no dominator and dominate nothing.

use crate::ir::{Block, Function};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    /// Reachable blocks in reverse post-order (the entry first).
    rpo: Vec<Block>,
    /// Position of each reachable block in `rpo`, plus one (0 = unreachable).
    rpo_number: SecondaryMap<Block, u32>,
    idom: SecondaryMap<Block, PackedOption<Block>>,
    /// The dominator tree's children of each block, in reverse post-order:
    /// those of the block at `rpo[i]` are
    /// `child_list[child_start[i]..child_start[i + 1]]` (one flat list, not a
    /// vector per block: passes build this tree many times per function).
    child_start: Vec<u32>,
    child_list: Vec<Block>,
    /// Entry and exit numbers of a depth-first walk of the dominator tree:
    /// `a` dominates `b` exactly when `b`'s interval nests in `a`'s, which
    /// makes `dominates` constant-time (the verifier asks it for every use).
    pre: SecondaryMap<Block, u32>,
    post: SecondaryMap<Block, u32>,
    /// Blocks in dominator-tree preorder (each after its immediate dominator).
    preorder: Vec<Block>,
}

impl DominatorTree {
    /// The dominator tree of a well-formed function.
    pub fn compute(func: &Function) -> DominatorTree {
        match func.layout.entry_block() {
            Some(entry) => Self::with_successors(entry, |b| {
                func.successors(b)
                    .into_iter()
                    .filter(|&s| func.layout.is_block_inserted(s))
                    .collect::<SmallVec<[Block; 2]>>()
            }),
            None => DominatorTree::default(),
        }
    }

    /// The dominator tree of the graph that `succs` describes, from `entry`.
    /// The verifier uses this form, because it must not trust the function's
    /// branches to name valid blocks.
    pub fn with_successors<S: AsRef<[Block]>>(
        entry: Block,
        succs: impl Fn(Block) -> S,
    ) -> DominatorTree {
        let mut tree = DominatorTree::default();
        tree.compute_rpo(entry, &succs);
        // Predecessors of the block at `rpo[i]`, flat as the children are.
        let n = tree.rpo.len();
        let mut edges: Vec<(u32, Block)> = Vec::with_capacity(n * 2);
        for &b in &tree.rpo {
            for &s in succs(b).as_ref() {
                edges.push((tree.rpo_number[s] - 1, b));
            }
        }
        let (pred_start, pred_list) = group_by_index(n, &edges);
        tree.idom[entry] = entry.into();
        let mut changed = true;
        while changed {
            changed = false;
            for (i, &b) in tree.rpo.iter().enumerate().skip(1) {
                let mut new_idom: Option<Block> = None;
                for &p in &pred_list[pred_start[i] as usize..pred_start[i + 1] as usize] {
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
        tree.number_tree(entry);
        tree
    }

    /// Builds the children lists and the pre/post numbering, without
    /// recursion.
    fn number_tree(&mut self, entry: Block) {
        let edges: Vec<(u32, Block)> = self
            .rpo
            .iter()
            .skip(1)
            .filter_map(|&b| self.idom(b).map(|d| (self.rpo_number[d] - 1, b)))
            .collect();
        (self.child_start, self.child_list) = group_by_index(self.rpo.len(), &edges);
        let mut clock = 0u32;
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        self.pre[entry] = clock;
        self.preorder.push(entry);
        while let Some((b, next)) = stack.last_mut() {
            if let Some(&c) = self.children(*b).get(*next) {
                *next += 1;
                clock += 1;
                self.pre[c] = clock;
                self.preorder.push(c);
                stack.push((c, 0));
            } else {
                clock += 1;
                self.post[*b] = clock;
                stack.pop();
            }
        }
    }

    /// The blocks `b` immediately dominates.
    pub fn children(&self, b: Block) -> &[Block] {
        match self.rpo_number[b] {
            0 => &[],
            k => {
                let i = k as usize - 1;
                &self.child_list[self.child_start[i] as usize..self.child_start[i + 1] as usize]
            }
        }
    }

    /// Reachable blocks in dominator-tree preorder: every block comes after
    /// all blocks that dominate it, and a block's dominator subtree is
    /// contiguous.
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }

    /// Depth-first post-order without recursion (kernels can be long).
    fn compute_rpo<S: AsRef<[Block]>>(&mut self, entry: Block, succs: &impl Fn(Block) -> S) {
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut post = Vec::new();
        // Each frame: a block, its successors, and how many were explored.
        let mut stack: Vec<(Block, S, usize)> = vec![(entry, succs(entry), 0)];
        visited[entry] = true;
        while let Some((b, out, next)) = stack.last_mut() {
            if let Some(&s) = out.as_ref().get(*next) {
                *next += 1;
                if !visited[s] {
                    visited[s] = true;
                    stack.push((s, succs(s), 0));
                }
            } else {
                post.push(*b);
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
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

/// `(index, block)` pairs (each index below `n`) as one flat list grouped by
/// index, keeping the pairs' order within a group: the group of index `i`
/// is `list[start[i]..start[i + 1]]`.
fn group_by_index(n: usize, pairs: &[(u32, Block)]) -> (Vec<u32>, Vec<Block>) {
    let mut start = vec![0u32; n + 1];
    for &(i, _) in pairs {
        start[i as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut list = vec![Block::from_u32(0); pairs.len()];
    for &(i, b) in pairs {
        list[fill[i as usize] as usize] = b;
        fill[i as usize] += 1;
    }
    (start, list)
}
