//! Seed 003's two example programs parse as written, print to a fixed point, and re-parse
//! to a structurally equal module.

use pto_ir::eq::structural_hash;
use pto_ir::{DataType, FunctionKind, Type, ValueDef, parse, structurally_equal};

const EXAMPLE1: &str = include_str!("files/seed003_example1.pto");
const EXAMPLE2: &str = include_str!("files/seed003_example2.pto");

fn parse_ok(text: &str) -> pto_ir::ProgramModule {
    match parse(text) {
        Ok(m) => m,
        Err(e) => panic!("parse failed:\n{e}"),
    }
}

fn check_round_trip(text: &str) {
    let m = parse_ok(text);
    let printed = m.to_string();
    let m2 = parse_ok(&printed);
    let reprinted = m2.to_string();
    assert_eq!(printed, reprinted, "print(parse(x)) is not a fixed point");
    assert!(
        structurally_equal(&m, &m2),
        "parse(print(m)) differs from m:\n{printed}"
    );
    assert_eq!(structural_hash(&m), structural_hash(&m2));
}

#[test]
fn example1_parses_as_written() {
    let m = parse_ok(EXAMPLE1);
    assert_eq!(m.name, "main");
    let f = m.entry.expect("entry");
    let func = &m.funcs[f];
    assert_eq!(func.name, "test_value");
    assert_eq!(func.kind, FunctionKind::ControlFlow);
    assert_eq!(func.sig.params.len(), 4);
    // `%b_1` is a symbolic dimension of the function.
    assert_eq!(func.dims.len(), 1);
    let b = &m.values[func.dims[0]];
    assert_eq!(b.ssa_name(), "%b_1");
    assert_eq!(b.ty, Type::Scalar(DataType::Int64));
    assert_eq!(b.def, ValueDef::Dim(f));
    // `%const_pi_13` is used but never defined: typed from the literal in the type list.
    let pi = m
        .values
        .iter()
        .find(|(_, d)| d.ssa_name() == "%const_pi_13")
        .expect("pi")
        .1;
    assert_eq!(pi.ty, Type::Scalar(DataType::Fp64));
    assert_eq!(pi.def, ValueDef::Free);
    assert_eq!(m.ops.len(), 4);
    assert_eq!(m.attrs.0.len(), 3);
}

#[test]
fn example2_parses_as_written() {
    let m = parse_ok(EXAMPLE2);
    assert_eq!(m.name, "test_type_program");
    let func = &m.funcs[m.entry.expect("entry")];
    assert_eq!(func.kind, FunctionKind::Kernel);
    assert_eq!(func.sig.returns, vec![Type::Scalar(DataType::Fp64)]);
    assert_eq!(m.ops.len(), 11);
    assert_eq!(m.attrs.0.len(), 4);
    let consts = m
        .values
        .iter()
        .filter(|(_, d)| d.constant.is_some())
        .count();
    assert_eq!(consts, 4);
    // Every op result is defined by its op.
    for (id, op) in m.ops.iter() {
        for (i, &r) in op.results.iter().enumerate() {
            assert_eq!(m.values[r].def, ValueDef::OpResult(id, i as u32));
        }
    }
}

#[test]
fn example2_verifies() {
    let m = parse_ok(EXAMPLE2);
    if let Err(e) = pto_ir::verify(&m) {
        panic!("seed 003 example 2 must verify:\n{e}");
    }
}

#[test]
fn example1_round_trips() {
    check_round_trip(EXAMPLE1);
}

#[test]
fn example2_round_trips() {
    check_round_trip(EXAMPLE2);
}

#[test]
fn example2_prints_canonically() {
    let printed = parse_ok(EXAMPLE2).to_string();
    let expected = "\
program.module @test_type_program {
  program.entry @test_type_complete
  attr arch = \"PTOv2\"
  attr enable_debug = true
  attr test_type = \"tile_scalar_only\"
  attr tile_default = { M=16, N=16, K=16 }
  func.func @test_type_complete(%input_tile_1: tile<[16, 32], [16, 32], fp32> #in, %scale_4: fp32, %output_tile_5: tile<[16, 32], [16, 32], fp32> #out) -> (fp64) {
    statement.op {
      %const_2_9 = 2.0 : fp64
      %const_3_10 = 3.0 : fp64
      %tile_mul_11 = tile.mul %input_tile_1, %scale_4 : (tile<[16, 32], [16, 32], fp32>, fp32) -> tile<[16, 32], [16, 32], fp32>
      %tile_add_14 = tile.add %tile_mul_11, %const_2_9 : (tile<[16, 32], [16, 32], fp32>, fp64) -> tile<[16, 32], [16, 32], fp32>
      %tile_sub_17 = tile.sub %tile_add_14, %const_3_10 : (tile<[16, 32], [16, 32], fp32>, fp64) -> tile<[16, 32], [16, 32], fp32>
      %tile_div_20 = tile.div %tile_sub_17, %scale_4 : (tile<[16, 32], [16, 32], fp32>, fp32) -> tile<[16, 32], [16, 32], fp32>
      %output_tile_21 = tile.assemble %tile_div_20, %output_tile_5 : (tile<[16, 32], [16, 32], fp32>, tile<[16, 32], [16, 32], fp32>) -> tile<[16, 32], [16, 32], fp32> {offset=[0, 0]}
      %scalar1_23 = 10.5 : fp64
      %scalar2_24 = 5.2 : fp64
      %scalar_add_25 = scalar.add %scalar1_23, %scalar2_24 : (fp64, fp64) -> fp64
      %scalar_mul_26 = scalar.mul %scalar_add_25, %const_2_9 : (fp64, fp64) -> fp64
    }
    statement.return %scalar_mul_26
  }
  // func.kind = kernel
}
";
    assert_eq!(printed, expected);
}

#[test]
fn a_symbolic_dimension_of_any_integer_dtype_round_trips() {
    // Seed 001's example with an INT32 symbolic dimension: the types only name `%b_1`, so
    // its dtype is recorded after the function kind and read back.
    for dtype in [DataType::Int32, DataType::Int16, DataType::UInt64] {
        let mut m = parse_ok(EXAMPLE1);
        let f = m.entry.expect("entry");
        let dims = m.funcs[f].dims.clone();
        assert!(!dims.is_empty(), "the example has a symbolic dimension");
        for &d in &dims {
            m.values[d].ty = Type::Scalar(dtype);
        }
        let printed = m.to_string();
        assert!(
            printed.contains(&format!(" : {}\n", dtype.name())),
            "{printed}"
        );
        let m2 = parse_ok(&printed);
        assert!(
            structurally_equal(&m, &m2),
            "{dtype}: not equal after a round trip:\n{printed}"
        );
        assert_eq!(m2.to_string(), printed);
    }
    // An unknown dtype there is a parse error with a position.
    let bad = parse_ok(EXAMPLE1).to_string().replace(
        "// func.kind = control_flow",
        "// func.kind = control_flow, dim %b_1 : float9",
    );
    assert!(bad.contains("float9"), "{bad}");
    let e = parse(&bad).unwrap_err().to_string();
    assert!(
        e.contains("`float9` is not an integer dtype for `%b_1`"),
        "{e}"
    );
}
