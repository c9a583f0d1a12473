//! The pairs `lower/pairs.rs` marked, each one call with the op's element function as a
//! closure (`_inplace` when the op reads its destination):
//! - a broadcast written into its store ([`Inst::ExpandStore`](crate::isa::Inst)):
//!   `trowexpand_store_inplace(out, [r, 0], t0, t1, move |__a: f32, __b: f32| -> f32 { Element::div(__a, __b) })?;`
//! - an op summed by rows ([`Inst::MapRowSum`](crate::isa::Inst)):
//!   `trowsum_map(t3, t2, t0, move |__a: f32| -> f32 { Element::mul(__a, __a) });`

use pto_ir::DataType;
use pto_ir::sem::ElementTrait;

use super::{Import, Writer};
use crate::isa::{Arg, ExpandStore, MapRowSum, TileRef};
use crate::lower::fuse::element_fn;
use crate::lower::pairs::expand_fn;

impl<'a> Writer<'a> {
    /// Writes the call for a marked broadcast and store.
    pub(super) fn put_expand_store(&mut self, e: &ExpandStore) {
        let (isa, dst, args) = &e.op;
        let (Some(((tr, f), row)), [Arg::Tile(TileRef::Slot(a)), Arg::Tile(TileRef::Slot(b))]) =
            (expand_fn(*isa), args.as_slice())
        else {
            // Not marked (`lower/pairs.rs`).
            return;
        };
        let inplace = a == dst;
        let name = if row {
            "trowexpand_store"
        } else {
            "tcolexpand_store"
        };
        self.put_isa(name, if inplace { "_inplace" } else { "" });
        self.put("(");
        let (tensor, offsets) = &e.store;
        self.put_store_tensor(*tensor);
        self.put_transfer_args(offsets, &[0, 0]);
        self.put(", ");
        self.put_tile(*dst);
        if !inplace {
            self.put(", ");
            self.put_tile(*a);
        }
        self.put(", ");
        self.put_tile(*b);
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let tr = self.element_trait(tr);
        self.put(", move | __a: ");
        self.put(ty);
        self.put(", __b: ");
        self.put(ty);
        self.put(" | -> ");
        self.put(ty);
        self.put(" { ");
        self.put(tr.name());
        self.put("::");
        self.put(f);
        self.put("(__a, __b) }) ? ; ");
    }

    /// The import of an element function's trait.
    fn element_trait(&mut self, tr: ElementTrait) -> Import {
        let tr = match tr {
            ElementTrait::Element => Import::Element,
            ElementTrait::Float => Import::Float,
            ElementTrait::Int => Import::Int,
        };
        self.import(tr);
        tr
    }

    /// Writes the call for a marked op and row sum.
    pub(super) fn put_map_rowsum(&mut self, e: &MapRowSum) {
        let (isa, dst, args) = &e.op;
        let (Some((tr, f)), Some(Arg::Tile(TileRef::Slot(a)))) = (element_fn(*isa), args.first())
        else {
            // Not marked (`lower/pairs.rs`).
            return;
        };
        let inplace = a == dst;
        self.put_isa("trowsum_map", if inplace { "_inplace" } else { "" });
        self.put("(");
        self.put_tile(e.sum);
        self.put(", ");
        self.put_tile(*dst);
        if !inplace {
            self.put(", ");
            self.put_tile(*a);
        }
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let tr = self.element_trait(tr);
        self.put(", move | __a: ");
        self.put(ty);
        self.put(" | -> ");
        self.put(ty);
        self.put(" { ");
        self.put(tr.name());
        self.put("::");
        self.put(f);
        self.put("(__a");
        match args.get(1) {
            Some(Arg::Tile(_)) => self.put(", __a"),
            Some(Arg::Scalar(v)) => {
                self.put(", ");
                self.put_scalar_as(*v, dtype, true);
            }
            Some(Arg::Imm(x)) => {
                self.put(", ");
                self.put_lit(pto_ir::Constant::Double(*x), dtype, true);
            }
            _ => {}
        }
        self.put(") }); ");
    }
}
