//! Work on independent functions, spread over threads.
//!
//! Most passes, and instruction selection in the backend, look at one
//! function at a time: a file of ten kernels is ten independent jobs. This
//! module runs such jobs on scoped threads and hands the results back in
//! the order of the input, so the output never depends on which thread did
//! what, or when. With one thread (or one job) everything runs on the
//! calling thread, as it would without this module.

use std::sync::{Mutex, OnceLock};

/// The threads to use for `work` (instructions times passes over them)
/// when the user asked for `requested`: that many when it is not `0`;
/// otherwise one per available core (at most [`MAX_AUTO_THREADS`]), or just
/// one below [`MIN_PARALLEL_WORK`].
pub fn threads_for(work: usize, requested: usize) -> usize {
    if requested > 0 {
        return requested;
    }
    if work < MIN_PARALLEL_WORK {
        return 1;
    }
    // Asked once per process: on Linux the answer comes from the cgroup
    // files, which is I/O.
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_AUTO_THREADS)
    })
}

/// The most threads `0` (automatic) picks: a source file rarely holds more
/// kernels than this, and each thread costs time to start.
pub const MAX_AUTO_THREADS: usize = 8;

/// Below this much work (instructions times passes), starting a thread
/// (100-200 µs on the development machine, a virtual one) costs more than
/// it saves. The long run of function passes of a file of ten small kernels
/// (about 3,000 instructions, 18 passes) is above it and took 1.2 to 1.7
/// times less wall time on two threads; the shorter runs of such a file,
/// and its instruction selection, are below it and ran slower threaded.
pub const MIN_PARALLEL_WORK: usize = 20_000;

/// `f` applied to every item, on the threads [`threads_for`] gives for the
/// items' total `cost` (instructions times passes) and the `requested`
/// count; the results come back in the items' order. Items are taken
/// largest `cost` first, so one big kernel does not start last and keep the
/// others waiting.
pub fn map_in_order<T, R, F>(
    items: Vec<T>,
    requested: usize,
    cost: impl Fn(&T) -> usize,
    f: F,
) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync,
{
    let costs: Vec<usize> = items.iter().map(&cost).collect();
    let workers = threads_for(costs.iter().sum(), requested).min(items.len());
    if workers <= 1 {
        return items.into_iter().map(f).collect();
    }
    let count = items.len();
    let mut queue: Vec<(usize, usize, T)> = items
        .into_iter()
        .zip(costs)
        .enumerate()
        .map(|(i, (item, c))| (c, i, item))
        .collect();
    // `pop` takes from the end: the cheapest first in the vector, and among
    // equal costs the later item first, so the order is fixed.
    queue.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let queue = Mutex::new(queue);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..count).map(|_| None).collect());
    let work = || loop {
        let next = queue
            .lock()
            .expect("no worker panics holding the queue")
            .pop();
        let Some((_, index, item)) = next else {
            break;
        };
        let result = f(item);
        results
            .lock()
            .expect("no worker panics holding the results")[index] = Some(result);
    };
    // The calling thread is one of the workers.
    std::thread::scope(|scope| {
        for _ in 1..workers {
            scope.spawn(work);
        }
        work();
    });
    results
        .into_inner()
        .expect("the workers have finished")
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_whatever_the_costs() {
        let items: Vec<u64> = (0..50).collect();
        for threads in [1, 2, 3, 8, 64] {
            let out = map_in_order(
                items.clone(),
                threads,
                |&x| ((x * 7919) % 13) as usize,
                |x| x * x + 1,
            );
            let expected: Vec<u64> = items.iter().map(|x| x * x + 1).collect();
            assert_eq!(out, expected, "{threads} threads");
        }
    }

    #[test]
    fn mutable_items_are_each_changed_once() {
        let mut values = [0u32; 17];
        let refs: Vec<&mut u32> = values.iter_mut().collect();
        let done = map_in_order(
            refs,
            4,
            |_| 1,
            |v| {
                *v += 1;
            },
        );
        assert_eq!(done.len(), 17);
        assert!(values.iter().all(|&v| v == 1));
    }

    #[test]
    fn automatic_thread_counts_stay_in_bounds() {
        assert_eq!(threads_for(0, 0), 1);
        assert_eq!(threads_for(MIN_PARALLEL_WORK - 1, 0), 1);
        let auto = threads_for(MIN_PARALLEL_WORK, 0);
        assert!((1..=MAX_AUTO_THREADS).contains(&auto));
        assert_eq!(threads_for(0, 3), 3, "an explicit count is kept");
    }
}
