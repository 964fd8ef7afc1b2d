//! Restrict processing: turn the source's `__restrict__` into facts the
//! alias analysis can use (`docs/restrict.md`).
//!
//! The frontend records `__restrict__` as `ParamAttrs::restrict` and nothing
//! else: a promise in the user's words. This pass makes it the compiler's:
//!
//! - the canonical `noalias` attribute is set on each restricted pointer
//!   parameter (`restrict` stays, so diagnostics can still name the keyword);
//! - each such parameter gets an alias scope, and every load and store whose
//!   pointer is derived only from restricted roots (through `ptroffset`,
//!   `addrspacecast`, `select` and block parameters) is stamped
//!   `scopes(...)` with the scopes of its roots: a join of two roots carries
//!   both;
//! - every access whose roots are all identified (parameters, module
//!   variables, stack slots) is stamped `noalias(...)` with the restricted
//!   scopes it is *not* derived from;
//! - `restrict_processed` is set, so a second run (after cloning, or by a
//!   pass list that names the pass twice) changes nothing.
//!
//! It runs after `memspace`, so the clones that inference makes are
//! processed like any other function, each with its own scopes.

use super::{Diagnostic, DiagnosticKind, KnobError, Label, Report};
use crate::analysis::{Content, LocalCells, Provenance, Root};
use crate::ir::{AliasScope, AliasScopeData, Function, Inst, InstData, Module, SourceSpan};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The knobs of the pass (the `kernelc` options of the same names).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Follow `T**`: a pointer loaded through a restricted pointer gets a
    /// scope of its own (`--apply-multi-level-restrict`).
    pub multi_level: bool,
    /// Accept a restricted pointer inside a by-value aggregate and scope the
    /// pointers loaded from it (`--allow-restrict-in-struct`).
    pub allow_in_struct: bool,
    /// Record the stamped accesses before and after (`--dump-restrict`).
    pub dump: bool,
}

impl Options {
    /// Sets the knobs separated by `;` (the spelling of `restrict(...)` in
    /// a pass list): `multi-level`, `allow-in-struct`, `dump`.
    pub fn apply_knobs(&mut self, text: &str) -> Result<(), KnobError> {
        for knob in text.split(';').map(str::trim).filter(|k| !k.is_empty()) {
            match knob {
                "multi-level" => self.multi_level = true,
                "allow-in-struct" => self.allow_in_struct = true,
                "dump" => self.dump = true,
                _ => {
                    return Err(KnobError::Unknown {
                        pass: "restrict",
                        knob: knob.to_string(),
                    })
                }
            }
        }
        Ok(())
    }
}

/// The pass-table entry: processes every function of the module. Refused
/// shapes (restrict inside an aggregate) are errors in `report`.
pub fn process_module(module: &mut Module, opts: &Options, report: &mut Report) -> bool {
    let mut changed = false;
    for func in module.functions.values_mut() {
        changed |= process_function(func, opts, report);
    }
    changed
}

/// Processes one function; returns whether it changed.
// Long: three walks that share the scope tables (parameters, aggregates
// with restricted fields, pointers loaded through them), each a
// commented paragraph; the report is written as they go.
pub fn process_function(func: &mut Function, opts: &Options, report: &mut Report) -> bool {
    if func.attrs.restrict_processed {
        if opts.dump {
            let _ = writeln!(
                report.transcript.dump_restrict,
                "@{}: already processed",
                func.name
            );
        }
        return false;
    }
    let prov = Provenance::compute(func);
    let mut scope_of: BTreeMap<Root, AliasScope> = BTreeMap::new();
    let mut all_scopes: Vec<AliasScope> = Vec::new();
    // Aggregates passed by value whose fields hold a restricted pointer
    // (the frontend marks the aggregate parameter itself `restrict`).
    let mut struct_roots: BTreeSet<u32> = BTreeSet::new();
    for n in 0..func.signature.params.len() {
        let param = &func.signature.params[n];
        if !param.attrs.restrict {
            continue;
        }
        if param.attrs.byval.is_some() {
            if opts.allow_in_struct {
                struct_roots.insert(n as u32);
            } else {
                let span = first_field_read(func, &prov, n as u32);
                // A clone of the function (memory-space inference makes
                // them) says the same thing at the same place: once is enough.
                let said = report.diagnostics.iter().any(|d| {
                    matches!(d.kind, DiagnosticKind::RestrictInStruct { .. })
                        && d.span == span
                        && !span.is_none()
                });
                if said {
                    continue;
                }
                let param = n as u32;
                let kind = DiagnosticKind::RestrictInStruct { param };
                let mut diag = Diagnostic::new(kind, &func.name, span);
                diag.labels = vec![(span, Label::RestrictField { param })];
                report.diagnostics.push(diag);
            }
            continue;
        }
        if !param.ty.is_ptr() {
            continue;
        }
        func.signature.params[n].attrs.noalias = true;
        let scope = func.alias_scopes.push(AliasScopeData {
            name: format!("arg{n}"),
        });
        scope_of.insert(Root::Param(n as u32), scope);
        all_scopes.push(scope);
    }
    // Pointers loaded through restricted pointers (`T**`) or out of an
    // aggregate with a restricted field: one scope per outer scope (per
    // aggregate), so two loads of the same element still share a scope.
    // Loads are visited in layout order; a load's pointer roots are loads
    // that come before it in a dominating position, so one pass suffices.
    if opts.multi_level || !struct_roots.is_empty() {
        // Callees are not known here, so memory passed to any call is not
        // followed: fewer scopes, never a wrong one.
        let cells = LocalCells::compute(func, &|_, _| false);
        let mut field_keys: BTreeMap<Inst, Option<String>> = BTreeMap::new();
        let mut derived: BTreeMap<String, AliasScope> = BTreeMap::new();
        let loads: Vec<Inst> = func
            .layout
            .insts()
            .map(|(_, i)| i)
            .filter(|&i| matches!(func.dfg.insts[i], InstData::Load { ty, .. } if ty.is_ptr()))
            .collect();
        for load in loads {
            let InstData::Load { ptr, .. } = func.dfg.insts[load] else {
                continue;
            };
            let roots = prov.roots_of(func, ptr);
            if roots.is_empty() {
                continue;
            }
            let through_memory = field_key(func, &cells, &struct_roots, load, &mut field_keys, 0);
            let key = if let Some(key) = through_memory {
                key
            } else if roots.len() == 1
                && matches!(roots.first(), Some(Root::Param(n)) if struct_roots.contains(n))
            {
                let Some(&Root::Param(n)) = roots.first() else {
                    continue;
                };
                let fields = &func.signature.params[n as usize].attrs.restrict_fields;
                if fields.is_empty() {
                    // IR that does not say which fields: every pointer
                    // loaded from the aggregate shares one scope.
                    format!("arg{n}.field")
                } else {
                    // Only the `__restrict__` fields, each its own scope.
                    match const_offset(func, ptr) {
                        Some(off) if fields.contains(&off) => format!("arg{n}.field{off}"),
                        _ => continue,
                    }
                }
            } else if opts.multi_level && roots.iter().all(|r| scope_of.contains_key(r)) {
                let names: Vec<String> = roots
                    .iter()
                    .map(|r| func.alias_scopes[scope_of[r]].name.clone())
                    .collect();
                format!("{}.deref", names.join("+"))
            } else {
                continue;
            };
            let scope = *derived.entry(key.clone()).or_insert_with(|| {
                let s = func.alias_scopes.push(AliasScopeData { name: key });
                all_scopes.push(s);
                s
            });
            scope_of.insert(Root::Load(load), scope);
        }
    }
    if opts.dump {
        let _ = writeln!(report.transcript.dump_restrict, "@{}:", func.name);
        for s in &all_scopes {
            let _ = writeln!(
                report.transcript.dump_restrict,
                "  {s} = \"{}\"",
                func.alias_scopes[*s].name
            );
        }
    }
    let accesses: Vec<Inst> = func
        .layout
        .insts()
        .map(|(_, i)| i)
        .filter(|&i| func.dfg.insts[i].mem_flags().is_some())
        .collect();
    for inst in accesses {
        let Some(ptr) = func.dfg.insts[inst].mem_ptr() else {
            continue;
        };
        let roots = prov.roots_of(func, ptr);
        let mine: BTreeSet<AliasScope> = roots
            .iter()
            .filter_map(|r| scope_of.get(r))
            .copied()
            .collect();
        let fully_scoped = !roots.is_empty() && roots.iter().all(|r| scope_of.contains_key(r));
        // A pointer loaded from memory or made up by a call could be derived
        // from any restricted pointer, so only identified roots earn `noalias`.
        let identified = !roots.is_empty()
            && roots.iter().all(|r| {
                !matches!(r, Root::Opaque)
                    && (scope_of.contains_key(r) || !matches!(r, Root::Load(_)))
            });
        let before = func.dfg.insts[inst]
            .mem_flags()
            .cloned()
            .unwrap_or_default();
        let mut after = before.clone();
        if fully_scoped {
            for s in &mine {
                if !after.scopes.contains(s) {
                    after.scopes.push(*s);
                }
            }
        }
        if identified {
            for s in all_scopes.iter().filter(|s| !mine.contains(s)) {
                if !after.noalias.contains(s) {
                    after.noalias.push(*s);
                }
            }
        }
        if after == before {
            continue;
        }
        if opts.dump {
            let _ = writeln!(
                report.transcript.dump_restrict,
                "  {}: before {} after {}",
                describe(func, inst),
                flags_text(&before),
                flags_text(&after)
            );
        }
        if let InstData::Load { flags, .. } | InstData::Store { flags, .. } =
            &mut func.dfg.insts[inst]
        {
            *flags = after;
        }
    }
    // The marker changed, whatever the accesses did.
    func.attrs.restrict_processed = true;
    true
}

/// The scope name of the restricted aggregate field that the pointer
/// loaded by `load` comes from, seen through the function's own memory: a
/// load of a `__restrict__` field of an aggregate parameter (`arg0.field8`),
/// or a load of local memory where only pointers loaded from that one field
/// were ever stored (the frontend's copy of a by-value struct, a struct
/// copied to another variable). `None` when it is not one.
fn field_key(
    func: &Function,
    cells: &LocalCells,
    struct_roots: &BTreeSet<u32>,
    load: Inst,
    memo: &mut BTreeMap<Inst, Option<String>>,
    depth: u32,
) -> Option<String> {
    if let Some(k) = memo.get(&load) {
        return k.clone();
    }
    let InstData::Load { ty, ptr, .. } = func.dfg.insts[load] else {
        return None;
    };
    if !ty.is_ptr() || depth > 16 {
        return None;
    }
    // A load that (through memory) reaches itself is on a cycle: no key.
    memo.insert(load, None);
    let key = match cells.content_at(func, ptr, ty.bytes()) {
        Content::Param(n, off) if struct_roots.contains(&n) => {
            let fields = &func.signature.params[n as usize].attrs.restrict_fields;
            if fields.is_empty() {
                Some(format!("arg{n}.field"))
            } else {
                u32::try_from(off)
                    .ok()
                    .filter(|o| fields.contains(o))
                    .map(|o| format!("arg{n}.field{o}"))
            }
        }
        Content::Stored(values) => {
            let mut keys = values.iter().map(|&v| {
                let loaded = through_casts(func, v)?;
                field_key(func, cells, struct_roots, loaded, memo, depth + 1)
            });
            let first = keys.next().flatten();
            if first.is_some() && keys.all(|k| k == first) {
                first
            } else {
                None
            }
        }
        _ => None,
    };
    memo.insert(load, key.clone());
    key
}

/// Where the diagnostic about a restricted field of aggregate parameter `n`
/// points: the first access in the source through a pointer taken from the
/// aggregate (through the function's copy of it, if it made one), else the
/// first read of the aggregate, else nowhere.
fn first_field_read(func: &Function, prov: &Provenance, n: u32) -> SourceSpan {
    let cells = LocalCells::compute(func, &|_, _| false);
    let roots: BTreeSet<u32> = [n].into();
    let mut memo = BTreeMap::new();
    let insts: Vec<Inst> = func.layout.insts().map(|(_, i)| i).collect();
    let through_field = insts.iter().copied().find(|&i| {
        if func.spans[i].is_none() {
            return false;
        }
        let Some(ptr) = func.dfg.insts[i].mem_ptr() else {
            return false;
        };
        prov.roots_of(func, ptr).iter().any(|r| match r {
            Root::Load(l) => field_key(func, &cells, &roots, *l, &mut memo, 0).is_some(),
            _ => false,
        })
    });
    let first_read = || {
        insts.iter().copied().find(|&i| {
            matches!(func.dfg.insts[i], InstData::Load { ptr, .. }
                if prov.roots_of(func, ptr).iter().eq([&Root::Param(n)]))
        })
    };
    through_field
        .or_else(first_read)
        .map(|i| func.spans[i])
        .unwrap_or_default()
}

/// The load that made `v`, looking through address-space casts (the same
/// address seen through another window; memory-space inference adds them).
fn through_casts(func: &Function, v: crate::ir::Value) -> Option<Inst> {
    let dfg = &func.dfg;
    let mut v = dfg.resolve_aliases(v);
    for _ in 0..16 {
        let crate::ir::ValueDef::Result(i, 0) = dfg.value_def(v) else {
            return None;
        };
        match dfg.insts[i] {
            InstData::AddrSpaceCast { arg, .. } => v = dfg.resolve_aliases(arg),
            InstData::Load { .. } => return Some(i),
            _ => return None,
        }
    }
    None
}

/// The constant byte offset of `ptr` from the entry parameter it is derived
/// from through `ptroffset`s of constants, if it is.
fn const_offset(func: &Function, ptr: crate::ir::Value) -> Option<u32> {
    use crate::ir::{Opcode, ValueDef};
    let dfg = &func.dfg;
    let mut v = dfg.resolve_aliases(ptr);
    let mut off: i64 = 0;
    for _ in 0..64 {
        match dfg.value_def(v) {
            ValueDef::Param(b, _) if Some(b) == func.entry_block() => {
                return u32::try_from(off).ok();
            }
            ValueDef::Result(i, 0) => match dfg.insts[i] {
                InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    args: [p, k],
                } => {
                    let ValueDef::Result(ki, 0) = dfg.value_def(dfg.resolve_aliases(k)) else {
                        return None;
                    };
                    let InstData::Iconst { imm, .. } = dfg.insts[ki] else {
                        return None;
                    };
                    off = off.checked_add(imm)?;
                    v = dfg.resolve_aliases(p);
                }
                _ => return None,
            },
            _ => return None,
        }
    }
    None
}

/// `load v3` / `store v5` with the result, for the dump.
fn describe(func: &Function, inst: Inst) -> String {
    match &func.dfg.insts[inst] {
        InstData::Load { ptr, .. } => match func.dfg.first_result(inst) {
            Some(r) => format!("{r} = load {ptr}"),
            None => format!("load {ptr}"),
        },
        InstData::Store { value, ptr, .. } => format!("store {value}, {ptr}"),
        other => format!("{}", other.opcode()),
    }
}

fn flags_text(f: &crate::ir::MemFlags) -> String {
    let list = |v: &[AliasScope]| {
        v.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !f.scopes.is_empty() {
        parts.push(format!("scopes({})", list(&f.scopes)));
    }
    if !f.noalias.is_empty() {
        parts.push(format!("noalias({})", list(&f.noalias)));
    }
    if parts.is_empty() {
        "[]".to_string()
    } else {
        parts.join(" ")
    }
}
