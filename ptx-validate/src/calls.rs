//! Call sequences: the `.param` variables declared in a function's body
//! carry a call's arguments and results, and ptxas 13.5 checks how they are
//! used around the `call` (each rule measured; `tests/mutant_cases/`).
//!
//! - A result is read only after a call has written it: an `ld.param` of a
//!   body-declared `.param` that no earlier `call` names among its results
//!   (before the call, with the call deleted, or an argument read back) is
//!   `Function call sequence invalid: 'ld.param' of 'x' without
//!   corresponding call`.
//! - An immediate stored at a negative offset into an argument that a call
//!   passes (`st.param.b32 [param0+-4], 1;`) makes ptxas crash (a
//!   segmentation fault, no message); from a register, or into a `.param`
//!   no call passes, it assembles.
//!
//! ptxas checks these while it compiles a function, and it compiles only
//! the kernels and the device functions they reach (an unused `.func`,
//! `.visible` or not, assembles whatever its call sequences), so the rules
//! hold in the functions of [`compiled_functions`].
//!
//! The walk in [`crate::check`] calls [`record_call`] after each
//! instruction; [`param_use`] judges each `ld.param`/`st.param`.

use crate::ast::{FuncKind, Inst, Item, Module, OpKind, Operand, Stmt};
use crate::check::{Cx, Res};
use std::collections::{HashMap, HashSet};

/// The kernels and every function they reach: by a call, or by any other
/// instruction that names the function (an address for an indirect call).
pub fn compiled_functions(m: &Module) -> HashSet<String> {
    let mut named: HashMap<&str, HashSet<String>> = HashMap::new();
    let mut work = Vec::new();
    for item in &m.items {
        let Item::Func(f) = item else { continue };
        if let Some(body) = &f.body {
            collect_names(body, named.entry(f.name.as_str()).or_default());
        }
        if f.kind == FuncKind::Entry {
            work.push(f.name.clone());
        }
    }
    let mut seen: HashSet<String> = work.iter().cloned().collect();
    while let Some(f) = work.pop() {
        for callee in named.get(f.as_str()).into_iter().flatten() {
            if named.contains_key(callee.as_str()) && seen.insert(callee.clone()) {
                work.push(callee.clone());
            }
        }
    }
    seen
}

/// Every plain name an instruction of `body` writes.
fn collect_names(body: &[Stmt], names: &mut HashSet<String>) {
    for s in body {
        match s {
            Stmt::Block(inner, _) => collect_names(inner, names),
            Stmt::Inst(i) => i.operands.iter().for_each(|o| operand_names(o, names)),
            _ => {}
        }
    }
}

fn operand_names(o: &Operand, names: &mut HashSet<String>) {
    match &o.kind {
        OpKind::Name { name, .. } | OpKind::SymOffset(name, _) => {
            names.insert(name.clone());
        }
        OpKind::List(v) | OpKind::Vector(v) => v.iter().for_each(|x| operand_names(x, names)),
        _ => {}
    }
}

/// The names every `call` of `body` passes as arguments (by name: a
/// nested block's `.param` of the same name counts too, which can only
/// make the crash rule quieter).
pub fn passed_arguments(body: &[Stmt]) -> HashSet<String> {
    let mut names = HashSet::new();
    collect_arguments(body, &mut names);
    names
}

fn collect_arguments(body: &[Stmt], names: &mut HashSet<String>) {
    for s in body {
        match s {
            Stmt::Block(inner, _) => collect_arguments(inner, names),
            Stmt::Inst(i) if i.opcode == "call" => {
                let (_, args) = call_lists(i);
                names.extend(args.iter().filter_map(name_of).map(str::to_string));
            }
            _ => {}
        }
    }
}

/// A call's result list and argument list (either may be empty).
fn call_lists(i: &Inst) -> (&[Operand], &[Operand]) {
    fn list(o: Option<&Operand>) -> &[Operand] {
        match o.map(|o| &o.kind) {
            Some(OpKind::List(v)) => v.as_slice(),
            _ => &[],
        }
    }
    let has_results = matches!(i.operands.first().map(|o| &o.kind), Some(OpKind::List(_)));
    if has_results {
        (list(i.operands.first()), list(i.operands.get(2)))
    } else {
        (&[], list(i.operands.get(1)))
    }
}

fn name_of(o: &Operand) -> Option<&str> {
    match &o.kind {
        OpKind::Name { name, .. } => Some(name),
        _ => None,
    }
}

/// After a `call`: its results may be read from now on.
pub fn record_call(cx: &mut Cx, i: &Inst) {
    if i.opcode != "call" {
        return;
    }
    let (results, _) = call_lists(i);
    for name in results.iter().filter_map(name_of) {
        if let Res::Var(s) = cx.resolve(name) {
            cx.call_results.push(s);
        }
    }
}

/// The call-sequence problem of an `ld.param` or `st.param` in a compiled
/// function.
pub fn param_use(cx: &Cx, i: &Inst) -> Option<String> {
    if !cx.compiled || !matches!(i.opcode.as_str(), "ld" | "st") {
        return None;
    }
    if !i.mods.iter().any(|m| m.starts_with(".param")) {
        return None;
    }
    let at = if i.opcode == "ld" { 1 } else { 0 };
    let Some(OpKind::Addr {
        base: Some(base),
        offset,
        ..
    }) = i.operands.get(at).map(|o| &o.kind)
    else {
        return None;
    };
    let Res::Var(sym) = cx.resolve(base) else {
        return None;
    };
    if sym.space != ".param" || sym.in_signature {
        return None;
    }
    if i.opcode == "ld" {
        let written = cx.call_results.iter().any(|r| std::rc::Rc::ptr_eq(r, &sym));
        return (!written).then(|| {
            format!(
                "Function call sequence invalid: 'ld.param' of '{base}' without corresponding call"
            )
        });
    }
    let immediate = matches!(
        i.operands.get(1).map(|o| &o.kind),
        Some(OpKind::Int(_) | OpKind::Float(_))
    );
    (immediate && *offset < 0 && cx.call_arguments.contains(base.as_str())).then(|| {
        format!("ptxas 13.5 crashes on this store to .param '{base}' at a negative offset")
    })
}
