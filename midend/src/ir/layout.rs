//! The layout: which blocks are in the function, in what order, and which
//! instructions each holds, in what order.
//!
//! Plain vectors keep it easy to read; inserting in the middle of a block is
//! linear in the block's length, so a pass that edits many places of a long
//! block collects its edits in a [`LayoutEdits`] and applies them at once.

use super::entities::{Block, Inst};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

/// Changes to the instruction order, collected while a pass walks a
/// function and made at once by [`Layout::apply`]: one sweep per block
/// touched. Made one by one, each insertion or removal costs a scan of its
/// block and a shift, which is quadratic over a long block.
///
/// Positions are named by instructions placed before the edits: several
/// insertions before the same instruction keep the order they were asked
/// in, and an instruction both removed and used as a position still anchors
/// its insertions.
#[derive(Clone, Debug, Default)]
pub struct LayoutEdits {
    before: rustc_hash::FxHashMap<Inst, Vec<Inst>>,
    after: rustc_hash::FxHashMap<Inst, Vec<Inst>>,
    removed: rustc_hash::FxHashSet<Inst>,
}

impl LayoutEdits {
    /// Places `inst` (not placed yet) just before `at`, after the
    /// instructions placed before `at` earlier.
    pub fn insert_before(&mut self, inst: Inst, at: Inst) {
        self.before.entry(at).or_default().push(inst);
    }

    /// Places `inst` (not placed yet) just after `at`, after the
    /// instructions placed after `at` earlier.
    pub fn insert_after(&mut self, inst: Inst, at: Inst) {
        self.after.entry(at).or_default().push(inst);
    }

    /// Takes `inst` out of its block (it stays in the data-flow graph). An
    /// instruction removed and inserted elsewhere by the same edits moves.
    pub fn remove(&mut self, inst: Inst) {
        self.removed.insert(inst);
    }

    pub fn is_empty(&self) -> bool {
        self.before.is_empty() && self.after.is_empty() && self.removed.is_empty()
    }
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Layout {
    blocks: Vec<Block>,
    block_insts: SecondaryMap<Block, Vec<Inst>>,
    inst_block: SecondaryMap<Inst, PackedOption<Block>>,
    block_inserted: SecondaryMap<Block, bool>,
}

impl Layout {
    pub fn new() -> Self {
        Self::default()
    }

    /// The blocks in layout order. The first is the entry block.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Each placed block's index in layout order.
    pub fn block_positions(&self) -> rustc_hash::FxHashMap<Block, usize> {
        self.blocks
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, i))
            .collect()
    }

    pub fn entry_block(&self) -> Option<Block> {
        self.blocks.first().copied()
    }

    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.block_inserted[block]
    }

    /// Places `block` at the end of the function.
    pub fn append_block(&mut self, block: Block) {
        assert!(
            !self.block_inserted[block],
            "{block} is already in the layout"
        );
        self.blocks.push(block);
        self.block_inserted[block] = true;
    }

    /// Places new blocks: each group just before the block it is keyed by
    /// (which must be in the layout), in one sweep over the layout.
    pub fn insert_blocks_before(&mut self, groups: &rustc_hash::FxHashMap<Block, Vec<Block>>) {
        let mut order = Vec::with_capacity(self.blocks.len());
        for &b in &self.blocks {
            if let Some(group) = groups.get(&b) {
                for &nb in group {
                    assert!(!self.block_inserted[nb], "{nb} is already in the layout");
                    self.block_inserted[nb] = true;
                    order.push(nb);
                }
            }
            order.push(b);
        }
        self.blocks = order;
    }

    /// The instructions of `block`, in order.
    pub fn block_insts(&self, block: Block) -> &[Inst] {
        &self.block_insts[block]
    }

    /// The last instruction of `block` (its terminator, once the block is complete).
    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.block_insts[block].last().copied()
    }

    /// The block holding `inst`, if it is placed.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.inst_block[inst].expand()
    }

    /// Appends `inst` at the end of `block`.
    pub fn append_inst(&mut self, inst: Inst, block: Block) {
        assert!(self.inst_block[inst].is_none(), "{inst} is already placed");
        self.block_insts[block].push(inst);
        self.inst_block[inst] = block.into();
    }

    /// Puts `insts`, in this order, at the top of `block` (one splice,
    /// however many there are).
    pub fn prepend_insts(&mut self, block: Block, insts: &[Inst]) {
        for &inst in insts {
            assert!(self.inst_block[inst].is_none(), "{inst} is already placed");
            self.inst_block[inst] = block.into();
        }
        self.block_insts[block].splice(0..0, insts.iter().copied());
    }

    /// Inserts `inst` just before `before`, in the same block.
    pub fn insert_inst_before(&mut self, inst: Inst, before: Inst) {
        let block = self.inst_block(before).expect("`before` is not placed");
        let pos = self.position(before, block);
        self.block_insts[block].insert(pos, inst);
        self.inst_block[inst] = block.into();
    }

    /// Removes `inst` from its block (it stays in the data-flow graph).
    pub fn remove_inst(&mut self, inst: Inst) {
        if let Some(block) = self.inst_block(inst) {
            let pos = self.position(inst, block);
            self.block_insts[block].remove(pos);
            self.inst_block[inst] = None.into();
        }
    }

    /// Removes every instruction in `insts` from its block, in one sweep per
    /// block (removing them one by one would cost a scan each).
    pub fn remove_insts(&mut self, insts: &rustc_hash::FxHashSet<Inst>) {
        let mut blocks: Vec<Block> = insts.iter().filter_map(|&i| self.inst_block(i)).collect();
        blocks.sort();
        blocks.dedup();
        for b in blocks {
            self.block_insts[b].retain(|i| !insts.contains(i));
        }
        for &i in insts {
            self.inst_block[i] = None.into();
        }
    }

    /// Makes every change collected in `edits`, one sweep per block touched.
    pub fn apply(&mut self, edits: LayoutEdits) {
        if edits.is_empty() {
            return;
        }
        let anchors = edits
            .before
            .keys()
            .chain(edits.after.keys())
            .chain(edits.removed.iter());
        let mut blocks: Vec<Block> = anchors.filter_map(|&i| self.inst_block(i)).collect();
        blocks.sort_unstable();
        blocks.dedup();
        // Unplaced first: a removed instruction may be placed again
        // elsewhere (moved), and the sweep below places it.
        for &i in &edits.removed {
            self.inst_block[i] = None.into();
        }
        for b in blocks {
            let old = std::mem::take(&mut self.block_insts[b]);
            let mut out = Vec::with_capacity(old.len());
            for inst in old {
                if let Some(news) = edits.before.get(&inst) {
                    out.extend_from_slice(news);
                }
                if !edits.removed.contains(&inst) {
                    out.push(inst);
                }
                if let Some(news) = edits.after.get(&inst) {
                    out.extend_from_slice(news);
                }
            }
            for &i in &out {
                self.inst_block[i] = b.into();
            }
            self.block_insts[b] = out;
        }
    }

    /// Moves every instruction of `from` to the end of `to`, keeping their order.
    pub fn move_insts_to_end(&mut self, from: Block, to: Block) {
        let moved = std::mem::take(&mut self.block_insts[from]);
        for &i in &moved {
            self.inst_block[i] = to.into();
        }
        self.block_insts[to].extend(moved);
    }

    /// Removes every block in `blocks` (and their instructions) at once.
    pub fn remove_blocks(&mut self, blocks: &rustc_hash::FxHashSet<Block>) {
        self.blocks.retain(|b| !blocks.contains(b));
        for &b in blocks {
            self.block_inserted[b] = false;
            for inst in std::mem::take(&mut self.block_insts[b]) {
                self.inst_block[inst] = None.into();
            }
        }
    }

    /// Where `inst` is in `block`, searched from the end: passes mostly
    /// touch terminators and recent instructions, which this finds at once.
    fn position(&self, inst: Inst, block: Block) -> usize {
        self.block_insts[block]
            .iter()
            .rposition(|&i| i == inst)
            .expect("layout out of sync")
    }

    /// Every placed instruction, block by block.
    pub fn insts(&self) -> impl Iterator<Item = (Block, Inst)> + '_ {
        self.blocks
            .iter()
            .flat_map(move |&b| self.block_insts[b].iter().map(move |&i| (b, i)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    fn i(n: usize) -> Inst {
        Inst::new(n)
    }

    /// Two blocks: b0 = [0, 1, 2, 3], b1 = [4, 5].
    fn two_blocks() -> (Layout, Block, Block) {
        let mut l = Layout::new();
        let (b0, b1) = (Block::new(0), Block::new(1));
        l.append_block(b0);
        l.append_block(b1);
        for n in 0..4 {
            l.append_inst(i(n), b0);
        }
        for n in 4..6 {
            l.append_inst(i(n), b1);
        }
        (l, b0, b1)
    }

    #[test]
    fn edits_match_one_by_one_changes() {
        let (mut batch, b0, b1) = two_blocks();
        let (mut single, ..) = two_blocks();
        let mut e = LayoutEdits::default();
        // New 10 and 11 before 2 (in that order), 12 after 3, 13 before 5;
        // 1 removed; 0 moved before 5 (after 13).
        e.insert_before(i(10), i(2));
        e.insert_before(i(11), i(2));
        e.insert_after(i(12), i(3));
        e.insert_before(i(13), i(5));
        e.remove(i(1));
        e.remove(i(0));
        e.insert_before(i(0), i(5));
        batch.apply(e);

        single.insert_inst_before(i(10), i(2));
        single.insert_inst_before(i(11), i(2));
        single.append_inst(i(12), b0);
        single.insert_inst_before(i(13), i(5));
        single.remove_inst(i(1));
        single.remove_inst(i(0));
        single.insert_inst_before(i(0), i(5));

        assert_eq!(batch.block_insts(b0), &[i(10), i(11), i(2), i(3), i(12)]);
        assert_eq!(batch.block_insts(b1), &[i(4), i(13), i(0), i(5)]);
        assert_eq!(batch, single);
        assert_eq!(batch.inst_block(i(0)), Some(b1));
        assert_eq!(batch.inst_block(i(1)), None);
        assert_eq!(batch.inst_block(i(12)), Some(b0));
    }

    #[test]
    fn a_removed_anchor_still_places_its_insertions() {
        let (mut l, b0, _) = two_blocks();
        let mut e = LayoutEdits::default();
        e.insert_before(i(7), i(1));
        e.insert_after(i(8), i(1));
        e.remove(i(1));
        l.apply(e);
        assert_eq!(l.block_insts(b0), &[i(0), i(7), i(8), i(2), i(3)]);
        let untouched = l.clone();
        l.apply(LayoutEdits::default());
        assert_eq!(l, untouched);
    }
}
