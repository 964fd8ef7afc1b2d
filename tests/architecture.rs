//! ARCHITECTURE.md's list of crates and their workspace dependencies is the
//! truth of the `Cargo.toml`s, and the judges (ptx-validate, ptx-emu) import
//! no part of the compiler.

mod common;

use std::collections::{BTreeMap, BTreeSet};

/// The workspace's crates: (name, folder).
const CRATES: &[(&str, &str)] = &[
    ("kernelc", "."),
    ("frontend", "frontend"),
    ("midend", "midend"),
    ("backend-nvptx", "backend-nvptx"),
    ("ptx-validate", "ptx-validate"),
    ("ptx-emu", "ptx-emu"),
    ("kernel-gen", "kernel-gen"),
    ("stdx", "stdx"),
];

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The workspace crates each `Cargo.toml`'s `[dependencies]` names.
fn from_manifests() -> Graph {
    let names: BTreeSet<&str> = CRATES.iter().map(|c| c.0).collect();
    let mut graph = Graph::new();
    for (name, dir) in CRATES {
        let path = common::root().join(dir).join("Cargo.toml");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let deps = text
            .split("\n[")
            .find(|section| section.starts_with("dependencies]"))
            .map(|section| {
                section
                    .lines()
                    .skip(1)
                    .filter_map(|line| line.split(['=', '.', ' ']).next())
                    .filter(|dep| names.contains(dep))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        graph.insert(name.to_string(), deps);
    }
    graph
}

/// The list between the `crate-deps` markers of ARCHITECTURE.md.
fn from_architecture() -> Graph {
    let text = std::fs::read_to_string(common::root().join("ARCHITECTURE.md")).unwrap();
    let start = text.find("<!-- crate-deps -->").expect("crate-deps marker");
    let end = text.find("<!-- /crate-deps -->").expect("end marker");
    let mut graph = Graph::new();
    for line in text[start..end].lines().filter(|l| l.starts_with("- `")) {
        let (name, deps) = line[3..].split_once("`:").expect("- `crate`: deps");
        let deps = deps
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "(none)")
            .map(str::to_string)
            .collect();
        graph.insert(name.to_string(), deps);
    }
    graph
}

#[test]
fn architecture_lists_the_crate_dependencies_of_the_manifests() {
    assert_eq!(
        from_architecture(),
        from_manifests(),
        "update ARCHITECTURE.md's crate list"
    );
}

/// `ptx-validate` and `ptx-emu` judge and run nvcc's PTX as well as
/// kernelc's, so neither may depend on any part of the compiler. (Cargo
/// itself refuses a dependency cycle, so the arrows cannot point back up.)
#[test]
fn the_judges_never_import_the_compiler() {
    let graph = from_manifests();
    for judge in ["ptx-validate", "ptx-emu"] {
        for compiler in ["frontend", "midend", "backend-nvptx", "kernelc"] {
            assert!(
                !graph[judge].contains(compiler),
                "{judge} imports {compiler}"
            );
        }
    }
}
