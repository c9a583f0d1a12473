//! A kernel's `CPP` in the C++ model of pto-isa (`pto-lower/tests/cpp/pto_decls.hpp`), for
//! A2A3 and A5, at each size set, against a reference on the same arguments: the kernel's
//! host function, the reference interpreter or plain Rust (issue 14's audit). One C++ build
//! per kernel and target serves every size.

#[path = "../../pto-lower/tests/cpp/harness.rs"]
pub mod harness;

use pto::ir::ProgramModule;
use pto_lower::interp::{HostValue, run};

use super::run::{Args, host};

/// Size sets by symbolic-dimension name: `[("R", 32), ("C", 64)]`.
pub type Sizes = Vec<Vec<(&'static str, usize)>>;

/// The largest error the model's result may have against the reference: relative to
/// `max(|want|, 1)` for floats; integers differ by at least 1, so they must match exactly.
pub const TOLERANCE: f64 = 1e-5;

/// One kernel's runs in the model: which targets, sizes, data and outputs. Build it with
/// [`Model::new`], adjust it, then run it with one of the `against` methods.
pub struct Model<'a> {
    name: &'a str,
    m: &'a ProgramModule,
    sizes: Sizes,
    targets: &'static [&'static str],
    seed: u64,
    outputs: Option<Vec<usize>>,
    fixed: Vec<(usize, HostValue)>,
    tolerance: f64,
}

impl<'a> Model<'a> {
    /// `m`'s entry kernel for A2A3 and A5 at `sizes`; size set `k` gets the data of seed
    /// `3 + k` and its `bool` parameters `k % 2 == 1`; every tensor and every returned scalar
    /// the reference gives is compared.
    pub fn new(name: &'a str, m: &'a ProgramModule, sizes: Sizes) -> Self {
        Model {
            name,
            m,
            sizes,
            targets: &["A2A3", "A5"],
            seed: 3,
            outputs: None,
            fixed: Vec::new(),
            tolerance: TOLERANCE,
        }
    }

    /// Leaves A2A3 out when `a2a3` is false (the caller says why).
    pub fn a2a3(mut self, a2a3: bool) -> Self {
        if !a2a3 {
            self.targets = &["A5"];
        }
        self
    }

    /// Size set `k` gets the data of seed `seed + k`.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Gives argument `k` the value `v` in every run (instead of the model's 5 for an
    /// integer scalar, 1.5 for a float, random tensors).
    pub fn arg(mut self, k: usize, v: HostValue) -> Self {
        self.fixed.push((k, v));
        self
    }

    /// Allows this largest error instead of [`TOLERANCE`] (0: the model must compute
    /// exactly what the reference does).
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Compares only these arguments (the reference leaves the others as they were).
    pub fn outputs(mut self, outputs: &[usize]) -> Self {
        self.outputs = Some(outputs.to_vec());
        self
    }

    /// Against the reference interpreter, tensors and returned scalars.
    pub fn against_interpreter(&self) -> Vec<String> {
        let m = self.m;
        self.against(|args| {
            let entry = m.entry.ok_or("the module has no entry")?;
            let rets = run(m, entry, args).map_err(|e| format!("the interpreter failed: {e}"))?;
            Ok(rets.iter().filter_map(HostValue::as_f64).collect())
        })
    }

    /// Against the kernel's host function, which `call` makes with the arguments [`Args`]
    /// reads (its returned value is not compared).
    pub fn against_host(&self, call: impl Fn(&Args) -> Result<(), pto::Error>) -> Vec<String> {
        self.against(|args| {
            host(args, &call)
                .map(|()| Vec::new())
                .map_err(|e| format!("the host function failed: {e}"))
        })
    }

    /// Builds the C++ for each target, runs it in the model at every size set (guard zones
    /// and unchanged inputs checked by the driver) and compares it with `reference`, which
    /// updates the output tensors of the arguments it is given and returns the scalars the
    /// kernel returns (those it does not return are not compared). Each run prints
    /// `name target sizes: max error E`; the problems come back (empty: all agree within
    /// the tolerance). Skipped (empty) when no C++ compiler is installed.
    pub fn against(
        &self,
        reference: impl Fn(&mut [HostValue]) -> Result<Vec<f64>, String>,
    ) -> Vec<String> {
        let name = self.name;
        let Some(gxx) = harness::gxx() else {
            eprintln!("skip: no C++ compiler; {name}'s C++ was not run");
            return Vec::new();
        };
        let dir = std::env::temp_dir().join(format!("pto-model-{}-{name}", std::process::id()));
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return vec![format!("{name}: {e}")];
        }
        // The targets' builds (g++ is most of the time) side by side.
        let builds: Vec<_> = std::thread::scope(|s| {
            let jobs: Vec<_> = self
                .targets
                .iter()
                .map(|&target| {
                    let (gxx, dir) = (&gxx, &dir);
                    s.spawn(move || harness::build(gxx, self.m, target, dir, name))
                })
                .collect();
            jobs.into_iter()
                .map(|j| {
                    j.join()
                        .unwrap_or_else(|_| Err("the build panicked".into()))
                })
                .collect()
        });
        let mut problems = Vec::new();
        for (&target, built) in self.targets.iter().zip(builds) {
            let built = match built {
                Ok(b) => b,
                Err(e) => {
                    problems.push(format!("{name} {target}: {e}"));
                    continue;
                }
            };
            for (k, set) in self.sizes.iter().enumerate() {
                let dims = harness::dims_by_name(self.m, set);
                let mut args = harness::args_for(self.m, &dims, self.seed + k as u64, k % 2 == 1);
                for (k, v) in &self.fixed {
                    if let Some(a) = args.get_mut(*k) {
                        *a = v.clone();
                    }
                }
                let mut want = args.clone();
                let want_rets = match reference(&mut want) {
                    Ok(r) => r,
                    Err(e) => {
                        problems.push(format!("{name} {set:?}: {e}"));
                        continue;
                    }
                };
                match built.run(&args) {
                    Ok((got, got_rets)) => {
                        let err = self
                            .error(&got, &want)
                            .max(harness::max_error(&got_rets, &want_rets));
                        eprintln!("{name} {target} {set:?}: max error {err:.2e}");
                        if err > self.tolerance {
                            problems.push(format!("{name} {target} {set:?}: max error {err:.2e}"));
                        }
                    }
                    Err(e) => problems.push(format!("{name} {target} {set:?}: {e}")),
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        problems
    }

    /// The largest error over the compared tensors.
    fn error(&self, got: &[HostValue], want: &[HostValue]) -> f64 {
        got.iter()
            .zip(want)
            .enumerate()
            .filter(|(k, _)| self.outputs.as_ref().is_none_or(|o| o.contains(k)))
            .filter_map(|(_, (g, w))| {
                Some(harness::max_error(
                    &g.as_tensor()?.data,
                    &w.as_tensor()?.data,
                ))
            })
            .fold(0.0, f64::max)
    }
}

/// [`Model::against_interpreter`] for A2A3 and A5 (`a2a3: false` leaves A2A3 out: the caller
/// says why).
pub fn check(name: &str, m: &ProgramModule, sizes: &Sizes, a2a3: bool) -> Vec<String> {
    Model::new(name, m, sizes.clone())
        .a2a3(a2a3)
        .against_interpreter()
}
