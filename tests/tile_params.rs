//! Issue 14: tile parameters in `NAME::CPP`. pto-isa has no tile-typed kernel argument, so a
//! `&Tile<T, R, C>` parameter is global memory (row-major `R x C`; a mask as packed rows)
//! that the kernel loads into a tile of its own at entry, where its uses need it: Vec for
//! vector ops, Mat (then Left / Right) for a matmul, both when both use it (on A2A3 each
//! core loads its copy). Each kernel's host function matches the interpreter exactly, and
//! its `CPP` for A2A3 and A5 runs in the C++ model at aligned and ragged sizes against the
//! host function.
#![allow(clippy::unwrap_used)]

#[path = "tile_params/kernels.rs"]
mod kernels;

mod support;

use pto::f16;
use pto::ir::ProgramModule;
use support::model::harness::{args_for, dims_by_name};
use support::model::{Model, Sizes};
use support::run::{Args, host, interp};

type Call = fn(&Args) -> Result<(), pto::Error>;

struct Case {
    name: &'static str,
    m: ProgramModule,
    call: Call,
    sizes: Sizes,
}

fn rows(name: &'static str) -> Sizes {
    vec![vec![(name, 32)], vec![(name, 37)]]
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "add_rows",
            m: kernels::add_rows::program(),
            call: |a| {
                kernels::add_rows(
                    &a.tensor(0),
                    &a.tile::<f32, 16, 32>(1),
                    &mut a.out::<f32>(2),
                )
            },
            sizes: rows("R"),
        },
        Case {
            name: "times_w",
            m: kernels::times_w::program(),
            call: |a| {
                kernels::times_w(
                    &a.tensor(0),
                    &a.tile::<f32, 32, 32>(1),
                    &mut a.out::<f32>(2),
                )
            },
            sizes: rows("M"),
        },
        Case {
            name: "both_units",
            m: kernels::both_units::program(),
            call: |a| {
                kernels::both_units(
                    &a.tensor(0),
                    &a.tile::<f32, 32, 32>(1),
                    &mut a.out::<f32>(2),
                    &mut a.out::<f32>(3),
                )
            },
            sizes: rows("M"),
        },
        Case {
            name: "left_f16",
            m: kernels::left_f16::program(),
            call: |a| {
                kernels::left_f16(
                    &a.tile::<f16, 16, 32>(0),
                    &a.tile::<f16, 32, 32>(1),
                    &a.tensor(2),
                    &mut a.out::<f32>(3),
                )
            },
            sizes: rows("N"),
        },
        Case {
            name: "int_param",
            m: kernels::int_param::program(),
            call: |a| {
                kernels::int_param(
                    &a.tensor(0),
                    &a.tile::<i32, 16, 16>(1),
                    &mut a.out::<i32>(2),
                )
            },
            sizes: rows("R"),
        },
        Case {
            name: "running_sum",
            m: kernels::running_sum::program(),
            call: |a| {
                kernels::running_sum(
                    &a.tensor(0),
                    &a.tile::<f32, 16, 16>(1),
                    &mut a.out::<f32>(2),
                )
            },
            sizes: rows("R"),
        },
        Case {
            name: "store_param",
            m: kernels::store_param::program(),
            call: |a| kernels::store_param(&a.tile::<i16, 16, 16>(0), &mut a.out::<i16>(1)),
            sizes: vec![vec![], vec![]],
        },
        Case {
            name: "mask_40",
            m: kernels::mask_40::program(),
            call: |a| kernels::mask_40(&a.tensor(0), &a.mask::<8, 40>(1), &mut a.out::<f32>(2)),
            sizes: rows("R"),
        },
    ]
}

#[test]
fn host_matches_the_interpreter_exactly() {
    for c in cases() {
        for (k, set) in c.sizes.iter().enumerate() {
            let dims = dims_by_name(&c.m, set);
            let args = args_for(&c.m, &dims, 11 + k as u64, false);
            let mut got = args.clone();
            host(&mut got, c.call).unwrap();
            let want = interp(&c.m, args.clone());
            for (i, v) in got.iter().enumerate() {
                if let Some(g) = v.as_tensor() {
                    assert_eq!(
                        g.data, want[i],
                        "{} {set:?}: host vs interpreter, argument {i}",
                        c.name
                    );
                }
            }
        }
    }
}

#[test]
fn every_kernel_runs_in_the_cpp_model_on_both_targets() {
    let mut problems = Vec::new();
    for c in cases() {
        problems.extend(Model::new(c.name, &c.m, c.sizes.clone()).against_host(c.call));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The C++ names each tile parameter's layout in its header and loads it at entry: a
/// `TLOAD` from a static-shape `GlobalTensor` over the parameter's pointer, before any other
/// instruction reads the tile; no instruction takes the pointer itself.
#[test]
fn tile_parameters_are_loaded_at_entry() {
    for c in cases() {
        let f = &c.m.funcs[c.m.entry.unwrap()];
        let params: Vec<String> = f
            .sig
            .params
            .iter()
            .filter(|p| c.m.values[p.value].ty.as_tile().is_some())
            .map(|p| c.m.values[p.value].name.as_deref().unwrap().to_string())
            .collect();
        for target in ["A2A3", "A5"] {
            let cpp = support::model::harness::cpp_for(&c.m, target).unwrap();
            for p in &params {
                assert!(
                    cpp.contains(&format!("// {p}: a ")),
                    "{} {target}: no layout line for {p}\n{cpp}",
                    c.name
                );
                let loads: Vec<&str> = cpp
                    .lines()
                    .filter(|l| l.trim_start().starts_with("GT") && l.ends_with(&format!("({p});")))
                    .collect();
                assert!(
                    !loads.is_empty(),
                    "{} {target}: {p} is never loaded\n{cpp}",
                    c.name
                );
                // The kernel's own lines: past the scalar helpers (`pto_rs::`), if any.
                let own = cpp.split("}  // namespace pto_rs").last().unwrap_or(&cpp);
                for l in own.lines() {
                    let t = l.trim_start();
                    let call = t.starts_with('T') && t.contains('(') && !t.starts_with("Tile<");
                    assert!(
                        !(call
                            && (t.contains(&format!(", {p},")) || t.contains(&format!(", {p})")))),
                        "{} {target}: an instruction takes the pointer {p}: {t}",
                        c.name
                    );
                }
            }
        }
    }
}
