//! An opt-in limit on how long a kernel's host function may run.
//!
//! A kernel is a program: `while k < n { k = k + 0; }` never ends, and a loop over a huge
//! symbolic dimension runs as long as it says. [`Budget::run`] runs a closure with a limit on
//! the loop iterations and / or the wall-clock time of every host function called inside it
//! (on this thread); a host function that exceeds it stops at the next loop iteration and
//! returns [`Error::Budget`]. Without a budget the host functions run unlimited, at the cost
//! of one branch per loop iteration.
//!
//! ```
//! # use pto::prelude::*;
//! #[pto::kernel(control_flow)]
//! fn spin(n: i64) -> i64 {
//!     let mut k = 0;
//!     while k < n {
//!         k = k + 0;
//!     }
//!     k
//! }
//!
//! let r = pto::Budget::iterations(1_000).run(|| spin(1));
//! assert!(matches!(r, Err(pto::Error::Budget { .. })));
//! assert_eq!(pto::Budget::iterations(1_000).run(|| spin(0)).ok(), Some(0));
//! ```

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::Error;

/// A limit on the loop iterations and the time of the host functions run inside
/// [`Budget::run`]. Each host function call gets the whole budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    iterations: Option<u64>,
    time: Option<Duration>,
}

thread_local! {
    static CURRENT: Cell<Option<Budget>> = const { Cell::new(None) };
}

impl Budget {
    /// At most `n` loop iterations per host function call (all loops, nested ones included).
    pub fn iterations(n: u64) -> Self {
        Budget {
            iterations: Some(n),
            time: None,
        }
    }

    /// At most `limit` of wall-clock time per host function call, checked at loop
    /// iterations (a single long tile instruction is not interrupted).
    pub fn time(limit: Duration) -> Self {
        Budget {
            iterations: None,
            time: Some(limit),
        }
    }

    /// This budget with a time limit as well.
    pub fn and_time(self, limit: Duration) -> Self {
        Budget {
            time: Some(limit),
            ..self
        }
    }

    /// Runs `f` with this budget for every host function it calls on this thread, then
    /// restores the budget that was in force before (budgets nest).
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Budget>);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(CURRENT.with(|c| c.replace(Some(self))));
        f()
    }
}

/// How often (in iterations) a meter with a time limit reads the clock.
const CLOCK_EVERY: u64 = 1024;

/// What one host function call has spent of the budget in force when it started. The
/// generated host code makes one and calls [`Meter::tick`] at every loop iteration.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Meter {
    limit: Option<Budget>,
    spent: u64,
    start: Option<Instant>,
}

impl Meter {
    /// A meter for the budget in force on this thread, if any.
    #[inline]
    pub fn start() -> Self {
        let limit = CURRENT.with(Cell::get);
        Meter {
            limit,
            spent: 0,
            start: limit.and_then(|b| b.time).map(|_| Instant::now()),
        }
    }

    /// Counts one loop iteration.
    #[inline]
    pub fn tick(&mut self) -> Result<(), Error> {
        match self.limit {
            None => Ok(()),
            Some(b) => self.charge_to(b, 1),
        }
    }

    /// Counts `n` iterations at once (a loop the runtime runs in one call).
    #[inline]
    pub fn charge(&mut self, n: u64) -> Result<(), Error> {
        match self.limit {
            None => Ok(()),
            Some(b) => self.charge_to(b, n),
        }
    }

    /// The end of `(lb..ub).step_by(step)`, a loop the runtime runs in one call: `ub`, or
    /// one step past `lb` when every tensor the loop touches is `empty` (the later
    /// iterations would do nothing). Its iterations are charged up front.
    pub fn loop_end(&mut self, lb: i64, ub: i64, step: i64, empty: bool) -> Result<i64, Error> {
        let ub = if empty {
            ub.min(lb.saturating_add(step))
        } else {
            ub
        };
        let trips = if ub <= lb || step <= 0 {
            0
        } else {
            ub.abs_diff(lb).div_ceil(step.unsigned_abs())
        };
        self.charge(trips)?;
        Ok(ub)
    }

    fn charge_to(&mut self, b: Budget, n: u64) -> Result<(), Error> {
        let before = self.spent;
        self.spent = self.spent.saturating_add(n);
        if let Some(max) = b.iterations
            && self.spent > max
        {
            return Err(Error::Budget {
                what: format!("{max} loop iterations"),
            });
        }
        if let (Some(limit), Some(start)) = (b.time, self.start)
            && (before / CLOCK_EVERY != self.spent / CLOCK_EVERY || n > 1)
            && start.elapsed() > limit
        {
            return Err(Error::Budget {
                what: format!("{limit:?}"),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_budget_never_stops() {
        let mut m = Meter::start();
        for _ in 0..10_000 {
            assert!(m.tick().is_ok());
        }
        assert!(m.charge(u64::MAX).is_ok());
    }

    #[test]
    fn an_iteration_budget_stops_past_its_count_and_nests() {
        Budget::iterations(3).run(|| {
            let mut m = Meter::start();
            assert!((0..3).all(|_| m.tick().is_ok()));
            assert_eq!(
                m.tick(),
                Err(Error::Budget {
                    what: "3 loop iterations".into()
                })
            );
            Budget::iterations(10).run(|| assert!(Meter::start().charge(10).is_ok()));
            assert!(Meter::start().charge(4).is_err());
        });
        assert!(Meter::start().charge(4).is_ok());
    }

    #[test]
    fn a_time_budget_stops_after_its_time() {
        Budget::time(Duration::from_millis(20)).run(|| {
            let mut m = Meter::start();
            let start = Instant::now();
            let stopped = loop {
                if let Err(e) = m.tick() {
                    break e;
                }
                assert!(start.elapsed() < Duration::from_secs(10), "never stopped");
            };
            assert!(matches!(stopped, Error::Budget { .. }));
        });
    }
}
