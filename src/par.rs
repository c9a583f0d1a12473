//! The runtime of `parallel` loops: what the host code of a `for i in parallel(a..b)` loop
//! calls when the lowering has shown its iterations independent.
//!
//! Safe Rust, no data race by construction: the iterations are split into runs of
//! consecutive ones (a few per thread), which the calling thread and a rayon pool's threads
//! take from a shared queue, each thread with its own tiles (made by `init`); tensors the loop
//! only loads are shared as `&`. A tensor it stores to is given to the iterations one of two
//! ways:
//!
//! - **Rows** ([`for_parts`], [`row_parts`]): when each iteration's stores to the tensor land
//!   in rows `[i + lo, i + lo + step)` of its first dimension (the lowering shows it:
//!   `lower/parallel.rs`, `row_parts`), the tensor's elements are cut with `split_at_mut`
//!   into one [`Rows`] per run before any runs: the rows of its iterations. A run's
//!   iterations go in order on one thread, each getting the run's rows as a `&mut`. The
//!   borrow checker then guarantees that no two threads write the same elements, and an
//!   iteration's stores, row runs and fused calls work on its rows as on a whole tensor
//!   ([`crate::isa::TensorMut`]), with no lock.
//! - **Locked** ([`for_range`], [`Locked`]): otherwise, behind a mutex held for one store at a
//!   time.
//!
//! Either way the lowering only runs a loop here when the store windows of different
//! iterations are disjoint and no iteration reads a tensor the loop writes, so the order in
//! which the stores land does not change the result.
//!
//! The loops run on a pool of their own (`pool`; `RAYON_NUM_THREADS` sizes it), whose
//! threads stay awake for a while after a loop ends (`linger`), as OpenMP runtimes keep
//! theirs (`KMP_BLOCKTIME`, 200 ms by default in LLVM's): a thread that has gone to sleep
//! takes tens of microseconds to wake on this project's virtual machines, sometimes
//! milliseconds, and a kernel called again soon then starts with one core.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rayon::ThreadPool;

use crate::budget::Meter;
use crate::isa::TensorMut;
use crate::{Error, Tensor};

/// A tensor the iterations of a parallel loop store to, one store at a time.
#[doc(hidden)]
#[derive(Debug)]
pub struct Locked<'a, T>(Mutex<&'a mut Tensor<T>>);

impl<'a, T> Locked<'a, T> {
    /// Shares `t` between the iterations.
    pub fn new(t: &'a mut Tensor<T>) -> Self {
        Locked(Mutex::new(t))
    }

    /// Whether the tensor has no elements (the host code skips the repeats of an inner loop
    /// over empty tensors).
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The tensor, for one store. (A poisoned lock is taken over: no code here panics while
    /// holding it, and the tensor is plain data.)
    pub fn lock(&self) -> Guard<'_, 'a, T> {
        Guard(lock(&self.0))
    }
}

/// The tensor of a [`Locked`] while one store writes it.
#[doc(hidden)]
#[derive(Debug)]
pub struct Guard<'g, 'a, T>(MutexGuard<'g, &'a mut Tensor<T>>);

impl<T> Deref for Guard<'_, '_, T> {
    type Target = Tensor<T>;
    fn deref(&self) -> &Tensor<T> {
        &self.0
    }
}

impl<T> DerefMut for Guard<'_, '_, T> {
    fn deref_mut(&mut self) -> &mut Tensor<T> {
        &mut self.0
    }
}

/// Runs `body(state, meter, i)` for `i` in `(lb..ub).step_by(step)` on all cores, stopping at
/// the first error: [`for_parts`] with no parts.
#[doc(hidden)]
pub fn for_range<S, I, F>(
    meter: &mut Meter,
    lb: i64,
    ub: i64,
    step: i64,
    init: I,
    body: F,
) -> Result<(), Error>
where
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, &mut Meter, i64) -> Result<(), Error> + Sync + Send,
{
    let parts = vec![(); blocks(trips(lb, ub, step)?)];
    for_parts(meter, lb, ub, step, parts, init, |s, m, i, ()| {
        body(s, m, i)
    })
}

/// The rows `[first, first + n)` of a tensor's first dimension, which one iteration of a
/// parallel loop stores to (see the module docs); indexed as the whole tensor.
#[doc(hidden)]
#[derive(Debug)]
pub struct Rows<'a, T> {
    /// The rows' elements.
    data: &'a mut [T],
    /// The linear index of `data[0]` in the whole tensor.
    base: usize,
    /// The whole tensor's shape and strides.
    shape: &'a [usize],
    strides: &'a [usize],
}

impl<T> Rows<'_, T> {
    /// Whether the whole tensor has no elements (as `Tensor::is_empty`).
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }
}

impl<T> TensorMut<T> for Rows<'_, T> {
    fn shape(&self) -> &[usize] {
        self.shape
    }

    fn strides(&self) -> &[usize] {
        self.strides
    }

    fn tail_mut(&mut self, start: usize) -> Option<&mut [T]> {
        self.data.get_mut(start.checked_sub(self.base)?..)
    }
}

/// The number of iterations of `(lb..ub).step_by(step)`, or an error for a step that is not
/// positive.
fn trips(lb: i64, ub: i64, step: i64) -> Result<u64, Error> {
    if step <= 0 {
        return Err(Error::Unsupported(format!(
            "loop step {step} is not positive"
        )));
    }
    Ok(if ub > lb {
        ub.abs_diff(lb).div_ceil(step.unsigned_abs())
    } else {
        0
    })
}

/// How many runs of consecutive iterations ([`row_parts`] cuts, [`for_parts`] runs) a loop
/// of `trips` iterations is split into: a few per thread, so that a thread done early takes
/// another run, and few enough that the parts are a short list whatever the trip count.
fn blocks(trips: u64) -> usize {
    let per_pool = threads().saturating_mul(4).max(1);
    usize::try_from(trips).map_or(per_pool, |t| t.min(per_pool))
}

/// The iterations `[k0, k1)` of run `b` of `n` over `trips` iterations (`b < n <= trips`).
fn block(trips: u64, n: usize, b: usize) -> (u64, u64) {
    let at = |b: usize| (u128::from(trips) * b as u128 / n.max(1) as u128) as u64;
    (at(b), at(b + 1))
}

/// `t` cut into one [`Rows`] per run of consecutive iterations of `(lb..ub).step_by(step)`
/// (see [`for_parts`]): iteration `i` stores to rows `[i + lo, i + lo + step)` of the first
/// dimension, so a run gets the rows from its first iteration's to the next run's, clipped to
/// the tensor (possibly none). The runs' rows are consecutive and disjoint, as `step > 0`.
#[doc(hidden)]
pub fn row_parts<T>(
    t: &mut Tensor<T>,
    lb: i64,
    ub: i64,
    step: i64,
    lo: i64,
) -> Result<Vec<Rows<'_, T>>, Error> {
    let trips = trips(lb, ub, step)?;
    Ok(cut_rows(t, [lb, step, lo], trips, blocks(trips)))
}

/// [`row_parts`] into `n` runs of the `trips` iterations.
fn cut_rows<T>(
    t: &mut Tensor<T>,
    [lb, step, lo]: [i64; 3],
    trips: u64,
    n: usize,
) -> Vec<Rows<'_, T>> {
    let (shape, strides, mut rest) = t.split_mut();
    let rows = shape.first().copied().unwrap_or(0);
    let row_len = strides.first().copied().unwrap_or(1);
    // The first row of iteration `k`, clipped to `[0, rows]` (`i128`: no overflow).
    let row_at = |k: u64| -> usize {
        let r = i128::from(lb) + i128::from(k) * i128::from(step) + i128::from(lo);
        usize::try_from(r.clamp(0, rows as i128)).unwrap_or(rows)
    };
    let mut at = row_at(0);
    // Rows before the first iteration's belong to none.
    rest = rest.get_mut(at * row_len..).unwrap_or_default();
    let mut parts = Vec::with_capacity(n);
    for b in 0..n {
        let end = row_at(block(trips, n, b).1);
        let len = rest.len();
        let (mine, more) = std::mem::take(&mut rest).split_at_mut(((end - at) * row_len).min(len));
        parts.push(Rows {
            data: mine,
            base: at * row_len,
            shape,
            strides,
        });
        rest = more;
        at = end;
    }
    parts
}

/// Runs `body(state, meter, i, part)` for `i` in `(lb..ub).step_by(step)` on all cores:
/// `parts` (what [`row_parts`] cut for each stored tensor, zipped) has one entry per run of
/// consecutive iterations, and the iterations of a run go in order on one thread with its
/// part. Otherwise as [`for_range`].
#[doc(hidden)]
pub fn for_parts<S, P, I, F>(
    meter: &mut Meter,
    lb: i64,
    ub: i64,
    step: i64,
    parts: Vec<P>,
    init: I,
    body: F,
) -> Result<(), Error>
where
    P: Send,
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, &mut Meter, i64, &mut P) -> Result<(), Error> + Sync + Send,
{
    let trips = trips(lb, ub, step)?;
    let n = parts.len();
    if n != blocks(trips) {
        return Err(Error::Unsupported(format!(
            "{n} row parts for {trips} loop iterations"
        )));
    }
    meter.charge(trips)?;
    // `k < trips`, so `lb + k * step < ub` fits an `i64`.
    let at = |k: u64| lb.wrapping_add((k as i64).wrapping_mul(step));
    let run = |state: &mut S, meter: &mut Meter, b: usize, part: &mut P| {
        let (k0, k1) = block(trips, n, b);
        (k0..k1).try_for_each(|k| body(state, meter, at(k), part))
    };
    let pool = match pool() {
        Some(pool) if n > 1 && pool.current_num_threads() > 1 => pool,
        _ => {
            let mut state = init();
            return parts
                .into_iter()
                .enumerate()
                .try_for_each(|(b, mut p)| run(&mut state, meter, b, &mut p));
        }
    };
    // The calling thread takes runs itself, and the pool's other threads join it as they
    // wake: shipped to the pool whole (`into_par_iter`), the loop waited for a sleeping
    // worker to be woken while the caller's core idled (in `cargo bench --bench parallel`,
    // where the calls alternate with sequential ones, the second core then often did not
    // help at all).
    let queue = Mutex::new(parts.into_iter().enumerate());
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let drain = |mut meter: Meter| {
        let mut state = init();
        loop {
            if lock(&failed).is_some() {
                return;
            }
            let Some((b, mut p)) = lock(&queue).next() else {
                return;
            };
            if let Err(e) = run(&mut state, &mut meter, b, &mut p) {
                lock(&failed).get_or_insert(e);
                return;
            }
        }
    };
    // Ends the lingering of the loop before, whose threads then take the runs spawned below.
    let loop_no = LOOPS.fetch_add(1, Ordering::Relaxed) + 1;
    pool.in_place_scope(|s| {
        for _ in 1..pool.current_num_threads() {
            let fork = meter.clone();
            s.spawn(|_| drain(fork));
        }
        drain(meter.clone());
    });
    linger(pool, loop_no);
    match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The thread pool parallel loops run on, made on first use (`None` if no thread could be
/// started: the loops then run on the calling thread). Its own, not rayon's global pool, so
/// that its lingering threads ([`linger`]) never hold up a program's own rayon work.
fn pool() -> Option<&'static ThreadPool> {
    static POOL: OnceLock<Option<ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("pto-par-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// The number of threads a parallel loop runs on (the calling one among them).
fn threads() -> usize {
    pool().map_or(1, ThreadPool::current_num_threads)
}

/// The number of parallel loops started so far: a lingering thread stops when it changes.
static LOOPS: AtomicU64 = AtomicU64::new(0);

/// How long the pool's threads stay awake after a loop: `PTO_PAR_LINGER_MS` milliseconds
/// (read once; `0` lets them sleep at once), 10 by default.
fn linger_time() -> Duration {
    static TIME: OnceLock<Duration> = OnceLock::new();
    *TIME.get_or_init(|| {
        let ms = std::env::var("PTO_PAR_LINGER_MS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(10);
        Duration::from_millis(ms)
    })
}

/// Keeps the pool's other threads awake after loop number `loop_no` ended, until the next
/// loop starts or [`linger_time`] has passed: each runs a job that yields its core in a loop,
/// so the core stays busy for the hypervisor and idle for any other thread that wants it. Not
/// after a loop run from one of the pool's own threads (a loop in a parallel loop's body):
/// there a lingering job could hold up the enclosing loop, whose threads are awake anyway.
fn linger(pool: &ThreadPool, loop_no: u64) {
    let time = linger_time();
    if time.is_zero() || pool.current_thread_index().is_some() {
        return;
    }
    let until = Instant::now() + time;
    for _ in 1..pool.current_num_threads() {
        pool.spawn(move || {
            while LOOPS.load(Ordering::Relaxed) == loop_no && Instant::now() < until {
                std::thread::yield_now();
            }
        });
    }
}

/// `m` locked; a panic in another holder (propagated by the scope anyway) does not matter.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;

    #[test]
    fn runs_every_iteration_once_and_stores_land() {
        let mut out = Tensor::<i64>::zeros([10, 1]);
        let locked = Locked::new(&mut out);
        let r = for_range(
            &mut Meter::start(),
            0,
            10,
            3,
            || 0u32,
            |n, _, i| {
                *n += 1;
                let mut t = locked.lock();
                let at = [i as usize, 0];
                let old = t.get(&at).unwrap_or(0);
                t.set(&at, old + i + 1)?;
                Ok(())
            },
        );
        assert_eq!(r, Ok(()));
        let got: Vec<i64> = out.as_slice().to_vec();
        assert_eq!(got, vec![1, 0, 0, 4, 0, 0, 7, 0, 0, 10]);
    }

    #[test]
    fn stops_at_an_error_and_rejects_a_bad_step() {
        let r = for_range(
            &mut Meter::start(),
            0,
            100,
            1,
            || (),
            |_, _, i| {
                if i == 42 {
                    Err(Error::Unsupported("boom".into()))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err(Error::Unsupported("boom".into())));
        let r = for_range(&mut Meter::start(), 0, 10, 0, || (), |_, _, _| Ok(()));
        assert!(matches!(r, Err(Error::Unsupported(_))));
        assert_eq!(
            for_range(
                &mut Meter::start(),
                5,
                0,
                1,
                || (),
                |_, _, _| Err(Error::Unsupported("never".into()))
            ),
            Ok(())
        );
    }

    /// The rows `[first, end)` of each part, read back through `tail_mut`.
    fn spans(t: &mut Tensor<i64>, lb: i64, ub: i64, step: i64, lo: i64) -> Vec<(usize, usize)> {
        let row = t.strides()[0];
        let trips = trips(lb, ub, step).unwrap();
        cut_rows(t, [lb, step, lo], trips, trips as usize)
            .into_iter()
            .map(|p| (p.base / row, (p.base + p.data.len()) / row))
            .collect()
    }

    #[test]
    fn row_parts_are_each_iterations_rows_clipped_to_the_tensor() {
        let mut t = Tensor::<i64>::zeros([37, 3]);
        // 8 does not divide 37: the last part is 5 rows.
        assert_eq!(
            spans(&mut t, 0, 37, 8, 0),
            vec![(0, 8), (8, 16), (16, 24), (24, 32), (32, 37)]
        );
        // A row down: row 0 is no iteration's, the last part is cut at the end.
        assert_eq!(
            spans(&mut t, 0, 37, 16, 1),
            vec![(1, 17), (17, 33), (33, 37)]
        );
        // Before the tensor and past it: empty parts, no panic.
        assert_eq!(spans(&mut t, 0, 10, 4, -6), vec![(0, 0), (0, 2), (2, 6)]);
        assert_eq!(
            spans(&mut t, 30, 50, 5, 0),
            vec![(30, 35), (35, 37), (37, 37), (37, 37)]
        );
        assert_eq!(spans(&mut t, 5, 0, 1, 0), vec![]);
        assert!(row_parts(&mut t, 0, 10, 0, 0).is_err());
        // Runs of iterations: 5 iterations in 2 runs get rows [0, 16) and [16, 37).
        let two: Vec<(usize, usize)> = cut_rows(&mut t, [0, 8, 0], 5, 2)
            .into_iter()
            .map(|p| (p.base / 3, (p.base + p.data.len()) / 3))
            .collect();
        assert_eq!(two, vec![(0, 16), (16, 37)]);
    }

    #[test]
    fn an_iteration_writes_its_rows_and_only_them() {
        let mut t = Tensor::<i64>::zeros([10, 2]);
        let parts = row_parts(&mut t, 0, 10, 4, 1).unwrap();
        let r = for_parts(
            &mut Meter::start(),
            0,
            10,
            4,
            parts,
            || (),
            |_, _, i, rows| {
                // Index of the whole tensor: row `i + 1` is this iteration's first; row 0
                // is no iteration's.
                let start = (i as usize + 1) * 2;
                assert!(rows.tail_mut(1).is_none());
                if let Some(d) = rows.tail_mut(start) {
                    for v in d.iter_mut().take(4 * 2) {
                        *v = i + 1;
                    }
                }
                Ok(())
            },
        );
        assert_eq!(r, Ok(()));
        let got: Vec<i64> = t.as_slice().chunks(2).map(|r| r[0]).collect();
        assert_eq!(got, vec![0, 1, 1, 1, 1, 5, 5, 5, 5, 9]);
        let r = for_parts(
            &mut Meter::start(),
            0,
            10,
            4,
            vec![(); 9],
            || (),
            |_, _, _, ()| Ok(()),
        );
        assert!(matches!(r, Err(Error::Unsupported(_))), "{r:?}");
    }

    #[test]
    fn loops_in_a_loop_and_loops_back_to_back_run_every_iteration() {
        use std::sync::atomic::AtomicI64;
        let sum = AtomicI64::new(0);
        for _ in 0..3 {
            let r = for_range(
                &mut Meter::start(),
                0,
                8,
                1,
                || (),
                |_, meter, i| {
                    for_range(
                        meter,
                        0,
                        8,
                        1,
                        || (),
                        |_, _, j| {
                            sum.fetch_add(i * 8 + j, Ordering::Relaxed);
                            Ok(())
                        },
                    )
                },
            );
            assert_eq!(r, Ok(()));
        }
        assert_eq!(sum.into_inner(), 3 * (0..64).sum::<i64>());
    }

    #[test]
    fn charges_the_budget() {
        Budget::iterations(5).run(|| {
            let r = for_range(&mut Meter::start(), 0, 6, 1, || (), |_, _, _| Ok(()));
            assert!(matches!(r, Err(Error::Budget { .. })));
        });
    }
}
