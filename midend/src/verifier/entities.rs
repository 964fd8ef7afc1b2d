//! Phases 1 and 2: entity references and the layout.
//!
//! Phase 1 also builds the safe view of the layout ([`Ctx::blocks`]) the
//! later phases walk, leaving out what does not exist in the data-flow graph.

use super::{Ctx, VerifierErrorKind as K};
use crate::ir::{Block, Function, Inst, InstData, Layout, Value, ValueDef};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashSet;

/// Phase 1: every referenced entity exists; no operand is detached or an alias.
pub(super) fn check_entities(cx: &mut Ctx) {
    let func = cx.func;
    let dfg = &func.dfg;
    let mut seen_blocks = FxHashSet::default();
    // The block each valid instruction was first seen in (indexed, not
    // hashed: most instructions of the graph are placed).
    let mut home: SecondaryMap<Inst, PackedOption<Block>> =
        SecondaryMap::with_capacity(dfg.insts.len());
    for &block in func.layout.blocks() {
        if !dfg.blocks.is_valid(block) {
            cx.at_func(K::LayoutInvalidBlock { block });
            continue;
        }
        if !seen_blocks.insert(block) {
            cx.repeated_blocks.push(block);
            continue;
        }
        for &p in &dfg.blocks[block].params {
            if !dfg.values.is_valid(p) {
                cx.at_block(block, K::InvalidParamValue { value: p });
                cx.bad_blocks.insert(block);
            }
        }
        let mut insts = Vec::new();
        for &inst in func.layout.block_insts(block) {
            if !dfg.insts.is_valid(inst) {
                cx.at_block(block, K::LayoutInvalidInst { inst });
                continue;
            }
            if let Some(first) = home[inst].expand() {
                cx.repeated_insts.push((inst, first, block));
                continue;
            }
            home[inst] = block.into();
            insts.push(inst);
            check_inst_refs(cx, inst);
        }
        cx.blocks.push((block, insts));
    }
    for (v, data) in dfg.values.iter() {
        match data.def {
            ValueDef::Result(inst, _) if !dfg.insts.is_valid(inst) => {
                cx.at_func(K::DefinedByInvalidInst { value: v, inst });
            }
            ValueDef::Param(block, _) if !dfg.blocks.is_valid(block) => {
                cx.at_func(K::ParamOfInvalidBlock { value: v, block });
            }
            ValueDef::Alias(to) if !dfg.values.is_valid(to) => {
                cx.at_func(K::AliasOfInvalidValue { value: v, to });
            }
            _ => {}
        }
    }
}

/// The references one instruction holds.
fn check_inst_refs(cx: &mut Ctx, inst: Inst) {
    let func = cx.func;
    let dfg = &func.dfg;
    let data = &dfg.insts[inst];
    let mut bad = false;
    for &r in &dfg.results[inst] {
        if !dfg.values.is_valid(r) {
            cx.at_inst(inst, K::InvalidResultValue { value: r });
            bad = true;
        }
    }
    let mut seen: Vec<Value> = Vec::new();
    data.for_each_arg(|v| {
        if !seen.contains(&v) {
            seen.push(v)
        }
    });
    for v in seen {
        match dfg.values.get(v).map(|d| d.def) {
            None => {
                cx.at_inst(inst, K::InvalidValue { value: v });
                bad = true;
            }
            Some(ValueDef::Detached) => cx.at_inst(inst, K::DetachedUse { value: v }),
            Some(ValueDef::Alias(_)) => cx.at_inst(inst, K::AliasUse { value: v }),
            Some(_) => {}
        }
    }
    for dest in data.branch_destinations() {
        if !dfg.blocks.is_valid(dest.block) {
            cx.at_inst(inst, K::InvalidBlock { block: dest.block });
            bad = true;
        }
    }
    if let Some(flags) = data.mem_flags() {
        for &s in flags.scopes.iter().chain(&flags.noalias) {
            if !func.alias_scopes.is_valid(s) {
                cx.at_inst(inst, K::InvalidAliasScope { scope: s });
                bad = true;
            }
        }
    }
    match data {
        InstData::StackAddr { slot } if !func.stack_slots.is_valid(*slot) => {
            cx.at_inst(inst, K::InvalidStackSlot { slot: *slot });
            bad = true;
        }
        InstData::GlobalAddr { gv } => {
            if let Some(m) = cx.module {
                if !m.globals.is_valid(*gv) {
                    cx.at_inst(inst, K::InvalidGlobal { gv: *gv });
                    bad = true;
                }
            }
        }
        InstData::Call { func: callee, .. } | InstData::FuncAddr { func: callee } => {
            if let Some(m) = cx.module {
                if !m.functions.is_valid(*callee) {
                    cx.at_inst(inst, K::InvalidFunction { func: *callee });
                    bad = true;
                }
            }
        }
        _ => {}
    }
    if bad {
        cx.bad_insts.insert(inst);
    }
}

/// Phase 2: entry block, block shape, placement, definition records.
pub(super) fn check_layout(cx: &mut Ctx) {
    let func = cx.func;
    let dfg = &func.dfg;
    match func.layout.entry_block() {
        None => cx.at_func(K::NoEntryBlock),
        Some(entry) if dfg.blocks.is_valid(entry) && !cx.bad_blocks.contains(&entry) => {
            let params = dfg.block_params(entry);
            let sig = &func.signature.params;
            if params.len() != sig.len() {
                let (params, signature) = (params.len(), sig.len());
                cx.at_block(entry, K::EntryParamCount { params, signature });
            }
            for (&p, abi) in params.iter().zip(sig) {
                let ty = dfg.value_type(p);
                if ty != abi.ty {
                    let kind = K::EntryParamType {
                        value: p,
                        found: ty,
                        expected: abi.ty,
                    };
                    cx.at_block(entry, kind);
                }
            }
        }
        Some(_) => {}
    }
    for b in std::mem::take(&mut cx.repeated_blocks) {
        cx.at_func(K::BlockTwice { block: b });
    }
    for (inst, first, again) in std::mem::take(&mut cx.repeated_insts) {
        cx.at_inst(inst, K::InstListedTwice { first, again });
    }
    let blocks = cx.blocks.clone();
    for (block, insts) in &blocks {
        let block = *block;
        if func.layout.block_insts(block).is_empty() {
            cx.at_block(block, K::EmptyBlock);
        }
        if !cx.bad_blocks.contains(&block) {
            for (n, &p) in dfg.block_params(block).iter().enumerate() {
                let def = dfg.value_def(p);
                if def != ValueDef::Param(block, n as u32) {
                    cx.at_block(block, K::ParamRecord { value: p, def });
                }
            }
        }
        for (pos, &inst) in insts.iter().enumerate() {
            let opcode = dfg.insts[inst].opcode();
            if opcode.is_terminator() && pos + 1 != insts.len() {
                cx.at_inst(inst, K::TerminatorBeforeEnd { opcode });
            }
            match func.layout.inst_block(inst) {
                Some(b) if b == block => {}
                Some(placed) => cx.at_inst(
                    inst,
                    K::InstPlacedElsewhere {
                        placed,
                        listed: block,
                    },
                ),
                None => cx.at_inst(inst, K::InstNotPlaced { listed: block }),
            }
            for (n, &r) in dfg.results[inst].iter().enumerate() {
                if let Some(data) = dfg.values.get(r) {
                    if data.def != ValueDef::Result(inst, n as u32) {
                        let def = data.def;
                        cx.at_inst(inst, K::ResultRecord { value: r, def });
                    }
                }
            }
        }
        if let Some(&last) = insts.last() {
            if !dfg.insts[last].opcode().is_terminator() {
                cx.at_block(block, K::NoTerminator);
            }
        }
    }
}

/// A copy of `func` the printer can print without panicking: the layout
/// holds only valid blocks and instructions, once each, and results and
/// block parameters only valid values.
pub(super) fn printable_copy(func: &Function) -> Function {
    let mut out = func.clone();
    let dfg = &func.dfg;
    let mut layout = Layout::new();
    let mut placed = FxHashSet::default();
    for &block in func.layout.blocks() {
        if !dfg.blocks.is_valid(block) || layout.is_block_inserted(block) {
            continue;
        }
        layout.append_block(block);
        out.dfg.blocks[block]
            .params
            .retain(|&p| dfg.values.is_valid(p));
        for &inst in func.layout.block_insts(block) {
            if dfg.insts.is_valid(inst) && placed.insert(inst) {
                layout.append_inst(inst, block);
                out.dfg.results[inst].retain(|r| dfg.values.is_valid(*r));
            }
        }
    }
    out.layout = layout;
    out
}
