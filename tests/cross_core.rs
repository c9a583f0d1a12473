//! Cube and vector work that meet in a tensor (`tests/cross_core/kernels.rs`): on A2A3
//! each kernel splits into a cube and a vector part with handoffs (`Inst::Handoff`,
//! cross-core flags 4 and 5) where one core's tensor accesses must finish before the
//! other's. Each kernel's host function matches plain Rust and the interpreter, and its
//! `CPP` for A2A3 and A5 runs in the C++ model of pto-isa at aligned and ragged sizes with
//! guard zones, matching the host function (the model checks that every signal is waited
//! for, and runs the A2A3 parts as threads).
#![allow(clippy::unwrap_used)]

#[path = "cross_core/kernels.rs"]
mod kernels;

mod support;

use pto_lower::interp::{HostValue, run};
use support::model::{Model, harness};
use support::values::{data, max_error, mm, put, tensor, tensor_i64};

type Host = fn(&mut [HostValue]) -> Result<(), pto::Error>;

struct Case {
    name: &'static str,
    m: pto::ir::ProgramModule,
    host: Host,
    /// The plain-Rust value of the output from the arguments.
    reference: fn(&[HostValue]) -> Vec<f64>,
    out: usize,
    /// The handoffs' LOWERED lines of the A2A3 route.
    lines: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "cube_then_vector",
            m: kernels::cube_then_vector::program(),
            host: |a| {
                let (x, y) = (tensor(&a[0]), tensor(&a[1]));
                let (mut c, mut d) = (tensor(&a[2]), tensor(&a[3]));
                kernels::cube_then_vector(&x, &y, &mut c, &mut d)?;
                put(&mut a[2], &c);
                put(&mut a[3], &d);
                Ok(())
            },
            reference: |a| {
                let m = a[0].as_tensor().unwrap().shape[0];
                mm(&data(&a[0]), &data(&a[1]), m, 32, 32)
                    .into_iter()
                    .map(|x| x.max(0.0) * 0.5)
                    .collect()
            },
            out: 3,
            lines: &[
                "handoff %c_3: pipe_barrier(PIPE_ALL); ffts_cross_core_sync(PIPE_FIX, flag 4)",
                "handoff %c_3: wait_flag_dev(4)",
                "handoff %c_3: pipe_barrier(PIPE_ALL); ffts_cross_core_sync(PIPE_MTE3, flag 5)",
                "handoff %c_3: wait_flag_dev(5)",
            ],
        },
        Case {
            name: "vector_then_cube",
            m: kernels::vector_then_cube::program(),
            host: |a| {
                let (x, y) = (tensor(&a[0]), tensor(&a[1]));
                let (mut t, mut n, mut o) = (tensor(&a[2]), tensor_i64(&a[3]), tensor(&a[4]));
                kernels::vector_then_cube(&x, &y, &mut t, &mut n, &mut o)?;
                put(&mut a[2], &t);
                put(&mut a[4], &o);
                Ok(())
            },
            reference: |a| {
                let m = a[0].as_tensor().unwrap().shape[0];
                let t: Vec<f64> = data(&a[0]).iter().map(|x| x.max(0.0)).collect();
                mm(&t, &data(&a[1]), m, 32, 32)
            },
            out: 4,
            lines: &[
                "ffts_cross_core_sync(PIPE_MTE3, flag 5)",
                "wait_flag_dev(5)",
            ],
        },
    ]
}

const SIZES: [usize; 2] = [32, 37];

#[test]
fn kernels_on_the_cpu_match_plain_rust_and_the_interpreter() {
    for c in cases() {
        for (k, &m) in SIZES.iter().enumerate() {
            let dims = harness::dims_by_name(&c.m, &[("M", m)]);
            let args = harness::args_for(&c.m, &dims, 3 + k as u64, false);
            let mut host = args.clone();
            (c.host)(&mut host).unwrap();
            let mut interp = args.clone();
            run(&c.m, c.m.entry.unwrap(), &mut interp).unwrap();
            let (h, i) = (data(&host[c.out]), data(&interp[c.out]));
            let vs_interp = max_error(&h, &i);
            let vs_rust = max_error(&h, &(c.reference)(&args));
            eprintln!(
                "{} M = {m}: host vs interpreter {vs_interp:.2e}, vs plain Rust {vs_rust:.2e}",
                c.name
            );
            assert_eq!(h, i, "{} M = {m}: host vs interpreter", c.name);
            assert!(
                vs_rust <= 1e-4,
                "{} M = {m}: host vs plain Rust {vs_rust:.2e}",
                c.name
            );
        }
    }
}

#[test]
fn a2a3_routes_hand_the_tensor_off_between_the_cores() {
    for c in cases() {
        let lowered = pto_lower::compile(&c.m, c.m.entry.unwrap())
            .unwrap()
            .lowered;
        for line in c.lines {
            assert!(lowered.contains(line), "{}: {line}:\n{lowered}", c.name);
        }
    }
}

#[test]
fn kernels_run_in_the_cpp_model_on_both_targets() {
    let mut failures = Vec::new();
    for c in cases() {
        for target in ["A2A3", "A5"] {
            let cpp = harness::cpp_for(&c.m, target).unwrap();
            assert_eq!(
                harness::is_split(&cpp),
                target == "A2A3",
                "{} {target}",
                c.name
            );
        }
        let sizes = SIZES.iter().map(|&m| vec![("M", m)]).collect();
        failures.extend(
            Model::new(c.name, &c.m, sizes)
                .outputs(&[c.out])
                .against(|a| (c.host)(a).map(|()| Vec::new()).map_err(|e| e.to_string())),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
