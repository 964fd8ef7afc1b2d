//! Facts about the PTX ISA as ptxas 13.5 enforces them: targets and their
//! minimum `.version`, types and the relaxed compatibility rules, special
//! registers, and which target and version each feature needs.
//!
//! Every number here was checked against ptxas 13.5 (see the project's
//! `ptx-facts.md`); where ptxas and the PTX manual disagree, ptxas wins,
//! because agreeing with ptxas is what this crate is for.

/// A PTX ISA version, ordered: `(8, 0) < (8, 3)`.
pub type Version = (u32, u32);

/// The newest `.version` ptxas 13.5 accepts.
pub const MAX_VERSION: Version = (9, 5);

/// A parsed `.target`: `sm_90a` is `{ sm: 90, suffix: "a" }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub sm: u32,
    pub suffix: String,
}

impl Target {
    /// Reads `sm_90a`, or `compute_90a`, which ptxas 13.5 takes as the
    /// same target (the same features, versions and `-arch` checks).
    pub fn parse(s: &str) -> Option<Target> {
        let rest = s
            .strip_prefix("sm_")
            .or_else(|| s.strip_prefix("compute_"))?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let suffix = rest[digits.len()..].to_string();
        if !(suffix.is_empty() || suffix == "a" || suffix == "f") {
            return None;
        }
        Some(Target {
            sm: digits.parse().ok()?,
            suffix,
        })
    }
    pub fn name(&self) -> String {
        format!("sm_{}{}", self.sm, self.suffix)
    }
}

/// The oldest SM ptxas 13.5 compiles for (CUDA 13 dropped sm_50 to sm_72).
pub const OLDEST_SM: u32 = 75;

/// The lowest `.version` ptxas 13.5 accepts for a target, or `None` when
/// ptxas 13.5 does not know the target at all.
pub fn target_floor(t: &Target) -> Option<Version> {
    let base = match t.sm {
        75 => (6, 3),
        80 => (7, 0),
        86 => (7, 1),
        87 => (7, 4),
        89 => (7, 8),
        88 => (9, 0),
        90 => (7, 8),
        100 => (8, 6),
        103 => (8, 8),
        107 => (9, 4),
        110 => (9, 0),
        120 => (8, 7),
        121 => (8, 8),
        _ => return None,
    };
    Some(match (t.sm, t.suffix.as_str()) {
        (90, "a") => (8, 0),
        (90, "f") => return None,
        (100, "f") | (120, "f") => (8, 8),
        (_, _) => base,
    })
}

/// The kind half of a PTX type: it decides which mixes are legal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Bits,
    Unsigned,
    Signed,
    Float,
    /// The half-precision floats, alone or in pairs (`.f16`, `.bf16`,
    /// `.f16x2`, `.bf16x2`): they live in bit registers and take no
    /// immediate, so they fit fewer operands than the other floats.
    Half,
    Pred,
}

impl Kind {
    /// A float of any width, the half-precision ones included.
    pub fn is_float(self) -> bool {
        matches!(self, Kind::Float | Kind::Half)
    }
}

/// Kind and width in bits of a type spelled with its dot, e.g. `.f16x2`.
pub fn type_info(t: &str) -> Option<(Kind, u32)> {
    Some(match t {
        ".pred" => (Kind::Pred, 1),
        ".b8" => (Kind::Bits, 8),
        ".b16" => (Kind::Bits, 16),
        ".b32" => (Kind::Bits, 32),
        ".b64" => (Kind::Bits, 64),
        ".b128" => (Kind::Bits, 128),
        ".u8" => (Kind::Unsigned, 8),
        ".u16" => (Kind::Unsigned, 16),
        ".u32" => (Kind::Unsigned, 32),
        ".u64" => (Kind::Unsigned, 64),
        ".s8" => (Kind::Signed, 8),
        ".s16" => (Kind::Signed, 16),
        ".s32" => (Kind::Signed, 32),
        ".s64" => (Kind::Signed, 64),
        ".f16" | ".bf16" => (Kind::Half, 16),
        ".f16x2" | ".bf16x2" => (Kind::Half, 32),
        // Two 16-bit integers in a 32-bit register (`add.u16x2`,
        // `max.s16x2.relu`).
        ".u16x2" => (Kind::Unsigned, 32),
        ".s16x2" => (Kind::Signed, 32),
        ".f32" | ".tf32" => (Kind::Float, 32),
        ".f64" | ".f32x2" => (Kind::Float, 64),
        ".e4m3" | ".e5m2" | ".e2m3" | ".e3m2" | ".e2m1" | ".ue8m0" => (Kind::Bits, 8),
        ".e4m3x2" | ".e5m2x2" | ".e2m3x2" | ".e3m2x2" | ".e2m1x2" | ".ue8m0x2" => (Kind::Bits, 16),
        ".e4m3x4" | ".e5m2x4" => (Kind::Bits, 32),
        _ => return None,
    })
}

pub fn is_type(t: &str) -> bool {
    type_info(t).is_some()
}

/// The families on which ptxas 13.5 ignores a `.pred` written beside the
/// instruction's type (`add.pred.f32`, `setp.ge.s32.pred` assemble as if it
/// were not there; `mov.u32.pred`, `and.b32.pred`, `ld.global.u32.pred` are
/// `Unexpected instruction types`). `mul` ignores it only without
/// `.lo`/`.hi`/`.wide` (measured on one spelling of every family).
pub fn ignores_extra_pred(opcode: &str, mods: &[String]) -> bool {
    let has = |m: &str| mods.iter().any(|x| x == m);
    match opcode {
        "abs" | "add" | "sub" | "atom" | "red" | "cos" | "sin" | "ex2" | "lg2" | "tanh"
        | "rsqrt" | "rcp" | "sqrt" | "fma" | "max" | "min" | "neg" | "cvt" | "setp" => true,
        "mul" => !(has(".lo") || has(".hi") || has(".wide")),
        _ => false,
    }
}

/// Whether a variable may be declared with type `t`: `Some(true)` for the
/// storage types, `Some(false)` for the 8-bit float, `.f32x2` and packed
/// 16-bit integer types (`Type .e4m3 may only be used as an instruction
/// type`, and so `.u16x2`), `None` for the
/// rest (`.bf16`, `.tf32` and unknown words are syntax errors to ptxas
/// 13.5 in any declaration).
pub fn declared_type(t: &str) -> Option<bool> {
    match t {
        ".bf16" | ".bf16x2" | ".tf32" => None,
        ".texref" | ".samplerref" | ".surfref" => Some(true),
        ".f32x2" | ".u16x2" | ".s16x2" => Some(false),
        _ => match type_info(t)? {
            (Kind::Bits, 8 | 16 | 32) if t.starts_with(".e") || t.starts_with(".ue") => Some(false),
            _ => Some(true),
        },
    }
}

/// How a register may relate to the instruction's type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Same width (ALU operands).
    Exact,
    /// The register may be wider, if it is not a float (`cvt` operands).
    Wider,
    /// Load destinations and store sources: any register at least as wide
    /// as the type, a float one only for a `.bN` type (`ld.global.b16 %f1`
    /// and `st.b32 [a], %fd1` assemble, `st.u16 [a], %f1` does not).
    Memory,
}

/// The relaxed rules ptxas applies: `.bN` fits every type of its width;
/// `.u`/`.s` mix; `.f` never mixes with `.u`/`.s`; predicates only with
/// predicates; loads may widen into and stores may truncate from a wider
/// integer or bit register.
pub fn fits(inst: (Kind, u32), reg: (Kind, u32), fit: Fit) -> bool {
    let (ik, iw) = inst;
    let (rk, rw) = reg;
    if ik == Kind::Pred || rk == Kind::Pred {
        return ik == rk;
    }
    // ptxas 13.5: a half-precision operation takes bit registers or
    // registers of its own type, never `.f32` or integer ones
    // (`add.f16x2 %f1, ...` is `Arguments mismatch`); a half register
    // passes as bits, and as a 32-bit integer (`add.u32 %r1, %h2x2, ...`
    // assembles, `add.u16` with an `.f16` register does not).
    if ik == Kind::Half || rk == Kind::Half {
        let ok = match (ik, rk) {
            (Kind::Half, Kind::Half | Kind::Bits) | (Kind::Bits, Kind::Half) => true,
            (Kind::Unsigned | Kind::Signed, Kind::Half) => rw == 32,
            _ => false,
        };
        return ok && (iw == rw || (fit != Fit::Exact && rw > iw && rk != Kind::Half));
    }
    let kinds_ok = ik == Kind::Bits
        || rk == Kind::Bits
        || ik == rk
        || (matches!(ik, Kind::Unsigned | Kind::Signed)
            && matches!(rk, Kind::Unsigned | Kind::Signed));
    if !kinds_ok {
        return false;
    }
    match fit {
        Fit::Exact => iw == rw,
        Fit::Wider => iw == rw || (rw > iw && rk != Kind::Float),
        Fit::Memory => iw == rw || (rw > iw && (rk != Kind::Float || ik == Kind::Bits)),
    }
}

/// A special register's width, whether it is a 4-vector (`%tid`), and the
/// feature it needs, if any.
pub struct Special {
    pub ty: (Kind, u32),
    pub vector: bool,
    pub needs: Option<Need>,
}

/// Looks up a special register by its base name (`%tid`, `%clock64`).
pub fn special(name: &str) -> Option<Special> {
    let u32t = (Kind::Unsigned, 32);
    let u64t = (Kind::Unsigned, 64);
    let cluster = Some(Need::new(90, (7, 8)));
    let s = |ty, vector, needs| Some(Special { ty, vector, needs });
    match name {
        "%tid" | "%ntid" | "%ctaid" | "%nctaid" => s(u32t, true, None),
        "%clusterid" | "%nclusterid" | "%cluster_ctaid" | "%cluster_nctaid" => {
            s(u32t, true, cluster)
        }
        "%cluster_ctarank" | "%cluster_nctarank" => s(u32t, false, cluster),
        "%is_explicit_cluster" => s((Kind::Pred, 1), false, cluster),
        "%laneid" | "%warpid" | "%nwarpid" | "%smid" | "%nsmid" | "%lanemask_eq"
        | "%lanemask_le" | "%lanemask_lt" | "%lanemask_ge" | "%lanemask_gt" | "%clock"
        | "%clock_hi" | "%globaltimer_lo" | "%globaltimer_hi" | "%dynamic_smem_size"
        | "%total_smem_size" | "%aggr_smem_size" | "%warpsz" => s(u32t, false, None),
        "%clock64" | "%globaltimer" | "%gridid" | "%current_graph_exec" => s(u64t, false, None),
        _ if name.starts_with("%envreg") || name.starts_with("%pm") => {
            let wide = name.ends_with("_64");
            s(if wide { u64t } else { u32t }, false, None)
        }
        _ => None,
    }
}

/// What a feature needs: a minimum SM number, optionally an exact set of
/// architecture-specific targets, and a minimum `.version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    pub sm: u32,
    /// When set, only these targets have the feature (`wgmma`: `sm_90a`).
    pub only: Option<&'static [&'static str]>,
    pub version: Version,
}

impl Need {
    pub const fn new(sm: u32, version: Version) -> Need {
        Need {
            sm,
            only: None,
            version,
        }
    }
    pub const fn only(list: &'static [&'static str], version: Version) -> Need {
        Need {
            sm: 0,
            only: Some(list),
            version,
        }
    }
    /// Whether `t` has the feature (the `.version` is checked separately).
    pub fn target_ok(&self, t: &Target) -> bool {
        match self.only {
            Some(list) => list.contains(&t.name().as_str()),
            None => t.sm >= self.sm,
        }
    }
}

pub const WGMMA_TARGETS: &[&str] = &["sm_90a"];
/// ptxas 13.5 knows no sm_101 (CUDA 13 renamed it sm_110).
pub const TCGEN05_TARGETS: &[&str] = &[
    "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_110a", "sm_110f",
];
/// Every architecture- or family-specific target from sm_90a on, the
/// consumer Blackwells (sm_120a, sm_121a) included.
pub const SETMAXNREG_TARGETS: &[&str] = &[
    "sm_90a", "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_110a", "sm_110f", "sm_120a",
    "sm_120f", "sm_121a", "sm_121f",
];
/// `tensormap.replace`: the same targets as `setmaxnreg`.
pub const TENSORMAP_TARGETS: &[&str] = SETMAXNREG_TARGETS;
/// The 8-bit `ldmatrix`/`stmatrix` shapes (`.m16n16`, `.m16n8`, `.m8n16`).
pub const MATRIX_B8_TARGETS: &[&str] = &[
    "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_110a", "sm_110f", "sm_120a", "sm_120f",
    "sm_121a", "sm_121f",
];
/// `redux.sync` on `.f32`.
pub const REDUX_F32_TARGETS: &[&str] = &["sm_100a", "sm_100f", "sm_103a", "sm_103f"];

/// Directive words that end an instruction for ptxas's parser: written as a
/// modifier (`add.entry.s32`, `ld.align.u32`), each is a syntax error on
/// every instruction (measured on every family of kernelc's and nvcc's PTX).
pub const DIRECTIVE_WORDS: &[&str] = &[
    ".address_size",
    ".align",
    ".attribute",
    ".blocksareclusters",
    ".callprototype",
    ".common",
    ".entry",
    ".explicitcluster",
    ".extern",
    ".file",
    ".func",
    ".loc",
    ".maxclusterrank",
    ".maxnctapersm",
    ".maxnreg",
    ".maxntid",
    ".minnctapersm",
    ".noreturn",
    ".pragma",
    ".ptr",
    ".reg",
    ".reqnctapercluster",
    ".reqntid",
    ".section",
    ".target",
    ".unified",
    ".visible",
];

/// Whether an instruction takes no type at all: `ret.u8`, `bra.u32`,
/// `membar.gl.u32`, `bar.sync.u32`, `elect.sync.b32`, `isspacep.global.u64`
/// are `Unexpected instruction types` to ptxas 13.5 (measured on each
/// family). `bar.red` has a type (`bar.red.popc.u32`), and so does the rest
/// of `wgmma` and `cp.async`.
pub fn untyped(opcode: &str, mods: &[String]) -> bool {
    let has = |m: &str| mods.iter().any(|x| x == m);
    match opcode {
        "ret" | "exit" | "bra" | "brx" | "call" | "membar" | "fence" | "trap" | "brkpt"
        | "griddepcontrol" | "pmevent" | "elect" | "isspacep" => true,
        "bar" | "barrier" => !has(".red"),
        "wgmma" => has(".fence") || has(".commit_group") || has(".wait_group"),
        "cp" => has(".commit_group") || has(".wait_group") || has(".wait_all"),
        _ => false,
    }
}

/// Modifiers that ptxas 13.5 refuses when written twice on one instruction
/// (`abs.ftz.ftz`: `Duplicate .ftz modifier`, `membar.gl.gl`: `Multiple
/// scope modifiers specified`, `shf.l.wrap.wrap`: `Multiple clamp
/// modifiers`, `griddepcontrol.wait.wait`, ...; measured one by one). Not every repeat is an error:
/// `add.sat.sat`, `div.approx.approx`, `add.cc.cc`, `max.NaN.NaN` and
/// `bar.sync.sync` assemble, and `.row.row` is a matrix layout pair.
pub const REFUSED_TWICE: &[&str] = &[
    ".to",
    ".async",
    ".bulk",
    ".cta_group::1",
    ".ftz",
    ".full",
    ".lo",
    ".hi",
    ".wide",
    ".nc",
    ".volatile",
    ".aligned",
    ".up",
    ".down",
    ".bfly",
    ".idx",
    ".all",
    ".any",
    ".ballot",
    ".wb",
    ".wt",
    ".ca",
    ".cg",
    ".cs",
    ".lu",
    ".cv",
    ".add",
    ".min",
    ".max",
    ".inc",
    ".dec",
    ".and",
    ".or",
    ".xor",
    ".exch",
    ".cas",
    ".gl",
    ".cta",
    ".gpu",
    ".sys",
    ".cluster",
    ".sc",
    ".l",
    ".r",
    ".wrap",
    ".clamp",
    ".expect_tx",
    ".x4",
    ".wait",
    ".launch_dependents",
];

/// The float and integer roundings: ptxas 13.5 takes at most one of them
/// on an instruction, the same one twice included (`add.rn.rn.f32`,
/// `cvt.rni.rzi.f32.f32`: `Multiple rounding modifiers specified`).
pub const ROUNDINGS: &[&str] = &[
    ".rn", ".rz", ".rm", ".rp", ".rna", ".rs", ".rni", ".rzi", ".rmi", ".rpi",
];

/// The memory-ordering qualifiers of `ld`/`st`, at most one per access
/// (`.volatile` counts as `.relaxed.sys`, so `ld.volatile.relaxed.gpu` is
/// `Duplicate .relaxed modifier`).
pub const MEMORY_ORDERS: &[&str] = &[".weak", ".volatile", ".relaxed", ".acquire", ".release"];

/// The scopes of a memory order, atomic or fence.
pub const SCOPES: &[&str] = &[".cta", ".cluster", ".gpu", ".sys"];

/// The cache operators of `ld` and of `st`.
pub const LOAD_CACHE_OPS: &[&str] = &[".ca", ".cg", ".cs", ".lu", ".cv"];
pub const STORE_CACHE_OPS: &[&str] = &[".wb", ".cg", ".cs", ".wt"];

/// Whether `ld`/`st` may carry memory-ordering qualifier `order` on
/// `space` (with its dot; empty for generic). ptxas 13.5, every target and
/// `.version`: `.relaxed`, `.acquire`, `.release` and `.mmio` only where
/// other threads can see the memory (`Modifier '.relaxed' cannot be applied
/// to '.local' space`, and to `.const` and `.param`); `.volatile` also on
/// `.local` (from PTX ISA 9.1, [`VOLATILE_LOCAL`]) but never on `.const` or
/// `.param`; `.mmio` only on global memory (generic or `.global`); `.weak`
/// everywhere.
pub fn order_allows_space(order: &str, space: &str) -> bool {
    let private = matches!(space, ".local" | ".const" | ".param");
    match order {
        ".weak" => true,
        ".volatile" => !matches!(space, ".const" | ".param"),
        ".mmio" => matches!(space, "" | ".global"),
        _ => !private,
    }
}

/// `ld.volatile.local`/`st.volatile.local`: ptxas 13.5 takes them from PTX
/// ISA 9.1 on every target (`Feature 'ld/st with .local.volatile' requires
/// PTX ISA .version 9.1 or later`, swept over sm_75..sm_121, every type and
/// vector width). kernelc's backend keeps the same fact in
/// `target::VOLATILE_LOCAL_VERSION`.
pub const VOLATILE_LOCAL: Need = Need::new(0, (9, 1));

/// `.mmio` loads and stores (`ld.mmio.relaxed.sys`): PTX ISA 8.2 on every
/// target (ptxas 13.5: `Feature '.mmio' requires PTX ISA .version 8.2`);
/// `.mmio.acquire` needs 9.3.
pub const MMIO: Need = Need::new(0, (8, 2));
pub const MMIO_ACQUIRE: Need = Need::new(0, (9, 3));

/// Loads and stores of 256 bits (`.v8.b32`, `.v4.b64`): sm_100 and PTX ISA
/// 8.8, in global memory only (`global state space expected for feature
/// '256 bit wide load/store'` on every other space, generic excepted).
pub const WIDE_256: Need = Need::new(100, (8, 8));

/// The most static shared memory one kernel may declare (ptxas 13.5: `uses
/// too much shared data`), measured by bisection on each target: 48 KiB on
/// the plain and `f` targets, the whole opt-in shared memory on the `a`
/// ones (227 KiB, 99 KiB on sm_120a and sm_121a).
pub fn static_shared_limit(t: &Target) -> u64 {
    match (t.suffix.as_str(), t.sm) {
        ("a", 120 | 121) => 0x18c00,
        ("a", _) => 0x38c00,
        _ => 0xc000,
    }
}

/// The state spaces an address may name, with their dots.
pub fn is_space(m: &str) -> bool {
    matches!(
        m,
        ".global"
            | ".shared"
            | ".shared::cta"
            | ".shared::cluster"
            | ".local"
            | ".const"
            | ".param"
            | ".param::entry"
            | ".param::func"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relaxed_type_rules() {
        let b32 = type_info(".b32").unwrap();
        let f32 = type_info(".f32").unwrap();
        let u32 = type_info(".u32").unwrap();
        let s32 = type_info(".s32").unwrap();
        let u8 = type_info(".u8").unwrap();
        let b64 = type_info(".b64").unwrap();
        assert!(fits(f32, b32, Fit::Exact));
        assert!(fits(b32, f32, Fit::Exact));
        assert!(fits(s32, u32, Fit::Exact));
        assert!(!fits(u32, f32, Fit::Exact));
        assert!(fits(u8, b32, Fit::Wider));
        assert!(!fits(b64, b32, Fit::Wider));
        assert!(!fits(u32, b64, Fit::Exact));
    }

    #[test]
    fn target_floors() {
        let f = |s: &str| target_floor(&Target::parse(s).unwrap());
        assert_eq!(f("sm_90"), Some((7, 8)));
        assert_eq!(f("sm_90a"), Some((8, 0)));
        assert_eq!(f("sm_100f"), Some((8, 8)));
        assert_eq!(f("sm_70"), None);
        assert!(Target::parse("sm_90x").is_none());
    }
}
