//! `--emit mir`: the machine IR as text, for people.
//!
//! The PTX writer prints the flat instruction list; this shows the same
//! instructions with the structure the backend reasons about: each block
//! with its label, predecessors and successors (from [`crate::cfg`]), the
//! register counts per class and the function's shape. It is what register
//! allocation sees and produces, so it is the place to debug either.

use crate::cfg;
use crate::mfunc::{class_index, MFunction};
use crate::minst::{MInst, RegClass};
use core::fmt::Write;

fn block_list(blocks: &[usize]) -> String {
    let names: Vec<String> = blocks.iter().map(|b| format!("bb{b}")).collect();
    names.join(", ")
}

/// Prints one function. Errors only if its branches name unknown labels.
pub fn write_function(out: &mut String, f: &MFunction) -> Result<(), cfg::UnknownLabel> {
    let kind = if f.is_kernel { ".entry" } else { ".func" };
    let vis = match f.linkage {
        midend::ir::Linkage::External => " visible",
        midend::ir::Linkage::Weak => " weak",
        midend::ir::Linkage::Internal => "",
    };
    let _ = writeln!(out, "function {} ({kind}{vis}) {{", f.name);
    for p in &f.params {
        match p.bytes {
            Some((size, align)) => {
                let _ = writeln!(out, "  param .b8[{size}] align {align} {}", p.name);
            }
            None => {
                let _ = writeln!(out, "  param {} {}", p.ty, p.name);
            }
        }
    }
    if let Some(ty) = f.ret {
        let _ = writeln!(out, "  return {ty}");
    }
    if let Some((size, align)) = f.ret_bytes {
        let _ = writeln!(out, "  return .b8[{size}] align {align}");
    }
    for l in &f.locals {
        let _ = writeln!(out, "  local {}[{}] align {}", l.name, l.size, l.align);
    }
    let regs: Vec<String> = RegClass::ALL
        .iter()
        .filter(|&&c| f.max_reg[class_index(c)] > 0)
        .map(|&c| {
            format!(
                "{} {}1..{}",
                c.decl_type(),
                c.prefix(),
                f.max_reg[class_index(c)]
            )
        })
        .collect();
    if !regs.is_empty() {
        let _ = writeln!(out, "  regs {}", regs.join(", "));
    }
    let blocks = cfg::build(&f.body)?;
    let live = cfg::reachable(&blocks);
    for (b, blk) in blocks.iter().enumerate() {
        let _ = write!(out, "bb{b}:");
        if let Some(l) = &blk.label {
            let _ = write!(out, " {l}");
        }
        if !blk.preds.is_empty() {
            let _ = write!(out, "  ; preds {}", block_list(&blk.preds));
        }
        if !blk.succs.is_empty() {
            let _ = write!(out, "  ; succs {}", block_list(&blk.succs));
        }
        if !live[b] {
            out.push_str("  ; unreachable");
        }
        out.push('\n');
        for inst in &f.body[blk.start..blk.end] {
            if !matches!(inst, MInst::Label(_)) {
                let _ = writeln!(out, "    {inst}");
            }
        }
        if blk.falls_through(&f.body) && !blk.succs.is_empty() {
            let _ = writeln!(out, "    ; falls through to bb{}", b + 1);
        }
    }
    out.push_str("}\n");
    Ok(())
}
