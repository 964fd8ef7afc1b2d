//! The pass table (`midend::passes::PASSES`) is the one place a pass is
//! named: every pass in it can be left out with `--disable-pass`, and the
//! lists in `docs/passes.md` and the README are the table's.
//!
//! `KERNELC_BLESS=1` rewrites the generated part of `docs/passes.md`.

mod common;

use kernelc::driver::{self, CompileOptions};
use kernelc::midend::passes::{self, PassKind, PASSES};

/// The lines around the generated part of `docs/passes.md`.
const BEGIN: &str = "<!-- generated from midend::passes::PASSES by tests/pass_table.rs (KERNELC_BLESS=1 rewrites it) -->";
const END: &str = "<!-- end of the generated part -->";

/// The pass list and the `-O` pipelines as `docs/passes.md` shows them.
fn docs_tables() -> String {
    let mut out =
        String::from("| pass | works on | what it does |\n|------|----------|--------------|\n");
    for pass in PASSES {
        let kind = match pass.kind {
            PassKind::Function(_) => "a function",
            PassKind::Module(_) => "the module",
        };
        out.push_str(&format!(
            "| `{}` | {kind} | {} |\n",
            pass.name,
            markdown_text(pass.summary)
        ));
    }
    out.push_str("\nThe `-O` pipelines:\n\n| level | passes |\n|-------|--------|\n");
    let spell = |level: u8| {
        passes::pipeline(level, true)
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push_str(&format!("| `-O0` | {} |\n", spell(0)));
    out.push_str(&format!("| `-O1` … `-O3` | {} |\n", spell(3)));
    out
}

/// `text` with Markdown's active characters escaped (`__restrict__`
/// would turn bold, `||` would end a table cell).
fn markdown_text(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if matches!(c, '_' | '*' | '|' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[test]
fn the_docs_list_every_pass_of_the_table() {
    let path = common::root().join("docs/passes.md");
    let text = std::fs::read_to_string(&path).expect("docs/passes.md");
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/passes.md lacks the generated pass list (`{BEGIN}` ... `{END}`)");
    };
    let body_start = begin + BEGIN.len() + 1;
    let want = docs_tables();
    if std::env::var_os("KERNELC_BLESS").is_some() {
        let new = format!("{}{want}{}", &text[..body_start], &text[end..]);
        std::fs::write(&path, new).expect("docs/passes.md is writable");
        return;
    }
    assert_eq!(
        &text[body_start..end],
        want,
        "docs/passes.md's pass list differs from the table (KERNELC_BLESS=1 rewrites it)"
    );
}

/// The README's "Known passes" paragraph names every pass, names nothing
/// else in backquotes that looks like a pass, and spells the `-O1`
/// pipeline as the table's.
#[test]
fn the_readme_names_every_pass_and_the_pipeline() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README.md");
    let start = readme
        .find("Known passes:")
        .expect("a Known passes paragraph");
    let para = &readme[start..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    let quoted: Vec<&str> = para.split('`').skip(1).step_by(2).collect();
    for pass in PASSES {
        assert!(
            quoted.contains(&pass.name),
            "README's Known passes lack `{}`",
            pass.name
        );
    }
    let plain = |q: &&&str| q.chars().all(|c| c.is_ascii_lowercase() || c == '-');
    for name in quoted.iter().filter(plain) {
        assert!(
            passes::find(name).is_some(),
            "README names `{name}`, no pass"
        );
    }
    let pipeline = passes::pipeline(3, true);
    let spelled = pipeline[1..].join(",");
    assert_eq!(pipeline[0], "contract");
    assert!(
        quoted.contains(&spelled.as_str()),
        "README's -O1 pipeline is not `{spelled}`"
    );
}

/// Every pass of the table, and so of the pipeline, can be left out of
/// `-O3` (`--disable-pass` accepts its name), and the samples still
/// compile to PTX that ptxas accepts.
#[test]
fn every_pass_of_the_table_can_be_disabled() {
    let names: Vec<String> = PASSES.iter().map(|p| p.name.to_string()).collect();
    assert_eq!(driver::check_pass_names(&names).as_ref(), Ok(&names));
    // Every pass the pipeline runs has its row (`gvn` once had none).
    for name in passes::pipeline(3, true) {
        assert!(passes::find(name).is_some(), "`{name}` has no row");
    }
    assert!(driver::check_pass_names(&["no-such-pass".into()]).is_err());
    for sample in ["matmul_clamp", "stencil_shared", "saxpy"] {
        let source = common::sample_source(sample);
        let arch = common::target_for(&source, "sm_90");
        for name in &names {
            let opts = CompileOptions {
                target: kernelc::backend_nvptx::Target::parse(&arch).expect("a target"),
                disable_passes: vec![name.clone()],
                ..CompileOptions::default()
            };
            assert!(
                !driver::pipeline_for(&opts).contains(name),
                "{name} stays in the pipeline"
            );
            let what = format!("{sample} without `{name}`");
            let ptx = driver::compile_source(&format!("{sample}.cu"), &source, &opts)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            common::assert_ptxas_accepts(&ptx, &arch, &what);
        }
    }
}

/// `--disable-pass gvn` was refused ("no such pass") while `gvn` ran twice
/// at -O3; the command line takes every pass of the table now.
#[test]
fn the_command_line_disables_gvn() {
    let o = common::kernelc(&["samples/saxpy.cu", "--disable-pass", "gvn", "-o", "-"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let ptx = common::stdout(&o);
    let first = ptx.lines().next().unwrap_or_default();
    assert!(first.contains("--disable-pass gvn"), "{first}");
}

/// ARCHITECTURE.md names the module passes (`PassKind::Module` rows: ...);
/// the list is the table's, in its order.
#[test]
fn architecture_names_the_module_passes_of_the_table() {
    let text =
        std::fs::read_to_string(common::root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = text
        .find("(`PassKind::Module` rows:")
        .expect("ARCHITECTURE.md lists the module passes");
    let list = &text[start..];
    let list = &list[..list.find(')').expect("the list ends")];
    let named: Vec<&str> = list.split('`').skip(3).step_by(2).collect();
    let modules: Vec<&str> = PASSES
        .iter()
        .filter(|p| matches!(p.kind, PassKind::Module(_)))
        .map(|p| p.name)
        .collect();
    assert_eq!(named, modules, "ARCHITECTURE.md's module passes");
}
