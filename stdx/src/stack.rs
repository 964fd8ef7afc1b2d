//! Deep recursion without stack overflow.
//!
//! Source nests without a fixed bound: machine-written code has `else if`
//! chains of thousands of arms and sums of thousands of terms (a left-deep
//! tree as deep as the chain is long), and nvcc parses a million nested
//! parentheses. Every recursive walk whose depth the input decides (the
//! frontend's parsing, checking, lowering, dumping and dropping of trees;
//! SSA construction's search through predecessors) enters each level
//! through [`with_stack`], which moves the walk onto a fresh stack segment
//! when the current one runs low, as rustc's `ensure_sufficient_stack`
//! does. Depth is then bounded by memory and by the parser's nesting limit,
//! never by the thread's stack size.

/// Stack that must be left when a level is entered: more than the deepest
/// single frame chain between two calls of [`with_stack`] (the parser's
/// expression levels, sema's and lowering's largest `match`es) needs,
/// measured in debug builds, whose frames are the largest.
const RED_ZONE: usize = 256 * 1024;

/// Size of each new stack segment.
const SEGMENT: usize = 8 * 1024 * 1024;

/// Runs `f` on a stack with at least [`RED_ZONE`] bytes free.
#[inline]
pub fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
