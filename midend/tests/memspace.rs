//! Memory-space inference: the lattice laws (checked on every element), the
//! diagnostics of the rewrite, and the knobs that filetests cannot reach.

use midend::ir::{AddrSpace, Module};
use midend::passes::memspace::{infer_memory_spaces, Options, Space};
use midend::passes::{Access, DiagnosticKind, Report, Severity};
use midend::text::{parse_module, write_module, PrintOptions};
use midend::verifier::verify_module;

/// Every element, and every pair and triple of them: the lattice is small
/// enough that each law is checked exhaustively.
fn pairs() -> impl Iterator<Item = (Space, Space)> {
    let all = Space::all();
    all.clone()
        .into_iter()
        .flat_map(move |a| all.clone().into_iter().map(move |b| (a, b)))
}

#[test]
fn join_is_commutative_associative_and_idempotent() {
    for (a, b) in pairs() {
        assert_eq!(a.join(b), b.join(a), "{a} ⊔ {b}");
        for c in Space::all() {
            assert_eq!(a.join(b).join(c), a.join(b.join(c)), "{a} ⊔ {b} ⊔ {c}");
        }
    }
    for a in Space::all() {
        assert_eq!(a.join(a), a, "{a} ⊔ {a}");
    }
}

#[test]
fn bottom_is_the_identity_and_generic_the_top() {
    for a in Space::all() {
        assert_eq!(Space::Bottom.join(a), a);
        assert_eq!(a.join(Space::Bottom), a);
        assert_eq!(Space::Generic.join(a), Space::Generic);
        assert_eq!(a.join(Space::Generic), Space::Generic);
    }
}

/// The order agrees with the join (`a ≤ b` exactly when `a ⊔ b = b`), and
/// the join is the least upper bound: above both, and below every element
/// above both.
#[test]
fn the_order_is_the_one_join_makes() {
    for (a, b) in pairs() {
        assert_eq!(a.le(b), a.join(b) == b, "{a} ≤ {b}");
        let j = a.join(b);
        assert!(a.le(j) && b.le(j), "{a} ⊔ {b} = {j} is an upper bound");
        for u in Space::all().into_iter().filter(|&u| a.le(u) && b.le(u)) {
            assert!(j.le(u), "{a} ⊔ {b} = {j} is below the upper bound {u}");
        }
    }
}

#[test]
fn the_lattice_is_three_levels_high() {
    for s in Space::all() {
        assert!(Space::Bottom.le(s) && s.le(Space::Generic));
    }
    let g = Space::Concrete(AddrSpace::Global);
    let s = Space::Concrete(AddrSpace::Shared);
    assert!(!g.le(s) && !s.le(g));
}

fn run(text: &str, opts: &Options) -> (Module, Report) {
    let mut m = parse_module(text).expect("parses");
    verify_module(&m).expect("valid before");
    let mut report = Report::default();
    infer_memory_spaces(&mut m, opts, &mut report, &mut Default::default());
    if let Err(errs) = verify_module(&m) {
        let mut s = String::new();
        for (f, e) in errs {
            s.push_str(&e.annotate(&m.functions[f], Some(&m)));
        }
        panic!("invalid after memspace:\n{s}");
    }
    (m, report)
}

const ATOMIC_LOCAL: &str = "
device external @f(i32) -> i32 {
    ss0 = stack 4, align 4
block0(v0: i32):
    v1 = stack_addr ss0
    v2 = addrspacecast.ptr<generic> v1
    v3 = atomic_rmw add gpu v2, v0
    return v3
}
";

#[test]
fn atomic_on_local_memory_is_an_error() {
    let (m, r) = run(ATOMIC_LOCAL, &Options::default());
    assert!(r.has_errors());
    let d = &r.diagnostics[0];
    assert_eq!(d.severity(), Severity::Error);
    assert_eq!(d.kind, DiagnosticKind::AtomicOnLocal);
    assert_eq!(d.message(), "Cannot do atomic on local memory");
    assert_eq!(d.function, "f");
    // The IR stays valid: the atomic keeps a generic pointer.
    let text = write_module(&m, PrintOptions::default());
    assert!(text.contains("atomic_rmw add gpu v"), "{text}");
}

#[test]
fn atomic_on_const_memory_is_reported() {
    let text = "
gv0 = const @c, size 4, align 4

device external @f(i32) -> i32 {
block0(v0: i32):
    v1 = global_addr.ptr<const> gv0
    v2 = addrspacecast.ptr<generic> v1
    v3 = atomic_cas gpu v2, v0, v0
    return v3
}
";
    let (_, r) = run(text, &Options::default());
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(r.diagnostics[0].kind, DiagnosticKind::AtomicOnConst);
    assert_eq!(
        r.diagnostics[0].message(),
        "Cannot do atomic operation on const memory"
    );
}

#[test]
fn spans_of_diagnostics_come_from_the_instruction() {
    let mut m = parse_module(ATOMIC_LOCAL).unwrap();
    let f = m.function_by_name("f").unwrap();
    let func = &mut m.functions[f];
    let atomic = func
        .layout
        .insts()
        .map(|(_, i)| i)
        .find(|&i| func.dfg.insts[i].opcode() == midend::ir::Opcode::AtomicRmw)
        .unwrap();
    func.spans[atomic] = midend::ir::SourceSpan::new(10, 20);
    let mut r = Report::default();
    infer_memory_spaces(&mut m, &Options::default(), &mut r, &mut Default::default());
    assert_eq!(r.diagnostics[0].span, midend::ir::SourceSpan::new(10, 20));
}

const LOADED: &str = "
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    v2 = load.ptr<generic> v0
    v3 = load.f32 v2
    store v3, v1
    return
}
";

#[test]
fn generic_warning_and_unsafe_assume_global() {
    let opts = Options {
        warn_generic: true,
        track_indir_load: false,
        ..Options::default()
    };
    let (_, r) = run(LOADED, &opts);
    assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    assert_eq!(r.diagnostics[0].severity(), Severity::Warning);
    assert_eq!(
        r.diagnostics[0].kind,
        DiagnosticKind::GenericAccess {
            access: Access::Load
        }
    );
    assert!(r.diagnostics[0]
        .message()
        .starts_with("generic load left in kernel `k`"));

    let opts = Options {
        assume_global: true,
        track_indir_load: false,
        ..Options::default()
    };
    let (m, r) = run(LOADED, &opts);
    assert_eq!(r.diagnostics[0].kind, DiagnosticKind::AssumedGlobal);
    assert!(r.diagnostics[0]
        .message()
        .contains("Cannot tell what pointer points to, assuming global memory space"));
    let text = write_module(&m, PrintOptions::default());
    assert!(text.contains("addrspacecast.ptr<global> v2"), "{text}");
}

/// A pointer loaded from global memory is global when the module stores no
/// other kind of pointer where global memory may be (the closed world);
/// one shared pointer stored to global memory, or a shared address turned
/// into an integer that is stored, undoes it.
#[test]
fn pointers_loaded_from_global_memory_in_a_closed_world() {
    let (m, _) = run(LOADED, &Options::default());
    let text = write_module(&m, PrintOptions::default());
    assert!(text.contains("addrspacecast.ptr<global> v"), "{text}");

    let shared_stored = "
gv0 = shared @s, size 64, align 4

kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    v7 = global_addr.ptr<shared> gv0
    v8 = addrspacecast.ptr<generic> v7
    store v8, v0
    v2 = load.ptr<generic> v0
    v3 = load.f32 v2
    store v3, v1
    return
}
";
    let (m, _) = run(shared_stored, &Options::default());
    let text = write_module(&m, PrintOptions::default());
    assert!(!text.contains("addrspacecast.ptr<global> v"), "{text}");

    let as_integer = "
gv0 = shared @s, size 64, align 4

kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    v7 = global_addr.ptr<shared> gv0
    v8 = addrspacecast.ptr<generic> v7
    v9 = ptrtoint.i64 v8
    store v9, v0
    v2 = load.ptr<generic> v0
    v3 = load.f32 v2
    store v3, v1
    return
}
";
    let (m, _) = run(as_integer, &Options::default());
    let text = write_module(&m, PrintOptions::default());
    assert!(!text.contains("addrspacecast.ptr<global> v"), "{text}");

    // An integer made from a shared address that is only compared does not
    // reach memory.
    let compared = as_integer.replace(
        "    store v9, v0\n",
        "    v10 = iconst.i64 0\n    v11 = icmp eq v9, v10\n",
    );
    let (m, _) = run(&compared, &Options::default());
    let text = write_module(&m, PrintOptions::default());
    assert!(text.contains("addrspacecast.ptr<global> v"), "{text}");

    // A shared pointer kept in local memory and read back as an integer,
    // which is stored to global memory: the bits can come back as a pointer.
    let punned = "
gv0 = shared @s, size 64, align 4

kernel external @k(ptr<global>, ptr<global>) {
    ss0 = stack 8, align 8

block0(v0: ptr<global>, v1: ptr<global>):
    v2 = stack_addr ss0
    v3 = global_addr.ptr<shared> gv0
    v4 = addrspacecast.ptr<generic> v3
    store v4, v2
    v5 = load.i64 v2
    store v5, v0
    v6 = load.ptr<generic> v1
    v7 = load.f32 v6
    store v7, v1
    return
}
";
    let (m, _) = run(punned, &Options::default());
    let text = write_module(&m, PrintOptions::default());
    assert!(!text.contains("addrspacecast.ptr<global> v"), "{text}");
    // Read back as a pointer and used as one, the local copy is harmless.
    let as_pointer = punned.replace(
        "    v5 = load.i64 v2\n    store v5, v0\n",
        "    v5 = load.ptr<generic> v2\n    v11 = load.f32 v5\n    store v11, v0\n",
    );
    assert_ne!(as_pointer, punned);
    let (m, _) = run(&as_pointer, &Options::default());
    let text = write_module(&m, PrintOptions::default());
    assert!(text.contains("addrspacecast.ptr<global> v"), "{text}");

    // Off: loaded pointers are generic.
    let opts = Options {
        track_indir_load: false,
        ..Options::default()
    };
    let (m, _) = run(LOADED, &opts);
    let text = write_module(&m, PrintOptions::default());
    assert!(!text.contains("addrspacecast.ptr<global> v"), "{text}");
}

#[test]
fn int2ptr_tracking_is_a_knob() {
    let text = "
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    v2 = ptrtoint.i64 v1
    v3 = iconst.i64 8
    v4 = iadd v2, v3
    v5 = inttoptr.ptr<generic> v4
    v6 = iconst.i32 1
    store v6, v5
    return
}
";
    let opts = Options {
        track_int2ptr: false,
        ..Options::default()
    };
    let (m, _) = run(text, &opts);
    let off = write_module(&m, PrintOptions::default());
    assert!(!off.contains("addrspacecast.ptr<global>"), "{off}");
    // On by default.
    let (m, _) = run(text, &Options::default());
    let on = write_module(&m, PrintOptions::default());
    // The integer is a generic address, so the pointer made from it is
    // generic and converted after the fact.
    assert!(on.contains("addrspacecast.ptr<global>"), "{on}");
}

#[test]
fn kernel_parameter_assumption_is_a_knob() {
    let text = "
kernel external @k(ptr<generic>) {
block0(v0: ptr<generic>):
    v1 = iconst.i32 1
    store v1, v0
    return
}
";
    let (m, _) = run(text, &Options::default());
    let on = write_module(&m, PrintOptions::default());
    assert!(on.contains("kernel external @k(ptr<global>)"), "{on}");
    let opts = Options {
        param_always_point_to_global: false,
        ..Options::default()
    };
    let (m, _) = run(text, &opts);
    let off = write_module(&m, PrintOptions::default());
    assert!(off.contains("kernel external @k(ptr<generic>)"), "{off}");
}

#[test]
fn conservative_mode_does_no_specialization() {
    let text = "
device internal @set(ptr<generic>) {
block0(v0: ptr<generic>):
    v1 = iconst.i32 1
    store v1, v0
    return
}

kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    call @set(v1)
    return
}
";
    let opts = Options {
        conservative: true,
        dump_ip_msp: true,
        ..Options::default()
    };
    let (m, r) = run(text, &opts);
    let out = write_module(&m, PrintOptions::default());
    assert!(out.contains("device internal @set(ptr<generic>)"), "{out}");
    assert!(r
        .transcript
        .dump_ip_msp
        .contains("Initial work list size : 0"));
}

#[test]
fn unknown_knobs_are_rejected() {
    let knobs = |text: &str| {
        let mut o = Options::default();
        o.apply_knobs(text).map(|()| o)
    };
    assert!(knobs("clone-budget=2;track-int2ptr").is_ok());
    assert_eq!(knobs("clone-budget=2").unwrap().clone_budget, 2);
    assert!(knobs("nonsense").is_err());
    assert!(knobs("clone-budget=x").is_err());
    // In a pass list, before any pass runs.
    for list in [
        "memspace(nonsense)",
        "restrict(nonsense)",
        "gvn(x)",
        "memspace(x",
    ] {
        let err = midend::passes::Pipeline::parse(&[list], Default::default()).unwrap_err();
        assert!(!err.is_internal(), "{list}: {err}");
    }
}
