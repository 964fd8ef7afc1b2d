//! A selected function: everything the writer needs to print one `.entry` or
//! `.func`, and nothing of the IR. Instruction selection fills it in.

use crate::minst::{MInst, PtxType, RegClass};
use crate::target::Features;

/// A `.local` array declared inside a function body (one per stack slot).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LocalArray {
    pub name: String,
    pub size: u32,
    pub align: u32,
}

/// A formal parameter: `.param .u64 vadd_param_0`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParamDecl {
    pub ty: PtxType,
    pub name: String,
    /// A by-value aggregate: `.param .align A .b8 name[size]` as
    /// `(size, align)` (then `ty` is unused).
    pub bytes: Option<(u32, u32)>,
}

/// A function after instruction selection.
#[derive(Clone, PartialEq, Debug)]
pub struct MFunction {
    pub name: String,
    /// `.entry` (kernel) or `.func` (device function).
    pub is_kernel: bool,
    /// `.visible`, `.weak` or neither.
    pub linkage: midend::ir::Linkage,
    pub params: Vec<ParamDecl>,
    /// The `.param` type of `func_retval0`, for device functions that return a value.
    pub ret: Option<PtxType>,
    /// A struct result: `.param .align A .b8 func_retval0[N]` as `(N, A)`.
    pub ret_bytes: Option<(u32, u32)>,
    /// `__launch_bounds__`: `.maxntid` and `.minnctapersm`.
    pub max_threads: Option<u32>,
    pub min_blocks: Option<u32>,
    /// `__cluster_dims__`: `.explicitcluster` and `.reqnctapercluster`.
    pub cluster_dims: Option<[u32; 3]>,
    pub locals: Vec<LocalArray>,
    /// For each register class, the highest register number used (0 = none).
    pub max_reg: [u32; 6],
    pub body: Vec<MInst>,
    /// PTX features the body needs (they may raise `.version`).
    pub features: Features,
}

impl MFunction {
    /// The highest number used in `class` (0 if the class is unused).
    pub fn max_reg(&self, class: RegClass) -> u32 {
        self.max_reg[class_index(class)]
    }
}

/// The position of `class` in [`RegClass::ALL`] (and in `max_reg`).
pub fn class_index(class: RegClass) -> usize {
    RegClass::ALL
        .iter()
        .position(|&c| c == class)
        .expect("every class is in ALL")
}
