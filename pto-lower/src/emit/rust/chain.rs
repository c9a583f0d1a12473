//! An elementwise chain the `fuse-chains` step marked ([`Inst::Fused`](crate::isa::Inst)),
//! written as one `tload_map_store` call (a `for` loop whose body is one: one
//! `tload_map_store_loop` call).

use std::fmt::Write;

use pto_ir::sem::ElementTrait;
use pto_ir::{Constant, DataType, ValueId};

use super::{Import, Writer};
use crate::isa::{Arg, Chain, Index, TileRef};
use crate::lower::fuse::element_fn;

impl<'a> Writer<'a> {
    /// Writes a marked chain: in a loop call when it runs over a loop. The runtime runs the
    /// whole loop in one call: the meter charges its iterations up front, and over empty
    /// tensors ends it after the first (the others do nothing).
    pub(super) fn put_fused(&mut self, c: &Chain) {
        let Some(l) = c.over else {
            return self.put_chain(c);
        };
        let mut touched: Vec<ValueId> = c.loads.iter().map(|l| l.1).collect();
        touched.push(c.store.0);
        let empty = self.all_empty(&touched);
        self.put("{ let __ub = __pto_meter.loop_end(");
        self.put_i64(l.lb, true);
        self.put(", ");
        self.put_i64(l.ub, true);
        let _ = write!(self.out, ", {}, {empty})? ; ", l.step);
        self.put_chain(c);
        self.put("} ");
    }

    /// Writes the offsets of a chain's load or store: plain indices, or in a loop call
    /// `LoopIndex`es.
    fn put_chain_offsets(&mut self, offsets: &[Index], iv: Option<ValueId>) {
        let Some(iv) = iv else {
            return self.put_indices(offsets);
        };
        self.put_bracketed(offsets, |w, o| {
            w.put_isa("LoopIndex", "");
            if o == Index::Value(iv) {
                w.put("::Iv");
            } else {
                w.put("::At(");
                w.put_index(o);
                w.put(")");
            }
        });
    }

    /// Writes a chain as one `tload_map_store` / `tload2_map_store` call (the `_loop` forms
    /// over a loop) whose closure computes the stored element from the loaded ones with the
    /// chain's instructions in order.
    fn put_chain(&mut self, c: &Chain) {
        let iv = c.over.map(|l| l.iv);
        let dtype = self.p.tile(c.store.1).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = match (c.loads.len(), c.over.is_some()) {
            (1, false) => "tload_map_store",
            (_, false) => "tload2_map_store",
            (1, true) => "tload_map_store_loop",
            (_, true) => "tload2_map_store_loop",
        };
        self.put_isa(f, "");
        self.put("(");
        for (t, tensor, offsets) in &c.loads {
            self.put_tile(*t);
            self.put(", ");
            self.put_ident(*tensor);
            self.put(", &");
            self.put_chain_offsets(offsets, iv);
            self.put(", ");
        }
        // A `&mut Tensor` parameter, reborrowed by the call.
        self.put_store_tensor(c.store.0);
        self.put(", &");
        self.put_chain_offsets(&c.store.2, iv);
        self.put(", ");
        if let Some(l) = c.over {
            self.put_isa("LoopRange", "");
            self.put(" { lb: ");
            self.put_i64(l.lb, true);
            // `__ub`: see `put_fused`.
            let _ = write!(self.out, ", ub: __ub, step: {} }}, ", l.step as usize);
        }
        self.put("move |");
        for (k, (t, _, _)) in c.loads.iter().enumerate() {
            let sep = if k > 0 { ", " } else { "" };
            let _ = write!(self.out, "{sep}__e{}: {ty}", t.0);
        }
        let _ = write!(self.out, "| -> {ty} {{ ");
        for (isa, dst, args) in &c.ops {
            let _ = write!(self.out, "let __e{}: {ty} = ", dst.0);
            if let Some((tr, f)) = element_fn(*isa) {
                let tr = match tr {
                    ElementTrait::Element => Import::Element,
                    ElementTrait::Float => Import::Float,
                    ElementTrait::Int => Import::Int,
                };
                self.import(tr);
                let _ = write!(self.out, "{}::{f}", tr.name());
            }
            self.put("(");
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    self.put(", ");
                }
                match *a {
                    Arg::Tile(TileRef::Slot(t)) => {
                        let _ = write!(self.out, "__e{}", t.0);
                    }
                    // Not in a chain (`lower/fuse.rs`).
                    Arg::Tile(TileRef::Param(_)) | Arg::Cmp(_) => {}
                    Arg::Scalar(v) => self.put_scalar_as(v, dtype, true),
                    Arg::Imm(x) => self.put_lit(Constant::Double(x), dtype, true),
                }
            }
            self.put("); ");
        }
        let _ = write!(self.out, "__e{} }}, ) ? ; ", c.store.1.0);
    }
}
