use pto::prelude::*;

/// out[b, :] = x[b, :] * scale * 3.14, one row at a time.
#[pto::kernel]
pub fn scale_rows(x: &Tensor<f32, B, 128>, scale: f32, out: &mut Tensor<f32, B, 128>) {
    for b in 0..B {
        let row = x.load::<1, 128>([b, 0]);
        let y = row * scale * 3.14;
        out.store([b, 0], y);
    }
}

fn main() -> Result<(), pto::Error> {
    let x = pto::Tensor::<f32>::from_vec(vec![1.0; 4 * 128], [4, 128])?;
    let mut out = pto::Tensor::<f32>::zeros([4, 128]);
    let host: fn(&pto::Tensor<f32>, f32, &mut pto::Tensor<f32>) -> Result<(), pto::Error> =
        scale_rows;
    // The lowering may not be in yet: then the host function says so, it never fakes a result.
    match host(&x, 2.0, &mut out) {
        Ok(()) => {}
        Err(pto::Error::Unsupported(_)) => {
            assert!(scale_rows::LOWERED.starts_with("// lowering not available"))
        }
        Err(e) => return Err(e),
    }
    assert!(scale_rows::IR.contains("func.func @scale_rows(%x_0: tensor<[%B_1, 128], fp32> #in"));
    assert!(scale_rows::IR.contains("tile.load"));
    assert_eq!(scale_rows::program().name, "scale_rows");
    Ok(())
}
