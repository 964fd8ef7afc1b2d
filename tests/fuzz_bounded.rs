//! Bounded, stable-Rust versions of the three cargo-fuzz targets
//! (`fuzz/fuzz_targets/{frontend,ir_parser,ptx_validate}.rs`): a
//! deterministic mutation loop over the seed corpus, each input on its own
//! thread with a 5 s limit and `catch_unwind`. The suite runs these; the
//! open-ended search is `cargo +nightly fuzz run <target>` (docs/testing.md).
//!
//! What "robust" means here: no panic, no hang, and no *internal compiler
//! error* (an invalid IR after a pass, or PTX that ptx-validate rejects):
//! every user input ends in PTX or in ordinary diagnostics.

mod common;

use common::fuzz::{corpus, fuzz_corpus};
use kernelc::driver::{compile_source, CompileOptions};

/// Mutants per corpus file. The corpora hold 41 `.cu` files (samples,
/// filetests and the C++ fixtures) and 128 `.kir` files, so this is some
/// 10,000 inputs in all.
const MUTANTS: usize = 60;

/// The `frontend` target: source through check, lower, verify, every pass
/// and the backend. A rendered error is fine; an internal one is a bug.
fn frontend_target(src: &str) {
    for opt in [0, 3] {
        let opts = CompileOptions {
            opt_level: opt,
            ..CompileOptions::default()
        };
        if let Err(e) = compile_source("fuzz.cu", src, &opts) {
            assert!(
                !e.rendered.contains("internal compiler error"),
                "-O{opt}: {}",
                e.rendered
            );
        }
    }
}

/// The `ir_parser` target: IR text through the parser and the verifier;
/// IR the verifier accepts must also survive the -O3 pipeline (verified
/// after every pass) and the backend without an internal error.
fn ir_target(text: &str) {
    let Ok(mut module) = kernelc::midend::text::parse_module(text) else {
        return;
    };
    if kernelc::midend::verifier::verify_module(&module).is_err() {
        return;
    }
    let printed = kernelc::midend::text::write_module(&module, Default::default());
    assert!(
        kernelc::midend::text::parse_module(&printed).is_ok(),
        "the printed IR does not parse back:\n{printed}"
    );
    let passes = kernelc::midend::passes::pipeline(3, true);
    if let Err(e) = common::run_passes(&mut module, &passes) {
        assert!(!e.contains("internal compiler error"), "{e}");
        return;
    }
    let opts = kernelc::backend_nvptx::Options {
        target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
        ptx_version: None,
        regalloc: kernelc::backend_nvptx::RegallocMode::Virtual,
        producer: None,
        threads: 1,
        contract: true,
        line_info: None,
    };
    if let Ok(ptx) = kernelc::backend_nvptx::compile_module(&module, &opts) {
        let report = ptx_validate::validate(&ptx);
        assert!(report.ok(), "{}", report.rendered("<ptx>", &ptx));
    }
}

/// The `ptx_validate` target: any text through the PTX parser and checker.
fn ptx_target(text: &str) {
    let report = ptx_validate::validate(text);
    let _ = report.rendered("fuzz.ptx", text);
    let _ = report.minimum_line();
}

fn cu_corpus() -> Vec<(String, String)> {
    let root = common::root();
    let mut c = corpus(&root.join("samples"), &["cu"]);
    c.extend(corpus(&root.join("tests/filetests"), &["cu"]));
    c.extend(corpus(&root.join("tests/regressions"), &["cu"]));
    // C++'s names: namespaces, `using`, qualified names, `enum class`.
    c.extend(corpus(&root.join("tests/fixtures/namespaces"), &["cu"]));
    // Classes, unions, class templates and their specializations.
    c.extend(corpus(&root.join("tests/fixtures/classes"), &["cu"]));
    // Structured bindings: `auto &[k, v] = ...`, in range-`for` too.
    c.extend(corpus(&root.join("tests/fixtures/bindings"), &["cu"]));
    c
}

#[test]
fn frontend_survives_mutated_sources() {
    let n = fuzz_corpus(&cu_corpus(), MUTANTS, 0x5eed_0001, frontend_target);
    eprintln!("frontend target: {n} inputs");
}

#[test]
fn ir_parser_survives_mutated_ir() {
    let c = corpus(&common::root().join("tests/filetests"), &["kir"]);
    let n = fuzz_corpus(&c, MUTANTS, 0x5eed_0002, ir_target);
    eprintln!("ir target: {n} inputs");
}

#[test]
fn ptx_validate_survives_mutated_ptx() {
    // The corpus: kernelc's PTX of every source in the .cu corpus.
    let c: Vec<(String, String)> = cu_corpus()
        .into_iter()
        .filter_map(|(name, src)| {
            compile_source(&name, &src, &CompileOptions::default())
                .ok()
                .map(|ptx| (name, ptx))
        })
        .collect();
    assert!(c.len() >= 10, "too few PTX seeds: {}", c.len());
    let n = fuzz_corpus(&c, MUTANTS, 0x5eed_0003, ptx_target);
    eprintln!("ptx target: {n} inputs");
}
