//! A kernel's `CPP` in the C++ model of pto-isa (`pto-lower/tests/cpp/pto_decls.hpp`), for
//! A2A3 and A5, against the reference interpreter on the same arguments (the kernels' own
//! tests check host function == interpreter): for the test files whose kernels are not in
//! `tests/cpp_model.rs`'s host-function rows (issue 14's audit).

#[path = "../../pto-lower/tests/cpp/harness.rs"]
pub mod harness;

use pto::ir::ProgramModule;
use pto_lower::interp::{HostValue, run};

/// Size sets by symbolic-dimension name: `[("R", 32), ("C", 64)]`.
pub type Sizes = Vec<Vec<(&'static str, usize)>>;

/// Builds `m`'s C++ for each target (`NAME::CPP` for A2A3 and for A5), runs it in the model
/// at every size set (guard zones checked by the driver) and compares every tensor and
/// returned scalar with the interpreter. Each run prints `name target sizes: max error E`;
/// the problems come back (empty: all agree within 1e-5 relative). Skipped (empty) when no
/// C++ compiler is installed. `a2a3: false` leaves A2A3 out (the caller says why).
pub fn check(name: &str, m: &ProgramModule, sizes: &Sizes, a2a3: bool) -> Vec<String> {
    let Some(gxx) = harness::gxx() else {
        eprintln!("skip: no C++ compiler; {name}'s C++ was not run");
        return Vec::new();
    };
    let dir = std::env::temp_dir().join(format!("pto-audit-{}-{name}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return vec![format!("{name}: {e}")];
    }
    let mut problems = Vec::new();
    let targets: &[&str] = if a2a3 { &["A2A3", "A5"] } else { &["A5"] };
    for &target in targets {
        let built = match harness::build(&gxx, m, target, &dir, name) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{name} {target}: {e}"));
                continue;
            }
        };
        for (k, set) in sizes.iter().enumerate() {
            let dims = harness::dims_by_name(m, set);
            let args = harness::args_for(m, &dims, 3 + k as u64, k % 2 == 1);
            let mut want = args.clone();
            let want_rets = match run(m, m.entry.unwrap(), &mut want) {
                Ok(r) => r,
                Err(e) => {
                    problems.push(format!("{name} {set:?}: the interpreter failed: {e}"));
                    continue;
                }
            };
            match built.run(&args) {
                Ok((got, got_rets)) => {
                    let mut err = 0.0f64;
                    for (g, w) in got.iter().zip(&want) {
                        if let (HostValue::Tensor(g), HostValue::Tensor(w)) = (g, w) {
                            err = err.max(harness::max_error(&g.data, &w.data));
                        }
                    }
                    let want_rets: Vec<f64> =
                        want_rets.iter().filter_map(HostValue::as_f64).collect();
                    err = err.max(harness::max_error(&got_rets, &want_rets));
                    eprintln!("{name} {target} {set:?}: max error {err:.2e}");
                    if err > 1e-5 {
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
