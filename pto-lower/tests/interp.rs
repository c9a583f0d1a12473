//! The reference interpreter on small programs built with the `IRBuilder`, checked against
//! plain-Rust references.

// Helpers outside `#[test]` functions unwrap too; `3.14` is the spec's literal, not PI.
#![allow(clippy::unwrap_used, clippy::approx_constant)]

use pto_ir::{
    Attr, Attrs, Constant, DataType, Diag, Dim, Direction, ForKind, FuncId, FunctionKind,
    IRBuilder, IRBuilderContext, Opcode, Param, ProgramModule, ScopeKind, Signature, TensorFormat,
    TensorType, TileType, Type, ValueId,
};
use pto_lower::interp::{HostTensor, HostTile, HostValue, run};

type B<'a> = &'a mut IRBuilder;
type C<'a> = &'a mut IRBuilderContext;

const F32: DataType = DataType::Fp32;
const I64: DataType = DataType::Int64;

fn tensor_ty(dtype: DataType, shape: Vec<Dim>) -> Type {
    Type::Tensor(TensorType {
        dtype,
        shape: shape.into(),
        format: TensorFormat::Nd,
    })
}

fn st(shape: &[u64]) -> Vec<Dim> {
    shape.iter().map(|&d| Dim::Const(d)).collect()
}

/// Starts a builder with one function whose body is open.
fn start(params: Vec<(ValueId, Direction)>, returns: Vec<Type>, b: B, ctx: C) -> FuncId {
    let sig = Signature {
        params: params
            .into_iter()
            .map(|(value, direction)| Param { value, direction })
            .collect(),
        returns,
    };
    let f = b
        .create_function("k", FunctionKind::Kernel, sig, true)
        .unwrap();
    b.enter_function_body(ctx, f).unwrap();
    f
}

fn finish(b: IRBuilder, mut ctx: IRBuilderContext) -> ProgramModule {
    ctx.pop_scope().unwrap();
    let m = b.finish(&ctx).unwrap();
    if let Err(d) = pto_ir::verify(&m) {
        // These programs exercise the interpreter on tiles smaller than the hardware's
        // 32-byte rows and matmul fractals (the default target checks those; their own
        // tests are in pto-ir), and on conversions no target's TCVT has in one step (fp32
        // to int8; the meaning is the semantics module's either way): only those rules may
        // fail.
        let other: Vec<String> = d
            .iter()
            .map(|e| e.message.clone())
            .filter(|msg| {
                let fractal = msg.contains(" needs ")
                    && (msg.ends_with(" rows") || msg.ends_with(" columns"))
                    && msg.contains("a multiple of");
                !fractal
                    && !msg.contains("a row-major tile row must be a multiple of 32 bytes")
                    && !msg.contains("its TCVT converts")
            })
            .collect();
        assert!(
            other.is_empty(),
            "the test program does not verify:\n{d}\n{m:?}"
        );
    }
    m
}

fn new() -> (IRBuilder, IRBuilderContext) {
    (
        IRBuilder::new(ProgramModule::new("main")),
        IRBuilderContext::new(),
    )
}

fn op(b: B, ctx: C, code: Opcode, operands: Vec<ValueId>, attrs: Attrs) -> Result<ValueId, Diag> {
    Ok(b.build_op(ctx, code, operands, attrs, "")?
        .expect("the op has a result"))
}

fn op0(b: B, ctx: C, code: Opcode, operands: Vec<ValueId>) -> Result<ValueId, Diag> {
    op(b, ctx, code, operands, Attrs::new())
}

fn ci(b: B, ctx: C, v: i64) -> Result<ValueId, Diag> {
    b.create_const(ctx, Constant::Int64(v), None, "")
}

fn cf(b: B, ctx: C, v: f64, dtype: DataType) -> Result<ValueId, Diag> {
    b.create_const(ctx, Constant::Double(v), Some(dtype), "")
}

fn window(shape: &[u64], offset: Vec<Attr>) -> Attrs {
    Attrs::new()
        .with("shape", Attr::ints(shape))
        .with("offset", Attr::List(offset))
}

fn at(offset: Vec<Attr>) -> Attrs {
    Attrs::new().with("offset", Attr::List(offset))
}

fn store(b: B, ctx: C, tile: ValueId, tensor: ValueId, offset: Vec<Attr>) -> Result<(), Diag> {
    b.build_op(ctx, Opcode::TileStore, vec![tile, tensor], at(offset), "")?;
    Ok(())
}

fn full(b: B, ctx: C, v: f64, dtype: DataType, shape: &[u64]) -> Result<ValueId, Diag> {
    let c = cf(b, ctx, v, F32)?;
    op(
        b,
        ctx,
        Opcode::TileFull,
        vec![c],
        Attrs::new()
            .with("shape", Attr::ints(shape))
            .with("dtype", Attr::Ident(dtype.name().into())),
    )
}

fn v(x: ValueId) -> Attr {
    Attr::Value(x)
}

fn i(x: i64) -> Attr {
    Attr::Int(x)
}

/// Deterministic test data in [-2, 2).
fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = ((s >> 33) as f64) / ((1u64 << 31) as f64);
            f64::from((x * 4.0 - 2.0) as f32)
        })
        .collect()
}

fn tensor(dtype: DataType, shape: &[usize], data: Vec<f64>) -> HostValue {
    HostValue::Tensor(HostTensor::new(dtype, shape.to_vec(), data).unwrap())
}

fn zeros(dtype: DataType, shape: &[usize]) -> HostValue {
    HostValue::Tensor(HostTensor::zeros(dtype, shape.to_vec()))
}

fn out_data(v: &HostValue) -> &[f64] {
    &v.as_tensor().expect("a tensor").data
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "element {k}: got {g}, want {w}"
        );
    }
}

// ----- scale_rows -----

/// `out[b, :] = x[b, :] * scale * 3.14` over a symbolic `B`, one row at a time.
fn scale_rows() -> (ProgramModule, FuncId) {
    let (mut b, mut ctx) = new();
    let bd = b.new_scalar(I64, "B");
    let x = b.new_value(tensor_ty(F32, vec![Dim::Value(bd), Dim::Const(128)]), "x");
    let scale = b.new_value(Type::Scalar(F32), "scale");
    let out = b.new_value(tensor_ty(F32, vec![Dim::Value(bd), Dim::Const(128)]), "out");
    let f = start(
        vec![
            (x, Direction::In),
            (scale, Direction::In),
            (out, Direction::Out),
        ],
        vec![],
        &mut b,
        &mut ctx,
    );
    let (c0, c1) = (
        ci(&mut b, &mut ctx, 0).unwrap(),
        ci(&mut b, &mut ctx, 1).unwrap(),
    );
    let iv = b.new_scalar(I64, "b");
    b.for_loop(
        &mut ctx,
        iv,
        c0,
        bd,
        c1,
        ForKind::Sequential,
        |b, ctx, iv| {
            let row = op(
                b,
                ctx,
                Opcode::TileLoad,
                vec![x],
                window(&[1, 128], vec![v(iv), i(0)]),
            )?;
            let y = op0(b, ctx, Opcode::TileMul, vec![row, scale])?;
            let pi = cf(b, ctx, 3.14, DataType::Fp64)?;
            let y = op0(b, ctx, Opcode::TileMul, vec![y, pi])?;
            store(b, ctx, y, out, vec![v(iv), i(0)])
        },
    )
    .unwrap();
    (finish(b, ctx), f)
}

#[test]
fn scale_rows_matches_rust() {
    let (m, f) = scale_rows();
    let rows = 4;
    let xs = data(rows * 128, 1);
    let mut args = vec![
        tensor(F32, &[rows, 128], xs.clone()),
        HostValue::f32(2.0),
        zeros(F32, &[rows, 128]),
    ];
    let rets = run(&m, f, &mut args).unwrap();
    assert!(rets.is_empty());
    let want: Vec<f64> = xs
        .iter()
        .map(|&x| f64::from(x as f32 * 2.0f32 * 3.14f32))
        .collect();
    assert_eq!(out_data(&args[2]), &want[..]);
    // The input is untouched.
    assert_eq!(out_data(&args[0]), &xs[..]);
}

#[test]
fn symbolic_and_static_dims_are_checked() {
    let (m, f) = scale_rows();
    let mut args = vec![
        zeros(F32, &[4, 128]),
        HostValue::f32(1.0),
        zeros(F32, &[5, 128]),
    ];
    let e = run(&m, f, &mut args).unwrap_err();
    assert!(e.message.contains("`B`"), "{e}");
    assert!(e.message.contains("dimension 0 of parameter `out`"), "{e}");
    let mut args = vec![
        zeros(F32, &[4, 64]),
        HostValue::f32(1.0),
        zeros(F32, &[4, 128]),
    ];
    let e = run(&m, f, &mut args).unwrap_err();
    assert!(
        e.message.contains("dimension 1 of parameter `x`") && e.message.contains("expected 128"),
        "{e}"
    );
    let mut args = vec![
        zeros(F32, &[4, 128]),
        HostValue::i64(1),
        zeros(F32, &[4, 128]),
    ];
    let e = run(&m, f, &mut args).unwrap_err();
    assert!(e.message.contains("parameter `scale`"), "{e}");
    let mut args = vec![zeros(F32, &[4, 128]), HostValue::f32(1.0)];
    assert!(run(&m, f, &mut args).is_err());
}

// ----- vector add with an edge tile -----

#[test]
fn vector_add_with_edge_tile() {
    let (mut b, mut ctx) = new();
    let n = b.new_scalar(I64, "N");
    let ty = tensor_ty(F32, vec![Dim::Value(n)]);
    let (x, y, out) = (
        b.new_value(ty.clone(), "x"),
        b.new_value(ty.clone(), "y"),
        b.new_value(ty, "out"),
    );
    let f = start(
        vec![
            (x, Direction::In),
            (y, Direction::In),
            (out, Direction::Out),
        ],
        vec![],
        &mut b,
        &mut ctx,
    );
    let c0 = ci(&mut b, &mut ctx, 0).unwrap();
    let c16 = ci(&mut b, &mut ctx, 16).unwrap();
    let iv = b.new_scalar(I64, "i");
    b.for_loop(&mut ctx, iv, c0, n, c16, ForKind::Parallel, |b, ctx, iv| {
        let tx = op(
            b,
            ctx,
            Opcode::TileLoad,
            vec![x],
            window(&[16], vec![v(iv)]),
        )?;
        let ty = op(
            b,
            ctx,
            Opcode::TileLoad,
            vec![y],
            window(&[16], vec![v(iv)]),
        )?;
        let s = op0(b, ctx, Opcode::TileAdd, vec![tx, ty])?;
        store(b, ctx, s, out, vec![v(iv)])
    })
    .unwrap();
    let m = finish(b, ctx);
    for len in [37usize, 32, 5, 1] {
        let (xs, ys) = (data(len, 2), data(len, 3));
        let mut args = vec![
            tensor(F32, &[len], xs.clone()),
            tensor(F32, &[len], ys.clone()),
            zeros(F32, &[len]),
        ];
        run(&m, f, &mut args).unwrap();
        let want: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .map(|(&a, &b)| f64::from(a as f32 + b as f32))
            .collect();
        assert_eq!(out_data(&args[2]), &want[..], "N = {len}");
    }
}

// ----- row softmax -----

#[test]
fn row_softmax_with_edges_in_both_dims() {
    let (mut b, mut ctx) = new();
    let (r, c) = (b.new_scalar(I64, "R"), b.new_scalar(I64, "C"));
    let ty = tensor_ty(F32, vec![Dim::Value(r), Dim::Value(c)]);
    let (x, out) = (b.new_value(ty.clone(), "x"), b.new_value(ty, "out"));
    let f = start(
        vec![(x, Direction::In), (out, Direction::Out)],
        vec![],
        &mut b,
        &mut ctx,
    );
    let c0 = ci(&mut b, &mut ctx, 0).unwrap();
    let c4 = ci(&mut b, &mut ctx, 4).unwrap();
    let iv = b.new_scalar(I64, "r");
    b.for_loop(
        &mut ctx,
        iv,
        c0,
        r,
        c4,
        ForKind::Sequential,
        |b, ctx, iv| {
            let t = op(
                b,
                ctx,
                Opcode::TileLoad,
                vec![x],
                window(&[4, 8], vec![v(iv), i(0)]),
            )?;
            let mx = op0(b, ctx, Opcode::TileRowMax, vec![t])?;
            let d = op0(b, ctx, Opcode::TileSub, vec![t, mx])?;
            let e = op0(b, ctx, Opcode::TileExp, vec![d])?;
            let s = op0(b, ctx, Opcode::TileRowSum, vec![e])?;
            let y = op0(b, ctx, Opcode::TileDiv, vec![e, s])?;
            store(b, ctx, y, out, vec![v(iv), i(0)])
        },
    )
    .unwrap();
    let m = finish(b, ctx);
    let (rows, cols) = (6usize, 6usize);
    let xs = data(rows * cols, 4);
    let mut args = vec![
        tensor(F32, &[rows, cols], xs.clone()),
        zeros(F32, &[rows, cols]),
    ];
    run(&m, f, &mut args).unwrap();
    let mut want = vec![0.0; rows * cols];
    for rr in 0..rows {
        let row = &xs[rr * cols..(rr + 1) * cols];
        let mx = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = row.iter().map(|x| (x - mx).exp()).sum();
        for cc in 0..cols {
            want[rr * cols + cc] = (row[cc] - mx).exp() / sum;
        }
    }
    assert_close(out_data(&args[1]), &want, 1e-6);
    let rowsums: Vec<f64> = out_data(&args[1])
        .chunks(cols)
        .map(|r| r.iter().sum())
        .collect();
    assert_close(&rowsums, &[1.0; 6], 1e-6);
}

// ----- reductions over partial valid regions -----

#[test]
fn reductions_over_partial_valid_regions() {
    let (mut b, mut ctx) = new();
    let x = b.new_value(tensor_ty(F32, st(&[4, 8])), "x");
    let (vm, vn) = (b.new_scalar(I64, "m"), b.new_scalar(I64, "n"));
    let rs = b.new_value(tensor_ty(F32, st(&[4, 1])), "rs");
    let rm = b.new_value(tensor_ty(F32, st(&[4, 1])), "rm");
    let cs = b.new_value(tensor_ty(F32, st(&[1, 8])), "cs");
    let cm = b.new_value(tensor_ty(F32, st(&[1, 8])), "cm");
    let f = start(
        vec![
            (x, Direction::In),
            (vm, Direction::In),
            (vn, Direction::In),
            (rs, Direction::InOut),
            (rm, Direction::InOut),
            (cs, Direction::InOut),
            (cm, Direction::InOut),
        ],
        vec![],
        &mut b,
        &mut ctx,
    );
    let (b_, ctx_) = (&mut b, &mut ctx);
    let t = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![x],
        window(&[4, 8], vec![i(0), i(0)]),
    )
    .unwrap();
    let t = op0(b_, ctx_, Opcode::TileValid, vec![t, vm, vn]).unwrap();
    for (code, dst) in [
        (Opcode::TileRowSum, rs),
        (Opcode::TileRowMax, rm),
        (Opcode::TileColSum, cs),
        (Opcode::TileColMax, cm),
    ] {
        let r = op0(b_, ctx_, code, vec![t]).unwrap();
        store(b_, ctx_, r, dst, vec![i(0), i(0)]).unwrap();
    }
    let m = finish(b, ctx);
    let xs = data(32, 5);
    let sentinel = -7.0;
    let mut args = vec![
        tensor(F32, &[4, 8], xs.clone()),
        HostValue::i64(3),
        HostValue::i64(5),
        tensor(F32, &[4, 1], vec![sentinel; 4]),
        tensor(F32, &[4, 1], vec![sentinel; 4]),
        tensor(F32, &[1, 8], vec![sentinel; 8]),
        tensor(F32, &[1, 8], vec![sentinel; 8]),
    ];
    run(&m, f, &mut args).unwrap();
    let xf = |r: usize, c: usize| xs[r * 8 + c] as f32;
    let mut row_sum = [sentinel; 4];
    let mut row_max = [sentinel; 4];
    for r in 0..3 {
        row_sum[r] = f64::from((0..5).fold(0.0f32, |a, c| a + xf(r, c)));
        row_max[r] = f64::from((0..5).map(|c| xf(r, c)).fold(f32::NEG_INFINITY, f32::max));
    }
    let mut col_sum = [sentinel; 8];
    let mut col_max = [sentinel; 8];
    for c in 0..5 {
        col_sum[c] = f64::from((0..3).fold(0.0f32, |a, r| a + xf(r, c)));
        col_max[c] = f64::from((0..3).map(|r| xf(r, c)).fold(f32::NEG_INFINITY, f32::max));
    }
    assert_eq!(out_data(&args[3]), &row_sum[..]);
    assert_eq!(out_data(&args[4]), &row_max[..]);
    assert_eq!(out_data(&args[5]), &col_sum[..]);
    assert_eq!(out_data(&args[6]), &col_max[..]);

    // A valid region larger than the tile is an error, not a panic.
    args[2] = HostValue::i64(9);
    let e = run(&m, f, &mut args).unwrap_err();
    assert!(
        e.message.contains("tile.valid") && e.message.contains("does not fit the 4 x 8 tile"),
        "{e}"
    );
}

// ----- matmul -----

fn matmul_program(input: DataType, mm: u64, kk: u64, nn: u64) -> (ProgramModule, FuncId) {
    let (mut b, mut ctx) = new();
    let a = b.new_value(tensor_ty(input, st(&[mm, kk])), "a");
    let bm = b.new_value(tensor_ty(input, st(&[kk, nn])), "b");
    let c = b.new_value(tensor_ty(F32, st(&[mm, nn])), "c");
    let f = start(
        vec![(a, Direction::In), (bm, Direction::In), (c, Direction::Out)],
        vec![],
        &mut b,
        &mut ctx,
    );
    let (b_, ctx_) = (&mut b, &mut ctx);
    let ta = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![a],
        window(&[mm, kk], vec![i(0), i(0)]),
    )
    .unwrap();
    let tb = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![bm],
        window(&[kk, nn], vec![i(0), i(0)]),
    )
    .unwrap();
    let p = op0(b_, ctx_, Opcode::TileMatmul, vec![ta, tb]).unwrap();
    store(b_, ctx_, p, c, vec![i(0), i(0)]).unwrap();
    (finish(b, ctx), f)
}

fn matmul_ref(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for r in 0..m {
        for col in 0..n {
            let mut acc = 0.0f32;
            for x in 0..k {
                acc = (a[r * k + x] as f32).mul_add(b[x * n + col] as f32, acc);
            }
            c[r * n + col] = f64::from(acc);
        }
    }
    c
}

#[test]
fn matmul_f32() {
    let (m, f) = matmul_program(F32, 4, 8, 6);
    let (a, bm) = (data(32, 6), data(48, 7));
    let mut args = vec![
        tensor(F32, &[4, 8], a.clone()),
        tensor(F32, &[8, 6], bm.clone()),
        zeros(F32, &[4, 6]),
    ];
    run(&m, f, &mut args).unwrap();
    assert_eq!(out_data(&args[2]), &matmul_ref(&a, &bm, 4, 8, 6)[..]);
}

#[test]
fn matmul_f16_accumulates_in_f32() {
    let (m, f) = matmul_program(DataType::Fp16, 2, 16, 2);
    // Values exactly representable in f16, whose f32 sum is not representable in f16.
    let a: Vec<f64> = (0..32).map(|k| 1.0 + f64::from(k) / 1024.0).collect();
    let bm: Vec<f64> = (0..32)
        .map(|k| {
            if k % 2 == 0 {
                1.0
            } else {
                0.5 + f64::from(k) / 64.0
            }
        })
        .collect();
    let mut args = vec![
        tensor(DataType::Fp16, &[2, 16], a.clone()),
        tensor(DataType::Fp16, &[16, 2], bm.clone()),
        zeros(F32, &[2, 2]),
    ];
    run(&m, f, &mut args).unwrap();
    let want = matmul_ref(&a, &bm, 2, 16, 2);
    assert_eq!(out_data(&args[2]), &want[..]);
    assert!(
        want.iter().any(|&w| pto_lower::interp::round_f16(w) != w),
        "the test needs f32-only sums"
    );

    // An f16 tensor argument is rounded to f16 on the way in.
    let mut args = vec![
        tensor(DataType::Fp16, &[2, 16], vec![0.1; 32]),
        tensor(DataType::Fp16, &[16, 2], vec![1.0; 32]),
        zeros(F32, &[2, 2]),
    ];
    run(&m, f, &mut args).unwrap();
    let tenth = 1638.0f32 / 16384.0; // the f16 nearest to 0.1
    let want = f64::from((0..16).fold(0.0f32, |acc, _| acc + tenth));
    assert_eq!(out_data(&args[2]), &[want; 4][..]);
}

#[test]
fn split_k_matmul_with_loop_carried_accumulator() {
    let (mm, kk, nn, chunk) = (4u64, 20u64, 4u64, 8u64);
    let (mut b, mut ctx) = new();
    let a = b.new_value(tensor_ty(F32, st(&[mm, kk])), "a");
    let bm = b.new_value(tensor_ty(F32, st(&[kk, nn])), "b");
    let c = b.new_value(tensor_ty(F32, st(&[mm, nn])), "c");
    let f = start(
        vec![(a, Direction::In), (bm, Direction::In), (c, Direction::Out)],
        vec![],
        &mut b,
        &mut ctx,
    );
    let c0 = ci(&mut b, &mut ctx, 0).unwrap();
    let ck = ci(&mut b, &mut ctx, kk as i64).unwrap();
    let cstep = ci(&mut b, &mut ctx, chunk as i64).unwrap();
    let acc0 = full(&mut b, &mut ctx, 0.0, F32, &[mm, nn]).unwrap();
    b.declare_var(&ctx, "acc", acc0, true).unwrap();
    let iv = b.new_scalar(I64, "k");
    b.for_loop(
        &mut ctx,
        iv,
        c0,
        ck,
        cstep,
        ForKind::Sequential,
        |b, ctx, k| {
            let ta = op(
                b,
                ctx,
                Opcode::TileLoad,
                vec![a],
                window(&[mm, chunk], vec![i(0), v(k)]),
            )?;
            let tb = op(
                b,
                ctx,
                Opcode::TileLoad,
                vec![bm],
                window(&[chunk, nn], vec![v(k), i(0)]),
            )?;
            let first = op0(b, ctx, Opcode::ScalarEq, vec![k, c0])?;
            b.if_else(
                ctx,
                first,
                |b, ctx| {
                    let p = op0(b, ctx, Opcode::TileMatmul, vec![ta, tb])?;
                    b.assign_var(ctx, "acc", p)?;
                    Ok(None)
                },
                |b, ctx| {
                    let acc = b.use_var(ctx, "acc")?;
                    let p = op0(b, ctx, Opcode::TileMatmulAcc, vec![acc, ta, tb])?;
                    b.assign_var(ctx, "acc", p)?;
                    Ok(None)
                },
            )?;
            Ok(())
        },
    )
    .unwrap();
    let acc = b.use_var(&mut ctx, "acc").unwrap();
    store(&mut b, &mut ctx, acc, c, vec![i(0), i(0)]).unwrap();
    let m = finish(b, ctx);
    let (av, bv) = (data(80, 8), data(80, 9));
    let mut args = vec![
        tensor(F32, &[4, 20], av.clone()),
        tensor(F32, &[20, 4], bv.clone()),
        zeros(F32, &[4, 4]),
    ];
    run(&m, f, &mut args).unwrap();
    assert_eq!(out_data(&args[2]), &matmul_ref(&av, &bv, 4, 20, 4)[..]);
}

#[test]
fn matmul_bias_and_int8() {
    let (mut b, mut ctx) = new();
    let a = b.new_value(tensor_ty(DataType::Int8, st(&[2, 3])), "a");
    let bm = b.new_value(tensor_ty(DataType::Int8, st(&[3, 2])), "b");
    let bias = b.new_value(tensor_ty(DataType::Int32, st(&[1, 2])), "bias");
    let c = b.new_value(tensor_ty(DataType::Int32, st(&[2, 2])), "c");
    let f = start(
        vec![
            (a, Direction::In),
            (bm, Direction::In),
            (bias, Direction::In),
            (c, Direction::Out),
        ],
        vec![],
        &mut b,
        &mut ctx,
    );
    let (b_, ctx_) = (&mut b, &mut ctx);
    let ta = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![a],
        window(&[2, 3], vec![i(0), i(0)]),
    )
    .unwrap();
    let tb = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![bm],
        window(&[3, 2], vec![i(0), i(0)]),
    )
    .unwrap();
    let tbias = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![bias],
        window(&[1, 2], vec![i(0), i(0)]),
    )
    .unwrap();
    let p = op0(b_, ctx_, Opcode::TileMatmulBias, vec![ta, tb, tbias]).unwrap();
    store(b_, ctx_, p, c, vec![i(0), i(0)]).unwrap();
    let m = finish(b, ctx);
    let av = vec![127.0, -128.0, 5.0, 1.0, 2.0, 3.0];
    let bv = vec![127.0, 1.0, 127.0, -1.0, 2.0, 0.0];
    let mut args = vec![
        tensor(DataType::Int8, &[2, 3], av.clone()),
        tensor(DataType::Int8, &[3, 2], bv.clone()),
        tensor(DataType::Int32, &[1, 2], vec![1000.0, -1.0]),
        zeros(DataType::Int32, &[2, 2]),
    ];
    run(&m, f, &mut args).unwrap();
    let mut want = [0.0; 4];
    for r in 0..2 {
        for col in 0..2 {
            let s: i32 = (0..3)
                .map(|x| av[r * 3 + x] as i32 * bv[x * 2 + col] as i32)
                .sum();
            want[r * 2 + col] = f64::from(s + [1000, -1][col]);
        }
    }
    assert_eq!(out_data(&args[3]), &want[..]);
}

// ----- control flow -----

#[test]
fn while_loop_with_break() {
    let (mut b, mut ctx) = new();
    let f = start(
        vec![],
        vec![Type::Scalar(I64), Type::Scalar(I64)],
        &mut b,
        &mut ctx,
    );
    let zero = ci(&mut b, &mut ctx, 0).unwrap();
    b.declare_var(&ctx, "i", zero, true).unwrap();
    b.declare_var(&ctx, "s", zero, true).unwrap();
    b.while_loop(
        &mut ctx,
        |b, ctx| {
            let iv = b.use_var(ctx, "i")?;
            let lim = ci(b, ctx, 100)?;
            op0(b, ctx, Opcode::ScalarLt, vec![iv, lim])
        },
        |b, ctx| {
            let s = b.use_var(ctx, "s")?;
            let iv = b.use_var(ctx, "i")?;
            let s2 = op0(b, ctx, Opcode::ScalarAdd, vec![s, iv])?;
            b.assign_var(ctx, "s", s2)?;
            let fifty = ci(b, ctx, 50)?;
            let big = op0(b, ctx, Opcode::ScalarGt, vec![s2, fifty])?;
            b.if_else(
                ctx,
                big,
                |b, ctx| {
                    b.create_break(ctx)?;
                    Ok(None)
                },
                |_, _| Ok(None),
            )?;
            let iv = b.use_var(ctx, "i")?;
            let one = ci(b, ctx, 1)?;
            let i2 = op0(b, ctx, Opcode::ScalarAdd, vec![iv, one])?;
            b.assign_var(ctx, "i", i2)
        },
    )
    .unwrap();
    let s = b.use_var(&mut ctx, "s").unwrap();
    let iv = b.use_var(&mut ctx, "i").unwrap();
    b.create_return(&mut ctx, vec![s, iv]).unwrap();
    let m = finish(b, ctx);
    let rets = run(&m, f, &mut []).unwrap();
    let (mut ri, mut rs) = (0i64, 0i64);
    while ri < 100 {
        rs += ri;
        if rs > 50 {
            break;
        }
        ri += 1;
    }
    assert_eq!(
        rets.iter().map(|r| r.as_i64().unwrap()).collect::<Vec<_>>(),
        vec![rs, ri]
    );
}

#[test]
fn for_loop_with_continue_and_scope() {
    let (mut b, mut ctx) = new();
    let n = b.new_scalar(I64, "n");
    let f = start(
        vec![(n, Direction::In)],
        vec![Type::Scalar(I64)],
        &mut b,
        &mut ctx,
    );
    let zero = ci(&mut b, &mut ctx, 0).unwrap();
    let one = ci(&mut b, &mut ctx, 1).unwrap();
    b.declare_var(&ctx, "s", zero, true).unwrap();
    let iv = b.new_scalar(I64, "i");
    b.for_loop(
        &mut ctx,
        iv,
        zero,
        n,
        one,
        ForKind::Sequential,
        |b, ctx, iv| {
            let two = ci(b, ctx, 2)?;
            let r = op0(b, ctx, Opcode::ScalarRem, vec![iv, two])?;
            let even = op0(b, ctx, Opcode::ScalarEq, vec![r, zero])?;
            b.if_else(
                ctx,
                even,
                |b, ctx| {
                    b.create_continue(ctx)?;
                    Ok(None)
                },
                |_, _| Ok(None),
            )?;
            b.scope(ctx, ScopeKind::InCore, |b, ctx| {
                let s = b.use_var(ctx, "s")?;
                let s2 = op0(b, ctx, Opcode::ScalarAdd, vec![s, iv])?;
                b.assign_var(ctx, "s", s2)
            })?;
            Ok(())
        },
    )
    .unwrap();
    let s = b.use_var(&mut ctx, "s").unwrap();
    b.create_return(&mut ctx, vec![s]).unwrap();
    let m = finish(b, ctx);
    for n in [0i64, 1, 10, 11] {
        let rets = run(&m, f, &mut [HostValue::i64(n)]).unwrap();
        let want: i64 = (0..n).filter(|x| x % 2 == 1).sum();
        assert_eq!(rets[0].as_i64(), Some(want), "n = {n}");
    }
}

#[test]
fn func_call_passes_tensors_by_reference() {
    let (mut b, mut ctx) = new();
    // @fill(t: tensor<[2, 8], fp32> #out, x: fp32): t = full(x)
    let t = b.new_value(tensor_ty(F32, st(&[2, 8])), "t");
    let x = b.new_value(Type::Scalar(F32), "x");
    let sig = Signature {
        params: vec![
            Param {
                value: t,
                direction: Direction::Out,
            },
            Param {
                value: x,
                direction: Direction::In,
            },
        ],
        returns: vec![Type::Scalar(F32)],
    };
    let fill = b
        .create_function("fill", FunctionKind::Kernel, sig, false)
        .unwrap();
    b.enter_function_body(&mut ctx, fill).unwrap();
    let tile = op(
        &mut b,
        &mut ctx,
        Opcode::TileFull,
        vec![x],
        Attrs::new()
            .with("shape", Attr::ints(&[2, 8]))
            .with("dtype", Attr::Ident("fp32".into())),
    )
    .unwrap();
    store(&mut b, &mut ctx, tile, t, vec![i(0), i(0)]).unwrap();
    let twice = op0(&mut b, &mut ctx, Opcode::ScalarAdd, vec![x, x]).unwrap();
    b.create_return(&mut ctx, vec![twice]).unwrap();
    ctx.pop_scope().unwrap();
    // @main(out: #out): r = fill(out, 1.5); return r
    let out = b.new_value(tensor_ty(F32, st(&[2, 8])), "out");
    let f = start(
        vec![(out, Direction::Out)],
        vec![Type::Scalar(F32)],
        &mut b,
        &mut ctx,
    );
    let c = cf(&mut b, &mut ctx, 1.5, F32).unwrap();
    let r = op(
        &mut b,
        &mut ctx,
        Opcode::Call,
        vec![out, c],
        Attrs::new().with("callee", Attr::Symbol("fill".into())),
    )
    .unwrap();
    b.create_return(&mut ctx, vec![r]).unwrap();
    let m = finish(b, ctx);
    let mut args = vec![zeros(F32, &[2, 8])];
    let rets = run(&m, f, &mut args).unwrap();
    assert_eq!(rets[0].as_f64(), Some(3.0));
    assert_eq!(out_data(&args[0]), &[1.5; 16][..]);
}

// ----- casts and scalars -----

#[test]
fn cast_round_modes() {
    let modes = [
        None,
        Some("rint"),
        Some("round"),
        Some("floor"),
        Some("ceil"),
        Some("trunc"),
    ];
    // (`odd` rounds fp32 to fp16 only on both targets, so a kernel cannot name it here;
    // `pto_ir::sem::round`'s unit tests cover its integral rounding.)
    let xs = [2.5, -2.5, 1.5, -0.5, 2.7, -2.7, 0.5, 1e10];
    let (mut b, mut ctx) = new();
    let x = b.new_value(tensor_ty(F32, st(&[1, 8])), "x");
    let outs: Vec<ValueId> = modes
        .iter()
        .map(|_| b.new_value(tensor_ty(DataType::Int32, st(&[1, 8])), "o"))
        .collect();
    let mut params = vec![(x, Direction::In)];
    params.extend(outs.iter().map(|&o| (o, Direction::Out)));
    let f = start(params, vec![], &mut b, &mut ctx);
    let t = op(
        &mut b,
        &mut ctx,
        Opcode::TileLoad,
        vec![x],
        window(&[1, 8], vec![i(0), i(0)]),
    )
    .unwrap();
    for (mode, &o) in modes.iter().zip(&outs) {
        let mut attrs = Attrs::new().with("dtype", Attr::Ident("int32".into()));
        if let Some(mode) = mode {
            attrs.set("round", Attr::Ident((*mode).into()));
        }
        let cvt = op(&mut b, &mut ctx, Opcode::TileCast, vec![t], attrs).unwrap();
        store(&mut b, &mut ctx, cvt, o, vec![i(0), i(0)]).unwrap();
    }
    let m = finish(b, ctx);
    let mut args = vec![tensor(F32, &[1, 8], xs.to_vec())];
    args.extend(modes.iter().map(|_| zeros(DataType::Int32, &[1, 8])));
    run(&m, f, &mut args).unwrap();
    let max = f64::from(i32::MAX);
    // No mode named: float to integer truncates toward zero, like Rust's `as`.
    let want: [[f64; 8]; 6] = [
        [2.0, -2.0, 1.0, 0.0, 2.0, -2.0, 0.0, max],
        [2.0, -2.0, 2.0, -0.0, 3.0, -3.0, 0.0, max],
        [3.0, -3.0, 2.0, -1.0, 3.0, -3.0, 1.0, max],
        [2.0, -3.0, 1.0, -1.0, 2.0, -3.0, 0.0, max],
        [3.0, -2.0, 2.0, 0.0, 3.0, -2.0, 1.0, max],
        [2.0, -2.0, 1.0, 0.0, 2.0, -2.0, 0.0, max],
    ];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(out_data(&args[k + 1]), &w[..], "round mode {:?}", modes[k]);
    }
}

#[test]
fn float_casts_round_to_nearest_even() {
    let (mut b, mut ctx) = new();
    let x = b.new_value(tensor_ty(F32, st(&[4])), "x");
    let h = b.new_value(tensor_ty(DataType::Fp16, st(&[4])), "h");
    let bf = b.new_value(tensor_ty(DataType::Bf16, st(&[4])), "bf");
    let q = b.new_value(tensor_ty(DataType::Int8, st(&[4])), "q");
    let f = start(
        vec![
            (x, Direction::In),
            (h, Direction::Out),
            (bf, Direction::Out),
            (q, Direction::Out),
        ],
        vec![],
        &mut b,
        &mut ctx,
    );
    let t = op(
        &mut b,
        &mut ctx,
        Opcode::TileLoad,
        vec![x],
        window(&[4], vec![i(0)]),
    )
    .unwrap();
    for (dst, dt) in [(h, "fp16"), (bf, "bf16"), (q, "int8")] {
        let c = op(
            &mut b,
            &mut ctx,
            Opcode::TileCast,
            vec![t],
            Attrs::new().with("dtype", Attr::Ident(dt.into())),
        )
        .unwrap();
        store(&mut b, &mut ctx, c, dst, vec![i(0)]).unwrap();
    }
    let m = finish(b, ctx);
    let third = f64::from(1.0f32 / 3.0);
    let mut args = vec![
        tensor(F32, &[4], vec![third, 65520.0, 2049.0, -1000.0]),
        zeros(DataType::Fp16, &[4]),
        zeros(DataType::Bf16, &[4]),
        zeros(DataType::Int8, &[4]),
    ];
    run(&m, f, &mut args).unwrap();
    assert_eq!(
        out_data(&args[1]),
        &[0.333251953125, f64::INFINITY, 2048.0, -1000.0][..]
    );
    assert_eq!(
        out_data(&args[2]),
        &[0.333984375, 65536.0, 2048.0, -1000.0][..]
    );
    assert_eq!(out_data(&args[3]), &[0.0, 127.0, 127.0, -128.0][..]);
}

#[test]
fn scalar_ops_follow_rust() {
    // @k(a: int32, b: int32, x: fp64) -> (add, div, rem, floordiv, floormod, shl, cast)
    let (mut b, mut ctx) = new();
    let a = b.new_scalar(DataType::Int32, "a");
    let bb = b.new_scalar(DataType::Int32, "b");
    let x = b.new_scalar(DataType::Fp64, "x");
    let i32t = Type::Scalar(DataType::Int32);
    let f = start(
        vec![(a, Direction::In), (bb, Direction::In), (x, Direction::In)],
        vec![i32t.clone(); 7],
        &mut b,
        &mut ctx,
    );
    let (b_, ctx_) = (&mut b, &mut ctx);
    let mut rets = Vec::new();
    for code in [
        Opcode::ScalarAdd,
        Opcode::ScalarDiv,
        Opcode::ScalarRem,
        Opcode::ScalarFloorDiv,
        Opcode::ScalarFloorMod,
    ] {
        rets.push(op0(b_, ctx_, code, vec![a, bb]).unwrap());
    }
    let one = b_
        .create_const(ctx_, Constant::Int(1), Some(DataType::Int32), "")
        .unwrap();
    rets.push(op0(b_, ctx_, Opcode::ScalarShl, vec![a, one]).unwrap());
    rets.push(
        op(
            b_,
            ctx_,
            Opcode::ScalarCast,
            vec![x],
            Attrs::new().with("dtype", Attr::Ident("int32".into())),
        )
        .unwrap(),
    );
    b_.create_return(ctx_, rets).unwrap();
    let m = finish(b, ctx);
    let call = |a: i32, b: i32, x: f64| {
        run(
            &m,
            f,
            &mut [HostValue::i32(a), HostValue::i32(b), HostValue::f64(x)],
        )
        .map(|r| r.iter().map(|v| v.as_i64().unwrap()).collect::<Vec<_>>())
    };
    assert_eq!(call(-7, 2, -2.9).unwrap(), vec![-5, -3, -1, -4, 1, -14, -2]);
    assert_eq!(
        call(7, -2, f64::NAN).unwrap(),
        vec![5, -3, 1, -4, -1, 14, 0]
    );
    let r = call(i32::MAX, 1, 1e20).unwrap();
    assert_eq!(r[0], i64::from(i32::MIN), "wrapping add");
    assert_eq!(r[5], i64::from(i32::MAX.wrapping_shl(1)), "wrapping shl");
    assert_eq!(r[6], i64::from(i32::MAX), "saturating float -> int `as`");
    let r = call(i32::MIN, -1, -1e20).unwrap();
    assert_eq!(r[1], i64::from(i32::MIN.wrapping_div(-1)), "wrapping div");
    assert_eq!(r[6], i64::from(i32::MIN));
    // Division by zero is total, as in the host code: quotient 0, remainder the dividend.
    let r = call(7, 0, 0.0).unwrap();
    assert_eq!((r[1], r[2], r[3], r[4]), (0, 7, 0, 7), "{r:?}");
}

// ----- other tile ops -----

#[test]
fn broadcast_transpose_extract_assemble() {
    let (mut b, mut ctx) = new();
    let x = b.new_value(tensor_ty(F32, st(&[4, 8])), "x");
    let rowv = b.new_value(tensor_ty(F32, st(&[4, 1])), "rv");
    let colv = b.new_value(tensor_ty(F32, st(&[1, 8])), "cv");
    let o1 = b.new_value(tensor_ty(F32, st(&[4, 8])), "o1");
    let o2 = b.new_value(tensor_ty(F32, st(&[8, 4])), "o2");
    let o3 = b.new_value(tensor_ty(F32, st(&[4, 8])), "o3");
    let f = start(
        vec![
            (x, Direction::In),
            (rowv, Direction::In),
            (colv, Direction::In),
            (o1, Direction::Out),
            (o2, Direction::Out),
            (o3, Direction::Out),
        ],
        vec![],
        &mut b,
        &mut ctx,
    );
    let (b_, ctx_) = (&mut b, &mut ctx);
    let z = [i(0), i(0)];
    let t = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![x],
        window(&[4, 8], z.to_vec()),
    )
    .unwrap();
    let r = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![rowv],
        window(&[4, 1], z.to_vec()),
    )
    .unwrap();
    let c = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![colv],
        window(&[1, 8], z.to_vec()),
    )
    .unwrap();
    // o1 = (r - t) * c  (row broadcast with the small operand first, then column broadcast)
    let d = op0(b_, ctx_, Opcode::TileSub, vec![r, t]).unwrap();
    let e = op0(b_, ctx_, Opcode::TileMul, vec![d, c]).unwrap();
    store(b_, ctx_, e, o1, z.to_vec()).unwrap();
    // o2 = transpose(t)
    let tt = op0(b_, ctx_, Opcode::TileTranspose, vec![t]).unwrap();
    store(b_, ctx_, tt, o2, z.to_vec()).unwrap();
    // o3 = zeros with t[1..3, 2..6] placed at [0, 4]
    let sub = op(
        b_,
        ctx_,
        Opcode::TileExtract,
        vec![t],
        window(&[2, 4], vec![i(1), i(2)]),
    )
    .unwrap();
    let base = full(b_, ctx_, 0.0, F32, &[4, 8]).unwrap();
    let asm = op(
        b_,
        ctx_,
        Opcode::TileAssemble,
        vec![sub, base],
        at(vec![i(0), i(4)]),
    )
    .unwrap();
    store(b_, ctx_, asm, o3, z.to_vec()).unwrap();
    let m = finish(b, ctx);
    let (xs, rs, cs) = (data(32, 10), data(4, 11), data(8, 12));
    let mut args = vec![
        tensor(F32, &[4, 8], xs.clone()),
        tensor(F32, &[4, 1], rs.clone()),
        tensor(F32, &[1, 8], cs.clone()),
        zeros(F32, &[4, 8]),
        zeros(F32, &[8, 4]),
        zeros(F32, &[4, 8]),
    ];
    run(&m, f, &mut args).unwrap();
    let f32v = |v: f64| v as f32;
    let mut w1 = vec![0.0; 32];
    let mut w2 = vec![0.0; 32];
    let mut w3 = vec![0.0; 32];
    for r in 0..4 {
        for c in 0..8 {
            w1[r * 8 + c] = f64::from((f32v(rs[r]) - f32v(xs[r * 8 + c])) * f32v(cs[c]));
            w2[c * 4 + r] = xs[r * 8 + c];
        }
    }
    for r in 0..2 {
        for c in 0..4 {
            w3[r * 8 + 4 + c] = xs[(r + 1) * 8 + 2 + c];
        }
    }
    assert_eq!(out_data(&args[3]), &w1[..]);
    assert_eq!(out_data(&args[4]), &w2[..]);
    assert_eq!(out_data(&args[5]), &w3[..]);
}

#[test]
fn tensor_level_view_add_assemble() {
    let (mut b, mut ctx) = new();
    let x = b.new_value(tensor_ty(F32, st(&[4, 8])), "x");
    let out = b.new_value(tensor_ty(F32, st(&[4, 8])), "out");
    let sig = Signature {
        params: vec![
            Param {
                value: x,
                direction: Direction::In,
            },
            Param {
                value: out,
                direction: Direction::InOut,
            },
        ],
        returns: vec![],
    };
    let f = b
        .create_function("orch", FunctionKind::ControlFlow, sig, true)
        .unwrap();
    b.enter_function_body(&mut ctx, f).unwrap();
    let (b_, ctx_) = (&mut b, &mut ctx);
    let view = op(
        b_,
        ctx_,
        Opcode::TensorView,
        vec![x],
        window(&[2, 4], vec![i(2), i(4)]),
    )
    .unwrap();
    let ten = cf(b_, ctx_, 10.0, F32).unwrap();
    let s = op0(b_, ctx_, Opcode::TensorAdd, vec![view, ten]).unwrap();
    let e = op0(b_, ctx_, Opcode::TensorNeg, vec![s]).unwrap();
    op(
        b_,
        ctx_,
        Opcode::TensorAssemble,
        vec![e, out],
        at(vec![i(0), i(0)]),
    )
    .unwrap();
    let m = finish(b, ctx);
    let xs = data(32, 13);
    let mut args = vec![
        tensor(F32, &[4, 8], xs.clone()),
        tensor(F32, &[4, 8], vec![5.0; 32]),
    ];
    run(&m, f, &mut args).unwrap();
    let mut want = vec![5.0; 32];
    for r in 0..2 {
        for c in 0..4 {
            want[r * 8 + c] = f64::from(-(xs[(r + 2) * 8 + 4 + c] as f32 + 10.0f32));
        }
    }
    assert_eq!(out_data(&args[1]), &want[..]);
}

// ----- errors -----

#[test]
fn out_of_range_windows_are_errors() {
    // A runtime offset past a static extent, and a store whose valid region leaves the tensor.
    let (mut b, mut ctx) = new();
    let x = b.new_value(tensor_ty(F32, st(&[4, 8])), "x");
    let n = b.new_scalar(I64, "N");
    let out = b.new_value(tensor_ty(F32, vec![Dim::Value(n), Dim::Const(8)]), "out");
    let off = b.new_scalar(I64, "off");
    let f = start(
        vec![
            (x, Direction::In),
            (out, Direction::Out),
            (off, Direction::In),
        ],
        vec![],
        &mut b,
        &mut ctx,
    );
    let (b_, ctx_) = (&mut b, &mut ctx);
    let t = op(
        b_,
        ctx_,
        Opcode::TileLoad,
        vec![x],
        window(&[2, 8], vec![v(off), i(0)]),
    )
    .unwrap();
    let z = full(b_, ctx_, 1.0, F32, &[2, 8]).unwrap();
    let s = op0(b_, ctx_, Opcode::TileAdd, vec![t, z]).unwrap();
    store(b_, ctx_, s, out, vec![v(off), i(0)]).unwrap();
    let m = finish(b, ctx);
    let run_with = |rows: usize, offset: i64| {
        let mut args = vec![
            zeros(F32, &[4, 8]),
            zeros(F32, &[rows, 8]),
            HostValue::i64(offset),
        ];
        run(&m, f, &mut args).map(|_| args)
    };
    // In range, and an edge tile: the load at row 3 has one valid row, so does the sum.
    let args = run_with(4, 3).unwrap();
    assert_eq!(&out_data(&args[1])[24..], &[1.0; 8][..]);
    let e = run_with(8, 4).unwrap_err();
    assert!(
        e.message.contains("tile.load") && e.message.contains("out of range"),
        "{e}"
    );
    // A store whose valid region reaches past the tensor writes only what fits.
    let args = run_with(2, 1).unwrap();
    assert_eq!(out_data(&args[1]), &[[0.0; 8], [1.0; 8]].concat()[..]);
    let e = run_with(4, -1).unwrap_err();
    assert!(e.message.contains("negative"), "{e}");
}

#[test]
fn tile_params_and_valid_rows_cols() {
    let t = HostTile::new(F32, vec![2, 3, 4], vec![0.0; 24]).unwrap();
    assert_eq!(t.valid_rows_cols(), Some((6, 4)));
    let mut p = t.clone();
    p.valid = vec![1, 3, 2];
    assert_eq!(p.valid_rows_cols(), Some((3, 2)));
    p.valid = vec![2, 2, 4];
    assert_eq!(p.valid_rows_cols(), None);
    assert!(HostTile::new(F32, vec![2, 2], vec![0.0; 3]).is_err());

    // A tile parameter: out = row_sum(t) as a 4 x 1 tensor.
    let (mut b, mut ctx) = new();
    let tp = b.new_value(Type::Tile(TileType::new(F32, vec![4, 4])), "t");
    let out = b.new_value(tensor_ty(F32, st(&[4, 1])), "out");
    let f = start(
        vec![(tp, Direction::In), (out, Direction::Out)],
        vec![],
        &mut b,
        &mut ctx,
    );
    let s = op0(&mut b, &mut ctx, Opcode::TileRowSum, vec![tp]).unwrap();
    store(&mut b, &mut ctx, s, out, vec![i(0), i(0)]).unwrap();
    let m = finish(b, ctx);
    let tile = HostTile::new(F32, vec![4, 4], (0..16).map(f64::from).collect()).unwrap();
    let mut args = vec![HostValue::Tile(tile), zeros(F32, &[4, 1])];
    run(&m, f, &mut args).unwrap();
    assert_eq!(out_data(&args[1]), &[6.0, 22.0, 38.0, 54.0][..]);
    let mut args = vec![
        HostValue::Tile(HostTile::zeros(F32, vec![4, 8])),
        zeros(F32, &[4, 1]),
    ];
    let e = run(&m, f, &mut args).unwrap_err();
    assert!(e.message.contains("parameter `t`"), "{e}");
}

// ----- programs from IR text -----

/// Seed 003's example 2, as text: tile-scalar arithmetic into an `#out` tile parameter and a
/// returned scalar.
const SEED003_EXAMPLE2: &str = r#"program.module @test_type_program {
  program.entry @test_type_complete
  attr arch = "PTOv2"
  attr tile_default = { M=16, N=16, K=16 }
  func.func @test_type_complete(%input_tile_1: tile<[16, 32], [16, 32], fp32> #in, %scale_4: fp32 #in, %output_tile_5: tile<[16, 32], [16, 32], fp32> #out) -> (fp64) {
    statement.op {
        %const_2_9 = 2.0 : fp64
        %const_3_10 = 3.0 : fp64
        %tile_mul_11 = tile.OP_MUL %input_tile_1, %scale_4 : (tile<[16, 32], [16, 32], fp32>, fp32) -> tile<[16, 32], [16, 32], fp32>
        %tile_add_14 = tile.OP_ADD %tile_mul_11, %const_2_9 : (tile<[16, 32], [16, 32], fp32>, fp64) -> tile<[16, 32], [16, 32], fp32>
        %tile_sub_17 = tile.OP_SUB %tile_add_14, %const_3_10 : (tile<[16, 32], [16, 32], fp32>, fp64) -> tile<[16, 32], [16, 32], fp32>
        %tile_div_20 = tile.OP_DIV %tile_sub_17, %scale_4 : (tile<[16, 32], [16, 32], fp32>, fp32) -> tile<[16, 32], [16, 32], fp32>
        %output_tile_21 = tile.assemble %tile_div_20, %output_tile_5 : (tile<[16, 32], [16, 32], fp32>, tile<[16, 32], [16, 32], fp32>) -> tile<[16, 32], [16, 32], fp32> {offset=[0, 0]}
        %scalar1_23 = 10.5 : fp64
        %scalar2_24 = 5.2 : fp64
        %scalar_add_25 = tensor.OP_SCALAR_ADD %scalar1_23, %scalar2_24 : (fp64, fp64) -> fp64
        %scalar_mul_26 = tensor.OP_SCALAR_MUL %scalar_add_25, %const_2_9 : (fp64, fp64) -> fp64
    }
    statement.return %scalar_mul_26
  }
  // func.kind = kernel

}
"#;

#[test]
fn parsed_seed_example_runs() {
    let m = pto_ir::parse(SEED003_EXAMPLE2).unwrap_or_else(|d| panic!("{d}"));
    pto_ir::verify(&m).unwrap_or_else(|d| panic!("{d}"));
    let f = m.entry.unwrap();
    let xs = data(16 * 32, 14);
    let input = HostTile::new(F32, vec![16, 32], xs.clone()).unwrap();
    let mut args = vec![
        HostValue::Tile(input),
        HostValue::f32(4.0),
        HostValue::Tile(HostTile::zeros(F32, vec![16, 32])),
    ];
    let rets = run(&m, f, &mut args).unwrap();
    assert_eq!(rets[0].as_f64(), Some((10.5 + 5.2) * 2.0));
    let want: Vec<f64> = xs
        .iter()
        .map(|&x| f64::from(((x as f32 * 4.0 + 2.0) - 3.0) / 4.0))
        .collect();
    assert_eq!(args[2].as_tile().unwrap().data, want);
}

#[test]
fn printed_and_parsed_kernel_runs_the_same() {
    let (m, f) = scale_rows();
    let text = m.to_string();
    let parsed = pto_ir::parse(&text).unwrap_or_else(|d| panic!("{d}\n{text}"));
    pto_ir::verify(&parsed).unwrap_or_else(|d| panic!("{d}\n{text}"));
    let pf = parsed.function_by_name("k").unwrap();
    let xs = data(3 * 128, 15);
    let mut a = vec![
        tensor(F32, &[3, 128], xs.clone()),
        HostValue::f32(-1.5),
        zeros(F32, &[3, 128]),
    ];
    let mut b = a.clone();
    run(&m, f, &mut a).unwrap();
    run(&parsed, pf, &mut b).unwrap();
    assert_eq!(a, b);
}
