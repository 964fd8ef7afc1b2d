//! The control-flow graph of every function as Graphviz DOT, for pictures
//! (`kernelc --emit dot`): one cluster per function, one box per block
//! holding its header and instructions as the text format prints them, and
//! one arrow per edge of its terminator (`brif`'s labelled `then` and
//! `else`). `dot -Tsvg` draws it.

use super::printer::block_lines;
use super::PrintOptions;
use crate::ir::{Function, InstData, Module};
use std::fmt::Write;

/// The module's functions as one DOT graph.
pub fn write_module_dot(module: &Module) -> String {
    let mut out = String::from(
        "digraph kernelc {\n    node [shape=box, fontname=\"monospace\", fontsize=10];\n",
    );
    for (index, func) in module.functions.values().enumerate() {
        write_function_cluster(&mut out, index, func, module);
    }
    out.push_str("}\n");
    out
}

/// One function as a `subgraph cluster_N`; node names are `fN_blockM`, so
/// the clusters never share a node.
fn write_function_cluster(out: &mut String, index: usize, func: &Function, module: &Module) {
    let node = |block: crate::ir::Block| format!("f{index}_{block}");
    let _ = writeln!(out, "    subgraph cluster_{index} {{");
    let _ = writeln!(out, "        label=\"@{}\";", escape(&func.name));
    for &block in func.layout.blocks() {
        let (header, insts) = block_lines(func, Some(module), PrintOptions::default(), block);
        let mut label = escape(&header) + "\\l";
        for inst in &insts {
            label.push_str("    ");
            label.push_str(&escape(inst));
            label.push_str("\\l");
        }
        let _ = writeln!(out, "        {} [label=\"{label}\"];", node(block));
    }
    for &block in func.layout.blocks() {
        let Some(last) = func.layout.last_inst(block) else {
            continue;
        };
        let data = &func.dfg.insts[last];
        let labels: &[&str] = match data {
            InstData::Brif { .. } => &["then", "else"],
            _ => &[],
        };
        for (i, dest) in data.branch_destinations().iter().enumerate() {
            let attrs = labels
                .get(i)
                .map(|l| format!(" [label=\"{l}\"]"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "        {} -> {}{attrs};",
                node(block),
                node(dest.block)
            );
        }
    }
    out.push_str("    }\n");
}

/// A DOT string's text: `"` and `\` escaped, and no raw line breaks.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\l")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    #[test]
    fn a_loop_is_boxes_and_labelled_arrows() {
        let module = parse_module(
            "kernel external @k(i32) {\nblock0(v0: i32):\n    jump block1(v0)\n\nblock1(v1: i32):\n    v2 = iconst.i32 1\n    v3 = isub v1, v2\n    brif v3, block1(v3), block2\n\nblock2:\n    return\n}\n",
        )
        .unwrap();
        let dot = write_module_dot(&module);
        assert!(dot.starts_with("digraph kernelc {\n"), "{dot}");
        assert!(dot.contains("label=\"@k\""), "{dot}");
        assert!(dot.contains("f0_block1 [label=\"block1(v1: i32):\\l    v2 = iconst.i32 1\\l    v3 = isub v1, v2\\l    brif v3, block1(v3), block2\\l\"];"), "{dot}");
        assert!(dot.contains("f0_block0 -> f0_block1;"), "{dot}");
        assert!(
            dot.contains("f0_block1 -> f0_block1 [label=\"then\"];"),
            "{dot}"
        );
        assert!(
            dot.contains("f0_block1 -> f0_block2 [label=\"else\"];"),
            "{dot}"
        );
        assert!(dot.ends_with("    }\n}\n"), "{dot}");
    }

    #[test]
    fn quotes_and_backslashes_are_escaped() {
        assert_eq!(escape("a\"b\\c"), "a\\\"b\\\\c");
    }
}
