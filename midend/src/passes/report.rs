//! What passes have to say besides the changed module: one report for a
//! whole pipeline, which the driver renders in one place.

use super::mark_invariant::Note;
use super::memspace::Space;
use crate::ir::{AddrSpace, Opcode, SourceSpan};
use core::fmt;
use stdx::codes::Code;

/// How bad a diagnostic is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Severity {
    Error,
    Warning,
}

/// A message for the user, at the source span of the instruction concerned
/// (the span is empty for IR that did not come from source).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// What is wrong, with its facts; it decides the severity and the
    /// message.
    pub kind: DiagnosticKind,
    /// The function the instruction is in.
    pub function: String,
    pub span: SourceSpan,
    /// Other places the message refers to (where a space was proved, the
    /// other instruction of a contradiction), each with its label.
    pub labels: Vec<(SourceSpan, Label)>,
    /// Notes without a place (a parameter's callers are outside the module).
    pub notes: Vec<DiagnosticNote>,
}

/// What a diagnostic says about another place, with its facts; `Display`
/// writes the label's text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Label {
    /// `op` needs its operand `operand` in `space` here (the other side of
    /// a contradiction).
    Demands {
        op: Opcode,
        space: AddrSpace,
        operand: usize,
    },
    /// The pointer's space was proved here.
    ProvedHere { space: AddrSpace },
    /// Pointers into two spaces meet here, at `place`.
    SpacesMeet {
        a: Space,
        b: Space,
        place: MeetPlace,
    },
    /// This pointer points to `space` (one side of a meeting).
    PointsTo { space: AddrSpace },
    /// Provenance is lost here; the reason is memory-space inference's.
    ProvenanceLostHere { reason: &'static str },
    /// A call whose callee returns pointers into more than one space.
    MixedCallResult,
    /// Parameter `param` is a struct with a restricted pointer field.
    RestrictField { param: u32 },
}

/// Where two spaces meet.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MeetPlace {
    /// A load from a local variable both pointers were stored to.
    LocalVariable,
    Select,
    /// A block parameter, passed a pointer by each of two branches.
    ControlFlowMerge,
}

/// What a diagnostic notes without a place, with its facts; `Display`
/// writes the note's text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DiagnosticNote {
    /// The pointer may point to either space, so it stays generic.
    EitherSpace { a: Space, b: Space },
    /// Provenance was lost; the reason is memory-space inference's.
    ProvenanceLost { reason: &'static str },
    /// The callee returns pointers into more than one space.
    MixedCallResults,
    /// The pointer is a parameter, seeded as the reason says.
    Parameter { reason: &'static str },
    /// The space was assumed, as the reason says (a knob's name in it).
    Assumed { reason: &'static str },
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Demands { op, space, operand } => {
                write!(f, "`{op}` needs {space} memory here (operand {operand})")
            }
            Label::ProvedHere { space } => {
                write!(f, "the pointer is proved to point to {space} memory here")
            }
            Label::SpacesMeet { a, b, place } => {
                let place = match place {
                    MeetPlace::LocalVariable => "loaded from a local variable both were stored to",
                    MeetPlace::Select => "select",
                    MeetPlace::ControlFlowMerge => "merge of control flow",
                };
                write!(f, "a {a} pointer and a {b} pointer meet here ({place})")
            }
            Label::PointsTo { space } => write!(f, "this pointer points to {space} memory"),
            Label::ProvenanceLostHere { reason } => write!(f, "provenance is lost here: {reason}"),
            Label::MixedCallResult => f.write_str("returned by this call, in no single space"),
            Label::RestrictField { param } => write!(
                f,
                "parameter {param} is a struct with a `__restrict__` pointer field (--allow-restrict-in-struct accepts it)"
            ),
        }
    }
}

impl fmt::Display for DiagnosticNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiagnosticNote::EitherSpace { a, b } => write!(
                f,
                "the pointer may point to {a} or to {b} memory, so it stays generic"
            ),
            DiagnosticNote::ProvenanceLost { reason } => write!(f, "provenance lost: {reason}"),
            DiagnosticNote::MixedCallResults => {
                f.write_str("the pointers that the callee returns are not all in one space")
            }
            DiagnosticNote::Parameter { reason } => write!(f, "the pointer is a {reason}"),
            DiagnosticNote::Assumed { reason } => f.write_str(reason),
        }
    }
}

/// What a pass found wrong (an error) or doubtful (a warning).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DiagnosticKind {
    /// Operand `operand` of `op` needs `space`, but the same pointer feeds
    /// `other_op`, which needs `other_space` (memory-space inference).
    ConflictingSpaces {
        op: Opcode,
        operand: usize,
        space: AddrSpace,
        other_op: Opcode,
        other_space: AddrSpace,
    },
    /// A pointer operand of `op` proved to point to `space`, which is not
    /// one of the spaces the operand admits.
    OperandSpace {
        op: Opcode,
        operand: usize,
        allowed: &'static [AddrSpace],
        space: AddrSpace,
    },
    /// A WMMA load or store through a pointer to const or local memory.
    Wmma { space: AddrSpace },
    /// An atomic through a pointer to local memory.
    AtomicOnLocal,
    /// An atomic through a pointer to const memory.
    AtomicOnConst,
    /// A vector atomic through a pointer to `space`, not global memory.
    VectorAtomic { space: AddrSpace },
    /// A generic load, store or atomic left in a kernel (`-Wgeneric`).
    GenericAccess { access: Access },
    /// An access of unknown space made global
    /// (`--memspace-assume-global`).
    AssumedGlobal,
    /// A restricted pointer inside by-value aggregate parameter `param`.
    RestrictInStruct { param: u32 },
}

impl DiagnosticKind {
    /// The stable code of this kind of diagnostic (`kernelc --explain`);
    /// every kind names its code here, so a new kind must choose one.
    pub fn code(&self) -> Code {
        use DiagnosticKind::*;
        match self {
            ConflictingSpaces { .. }
            | OperandSpace { .. }
            | Wmma { .. }
            | AtomicOnLocal
            | AtomicOnConst
            | VectorAtomic { .. } => Code::E0027,
            RestrictInStruct { .. } => Code::E0028,
            GenericAccess { .. } => Code::W0007,
            AssumedGlobal => Code::W0008,
        }
    }
}

/// The kinds of memory access.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Access {
    Load,
    Store,
    Atomic,
}

impl Diagnostic {
    /// A diagnostic at `span` of `function`, without labels or notes.
    pub fn new(kind: DiagnosticKind, function: &str, span: SourceSpan) -> Diagnostic {
        Diagnostic {
            kind,
            function: function.to_string(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Whether it fails the compilation, as its code says (memory-space
    /// inference's generic accesses and assumptions are warnings, `W`; the
    /// rest are errors, `E`).
    pub fn severity(&self) -> Severity {
        if self.code().is_warning() {
            Severity::Warning
        } else {
            Severity::Error
        }
    }

    /// The stable code of this diagnostic, its kind's.
    pub fn code(&self) -> Code {
        self.kind.code()
    }

    /// The message the user reads. Most say what nvcc says in the same
    /// case.
    pub fn message(&self) -> String {
        use DiagnosticKind::*;
        match &self.kind {
            ConflictingSpaces {
                op,
                operand,
                space,
                other_op,
                other_space,
            } => format!(
                "operand {operand} of `{op}` must point to {space} memory, but the same pointer must point to {other_space} memory for `{other_op}`"
            ),
            OperandSpace {
                op,
                operand,
                allowed,
                space,
            } => {
                let allowed: Vec<&str> = allowed
                    .iter()
                    .filter(|&&a| a != AddrSpace::Generic)
                    .map(|a| a.name())
                    .collect();
                format!(
                    "operand {operand} of `{op}` must point to {} memory, but it points to {space} memory",
                    allowed.join(" or ")
                )
            }
            Wmma { space } => {
                let space = match space {
                    AddrSpace::Const => "constant",
                    other => other.name(),
                };
                format!("Cannot do WMMA on {space} memory")
            }
            AtomicOnLocal => "Cannot do atomic on local memory".to_string(),
            AtomicOnConst => "Cannot do atomic operation on const memory".to_string(),
            VectorAtomic { space } => format!(
                "Cannot do vector atomic on {space} memory: `atomicAdd` on `float2` and `float4` needs global memory"
            ),
            GenericAccess { access } => {
                let access = match access {
                    Access::Load => "load",
                    Access::Store => "store",
                    Access::Atomic => "atomic",
                };
                format!(
                    "generic {access} left in kernel `{}`: the memory space of its pointer is not known",
                    self.function
                )
            }
            AssumedGlobal => {
                "Cannot tell what pointer points to, assuming global memory space".to_string()
            }
            RestrictInStruct { .. } => "function contains restrict keyword in struct".to_string(),
        }
    }
}

/// The texts that knobs ask passes to write, by topic. Each is empty
/// unless asked for.
#[derive(Clone, Debug, Default)]
pub struct Transcript {
    /// Memory-space inference's worklist (`--dump-ip-msp`).
    pub dump_ip_msp: String,
    /// Each pointer value's final space and why (`--explain-memspace`).
    pub explain_memspace: String,
    /// The accesses restrict processing stamped (`--dump-restrict`).
    pub dump_restrict: String,
}

/// Everything the passes of a pipeline report: errors and warnings
/// (memory-space inference, restrict processing, the atomic checks), the
/// `--explain-nc` notes of `mark-invariant`, and the transcripts.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// One note per global load of a kernel: whether it became
    /// `ld.global.nc`, and why not (`--explain-nc`; empty unless asked for).
    pub notes: Vec<Note>,
    pub transcript: Transcript,
}

impl Report {
    /// Whether a diagnostic is an error: the compilation fails.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == Severity::Error)
    }
}
