//! The runtime of `parallel` loops: what the host code of a `for i in parallel(a..b)` loop
//! calls when the lowering has shown its iterations independent.
//!
//! Safe Rust, no data race: [`for_range`] runs the iterations on rayon's pool, each worker
//! with its own tiles (made by `init`); a tensor the loop stores to is shared as a
//! [`Locked`], whose mutex is held for one store at a time. The lowering only runs a loop
//! here when the store windows of different iterations are disjoint and no iteration reads a
//! tensor the loop writes, so the order in which the stores land does not change the result.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use crate::budget::Meter;
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
        Guard(self.0.lock().unwrap_or_else(PoisonError::into_inner))
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
/// the first error. Each rayon job makes its `state` (the tiles the body writes) once with
/// `init` and its own copy of `meter`; the loop's iterations are charged to `meter` up front.
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
    if step <= 0 {
        return Err(Error::Unsupported(format!(
            "loop step {step} is not positive"
        )));
    }
    let trips = if ub > lb {
        ub.abs_diff(lb).div_ceil(step.unsigned_abs())
    } else {
        0
    };
    meter.charge(trips)?;
    let at = |k: u64| lb.wrapping_add((k as i64).wrapping_mul(step));
    // One iteration, or one thread: no pool round trip.
    if trips <= 1 || rayon::current_num_threads() <= 1 {
        let mut state = init();
        return (0..trips).try_for_each(|k| body(&mut state, meter, at(k)));
    }
    let fork = meter.clone();
    (0..trips).into_par_iter().try_for_each_init(
        || (init(), fork.clone()),
        // `k < trips`, so `lb + k * step < ub` fits an `i64`.
        |(state, meter), k| body(state, meter, at(k)),
    )
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

    #[test]
    fn charges_the_budget() {
        Budget::iterations(5).run(|| {
            let r = for_range(&mut Meter::start(), 0, 6, 1, || (), |_, _, _| Ok(()));
            assert!(matches!(r, Err(Error::Budget { .. })));
        });
    }
}
