//! Analyses: facts about a function that passes (and the verifier) read.

mod dominators;

pub use dominators::DominatorTree;
