//! Seeded random mutations of PTX, to measure how often ptx-validate and
//! ptxas agree on files neither was written for.
//!
//! A mutant is a valid PTX file with one random change: a token deleted,
//! repeated or swapped with its neighbour; a type, modifier, state space,
//! vector width or opcode replaced by another spelling seen in the sources;
//! a register, immediate, address, guard or label operand changed; a line
//! deleted, repeated or swapped; a declaration, performance directive,
//! `.version`, `.target` or `.address_size` changed; or a statement that
//! exercises a target or version rule inserted. Many mutants are still
//! valid PTX (another type of the same width, a register of the right
//! class), which is what makes false rejections measurable.
//!
//! Everything is decided by [`Rng`], so one seed gives the same mutants on
//! every machine. The workspace's `tests/ptx_mutants.rs` feeds kernelc's and
//! nvcc's PTX through [`mutate`] and compares the verdicts.

use crate::isa;
use crate::lexer::{lex, Tok};
use std::collections::BTreeSet;

/// The workspace's one seeded generator (`stdx::rng`, splitmix64), with
/// the draws the mutations need.
pub struct Rng(stdx::rng::SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(stdx::rng::SplitMix64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

/// Spellings seen in the source files, for the mutations that replace one
/// spelling by another: opcodes, modifiers, registers, labels, numbers.
#[derive(Clone, Debug, Default)]
pub struct Pools {
    pub opcodes: Vec<String>,
    pub modifiers: Vec<String>,
}

impl Pools {
    /// Collects the opcodes and modifiers of every instruction in `sources`.
    pub fn gather<'a>(sources: impl IntoIterator<Item = &'a str>) -> Pools {
        let mut opcodes = BTreeSet::new();
        let mut modifiers = BTreeSet::new();
        for src in sources {
            for line in src.lines() {
                if let Some(inst) = split_inst(line) {
                    let mut parts = inst.mnemonic.split('.');
                    if let Some(op) = parts.next() {
                        opcodes.insert(op.to_string());
                    }
                    modifiers.extend(parts.filter(|m| !m.is_empty()).map(|m| format!(".{m}")));
                }
            }
        }
        Pools {
            opcodes: opcodes.into_iter().collect(),
            modifiers: modifiers.into_iter().collect(),
        }
    }
}

/// One mutant: which operator made it, the line it changed (1-based) and
/// the whole mutated text.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub operator: &'static str,
    pub line: usize,
    pub text: String,
}

/// An instruction line cut into its parts: `indent @guard mnemonic
/// operands;`, operands split at top-level commas.
#[derive(Clone, Debug)]
struct InstLine {
    indent: String,
    guard: Option<String>,
    mnemonic: String,
    operands: Vec<String>,
}

impl InstLine {
    fn render(&self) -> String {
        let guard = self
            .guard
            .as_ref()
            .map_or(String::new(), |g| format!("{g} "));
        if self.operands.is_empty() {
            format!("{}{guard}{};", self.indent, self.mnemonic)
        } else {
            format!(
                "{}{guard}{} {};",
                self.indent,
                self.mnemonic,
                self.operands.join(", ")
            )
        }
    }

    fn opcode(&self) -> &str {
        self.mnemonic.split('.').next().unwrap_or("")
    }

    /// The modifiers, each with its dot.
    fn modifiers(&self) -> Vec<String> {
        self.mnemonic
            .split('.')
            .skip(1)
            .map(|m| format!(".{m}"))
            .collect()
    }

    fn set_modifiers(&mut self, mods: &[String]) {
        self.mnemonic = format!("{}{}", self.opcode(), mods.concat());
    }
}

/// Cuts an instruction line, or `None` for anything else (directives,
/// labels, braces, comments).
fn split_inst(line: &str) -> Option<InstLine> {
    let body = line.split("//").next()?.trim_end();
    let trimmed = body.trim_start();
    let indent = &body[..body.len() - trimmed.len()];
    let text = trimmed.strip_suffix(';')?;
    let (guard, rest) = match text.strip_prefix('@') {
        Some(g) => {
            let (guard, rest) = g.split_once(char::is_whitespace)?;
            (Some(format!("@{guard}")), rest.trim_start())
        }
        None => (None, text),
    };
    if !rest.starts_with(|c: char| c.is_ascii_lowercase()) {
        return None;
    }
    let (mnemonic, operands) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(m, o)| (m, o.trim()));
    if mnemonic.contains([':', '{', '}']) && !mnemonic.contains("::") {
        return None;
    }
    Some(InstLine {
        indent: indent.to_string(),
        guard,
        mnemonic: mnemonic.to_string(),
        operands: split_operands(operands),
    })
}

/// Splits at the commas outside `{}`, `[]` and `()`.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The file's lines, and what each operator can see of them.
struct File<'a> {
    lines: Vec<&'a str>,
    /// Indices of the lines the operators may change: all but the debug
    /// information of `-G` files (`.loc`, `.file` and the DWARF bytes of
    /// `.section` blocks), which ptx-validate skips and ptxas decodes with
    /// a DWARF reader that no PTX rule describes.
    open: Vec<usize>,
    /// Indices of instruction lines.
    insts: Vec<usize>,
    /// Every `%name` written in an instruction, and every label.
    registers: Vec<String>,
    labels: Vec<String>,
}

impl<'a> File<'a> {
    fn new(src: &'a str) -> File<'a> {
        let lines: Vec<&str> = src.lines().collect();
        let mut open = Vec::new();
        let mut in_section = false;
        for (k, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            if t.starts_with(".section") {
                in_section = true;
            } else if in_section {
                in_section = !t.starts_with('}');
            } else if !t.starts_with(".loc") && !t.starts_with(".file") {
                open.push(k);
            }
        }
        let insts: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&k| split_inst(lines[k]).is_some())
            .collect();
        let mut registers = BTreeSet::new();
        let mut labels = BTreeSet::new();
        for t in lex(src) {
            if let Tok::Ident(name) = t.tok {
                if name.starts_with('%') && isa::special(&name).is_none() {
                    registers.insert(name);
                } else if name.starts_with('$') {
                    labels.insert(name);
                }
            }
        }
        File {
            lines,
            open,
            insts,
            registers: registers.into_iter().collect(),
            labels: labels.into_iter().collect(),
        }
    }

    /// The text with `span` lines from line `k` replaced by `new` (several
    /// lines, or none).
    fn with_lines(&self, k: usize, span: usize, new: &str) -> String {
        let mut out = String::new();
        for (i, l) in self.lines.iter().enumerate() {
            if i == k && !new.is_empty() {
                out.push_str(new);
                out.push('\n');
            }
            if !(k..k + span).contains(&i) {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }

    /// A random instruction line that `f` can change.
    fn on_inst(
        &self,
        rng: &mut Rng,
        mut f: impl FnMut(&mut InstLine, &mut Rng) -> bool,
    ) -> Option<Edit> {
        for _ in 0..8 {
            let &k = rng.pick(&self.insts)?;
            let mut inst = split_inst(self.lines[k])?;
            if f(&mut inst, rng) {
                return Some(Edit(k, 1, inst.render()));
            }
        }
        None
    }

    /// A random line whose trimmed text starts with one of `prefixes`.
    fn line_starting(&self, rng: &mut Rng, prefixes: &[&str]) -> Option<usize> {
        let found: Vec<usize> = self
            .open
            .iter()
            .copied()
            .filter(|&k| {
                let t = self.lines[k].trim_start();
                prefixes.iter().any(|p| t.starts_with(p))
            })
            .collect();
        rng.pick(&found).copied()
    }
}

/// A mutation: the first line it replaces, how many lines, and their new
/// text (several lines, or none).
struct Edit(usize, usize, String);

/// A mutation operator.
type Op = fn(&File, &Pools, &mut Rng) -> Option<Edit>;

/// Every operator with its weight (how often it is drawn, out of the sum).
const OPERATORS: &[(&str, Op, u64)] = &[
    ("token-delete", token_delete, 6),
    ("token-duplicate", token_duplicate, 3),
    ("token-swap", token_swap, 3),
    ("type-change", type_change, 8),
    ("modifier-change", modifier_change, 7),
    ("modifier-delete", modifier_delete, 5),
    ("modifier-insert", modifier_insert, 5),
    ("space-change", space_change, 4),
    ("vector-change", vector_change, 3),
    ("opcode-change", opcode_change, 4),
    ("register-change", register_change, 7),
    ("register-undeclared", register_undeclared, 2),
    ("special-register", special_register, 3),
    ("operand-delete", operand_delete, 3),
    ("operand-duplicate", operand_duplicate, 2),
    ("operand-swap", operand_swap, 3),
    ("operand-immediate", operand_immediate, 4),
    ("number-change", number_change, 6),
    ("address-change", address_change, 5),
    ("guard-change", guard_change, 3),
    ("label-change", label_change, 2),
    ("line-delete", line_delete, 3),
    ("line-duplicate", line_duplicate, 2),
    ("line-swap", line_swap, 2),
    ("declaration-change", declaration_change, 4),
    ("directive-change", directive_change, 2),
    ("version-change", version_change, 2),
    ("target-change", target_change, 2),
    ("address-size-change", address_size_change, 1),
    ("injection", injection, 6),
];

/// The names of every operator, for reports.
pub fn operator_names() -> Vec<&'static str> {
    OPERATORS.iter().map(|(n, _, _)| *n).collect()
}

/// One mutant of `src`, or `None` when no operator found anything to change
/// (a file without instructions).
pub fn mutate(src: &str, pools: &Pools, rng: &mut Rng) -> Option<Mutant> {
    let file = File::new(src);
    let total: u64 = OPERATORS.iter().map(|o| o.2).sum();
    for _ in 0..32 {
        let mut draw = rng.next_u64() % total;
        let &(name, op, _) = OPERATORS
            .iter()
            .find(|o| {
                let hit = draw < o.2;
                draw = draw.saturating_sub(o.2);
                hit
            })
            .unwrap_or(&OPERATORS[0]);
        let Some(Edit(k, span, new)) = op(&file, pools, rng) else {
            continue;
        };
        if span == 1 && new == file.lines[k] {
            continue;
        }
        return Some(Mutant {
            operator: name,
            line: k + 1,
            text: file.with_lines(k, span, &new),
        });
    }
    None
}

/// One token of a line with the whitespace before it, so that a line put
/// back together keeps its spacing.
#[derive(Clone, Debug)]
struct Token {
    space: String,
    text: String,
}

/// The tokens of one line: words (`ld`, `%rd4`, `$L__BB0_2`, numbers),
/// dot words (`.global`, each modifier of a mnemonic on its own) and single
/// punctuation marks.
fn tokens(line: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let mut space = String::new();
    let mut cur = String::new();
    let flush = |space: &mut String, cur: &mut String, out: &mut Vec<Token>| {
        if !cur.is_empty() {
            out.push(Token {
                space: std::mem::take(space),
                text: std::mem::take(cur),
            });
        }
    };
    for c in line.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '%' | '$' | ':') {
            cur.push(c);
        } else if c == '.' {
            flush(&mut space, &mut cur, &mut out);
            cur.push(c);
        } else {
            flush(&mut space, &mut cur, &mut out);
            if c.is_whitespace() {
                space.push(c);
            } else {
                out.push(Token {
                    space: std::mem::take(&mut space),
                    text: c.to_string(),
                });
            }
        }
    }
    flush(&mut space, &mut cur, &mut out);
    out
}

fn untokens(toks: &[Token]) -> String {
    toks.iter()
        .map(|t| format!("{}{}", t.space, t.text))
        .collect()
}

/// A line of the file with at least two tokens that is not a comment.
fn body_line(file: &File, rng: &mut Rng) -> Option<(usize, Vec<Token>)> {
    for _ in 0..8 {
        let &k = rng.pick(&file.open)?;
        let line = file.lines[k];
        let toks = tokens(line);
        if toks.len() >= 2 && !line.trim_start().starts_with("//") {
            return Some((k, toks));
        }
    }
    None
}

fn token_delete(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let (k, mut toks) = body_line(file, rng)?;
    toks.remove(rng.below(toks.len()));
    Some(Edit(k, 1, untokens(&toks)))
}

fn token_duplicate(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let (k, mut toks) = body_line(file, rng)?;
    let i = rng.below(toks.len());
    toks.insert(i, toks[i].clone());
    Some(Edit(k, 1, untokens(&toks)))
}

fn token_swap(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let (k, mut toks) = body_line(file, rng)?;
    let i = rng.below(toks.len() - 1);
    let (a, b) = (toks[i].text.clone(), toks[i + 1].text.clone());
    toks[i].text = b;
    toks[i + 1].text = a;
    Some(Edit(k, 1, untokens(&toks)))
}

/// Every type ptx-validate knows, and a few it does not.
const TYPES: &[&str] = &[
    ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32",
    ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32", ".pred", ".e4m3",
    ".f128", ".u128", ".s4",
];

fn type_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let mut mods = inst.modifiers();
        let at: Vec<usize> = (0..mods.len())
            .filter(|&i| isa::is_type(&mods[i]))
            .collect();
        let (Some(&i), Some(new)) = (rng.pick(&at), rng.pick(TYPES)) else {
            return false;
        };
        mods[i] = new.to_string();
        inst.set_modifiers(&mods);
        true
    })
}

fn modifier_change(file: &File, pools: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let mut mods = inst.modifiers();
        if mods.is_empty() {
            return false;
        }
        let i = rng.below(mods.len());
        let Some(new) = rng.pick(&pools.modifiers) else {
            return false;
        };
        mods[i] = new.clone();
        inst.set_modifiers(&mods);
        true
    })
}

fn modifier_delete(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let mut mods = inst.modifiers();
        if mods.is_empty() {
            return false;
        }
        mods.remove(rng.below(mods.len()));
        inst.set_modifiers(&mods);
        true
    })
}

/// Misspellings and modifiers that exist nowhere, beside the pool's.
const ODD_MODIFIERS: &[&str] = &[
    ".generic",
    ".sync",
    ".aligned",
    ".volatile",
    ".relaxed",
    ".acquire",
    ".release",
    ".gpu",
    ".cta",
    ".sys",
    ".nc",
    ".ftz",
    ".sat",
    ".approx",
    ".rn",
    ".rz",
    ".rni",
    ".wide",
    ".hi",
    ".lo",
    ".cc",
    ".uni",
    ".to",
    ".x",
    ".lt",
    ".eq",
    ".globl",
    ".sharedd",
    ".v3",
    ".v8",
    ".L2::512B",
    ".weak",
    ".mmio",
    ".noftz",
    ".full",
    ".shiftamt",
    ".clamp",
    ".wrap",
];

fn modifier_insert(file: &File, pools: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let mut mods = inst.modifiers();
        let new = if rng.chance(70) {
            rng.pick(&pools.modifiers).cloned()
        } else {
            rng.pick(ODD_MODIFIERS).map(|m| m.to_string())
        };
        let Some(new) = new else { return false };
        mods.insert(rng.below(mods.len() + 1), new);
        inst.set_modifiers(&mods);
        true
    })
}

const SPACES: &[&str] = &[
    ".global",
    ".shared",
    ".shared::cta",
    ".shared::cluster",
    ".local",
    ".const",
    ".param",
    ".param::entry",
    ".param::func",
    ".generic",
    ".tex",
];

fn space_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let mut mods = inst.modifiers();
        let new = rng.pick(SPACES).map(|s| s.to_string());
        let Some(new) = new else { return false };
        match (0..mods.len()).find(|&i| isa::is_space(&mods[i])) {
            Some(i) => mods[i] = new,
            None if matches!(inst.opcode(), "ld" | "st" | "atom" | "red" | "cvta") => {
                mods.insert(0, new)
            }
            None => return false,
        }
        inst.set_modifiers(&mods);
        true
    })
}

fn vector_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        if !matches!(inst.opcode(), "ld" | "st" | "atom" | "red" | "mov") {
            return false;
        }
        let mut mods = inst.modifiers();
        let new = rng.pick(&["", ".v2", ".v4", ".v8"]).copied().unwrap_or("");
        match mods.iter().position(|m| m.starts_with(".v")) {
            Some(i) if new.is_empty() => {
                mods.remove(i);
            }
            Some(i) => mods[i] = new.to_string(),
            None if !new.is_empty() => mods.insert(mods.len().saturating_sub(1), new.to_string()),
            None => return false,
        }
        inst.set_modifiers(&mods);
        true
    })
}

fn opcode_change(file: &File, pools: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let Some(new) = rng.pick(&pools.opcodes) else {
            return false;
        };
        let mods = inst.modifiers();
        inst.mnemonic = new.clone();
        inst.set_modifiers(&mods);
        true
    })
}

/// The `%name` operands of an instruction: (operand index, byte range).
fn register_sites(inst: &InstLine) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for (i, o) in inst.operands.iter().enumerate() {
        let b = o.as_bytes();
        let mut k = 0;
        while k < b.len() {
            if b[k] == b'%' {
                let end = k
                    + 1
                    + o[k + 1..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(o.len() - k - 1);
                if isa::special(&o[k..end]).is_none() {
                    out.push((i, k, end));
                }
                k = end;
            } else {
                k += 1;
            }
        }
    }
    out
}

/// Replaces one `%register` operand by what `with` gives.
fn replace_register(
    file: &File,
    rng: &mut Rng,
    with: impl Fn(&File, &str, &mut Rng) -> Option<String>,
) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let sites = register_sites(inst);
        let Some(&(i, s, e)) = rng.pick(&sites) else {
            return false;
        };
        let old = inst.operands[i][s..e].to_string();
        let Some(new) = with(file, &old, rng) else {
            return false;
        };
        inst.operands[i].replace_range(s..e, &new);
        true
    })
}

fn register_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    replace_register(file, rng, |file, old, rng| {
        // Half the time a register of the same class (often still valid).
        let prefix = old.trim_end_matches(|c: char| c.is_ascii_digit());
        let same: Vec<&String> = file
            .registers
            .iter()
            .filter(|r| r.trim_end_matches(|c: char| c.is_ascii_digit()) == prefix)
            .collect();
        if rng.chance(50) {
            rng.pick(&same).map(|r| r.to_string())
        } else {
            rng.pick(&file.registers).cloned()
        }
    })
}

fn register_undeclared(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    replace_register(file, rng, |_, old, rng| {
        let prefix = old.trim_end_matches(|c: char| c.is_ascii_digit());
        Some(match rng.below(3) {
            0 => format!("{prefix}99999"),
            1 => format!("{prefix}0"),
            _ => "%zz1".to_string(),
        })
    })
}

const SPECIALS: &[&str] = &[
    "%tid.x",
    "%ntid.y",
    "%ctaid.z",
    "%nctaid.x",
    "%laneid",
    "%warpid",
    "%clock",
    "%clock64",
    "%smid",
    "%lanemask_lt",
    "%tid",
    "%cluster_ctarank",
    "%globaltimer",
    "%dynamic_smem_size",
    "%laneid.x",
    "%envreg3",
    "WARP_SZ",
    "%gridid",
];

fn special_register(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    replace_register(file, rng, |_, _, rng| {
        rng.pick(SPECIALS).map(|s| s.to_string())
    })
}

fn operand_delete(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        if inst.operands.is_empty() {
            return false;
        }
        inst.operands.remove(rng.below(inst.operands.len()));
        true
    })
}

fn operand_duplicate(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        if inst.operands.is_empty() {
            return false;
        }
        let i = rng.below(inst.operands.len());
        let o = inst.operands[i].clone();
        inst.operands.insert(i, o);
        true
    })
}

fn operand_swap(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        if inst.operands.len() < 2 {
            return false;
        }
        let i = rng.below(inst.operands.len() - 1);
        inst.operands.swap(i, i + 1);
        true
    })
}

/// Integer spellings around the edges ptxas cares about.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "4",
    "7",
    "8",
    "15",
    "16",
    "17",
    "24",
    "31",
    "32",
    "33",
    "63",
    "64",
    "127",
    "128",
    "255",
    "256",
    "1023",
    "1024",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "0x7FFFFFFF",
    "0xFFFFFFFF",
    "0x80000000000000000",
    "0x1F",
    "010",
    "0b101",
    "4+4",
    "(1<<3)",
    "WARP_SZ",
    "1.5",
    "0f3F800000",
    "0d3FF0000000000000",
    "1e39",
    "1e309",
    "-0.0",
    "0f7FC00000",
];

fn number_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    for _ in 0..8 {
        let (k, mut toks) = body_line(file, rng)?;
        let sites: Vec<usize> = (0..toks.len())
            .filter(|&i| toks[i].text.starts_with(|c: char| c.is_ascii_digit()))
            .collect();
        let Some(&i) = rng.pick(&sites) else {
            continue;
        };
        toks[i].text = rng.pick(NUMBERS)?.to_string();
        return Some(Edit(k, 1, untokens(&toks)));
    }
    None
}

fn operand_immediate(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        if inst.operands.is_empty() {
            return false;
        }
        let i = rng.below(inst.operands.len());
        inst.operands[i] = rng.pick(NUMBERS).map_or("0".into(), |n| n.to_string());
        true
    })
}

fn address_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let sites: Vec<usize> = (0..inst.operands.len())
            .filter(|&i| inst.operands[i].starts_with('['))
            .collect();
        let Some(&i) = rng.pick(&sites) else {
            return false;
        };
        let inner = inst.operands[i]
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let base = inner.split('+').next().unwrap_or("").to_string();
        let new = match rng.below(7) {
            0 => format!("{base}+-{}", 1 << rng.below(12)),
            1 => format!("{base}-4"),
            2 => format!("{base}+{}+{}", rng.below(64), rng.below(8)),
            3 => rng.pick(&file.registers).cloned().unwrap_or(base),
            4 => format!("{}", 4 * rng.below(16)),
            5 => format!("{base}+4294967296"),
            _ => format!("{base}+{}", rng.below(4096)),
        };
        inst.operands[i] = format!("[{new}]");
        true
    })
}

fn guard_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        let preds: Vec<&String> = file
            .registers
            .iter()
            .filter(|r| r.starts_with("%p"))
            .collect();
        inst.guard = match (inst.guard.take(), rng.below(4)) {
            (Some(_), 0) => None,
            (Some(g), 1) => Some(g.replacen("@!", "@", 1).replacen('@', "@!", 1)),
            (_, 2) => rng.pick(&file.registers).map(|r| format!("@{r}")),
            _ => rng.pick(&preds).map(|p| format!("@{p}")),
        };
        true
    })
}

fn label_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    file.on_inst(rng, |inst, rng| {
        if inst.opcode() != "bra" || inst.operands.is_empty() {
            return false;
        }
        let new = if rng.chance(70) {
            rng.pick(&file.labels).cloned()
        } else {
            Some("$L__nowhere".to_string())
        };
        let Some(new) = new else { return false };
        inst.operands[0] = new;
        true
    })
}

fn line_delete(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let &k = rng.pick(&file.open)?;
    Some(Edit(k, 1, String::new()))
}

fn line_duplicate(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let &k = rng.pick(&file.open)?;
    Some(Edit(k, 1, format!("{}\n{}", file.lines[k], file.lines[k])))
}

/// Swaps a line with the next one (both open to mutation); the second
/// line is dropped where it was.
fn line_swap(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let &k = rng.pick(&file.open)?;
    if !file.open.contains(&(k + 1)) {
        return None;
    }
    Some(Edit(
        k,
        2,
        format!("{}\n{}", file.lines[k + 1], file.lines[k]),
    ))
}

/// A declaration with another type, count, alignment or array size.
fn declaration_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let k = file.line_starting(
        rng,
        &[
            ".reg", ".shared", ".local", ".param", ".const", ".global", ".extern",
        ],
    )?;
    let mut toks = tokens(file.lines[k]);
    let sites: Vec<usize> = (0..toks.len())
        .filter(|&i| {
            let t = &toks[i].text;
            isa::is_type(t) || t.starts_with(|c: char| c.is_ascii_digit()) || t == ".align"
        })
        .collect();
    let &i = rng.pick(&sites)?;
    if isa::is_type(&toks[i].text) {
        toks[i].text = rng.pick(TYPES)?.to_string();
    } else if toks[i].text == ".align" {
        toks.remove(i);
        if i < toks.len() {
            toks.remove(i);
        }
    } else {
        let n = ["0", "1", "3", "6", "12", "100", "65536", "4294967296"];
        toks[i].text = rng.pick(&n)?.to_string();
    }
    Some(Edit(k, 1, untokens(&toks)))
}

const DIRECTIVES: &[&str] = &[
    ".maxntid 0",
    ".maxntid 1025",
    ".maxntid 128, 2",
    ".reqntid 256",
    ".reqntid 32, 32, 2",
    ".minnctapersm 4",
    ".maxnreg 7",
    ".maxnreg 32",
    ".maxnreg 300",
    ".reqnctapercluster 2",
    ".explicitcluster",
    ".maxclusterrank 8",
    ".noreturn",
    ".pragma \"nounroll\";",
];

fn directive_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let k = file.line_starting(
        rng,
        &[
            ".visible .entry",
            ".entry",
            ".visible .func",
            ".func",
            ".maxntid",
            ".reqntid",
        ],
    )?;
    let d = rng.pick(DIRECTIVES)?;
    let line = file.lines[k];
    if line.trim_start().starts_with(".max") || line.trim_start().starts_with(".req") {
        return Some(Edit(k, 1, d.to_string()));
    }
    // After the signature's last line: insert before the body's `{`.
    let open = (k..file.lines.len()).find(|&i| file.lines[i].trim() == "{")?;
    Some(Edit(open, 1, format!("{d}\n{{")))
}

const VERSIONS: &[&str] = &[
    "1.0", "5.0", "6.0", "6.3", "6.5", "7.0", "7.4", "7.7", "7.8", "8.0", "8.1", "8.3", "8.6",
    "8.7", "8.8", "9.0", "9.1", "9.5", "9.6", "10.0", "8.10",
];

fn version_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let k = file.line_starting(rng, &[".version"])?;
    Some(Edit(k, 1, format!(".version {}", rng.pick(VERSIONS)?)))
}

const TARGETS: &[&str] = &[
    "sm_70",
    "sm_75",
    "sm_80",
    "sm_86",
    "sm_87",
    "sm_89",
    "sm_90",
    "sm_90a",
    "sm_100",
    "sm_100a",
    "sm_100f",
    "sm_101a",
    "sm_103a",
    "sm_110",
    "sm_120",
    "sm_120a",
    "sm_121",
    "sm_99",
    "sm_90f",
    "compute_90",
];

fn target_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let k = file.line_starting(rng, &[".target"])?;
    Some(Edit(k, 1, format!(".target {}", rng.pick(TARGETS)?)))
}

fn address_size_change(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let k = file.line_starting(rng, &[".address_size"])?;
    Some(Edit(
        k,
        1,
        format!(".address_size {}", rng.pick(&["32", "16", "128", "64"])?),
    ))
}

/// Statements that exercise a target, version or state-space rule, put
/// after the first register declaration with registers of their own.
const INJECTIONS: &[&str] = &[
    "\t.local .align 4 .b8 zz_lbuf[16];\n\tatom.local.add.u32 %zzr, [zz_lbuf], 1;",
    "\tadd.u32 %zzr, %tid.x, 1;",
    "\tmov.u32 %zzr, %tid;",
    "\tmov.u64 %zzrd, %tid.x;",
    "\tshfl.bfly.b32 %zzr, %zzr, 16, 0x1f;",
    "\tshfl.sync.bfly.b32 %zzr, %zzr, 16, 0x1f, -1;",
    "\tfence.acq_rel;",
    "\tfence.acq_rel.gpu;",
    "\tld.relaxed.global.u32 %zzr, [%zzrd];",
    "\tld.volatile.local.u32 %zzr, [%zzrd];",
    "\tst.volatile.local.u32 [%zzrd], %zzr;",
    "\tld.mmio.relaxed.sys.global.u32 %zzr, [%zzrd];",
    "\tatom.global.sub.u32 %zzr, [%zzrd], 1;",
    "\tatom.global.add.s64 %zzrd, [%zzrd], 1;",
    "\tred.global.cas.b32 [%zzrd], 1, 2;",
    "\tred.global.add.v2.f32 [%zzrd], {%zzf, %zzf};",
    "\tld.global.u32 %zzr, [16];",
    "\tld.global.pred %zzp, [%zzrd];",
    "\tmov.u32 %zzr, %cluster_ctarank;",
    "\twgmma.fence.sync.aligned;",
    "\ttcgen05.fence::after_thread_sync;",
    "\t.reg .b128 %zzq;",
    "\tcvta.param.u64 %zzrd, %zzrd;",
    "\tcvta.to.shared.u32 %zzr, %zzrd;",
    "\tmapa.u64 %zzrd, %zzrd, 1;",
    "\tadd.u32 %zzr, %zzr, 0f3F800000;",
    "\tadd.f32 %zzf, %zzf, 1;",
    "\tbar.sync;",
    "\tbar 0;",
    "\tbarrier.sync.aligned 1;",
    "\tshl.b64 %zzrd, %zzrd, %zzrd;",
    "\tld.global.u64 %zzr, [%zzrd];",
    "\tmul.wide.u32 %zzrd, %zzrd, %zzr;",
    "\tselp.f32 %zzf, %zzf, %zzf, %zzr;",
    "\tld.shared::cluster.u32 %zzr, [%zzr];",
    "\tstmatrix.sync.aligned.m8n8.x1.shared.b16 [%zzr], {%zzr};",
    "\telect.sync %zzr|%zzp, -1;",
    "\tmov.u32 %zzr, WARP_SZ;",
    "\tld.global.u32 %zzr, [%zzrd+4+1];",
    "\tsad.lt.u32 %zzr, %zzr, %zzr, %zzr;",
    "\tcvta.to.global.s64 %zzrd, %zzrd;",
    "\tst.generic.u32 [%zzrd], %zzr;",
    "\tmov.u64 %zzrd, 99999999999999999999;",
    "\tmov.f64 %zzd, 1e309;",
    "\ttanh.approx.f32 %zzf, %zzf;",
    "\tcp.async.ca.shared.global [%zzr], [%zzrd], 4;",
    "\tredux.sync.add.u32 %zzr, %zzr, -1;",
    "\tmatch.any.sync.b32 %zzr, %zzr, -1;",
    "\tprmt.b32 %zzr, %zzr, %zzr, 0x3210;",
    "\tdp4a.u32.u32 %zzr, %zzr, %zzr, %zzr;",
    "\tbfind.u32 %zzr, %zzr;",
    "\tszext.wrap.u32 %zzr, %zzr, 8;",
    "\tcopysign.f32 %zzf, %zzf, %zzf;",
    "\tnanosleep.u32 100;",
    "\tgriddepcontrol.wait;",
    "\tmembar.gl;",
    "\tmembar.cluster;",
    "\tactivemask.b32 %zzr;",
    "\tvote.sync.ballot.b32 %zzr, %zzp, -1;",
    "\tisspacep.param %zzp, %zzrd;",
    "\tld.global.nc.v8.f32 {%zzf, %zzf, %zzf, %zzf, %zzf, %zzf, %zzf, %zzf}, [%zzrd];",
    "\tst.async.b32 [%zzr], %zzr, [%zzr];",
    "\tmultimem.ld_reduce.global.add.u32 %zzr, [%zzrd];",
    "\tsetmaxnreg.inc.sync.aligned.u32 64;",
];

const INJECTED_DECLS: &str =
    "\t.reg .b32 %zzr;\n\t.reg .b64 %zzrd;\n\t.reg .f32 %zzf;\n\t.reg .f64 %zzd;\n\t.reg .pred %zzp;";

fn injection(file: &File, _: &Pools, rng: &mut Rng) -> Option<Edit> {
    let k = file.line_starting(rng, &[".reg"])?;
    let text = rng.pick(INJECTIONS)?;
    Some(Edit(
        k,
        1,
        format!("{INJECTED_DECLS}\n{text}\n{}", file.lines[k]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1+4];\n\
        \t@%p1 bra $L__BB0_2;\n\tst.global.u32 [%rd1], %r1;\n$L__BB0_2:\n\tret;\n}\n";

    #[test]
    fn instruction_lines_split_and_render_back() {
        let i = split_inst("\t@%p1 ld.global.v2.u32 {%r1, %r2}, [%rd1+8];").unwrap();
        assert_eq!(i.guard.as_deref(), Some("@%p1"));
        assert_eq!(i.opcode(), "ld");
        assert_eq!(i.modifiers(), vec![".global", ".v2", ".u32"]);
        assert_eq!(i.operands, vec!["{%r1, %r2}", "[%rd1+8]"]);
        assert_eq!(i.render(), "\t@%p1 ld.global.v2.u32 {%r1, %r2}, [%rd1+8];");
        assert!(split_inst("$L__BB0_2:").is_none());
        assert!(split_inst(".reg .b32 %r<4>;").is_none());
    }

    #[test]
    fn the_same_seed_gives_the_same_mutants() {
        let pools = Pools::gather([SRC]);
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..50)
                .filter_map(|_| mutate(SRC, &pools, &mut rng))
                .map(|m| m.text)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert!(run(7).iter().all(|m| m != SRC));
    }

    #[test]
    fn every_operator_changes_something_somewhere() {
        let pools = Pools::gather([SRC]);
        let mut rng = Rng::new(1);
        for (name, op, _) in OPERATORS {
            let changed = (0..200).any(|_| {
                op(&File::new(SRC), &pools, &mut rng).is_some_and(|Edit(k, span, new)| {
                    span != 1 || new != SRC.lines().nth(k).unwrap_or("")
                })
            });
            assert!(changed, "{name} never changed the sample");
        }
    }
}
