//! `--emit obj`: the PTX wrapped in a host object file.
//!
//! A CUDA host program usually embeds its device code and hands it to the
//! driver API (`cuModuleLoadData`) at run time. This writes an x86-64 ELF
//! relocatable with two symbols a C program can declare and link against:
//!
//! ```c
//! extern const char vadd_ptx[];                 /* the PTX, NUL-terminated */
//! extern const unsigned long long vadd_ptx_len; /* its length, without the NUL */
//! ```

use object::write::{Object, Symbol, SymbolSection};
use object::{write::StandardSection, SymbolScope};
use object::{
    Architecture, BinaryFormat, Endianness, SectionFlags, SectionKind, SymbolFlags, SymbolKind,
};

/// Turns a file stem into a C identifier: every character that cannot be
/// in one becomes `_`, and a leading digit gets a `_` in front.
pub fn c_identifier(stem: &str) -> String {
    let mut id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    id
}

/// The object crate could not write the file (its reason).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ObjectError(pub object::write::Error);

impl core::fmt::Display for ObjectError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "cannot write the object file: {}", self.0)
    }
}

impl std::error::Error for ObjectError {}

/// Writes the object file: `<name>_ptx` (the bytes of `ptx` and a NUL) and
/// `<name>_ptx_len` (a little-endian u64), both global data in `.rodata`.
/// `name` must already be a C identifier ([`c_identifier`]).
pub fn write_object(name: &str, ptx: &str) -> Result<Vec<u8>, ObjectError> {
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let rodata = obj.section_id(StandardSection::ReadOnlyData);
    let mut bytes = ptx.as_bytes().to_vec();
    bytes.push(0);
    let mut add = |sym: String, data: &[u8], align: u64| {
        let offset = obj.append_section_data(rodata, data, align);
        obj.add_symbol(Symbol {
            name: sym.into_bytes(),
            value: offset,
            size: data.len() as u64,
            kind: SymbolKind::Data,
            scope: SymbolScope::Linkage,
            weak: false,
            section: SymbolSection::Section(rodata),
            flags: SymbolFlags::None,
        });
    };
    add(format!("{name}_ptx"), &bytes, 1);
    add(
        format!("{name}_ptx_len"),
        &(ptx.len() as u64).to_le_bytes(),
        8,
    );
    // An empty, non-executable `.note.GNU-stack` says the object needs no
    // executable stack; without it GNU ld assumes one and warns ("missing
    // .note.GNU-stack section implies executable stack").
    let note = obj.add_section(Vec::new(), b".note.GNU-stack".to_vec(), SectionKind::Other);
    obj.section_mut(note).flags = SectionFlags::Elf {
        sh_type: object::elf::SHT_PROGBITS,
        sh_flags: object::elf::SectionFlags(0),
    };
    obj.write().map_err(ObjectError)
}
