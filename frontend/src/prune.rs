//! Leaving out the functions of kernelc's own headers that nothing uses.
//!
//! A header of source ([`crate::headers::Header::Source`], cuRAND's device
//! API) defines dozens of functions, and a program calls a few. Those that
//! no function of the program reaches are dropped from the checked program
//! before it is lowered, so they cost neither lowering nor the optimizer's
//! passes (the backend would leave them out of the PTX anyway, as nvcc
//! does). The program's own functions are all kept, used or not, so its IR
//! is what it was. Calls name their callee by index ([`FuncId`]), so the
//! kept functions are renumbered.

use crate::source_map::SourceMap;
use crate::typed::{AddrTarget, Block, Expr, ExprKind, FuncId, Place, Program, Stmt, StmtKind};

/// The pseudo paths of kernelc's headers of source start with this.
pub(crate) const HEADER_PREFIX: &str = "<kernelc>/";

/// `program` without the functions of kernelc's headers that the
/// program's own functions do not reach through calls.
pub(crate) fn drop_unused_header_functions(mut program: Program, map: &SourceMap) -> Program {
    let headers: Vec<(u32, u32)> = map
        .files()
        .iter()
        .filter(|f| f.name().starts_with(HEADER_PREFIX))
        .map(|f| (f.base(), f.end()))
        .collect();
    if headers.is_empty() {
        return program;
    }
    let in_header = |at: u32| headers.iter().any(|&(base, end)| base <= at && at < end);
    let count = program.functions.len();
    let mut live = vec![false; count];
    let mut work: Vec<usize> = (0..count)
        .filter(|&i| !in_header(program.functions[i].span.start))
        .collect();
    // A function whose address a module variable holds is reached too.
    for_each_initializer_function(&mut program, &mut |callee| work.push(callee.0 as usize));
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut live[i], true) {
            continue;
        }
        calls_in_block(&mut program.functions[i].body, &mut |callee| {
            work.push(callee.0 as usize)
        });
    }
    if live.iter().all(|&l| l) {
        return program;
    }
    let mut new_index = vec![0u32; count];
    let mut next = 0;
    for (i, &l) in live.iter().enumerate() {
        if l {
            new_index[i] = next;
            next += 1;
        }
    }
    for_each_initializer_function(&mut program, &mut |callee| {
        *callee = FuncId(new_index[callee.0 as usize])
    });
    let mut kept = Vec::with_capacity(next as usize);
    for (i, mut f) in program.functions.into_iter().enumerate() {
        if live[i] {
            calls_in_block(&mut f.body, &mut |callee| {
                *callee = FuncId(new_index[callee.0 as usize])
            });
            kept.push(f);
        }
    }
    program.functions = kept;
    program
}

/// Calls `f` on every function whose address a module variable's
/// initializer holds.
fn for_each_initializer_function(program: &mut Program, f: &mut dyn FnMut(&mut FuncId)) {
    for g in &mut program.globals {
        for a in &mut g.addrs {
            if let AddrTarget::Func(callee) = &mut a.target {
                f(callee);
            }
        }
    }
}

/// Calls `f` on the callee of every call in `block`.
fn calls_in_block(block: &mut Block, f: &mut dyn FnMut(&mut FuncId)) {
    for s in &mut block.stmts {
        calls_in_stmt(s, f);
    }
}

fn calls_in_stmt(s: &mut Stmt, f: &mut dyn FnMut(&mut FuncId)) {
    stdx::stack::with_stack(|| match &mut s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => calls_in_expr(e, f),
        StmtKind::Decl { init, list, .. } => {
            init.iter_mut().for_each(|e| calls_in_expr(e, f));
            list.iter_mut()
                .flatten()
                .for_each(|(_, e)| calls_in_expr(e, f));
        }
        StmtKind::Block(b) => calls_in_block(b, f),
        StmtKind::Switch { cond, body, .. } => {
            calls_in_expr(cond, f);
            calls_in_block(body, f);
        }
        StmtKind::If { cond, then, els } => {
            calls_in_expr(cond, f);
            calls_in_stmt(then, f);
            if let Some(e) = els {
                calls_in_stmt(e, f);
            }
        }
        StmtKind::While { cond, body, .. } | StmtKind::DoWhile { body, cond, .. } => {
            calls_in_expr(cond, f);
            calls_in_stmt(body, f);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
            ..
        } => {
            init.iter_mut().for_each(|s| calls_in_stmt(s, f));
            cond.iter_mut()
                .chain(step.iter_mut())
                .for_each(|e| calls_in_expr(e, f));
            calls_in_stmt(body, f);
        }
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Empty
        | StmtKind::Label(_)
        | StmtKind::Goto(_)
        | StmtKind::GotoLabel(_) => {}
        StmtKind::Asm(a) => {
            a.operands.iter_mut().for_each(|e| calls_in_expr(e, f));
            a.outputs.iter_mut().for_each(|(p, _)| calls_in_place(p, f));
        }
    })
}

fn calls_in_place(p: &mut Place, f: &mut dyn FnMut(&mut FuncId)) {
    match p {
        Place::Local(_) | Place::Global(_) => {}
        Place::Deref(e) => calls_in_expr(e, f),
        Place::Field { base, .. } => calls_in_expr(base, f),
        Place::Index { base, index, .. } => {
            calls_in_expr(base, f);
            calls_in_expr(index, f);
        }
    }
}

fn calls_in_expr(e: &mut Expr, f: &mut dyn FnMut(&mut FuncId)) {
    stdx::stack::with_stack(|| match &mut e.kind {
        ExprKind::Call { callee, args, .. } => {
            f(callee);
            args.iter_mut().for_each(|a| calls_in_expr(a, f));
        }
        // A function whose address is taken is reached as a call's callee is.
        ExprKind::FuncAddr { callee, .. } => f(callee),
        ExprKind::CallIndirect { callee, args } => {
            calls_in_expr(callee, f);
            args.iter_mut().for_each(|a| calls_in_expr(a, f));
        }
        ExprKind::Intrinsic { args, .. } => args.iter_mut().for_each(|a| calls_in_expr(a, f)),
        ExprKind::Assign { target, value, .. } => {
            calls_in_place(target, f);
            calls_in_expr(value, f);
        }
        ExprKind::IncDec {
            target, new_value, ..
        } => {
            calls_in_place(target, f);
            calls_in_expr(new_value, f);
        }
        ExprKind::Unary { operand: a, .. }
        | ExprKind::Not(a)
        | ExprKind::Cast { expr: a, .. }
        | ExprKind::Deref(a)
        | ExprKind::Field { base: a, .. } => calls_in_expr(a, f),
        ExprKind::StructLit(fields) => fields.iter_mut().for_each(|(_, e)| calls_in_expr(e, f)),
        ExprKind::AddrOf(p) => calls_in_place(p, f),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Compare { lhs, rhs, .. }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs }
        | ExprKind::PtrDiff { lhs, rhs, .. }
        | ExprKind::Index {
            base: lhs,
            index: rhs,
            ..
        }
        | ExprKind::PtrAdd {
            ptr: lhs,
            offset: rhs,
            ..
        }
        | ExprKind::PtrSub {
            ptr: lhs,
            offset: rhs,
            ..
        } => {
            calls_in_expr(lhs, f);
            calls_in_expr(rhs, f);
        }
        ExprKind::Ternary { cond, then, els } => {
            calls_in_expr(cond, f);
            calls_in_expr(then, f);
            calls_in_expr(els, f);
        }
        ExprKind::IntConst(_)
        | ExprKind::FloatConst(_)
        | ExprKind::Str(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Builtin(..)
        | ExprKind::TargetValue
        | ExprKind::SyncThreads => {}
    })
}
