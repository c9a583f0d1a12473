//! Masks (issue 16 part A) in IR text: the lowering refuses an op that does not know a
//! mask's packed layout, and a comparison with the scalar on the left turns round.

fn module(body: &str) -> pto_ir::ProgramModule {
    let text = format!(
        r#"program.module @k {{
  program.entry @k
  func.func @k(%x_0: tensor<[16, 64], fp32> #in, %s_9: fp32, %y_1: tensor<[16, 64], fp32> #out) {{
    statement.op {{
      %t_2 = tile.load %x_0 : (tensor<[16, 64], fp32>) -> tile<[16, 64], [16, 64], fp32> {{shape=[16, 64], offset=[0, 0]}}
{body}
    }}
    statement.return
  }}
  // func.kind = kernel
}}
"#
    );
    let m = pto_ir::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    pto_ir::verify(&m).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m
}

#[test]
fn an_op_that_does_not_know_the_mask_layout_is_refused() {
    let m = module(
        "      %m_3 = tile.gt %t_2, %s_9 : (tile<[16, 64], [16, 64], fp32>, fp32) -> tile<[16, 64], [16, 64], bool>
      %e_4 = tile.extract %m_3 : (tile<[16, 64], [16, 64], bool>) -> tile<[16, 32], [16, 32], bool> {shape=[16, 32], offset=[0, 32]}
      %n_5 = tile.full %s_9 : (fp32) -> tile<[16, 32], [16, 32], fp32> {shape=[16, 32], dtype=fp32}
      %r_6 = tile.select %e_4, %n_5, %s_9 : (tile<[16, 32], [16, 32], bool>, tile<[16, 32], [16, 32], fp32>, fp32) -> tile<[16, 32], [16, 32], fp32>
      tile.store %r_6, %y_1 : (tile<[16, 32], [16, 32], fp32>, tensor<[16, 64], fp32>) -> () {offset=[0, 0]}",
    );
    let e = match pto_lower::lower_kernel(&m, m.entry.unwrap()) {
        Ok(_) => panic!("an extract of a mask was lowered"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("`tile.extract` cannot take or give a mask"),
        "{e}"
    );
}

#[test]
fn a_scalar_on_the_left_compares_the_other_way_round() {
    let m = module(
        "      %m_3 = tile.lt %s_9, %t_2 : (fp32, tile<[16, 64], [16, 64], fp32>) -> tile<[16, 64], [16, 64], bool>
      %r_4 = tile.select %m_3, %t_2, %s_9 : (tile<[16, 64], [16, 64], bool>, tile<[16, 64], [16, 64], fp32>, fp32) -> tile<[16, 64], [16, 64], fp32>
      tile.store %r_4, %y_1 : (tile<[16, 64], [16, 64], fp32>, tensor<[16, 64], fp32>) -> () {offset=[0, 0]}",
    );
    let cpp = pto_lower::compile(&m, m.entry.unwrap()).unwrap().cpp;
    assert!(cpp.contains("CmpMode::GT);"), "{cpp}");
    assert!(cpp.contains("TSELS("), "{cpp}");
}
