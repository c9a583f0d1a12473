//! Tile compute ops: elementwise binaries with broadcasts, and the matmul family.

use super::*;
use pto_ir::sem::MatmulStep;

impl Interp<'_> {
    /// Tile-tile (same shape, or `R x C` with an `R x 1` / `1 x C` broadcast), tile-scalar
    /// and scalar-tile elementwise ops, over the meet of the valid regions.
    pub(super) fn tile_binary(&self, fr: &Frame, op: &Operation) -> R<HostTile> {
        let (va, vb) = (self.operand(op, 0)?, self.operand(op, 1)?);
        let (ra, rb) = (self.get(fr, va)?, self.get(fr, vb)?);
        let code = op.opcode;
        match (&ra, &rb) {
            (Rt::Tile(a), Rt::Tile(b)) => {
                if a.dtype != b.dtype {
                    return err(format!(
                        "operands have different dtypes: {} and {}",
                        a.dtype, b.dtype
                    ));
                }
                if a.shape == b.shape {
                    let partial = accumulates(code);
                    let valid = if partial {
                        join(&a.valid, &b.valid)
                    } else {
                        meet(&a.valid, &b.valid)
                    };
                    let mut out = blank_tile(a.dtype, a.shape.clone(), valid.clone());
                    for_each_index(&valid, |idx| {
                        let i = at(&a.shape, idx)?;
                        out.data[i] = match (inside(idx, &a.valid), inside(idx, &b.valid)) {
                            (true, true) => elem_binary(code, a.dtype, a.data[i], b.data[i])?,
                            (true, false) => a.data[i],
                            (false, true) => b.data[i],
                            (false, false) => 0.0,
                        };
                        Ok(())
                    })?;
                    return Ok(out);
                }
                let a_big = a.data.len() >= b.data.len();
                let (big, small) = if a_big { (a, b) } else { (b, a) };
                let (r, c) = require_rank2(big, "the broadcast operand")?;
                let row = small.shape == [r, 1];
                if !row && small.shape != [1, c] {
                    return err(format!(
                        "operands have different shapes: {} and {}",
                        shape_str(&a.shape),
                        shape_str(&b.shape)
                    ));
                }
                let valid = if row {
                    vec![big.valid[0].min(small.valid[0]), big.valid[1]]
                } else {
                    vec![big.valid[0], big.valid[1].min(small.valid[1])]
                };
                let mut out = blank_tile(a.dtype, big.shape.clone(), valid.clone());
                for_each_index(&valid, |idx| {
                    let i = at(&big.shape, idx)?;
                    let s = if row { [idx[0], 0] } else { [0, idx[1]] };
                    let (x, y) = (big.data[i], small.data[at(&small.shape, &s)?]);
                    let (x, y) = if a_big { (x, y) } else { (y, x) };
                    out.data[i] = elem_binary(code, a.dtype, x, y)?;
                    Ok(())
                })?;
                Ok(out)
            }
            (Rt::Tile(t), Rt::Scalar(s)) | (Rt::Scalar(s), Rt::Tile(t)) => {
                let tile_first = matches!(ra, Rt::Tile(_));
                // The scalar takes the tile's dtype first (TADDS and friends take a `T`).
                let y = scalar_cast(*s, t.dtype)?.as_f64();
                let mut out = blank_tile(t.dtype, t.shape.clone(), t.valid.clone());
                for_each_index(&t.valid, |idx| {
                    let i = at(&t.shape, idx)?;
                    let (p, q) = if tile_first {
                        (t.data[i], y)
                    } else {
                        (y, t.data[i])
                    };
                    out.data[i] = elem_binary(code, t.dtype, p, q)?;
                    Ok(())
                })?;
                Ok(out)
            }
            _ => err(format!(
                "needs a tile operand, found a {} and a {}",
                kind(&ra),
                kind(&rb)
            )),
        }
    }

    /// `matmul`, `matmul_acc`, `matmul_bias`: `m x n` over a's valid rows and columns and
    /// b's valid columns, each element a chain of the semantics module's matmul steps in `k`
    /// order in the accumulator dtype (fused multiply-adds in fp32, wrapping in int32).
    pub(super) fn matmul(&self, fr: &Frame, op: &Operation) -> R<HostTile> {
        let class = op.opcode.class();
        let first = usize::from(class == OpClass::MatmulAcc);
        let a = self.tile(fr, self.operand(op, first)?)?;
        let b = self.tile(fr, self.operand(op, first + 1)?)?;
        let (rows, ka) = require_rank2(a, "the left operand")?;
        let (kb, cols) = require_rank2(b, "the right operand")?;
        if ka != kb {
            return err(format!(
                "inner dimensions differ: M x K = {rows} x {ka} and K' x N = {kb} x {cols}"
            ));
        }
        if a.dtype != b.dtype {
            return err(format!(
                "operands have different dtypes: {} and {}",
                a.dtype, b.dtype
            ));
        }
        let acc = matmul_acc_dtype(a.dtype)
            .ok_or_else(|| InterpError::new(format!("matmul does not take {} inputs", a.dtype)))?;
        let (m, k, n) = (a.valid[0], a.valid[1], b.valid[1]);
        if b.valid[0] < k {
            return err(format!(
                "the left operand has {k} valid columns but the right operand only {} valid rows",
                b.valid[0]
            ));
        }
        let shape = vec![rows, cols];
        let mut valid = vec![m, n];
        let mut out = blank_tile(acc, shape.clone(), valid.clone());
        match class {
            OpClass::MatmulAcc => {
                let c = self.tile(fr, self.operand(op, 0)?)?;
                if c.shape != shape || c.dtype != acc {
                    return err(format!(
                        "the accumulator is {} {}, expected {} {acc}",
                        shape_str(&c.shape),
                        c.dtype,
                        shape_str(&shape)
                    ));
                }
                // The product is added where it lies; the accumulator keeps the rest.
                valid = join(&valid, &c.valid);
                out = blank_tile(acc, shape.clone(), valid.clone());
                for_each_index(&valid, |idx| {
                    let i = at(&shape, idx)?;
                    out.data[i] = if inside(idx, &c.valid) {
                        c.data[i]
                    } else {
                        0.0
                    };
                    Ok(())
                })?;
            }
            OpClass::MatmulBias => {
                let bias = self.tile(fr, self.operand(op, 2)?)?;
                if bias.shape != [1, cols] {
                    return err(format!(
                        "the bias is {}, expected 1 x {cols}",
                        shape_str(&bias.shape)
                    ));
                }
                if bias.valid[0] < 1 || bias.valid[1] < n {
                    return err(format!(
                        "the bias has valid region {}, the product needs 1 x {n}",
                        shape_str(&bias.valid)
                    ));
                }
                for j in 0..n {
                    let x = num::convert_elem(bias.data[j], bias.dtype, acc, RoundMode::CastNone)?;
                    for i in 0..m {
                        out.data[i * cols + j] = x;
                    }
                }
            }
            _ => {}
        }
        for_each_index(&[m, n], |idx| {
            let (i, j) = (idx[0], idx[1]);
            let mut sum = out.data[i * cols + j];
            for kk in 0..k {
                let x = num::convert_elem(a.data[i * ka + kk], a.dtype, acc, RoundMode::CastNone)?;
                let y =
                    num::convert_elem(b.data[kk * cols + j], b.dtype, acc, RoundMode::CastNone)?;
                sum = match acc {
                    // Exact: the operands are fp32 values, or int8 widened (products < 2^15).
                    DataType::Fp32 => f64::from((sum as f32).matmul_step(x as f32, y as f32)),
                    _ => f64::from((sum as i32).matmul_step(x as i32, y as i32)),
                };
            }
            out.data[i * cols + j] = sum;
            Ok(())
        })?;
        Ok(out)
    }
}
