//! The pass manager: a [`Pipeline`] is a list of steps, each a row of the
//! pass table with its knobs, and the [`Options`] they run with. One
//! [`Pipeline::run`] serves compiling, `kernelc opt` and `kernelc run`.
//!
//! Runs of consecutive function passes go through the functions one at a
//! time, spread over threads (`stdx::parallel`): no such pass reads
//! another function, so this computes what running each pass over every
//! function in turn computes. The verifier runs after every pass or once
//! after the pipeline ([`Verify`]).

use super::{find, memspace, restrict, Changed, FunctionPass, Pass, PassKind, Report, PASSES};
use crate::analysis::ModuleAnalyses;
use crate::ir::{Function, Module};
use crate::verifier::{verify_function, verify_module};
use std::fmt;

/// What the passes of a pipeline run with, besides the module.
#[derive(Clone, Debug)]
pub struct Options {
    /// The knobs of memory-space inference.
    pub memspace: memspace::Options,
    /// The knobs of restrict processing.
    pub restrict: restrict::Options,
    /// `--explain-nc`: `mark-invariant` reports, for every global load of a
    /// kernel, whether it became `ld.global.nc`, and why not.
    pub explain_nc: bool,
    /// Threads for the runs of function passes (`0`: as many as the work
    /// is worth, see [`stdx::parallel::threads_for`]). The output is the
    /// same for every count.
    pub threads: usize,
    /// When the verifier runs.
    pub verify: Verify,
    /// Report atomics on local or const memory as errors even when
    /// `memspace`, which reports them otherwise, is not in the pipeline
    /// (compiling and `kernelc run` do: they are errors at every level).
    pub check_atomics: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            memspace: memspace::Options::default(),
            restrict: restrict::Options::default(),
            explain_nc: false,
            threads: 0,
            verify: if cfg!(debug_assertions) {
                Verify::EachPass
            } else {
                Verify::Once
            },
            check_atomics: false,
        }
    }
}

/// When a pipeline runs the verifier.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verify {
    /// After every pass, so that the pass that broke an invariant is named
    /// (the default in debug builds, so the test suite catches it).
    EachPass,
    /// Once, after the pipeline (the default in release builds: verifying
    /// after each of the ~30 passes was a third of the compile time).
    Once,
    /// Never: for benchmarks that time the passes and the verifier apart.
    Never,
}

/// What a module pass sees besides the module.
pub struct ModuleContext<'a> {
    /// The pipeline's options, with the step's knobs applied.
    pub options: &'a Options,
    /// Where the pass's diagnostics, notes and transcripts go.
    pub report: &'a mut Report,
    /// The kept analyses of every function. A pass that changes a
    /// function's CFG drops that function's (or says `Changed::Cfg`).
    pub analyses: &'a mut ModuleAnalyses,
}

/// Why a pipeline could not be built or run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PassError {
    /// A name in a pass list that no row of the table has.
    UnknownPass(String),
    /// Knobs that the pass does not take (`memspace(bogus)`), or a pass
    /// without knobs given some.
    BadKnobs(KnobError),
    /// The verifier rejected the IR after a pass: a compiler bug. `after`
    /// says when, `annotated` is the function(s) printed with `; error:`
    /// lines.
    InvalidIr {
        after: Checkpoint,
        annotated: String,
    },
    /// A kept analysis differs from a fresh one after `pass`: the pass
    /// changed the CFG of `function` and did not say so (a compiler bug,
    /// caught when verifying after every pass).
    StaleAnalysis {
        pass: String,
        function: String,
        analysis: &'static str,
    },
}

impl PassError {
    /// Whether the error is the compiler's fault rather than the user's.
    pub fn is_internal(&self) -> bool {
        matches!(
            self,
            PassError::InvalidIr { .. } | PassError::StaleAnalysis { .. }
        )
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PassError::UnknownPass(name) => {
                let known: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
                write!(
                    f,
                    "unknown pass `{name}`; known passes: {}",
                    known.join(", ")
                )
            }
            PassError::BadKnobs(e) => e.fmt(f),
            PassError::InvalidIr { after, annotated } => {
                let after = match after {
                    Checkpoint::Pass(name) => format!("after pass `{name}`"),
                    Checkpoint::Passes(names) => format!("after passes `{}`", names.join(", ")),
                    Checkpoint::Pipeline => {
                        "after the pass pipeline (KERNELC_VERIFY_EACH=1 names the pass)".into()
                    }
                };
                write!(
                    f,
                    "internal compiler error: invalid IR {after}\n{annotated}"
                )
            }
            PassError::StaleAnalysis {
                pass,
                function,
                analysis,
            } => writeln!(
                f,
                "internal compiler error: pass `{pass}` changed the CFG of @{function} without \
                 saying so (its kept {analysis} differs from a fresh one)"
            ),
        }
    }
}

impl std::error::Error for PassError {}

/// When the verifier ran: after one step, after a run of function passes,
/// or once after the whole pipeline (which cannot say which pass broke
/// the IR). Steps by their names as a pass list spells them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    Pass(String),
    Passes(Vec<String>),
    Pipeline,
}

/// Why the knobs written after a pass's name are wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KnobError {
    /// A knob the pass does not have.
    Unknown { pass: &'static str, knob: String },
    /// A flag knob given a value other than `true` or `false`.
    NotABool {
        pass: &'static str,
        knob: String,
        value: String,
    },
    /// A number knob without a number (`written`: the knob as written).
    NotANumber {
        pass: &'static str,
        knob: &'static str,
        written: String,
    },
    /// Knobs for a pass that takes none.
    NoKnobs { pass: &'static str },
}

impl fmt::Display for KnobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnobError::Unknown { pass, knob } => write!(f, "unknown {pass} knob `{knob}`"),
            KnobError::NotABool { pass, knob, value } => {
                write!(f, "{pass} knob `{knob}` takes true or false, got `{value}`")
            }
            KnobError::NotANumber {
                pass,
                knob,
                written,
            } => write!(f, "{pass} knob `{knob}` needs a number, got `{written}`"),
            KnobError::NoKnobs { pass } => write!(f, "pass `{pass}` takes no knobs"),
        }
    }
}

/// One step of a pipeline: a pass, and the knobs its name was written with.
#[derive(Clone, Debug)]
pub struct Step {
    pub pass: &'static Pass,
    /// `clone-budget=0` of `memspace(clone-budget=0)`.
    knobs: Option<String>,
}

impl Step {
    /// A step that runs `pass` without knobs (a row of [`PASSES`], or a
    /// pass of a test's own).
    pub fn new(pass: &'static Pass) -> Step {
        Step { pass, knobs: None }
    }

    /// Reads a name as written in a pass list: `gvn`, or a pass with knobs,
    /// `memspace(clone-budget=0;track-int2ptr=false)`. The knobs are
    /// checked here, so a bad one fails before any pass runs.
    pub fn parse(text: &str) -> Result<Step, PassError> {
        let (name, knobs) = match text.split_once('(') {
            Some((name, rest)) => match rest.strip_suffix(')') {
                Some(knobs) => (name, Some(knobs.to_string())),
                None => return Err(PassError::UnknownPass(text.to_string())),
            },
            None => (text, None),
        };
        let pass = find(name).ok_or_else(|| PassError::UnknownPass(text.to_string()))?;
        let step = Step { pass, knobs };
        step.options(&Options::default())?;
        Ok(step)
    }

    /// The step as a pass list spells it (for `--print-after-all`).
    pub fn name(&self) -> String {
        match &self.knobs {
            Some(knobs) => format!("{}({knobs})", self.pass.name),
            None => self.pass.name.to_string(),
        }
    }

    /// `base` with the step's knobs applied.
    fn options(&self, base: &Options) -> Result<Options, PassError> {
        let mut options = base.clone();
        match (&self.knobs, self.pass.knobs) {
            (None, _) => {}
            (Some(text), Some(apply)) => apply(&mut options, text).map_err(PassError::BadKnobs)?,
            (Some(_), None) => {
                return Err(PassError::BadKnobs(KnobError::NoKnobs {
                    pass: self.pass.name,
                }))
            }
        }
        Ok(options)
    }

    fn function_pass(&self) -> Option<FunctionPass> {
        match self.pass.kind {
            PassKind::Function(pass) => Some(pass),
            PassKind::Module(_) => None,
        }
    }
}

/// What is called after each step, with its name and the module.
type Observer<'a> = &'a mut dyn FnMut(&str, &Module);

/// Passes to run in order, and the options they run with.
#[derive(Clone, Debug)]
pub struct Pipeline {
    steps: Vec<Step>,
    pub options: Options,
}

impl Pipeline {
    /// The `-O` pipeline of `level` ([`super::pipeline`]).
    pub fn for_level(level: u8, fmad: bool, options: Options) -> Pipeline {
        let steps = super::pipeline(level, fmad)
            .into_iter()
            .map(|name| Step::new(find(name).expect("every pass of the -O pipelines has a row")))
            .collect();
        Pipeline { steps, options }
    }

    /// A pipeline of the given steps.
    pub fn new(steps: Vec<Step>, options: Options) -> Pipeline {
        Pipeline { steps, options }
    }

    /// The passes of a pass list (`kernelc opt --passes`, `test pass`), in
    /// order; each name is checked against the table, with its knobs.
    pub fn parse(names: &[&str], options: Options) -> Result<Pipeline, PassError> {
        let steps = names
            .iter()
            .map(|name| Step::parse(name))
            .collect::<Result<_, _>>()?;
        Ok(Pipeline { steps, options })
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The steps as a pass list spells them.
    pub fn names(&self) -> Vec<String> {
        self.steps.iter().map(Step::name).collect()
    }

    /// Whether a step runs the pass called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.steps.iter().any(|s| s.pass.name == name)
    }

    /// Leaves out every step of the pass called `name`.
    pub fn remove(&mut self, name: &str) {
        self.steps.retain(|s| s.pass.name != name);
    }

    /// Adds the pass called `name` (a row of the table) right after the
    /// first step that runs one of `after`, or first when none does.
    pub fn insert_after(&mut self, after: &[&str], name: &str) {
        let Some(pass) = find(name) else {
            return;
        };
        let at = self
            .steps
            .iter()
            .position(|s| after.contains(&s.pass.name))
            .map_or(0, |i| i + 1);
        self.steps.insert(at, Step::new(pass));
    }

    /// Runs the pipeline over `module` and returns what the passes
    /// reported. An error here is a pass list that does not parse or a
    /// compiler bug; the user's errors are among the report's diagnostics.
    pub fn run(&self, module: &mut Module) -> Result<Report, PassError> {
        self.run_steps(module, None)
    }

    /// [`Pipeline::run`], one pass at a time over the whole module, calling
    /// `after_each` with each step's name and the module after it
    /// (`--print-after-all`).
    pub fn run_observed(
        &self,
        module: &mut Module,
        mut after_each: impl FnMut(&str, &Module),
    ) -> Result<Report, PassError> {
        self.run_steps(module, Some(&mut after_each))
    }

    fn run_steps(
        &self,
        module: &mut Module,
        mut after_each: Option<Observer>,
    ) -> Result<Report, PassError> {
        let mut report = Report::default();
        let mut analyses = ModuleAnalyses::default();
        let mut rest = &self.steps[..];
        while !rest.is_empty() {
            let local = if after_each.is_some() {
                0
            } else {
                rest.iter()
                    .take_while(|s| s.function_pass().is_some())
                    .count()
            };
            if local > 0 {
                let (run, next) = rest.split_at(local);
                self.run_function_passes(module, &mut analyses, run)?;
                if self.options.verify == Verify::EachPass {
                    let names: Vec<String> = run.iter().map(Step::name).collect();
                    check_module(module, Checkpoint::Passes(names))?;
                }
                rest = next;
                continue;
            }
            let step = &rest[0];
            self.run_one(module, &mut analyses, step, &mut report)?;
            if self.options.verify == Verify::EachPass {
                check_module(module, Checkpoint::Pass(step.name()))?;
                if let Some((func, analysis)) = analyses.stale(module) {
                    return Err(stale(step, func, analysis));
                }
            }
            if let Some(f) = after_each.as_mut() {
                f(&step.name(), module);
            }
            rest = &rest[1..];
        }
        if self.options.verify == Verify::Once && !self.steps.is_empty() {
            check_module(module, Checkpoint::Pipeline)?;
        }
        if self.options.check_atomics && !self.contains("memspace") {
            let found = memspace::check_atomics(module, &self.options.memspace);
            report.diagnostics.extend(found);
        }
        Ok(report)
    }

    /// Runs one step of either kind over the whole module, dropping the
    /// analyses of what it says it changed the CFG of.
    fn run_one(
        &self,
        module: &mut Module,
        analyses: &mut ModuleAnalyses,
        step: &Step,
        report: &mut Report,
    ) -> Result<(), PassError> {
        match step.pass.kind {
            PassKind::Function(pass) => {
                for (func, an) in analyses.with_functions(module) {
                    if pass(func, an) == Changed::Cfg {
                        an.cfg_changed();
                    }
                }
            }
            PassKind::Module(pass) => {
                let options = step.options(&self.options)?;
                let mut cx = ModuleContext {
                    options: &options,
                    report,
                    analyses,
                };
                if pass(module, &mut cx) == Changed::Cfg {
                    analyses.cfg_changed();
                }
            }
        }
        Ok(())
    }

    /// Runs function passes (each one a [`PassKind::Function`]) over every
    /// function: each function goes through all of `steps` in order, with
    /// its analyses, and the functions are spread over threads. With
    /// [`Verify::EachPass`], every function is verified after every pass
    /// (without the module: calls are checked by the module-level
    /// verification after the run), and so are its kept analyses; the
    /// first failure, in function order, is returned with the pass named.
    fn run_function_passes(
        &self,
        module: &mut Module,
        analyses: &mut ModuleAnalyses,
        steps: &[Step],
    ) -> Result<(), PassError> {
        let passes: Vec<(&Step, FunctionPass)> = steps
            .iter()
            .filter_map(|s| s.function_pass().map(|p| (s, p)))
            .collect();
        let verify_each = self.options.verify == Verify::EachPass;
        let outcomes = stdx::parallel::map_in_order(
            analyses.with_functions(module),
            self.options.threads,
            |(f, _)| f.dfg.insts.len() * passes.len(),
            |(func, an)| {
                for &(step, pass) in &passes {
                    if pass(func, an) == Changed::Cfg {
                        an.cfg_changed();
                    }
                    if verify_each {
                        if let Err(errors) = verify_function(func, None) {
                            return Err(PassError::InvalidIr {
                                after: Checkpoint::Pass(step.name()),
                                annotated: errors.annotate(func, None),
                            });
                        }
                        if let Some(analysis) = an.stale(func) {
                            return Err(stale(step, func, analysis));
                        }
                    }
                }
                Ok(())
            },
        );
        outcomes.into_iter().collect()
    }
}

/// The error for a kept analysis that `step` made stale.
fn stale(step: &Step, func: &Function, analysis: &'static str) -> PassError {
    PassError::StaleAnalysis {
        pass: step.name(),
        function: func.name.clone(),
        analysis,
    }
}

/// Verifies the module; a failure is a compiler bug, reported with each
/// offending function printed and annotated.
fn check_module(module: &Module, after: Checkpoint) -> Result<(), PassError> {
    verify_module(module).map_err(|errors| PassError::InvalidIr {
        after,
        annotated: errors
            .iter()
            .map(|(func, errs)| errs.annotate(&module.functions[*func], Some(module)))
            .collect(),
    })
}
