//! The pairs `lower/pairs.rs` marked, each one call with the op's element function as a
//! closure (`_inplace` when the op reads its destination):
//! - a broadcast written into its store ([`Inst::ExpandStore`](crate::isa::Inst)):
//!   `trowexpand_store_inplace(out, [r, 0], t0, t1, move |__a: f32, __b: f32| -> f32 { Element::div(__a, __b) })?;`
//! - an op summed by rows ([`Inst::MapRowSum`](crate::isa::Inst)):
//!   `trowsum_map(t3, t2, t0, move |__a: f32| -> f32 { Element::mul(__a, __a) });`

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use pto_ir::DataType;
use pto_ir::sem::ElementTrait;

use super::{Import, Writer};
use crate::isa::{Arg, ExpandStore, MapRowSum, TileRef};
use crate::lower::fuse::element_fn;
use crate::lower::pairs::expand_fn;

impl<'a> Writer<'a> {
    /// The call for a marked broadcast and store.
    pub(super) fn expand_store(&mut self, e: &ExpandStore) -> TokenStream {
        let (isa, dst, args) = &e.op;
        let (Some(((tr, f), row)), [Arg::Tile(TileRef::Slot(a)), Arg::Tile(TileRef::Slot(b))]) =
            (expand_fn(*isa), args.as_slice())
        else {
            // Not marked (`lower/pairs.rs`).
            return TokenStream::new();
        };
        let inplace = a == dst;
        let name = if row {
            "trowexpand_store"
        } else {
            "tcolexpand_store"
        };
        let call = self.isa(name, if inplace { "_inplace" } else { "" });
        let (tensor, offsets) = &e.store;
        let tensor = self.store_tensor(*tensor);
        let offsets = self.transfer_args(offsets, &[0, 0]);
        let d = self.tile(*dst);
        let a = (!inplace).then(|| {
            let a = self.tile(*a);
            quote!(, #a)
        });
        let b = self.tile(*b);
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = self.element_callee(tr, f);
        quote!(#call(#tensor #offsets, #d #a, #b, move |__a: #ty, __b: #ty| -> #ty { #f(__a, __b) })?;)
    }

    /// `Trait::f` for an element function, importing the trait.
    pub(super) fn element_callee(&mut self, tr: ElementTrait, f: &str) -> TokenStream {
        let tr = match tr {
            ElementTrait::Element => Import::Element,
            ElementTrait::Float => Import::Float,
            ElementTrait::Int => Import::Int,
        };
        self.import(tr);
        let (tr, f) = (tr.ident(), Ident::new(f, Span::call_site()));
        quote!(#tr::#f)
    }

    /// The call for a marked op and row sum.
    pub(super) fn map_rowsum(&mut self, e: &MapRowSum) -> TokenStream {
        let (isa, dst, args) = &e.op;
        let (Some((tr, f)), Some(Arg::Tile(TileRef::Slot(a)))) = (element_fn(*isa), args.first())
        else {
            // Not marked (`lower/pairs.rs`).
            return TokenStream::new();
        };
        let inplace = a == dst;
        let call = self.isa("trowsum_map", if inplace { "_inplace" } else { "" });
        let sum = self.tile(e.sum);
        let d = self.tile(*dst);
        let a = (!inplace).then(|| {
            let a = self.tile(*a);
            quote!(, #a)
        });
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = self.element_callee(tr, f);
        let second = match args.get(1) {
            Some(Arg::Tile(_)) => quote!(, __a),
            Some(Arg::Scalar(v)) => {
                let v = self.scalar_as(*v, dtype, true);
                quote!(, #v)
            }
            Some(Arg::Imm(x)) => {
                let x = self.lit(pto_ir::Constant::Double(*x), dtype, true);
                quote!(, #x)
            }
            _ => TokenStream::new(),
        };
        quote!(#call(#sum, #d #a, move |__a: #ty| -> #ty { #f(__a #second) });)
    }
}
