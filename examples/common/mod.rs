//! Helpers shared by the examples: command-line handling, random input, error measures.
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// What an example was asked to do.
pub struct Args {
    /// Sizes given on the command line (or the example's defaults).
    pub sizes: Vec<usize>,
    /// Print `NAME::LOWERED` too.
    pub lowered: bool,
    /// Print `NAME::CPP` too.
    pub cpp: bool,
}

/// Parses `[--lowered] [--cpp] [SIZE...]`, filling missing sizes from `defaults`.
pub fn args(defaults: &[usize]) -> Args {
    let mut out = Args {
        sizes: Vec::new(),
        lowered: false,
        cpp: false,
    };
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--lowered" => out.lowered = true,
            "--cpp" => out.cpp = true,
            s => match s.parse() {
                Ok(n) if n > 0 => out.sizes.push(n),
                _ => {
                    eprintln!(
                        "usage: [--lowered] [--cpp] [SIZE...]  (sizes are positive integers)"
                    );
                    std::process::exit(2);
                }
            },
        }
    }
    for (i, &d) in defaults.iter().enumerate() {
        if out.sizes.len() <= i {
            out.sizes.push(d);
        }
    }
    out
}

/// Prints the IR text forms the example was asked for.
pub fn show(name: &str, ir: &str, lowered: &str, cpp: &str, args: &Args) {
    println!("// ===== {name}::IR =====\n{ir}");
    if args.lowered {
        println!("// ===== {name}::LOWERED =====\n{lowered}");
    }
    if args.cpp {
        println!("// ===== {name}::CPP =====\n{cpp}");
    }
}

/// Deterministic pseudo-random values in [-1, 1) (a 64-bit LCG; no dependency needed).
pub fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Deterministic pseudo-random integers in [-1000, 1000).
pub fn random_i32(n: usize, seed: u64) -> Vec<i32> {
    random(n, seed)
        .into_iter()
        .map(|v| (v * 1000.0) as i32)
        .collect()
}

/// The largest relative error of `got` against `want` (absolute below 1).
pub fn max_rel_err(got: &[f32], want: &[f32]) -> f32 {
    assert_eq!(got.len(), want.len(), "result length");
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs() / w.abs().max(1.0))
        .fold(0.0, f32::max)
}

/// Runs `f` once and returns its result and how long it took.
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

/// The result of one checked kernel run.
#[derive(Debug)]
pub struct Outcome {
    /// What ran, for the report line.
    pub what: String,
    /// Largest relative error against the plain-Rust reference.
    pub err: f32,
    /// The tolerance the example promises.
    pub tol: f32,
    /// Time of the kernel call alone.
    pub took: Duration,
}

/// Prints each outcome and fails the process when an error is over its tolerance.
pub fn report(outcomes: &[Outcome]) {
    let mut failed = false;
    for o in outcomes {
        println!(
            "{}: max relative error {:.2e} (tolerance {:.0e}), kernel time {:.2?}",
            o.what, o.err, o.tol, o.took
        );
        failed |= o.err > o.tol;
    }
    if failed {
        eprintln!("error above tolerance");
        std::process::exit(1);
    }
}
