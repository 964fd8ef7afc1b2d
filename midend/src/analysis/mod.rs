//! Analyses: facts about a function that passes (and the verifier) read.

pub mod alias;
mod cache;
pub mod cells;
mod dominators;
pub mod loops;
pub mod ranges;

pub use alias::{AliasAnalysis, Provenance, Root};
pub use cache::{distinct_preds, edge_counts, Analyses, Cfg, ModuleAnalyses, Predecessors};
pub use cells::{Base, Content, LocalCells};
pub use dominators::DominatorTree;
pub use loops::{ensure_preheader, Loop, LoopAnalysis};
