//! Memory ops: `tile.load` and `tile.store` over tensor windows, with their bounds checks.

use super::*;

impl Interp<'_> {
    /// `tile.load`: the in-bounds part of the window; the valid region is that part.
    pub(super) fn load(&self, fr: &Frame, op: &Operation) -> R<HostTile> {
        let tv = self.operand(op, 0)?;
        let id = self.tensor_id(fr, tv)?;
        let src = &self.tensors[id];
        let shape = self.shape_attr(op)?;
        if shape.len() != src.shape.len() {
            return err(format!(
                "a rank-{} window on a rank-{} tensor",
                shape.len(),
                src.shape.len()
            ));
        }
        let off = self.offset_attr(fr, op, shape.len())?;
        self.check_static_window(tv, &shape, &off, &src.shape)?;
        check_start("load", &off, &src.shape)?;
        let valid: Vec<usize> = (0..shape.len())
            .map(|d| src.shape[d].saturating_sub(off[d]).min(shape[d]))
            .collect();
        let mut out = blank_tile(src.dtype, shape.clone(), valid.clone());
        for_each_index(&valid, |idx| {
            let x = src.data[at(&src.shape, &offset_index(&off, idx))?];
            out.data[at(&shape, idx)?] = num::normalize(x, src.dtype)?;
            Ok(())
        })?;
        if op.opcode == Opcode::TileLoadOr {
            // `TFILLPAD`: the part of the tile outside the tensor is the pad; all of it is valid.
            let pad = op.operands.get(1).and_then(|&v| self.m.values[v].constant);
            let kind = pad.and_then(|c| sem::pad::pad_kind(out.dtype, c.as_f64()));
            let Some(kind) = kind else {
                return err("`load_or` needs a constant pad pto-isa can pad with");
            };
            let pad = sem::pad::pad_element(out.dtype, kind);
            let inside = valid.clone();
            for_each_index(&shape, |idx| {
                if idx.iter().zip(&inside).any(|(i, v)| i >= v) {
                    out.data[at(&shape, idx)?] = pad;
                }
                Ok(())
            })?;
            out.valid = shape.clone();
        }
        Ok(out)
    }

    /// A window on a tensor whose type has a static extent must fit that extent and start
    /// inside it (the verifier checks constant offsets; this checks runtime ones).
    fn check_static_window(
        &self,
        tv: ValueId,
        shape: &[usize],
        off: &[usize],
        actual: &[usize],
    ) -> R<()> {
        if let Some(Type::Tensor(tt)) = self.m.values.get(tv).map(|d| &d.ty) {
            for (d, dim) in tt.shape.iter().enumerate() {
                if let (Some(n), Some(&s), Some(&o)) = (dim.as_const(), shape.get(d), off.get(d)) {
                    let n = n as usize;
                    if s > n || o >= n {
                        return err(format!(
                            "window {} at offset {off:?} is out of range of the {} tensor in its static dimension {d}",
                            shape_str(shape),
                            shape_str(actual)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// `tile.store`: writes the tile's valid region at the offset, clipped to the tensor.
    pub(super) fn store(&mut self, fr: &Frame, op: &Operation) -> R<()> {
        let tile = self.tile(fr, self.operand(op, 0)?)?;
        let tv = self.operand(op, 1)?;
        let id = self.tensor_id(fr, tv)?;
        let dst_shape = self.tensors[id].shape.clone();
        if tile.shape.len() != dst_shape.len() {
            return err(format!(
                "a rank-{} tile into a rank-{} tensor",
                tile.shape.len(),
                dst_shape.len()
            ));
        }
        let (from, to) = (tile.dtype, self.tensors[id].dtype);
        if !pto_ir::sem::store::store_converts(from, to) {
            return err(format!("a {from} tile into a {to} tensor"));
        }
        let add = op.opcode == Opcode::TileStoreAdd;
        let off = self.offset_attr(fr, op, dst_shape.len())?;
        self.check_static_window(tv, &tile.shape, &off, &dst_shape)?;
        check_start("store", &off, &dst_shape)?;
        // As `TSTORE` on the CPU runtime: the part of the valid region past the tensor's
        // edge is clipped, so a fully valid tile stored at an edge writes what fits.
        let region: Vec<usize> = (0..off.len())
            .map(|d| tile.valid[d].min(dst_shape[d].saturating_sub(off[d])))
            .collect();
        let dst = &mut self.tensors[id];
        // A converting store rounds to nearest even, a quantising one scales by 1.0, rounds
        // and saturates (`pto_ir::sem::store`); `store_add` adds in the tensor's dtype.
        let quant = pto_ir::sem::store::quant_of(from, to);
        for_each_index(&region, |idx| {
            let x = tile.data[at(&tile.shape, idx)?];
            let x = if from == to {
                x
            } else if let Some(q) = quant {
                let y = pto_ir::sem::store::quantize(x as f32, q, 1.0);
                num::convert_elem(f64::from(y), DataType::Fp32, to, RoundMode::CastRint)?
            } else {
                num::convert_elem(x, from, to, RoundMode::CastRint)?
            };
            let d = &mut dst.data[at(&dst_shape, &offset_index(&off, idx))?];
            *d = if add { num::normalize(*d + x, to)? } else { x };
            Ok(())
        })
    }
}

/// A transfer's window may reach past the tensor's end but must start inside it in every
/// dimension, as `pto::isa::tload` / `tstore` require (they return `Err(OutOfBounds)`) and the
/// C++ checks before the transfer.
fn check_start(what: &str, off: &[usize], bounds: &[usize]) -> R<()> {
    match (0..off.len()).find(|&d| off[d] >= bounds[d]) {
        Some(d) => err(format!(
            "{what} offset {off:?} is outside the {} tensor (dimension {d})",
            shape_str(bounds)
        )),
        None => Ok(()),
    }
}
