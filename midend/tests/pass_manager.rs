//! The pass manager keeps the dominator tree, the loops and the
//! predecessors between passes until a pass says it changed the CFG; when
//! verifying after every pass it checks that what it kept is still true,
//! so a pass that changes the CFG and says it did not is caught there.

use midend::analysis::Analyses;
use midend::ir::{Function, InstData};
use midend::passes::{
    find, Changed, Checkpoint, Options, Pass, PassError, PassKind, Pipeline, Step, Verify,
};
use midend::text::parse_module;

/// A diamond: the entry branches to two arms that meet again.
const DIAMOND: &str = "
kernel external @k(ptr<global>, i32) {
block0(v0: ptr<global>, v1: i32):
    v2 = iconst.i32 0
    v3 = icmp slt v1, v2
    brif v3, block1, block2

block1:
    store v1, v0
    jump block3

block2:
    store v2, v0
    jump block3

block3:
    return
}
";

/// Turns the entry's `brif` into a jump to its `then` side: the `else`
/// arm becomes unreachable, so the dominator tree changes.
fn drop_else_edge(func: &mut Function) {
    let entry = func.layout.entry_block().expect("an entry block");
    let term = func.layout.last_inst(entry).expect("a terminator");
    if let InstData::Brif { then_dest, .. } = &func.dfg.insts[term] {
        let dest = then_dest.clone();
        func.dfg.insts[term] = InstData::Jump { dest };
    }
}

/// Changes the CFG and says so.
static HONEST: Pass = Pass {
    name: "honest",
    summary: "drops the entry's else edge and says the CFG changed",
    kind: PassKind::Function(|func, _: &mut Analyses| {
        drop_else_edge(func);
        Changed::Cfg
    }),
    knobs: None,
};

/// Changes the CFG and says only the instructions changed.
static LIAR: Pass = Pass {
    name: "liar",
    summary: "drops the entry's else edge and says the CFG stayed",
    kind: PassKind::Function(|func, _: &mut Analyses| {
        drop_else_edge(func);
        Changed::Insts
    }),
    knobs: None,
};

/// `gvn` (which asks for the dominator tree and the loops), then `pass`,
/// then `sink` (which asks again), verifying after every pass.
fn pipeline(pass: &'static Pass) -> Pipeline {
    let steps = vec![
        Step::new(find("gvn").expect("gvn")),
        Step::new(pass),
        Step::new(find("sink").expect("sink")),
    ];
    let options = Options {
        verify: Verify::EachPass,
        ..Options::default()
    };
    Pipeline::new(steps, options)
}

#[test]
fn a_pass_that_says_it_changed_the_cfg_gets_fresh_analyses() {
    for observed in [false, true] {
        let mut module = parse_module(DIAMOND).expect("parses");
        let p = pipeline(&HONEST);
        let result = if observed {
            p.run_observed(&mut module, |_, _| {})
        } else {
            p.run(&mut module)
        };
        assert!(result.is_ok(), "{result:?}");
    }
}

#[test]
fn a_pass_that_changes_the_cfg_without_saying_so_is_caught() {
    for observed in [false, true] {
        let mut module = parse_module(DIAMOND).expect("parses");
        let p = pipeline(&LIAR);
        let result = if observed {
            p.run_observed(&mut module, |_, _| {})
        } else {
            p.run(&mut module)
        };
        let err = result.expect_err("the stale dominator tree is caught");
        assert_eq!(
            err,
            PassError::StaleAnalysis {
                pass: "liar".into(),
                function: "k".into(),
                analysis: "dominator tree",
            }
        );
        assert!(err.is_internal());
        assert!(err
            .to_string()
            .contains("pass `liar` changed the CFG of @k"));
    }
}

/// Stores through the entry's `i32` parameter as if it were the pointer:
/// IR the verifier refuses.
static BREAKER: Pass = Pass {
    name: "breaker",
    summary: "makes the first store write through an i32",
    kind: PassKind::Function(|func, _: &mut Analyses| {
        let params = func.params().to_vec();
        let store = func
            .layout
            .insts()
            .map(|(_, i)| i)
            .find(|&i| matches!(func.dfg.insts[i], InstData::Store { .. }));
        if let Some(InstData::Store { ptr, .. }) = store.map(|i| &mut func.dfg.insts[i]) {
            *ptr = params[1];
        }
        Changed::Insts
    }),
    knobs: None,
};

/// Invalid IR is a compiler bug that says when the verifier saw it: after
/// the pass (verifying after each), or after the pipeline (verifying once).
#[test]
fn invalid_ir_names_where_the_verifier_found_it() {
    let cases = [
        (Verify::EachPass, false, Checkpoint::Pass("breaker".into())),
        (Verify::EachPass, true, Checkpoint::Pass("breaker".into())),
        (Verify::Once, false, Checkpoint::Pipeline),
    ];
    for (verify, observed, after) in cases {
        let mut module = parse_module(DIAMOND).expect("parses");
        let mut p = pipeline(&BREAKER);
        p.options.verify = verify;
        let result = if observed {
            p.run_observed(&mut module, |_, _| {})
        } else {
            p.run(&mut module)
        };
        let err = result.expect_err("the store is caught");
        let PassError::InvalidIr { after: found, .. } = &err else {
            panic!("{err}");
        };
        assert_eq!(found, &after);
        assert!(err.is_internal());
        let when = match after {
            Checkpoint::Pipeline => "invalid IR after the pass pipeline",
            _ => "invalid IR after pass `breaker`",
        };
        assert!(err.to_string().contains(when), "{err}");
    }
}

/// Every pass of the table keeps its word on the samples' shapes: the
/// whole -O3 pipeline over a module with loops, branches and calls, with
/// the check after every pass.
#[test]
fn every_pass_of_the_pipeline_says_when_it_changes_the_cfg() {
    let mut module = parse_module(LOOPS).expect("parses");
    let options = Options {
        verify: Verify::EachPass,
        ..Options::default()
    };
    for observed in [false, true] {
        let p = Pipeline::for_level(3, true, options.clone());
        let mut m = module.clone();
        let result = if observed {
            p.run_observed(&mut m, |_, _| {})
        } else {
            p.run(&mut m)
        };
        assert!(result.is_ok(), "{}", result.unwrap_err());
    }
    // And pass by pass, each alone after the ones before it.
    for step in Pipeline::for_level(3, true, options.clone()).steps() {
        let p = Pipeline::new(vec![step.clone()], options.clone());
        p.run(&mut module).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A loop with a run-time bound and a branch and a call inside, and a
/// loop of four trips: inlining, rotation, hoisting, unrolling and
/// if-conversion find work.
const LOOPS: &str = "
device internal @twice(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v0
    return v1
}

kernel external @k(ptr<global>, ptr<global>, i32) {
block0(v0: ptr<global>, v1: ptr<global>, v2: i32):
    v3 = iconst.i32 0
    jump block1(v3)

block1(v4: i32):
    v5 = icmp slt v4, v2
    brif v5, block2, block5

block2:
    v6 = sext.i64 v4
    v7 = iconst.i64 4
    v8 = imul v6, v7
    v9 = ptroffset v0, v8
    v10 = load.i32 v9
    v11 = icmp slt v10, v3
    brif v11, block3, block4

block3:
    v12 = call @twice(v10)
    v13 = ptroffset v1, v8
    store v12, v13
    jump block4

block4:
    v14 = iconst.i32 1
    v15 = iadd v4, v14
    jump block1(v15)

block5:
    v16 = iconst.i32 0
    jump block6(v16)

block6(v17: i32):
    v18 = iconst.i32 4
    v19 = icmp slt v17, v18
    brif v19, block7, block8

block7:
    v20 = sext.i64 v17
    v21 = iconst.i64 4
    v22 = imul v20, v21
    v23 = ptroffset v1, v22
    store v17, v23
    v24 = iconst.i32 1
    v25 = iadd v17, v24
    jump block6(v25)

block8:
    return
}
";
