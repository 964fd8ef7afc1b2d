//! Constant evaluation: C++'s constant expressions over the typed tree,
//! calls of `constexpr` functions included.
//!
//! Expressions are evaluated after C's conversions are explicit, so
//! `(unsigned char)300` or `-1u >> 1` fold exactly as the program would
//! compute them at run time. A call of a `constexpr` function whose body
//! the checker has already checked ([`Checker::constexpr_bodies`]) runs
//! that body here over constant arguments: locals, assignments, `if`,
//! loops and `return`, within [`MAX_CALL_DEPTH`] nested calls and
//! [`MAX_STEPS`] statements per evaluation (past either the call is not a
//! constant, as a compiler's constexpr limits make it). Anything else (a
//! load, a global, a call of another function) is not a constant.

use std::cell::Cell;

use rustc_hash::FxHashMap;

use super::Checker;
use crate::typed::{
    BinOp, Block, CastKind, CmpOp, Expr, ExprKind, LocalId, LogicalOp, Place, Stmt, StmtKind, UnOp,
};
use crate::types::CType;

/// Nested `constexpr` calls evaluated before giving up (nvcc's front end
/// allows 512).
const MAX_CALL_DEPTH: usize = 512;

/// Statements one evaluation may execute (a loop that runs longer is not a
/// constant to kernelc; nvcc's front end stops at about a million too).
const MAX_STEPS: u64 = 1 << 20;

/// A constant's value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Int(i128),
    Float(f64),
}

/// How a statement ends.
enum Flow {
    Next,
    Return(Value),
    Break,
    Continue,
}

/// Reduces `v` to the range of integer type `ty` (two's complement wrap).
pub(super) fn wrap(v: i128, ty: &CType) -> i128 {
    match ty {
        CType::Bool => i128::from(v != 0),
        CType::Int { bits, signed } => {
            let bits = u32::from(*bits);
            let m = v & ((1i128 << bits) - 1);
            if *signed && m >= 1i128 << (bits - 1) {
                m - (1i128 << bits)
            } else {
                m
            }
        }
        _ => v,
    }
}

/// `v` as a value of floating type `ty` (a `float` is rounded once).
fn round(v: f64, ty: &CType) -> f64 {
    if *ty == CType::FLOAT {
        f64::from(v as f32)
    } else {
        v
    }
}

/// One evaluation: the checker's constants at the top, a call's locals
/// inside a `constexpr` function.
struct Eval<'c> {
    checker: &'c Checker,
    /// The locals of the `constexpr` call being run; `None` at the top,
    /// where the checked function's `const` locals are read.
    frame: Option<FxHashMap<LocalId, Value>>,
    /// The old value of the enclosing assignment's target
    /// ([`ExprKind::TargetValue`]).
    target: Option<Value>,
    depth: usize,
    steps: &'c Cell<u64>,
}

impl Checker {
    /// The value of an integer constant expression, or `None` when `e` is
    /// not one (variables, loads, calls of other than `constexpr`
    /// functions, division by zero...).
    pub(crate) fn const_int(&self, e: &Expr) -> Option<i128> {
        let steps = Cell::new(0);
        stdx::stack::with_stack(|| Eval::top(self, &steps).int(e))
    }

    /// The value of a floating constant expression (for initializers).
    pub(crate) fn const_float(&self, e: &Expr) -> Option<f64> {
        let steps = Cell::new(0);
        stdx::stack::with_stack(|| Eval::top(self, &steps).float(e))
    }
}

impl<'c> Eval<'c> {
    fn top(checker: &'c Checker, steps: &'c Cell<u64>) -> Eval<'c> {
        Eval {
            checker,
            frame: None,
            target: None,
            depth: 0,
            steps,
        }
    }

    /// `e`'s value, by its type.
    fn value(&mut self, e: &Expr) -> Option<Value> {
        if e.ty.is_float() {
            self.float(e).map(Value::Float)
        } else if e.ty.is_integer() || e.ty == CType::Bool {
            self.int(e).map(Value::Int)
        } else {
            None
        }
    }

    fn local(&self, id: LocalId) -> Option<Value> {
        match &self.frame {
            Some(frame) => frame.get(&id).copied(),
            None => {
                let var = self.checker.func.locals.get(id.0 as usize)?;
                match var.const_value {
                    Some(v) => Some(Value::Int(v)),
                    None => self
                        .checker
                        .func
                        .const_floats
                        .get(&id)
                        .map(|&f| Value::Float(f)),
                }
            }
        }
    }

    // Long: one arm per integer operator, as C defines each.
    fn int(&mut self, e: &Expr) -> Option<i128> {
        let v = match &e.kind {
            ExprKind::IntConst(v) => *v,
            _ if self.is_stored(e) => match self.stored(e)? {
                Value::Int(v) => v,
                Value::Float(_) => return None,
            },
            ExprKind::Cast { kind, expr } => match kind {
                CastKind::IntToInt | CastKind::BoolToInt => self.int(expr)?,
                CastKind::ToBool if expr.ty.is_integer() => i128::from(self.int(expr)? != 0),
                CastKind::ToBool if expr.ty.is_float() => i128::from(self.float(expr)? != 0.0),
                CastKind::FloatToInt => {
                    let f = self.float(expr)?.trunc();
                    if !(-1e38..1e38).contains(&f) {
                        return None;
                    }
                    f as i128
                }
                _ => return None,
            },
            ExprKind::Unary { op, operand } => {
                let x = self.int(operand)?;
                match op {
                    UnOp::Neg => x.wrapping_neg(),
                    UnOp::BitNot => !x,
                }
            }
            ExprKind::Not(x) => i128::from(self.int(x)? == 0),
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.int(lhs)?, self.int(rhs)?);
                match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div if b != 0 => a.wrapping_div(b),
                    BinOp::Rem if b != 0 => a.wrapping_rem(b),
                    BinOp::Div | BinOp::Rem => return None,
                    BinOp::Shl => a.checked_shl(u32::try_from(b).ok()?.min(127))?,
                    BinOp::Shr => a >> u32::try_from(b).ok()?.min(127),
                    BinOp::BitAnd => a & b,
                    BinOp::BitOr => a | b,
                    BinOp::BitXor => a ^ b,
                }
            }
            ExprKind::Compare { op, lhs, rhs } => i128::from(self.compare(*op, lhs, rhs)?),
            ExprKind::Logical { op, lhs, rhs } => {
                let a = self.int(lhs)? != 0;
                i128::from(match op {
                    LogicalOp::And => a && self.int(rhs)? != 0,
                    LogicalOp::Or => a || self.int(rhs)? != 0,
                })
            }
            ExprKind::Ternary { cond, then, els } => {
                if self.int(cond)? != 0 {
                    self.int(then)?
                } else {
                    self.int(els)?
                }
            }
            _ => return None,
        };
        Some(wrap(v, &e.ty))
    }

    fn compare(&mut self, op: CmpOp, lhs: &Expr, rhs: &Expr) -> Option<bool> {
        if lhs.ty.is_float() {
            let (a, b) = (self.float(lhs)?, self.float(rhs)?);
            return Some(match op {
                CmpOp::Lt => a < b,
                CmpOp::Le => a <= b,
                CmpOp::Gt => a > b,
                CmpOp::Ge => a >= b,
                CmpOp::Eq => a == b,
                CmpOp::Ne => a != b,
            });
        }
        if !lhs.ty.is_integer() {
            return None;
        }
        let (a, b) = (self.int(lhs)?, self.int(rhs)?);
        Some(match op {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        })
    }

    fn float(&mut self, e: &Expr) -> Option<f64> {
        let v = match &e.kind {
            ExprKind::FloatConst(x) => *x,
            _ if self.is_stored(e) => match self.stored(e)? {
                Value::Float(v) => v,
                Value::Int(_) => return None,
            },
            ExprKind::Cast { kind, expr } => match kind {
                CastKind::IntToFloat | CastKind::BoolToFloat => self.int(expr)? as f64,
                CastKind::FloatToFloat => self.float(expr)?,
                _ => return None,
            },
            ExprKind::Unary {
                op: UnOp::Neg,
                operand,
            } => -self.float(operand)?,
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.float(lhs)?, self.float(rhs)?);
                match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    _ => return None,
                }
            }
            ExprKind::Ternary { cond, then, els } => {
                if self.int(cond)? != 0 {
                    self.float(then)?
                } else {
                    self.float(els)?
                }
            }
            _ => return None,
        };
        Some(round(v, &e.ty))
    }

    /// Whether `e` is a value kept somewhere rather than computed by an
    /// operator: a local, the target's old value, a `constexpr` call's
    /// result, or (in a call) an assignment's.
    fn is_stored(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Local(_) | ExprKind::TargetValue | ExprKind::Call { .. } => true,
            ExprKind::Comma { .. } | ExprKind::Assign { .. } | ExprKind::IncDec { .. } => {
                self.frame.is_some()
            }
            _ => false,
        }
    }

    /// The value of an expression [`Eval::is_stored`] accepts.
    fn stored(&mut self, e: &Expr) -> Option<Value> {
        match &e.kind {
            ExprKind::Local(id) => self.local(*id),
            ExprKind::TargetValue => self.target,
            ExprKind::Call { name, args, .. } => self.call(name, args),
            _ => self.effect(e),
        }
    }

    /// The call of `constexpr` function `name` with `args`: its body run
    /// over their values.
    fn call(&mut self, name: &str, args: &[Expr]) -> Option<Value> {
        let f = self.checker.constexpr_bodies.get(name)?;
        if self.depth >= MAX_CALL_DEPTH || f.params.len() != args.len() {
            return None;
        }
        let mut frame = FxHashMap::default();
        for (i, a) in args.iter().enumerate() {
            frame.insert(LocalId(i as u32), self.value(a)?);
        }
        let mut callee = Eval {
            checker: self.checker,
            frame: Some(frame),
            target: None,
            depth: self.depth + 1,
            steps: self.steps,
        };
        match callee.block(&f.body)? {
            Flow::Return(Value::Int(v)) if f.ret.is_integer() || f.ret == CType::Bool => {
                Some(Value::Int(wrap(v, &f.ret)))
            }
            Flow::Return(Value::Float(v)) if f.ret.is_float() => {
                Some(Value::Float(round(v, &f.ret)))
            }
            _ => None,
        }
    }

    fn block(&mut self, b: &Block) -> Option<Flow> {
        for s in &b.stmts {
            match self.stmt(s)? {
                Flow::Next => {}
                other => return Some(other),
            }
        }
        Some(Flow::Next)
    }

    // Long: one arm per statement kind a constexpr body may hold.
    fn stmt(&mut self, s: &Stmt) -> Option<Flow> {
        let count = self.steps.get() + 1;
        if count > MAX_STEPS {
            return None;
        }
        self.steps.set(count);
        match &s.kind {
            StmtKind::Expr(e) => {
                self.effect(e)?;
            }
            StmtKind::Decl {
                local,
                init: Some(init),
                list: None,
            } => {
                let v = self.value(init)?;
                self.frame.as_mut()?.insert(*local, v);
            }
            StmtKind::Block(b) => return self.block(b),
            StmtKind::If { cond, then, els } => {
                if self.int(cond)? != 0 {
                    return self.stmt(then);
                } else if let Some(els) = els {
                    return self.stmt(els);
                }
            }
            StmtKind::While { cond, body, .. } => {
                while self.int(cond)? != 0 {
                    match self.stmt(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Some(Flow::Return(v)),
                        Flow::Next | Flow::Continue => {}
                    }
                }
            }
            StmtKind::DoWhile { body, cond, .. } => loop {
                match self.stmt(body)? {
                    Flow::Break => break,
                    Flow::Return(v) => return Some(Flow::Return(v)),
                    Flow::Next | Flow::Continue => {}
                }
                if self.int(cond)? == 0 {
                    break;
                }
            },
            StmtKind::For {
                init,
                cond,
                step,
                body,
                ..
            } => {
                for s in init {
                    self.stmt(s)?;
                }
                while cond
                    .as_ref()
                    .map_or(Some(true), |c| Some(self.int(c)? != 0))?
                {
                    match self.stmt(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Some(Flow::Return(v)),
                        Flow::Next | Flow::Continue => {}
                    }
                    if let Some(step) = step {
                        self.effect(step)?;
                    }
                }
            }
            StmtKind::Return(Some(e)) => return Some(Flow::Return(self.value(e)?)),
            StmtKind::Break => return Some(Flow::Break),
            StmtKind::Continue => return Some(Flow::Continue),
            StmtKind::Empty => {}
            _ => return None,
        }
        Some(Flow::Next)
    }

    /// Evaluates `e` for its effect on the call's locals (an assignment,
    /// `++`/`--`, a comma), or for its value: the value.
    fn effect(&mut self, e: &Expr) -> Option<Value> {
        match &e.kind {
            ExprKind::Assign {
                target: Place::Local(id),
                op,
                value,
            } => {
                let old = self.target;
                self.target = if op.is_some() {
                    Some(self.frame.as_ref()?.get(id).copied()?)
                } else {
                    None
                };
                let v = self.value(value);
                self.target = old;
                let v = v?;
                self.frame.as_mut()?.insert(*id, v);
                Some(v)
            }
            ExprKind::IncDec {
                target: Place::Local(id),
                pre,
                new_value,
                ..
            } => {
                let before = self.frame.as_ref()?.get(id).copied()?;
                let old = self.target.replace(before);
                let after = self.value(new_value);
                self.target = old;
                let after = after?;
                self.frame.as_mut()?.insert(*id, after);
                Some(if *pre { after } else { before })
            }
            ExprKind::Comma { lhs, rhs } => {
                self.effect(lhs)?;
                self.effect(rhs)
            }
            _ => self.value(e),
        }
    }
}

/// The `constexpr` functions defined in a file's items, by key, whose
/// definitions a static data member's initializer may call before their
/// turn (a class template's `static constexpr int W = width();` reads
/// `width`, which the class's items define after `W`), and those checked
/// so.
pub(super) struct AheadOfTurn {
    definitions: FxHashMap<String, usize>,
    checked: rustc_hash::FxHashSet<usize>,
}

impl AheadOfTurn {
    /// Whether the definition at item `index` was checked ahead of its turn.
    pub(super) fn checked(&self, index: usize) -> bool {
        self.checked.contains(&index)
    }
}

impl Checker {
    /// The `constexpr` definitions among `items` (`defs`: their keys by
    /// item, `deduced`: those whose return type is deduced, left out).
    pub(super) fn constexpr_definitions(
        &self,
        items: &[crate::ast::Item],
        defs: &FxHashMap<usize, String>,
        deduced: &FxHashMap<usize, usize>,
    ) -> AheadOfTurn {
        let definitions = defs
            .iter()
            .filter(|(i, _)| !deduced.contains_key(*i))
            .filter(
                |(i, _)| matches!(&items[**i], crate::ast::Item::Function(f) if f.specs.constexpr),
            )
            .map(|(i, key)| (key.clone(), *i))
            .collect();
        AheadOfTurn {
            definitions,
            checked: Default::default(),
        }
    }

    /// Checks now the `constexpr` functions that the initializer of
    /// file-scope variable `v` calls and that `items` define after it,
    /// appending them to `functions`: the constant evaluator needs their
    /// bodies.
    pub(super) fn define_called_constexprs(
        &mut self,
        v: &crate::ast::VarDecl,
        items: &[crate::ast::Item],
        ahead: &mut AheadOfTurn,
        functions: &mut Vec<crate::typed::Function>,
    ) {
        let Some(crate::ast::Init::Expr(init)) = &v.init else {
            return;
        };
        let mut called = Vec::new();
        callees(init, &mut called);
        let item = self.item;
        for name in called {
            let Some(&index) = ahead.definitions.get(&name) else {
                continue;
            };
            let crate::ast::Item::Function(f) = &items[index] else {
                continue;
            };
            if index <= item || self.constexpr_bodies.contains_key(&name) || f.name != name {
                continue;
            }
            ahead.checked.insert(index);
            self.item = index;
            let checked = self.function(f, 0);
            functions.push(self.keep_if_constexpr(f, checked));
        }
        self.item = item;
    }
}

/// The names of the functions `e` calls by name, in order.
fn callees(e: &crate::ast::Expr, out: &mut Vec<String>) {
    use crate::ast::ExprKind as K;
    stdx::stack::with_stack(|| match &e.kind {
        K::Call { callee, args } => {
            if let K::Ident(name) = &callee.kind {
                out.push(name.clone());
            }
            args.iter().for_each(|a| callees(a, out));
        }
        K::Unary { operand, .. } | K::IncDec { operand, .. } => callees(operand, out),
        K::Binary { lhs, rhs, .. } | K::Assign { lhs, rhs, .. } => {
            callees(lhs, out);
            callees(rhs, out);
        }
        K::Ternary { cond, then, els } => {
            callees(cond, out);
            callees(then, out);
            callees(els, out);
        }
        K::Cast { expr, .. } | K::NamedCast { expr, .. } => callees(expr, out),
        _ => {}
    })
}
