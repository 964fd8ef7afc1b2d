//! Per-instruction rules: operand counts and types under the relaxed type
//! rules, state-space rules for memory instructions, branch and call
//! targets, and the target/version each instruction family needs.
//!
//! The messages are ptxas's own words (`Arguments mismatch for instruction
//! 'add'`), because the point of the crate is to predict ptxas's verdict and
//! to explain it in the vocabulary a student will meet from the real tool.

use crate::ast::{Inst, OpKind, Operand};
use crate::check::{Cx, Res};
use crate::isa::{self, Fit, Kind, Need};
use crate::lexer::FloatLit;

type Ty = (Kind, u32);

/// Every PTX instruction name ptxas 13.5 knows, for the "unknown
/// instruction" check. Families are checked in more depth below.
const KNOWN: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "alloca",
    "and",
    "applypriority",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "bra",
    "brev",
    "brkpt",
    "brx",
    "call",
    "clusterlaunchcontrol",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "createpolicy",
    "cvt",
    "cvta",
    "discard",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "exit",
    "fence",
    "fma",
    "fns",
    "getctarank",
    "griddepcontrol",
    "isspacep",
    "istypep",
    "ld",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mapa",
    "match",
    "max",
    "mbarrier",
    "membar",
    "min",
    "mma",
    "mov",
    "movmatrix",
    "mul",
    "mul24",
    "multimem",
    "nanosleep",
    "neg",
    "not",
    "or",
    "pmevent",
    "popc",
    "prefetch",
    "prefetchu",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "ret",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setmaxnreg",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "st",
    "stackrestore",
    "stacksave",
    "stmatrix",
    "sub",
    "subc",
    "suld",
    "suq",
    "sured",
    "sust",
    "szext",
    "tanh",
    "tcgen05",
    "testp",
    "tex",
    "tld4",
    "trap",
    "txq",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vadd",
    "vadd2",
    "vadd4",
    "vavrg2",
    "vavrg4",
    "vmad",
    "vmax",
    "vmax2",
    "vmax4",
    "vmin",
    "vmin2",
    "vmin4",
    "vote",
    "vset",
    "vset2",
    "vset4",
    "vshl",
    "vshr",
    "vsub",
    "vsub2",
    "vsub4",
    "wgmma",
    "wmma",
    "xor",
    "st.async",
    "red.async",
    "tensormap",
    "cp.async",
    "ld.global",
];

/// The instruction's data type: the last type modifier.
fn inst_type(i: &Inst) -> Option<(String, Ty)> {
    i.mods
        .iter()
        .rev()
        .find_map(|m| isa::type_info(m).map(|t| (m.clone(), t)))
}

fn space_of(i: &Inst) -> Option<&str> {
    i.mods.iter().find(|m| isa::is_space(m)).map(String::as_str)
}

/// The name ptxas uses in "Arguments mismatch for instruction '...'".
fn mismatch_name(i: &Inst) -> String {
    match i.opcode.as_str() {
        "mul" | "mad" if i.has(".wide") => format!("{}.wide", i.opcode),
        "cvta" if i.has(".to") => "cvta.to".into(),
        _ => i.opcode.clone(),
    }
}

/// One operand's expected form.
#[derive(Copy, Clone)]
enum E {
    /// A register (or `_`) of this type.
    Dst(Ty, Fit),
    /// A register or immediate of this type.
    Src(Ty, Fit),
    /// A predicate register, possibly `!%p`.
    Pred,
}

pub fn check_inst(cx: &mut Cx, i: &Inst) {
    // A `.pred` ptxas ignores is dropped before any rule looks at the types.
    let without_pred;
    let types = i.mods.iter().filter(|m| isa::is_type(m)).count();
    let i = if types > 1 && i.has(".pred") && isa::ignores_extra_pred(&i.opcode, &i.mods) {
        let mut copy = i.clone();
        copy.mods.retain(|m| m != ".pred");
        without_pred = copy;
        &without_pred
    } else {
        i
    };
    let op = i.opcode.as_str();
    if !KNOWN.contains(&op) {
        cx.error(
            i.pos,
            format!("Not a name of any known instruction: '{op}'"),
        );
        return;
    }
    if let Some((neg, g)) = &i.guard {
        let _ = neg;
        guard(cx, g);
    }
    features(cx, i);
    // Names used anywhere must exist (labels and call targets are checked
    // by their own instructions, where ptxas gives the same message).
    let mut unknown = Vec::new();
    for o in &i.operands {
        each_name(o, &mut |name, pos| {
            if matches!(cx.resolve(name), Res::Unknown) {
                unknown.push((pos, name.to_string()));
            }
        });
    }
    if !unknown.is_empty() {
        for (pos, name) in unknown {
            cx.error(pos, format!("Unknown symbol '{name}'"));
        }
        return;
    }
    let with_elements;
    let i = if i
        .operands
        .iter()
        .any(|o| matches!(o.kind, OpKind::Element { .. }))
    {
        let Some(copy) = array_elements(cx, i) else {
            return;
        };
        with_elements = copy;
        &with_elements
    } else {
        i
    };
    // Special registers only in mov and cvt.
    if !matches!(op, "mov" | "cvt") {
        for o in &i.operands {
            if let OpKind::Name { name, .. } = &o.kind {
                if matches!(cx.resolve(name), Res::Special(_)) {
                    cx.error(
                        o.pos,
                        format!("Special register argument not allowed for instruction '{op}'"),
                    );
                    return;
                }
            }
        }
    }
    for o in &i.operands {
        if let OpKind::Addr { base: Some(b), .. } = &o.kind {
            // ptxas 13.5 crashes (a segmentation fault, no message) on a
            // kernel's store, atom or red to an address in a special
            // register. It assembles them in a `.func`, and a kernel's load
            // crashes or not depending on how its value is used.
            if cx.in_kernel
                && matches!(op, "st" | "atom" | "red")
                && matches!(cx.resolve(b), Res::Special(_))
            {
                cx.error(
                    o.pos,
                    format!("Special register '{b}' as an address (ptxas 13.5 crashes on it)"),
                );
                return;
            }
            // A kernel's prefetch (but of a tensor map) crashes ptxas on
            // it too; mbarrier and a tensor address (`[%tid, {%r1, %r2}]`)
            // are errors. cp.async, ldmatrix and stmatrix assemble.
            let tensor = matches!(&o.kind, OpKind::Addr { extra, .. } if !extra.is_empty());
            let refused = tensor
                || op == "mbarrier"
                || (matches!(op, "prefetch" | "prefetchu") && !i.has(".tensormap"));
            if cx.in_kernel && refused && matches!(cx.resolve(b), Res::Special(_)) {
                cx.error(
                    o.pos,
                    format!("Special register argument not allowed for instruction '{op}'"),
                );
                return;
            }
            if let Res::Reg(s) = cx.resolve(b) {
                if matches!(
                    isa::type_info(&s.ty),
                    Some((Kind::Float | Kind::Half | Kind::Pred, _))
                ) {
                    cx.error(
                        o.pos,
                        format!(
                            "Illegal to use symbol '{b}' of type {} as address operand. Use integer or bit only.",
                            s.ty
                        ),
                    );
                    return;
                }
            }
        }
    }
    if let Some(o) = i.operands.iter().find_map(|o| mixed_vector(cx, o)) {
        cx.error(o, "Incompatible elements of vector expression".into());
        return;
    }
    if crate::forms::check_forms(cx, i) {
        return;
    }
    match op {
        "tcgen05" | "wgmma" => tensor(cx, i),
        "ld" | "ldu" | "st" => memory(cx, i),
        "atom" | "red" => atomic(cx, i),
        "mov" => mov(cx, i),
        "cvt" => cvt(cx, i),
        "cvta" => cvta(cx, i),
        "bra" => branch(cx, i),
        "call" => call(cx, i),
        "ret" | "exit" | "trap" | "brkpt" => {
            count(cx, i, 0, 0);
        }
        "cp" if i.has(".async") => cp_async_operands(cx, i),
        "bar" | "barrier" if !i.has(".cluster") && !i.has(".warp") => {
            if i.operands.is_empty() {
                mismatch(cx, i);
            }
        }
        _ => alu(cx, i),
    }
}

/// The position of a braced vector (or a tensor address's coordinates)
/// whose registers differ in width: `st.global.v2.u32 [%rd1], {%r1,
/// %rd2}`, `{%r3, %clock64}` as coordinates, `{%f2, %fd4}` in `tex`, `{%r3,
/// %h1}` are `Incompatible elements of vector expression` (ptxas 13.5);
/// kinds may differ (`{%r3, %f1}`) and immediates fit any width. Probes in
/// `tests/forms/cases.txt`.
fn mixed_vector(cx: &Cx, o: &Operand) -> Option<crate::lexer::Pos> {
    let elements = match &o.kind {
        OpKind::Vector(v) => v,
        OpKind::Addr { extra, .. } => return extra.iter().find_map(|e| mixed_vector(cx, e)),
        _ => return None,
    };
    let width = |e: &Operand| {
        let OpKind::Name { name, comp, .. } = &e.kind else {
            return None;
        };
        let (kind, bits) = match cx.resolve(name) {
            Res::Reg(s) => isa::type_info(&s.ty)?,
            Res::Special(_) if comp.is_some() => (Kind::Unsigned, 32),
            Res::Special(_) => isa::special(name)?.ty,
            _ => return None,
        };
        (kind != Kind::Pred).then_some(bits)
    };
    let mut widths = elements.iter().filter_map(width);
    let first = widths.next()?;
    widths.any(|w| w != first).then_some(o.pos)
}

/// The operand counts of the `cp.async` family: the group operations take
/// a count (`wait_group`) or nothing, a copy two addresses and a size
/// (then an optional source size and cache policy).
fn cp_async_operands(cx: &mut Cx, i: &Inst) {
    let name = || {
        let op = ["wait_group", "commit_group", "wait_all"]
            .iter()
            .find(|m| i.has(&format!(".{m}")));
        match op {
            Some(op) if !i.has(".bulk") => format!("cp.async.{op}"),
            _ => "cp.async".to_string(),
        }
    };
    let (lo, hi) = if i.has(".wait_group") {
        (1, 1)
    } else if i.has(".commit_group") || i.has(".wait_all") {
        (0, 0)
    } else if i.has(".bulk") {
        return;
    } else if i.has(".mbarrier") {
        // `cp.async.mbarrier.arrive[.noinc]` names only its mbarrier.
        (1, 1)
    } else {
        (3, 5)
    };
    let n = i.operands.len();
    if n < lo || n > hi {
        cx.error(
            i.pos,
            format!("Arguments mismatch for instruction '{}'", name()),
        );
    }
}

/// Each `.param` a call passes has the layout of its formal parameter
/// (ptxas 13.5): a scalar one as wide (its kind may differ: `.f32` for
/// `.b32`), an array one as many bytes, and as aligned.
fn arguments_match(cx: &mut Cx, i: &Inst, actuals: &[Operand], formals: &[crate::ast::Param]) {
    for (actual, formal) in actuals.iter().zip(formals) {
        let OpKind::Name { name, .. } = &actual.kind else {
            continue;
        };
        let Res::Var(arg) = cx.resolve(name) else {
            continue;
        };
        if arg.space != ".param" || formal.space != ".param" {
            continue;
        }
        let declared = crate::check::Sym {
            space: formal.space.clone(),
            ty: formal.ty.clone(),
            entry_param: false,
            vector: false,
            in_signature: true,
            array: formal.array,
            align: formal.align,
        };
        let problem =
            if arg.array.is_some() != declared.array.is_some() || arg.bytes() != declared.bytes() {
                "Type"
            } else if arg.array.is_some() && arg.alignment() != declared.alignment() {
                "Alignment"
            } else {
                continue;
            };
        cx.error(
            i.pos,
            format!(
                "{problem} of argument does not match formal parameter '{}'",
                formal.name
            ),
        );
        return;
    }
}

fn guard(cx: &mut Cx, g: &Operand) {
    if let OpKind::Name { name, .. } = &g.kind {
        match cx.resolve(name) {
            Res::Unknown => cx.error(g.pos, format!("Unknown symbol '{name}'")),
            Res::Reg(s) if s.ty == ".pred" => {}
            _ => cx.error(g.pos, "Predicate expression expected".into()),
        }
    }
}

pub(crate) fn each_name(o: &Operand, f: &mut dyn FnMut(&str, crate::lexer::Pos)) {
    match &o.kind {
        OpKind::Name { name, .. } | OpKind::SymOffset(name, _) => f(name, o.pos),
        OpKind::Element { name, index, .. } => {
            f(name, o.pos);
            if let Some(r) = index {
                f(r, o.pos);
            }
        }
        OpKind::Addr { base, extra, .. } => {
            if let Some(b) = base {
                f(b, o.pos);
            }
            for e in extra {
                each_name(e, f);
            }
        }
        OpKind::Vector(v) | OpKind::List(v) => v.iter().for_each(|e| each_name(e, f)),
        OpKind::Pair(a, b) => {
            each_name(a, f);
            each_name(b, f);
        }
        _ => {}
    }
}

/// `i` with its array elements (`arr[4]`, `arr[%r1+4]`) as ptxas reads
/// them: the address of a load (`ld`, `ldu`) or a store, or the variable
/// itself for `mov` and `cvta`; anywhere else ptxas refuses them. The
/// array and the index are checked here; `None` after an error.
fn array_elements(cx: &mut Cx, i: &Inst) -> Option<Inst> {
    let mut copy = i.clone();
    for (k, o) in copy.operands.iter_mut().enumerate() {
        let OpKind::Element {
            name,
            index,
            offset,
        } = &o.kind
        else {
            continue;
        };
        if !matches!(cx.resolve(name), Res::Var(v) if v.array.is_some()) {
            cx.error(o.pos, "Array indexing on non-array".into());
            return None;
        }
        if let Some(Res::Reg(r)) = index.as_deref().map(|r| cx.resolve(r)) {
            if matches!(
                isa::type_info(&r.ty),
                Some((Kind::Float | Kind::Half | Kind::Pred, _))
            ) {
                let reg = index.as_deref().unwrap_or_default();
                cx.error(
                    o.pos,
                    format!(
                        "Illegal to use symbol '{reg}' of type {} as array index. Use integer or bit only.",
                        r.ty
                    ),
                );
                return None;
            }
        }
        o.kind = match (i.opcode.as_str(), k) {
            ("ld" | "ldu", 1) | ("st", 0) => OpKind::Addr {
                base: Some(name.clone()),
                offset: *offset,
                extra: Vec::new(),
            },
            ("mov" | "cvta", 1) => OpKind::Name {
                name: name.clone(),
                comp: None,
                negated: false,
            },
            _ => {
                mismatch(cx, i);
                return None;
            }
        };
    }
    Some(copy)
}

fn mismatch(cx: &mut Cx, i: &Inst) {
    let name = mismatch_name(i);
    cx.error(
        i.pos,
        format!("Arguments mismatch for instruction '{name}'"),
    );
}

fn count(cx: &mut Cx, i: &Inst, lo: usize, hi: usize) -> bool {
    let n = i.operands.len();
    if n < lo || n > hi {
        mismatch(cx, i);
        return false;
    }
    true
}

/// Whether operand `o` fits expectation `e`. Immediates must suit the
/// type: an integer cannot feed a float operation and a float bit
/// pattern cannot feed an integer one (`.bN` takes both).
fn fits(cx: &Cx, o: &Operand, e: E) -> bool {
    let reg_fits = |name: &str, t: Ty, fit: Fit| match cx.resolve(name) {
        Res::Reg(s) => s.vector || isa::type_info(&s.ty).is_some_and(|r| isa::fits(t, r, fit)),
        Res::Var(_) | Res::Func(_) => matches!(t.0, Kind::Bits | Kind::Unsigned | Kind::Signed),
        Res::Special(sp) => isa::special(&sp).is_some_and(|s| s.ty.1 == t.1 || t.1 == 16),
        _ => false,
    };
    match (e, &o.kind) {
        (E::Dst(..), OpKind::Sink) => true,
        (E::Dst(t, fit), OpKind::Name { name, .. }) => reg_fits(name, t, fit),
        (E::Src(t, fit), OpKind::Name { name, .. }) => reg_fits(name, t, fit),
        (E::Src(t, _), OpKind::Int(_)) => !t.0.is_float(),
        // `var+4` is an address constant: an integer immediate to ptxas
        // (`add.u64 %rd1, sm+4, 1`), where a plain `var` must be a register.
        (E::Src(t, _), OpKind::SymOffset(name, _)) => {
            !t.0.is_float() && matches!(cx.resolve(name), Res::Var(_))
        }
        // A float literal feeds a float type; a bit type takes only a
        // literal of its own width: `0f...` for .b32, and `0d...` or a
        // decimal like `1.5` (a double to ptxas) for .b64.
        (E::Src(t, _), OpKind::Float(f)) => match (t.0, f) {
            (Kind::Float, _) => true,
            (Kind::Half, _) => false,
            (Kind::Bits, FloatLit::F32Bits(_)) => t.1 == 32,
            (Kind::Bits, FloatLit::F64Bits(_) | FloatLit::Decimal(_)) => t.1 == 64,
            _ => false,
        },
        (E::Src(t, fit), OpKind::Vector(v)) | (E::Dst(t, fit), OpKind::Vector(v)) => v
            .iter()
            .all(|x| fits(cx, x, E::Src(t, fit)) || matches!(x.kind, OpKind::Sink)),
        (E::Pred, OpKind::Name { name, .. }) => {
            matches!(cx.resolve(name), Res::Reg(s) if s.ty == ".pred")
        }
        (E::Pred, OpKind::Int(_)) => true,
        (E::Dst(t, fit), OpKind::Pair(a, b)) => fits(cx, a, E::Dst(t, fit)) && fits(cx, b, E::Pred),
        _ => false,
    }
}

fn expect(cx: &mut Cx, i: &Inst, es: &[E]) {
    if i.operands.len() != es.len() || i.operands.iter().zip(es).any(|(o, e)| !fits(cx, o, *e)) {
        mismatch(cx, i);
    }
}

fn u32t() -> Ty {
    (Kind::Unsigned, 32)
}

/// Arithmetic, logic, comparison and the other register-to-register forms.
fn alu(cx: &mut Cx, i: &Inst) {
    let Some((_, t)) = inst_type(i) else { return };
    let (d, s) = (E::Dst(t, Fit::Exact), E::Src(t, Fit::Exact));
    let u = E::Src(u32t(), Fit::Exact);
    let wide = (t.0, t.1 * 2);
    match i.opcode.as_str() {
        // min/max with three sources exist from 8.8.
        "min" | "max" if i.operands.len() == 4 => expect(cx, i, &[d, s, s, s]),
        "add" | "sub" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "copysign"
        | "addc" | "subc" | "mul24" => expect(cx, i, &[d, s, s]),
        "mul" if i.has(".wide") => expect(cx, i, &[E::Dst(wide, Fit::Exact), s, s]),
        "mul" => expect(cx, i, &[d, s, s]),
        "mad" if i.has(".wide") => {
            let w = E::Src(wide, Fit::Exact);
            expect(cx, i, &[E::Dst(wide, Fit::Exact), s, s, w])
        }
        "mad" | "fma" | "mad24" | "madc" => expect(cx, i, &[d, s, s, s]),
        "neg" | "abs" | "not" | "cnot" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "ex2"
        | "lg2" | "tanh" | "brev" => expect(cx, i, &[d, s]),
        "popc" | "clz" | "bfind" => expect(cx, i, &[E::Dst(u32t(), Fit::Exact), s]),
        "shl" | "shr" => expect(cx, i, &[d, s, u]),
        "bfe" => expect(cx, i, &[d, s, u, u]),
        "bfi" => expect(cx, i, &[d, s, s, u, u]),
        "selp" => expect(cx, i, &[d, s, s, E::Pred]),
        "setp" => {
            let pd = E::Dst((Kind::Pred, 1), Fit::Exact);
            if i.operands.len() == 4 {
                expect(cx, i, &[pd, s, s, E::Pred])
            } else {
                expect(cx, i, &[pd, s, s])
            }
        }
        _ => {}
    }
}

fn mov(cx: &mut Cx, i: &Inst) {
    let Some((_, t)) = inst_type(i) else {
        return mismatch(cx, i);
    };
    if !count(cx, i, 2, 2) {
        return;
    }
    if let Some(n) = crate::ast::vector_width(&i.mods) {
        return vector_mov(cx, i, t, n as usize);
    }
    let src = &i.operands[1];
    if let OpKind::Name { name, comp, .. } = &src.kind {
        if let Some(sp) = isa::special(name) {
            if sp.vector && comp.is_none() {
                cx.error(
                    i.pos,
                    "Argument vector size mismatch for instruction 'mov'".into(),
                );
                return;
            }
            // ptxas lets %gridid (64-bit) be read into 32 bits, and the
            // thread and block indices and counts into 16 (`mov.u16 %rs,
            // %laneid` or `%clusterid.x` is `Arguments mismatch`, 13.5).
            let sixteen = matches!(name.as_str(), "%tid" | "%ntid" | "%ctaid" | "%nctaid");
            let ok = (name == "%gridid" && t.1 == 32)
                || sp.ty.0 == t.0 && sp.ty.1 == t.1
                || (sp.ty.0 != Kind::Pred
                    && t.0 != Kind::Pred
                    && !t.0.is_float()
                    && (t.1 == sp.ty.1 || (t.1 == 16 && sixteen)));
            if !ok || !fits(cx, &i.operands[0], E::Dst(t, Fit::Exact)) {
                mismatch(cx, i);
            }
            return;
        }
    }
    // Packing and unpacking (`mov.b64 %rd, {%r1, %r2}`) are judged by
    // `forms.rs`.
    if matches!(src.kind, OpKind::Vector(_)) || matches!(i.operands[0].kind, OpKind::Vector(_)) {
        return;
    }
    if matches!(src.kind, OpKind::SymOffset(..)) {
        return;
    }
    expect(cx, i, &[E::Dst(t, Fit::Exact), E::Src(t, Fit::Exact)]);
}

fn is_float_rounding(m: &str) -> bool {
    matches!(m, ".rn" | ".rz" | ".rm" | ".rp" | ".rna" | ".rs")
}

/// `mov.v2`/`mov.v4`: a braced vector of that many elements on both sides
/// (`Result vector expected` when the destination is not one), at most 128
/// bits in all.
fn vector_mov(cx: &mut Cx, i: &Inst, t: Ty, n: usize) {
    if n * t.1 as usize > 128 {
        cx.error(i.pos, "Vector type too large, exceeds 128 bit limit".into());
        return;
    }
    let is_vec = |o: &Operand| matches!(&o.kind, OpKind::Vector(v) if v.len() == n);
    if !matches!(i.operands[0].kind, OpKind::Vector(_)) {
        cx.error(i.pos, "Result vector expected".into());
        return;
    }
    if !is_vec(&i.operands[0])
        || !is_vec(&i.operands[1])
        || !fits(cx, &i.operands[0], E::Dst(t, Fit::Exact))
        || !fits(cx, &i.operands[1], E::Src(t, Fit::Exact))
    {
        mismatch(cx, i);
    }
}

fn cvt(cx: &mut Cx, i: &Inst) {
    let types: Vec<Ty> = i.mods.iter().filter_map(|m| isa::type_info(m)).collect();
    if types.len() != 2 {
        return mismatch(cx, i);
    }
    let (dt, st) = (types[0], types[1]);
    let packed = |k: usize| {
        i.mods
            .iter()
            .filter(|m| isa::type_info(m).is_some())
            .nth(k)
            .is_some_and(|m| m.ends_with("x2") || m.ends_with("x4"))
    };
    if packed(0) || packed(1) {
        // Packing conversions (`cvt.rn.bf16x2.f32 d, a, b`,
        // `cvt.rn.satfinite.e4m3x2.f32 d, a, b`) take one source per
        // element; unpacking ones (`cvt.rn.f16x2.e4m3x2`) a packed source
        // into a packed destination: a packed source never converts to one
        // value (`cvt.rn.f32.f16x2`). Packing floats into half pairs needs a
        // float rounding.
        if packed(1) && !packed(0) {
            cx.error(
                i.pos,
                "Unexpected instruction types specified for 'cvt'".into(),
            );
            return;
        }
        let into_halves = i
            .mods
            .iter()
            .any(|m| matches!(m.as_str(), ".f16x2" | ".bf16x2"));
        // Half pairs come from floats or packed 8-bit floats, never from
        // an integer (`cvt.f16x2.s32`: `Unexpected instruction types`).
        if into_halves && matches!(st.0, Kind::Signed | Kind::Unsigned) {
            cx.error(
                i.pos,
                "Unexpected instruction types specified for 'cvt'".into(),
            );
            return;
        }
        if into_halves && st.0 == Kind::Float && !i.mods.iter().any(|m| is_float_rounding(m)) {
            cx.error(
                i.pos,
                "Rounding modifier required for instruction 'cvt'".into(),
            );
            return;
        }
        count(cx, i, 2, 5);
        return;
    }
    if !count(cx, i, 2, 2) {
        return;
    }
    // A special register converts from any type as wide as it or narrower
    // (`cvt.u64.u32 %rd, %clock64`, `cvt.u32.u16 %r, %tid.x`), not from a
    // wider one (`cvt.u32.u64 %r, %smid` is `Arguments mismatch`, ptxas 13.5).
    // Both types are integers: `cvt.rn.f32.u32 %f, %tid.x` is `Special
    // register argument not allowed for instruction 'cvt'`.
    let int = |t: Ty| matches!(t.0, Kind::Unsigned | Kind::Signed | Kind::Bits);
    let src_ok = match &i.operands[1].kind {
        OpKind::Name { name, .. } if isa::special(name).is_some() => {
            if !int(dt) || !int(st) {
                cx.error(
                    i.operands[1].pos,
                    "Special register argument not allowed for instruction 'cvt'".into(),
                );
                return;
            }
            isa::special(name).is_some_and(|sp| sp.ty.1 >= st.1)
        }
        _ => fits(cx, &i.operands[1], E::Src(st, Fit::Wider)),
    };
    if !src_ok || !fits(cx, &i.operands[0], E::Dst(dt, Fit::Wider)) {
        return mismatch(cx, i);
    }
    let float_rnd = i
        .mods
        .iter()
        .any(|m| matches!(m.as_str(), ".rn" | ".rz" | ".rm" | ".rp" | ".rna" | ".rs"));
    let int_rnd = i
        .mods
        .iter()
        .any(|m| matches!(m.as_str(), ".rni" | ".rzi" | ".rmi" | ".rpi"));
    let (to_float, from_float) = (dt.0.is_float(), st.0.is_float());
    let illegal = || "Illegal rounding modifier for instruction 'cvt'".to_string();
    let required = || "Rounding modifier required for instruction 'cvt'".to_string();
    // Which rounding each direction takes (measured): float to integer an
    // integer rounding (.rzi); integer to float and float narrowing a
    // float rounding (.rn); float to the same float an integer rounding or
    // none; integer to integer and float widening none.
    let tf32 = i.has(".tf32");
    let problem = if tf32 {
        tf32_conversion(cx, i)
    } else if int(dt) && int(st) {
        (float_rnd || int_rnd).then(illegal)
    } else if int(dt) && from_float {
        if float_rnd {
            Some(illegal())
        } else {
            (!int_rnd).then(required)
        }
    } else if (to_float && int(st)) || dt.1 < st.1 {
        if int_rnd {
            Some(illegal())
        } else {
            (!float_rnd).then(required)
        }
    } else if dt.1 > st.1 {
        (float_rnd || int_rnd).then(illegal)
    } else {
        float_rnd.then(illegal)
    };
    if let Some(msg) = problem {
        cx.error(i.pos, msg);
    }
}

/// `cvt` into `.tf32`, measured with ptxas 13.5: from `.f32` only (and
/// never from `.tf32`), into a 32-bit integer register, rounded `.rna`, or
/// `.rn`/`.rz` (sm_90, `newer_features`), `.relu` only with the latter.
fn tf32_conversion(cx: &Cx, i: &Inst) -> Option<String> {
    let types: Vec<&str> = i
        .mods
        .iter()
        .filter(|m| isa::is_type(m))
        .map(String::as_str)
        .collect();
    if types != [".tf32", ".f32"] {
        return Some("Unexpected instruction types specified for 'cvt'".into());
    }
    if let OpKind::Name { name, .. } = &i.operands[0].kind {
        if matches!(cx.resolve(name), Res::Reg(r) if isa::type_info(&r.ty).is_some_and(|t| t.0.is_float()))
        {
            return Some("Arguments mismatch for instruction 'cvt'".into());
        }
    }
    let rounding = i.mods.iter().find(|m| {
        matches!(
            m.as_str(),
            ".rn" | ".rz" | ".rm" | ".rp" | ".rna" | ".rs" | ".rni" | ".rzi" | ".rmi" | ".rpi"
        )
    });
    match rounding.map(String::as_str) {
        None => Some("Rounding modifier required for instruction 'cvt'".into()),
        Some(".rs") => {
            Some("Illegal modifier '.rs' for instruction 'cvt' with type '.tf32.f32'".into())
        }
        Some(".rna") if i.has(".relu") => {
            Some("Modifier '.relu' cannot be combined with modifier '.rna'".into())
        }
        Some(".rna" | ".rn" | ".rz") => None,
        Some(_) => Some("Illegal rounding modifier for instruction 'cvt'".into()),
    }
}

fn cvta(cx: &mut Cx, i: &Inst) {
    let Some((_, t)) = inst_type(i) else {
        return mismatch(cx, i);
    };
    if !count(cx, i, 2, 2) {
        return;
    }
    let s = E::Src(t, Fit::Exact);
    if !fits(cx, &i.operands[0], E::Dst(t, Fit::Exact)) || !fits(cx, &i.operands[1], s) {
        return mismatch(cx, i);
    }
    // A variable (`sm`, `sm+4`) converts from its own space only.
    let var = match &i.operands[1].kind {
        OpKind::Name { name, .. } | OpKind::SymOffset(name, _) => match cx.resolve(name) {
            Res::Var(v) => Some(v),
            _ => None,
        },
        _ => None,
    };
    if let Some(v) = var {
        let space = i.mods.iter().find(|m| isa::is_space(m));
        let base = |m: &str| m.split("::").next().unwrap_or("").to_string();
        if !i.has(".to") && space.is_some_and(|m| base(m) != base(&v.space)) {
            cx.error(
                i.pos,
                "State space mismatch between instruction and address in instruction 'cvta'".into(),
            );
            return;
        }
    }
    if t.1 == 32 {
        abi32(cx, i);
    }
}

/// ptxas's fatal for any 32-bit generic or global address under
/// `.address_size 64`; its wording depends on the target.
fn abi32(cx: &mut Cx, i: &Inst) {
    let msg = match &cx.target {
        Some(t) if t.sm >= 90 => {
            "32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on sm_90 or higher architectures."
        }
        _ => "32-Bit compilation is no longer supported",
    };
    cx.error(i.pos, msg.into());
}

fn branch(cx: &mut Cx, i: &Inst) {
    if !count(cx, i, 1, 1) {
        return;
    }
    let target = &i.operands[0];
    let label_expected = || "Label expected for argument 0 of instruction 'bra'".to_string();
    match &target.kind {
        OpKind::Name { name, .. } if cx.is_label(name) => {}
        OpKind::Name { name, .. } if matches!(cx.resolve(name), Res::Unknown) => {
            cx.error(target.pos, format!("Unknown symbol '{name}'"))
        }
        _ => cx.error(target.pos, label_expected()),
    }
}

fn call(cx: &mut Cx, i: &Inst) {
    // call[.uni] [(rets),] target[, (args)][, proto];
    let ops = &i.operands;
    let mut k = 0;
    if matches!(ops.first().map(|o| &o.kind), Some(OpKind::List(_))) {
        k = 1;
    }
    let Some(target) = ops.get(k) else {
        return mismatch(cx, i);
    };
    let OpKind::Name { name, .. } = &target.kind else {
        return mismatch(cx, i);
    };
    match cx.resolve(name) {
        Res::Func(crate::ast::FuncKind::Entry) => cx.error(
            target.pos,
            "Illegal call target, device function expected".into(),
        ),
        Res::Func(_) => {
            if let Some(f) = cx.func(name) {
                let nargs = match ops.get(k + 1).map(|o| &o.kind) {
                    Some(OpKind::List(v)) => v.len(),
                    _ => 0,
                };
                let nrets = if k == 1 {
                    match &ops[0].kind {
                        OpKind::List(v) => v.len(),
                        _ => 0,
                    }
                } else {
                    0
                };
                if nargs != f.params.len() || nrets != f.rets.len() {
                    cx.error(
                        i.pos,
                        format!("Function '{name}' called with mismatched parameters"),
                    );
                    return;
                }
                let lists = [ops.get(k + 1), (k == 1).then(|| &ops[0])];
                let formals = [&f.params, &f.rets];
                for (list, formals) in lists.into_iter().zip(formals) {
                    if let Some(OpKind::List(actuals)) = list.map(|o| &o.kind) {
                        arguments_match(cx, i, actuals, formals);
                    }
                }
            }
        }
        Res::Reg(_) => {
            let has_proto = ops
                .last()
                .is_some_and(|o| matches!(&o.kind, OpKind::Name { name, .. } if cx.is_proto(name)));
            if !has_proto {
                cx.error(i.pos, format!("Call to '{name}' requires call prototype"));
            }
        }
        _ => mismatch(cx, i),
    }
}

/// ld, ldu, st: type fit, vector width, and every state-space rule.
fn memory(cx: &mut Cx, i: &Inst) {
    let op = i.opcode.as_str();
    let is_store = op == "st";
    let Some((tname, t)) = inst_type(i) else {
        return mismatch(cx, i);
    };
    if t.0 == Kind::Pred {
        cx.error(
            i.pos,
            format!("Unexpected instruction types specified for '{op}'"),
        );
        return;
    }
    let space = space_of(i).unwrap_or("");
    if i.has(".nc") {
        if is_store {
            cx.error(i.pos, "Illegal modifier '.nc' for instruction 'st'".into());
            return;
        }
        if space != ".global" {
            cx.error(i.pos, "Modifier '.nc' requires .global space".into());
            return;
        }
    }
    if is_store && space == ".const" {
        cx.error(i.pos, "State space incorrect for instruction 'st'".into());
        return;
    }
    if i.has(".volatile") && space == ".local" {
        cx.need(
            "ld/st with .local.volatile",
            isa::VOLATILE_LOCAL,
            i.pos,
            false,
        );
    }
    if i.has(".mmio") {
        cx.need(".mmio", isa::MMIO, i.pos, false);
        if i.has(".acquire") {
            cx.need(".acquire", isa::MMIO_ACQUIRE, i.pos, false);
        }
    }
    if i.has(".async") {
        // st.async [remote], value, [mbarrier], judged by count only; to
        // global memory (sm_100a) no mbarrier.
        let n = if i.has(".global") { 2 } else { 3 };
        count(cx, i, n, n);
        return;
    }
    if !count(cx, i, 2, 2) {
        return;
    }
    let (addr, data) = if is_store {
        (&i.operands[0], &i.operands[1])
    } else {
        (&i.operands[1], &i.operands[0])
    };
    let vec_n = crate::ast::vector_width(&i.mods);
    if vec_n.is_some_and(|n| n * t.1 > 128) {
        let what = "256 bit wide load/store";
        cx.need(what, isa::WIDE_256, i.pos, false);
        if !matches!(space, "" | ".global") {
            cx.error(
                i.pos,
                format!("global state space expected for feature '{what}'"),
            );
            return;
        }
    }
    let data_ok = match (&data.kind, vec_n) {
        // ptxas 13.5 types a vector by the registers that fit: one is
        // enough, the others need only the width (`st.global.v2.u32 [a],
        // {%f1, %r2}` and `{%r1, %f2}` assemble, `{%f1, %f2}`, `{%f1, 7}`
        // and `{_, _}` do not; mixed widths were refused before). Probes in
        // `tests/forms/cases.txt`.
        (OpKind::Vector(v), Some(n)) => {
            let named: Vec<&Operand> = v
                .iter()
                .filter(|x| !matches!(x.kind, OpKind::Sink))
                .collect();
            let register = |x: &Operand| matches!(&x.kind, OpKind::Name { name, .. } if matches!(cx.resolve(name), Res::Reg(_)));
            let fit = |x: &&Operand| fits(cx, x, E::Src(t, Fit::Memory));
            let registers: Vec<&Operand> = named.iter().copied().filter(|x| register(x)).collect();
            v.len() == n as usize
                && (!is_store || named.len() == v.len())
                && !named.is_empty()
                && (registers.is_empty() || registers.iter().any(fit))
                && named.iter().all(|x| register(x) || fit(x))
        }
        (OpKind::Vector(_), None) | (_, Some(_)) => false,
        (OpKind::Sink, None) => !is_store,
        (_, None) => fits(cx, data, E::Src(t, Fit::Memory)),
    };
    if !data_ok || !matches!(addr.kind, OpKind::Addr { .. }) {
        return mismatch(cx, i);
    }
    let _ = tname;
    address(cx, i, addr, space, is_store);
}

/// Checks an address operand against the instruction's state space.
fn address(cx: &mut Cx, i: &Inst, addr: &Operand, space: &str, write: bool) {
    let OpKind::Addr { base, .. } = &addr.kind else {
        return;
    };
    let op = i.opcode.as_str();
    let Some(base) = base else {
        if space != ".local" {
            cx.error(
                i.pos,
                "Immediate addresses allowed only for .local state space".into(),
            );
        }
        return;
    };
    match cx.resolve(base) {
        Res::Reg(s) => {
            let Some((k, w)) = isa::type_info(&s.ty) else {
                return;
            };
            if k.is_float() || k == Kind::Pred {
                cx.error(
                    addr.pos,
                    format!(
                        "Illegal to use symbol '{base}' of type {} as address operand. Use integer or bit only.",
                        s.ty
                    ),
                );
            } else if w == 32 && matches!(space, "" | ".global") {
                abi32(cx, i);
            }
        }
        Res::Var(s) => {
            let sym_space = s.space.split("::").next().unwrap_or("");
            let inst_space = space.split("::").next().unwrap_or("");
            if !inst_space.is_empty() && sym_space != inst_space {
                cx.error(
                    i.pos,
                    format!(
                        "State space mismatch between instruction and address in instruction '{op}'"
                    ),
                );
            } else if inst_space.is_empty() && matches!(sym_space, ".const" | ".param") {
                // Generic addressing reaches global, shared and local
                // variables by name, never const or param ones.
                cx.error(
                    i.pos,
                    format!(
                        "State space mismatch between instruction and address in instruction '{op}'"
                    ),
                );
            } else if write && s.entry_param && sym_space == ".param" {
                cx.error(
                    i.pos,
                    format!("Illegal to write to function input parameter '{base}'"),
                );
            } else if i.guard.is_some() && sym_space == ".param" && !s.in_signature {
                // A call's `.param` (declared in the body) is written and
                // read unconditionally; the function's own may be guarded.
                cx.error(
                    i.pos,
                    format!("Illegal to predicate instruction '{op}.param' with operand '{base}'"),
                );
            }
        }
        _ => {}
    }
}

fn atomic(cx: &mut Cx, i: &Inst) {
    let op = i.opcode.as_str();
    let space = space_of(i).unwrap_or("");
    if i.has(".sub") {
        cx.error(i.pos, "Unknown modifier '.sub'".into());
        return;
    }
    if op == "red" && i.has(".cas") {
        cx.error(
            i.pos,
            "Illegal modifier '.cas' for instruction 'red'".into(),
        );
        return;
    }
    if matches!(space, ".local" | ".const" | ".param") {
        cx.error(
            i.pos,
            format!("State space incorrect for instruction '{op}'"),
        );
        return;
    }
    let Some((tname, t)) = inst_type(i) else {
        return mismatch(cx, i);
    };
    let allowed: &[&str] = if i.has(".add") {
        &[
            ".u32", ".s32", ".u64", ".f64", ".f16", ".f16x2", ".f32", ".bf16", ".bf16x2",
        ]
    } else if i.has(".max") || i.has(".min") {
        &[
            ".u32", ".s32", ".u64", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2",
        ]
    } else {
        &[]
    };
    if !allowed.is_empty() && !allowed.contains(&tname.as_str()) {
        let opn = if i.has(".add") {
            ".add"
        } else if i.has(".max") {
            ".max"
        } else {
            ".min"
        };
        let list = allowed.join(" or ");
        cx.error(
            i.pos,
            format!("Operation {opn} requires {list} type for instruction '{op}'"),
        );
        return;
    }
    if tname.starts_with(".bf16") && i.has(".add") {
        cx.need(
            &format!("{op}.add.bf16{space}"),
            Need::new(90, (7, 8)),
            i.pos,
            true,
        );
    }
    let vec_n = crate::ast::vector_width(&i.mods);
    if let Some(n) = vec_n {
        return vector_atomic(cx, i, space, &tname, t, n as usize);
    }
    if i.has_prefix(".v") {
        return;
    }
    if !half_atomic_spelled(cx, i, &tname, space) {
        return;
    }
    if let Some(k) = i
        .operands
        .iter()
        .position(|o| matches!(o.kind, OpKind::Vector(_)))
    {
        cx.error(
            i.pos,
            format!("Vector is not expected for argument {k} of instruction '{op}'"),
        );
        return;
    }
    if i.has(".async") {
        // red.async [remote], value, [mbarrier]; to global memory no
        // mbarrier.
        let n = if i.has(".global") { 2 } else { 3 };
        count(cx, i, n, n);
        return;
    }
    let is_cas = i.has(".cas");
    let s = E::Src(t, Fit::Exact);
    let (addr, rest): (&Operand, &[Operand]) = if op == "red" {
        match i.operands.split_first() {
            Some((a, r)) => (a, r),
            None => return mismatch(cx, i),
        }
    } else {
        if i.operands.len() < 2 || !fits(cx, &i.operands[0], E::Dst(t, Fit::Exact)) {
            return mismatch(cx, i);
        }
        (&i.operands[1], &i.operands[2..])
    };
    let want = if is_cas { 2 } else { 1 };
    let no_operand = i.has(".inc") || i.has(".dec");
    let _ = no_operand;
    if rest.len() != want || rest.iter().any(|o| !fits(cx, o, s)) {
        return mismatch(cx, i);
    }
    if !matches!(addr.kind, OpKind::Addr { .. }) {
        return mismatch(cx, i);
    }
    address(cx, i, addr, space, false);
}

/// A scalar `atom`/`red` on 16-bit floats (or a packed pair of them) says
/// `.noftz` (`atom.add.noftz.f16`), and of the arithmetic only `.add` has
/// scalar forms (`.min`/`.max` are vector atomics). ptxas 13.5's messages;
/// false after an error.
fn half_atomic_spelled(cx: &mut Cx, i: &Inst, tname: &str, space: &str) -> bool {
    let op = i.opcode.as_str();
    if !matches!(tname, ".f16" | ".bf16" | ".f16x2" | ".bf16x2") {
        return true;
    }
    if !i.has(".noftz") {
        cx.error(
            i.pos,
            format!("'.noftz' modifier required for instruction '{op}' with type '{tname}'"),
        );
        return false;
    }
    if let Some(m) = [".min", ".max"].into_iter().find(|m| i.has(m)) {
        cx.error(
            i.pos,
            format!("Vector modifier required for instruction '{op}{m}{tname}{space}'"),
        );
        return false;
    }
    true
}

/// `atom`/`red` with `.v2`/`.v4`/`.v8` (sm_90, PTX ISA 8.1): `.add` on
/// `.f32` (two or four), and `.add`/`.min`/`.max` with `.noftz` on the
/// 16-bit float types (at most 128 bits), in global or generic memory
/// only; the values and the destination are braced vectors of that many
/// registers (no sink among the sources). Each case was checked with
/// ptxas 13.5, and the messages are its own.
fn vector_atomic(cx: &mut Cx, i: &Inst, space: &str, tname: &str, t: Ty, n: usize) {
    let op = i.opcode.as_str();
    let what = format!("{op} instruction with vector types");
    let arith = [".add", ".min", ".max"].into_iter().find(|m| i.has(m));
    let float = matches!(tname, ".f32" | ".f16" | ".bf16" | ".f16x2" | ".bf16x2");
    let Some(arith) = arith.filter(|_| float) else {
        cx.error(
            i.pos,
            format!("Vector qualifier is not allowed for instruction '{op}'"),
        );
        return;
    };
    if n * t.1 as usize > 128 {
        cx.error(
            i.pos,
            format!(
                "Only .v2 or .v4 vector modifier supported with type {tname} on {arith} operation for {what}"
            ),
        );
        return;
    }
    if tname != ".f32" && !i.has(".noftz") {
        cx.error(
            i.pos,
            format!("'.noftz' modifier required for instruction '{op}' with type '{tname}'"),
        );
        return;
    }
    if space.starts_with(".shared") {
        cx.error(i.pos, format!("State space incorrect for feature '{what}'"));
        return;
    }
    cx.need(&what, Need::new(90, (8, 1)), i.pos, false);
    let first = usize::from(op == "atom");
    if i.operands.len() != first + 2 {
        return mismatch(cx, i);
    }
    // The destination (atom only), then the values.
    let mut vectors: Vec<(usize, bool)> = vec![(first + 1, false)];
    if op == "atom" {
        vectors.insert(0, (0, true));
    }
    for (k, dst) in vectors {
        let OpKind::Vector(v) = &i.operands[k].kind else {
            cx.error(i.pos, format!("Vector expected for argument {k}"));
            return;
        };
        if v.len() != n {
            cx.error(
                i.pos,
                format!("Argument {k} of instruction '{what}': Argument vector size mismatch"),
            );
            return;
        }
        if !dst && v.iter().any(|x| matches!(x.kind, OpKind::Sink)) {
            cx.error(i.pos, "Sink '_' not allowed as a source operand".into());
            return;
        }
        let want = if dst {
            E::Dst(t, Fit::Exact)
        } else {
            E::Src(t, Fit::Exact)
        };
        if !fits(cx, &i.operands[k], want) {
            return mismatch(cx, i);
        }
    }
    if !matches!(i.operands[first].kind, OpKind::Addr { .. }) {
        return mismatch(cx, i);
    }
    address(cx, i, &i.operands[first], space, false);
}

/// Target and version needs of instruction families and modifiers
/// (ptx-facts §1, §4–§7).
fn features(cx: &mut Cx, i: &Inst) {
    let op = i.opcode.as_str();
    let full = i.full_name();
    for m in &i.mods {
        match m.as_str() {
            ".shared::cluster" => cx.need("::cluster", Need::new(90, (7, 8)), i.pos, false),
            ".shared::cta" => cx.need("::cta", Need::new(0, (7, 8)), i.pos, false),
            ".param::entry" => cx.need("::entry", Need::new(0, (8, 3)), i.pos, false),
            ".param::func" => cx.need("::func", Need::new(0, (8, 3)), i.pos, false),
            ".cluster" if op != "barrier" => {
                cx.need(".cluster scope", Need::new(90, (7, 8)), i.pos, false)
            }
            ".b128" => cx.uses_types(".b128", i.pos),
            _ if m.starts_with(".L1::") || m.starts_with(".L2::") => {
                cx.need(m, Need::new(0, (7, 4)), i.pos, false)
            }
            _ => {}
        }
    }
    for o in &i.operands {
        if let OpKind::Name { name, .. } = &o.kind {
            if let Some(sp) = isa::special(name) {
                if let Some(need) = sp.needs {
                    cx.need(name, need, o.pos, false);
                }
            }
        }
    }
    let first = i.mods.first().map(String::as_str).unwrap_or("");
    match op {
        "wgmma" => {
            let name = format!("wgmma{first}");
            cx.need(&name, Need::only(isa::WGMMA_TARGETS, (8, 0)), i.pos, true)
        }
        "tcgen05" => {
            let name = format!("tcgen05{first}");
            cx.need(&name, Need::only(isa::TCGEN05_TARGETS, (8, 6)), i.pos, true)
        }
        "setmaxnreg" => {
            let name = format!("setmaxnreg{first}");
            cx.need(&name, Need::only(isa::SETMAXNREG_TARGETS, (8, 0)), i.pos, true)
        }
        "cvta" | "isspacep" if i.has(".param") => cx.need(
            "cvta/isspacep with .param state space",
            Need::new(0, (7, 7)),
            i.pos,
            false,
        ),
        "isspacep" if i.has(".param::entry") => {
            cx.need("isspacep.param::entry", Need::new(0, (8, 3)), i.pos, false)
        }
        "cvt" if i.mods.iter().any(|m| m.starts_with(".bf16")) => {
            cx.need("cvt with .bf16", Need::new(80, (7, 0)), i.pos, false)
        }
        "barrier" if i.has(".cluster") => {
            cx.need(&full_prefix(i, 3), Need::new(90, (7, 8)), i.pos, false);
            // Any explicit semantics (.relaxed, and .release/.acquire, which
            // nvcc spells out) needs PTX 8.0.
            for sem in [".relaxed", ".release", ".acquire"] {
                if i.has(sem) {
                    cx.need(sem, Need::new(90, (8, 0)), i.pos, false);
                }
            }
        }
        "mapa" => cx.need("mapa", Need::new(90, (7, 8)), i.pos, false),
        "getctarank" => cx.need("getctarank", Need::new(90, (7, 8)), i.pos, false),
        "stmatrix" => cx.need("stmatrix", Need::new(90, (7, 8)), i.pos, false),
        "ldmatrix" => cx.need("ldmatrix", Need::new(75, (6, 5)), i.pos, false),
        "elect" => cx.need("elect", Need::new(90, (8, 0)), i.pos, false),
        "redux" => cx.need("redux.sync", Need::new(80, (7, 0)), i.pos, false),
        "griddepcontrol" => cx.need("griddepcontrol", Need::new(90, (7, 8)), i.pos, false),
        "mma" if i.has(".m16n8k16") => cx.need(".m16n8k16", Need::new(80, (7, 0)), i.pos, false),
        "cp" if i.has(".async") && i.has(".bulk") => {
            cx.need(&full_prefix(i, 4), Need::new(90, (8, 0)), i.pos, false)
        }
        "cp" if i.has(".async") => cx.need("cp.async", Need::new(80, (7, 0)), i.pos, false),
        "mbarrier" => {
            if i.has(".try_wait") {
                cx.need("mbarrier.try_wait", Need::new(90, (7, 8)), i.pos, false)
            } else if i.has(".expect_tx") {
                cx.need("mbarrier.arrive.expect_tx", Need::new(90, (8, 0)), i.pos, false)
            } else {
                cx.need("mbarrier", Need::new(80, (7, 0)), i.pos, false)
            }
        }
        "fence" if i.has(".proxy") => cx.need(".async", Need::new(90, (8, 0)), i.pos, false),
        "shfl" | "vote" if !i.has(".sync") => cx.error(
            i.pos,
            format!(
                "Instruction '{op}' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4"
            ),
        ),
        "fence" if ![".cta", ".cluster", ".gpu", ".sys"].iter().any(|s| i.has(s)) && !i.has(".proxy") && !i.has_prefix(".mbarrier_init") => {
            cx.error(i.pos, "Scope modifier required for instruction 'fence'".into())
        }
        _ => {}
    }
    let _ = full;
    newer_features(cx, i);
}

/// Needs of forms newer than the ones above, measured with ptxas 13.5
/// (`tests/forms.rs` keeps the measurements).
fn newer_features(cx: &mut Cx, i: &Inst) {
    let op = i.opcode.as_str();
    let pos = i.pos;
    let any = |p: &str| i.mods.iter().any(|m| m.starts_with(p));
    match op {
        "wmma" => {
            for t in [".bf16", ".tf32", ".f64"] {
                if i.has(t) {
                    cx.need(t, Need::new(80, (7, 0)), pos, false);
                }
            }
        }
        "mma" => {
            if i.has(".bf16") || i.has(".tf32") {
                cx.need(".bf16/.tf32 mma", Need::new(80, (7, 0)), pos, false);
            }
            if i.has(".f64") && any(".m16n8k") {
                cx.need("mma.m16n8kX.f64", Need::new(90, (7, 8)), pos, false);
            } else if i.has(".f64") {
                cx.need("mma.f64", Need::new(80, (7, 0)), pos, false);
            }
            if any(".e4m3") || any(".e5m2") {
                cx.need("mma with .e4m3/.e5m2", Need::new(89, (8, 4)), pos, false);
                // The .m16n8k16 shape and an f16 accumulator came in 8.7.
                if i.has(".m16n8k16") || i.has(".f16") {
                    cx.need(
                        "mma with .e4m3/.e5m2 at .m16n8k16 or into .f16",
                        Need::new(89, (8, 7)),
                        pos,
                        false,
                    );
                }
            }
        }
        "cvt" => {
            if i.has(".tf32") {
                cx.need(".tf32", Need::new(80, (7, 0)), pos, false);
                let nearest_or_zero = i.has(".rn") || i.has(".rz");
                if nearest_or_zero {
                    cx.need("cvt.rn/.rz.tf32", Need::new(90, (7, 8)), pos, false);
                }
                if i.has(".satfinite") && nearest_or_zero {
                    cx.need(
                        "cvt.rn/.rz.satfinite.tf32",
                        Need::new(100, (8, 6)),
                        pos,
                        false,
                    );
                } else if i.has(".satfinite") {
                    cx.need("cvt.rna.satfinite.tf32", Need::new(80, (8, 1)), pos, false);
                }
            }
            if any(".e4m3") || any(".e5m2") {
                // PTX 8.1 introduced them for sm_89; sm_90 had them from 7.8.
                let hopper = cx.target.as_ref().is_some_and(|t| t.sm >= 90);
                let v = if hopper { (7, 8) } else { (8, 1) };
                cx.need(".e4m3/.e5m2", Need::new(89, v), pos, false);
            }
        }
        "prefetch" if i.has(".tensormap") => {
            cx.need(".tensormap", Need::new(90, (8, 0)), pos, false)
        }
        "multimem" => cx.need("multimem", Need::new(90, (8, 1)), pos, true),
        "tensormap" => cx.need(
            "tensormap.replace",
            Need::only(isa::TENSORMAP_TARGETS, (8, 3)),
            pos,
            true,
        ),
        "clusterlaunchcontrol" => {
            cx.need("clusterlaunchcontrol", Need::new(100, (8, 6)), pos, true)
        }
        "movmatrix" => cx.need("movmatrix", Need::new(75, (7, 8)), pos, true),
        "tanh" => cx.need("tanh", Need::new(75, (7, 0)), pos, true),
        "applypriority" => cx.need("applypriority", Need::new(80, (7, 4)), pos, true),
        "szext" | "bmsk" => cx.need(op, Need::new(0, (7, 6)), pos, false),
        "redux" if i.has(".f32") => cx.need(
            "redux.sync.f32",
            Need::only(isa::REDUX_F32_TARGETS, (8, 6)),
            pos,
            true,
        ),
        "ldmatrix" | "stmatrix" if i.has(".m16n16") || i.has(".m16n8") || i.has(".m8n16") => cx
            .need(
                &format!("{op}.b8"),
                Need::only(isa::MATRIX_B8_TARGETS, (8, 6)),
                pos,
                true,
            ),
        "min" | "max" => {
            int_min_max(cx, i);
            if i.has(".xorsign") {
                cx.need(".xorsign", Need::new(86, (7, 2)), pos, false);
            }
            if i.operands.len() == 4 {
                cx.need("three-source min/max", Need::new(100, (8, 8)), pos, false);
            }
        }
        "fence" if any(".proxy.tensormap") || any(".tensormap") => {
            cx.need(".proxy.tensormap", Need::new(90, (8, 3)), pos, false)
        }
        "mbarrier" if i.has(".shared::cluster") => cx.need(
            "mbarrier on .shared::cluster",
            Need::new(90, (8, 0)),
            pos,
            false,
        ),
        "discard" => cx.need("discard", Need::new(80, (7, 4)), pos, false),
        "createpolicy" => cx.need(
            &format!(
                "createpolicy{}",
                i.mods.first().map(String::as_str).unwrap_or("")
            ),
            Need::new(80, (7, 4)),
            pos,
            false,
        ),
        "atom" | "red" if i.has(".noftz") && i.has(".f32") => cx.need(
            &format!("{op} with .noftz and .f32"),
            Need::new(0, (9, 4)),
            pos,
            false,
        ),
        "st" | "red" if i.has(".async") => {
            cx.need(&format!("{op}.async"), Need::new(90, (8, 1)), pos, true)
        }
        _ => {}
    }
    if op == "add" {
        if let Some(pair) = INT_PAIR.iter().find(|m| i.has(m)) {
            cx.need(&format!("add{pair}"), Need::new(90, (8, 0)), pos, false);
        }
    }
    if matches!(op, "add" | "sub" | "mul" | "fma") && i.has(".f32x2") {
        cx.need(".f32x2", Need::new(100, (8, 6)), pos, false);
    }
    if i.has(".bf16") || i.has(".bf16x2") {
        match op {
            "add" | "sub" | "mul" | "ex2" => {
                cx.need(&format!("{op}.bf16"), Need::new(90, (7, 8)), pos, false)
            }
            "fma" | "min" | "max" | "neg" | "abs" => {
                cx.need(&format!("{op}.bf16"), Need::new(80, (7, 0)), pos, false)
            }
            _ => {}
        }
    }
}

/// The packed 16-bit integer types.
const INT_PAIR: [&str; 2] = [".u16x2", ".s16x2"];

/// Integer `min`/`max` (ptxas 13.5): the packed 16-bit types need sm_90
/// and PTX 8.0, and so does `.relu` (`Feature 'max.relu'`), which takes
/// only signed types (`Illegal modifier '.relu' for instruction 'max'
/// with type '.u32'`).
fn int_min_max(cx: &mut Cx, i: &Inst) {
    let op = i.opcode.as_str();
    if let Some(pair) = INT_PAIR.iter().find(|m| i.has(m)) {
        cx.need(&format!("{op}{pair}"), Need::new(90, (8, 0)), i.pos, false);
    }
    let Some((ty, (kind, _))) = inst_type(i) else {
        return;
    };
    if !matches!(kind, Kind::Signed | Kind::Unsigned) || !i.has(".relu") {
        return;
    }
    cx.need(&format!("{op}.relu"), Need::new(90, (8, 0)), i.pos, false);
    if kind == Kind::Unsigned {
        cx.error(
            i.pos,
            format!("Illegal modifier '.relu' for instruction '{op}' with type '{ty}'"),
        );
    }
}

/// `opcode.m1.m2...` with the first `n - 1` modifiers, for feature names.
fn full_prefix(i: &Inst, n: usize) -> String {
    let mut s = i.opcode.clone();
    for m in i.mods.iter().take(n.saturating_sub(1)) {
        s.push_str(m);
    }
    s
}

/// The few tensor-core shapes ptxas checks that are cheap to predict:
/// operand counts of `wgmma.mma_async` (f16/bf16) and `tcgen05` alloc and
/// dealloc, the `.b32` type of tcgen05 alloc/dealloc/ld/st, the `.b64`
/// (and only) type of tcgen05.commit, and no predicate register among
/// tcgen05 alloc/dealloc's operands (both "Unexpected instruction types"
/// and "Arguments mismatch" in ptxas 13.5, found by mutants).
fn tensor(cx: &mut Cx, i: &Inst) {
    let first = i.mods.first().map(String::as_str).unwrap_or("");
    let name = format!("{}{first}", i.opcode);
    // `tcgen05.mma` names its types in `.kind` and takes none of its own
    // (`.kind::f16.f16` is `Unexpected instruction types`, ptxas 13.5).
    if i.opcode == "tcgen05" && first == ".mma" && inst_type(i).is_some() {
        cx.error(
            i.pos,
            format!("Unexpected instruction types specified for '{name}'"),
        );
        return;
    }
    if i.opcode == "tcgen05" && first == ".commit" {
        let other_type = i
            .mods
            .iter()
            .any(|m| isa::type_info(m).is_some() && m != ".b64");
        if other_type {
            cx.error(
                i.pos,
                format!("Unexpected instruction types specified for '{name}'"),
            );
            return;
        }
    }
    // The column count of `tcgen05.alloc`/`.dealloc`, when immediate, is a
    // power of two in [32, 512] (4: `expected to be multiple of 32`, 96:
    // `must be power of 2`, 1024: `out of range`); `tcgen05.commit`'s
    // mbarrier is in `.shared::cluster` or generic (`.shared::cta`,
    // `.shared`, `.global`: `State space incorrect`). ptxas 13.5, probes in
    // `tests/forms/cases.txt`.
    if i.opcode == "tcgen05" && matches!(first, ".alloc" | ".dealloc") {
        if let Some(OpKind::Int(n)) = i.operands.get(1).map(|o| &o.kind) {
            if !(32..=512).contains(n) || n.count_ones() != 1 {
                cx.error(
                    i.operands[1].pos,
                    format!("Argument 1 of instruction '{name}': value '{n}' is not a power of 2 in [32..512]"),
                );
                return;
            }
        }
    }
    if i.opcode == "tcgen05"
        && first == ".commit"
        && i.mods
            .iter()
            .any(|m| isa::is_space(m) && m != ".shared::cluster")
    {
        cx.error(
            i.pos,
            format!("State space incorrect for instruction '{name}'"),
        );
        return;
    }
    if i.opcode == "tcgen05" && matches!(first, ".alloc" | ".dealloc") {
        let predicate = i.operands.iter().any(|o| {
            matches!(&o.kind, OpKind::Name { name, .. }
                if matches!(cx.resolve(name), Res::Reg(s) if s.ty == ".pred"))
        });
        if predicate {
            cx.error(
                i.pos,
                format!("Arguments mismatch for instruction '{name}'"),
            );
            return;
        }
    }
    if i.opcode == "tcgen05" && matches!(first, ".alloc" | ".dealloc" | ".ld" | ".st") {
        if inst_type(i).is_some_and(|(t, _)| t != ".b32") {
            cx.error(
                i.pos,
                format!("Unexpected instruction types specified for '{name}'"),
            );
            return;
        }
        // `tcgen05.alloc [dst], ncols`: the address first, then the count.
        let alloc_shape = first != ".alloc"
            || matches!(
                i.operands.iter().map(|o| &o.kind).collect::<Vec<_>>()[..],
                [OpKind::Addr { .. }, b] if !matches!(b, OpKind::Addr { .. })
            );
        // `tcgen05.ld {r...}, [taddr]` and `tcgen05.st [taddr], {r...}`:
        // the other way round is `Arguments mismatch` (ptxas 13.5, probes
        // in `tests/forms/cases.txt`).
        let address_at = match first {
            ".ld" => Some(1),
            ".st" => Some(0),
            _ => None,
        };
        let ld_st_shape = address_at.is_none_or(|at| {
            i.operands
                .iter()
                .enumerate()
                .all(|(k, o)| matches!(o.kind, OpKind::Addr { .. }) == (k == at))
        });
        // The `.16x32bx2` shape takes one more operand, the immediate offset
        // of its second half, right after the address of `tcgen05.ld` and
        // before the registers of `tcgen05.st` (a register there is `must
        // be constant`; without it, `Unexpected number of arguments`).
        let operands = if address_at.is_some() && i.has(".16x32bx2") {
            3
        } else {
            2
        };
        let split_offset_ok = operands == 2
            || matches!(
                i.operands.get(address_at.unwrap_or(0) + 1).map(|o| &o.kind),
                Some(OpKind::Int(_))
            );
        if i.operands.len() != operands || !alloc_shape || !ld_st_shape || !split_offset_ok {
            cx.error(
                i.pos,
                format!("Arguments mismatch for instruction '{name}'"),
            );
        }
    }
    if i.opcode == "wgmma" && first == ".mma_async" && (i.has(".f16") || i.has(".bf16")) {
        let a_in_regs = matches!(i.operands.get(1).map(|o| &o.kind), Some(OpKind::Vector(_)));
        let want = if a_in_regs { 7 } else { 8 };
        if i.operands.len() != want {
            cx.error(
                i.pos,
                format!("Arguments mismatch for instruction '{name}'"),
            );
            return;
        }
        // The immediates: A's and B's scales (arguments 4 and 5) are 1 or
        // -1, the transposes after them 0 or 1.
        for (k, o) in i.operands.iter().enumerate().skip(4) {
            let OpKind::Int(v) = o.kind else { continue };
            let (ok, expected) = if k < 6 {
                (v == 1 || v == -1, "-1 or 1")
            } else {
                (v == 0 || v == 1, "0 or 1")
            };
            if !ok {
                cx.error(
                    o.pos,
                    format!("Argument {k} of instruction 'wgmma.mma_async with floating point types': unexpected value '{v}', expected to be {expected}"),
                );
                return;
            }
        }
    }
}
