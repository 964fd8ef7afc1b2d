//! Dominators, by the Semi-NCA algorithm (Georgiadis, Tarjan and Werneck,
//! "Finding Dominators in Practice", 2006).
//!
//! Block `a` dominates `b` when every path from the entry to `b` passes
//! through `a`. A depth-first walk numbers the blocks in preorder and
//! records each one's parent in the walk. The *semidominator* of `w` is
//! the smallest-numbered block from which a path reaches `w` through
//! blocks numbered above `w` only; walking the blocks from the last to the
//! first, it is the smallest semidominator found along the already-walked
//! ancestors of each predecessor (a forest with path compression keeps
//! those queries cheap). The immediate dominator is then the nearest
//! common ancestor, in the dominator tree built so far in preorder, of the
//! parent and the semidominator: start from the parent and climb while
//! above the semidominator. Unreachable blocks have no dominator and
//! dominate nothing.
//!
//! (The iterative algorithm of Cooper, Harvey and Kennedy, used before,
//! walks up the partial tree from every predecessor: quadratic on a
//! `switch` of thousands of cases, whose exit block has a predecessor at
//! every depth of the chain of case tests.)

use crate::ir::{Block, Function};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
        let walk = tree.compute_rpo(entry, &succs);
        let idom = semi_nca(&walk);
        for (i, &d) in idom.iter().enumerate() {
            tree.idom[walk.vertex[i]] = walk.vertex[d as usize].into();
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

    /// One depth-first walk without recursion (kernels can be long): the
    /// reverse post-order goes into the tree; the preorder, the walk's
    /// parents and the predecessors (by preorder number) come back for
    /// [`semi_nca`].
    fn compute_rpo<S: AsRef<[Block]>>(
        &mut self,
        entry: Block,
        succs: &impl Fn(Block) -> S,
    ) -> Walk {
        // Preorder number plus one (0 = not reached yet).
        let mut pre: SecondaryMap<Block, u32> = SecondaryMap::new();
        let mut walk = Walk {
            vertex: vec![entry],
            parent: vec![0],
            pred_start: Vec::new(),
            pred_list: Vec::new(),
        };
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut post = Vec::new();
        // Each frame: a block, its successors, and how many were explored.
        let mut stack: Vec<(Block, S, usize)> = vec![(entry, succs(entry), 0)];
        pre[entry] = 1;
        while let Some((b, out, next)) = stack.last_mut() {
            if let Some(&s) = out.as_ref().get(*next) {
                *next += 1;
                let from = pre[*b] - 1;
                if pre[s] == 0 {
                    pre[s] = walk.vertex.len() as u32 + 1;
                    walk.vertex.push(s);
                    walk.parent.push(from);
                    stack.push((s, succs(s), 0));
                }
                edges.push((pre[s] - 1, from));
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        post.reverse();
        // The tree's tables sized once, to the last reachable block: grown
        // one index at a time, as the numbering met new blocks, their
        // resizing cost more than the numbering.
        let size = post
            .iter()
            .map(|&b| cranelift_entity::EntityRef::index(b) + 1)
            .max()
            .unwrap_or(0);
        self.rpo_number.resize(size);
        self.idom.resize(size);
        self.pre.resize(size);
        self.post.resize(size);
        for (i, &b) in post.iter().enumerate() {
            self.rpo_number[b] = i as u32 + 1;
        }
        self.rpo = post;
        (walk.pred_start, walk.pred_list) = group_by_index(walk.vertex.len(), &edges);
        walk
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

/// The depth-first walk [`semi_nca`] needs, every block named by its
/// preorder number.
struct Walk {
    /// The block of each preorder number (the entry is 0).
    vertex: Vec<Block>,
    /// The walk's parent of each block (the entry's is itself).
    parent: Vec<u32>,
    /// The predecessors of block `i`:
    /// `pred_list[pred_start[i]..pred_start[i + 1]]`.
    pred_start: Vec<u32>,
    pred_list: Vec<u32>,
}

/// The immediate dominator of every block of `walk`, by preorder number
/// (the entry's is itself).
fn semi_nca(walk: &Walk) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let n = walk.vertex.len();
    // semi[i]: the semidominator found so far. The forest of walked blocks
    // links each to its parent; `label[i]` is the block of smallest
    // semidominator on the compressed path from `i` up to its root.
    let mut semi: Vec<u32> = (0..n as u32).collect();
    let mut label: Vec<u32> = (0..n as u32).collect();
    let mut ancestor: Vec<u32> = vec![NONE; n];
    let mut path: Vec<u32> = Vec::new();
    for w in (1..n).rev() {
        let preds = &walk.pred_list[walk.pred_start[w] as usize..walk.pred_start[w + 1] as usize];
        for &v in preds {
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            if semi[u as usize] < semi[w] {
                semi[w] = semi[u as usize];
            }
        }
        ancestor[w] = walk.parent[w];
    }
    let mut idom = walk.parent.clone();
    for w in 1..n {
        let mut d = idom[w];
        while d > semi[w] {
            d = idom[d as usize];
        }
        idom[w] = d;
    }
    idom
}

/// The block of smallest semidominator on the forest path from `v` up to
/// (not including) its root, compressing the path on the way (without
/// recursion: the path can be thousands of blocks long).
fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    const NONE: u32 = u32::MAX;
    if ancestor[v as usize] == NONE {
        return v;
    }
    // Climb to the block just below the root, then fold the labels down.
    path.clear();
    let mut x = v;
    while ancestor[ancestor[x as usize] as usize] != NONE {
        path.push(x);
        x = ancestor[x as usize];
    }
    while let Some(y) = path.pop() {
        let a = ancestor[y as usize] as usize;
        if semi[label[a] as usize] < semi[label[y as usize] as usize] {
            label[y as usize] = label[a];
        }
        ancestor[y as usize] = ancestor[a];
    }
    label[v as usize]
}

/// `(index, item)` pairs (each index below `n`) as one flat list grouped by
/// index, keeping the pairs' order within a group: the group of index `i`
/// is `list[start[i]..start[i + 1]]`.
fn group_by_index<T: Copy>(n: usize, pairs: &[(u32, T)]) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for &(i, _) in pairs {
        start[i as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let Some(&(_, any)) = pairs.first() else {
        return (start, Vec::new());
    };
    let mut fill = start.clone();
    let mut list = vec![any; pairs.len()];
    for &(i, b) in pairs {
        list[fill[i as usize] as usize] = b;
        fill[i as usize] += 1;
    }
    (start, list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;
    use proptest::prelude::*;

    /// Dominators by definition: `a` dominates `b` when `b` cannot be
    /// reached from the entry with `a` removed.
    fn brute_dominates(n: usize, succ: &[Vec<usize>], a: usize, b: usize) -> bool {
        let reach = |skip: Option<usize>| {
            let mut seen = vec![false; n];
            let mut stack = vec![];
            if skip != Some(0) {
                seen[0] = true;
                stack.push(0);
            }
            while let Some(x) = stack.pop() {
                for &s in &succ[x] {
                    if Some(s) != skip && !seen[s] {
                        seen[s] = true;
                        stack.push(s);
                    }
                }
            }
            seen
        };
        let all = reach(None);
        all[a] && all[b] && (a == b || !reach(Some(a))[b])
    }

    fn check(n: usize, succ: &[Vec<usize>]) {
        let blocks: Vec<Block> = (0..n).map(Block::new).collect();
        let tree = DominatorTree::with_successors(blocks[0], |b| {
            succ[b.index()]
                .iter()
                .map(|&s| blocks[s])
                .collect::<Vec<_>>()
        });
        for a in 0..n {
            for b in 0..n {
                assert_eq!(
                    tree.dominates(blocks[a], blocks[b]),
                    brute_dominates(n, succ, a, b),
                    "{a} dom {b} in {succ:?}"
                );
            }
            // The immediate dominator is the closest strict dominator.
            if let Some(d) = tree.idom(blocks[a]) {
                let d = d.index();
                assert!(brute_dominates(n, succ, d, a) && d != a);
                for c in 0..n {
                    if c != a && brute_dominates(n, succ, c, a) {
                        assert!(
                            brute_dominates(n, succ, c, d),
                            "{succ:?}: idom({a}) = {d}, {c}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn switch_chain_and_loop_exits() {
        // 0 tests 1..: test k branches to case k and to test k + 1; every
        // case jumps to the exit (the last block).
        let cases = 40;
        let exit = 2 * cases + 1;
        let mut succ = vec![vec![]; exit + 1];
        for k in 0..cases {
            succ[2 * k].extend([2 * k + 1, 2 * k + 2]);
            succ[2 * k + 1].push(exit);
        }
        succ[2 * cases].push(exit);
        check(exit + 1, &succ);
        // An irreducible pair entered from both sides, and a self loop.
        check(5, &[vec![1, 2], vec![2, 3], vec![1, 4], vec![3, 4], vec![]]);
    }

    proptest! {
        #[test]
        fn semi_nca_matches_the_definition(
            n in 2usize..14,
            edges in proptest::collection::vec((0usize..14, 0usize..14), 0..40),
        ) {
            let mut succ = vec![vec![]; n];
            for (a, b) in edges {
                succ[a % n].push(b % n);
            }
            check(n, &succ);
        }
    }
}
