//! Every memory instruction the backend can select, assembled by ptxas on
//! every target under the `.version` kernelc picks for it.
//!
//! The forms are not listed by hand: the test builds one kernel for every
//! combination the IR can express (each address space of `AddrSpace::ALL`,
//! each type of `Type::all()`, plain, `volatile` and `invariant` accesses
//! and ones with each cache hint (`cache(cs)`, ...),
//! one to four adjacent lanes aligned so that selection may join them into
//! `.v2`/`.v4`, constant and register addresses; every `atomic_rmw` op of
//! `AtomicOp::ALL` at every `MemScope::ALL`, with its old value read and
//! unread, `atomic_cas`, `atomic_vec`), keeps the ones the verifier accepts,
//! and selects each alone for each target of `Target::all()`. A new space,
//! type, flag or atomic in the IR is therefore covered without touching
//! this file. The backend may refuse a combination (a `BackendError`, e.g.
//! `shared::cluster` below sm_90); what it does emit must assemble.
//!
//! Kernels that select to the same memory instructions (registers and
//! names aside) at the same `.version` are one form; one kernel per form
//! goes into a module per target and version, compiled by kernelc at that
//! version and given to ptxas. ptx-validate must accept each module too.

mod common;

use kernelc::backend_nvptx::isel::IselErrorKind;
use kernelc::backend_nvptx::{self, BackendErrorKind, Options, Target};
use kernelc::midend::ir::{AddrSpace, AtomicOp, CacheOp, MemScope, Type};
use kernelc::midend::text::parse_module;
use kernelc::midend::verifier::verify_module;
use ptx_validate::Severity;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The module-level variables and the kernel parameters every candidate
/// kernel may use: a shared and a const array, a global and a generic
/// pointer, a by-value parameter (param space) and an `i64` index.
const GLOBALS: &str = "gv0 = shared @s, size 64, align 16\ngv1 = const @c, size 64, align 16\n";
const PARAMS: &str = "ptr<global>, ptr<generic>, ptr<param> byval(64, 16), i64";
const ENTRY: &str = "block0(v0: ptr<global>, v1: ptr<generic>, v2: ptr<param>, v3: i64):";

/// How a candidate reaches its memory.
#[derive(Copy, Clone, Debug)]
enum Addressing {
    /// The space's own base, at a constant offset (`[s+8]`, `[%rd1+8]`).
    Constant,
    /// The base plus the kernel's `i64` parameter (`[%rd5]`).
    Register,
}

/// One candidate kernel: a short description and its IR function text.
struct Candidate {
    what: String,
    body: Vec<String>,
    preamble: Vec<String>,
}

/// The preamble and body lines that leave a pointer of `space` in `v10`
/// (for `tmem` an invalid cast, which the verifier refuses).
fn pointer(space: AddrSpace, addressing: Addressing) -> (Vec<String>, Vec<String>) {
    let mut pre = Vec::new();
    let mut body = Vec::new();
    let base = match space {
        AddrSpace::Global => "v0".to_string(),
        AddrSpace::Generic => "v1".to_string(),
        AddrSpace::Param => "v2".to_string(),
        AddrSpace::Shared => {
            body.push("v9 = global_addr.ptr<shared> gv0".to_string());
            "v9".to_string()
        }
        AddrSpace::Const => {
            body.push("v9 = global_addr.ptr<const> gv1".to_string());
            "v9".to_string()
        }
        AddrSpace::Local => {
            pre.push("ss0 = stack 64, align 16".to_string());
            body.push("v9 = stack_addr ss0".to_string());
            "v9".to_string()
        }
        space => {
            body.push(format!("v9 = addrspacecast.ptr<{space}> v1"));
            "v9".to_string()
        }
    };
    let offset = match addressing {
        Addressing::Constant => {
            body.push("v8 = iconst.i64 16".to_string());
            "v8"
        }
        Addressing::Register => "v3",
    };
    body.push(format!("v10 = ptroffset {base}, {offset}"));
    (pre, body)
}

/// A value of `ty` in `v20` (read from global memory when it is not a
/// constant: pointers and `i1` have no constants of their own).
fn value(ty: Type, out: &str) -> String {
    match ty {
        Type::I8 | Type::I16 | Type::I32 | Type::I64 => format!("{out} = iconst.{ty} 7"),
        Type::F16 | Type::BF16 | Type::F32 | Type::F64 => format!("{out} = fconst.{ty} 1.5"),
        _ => format!("{out} = load.{ty} v0"),
    }
}

fn bytes(ty: Type) -> i64 {
    match ty {
        Type::I1 | Type::I8 => 1,
        Type::I16 | Type::F16 | Type::BF16 => 2,
        Type::I32 | Type::F32 | Type::Ptr(AddrSpace::Tmem) => 4,
        Type::I64 | Type::F64 | Type::Ptr(_) => 8,
    }
}

/// The flags of plain, volatile and invariant accesses.
/// The flags of an access: none, `volatile`, `invariant`, and each cache
/// hint of `CacheOp::ALL` as the frontend writes it (`__ldcs`, `__stwt`,
/// ...: volatile too; a hint of the other direction is dropped).
fn flag_sets() -> Vec<String> {
    let mut sets: Vec<String> = ["", " volatile", " invariant"].map(String::from).into();
    sets.extend(CacheOp::ALL.iter().map(|c| format!(" volatile cache({c})")));
    sets
}

/// Loads and stores: `lanes` accesses of `ty` at consecutive addresses,
/// the first aligned to the whole group.
fn access_candidates(out: &mut Vec<Candidate>) {
    for &space in &AddrSpace::ALL {
        for addressing in [Addressing::Constant, Addressing::Register] {
            let (pre, base) = pointer(space, addressing);
            for ty in Type::all() {
                for flags in &flag_sets() {
                    for lanes in 1..=4i64 {
                        for store in [false, true] {
                            let mut body = base.clone();
                            let size = bytes(ty);
                            let align = (size * (lanes as u64).next_power_of_two() as i64).min(16);
                            for lane in 0..lanes {
                                let at = format!("v{}", 30 + lane);
                                let off = format!("v{}", 40 + lane);
                                body.push(format!("{off} = iconst.i64 {}", lane * size));
                                body.push(format!("{at} = ptroffset v10, {off}"));
                                let align_flag = if lane == 0 {
                                    format!(" align({align})")
                                } else {
                                    String::new()
                                };
                                if store {
                                    let v = format!("v{}", 50 + lane);
                                    body.push(value(ty, &v));
                                    body.push(format!("store {v}, {at}{flags}{align_flag}"));
                                } else {
                                    let v = format!("v{}", 50 + lane);
                                    body.push(format!("{v} = load.{ty} {at}{flags}{align_flag}"));
                                    body.push(format!("store {v}, v0"));
                                }
                            }
                            out.push(Candidate {
                                what: format!(
                                    "{} of {lanes} x {ty}{flags} in {space} ({addressing:?} address)",
                                    if store { "store" } else { "load" }
                                ),
                                body,
                                preamble: pre.clone(),
                            });
                        }
                    }
                }
            }
        }
    }
}

/// `atomic_rmw`, `atomic_cas` and `atomic_vec` in every space and scope.
fn atomic_candidates(out: &mut Vec<Candidate>) {
    for &space in &AddrSpace::ALL {
        let (pre, base) = pointer(space, Addressing::Register);
        for &scope in MemScope::ALL {
            for ty in Type::all() {
                for read_old in [false, true] {
                    for &op in AtomicOp::ALL {
                        let mut body = base.clone();
                        body.push(value(ty, "v20"));
                        body.push(format!("v21 = atomic_rmw {op} {scope} v10, v20"));
                        if read_old {
                            body.push("store v21, v0".to_string());
                        }
                        out.push(Candidate {
                            what: format!(
                                "atomic_rmw {op} {scope} {ty} in {space} (old value {})",
                                if read_old { "read" } else { "unread" }
                            ),
                            body,
                            preamble: pre.clone(),
                        });
                    }
                }
                let mut body = base.clone();
                body.push(value(ty, "v20"));
                body.push("v21 = atomic_cas ".to_string() + &format!("{scope} v10, v20, v20"));
                body.push("store v21, v0".to_string());
                out.push(Candidate {
                    what: format!("atomic_cas {scope} {ty} in {space}"),
                    body,
                    preamble: pre.clone(),
                });
            }
            for n in [2usize, 4] {
                for read_old in [false, true] {
                    let mut body = base.clone();
                    body.push(value(Type::F32, "v20"));
                    let results: Vec<String> = (0..n).map(|k| format!("v{}", 60 + k)).collect();
                    let args = vec!["v20"; n].join(", ");
                    body.push(format!(
                        "{} = atomic_vec add {scope} v10, {args}",
                        results.join(", ")
                    ));
                    if read_old {
                        body.push(format!("store {}, v0", results[0]));
                    }
                    out.push(Candidate {
                        what: format!("atomic_vec add {scope} {n} x f32 in {space}"),
                        body,
                        preamble: pre.clone(),
                    });
                }
            }
        }
    }
}

/// The text of a kernel named `k{index}` holding `c`.
fn kernel_text(index: usize, c: &Candidate) -> String {
    let mut s = format!("kernel external @k{index}({PARAMS}) {{\n");
    for p in &c.preamble {
        s.push_str(&format!("    {p}\n"));
    }
    s.push('\n');
    s.push_str(ENTRY);
    s.push('\n');
    for l in &c.body {
        s.push_str(&format!("    {l}\n"));
    }
    s.push_str("    return\n}\n");
    s
}

/// The memory instructions of a selected kernel, each spelled with its
/// operands reduced to their shape (`ld.volatile.u32 %r, [%rd+N];`,
/// `st.shared.v2.f32 [S+N], {%f, %f};`): two kernels are the same to
/// ptxas where these agree.
fn spellings(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(str::trim)
        .filter(|l| {
            ["ld", "st", "atom", "red", "cvta"]
                .iter()
                .any(|op| l.starts_with(&format!("{op}.")))
        })
        .map(|l| {
            let (mnemonic, operands) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            format!("{mnemonic} {}", operand_shape(operands))
        })
        .collect()
}

/// Operands with register numbers dropped, names as `S` and numbers as `N`.
fn operand_shape(operands: &str) -> String {
    let mut out = String::new();
    let mut chars = operands.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            out.push(c);
            while let Some(&n) = chars.peek().filter(|n| n.is_ascii_alphabetic()) {
                out.push(n);
                chars.next();
            }
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        } else if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            out.push('S');
            while chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_' || *n == '$')
            {
                chars.next();
            }
        } else if c.is_ascii_digit() || c == '-' {
            out.push('N');
            while chars.peek().is_some_and(char::is_ascii_alphanumeric) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn version_of(ptx: &str) -> (u32, u32) {
    let v = ptx
        .lines()
        .find_map(|l| l.strip_prefix(".version "))
        .expect("a .version line");
    let (a, b) = v.trim().split_once('.').expect("major.minor");
    (a.parse().unwrap(), b.parse().unwrap())
}

/// The kernel whose body holds line `line` (1-based) of `ptx`.
fn kernel_at(ptx: &str, line: usize) -> String {
    ptx.lines()
        .take(line)
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .last()
        .map(|l| l.split('(').next().unwrap_or(l).to_string())
        .unwrap_or_default()
}

/// A valid candidate: its kernel index, what it is, and its module.
struct Valid {
    index: usize,
    what: String,
    text: String,
    module: kernelc::midend::ir::Module,
}

/// Selects every candidate for `target`, assembles one kernel per new
/// spelling (grouped by the `.version` each needs) and returns how many
/// spellings there were and every rejection, by ptxas or ptx-validate.
fn check_target(target: Target, valid: &[Valid], ptxas: Option<&Path>) -> (usize, Vec<String>) {
    let mut opts = Options::new(target);
    opts.threads = 1;
    let mut seen: BTreeSet<((u32, u32), String)> = BTreeSet::new();
    let mut by_version: BTreeMap<(u32, u32), Vec<&Valid>> = BTreeMap::new();
    let mut refused = 0;
    for v in valid {
        match backend_nvptx::compile_module(&v.module, &opts) {
            Ok(ptx) => {
                let version = version_of(&ptx);
                let mut new = false;
                for s in spellings(&ptx) {
                    new |= seen.insert((version, s));
                }
                if new {
                    by_version.entry(version).or_default().push(v);
                }
            }
            Err(e) => {
                // A form the target lacks or kernelc does not select; never
                // malformed IR, since the kernel was verified.
                let malformed = matches!(
                    &e.kind,
                    BackendErrorKind::Isel(i) if matches!(i.kind, IselErrorKind::Malformed(_))
                );
                assert!(!malformed, "{}: {e}", v.what);
                refused += 1;
            }
        }
    }
    assert!(
        refused < valid.len(),
        "{target}: the backend refused every memory kernel"
    );
    let mut failures = Vec::new();
    for (version, kernels) in by_version {
        let mut text = format!("{GLOBALS}\n");
        for v in &kernels {
            text.push_str(&v.text);
            text.push('\n');
        }
        let module = parse_module(&text).unwrap();
        let ptx = backend_nvptx::compile_module(&module, &opts)
            .expect("the forms selected one by one select together");
        assert_eq!(
            version_of(&ptx),
            version,
            "{target}: kernels that each need .version {version:?} need more together"
        );
        let where_ = |line: usize| {
            let name = kernel_at(&ptx, line);
            let what = kernels
                .iter()
                .find(|v| format!("k{}", v.index) == name)
                .map_or("?", |v| v.what.as_str());
            let text = ptx.lines().nth(line.saturating_sub(1)).unwrap_or("").trim();
            format!(
                "{target} .version {}.{}, {name} ({what}), line {line}: `{text}`",
                version.0, version.1
            )
        };
        let report = ptx_validate::validate(&ptx);
        for d in report
            .diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
        {
            failures.push(format!(
                "ptx-validate: {}: {}",
                where_(d.pos.line as usize),
                d.msg
            ));
        }
        let Some(ptxas) = ptxas else { continue };
        let outcome =
            kernelc::ptxas::assemble(ptxas, &ptx, target.name(), &[]).expect("cannot run ptxas");
        if outcome.success {
            continue;
        }
        for l in outcome.output.lines().filter(|l| !l.contains("aborted")) {
            match l.split_once(", line ").map(|(_, r)| r.split_once(';')) {
                Some(Some((line, msg))) => failures.push(format!(
                    "ptxas: {}: {}",
                    where_(line.parse().unwrap_or(0)),
                    msg.trim()
                        .trim_start_matches("error")
                        .trim_start()
                        .trim_start_matches(':')
                        .trim()
                )),
                _ => failures.push(format!("ptxas: {target}: {l}")),
            }
        }
    }
    (seen.len(), failures)
}

#[test]
fn every_memory_form_assembles_on_every_target() {
    let mut candidates = Vec::new();
    access_candidates(&mut candidates);
    atomic_candidates(&mut candidates);
    let valid: Vec<Valid> = candidates
        .into_iter()
        .enumerate()
        .filter_map(|(index, c)| {
            let text = kernel_text(index, &c);
            let module = parse_module(&format!("{GLOBALS}\n{text}")).ok()?;
            verify_module(&module).ok()?;
            Some(Valid {
                index,
                what: c.what,
                text,
                module,
            })
        })
        .collect();
    assert!(
        valid.len() > 500,
        "only {} memory kernels are valid IR: the generator lost its way",
        valid.len()
    );
    let ptxas = common::ptxas_or_skip("memory forms on every target");
    // The targets split over two threads (the machines that run the suite
    // have two cores); ptxas runs inside each.
    let targets: Vec<Target> = Target::all().collect();
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = targets
            .chunks(targets.len().div_ceil(2))
            .map(|chunk| {
                let (valid, ptxas) = (&valid, ptxas.as_deref());
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|&t| check_target(t, valid, ptxas))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker panicked"))
            .collect()
    });
    let spellings: usize = results.iter().map(|r| r.0).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    eprintln!(
        "memory forms: {} valid kernels, {spellings} distinct spellings over {} targets",
        valid.len(),
        targets.len()
    );
    assert!(
        failures.is_empty(),
        "{} memory forms are rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
