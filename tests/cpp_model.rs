//! Every example kernel and the edge-tile kernels as a kernel author takes them to the NPU:
//! `NAME::CPP` lowered for A2A3 and for A5, compiled with g++ against the model of pto-isa
//! (`pto-lower/tests/cpp/pto_decls.hpp`), run in its CPU model at tile-multiple and ragged
//! sizes with guard zones around every tensor, and compared with the host function's
//! output (f32 within 1e-5 relative, integers exactly). Skipped with a message when no C++
//! compiler is installed.

// Each example brings its own copy of `examples/common`; that is how they are shared.
#![allow(clippy::duplicate_mod, clippy::unwrap_used, clippy::type_complexity)]

#[allow(dead_code)]
#[path = "../examples/quickstart.rs"]
mod quickstart;

#[allow(dead_code)]
#[path = "../examples/vector_add.rs"]
mod vector_add;

#[allow(dead_code)]
#[path = "../examples/axpy.rs"]
mod axpy;

#[allow(dead_code)]
#[path = "../examples/row_softmax.rs"]
mod row_softmax;

#[allow(dead_code)]
#[path = "../examples/reductions.rs"]
mod reductions;

#[allow(dead_code)]
#[path = "../examples/broadcast.rs"]
mod broadcast;

#[allow(dead_code)]
#[path = "../examples/matmul.rs"]
mod matmul;

#[allow(dead_code)]
#[path = "../examples/matmul_splitk.rs"]
mod matmul_splitk;

#[allow(dead_code)]
#[path = "../examples/program.rs"]
mod program;

#[allow(dead_code)]
#[path = "../examples/clamp_relu.rs"]
mod clamp_relu;

#[allow(dead_code)]
#[path = "../examples/splitk_store_add.rs"]
mod splitk_store_add;

#[allow(dead_code)]
#[path = "../examples/parallel_softmax.rs"]
mod parallel_softmax;

#[allow(dead_code)]
#[path = "../examples/tensor_level.rs"]
mod tensor_level;

// The bench's kernels (`benches/kernels.rs`, which cannot be a test itself): its `main` and
// benches are not used here.
#[allow(dead_code)]
#[path = "../benches/kernels.rs"]
mod bench;

#[path = "edge/kernels.rs"]
mod edge;

#[path = "ops/kernels.rs"]
mod ops;

#[path = "ops_b/kernels.rs"]
mod ops_b;

#[path = "quant/kernels.rs"]
mod quant;

#[path = "../pto-lower/tests/cpp/harness.rs"]
mod harness;

mod support;

use pto::{bf16, f16};
use pto_lower::interp::HostValue;
use support::model::Model;
use support::run::{Args, host};

/// Calls a host function with arguments read from interpreter-form ones ([`host`] writes
/// its outputs back).
type Host = fn(&Args) -> Result<(), pto::Error>;

/// The kernels: name, IR, host call, size sets by symbolic-dimension name.
fn kernels() -> Vec<(
    &'static str,
    pto::ir::ProgramModule,
    Host,
    Vec<Vec<(&'static str, usize)>>,
)> {
    vec![
        (
            "scale_rows",
            quickstart::scale_rows::program(),
            |t| quickstart::scale_rows(&t.tensor(0), t.scalar(1) as f32, &mut t.out::<f32>(2)),
            vec![vec![("B", 64)], vec![("B", 37)]],
        ),
        (
            "vector_add",
            vector_add::vector_add::program(),
            |t| vector_add::vector_add(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2)),
            vec![vec![("N", 2048)], vec![("N", 5000)]],
        ),
        (
            "vector_add_i32",
            vector_add::vector_add_i32::program(),
            |t| vector_add::vector_add_i32(&t.tensor(0), &t.tensor(1), &mut t.out::<i32>(2)),
            vec![vec![("N", 2048)], vec![("N", 1000)]],
        ),
        (
            "axpy",
            axpy::axpy::program(),
            |t| {
                axpy::axpy(
                    t.scalar(0) as f32,
                    &t.tensor(1),
                    &t.tensor(2),
                    &mut t.out::<f32>(3),
                )
            },
            vec![vec![("N", 4096)], vec![("N", 5000)]],
        ),
        (
            "row_softmax",
            row_softmax::row_softmax::program(),
            |t| row_softmax::row_softmax(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 32), ("C", 256)], vec![("R", 37), ("C", 200)]],
        ),
        (
            // A parallel loop: the driver launches 3 blocks, each running its share.
            "softmax_par",
            parallel_softmax::softmax_par::program(),
            |t| parallel_softmax::softmax_par(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 64), ("C", 1024)], vec![("R", 37), ("C", 1000)]],
        ),
        (
            // The same softmax with a sequential loop (`benches/parallel.rs` runs both).
            "softmax_seq",
            parallel_softmax::softmax_seq::program(),
            |t| parallel_softmax::softmax_seq(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 64), ("C", 1024)], vec![("R", 37), ("C", 1000)]],
        ),
        (
            "reductions",
            reductions::reductions::program(),
            |t| {
                reductions::reductions(
                    &t.tensor(0),
                    &mut t.out::<f32>(1),
                    &mut t.out::<f32>(2),
                    &mut t.out::<f32>(3),
                    &mut t.out::<f32>(4),
                )
            },
            vec![vec![("R", 64), ("C", 64)], vec![("R", 37), ("C", 50)]],
        ),
        (
            "broadcast",
            broadcast::broadcast::program(),
            |t| {
                broadcast::broadcast(
                    &t.tensor(0),
                    &t.tensor(1),
                    &mut t.out::<f32>(2),
                    &mut t.out::<f32>(3),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            // A program: the entry calls `tiles`, the outlined `run_incore_0` and `clamp`,
            // device functions in the C++.
            "axpy_clamp",
            program::axpy_clamp::program(),
            // Its returned value is not compared: the C++ returns nothing.
            |t| {
                program::axpy_clamp::run(
                    t.scalar(0) as f32,
                    t.scalar(1) as f32,
                    &t.tensor(2),
                    &t.tensor(3),
                    &mut t.out::<f32>(4),
                )
                .map(drop)
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 200)]],
        ),
        (
            // Tensor-level functions tiled by `tile-tensor-ops` (16 x 64 tiles, edge tiles of
            // the symbolic shape and of a 1 x 100 view narrowed with `tile.valid`), called
            // from the entry.
            "tensor_level",
            tensor_level::tensor_level::program(),
            |t| {
                tensor_level::tensor_level::run(
                    t.scalar(0) as f32,
                    &t.tensor(1),
                    &t.tensor(2),
                    &t.tensor(3),
                    &mut t.out::<f32>(4),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 200)]],
        ),
        (
            "matmul_f32",
            matmul::matmul_f32::program(),
            |t| matmul::matmul_f32(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2)),
            vec![vec![("M", 64), ("N", 64)], vec![("M", 70), ("N", 50)]],
        ),
        (
            "matmul_f16",
            matmul::matmul_f16::program(),
            |t| matmul::matmul_f16(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2)),
            vec![vec![("M", 64), ("N", 64)], vec![("M", 70), ("N", 50)]],
        ),
        (
            "matmul_splitk",
            matmul_splitk::matmul_splitk::program(),
            |t| {
                matmul_splitk::matmul_splitk(
                    &t.tensor(0),
                    &t.tensor(1),
                    &t.tensor(2),
                    t.flag(3),
                    &mut t.out::<f32>(4),
                )
            },
            vec![
                vec![("M", 64), ("N", 64), ("K", 128)],
                vec![("M", 70), ("N", 50), ("K", 100)],
                // No K chunk: the accumulator stays zero (issue 14 point 3).
                vec![("M", 70), ("N", 50), ("K", 0)],
            ],
        ),
        (
            "splitk_store_add",
            splitk_store_add::splitk_store_add::program(),
            |t| {
                splitk_store_add::splitk_store_add(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))
            },
            vec![
                vec![("M", 64), ("N", 64), ("K", 128)],
                vec![("M", 70), ("N", 50), ("K", 90)],
            ],
        ),
        (
            "matmul_to_f16",
            splitk_store_add::matmul_to_f16::program(),
            |t| splitk_store_add::matmul_to_f16(&t.tensor(0), &t.tensor(1), &mut t.out::<f16>(2)),
            vec![
                vec![("M", 64), ("N", 64), ("K", 128)],
                vec![("M", 70), ("N", 50), ("K", 90)],
            ],
        ),
        (
            "bench_matmul_tiled",
            bench::matmul_tiled::program(),
            |t| bench::matmul_tiled(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2)),
            vec![
                vec![("M", 64), ("K", 128), ("N", 64)],
                vec![("M", 70), ("K", 100), ("N", 45)],
            ],
        ),
        (
            "bench_axpb",
            bench::axpb::program(),
            |t| {
                bench::axpb(
                    &t.tensor(0),
                    t.scalar(1) as f32,
                    t.scalar(2) as f32,
                    &mut t.out::<f32>(3),
                )
            },
            vec![vec![("R", 16)], vec![("R", 13)]],
        ),
        (
            "bench_softmax_rows",
            bench::softmax_rows::program(),
            |t| bench::softmax_rows(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 16)], vec![("R", 13)]],
        ),
        (
            "bench_layernorm_rows",
            bench::layernorm_rows::program(),
            |t| bench::layernorm_rows(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 16)], vec![("R", 13)]],
        ),
        (
            "bench_gemm64",
            bench::gemm64::program(),
            |t| bench::gemm64(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2)),
            vec![
                vec![("M", 64), ("K", 128), ("N", 64)],
                vec![("M", 70), ("K", 50), ("N", 45)],
            ],
        ),
        (
            "bench_gemm64_f16",
            bench::gemm64_f16::program(),
            |t| bench::gemm64_f16(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2)),
            vec![
                vec![("M", 64), ("K", 128), ("N", 64)],
                vec![("M", 70), ("K", 50), ("N", 45)],
            ],
        ),
        (
            "padded_row_sums",
            ops_b::padded_row_sums::program(),
            |t| ops_b::padded_row_sums(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 50)]],
        ),
        (
            "padded_col_max",
            ops_b::padded_col_max::program(),
            |t| ops_b::padded_col_max(&t.tensor(0), &mut t.out::<i32>(1)),
            vec![vec![("R", 16), ("C", 16)], vec![("R", 13), ("C", 21)]],
        ),
        (
            "add_twice",
            ops_b::add_twice::program(),
            |t| ops_b::add_twice(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 32), ("C", 64)], vec![("R", 37), ("C", 50)]],
        ),
        (
            "element_access",
            ops_b::element_access::program(),
            element_access_host,
            vec![vec![("R", 32), ("C", 64)], vec![("R", 37), ("C", 50)]],
        ),
        (
            "reshape_insert",
            ops_b::reshape_insert::program(),
            reshape_insert_host,
            vec![vec![("R", 16), ("C", 64)], vec![("R", 5), ("C", 40)]],
        ),
        (
            "matmul_to_bf16",
            ops_b::matmul_to_bf16::program(),
            |t| ops_b::matmul_to_bf16(&t.tensor(0), &t.tensor(1), &mut t.out::<bf16>(2)),
            vec![
                vec![("M", 32), ("N", 32), ("K", 32)],
                vec![("M", 20), ("N", 37), ("K", 32)],
            ],
        ),
        (
            "matmul_i8",
            quant::matmul_i8::program(),
            |t| {
                quant::matmul_i8(
                    &t.tensor(0),
                    &t.tensor(1),
                    &mut t.out::<i8>(2),
                    &mut t.out::<u8>(3),
                )
            },
            vec![
                vec![("M", 32), ("N", 32), ("K", 64)],
                vec![("M", 37), ("N", 21), ("K", 50)],
            ],
        ),
        (
            "matmul_f32_to_i8",
            quant::matmul_f32_to_i8::program(),
            |t| quant::matmul_f32_to_i8(&t.tensor(0), &t.tensor(1), &mut t.out::<i8>(2)),
            vec![
                vec![("M", 32), ("N", 32), ("K", 64)],
                vec![("M", 37), ("N", 21), ("K", 50)],
            ],
        ),
        (
            "matmul_i8_to_f16",
            quant::matmul_i8_to_f16::program(),
            |t| quant::matmul_i8_to_f16(&t.tensor(0), &t.tensor(1), &mut t.out::<f16>(2)),
            vec![
                vec![("M", 32), ("N", 32), ("K", 64)],
                vec![("M", 37), ("N", 21), ("K", 50)],
            ],
        ),
        (
            "splitk_i8",
            quant::splitk_i8::program(),
            |t| quant::splitk_i8(&t.tensor(0), &t.tensor(1), &mut t.out::<i8>(2)),
            vec![
                vec![("M", 32), ("N", 32), ("K", 64)],
                vec![("M", 37), ("N", 21), ("K", 50)],
            ],
        ),
        (
            "carried_sum",
            edge::carried_sum::program(),
            |t| edge::carried_sum(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![
                vec![("R", 32), ("C", 64)],
                vec![("R", 40), ("C", 64)],
                vec![("R", 37), ("C", 50)],
            ],
        ),
        (
            "carried_max",
            edge::carried_max::program(),
            |t| edge::carried_max(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![
                vec![("R", 32), ("C", 64)],
                vec![("R", 40), ("C", 64)],
                vec![("R", 37), ("C", 50)],
            ],
        ),
        (
            "carried_min",
            edge::carried_min::program(),
            |t| edge::carried_min(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![
                vec![("R", 32), ("C", 64)],
                vec![("R", 40), ("C", 64)],
                vec![("R", 37), ("C", 50)],
            ],
        ),
        (
            "cast_extract",
            edge::cast_extract::program(),
            |t| edge::cast_extract(&t.tensor(0), &mut t.out::<i32>(1), &mut t.out::<f32>(2)),
            vec![
                vec![("R", 32), ("C", 64)],
                vec![("R", 37), ("C", 50)],
                vec![("R", 21), ("C", 20)],
            ],
        ),
        (
            "carried_matmul",
            edge::carried_matmul::program(),
            |t| edge::carried_matmul(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2)),
            vec![
                vec![("M", 64), ("K", 64), ("N", 64)],
                vec![("M", 70), ("K", 50), ("N", 45)],
            ],
        ),
        (
            "pow_fmod",
            ops::pow_fmod::program(),
            |t| {
                ops::pow_fmod(
                    &t.tensor(0),
                    &t.tensor(1),
                    &mut t.out::<f32>(2),
                    &mut t.out::<f32>(3),
                    &mut t.out::<f32>(4),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            "rem_f16",
            ops::rem_f16::program(),
            |t| {
                ops::rem_f16(
                    &t.tensor(0),
                    &t.tensor(1),
                    &mut t.out::<pto::f16>(2),
                    &mut t.out::<pto::f16>(3),
                    &mut t.out::<pto::f16>(4),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            "bytes",
            ops::bytes::program(),
            |t| {
                ops::bytes(
                    &t.tensor(0),
                    &t.tensor(1),
                    &t.tensor(2),
                    &mut t.out::<i8>(3),
                    &mut t.out::<i32>(4),
                    &mut t.out::<f32>(5),
                    &mut t.out::<pto::f16>(6),
                    &mut t.out::<i8>(7),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            "div_i16",
            ops::div_i16::program(),
            |t| {
                ops::div_i16(
                    &t.tensor(0),
                    &t.tensor(1),
                    &mut t.out::<i16>(2),
                    &mut t.out::<i16>(3),
                    &mut t.out::<i16>(4),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            "masks",
            ops::masks::program(),
            |t| {
                ops::masks(
                    &t.tensor(0),
                    &t.tensor(1),
                    &mut t.out::<f32>(2),
                    &mut t.out::<f32>(3),
                    &mut t.out::<f32>(4),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            "clamp_relu",
            clamp_relu::clamp_relu::program(),
            |t| {
                clamp_relu::clamp_relu(
                    &t.tensor(0),
                    t.scalar(1) as f32,
                    t.scalar(2) as f32,
                    t.scalar(3) as f32,
                    &mut t.out::<f32>(4),
                    &mut t.out::<f32>(5),
                )
            },
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            "products",
            ops::products::program(),
            |t| {
                ops::products(
                    &t.tensor(0),
                    &mut t.out::<f32>(1),
                    &mut t.out::<f32>(2),
                    &mut t.out::<i32>(3),
                    &mut t.out::<i32>(4),
                )
            },
            vec![vec![("R", 32), ("C", 64)], vec![("R", 37), ("C", 50)]],
        ),
        (
            "column_fill",
            ops::column_fill::program(),
            |t| ops::column_fill(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        ),
        (
            "narrow_abs",
            ops::narrow_abs::program(),
            |t| ops::narrow_abs(&t.tensor(0), &mut t.out::<f32>(1)),
            vec![vec![("R", 32)], vec![("R", 37)]],
        ),
    ]
}

/// `element_access` and `reshape_insert` (a run-time index or offset in argument 1) on
/// their host functions: rows of both tests below.
fn element_access_host(t: &Args) -> Result<(), pto::Error> {
    ops_b::element_access(&t.tensor(0), t.scalar(1) as i64, &mut t.out::<f32>(2))
}

fn window_at_host(t: &Args) -> Result<(), pto::Error> {
    ops_b::window_at(&t.tensor(0), t.scalar(1) as i64, &mut t.out::<f32>(2))
}

fn reshape_insert_host(t: &Args) -> Result<(), pto::Error> {
    let (mut y, mut z) = (t.out::<f32>(2), t.out::<f32>(3));
    ops_b::reshape_insert(&t.tensor(0), t.scalar(1) as i64, &mut y, &mut z)
}

#[test]
fn every_example_runs_in_the_cpp_model_like_its_host_function() {
    let mut failures = Vec::new();
    for (name, m, call, sizes) in kernels() {
        failures.extend(Model::new(name, &m, sizes).seed(11).against_host(call));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A run-time index outside its tensor (`out.write([row, 1], s)` with `row` = -1 or `R`) or a
/// run-time `insert` offset that does not fit (`[0, col]` of an 8 x 8 tile in a 16 x 16 one
/// with `col` = 9 or -1): the host function returns `Err`, and the C++ must stop the kernel
/// (`trap()`) before the access instead of writing outside the tensor or tile; in range, both
/// agree. A load and store at a run-time row (`window_at`, the window reaching past the end at
/// row 33 of 37) likewise, and the interpreter fails where the host function does.
#[test]
fn out_of_range_run_time_indices_stop_the_cpp_kernel() {
    let Some(gxx) = harness::gxx() else {
        eprintln!("skip: no C++ compiler; the C++ was not run");
        return;
    };
    let dir = std::env::temp_dir().join(format!("pto-bounds-cpp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(
        &str,
        pto::ir::ProgramModule,
        Host,
        Vec<(&str, usize)>,
        [i64; 4],
    ); 3] = [
        (
            "window_at",
            ops_b::window_at::program(),
            window_at_host,
            vec![("R", 37), ("C", 50)],
            [33, -1, 37, 1 << 40],
        ),
        (
            "element_access",
            ops_b::element_access::program(),
            element_access_host,
            vec![("R", 37), ("C", 50)],
            // In range, then out: below, at the end, far past it.
            [36, -1, 37, 1 << 40],
        ),
        (
            "reshape_insert",
            ops_b::reshape_insert::program(),
            reshape_insert_host,
            vec![("R", 5), ("C", 40)],
            [8, -1, 9, 1 << 40],
        ),
    ];
    let mut failures = Vec::new();
    for (name, m, call, set, indices) in cases {
        for target in ["A2A3", "A5"] {
            let built = harness::build(&gxx, &m, target, &dir, name).unwrap();
            let dims = harness::dims_by_name(&m, &set);
            for (k, &index) in indices.iter().enumerate() {
                let mut args = harness::args_for(&m, &dims, 5, false);
                args[1] = HostValue::scalar(pto::ir::DataType::Int64, index as f64).unwrap();
                let mut want = args.clone();
                let host_result = host(&mut want, call);
                let entry = m.entry.unwrap();
                let interp = pto_lower::interp::run(&m, entry, &mut args.clone());
                if interp.is_ok() != host_result.is_ok() {
                    failures.push(format!(
                        "{name} index {index}: interpreter {interp:?}, host {:?}",
                        host_result.as_ref().map_err(|e| e.to_string())
                    ));
                }
                let got = built.run(&args);
                match (k, host_result, got) {
                    (0, Ok(()), Ok((got, _))) => {
                        let err = got
                            .iter()
                            .zip(&want)
                            .filter_map(|(g, w)| {
                                Some(harness::max_error(
                                    &g.as_tensor()?.data,
                                    &w.as_tensor()?.data,
                                ))
                            })
                            .fold(0.0, f64::max);
                        if err > 0.0 {
                            failures.push(format!(
                                "{name} {target} index {index}: max error {err:.2e}"
                            ));
                        }
                    }
                    (k, Err(_), Err(e)) if k > 0 && e.contains("trap") => {}
                    (_, h, g) => failures.push(format!(
                        "{name} {target} index {index}: host {:?}, C++ {:?}",
                        h.map_err(|e| e.to_string()),
                        g.map(|_| "ran to the end")
                    )),
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
