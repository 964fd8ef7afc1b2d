//! ptx-validate: an offline validator for NVIDIA PTX.
//!
//! It reads PTX text and predicts what NVIDIA's `ptxas` 13.5 will say about
//! it, without running ptxas: syntax, declared and in-scope registers and
//! symbols, operand counts and types under ptxas's relaxed type rules,
//! state-space rules, labels and call targets, and the `.target`/`.version`
//! each feature needs. It also reports the minimum `.version`/`.target` the
//! whole module needs.
//!
//! # Architecture invariants
//!
//! - **ptx-validate never imports the compiler crates** (frontend, midend,
//!   backend-nvptx, kernelc). It must judge any PTX, nvcc's included, so it
//!   may not share the compiler's idea of what PTX looks like.
//! - **The library does no I/O**, except in the clearly separated
//!   [`driver`] module, which finds and runs the real ptxas. Everything else
//!   takes `&str` and returns data.
//! - **It never panics on any input.** Malformed PTX becomes a diagnostic;
//!   nesting depth is bounded; no indexing assumes well-formed input.
//!
//! Pipeline: [`lexer`] → [`parser`] (syntax tree in [`ast`]) → [`check`]
//! (symbols, header, features) with [`rules`] (per instruction, after the
//! spelling checks of [`forms`]) and [`calls`] (a kernel's call sequences), using the
//! facts in [`isa`]; diagnostics in [`diag`].

pub mod ast;
pub mod calls;
pub mod check;
pub mod constexpr;
pub mod cubin;
pub mod diag;
pub mod driver;
pub mod forms;
pub mod isa;
pub mod lexer;
pub mod modifiers;
pub mod mutate;
pub mod parser;
pub mod rules;

pub use diag::{Diag, Severity};

/// The verdict on one PTX module.
#[derive(Debug)]
pub struct Report {
    /// Every problem found, in source order. A syntax error stops the
    /// checks, as it does in ptxas.
    pub diags: Vec<Diag>,
    /// The `.version` the module declares, if any.
    pub declared_version: Option<isa::Version>,
    /// The `.target` the module declares, if any.
    pub declared_target: Option<String>,
    /// The lowest `.version` the module's target and features need.
    pub min_version: isa::Version,
    /// The lowest `.target` the module's features need (`sm_90a` for wgmma).
    pub min_target: Option<String>,
}

impl Report {
    /// Whether ptxas is predicted to accept the module.
    pub fn ok(&self) -> bool {
        !self.diags.iter().any(|d| d.severity == Severity::Error)
    }

    /// All diagnostics in ptxas's one-line form, one per line.
    pub fn ptxas_text(&self, file: &str) -> String {
        self.diags
            .iter()
            .map(|d| d.ptxas_form(file) + "\n")
            .collect()
    }

    /// All diagnostics rendered with their source lines.
    pub fn rendered(&self, file: &str, src: &str) -> String {
        self.diags.iter().map(|d| d.render(file, src)).collect()
    }

    /// One line: `minimum: .version 7.8, .target sm_90`.
    pub fn minimum_line(&self) -> String {
        let (a, b) = self.min_version;
        match &self.min_target {
            Some(t) => format!("minimum: .version {a}.{b}, .target {t}"),
            None => format!("minimum: .version {a}.{b}"),
        }
    }
}

/// Validates PTX source text. Never panics.
pub fn validate(src: &str) -> Report {
    match parser::parse(src) {
        Err(d) => Report {
            diags: vec![d],
            declared_version: None,
            declared_target: None,
            min_version: (1, 0),
            min_target: None,
        },
        Ok(m) => {
            let checked = check::check_module(&m);
            Report {
                diags: checked.diags,
                declared_version: m.version.map(|(v, _)| v),
                declared_target: m.target.first().map(|(t, _)| t.clone()),
                min_version: checked.min_version,
                min_target: checked.min_target,
            }
        }
    }
}
