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

/// The chapters' pictures: each SVG is what Graphviz draws of the DOT that
/// `kernelc ARGS` prints. `KERNELC_BLESS=1` redraws them (with `dot`).
const FIGURES: &[(&str, &[&str])] = &[
    (
        "docs/figures/saxpy-O0.svg",
        &["samples/saxpy.cu", "--emit", "dot", "-O0"],
    ),
    (
        "docs/figures/saxpy-O3.svg",
        &["samples/saxpy.cu", "--emit", "dot"],
    ),
];

/// Every text a DOT graph labels something with (the function, each line
/// of a block's box, the arrows' `then`/`else`), trimmed, sorted.
fn dot_texts(dot: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for line in dot.lines() {
        let Some(start) = line.find("label=\"") else {
            continue;
        };
        let mut text = String::new();
        let mut chars = line[start + 7..].chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('l') => text.push('\n'),
                    Some(other) => text.push(other),
                    None => break,
                },
                c => text.push(c),
            }
        }
        texts.extend(text.lines().map(str::trim).map(str::to_string));
    }
    texts.retain(|t| !t.is_empty());
    texts.sort();
    texts
}

/// Every text an SVG drawing shows (its `<text>` elements), unescaped,
/// trimmed, sorted.
fn svg_texts(svg: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for piece in svg.split("<text ").skip(1) {
        let body = piece.split_once('>').map_or("", |(_, rest)| rest);
        let body = body.split("</text>").next().unwrap_or("");
        let text = body
            .replace("&#160;", " ")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        texts.push(text.trim().to_string());
    }
    texts.retain(|t| !t.is_empty());
    texts.sort();
    texts
}

#[test]
fn the_chapters_figures_are_drawn_from_todays_output() {
    for (figure, args) in FIGURES {
        let out = kernelc(args);
        assert!(out.status.success(), "{figure}: {}", common::stderr(&out));
        let dot = stdout(&out);
        let path = common::root().join(figure);
        if std::env::var_os("KERNELC_BLESS").is_some() {
            let mut child = std::process::Command::new("dot")
                .arg("-Tsvg")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("KERNELC_BLESS=1 redraws the figures with Graphviz's `dot`");
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("dot's stdin")
                .write_all(dot.as_bytes())
                .expect("dot reads the graph");
            let drawn = child.wait_with_output().expect("dot draws");
            assert!(drawn.status.success(), "dot failed on {figure}");
            std::fs::write(&path, drawn.stdout).expect("the figure is writable");
            continue;
        }
        let svg = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{figure}: {e} (KERNELC_BLESS=1 draws it)"));
        assert_eq!(
            svg_texts(&svg),
            dot_texts(&dot),
            "{figure} does not show what `kernelc {}` prints today (KERNELC_BLESS=1 redraws it)",
            args.join(" ")
        );
    }
}
