//! `goto` and labels.
//!
//! A label is function-wide: a `goto` may come before or after it, so the
//! checks run when the function's body is done ([`Checker::finish_labels`]).
//! C++ (and so nvcc) forbids a jump into the scope of a variable that was
//! initialized where it was declared (`goto L; int x = 1; L: use(x);`), since
//! the jump would skip the initialization; kernelc reports it the same way.
//! Each label and each `goto` records the initialized locals in scope there,
//! and a jump is rejected when the label sees one that the `goto` does not.

use rustc_hash::FxHashMap;

use super::{Binding, Checker};
use crate::ast;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{Block, LocalId, Stmt, StmtKind};

/// A label of the current function.
pub(super) struct LabelInfo {
    pub(super) id: u32,
    /// Where it is defined (`None` while only `goto`s name it).
    pub(super) def: Option<Span>,
    /// The initialized locals in scope at the label.
    pub(super) in_scope: Vec<LocalId>,
}

/// A `goto` waiting for the end of the function to be checked.
pub(super) struct PendingGoto {
    pub(super) label: String,
    pub(super) span: Span,
    pub(super) in_scope: Vec<LocalId>,
}

impl Checker {
    /// The initialized locals (and references) visible here, innermost last.
    fn initialized_in_scope(&self) -> Vec<LocalId> {
        self.func
            .scopes
            .iter()
            .flat_map(|s| s.iter())
            .filter_map(|(_, b)| match b {
                Binding::Local(id) | Binding::Ref(id) => Some(*id),
                _ => None,
            })
            .filter(|id| self.func.initialized.contains(id))
            .collect()
    }

    fn label_id(&mut self, name: &str) -> u32 {
        let next = self.func.goto_labels.len() as u32;
        self.func
            .goto_labels
            .entry(name.to_string())
            .or_insert(LabelInfo {
                id: next,
                def: None,
                in_scope: Vec::new(),
            })
            .id
    }

    /// `goto name;`.
    pub(super) fn goto_stmt(&mut self, label: &str, span: Span) -> StmtKind {
        let id = self.label_id(label);
        if self.destructible_in_scope() {
            self.error(
                span,
                Code::E0002,
                "a `goto` where objects with destructors are in scope is not supported by kernelc yet",
            );
        }
        let in_scope = self.initialized_in_scope();
        self.func.gotos.push(PendingGoto {
            label: label.to_string(),
            span,
            in_scope,
        });
        StmtKind::Goto(id)
    }

    /// `name: stmt`.
    pub(super) fn labeled_stmt(
        &mut self,
        label: &str,
        label_span: Span,
        stmt: &ast::Stmt,
        span: Span,
    ) -> StmtKind {
        let id = self.label_id(label);
        let in_scope = self.initialized_in_scope();
        let info = self.func.goto_labels.get_mut(label).expect("just made");
        if let Some(prev) = info.def {
            self.diags.push(
                Diagnostic::error(
                    label_span,
                    Code::E0006,
                    format!("redefinition of label `{label}`"),
                )
                .with_label(prev, "previous definition is here"),
            );
        } else {
            info.def = Some(label_span);
            info.in_scope = in_scope;
        }
        let inner = self.stmt(stmt);
        StmtKind::Block(Block {
            stmts: vec![
                Stmt {
                    kind: StmtKind::GotoLabel(id),
                    span: label_span,
                },
                inner,
            ],
            span,
        })
    }

    /// Checks the function's `goto`s against its labels, then forgets both.
    pub(super) fn finish_labels(&mut self) {
        let labels: FxHashMap<String, LabelInfo> = std::mem::take(&mut self.func.goto_labels);
        for g in std::mem::take(&mut self.func.gotos) {
            let Some(info) = labels.get(&g.label).filter(|l| l.def.is_some()) else {
                self.error(
                    g.span,
                    Code::E0011,
                    format!("use of undeclared label `{}`", g.label),
                );
                continue;
            };
            if let Some(&skipped) = info.in_scope.iter().find(|id| !g.in_scope.contains(id)) {
                let local = &self.func.locals[skipped.0 as usize];
                let d = Diagnostic::error(
                    g.span,
                    Code::E0011,
                    format!(
                        "jump to label `{}` bypasses the initialization of `{}`",
                        g.label, local.name
                    ),
                )
                .with_label(local.span, "initialized here")
                .with_note("C++ forbids jumping into the scope of an initialized variable; move the label before the declaration, or put the declaration in a block of its own");
                self.diags.push(d);
            }
        }
    }
}
