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
    ("kernelc-python", "python"),
    ("stdx", "stdx"),
];

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The workspace crates each `Cargo.toml`'s `[dependencies]` names.
fn from_manifests() -> Graph {
    manifest_section("dependencies]")
}

/// The workspace crates each `Cargo.toml` names in `section` (its header
/// without the opening bracket).
fn manifest_section(section_header: &str) -> Graph {
    let names: BTreeSet<&str> = CRATES.iter().map(|c| c.0).collect();
    let mut graph = Graph::new();
    for (name, dir) in CRATES {
        let path = common::root().join(dir).join("Cargo.toml");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let deps = text
            .split("\n[")
            .find(|section| section.starts_with(section_header))
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

/// A crate's tests import only crates below or beside it: no
/// `[dev-dependencies]` entry names a crate that depends on the crate,
/// directly or not (cargo allows that cycle for tests; kernelc's tests
/// once imported kernel-gen, which is built on kernelc).
#[test]
fn no_test_imports_a_crate_above_its_own() {
    let deps = from_manifests();
    let above = |krate: &str, other: &str| {
        let mut work = vec![other.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(c) = work.pop() {
            if c == krate {
                return true;
            }
            if seen.insert(c.clone()) {
                work.extend(deps[&c].iter().cloned());
            }
        }
        false
    };
    for (krate, dev) in manifest_section("dev-dependencies]") {
        for other in dev {
            assert!(
                !above(&krate, &other),
                "{krate}'s tests import {other}, which depends on {krate}"
            );
        }
    }
}

/// The longest a function may be without a written reason (issue: a
/// function a reader cannot hold in the head).
const LONG_FUNCTION: usize = 150;

/// The `.rs` files of the workspace's code (every crate's `src/`, the
/// benches), not its tests.
fn code_files() -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for path in entries.map(|e| e.expect("a folder entry").path()) {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if path.is_dir() {
                if !matches!(name.as_ref(), "target" | "tests" | ".git" | ".tools") {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    let root = common::root();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        let src = path.join("src");
        if path.is_dir() && (src.is_dir() || path.ends_with("src") || path.ends_with("benches")) {
            walk(if src.is_dir() { &src } else { &path }, &mut files);
        }
    }
    files.sort();
    files
}

/// Each line of `text` with its comments, strings and character literals
/// blanked, so that braces and `fn` are counted in code only.
fn code_only(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut block_depth = 0;
    while i < b.len() {
        let rest = &b[i..];
        if block_depth > 0 {
            if rest.starts_with(b"*/") {
                block_depth -= 1;
                out.extend(b"  ");
                i += 2;
            } else if rest.starts_with(b"/*") {
                block_depth += 1;
                out.extend(b"  ");
                i += 2;
            } else {
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
        } else if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            block_depth = 1;
            out.extend(b"  ");
            i += 2;
        } else if b[i] == b'"' || rest.starts_with(b"r#") || rest.starts_with(b"r\"") {
            // A string (raw or not): blank up to its end.
            let hashes = if b[i] == b'r' {
                rest[1..].iter().take_while(|&&c| c == b'#').count()
            } else {
                0
            };
            let raw = b[i] == b'r';
            let open = if raw { 2 + hashes } else { 1 };
            out.extend(std::iter::repeat_n(b' ', open));
            i += open;
            while i < b.len() {
                if !raw && b[i] == b'\\' {
                    out.extend(b"  ");
                    i += 2;
                    continue;
                }
                if b[i] == b'"'
                    && b[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&c| c == b'#')
                        .count()
                        == hashes
                {
                    out.extend(std::iter::repeat_n(b' ', 1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
        } else if b[i] == b'\'' && (rest.get(2) == Some(&b'\'') || rest.get(1) == Some(&b'\\')) {
            // A character literal (a lifetime has no closing quote).
            let end = rest[2..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(1, |p| p + 3);
            out.extend(std::iter::repeat_n(b' ', end));
            i += end;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The functions of a file longer than [`LONG_FUNCTION`] lines with no
/// `// Long: why` comment above them: `(name, first line, length)`.
fn unexplained_long_functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let code = code_only(text);
    let mut found = Vec::new();
    for (at, line) in code.iter().enumerate() {
        let Some(pos) = line.find("fn ").filter(|&p| {
            p == 0
                || !line.as_bytes()[p - 1].is_ascii_alphanumeric() && line.as_bytes()[p - 1] != b'_'
        }) else {
            continue;
        };
        let name: String = line[pos + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body: from the first `{` (before any `;`) to its match.
        let mut depth = 0usize;
        let mut end = None;
        'scan: for (k, l) in code.iter().enumerate().skip(at) {
            let from = if k == at { pos } else { 0 };
            for c in l[from..].chars() {
                match c {
                    ';' if depth == 0 => break 'scan,
                    '{' => depth += 1,
                    '}' if depth == 1 => {
                        end = Some(k);
                        break 'scan;
                    }
                    '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        let Some(end) = end else { continue };
        let length = end - at + 1;
        let explained = lines[..at]
            .iter()
            .rev()
            .take_while(|l| {
                let t = l.trim_start();
                t.starts_with("//") || t.starts_with("#[")
            })
            .any(|l| l.trim_start().starts_with("// Long:"));
        if length > LONG_FUNCTION && !explained {
            found.push((name, at + 1, length));
        }
    }
    found
}

#[test]
fn no_function_is_long_without_a_reason() {
    let mut unexplained = Vec::new();
    for path in code_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let rel = path
            .strip_prefix(common::root())
            .unwrap()
            .display()
            .to_string();
        for (name, line, length) in unexplained_long_functions(&text) {
            unexplained.push(format!("  {rel}:{line}: `{name}` is {length} lines"));
        }
    }
    assert!(
        unexplained.is_empty(),
        "functions over {LONG_FUNCTION} lines need a `// Long: why` comment above them (or \
         to be split):\n{}",
        unexplained.join("\n")
    );
}

#[test]
fn the_length_check_counts_bodies_not_strings_or_comments() {
    let body = |n: usize| "    x();\n".repeat(n);
    let long = format!("fn f() {{\n{}}}\n", body(LONG_FUNCTION));
    assert_eq!(
        unexplained_long_functions(&long),
        vec![("f".into(), 1, LONG_FUNCTION + 2)]
    );
    let explained = format!("/// Doc.\n// Long: a table.\n#[inline]\n{long}");
    assert!(unexplained_long_functions(&explained).is_empty());
    // Braces in strings, chars and comments do not end the body early.
    let tricky = format!(
        "fn g() {{\n let s = \"}}\"; let c = '}}'; // }}\n /* }} */ let r = r#\"}}\"#;\n{}}}\n",
        body(LONG_FUNCTION)
    );
    assert_eq!(unexplained_long_functions(&tricky).len(), 1);
    let short = format!("fn h<'a>(x: &'a str) {{\n{}}}\nfn k();\n", body(10));
    assert!(unexplained_long_functions(&short).is_empty());
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

/// Every file and folder of the repository, as paths relative to its root
/// (`frontend/src/lexer.rs`, `frontend/src/`), build outputs and hidden
/// folders left out.
fn repository_paths() -> BTreeSet<String> {
    let root = common::root();
    let mut paths = BTreeSet::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                paths.insert(format!("{relative}/"));
                dirs.push(path);
            } else {
                paths.insert(relative);
            }
        }
    }
    paths
}

/// Whether a code span of the map names a file or a folder: a plain path
/// ending in a known extension or in `/`.
fn looks_like_a_path(span: &str) -> bool {
    const ENDINGS: &[&str] = &[
        ".rs", ".md", ".h", ".py", ".toml", ".kir", ".cu", ".sh", ".json", ".ipynb", "/",
    ];
    let plain = span
        .chars()
        .all(|c| c.is_alphanumeric() || "_-./".contains(c));
    plain && !span.starts_with('.') && ENDINGS.iter().any(|e| span.ends_with(e))
}

/// The map names no file that is gone. A path is read from the repository's
/// root, or from the folder whose `### \`folder/\`` section it is in (and
/// its `src/`); a bare file name (`lattice.rs`, named after its folder in
/// the same sentence) must be somewhere in that folder.
#[test]
fn every_path_architecture_names_exists() {
    let paths = repository_paths();
    let text = std::fs::read_to_string(common::root().join("ARCHITECTURE.md")).unwrap();
    let mut section = String::new();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (number, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("### `") {
            section = rest.split('`').next().unwrap_or("").to_string();
        }
        let spans = line.split('`').skip(1).step_by(2);
        for span in spans.filter(|s| looks_like_a_path(s)) {
            checked += 1;
            let exists = [
                span.to_string(),
                format!("{section}{span}"),
                format!("{section}src/{span}"),
            ]
            .iter()
            .any(|p| paths.contains(p))
                || (!span.trim_end_matches('/').contains('/')
                    && paths
                        .iter()
                        .any(|p| p.starts_with(&section) && p.ends_with(&format!("/{span}"))));
            if !exists {
                missing.push(format!("ARCHITECTURE.md:{}: `{span}`", number + 1));
            }
        }
    }
    assert!(checked > 100, "only {checked} paths read");
    assert!(missing.is_empty(), "no such path:\n{}", missing.join("\n"));
}
