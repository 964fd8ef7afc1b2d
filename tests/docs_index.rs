//! The README's reading order and the `docs/` folder are one truth: every
//! chapter in `docs/` is in the course exactly once, with ARCHITECTURE.md,
//! and the course names no file that does not exist.

use std::collections::BTreeSet;
use std::path::Path;

const BEGIN: &str = "<!-- reading-order -->";
const END: &str = "<!-- /reading-order -->";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The files the README's reading order names, in order: the link target of
/// each numbered item (`N. [`docs/x.md`](docs/x.md): ...`), with its number.
fn reading_order(readme: &str) -> Vec<(usize, String)> {
    let start = readme
        .find(BEGIN)
        .expect("README.md lacks the reading-order marker");
    let end = readme.find(END).expect("README.md lacks the end marker");
    readme[start..end]
        .lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once(". [")?;
            let number = number.parse().ok()?;
            let target = rest.split_once("](")?.1.split_once(')')?.0;
            Some((number, target.to_string()))
        })
        .collect()
}

/// Every `.md` file of `docs/`, as `docs/NAME.md`.
fn chapters() -> BTreeSet<String> {
    std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs/ entry").file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect()
}

#[test]
fn the_reading_order_lists_every_chapter_once_and_nothing_else() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let order = reading_order(&readme);
    let numbers: Vec<usize> = order.iter().map(|(n, _)| *n).collect();
    let expected: Vec<usize> = (1..=order.len()).collect();
    assert_eq!(numbers, expected, "the reading order is numbered 1, 2, ...");

    let mut listed = BTreeSet::new();
    for (_, file) in &order {
        assert!(
            root().join(file).is_file(),
            "the README's reading order names `{file}`, which does not exist"
        );
        assert!(listed.insert(file.clone()), "`{file}` is listed twice");
    }
    assert!(
        listed.remove("ARCHITECTURE.md"),
        "the reading order lacks ARCHITECTURE.md"
    );
    let missing: Vec<_> = chapters().difference(&listed).cloned().collect();
    assert!(
        missing.is_empty(),
        "the README's reading order lacks {missing:?}"
    );
    let others: Vec<_> = listed.difference(&chapters()).cloned().collect();
    assert!(
        others.is_empty(),
        "the reading order names files that are not chapters: {others:?}"
    );
}

#[test]
fn the_parser_reads_numbered_links() {
    let text = format!(
        "{BEGIN}\n1. [`docs/a.md`](docs/a.md): what.\n   more text (not an item)\n\
         2. [`B.md`](B.md): else.\n{END}\n"
    );
    assert_eq!(
        reading_order(&text),
        vec![(1, "docs/a.md".to_string()), (2, "B.md".to_string())]
    );
}
