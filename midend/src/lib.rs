//! midend: the kernelc IR and everything that works on it.
//!
//! Architecture invariants of this crate:
//! - It knows nothing of PTX text: address spaces and special registers are
//!   named here, but no instruction spelling of any target appears.
//! - It does no I/O: text comes in and goes out as strings.
//! - Every pass keeps a function the verifier accepts; tests verify after
//!   every pass.

pub mod analysis;
pub mod builder;
pub mod ir;
pub mod passes;
pub mod ssa;
pub mod text;
pub mod verifier;
