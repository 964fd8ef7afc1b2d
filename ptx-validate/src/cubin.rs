//! Reading the resources of each kernel out of a cubin.
//!
//! ptxas writes a cubin: an ELF64 file (machine `EM_CUDA`, 190) whose
//! `.text.<kernel>` sections hold the SASS and whose `.nv.info*` sections
//! hold "EIATTR" attribute records that the CUDA driver reads when it loads
//! the module. This module reads them with the `object` crate and reports,
//! per kernel, what `ptxas -v` prints: registers, stack frame, static shared
//! memory, barriers, and the launch bounds.
//!
//! # The records
//!
//! A `.nv.info` section is a sequence of records. Each starts with a format
//! byte and an attribute byte:
//!
//! | format | name   | what follows                                   |
//! |--------|--------|------------------------------------------------|
//! | 1      | `NVAL` | two bytes, unused                              |
//! | 2      | `BVAL` | a two-byte field holding a one-byte value      |
//! | 3      | `HVAL` | a two-byte little-endian value                 |
//! | 4      | `SVAL` | a two-byte size, then that many payload bytes  |
//!
//! The module-wide `.nv.info` holds the per-function sizes, each an `SVAL`
//! whose payload is `[symbol index: u32, value: u32]`: `REGCOUNT` (0x2f),
//! `FRAME_SIZE` (0x11, the function's own frame) and `MIN_STACK_SIZE`
//! (0x12, the frame with its callees': ptxas -v's "cumulative stack size";
//! `0xffffffff` when recursion makes it unbounded). `MAX_STACK_SIZE` (0x23)
//! is not written by ptxas 13.5.
//! `.nv.info.<kernel>` holds the kernel's own records, of which we read
//! `NUM_BARRIERS` (0x4c), `MAX_THREADS` (0x05, from `.maxntid`), `REQNTID`
//! (0x10), `CRS_STACK_SIZE` (0x1e) and `MAXREG_COUNT` (0x1b). Static shared
//! memory is the size of the `.nv.shared.<kernel>` section.
//!
//! Spill bytes are not recorded anywhere in the cubin: ptxas prints them
//! with `-v` only, so [`KernelResources::spill_stores`] and
//! [`KernelResources::spill_loads`] come from [`parse_verbose`] when the
//! caller ran ptxas with `-v` (as [`crate::driver::assemble_cubin`] does).
//!
//! Everything here is pure and total: a cubin that is truncated, mutated or
//! not a cubin at all gives a [`CubinError`], never a panic.

use object::elf;
use object::read::elf::{FileHeader, SectionHeader};
use object::Endianness;
use std::collections::BTreeMap;
use std::fmt;

/// `e_machine` of a cubin.
pub const EM_CUDA: u16 = 190;
/// `sh_type` of the `.nv.info` sections (`SHT_CUDA_INFO`).
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;

/// The attribute codes this reader understands (the second byte of a record).
pub mod attr {
    pub const MAX_THREADS: u8 = 0x05;
    pub const REQNTID: u8 = 0x10;
    pub const FRAME_SIZE: u8 = 0x11;
    pub const MIN_STACK_SIZE: u8 = 0x12;
    pub const MAXREG_COUNT: u8 = 0x1b;
    pub const CRS_STACK_SIZE: u8 = 0x1e;
    pub const MAX_STACK_SIZE: u8 = 0x23;
    pub const REGCOUNT: u8 = 0x2f;
    pub const NUM_BARRIERS: u8 = 0x4c;
}

/// Why a cubin could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CubinError {
    /// The ELF container does not parse (`object`'s reason).
    Elf(object::read::Error),
    /// The ELF machine is `machine`, not `EM_CUDA`.
    Machine { machine: u16 },
    /// A `.nv.info` record's 4-byte head starts at byte `at`, past the end.
    Truncated { at: usize },
    /// Attribute `code` claims `bytes` bytes of payload past the section's
    /// end.
    PastEnd { code: u8, bytes: u16 },
    /// A record format other than 1 to 4.
    RecordFormat { format: u8 },
}

impl fmt::Display for CubinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("malformed cubin: ")?;
        match self {
            CubinError::Elf(e) => write!(f, "{e}"),
            CubinError::Machine { machine } => {
                write!(f, "ELF machine {machine} is not EM_CUDA (190)")
            }
            CubinError::Truncated { at } => write!(f, "truncated .nv.info record at byte {at}"),
            CubinError::PastEnd { code, bytes } => write!(
                f,
                "attribute 0x{code:02x} claims {bytes} bytes past the end of .nv.info"
            ),
            CubinError::RecordFormat { format } => {
                write!(f, "unknown .nv.info record format {format}")
            }
        }
    }
}

impl std::error::Error for CubinError {}

impl From<object::read::Error> for CubinError {
    fn from(e: object::read::Error) -> Self {
        CubinError::Elf(e)
    }
}

/// The value of one `.nv.info` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrValue {
    /// `NVAL`: a flag, present or not.
    None,
    /// `BVAL` or `HVAL`: a small number.
    Short(u16),
    /// `SVAL`: a payload of bytes.
    Bytes(Vec<u8>),
}

/// One `.nv.info` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    pub format: u8,
    pub code: u8,
    pub value: AttrValue,
}

impl Attribute {
    /// The payload read as little-endian `u32` words (a trailing partial
    /// word is dropped); empty for the short formats.
    pub fn words(&self) -> Vec<u32> {
        match &self.value {
            AttrValue::Bytes(b) => b
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Splits the bytes of a `.nv.info` section into records.
pub fn parse_attributes(data: &[u8]) -> Result<Vec<Attribute>, CubinError> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let Some(head) = data.get(pos..pos + 4) else {
            return Err(CubinError::Truncated { at: pos });
        };
        let (format, code) = (head[0], head[1]);
        let field = u16::from_le_bytes([head[2], head[3]]);
        pos += 4;
        let value = match format {
            1 => AttrValue::None,
            2 => AttrValue::Short(field & 0xff),
            3 => AttrValue::Short(field),
            4 => {
                let end = pos + usize::from(field);
                let Some(payload) = data.get(pos..end) else {
                    return Err(CubinError::PastEnd { code, bytes: field });
                };
                pos = end;
                AttrValue::Bytes(payload.to_vec())
            }
            other => return Err(CubinError::RecordFormat { format: other }),
        };
        out.push(Attribute {
            format,
            code,
            value,
        });
    }
    Ok(out)
}

/// What one kernel uses, as `ptxas -v` reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelResources {
    pub name: String,
    /// Registers per thread (`Used N registers`).
    pub registers: u32,
    /// The kernel's own stack frame in bytes (`N bytes stack frame`): its
    /// `.local` variables and spill slots.
    pub stack_frame: u32,
    /// The stack with the callees' frames (`N bytes cumulative stack
    /// size`), from `MIN_STACK_SIZE`; `None` when ptxas could not bound it
    /// (recursion, indirect calls).
    pub cumulative_stack: Option<u32>,
    /// Static shared memory in bytes (`N bytes smem`).
    pub shared: u64,
    /// Named barriers used (`used N barriers`).
    pub barriers: u32,
    /// `.maxntid` as recorded (x, y, z).
    pub max_threads: Option<[u32; 3]>,
    /// `.reqntid` as recorded (x, y, z).
    pub req_threads: Option<[u32; 3]>,
    /// `.maxnreg` as recorded.
    pub max_registers: Option<u32>,
    /// The call-return stack size, when recorded and bounded.
    pub crs_stack: Option<u32>,
    /// Spill stores and loads in bytes: only `ptxas -v` says them (see
    /// [`merge_verbose`]); `None` until merged.
    pub spill_stores: Option<u32>,
    pub spill_loads: Option<u32>,
}

/// Per-symbol values of the module-wide `.nv.info`: symbol index → value.
#[derive(Default)]
struct GlobalInfo {
    regs: BTreeMap<u32, u32>,
    frame: BTreeMap<u32, u32>,
    stack: BTreeMap<u32, u32>,
}

fn triple(a: &Attribute) -> Option<[u32; 3]> {
    match a.words().as_slice() {
        [x, y, z, ..] => Some([*x, *y, *z]),
        _ => None,
    }
}

/// Every `.nv.info*` section of a cubin with its records, in file order
/// (for debugging and for tests).
pub fn info_sections(data: &[u8]) -> Result<Vec<(String, Vec<Attribute>)>, CubinError> {
    let header = elf::FileHeader64::<Endianness>::parse(data)?;
    let endian = header.endian()?;
    let sections = header.sections(endian, data)?;
    let mut out = Vec::new();
    for section in sections.iter() {
        if section.sh_type(endian).0 == SHT_CUDA_INFO {
            let name = String::from_utf8_lossy(sections.section_name(endian, section)?);
            out.push((
                name.into_owned(),
                parse_attributes(section.data(endian, data)?)?,
            ));
        }
    }
    Ok(out)
}

/// What a cubin says about its kernels.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cubin {
    /// The SM number the cubin is for (`90` for sm_90), from `e_flags`.
    pub sm: u32,
    /// Every kernel (`.entry`), sorted by name.
    pub kernels: Vec<KernelResources>,
}

/// `st_other` bit that marks a kernel entry point.
const STO_CUDA_ENTRY: u8 = 0x10;

/// The per-CTA shared memory the system reserves on sm_90 and later, which
/// ptxas places at the start of each kernel's `.nv.shared.<kernel>` but does
/// not count in `ptxas -v`'s "bytes smem".
const RESERVED_SMEM: u64 = 1024;

/// Reads every kernel (`.entry`) of a cubin.
///
/// Registers come from the module-wide `REGCOUNT` (older targets also put
/// a count in the top byte of `.text.<kernel>`'s `sh_info`, used only when
/// `REGCOUNT` is missing: in `-G` cubins the two differ, and `ptxas -v`
/// prints `REGCOUNT`). Static shared memory is the size of
/// `.nv.shared.<kernel>` less the system-reserved block of sm_90 and later
/// cubins, which declare it with a `.nv.shared.reserved.*` section and a
/// `.nv.reservedSmem.offset0` symbol (debug cubins only with the symbol);
/// its size is the `.nv.reservedSmem.cap` symbol when present, else 1 KiB.
pub fn read_cubin(data: &[u8]) -> Result<Cubin, CubinError> {
    let header = elf::FileHeader64::<Endianness>::parse(data)?;
    let endian = header.endian()?;
    if header.e_machine(endian).0 != EM_CUDA {
        return Err(CubinError::Machine {
            machine: header.e_machine(endian).0,
        });
    }
    let sm = (header.e_flags(endian).0 >> 8) & 0xff;
    let sections = header.sections(endian, data)?;
    let symbols = sections.symbols(endian, data, elf::SHT_SYMTAB)?;

    // The module-wide attributes, keyed by symbol index.
    let mut global = GlobalInfo::default();
    // Per-kernel attributes, shared sizes and `.text` registers, by kernel name.
    let mut per_kernel: BTreeMap<String, Vec<Attribute>> = BTreeMap::new();
    let mut shared: BTreeMap<String, u64> = BTreeMap::new();
    let mut text_regs: BTreeMap<String, u32> = BTreeMap::new();
    let mut reserved = 0;
    for section in sections.iter() {
        let name = sections.section_name(endian, section)?;
        let name = String::from_utf8_lossy(name);
        if section.sh_type(endian).0 == SHT_CUDA_INFO {
            let bytes = section.data(endian, data)?;
            let attrs = parse_attributes(bytes)?;
            if name == ".nv.info" {
                for a in &attrs {
                    let map = match a.code {
                        attr::REGCOUNT => &mut global.regs,
                        attr::FRAME_SIZE => &mut global.frame,
                        attr::MIN_STACK_SIZE => &mut global.stack,
                        _ => continue,
                    };
                    if let [sym, value, ..] = a.words().as_slice() {
                        map.insert(*sym, *value);
                    }
                }
            } else if let Some(kernel) = name.strip_prefix(".nv.info.") {
                per_kernel.insert(kernel.to_string(), attrs);
            }
        } else if name.starts_with(".nv.shared.reserved.") {
            reserved = reserved.max(RESERVED_SMEM);
        } else if let Some(kernel) = name.strip_prefix(".nv.shared.") {
            shared.insert(kernel.to_string(), section.sh_size(endian));
        } else if let Some(kernel) = name.strip_prefix(".text.") {
            text_regs.insert(kernel.to_string(), section.sh_info(endian) >> 24);
        }
    }

    let mut kernels = Vec::new();
    let mut cap = None;
    for (index, sym) in symbols.enumerate() {
        let name = symbols.symbol_name(endian, sym)?;
        // Debug (`-G`) cubins have no `.nv.shared.reserved.*` section, but
        // their kernels' shared sections hold the block all the same; the
        // `.nv.reservedSmem.offset0` symbol that refers to it is in both.
        if name.starts_with(b".nv.reservedSmem.offset") {
            reserved = reserved.max(RESERVED_SMEM);
        }
        if name == b".nv.reservedSmem.cap" {
            cap = Some(sym.st_value.get(endian));
        }
        if sym.st_type() != elf::STT_FUNC || sym.st_other.0 & STO_CUDA_ENTRY == 0 {
            continue;
        }
        let name = String::from_utf8_lossy(name).into_owned();
        let index = u32::try_from(index.0).unwrap_or(u32::MAX);
        // REGCOUNT is what `ptxas -v` prints. The `.text` byte agrees with it
        // in optimized cubins but not in debug (`-G`) ones, where it stays at
        // 32 while REGCOUNT says 36 or 45; it is only a fallback.
        let registers = global
            .regs
            .get(&index)
            .copied()
            .or_else(|| text_regs.get(&name).copied().filter(|&r| r != 0));
        let mut k = KernelResources {
            registers: registers.unwrap_or(0),
            stack_frame: global.frame.get(&index).copied().unwrap_or(0),
            cumulative_stack: global.stack.get(&index).copied().filter(|&n| n != u32::MAX),
            shared: shared.get(&name).copied().unwrap_or(0),
            name,
            ..KernelResources::default()
        };
        for a in per_kernel.get(&k.name).into_iter().flatten() {
            match (a.code, &a.value) {
                (attr::NUM_BARRIERS, AttrValue::Short(n)) => k.barriers = u32::from(*n),
                (attr::MAXREG_COUNT, AttrValue::Short(n)) => k.max_registers = Some(u32::from(*n)),
                (attr::MAX_THREADS, _) => k.max_threads = triple(a),
                (attr::REQNTID, _) => k.req_threads = triple(a),
                (attr::CRS_STACK_SIZE, _) => {
                    k.crs_stack = a.words().first().copied().filter(|&n| n != u32::MAX)
                }
                _ => {}
            }
        }
        kernels.push(k);
    }
    if reserved > 0 {
        reserved = cap.unwrap_or(reserved);
    }
    for k in &mut kernels {
        k.shared = k.shared.saturating_sub(reserved);
    }
    kernels.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Cubin { sm, kernels })
}

/// What `ptxas -v` says about one function.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerboseFunction {
    pub name: String,
    pub registers: Option<u32>,
    pub stack_frame: Option<u32>,
    pub spill_stores: Option<u32>,
    pub spill_loads: Option<u32>,
    pub cumulative_stack: Option<u32>,
    pub shared: Option<u64>,
    pub barriers: Option<u32>,
}

/// The number just before `unit` in `text` (`"64 bytes smem"` → 64).
fn number_before(text: &str, unit: &str) -> Option<u64> {
    let at = text.find(unit)?;
    let before = text[..at].trim_end();
    let digits = before
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .filter(|d| !d.is_empty())?;
    digits.parse().ok()
}

fn small(v: Option<u64>) -> Option<u32> {
    v.and_then(|n| u32::try_from(n).ok())
}

/// Parses the resource lines of `ptxas -v`, one entry per function in the
/// order ptxas prints them.
pub fn parse_verbose(raw: &str) -> Vec<VerboseFunction> {
    let mut out: Vec<VerboseFunction> = Vec::new();
    let mut current: Option<usize> = None;
    let slot = |out: &mut Vec<VerboseFunction>, name: &str| -> usize {
        match out.iter().position(|f| f.name == name) {
            Some(i) => i,
            None => {
                out.push(VerboseFunction {
                    name: name.to_string(),
                    ..VerboseFunction::default()
                });
                out.len() - 1
            }
        }
    };
    for line in raw.lines() {
        let quoted = line.split('\'').nth(1);
        if line.contains("Compiling entry function") {
            if let Some(name) = quoted {
                current = Some(slot(&mut out, name));
            }
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(slot(&mut out, rest.trim()));
        } else if line.contains("bytes stack frame") {
            if let Some(f) = current.and_then(|i| out.get_mut(i)) {
                f.stack_frame = small(number_before(line, "bytes stack frame"));
                f.spill_stores = small(number_before(line, "bytes spill stores"));
                f.spill_loads = small(number_before(line, "bytes spill loads"));
            }
        } else if line.contains("Used ") && line.contains(" registers") {
            if let Some(f) = current.and_then(|i| out.get_mut(i)) {
                f.registers = small(number_before(line, "registers"));
                f.barriers = small(number_before(line, "barriers"));
                f.cumulative_stack = small(number_before(line, "bytes cumulative stack size"));
                f.shared = number_before(line, "bytes smem");
            }
        }
    }
    out
}

/// Fills in the spill figures of `kernels` from `ptxas -v`'s output.
pub fn merge_verbose(kernels: &mut [KernelResources], verbose: &[VerboseFunction]) {
    for k in kernels {
        if let Some(v) = verbose.iter().find(|v| v.name == k.name) {
            k.spill_stores = v.spill_stores;
            k.spill_loads = v.spill_loads;
        }
    }
}

/// The `--stats` table: one row per kernel.
pub fn stats_table(kernels: &[KernelResources]) -> String {
    let opt = |v: Option<u32>| v.map_or_else(|| "-".to_string(), |n| n.to_string());
    let rows: Vec<[String; 7]> = kernels
        .iter()
        .map(|k| {
            [
                // nvcc's and kernelc's mangled names, made readable.
                stdx::itanium::readable(&k.name),
                k.registers.to_string(),
                k.stack_frame.to_string(),
                k.shared.to_string(),
                opt(k.spill_stores),
                opt(k.spill_loads),
                k.barriers.to_string(),
            ]
        })
        .collect();
    let head = [
        "kernel", "regs", "stack", "shared", "spill-st", "spill-ld", "barriers",
    ];
    let mut width: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(&width).enumerate() {
            if i == 0 {
                l.push_str(&format!("{c:<w$}"));
            } else {
                l.push_str(&format!("  {c:>w$}"));
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&head);
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        line(&cells);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_split_by_format() {
        let bytes = [
            0x04, 0x2f, 0x08, 0x00, 5, 0, 0, 0, 12, 0, 0, 0, // SVAL regcount [5, 12]
            0x03, 0x1b, 0xff, 0x00, // HVAL maxreg 255
            0x01, 0x2b, 0x00, 0x00, // NVAL
        ];
        let a = parse_attributes(&bytes).unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a[0].words(), vec![5, 12]);
        assert_eq!(a[1].value, AttrValue::Short(255));
        assert_eq!(a[2].value, AttrValue::None);
    }

    #[test]
    fn bad_records_are_errors() {
        let past = parse_attributes(&[0x04, 0x2f, 0x40, 0x00, 1, 2]).unwrap_err();
        assert_eq!(
            past,
            CubinError::PastEnd {
                code: 0x2f,
                bytes: 0x40
            }
        );
        assert_eq!(
            past.to_string(),
            "malformed cubin: attribute 0x2f claims 64 bytes past the end of .nv.info"
        );
        assert_eq!(
            parse_attributes(&[0x04, 0x2f]),
            Err(CubinError::Truncated { at: 0 })
        );
        assert_eq!(
            parse_attributes(&[0x09, 0x2f, 0, 0]),
            Err(CubinError::RecordFormat { format: 9 })
        );
        assert!(read_cubin(b"").is_err());
        assert!(read_cubin(b"\x7fELF garbage").is_err());
    }

    #[test]
    fn verbose_lines_are_parsed() {
        let raw = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
ptxas info    : Function properties for k\n    \
64 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 10 registers, used 2 barriers, 64 bytes cumulative stack size, 1000 bytes smem\n";
        let v = parse_verbose(raw);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].name, "k");
        assert_eq!(v[0].registers, Some(10));
        assert_eq!(v[0].barriers, Some(2));
        assert_eq!(v[0].stack_frame, Some(64));
        assert_eq!(v[0].spill_stores, Some(8));
        assert_eq!(v[0].spill_loads, Some(4));
        assert_eq!(v[0].cumulative_stack, Some(64));
        assert_eq!(v[0].shared, Some(1000));
    }
}
