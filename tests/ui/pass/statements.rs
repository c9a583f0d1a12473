use pto::prelude::*;

/// Every statement form: let / let mut / shadowing, assignment and compound assignment,
/// `for` over a range, `step_by` and `range`, `while` with `break` / `continue`, `if` /
/// `else if` / `else`, `if` as a value, and a scalar tail expression.
#[pto::kernel(control_flow)]
pub fn statements(n: i64, scale: f32, flag: bool) -> f32 {
    let mut acc = 0.0f32;
    let mut count = 0;
    for i in 0..n {
        let x = i as f32;
        let x = x * scale;
        acc += x;
        count += 1;
    }
    for i in (0..n).step_by(2) {
        if i == 4 {
            continue;
        }
        acc -= 1.0;
    }
    for _ in range(0, n, 3) {
        acc *= 1.5;
    }
    let mut k = 0;
    while k < n {
        k = k + 1;
        if k > 100 {
            break;
        }
    }
    let sign: f32 = if acc > 0.0 {
        1.0
    } else if acc < 0.0 {
        -1.0
    } else {
        0.0
    };
    let bonus = if flag && !(count == 0) || k >= 3 {
        max(scale, 2.0)
    } else {
        min(scale, -scale)
    };
    acc / 2.0 + sign + bonus + (count % 3) as f32
}

/// Tile operations: constructors, unary ops, casts, transpose, extract, valid, scalars on
/// either side.
#[pto::kernel(arch = "PTOv2")]
pub fn tiles(
    x: &Tensor<f32, 16, 16>,
    m: i64,
    #[out] y: &mut Tensor<f16, 16, 16>,
    acc: &mut Tensor<f32, 8, 8>,
) {
    let t = x.load::<16, 16>([0, 0]);
    let z = Tile::<f32, 16, 16>::full(2.0) + Tile::<f32, 16, 16>::zeros();
    let u = (-t).abs().exp().log().sqrt().rsqrt().recip().relu();
    let v = 2.0 * u - z / 3.0 + t.max(z).min(1.0);
    let w = v.transpose().valid([m, 16]);
    y.store([0, 0], w.cast::<f16>());
    let e = t.extract::<8, 8>([8, 0]);
    acc.store([0, 0], e);
}

fn main() {
    assert!(statements::IR.contains("statement.while"));
    assert!(statements::IR.contains("// func.kind = control_flow"));
    assert!(tiles::IR.contains("tile.transpose"));
    let _: fn(i64, f32, bool) -> Result<f32, pto::Error> = statements;
    let _: fn(
        &pto::Tensor<f32>,
        i64,
        &mut pto::Tensor<pto::f16>,
        &mut pto::Tensor<f32>,
    ) -> Result<(), pto::Error> = tiles;
}
