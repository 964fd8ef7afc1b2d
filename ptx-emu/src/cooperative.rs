//! Cooperative launches: the grid-wide barrier of
//! `cooperative_groups::this_grid().sync()`.
//!
//! nvcc compiles `this_grid()` to a read of the driver's grid workspace
//! address from `%envreg1` (its high 32 bits) and `%envreg2` (its low
//! 32 bits: `load_env_reg64<1, 2>` names the high register first), a struct
//! of two `u32`s whose second is the barrier's counter. Each block's
//! master thread adds to the counter (`atom.add.release.gpu`) so that the
//! last arrival flips its top bit, then polls it (`ld.acquire.gpu`) until
//! the bit differs from the one it saw. Such a barrier only completes when
//! every block of the grid is resident at once, which is why the CUDA
//! driver refuses a cooperative launch larger than the GPU holds.
//!
//! The emulator runs a kernel whose reachable code reads any `%envreg` as
//! such a launch: every block runs together (each with its own shared
//! memory), a zeroed 8-byte workspace is placed in global memory for the
//! launch, `%envreg1`/`%envreg2` give its generic address and the other
//! `%envreg`s read 0 (what the driver leaves in the ones it does not set).
//! A thread that reaches a strong load (`.acquire`, `.relaxed`,
//! `.volatile`) again in the same state, with nothing stored since, spins:
//! it sleeps there until some thread stores to memory and the others run,
//! so the spin ends and the schedule stays deterministic (see `exec`).

use crate::SetupError;

/// The streaming multiprocessors of the modelled GPU, an H200 (GH100 with
/// 132 SMs enabled).
pub const SMS: u64 = 132;
/// Resident blocks per SM on sm_90.
pub const BLOCKS_PER_SM: u64 = 32;
/// Resident warps per SM on sm_90 (2048 threads).
pub const WARPS_PER_SM: u64 = 64;
/// Shared memory per SM on sm_90 (228 KiB) that blocks share.
pub const SHARED_PER_SM: u64 = 228 * 1024;
/// Shared memory the system reserves for each resident block (sm_80 on).
pub const RESERVED_SHARED_PER_BLOCK: u64 = 1024;
/// The unit in which shared memory is given to a block.
const SHARED_GRANULE: u64 = 128;
/// The size of the driver's grid workspace (`{u32 wsSize; u32 barrier;}`).
pub const WORKSPACE_BYTES: usize = 8;

/// How many blocks of `threads` threads using `shared` bytes of shared
/// memory one SM holds at once, by the limits on blocks, warps and shared
/// memory. Registers, the fourth limit, depend on ptxas's allocation,
/// which PTX does not say: the emulator may accept a launch whose kernel
/// uses too many registers for a GPU to hold this many blocks.
pub fn blocks_per_sm(threads: u64, shared: u64) -> u64 {
    let warps = threads.div_ceil(32).max(1);
    let shared = shared.div_ceil(SHARED_GRANULE) * SHARED_GRANULE + RESERVED_SHARED_PER_BLOCK;
    BLOCKS_PER_SM
        .min(WARPS_PER_SM / warps)
        .min(SHARED_PER_SM / shared)
}

/// Refuses a cooperative launch that the GPU could not hold at once, or
/// one of clusters, which the emulator does not model.
pub fn check_launch(
    grid: [u32; 3],
    block: [u32; 3],
    shared: u64,
    cluster: [u32; 3],
) -> Result<(), SetupError> {
    if cluster != [1; 3] {
        return Err(SetupError::CooperativeClusters { dims: cluster });
    }
    let count = |d: [u32; 3]| d.iter().map(|&v| u64::from(v)).product::<u64>();
    let per_sm = blocks_per_sm(count(block), shared);
    let blocks = count(grid);
    if blocks > SMS * per_sm {
        return Err(SetupError::CooperativeTooLarge {
            blocks,
            resident: SMS * per_sm,
            per_sm,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residency_follows_the_tightest_limit() {
        // Small blocks: the 32-block limit.
        assert_eq!(blocks_per_sm(32, 0), 32);
        // 256 threads are 8 warps: 64 / 8.
        assert_eq!(blocks_per_sm(256, 0), 8);
        // 1024 threads: two blocks fill the SM's 2048 threads.
        assert_eq!(blocks_per_sm(1024, 0), 2);
        // 100 KiB of shared memory (plus the reserved KiB): two fit in 228.
        assert_eq!(blocks_per_sm(32, 100 * 1024), 2);
        // A block with all 227 KiB a block may have: one.
        assert_eq!(blocks_per_sm(32, 227 * 1024), 1);
    }

    #[test]
    fn a_grid_past_residency_is_refused() {
        let ok = check_launch([264, 1, 1], [1024, 1, 1], 0, [1; 3]);
        assert_eq!(ok, Ok(()));
        let err = check_launch([265, 1, 1], [1024, 1, 1], 0, [1; 3]);
        assert_eq!(
            err,
            Err(SetupError::CooperativeTooLarge {
                blocks: 265,
                resident: 264,
                per_sm: 2
            })
        );
        let clusters = check_launch([4, 1, 1], [32, 1, 1], 0, [2, 1, 1]);
        assert_eq!(
            clusters,
            Err(SetupError::CooperativeClusters { dims: [2, 1, 1] })
        );
    }
}
