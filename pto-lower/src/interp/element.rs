//! `tile.read` / `tile.write`: one element of a tensor as a scalar. An index outside the
//! tensor is an error, as the host function's `Err`.

use pto_ir::{OpClass, Operation};

use super::exec::{Frame, Interp, Rt};
use super::{HostScalar, InterpError, num, shape_str};

type R<T> = Result<T, InterpError>;

impl Interp<'_> {
    /// Runs a read (one scalar result) or a write (none).
    pub(super) fn element(&mut self, fr: &Frame, op: &Operation) -> R<Vec<Rt>> {
        let write = op.opcode.class() == OpClass::ElementWrite;
        let tv = *op
            .operands
            .get(usize::from(write))
            .ok_or_else(|| InterpError::new("an element access needs a tensor operand"))?;
        let id = self.tensor_id(fr, tv)?;
        let shape = self.tensors[id].shape.clone();
        let dtype = self.tensors[id].dtype;
        let idx = self.offset_list(fr, op, shape.len())?;
        if idx.iter().zip(&shape).any(|(i, n)| i >= n) {
            return Err(InterpError::new(format!(
                "element {idx:?} is outside the {} tensor",
                shape_str(&shape)
            )));
        }
        let at = idx.iter().zip(&shape).fold(0, |a, (i, n)| a * n + i);
        if write {
            let v = self.scalar(fr, op.operands[0])?;
            self.tensors[id].data[at] = num::normalize(v.as_f64(), dtype)?;
            Ok(Vec::new())
        } else {
            let x = self.tensors[id].data[at];
            Ok(vec![Rt::Scalar(HostScalar::from_f64(dtype, x)?)])
        }
    }
}
