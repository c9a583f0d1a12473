//! Matmul operands made by other tile work (`tests/chain/kernels.rs`): a vector result fed
//! to a matmul and a matmul result fed to another matmul. Each kernel's host function
//! matches plain Rust and the interpreter, and its `CPP` for A2A3 and A5 runs in the C++
//! model of pto-isa (`pto-lower/tests/cpp/pto_decls.hpp`) at aligned and ragged sizes with
//! guard zones, matching the host function; on A2A3 each is split into a cube and a vector
//! part (the model refuses a move the target lacks).
#![allow(clippy::unwrap_used, clippy::type_complexity)]

#[path = "chain/kernels.rs"]
mod chain;

mod support;

use pto_lower::interp::{HostValue, run};
use support::model::{Model, harness};
use support::values::{data, max_error, mm, put, tensor};

fn softmax_rows(x: &mut [f64], n: usize) {
    for row in x.chunks_mut(n) {
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        row.iter_mut().for_each(|v| *v = (*v - max).exp());
        let sum: f64 = row.iter().sum();
        row.iter_mut().for_each(|v| *v /= sum);
    }
}

type Host = fn(&mut [HostValue]) -> Result<(), pto::Error>;
/// The plain-Rust result of the kernel's output from its arguments.
type Reference = fn(&[HostValue]) -> Vec<f64>;

struct Case {
    name: &'static str,
    m: pto::ir::ProgramModule,
    host: Host,
    reference: Reference,
    /// The argument index of the output.
    out: usize,
    sizes: Vec<Vec<(&'static str, usize)>>,
    /// Whether a vector result reaches the cube (the A2A3 vector-to-cube slot).
    v2c: bool,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "attention",
            m: chain::attention::program(),
            host: |a| {
                let (q, k, v, mut o) = (tensor(&a[0]), tensor(&a[1]), tensor(&a[2]), tensor(&a[3]));
                chain::attention(&q, &k, &v, &mut o)?;
                put(&mut a[3], &o);
                Ok(())
            },
            reference: |a| {
                let s = a[0].as_tensor().unwrap().shape[0];
                let mut p = mm(&data(&a[0]), &data(&a[1]), s, 32, 32);
                softmax_rows(&mut p, 32);
                mm(&p, &data(&a[2]), s, 32, 32)
            },
            out: 3,
            sizes: vec![vec![("S", 32)], vec![("S", 37)]],
            v2c: true,
        },
        Case {
            name: "relu_chain",
            m: chain::relu_chain::program(),
            host: |a| {
                let (x, y, z, mut o) = (tensor(&a[0]), tensor(&a[1]), tensor(&a[2]), tensor(&a[3]));
                chain::relu_chain(&x, &y, &z, &mut o)?;
                put(&mut a[3], &o);
                Ok(())
            },
            reference: |a| {
                let (m, n) = (
                    a[0].as_tensor().unwrap().shape[0],
                    a[2].as_tensor().unwrap().shape[1],
                );
                let h: Vec<f64> = mm(&data(&a[0]), &data(&a[1]), m, 32, 32)
                    .into_iter()
                    .map(|x| x.max(0.0))
                    .collect();
                mm(&h, &data(&a[2]), m, 32, n)
            },
            out: 3,
            sizes: vec![vec![("M", 32), ("N", 64)], vec![("M", 37), ("N", 50)]],
            v2c: true,
        },
        Case {
            name: "matmul_chain",
            m: chain::matmul_chain::program(),
            host: |a| {
                let (x, y, z, mut o) = (tensor(&a[0]), tensor(&a[1]), tensor(&a[2]), tensor(&a[3]));
                chain::matmul_chain(&x, &y, &z, &mut o)?;
                put(&mut a[3], &o);
                Ok(())
            },
            reference: |a| {
                let (m, n) = (
                    a[0].as_tensor().unwrap().shape[0],
                    a[2].as_tensor().unwrap().shape[1],
                );
                let h = mm(&data(&a[0]), &data(&a[1]), m, 32, 32);
                mm(&h, &data(&a[2]), m, 32, n)
            },
            out: 3,
            sizes: vec![vec![("M", 32), ("N", 64)], vec![("M", 37), ("N", 50)]],
            v2c: false,
        },
        Case {
            name: "scaled_right",
            m: chain::scaled_right::program(),
            host: |a| {
                let (x, w, mut o) = (tensor(&a[0]), tensor(&a[1]), tensor(&a[3]));
                let s = a[2].as_f64().unwrap() as f32;
                chain::scaled_right(&x, &w, s, &mut o)?;
                put(&mut a[3], &o);
                Ok(())
            },
            reference: |a| {
                let m = a[0].as_tensor().unwrap().shape[0];
                let s = a[2].as_f64().unwrap();
                let w: Vec<f64> = data(&a[1]).iter().map(|x| x * s).collect();
                mm(&data(&a[0]), &w, m, 32, 32)
            },
            out: 3,
            sizes: vec![vec![("M", 32)], vec![("M", 37)]],
            v2c: true,
        },
    ]
}

#[test]
fn chains_on_the_cpu_match_plain_rust_and_the_interpreter() {
    for c in cases() {
        for (k, set) in c.sizes.iter().enumerate() {
            let dims = harness::dims_by_name(&c.m, set);
            let args = harness::args_for(&c.m, &dims, 3 + k as u64, false);
            let mut host = args.clone();
            (c.host)(&mut host).unwrap();
            let mut interp = args.clone();
            run(&c.m, c.m.entry.unwrap(), &mut interp).unwrap();
            let (h, i) = (data(&host[c.out]), data(&interp[c.out]));
            let vs_interp = max_error(&h, &i);
            let vs_rust = max_error(&h, &(c.reference)(&args));
            eprintln!(
                "{} {set:?}: host vs interpreter {vs_interp:.2e}, vs plain Rust {vs_rust:.2e}",
                c.name
            );
            assert!(
                vs_interp <= 1e-6,
                "{} {set:?}: host vs interpreter {vs_interp:.2e}",
                c.name
            );
            assert!(
                vs_rust <= 1e-4,
                "{} {set:?}: host vs plain Rust {vs_rust:.2e}",
                c.name
            );
        }
    }
}

#[test]
fn chains_run_in_the_cpp_model_on_both_targets() {
    let mut failures = Vec::new();
    for c in cases() {
        let cpp = harness::cpp_for(&c.m, "A2A3").unwrap();
        // matmul_chain is all cube work: it runs on the AIC alone.
        assert_eq!(
            harness::is_split(&cpp),
            c.name != "matmul_chain",
            "{}: split on A2A3",
            c.name
        );
        // The vector-to-cube slot exactly when a vector result feeds a matmul.
        assert_eq!(
            cpp.contains("// ready for the cube"),
            c.v2c,
            "{}: vector-to-cube transfer",
            c.name
        );
        failures.extend(
            Model::new(c.name, &c.m, c.sizes.clone())
                .outputs(&[c.out])
                .against(|a| (c.host)(a).map(|()| Vec::new()).map_err(|e| e.to_string())),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
