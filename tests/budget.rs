//! Runaway launches: a kernel that never ends stops at its budget with `Error::Budget`, and a
//! loop over a huge dimension of an empty tensor does not spin through its iterations.

use std::sync::mpsc;
use std::time::Duration;

use pto::prelude::*;
use pto::{Budget, Error};

/// `k` never moves: without a budget this never returns.
#[pto::kernel(control_flow)]
pub fn spin(n: i64) -> i64 {
    let mut k = 0;
    while k < n {
        k = k + 0;
    }
    k
}

/// Counts up to `n`, one iteration per step.
#[pto::kernel(control_flow)]
pub fn count(n: i64) -> i64 {
    let mut k = 0;
    for i in 0..n {
        k = k + i - i + 1;
    }
    k
}

/// A row at a time: a loop the runtime runs in one call.
#[pto::kernel]
pub fn copy_rows(x: &Tensor<f32, B, C>, #[out] y: &mut Tensor<f32, B, C>) {
    for b in 0..B {
        let t = x.load::<1, 16>([b, 0]);
        y.store([b, 0], t);
    }
}

/// A row at a time, with a branch: a loop the host code writes out.
#[pto::kernel]
pub fn branchy_rows(x: &Tensor<f32, B, C>, flip: bool, #[out] y: &mut Tensor<f32, B, C>) {
    for b in 0..B {
        let t = x.load::<1, 16>([b, 0]);
        if flip {
            y.store([b, 0], t * -1.0);
        } else {
            y.store([b, 0], t);
        }
    }
}

/// Runs `f` on another thread, failing the test when it has not returned after `limit`.
fn within<R: Send + 'static>(limit: Duration, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("did not return within {limit:?}"))
}

#[test]
fn an_iteration_budget_stops_an_endless_loop() {
    let r = within(Duration::from_secs(30), || {
        Budget::iterations(100_000).run(|| spin(1))
    });
    assert_eq!(
        r,
        Err(Error::Budget {
            what: "100000 loop iterations".into()
        })
    );
    assert_eq!(Budget::iterations(10).run(|| spin(0)), Ok(0));
    // Exactly the budget is allowed; one more iteration is not.
    assert_eq!(Budget::iterations(50).run(|| count(50)), Ok(50));
    assert!(matches!(
        Budget::iterations(50).run(|| count(51)),
        Err(Error::Budget { .. })
    ));
    // Without a budget nothing is limited.
    assert_eq!(count(100_000), Ok(100_000));
}

#[test]
fn a_time_budget_stops_an_endless_loop() {
    let r = within(Duration::from_secs(30), || {
        Budget::time(Duration::from_millis(50)).run(|| spin(1))
    });
    assert!(matches!(r, Err(Error::Budget { .. })), "{r:?}");
}

#[test]
fn a_fused_loop_is_charged_up_front() {
    let x = pto::Tensor::<f32>::zeros([64, 16]);
    let mut y = pto::Tensor::<f32>::zeros([64, 16]);
    let r = Budget::iterations(63).run(|| copy_rows(&x, &mut y));
    assert!(matches!(r, Err(Error::Budget { .. })), "{r:?}");
    assert_eq!(Budget::iterations(64).run(|| copy_rows(&x, &mut y)), Ok(()));
}

/// A loop over a symbolic dimension that touches no tensor.
#[pto::kernel]
pub fn idle(x: &Tensor<f32, B, C>, #[out] y: &mut Tensor<f32, B, C>) {
    for b in 0..B {
        let t = Tile::<f32, 1, 16>::zeros();
        let u = t + 1.0;
        let v = u * 2.0;
    }
}

#[test]
fn loops_over_empty_tensors_do_not_spin() {
    let huge = 1usize << 40;
    let r = within(Duration::from_secs(30), move || {
        let x = pto::Tensor::<f32>::zeros([huge, 0]);
        let mut y = pto::Tensor::<f32>::zeros([huge, 0]);
        let ok_or_window =
            |r: Result<(), Error>| matches!(r, Ok(()) | Err(Error::OutOfBounds { .. }));
        (
            idle(&x, &mut y),
            ok_or_window(copy_rows(&x, &mut y)),
            ok_or_window(branchy_rows(&x, true, &mut y)),
            ok_or_window(branchy_rows(&x, false, &mut y)),
        )
    });
    assert_eq!(r, (Ok(()), true, true, true));
    // Non-empty tensors still run every iteration.
    let x = pto::Tensor::<f32>::full([4, 16], 2.0);
    let mut y = pto::Tensor::<f32>::zeros([4, 16]);
    assert_eq!(branchy_rows(&x, true, &mut y), Ok(()));
    assert!(y.as_slice().iter().all(|&v| v == -2.0));
    assert_eq!(copy_rows(&x, &mut y), Ok(()));
    assert!(y.as_slice().iter().all(|&v| v == 2.0));
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa, at a tile-multiple and a ragged size, against their host functions. `spin` is
/// left out: it never returns for the `n > 0` the model's arguments give (its point is the
/// budget that stops it).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let bc = || vec![vec![("B", 32), ("C", 16)], vec![("B", 37), ("C", 10)]];
    let mut problems = Vec::new();
    problems.extend(
        Model::new("copy_rows", &copy_rows::program(), bc())
            .against_host(|t| copy_rows(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new("branchy_rows", &branchy_rows::program(), bc())
            .against_host(|t| branchy_rows(&t.tensor(0), t.flag(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new("idle", &idle::program(), bc())
            .against_host(|t| idle(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new("count", &count::program(), vec![vec![]]).against(|a| {
            count(a[0].as_i64().unwrap_or(0))
                .map(|n| vec![n as f64])
                .map_err(|e| e.to_string())
        }),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
