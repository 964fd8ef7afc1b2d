//! Analyses: facts about a function that passes (and the verifier) read.

pub mod alias;
mod dominators;

pub use alias::{AliasAnalysis, Provenance, Root};
pub use dominators::DominatorTree;
