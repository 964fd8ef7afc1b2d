//! The IR text format: a printer and a parser that round-trip.
//!
//! The format is documented in `docs/ir.md`. Printing never renumbers:
//! `v12` in the text is `Value(12)` in memory, and the parser keeps the
//! numbers it reads, so an IR dump, a verifier message and a test can all
//! point at the same entity.

mod dot;
mod lexer;
mod parse_error;
mod parser;
mod printer;

pub use dot::write_module_dot;

pub use parse_error::{Entity, ParseError, ParseErrorKind};
pub use parser::{parse_function, parse_module, MAX_ENTITY_INDEX};
pub use printer::{
    write_float, write_function, write_function_with_comments, write_module, CommentAt, Comments,
    PrintOptions,
};
