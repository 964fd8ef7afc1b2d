//! `--racecheck`: shared-memory races between barriers.
//!
//! Two accesses race when two different threads of a block touch the same
//! byte of shared memory, at least one of them writes, and no barrier lies
//! between them. The interpreter runs the threads of a block one after
//! another, so it sees every access in some order; it keeps, for each byte
//! of the block's shared memory, the last write and up to two reads (by
//! different threads) of the current barrier interval, and checks each new
//! access against them.
//!
//! What orders two accesses:
//! - a block barrier (`barrier`, `barrier_red`) between them: each release
//!   starts a new *epoch*, and accesses of an older epoch never race;
//! - for two lanes of the same warp, a `warp_sync` (`__syncwarp`) of that
//!   warp released between them (counted per warp; the member mask is not
//!   looked at, which can only hide a race, never invent one).
//!
//! What is tracked: the IR's plain `load` and `store` and the shared-memory
//! writes of `cp_async`. Atomics and mbarrier operations are synchronization
//! and are not; the warp-wide tensor instructions (`wmma`, `ldmatrix`, ...)
//! are not either.

use super::{raw, Exec, Raw, Thread};
use crate::memory;
use crate::FaultKind;
use midend::ir::{AddrSpace, FuncId, Inst};

/// One access in the shadow memory.
#[derive(Copy, Clone, Debug)]
struct Access {
    /// The thread's linear index in its block.
    thread: u32,
    /// The block-barrier epoch it happened in.
    epoch: u32,
    /// The number of `warp_sync`s its warp had released before it.
    warp_syncs: u32,
    func: FuncId,
    inst: Inst,
}

/// The history of one byte of shared memory.
#[derive(Clone, Debug, Default)]
struct Byte {
    write: Option<Access>,
    /// Reads since the last write: at most two, by different threads (one of
    /// which differs from any later writer).
    reads: [Option<Access>; 2],
}

/// The race checker's state for the running block.
#[derive(Default)]
pub(super) struct RaceState {
    /// One shadow per byte of each shared allocation.
    shadow: Vec<Vec<Byte>>,
    epoch: u32,
    /// `warp_sync`s released, per warp.
    warp_syncs: Vec<u32>,
}

/// A race found: the earlier access and what it did.
pub(super) struct Race {
    pub other: (FuncId, Inst),
    pub other_thread: u32,
    pub other_wrote: bool,
}

impl RaceState {
    /// A fresh state for a block whose shared allocations have these sizes.
    pub(super) fn new(sizes: impl Iterator<Item = usize>, warps: usize) -> RaceState {
        RaceState {
            shadow: sizes.map(|n| vec![Byte::default(); n]).collect(),
            epoch: 0,
            warp_syncs: vec![0; warps],
        }
    }

    /// A block barrier was released.
    pub(super) fn barrier(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// A `warp_sync` of warp `warp` was released.
    pub(super) fn warp_sync(&mut self, warp: u32) {
        if let Some(n) = self.warp_syncs.get_mut(warp as usize) {
            *n = n.wrapping_add(1);
        }
    }

    /// Whether `earlier` may still race with an access by `thread` now.
    fn concurrent(&self, earlier: &Access, thread: u32) -> bool {
        if earlier.thread == thread || earlier.epoch != self.epoch {
            return false;
        }
        let warp = thread / 32;
        let synced = earlier.thread / 32 == warp
            && self.warp_syncs.get(warp as usize).copied() != Some(earlier.warp_syncs);
        !synced
    }

    /// Records an access of `len` bytes at `offset` of shared allocation
    /// `index`, and returns the first earlier access it races with.
    fn access(
        &mut self,
        index: usize,
        offset: usize,
        len: usize,
        write: bool,
        now: Access,
    ) -> Option<Race> {
        let mut found = None;
        let bytes = self.shadow.get(index)?;
        let end = (offset + len).min(bytes.len());
        for b in bytes.get(offset..end).unwrap_or(&[]) {
            if found.is_some() {
                break;
            }
            let mut against: Vec<(Access, bool)> = b.write.iter().map(|a| (*a, true)).collect();
            if write {
                against.extend(b.reads.iter().flatten().map(|a| (*a, false)));
            }
            found = against
                .into_iter()
                .find(|(a, _)| self.concurrent(a, now.thread))
                .map(|(a, wrote)| Race {
                    other: (a.func, a.inst),
                    other_thread: a.thread,
                    other_wrote: wrote,
                });
        }
        let bytes = &mut self.shadow[index];
        for b in &mut bytes[offset.min(end)..end] {
            if write {
                *b = Byte {
                    write: Some(now),
                    reads: [None, None],
                };
            } else {
                match b.reads {
                    [Some(r), _] if r.thread == now.thread => b.reads[0] = Some(now),
                    [Some(_), Some(r)] if r.thread == now.thread => b.reads[1] = Some(now),
                    [None, _] => b.reads[0] = Some(now),
                    [Some(_), _] => b.reads[1] = Some(now),
                }
            }
        }
        found
    }
}

impl Exec<'_> {
    /// Checks and records an access by `t` at `addr` when it is in shared
    /// memory and `--racecheck` is on; a race is a fault at `inst`.
    pub(super) fn race_check(
        &mut self,
        t: &Thread,
        fid: FuncId,
        inst: Inst,
        addr: u64,
        len: u32,
        write: bool,
    ) -> Result<(), Raw> {
        let Some(state) = self.race.as_mut() else {
            return Ok(());
        };
        let Some(d) = memory::decode(addr) else {
            return Ok(());
        };
        if d.space != AddrSpace::Shared {
            return Ok(());
        }
        let now = Access {
            thread: t.linear,
            epoch: state.epoch,
            warp_syncs: state
                .warp_syncs
                .get((t.linear / 32) as usize)
                .copied()
                .unwrap_or(0),
            func: fid,
            inst,
        };
        let name = self
            .shared
            .get(d.index)
            .map_or_else(String::new, |a| a.name.clone());
        let Some(race) = state.access(d.index, d.offset as usize, len as usize, write, now) else {
            return Ok(());
        };
        let [nx, ny, _] = self.config.block;
        let tid = |l: u32| {
            let (x, y, z) = (l % nx, (l / nx) % ny, l / (nx * ny));
            format!("({x},{y},{z})")
        };
        let verb = |w: bool| if w { "wrote" } else { "read" };
        let mut r = raw(
            FaultKind::Race,
            format!(
                "shared-memory race: this {} of {len} bytes at offset {} of `{name}` and a {} of the same bytes by thread {} have no barrier between them",
                if write { "write" } else { "read" },
                d.offset,
                if race.other_wrote { "write" } else { "read" },
                tid(race.other_thread),
            ),
            fid,
            Some(inst),
        );
        r.related = Some((
            race.other.0,
            race.other.1,
            format!(
                "thread {} {} here, earlier in the same barrier interval",
                tid(race.other_thread),
                verb(race.other_wrote)
            ),
        ));
        Err(r)
    }
}
