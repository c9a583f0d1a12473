//! Scalar access to one tensor element (`t.read([i, j])` / `t.write([i, j], s)`): the
//! scalar unit reads and writes global memory through the kernel's `__gm__` pointer, which
//! pto-isa leaves to plain C++ (its `GlobalTensor` has no element access). A barrier first
//! orders the access after every earlier transfer (a `TSTORE` into the same tensor, a `TLOAD`
//! of the element written).
//!
//! A run-time index is checked first, as the host function checks it (it returns `Err` for
//! an index outside the tensor): outside, the kernel stops through `pto_rs::out_of_bounds()`
//! (pto-isa's own failed checks `trap()`), before anything is read or written. The same
//! guard checks run-time `TEXTRACT` / `TINSERT` offsets against the tiles' storage, and the
//! offsets of loads and stores against their tensors.

use pto_ir::{Dim, Type, ValueId};

use crate::emit::writer::Level;
use crate::isa::{Index, TileRef};

use super::{Writer, cpp_dtype};

impl Writer<'_> {
    /// `if (i < 0 || i >= n || ..) pto_rs::out_of_bounds();` for each `(index, bound)` pair
    /// (the index must be below the bound; a constant index is not negative); nothing when
    /// there are none.
    fn guard(&mut self, l: Level, checks: &[(Index, String)]) {
        if checks.is_empty() {
            return;
        }
        self.out.indent(l);
        self.put("if (");
        for (k, (i, n)) in checks.iter().enumerate() {
            if k > 0 {
                self.put(" || ");
            }
            match i {
                Index::Const(c) => self.out.put_u64(*c),
                Index::Value(_) => {
                    let i = self.text(|me| {
                        me.put("static_cast<int64_t>(");
                        me.index(*i);
                        me.put(")");
                    });
                    self.put(&format!("{i} < 0 || {i}"));
                }
            }
            self.put(&format!(" >= {n}"));
        }
        self.put(") pto_rs::out_of_bounds();\n");
    }

    /// The guard of an element access or of a transfer's offsets (a `TLOAD` / `TSTORE`
    /// window may reach past the tensor's end, but must start inside it, as the host function
    /// and the interpreter require): each index that is not a constant inside a static extent
    /// (the verifier checks those) against its dimension.
    pub(super) fn guard_offsets(&mut self, l: Level, tensor: ValueId, offsets: &[Index]) {
        let shape = match &self.m.values[tensor].ty {
            Type::Tensor(t) => t.shape.to_vec(),
            _ => Vec::new(),
        };
        let mut checks = Vec::new();
        for (o, d) in offsets.iter().zip(&shape) {
            if let (Index::Const(_), Dim::Const(_)) = (o, d) {
                continue;
            }
            if let Index::Value(v) = o
                && self.counts_within(*v, d)
            {
                continue;
            }
            let n = self.text(|me| me.dim(d));
            checks.push((*o, n));
        }
        self.guard(l, &checks);
    }

    /// Whether `v` is the variable of a loop being written that runs from a non-negative
    /// constant up to (not including) extent `d`: `for (i = 0; i < n; ..)` over a dimension
    /// of `n`, so every value it takes is inside the dimension.
    fn counts_within(&self, v: ValueId, d: &Dim) -> bool {
        let constant = |x: ValueId| self.m.values.get(x)?.constant.map(|c| c.as_i64());
        self.loops.iter().any(|&(iv, lb, ub)| {
            iv == v
                && constant(lb).is_some_and(|c| c >= 0)
                && match d {
                    Dim::Value(n) => *n == ub,
                    Dim::Const(n) => constant(ub).is_some_and(|u| u >= 0 && u as u64 <= *n),
                    _ => false,
                }
        })
    }

    /// The guard of a run-time `TEXTRACT` / `TINSERT` offset: the small tile's storage at
    /// `at` must lie inside the big tile's (`big - small + 1` positions per dimension), as
    /// `pto::isa::textract` / `tinsert` require.
    pub(super) fn guard_window(&mut self, l: Level, big: TileRef, small: TileRef, at: [Index; 2]) {
        let (Some(b), Some(s)) = (self.static_dims(big), self.static_dims(small)) else {
            return;
        };
        let mut checks = Vec::new();
        for k in 0..2 {
            if let Index::Value(_) = at[k] {
                checks.push((at[k], (b[k] + 1).saturating_sub(s[k]).to_string()));
            }
        }
        self.guard(l, &checks);
    }

    /// A tile operand's static rows and columns.
    fn static_dims(&self, t: TileRef) -> Option<[u64; 2]> {
        match t {
            TileRef::Slot(id) => self.p.tile(id).map(|s| [s.rows, s.cols]),
            TileRef::Param(v) => self.m.values[v].ty.as_tile().map(|t| {
                let (r, c) = t.rows_cols();
                [r, c]
            }),
        }
    }

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
        self.guard_offsets(l, tensor, offsets);
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
        self.guard_offsets(l, tensor, offsets);
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
