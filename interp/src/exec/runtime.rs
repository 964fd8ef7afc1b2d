//! The CUDA runtime's device library: `vprintf` (device `printf`) and
//! `__assertfail` (a failed `assert`).
//!
//! `printf` formats the argument buffer as the runtime does
//! (`stdx::printf`, which the PTX emulator runs too) and appends the text
//! to the launch's output, which `kernelc run` prints after the launch.
//! Threads run one at a time, in the emulator's order, so the two engines
//! print the same text in the same order. A failed `assert` stops the
//! kernel with the runtime's message, as a fault at the `assert`.

use super::{Exec, Thread};
use crate::memory::AccessError;
use midend::ir::AddrSpace;
use stdx::printf::{FormatError, SpecError};

/// The longest string (format, `%s` argument, assertion text) read.
const STRING_LIMIT: usize = 1 << 16;

impl Exec<'_> {
    /// `vprintf(fmt, buf)`: returns what the runtime returns, the number of
    /// arguments read (-1 for a null format).
    pub(super) fn vprintf(&mut self, t: &Thread, fmt: u64, buf: u64) -> Result<u64, PrintfError> {
        if fmt == 0 {
            return Ok(u64::from(u32::MAX));
        }
        let text = self
            .c_string(t, fmt, usize::MAX)
            .map_err(PrintfError::Format)?;
        let mut args = BufferArgs { ex: self, t, buf };
        let (out, count) = stdx::printf::format(&text, &mut args)?;
        stdx::printf::append_bounded(&mut self.printed, &out);
        Ok(u64::from(count))
    }

    /// The fault message of `__assertfail(cond, file, line, function, _)`:
    /// the runtime's words, with the block and thread.
    pub(super) fn assertion(&self, t: &Thread, argv: &[u64]) -> String {
        let string = |a: u64| self.c_string(t, a, STRING_LIMIT).unwrap_or_default();
        stdx::printf::assertion_message(
            &string(argv[0]),
            &string(argv[1]),
            argv[2] as u32,
            &string(argv[3]),
            self.ctaid,
            t.tid,
        )
    }

    /// The bytes of the NUL-terminated string at generic address `addr`,
    /// without the NUL (at most `limit`).
    fn c_string(&self, t: &Thread, addr: u64, limit: usize) -> Result<Vec<u8>, AccessError> {
        let mut text = Vec::new();
        while text.len() < limit {
            let at = addr.wrapping_add(text.len() as u64);
            let byte = self.load(t, AddrSpace::Generic, at, 1)? as u8;
            if byte == 0 {
                break;
            }
            text.push(byte);
        }
        Ok(text)
    }
}

/// Why a `vprintf` call faults; `Display` is the fault's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PrintfError {
    /// The format string could not be read.
    Format(AccessError),
    /// `stdx::printf` does not format a specification of the format.
    Spec(SpecError),
    /// An argument could not be read from the buffer.
    Argument(AccessError),
    /// The string a `%s` argument points to could not be read.
    StringArgument(AccessError),
}

impl std::fmt::Display for PrintfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PrintfError::Format(e) => write!(f, "reading the format of `printf`: {e}"),
            PrintfError::Spec(e) => write!(f, "{e}"),
            PrintfError::Argument(e) => write!(f, "reading the arguments of `printf`: {e}"),
            PrintfError::StringArgument(e) => {
                write!(f, "reading a `%s` argument of `printf`: {e}")
            }
        }
    }
}

impl From<FormatError<PrintfError>> for PrintfError {
    fn from(e: FormatError<PrintfError>) -> PrintfError {
        match e {
            FormatError::Spec(spec) => PrintfError::Spec(spec),
            FormatError::Read(read) => read,
        }
    }
}

/// A `vprintf` argument buffer in the thread's memory.
struct BufferArgs<'e, 'm, 't> {
    ex: &'e Exec<'m>,
    t: &'t Thread,
    buf: u64,
}

impl stdx::printf::Args for BufferArgs<'_, '_, '_> {
    type Error = PrintfError;
    fn arg(&mut self, offset: u64, len: u64) -> Result<u64, PrintfError> {
        let at = self.buf.wrapping_add(offset);
        self.ex
            .load(self.t, AddrSpace::Generic, at, len as u32)
            .map_err(PrintfError::Argument)
    }
    fn string(&mut self, addr: u64, limit: usize) -> Result<Vec<u8>, PrintfError> {
        self.ex
            .c_string(self.t, addr, limit)
            .map_err(PrintfError::StringArgument)
    }
}
