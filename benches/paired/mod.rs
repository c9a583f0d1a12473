//! Side-by-side timing for the benches that compare two ways of doing the same work.
//!
//! A shared machine's load changes from second to second; timing all of one function's
//! samples and then all of the other's (as divan does) lets such a change fall between the
//! two and move their ratio by half. Here the two calls alternate (A B, B A, A B ...), so a
//! pair's two calls see the same load, and the figure to trust is the median over pairs of
//! the pair's ratio, reported beside the two medians and the quartiles of the pair ratios.
//!
//! The two calls work on the same buffers (the `state` of [`Runner::compare`]): each then
//! finds what the call before it left in the caches, whichever it was, and neither gets
//! memory that happens to be placed better. With separate buffers, one function timed on
//! two outputs of the same size differed by 10 to 15% within a process, steadily, which
//! moved ratios from run to run.
//!
//! Arguments that do not start with `-` filter the groups by name (substring), as with
//! divan; `PTO_BENCH_PAIRS` sets the number of pairs (100 by default).

use std::time::{Duration, Instant};

/// The shortest time one sample of a call should take: shorter calls are repeated that
/// many times per sample, so the clock's resolution and its own cost stay far below it.
const MIN_SAMPLE: Duration = Duration::from_micros(500);

/// The groups to run (command-line filters) and the number of pairs per group.
pub struct Runner {
    filters: Vec<String>,
    pairs: usize,
}

impl Runner {
    /// Reads the filters from the command line and the pair count from `PTO_BENCH_PAIRS`,
    /// and prints the table's header.
    pub fn from_args(a: &str, b: &str) -> Self {
        let filters = std::env::args()
            .skip(1)
            .filter(|s| !s.starts_with('-'))
            .collect();
        let pairs = std::env::var("PTO_BENCH_PAIRS")
            .ok()
            .and_then(|s| s.parse().ok())
            .filter(|&n: &usize| n > 0)
            .unwrap_or(100);
        println!(
            "{pairs} pairs per group, the two calls alternating; ratio = {a} / {b}: median of \
             the pairs' ratios [quartiles], ratio of the medians"
        );
        println!(
            "{:<34} {:>10} {:>10}  {:>6} [{:>5} {:>5}]  {:>6}  {:>10} {:>10}",
            "group", "med a", "med b", "ratio", "q1", "q3", "of med", "fast a", "fast b"
        );
        Self { filters, pairs }
    }

    /// Times `a` against `b`, both called on `state`, as the group `name` (unless filtered
    /// out) and prints one row.
    pub fn compare<S>(
        &self,
        name: &str,
        state: &mut S,
        mut a: impl FnMut(&mut S),
        mut b: impl FnMut(&mut S),
    ) {
        if !self.filters.is_empty() && !self.filters.iter().any(|f| name.contains(f.as_str())) {
            return;
        }
        // Warm up both (caches, page faults of first writes, frequency) and size the sample.
        let once = |f: &mut dyn FnMut(&mut S), s: &mut S| {
            let t = Instant::now();
            f(s);
            t.elapsed()
        };
        let mut slowest = Duration::ZERO;
        for _ in 0..3 {
            slowest = slowest.max(once(&mut a, state)).max(once(&mut b, state));
        }
        let iters = (MIN_SAMPLE.as_nanos() / slowest.as_nanos().max(1)).max(1) as usize;
        let sample = |f: &mut dyn FnMut(&mut S), s: &mut S| {
            let t = Instant::now();
            for _ in 0..iters {
                f(s);
            }
            t.elapsed().as_secs_f64() / iters as f64
        };
        let (mut ta, mut tb) = (Vec::new(), Vec::new());
        for k in 0..self.pairs {
            // Alternate which goes first, so neither always runs on the other's leftovers.
            if k % 2 == 0 {
                ta.push(sample(&mut a, state));
                tb.push(sample(&mut b, state));
            } else {
                tb.push(sample(&mut b, state));
                ta.push(sample(&mut a, state));
            }
        }
        let mut ratios: Vec<f64> = ta.iter().zip(&tb).map(|(a, b)| a / b).collect();
        // Sorted from here on: `ta[0]` and `tb[0]` are the fastest samples.
        let (ma, mb) = (median(&mut ta), median(&mut tb));
        let r = median(&mut ratios);
        let (q1, q3) = (quantile(&ratios, 0.25), quantile(&ratios, 0.75));
        println!(
            "{name:<34} {:>10} {:>10}  {r:>6.3} [{q1:>5.2} {q3:>5.2}]  {:>6.3}  {:>10} {:>10}",
            show(ma),
            show(mb),
            ma / mb,
            show(ta[0]),
            show(tb[0]),
        );
    }
}

/// Sorts `v` and returns its median.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    quantile(v, 0.5)
}

/// The `q` quantile of the sorted `v`, interpolated between neighbours.
fn quantile(v: &[f64], q: f64) -> f64 {
    let Some(last) = v.len().checked_sub(1) else {
        return f64::NAN;
    };
    let x = q * last as f64;
    let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
}

/// A time in seconds, in µs or ms.
fn show(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else {
        format!("{:.3} ms", s * 1e3)
    }
}
