//! Which modifiers each instruction family may carry, as ptxas 13.5 says.
//!
//! The table was measured, not written: every spelling of kernelc's and
//! nvcc's PTX (up to eight per opcode, covering each type kind) was given
//! each judged modifier in turn (`modifiers.txt` holds the result), right after its opcode, at its own
//! target and at sm_100a and sm_120a under PTX ISA 9.5. A modifier is
//! allowed on a family when ptxas took it on at least one spelling and
//! target (it may still be wrong with a given type or beside another
//! modifier: the other rules judge that). It is refused where ptxas said
//! `Unknown modifier`, `Illegal modifier`, `Illegal rounding modifier` (on
//! a family that takes no rounding), `Comparison qualifier is not allowed`,
//! `No state space qualifier expected`, `Illegal vector size`, `Vector
//! qualifier is not allowed`, `Illegal reduction operation`, a syntax error,
//! or crashed (`ret.cc;` makes ptxas 13.5 segfault). Where an inserted
//! modifier cannot show the legal set (`mul.lo` names the types when given
//! another mode, `.xorsign` needs `.abs`, `shf` wants `.l`/`.r` first) the
//! family's list is the PTX ISA's. Types are not in the table (`forms.rs`
//! judges them).
//!
//! Instructions with sub-operations are families named by their leading
//! words (`cp.async.commit_group`, `wmma.load.a`, `mbarrier.try_wait`,
//! `tcgen05.ld`, `fence.proxy`, ...; see `family_of`). Their lists were
//! measured the same way on one or more spellings each (the judged
//! modifier put before the type, where ptxas reads modifiers), and a
//! modifier is forbidden only where every answer of ptxas was a refusal
//! of it; one it answered with a type, shape or target complaint is
//! allowed. `fence` (its memory-order, `.mbarrier_init` and
//! `.sync_restrict` forms; `.cc` crashes ptxas) was measured so on six
//! spellings at sm_90, sm_100a and sm_120a. `cp.async.bulk[.tensor]` was
//! measured on its two directions each (sm_90, the refusals again at
//! sm_100a); its `.prefetch` form is not in the table. `mma` and
//! `tcgen05.cp`/`.shift` are not in the table.
//!
//! `tests/forms.rs` gives ptxas every modifier the table forbids on each
//! family (one spelling each, `tests/forms/templates.txt`) and checks it is
//! refused.

use crate::ast::Inst;
use std::sync::OnceLock;

/// ptxas takes these on every instruction and ignores them
/// (`add.finite.s32`, `ld.number.global.u32` assemble).
pub const IGNORED: &[&str] = &[
    ".finite",
    ".infinite",
    ".normal",
    ".notanumber",
    ".number",
    ".subnormal",
];

/// The measured table: the judged modifiers, and per family those of them
/// it may carry (both sorted).
pub struct Table {
    pub judged: Vec<&'static str>,
    pub families: Vec<(&'static str, Vec<&'static str>)>,
}

/// The table of `modifiers.txt`, read once.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| read_table(include_str!("modifiers.txt")))
}

/// Reads `name: .m1 .m2 ...` lines (continued by lines that start with a
/// space); `#` starts a comment line.
fn read_table(text: &'static str) -> Table {
    let mut lines: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let continued = line.starts_with(' ');
        // The name ends at the first `:` not followed by another
        // (`tcgen05.wait::ld:`).
        let name_end = line
            .char_indices()
            .find(|&(k, c)| {
                c == ':' && !line[k + 1..].starts_with(':') && !line[..k].ends_with(':')
            })
            .map(|(k, _)| (&line[..k], &line[k + 1..]));
        match (continued, lines.last_mut(), name_end) {
            (true, Some(last), _) => last.1.extend(line.split_whitespace()),
            (false, _, Some((name, rest))) => {
                lines.push((name.trim(), rest.split_whitespace().collect()))
            }
            _ => {}
        }
    }
    let mut judged = Vec::new();
    let mut families = Vec::new();
    for (name, mut list) in lines {
        list.sort_unstable();
        if name == "judged" {
            judged = list;
        } else {
            families.push((name, list));
        }
    }
    families.sort_unstable_by_key(|f| f.0);
    Table { judged, families }
}

/// The judged modifiers that `opcode` may carry, or `None` for a family the
/// table does not cover.
pub fn allowed(opcode: &str) -> Option<&'static [&'static str]> {
    let families = &table().families;
    families
        .binary_search_by(|(op, _)| op.cmp(&opcode))
        .ok()
        .map(|k| families[k].1.as_slice())
}

/// Whether ptxas knows `m` as a modifier of some family in the table.
fn known_anywhere(m: &str) -> bool {
    table().families.iter().any(|(_, list)| list.contains(&m))
}

/// The family of `i` in the table and the number of its leading modifiers
/// that name it: `cp.async.commit_group;` is `cp` with two, `add.f32` is
/// `add` with none. The longest name wins, and a shorter one only when the
/// instruction has no word that leads to a longer one (`cp.async.bulk.
/// prefetch` is not `cp.async`'s: `.bulk` belongs to `cp.async.bulk.*`).
fn family_of(i: &Inst) -> Option<(&'static str, usize)> {
    let families = &table().families;
    let mut name = i.opcode.clone();
    let mut found = None;
    for k in 0..=i.mods.len().min(3) {
        if k > 0 {
            name.push_str(&i.mods[k - 1]);
        }
        if let Ok(at) = families.binary_search_by(|(op, _)| op.cmp(&name.as_str())) {
            found = Some((families[at].0, k));
        }
    }
    let (family, k) = found?;
    let leads_further = families.iter().any(|(other, _)| {
        other
            .strip_prefix(family)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|rest| rest.split('.').next())
            .is_some_and(|next| i.mods[k..].iter().any(|m| m[1..] == *next))
    });
    (!leads_further).then_some((family, k))
}

/// The first modifier of `i` the table forbids on its family, with
/// ptxas's words for it.
pub fn illegal_modifier(i: &Inst) -> Option<String> {
    // `st.async` and `red.async` are instructions of their own, with
    // modifiers the plain forms do not take.
    if matches!(i.opcode.as_str(), "st" | "red") && i.has(".async") {
        return None;
    }
    // `cp.async.bulk.prefetch` was not measured; it takes `.L2`, which
    // the copies refuse.
    if i.opcode == "cp" && i.has(".prefetch") {
        return None;
    }
    let (family, named_by) = family_of(i)?;
    let allowed = allowed(family)?;
    let judged = &table().judged;
    let op = family;
    let m = i.mods[named_by..].iter().find(|m| {
        judged.binary_search(&m.as_str()).is_ok() && allowed.binary_search(&m.as_str()).is_err()
    })?;
    let rounding = matches!(
        m.as_str(),
        ".rn" | ".rz" | ".rm" | ".rp" | ".rna" | ".rs" | ".rni" | ".rzi" | ".rmi" | ".rpi"
    );
    Some(if rounding {
        format!("Illegal rounding modifier for instruction '{op}'")
    } else if crate::isa::is_space(m) {
        format!("No state space qualifier expected for instruction '{op}'")
    } else if known_anywhere(m) {
        format!("Illegal modifier '{m}' for instruction '{op}'")
    } else {
        format!("Unknown modifier '{m}'")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_and_only_allows_judged_modifiers() {
        let t = table();
        assert!(t.judged.len() > 200, "{} judged modifiers", t.judged.len());
        assert!(t.families.len() > 40, "{} families", t.families.len());
        for (op, list) in &t.families {
            for m in list {
                assert!(t.judged.contains(m), "{op}: {m} is allowed but not judged");
            }
        }
        assert!(allowed("add").is_some_and(|a| a.contains(&".rn")));
        assert!(allowed("ld").is_some_and(|a| !a.contains(&".rn")));
        assert!(allowed("tcgen05").is_none());
    }
}
