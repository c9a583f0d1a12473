//! fp64 tiles on the targets. No pto-isa instruction computes on `double` (A2A3 or A5), so
//! a kernel computing on fp64 tiles is a compile error at the op on both targets (the
//! verifier's rule; pto-ir's `target_fp64.pto`), while one that only moves fp64 data
//! (loads and stores) is legal and runs in the C++ model, exactly, on A2A3 and A5. The
//! interpreter still computes fp64 tiles in double, as the semantics module says.
#![allow(clippy::unwrap_used)]

use pto::ir::DataType;
use pto::prelude::*;
use pto_lower::interp::{HostValue, run};

mod support;

/// fp64 rows copied 16 at a time, the last window ragged: only data movement.
#[pto::kernel]
pub fn copy_f64(x: &Tensor<f64, R, 16>, #[out] y: &mut Tensor<f64, R, 16>) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 16>([r, 0]);
        y.store([r, 0], t);
    }
}

#[test]
fn fp64_data_movement_runs_in_the_cpp_model_exactly() {
    let m = copy_f64::program();
    let model = || {
        support::model::Model::new("copy_f64", &m, vec![vec![("R", 32)], vec![("R", 37)]])
            .tolerance(0.0)
    };
    let mut problems = model().against_host(|t| copy_f64(&t.tensor(0), &mut t.out::<f64>(1)));
    problems.extend(model().against_interpreter());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `y = ((x + 1e-9) - x) * 1e9`, on one 16 x 16 fp64 tile: what `fine_f64` computed in the
/// model before fp64 arithmetic became a compile error (its C++ used `TPARTMUL` on double
/// tiles, which pto-isa does not have).
const FINE_F64: &str = r#"program.module @fine_f64 {
  program.entry @k
  ARCH
  func.func @k(%x_1: tensor<[16, 16], fp64> #in, %y_2: tensor<[16, 16], fp64> #out) {
    statement.op {
      %e_3 = 1.0e-9 : fp64
      %g_4 = 1.0e9 : fp64
      %t_5 = tile.load %x_1 : (tensor<[16, 16], fp64>) -> tile<[16, 16], [16, 16], fp64> {shape=[16, 16], offset=[0, 0]}
      %a_6 = tile.add %t_5, %e_3 : (tile<[16, 16], [16, 16], fp64>, fp64) -> tile<[16, 16], [16, 16], fp64>
      %b_7 = tile.sub %a_6, %t_5 : (tile<[16, 16], [16, 16], fp64>, tile<[16, 16], [16, 16], fp64>) -> tile<[16, 16], [16, 16], fp64>
      %c_8 = tile.mul %b_7, %g_4 : (tile<[16, 16], [16, 16], fp64>, fp64) -> tile<[16, 16], [16, 16], fp64>
      tile.store %c_8, %y_2 : (tile<[16, 16], [16, 16], fp64>, tensor<[16, 16], fp64>) -> () {offset=[0, 0]}
    }
    statement.return
  }
}
"#;

#[test]
fn fp64_arithmetic_is_refused_on_both_targets_and_interpreted_in_double() {
    for arch in ["", "attr arch = \"A5\""] {
        let m = pto::ir::parse(&FINE_F64.replace("ARCH", arch)).unwrap();
        let e = pto::ir::verify(&m).unwrap_err();
        let target = if arch.is_empty() { "A2A3" } else { "A5" };
        let msgs: Vec<&str> = e.iter().map(|d| d.message.as_str()).collect();
        for (op, surface, inst) in [
            ("tile.add", "a + b", "TADDS"),
            ("tile.sub", "a - b", "TSUB"),
            ("tile.mul", "a * b", "TMULS"),
        ] {
            let want = format!(
                "{op}: `{surface}` on fp64 tiles is not legal on {target}: its {inst} takes "
            );
            assert!(msgs.iter().any(|m| m.starts_with(&want)), "{want}: {e}");
        }
        let fp64_note = "no target computes on (or converts) fp64 tiles";
        assert!(
            e.iter()
                .all(|d| d.notes.iter().any(|n| n.contains(fp64_note))),
            "{e}"
        );
        assert_eq!(msgs.len(), 3, "{e}");
        // The interpreter computes in double: `(x + 1e-9) - x` keeps its low bits (through
        // `float` it would be 0).
        let x: Vec<f64> = (0..256).map(|k| 0.25 + k as f64 / 512.0).collect();
        let mut args = vec![
            HostValue::tensor(DataType::Fp64, vec![16, 16], x.clone()).unwrap(),
            HostValue::tensor(DataType::Fp64, vec![16, 16], vec![0.0; 256]).unwrap(),
        ];
        run(&m, m.entry.unwrap(), &mut args).unwrap();
        let y = &args[1].as_tensor().unwrap().data;
        for (a, b) in x.iter().zip(y) {
            assert_eq!(*b, ((a + 1.0e-9) - a) * 1.0e9);
            assert!((b - 1.0).abs() < 1e-6, "{b}");
        }
    }
}
