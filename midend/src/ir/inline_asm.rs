//! Inline PTX (`asm("..." : outputs : inputs : clobbers)` in CUDA C): the
//! `inline_asm` instruction.
//!
//! The IR does not understand the template: it is PTX text the back end
//! writes into the kernel with `%N` replaced by the register of operand `N`
//! (outputs first, then inputs, as GCC numbers them) and `%%` by `%`. What
//! the IR knows is each operand's register class (its constraint letter),
//! which outputs are also read (`+r`), which inputs are immediates (`n`),
//! and whether the statement is `volatile` or clobbers `"memory"`. Passes
//! treat every `inline_asm` as an unknown effect on memory and on the warp
//! (never removed, merged, moved or hoisted), which is what `volatile` and
//! `"memory"` ask and more than the rest needs.

use super::types::Type;
use core::fmt;

/// A register class of an operand: CUDA's constraint letters.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AsmReg {
    /// `h`: a 16-bit integer register (`.u16`).
    H,
    /// `r`: a 32-bit integer register (`.u32`).
    R,
    /// `l`: a 64-bit integer register (`.u64`).
    L,
    /// `f`: a 32-bit float register (`.f32`).
    F,
    /// `d`: a 64-bit float register (`.f64`).
    D,
}

impl AsmReg {
    pub fn letter(self) -> char {
        match self {
            AsmReg::H => 'h',
            AsmReg::R => 'r',
            AsmReg::L => 'l',
            AsmReg::F => 'f',
            AsmReg::D => 'd',
        }
    }

    pub fn from_letter(c: char) -> Option<AsmReg> {
        [AsmReg::H, AsmReg::R, AsmReg::L, AsmReg::F, AsmReg::D]
            .into_iter()
            .find(|r| r.letter() == c)
    }

    /// The IR type of a value in this class.
    pub fn ty(self) -> Type {
        match self {
            AsmReg::H => Type::I16,
            AsmReg::R => Type::I32,
            AsmReg::L => Type::I64,
            AsmReg::F => Type::F32,
            AsmReg::D => Type::F64,
        }
    }
}

/// An output operand: `=r` (written) or `+r` (`tied`: read and written;
/// its old value is an operand of the instruction).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct AsmOutput {
    pub reg: AsmReg,
    pub tied: bool,
}

/// An input operand: a value in a register, or an `n` immediate written
/// into the template as a number.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AsmInput {
    Reg(AsmReg),
    Imm(i64),
}

/// `v0, ... = inline_asm [volatile] [memory] "template" "outputs" "inputs"
/// args`: the instruction's operands are the old values of the tied
/// outputs (in output order), then the register inputs (in input order).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InlineAsm {
    pub template: String,
    pub outputs: Vec<AsmOutput>,
    pub inputs: Vec<AsmInput>,
    pub volatile: bool,
    /// The `"memory"` clobber.
    pub memory: bool,
}

impl InlineAsm {
    pub fn result_types(&self) -> Vec<Type> {
        self.outputs.iter().map(|o| o.reg.ty()).collect()
    }

    /// The operand types: tied outputs, then register inputs.
    pub fn operand_types(&self) -> Vec<Type> {
        let tied = self.outputs.iter().filter(|o| o.tied).map(|o| o.reg.ty());
        let inputs = self.inputs.iter().filter_map(|i| match i {
            AsmInput::Reg(r) => Some(r.ty()),
            AsmInput::Imm(_) => None,
        });
        tied.chain(inputs).collect()
    }

    /// The outputs as the text writes them: `=r,+l`.
    pub fn outputs_text(&self) -> String {
        let parts: Vec<String> = self
            .outputs
            .iter()
            .map(|o| format!("{}{}", if o.tied { '+' } else { '=' }, o.reg.letter()))
            .collect();
        parts.join(",")
    }

    /// The inputs as the text writes them: `r,n5`.
    pub fn inputs_text(&self) -> String {
        let parts: Vec<String> = self
            .inputs
            .iter()
            .map(|i| match i {
                AsmInput::Reg(r) => r.letter().to_string(),
                AsmInput::Imm(n) => format!("n{n}"),
            })
            .collect();
        parts.join(",")
    }

    /// Reads [`Self::outputs_text`] back.
    pub fn parse_outputs(text: &str) -> Result<Vec<AsmOutput>, ConstraintError> {
        split_list(text)
            .map(|p| {
                let mut cs = p.chars();
                let tied = match cs.next() {
                    Some('=') => false,
                    Some('+') => true,
                    _ => {
                        return Err(ConstraintError::OutputPrefix {
                            constraint: p.to_string(),
                        })
                    }
                };
                let reg = one_letter(cs.as_str())?;
                Ok(AsmOutput { reg, tied })
            })
            .collect()
    }

    /// Reads [`Self::inputs_text`] back.
    pub fn parse_inputs(text: &str) -> Result<Vec<AsmInput>, ConstraintError> {
        split_list(text)
            .map(|p| match p.strip_prefix('n') {
                Some(n) => n
                    .parse()
                    .map(AsmInput::Imm)
                    .map_err(|_| ConstraintError::Immediate {
                        input: p.to_string(),
                    }),
                None => one_letter(p).map(AsmInput::Reg),
            })
            .collect()
    }
}

fn split_list(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').filter(|p| !p.is_empty())
}

fn one_letter(s: &str) -> Result<AsmReg, ConstraintError> {
    let mut cs = s.chars();
    match (cs.next().and_then(AsmReg::from_letter), cs.next()) {
        (Some(r), None) => Ok(r),
        _ => Err(ConstraintError::Register {
            constraint: s.to_string(),
        }),
    }
}

/// Why the outputs or inputs of an `inline_asm` do not read
/// ([`InlineAsm::parse_outputs`], [`InlineAsm::parse_inputs`]); `Display`
/// is the message the IR parser reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstraintError {
    /// An output that starts with neither `=` nor `+`.
    OutputPrefix { constraint: String },
    /// An `n` input whose number is not a 64-bit integer.
    Immediate { input: String },
    /// A register class other than one letter of `h`, `r`, `l`, `f`, `d`.
    Register { constraint: String },
}

impl fmt::Display for ConstraintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstraintError::OutputPrefix { constraint } => {
                write!(f, "output constraint '{constraint}' must start with = or +")
            }
            ConstraintError::Immediate { input } => write!(f, "bad immediate input '{input}'"),
            ConstraintError::Register { constraint } => write!(
                f,
                "unknown register constraint '{constraint}' (h, r, l, f or d)"
            ),
        }
    }
}

impl std::error::Error for ConstraintError {}

/// Why a template does not substitute ([`substitute`]); `Display` is the
/// message the diagnostics and the verifier show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateError {
    /// `%number` with `count` operands, `number` not below it.
    NoOperand { number: usize, count: usize },
    /// A `%` followed by neither digits nor `%`.
    BarePercent,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::NoOperand { number, count } => {
                write!(f, "%{number} names no operand (there are {count})")
            }
            TemplateError::BarePercent => {
                f.write_str("'%' must be followed by an operand number or '%'")
            }
        }
    }
}

impl std::error::Error for TemplateError {}

/// The template with `%N` replaced by `operand(N)` and `%%` by `%`; the
/// error names a `%N` past the operands or a `%` followed by neither.
pub fn substitute(
    template: &str,
    count: usize,
    mut operand: impl FnMut(usize) -> String,
) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(template.len());
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        match digits.parse::<usize>() {
            Ok(n) if n < count => out.push_str(&operand(n)),
            Ok(number) => return Err(TemplateError::NoOperand { number, count }),
            Err(_) => return Err(TemplateError::BarePercent),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_round_trip_through_text() {
        let outs = InlineAsm::parse_outputs("=r,+l,=f").unwrap();
        let ins = InlineAsm::parse_inputs("h,n-5,d").unwrap();
        let a = InlineAsm {
            template: String::new(),
            outputs: outs,
            inputs: ins,
            volatile: false,
            memory: false,
        };
        assert_eq!(a.outputs_text(), "=r,+l,=f");
        assert_eq!(a.inputs_text(), "h,n-5,d");
        assert_eq!(a.operand_types(), vec![Type::I64, Type::I16, Type::F64]);
        assert_eq!(
            InlineAsm::parse_outputs("r"),
            Err(ConstraintError::OutputPrefix {
                constraint: "r".into()
            })
        );
        let register = InlineAsm::parse_inputs("q").unwrap_err();
        assert_eq!(
            register,
            ConstraintError::Register {
                constraint: "q".into()
            }
        );
        assert_eq!(
            register.to_string(),
            "unknown register constraint 'q' (h, r, l, f or d)"
        );
        assert_eq!(
            InlineAsm::parse_inputs("r,nx"),
            Err(ConstraintError::Immediate { input: "nx".into() })
        );
    }

    #[test]
    fn substitution_replaces_operands_and_escapes() {
        let s = substitute("mov.u32 %0, %%laneid; add %1, %10;", 11, |n| {
            format!("R{n}")
        });
        assert_eq!(s.unwrap(), "mov.u32 R0, %laneid; add R1, R10;");
        let past = substitute("mov %2;", 2, |n| n.to_string()).unwrap_err();
        assert_eq!(
            past,
            TemplateError::NoOperand {
                number: 2,
                count: 2
            }
        );
        assert_eq!(past.to_string(), "%2 names no operand (there are 2)");
        assert_eq!(
            substitute("50%;", 2, |n| n.to_string()),
            Err(TemplateError::BarePercent)
        );
    }
}
