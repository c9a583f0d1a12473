//! Seed 001's example built through the IRBuilder prints a program of the shape of seed 003's
//! example 1, verifies, and survives print -> parse -> print.

use expect_test::expect;
use pto_ir::{
    Attr, DataType, Dim, Direction, FunctionKind, IRBuilder, IRBuilderContext, Opcode, Param,
    ProgramModule, Signature, TensorFormat, TensorType, Type,
};

fn seed_001() -> ProgramModule {
    let mut module = ProgramModule::new("main");
    module.attrs.set("arch", Attr::Str("PTOv2".into()));
    module.attrs.set("enable_debug", Attr::Bool(true));
    module.attrs.set(
        "tile_default",
        Attr::Map(vec![
            ("M".into(), Attr::Int(16)),
            ("N".into(), Attr::Int(16)),
            ("K".into(), Attr::Int(16)),
        ]),
    );
    let mut builder = IRBuilder::new(module);
    let batch = builder.new_scalar(DataType::Int64, "b");
    let shape = vec![Dim::Value(batch), Dim::Const(128)];
    let tensor = Type::Tensor(TensorType {
        dtype: DataType::Fp32,
        shape: shape.clone().into(),
        format: TensorFormat::Nd,
    });
    let input = builder.new_value(tensor.clone(), "input");
    let scale1 = builder.new_scalar(DataType::Fp32, "scale1");
    let result = builder.new_value(tensor, "output");
    let sig = Signature {
        params: vec![
            Param {
                value: input,
                direction: Direction::In,
            },
            Param {
                value: scale1,
                direction: Direction::In,
            },
            Param {
                value: result,
                direction: Direction::Out,
            },
        ],
        returns: vec![],
    };
    let func = builder
        .create_function("test_value", FunctionKind::ControlFlow, sig, true)
        .unwrap();
    let mut ctx = IRBuilderContext::new();
    builder.enter_function_body(&mut ctx, func).unwrap();
    let mul_val1 = builder
        .create_tensor(&ctx, shape.clone(), DataType::Fp32, "mul1_res")
        .unwrap();
    let mul_op1 = builder
        .create_binary_op(Opcode::TensorMul, input, scale1, mul_val1)
        .unwrap();
    builder.emit(&mut ctx, mul_op1).unwrap();
    let pi = builder
        .create_const_f64(&mut ctx, 3.14, "const_pi")
        .unwrap();
    let mul_val2 = builder
        .create_tensor(&ctx, shape, DataType::Fp32, "output")
        .unwrap();
    let mul_op2 = builder
        .create_binary_op(Opcode::TensorMul, mul_val1, pi, mul_val2)
        .unwrap();
    builder.emit(&mut ctx, mul_op2).unwrap();
    builder.create_return(&mut ctx, vec![]).unwrap();
    ctx.pop_scope().unwrap();
    builder.finish(&ctx).unwrap()
}

#[test]
fn seed_001_example_prints_like_seed_003_example_1() {
    let m = seed_001();
    pto_ir::verify(&m).unwrap();
    let text = m.to_string();
    expect![[r#"
        program.module @main {
          program.entry @test_value
          attr arch = "PTOv2"
          attr enable_debug = true
          attr tile_default = { M=16, N=16, K=16 }
          func.func @test_value(%input_1: tensor<[%b_0, 128], fp32> #in, %scale1_2: fp32, %output_3: tensor<[%b_0, 128], fp32> #out) {
            statement.op {
              %mul1_res_4 = tensor.mul %input_1, %scale1_2 : (tensor<[%b_0, 128], fp32>, fp32) -> tensor<[%b_0, 128], fp32>
              %const_pi_5 = 3.14 : fp64
              %output_6 = tensor.mul %mul1_res_4, %const_pi_5 : (tensor<[%b_0, 128], fp32>, fp64) -> tensor<[%b_0, 128], fp32>
            }
            statement.return
          }
          // func.kind = control_flow
        }
    "#]]
    .assert_eq(&text);
    let parsed = pto_ir::parse(&text).unwrap();
    assert_eq!(parsed.to_string(), text);
    assert!(pto_ir::structurally_equal(&m, &parsed));
}
