//! Scalar access to one tensor element (`t.read([i, j])` / `t.write([i, j], s)`): the
//! scalar unit reads and writes global memory through the kernel's `__gm__` pointer, which
//! pto-isa leaves to plain C++ (its `GlobalTensor` has no element access). A barrier first
//! orders the access after every earlier transfer (a `TSTORE` into the same tensor, a `TLOAD`
//! of the element written). The C++ does not check the index: the host function does, and
//! returns `Err` for one outside the tensor.

use pto_ir::{Type, ValueId};

use crate::emit::writer::Level;
use crate::isa::Index;

use super::{Writer, cpp_dtype};

impl Writer<'_> {
    /// `tensor[i * stride0 + j * stride1 ..]`.
    fn element_ref(&mut self, tensor: ValueId, offsets: &[Index]) {
        let shape = match &self.m.values[tensor].ty {
            Type::Tensor(t) => t.shape.to_vec(),
            _ => Vec::new(),
        };
        self.name(tensor);
        self.put("[");
        if offsets.is_empty() {
            self.put("0");
        }
        for (k, &o) in offsets.iter().take(shape.len()).enumerate() {
            if k > 0 {
                self.put(" + ");
            }
            self.put("static_cast<int64_t>(");
            self.index(o);
            self.put(") * (");
            self.stride(&shape, k);
            self.put(")");
        }
        self.put("]");
    }

    /// `const T r = tensor[..];`
    pub(super) fn read(&mut self, l: Level, result: ValueId, tensor: ValueId, offsets: &[Index]) {
        self.out.line(l, "pipe_barrier(PIPE_ALL);");
        self.out.indent(l);
        self.put("const ");
        self.put(cpp_dtype(self.dtype(result)));
        self.put(" ");
        self.name(result);
        self.put(" = ");
        self.element_ref(tensor, offsets);
        self.put(";\n");
    }

    /// `tensor[..] = value;`
    pub(super) fn write(&mut self, l: Level, tensor: ValueId, value: ValueId, offsets: &[Index]) {
        self.out.line(l, "pipe_barrier(PIPE_ALL);");
        self.out.indent(l);
        self.element_ref(tensor, offsets);
        self.put(" = ");
        let d = self.dtype(tensor);
        self.scalar_as(value, d);
        self.put(";\n");
        self.out.line(l, "pipe_barrier(PIPE_ALL);");
    }
}
