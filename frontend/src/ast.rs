//! The untyped syntax tree produced by the parser.
//!
//! It mirrors the source closely (names are strings, no conversions) so that
//! `--emit ast` is recognisable to whoever wrote the code. Base types are
//! already resolved to [`CType`] (typedef names are replaced by the parser);
//! array sizes stay expressions, since only sema can evaluate constants such
//! as enumerators.

use crate::diag::Span;
use crate::types::CType;

/// A whole source file: its top-level items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct TranslationUnit {
    /// The device code: what the split phase kept (`crate::split`).
    pub items: Vec<Item>,
    /// The host functions and variables the split phase skipped, for the
    /// error when device code names one (E0017).
    pub host: Vec<HostDecl>,
    /// The function templates, kept as tokens, and the instantiations
    /// asked for outside device code's calls (`crate::templates`).
    pub templates: std::sync::Arc<crate::templates::Templates>,
}

/// A host function or variable, skipped: device code cannot use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostDecl {
    pub name: String,
    pub kind: HostKind,
    /// The declared name in its declaration.
    pub span: Span,
}

/// What kind of host declaration a [`HostDecl`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostKind {
    Function,
    Variable,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Function(FunctionDecl),
    /// A file-scope variable (`__shared__`, `__constant__`, `__device__`, or
    /// a plain `const` integer usable in constant expressions).
    Var(VarDecl),
    Enum(EnumDecl),
    StaticAssert(StaticAssert),
}

/// `static_assert(cond, "message")` or `static_assert(cond)`.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticAssert {
    pub cond: Expr,
    pub message: Option<String>,
    pub span: Span,
    /// For one in a class template's instance, the instances around it,
    /// outermost first, with where each was instantiated.
    pub instantiated: Vec<(String, Span)>,
}

/// `enum [Name] { A, B = 3 }`: the constants (the type itself is `int`).
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDecl {
    pub enumerators: Vec<(String, Option<Expr>, Span)>,
    pub span: Span,
}

/// Storage and memory-space specifiers of a variable declaration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    pub shared: bool,
    pub constant: bool,
    pub device: bool,
    /// `__managed__` (which also sets `device`): unified memory, one
    /// allocation that host and device code both reach.
    pub managed: bool,
    pub is_extern: bool,
    pub is_static: bool,
    /// `inline` at namespace scope (C++17's inline variable): one object
    /// that every module defining it shares.
    pub is_inline: bool,
    /// `__align__(N)`: the variable's least alignment (0 when not given).
    pub align: u64,
    /// `constexpr` was written (at this span): the initializer must be a
    /// constant expression, and the variable is `const`.
    pub constexpr: Option<Span>,
    /// Where the first of these specifiers was written (for messages).
    pub span: Span,
}

/// An initializer: an expression or a braced list (C99 6.7.9).
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Expr(Expr),
    List(Vec<Init>, Span),
}

impl Init {
    /// The initializer's source span.
    pub fn span(&self) -> Span {
        match self {
            Init::Expr(e) => e.span,
            Init::List(_, s) => *s,
        }
    }
}

/// Declaration specifiers that apply to functions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnSpecs {
    pub global: bool,
    pub device: bool,
    pub host: bool,
    pub extern_c: bool,
    pub is_static: bool,
    pub inline: bool,
    pub forceinline: bool,
    pub noinline: bool,
    /// `constexpr`: calls with constant arguments are constant
    /// expressions (`sema/consteval.rs`).
    pub constexpr: bool,
    /// Declared in a class, `static` or not (not a friend, which belongs
    /// to the enclosing namespace): it has its class's linkage and name.
    pub class_member: bool,
}

/// What a call of a function is: a value, or the object its returned
/// reference points to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Returns {
    /// `T f()`: a call is a prvalue.
    #[default]
    Value,
    /// `T &f()`: a call is an lvalue, the object.
    LRef,
    /// `T &&f()`: a call is an xvalue, which an rvalue reference binds
    /// (as `std::move(x)` is).
    RRef,
}

impl Returns {
    /// Whether a reference is returned (`ret` is its pointer).
    pub fn reference(self) -> bool {
        self != Returns::Value
    }
}

/// A function prototype (`body == None`) or definition.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    pub name: String,
    pub name_span: Span,
    /// From the first specifier to the end of the body or `;`.
    pub span: Span,
    pub specs: FnSpecs,
    pub ret: CType,
    pub ret_span: Span,
    /// How the return type's base type was written where `ret` forgets it
    /// (`long long`): what a call's result deduces.
    pub ret_spelling: Spelling,
    /// A value, or a reference (`float &at(int)`, `T &&move(T &x)`):
    /// then `ret` is a pointer to the referenced type.
    pub returns: Returns,
    pub params: Vec<ParamDecl>,
    pub body: Option<Block>,
    /// `__launch_bounds__(max_threads[, min_blocks])`, unevaluated.
    pub launch_bounds: Option<(Expr, Option<Expr>, Span)>,
    /// `__cluster_dims__(x[, y[, z]])`, unevaluated.
    pub cluster_dims: Option<(Vec<Expr>, Span)>,
    /// A non-static member function (`crate::parser::classes`): its first
    /// parameter is `this`.
    pub method: Option<Method>,
    /// A return type deduced rather than written (`ret` is `void` until
    /// the checker deduces it).
    pub deduced_ret: Option<DeducedRet>,
}

/// A function's return type that its definition gives: `auto` and
/// `decltype(auto)` from its `return` statements, a trailing
/// `-> decltype(expr)` from the expression over its parameters. Itanium
/// names spell each form in a function template's name (`Da`, `Dc`,
/// `DT...E`).
#[derive(Clone, Debug, PartialEq)]
pub enum DeducedRet {
    Auto,
    DecltypeAuto,
    Decltype(Box<Expr>),
}

/// What makes a function a non-static member function of a class. Its
/// first parameter is `this`, a pointer to the class (to `const` for a
/// `const` member function), which a call binds to the object as a
/// reference parameter binds its argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// The class's key (`sim::Ray`).
    pub class: String,
    /// Declared `const` after its parameters (its Itanium name has `K`).
    pub is_const: bool,
    /// A constructor (`Ray::Ray`, Itanium `C1`): it initializes `*this`.
    pub is_ctor: bool,
    /// The implicit default constructor kernelc writes for a class
    /// without constructors whose members have default initializers: the
    /// class is still an aggregate (`S{1, 2}` sets its first members).
    pub aggregate: bool,
    /// `&` or `&&` after the parameters (and `const`): which objects
    /// `this` binds; its Itanium name has `R` or `O`.
    pub ref_qualifier: RefQualifier,
}

/// A member function's ref-qualifier (`get() const &`, `get() &&`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RefQualifier {
    /// None written: `this` binds any object.
    #[default]
    None,
    /// `&`: `this` binds as an lvalue reference (`const &` also binds a
    /// temporary).
    Lvalue,
    /// `&&`: `this` binds an rvalue only.
    Rvalue,
}

/// A type as written, plus qualifiers of the declared object itself.
#[derive(Clone, Debug, PartialEq)]
pub struct QualType {
    pub ty: CType,
    /// The declared object is `const` (`const int x`, `float *const p`).
    pub is_const: bool,
    pub is_volatile: bool,
    /// How the innermost base type was written, where C++ tells apart
    /// types `ty` merges.
    pub spelling: Spelling,
    pub span: Span,
}

impl QualType {
    /// `ty` as written at `span`, without qualifiers.
    pub fn plain(ty: CType, span: Span) -> QualType {
        QualType {
            ty,
            is_const: false,
            is_volatile: false,
            spelling: Spelling::Plain,
            span,
        }
    }
}

/// What a written type says beyond its [`CType`]: C++ tells apart types
/// that kernelc's `CType` merges because C's rules treat them alike on
/// LP64 (`char` and `signed char`, `long` and `long long`, an enumeration
/// and `int`). Only the Itanium names of functions (`mangle.rs`) ask. It
/// describes the innermost base type, under every pointer, array and
/// reference of the declarator.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Spelling {
    /// The `CType` says it all: an 8-bit signed integer is plain `char`,
    /// a 64-bit one is `long` (or `unsigned long`).
    #[default]
    Plain,
    /// `signed char` (also `int8_t`): a type of its own in C++.
    SignedChar,
    /// `long long` or `unsigned long long`.
    LongLong,
    /// A named enumeration (whose values kernelc types as `int`).
    Enum(String),
}

/// A function parameter; unnamed parameters are allowed in prototypes.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub name: Option<String>,
    pub ty: QualType,
    /// `__grid_constant__` was written (at this span).
    pub grid_constant: Option<Span>,
    /// A reference parameter `T &name` (the `&`'s span); `ty` is `T`.
    pub by_ref: Option<Span>,
    /// With `by_ref`, the reference was written `&&`: an rvalue reference
    /// (`float &&x`), or in a function template, where `T &&` names a type
    /// parameter, a forwarding reference. It binds a temporary as a
    /// `const` reference does, and names spell it `O`.
    pub rvalue: bool,
    /// Array declarator sizes (`float a[][4]`), outermost first; the outermost
    /// is adjusted to a pointer as C says.
    pub dims: Vec<Option<Expr>>,
    /// A default argument (`float s = 1.0f`), which a call may leave out.
    pub default: Option<Expr>,
    pub span: Span,
}

/// `{ ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

/// One declarator of a local declaration: `int i = 0, *p;` has two.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub name: String,
    pub name_span: Span,
    pub ty: QualType,
    /// Array declarator sizes, outermost first (`int a[2][3]` is `[2, 3]`);
    /// `None` for `[]`.
    pub dims: Vec<Option<Expr>>,
    pub storage: Storage,
    pub init: Option<Init>,
    /// A reference `T &name = lvalue;` (the `&`'s span); `ty` is `T`.
    pub by_ref: Option<Span>,
    /// With `by_ref`, the reference was written `&&` (a local `T &&r =
    /// f();` or `auto &&x = e;`).
    pub rvalue: bool,
    /// `auto` was written instead of a type (at this span): the type comes
    /// from the initializer, and `ty.ty` is only a placeholder (`void`, or a
    /// pointer to `void` for `auto *p`).
    pub auto: Option<Span>,
    /// With `auto`: the type is `decltype(operand)`, which only the
    /// checker can type (`parser/decltype.rs`), not the initializer's.
    pub decltype: Option<Box<DecltypeOf>>,
    /// The initializer was written `name{...}` (C++ direct-list
    /// initialization) rather than after `=`.
    pub direct_braces: bool,
    pub span: Span,
}

/// `decltype(operand)` as a local's type, left to the checker: C++
/// gives an entity's declared type for an unparenthesized name or member
/// access (`names_entity`), else the operand's type as a reference of
/// its value category (`T &` for an lvalue, `T &&` for an xvalue).
#[derive(Clone, Debug, PartialEq)]
pub struct DecltypeOf {
    pub operand: Expr,
    pub names_entity: bool,
}

/// A structured binding declaration, `auto [a, b] = init;` or `const auto
/// &[k, v] = init;`. `object` declares the object the names decompose (C++'s
/// hidden variable `e`) as written, `auto` with its `const`, `&` or `&&`
/// and initializer; its name is the bracketed list (`[a, b]`), which no
/// identifier can spell, so only the names below reach it.
#[derive(Clone, Debug, PartialEq)]
pub struct Bindings {
    pub object: VarDecl,
    /// The names in order, each with its span.
    pub names: Vec<(String, Span)>,
}

/// A statement with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// Statement forms.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    Decl(Vec<VarDecl>),
    Block(Block),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        /// A declaration or expression statement, or `None` for `for (;`.
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Empty,
    Switch {
        cond: Expr,
        body: Box<Stmt>,
    },
    /// `case VALUE:` (a label; the statement after it is separate).
    Case(Expr),
    /// `default:`.
    Default,
    /// A local `enum { ... };`.
    Enum(EnumDecl),
    /// `auto [a, b] = init;` (C++17 structured bindings).
    Bindings(Box<Bindings>),
    /// `for (T x : range) body` (`var` has no initializer).
    RangeFor {
        var: Box<VarDecl>,
        range: Expr,
        body: Box<Stmt>,
    },
    StaticAssert(Box<StaticAssert>),
    /// `goto name;`.
    Goto(String),
    /// `name: stmt` (a `goto` target).
    Labeled {
        label: String,
        label_span: Span,
        stmt: Box<Stmt>,
    },
    /// `#pragma unroll [count]` before `stmt` (which must be a loop).
    Unroll {
        count: Option<Expr>,
        stmt: Box<Stmt>,
    },
    /// `if constexpr (cond) then else els`: only the branch the constant
    /// condition takes is checked (the other is discarded, as in a
    /// template's instance). `mentions`: the enclosing function's locals
    /// that the statement names, in either branch, which a discarded
    /// branch still uses as far as W0001 is concerned (a lambda called in
    /// one branch only, as nvcc sees it in the template).
    ConstexprIf {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
        mentions: Vec<String>,
    },
    /// `asm [volatile] ("template" : outputs : inputs : clobbers);`.
    Asm(Box<AsmStmt>),
}

/// An inline PTX statement as written (GCC's extended `asm`).
#[derive(Clone, Debug, PartialEq)]
pub struct AsmStmt {
    pub volatile: bool,
    /// The template's text, its string literals joined.
    pub template: String,
    pub template_span: Span,
    pub outputs: Vec<AsmOperand>,
    pub inputs: Vec<AsmOperand>,
    /// The clobbers (`"memory"`, register names), with where each is.
    pub clobbers: Vec<(String, Span)>,
}

/// `"=r"(x)`: a constraint and the operand's expression.
#[derive(Clone, Debug, PartialEq)]
pub struct AsmOperand {
    pub constraint: String,
    pub constraint_span: Span,
    pub expr: Expr,
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// Unary operators (`++`/`--` are [`ExprKind::IncDec`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Plus,
    Neg,
    Not,
    BitNot,
    Deref,
    AddrOf,
}

impl UnaryOp {
    /// The operator as C spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Plus => "+",
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
            UnaryOp::Deref => "*",
            UnaryOp::AddrOf => "&",
        }
    }
}

/// The C++ named casts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedCastKind {
    Static,
    Reinterpret,
    Const,
}

impl NamedCastKind {
    /// The keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            NamedCastKind::Static => "static_cast",
            NamedCastKind::Reinterpret => "reinterpret_cast",
            NamedCastKind::Const => "const_cast",
        }
    }
}

/// Binary operators including comparisons, logical operators and comma.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
    Comma,
}

impl BinaryOp {
    /// The C spelling.
    pub fn as_str(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            LogAnd => "&&",
            LogOr => "||",
            Comma => ",",
        }
    }
}

/// Expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Ident(String),
    IntLit {
        value: u64,
        ty: CType,
        /// `LongLong` for a `ll` suffix (`5LL`): C++'s `long long`, which
        /// `ty` does not tell from `long`.
        spelling: Spelling,
    },
    FloatLit {
        value: f64,
        ty: CType,
    },
    CharLit(i64),
    /// A string literal (adjacent ones joined), its bytes without the NUL.
    StrLit(Vec<u8>),
    BoolLit(bool),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    IncDec {
        inc: bool,
        prefix: bool,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs = rhs` (`op == None`) or `lhs op= rhs`.
    Assign {
        op: Option<BinaryOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    /// A C cast `(T)e`, or a functional cast `T(e)` (C++: the same
    /// meaning when `T` is a simple type name).
    Cast {
        ty: QualType,
        expr: Box<Expr>,
    },
    /// `static_cast<T>(e)`, `reinterpret_cast<T>(e)` or `const_cast<T>(e)`.
    NamedCast {
        kind: NamedCastKind,
        ty: QualType,
        expr: Box<Expr>,
    },
    /// `T()`: a value-initialized scalar (zero).
    ZeroInit(QualType),
    /// `{a, b}`, whose type the context gives: only as `return`'s value,
    /// which C++ copy-list-initializes the return type from
    /// (`return {x + o.x, y + o.y};`).
    BracedList(Vec<Expr>),
    /// `S(a, b)` or `S s(a, b);` of a struct `S`: a call of its
    /// constructor, or for a struct without one, its members in order
    /// (`crate::parser::classes`).
    Construct {
        ty: QualType,
        args: Vec<Expr>,
    },
    /// `nullptr`.
    Nullptr,
    SizeofType(QualType),
    SizeofExpr(Box<Expr>),
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// A function template's name with arguments, `reduce<float, 256>`
    /// (a callee; `crate::templates`).
    TemplateId {
        name: String,
        args: Vec<crate::templates::TemplateArg>,
    },
    /// `base.field` (`arrow == false`) or `base->field`.
    Member {
        base: Box<Expr>,
        field: String,
        field_span: Span,
        arrow: bool,
        /// A member template's arguments (`acc.scaled<3>()`), else empty.
        template_args: Vec<crate::templates::TemplateArg>,
    },
    /// `[captures](params) { body }`: an object of a closure type the
    /// checker makes (`crate::sema::lambdas`).
    Lambda(Box<Lambda>),
}

/// A lambda expression as the parser keeps it (`crate::parser::lambdas`):
/// its captures, which become the closure's members, and the tokens of its
/// call operator, which the checker parses as a member function of the
/// closure once it has typed the captures (their types are the members').
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    /// What the closure holds, in its members' order: the explicit
    /// captures, then the implicit ones in the order the body names them.
    pub captures: Vec<Capture>,
    /// `[=]` or `[&]`.
    pub default: Option<CaptureDefault>,
    /// `mutable`: the call operator is not `const`.
    pub mutable: bool,
    /// `__host__` and `__device__` written after the parameters (an
    /// extended lambda's), and where the first was.
    pub host: bool,
    pub device: bool,
    pub annotation: Option<Span>,
    /// The call operator's tokens: `( params ) [-> type] { body }`, each
    /// `auto` parameter's `auto` replaced by a name of [`Lambda::generic`].
    pub tokens: Vec<crate::token::Token>,
    /// The names standing for `auto` parameters' types, in order: a
    /// generic lambda's call operator is a template over them.
    pub generic: Vec<String>,
    /// A return type was written after `->` (else it is deduced).
    pub explicit_return: bool,
    /// The typedefs of the parse that made it which its tokens name (an
    /// instance's template parameters): the call operator is read with
    /// them.
    pub types: Vec<(String, (CType, bool, Spelling))>,
    /// The scope it is written in: the namespace, and the class of the
    /// member function (or the closure type of the lambda) it is in.
    pub scope: Vec<String>,
    /// For a lambda that captured `this`, the enclosing object's class,
    /// and whether the closure holds a copy of the object (`[*this]`)
    /// rather than its address.
    pub enclosing: Option<Box<(crate::parser::ClassCtx, bool)>>,
    /// Written in host code (an extended lambda a launch passes): where,
    /// for its closure type's name (`crate::host_lambdas`).
    pub host_site: Option<std::sync::Arc<crate::host_lambdas::HostLambda>>,
    pub span: Span,
}

/// One capture of a lambda: the closure's member `name`, initialized from
/// `init` (a local, a member of an enclosing closure, `this`), by copy or
/// (`by_ref`) bound to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    pub name: String,
    pub by_ref: bool,
    pub init: Expr,
    pub span: Span,
}

/// A lambda's capture default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureDefault {
    /// `[=]`
    Copy,
    /// `[&]`
    Ref,
}

/// The member of a closure that holds the enclosing object (`[this]`,
/// `[*this]`): a name no program can write.
pub const CAPTURED_THIS: &str = "this@";

/// Dropping a tree recurses as deep as it nests; an `else if` chain or a
/// long sum is as deep as it is long. Each level runs with enough stack, as
/// the walks that made it did (`stack.rs`).
impl Drop for Expr {
    fn drop(&mut self) {
        let kind = std::mem::replace(&mut self.kind, ExprKind::Nullptr);
        stdx::stack::with_stack(move || drop(kind));
    }
}

/// See [`Expr`]'s `Drop`.
impl Drop for Stmt {
    fn drop(&mut self) {
        let kind = std::mem::replace(&mut self.kind, StmtKind::Empty);
        stdx::stack::with_stack(move || drop(kind));
    }
}

/// See [`Expr`]'s `Drop`: braced lists nest too (`{{{1}}}`).
impl Drop for Init {
    fn drop(&mut self) {
        if let Init::List(items, _) = self {
            let items = std::mem::take(items);
            stdx::stack::with_stack(move || drop(items));
        }
    }
}

/// The callees `static_cast` to a reference type becomes
/// (`parser/expr.rs`): to an rvalue reference, then to an lvalue
/// reference; names no program can spell.
pub const REFERENCE_CASTS: [&str; 2] = ["static_cast<&&>", "static_cast<&>"];

/// A cast of `e` to `referent &` as C++ defines it for `reinterpret_cast`
/// and `const_cast` ([expr.reinterpret.cast]/11, [expr.const.cast]/4),
/// and so for a C cast (`via` `None`), which is one of them or a
/// `static_cast` between related classes, whose pointer cast adjusts as
/// the reference's does: `*cast<referent *>(&e)`, the lvalue designating
/// `e`'s object.
pub fn reference_through_pointer(
    via: Option<NamedCastKind>,
    referent: QualType,
    e: Expr,
    span: Span,
) -> Expr {
    let pointer = QualType {
        ty: CType::Pointer {
            pointee: Box::new(referent.ty),
            pointee_const: referent.is_const,
            pointee_volatile: referent.is_volatile,
            restrict: false,
        },
        ..QualType::plain(CType::Void, referent.span)
    };
    let at = |kind| Expr { kind, span };
    let expr = Box::new(at(ExprKind::Unary {
        op: UnaryOp::AddrOf,
        operand: Box::new(e),
    }));
    let cast = match via {
        None => ExprKind::Cast { ty: pointer, expr },
        Some(kind) => ExprKind::NamedCast {
            kind,
            ty: pointer,
            expr,
        },
    };
    at(ExprKind::Unary {
        op: UnaryOp::Deref,
        operand: Box::new(at(cast)),
    })
}
