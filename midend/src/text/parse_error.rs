//! What can go wrong reading the IR text: [`ParseError`], a kind with its
//! facts at a line and column. `Display` writes `line:col: message`.

use super::parser::MAX_ENTITY_INDEX;
use crate::ir::{
    AliasScope, Block, ConstraintError, FuncId, GlobalVar, ModifierError, Opcode, StackSlot, Value,
};
use core::fmt;

/// A syntax or naming error, with the 1-based line and column (in characters)
/// where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.kind)
    }
}

impl std::error::Error for ParseError {}

/// A numbered entity of a function, as the text names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Entity {
    Value(Value),
    Block(Block),
    Slot(StackSlot),
    Scope(AliasScope),
    Global(GlobalVar),
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entity::Value(v) => write!(f, "{v}"),
            Entity::Block(b) => write!(f, "{b}"),
            Entity::Slot(s) => write!(f, "{s}"),
            Entity::Scope(s) => write!(f, "{s}"),
            Entity::Global(g) => write!(f, "{g}"),
        }
    }
}

/// What is wrong in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    // ---- Tokens (`lexer.rs`) ----
    /// A string without its closing quote on its line.
    UnterminatedString,
    /// A backslash followed by no escape the format knows.
    UnknownEscape,
    /// A `\u{...}` that is not a hex Unicode scalar value.
    MalformedUnicodeEscape,
    /// An `@` not followed by a name.
    NameExpectedAfterAt,
    /// A character no token starts with.
    UnexpectedCharacter(char),

    // ---- Syntax (`parser.rs`) ----
    /// Something other than what the grammar allows here: `expected` says
    /// what would do, `found` is the token as written (`'x'`, `number
    /// '3'`, `end of input`, ...).
    Expected {
        expected: String,
        found: String,
    },
    /// An instruction before any block header.
    ExpectedBlockHeader,
    /// A number that is not an unsigned 32-bit integer.
    NotU32 {
        text: String,
    },
    /// An immediate that is not a 64-bit integer.
    NotI64 {
        text: String,
    },
    /// An initializer element that is not a byte.
    NotAByte {
        text: String,
    },
    /// A float constant that reads as no float.
    NotAFloat {
        text: String,
    },
    /// An entity number above [`MAX_ENTITY_INDEX`].
    EntityTooLarge {
        prefix: &'static str,
        number: u64,
    },
    UnknownType {
        word: String,
    },
    UnknownAddrSpace {
        word: String,
    },
    UnknownOpcode {
        word: String,
    },
    UnknownIntCondition {
        word: String,
    },
    UnknownFloatCondition {
        word: String,
    },
    UnknownSpecialReg {
        word: String,
    },
    /// An opcode that carries a type written without one.
    NeedsTypeSuffix {
        opcode: Opcode,
    },
    /// An opcode that carries no type written with one.
    NoTypeSuffix {
        opcode: Opcode,
    },
    /// `addrspacecast` to something other than a pointer type.
    AddrSpaceCastNeedsPointer,
    /// Modifiers that [`AccelOp::from_modifiers`](crate::ir::AccelOp::from_modifiers)
    /// refused, for its reason.
    Modifiers(ModifierError),
    /// Constraints that [`InlineAsm::parse_outputs`](crate::ir::InlineAsm::parse_outputs)
    /// or `parse_inputs` refused, for its reason.
    Constraints(ConstraintError),
    /// A fixed-arity opcode with another number of operands.
    OperandCount {
        opcode: Opcode,
        expected: usize,
        found: usize,
    },
    /// Another number of results written than the opcode (or callee) gives.
    ResultCount {
        opcode: Opcode,
        expected: usize,
        written: usize,
    },

    // ---- Names and references ----
    /// Results of an `fnN` call in a function read alone, whose callee's
    /// returns are unknown.
    CallResultsNeedModule,
    /// A call by name in a function read alone.
    CallByNameNeedsModule {
        name: String,
    },
    UnknownFunctionName {
        name: String,
    },
    UnknownFunction {
        id: FuncId,
    },
    DefinedTwice {
        entity: Entity,
    },
    UndefinedUse {
        entity: Entity,
    },
    DuplicateGlobalName {
        name: String,
    },
    DuplicateFunctionName {
        name: String,
    },
    TwoUnrollHints {
        block: Block,
    },
    /// A value whose type follows only from itself (through its operands).
    SelfDependentType {
        value: Value,
    },
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParseErrorKind::*;
        match self {
            UnterminatedString => f.write_str("unterminated string"),
            UnknownEscape => f.write_str("unknown escape in string"),
            MalformedUnicodeEscape => f.write_str("malformed \\u{...} escape in string"),
            NameExpectedAfterAt => f.write_str("expected a name after '@'"),
            UnexpectedCharacter(c) => write!(f, "unexpected character {c:?}"),
            Expected { expected, found } => write!(f, "expected {expected}, found {found}"),
            ExpectedBlockHeader => f.write_str("expected a block header like 'block0:'"),
            NotU32 { text } => write!(f, "'{text}' is not an unsigned 32-bit integer"),
            NotI64 { text } => write!(f, "'{text}' is not a 64-bit integer"),
            NotAByte { text } => write!(f, "'{text}' is not a byte"),
            NotAFloat { text } => write!(f, "'{text}' is not a float constant"),
            EntityTooLarge { prefix, number } => write!(
                f,
                "'{prefix}{number}': entity numbers stop at {MAX_ENTITY_INDEX}"
            ),
            UnknownType { word } => write!(f, "unknown type '{word}'"),
            UnknownAddrSpace { word } => write!(f, "unknown address space '{word}'"),
            UnknownOpcode { word } => write!(f, "unknown opcode '{word}'"),
            UnknownIntCondition { word } => write!(f, "unknown integer condition '{word}'"),
            UnknownFloatCondition { word } => write!(f, "unknown float condition '{word}'"),
            UnknownSpecialReg { word } => write!(f, "unknown special register '{word}'"),
            NeedsTypeSuffix { opcode } => {
                write!(f, "'{opcode}' needs a type, as in '{opcode}.i32'")
            }
            NoTypeSuffix { opcode } => write!(f, "'{opcode}' takes no type suffix"),
            AddrSpaceCastNeedsPointer => f.write_str("'addrspacecast' needs a pointer type"),
            Modifiers(e) => write!(f, "{e}"),
            Constraints(e) => write!(f, "{e}"),
            OperandCount {
                opcode,
                expected,
                found,
            } => write!(
                f,
                "'{opcode}' takes {expected} operand{}, found {found}",
                plural(*expected)
            ),
            ResultCount {
                opcode,
                expected,
                written,
            } => write!(
                f,
                "'{opcode}' has {expected} result{}, but {written} written",
                plural(*expected)
            ),
            CallResultsNeedModule => f.write_str(
                "cannot infer the result types of a call without its module \
                 (parse the whole module, or name the callee with '@')",
            ),
            CallByNameNeedsModule { name } => write!(
                f,
                "a call by name ('@{name}') needs the module: \
                 use parse_module, or write the callee as 'fnN'"
            ),
            UnknownFunctionName { name } => write!(f, "unknown function '@{name}'"),
            UnknownFunction { id } => write!(f, "unknown function {id}"),
            DefinedTwice { entity } => write!(f, "{entity} is defined twice"),
            UndefinedUse { entity } => write!(f, "use of undefined {entity}"),
            DuplicateGlobalName { name } => write!(f, "duplicate global name '@{name}'"),
            DuplicateFunctionName { name } => write!(f, "duplicate function name '@{name}'"),
            TwoUnrollHints { block } => write!(f, "{block} has two unroll hints"),
            SelfDependentType { value } => write!(
                f,
                "cannot infer the type of {value}: it depends on itself through its operands"
            ),
        }
    }
}

/// The plural ending of a count: `1 operand`, `2 operands`.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
