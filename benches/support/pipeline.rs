//! The compilation pipeline of `kernelc::driver`, cut into the stages the
//! benchmarks time one by one. Each stage takes the previous stage's output,
//! so a benchmark can prepare its input once and time only the stage.

use kernelc::backend_nvptx::{self, RegallocMode, Target};
use kernelc::driver::{self, CompileOptions};
use kernelc::frontend::{self, typed::Program};
use kernelc::midend::ir::Module;
use kernelc::midend::passes::{Options, Pipeline, Verify};

/// The options every benchmark compiles with: `-arch=sm_90 -O3`, as
/// `scripts/compare-nvcc` does, on one thread: the benchmarks measure the
/// work and how it grows (`--threads` spreads it over cores).
pub fn options() -> CompileOptions {
    CompileOptions {
        target: Target::parse("sm_90").expect("sm_90 is a known target"),
        threads: 1,
        ..CompileOptions::default()
    }
}

pub fn frontend_options() -> frontend::Options {
    driver::frontend_options(90, &[])
}

/// The stages, in pipeline order, with the names the reports use.
pub const STAGES: [&str; 6] = ["parse", "check", "lower", "midend", "verify", "backend"];

/// Lexing, preprocessing and parsing.
pub fn parse(src: &str, fe: &frontend::Options) -> frontend::ast::TranslationUnit {
    frontend::parse(src, fe).expect("the benchmark source parses")
}

/// Parsing and semantic analysis (`frontend::check` parses again; the
/// time of the analysis alone is this minus [`parse`]).
pub fn check(src: &str, fe: &frontend::Options) -> Program {
    frontend::check(src, fe).expect("the benchmark source type-checks")
}

/// Typed program to IR (through the SSA builder).
pub fn lower(program: &Program) -> Module {
    frontend::lower(program).expect("the benchmark source lowers")
}

/// The `-O3` pass pipeline as the driver runs it (with the verifier once
/// after it, or after every pass with `KERNELC_VERIFY_EACH=1`), on a copy
/// of `module`.
pub fn midend(module: &Module, opts: &CompileOptions) -> Module {
    let mut m = module.clone();
    driver::optimize(&mut m, &driver::pipeline_for(opts), None).expect("the passes succeed");
    m
}

/// One run of the IR verifier over the whole module (the driver runs it
/// after lowering and after every pass, so it is part of [`midend`] too).
pub fn verify(module: &Module) {
    kernelc::midend::verifier::verify_module(module).expect("the module verifies");
}

/// Instruction selection, out of SSA and PTX printing.
pub fn backend(module: &Module, opts: &CompileOptions) -> String {
    let be = backend_nvptx::Options {
        target: opts.target,
        ptx_version: opts.ptx_version,
        regalloc: RegallocMode::Virtual,
        producer: Some(opts.producer()),
        threads: opts.threads,
        contract: kernelc::driver::fmad_in_force(opts),
        line_info: None,
    };
    backend_nvptx::compile_module(module, &be).expect("the backend succeeds")
}

/// The whole compile, source to PTX, as `kernelc FILE.cu` does it.
pub fn whole(src: &str, opts: &CompileOptions) -> String {
    driver::compile_source("bench.cu", src, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// The midend cut finer: the `-O3` pipeline run once on a copy of `module`,
/// pass by pass, each pass timed alone, then the verifier run after it (as
/// the driver does with `KERNELC_VERIFY_EACH=1`), timed apart. Returns
/// (pass, pass time, verifier time) in order.
pub fn midend_passes(
    module: &Module,
    opts: &CompileOptions,
) -> Vec<(String, std::time::Duration, std::time::Duration)> {
    let mut m = module.clone();
    let mut pipeline = driver::pipeline_for(opts);
    pipeline.options.verify = Verify::Never;
    let mut out = Vec::new();
    let mut start = std::time::Instant::now();
    pipeline
        .run_observed(&mut m, |name, m| {
            let pass = start.elapsed();
            let verifying = std::time::Instant::now();
            verify(m);
            out.push((name.to_string(), pass, verifying.elapsed()));
            start = std::time::Instant::now();
        })
        .expect("the passes succeed");
    out
}

/// `simplify` taken apart: on a copy of `module` after the passes that
/// precede it, runs its rounds of `fold`, `cfg-cleanup` and `dce` as the pass
/// does (until a round changes nothing) and returns the number of rounds
/// and the time of each sub-pass summed over them.
pub fn simplify_breakdown(
    module: &Module,
    opts: &CompileOptions,
) -> (usize, [std::time::Duration; 3]) {
    let mut m = module.clone();
    let names = driver::pipeline_for(opts).names();
    let before: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .take_while(|&name| name != "simplify")
        .collect();
    run_passes(&mut m, &before);
    let mut times = [std::time::Duration::ZERO; 3];
    let mut rounds = 0;
    loop {
        rounds += 1;
        let before = kernelc::midend::text::write_module(&m, Default::default());
        for (i, sub) in ["fold", "cfg-cleanup", "dce"].into_iter().enumerate() {
            let start = std::time::Instant::now();
            run_passes(&mut m, &[sub]);
            times[i] += start.elapsed();
        }
        if kernelc::midend::text::write_module(&m, Default::default()) == before || rounds >= 1000 {
            break;
        }
    }
    (rounds, times)
}

/// Runs a pass list over `module`, without the verifier.
fn run_passes(module: &mut Module, names: &[&str]) {
    let options = Options {
        verify: Verify::Never,
        ..Options::default()
    };
    Pipeline::parse(names, options)
        .and_then(|p| p.run(module))
        .expect("the passes succeed");
}
