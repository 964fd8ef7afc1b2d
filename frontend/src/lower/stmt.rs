//! Lowering statements: blocks, declarations, `if`, the three loops,
//! `break`/`continue` and `return`.
//!
//! Loop shape (the same for all three loops, so the IR reads alike):
//!
//! ```text
//!   jump header            ; do/while jumps to the body first
//! header:   brif cond, body, exit
//! body:     ...; jump latch
//! latch:    step; jump header      ; `continue` jumps here
//! exit:                            ; `break` jumps here
//! ```
//!
//! The header is sealed only after the latch's back edge exists, which is
//! what lets SSA construction give it parameters for the loop's variables.

use super::{FunctionLowerer, LoopTargets};
use crate::typed::{Block, Expr, ExprKind, Place, Stmt, StmtKind};
use midend::builder::InstBuilder;

impl FunctionLowerer<'_, '_> {
    pub(crate) fn block(&mut self, block: &Block) {
        for s in &block.stmts {
            if self.is_dead() {
                break;
            }
            self.with_span(s.span, |lw| lw.stmt(s));
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        if self.is_dead() {
            return;
        }
        match &s.kind {
            StmtKind::Expr(e) => {
                self.expr_for_effect(e);
            }
            StmtKind::Decl { local, init } => {
                if let Some(init) = init {
                    let ty = self.var_type(*local);
                    let v = self.expr(init);
                    let v = self.coerce(v, ty);
                    self.b.def_var(Self::var(*local), v);
                }
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::If { cond, then, els } => self.if_stmt(cond, then, els.as_deref()),
            StmtKind::While { cond, body } => self.loop_stmt(Some(cond), None, body, false),
            StmtKind::DoWhile { body, cond } => self.loop_stmt(Some(cond), None, body, true),
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                for s in init {
                    self.with_span(s.span, |lw| lw.stmt(s));
                }
                self.loop_stmt(cond.as_ref(), step.as_ref(), body, false);
            }
            StmtKind::Break | StmtKind::Continue => {
                let Some(targets) = self.loops.last().copied() else {
                    let what = if matches!(s.kind, StmtKind::Break) {
                        "`break`"
                    } else {
                        "`continue`"
                    };
                    self.error(s.span, format!("{what} outside of a loop"));
                    return;
                };
                let to = if matches!(s.kind, StmtKind::Break) {
                    targets.break_to
                } else {
                    targets.continue_to
                };
                self.b.jump(to, vec![]);
            }
            StmtKind::Return(value) => {
                let args = match value {
                    Some(e) => {
                        let v = self.expr(e);
                        vec![self.abi_value(v, &self.typed.ret.clone())]
                    }
                    None => vec![],
                };
                self.b.ret(args);
            }
            StmtKind::Empty => {}
        }
    }

    fn if_stmt(&mut self, cond: &Expr, then: &Stmt, els: Option<&Stmt>) {
        let then_block = self.b.create_block();
        let join = self.b.create_block();
        let else_block = if els.is_some() {
            self.b.create_block()
        } else {
            join
        };
        self.branch_on(cond, then_block, else_block);
        self.b.seal_block(then_block);
        self.b.switch_to_block(then_block);
        self.with_span(then.span, |lw| lw.stmt(then));
        self.jump_if_live(join);
        if let Some(els) = els {
            self.b.seal_block(else_block);
            self.b.switch_to_block(else_block);
            self.with_span(els.span, |lw| lw.stmt(els));
            self.jump_if_live(join);
        }
        self.b.seal_block(join);
        self.b.switch_to_block(join);
    }

    /// `while` (`cond` first), `do`/`while` (`body_first`) and `for` (with `step`).
    fn loop_stmt(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
        body_first: bool,
    ) {
        let header = self.b.create_block();
        let body_block = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();
        self.b
            .jump(if body_first { body_block } else { header }, vec![]);

        self.b.switch_to_block(header);
        match cond {
            Some(c) => self.with_span(c.span, |lw| lw.branch_on(c, body_block, exit)),
            None => {
                self.b.jump(body_block, vec![]);
            }
        }

        // The body's predecessors: the header, and for do/while the entry jump.
        self.b.seal_block(body_block);
        self.b.switch_to_block(body_block);
        self.loops.push(LoopTargets {
            break_to: exit,
            continue_to: latch,
        });
        self.with_span(body.span, |lw| lw.stmt(body));
        self.loops.pop();
        self.jump_if_live(latch);

        self.b.seal_block(latch);
        self.b.switch_to_block(latch);
        if let Some(step) = step {
            if !self.is_dead() {
                self.with_span(step.span, |lw| lw.expr_for_effect(step));
            }
        }
        self.jump_if_live(header);
        self.b.seal_block(header);

        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
    }

    /// Evaluates `e` only for its effects.
    pub(crate) fn expr_for_effect(&mut self, e: &Expr) {
        self.eval(e);
    }
}

/// Calls `f` on every place the block assigns to (including `++`/`--`).
pub(crate) fn visit_places(block: &Block, f: &mut dyn FnMut(&Place)) {
    for s in &block.stmts {
        visit_stmt(s, f);
    }
}

fn visit_stmt(s: &Stmt, f: &mut dyn FnMut(&Place)) {
    match &s.kind {
        StmtKind::Expr(e) => visit_expr(e, f),
        StmtKind::Decl { init, .. } => init.iter().for_each(|e| visit_expr(e, f)),
        StmtKind::Block(b) => visit_places(b, f),
        StmtKind::If { cond, then, els } => {
            visit_expr(cond, f);
            visit_stmt(then, f);
            if let Some(e) = els {
                visit_stmt(e, f);
            }
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            visit_expr(cond, f);
            visit_stmt(body, f);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            init.iter().for_each(|s| visit_stmt(s, f));
            cond.iter()
                .chain(step.iter())
                .for_each(|e| visit_expr(e, f));
            visit_stmt(body, f);
        }
        StmtKind::Return(Some(e)) => visit_expr(e, f),
        StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Empty => {}
    }
}

fn visit_place_operands(p: &Place, f: &mut dyn FnMut(&Place)) {
    match p {
        Place::Local(_) => {}
        Place::Deref(e) => visit_expr(e, f),
        Place::Index { base, index, .. } => {
            visit_expr(base, f);
            visit_expr(index, f);
        }
    }
}

fn visit_expr(e: &Expr, f: &mut dyn FnMut(&Place)) {
    match &e.kind {
        ExprKind::Assign { target, value, .. } => {
            f(target);
            visit_place_operands(target, f);
            visit_expr(value, f);
        }
        ExprKind::IncDec {
            target, new_value, ..
        } => {
            f(target);
            visit_place_operands(target, f);
            visit_expr(new_value, f);
        }
        ExprKind::Unary { operand: a, .. }
        | ExprKind::Not(a)
        | ExprKind::Cast { expr: a, .. }
        | ExprKind::Deref(a) => visit_expr(a, f),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Compare { lhs, rhs, .. }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs }
        | ExprKind::PtrDiff { lhs, rhs, .. } => {
            visit_expr(lhs, f);
            visit_expr(rhs, f);
        }
        ExprKind::Index { base, index, .. } => {
            visit_expr(base, f);
            visit_expr(index, f);
        }
        ExprKind::PtrAdd { ptr, offset, .. } | ExprKind::PtrSub { ptr, offset, .. } => {
            visit_expr(ptr, f);
            visit_expr(offset, f);
        }
        ExprKind::Ternary { cond, then, els } => {
            visit_expr(cond, f);
            visit_expr(then, f);
            visit_expr(els, f);
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| visit_expr(a, f)),
        ExprKind::IntConst(_)
        | ExprKind::FloatConst(_)
        | ExprKind::Local(_)
        | ExprKind::Builtin(..)
        | ExprKind::TargetValue
        | ExprKind::SyncThreads => {}
    }
}
