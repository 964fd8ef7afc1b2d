//! Supported GPU targets and the PTX `.version` each one needs.
//!
//! ptxas refuses a module whose `.version` is older than what its `.target`
//! was introduced with (`PTX .version 7.5 does not support .target sm_90`),
//! and some instructions need a newer `.version` still. So the version we
//! print is the maximum of two floors: the target's (a fixed table, found by
//! sweeping ptxas 13.5, see `shared/ptx-facts.md` §1) and each feature's
//! that the selected code uses ([`Features`]).

use core::fmt;
use target_lexicon::Triple;

/// A PTX ISA version, `(major, minor)`: `(7, 8)` prints as `7.8`.
pub type PtxVersion = (u32, u32);

/// One row of the target table: the `.target` name and its minimum `.version`.
struct TargetRow {
    name: &'static str,
    sm: u32,
    min_version: PtxVersion,
}

/// Every target kernelc can emit for. Keep it sorted by SM number; a new GPU
/// is one new row.
#[rustfmt::skip]
const TARGETS: &[TargetRow] = &[
    TargetRow { name: "sm_75", sm: 75, min_version: (6, 3) },
    TargetRow { name: "sm_80", sm: 80, min_version: (7, 0) },
    TargetRow { name: "sm_86", sm: 86, min_version: (7, 1) },
    TargetRow { name: "sm_89", sm: 89, min_version: (7, 8) },
    TargetRow { name: "sm_90", sm: 90, min_version: (7, 8) },
    TargetRow { name: "sm_90a", sm: 90, min_version: (8, 0) },
    TargetRow { name: "sm_100", sm: 100, min_version: (8, 6) },
    TargetRow { name: "sm_100a", sm: 100, min_version: (8, 6) },
    TargetRow { name: "sm_103a", sm: 103, min_version: (8, 8) },
    TargetRow { name: "sm_120", sm: 120, min_version: (8, 7) },
    TargetRow { name: "sm_120a", sm: 120, min_version: (8, 7) },
];

/// The first PTX ISA version whose `ld`/`st` take `.volatile` on the
/// `.local` space. ptxas 13.5 says, on every target from sm_75 to sm_121 and
/// for every `.version` from the target's floor to 9.0: `Feature 'ld/st with
/// .local.volatile' requires PTX ISA .version 9.1 or later` (swept with every
/// type and vector width; `tests/memory_forms.rs` re-checks every form the
/// backend emits against ptxas on every target). Raising the `.version`
/// to 9.1 for one `volatile` local variable would break `--ptx-version` and
/// every driver older than CUDA 13.1, so selection does not use the form
/// below it (`Isel::volatile_local_as_generic`).
pub const VOLATILE_LOCAL_VERSION: PtxVersion = (9, 1);

/// The LLVM-style triple of every PTX module we write. It only records the
/// architecture (64-bit NVPTX); the SM number lives in [`Target`].
pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// A GPU architecture to compile for, e.g. `sm_90`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Target {
    /// Index into [`TARGETS`]: a `Target` can only name a supported row.
    row: usize,
}

/// `Target::parse` was given a name not in the table.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownTarget {
    pub name: String,
}

impl fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown target `{}`; valid targets are: ", self.name)?;
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        f.write_str(&names.join(", "))
    }
}

impl std::error::Error for UnknownTarget {}

impl Target {
    /// Looks a target up by its `.target` name (`"sm_90a"`).
    pub fn parse(name: &str) -> Result<Target, UnknownTarget> {
        TARGETS
            .iter()
            .position(|t| t.name == name)
            .map(|row| Target { row })
            .ok_or_else(|| UnknownTarget {
                name: name.to_string(),
            })
    }

    /// Every supported target, oldest first.
    pub fn all() -> impl Iterator<Item = Target> {
        (0..TARGETS.len()).map(|row| Target { row })
    }

    /// The name printed after `.target`.
    pub fn name(self) -> &'static str {
        TARGETS[self.row].name
    }

    /// The SM number (`90` for both `sm_90` and `sm_90a`), for feature checks.
    pub fn sm(self) -> u32 {
        TARGETS[self.row].sm
    }

    /// The oldest `.version` ptxas accepts with this `.target`.
    pub fn min_ptx_version(self) -> PtxVersion {
        TARGETS[self.row].min_version
    }

    /// Whether `ld.volatile.local`/`st.volatile.local` assemble at this
    /// target's floor `.version` (see [`VOLATILE_LOCAL_VERSION`]). When they
    /// do not, a volatile access to local memory goes through the generic
    /// window instead, which keeps the `.version` where it was.
    pub fn has_volatile_local(self) -> bool {
        self.min_ptx_version() >= VOLATILE_LOCAL_VERSION
    }

    /// The `.version` to print: the newest of the target's floor and what
    /// every used feature needs.
    pub fn ptx_version(self, features: &Features) -> PtxVersion {
        self.min_ptx_version().max(features.min_version())
    }

    /// The target triple, parsed by target-lexicon (always 64-bit NVPTX).
    pub fn triple() -> Triple {
        TRIPLE
            .parse()
            .expect("the NVPTX triple is known to target-lexicon")
    }

    /// Checks a `--target` triple: kernelc writes 64-bit NVPTX only.
    /// target-lexicon parses it, so any spelling it knows for that
    /// architecture is accepted; everything else is a clear error.
    pub fn check_triple(text: &str) -> Result<Triple, TripleError> {
        let triple: Triple = match text.parse() {
            Ok(triple) => triple,
            // target-lexicon has no name for 32-bit NVPTX.
            Err(target_lexicon::ParseError::UnrecognizedArchitecture(arch)) if arch == "nvptx" => {
                return Err(TripleError::Nvptx32 {
                    text: text.to_string(),
                })
            }
            Err(reason) => {
                return Err(TripleError::NotATriple {
                    text: text.to_string(),
                    reason,
                })
            }
        };
        match triple.architecture {
            target_lexicon::Architecture::Nvptx64 => Ok(triple),
            arch => Err(TripleError::OtherArchitecture {
                text: text.to_string(),
                arch,
            }),
        }
    }
}

/// Why a `--target` triple is refused: kernelc writes 64-bit NVPTX only.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TripleError {
    /// Not a triple target-lexicon can read, and why.
    NotATriple {
        text: String,
        reason: target_lexicon::ParseError,
    },
    /// 32-bit NVPTX, which ptxas no longer takes.
    Nvptx32 { text: String },
    /// A triple of another architecture.
    OtherArchitecture {
        text: String,
        arch: target_lexicon::Architecture,
    },
}

impl fmt::Display for TripleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TripleError::NotATriple { text, reason } => {
                write!(f, "`{text}` is not a target triple ({reason})")
            }
            TripleError::Nvptx32 { text } => write!(
                f,
                "target `{text}` is 32-bit NVPTX, which ptxas no longer supports; use `{TRIPLE}`"
            ),
            TripleError::OtherArchitecture { text, arch } => write!(
                f,
                "kernelc only generates code for `{TRIPLE}`, not for `{text}` (architecture `{arch}`)"
            ),
        }
    }
}

impl std::error::Error for TripleError {}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The PTX features a module uses that need more than the target's floor
/// `.version`. Instruction selection records a feature when it emits an
/// instruction that needs it; the writer then asks [`Target::ptx_version`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// `(what, needed .version)`, in the order first used.
    used: Vec<(&'static str, PtxVersion)>,
}

impl Features {
    /// Records that `what` (a short description, e.g. `"cvta.param"`) needs
    /// `.version` `version` or later.
    pub fn require(&mut self, what: &'static str, version: PtxVersion) {
        if !self.used.iter().any(|(w, _)| *w == what) {
            self.used.push((what, version));
        }
    }

    /// The newest `.version` any recorded feature needs (`(0, 0)` if none).
    pub fn min_version(&self) -> PtxVersion {
        self.used.iter().map(|&(_, v)| v).max().unwrap_or((0, 0))
    }

    /// Merges the features another function used.
    pub fn extend(&mut self, other: &Features) {
        for &(what, v) in &other.used {
            self.require(what, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_row_and_rejects_others() {
        for t in Target::all() {
            assert_eq!(Target::parse(t.name()), Ok(t));
        }
        let err = Target::parse("sm_70").unwrap_err().to_string();
        assert!(err.contains("unknown target `sm_70`"), "{err}");
        assert!(err.contains("sm_75, sm_80"), "{err}");
    }

    #[test]
    fn version_is_the_max_of_target_and_features() {
        let sm80 = Target::parse("sm_80").unwrap();
        let mut f = Features::default();
        assert_eq!(sm80.ptx_version(&f), (7, 0));
        f.require("cvta.param", (7, 7));
        assert_eq!(sm80.ptx_version(&f), (7, 7));
        let sm100 = Target::parse("sm_100a").unwrap();
        assert_eq!(sm100.ptx_version(&f), (8, 6));
    }

    #[test]
    fn only_64_bit_nvptx_triples_are_accepted() {
        assert!(Target::check_triple("nvptx64-nvidia-cuda").is_ok());
        let x86 = Target::check_triple("x86_64-unknown-linux-gnu").unwrap_err();
        assert!(
            matches!(
                x86,
                TripleError::OtherArchitecture {
                    arch: target_lexicon::Architecture::X86_64,
                    ..
                }
            ),
            "{x86}"
        );
        assert!(
            x86.to_string()
                .contains("only generates code for `nvptx64-nvidia-cuda`"),
            "{x86}"
        );
        let bad = Target::check_triple("not a triple").unwrap_err();
        assert!(matches!(bad, TripleError::NotATriple { .. }), "{bad}");
        assert!(bad.to_string().contains("is not a target triple"), "{bad}");
        assert_eq!(
            Target::check_triple("nvptx-nvidia-cuda"),
            Err(TripleError::Nvptx32 {
                text: "nvptx-nvidia-cuda".into()
            })
        );
    }

    #[test]
    fn triple_is_nvptx64() {
        let t = Target::triple();
        assert_eq!(t.architecture, target_lexicon::Architecture::Nvptx64);
    }
}
