//! The spelling of an instruction: which modifiers it must carry, which it
//! may not, which immediates are in range, and which matrix shapes and
//! fragment sizes exist. ptxas checks these before it looks at operand
//! types, so they get their own module; [`crate::rules`] calls
//! [`check_forms`] first and stops at the first problem it reports.
//!
//! Every rule here was found by giving ptxas 13.5 the instruction with and
//! without the modifier (the table in `tests/forms.rs` keeps those
//! experiments, and re-runs them against ptxas when it is installed). The
//! messages are ptxas's own.

use crate::ast::{Inst, OpKind, Operand};
use crate::check::{Cx, Res};
use crate::isa::{self, Kind};

/// Checks the instruction's modifiers, immediates and shapes. Returns
/// `true` when it reported an error, so the caller does not pile operand
/// errors on top of it.
pub fn check_forms(cx: &mut Cx, i: &Inst) -> bool {
    let before = cx.diags.len();
    if let Some(msg) = first_problem(cx, i) {
        cx.error(i.pos, msg);
    }
    cx.diags.len() > before
}

fn first_problem(cx: &Cx, i: &Inst) -> Option<String> {
    unknown_qualified(i)
        .or_else(|| repeated_modifier(i))
        .or_else(|| crate::modifiers::illegal_modifier(i))
        .or_else(|| special_operands(i))
        .or_else(|| result_register(cx, i))
        .or_else(|| type_count(i))
        .or_else(|| mode_after_type(i))
        .or_else(|| cvt_bit_types(i))
        .or_else(|| proxy_kind(i))
        .or_else(|| atomic_operation(i))
        .or_else(|| small_families(i))
        .or_else(|| surface(i))
        .or_else(|| addresses(cx, i))
        .or_else(|| crate::calls::param_use(cx, i))
        .or_else(|| mbarrier(cx, i))
        .or_else(|| ftz_without_float(i))
        .or_else(|| type_legal(i))
        .or_else(|| state_spaces(i))
        .or_else(|| fixed_modifiers(i))
        .or_else(|| memory_order(i))
        .or_else(|| sync_aligned(i))
        .or_else(|| arithmetic(i))
        .or_else(|| compare(i))
        .or_else(|| warp(cx, i))
        .or_else(|| barrier(i))
        .or_else(|| immediates(i))
        .or_else(|| matrix(i))
        .or_else(|| pack(cx, i))
}

/// `mov.b32 {%h1, %h2}, %r` and `mov.b64 %rd, {%r1, %r2}`: two or four
/// elements that together are exactly as wide as the type.
fn pack(cx: &Cx, i: &Inst) -> Option<String> {
    if i.opcode != "mov" || i.operands.len() != 2 || crate::ast::vector_width(&i.mods).is_some() {
        return None;
    }
    let (_, width) = i.mods.iter().rev().find_map(|m| isa::type_info(m))?;
    let v = i.operands.iter().find_map(|o| match &o.kind {
        OpKind::Vector(v) => Some(v),
        _ => None,
    })?;
    if v.len() != 2 && v.len() != 4 {
        return Some(format!("Illegal vector size: {}", v.len()));
    }
    let mut total = 0;
    for e in v {
        let OpKind::Name { name, .. } = &e.kind else {
            return None;
        };
        total += cx.reg_type(name)?.1;
    }
    (total != width).then(|| "Arguments mismatch for instruction 'mov'".into())
}

/// `::` qualifies only some modifiers: `.shared::cta`, `.param::entry`,
/// `.L2::128B`, ... A state space that has no such qualifier
/// (`.global::cluster`, `.local::cta`) is an unknown modifier to ptxas.
fn unknown_qualified(i: &Inst) -> Option<String> {
    i.mods
        .iter()
        .find(|m| {
            m.split_once("::").is_some_and(|(head, _)| {
                matches!(
                    head,
                    ".global" | ".local" | ".const" | ".nc" | ".reg" | ".tex"
                )
            })
        })
        .map(|m| format!("Unknown modifier '{m}'"))
}

/// A modifier of [`isa::REFUSED_TWICE`] written twice, or two roundings.
fn repeated_modifier(i: &Inst) -> Option<String> {
    let count = |m: &str| i.mods.iter().filter(|x| *x == m).count();
    if i.mods
        .iter()
        .filter(|m| isa::ROUNDINGS.contains(&m.as_str()))
        .count()
        > 1
    {
        return Some("Multiple rounding modifiers specified".into());
    }
    isa::REFUSED_TWICE
        .iter()
        .find(|m| count(m) > 1)
        .map(|m| format!("Duplicate {m} modifier"))
}

/// The multiplication modes (`.lo`, `.hi`, `.wide`) come before the type:
/// `mul.s32.lo` and `mad.s32.lo` are `Unexpected instruction types`,
/// `mul.u32.wide` an `Unknown modifier '.wide'` (ptxas 13.5).
fn mode_after_type(i: &Inst) -> Option<String> {
    if !matches!(i.opcode.as_str(), "mul" | "mad" | "mul24" | "mad24") {
        return None;
    }
    let first_type = i.mods.iter().position(|m| isa::is_type(m))?;
    i.mods[first_type..]
        .iter()
        .any(|m| matches!(m.as_str(), ".lo" | ".hi" | ".wide"))
        .then(|| format!("Unexpected instruction types specified for '{}'", i.opcode))
}

/// `cvt` converts between value types: no `.b8`...`.b64` on either side
/// (`cvt.u32.b32`, `cvt.rn.f32.b32`: `Unexpected instruction types`,
/// ptxas 13.5), except the third type of `cvt.pack`.
fn cvt_bit_types(i: &Inst) -> Option<String> {
    let bits = |m: &String| matches!(m.as_str(), ".b8" | ".b16" | ".b32" | ".b64" | ".b128");
    // The 8-bit and 6-bit floats convert only in pairs (`.e4m3x2`).
    let narrow_float = |m: &String| {
        matches!(
            m.as_str(),
            ".e4m3" | ".e5m2" | ".e2m3" | ".e3m2" | ".e2m1" | ".ue8m0"
        )
    };
    (i.opcode == "cvt"
        && (!i.has(".pack") && i.mods.iter().any(bits) || i.mods.iter().any(narrow_float)))
    .then(|| "Unexpected instruction types specified for 'cvt'".into())
}

/// Addresses ptxas 13.5 refuses whatever the types: an immediate address
/// (`[48]`) outside `.local` (`ld.shared`, `ld.global`, generic `ld`,
/// `ldmatrix`, `mbarrier`: `Immediate addresses allowed only for .local
/// state space`), and `.param::func` in a kernel on anything but a call's
/// `.param`. (A store to `.param` through a register is left alone: ptxas
/// crashes on some, `st.param.u32 [%rd1], %r1` with `%rd1` never written,
/// and assembles others, `st.param.f32 [%rd2+1028], %f12` after a `cvta`.)
fn addresses(cx: &Cx, i: &Inst) -> Option<String> {
    for o in &i.operands {
        let OpKind::Addr { base, extra, .. } = &o.kind else {
            continue;
        };
        if let Some(crash) = base.as_deref().and_then(|b| kernel_param_store(cx, i, b)) {
            return Some(crash);
        }
        match base {
            None if extra.is_empty() && !i.has(".local") => {
                return Some("Immediate addresses allowed only for .local state space".into())
            }
            // In a kernel, `.param::func` reaches only the `.param`s of a
            // call (`ld.param::func` of a kernel parameter, or through a
            // register, is `Illegal state space for address operand`).
            Some(b)
                if cx.in_kernel
                    && i.has(".param::func")
                    && match cx.resolve(b) {
                        Res::Reg(_) => true,
                        Res::Var(s) => s.in_signature,
                        _ => false,
                    } =>
            {
                return Some(format!(
                    "Illegal state space for address operand '::func' with instruction '{}'",
                    i.opcode
                ))
            }
            // And `.param::entry` only the function's own parameters, never
            // a call's (ptxas 13.5, in the functions it compiles).
            Some(b)
                if cx.compiled
                    && i.has(".param::entry")
                    && matches!(cx.resolve(b), Res::Var(s) if !s.in_signature) =>
            {
                return Some(format!(
                    "Illegal state space for address operand '::entry' with instruction '{}'",
                    i.opcode
                ))
            }
            _ => {}
        }
    }
    None
}

/// A `st.param` in a kernel that ptxas 13.5 crashes on (a segmentation
/// fault, no message, no cubin: a rejection for every purpose): through a
/// register on sm_90 and later (sm_75 to sm_89 assemble it, and so does
/// every target in a `.func`). (Stores into a call's `.param` far past its
/// end crash it too, but where that starts depends on the call: no rule.)
fn kernel_param_store(cx: &Cx, i: &Inst, base: &str) -> Option<String> {
    if !cx.in_kernel || i.opcode != "st" || !i.has(".param") {
        return None;
    }
    let crashes =
        matches!(cx.resolve(base), Res::Reg(_)) && cx.target.as_ref().is_some_and(|t| t.sm >= 90);
    crashes.then(|| format!("ptxas 13.5 crashes on this store to .param through '{base}'"))
}

/// The operations of `tcgen05`, which ptxas 13.5 reads as part of the
/// name: one, right after `tcgen05` (`tcgen05.cta_group::1.mma` and a bare
/// `tcgen05` are `Not a name of any known instruction`; an operation word
/// further on is an `Unknown modifier`).
const TCGEN05_OPERATIONS: &[&str] = &[
    ".alloc",
    ".dealloc",
    ".relinquish_alloc_permit",
    ".ld",
    ".st",
    ".wait::ld",
    ".wait::st",
    ".cp",
    ".shift",
    ".mma",
    ".commit",
    ".fence::before_thread_sync",
    ".fence::after_thread_sync",
];

fn tcgen05_operation(i: &Inst) -> Option<String> {
    let is_op = |m: &String| TCGEN05_OPERATIONS.contains(&m.as_str());
    match i.mods.split_first() {
        Some((first, rest)) if is_op(first) => rest
            .iter()
            .find(|m| is_op(m) || *m == ".commit_group")
            .map(|m| format!("Unknown modifier '{m}'")),
        _ => Some("Not a name of any known instruction: 'tcgen05'".into()),
    }
}

/// `mbarrier` (ptxas 13.5, measured on each operation): the type is `.b64`,
/// the object is in shared memory (or a generic address), and each operation
/// has its operand shape: `init [a], n`; `inval [a]`; `expect_tx` and
/// `complete_tx` `[a], n`; `arrive` and `arrive_drop` `state, [a]{, n}`
/// with a 64-bit state or `_`; `test_wait`/`try_wait` `p, [a], state` (and
/// a time hint on `try_wait`), a `.parity` phase being 0 or 1;
/// `pending_count` `count, state`.
fn mbarrier(cx: &Cx, i: &Inst) -> Option<String> {
    if i.opcode != "mbarrier" {
        return None;
    }
    let name = full_prefix(i, if i.has(".parity") { 2 } else { 1 });
    let types: Vec<&String> = i.mods.iter().filter(|m| isa::is_type(m)).collect();
    if types.len() != 1 || types[0] != ".b64" {
        return Some(format!(
            "Unexpected instruction types specified for '{name}'"
        ));
    }
    if [".local", ".global", ".const", ".param"]
        .iter()
        .any(|s| i.has(s))
    {
        return Some(format!("State space incorrect for instruction '{name}'"));
    }
    let ops = &i.operands;
    let addr = |k: usize| matches!(ops.get(k).map(|o| &o.kind), Some(OpKind::Addr { .. }));
    let value = |k: usize| {
        ops.get(k)
            .is_some_and(|o| !matches!(o.kind, OpKind::Addr { .. }))
    };
    let reg_width = |k: usize| match ops.get(k).map(|o| &o.kind) {
        Some(OpKind::Name { name, .. }) => match cx.resolve(name) {
            Res::Reg(s) => isa::type_info(&s.ty),
            _ => None,
        },
        _ => None,
    };
    // A count (of arrivals, of transaction bytes, a time hint) is a 32-bit
    // integer: a float immediate or a register of another width or of a
    // float type is `Arguments mismatch` (ptxas 13.5).
    let count = |k: usize| {
        value(k)
            && !matches!(ops[k].kind, OpKind::Float(_))
            && match &ops[k].kind {
                OpKind::Name { name, .. } => match cx.resolve(name) {
                    Res::Reg(_) => reg_width(k)
                        .is_some_and(|(kind, w)| w == 32 && !kind.is_float() && kind != Kind::Pred),
                    _ => true,
                },
                _ => true,
            }
    };
    let op = i.mods.first().map_or("", String::as_str);
    let ok = match op {
        ".init" | ".expect_tx" | ".complete_tx" => ops.len() == 2 && addr(0) && count(1),
        ".inval" => ops.len() == 1 && addr(0),
        ".arrive" | ".arrive_drop" => {
            let state_ok = matches!(ops.first().map(|o| &o.kind), Some(OpKind::Sink))
                || reg_width(0).is_some_and(|(k, w)| k != Kind::Pred && w == 64);
            // `.expect_tx` needs its byte count.
            let least = if i.has(".expect_tx") { 3 } else { 2 };
            (least..=3).contains(&ops.len()) && state_ok && addr(1) && (ops.len() == 2 || count(2))
        }
        ".test_wait" | ".try_wait" => {
            let most = if op == ".try_wait" { 4 } else { 3 };
            let phase_ok = match ops.get(2).map(|o| &o.kind) {
                Some(OpKind::Int(n)) => !i.has(".parity") || matches!(n, 0 | 1),
                _ => true,
            };
            if !phase_ok {
                return Some(format!("Argument 2 of instruction '{name}' out of range"));
            }
            (3..=most).contains(&ops.len())
                && reg_width(0).is_some_and(|(k, _)| k == Kind::Pred)
                && addr(1)
                && value(2)
                && (ops.len() < 4 || count(3))
        }
        ".pending_count" => ops.len() == 2 && value(0) && value(1),
        _ => return Some("Not a name of any known instruction: 'mbarrier'".into()),
    };
    (!ok).then(|| format!("Arguments mismatch for instruction '{name}'"))
}

/// `wmma` names its operation and matrix first (`wmma.load.a|b|c`,
/// `wmma.store.d`, `wmma.mma`; another word is `Unknown modifier`), then
/// its layouts: one for a load or store, A's and B's for `mma` (fewer is
/// `layout modifier required`, or `'.blayout' modifier required`; more, a
/// parsing error); and its operands in their places. ptxas 13.5, probes in
/// `tests/forms/cases.txt`.
fn wmma_operation(i: &Inst) -> Option<String> {
    let first = i.mods.first().map_or("", String::as_str);
    let second = i.mods.get(1).map_or("", String::as_str);
    let (known, layouts) = match first {
        ".load" => (matches!(second, ".a" | ".b" | ".c"), 1),
        ".store" => (second == ".d", 1),
        ".mma" => (true, 2),
        _ => (false, 0),
    };
    if !known {
        let word = if first.is_empty() { "wmma" } else { first };
        return Some(format!("Unknown modifier '{word}'"));
    }
    let written = i
        .mods
        .iter()
        .filter(|m| matches!(m.as_str(), ".row" | ".col"))
        .count();
    if written != layouts {
        return Some(format!(
            "layout modifier required for instruction '{}'",
            family_name(i)
        ));
    }
    // A load takes `{d...}, [a]` and a store `[a], {s...}`, each with an
    // optional stride that is neither (anything else is `Arguments
    // mismatch`).
    let (vector_at, address_at) = match first {
        ".load" => (0, 1),
        ".store" => (1, 0),
        _ => return None,
    };
    let ops = &i.operands;
    let shape_ok = (2..=3).contains(&ops.len())
        && matches!(ops[vector_at].kind, OpKind::Vector(_))
        && matches!(ops[address_at].kind, OpKind::Addr { .. })
        && ops
            .get(2)
            .is_none_or(|o| !matches!(o.kind, OpKind::Addr { .. } | OpKind::Vector(_)));
    (!shape_ok).then(|| format!("Arguments mismatch for instruction '{}'", family_name(i)))
}

/// `.ftz` flushes float subnormals: on an instruction whose every type is
/// an integer, bit or predicate type it is `Illegal modifier '.ftz'`
/// (`add.ftz.s32`, `setp.ne.ftz.b32`, `abs.ftz.s32`; ptxas 13.5). `cvt`
/// is left out: its `.ftz` may concern the other side.
fn ftz_without_float(i: &Inst) -> Option<String> {
    if !i.has(".ftz") || i.opcode == "cvt" {
        return None;
    }
    let kinds: Vec<Kind> = i
        .mods
        .iter()
        .filter_map(|m| isa::type_info(m).map(|(k, _)| k))
        .collect();
    (!kinds.is_empty() && kinds.iter().all(|k| !k.is_float()))
        .then(|| format!("Illegal modifier '.ftz' for instruction '{}'", i.opcode))
}

/// `fence.proxy` names its proxy kind (`fence.proxy.shared::cta` is
/// `.proxykind modifier required`, ptxas 13.5): `.alias`, `.async...`,
/// `.tensormap::generic`.
fn proxy_kind(i: &Inst) -> Option<String> {
    // `.proxy` names the operation only right after `fence`
    // (`fence.acq_rel.proxy.async`: `Unknown modifier '.proxy'`).
    if i.opcode == "fence" && i.has(".proxy") && i.mods.first().is_some_and(|m| m != ".proxy") {
        return Some("Unknown modifier '.proxy'".into());
    }
    let kind = |m: &String| m == ".alias" || m.starts_with(".async") || m.starts_with(".tensormap");
    if i.opcode == "fence" && i.has(".proxy") && !i.mods.iter().any(kind) {
        return Some(".proxykind modifier required for instruction 'fence.proxy'".into());
    }
    // `fence.proxy.async` orders global or shared memory, or all of it
    // (`.shared` alone, `.local`, `.param`, `.tex`: `State space incorrect`).
    let other_space = i.mods.iter().any(|m| {
        (isa::is_space(m) || m == ".tex")
            && !matches!(m.as_str(), ".global" | ".shared::cta" | ".shared::cluster")
    });
    (i.opcode == "fence" && i.has(".proxy") && i.has(".async") && other_space)
        .then(|| "State space incorrect for instruction 'fence.proxy'".into())
}

/// The modes, types, spaces and operand counts of a few small families
/// (seeds 401-405 of tests/ptx_mutants.rs; each measured with ptxas 13.5).
fn small_families(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    let type_is = |allowed: &[&str]| {
        i.mods
            .iter()
            .filter(|m| isa::is_type(m))
            .all(|m| allowed.contains(&m.as_str()))
            && i.mods.iter().any(|m| isa::is_type(m))
    };
    let mismatch = || Some(format!("Arguments mismatch for instruction '{op}'"));
    match op {
        "activemask" if i.operands.len() != 1 => mismatch(),
        "griddepcontrol" if !i.has(".wait") && !i.has(".launch_dependents") => Some(
            "'.launch_dependents' or '.wait' modifier required for instruction 'griddepcontrol'"
                .into(),
        ),
        "wmma" => wmma_operation(i),
        "griddepcontrol" if i.has(".wait") && i.has(".launch_dependents") => {
            Some("Modifier '.wait' cannot be combined with modifier '.launch_dependents'".into())
        }
        "griddepcontrol" if !i.operands.is_empty() => mismatch(),
        // A `cp.async` names its operation right after `.async`
        // (`cp.async.volatile.commit_group`: `Unknown modifier`).
        "cp" if i.mods.first().map(String::as_str) == Some(".async")
            && !matches!(
                i.mods.get(1).map(String::as_str),
                None | Some(
                    ".ca"
                        | ".cg"
                        | ".commit_group"
                        | ".wait_group"
                        | ".wait_all"
                        | ".mbarrier"
                        | ".bulk"
                )
            ) =>
        {
            Some(format!("Unknown modifier '{}'", i.mods[1]))
        }
        "mapa"
            if i.mods
                .iter()
                .any(|m| isa::is_space(m) && m != ".shared::cluster") =>
        {
            Some("State space incorrect for instruction 'mapa'".into())
        }
        // `prmt.b32 d, a, b, c` (`prmt.u32`, `prmt.s32`: `Unexpected
        // instruction types`; three operands: `Arguments mismatch`, ptxas
        // 13.5, probes in `tests/forms/cases.txt`).
        "prmt" if !type_is(&[".b32"]) => {
            Some(format!("Unexpected instruction types specified for '{op}'"))
        }
        "prmt" if i.operands.len() != 4 => mismatch(),
        "setmaxnreg" if !type_is(&[".u32"]) => Some(format!(
            "Unexpected instruction types specified for '{}'",
            full_prefix(i, 1)
        )),
        "ldmatrix" | "stmatrix"
            if !type_is(&[".b16", ".b8"]) && !i.mods.iter().any(|m| m.starts_with(".b8x16")) =>
        {
            Some(format!("Unexpected instruction types specified for '{op}'"))
        }
        _ => None,
    }
}

/// The surface instructions (ptxas 13.5): `suld`, `sust` and `sured` are
/// known only with `.b` or `.p` (`sust.1d.b32.trap [s, {x}], {v};` and a
/// bare `sust L;`: `Not a name of any known instruction: 'sust'`), and the
/// surface address `[surf, {coords}]` is `sust`'s and `sured`'s first
/// operand, `suld`'s second (`sust.b.1d.b32.trap {v}, [s, {x}];`, or `[s]`
/// alone: `Arguments mismatch for instruction 'sust.b'`). Probed in
/// `tests/forms/cases.txt`.
fn surface(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    if !matches!(op, "suld" | "sust" | "sured") {
        return None;
    }
    let Some(kind) = i.mods.iter().find(|m| matches!(m.as_str(), ".b" | ".p")) else {
        return Some(format!("Not a name of any known instruction: '{op}'"));
    };
    let at = usize::from(op == "suld");
    let surface_address = i
        .operands
        .get(at)
        .is_some_and(|o| matches!(&o.kind, OpKind::Addr { extra, .. } if !extra.is_empty()));
    (!surface_address).then(|| format!("Arguments mismatch for instruction '{op}{kind}'"))
}

/// `atom` and `red` name their operation (`atom.global.f32` without
/// `.add`: `Reduction operation is required`, ptxas 13.5).
fn atomic_operation(i: &Inst) -> Option<String> {
    const OPERATIONS: &[&str] = &[
        ".add", ".min", ".max", ".inc", ".dec", ".and", ".or", ".xor", ".exch", ".cas",
    ];
    let op = i.opcode.as_str();
    (matches!(op, "atom" | "red") && !OPERATIONS.iter().any(|m| i.has(m)))
        .then(|| format!("Reduction operation is required for instruction '{op}'"))
}

/// Special registers are read-only, and only the vector ones (`%tid`,
/// `%ntid`, `%ctaid`, ...) have components.
fn special_operands(i: &Inst) -> Option<String> {
    if let Some(c) = i.operands.iter().find_map(unknown_field_inside) {
        return Some(format!("Unknown field '{c}'"));
    }
    for (k, o) in i.operands.iter().enumerate() {
        let OpKind::Name { name, comp, .. } = &o.kind else {
            continue;
        };
        let Some(sp) = isa::special(name) else {
            continue;
        };
        if k == 0 && matches!(i.opcode.as_str(), "mov" | "cvt") {
            return Some("Read-only special register cannot be destination argument".into());
        }
        if let (Some(c), false) = (comp, sp.vector) {
            return Some(format!("Unknown field '{c}'"));
        }
        // `cvt` reads one component (`cvt.u16.u32 %rs, %tid;` is refused;
        // `mov` says it its own way, in the operand rules).
        if comp.is_none() && sp.vector && i.opcode == "cvt" {
            return Some("Vector operand is not allowed for instruction 'cvt'".into());
        }
    }
    None
}

/// A component on a scalar special register inside a braced vector or a
/// tensor address (`mov.b64 %rd1, {%r1, %laneid.x};`, a wgmma accumulator
/// `{..., %laneid.x, ...}`): ptxas 13.5 says `Unknown field '.x'` there
/// as it does on a plain operand (probes in `tests/forms/cases.txt`).
fn unknown_field_inside(o: &Operand) -> Option<&str> {
    let elements = match &o.kind {
        OpKind::Vector(v) => v.as_slice(),
        OpKind::Addr { extra, .. } => extra.as_slice(),
        _ => return None,
    };
    elements.iter().find_map(|e| match &e.kind {
        OpKind::Name {
            name,
            comp: Some(c),
            ..
        } if isa::special(name).is_some_and(|sp| !sp.vector) => Some(c.as_str()),
        _ => unknown_field_inside(e),
    })
}

/// Families whose spelling carries exactly one type (`add.s32`, never
/// `add` or `add.s32.s32`). The others (cvt, dp4a, mma, wmma, set, slct,
/// tcgen05, ...) carry several or none and are judged elsewhere.
const ONE_TYPE: &[&str] = &[
    "abs",
    "add",
    "and",
    "atom",
    "bfe",
    "bfi",
    "bfind",
    "brev",
    "clz",
    "cnot",
    "copysign",
    "cvta",
    "div",
    "ex2",
    "fma",
    "ld",
    "ldu",
    "lg2",
    "mad",
    "max",
    "min",
    "mov",
    "mul",
    "neg",
    "not",
    "or",
    "popc",
    "rcp",
    "red",
    "rem",
    "rsqrt",
    "selp",
    "setp",
    "shl",
    "shr",
    "sin",
    "cos",
    "sqrt",
    "st",
    "sub",
    "sad",
    "tanh",
    "testp",
    "xor",
    "nanosleep",
    "activemask",
    "mul24",
    "mad24",
    "redux",
    "match",
    "shfl",
    "shf",
    "prmt",
    "lop3",
    "bmsk",
    "szext",
    "fns",
];

/// Families with one type or none (`ldmatrix.m8n16.b8x16.b6x16_p32` names
/// its element formats with words that are no types): never two.
const AT_MOST_ONE_TYPE: &[&str] = &["ldmatrix", "stmatrix"];

fn type_count(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    let n = i
        .mods
        .iter()
        .filter(|m| isa::type_info(m).is_some())
        .count();
    let one = ONE_TYPE.contains(&op) && !i.has(".async") && !(op == "mov" && i.operands.len() != 2);
    let at_most_one = AT_MOST_ONE_TYPE.contains(&op);
    // `tex` and `tld4` name the result's type and the coordinates' (`tex.2d
    // .v4.f32.f32`); one, none or three is `Unexpected instruction types`
    // (ptxas 13.5, probes in `tests/forms/cases.txt`).
    // So do `dp4a` and `dp2a`, A's and B's (`dp4a.s32`, `dp4a.u32.s32.s32`).
    let two = matches!(op, "tex" | "tld4" | "dp4a" | "dp2a") && n != 2;
    if !(one && n != 1 || at_most_one && n > 1 || two) {
        return None;
    }
    let name = match op {
        "cvta" if i.has(".to") => "cvta.to".to_string(),
        "shf" => full_prefix(i, 1),
        _ => op.to_string(),
    };
    Some(format!(
        "Unexpected instruction types specified for '{name}'"
    ))
}

/// Which types each family takes (measured: `and.u32`, `shl.s32`,
/// `popc.u32`, `rem.f32`, `min.b32` are all rejected).
fn type_legal(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    let mut types = i
        .mods
        .iter()
        .filter(|m| isa::type_info(m).is_some())
        .map(String::as_str);
    let ty = types.clone().next_back()?;
    let (kind, width) = isa::type_info(ty)?;
    let bad = || Some(format!("Unexpected instruction types specified for '{op}'"));
    let bits = kind == Kind::Bits;
    let int = matches!(kind, Kind::Signed | Kind::Unsigned);
    if let Some(list) = types_of(i) {
        return (!list.contains(&ty)).then(|| {
            let name = match op {
                "mul" | "mad" if i.has(".lo") || i.has(".hi") || i.has(".wide") => {
                    full_prefix(i, 1)
                }
                _ => op.to_string(),
            };
            format!("Unexpected instruction types specified for '{name}'")
        });
    }
    let ok = match op {
        "and" | "or" | "xor" | "not" => kind == Kind::Pred || (bits && (16..=64).contains(&width)),
        "cnot" => bits && (16..=64).contains(&width),
        "shl" => bits && (16..=64).contains(&width),
        "shr" => (bits || int) && (16..=64).contains(&width),
        "rem" => int,
        "min" | "max" => kind != Kind::Bits && kind != Kind::Pred,
        "popc" | "clz" | "brev" => matches!(ty, ".b32" | ".b64"),
        "bfind" => matches!(ty, ".u32" | ".u64" | ".s32" | ".s64"),
        "copysign" | "testp" => matches!(ty, ".f32" | ".f64"),
        "dp4a" | "dp2a" => types.all(|t| matches!(t, ".u32" | ".s32")),
        "shf" => ty == ".b32",
        "bfe" => matches!(ty, ".u32" | ".s32" | ".u64" | ".s64"),
        "bfi" => matches!(ty, ".b32" | ".b64"),
        "mul24" | "mad24" => matches!(ty, ".u32" | ".s32"),
        "sad" => int,
        "cvta" if kind == Kind::Signed && matches!(width, 32 | 64) => {
            return Some(format!(
                "Instruction '{}' requires .u32 or .u64 type",
                if i.has(".to") { "cvta.to" } else { "cvta" }
            ))
        }
        "cvta" => matches!(ty, ".u32" | ".u64"),
        "activemask" => ty == ".b32",
        "match" => matches!(ty, ".b32" | ".b64"),
        "nanosleep" if kind == Kind::Signed => {
            return Some("Instruction 'nanosleep' requires '.u32' type".into())
        }
        "nanosleep" => ty == ".u32",
        "redux" => return redux_type(i, ty),
        "neg" | "abs" if kind == Kind::Unsigned => {
            return Some(format!(
                "Instruction '{op}' applies only to signed numeric types"
            ))
        }
        "neg" | "abs" => kind != Kind::Bits && kind != Kind::Pred,
        "atom" | "red" => return atomic_type(i, ty),
        _ => true,
    };
    if ok {
        None
    } else if op == "cvta" && i.has(".to") {
        Some("Unexpected instruction types specified for 'cvta.to'".into())
    } else if matches!(op, "shf" | "mul24" | "mad24") {
        Some(format!(
            "Unexpected instruction types specified for '{}'",
            full_prefix(i, 1)
        ))
    } else {
        bad()
    }
}

/// Integer types of 16 to 64 bits, signed and unsigned.
const INTS: &[&str] = &[".u16", ".u32", ".u64", ".s16", ".s32", ".s64"];
/// The half-precision float types, alone and in pairs.
const HALVES: &[&str] = &[".f16", ".f16x2", ".bf16", ".bf16x2"];
/// Two 16-bit integers to a register: `add`, `min` and `max` take them
/// (`sub.s16x2` is `Unexpected instruction types`, ptxas 13.5).
const INT_PAIRS: &[&str] = &[".u16x2", ".s16x2"];

/// The types of the families whose every spelling ptxas 13.5 was asked
/// with each type of `isa::type_info` in turn (measured on the spellings of
/// kernelc's and nvcc's PTX, at their targets and at sm_100a/sm_120a): `add`
/// takes no `.bN` and no 8-bit type, `mul.wide` only 16 and 32 bits, loads
/// and stores no half or packed float, `mov` no 8-bit type. `None` for the
/// families judged elsewhere (or not at all).
fn types_of(i: &Inst) -> Option<Vec<&'static str>> {
    let floats: &[&str] = &[".f32", ".f64"];
    let bits: &[&str] = &[".b16", ".b32", ".b64"];
    let memory: &[&str] = &[
        ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16",
        ".s32", ".s64", ".f32", ".f64",
    ];
    let join = |parts: &[&[&'static str]]| parts.concat();
    let half_modes = i.has(".lo") || i.has(".hi");
    Some(match i.opcode.as_str() {
        "add" if !i.has(".cc") => join(&[INTS, HALVES, floats, &[".f32x2"], INT_PAIRS]),
        "sub" if !i.has(".cc") => join(&[INTS, HALVES, floats, &[".f32x2"]]),
        "mul" | "mad" if i.has(".wide") => vec![".u16", ".u32", ".s16", ".s32"],
        "mul" | "mad" if half_modes => INTS.to_vec(),
        "mul" => join(&[HALVES, floats, &[".f32x2"]]),
        "mad" => floats.to_vec(),
        "div" => join(&[INTS, floats]),
        "setp" => join(&[bits, INTS, HALVES, floats]),
        "selp" => join(&[bits, INTS, floats]),
        "mov" if !i.mods.iter().any(|m| m.starts_with(".v")) => {
            join(&[bits, &[".b128", ".pred"], INTS, floats])
        }
        "ld" | "st" | "ldu" if !i.has(".async") => memory.to_vec(),
        "rcp" | "sqrt" | "rsqrt" => floats.to_vec(),
        "ex2" | "tanh" => join(&[&[".f32"], HALVES]),
        "lg2" | "sin" | "cos" => vec![".f32"],
        "fma" => join(&[HALVES, floats, &[".f32x2"]]),
        "setmaxnreg" => vec![".u32"],
        _ => return None,
    })
}

/// `redux.sync`: bitwise operations on `.b32`, arithmetic on `.u32`/`.s32`
/// (and `.f32` min/max on the targets that have it).
fn redux_type(i: &Inst, ty: &str) -> Option<String> {
    let bitwise = [".and", ".or", ".xor"].into_iter().find(|m| i.has(m));
    let arith = [".add", ".min", ".max"].into_iter().find(|m| i.has(m));
    let ok = match (bitwise, arith) {
        (Some(_), _) => ty == ".b32",
        (_, Some(m)) => matches!(ty, ".u32" | ".s32") || (ty == ".f32" && m != ".add"),
        _ => return None,
    };
    if ok {
        return None;
    }
    if !matches!(ty, ".b32" | ".u32" | ".s32" | ".f32") {
        return Some("Unexpected instruction types specified for 'redux'".into());
    }
    Some(format!(
        "Incorrect type '{ty}' for operation '{}' in instruction 'redux'",
        bitwise.or(arith).unwrap_or("")
    ))
}

/// The types each atomic operation takes (`.add` is judged in rules.rs).
fn atomic_type(i: &Inst, ty: &str) -> Option<String> {
    let op = &i.opcode;
    let need = |list: &[&str]| {
        Some(format!(
            "Operation {} requires {} type for instruction '{op}'",
            [".exch", ".and", ".or", ".xor", ".inc", ".dec"]
                .into_iter()
                .find(|m| i.has(m))
                .unwrap_or(""),
            list.join(" or ")
        ))
    };
    if i.has(".exch") && !matches!(ty, ".b32" | ".b64" | ".b128") {
        return need(&[".b32", ".b64", ".b128"]);
    }
    if (i.has(".and") || i.has(".or") || i.has(".xor")) && !matches!(ty, ".b32" | ".b64") {
        return need(&[".b32", ".b64"]);
    }
    if (i.has(".inc") || i.has(".dec")) && ty != ".u32" {
        return need(&[".u32"]);
    }
    if i.has(".cas") && !matches!(ty, ".b16" | ".b32" | ".b64" | ".b128") {
        return Some(format!("Unexpected instruction types specified for '{op}'"));
    }
    None
}

/// Modifiers drawn from a fixed set: `shf` needs `.wrap` or `.clamp`,
/// `prmt` takes one of its six modes, `membar` has no `.cluster`,
/// `prefetch` reads global or local memory only.
// Long: one arm per opcode whose modifiers come from a fixed set, each
// the rule ptxas applies and the message it gives; one table of them.
fn fixed_modifiers(i: &Inst) -> Option<String> {
    match i.opcode.as_str() {
        // Every `cp` is `cp.async...` or `cp.reduce.async...`: the family
        // is named by its first words (`cp.sys.async.commit_group` is an
        // `Unknown modifier`, ptxas 13.5).
        "cp" if !matches!(
            i.mods.first().map(String::as_str),
            Some(".async" | ".reduce")
        ) || (i.has(".reduce") && i.mods.get(1).map(String::as_str) != Some(".async")) =>
        {
            let m = i.mods.first().map_or("", String::as_str);
            Some(format!("Unknown modifier '{m}'"))
        }
        "shf" if !i.has(".wrap") && !i.has(".clamp") => Some(format!(
            "Clamp modifier required for instruction '{}'",
            full_prefix(i, 1)
        )),
        "prmt" => i
            .mods
            .iter()
            .find(|m| {
                isa::type_info(m).is_none()
                    && !matches!(
                        m.as_str(),
                        ".f4e" | ".b4e" | ".rc8" | ".ecl" | ".ecr" | ".rc16"
                    )
            })
            .map(|m| format!("Unknown modifier '{m}'")),
        "bmsk" | "szext" if !i.has(".wrap") && !i.has(".clamp") => Some(format!(
            "Clamp modifier required for instruction '{}'",
            i.opcode
        )),
        // `cp` exists only as `cp.async...` and `cp.reduce.async...`, and
        // `tcgen05` only with an operation (`tcgen05;` is no instruction).
        "cp" if !i.has(".async") => Some("Not a name of any known instruction: 'cp'".into()),
        "tcgen05" => tcgen05_operation(i),
        // `wgmma` names its operation first (`wgmma.col.sync.aligned` is
        // `Not a name of any known instruction: 'wgmma'`).
        "wgmma"
            if !i.mods.first().is_some_and(|m| {
                matches!(
                    m.as_str(),
                    ".fence" | ".commit_group" | ".wait_group" | ".mma_async"
                )
            }) =>
        {
            Some("Not a name of any known instruction: 'wgmma'".into())
        }
        op if isa::untyped(op, &i.mods) && i.mods.iter().any(|m| isa::is_type(m)) => {
            Some(format!("Unexpected instruction types specified for '{op}'"))
        }
        // `.to` comes right after `cvta` (`cvta.global.to.u64`: `Unknown
        // modifier '.to'`).
        "cvta" if i.has(".to") && i.mods.first().is_some_and(|m| m != ".to") => {
            Some("Unknown modifier '.to'".into())
        }
        // `cp.async.ca/cg` copies global memory to shared memory.
        "cp" if !i.has(".bulk")
            && i.has(".async")
            && [".const", ".local", ".param"].iter().any(|s| i.has(s)) =>
        {
            Some("State space incorrect for instruction 'cp.async'".into())
        }
        // `barrier.cluster` is only `.arrive` or `.wait`.
        "barrier" if i.has(".cluster") && !i.has(".arrive") && !i.has(".wait") => {
            Some("Not a name of any known instruction: 'barrier.cluster'".into())
        }
        // `mapa` has one integer type of 32 or 64 bits, signed or not.
        "mapa" if i.mods.iter().filter(|m| isa::is_type(m)).count() != 1
            || i.mods.iter().any(|m| isa::is_type(m) && !matches!(m.as_str(), ".u32" | ".u64" | ".s32" | ".s64")) =>
        {
            Some("Unexpected instruction types specified for 'mapa'".into())
        }
        // `ldmatrix` and `stmatrix` reach shared memory, named or generic.
        "ldmatrix" | "stmatrix"
            if i
                .mods
                .iter()
                .any(|m| isa::is_space(m) && !matches!(m.as_str(), ".shared" | ".shared::cta")) =>
        {
            Some(format!("State space incorrect for instruction '{}'", i.opcode))
        }
        "cp" if i.has(".bulk") => bulk_copy(i),
        // `cp.async.ca/cg` writes the CTA's own shared memory.
        "cp" if !i.has(".reduce") && i.has(".shared::cluster") => {
            Some("Illegal modifier '::cluster' for instruction 'cp.async'".into())
        }
        // `ldmatrix d, [a]` and `stmatrix [a], s`: the address in brackets,
        // the registers in braces (an immediate there is `Arguments
        // mismatch`, a scalar register `Vector of size N is expected`).
        "ldmatrix" | "stmatrix" if {
            let at = usize::from(i.opcode == "ldmatrix");
            i.operands.len() != 2
                || !matches!(i.operands[at].kind, OpKind::Addr { .. })
                || !matches!(i.operands[1 - at].kind, OpKind::Vector(_))
        } =>
        {
            Some(format!("Arguments mismatch for instruction '{}'", i.opcode))
        }
        // A `cp.async` copy names its cache operator (`'.ca or .cg'
        // modifier required`, ptxas 13.5); the group operations do not.
        "cp" if !i.has(".reduce")
            && ![".ca", ".cg", ".commit_group", ".wait_group", ".wait_all", ".mbarrier"]
                .iter()
                .any(|m| i.has(m)) =>
        {
            Some("'.ca or .cg' modifier required for instruction 'cp.async'".into())
        }
        // `cp.async.ca/cg`'s sizes are integers.
        "cp" if !i.has(".bulk")
            && (i.has(".ca") || i.has(".cg"))
            && i.operands.iter().any(|o| matches!(o.kind, OpKind::Float(_))) =>
        {
            Some("Arguments mismatch for instruction 'cp.async'".into())
        }
        // `bar.warp.sync`: `.warp` right after the opcode.
        "bar" | "barrier" if i.has(".warp") && i.mods.first().is_some_and(|m| m != ".warp") => {
            Some("Unknown modifier '.warp'".into())
        }
        // `st.async` to shared::cluster memory (its default) completes on
        // an mbarrier, named (`.mbarrier::complete_tx::bytes`); `red.async`
        // names its order (`.relaxed` or `.release`). ptxas 13.5.
        "st" if i.has(".async")
            && !i.has(".global")
            && !i.mods.iter().any(|m| m.starts_with(".mbarrier::")) =>
        {
            Some(
                "Modifier '.shared::cluster' requires modifier '.completion_mechanism' for instruction 'st.async'"
                    .into(),
            )
        }
        "red" if i.has(".async") && !i.has(".relaxed") && !i.has(".release") => {
            Some("order modifier required for instruction 'red.async'".into())
        }
        "setmaxnreg" if !i.has(".inc") && !i.has(".dec") => {
            Some("Not a name of any known instruction: 'setmaxnreg'".into())
        }
        // `call` takes `.uni` and nothing else (`call.max`, `call.down`).
        "call" => i
            .mods
            .iter()
            .find(|m| *m != ".uni")
            .map(|m| format!("Illegal modifier '{m}' for instruction 'call'")),
        "setmaxnreg" if i.operands.len() != 1 => Some(format!(
            "Arguments mismatch for instruction '{}'",
            full_prefix(i, 1)
        )),
        // `cp.async.ca/cg` names both spaces (`cp.async.cg.shared` is
        // `Unexpected number of state spaces`).
        "cp" if (i.has(".ca") || i.has(".cg"))
            && !i.has(".bulk")
            && i.mods.iter().filter(|m| isa::is_space(m)).count() < 2 =>
        {
            Some("Unexpected number of state spaces specified in instruction 'cp.async'".into())
        }
        // `membar` names its level (`.cta`, `.gl`, `.sys`) or `.proxy`
        // (a bare `membar;` is `Membar level required`).
        "membar" if ![".cta", ".gl", ".sys", ".proxy"].iter().any(|m| i.has(m)) => {
            Some("Membar level required for instruction 'membar'".into())
        }
        "membar" if !i.operands.is_empty() => {
            Some("Arguments mismatch for instruction 'membar'".into())
        }
        "ld" | "st" | "atom" | "red" if i.has(".tex") => Some(format!(
            "State space incorrect for instruction '{}'",
            i.opcode
        )),
        "ldu" if i.has(".release") => {
            Some("Illegal modifier '.release' for instruction 'ldu'".into())
        }
        "match" | "redux" if !i.has(".sync") => Some(format!(
            ".sync modifier required for instruction '{}'",
            i.opcode
        )),
        "atom" | "red" if ROUNDING.iter().any(|r| i.has(r)) => Some(format!(
            "Illegal rounding modifier for instruction '{}'",
            i.opcode
        )),
        "cvta" => {
            let space = i
                .mods
                .iter()
                .find(|m| !matches!(m.as_str(), ".to" | ".u32" | ".u64"));
            match space.map(String::as_str) {
                None => Some("State space modifier required for instruction 'cvta'".into()),
                Some(m) if !isa::is_space(m) => {
                    Some(format!("Parsing error near '{m}': syntax error"))
                }
                _ => None,
            }
        }
        "membar" if i.has(".cluster") => {
            Some("Illegal modifier '.cluster' for instruction 'membar'".into())
        }
        // One address and no type (`prefetch.global.L1.u32`: `Unexpected
        // instruction types`; `prefetchu.L1 %rd1`: `Arguments mismatch`).
        "prefetch" | "prefetchu" if i.mods.iter().any(|m| isa::is_type(m)) => Some(format!(
            "Unexpected instruction types specified for '{}'",
            i.opcode
        )),
        "prefetch" | "prefetchu"
            if i.operands.len() != 1 || !matches!(i.operands[0].kind, OpKind::Addr { .. }) =>
        {
            Some(format!("Arguments mismatch for instruction '{}'", i.opcode))
        }
        "prefetch" | "prefetchu"
            if i.mods
                .iter()
                .any(|m| m.starts_with(".shared") || matches!(m.as_str(), ".const" | ".param")) =>
        {
            Some(format!(
                "State space incorrect for instruction '{}'",
                i.opcode
            ))
        }
        // wmma's loads and stores reach generic, global or the CTA's shared
        // memory (`wmma.load.a...param.f16`, `.local`, `.const`,
        // `.shared::cluster`: `State space incorrect`, ptxas 13.5; probes
        // in `tests/forms/cases.txt`).
        "wmma"
            if matches!(i.mods.first().map(String::as_str), Some(".load" | ".store"))
                && i.mods.iter().any(|m| {
                    isa::is_space(m) && !matches!(m.as_str(), ".global" | ".shared" | ".shared::cta")
                }) =>
        {
            Some(format!(
                "State space incorrect for instruction '{}'",
                family_name(i)
            ))
        }
        _ => None,
    }
}

/// At most one state space on the instructions that name one
/// (`ld.global.shared`, `cvta.to.global.shared`,
/// `mbarrier.arrive.shared::cta.shared::cta`, `ldmatrix...shared.shared::cta`:
/// `Unexpected number of state spaces`, ptxas 13.5, even the same space
/// twice); copies (`cp.async.ca.shared.global`) name two, but not
/// `cp.async.mbarrier.arrive`.
fn state_spaces(i: &Inst) -> Option<String> {
    let one_space = match i.opcode.as_str() {
        "ld" | "ldu" | "st" | "atom" | "red" | "cvta" | "isspacep" | "prefetch" | "prefetchu" => {
            true
        }
        "mbarrier" | "mapa" | "getctarank" | "ldmatrix" | "stmatrix" | "wmma" | "tcgen05" => true,
        "cp" => i.mods.get(1).is_some_and(|m| m == ".mbarrier"),
        _ => false,
    };
    if !one_space {
        return None;
    }
    let spaces = i.mods.iter().filter(|m| isa::is_space(m)).count();
    (spaces > 1).then(|| {
        let name = match i.opcode.as_str() {
            "cvta" if i.has(".to") => "cvta.to".to_string(),
            "mbarrier" | "wmma" | "tcgen05" | "cp" => {
                full_prefix(i, 1 + usize::from(i.opcode == "cp"))
            }
            op => op.to_string(),
        };
        format!("Unexpected number of state spaces specified in instruction '{name}'")
    })
}

/// The bulk copies `cp.async.bulk[.tensor].dst.src...` (ptxas 13.5): a
/// tensor copy completes on an mbarrier when it writes shared memory and
/// in a bulk group when it writes global memory, between two different
/// spaces; a plain bulk copy has no dimension and no tensor address.
fn bulk_copy(i: &Inst) -> Option<String> {
    let sub_operation = [".prefetch", ".commit_group", ".wait_group", ".reduce"];
    if sub_operation.iter().any(|m| i.has(m)) {
        return None;
    }
    let dimension = i
        .mods
        .iter()
        .any(|m| matches!(m.as_str(), ".1d" | ".2d" | ".3d" | ".4d" | ".5d"));
    if !i.has(".tensor") {
        let tensor_address = i
            .operands
            .iter()
            .any(|o| matches!(&o.kind, OpKind::Addr { extra, .. } if !extra.is_empty()));
        // A copy is `[dst], [src], size`, and a copy completing on an
        // mbarrier names it too (`cp.async.bulk.read 0;`: `Arguments
        // mismatch`, ptxas 13.5).
        let least = if i.has(".mbarrier::complete_tx::bytes") {
            4
        } else {
            3
        };
        return if dimension {
            Some("Illegal modifier 'dimension' for instruction 'cp.async.bulk'".into())
        } else if tensor_address || i.operands.len() < least {
            Some("Arguments mismatch for instruction 'cp.async.bulk'".into())
        } else {
            None
        };
    }
    let spaces: Vec<&str> = i
        .mods
        .iter()
        .map(String::as_str)
        .filter(|m| isa::is_space(m))
        .collect();
    // Three directions (measured on sm_90, sm_100a and sm_120a): global
    // into the CTA's or the cluster's shared memory, and the CTA's shared
    // memory into global.
    if let [dst, src] = spaces[..] {
        let direction = matches!(
            (dst, src),
            (".global", ".shared::cta") | (".shared::cta" | ".shared::cluster", ".global")
        );
        if !direction {
            return Some("State space incorrect for instruction 'cp.async.bulk.tensor'".into());
        }
    }
    let to_global = spaces.first() == Some(&".global");
    let mbarrier = i.has(".mbarrier::complete_tx::bytes");
    let group = i.has(".bulk_group");
    match (mbarrier, group) {
        (false, false) => Some(
            ".completion_mechanism modifier required for instruction 'cp.async.bulk.tensor'".into(),
        ),
        (true, _) if to_global => Some(
            "Illegal modifier '.mbarrier::complete_tx::bytes' for instruction 'cp.async.bulk.tensor'"
                .into(),
        ),
        (_, true) if !to_global => {
            Some("Illegal modifier '.bulk_group' for instruction 'cp.async.bulk.tensor'".into())
        }
        _ => tensor_copy_operands(i, to_global),
    }
}

/// The words of a tensor copy that add no operand.
const TENSOR_COPY_PLAIN: &[&str] = &[
    ".async",
    ".bulk",
    ".tensor",
    ".1d",
    ".2d",
    ".3d",
    ".4d",
    ".5d",
    ".tile",
    ".global",
    ".shared::cluster",
    ".shared::cta",
    ".mbarrier::complete_tx::bytes",
    ".bulk_group",
];

/// A tensor copy's operands (ptxas 13.5): the tensor side `[tmap,
/// {c0, ...}]` with one coordinate per dimension, the shared side a plain
/// address (`Arguments mismatch` when the two are swapped, `Argument vector
/// size mismatch` for a coordinate too many or too few), then the mbarrier
/// of a copy into shared memory. Without a modifier that adds an operand
/// (multicast, cache hint, im2col) there is nothing more.
fn tensor_copy_operands(i: &Inst, to_global: bool) -> Option<String> {
    let mismatch = || Some("Arguments mismatch for instruction 'cp.async.bulk.tensor'".into());
    let (tensor_at, shared_at) = if to_global { (0, 1) } else { (1, 0) };
    let (Some(tensor), Some(shared)) = (i.operands.get(tensor_at), i.operands.get(shared_at))
    else {
        return mismatch();
    };
    let is_tensor =
        |o: &Operand| matches!(&o.kind, OpKind::Addr { extra, .. } if !extra.is_empty());
    if !is_tensor(tensor) || is_tensor(shared) || !matches!(shared.kind, OpKind::Addr { .. }) {
        return mismatch();
    }
    let dims = i.mods.iter().find_map(|m| match m.as_str() {
        ".1d" => Some(1),
        ".2d" => Some(2),
        ".3d" => Some(3),
        ".4d" => Some(4),
        ".5d" => Some(5),
        _ => None,
    });
    if let (Some(dims), OpKind::Addr { extra, .. }) = (dims, &tensor.kind) {
        if let [Operand {
            kind: OpKind::Vector(coords),
            ..
        }] = &extra[..]
        {
            if coords.len() != dims {
                return Some(format!(
                    "Argument {} of instruction 'cp.async.bulk.tensor': Argument vector size mismatch",
                    tensor_at + 1
                ));
            }
        }
    }
    let plain = i
        .mods
        .iter()
        .all(|m| TENSOR_COPY_PLAIN.contains(&m.as_str()));
    let want = if to_global { 2 } else { 3 };
    (plain && i.operands.len() != want)
        .then(|| "Arguments mismatch for instruction 'cp.async.bulk.tensor'".to_string())
}

/// L1 eviction hints (`.L1::evict_last`, `.L1::no_allocate`, ...) and L2
/// prefetch sizes (`.L2::128B`) go with global memory: ptxas 13.5 refuses
/// them on a named `.local`, `.const`, `.shared` or `.param` access.
fn cache_hint_space(i: &Inst, op: &str, space: &str) -> Option<String> {
    let base = space.split("::").next().unwrap_or("");
    if !matches!(base, ".local" | ".const" | ".shared" | ".param") {
        return None;
    }
    i.mods.iter().find_map(|m| {
        if let Some(hint) = m.strip_prefix(".L1::") {
            Some(format!(
                "Modifier '.{hint}' cannot be applied to '{space}' space for instruction '{op}'"
            ))
        } else if matches!(m.as_str(), ".L2::64B" | ".L2::128B" | ".L2::256B") && op == "ld" {
            Some("State space incorrect for feature 'cache prefetching'".into())
        } else {
            None
        }
    })
}

/// The memory-ordering and cache qualifiers of `ld` and `st` (each rule
/// measured with ptxas 13.5, the messages its own): one order at most, one
/// scope at most, a scope exactly with `.relaxed`/`.acquire`/`.release`
/// (`.acquire` only on loads, `.release` only on stores), orders only on
/// the spaces [`isa::order_allows_space`] gives, no order with `.nc` or a
/// cache operator, and `.mmio` only as `.mmio.relaxed.sys` on a scalar
/// global access.
fn memory_order(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    if !matches!(op, "ld" | "st") || i.has(".async") {
        return None;
    }
    let space = i
        .mods
        .iter()
        .find(|m| isa::is_space(m))
        .map_or("", String::as_str);
    let orders: Vec<&str> = i
        .mods
        .iter()
        .map(String::as_str)
        .filter(|m| isa::MEMORY_ORDERS.contains(m))
        .collect();
    let scopes: Vec<&str> = i
        .mods
        .iter()
        .map(String::as_str)
        .filter(|m| isa::SCOPES.contains(m))
        .collect();
    if let Some(second) = orders.get(1) {
        return Some(format!("Duplicate {second} modifier"));
    }
    if scopes.len() > 1 {
        return Some("Multiple scope modifiers specified".into());
    }
    let order = orders.first().copied();
    let illegal = match op {
        "ld" => ".release",
        _ => ".acquire",
    };
    if order == Some(illegal) {
        return Some(format!(
            "Illegal modifier '{illegal}' for instruction '{op}'"
        ));
    }
    let scoped = matches!(order, Some(".relaxed" | ".acquire" | ".release"));
    if i.has(".mmio") {
        if !scoped {
            return Some(format!(
                "Modifier '.mmio' requires modifier '.relaxed or .acquire' for instruction '{op}'"
            ));
        }
        if let Some(scope) = scopes.first().filter(|s| **s != ".sys") {
            return Some(format!(
                "Modifier '.mmio' cannot be combined with modifier '{scope}'"
            ));
        }
    }
    match (scoped, scopes.first()) {
        (true, None) => {
            let order = order.unwrap_or("");
            return Some(format!(
                "Modifier '{order}' requires scope with '{op}' instruction"
            ));
        }
        (false, Some(scope)) => {
            return Some(format!(
                "Modifier '{scope}' requires memory order with '{op}' instruction"
            ))
        }
        _ => {}
    }
    for q in order.into_iter().chain(i.has(".mmio").then_some(".mmio")) {
        if !isa::order_allows_space(q, space) {
            return Some(format!(
                "Modifier '{q}' cannot be applied to '{space}' space"
            ));
        }
    }
    if let (true, Some(v)) = (i.has(".mmio"), i.mods.iter().find(|m| m.starts_with(".v"))) {
        return Some(format!(
            "Modifier '.mmio' cannot be combined with modifier '{v}'"
        ));
    }
    if let Some(msg) = cache_hint_space(i, op, space) {
        return Some(msg);
    }
    let cache_ops = if op == "ld" {
        isa::LOAD_CACHE_OPS
    } else {
        isa::STORE_CACHE_OPS
    };
    if let Some(order) = order.filter(|o| *o != ".weak" || i.has(".nc")) {
        if let Some(c) = i
            .mods
            .iter()
            .find(|m| m.as_str() == ".nc" || cache_ops.contains(&m.as_str()))
        {
            return Some(format!(
                "Modifier '{order}' cannot be combined with modifier '{c}'"
            ));
        }
    }
    None
}

/// Instructions whose first operand is written: it must be a register
/// (or a sink), never an immediate.
const WRITES_FIRST: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "and",
    "atom",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "brev",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cvt",
    "cvta",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "fma",
    "fns",
    "getctarank",
    "isspacep",
    "ld",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mapa",
    "max",
    "min",
    "mov",
    "mul",
    "mul24",
    "neg",
    "not",
    "or",
    "popc",
    "prmt",
    "rcp",
    "redux",
    "rem",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "sub",
    "subc",
    "szext",
    "tanh",
    "testp",
    "vote",
    "xor",
];

fn result_register(cx: &Cx, i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    if !WRITES_FIRST.contains(&op) {
        return None;
    }
    match i.operands.first().map(|o| &o.kind) {
        Some(OpKind::Int(_) | OpKind::Float(_)) => {
            Some(format!("Result register required for instruction '{op}'"))
        }
        // So is each element of a vector result (`{%r1, 5}`; `_` may be).
        Some(OpKind::Vector(items))
            if items
                .iter()
                .any(|x| matches!(x.kind, OpKind::Int(_) | OpKind::Float(_))) =>
        {
            Some(format!("Result register required for instruction '{op}'"))
        }
        Some(OpKind::SymOffset(..)) => Some(format!(
            "Argument 0 of instruction '{op}': must be register"
        )),
        Some(OpKind::Name { name, .. })
            if matches!(cx.resolve(name), Res::Var(_) | Res::Func(_)) =>
        {
            Some(format!(
                "Argument 0 of instruction '{op}': must be register"
            ))
        }
        _ => None,
    }
}

/// The name ptxas quotes for the warp-wide families: the opcode with its
/// first modifier (or two, for `wmma.load.a`), `::` suffixes dropped.
fn family_name(i: &Inst) -> String {
    let take = match i.opcode.as_str() {
        "mma" | "ldmatrix" | "stmatrix" | "movmatrix" => 0,
        "wmma" if i.mods.first().is_some_and(|m| m != ".mma") => 2,
        _ => 1,
    };
    let mut s = i.opcode.clone();
    for m in i.mods.iter().take(take) {
        s.push_str(m.split("::").next().unwrap_or(m));
    }
    s
}

/// `.sync` and `.aligned` on the warp- and warpgroup-wide instructions.
fn sync_aligned(i: &Inst) -> Option<String> {
    if !matches!(
        i.opcode.as_str(),
        "ldmatrix" | "stmatrix" | "movmatrix" | "wmma" | "setmaxnreg" | "mma" | "tcgen05" | "wgmma"
    ) {
        return None;
    }
    let first = i.mods.first().map(String::as_str).unwrap_or("");
    let (sync, aligned) = (i.has(".sync"), i.has(".aligned"));
    let name = family_name(i);
    let tcgen05_warp = i.opcode == "tcgen05"
        && matches!(
            first.split("::").next().unwrap_or(""),
            ".alloc" | ".dealloc" | ".relinquish_alloc_permit" | ".ld" | ".st" | ".wait"
        );
    if i.opcode == "tcgen05" && first.starts_with(".fence") && sync {
        return Some(format!("Illegal modifier '.sync' for instruction '{name}'"));
    }
    let both = matches!(
        i.opcode.as_str(),
        "ldmatrix" | "stmatrix" | "movmatrix" | "wmma" | "setmaxnreg"
    ) || (i.opcode == "mma" && !i.has(".sp") && !i.has_prefix(".sp::"))
        || tcgen05_warp;
    if both {
        // With both missing, ptxas names `.aligned` for these two families
        // and `.sync` for the others.
        let aligned_first = i.opcode == "setmaxnreg" || i.opcode == "tcgen05";
        if !sync && (aligned || !aligned_first) {
            return Some(format!(".sync modifier required for instruction '{name}'"));
        }
        if !aligned {
            return Some(format!(
                ".aligned modifier required for instruction '{name}'"
            ));
        }
    }
    if i.opcode == "wgmma" && !sync {
        return Some(format!(".sync modifier required for instruction '{name}'"));
    }
    None
}

const ROUNDING: &[&str] = &[".rn", ".rz", ".rm", ".rp"];

/// Rounding, `.approx`, `.full`, `.ftz`, `.sat`, and `.lo/.hi/.wide` on
/// the arithmetic instructions, for the integer types and for f32/f64
/// (the 16-bit and packed float forms follow other rules and are left
/// alone).
fn arithmetic(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    let ty = i
        .mods
        .iter()
        .rev()
        .find(|m| isa::type_info(m).is_some())?
        .as_str();
    let int = matches!(isa::type_info(ty), Some((Kind::Signed | Kind::Unsigned, _)));
    let (f32, f64) = (ty == ".f32", ty == ".f64");
    if !(int || f32 || f64) {
        return None;
    }
    let rnd = ROUNDING.iter().any(|r| i.has(r));
    // The integer roundings of `cvt` (`.rni`...) belong to no arithmetic.
    let int_rounding = [".rni", ".rzi", ".rmi", ".rpi"].iter().any(|r| i.has(r));
    if int_rounding && !matches!(op, "cvt" | "cvta") {
        return Some(format!("Illegal rounding modifier for instruction '{op}'"));
    }
    if matches!(op, "add" | "sub") && int && i.has(".sat") && ty != ".s32" {
        return Some(format!("Modifier '.sat' does not apply to '{ty}' type"));
    }
    let approx = i.has(".approx");
    let lohi = [".lo", ".hi", ".wide"].into_iter().find(|m| i.has(m));
    let illegal = |m: &str| Some(format!("Illegal modifier '{m}' for instruction '{op}'"));
    let bad_rounding = || Some(format!("Illegal rounding modifier for instruction '{op}'"));
    let types = |name: &str| {
        Some(format!(
            "Unexpected instruction types specified for '{name}'"
        ))
    };
    match op {
        "add" | "sub" | "mul" | "mad" | "fma" => {
            if approx {
                return illegal(".approx");
            }
            if int {
                if op == "fma" {
                    return types(op);
                }
                if matches!(op, "mul" | "mad") && lohi.is_none() {
                    return types(op);
                }
                if rnd {
                    return if matches!(op, "mul" | "mad") {
                        types(op)
                    } else {
                        bad_rounding()
                    };
                }
                // Integer `.sat` is `mad.hi`'s alone (`mul.lo.sat.s32`,
                // `mad.lo.sat.s32`: `Illegal modifier '.sat'`).
                if let Some(m) = lohi.filter(|m| i.has(".sat") && (op == "mul" || *m != ".hi")) {
                    return Some(format!("Illegal modifier '.sat' for instruction '{op}{m}'"));
                }
                return None;
            }
            if let Some(m) = lohi {
                if matches!(op, "mul" | "mad") {
                    return types(&format!("{op}{m}"));
                }
            }
            if f64 && i.has(".ftz") {
                return illegal(".ftz");
            }
            if f64 && i.has(".sat") {
                return illegal(".sat");
            }
            if matches!(op, "mad" | "fma") && !rnd {
                return Some(format!("Rounding modifier required for instruction '{op}'"));
            }
            None
        }
        "div" => {
            if int {
                if approx {
                    return illegal(".approx");
                }
                if i.has(".full") {
                    return illegal(".full");
                }
                return if rnd { bad_rounding() } else { None };
            }
            if f32 && !(rnd || approx || i.has(".full")) {
                return Some(
                    "Rounding modifier or '.approx' modifier required for instruction 'div'".into(),
                );
            }
            if f64 {
                if approx {
                    return illegal(".approx");
                }
                if i.has(".full") {
                    return types("div.full");
                }
                if !rnd {
                    return Some("Rounding modifier required for instruction 'div'".into());
                }
            }
            None
        }
        "rem" | "min" | "max" | "neg" | "abs" if rnd => bad_rounding(),
        "sqrt" | "rcp" if !int => {
            if f32 && !(rnd || approx) {
                return Some(format!(
                    "Rounding modifier or '.approx' modifier required for instruction '{op}'"
                ));
            }
            if f64 && op == "sqrt" {
                if approx {
                    return illegal(".approx");
                }
                if !rnd {
                    return Some("Rounding modifier required for instruction 'sqrt'".into());
                }
            }
            if f64 && op == "rcp" {
                if approx && !i.has(".ftz") {
                    return Some(
                        "'.ftz' modifier required for instruction 'rcp.approx.f64'".into(),
                    );
                }
                if !(rnd || approx) {
                    return Some(
                        "Rounding modifier or '.approx' modifier required for instruction 'rcp'"
                            .into(),
                    );
                }
            }
            None
        }
        "rsqrt" if !int && !approx => {
            Some(".approx modifier required for instruction 'rsqrt'".into())
        }
        "ex2" | "lg2" | "sin" | "cos" | "tanh" if !int => {
            if f64 {
                return types(op);
            }
            if !approx {
                return Some(format!(".approx modifier required for instruction '{op}'"));
            }
            None
        }
        _ => None,
    }
}

const CMP_SIGNED: &[&str] = &[".eq", ".ne", ".lt", ".le", ".gt", ".ge"];
const CMP_UNSIGNED_ONLY: &[&str] = &[".lo", ".ls", ".hi", ".hs"];
const CMP_FLOAT_ONLY: &[&str] = &[
    ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan",
];

/// `setp` (comparison, boolean operation, type) and `selp` (type).
fn compare(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    let ty = i.mods.iter().rev().find_map(|m| isa::type_info(m));
    if op == "selp" && ty.is_some_and(|t| t.0 == Kind::Pred) {
        return Some("Unexpected instruction types specified for 'selp'".into());
    }
    if op != "setp" {
        return comparison_elsewhere(i);
    }
    let is_cmp = |m: &&String| {
        let m = m.as_str();
        CMP_SIGNED.contains(&m) || CMP_UNSIGNED_ONLY.contains(&m) || CMP_FLOAT_ONLY.contains(&m)
    };
    if i.mods.iter().filter(is_cmp).count() > 1 {
        return Some("Multiple comparisons set".into());
    }
    let cmp = i.mods.iter().find(is_cmp);
    let Some(cmp) = cmp else {
        return Some("Comparison modifier required for instruction 'setp'".into());
    };
    let (kind, _) = ty?;
    if kind == Kind::Pred {
        return Some("Unexpected instruction types specified for 'setp'".into());
    }
    let c = cmp.as_str();
    let ok = match kind {
        Kind::Float | Kind::Half => CMP_SIGNED.contains(&c) || CMP_FLOAT_ONLY.contains(&c),
        Kind::Unsigned => CMP_SIGNED.contains(&c) || CMP_UNSIGNED_ONLY.contains(&c),
        Kind::Signed => CMP_SIGNED.contains(&c),
        Kind::Bits => matches!(c, ".eq" | ".ne"),
        Kind::Pred => false,
    };
    if !ok {
        return Some("Mismatch between instruction type and comparison qualifier".into());
    }
    let boolop = i.has(".and") || i.has(".or") || i.has(".xor");
    match (boolop, i.operands.len()) {
        (true, 3) => Some("Arguments mismatch for instruction 'setp'".into()),
        (false, 4) => Some("Boolean operation is required for instruction 'setp'".into()),
        _ => None,
    }
}

/// A comparison qualifier on an instruction that compares nothing (`sad.lt`,
/// `add.eq`): ptxas refuses it on every one but `setp`, `set` and the video
/// `vset` family. `.lo` and `.hi` are also the half-selectors of `mul`,
/// `mad` and their relatives, where they are not comparisons.
fn comparison_elsewhere(i: &Inst) -> Option<String> {
    let op = i.opcode.as_str();
    if matches!(op, "set" | "vset" | "vset2" | "vset4") {
        return None;
    }
    let halves = matches!(op, "mul" | "mad" | "madc" | "mul24" | "mad24" | "dp2a");
    let compares = i.mods.iter().map(String::as_str).any(|m| {
        (CMP_SIGNED.contains(&m) || CMP_UNSIGNED_ONLY.contains(&m) || CMP_FLOAT_ONLY.contains(&m))
            && !(halves && matches!(m, ".lo" | ".hi"))
    });
    compares.then(|| format!("Comparison qualifier is not allowed for instruction '{op}'"))
}

/// `shfl.sync` and `vote.sync`: mode, type and operand count.
fn warp(cx: &Cx, i: &Inst) -> Option<String> {
    if !i.has(".sync") {
        return None;
    }
    let ty = i.mods.iter().rev().find(|m| isa::type_info(m).is_some());
    let ty = ty.map(String::as_str).unwrap_or("");
    match i.opcode.as_str() {
        "shfl" => {
            if ![".up", ".down", ".bfly", ".idx"].iter().any(|m| i.has(m)) {
                return Some("Shuffle modifier required for instruction 'shfl'".into());
            }
            if ty != ".b32" {
                return Some("Unexpected instruction types specified for 'shfl'".into());
            }
            // Only the source may be a float bit pattern (`0f...`, .b32); the
            // lane, clamp and mask operands are integers.
            let float_ok = |k: usize, o: &Operand| match &o.kind {
                OpKind::Float(crate::lexer::FloatLit::F32Bits(_)) => k == 1,
                OpKind::Float(_) => false,
                _ => true,
            };
            if i.operands.len() != 5 || !i.operands.iter().enumerate().all(|(k, o)| float_ok(k, o))
            {
                return Some("Arguments mismatch for instruction 'shfl'".into());
            }
            // The value may not be discarded (`_|%p`); the predicate may.
            if matches!(&i.operands[0].kind, OpKind::Pair(a, _) if matches!(a.kind, OpKind::Sink)) {
                return Some("Result discard mode is not allowed for instruction 'shfl'".into());
            }
            // The pair's second half is a predicate register (or `_`).
            if let OpKind::Pair(_, p) = &i.operands[0].kind {
                let pred = match &p.kind {
                    OpKind::Sink => true,
                    OpKind::Name { name, .. } => {
                        matches!(cx.resolve(name), Res::Reg(s) if s.ty == ".pred")
                    }
                    _ => false,
                };
                if !pred {
                    return Some("Predicate output expected for instruction 'shfl'".into());
                }
            }
            None
        }
        "vote" => {
            if ![".any", ".all", ".uni", ".ballot"].iter().any(|m| i.has(m)) {
                return Some(".mode modifier required for instruction 'vote'".into());
            }
            if i.has(".ballot") && ty != ".b32" {
                return Some("Unexpected instruction types specified for 'vote'".into());
            }
            for m in [".any", ".all", ".uni"] {
                if i.has(m) && ty != ".pred" {
                    return Some(format!(
                        "Instruction 'vote' requires '.pred' type with '{m}' modifier."
                    ));
                }
            }
            if i.operands.len() != 3 || !is_pred_or_imm(cx, &i.operands[1]) {
                return Some("Arguments mismatch for instruction 'vote'".into());
            }
            None
        }
        _ => None,
    }
}

fn is_pred_or_imm(cx: &Cx, o: &Operand) -> bool {
    match &o.kind {
        OpKind::Name { name, .. } => matches!(cx.resolve(name), Res::Reg(s) if s.ty == ".pred"),
        OpKind::Int(_) => true,
        _ => false,
    }
}

/// Barrier numbers (0..15), thread counts (multiples of the warp size),
/// and the operand counts of `bar.arrive` and `barrier.cluster`.
fn barrier(i: &Inst) -> Option<String> {
    if !matches!(i.opcode.as_str(), "bar" | "barrier") {
        return None;
    }
    if i.has(".warp") {
        // `bar.warp -1;` names no operation (ptxas 13.5: `.sync modifier
        // required for instruction 'bar.warp'`).
        if !i.has(".sync") {
            return Some(format!(
                ".sync modifier required for instruction '{}.warp'",
                i.opcode
            ));
        }
        return (i.operands.len() != 1)
            .then(|| format!("Arguments mismatch for instruction '{}.warp'", i.opcode));
    }
    if i.has(".cluster") {
        if !i.operands.is_empty() {
            return Some(format!(
                "Arguments mismatch for instruction '{}'",
                full_prefix(i, 2)
            ));
        }
        return None;
    }
    if i.opcode == "bar" && i.has(".aligned") {
        return Some("Illegal modifier '.aligned' for instruction 'bar'".into());
    }
    // Every .version and target: a bare `bar 0;` or `barrier 0;` names no
    // operation (`.sync`, `.arrive` or `.red`).
    if ![".sync", ".arrive", ".red"].iter().any(|m| i.has(m)) {
        return Some(format!(
            "Barrier modifier required for instruction '{}'",
            i.opcode
        ));
    }
    // Barrier numbers and thread counts are integers (`bar.sync 1.5`).
    if i.operands
        .iter()
        .any(|o| matches!(o.kind, OpKind::Float(_)))
    {
        return Some(format!("Arguments mismatch for instruction '{}'", i.opcode));
    }
    let red = i.has(".red");
    let (id_at, count_at) = if red { (1, 2) } else { (0, 1) };
    if i.has(".arrive") && i.operands.len() != 2 {
        return Some(format!(
            "Arguments mismatch for instruction '{}'",
            full_prefix(i, 1)
        ));
    }
    if let Some(OpKind::Int(n)) = i.operands.get(id_at).map(|o| &o.kind) {
        // ptxas 13.5 keeps an immediate in 64 bits but judges the barrier
        // by its low 32 (`bar.sync 4294967311` is barrier 15 and
        // assembles), and names it unsigned (`-1` is 18446744073709551615).
        let bits = *n as u64;
        if bits as u32 > 15 {
            return Some(format!(
                "Barrier number '{bits}' out of range, expected to be in range [0..15]"
            ));
        }
    }
    let has_count = if red {
        i.operands.len() == 4
    } else {
        i.operands.len() == 2
    };
    if has_count {
        if let Some(OpKind::Int(n)) = i.operands.get(count_at).map(|o| &o.kind) {
            if n % 32 != 0 {
                return Some(
                    "Number of threads participating in barrier must be in multiple of warp size"
                        .into(),
                );
            }
        }
    }
    None
}

/// `opcode.m1...` with the first `n` modifiers.
fn full_prefix(i: &Inst, n: usize) -> String {
    let mut s = i.opcode.clone();
    for m in i.mods.iter().take(n) {
        s.push_str(m);
    }
    s
}

/// Immediates with a fixed set of values: the `cp.async` size, the
/// `setmaxnreg` register count, the `wgmma.wait_group` count.
fn immediates(i: &Inst) -> Option<String> {
    let imm = |k: usize| match i.operands.get(k).map(|o| &o.kind) {
        Some(OpKind::Int(n)) => Some(*n),
        _ => None,
    };
    match i.opcode.as_str() {
        "cp" if i.has(".async") && (i.has(".ca") || i.has(".cg")) => {
            let n = imm(2)?;
            if i.has(".cg") && n != 16 {
                return Some(format!(
                    "Argument 2 of instruction 'cp.async': unexpected value '{n}', expected to be 16"
                ));
            }
            if ![4, 8, 16].contains(&n) {
                return Some(format!(
                    "Argument 2 of instruction 'cp.async': unexpected value '{n}', expected to be 4 or 8 or 16"
                ));
            }
            None
        }
        "setmaxnreg" => {
            let n = imm(0)?;
            let name = full_prefix(i, 1);
            if !(24..=256).contains(&n) {
                return Some(format!(
                    "Argument 1 of instruction '{name}': value '{n}' out of range, expected to be in range [24..256]"
                ));
            }
            if n % 8 != 0 {
                return Some(format!(
                    "Argument 1 of instruction '{name}': unexpected value '{n}', expected to be multiple of 8"
                ));
            }
            None
        }
        // The field's position and length (`bfe d, a, pos, len`, `bfi d, f,
        // b, pos, len`), when immediate, are in [0, 255] whatever the
        // type (256, -1, 2^32: `out of range`).
        "bfe" | "bfi" => {
            let first = if i.opcode == "bfe" { 2 } else { 3 };
            (first..first + 2).find_map(|k| {
                let n = imm(k)?;
                (!(0..=255).contains(&n)).then(|| format!(
                    "Argument {k} of instruction '{}': value '{n}' out of range, expected to be in range [0..255]",
                    i.opcode
                ))
            })
        }
        "pmevent" if !i.has(".mask") => {
            let n = imm(0)?;
            (!(0..=15).contains(&n)).then(|| {
                format!(
                    "Argument 0 of instruction 'pmevent': value '{n}' out of range, expected to be in range [0..15]"
                )
            })
        }
        "discard" => {
            let n = imm(1)?;
            (n != 128).then(|| {
                format!(
                    "Argument 2 of instruction 'discard': unexpected value '{n}', expected to be 128"
                )
            })
        }
        "createpolicy" if i.has(".fractional") => {
            let f = match i.operands.get(1).map(|o| &o.kind) {
                Some(OpKind::Float(crate::lexer::FloatLit::Decimal(f))) => *f,
                _ => return None,
            };
            (!(f > 0.0 && f <= 1.0)).then(|| {
                format!(
                    "Argument 2 of instruction 'createpolicy.fractional': value '{f:.6}' out of range, expected to be in range (0.000000 .. 1.000000]"
                )
            })
        }
        "wgmma" if i.has(".wait_group") => match i.operands.as_slice() {
            [o] if matches!(o.kind, OpKind::Int(_)) => None,
            _ => Some("Arguments mismatch for instruction 'wgmma.wait_group'".into()),
        },
        _ => None,
    }
}

fn vec_len(o: Option<&Operand>) -> Option<usize> {
    match o.map(|o| &o.kind) {
        Some(OpKind::Vector(v)) => Some(v.len()),
        _ => None,
    }
}

/// The `.xN` count of ldmatrix, stmatrix and tcgen05.ld/st.
fn x_count(i: &Inst) -> Option<(String, u32)> {
    i.mods.iter().find_map(|m| {
        let n = m.strip_prefix(".x")?;
        n.parse().ok().map(|n| (m.clone(), n))
    })
}

/// Matrix shapes and fragment sizes of ldmatrix, stmatrix, tcgen05.ld/st,
/// mma and wmma.
fn matrix(i: &Inst) -> Option<String> {
    match i.opcode.as_str() {
        "ldmatrix" | "stmatrix" if i.has(".m8n8") => {
            let (m, n) = x_count(i)?;
            if ![1, 2, 4].contains(&n) {
                return Some(format!("Unknown modifier '{m}'"));
            }
            let arg = if i.opcode == "ldmatrix" { 0 } else { 1 };
            match vec_len(i.operands.get(arg)) {
                Some(len) if len != n as usize => Some(format!(
                    "Vector of size {n} is expected for argument {arg} of instruction '{}'",
                    i.opcode
                )),
                _ => None,
            }
        }
        "tcgen05" if i.has(".ld") || i.has(".st") => {
            let (m, n) = x_count(i)?;
            if !n.is_power_of_two() || n > 128 {
                return Some(format!("Unknown modifier '{m}'"));
            }
            if i.has_prefix(".pack") || i.has_prefix(".unpack") {
                return None;
            }
            let per = if i.has(".16x128b") {
                2
            } else if i.has(".16x256b") {
                4
            } else if i.has(".32x32b") || i.has(".16x64b") || i.has(".16x32bx2") {
                1
            } else {
                return None;
            };
            // `tcgen05.st` takes its registers last (after `.16x32bx2`'s
            // offset).
            let (arg, name) = if i.has(".ld") {
                (0, "tcgen05.ld")
            } else {
                (i.operands.len().max(2) - 1, "tcgen05.st")
            };
            match vec_len(i.operands.get(arg)) {
                Some(len) if len != (n * per) as usize => Some(format!(
                    "Argument {arg} of instruction '{name}': Argument vector size mismatch"
                )),
                _ => None,
            }
        }
        "mma" => mma(i),
        "wmma" => wmma(i),
        _ => None,
    }
}

fn shape_of(i: &Inst) -> Option<&str> {
    i.mods
        .iter()
        .find(|m| {
            m.starts_with(".m")
                && m[2..].contains('n')
                && m.contains('k')
                && m[2..].chars().next().is_some_and(|c| c.is_ascii_digit())
        })
        .map(String::as_str)
}

/// One class of `mma.sync` inputs (without `.sp`, `.kind` or block
/// scaling), as ptxas 13.5 accepts them: measured over every shape and
/// every D, A, B, C type among the PTX types mma names.
struct MmaClass {
    /// The A/B types; A and B may differ within the class.
    inputs: &'static [&'static str],
    /// The (D, C) type pairs that pass ptxas's type check.
    accumulators: &'static [(&'static str, &'static str)],
    /// Each shape with the registers of A, B and of an f32 (s32, f64) C/D;
    /// an f16 C/D has half as many.
    shapes: &'static [(&'static str, [usize; 3])],
}

const F16_ACC: &[(&str, &str)] = &[
    (".f16", ".f16"),
    (".f32", ".f16"),
    (".f32", ".f32"),
    (".f16", ".f32"),
];
const F32_ACC: &[(&str, &str)] = &[(".f32", ".f32")];
const S32_ACC: &[(&str, &str)] = &[(".s32", ".s32")];

const MMA_CLASSES: &[MmaClass] = &[
    MmaClass {
        inputs: &[".f16"],
        accumulators: F16_ACC,
        shapes: &[
            (".m8n8k4", [2, 2, 8]),
            (".m16n8k8", [2, 1, 4]),
            (".m16n8k16", [4, 2, 4]),
        ],
    },
    MmaClass {
        inputs: &[".bf16"],
        accumulators: F32_ACC,
        shapes: &[
            (".m8n8k4", [2, 2, 8]),
            (".m16n8k8", [2, 1, 4]),
            (".m16n8k16", [4, 2, 4]),
        ],
    },
    // `.m16n8k16` passes the type and size checks but is refused later
    // (`Illegal instruction types specified for '_mma'`), so it is absent.
    MmaClass {
        inputs: &[".tf32"],
        accumulators: F32_ACC,
        shapes: &[
            (".m8n8k4", [4, 4, 8]),
            (".m16n8k4", [2, 1, 4]),
            (".m16n8k8", [4, 2, 4]),
        ],
    },
    MmaClass {
        inputs: &[".f64"],
        accumulators: &[(".f64", ".f64")],
        shapes: &[
            (".m8n8k4", [1, 1, 2]),
            (".m16n8k4", [2, 1, 4]),
            (".m16n8k8", [4, 2, 4]),
            (".m16n8k16", [8, 4, 4]),
        ],
    },
    MmaClass {
        inputs: &[".s8", ".u8"],
        accumulators: S32_ACC,
        shapes: &[
            (".m8n8k16", [1, 1, 2]),
            (".m16n8k16", [2, 1, 4]),
            (".m16n8k32", [4, 2, 4]),
        ],
    },
    MmaClass {
        inputs: &[".s4", ".u4"],
        accumulators: S32_ACC,
        shapes: &[
            (".m8n8k32", [1, 1, 2]),
            (".m16n8k32", [2, 1, 4]),
            (".m16n8k64", [4, 2, 4]),
        ],
    },
    MmaClass {
        inputs: &[".b1"],
        accumulators: S32_ACC,
        shapes: &[
            (".m8n8k128", [1, 1, 2]),
            (".m16n8k128", [2, 1, 4]),
            (".m16n8k256", [4, 2, 4]),
        ],
    },
    MmaClass {
        inputs: &[".e4m3", ".e5m2"],
        accumulators: &[(".f16", ".f16"), (".f32", ".f32")],
        shapes: &[(".m16n8k16", [2, 1, 4]), (".m16n8k32", [4, 2, 4])],
    },
];

/// Whether a dense mma spelling's layouts are right: two of `.row`/`.col`,
/// any pair for the 16- and 32-bit float inputs at `.m8n8k4`, else
/// `.row.col`.
fn mma_layout(i: &Inst, shape: &str, a: &str) -> Option<String> {
    let layouts: Vec<&str> = i
        .mods
        .iter()
        .filter(|m| *m == ".row" || *m == ".col")
        .map(String::as_str)
        .collect();
    match layouts.as_slice() {
        [] => return Some("'.alayout.blayout' modifier required for instruction 'mma'".into()),
        [_] => return Some("'.blayout' modifier required for instruction 'mma'".into()),
        _ => {}
    }
    if shape == ".m8n8k4" && [".f16", ".bf16", ".tf32"].contains(&a) {
        return None;
    }
    if layouts[0] != ".row" {
        return Some(format!(
            "Illegal alayout '{}' for instruction 'mma'",
            layouts[0]
        ));
    }
    if layouts[1] != ".col" {
        return Some(format!(
            "Illegal blayout '{}' for instruction 'mma'",
            layouts[1]
        ));
    }
    None
}

/// The bit operation of single-bit mma: `.xor.popc` or `.and.popc` exactly
/// for `.b1` inputs, none for the others.
fn mma_bit_operation(i: &Inst, shape: &str, a: &str) -> Option<String> {
    let ops = [".xor", ".and"].iter().filter(|m| i.has(m)).count();
    let popc = i.has(".popc");
    if a != ".b1" {
        return (ops > 0 || popc)
            .then(|| "Unexpected instruction types specified for 'mma'".into());
    }
    if ops != 1 {
        return Some(format!(
            "Unexpected number of operations specified for mma with shape '{shape}'"
        ));
    }
    (!popc).then(|| "Illegal reduction operation for instruction 'mma.s32.s32'".into())
}

fn mma(i: &Inst) -> Option<String> {
    if i.has(".sp")
        || i.mods.iter().any(|m| {
            m.starts_with(".sp::") || m.starts_with(".kind") || m.starts_with(".block_scale")
        })
    {
        return None;
    }
    let wrong_types = || Some("Unexpected instruction types specified for 'mma'".to_string());
    // The sub-byte inputs are mma's own words, not PTX types.
    let types: Vec<&str> = i
        .mods
        .iter()
        .filter(|m| isa::type_info(m).is_some() || [".s4", ".u4", ".b1"].contains(&m.as_str()))
        .map(String::as_str)
        .collect();
    let [d, a, b, c] = types.as_slice() else {
        return wrong_types();
    };
    let Some(shape) = shape_of(i) else {
        return Some("Shape modifier required for instruction 'mma'".into());
    };
    if i.operands.len() != 4 {
        return Some("Arguments mismatch for instruction 'mma'".into());
    }
    let Some(class) = MMA_CLASSES
        .iter()
        .find(|k| k.inputs.contains(a) && k.inputs.contains(b))
    else {
        return wrong_types();
    };
    if !class.accumulators.contains(&(*d, *c)) {
        return wrong_types();
    }
    if let Some(problem) = mma_bit_operation(i, shape, a) {
        return Some(problem);
    }
    // f16 inputs write D in C's type, but at .m8n8k4 an f16 C may give an
    // f32 D.
    if d != c && !(shape == ".m8n8k4" && *c == ".f16") {
        return Some(format!(
            ".dtype must be '{c}' when .ctype is '{c}' for 'mma' instruction with shape '{shape}'"
        ));
    }
    let Some((_, [na, nb, nc])) = class.shapes.iter().find(|(s, _)| *s == shape) else {
        return Some(format!(
            "Illegal matrix shape '{shape}' for instruction 'mma'"
        ));
    };
    if let Some(problem) = mma_layout(i, shape, a) {
        return Some(problem);
    }
    let acc = |t: &str| if t == ".f16" { nc / 2 } else { *nc };
    let want = [acc(d), *na, *nb, acc(c)];
    let got: Vec<Option<usize>> = (0..4).map(|k| vec_len(i.operands.get(k))).collect();
    if got.iter().zip(want).any(|(g, w)| g.is_some_and(|g| g != w)) {
        return Some("Argument vector size mismatch for instruction 'mma'".into());
    }
    None
}

/// The WMMA shapes ptxas knows, and which A/B types each takes.
const WMMA_SHAPES: &[&str] = &[
    ".m16n16k16",
    ".m32n8k16",
    ".m8n32k16",
    ".m16n16k8",
    ".m8n8k4",
    ".m8n8k32",
    ".m8n8k128",
];

/// Registers of an A and a B fragment for (shape, type), when they exist.
fn wmma_ab(shape: &str, t: &str) -> Option<(usize, usize)> {
    Some(match (t, shape) {
        (".f16", ".m16n16k16" | ".m32n8k16" | ".m8n32k16") => (8, 8),
        (".bf16", ".m16n16k16") => (4, 4),
        (".bf16", ".m32n8k16") => (8, 2),
        (".bf16", ".m8n32k16") => (2, 8),
        (".s8" | ".u8", ".m16n16k16") => (2, 2),
        (".s8" | ".u8", ".m32n8k16") => (4, 1),
        (".s8" | ".u8", ".m8n32k16") => (1, 4),
        (".tf32", ".m16n16k8") => (4, 4),
        (".f64", ".m8n8k4") | (".s4" | ".u4", ".m8n8k32") | (".b1", ".m8n8k128") => (1, 1),
        _ => return None,
    })
}

/// Registers of a C or D fragment.
fn wmma_cd(shape: &str, t: &str) -> Option<usize> {
    Some(match (t, shape) {
        (".f16", ".m16n16k16" | ".m32n8k16" | ".m8n32k16") => 4,
        (".f32", ".m16n16k16" | ".m32n8k16" | ".m8n32k16" | ".m16n16k8") => 8,
        (".s32", ".m16n16k16" | ".m32n8k16" | ".m8n32k16") => 8,
        (".s32", ".m8n8k32" | ".m8n8k128") | (".f64", ".m8n8k4") => 2,
        _ => return None,
    })
}

fn wmma(i: &Inst) -> Option<String> {
    let shape = i
        .mods
        .iter()
        .find(|m| {
            m.starts_with(".m")
                && m.contains('k')
                && m[2..].starts_with(|c: char| c.is_ascii_digit())
        })?
        .as_str();
    if !WMMA_SHAPES.contains(&shape) {
        return Some(format!("Unknown modifier '{shape}'"));
    }
    let types: Vec<&str> = i
        .mods
        .iter()
        .filter(|m| isa::type_info(m).is_some())
        .map(String::as_str)
        .collect();
    let name = family_name(i);
    let wrong_type = || {
        Some(format!(
            "Incorrect instruction type specified for {name} with shape '{shape}'"
        ))
    };
    let mismatch = || {
        Some(format!(
            "Argument vector size mismatch for instruction '{name}'"
        ))
    };
    let differs = |k: usize, want: usize| vec_len(i.operands.get(k)).is_some_and(|g| g != want);
    match i.mods.first().map(String::as_str) {
        Some(".load") => {
            let Some(&t) = types.last() else {
                return wrong_type();
            };
            let want = match i.mods.get(1).map(String::as_str) {
                Some(".a") => wmma_ab(shape, t).map(|(a, _)| a),
                Some(".b") => wmma_ab(shape, t).map(|(_, b)| b),
                Some(".c") => wmma_cd(shape, t),
                _ => return None,
            };
            let Some(want) = want else {
                return wrong_type();
            };
            if differs(0, want) {
                return mismatch();
            }
            None
        }
        Some(".store") => {
            let Some(&t) = types.last() else {
                return wrong_type();
            };
            let want = wmma_cd(shape, t);
            let Some(want) = want else {
                return wrong_type();
            };
            if differs(1, want) {
                return mismatch();
            }
            None
        }
        Some(".mma") => {
            // f16 inputs spell only D and C (`.f32.f32`); the others spell
            // D, A, B, C (`.f32.bf16.bf16.f32`).
            let (d, a, c) = match types.as_slice() {
                [d, c] => (*d, ".f16", *c),
                [d, a, _, c] => (*d, *a, *c),
                _ => return wrong_type(),
            };
            let (Some((na, nb)), Some(nd), Some(nc)) =
                (wmma_ab(shape, a), wmma_cd(shape, d), wmma_cd(shape, c))
            else {
                return wrong_type();
            };
            if differs(0, nd) || differs(1, na) || differs(2, nb) || differs(3, nc) {
                return mismatch();
            }
            // Four fragments, none of them an immediate (ptxas 13.5:
            // `Arguments mismatch for instruction 'wmma.mma'`).
            let immediate = i
                .operands
                .iter()
                .any(|o| matches!(o.kind, OpKind::Int(_) | OpKind::Float(_)));
            if i.operands.len() != 4 || immediate {
                return Some(format!("Arguments mismatch for instruction '{name}'"));
            }
            None
        }
        _ => None,
    }
}
