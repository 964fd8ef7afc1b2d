//! Why the modifiers of an `accel` instruction do not read
//! ([`AccelOp::from_modifiers`](super::AccelOp::from_modifiers)): a
//! [`ModifierError`], whose `Display` is the message the IR parser
//! reports.

use super::instructions::Opcode;
use super::texture::TexModifierError;
use core::fmt;

/// What is wrong with the modifiers written after an accelerator opcode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModifierError {
    /// A word where the words `expected` names belong.
    Word {
        expected: ModifierWord,
        found: String,
    },
    /// Another number of modifiers than `op` takes.
    Count {
        op: Opcode,
        expected: usize,
        found: usize,
    },
    /// Modifiers that fit no form `op` takes; `form` says what it takes.
    Form { op: Opcode, form: ModifierForm },
    /// A `cp_async` size other than 4, 8 or 16 bytes.
    CopySize { found: String },
    /// An opcode that is not an accelerator operation.
    NotAccel { op: Opcode },
    /// The modifiers of `tex`, `suld` or `sust`, which their own reader
    /// refused.
    Texture(TexModifierError),
}

impl fmt::Display for ModifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModifierError::Word { expected, found } => {
                write!(f, "expected {expected}, found '{found}'")
            }
            ModifierError::Count {
                op,
                expected,
                found,
            } => write!(f, "'{op}' takes {expected} modifier(s), found {found}"),
            ModifierError::Form { op, form } => write!(f, "'{op}' takes {form}"),
            ModifierError::CopySize { found } => {
                write!(f, "cp_async copies 4, 8 or 16 bytes, not '{found}'")
            }
            ModifierError::NotAccel { op } => write!(f, "'{op}' is not an accel operation"),
            ModifierError::Texture(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ModifierError {}

impl From<TexModifierError> for ModifierError {
    fn from(e: TexModifierError) -> ModifierError {
        ModifierError::Texture(e)
    }
}

/// The words one modifier may be; `Display` lists them as the messages do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModifierWord {
    /// `row` or `col`.
    Layout,
    /// `f16`, `bf16` or `f32`.
    MmaType,
    /// `x1`, `x2` or `x4` (`ldmatrix`, `stmatrix`).
    MatrixCount,
    /// `ca` or `cg`.
    CpCache,
    /// A small count of groups (`cp_async_wait 1`).
    GroupCount,
    /// `a`, `b` or `c`.
    Fragment,
    /// `dim1` to `dim5`.
    Rank,
    /// `n64`, `n128` or `n256`.
    WgmmaN,
    /// `nega`, `negb`, `transa`, `transb`, in that order.
    WgmmaFlag,
    /// `inc` or `dec`.
    IncDec,
    /// A register count (`setmaxnreg`).
    RegisterCount,
    /// `f16` or `tf32`.
    TcKind,
    /// `x1` to `x32` (`tcgen05_ld`, `tcgen05_st`).
    TcCount,
    /// `ld` or `st`.
    TcWait,
    /// `s128x256b`, `s128x128b` or `s4x256b`.
    TcCpShape,
    /// `before` or `after`.
    FenceSide,
}

impl fmt::Display for ModifierWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModifierWord::Layout => "a layout 'row' or 'col'",
            ModifierWord::MmaType => "'f16', 'bf16' or 'f32'",
            ModifierWord::MatrixCount => "'x1', 'x2' or 'x4'",
            ModifierWord::CpCache => "'ca' or 'cg'",
            ModifierWord::GroupCount => "a group count",
            ModifierWord::Fragment => "a fragment 'a', 'b' or 'c'",
            ModifierWord::Rank => "a rank 'dim1' to 'dim5'",
            ModifierWord::WgmmaN => "'n64', 'n128' or 'n256'",
            ModifierWord::WgmmaFlag => "'nega', 'negb', 'transa', 'transb' in that order",
            ModifierWord::IncDec => "'inc' or 'dec'",
            ModifierWord::RegisterCount => "a register count",
            ModifierWord::TcKind => "'f16' or 'tf32'",
            ModifierWord::TcCount => "'x1', 'x2', 'x4', 'x8', 'x16' or 'x32'",
            ModifierWord::TcWait => "'ld' or 'st'",
            ModifierWord::TcCpShape => "'s128x256b', 's128x128b' or 's4x256b'",
            ModifierWord::FenceSide => "'before' or 'after'",
        })
    }
}

/// The modifiers an opcode with more than one form takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModifierForm {
    /// `ldmatrix`, `stmatrix`: a count and maybe `trans`.
    MatrixCountMaybeTrans,
    /// `cp_async_bulk_wait`: maybe `read`, and a count.
    MaybeReadAndGroupCount,
    /// `cluster_arrive`: nothing or `relaxed`.
    AtMostRelaxed,
    /// `wgmma_mma`: `nN`, a type, then flags.
    WgmmaShapeAndType,
}

impl fmt::Display for ModifierForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModifierForm::MatrixCountMaybeTrans => "'x1', 'x2' or 'x4' and maybe 'trans'",
            ModifierForm::MaybeReadAndGroupCount => "'read' (maybe) and a group count",
            ModifierForm::AtMostRelaxed => "at most the modifier 'relaxed'",
            ModifierForm::WgmmaShapeAndType => "an 'nN' and 'f16' or 'bf16'",
        })
    }
}
