//! The syntax tree of a PTX module. It is deliberately close to the text:
//! modifiers stay strings in source order and operands keep their written
//! shape, so the checker can quote what the author wrote and so that any
//! PTX (kernelc's, nvcc's, hand-written) fits without normalisation.

use crate::lexer::Pos;

/// A whole `.ptx` file.
#[derive(Debug, Default)]
pub struct Module {
    /// `.version X.Y` and where it was; `None` when missing.
    pub version: Option<((u32, u32), Pos)>,
    /// Whether `.version` came before every other directive.
    pub version_first: bool,
    /// `.target sm_90[, debug]`: the target names, in order.
    pub target: Vec<(String, Pos)>,
    pub address_size: Option<(u32, Pos)>,
    pub items: Vec<Item>,
    /// Whether anything follows the header (`.version`, `.target`,
    /// `.address_size`): a variable, a function, or a directive the checks
    /// skip (`.file`, `.section`, `.pragma`). ptxas judges the version
    /// against the target at the first such, so a module without one passes.
    pub has_body: bool,
    /// Errors found while reading that do not stop ptxas's parser
    /// (`Constant overflow`, `Constant expression type mismatch`); the
    /// checks report them with their own.
    pub read_errors: Vec<crate::diag::Diag>,
}

#[derive(Debug)]
pub enum Item {
    Func(Function),
    Var(VarDecl),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
}

/// An `.entry` or `.func`, with or without a body.
#[derive(Debug)]
pub struct Function {
    pub kind: FuncKind,
    /// `.visible`, `.extern`, `.weak` as written.
    pub linkage: Vec<String>,
    pub name: String,
    pub pos: Pos,
    pub rets: Vec<Param>,
    pub params: Vec<Param>,
    /// Performance and cluster directives: name (with dot), values, position.
    pub directives: Vec<(String, Vec<i128>, Pos)>,
    pub body: Option<Vec<Stmt>>,
}

/// A parameter of an entry or function (`.param` or `.reg` space).
#[derive(Debug, Clone)]
pub struct Param {
    pub space: String,
    pub ty: String,
    pub name: String,
    pub pos: Pos,
    /// `Some(n)` for `name[n]`; `Some(0)` for `name[]`.
    pub array: Option<u64>,
    /// `.align N`, when written.
    pub align: Option<i128>,
}

/// A variable or register declaration (`.reg`, `.shared`, `.global`, ...).
#[derive(Debug, Clone)]
pub struct VarDecl {
    pub linkage: Vec<String>,
    /// The state space with its dot (`.reg`, `.shared`, `.param`...).
    pub space: String,
    /// The element type with its dot (`.b32`); `.v2`/`.v4` in `vector`.
    pub ty: String,
    pub vector: Option<u32>,
    pub align: Option<i128>,
    pub names: Vec<DeclName>,
}

/// One declared name: `%r`, `%r<8>` (range), `buf[16]` (array).
#[derive(Debug, Clone)]
pub struct DeclName {
    pub name: String,
    pub pos: Pos,
    /// `%r<N>` declares `%r0` .. `%r{N-1}`.
    pub range: Option<u32>,
    pub array: Vec<Option<u64>>,
    pub has_init: bool,
}

#[derive(Debug)]
pub enum Stmt {
    Decl(VarDecl),
    Label(String, Pos),
    Inst(Inst),
    Block(Vec<Stmt>, Pos),
    /// `label: .callprototype ...`: the label names a call prototype.
    Prototype(String, Pos),
}

/// One instruction: guard, opcode, modifiers in order, operands.
#[derive(Debug, Clone)]
pub struct Inst {
    /// `@%p` or `@!%p`: (negated, predicate operand).
    pub guard: Option<(bool, Operand)>,
    pub opcode: String,
    pub mods: Vec<String>,
    pub operands: Vec<Operand>,
    pub pos: Pos,
}

impl Inst {
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
    pub fn has_prefix(&self, p: &str) -> bool {
        self.mods.iter().any(|x| x.starts_with(p))
    }
    /// The spelling `opcode.mod1.mod2`, as ptxas quotes some instructions.
    pub fn full_name(&self) -> String {
        let mut s = self.opcode.clone();
        for m in &self.mods {
            s.push_str(m);
        }
        s
    }
}

#[derive(Debug, Clone)]
pub struct Operand {
    pub kind: OpKind,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub enum OpKind {
    /// A register, variable, function or label name; `comp` is `.x` etc.
    Name {
        name: String,
        comp: Option<String>,
        negated: bool,
    },
    Int(i128),
    Float(crate::lexer::FloatLit),
    /// `[base+offset]`, `[imm]`, `[tmap, {coords}]`.
    Addr {
        base: Option<String>,
        offset: i128,
        extra: Vec<Operand>,
    },
    Vector(Vec<Operand>),
    /// A parenthesised list in a `call`: `(retval0)`, `(param0, param1)`.
    List(Vec<Operand>),
    /// `%r|%p`: a pair of destinations (setp, shfl, elect).
    Pair(Box<Operand>, Box<Operand>),
    /// `sym+4` outside brackets (e.g. `mov.u64 %rd, arr+8`).
    SymOffset(String, i128),
    /// `arr[4]`, `arr[%r1]`, `arr[%r1+4]`: an array's element, which ptxas
    /// takes as a load's or store's address and as `mov`'s and `cvta`'s
    /// variable.
    Element {
        name: String,
        index: Option<String>,
        offset: i128,
    },
    /// `_`, the sink.
    Sink,
}

/// The element count of a vector instruction's `.v2`/`.v4`/`.v8` modifier,
/// if it has one (the validator's and the emulator's instructions both
/// keep their modifiers as written).
pub fn vector_width(mods: &[String]) -> Option<u32> {
    mods.iter().find_map(|m| match m.as_str() {
        ".v2" => Some(2),
        ".v4" => Some(4),
        ".v8" => Some(8),
        _ => None,
    })
}
