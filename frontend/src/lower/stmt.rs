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
use crate::codes::Code;
use crate::typed::{Block, Expr, ExprKind, Place, Stmt, StmtKind};
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{IntCC, MemFlags, Type};

impl FunctionLowerer<'_, '_> {
    pub(crate) fn block(&mut self, block: &Block) {
        for s in &block.stmts {
            // Code after `return`/`break`/`goto` is unreachable, up to the
            // next `switch` label or `goto` label, which may be nested in a
            // statement (`goto in; ... { in: ... }`).
            if self.is_dead() && !matches!(s.kind, StmtKind::Label(_)) && !has_goto_label(s) {
                continue;
            }
            self.with_span(s.span, |lw| lw.stmt(s));
        }
    }

    /// The block of `goto` label `id`.
    fn goto_block(&mut self, id: u32) -> midend::ir::Block {
        if let Some(&b) = self.goto_blocks.get(&id) {
            return b;
        }
        let b = self.b.create_block();
        self.goto_blocks.insert(id, b);
        b
    }

    /// Lowers one statement, on a stack that grows as deep as statements
    /// nest (`stack.rs`).
    fn stmt(&mut self, s: &Stmt) {
        stdx::stack::with_stack(|| self.stmt_level(s))
    }

    fn stmt_level(&mut self, s: &Stmt) {
        match s.kind {
            StmtKind::GotoLabel(id) => {
                let to = self.goto_block(id);
                self.jump_if_live(to);
                self.b.switch_to_block(to);
                return;
            }
            StmtKind::Goto(id) if !self.is_dead() => {
                let to = self.goto_block(id);
                self.b.jump(to, vec![]);
                return;
            }
            _ => {}
        }
        if self.is_dead() && has_goto_label(s) && self.b.is_filled() {
            // Unreachable code that holds a label: build it in a block of its
            // own with no predecessor, so the label's `goto`s can enter it.
            self.start_unreachable_block();
        }
        if let StmtKind::Label(l) = s.kind {
            let Some(&to) = self.labels.last().and_then(|ls| ls.get(l as usize)) else {
                self.error(
                    s.span,
                    Code::E0011,
                    "internal: `case` label outside a `switch`",
                );
                return;
            };
            self.jump_if_live(to);
            self.b.switch_to_block(to);
            return;
        }
        if self.is_dead() && !has_goto_label(s) {
            return;
        }
        match &s.kind {
            StmtKind::Expr(e) => {
                self.expr_for_effect(e);
            }
            StmtKind::Decl { local, init, list } => {
                let ty = self.typed.locals[local.0 as usize].ty.clone();
                if let Some(slot) = self.slot(*local) {
                    let base = self.b.stack_addr(slot);
                    if let Some(init) = init {
                        let v = self.expr(init);
                        self.store_value(base, v, &ty);
                    }
                    for (off, e) in list.iter().flatten() {
                        let v = self.expr(e);
                        let off = self.b.iconst(Type::I64, *off as i64);
                        let p = self.b.ptroffset(base, off);
                        self.store_value(p, v, &e.ty);
                    }
                } else if let Some(init) = init {
                    let ty = self.var_type(*local);
                    let v = self.expr(init);
                    let v = self.coerce(v, ty);
                    self.b.def_var(Self::var(*local), v);
                } else if let Some(list) = list {
                    // `int x = {5};`: a scalar with a braced initializer.
                    if let Some((_, e)) = list.first() {
                        let ty = self.var_type(*local);
                        let v = self.expr(e);
                        let v = self.coerce(v, ty);
                        self.b.def_var(Self::var(*local), v);
                    }
                }
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::If { cond, then, els } => self.if_stmt(cond, then, els.as_deref()),
            // `#pragma unroll` hints go on the loop's header block
            // (`Function::loop_hints`), where the `unroll` pass reads them.
            StmtKind::While { cond, body, unroll } => {
                self.loop_stmt(Some(cond), None, body, false, *unroll)
            }
            StmtKind::DoWhile { body, cond, unroll } => {
                self.loop_stmt(Some(cond), None, body, true, *unroll)
            }
            StmtKind::Switch {
                cond,
                cases,
                default,
                body,
            } => self.switch_stmt(cond, cases, *default, body),
            StmtKind::Label(_) | StmtKind::Goto(_) | StmtKind::GotoLabel(_) => {}
            StmtKind::For {
                init,
                cond,
                step,
                body,
                unroll,
            } => {
                for s in init {
                    self.with_span(s.span, |lw| lw.stmt(s));
                }
                let outer = self.counters.len();
                self.counters
                    .extend(init.iter().filter_map(|s| match &s.kind {
                        StmtKind::Decl { local, .. } => Some(*local),
                        _ => None,
                    }));
                self.loop_stmt(cond.as_ref(), step.as_ref(), body, false, *unroll);
                self.counters.truncate(outer);
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                let to = if is_break {
                    self.loops.last().map(|t| t.break_to)
                } else {
                    self.loops.iter().rev().find_map(|t| t.continue_to)
                };
                let Some(to) = to else {
                    let what = if is_break { "`break`" } else { "`continue`" };
                    self.error(s.span, Code::E0099, format!("{what} outside of a loop"));
                    return;
                };
                self.b.jump(to, vec![]);
            }
            StmtKind::Return(Some(e)) if e.ty.is_struct() => {
                // The result goes to the caller's memory (see `aggregate.rs`).
                let src = self.expr(e);
                if let Some(dst) = self.sret {
                    self.copy_struct(dst, src, &e.ty);
                }
                self.b.ret(vec![]);
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
            StmtKind::Asm(a) => self.asm(a),
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
        unroll: Option<crate::typed::Unroll>,
    ) {
        let header = self.b.create_block();
        let body_block = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();
        if let Some(hint) = unroll {
            // The block the back edge returns to: the test, or for
            // do/while the body.
            let at = if body_first { body_block } else { header };
            let hint = match hint {
                crate::typed::Unroll::Full => midend::ir::LoopHint::Full,
                crate::typed::Unroll::Count(n) => midend::ir::LoopHint::Count(n),
            };
            self.b.func.loop_hints.insert(at, hint);
        }
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
            continue_to: Some(latch),
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

    /// Stores a register value of C type `ty` to `ptr` (bools as bytes).
    pub(crate) fn store_value(&mut self, ptr: midend::ir::Value, v: midend::ir::Value, ty: &CType) {
        if ty.is_struct() {
            // `v` is the address of the struct to copy.
            self.copy_struct(ptr, v, ty);
            return;
        }
        let v = self.coerce(v, super::value_type(ty));
        let stored = self.coerce(v, super::abi_type(ty));
        self.b.store(stored, ptr, MemFlags::default());
    }

    /// `switch`: a chain of equality tests on the value, one per `case`
    /// (the IR has no jump table instruction), then the `default` label or
    /// the exit. Each label is a block, so fallthrough is just a jump.
    fn switch_stmt(
        &mut self,
        cond: &Expr,
        cases: &[(i128, u32)],
        default: Option<u32>,
        body: &Block,
    ) {
        let v = self.expr(cond);
        let ty = self.b.value_type(v);
        let n = cases.len() + usize::from(default.is_some());
        let labels: Vec<_> = (0..n).map(|_| self.b.create_block()).collect();
        let exit = self.b.create_block();
        for &(value, label) in cases {
            let next = self.b.create_block();
            let c = self.b.iconst(ty, value as i64);
            let eq = self.b.icmp(IntCC::Eq, v, c);
            self.b
                .brif(eq, labels[label as usize], vec![], next, vec![]);
            self.b.seal_block(next);
            self.b.switch_to_block(next);
        }
        let fallback = default.map_or(exit, |d| labels[d as usize]);
        self.b.jump(fallback, vec![]);
        // Body code before the first label is unreachable: park it in a
        // block nothing jumps to.
        let before = self.b.create_block();
        self.b.seal_block(before);
        self.b.switch_to_block(before);
        self.loops.push(LoopTargets {
            break_to: exit,
            continue_to: None,
        });
        self.labels.push(labels.clone());
        self.block_with_labels(body, &labels);
        self.labels.pop();
        self.loops.pop();
        self.jump_if_live(exit);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
    }

    /// Lowers a `switch` body, sealing each label block once the jump into
    /// it from the previous statement exists.
    fn block_with_labels(&mut self, body: &Block, labels: &[midend::ir::Block]) {
        for s in &body.stmts {
            if let StmtKind::Label(l) = s.kind {
                self.with_span(s.span, |lw| lw.stmt(s));
                if let Some(&b) = labels.get(l as usize) {
                    self.b.seal_block(b);
                }
                continue;
            }
            if self.is_dead() {
                continue;
            }
            self.with_span(s.span, |lw| lw.stmt(s));
        }
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
    stdx::stack::with_stack(|| match &s.kind {
        StmtKind::Expr(e) => visit_expr(e, f),
        StmtKind::Decl { init, list, .. } => {
            init.iter().for_each(|e| visit_expr(e, f));
            list.iter().flatten().for_each(|(_, e)| visit_expr(e, f));
        }
        StmtKind::Block(b) => visit_places(b, f),
        StmtKind::If { cond, then, els } => {
            visit_expr(cond, f);
            visit_stmt(then, f);
            if let Some(e) = els {
                visit_stmt(e, f);
            }
        }
        StmtKind::While { cond, body, .. } | StmtKind::DoWhile { body, cond, .. } => {
            visit_expr(cond, f);
            visit_stmt(body, f);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
            ..
        } => {
            init.iter().for_each(|s| visit_stmt(s, f));
            cond.iter()
                .chain(step.iter())
                .for_each(|e| visit_expr(e, f));
            visit_stmt(body, f);
        }
        StmtKind::Switch { cond, body, .. } => {
            visit_expr(cond, f);
            visit_places(body, f);
        }
        StmtKind::Return(Some(e)) => visit_expr(e, f),
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Empty
        | StmtKind::Label(_)
        | StmtKind::Goto(_)
        | StmtKind::GotoLabel(_) => {}
        StmtKind::Asm(a) => {
            for (p, _) in &a.outputs {
                f(p);
                visit_place_operands(p, f);
            }
            a.operands.iter().for_each(|e| visit_expr(e, f));
        }
    })
}

fn visit_place_operands(p: &Place, f: &mut dyn FnMut(&Place)) {
    match p {
        Place::Local(_) | Place::Global(_) => {}
        Place::Deref(e) => visit_expr(e, f),
        Place::Field { base, .. } => visit_expr(base, f),
        Place::Index { base, index, .. } => {
            visit_expr(base, f);
            visit_expr(index, f);
        }
    }
}

fn visit_expr(e: &Expr, f: &mut dyn FnMut(&Place)) {
    stdx::stack::with_stack(|| match &e.kind {
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
        | ExprKind::Deref(a)
        | ExprKind::Field { base: a, .. } => visit_expr(a, f),
        ExprKind::StructLit(fields) => fields.iter().for_each(|(_, e)| visit_expr(e, f)),
        ExprKind::AddrOf(p) => visit_place_operands(p, f),
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
        ExprKind::Call { args, .. } | ExprKind::Intrinsic { args, .. } => {
            args.iter().for_each(|a| visit_expr(a, f))
        }
        ExprKind::CallIndirect { callee, args } => {
            visit_expr(callee, f);
            args.iter().for_each(|a| visit_expr(a, f))
        }
        ExprKind::IntConst(_)
        | ExprKind::FuncAddr { .. }
        | ExprKind::FloatConst(_)
        | ExprKind::Str(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Builtin(..)
        | ExprKind::TargetValue
        | ExprKind::SyncThreads => {}
    })
}

/// Whether `s` holds a `goto` label (a way into it from elsewhere).
fn has_goto_label(s: &Stmt) -> bool {
    stdx::stack::with_stack(|| match &s.kind {
        StmtKind::GotoLabel(_) => true,
        StmtKind::Block(b) => b.stmts.iter().any(has_goto_label),
        StmtKind::If { then, els, .. } => {
            has_goto_label(then) || els.as_deref().is_some_and(has_goto_label)
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => has_goto_label(body),
        StmtKind::For { init, body, .. } => init.iter().any(has_goto_label) || has_goto_label(body),
        StmtKind::Switch { body, .. } => body.stmts.iter().any(has_goto_label),
        _ => false,
    })
}
