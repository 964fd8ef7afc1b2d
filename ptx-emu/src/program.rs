//! The parsed module made ready to run: every name resolved once, before the
//! first thread starts, so execution never looks a string up and an unknown
//! register or label is a load-time error rather than a fault in thread 513.
//!
//! Each function's body is flattened into one instruction list; nested
//! `{ }` blocks only scope names (a `.reg` in a block shadows an outer one
//! and gets its own slot), labels become instruction indices, and the
//! `.local` and `.param` variables a body declares become *frame variables*
//! that each call allocates afresh (a `.param` in a call scope is where the
//! caller puts an argument).

use crate::decode::{self, Callee, Mods, Op, Parts};
use crate::error::ResolveError;
use crate::memory::Space;
use ptx_validate::ast::{self, FuncKind, Item, OpKind, Stmt};
use ptx_validate::lexer::{lex, FloatLit, Pos, Tok};
use std::collections::{HashMap, HashSet};

/// A PTX type as an instruction modifier names it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Ty {
    pub kind: Kind,
    pub bits: u32,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `.bN`: untyped bits.
    B,
    U,
    S,
    F,
    /// `.bf16`.
    BF,
    Pred,
}

impl Ty {
    // The types the engine names in its own code (the rest come from the
    // instructions' modifiers).
    pub const PRED: Ty = Ty {
        kind: Kind::Pred,
        bits: 1,
    };
    pub const B16: Ty = Ty {
        kind: Kind::B,
        bits: 16,
    };
    pub const B32: Ty = Ty {
        kind: Kind::B,
        bits: 32,
    };
    pub const B64: Ty = Ty {
        kind: Kind::B,
        bits: 64,
    };
    pub const U32: Ty = Ty {
        kind: Kind::U,
        bits: 32,
    };
    pub const S32: Ty = Ty {
        kind: Kind::S,
        bits: 32,
    };
    pub const F32: Ty = Ty {
        kind: Kind::F,
        bits: 32,
    };

    pub fn parse(s: &str) -> Option<Ty> {
        let (kind, bits) = match s {
            ".pred" => (Kind::Pred, 1),
            ".bf16" => (Kind::BF, 16),
            _ => {
                let body = s.strip_prefix('.')?;
                let (k, n) = body.split_at(1);
                let kind = match k {
                    "b" => Kind::B,
                    "u" => Kind::U,
                    "s" => Kind::S,
                    "f" => Kind::F,
                    _ => return None,
                };
                let bits: u32 = n.parse().ok()?;
                if !matches!(bits, 8 | 16 | 32 | 64 | 128) {
                    return None;
                }
                (kind, bits)
            }
        };
        Some(Ty { kind, bits })
    }
    pub fn bytes(self) -> u64 {
        u64::from(self.bits.div_ceil(8))
    }
    pub fn is_float(self) -> bool {
        matches!(self.kind, Kind::F | Kind::BF)
    }
    pub fn is_signed(self) -> bool {
        self.kind == Kind::S
    }
}

/// A special register.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Sreg {
    Tid(usize),
    Ntid(usize),
    Ctaid(usize),
    Nctaid(usize),
    LaneId,
    WarpId,
    NWarpId,
    Clock,
    Clock64,
    LaneMask(&'static str),
    DynSmem,
    TotalSmem,
    /// `%cluster_ctarank`: the block's rank in its cluster.
    ClusterCtaRank,
    /// `%cluster_nctarank`: the blocks of a cluster.
    ClusterNCtaRank,
    /// `%clusterid`: the cluster's index in the grid of clusters.
    ClusterId(usize),
    /// `%nclusterid`: the grid of clusters.
    NClusterId(usize),
    /// `%cluster_ctaid`: the block's index in its cluster.
    ClusterCtaid(usize),
    /// `%cluster_nctaid`: the cluster's shape.
    ClusterNCtaid(usize),
    /// `%envreg0`..`%envreg31`: what the driver sets for the launch
    /// (`%envreg1`/`%envreg2`: a cooperative launch's grid workspace).
    EnvReg(u8),
    /// `%smid`, `%gridid` and the like: a constant.
    Const(u64),
}

/// What a name in an operand refers to.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Sym {
    /// A module variable (or a function's `.shared`/`.global` one).
    Var(usize),
    /// A frame variable of the running function.
    Frame(usize),
    /// A kernel parameter.
    KParam(usize),
}

/// A resolved operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(usize),
    /// `!%p` (a negated predicate source).
    NotReg(usize),
    Imm(i128),
    FImm(FloatLit),
    Special(Sreg),
    /// The address of a symbol, plus an offset.
    Sym(Sym, i128),
    /// `[base+offset]`.
    Addr(Option<Box<Operand>>, i128),
    Vector(Vec<Operand>),
    List(Vec<Operand>),
    Pair(Box<Operand>, Box<Operand>),
    Label(usize),
    /// A function: the callee of a direct call, or, as a value, its
    /// address (which only an indirect call may use).
    Func(usize),
    /// The `.callprototype` label of an indirect call.
    Prototype,
    Sink,
    /// `[%rd, {x, y}]`: a texture or surface object and its coordinates
    /// (`tex`, `suld`, `sust`); also a TMA copy's tensor-map address and
    /// its box's coordinates (`cp.async.bulk.tensor`).
    Handle(Box<Operand>, Vec<Operand>),
}

/// One instruction, resolved and decoded.
#[derive(Clone, Debug)]
pub struct Inst {
    /// `@%p` or `@!%p`: (negated, the predicate register).
    pub guard: Option<(bool, usize)>,
    /// What the instruction does.
    pub op: Op,
    /// The operands, in the order the PTX wrote them.
    pub args: Vec<Operand>,
    pub pos: Pos,
    /// Byte offset just past the instruction's `;`.
    pub end: usize,
    /// `opcode.mod1.mod2`, as written (for messages).
    pub name: String,
}

/// A variable with storage: module-level, or a function's frame variable.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub space: Space,
    pub size: u64,
    /// `.extern .shared x[]`: dynamic shared memory.
    pub dynamic: bool,
    pub init: Vec<u8>,
    /// Its `.align` (1 when not written).
    pub align: u64,
    /// The initializer's entries that are a variable's generic address
    /// (`generic(arr)+4`), known only once the launch places the
    /// variables.
    pub relocs: Vec<Reloc>,
}

/// An initializer entry `generic(symbol)+addend` at byte `offset`.
#[derive(Clone, Debug)]
pub struct Reloc {
    pub offset: u64,
    pub symbol: String,
    pub addend: u64,
}

/// A register slot: its name and width (for masking writes).
#[derive(Clone, Debug)]
pub struct Reg {
    pub name: String,
    pub ty: Ty,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub kind: FuncKind,
    pub pos: Pos,
    /// Kernel parameters (entries only): name, type, byte size.
    pub kparams: Vec<(String, Ty, u64)>,
    /// Return then argument `.param`s of a `.func`: the first frame variables.
    pub n_rets: usize,
    pub n_params: usize,
    pub regs: Vec<Reg>,
    pub frame_vars: Vec<Var>,
    pub insts: Vec<Inst>,
    pub has_body: bool,
    /// The first instruction of the body that did not decode, located: a
    /// kernel that can reach this function does not run.
    pub load_error: Option<crate::LoadError>,
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub vars: Vec<Var>,
    pub funcs: Vec<Func>,
}

impl Program {
    pub fn func_by_name(&self, name: &str) -> Option<usize> {
        self.funcs.iter().position(|f| f.name == name)
    }

    /// The functions the kernel `entry` can reach through calls, the kernel
    /// itself first, each once: those it calls, and those whose address it
    /// takes (an indirect call may reach them).
    pub fn reachable(&self, entry: usize) -> Vec<usize> {
        let mut seen = vec![false; self.funcs.len()];
        let mut order = Vec::new();
        let mut stack = vec![entry];
        while let Some(f) = stack.pop() {
            match seen.get_mut(f) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            order.push(f);
            let named = self.funcs[f]
                .insts
                .iter()
                .flat_map(|i| &i.args)
                .filter_map(|a| match a {
                    Operand::Func(f) => Some(*f),
                    _ => None,
                });
            stack.extend(named);
        }
        order
    }

    /// The load error of the first function that the kernel `entry` can
    /// reach and that holds an instruction the emulator cannot run.
    /// Functions no call reaches do not stop a launch.
    pub fn reachable_load_error(&self, entry: usize) -> Option<&crate::LoadError> {
        self.reachable(entry)
            .into_iter()
            .find_map(|f| self.funcs[f].load_error.as_ref())
    }

    /// Whether code the kernel `entry` can reach reads a `%envreg`: what
    /// `cooperative_groups::this_grid()` compiles to, so the kernel needs
    /// a cooperative launch (every block resident, a grid workspace).
    pub fn reads_envreg(&self, entry: usize) -> bool {
        self.reachable(entry).into_iter().any(|f| {
            self.funcs[f]
                .insts
                .iter()
                .flat_map(|i| &i.args)
                .any(|a| matches!(a, Operand::Special(Sreg::EnvReg(_))))
        })
    }
}

fn special(name: &str, comp: Option<&str>) -> Option<Sreg> {
    let dim = || match comp {
        Some(".y") => 1,
        Some(".z") => 2,
        _ => 0,
    };
    Some(match name {
        "%tid" => Sreg::Tid(dim()),
        "%ntid" => Sreg::Ntid(dim()),
        "%ctaid" => Sreg::Ctaid(dim()),
        "%nctaid" => Sreg::Nctaid(dim()),
        "%laneid" => Sreg::LaneId,
        "%warpid" => Sreg::WarpId,
        "%nwarpid" => Sreg::NWarpId,
        "%clock" => Sreg::Clock,
        "%clock64" | "%globaltimer" | "%globaltimer_lo" => Sreg::Clock64,
        "%lanemask_eq" => Sreg::LaneMask("eq"),
        "%lanemask_lt" => Sreg::LaneMask("lt"),
        "%lanemask_le" => Sreg::LaneMask("le"),
        "%lanemask_gt" => Sreg::LaneMask("gt"),
        "%lanemask_ge" => Sreg::LaneMask("ge"),
        "%dynamic_smem_size" => Sreg::DynSmem,
        "%total_smem_size" => Sreg::TotalSmem,
        "%smid" | "%gridid" | "%globaltimer_hi" => Sreg::Const(0),
        _ if name.starts_with("%envreg") => {
            let n: u8 = name["%envreg".len()..].parse().ok()?;
            if n >= 32 {
                return None;
            }
            Sreg::EnvReg(n)
        }
        "%nsmid" => Sreg::Const(1),
        // The kernel's cluster shape (`.reqnctapercluster`, else one block).
        "%cluster_ctarank" => Sreg::ClusterCtaRank,
        "%cluster_nctarank" => Sreg::ClusterNCtaRank,
        "%clusterid" => Sreg::ClusterId(dim()),
        "%nclusterid" => Sreg::NClusterId(dim()),
        "%cluster_ctaid" => Sreg::ClusterCtaid(dim()),
        "%cluster_nctaid" => Sreg::ClusterNCtaid(dim()),
        // Launches are never cluster launches of the driver's
        // `cudaLaunchKernelEx` kind here.
        "%is_explicit_cluster" => Sreg::Const(0),
        // PTX's predefined constant.
        "WARP_SZ" => Sreg::Const(32),
        _ => return None,
    })
}

/// Bytes of one element of a declared type (`.v4 .f32` counts 16).
fn elem_bytes(d: &ast::VarDecl) -> Result<u64, ResolveError> {
    let ty = Ty::parse(&d.ty).ok_or_else(|| ResolveError::VariableType { ty: d.ty.clone() })?;
    Ok(ty.bytes() * u64::from(d.vector.unwrap_or(1)))
}

/// Reads the initializer after a declared name from the source tokens (the
/// parser skips initializers; the emulator needs their bytes). A function's
/// name stands for its address (a table of function pointers);
/// `generic(var)+N` entries come back as relocations, their bytes zero.
fn initializer(
    src: &str,
    name_pos: Pos,
    ty: Ty,
    size: u64,
    funcs: &HashMap<String, usize>,
) -> Result<(Vec<u8>, Vec<Reloc>), ResolveError> {
    let toks = lex(src);
    let none = || Ok((vec![0; size as usize], Vec::new()));
    let Some(mut i) = toks.iter().position(|t| t.pos.offset == name_pos.offset) else {
        return none();
    };
    while i < toks.len() && toks[i].tok != Tok::Punct('=') {
        if matches!(toks[i].tok, Tok::Punct(';') | Tok::Eof) {
            return none();
        }
        i += 1;
    }
    let mut relocs = Vec::new();
    let mut out = Vec::new();
    let mut neg = false;
    i += 1;
    while i < toks.len() {
        match &toks[i].tok {
            Tok::Punct(';') | Tok::Eof => break,
            Tok::Punct(',') if out.len() as u64 >= size && size > 0 => break,
            Tok::Punct('-') => neg = true,
            Tok::Int(v) => {
                let v = if neg { -v } else { *v };
                neg = false;
                let bits = if ty.is_float() {
                    float_bits(FloatLit::Decimal(v as f64), ty)
                } else {
                    v as u64
                };
                out.extend_from_slice(&bits.to_le_bytes()[..ty.bytes() as usize]);
            }
            Tok::Float(f) => {
                let f = match (*f, neg) {
                    (FloatLit::Decimal(x), true) => FloatLit::Decimal(-x),
                    (f, _) => f,
                };
                neg = false;
                out.extend_from_slice(&float_bits(f, ty).to_le_bytes()[..ty.bytes() as usize]);
            }
            Tok::Ident(n) if funcs.contains_key(n) => {
                let addr = crate::memory::code_addr(funcs[n]);
                out.extend_from_slice(&addr.to_le_bytes()[..ty.bytes().min(8) as usize]);
            }
            Tok::Ident(n) if n == "generic" && ty.bytes() == 8 => {
                let (reloc, next) = generic_entry(&toks, i, out.len() as u64)?;
                relocs.push(reloc);
                out.extend_from_slice(&[0; 8]);
                i = next;
                continue;
            }
            Tok::Ident(n) => return Err(ResolveError::InitializerAddress { name: n.clone() }),
            _ => {}
        }
        i += 1;
    }
    out.resize(size.max(out.len() as u64) as usize, 0);
    out.truncate(size as usize);
    relocs.retain(|r| r.offset + 8 <= size);
    Ok((out, relocs))
}

/// Reads `generic ( sym ) [+ N]` from token `i` on: the relocation of the
/// entry at `offset`, and the index of the token after it.
fn generic_entry(
    toks: &[ptx_validate::lexer::Token],
    i: usize,
    offset: u64,
) -> Result<(Reloc, usize), ResolveError> {
    let tok = |k: usize| toks.get(k).map(|t| &t.tok);
    let (Some(Tok::Punct('(')), Some(Tok::Ident(symbol)), Some(Tok::Punct(')'))) =
        (tok(i + 1), tok(i + 2), tok(i + 3))
    else {
        return Err(ResolveError::GenericEntry);
    };
    let (addend, next) = match (tok(i + 4), tok(i + 5)) {
        (Some(Tok::Punct('+')), Some(Tok::Int(n))) => (*n as u64, i + 6),
        _ => (0, i + 4),
    };
    let reloc = Reloc {
        offset,
        symbol: symbol.clone(),
        addend,
    };
    Ok((reloc, next))
}

/// The bits of a float literal as a value of `ty` (an integer type keeps
/// the literal's own bits: `mov.b32 %r, 0f3F800000`).
pub fn float_bits(f: FloatLit, ty: Ty) -> u64 {
    match (f, ty.bits) {
        (FloatLit::F32Bits(b), 64) if ty.is_float() => f64::from(f32::from_bits(b)).to_bits(),
        (FloatLit::F32Bits(b), _) => u64::from(b),
        (FloatLit::F64Bits(b), 32) if ty.is_float() => {
            u64::from((f64::from_bits(b) as f32).to_bits())
        }
        (FloatLit::F64Bits(b), _) => b,
        (FloatLit::Decimal(x), 64) => x.to_bits(),
        (FloatLit::Decimal(x), _) => u64::from((x as f32).to_bits()),
    }
}

fn var_of(
    src: &str,
    d: &ast::VarDecl,
    n: &ast::DeclName,
    funcs: &HashMap<String, usize>,
) -> Result<Var, ResolveError> {
    let space = Space::from_mod(&d.space).ok_or_else(|| ResolveError::VariableSpace {
        space: d.space.clone(),
    })?;
    let count: u64 = n.array.iter().map(|a| a.unwrap_or(0)).product();
    let elem = elem_bytes(d)?;
    let size = if n.array.is_empty() {
        elem
    } else {
        elem * count
    };
    let dynamic = d.linkage.iter().any(|l| l == ".extern") && n.array.contains(&None);
    let (init, relocs) = if n.has_init {
        let ty = Ty::parse(&d.ty).unwrap_or(Ty {
            kind: Kind::B,
            bits: 8,
        });
        initializer(src, n.pos, ty, size, funcs)?
    } else {
        (vec![0; size as usize], Vec::new())
    };
    Ok(Var {
        name: n.name.clone(),
        space,
        size,
        dynamic,
        init,
        align: d.align.and_then(|a| u64::try_from(a).ok()).unwrap_or(1),
        relocs,
    })
}

fn param_size(p: &ast::Param) -> Result<u64, ResolveError> {
    let ty = param_type(p)?;
    Ok(ty.bytes() * p.array.unwrap_or(1).max(1))
}

fn param_type(p: &ast::Param) -> Result<Ty, ResolveError> {
    Ty::parse(&p.ty).ok_or_else(|| ResolveError::ParameterType { ty: p.ty.clone() })
}

/// Scoped names while a body is compiled.
struct Scope<'a> {
    src: &'a str,
    module_names: &'a HashMap<String, Sym>,
    funcs: &'a HashMap<String, usize>,
    /// What each function's calls need to know of it (by index).
    callees: &'a [Callee],
    stack: Vec<HashMap<String, Sym>>,
    regs: Vec<HashMap<String, usize>>,
    labels: HashMap<String, usize>,
    /// The names of the `.callprototype` declarations in scope.
    prototypes: HashSet<String>,
    func: Func,
    vars: &'a mut Vec<Var>,
}

impl Scope<'_> {
    fn reg(&self, name: &str) -> Option<usize> {
        self.regs.iter().rev().find_map(|m| m.get(name).copied())
    }
    fn sym(&self, name: &str) -> Option<Sym> {
        self.stack
            .iter()
            .rev()
            .find_map(|m| m.get(name).copied())
            .or_else(|| self.module_names.get(name).copied())
    }

    fn declare(&mut self, d: &ast::VarDecl) -> Result<(), ResolveError> {
        for n in &d.names {
            if d.space == ".reg" {
                let ty = Ty::parse(&d.ty)
                    .ok_or_else(|| ResolveError::RegisterType { ty: d.ty.clone() })?;
                let names: Vec<String> = match n.range {
                    Some(k) => (0..k).map(|i| format!("{}{i}", n.name)).collect(),
                    None => vec![n.name.clone()],
                };
                for name in names {
                    let slot = self.func.regs.len();
                    self.func.regs.push(Reg {
                        name: name.clone(),
                        ty,
                    });
                    self.regs.last_mut().expect("a scope").insert(name, slot);
                }
                continue;
            }
            let var = var_of(self.src, d, n, self.funcs)?;
            let sym = match var.space {
                Space::Local | Space::Param => {
                    self.func.frame_vars.push(var);
                    Sym::Frame(self.func.frame_vars.len() - 1)
                }
                _ => {
                    self.vars.push(var);
                    Sym::Var(self.vars.len() - 1)
                }
            };
            self.stack
                .last_mut()
                .expect("a scope")
                .insert(n.name.clone(), sym);
        }
        Ok(())
    }

    fn operand(&self, o: &ast::Operand) -> Result<Operand, ResolveError> {
        let line = o.pos.line;
        Ok(match &o.kind {
            OpKind::Name {
                name,
                comp,
                negated,
            } => {
                if let Some(r) = self.reg(name) {
                    if *negated {
                        Operand::NotReg(r)
                    } else {
                        Operand::Reg(r)
                    }
                } else if let Some(s) = special(name, comp.as_deref()) {
                    Operand::Special(s)
                } else if let Some(&l) = self.labels.get(name) {
                    Operand::Label(l)
                } else if let Some(s) = self.sym(name) {
                    Operand::Sym(s, 0)
                } else if let Some(&f) = self.funcs.get(name) {
                    Operand::Func(f)
                } else if self.prototypes.contains(name) {
                    Operand::Prototype
                } else {
                    return Err(ResolveError::UnknownName {
                        line,
                        name: name.clone(),
                    });
                }
            }
            OpKind::Int(v) => Operand::Imm(*v),
            OpKind::Float(f) => Operand::FImm(*f),
            OpKind::Addr {
                base,
                offset,
                extra,
            } => {
                let base = match base {
                    None => None,
                    Some(b) => Some(Box::new(self.operand(&ast::Operand {
                        kind: OpKind::Name {
                            name: b.clone(),
                            comp: None,
                            negated: false,
                        },
                        pos: o.pos,
                    })?)),
                };
                if !extra.is_empty() {
                    // The coordinates, written as one `{...}` vector.
                    let mut coords = Vec::new();
                    for i in extra {
                        match self.operand(i)? {
                            Operand::Vector(items) => coords.extend(items),
                            one => coords.push(one),
                        }
                    }
                    let base = base.ok_or(ResolveError::ObjectWithoutHandle { line })?;
                    return Ok(Operand::Handle(base, coords));
                }
                Operand::Addr(base, *offset)
            }
            OpKind::Vector(items) => Operand::Vector(
                items
                    .iter()
                    .map(|i| self.operand(i))
                    .collect::<Result<_, _>>()?,
            ),
            OpKind::List(items) => Operand::List(
                items
                    .iter()
                    .map(|i| self.operand(i))
                    .collect::<Result<_, _>>()?,
            ),
            OpKind::Pair(a, b) => {
                Operand::Pair(Box::new(self.operand(a)?), Box::new(self.operand(b)?))
            }
            OpKind::SymOffset(name, off) => match self.sym(name) {
                Some(s) => Operand::Sym(s, *off),
                None => {
                    return Err(ResolveError::UnknownSymbol {
                        line,
                        name: name.clone(),
                    })
                }
            },
            OpKind::Sink => Operand::Sink,
            OpKind::Element { name, .. } => {
                return Err(ResolveError::ElementOperand {
                    line,
                    name: name.clone(),
                })
            }
        })
    }

    /// Decodes an instruction. One that does not decode becomes
    /// [`Op::Invalid`], and the function keeps the first such error.
    fn decode(&mut self, i: &ast::Inst, args: &[Operand], name: &str) -> Op {
        let parts = Parts {
            opcode: &i.opcode,
            mods: Mods(&i.mods),
            args,
            name,
            funcs: self.callees,
        };
        // An object with coordinates: a texture or surface, or a TMA copy's
        // tensor map (`cp.async.bulk.tensor`).
        let object = args.iter().any(|a| matches!(a, Operand::Handle(..)));
        let takes_object = matches!(i.opcode.as_str(), "tex" | "suld" | "sust")
            || i.opcode == "cp" && i.mods.iter().any(|m| m == ".tensor");
        let decoded = if object && !takes_object {
            Err(decode::unsupported("a tensor-map address `[tmap, {...}]`"))
        } else {
            decode::decode(&parts)
        };
        decoded.unwrap_or_else(|error| {
            if self.func.load_error.is_none() {
                self.func.load_error = Some(crate::LoadError::Instruction {
                    line: i.pos.line,
                    error: error.clone(),
                });
            }
            Op::Invalid(error)
        })
    }

    /// Pass 1: the index every label will have.
    fn collect_labels(&mut self, body: &[Stmt], count: &mut usize) {
        for s in body {
            match s {
                Stmt::Inst(_) => *count += 1,
                Stmt::Label(name, _) => {
                    self.labels.insert(name.clone(), *count);
                }
                Stmt::Prototype(name, _) => {
                    self.prototypes.insert(name.clone());
                }
                Stmt::Block(inner, _) => self.collect_labels(inner, count),
                _ => {}
            }
        }
    }

    /// Pass 2: declarations and instructions, in scope order.
    fn body(&mut self, body: &[Stmt]) -> Result<(), ResolveError> {
        for s in body {
            match s {
                Stmt::Decl(d) => self.declare(d)?,
                Stmt::Inst(i) => {
                    let guard = match &i.guard {
                        None => None,
                        Some((neg, op)) => match self.operand(op)? {
                            Operand::Reg(r) => Some((*neg, r)),
                            _ => return Err(ResolveError::GuardNotPredicate { line: i.pos.line }),
                        },
                    };
                    let args: Vec<Operand> = i
                        .operands
                        .iter()
                        .map(|o| self.operand(o))
                        .collect::<Result<_, _>>()?;
                    let end = self.src[i.pos.offset.min(self.src.len())..]
                        .find(';')
                        .map_or(self.src.len(), |e| i.pos.offset + e + 1);
                    let name = i.full_name();
                    let op = self.decode(i, &args, &name);
                    self.func.insts.push(Inst {
                        guard,
                        op,
                        args,
                        pos: i.pos,
                        end,
                        name,
                    });
                }
                Stmt::Block(inner, _) => {
                    self.stack.push(HashMap::new());
                    self.regs.push(HashMap::new());
                    let r = self.body(inner);
                    self.stack.pop();
                    self.regs.pop();
                    r?;
                }
                Stmt::Label(..) | Stmt::Prototype(..) => {}
            }
        }
        Ok(())
    }
}

/// Resolves a parsed module. `src` is its text (for initializers and the
/// extent of each instruction).
pub fn build(src: &str, m: &ast::Module) -> Result<Program, ResolveError> {
    let mut prog = Program::default();
    let mut module_names = HashMap::new();
    let mut funcs = HashMap::new();
    // Functions first (a call may precede the callee's definition); a
    // declaration followed by a definition keeps the definition.
    for item in &m.items {
        if let Item::Func(f) = item {
            let idx = match funcs.get(&f.name) {
                Some(&i) => i,
                None => {
                    funcs.insert(f.name.clone(), prog.funcs.len());
                    prog.funcs.push(Func {
                        name: f.name.clone(),
                        kind: f.kind,
                        pos: f.pos,
                        kparams: Vec::new(),
                        n_rets: 0,
                        n_params: 0,
                        regs: Vec::new(),
                        frame_vars: Vec::new(),
                        insts: Vec::new(),
                        has_body: false,
                        load_error: None,
                    });
                    prog.funcs.len() - 1
                }
            };
            // The signature calls are checked against: the definition's.
            if f.body.is_some() || !prog.funcs[idx].has_body {
                prog.funcs[idx].n_rets = f.rets.len();
                prog.funcs[idx].n_params = f.params.len();
            }
            if f.body.is_some() {
                prog.funcs[idx].has_body = true;
            }
        }
    }
    let callees: Vec<Callee> = prog
        .funcs
        .iter()
        .map(|f| Callee {
            name: f.name.clone(),
            has_body: f.has_body,
            n_rets: f.n_rets,
            n_params: f.n_params,
        })
        .collect();
    for item in &m.items {
        if let Item::Var(d) = item {
            for n in &d.names {
                let v = var_of(src, d, n, &funcs)?;
                module_names.insert(n.name.clone(), Sym::Var(prog.vars.len()));
                prog.vars.push(v);
            }
        }
    }
    for item in &m.items {
        let Item::Func(f) = item else { continue };
        let Some(body) = &f.body else { continue };
        let idx = funcs[&f.name];
        let mut func = prog.funcs[idx].clone();
        let mut params = HashMap::new();
        let regs = HashMap::new();
        if f.kind == FuncKind::Entry {
            for (i, p) in f.params.iter().enumerate() {
                func.kparams
                    .push((p.name.clone(), param_type(p)?, param_size(p)?));
                params.insert(p.name.clone(), Sym::KParam(i));
            }
        } else {
            for p in f.rets.iter().chain(&f.params) {
                if p.space != ".param" {
                    return Err(ResolveError::RegisterParameters {
                        line: p.pos.line,
                        function: f.name.clone(),
                    });
                }
                params.insert(p.name.clone(), Sym::Frame(func.frame_vars.len()));
                func.frame_vars.push(Var {
                    name: p.name.clone(),
                    space: Space::Param,
                    size: param_size(p)?,
                    dynamic: false,
                    init: Vec::new(),
                    align: 1,
                    relocs: Vec::new(),
                });
            }
            func.n_rets = f.rets.len();
            func.n_params = f.params.len();
        }
        let mut scope = Scope {
            src,
            module_names: &module_names,
            funcs: &funcs,
            callees: &callees,
            stack: vec![params],
            regs: vec![regs],
            labels: HashMap::new(),
            prototypes: HashSet::new(),
            func,
            vars: &mut prog.vars,
        };
        scope.collect_labels(body, &mut 0);
        scope.body(body)?;
        prog.funcs[idx] = scope.func;
    }
    Ok(prog)
}
