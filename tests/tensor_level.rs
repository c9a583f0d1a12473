//! Tensor-level functions (dsl.md 5.7): views, elementwise tensor arithmetic and `assemble`
//! in `data_flow` / `control_flow` functions, tiled by the `tile-tensor-ops` pass with the
//! program's `tile_default` sizes; run on the CPU against plain Rust at edge sizes and exact
//! tile multiples, and checked against the reference interpreter on the untiled IR.

use pto::prelude::*;
use pto_lower::interp::{HostValue, run};

#[pto::program(tile_default(M = 16, N = 64, K = 16))]
mod whole {
    /// out = x * a + b - x.exp() / 4, over whole tensors of any size.
    #[pto::kernel(data_flow)]
    pub fn axpb(x: &Tensor<f32, R, C>, b: &Tensor<f32, R, C>, a: f32, out: &mut Tensor<f32, R, C>) {
        let y = x * a + b - x.exp() / 4.0;
        out.assemble(y, [0, 0]);
    }

    /// The entry: a tile kernel calling the tensor-level function, then scaling row 0.
    #[pto::kernel]
    #[entry]
    pub fn main(x: &Tensor<f32, R, C>, b: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
        axpb(x, b, 2.0, out);
    }
}

#[pto::program(tile_default(M = 16, N = 64, K = 16))]
mod windows {
    /// out[3.., 8..] = x[1.., 2..] * a + b over a 37 x 200 window (edge tiles in both
    /// dimensions), and out[0, ..200] = relu(-x[0, ..200]) row by row... of one row.
    #[pto::kernel(data_flow)]
    #[entry]
    pub fn main(
        x: &Tensor<f32, 40, 256>,
        b: &Tensor<f32, 37, 200>,
        a: f32,
        out: &mut Tensor<f32, 40, 208>,
    ) {
        let v = x.view([37, 200], [1, 2]);
        let y = v * a + b;
        out.assemble(y, [3, 8]);
        let top = x.view([1, 200], [0, 50]);
        out.assemble((-top).relu().max(0.5), [0, 0]);
    }
}

#[pto::program(tile_default(M = 8, N = 32, K = 16))]
mod rows {
    /// Row by row: out[r, :] = sqrt(|x[r, :]|) + r, a view at a runtime offset in a loop.
    #[pto::kernel(control_flow)]
    #[entry]
    pub fn main(x: &Tensor<f32, R, 96>, out: &mut Tensor<f32, R, 96>) {
        for r in 0..R {
            let row = x.view([1, 96], [r, 0]);
            out.assemble(row.abs().sqrt() + r as f32, [r, 0]);
        }
    }
}

fn data(n: usize, k: f32) -> Vec<f32> {
    (0..n).map(|i| ((i * 7 % 23) as f32 - 11.0) * k).collect()
}

fn wide(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| f64::from(x)).collect()
}

fn tensor(v: &[f32], shape: [usize; 2]) -> HostValue {
    HostValue::tensor(pto::ir::DataType::Fp32, shape.to_vec(), wide(v)).unwrap()
}

/// `got` equals `want` to an f32 rounding or two (the host computes `exp` in f32).
fn close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "{what}: element {i}: {g} != {w}"
        );
    }
}

#[test]
fn whole_tensors_at_edge_sizes_and_tile_multiples() {
    for (r, c) in [(37, 200), (32, 128), (1, 1), (16, 64), (17, 65), (5, 300)] {
        let x = data(r * c, 0.25);
        let b = data(r * c, -0.5);
        let xt = pto::Tensor::<f32>::from_vec(x.clone(), [r, c]).unwrap();
        let bt = pto::Tensor::<f32>::from_vec(b.clone(), [r, c]).unwrap();
        let mut out = pto::Tensor::<f32>::zeros([r, c]);
        whole::main(&xt, &bt, &mut out).unwrap();
        let want: Vec<f32> = x
            .iter()
            .zip(&b)
            .map(|(&x, &b)| x * 2.0 + b - x.exp() / 4.0)
            .collect();
        close(out.as_slice(), &want, &format!("{r} x {c}"));

        // The interpreter runs the untiled IR and agrees.
        let m = whole::program();
        let mut args = vec![
            tensor(&x, [r, c]),
            tensor(&b, [r, c]),
            tensor(&vec![0.0; r * c], [r, c]),
        ];
        run(&m, m.entry.unwrap(), &mut args).unwrap();
        let interp: Vec<f32> = args[2]
            .as_tensor()
            .unwrap()
            .data
            .iter()
            .map(|&v| v as f32)
            .collect();
        close(out.as_slice(), &interp, &format!("interpreter, {r} x {c}"));
    }
}

#[test]
fn views_at_constant_offsets_with_edge_tiles() {
    let x = data(40 * 256, 0.125);
    let b = data(37 * 200, 1.0);
    let a = 3.0f32;
    let xt = pto::Tensor::<f32>::from_vec(x.clone(), [40, 256]).unwrap();
    let bt = pto::Tensor::<f32>::from_vec(b.clone(), [37, 200]).unwrap();
    let mut out = pto::Tensor::<f32>::from_vec(vec![-9.0; 40 * 208], [40, 208]).unwrap();
    windows::main(&xt, &bt, a, &mut out).unwrap();
    let mut want = vec![-9.0f32; 40 * 208];
    for i in 0..37 {
        for j in 0..200 {
            want[(i + 3) * 208 + j + 8] = x[(i + 1) * 256 + j + 2] * a + b[i * 200 + j];
        }
    }
    for j in 0..200 {
        want[j] = (-x[50 + j]).max(0.0).max(0.5);
    }
    assert_eq!(out.as_slice(), want.as_slice());

    let m = windows::program();
    let mut args = vec![
        tensor(&x, [40, 256]),
        tensor(&b, [37, 200]),
        HostValue::Scalar(
            pto_lower::interp::HostScalar::from_f64(pto::ir::DataType::Fp32, f64::from(a)).unwrap(),
        ),
        tensor(&vec![-9.0; 40 * 208], [40, 208]),
    ];
    run(&m, m.entry.unwrap(), &mut args).unwrap();
    assert_eq!(args[3].as_tensor().unwrap().data, wide(&want));
}

#[test]
fn a_view_at_a_runtime_offset_in_a_loop() {
    for r in [1, 7, 8, 9] {
        let x = data(r * 96, 0.5);
        let xt = pto::Tensor::<f32>::from_vec(x.clone(), [r, 96]).unwrap();
        let mut out = pto::Tensor::<f32>::zeros([r, 96]);
        rows::main(&xt, &mut out).unwrap();
        let want: Vec<f32> = x
            .iter()
            .enumerate()
            .map(|(i, &v)| v.abs().sqrt() + (i / 96) as f32)
            .collect();
        assert_eq!(out.as_slice(), want.as_slice(), "{r} rows");
    }
}

#[test]
fn lowered_shows_the_tile_loops_and_no_tensor_op() {
    for lowered in [whole::LOWERED, windows::LOWERED, rows::LOWERED] {
        assert!(lowered.contains("scf.for %tj_"), "{lowered}");
        assert!(lowered.contains("pto.tile.load"), "{lowered}");
        for op in ["tensor.view", "tensor.assemble", "tensor.mul", "tensor.add"] {
            assert!(!lowered.contains(op), "{op} in {lowered}");
        }
    }
    // The IR keeps the tensor-level ops; the edge tiles of a view are narrowed to it.
    assert!(windows::IR.contains("tensor.view"));
    assert!(windows::IR.contains("tensor.assemble"));
    assert!(windows::LOWERED.contains("pto.tile.valid"));
    assert!(windows::CPP.contains("TLOAD"));
}

/// A tensor-level kernel on its own (no program, so no `tile_default`: 16 x 16 tiles), which
/// reads its destination at a window disjoint from the one it writes.
#[pto::kernel(data_flow)]
pub fn mirror(y: &mut Tensor<f32, 40, 24>) {
    let top = y.view([20, 24], [0, 0]);
    y.assemble(top * -1.0 + 0.5, [20, 0]);
}

#[test]
fn a_lone_data_flow_kernel_reads_and_writes_disjoint_windows_of_one_tensor() {
    let v = data(40 * 24, 0.5);
    let mut y = pto::Tensor::<f32>::from_vec(v.clone(), [40, 24]).unwrap();
    mirror(&mut y).unwrap();
    let mut want = v.clone();
    for i in 0..20 * 24 {
        want[20 * 24 + i] = 0.5 - v[i];
    }
    assert_eq!(y.as_slice(), want.as_slice());
    // 16 x 16 tiles: 20 rows and 24 columns both end in an edge tile.
    assert!(
        mirror::LOWERED.contains("pto.tile.valid"),
        "{}",
        mirror::LOWERED
    );
    assert!(
        mirror::LOWERED.contains("tile<16x16xf32>"),
        "{}",
        mirror::LOWERED
    );
}

mod support;

/// Issue 14's audit: this file's programs and kernel as `NAME::CPP` for A2A3 and A5 in the
/// C++ model of pto-isa, against their host functions: `whole` and `rows` at a tile-multiple
/// and a ragged size, `windows` and `mirror` at their static sizes (edge tiles inside); the
/// entries are named `main`, which the C++ spells `main_`.
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "whole",
            &whole::program(),
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        )
        .against_host(|t| whole::main(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new("windows", &windows::program(), vec![vec![]]).against_host(|t| {
            windows::main(
                &t.tensor(0),
                &t.tensor(1),
                t.scalar(2) as f32,
                &mut t.out::<f32>(3),
            )
        }),
    );
    problems.extend(
        Model::new(
            "rows",
            &rows::program(),
            vec![vec![("R", 16)], vec![("R", 13)]],
        )
        .against_host(|t| rows::main(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new("mirror", &mirror::program(), vec![vec![]])
            .against_host(|t| mirror(&mut t.out::<f32>(0))),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
