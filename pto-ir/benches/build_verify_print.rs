//! Builds, verifies and prints a generated kernel of N ops (1k to 10k), to show the cost of
//! each stage and how it grows. Run with `cargo bench -p pto-ir`.

use divan::Bencher;
use pto_ir::{
    Attr, Attrs, Constant, DataType, Dim, Direction, ForKind, FunctionKind, IRBuilder,
    IRBuilderContext, Opcode, Param, ProgramModule, Signature, TensorFormat, TensorType, Type,
};

fn main() {
    divan::main();
}

const SIZES: [usize; 4] = [1_000, 2_000, 5_000, 10_000];

/// A kernel with `n` ops: chunks of 100 elementwise ops on a loaded row inside loops of a
/// symbolic extent, each chunk storing its result.
pub fn generate(n: usize) -> ProgramModule {
    let mut b = IRBuilder::new(ProgramModule::new("bench"));
    let rows = b.new_scalar(DataType::Int64, "B");
    let tensor = Type::Tensor(TensorType {
        dtype: DataType::Fp32,
        shape: [Dim::Value(rows), Dim::Const(128)].into(),
        format: TensorFormat::Nd,
    });
    let x = b.new_value(tensor.clone(), "x");
    let s = b.new_scalar(DataType::Fp32, "s");
    let out = b.new_value(tensor, "out");
    let sig = Signature {
        params: vec![
            Param {
                value: x,
                direction: Direction::In,
            },
            Param {
                value: s,
                direction: Direction::In,
            },
            Param {
                value: out,
                direction: Direction::Out,
            },
        ],
        returns: vec![],
    };
    let f = b
        .create_function("k", FunctionKind::Kernel, sig, true)
        .expect("fresh module");
    let mut ctx = IRBuilderContext::new();
    b.enter_function_body(&mut ctx, f).expect("function exists");
    let mut made = 0;
    while made < n {
        let lb = b
            .create_const(&mut ctx, Constant::Int64(0), None, "")
            .expect("in body");
        let st = b
            .create_const(&mut ctx, Constant::Int64(1), None, "")
            .expect("in body");
        let iv = b.new_scalar(DataType::Int64, "r");
        b.for_loop(
            &mut ctx,
            iv,
            lb,
            rows,
            st,
            ForKind::Sequential,
            |b, ctx, r| {
                let zero = b.create_const(ctx, Constant::Int64(0), None, "")?;
                let offset = Attr::List(vec![Attr::Value(r), Attr::Value(zero)]);
                let load = Attrs::new()
                    .with("shape", Attr::ints(&[1, 128]))
                    .with("offset", offset.clone());
                let mut t = b
                    .build_op(ctx, Opcode::TileLoad, vec![x], load, "row")?
                    .unwrap_or(x);
                for i in 0..96 {
                    let op = if i % 2 == 0 {
                        Opcode::TileMul
                    } else {
                        Opcode::TileAdd
                    };
                    t = b
                        .build_op(ctx, op, vec![t, s], Attrs::new(), "")?
                        .unwrap_or(t);
                }
                b.build_op(
                    ctx,
                    Opcode::TileStore,
                    vec![t, out],
                    Attrs::new().with("offset", offset),
                    "",
                )?;
                Ok(())
            },
        )
        .expect("well-formed loop");
        made += 100;
    }
    ctx.pop_scope().expect("balanced");
    b.finish(&ctx).expect("balanced")
}

#[divan::bench(args = SIZES)]
fn build(n: usize) -> ProgramModule {
    generate(n)
}

#[divan::bench(args = SIZES)]
fn verify(bencher: Bencher, n: usize) {
    let m = generate(n);
    bencher.bench(|| pto_ir::verify(&m).is_ok());
}

#[divan::bench(args = SIZES)]
fn print(bencher: Bencher, n: usize) {
    let m = generate(n);
    bencher.bench(|| m.to_string().len());
}

#[divan::bench(args = SIZES)]
fn build_verify_print(n: usize) -> usize {
    let m = generate(n);
    let ok = pto_ir::verify(&m).is_ok();
    m.to_string().len() + usize::from(ok)
}
