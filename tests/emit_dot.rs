//! `--emit dot`: the CFG of every function as Graphviz DOT. Without
//! Graphviz on the test machines, the graph is checked for what `dot`
//! needs: balanced braces, every arrow between declared nodes, and one box
//! per block of the IR printed by `--emit ir-opt`.

mod common;

use common::{kernelc, stdout};
use std::collections::BTreeSet;

#[test]
fn every_block_is_a_box_and_every_edge_an_arrow() {
    for sample in ["samples/matmul_clamp.cu", "samples/cp_async_copy.cu"] {
        let dot = kernelc(&[sample, "--emit", "dot"]);
        assert!(dot.status.success(), "{sample}: {}", common::stderr(&dot));
        let dot = stdout(&dot);
        let ir = stdout(&kernelc(&[sample, "--emit", "ir-opt"]));
        assert!(dot.starts_with("digraph kernelc {"), "{dot}");
        assert_eq!(dot.matches('{').count(), dot.matches('}').count(), "{dot}");
        let nodes: BTreeSet<&str> = dot
            .lines()
            .filter(|l| l.contains(" [label=\"block"))
            .map(|l| l.trim().split(' ').next().unwrap())
            .collect();
        let blocks = ir.lines().filter(|l| l.starts_with("block")).count();
        assert_eq!(nodes.len(), blocks, "{sample}: one box per block\n{dot}");
        for edge in dot.lines().filter(|l| l.contains(" -> ")) {
            let mut ends = edge.trim().trim_end_matches(';').split(" -> ");
            let from = ends.next().unwrap();
            let to = ends.next().unwrap().split(' ').next().unwrap();
            assert!(nodes.contains(from) && nodes.contains(to), "{edge}");
        }
        let functions = ir
            .lines()
            .filter(|l| l.starts_with("kernel ") || l.starts_with("device "))
            .count();
        assert_eq!(dot.matches("subgraph cluster_").count(), functions, "{dot}");
    }
}
