//! Natural loops: headers, bodies, latches, exits, preheaders and nesting.
//!
//! A *back edge* is an edge `latch -> header` where the header dominates the
//! latch. The natural loop of a header is the header plus every block that
//! reaches one of its latches without passing through the header. All back
//! edges to one header make one loop (a `continue` adds a second latch).
//!
//! Two natural loops are either disjoint or one holds the other, so loops
//! form a forest: the *parent* of a loop is the smallest loop that strictly
//! contains it. [`LoopAnalysis::loops`] lists inner loops before outer ones,
//! which is the order loop passes want (hoist out of the inner loop first,
//! so the outer loop sees what came out).
//!
//! Irreducible cycles (entered at more than one block, so no block dominates
//! the others) have no back edge in this sense and are not loops here: the
//! passes leave them alone.
//!
//! The cost is one dominator tree plus, per loop, a backward walk over its
//! body: O(blocks × nesting depth).

use super::DominatorTree;
use crate::ir::{Block, BlockCall, Function, InstData};
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The block every iteration starts in; it dominates the whole body.
    pub header: Block,
    /// Every block of the loop, the header and the inner loops' blocks included.
    pub blocks: BTreeSet<Block>,
    /// The blocks with a back edge to the header.
    pub latches: Vec<Block>,
    /// The edges that leave the loop: (block inside, block outside).
    pub exits: Vec<(Block, Block)>,
    /// The blocks outside the loop with an edge to the header, sorted, each
    /// once. [`ensure_preheader`] keeps it right (the new preheader
    /// replaces them); passes that change other edges into a header must
    /// not trust it for that loop afterwards.
    pub entering: Vec<Block>,
    /// The one block outside the loop that enters it, when it has the header
    /// as its only successor (and the header is not the entry block).
    pub preheader: Option<Block>,
    /// Index (in [`LoopAnalysis::loops`]) of the smallest enclosing loop.
    pub parent: Option<usize>,
    /// 1 for an outermost loop, 2 for a loop inside it, ...
    pub depth: u32,
}

impl Loop {
    pub fn contains(&self, b: Block) -> bool {
        self.blocks.contains(&b)
    }

    /// The blocks inside the loop that have an edge out of it.
    pub fn exiting_blocks(&self) -> Vec<Block> {
        let mut out: Vec<Block> = self.exits.iter().map(|&(from, _)| from).collect();
        out.dedup();
        out
    }
}

/// The loops of a function, inner loops first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopAnalysis {
    pub loops: Vec<Loop>,
}

impl LoopAnalysis {
    pub fn compute(func: &Function, domtree: &DominatorTree) -> LoopAnalysis {
        Self::with_predecessors(func, domtree, &func.predecessors())
    }

    /// [`LoopAnalysis::compute`] with the predecessors at hand
    /// ([`Function::predecessors`]).
    pub fn with_predecessors(
        func: &Function,
        domtree: &DominatorTree,
        preds: &SecondaryMap<Block, Vec<Block>>,
    ) -> LoopAnalysis {
        let rpo = domtree.reverse_post_order();
        let mut loops = Vec::new();
        for &header in rpo {
            let mut latches: Vec<Block> = preds[header]
                .iter()
                .copied()
                .filter(|&p| domtree.dominates(header, p))
                .collect();
            latches.sort();
            latches.dedup();
            if latches.is_empty() {
                continue;
            }
            let mut blocks: BTreeSet<Block> = [header].into();
            let mut work = latches.clone();
            while let Some(b) = work.pop() {
                if blocks.insert(b) {
                    work.extend(
                        preds[b]
                            .iter()
                            .copied()
                            .filter(|&p| domtree.is_reachable(p)),
                    );
                }
            }
            let mut exits: Vec<(Block, Block)> = Vec::new();
            for &b in &blocks {
                for s in func.successors(b) {
                    // A block's exits are pushed together: a duplicate edge
                    // (a `brif` with both sides on one block) is among them
                    // (searching every exit was quadratic in a loop with
                    // thousands of `break`s).
                    let repeated = exits
                        .iter()
                        .rev()
                        .take_while(|e| e.0 == b)
                        .any(|e| e.1 == s);
                    if !blocks.contains(&s) && !repeated {
                        exits.push((b, s));
                    }
                }
            }
            // Every edge into the header from outside, unreachable blocks
            // included (a new preheader takes them all over).
            let outside: Vec<Block> = preds[header]
                .iter()
                .copied()
                .filter(|p| !blocks.contains(p))
                .collect();
            let reachable: Vec<Block> = outside
                .iter()
                .copied()
                .filter(|&p| domtree.is_reachable(p))
                .collect();
            let preheader = match reachable.as_slice() {
                [only]
                    if func.successors(*only).iter().all(|&s| s == header)
                        && Some(header) != func.entry_block() =>
                {
                    Some(*only)
                }
                _ => None,
            };
            let mut entering = outside;
            entering.sort();
            entering.dedup();
            loops.push(Loop {
                header,
                blocks,
                latches,
                exits,
                entering,
                preheader,
                parent: None,
                depth: 1,
            });
        }
        // Inner (smaller) loops first; a loop strictly inside another is
        // always smaller, so the sort puts every child before its parent.
        loops.sort_by_key(|l| (l.blocks.len(), l.header));
        // Parents, smallest loops first: a loop adopts every loop found in
        // its blocks that has no parent yet (going up from the innermost
        // one seen there). Linear in the loops' sizes times the depth,
        // where asking every larger loop would be quadratic in the number
        // of loops.
        let mut innermost: FxHashMap<Block, usize> = FxHashMap::default();
        for i in 0..loops.len() {
            let blocks: Vec<Block> = loops[i].blocks.iter().copied().collect();
            for b in blocks {
                match innermost.get(&b) {
                    Some(&k) => {
                        let mut top = k;
                        while let Some(p) = loops[top].parent {
                            top = p;
                        }
                        if top != i {
                            loops[top].parent = Some(i);
                        }
                    }
                    None => {
                        innermost.insert(b, i);
                    }
                }
            }
        }
        for i in (0..loops.len()).rev() {
            loops[i].depth = loops[i].parent.map_or(1, |p| loops[p].depth + 1);
        }
        LoopAnalysis { loops }
    }

    /// The innermost loop holding `b`.
    pub fn innermost(&self, b: Block) -> Option<usize> {
        self.loops.iter().position(|l| l.contains(b))
    }

    /// The innermost loop of every block in a loop, at once: linear in the
    /// loops' sizes, where asking [`innermost`](Self::innermost) per block
    /// costs the number of loops each time.
    pub fn innermost_map(&self) -> FxHashMap<Block, usize> {
        let mut map = FxHashMap::default();
        // Inner loops come first, so the first loop seen holding a block is
        // its innermost.
        for (index, lp) in self.loops.iter().enumerate() {
            for &b in &lp.blocks {
                map.entry(b).or_insert(index);
            }
        }
        map
    }
}

/// Gives loop `index` a preheader if it has none: a new block that takes the
/// header's parameters and jumps to the header, to which every entering edge
/// is redirected. The new block is added to the enclosing loops' bodies, so
/// the analysis stays valid. Returns the preheader and whether it is new.
///
/// A new preheader is **not** placed in the layout yet: the caller places
/// it, best just before the header, with `Layout::insert_blocks_before`
/// (once for all the preheaders it made, so the cost stays linear).
pub fn ensure_preheader(
    func: &mut Function,
    analysis: &mut LoopAnalysis,
    index: usize,
) -> (Block, bool) {
    if let Some(pre) = analysis.loops[index].preheader {
        return (pre, false);
    }
    let header = analysis.loops[index].header;
    let entering = std::mem::take(&mut analysis.loops[index].entering);
    let pre = func.dfg.make_block();
    let types: Vec<_> = func
        .dfg
        .block_params(header)
        .iter()
        .map(|&p| func.dfg.value_type(p))
        .collect();
    let args: Vec<_> = types
        .into_iter()
        .map(|t| func.dfg.append_block_param(pre, t))
        .collect();
    for b in entering {
        if let Some(term) = func.layout.last_inst(b) {
            for dest in func.dfg.insts[term].branch_destinations_mut() {
                if dest.block == header {
                    dest.block = pre;
                }
            }
        }
    }
    func.append_inst(
        pre,
        InstData::Jump {
            dest: BlockCall::new(header, args),
        },
        &[],
    );
    // A hint belongs to the header, which keeps it.
    let mut up = analysis.loops[index].parent;
    while let Some(p) = up {
        analysis.loops[p].blocks.insert(pre);
        up = analysis.loops[p].parent;
    }
    analysis.loops[index].preheader = Some(pre);
    analysis.loops[index].entering = vec![pre];
    (pre, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    const NEST: &str = "\
kernel external @k(i32) {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v1)

block1(v2: i32):
    v3 = icmp slt v2, v0
    brif v3, block2(v1), block5

block2(v4: i32):
    v5 = icmp slt v4, v0
    brif v5, block3, block4

block3:
    v6 = iconst.i32 1
    v7 = iadd v4, v6
    jump block2(v7)

block4:
    v8 = iconst.i32 1
    v9 = iadd v2, v8
    jump block1(v9)

block5:
    return
}
";

    #[test]
    fn finds_nested_loops_with_their_parts() {
        let module = parse_module(NEST).unwrap();
        let func = module.functions.values().next().unwrap();
        let dt = DominatorTree::compute(func);
        let la = LoopAnalysis::compute(func, &dt);
        assert_eq!(la.loops.len(), 2);
        let inner = &la.loops[0];
        let outer = &la.loops[1];
        assert_eq!(inner.header, Block::from_u32(2));
        assert_eq!(
            inner.blocks,
            [Block::from_u32(2), Block::from_u32(3)].into()
        );
        assert_eq!(inner.latches, vec![Block::from_u32(3)]);
        assert_eq!(inner.exits, vec![(Block::from_u32(2), Block::from_u32(4))]);
        assert_eq!(inner.parent, Some(1));
        assert_eq!(inner.depth, 2);
        // block1 branches elsewhere too, so the inner loop has no preheader.
        assert_eq!(inner.preheader, None);
        assert_eq!(outer.header, Block::from_u32(1));
        assert_eq!(outer.blocks.len(), 4);
        assert_eq!(outer.latches, vec![Block::from_u32(4)]);
        assert_eq!(outer.exits, vec![(Block::from_u32(1), Block::from_u32(5))]);
        assert_eq!(outer.preheader, Some(Block::from_u32(0)));
        assert_eq!(outer.depth, 1);
        assert_eq!(la.innermost(Block::from_u32(3)), Some(0));
        assert_eq!(la.innermost(Block::from_u32(4)), Some(1));
        assert_eq!(la.innermost(Block::from_u32(5)), None);
        let map = la.innermost_map();
        for b in 0..8 {
            let b = Block::from_u32(b);
            assert_eq!(map.get(&b).copied(), la.innermost(b), "{b}");
        }
    }

    #[test]
    fn a_made_preheader_joins_the_enclosing_loop() {
        let mut module = parse_module(NEST).unwrap();
        let func = module.functions.values_mut().next().unwrap();
        let dt = DominatorTree::compute(func);
        let mut la = LoopAnalysis::compute(func, &dt);
        let (pre, new) = ensure_preheader(func, &mut la, 0);
        assert!(new);
        func.layout
            .insert_blocks_before(&[(Block::from_u32(2), vec![pre])].into_iter().collect());
        assert!(la.loops[1].contains(pre));
        assert_eq!(func.successors(pre).as_slice(), [Block::from_u32(2)]);
        assert_eq!(func.successors(Block::from_u32(1))[0], pre);
        assert!(crate::verifier::verify_function(func, None).is_ok());
        // Recomputing agrees with the update.
        let dt = DominatorTree::compute(func);
        let again = LoopAnalysis::compute(func, &dt);
        assert_eq!(again.loops[0].preheader, Some(pre));
        assert_eq!(again.loops[1].blocks, la.loops[1].blocks);
    }
}
