//! ARCHITECTURE.md's list of crates and their workspace dependencies is the
//! truth of the `Cargo.toml`s, the judges (ptx-validate, ptx-emu) import
//! no part of the compiler, and the midend never imports the interpreter.

mod common;

use std::collections::{BTreeMap, BTreeSet};

/// The workspace's crates: (name, folder).
const CRATES: &[(&str, &str)] = &[
    ("kernelc", "."),
    ("frontend", "frontend"),
    ("midend", "midend"),
    ("backend-nvptx", "backend-nvptx"),
    ("kir-interp", "interp"),
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

/// The IR interpreter (`kir-interp`) runs the midend's IR, never the other
/// way round: not even the midend's tests may use it (a dev-dependency
/// would link a second copy of the midend into its unit tests), so the
/// optimizer builds and is tested without it.
#[test]
fn the_midend_never_imports_the_interpreter() {
    let manifest = std::fs::read_to_string(common::root().join("midend/Cargo.toml")).unwrap();
    assert!(
        !manifest.contains("kir-interp"),
        "midend/Cargo.toml names kir-interp"
    );
    let mut dirs = vec![common::root().join("midend")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    !text.contains("kir_interp"),
                    "{} uses kir_interp",
                    path.display()
                );
            }
        }
    }
}

/// The spellings of a second search for NVIDIA's tools: a tool's folder
/// inside the CUDA wheels, a `PATH` lookup of a tool, a read of a tool's
/// variable.
const SECOND_SEARCH: &[&str] = &[
    "nvidia/cu13/bin",
    "\"cu13\", \"bin\"",
    "command -v ptxas",
    "command -v nvcc",
    "command -v cuobjdump",
    "which(\"ptxas\")",
    "which(\"nvcc\")",
    "which(\"cuobjdump\")",
    "(\"KERNELC_PTXAS\")",
    "(\"KERNELC_NVCC\")",
    "(\"KERNELC_CUOBJDUMP\")",
    "${KERNELC_PTXAS",
    "${KERNELC_NVCC",
    "${KERNELC_CUOBJDUMP",
];

/// Every Rust file of the workspace (and its fuzz targets) and every script.
fn code_and_scripts() -> Vec<std::path::PathBuf> {
    let root = common::root();
    let mut dirs: Vec<_> = ["src", "tests", "benches", "fuzz/fuzz_targets", "scripts"]
        .iter()
        .map(|d| root.join(d))
        .chain(CRATES.iter().filter(|c| c.1 != ".").map(|c| root.join(c.1)))
        .collect();
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.is_dir() {
                if !path.ends_with("target") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") || dir.ends_with("scripts") {
                files.push(path);
            }
        }
    }
    files
}

/// NVIDIA's tools are found in one place, `stdx/src/tools.rs` (the CLI,
/// ptx-validate and the tests call it; the scripts ask its `find-tool`
/// binary), so no part can search in another order.
#[test]
fn nvidias_tools_are_found_in_one_place() {
    let root = common::root();
    let exempt = [
        root.join("stdx/src/tools.rs"),
        root.join("tests/architecture.rs"),
    ];
    let mut seen = 0;
    for path in code_and_scripts() {
        if exempt.contains(&path) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for spelling in SECOND_SEARCH {
            assert!(
                !text.contains(spelling),
                "{} searches for an NVIDIA tool itself (`{spelling}`): use stdx::tools \
                 (or `cargo run -q -p stdx --bin find-tool -- NAME` from a script)",
                path.display()
            );
        }
        seen += 1;
    }
    assert!(seen > 100, "only {seen} files read");
}
