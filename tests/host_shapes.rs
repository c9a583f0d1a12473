//! The shape checks a kernel's host function runs before anything else (dsl.md section 1):
//! the exact error for each kind of wrong shape, and which one wins when several are wrong.

use pto::{Error, Tensor};

/// The signature of the macro benchmark's typical kernel: static and symbolic dimensions,
/// symbols shared between tensors, and a scalar parameter in between.
#[pto::kernel]
pub fn typical(
    x: &Tensor<f32, R, 256>,
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    has_bias: bool,
    bias: &Tensor<f32, 1, N>,
    #[out] y: &mut Tensor<f32, R, 256>,
    #[out] c: &mut Tensor<f32, M, N>,
) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 256>([r, 0]);
        y.store([r, 0], t * 2.0);
    }
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            let mut acc = Tile::<f32, 32, 32>::zeros();
            for k in (0..K).step_by(64) {
                let at = a.load::<32, 64>([i, k]);
                let bt = b.load::<64, 32>([k, j]);
                if k == 0 {
                    if has_bias {
                        acc = matmul_bias(at, bt, bias.load::<1, 32>([0, j]));
                    } else {
                        acc = matmul(at, bt);
                    }
                } else {
                    acc = matmul_acc(acc, at, bt);
                }
            }
            c.store([i, j], acc);
        }
    }
}

/// Runs `typical` on tensors of the given shapes.
fn launch(shapes: [&[usize]; 6]) -> Result<(), Error> {
    let [x, a, b, bias, y, c] = shapes.map(|s| Tensor::<f32>::try_zeros(s).unwrap());
    let (mut y, mut c) = (y, c);
    typical(&x, &a, &b, true, &bias, &mut y, &mut c)
}

#[test]
fn right_shapes_run() {
    assert_eq!(
        launch([
            &[32, 256],
            &[32, 64],
            &[64, 32],
            &[1, 32],
            &[32, 256],
            &[32, 32]
        ]),
        Ok(())
    );
}

#[test]
fn each_kind_of_wrong_shape_is_its_error() {
    // A static size.
    assert_eq!(
        launch([
            &[32, 256],
            &[32, 64],
            &[64, 32],
            &[2, 32],
            &[32, 256],
            &[32, 32]
        ]),
        Err(Error::Shape {
            param: "bias",
            dim: 0,
            expected: 1,
            actual: 2
        })
    );
    // A rank.
    assert_eq!(
        launch([
            &[32, 256],
            &[32, 64, 1],
            &[64, 32],
            &[1, 32],
            &[32, 256],
            &[32, 32]
        ]),
        Err(Error::Rank {
            param: "a",
            expected: 2,
            actual: 3
        })
    );
    // A symbolic dimension, bound from `b` and contradicted by `bias`.
    assert_eq!(
        launch([
            &[32, 256],
            &[32, 64],
            &[64, 32],
            &[1, 16],
            &[32, 256],
            &[32, 32]
        ]),
        Err(Error::SymbolMismatch {
            symbol: "N",
            param: "bias",
            dim: 1,
            expected: 32,
            actual: 16
        })
    );
}

#[test]
fn ranks_and_static_sizes_come_first_then_symbols_in_order() {
    // `K` (a vs b) disagrees, and `y` has a wrong static size: the static size wins.
    assert!(matches!(
        launch([
            &[32, 256],
            &[32, 64],
            &[48, 32],
            &[1, 32],
            &[32, 128],
            &[32, 32]
        ]),
        Err(Error::Shape { param: "y", .. })
    ));
    // `K` (a vs b) and `R` (x vs y) disagree: `R` appears first.
    assert!(matches!(
        launch([
            &[32, 256],
            &[32, 64],
            &[48, 32],
            &[1, 32],
            &[16, 256],
            &[32, 32]
        ]),
        Err(Error::SymbolMismatch {
            symbol: "R",
            param: "y",
            ..
        })
    ));
    // `N` (b vs c) and `M` (a vs c) disagree: `M` appears first.
    assert!(matches!(
        launch([
            &[32, 256],
            &[32, 64],
            &[64, 32],
            &[1, 32],
            &[32, 256],
            &[64, 64]
        ]),
        Err(Error::SymbolMismatch {
            symbol: "M",
            param: "c",
            ..
        })
    ));
}

/// A parameter may have the name of the runtime function that checks the shapes.
#[pto::kernel]
pub fn add_one(bind_shapes: &Tensor<f32, N, 8>, #[out] out: &mut Tensor<f32, N, 8>) {
    for i in 0..N {
        out.store([i, 0], bind_shapes.load::<1, 8>([i, 0]) + 1.0);
    }
}

#[test]
fn a_parameter_named_like_the_shape_check() {
    let x = Tensor::<f32>::zeros([3, 8]);
    let mut out = Tensor::<f32>::zeros([3, 8]);
    assert_eq!(add_one(&x, &mut out), Ok(()));
    assert_eq!(out.get(&[2, 7]), Some(1.0));
    let mut short = Tensor::<f32>::zeros([2, 8]);
    assert_eq!(
        add_one(&x, &mut short),
        Err(Error::SymbolMismatch {
            symbol: "N",
            param: "out",
            dim: 0,
            expected: 3,
            actual: 2
        })
    );
}

/// Parameters may have the names of the `pto::isa` functions the host code calls (which it
/// imports by name unless a parameter would be hidden by the import).
#[pto::kernel]
pub fn runtime_names(
    tload: &Tensor<f32, 2, 8>,
    tadds: f32,
    trowsum: &Tensor<f32, 2, 1>,
    #[out] tstore: &mut Tensor<f32, 2, 8>,
    #[out] sums: &mut Tensor<f32, 2, 1>,
) {
    let t = tload.load::<2, 8>([0, 0]) + tadds;
    tstore.store([0, 0], t);
    sums.store([0, 0], t.row_sum() + trowsum.load::<2, 1>([0, 0]));
}

#[test]
fn parameters_named_like_runtime_functions() {
    // The kernel does use those instructions.
    for op in ["TLOAD(", "TADDS(", "TROWSUM(", "TSTORE("] {
        assert!(
            runtime_names::CPP.contains(op),
            "{op} missing from\n{}",
            runtime_names::CPP
        );
    }
    let mut x = Tensor::<f32>::zeros([2, 8]);
    x.as_mut_slice()[3] = 2.0;
    let bias = Tensor::<f32>::zeros([2, 1]);
    let mut out = Tensor::<f32>::zeros([2, 8]);
    let mut sums = Tensor::<f32>::zeros([2, 1]);
    assert_eq!(runtime_names(&x, 0.5, &bias, &mut out, &mut sums), Ok(()));
    assert_eq!(out.get(&[0, 3]), Some(2.5));
    assert_eq!(sums.get(&[0, 0]), Some(2.0 + 8.0 * 0.5));
    assert_eq!(sums.get(&[1, 0]), Some(8.0 * 0.5));
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa, at tile-multiple and ragged sizes, against their host functions (`typical`
/// without then with its bias).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "typical",
            &typical::program(),
            vec![
                vec![("R", 32), ("M", 64), ("K", 128), ("N", 64)],
                vec![("R", 37), ("M", 70), ("K", 50), ("N", 45)],
            ],
        )
        .against_host(|t| {
            typical(
                &t.tensor(0),
                &t.tensor(1),
                &t.tensor(2),
                t.flag(3),
                &t.tensor(4),
                &mut t.out::<f32>(5),
                &mut t.out::<f32>(6),
            )
        }),
    );
    problems.extend(
        Model::new(
            "add_one",
            &add_one::program(),
            vec![vec![("N", 16)], vec![("N", 5)]],
        )
        .against_host(|t| add_one(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new("runtime_names", &runtime_names::program(), vec![vec![]]).against_host(|t| {
            runtime_names(
                &t.tensor(0),
                t.scalar(1) as f32,
                &t.tensor(2),
                &mut t.out::<f32>(3),
                &mut t.out::<f32>(4),
            )
        }),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
