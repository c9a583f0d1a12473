//! The pairs `lower/pairs.rs` marked, each one call with the op's element function as a
//! closure (`_inplace` when the op reads its destination):
//! - a broadcast written into its store ([`Inst::ExpandStore`](crate::isa::Inst)):
//!   `trowexpand_store_inplace(out, [r, 0], t0, t1, move |__a: f32, __b: f32| -> f32 { Element::div(__a, __b) })?;`
//! - an op summed by rows ([`Inst::MapRowSum`](crate::isa::Inst)):
//!   `trowsum_map(t3, t2, t0, move |__a: f32| -> f32 { Element::mul(__a, __a) });`
//! - a load and a row reduction (the same mark): `tload_rowmax(t0, x, [r, 0], t1)?;`
//! - a row broadcast, ops and a row sum, one tile kept (the same mark):
//!   `trowexpand_map_rowsum_inplace(t1, t0, &t1.clone(), move |__a: f32, __b: f32| -> (f32,
//!   f32) { let __v0: f32 = Element::sub(__a, __b); let __v1: f32 = Float::exp(__v0); (__v1,
//!   __v1) });` (`trowexpand_map_rowsum_view_into(t1, t0, &__view0, ..)` when its source is a
//!   load read in place into the kept tile, `_view` into another)

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use pto_ir::sem::ElementTrait;
use pto_ir::{DataType, ValueId};

use super::{Import, Writer};
use crate::isa::{Arg, Args, ExpandStore, Index, Inst, Isa, LoadView, MapRowSum, TileId, TileRef};
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
        let view = self.view_of(*a);
        let inplace = a == dst && view.is_none();
        if let Some((_, flag, _, _)) = self.kept.clone().filter(|k| k.0 == *a && inplace && row) {
            return self.store_kept(e, &flag, tr, f);
        }
        let name = if row {
            "trowexpand_store"
        } else {
            "tcolexpand_store"
        };
        let suffix = match (&view, inplace) {
            (Some(_), _) => "_view",
            (None, true) => "_inplace",
            (None, false) => "",
        };
        let call = self.isa(name, suffix);
        let (tensor, offsets) = &e.store;
        let tensor = self.store_tensor(*tensor);
        let offsets = self.transfer_args(offsets, &[0, 0]);
        let d = self.tile(*dst);
        let a = match view {
            Some(v) => Some(quote!(, &#v)),
            None => (!inplace).then(|| {
                let a = self.tile(*a);
                quote!(, #a)
            }),
        };
        let b = self.tile(*b);
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = self.element_callee(tr, f);
        quote!(#call(#tensor #offsets, #d #a, #b, move |__a: #ty, __b: #ty| -> #ty { #f(__a, __b) })?;)
    }

    /// `trowexpand_store_window(out, [r, 0], t0, t1, __kept_t0, move |..| ..)?;`: the
    /// broadcast and store of a tile a run kept in the store's window (`Writer::kept`).
    fn store_kept(
        &mut self,
        e: &ExpandStore,
        flag: &Ident,
        tr: ElementTrait,
        f: &str,
    ) -> TokenStream {
        let (_, dst, args) = &e.op;
        let Some(Arg::Tile(TileRef::Slot(b))) = args.get(1) else {
            return TokenStream::new();
        };
        let call = self.isa("trowexpand_store_window", "");
        let (tensor, offsets) = &e.store;
        let tensor = self.store_tensor(*tensor);
        let offsets = self.transfer_args(offsets, &[0, 0]);
        let d = self.tile(*dst);
        let b = self.tile(*b);
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = self.element_callee(tr, f);
        quote!(#call(#tensor #offsets, #d, #b, #flag, move |__a: #ty, __b: #ty| -> #ty { #f(__a, __b) })?;)
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

    /// The call for a marked run ending in a row reduction (`lower/pairs.rs`).
    pub(super) fn map_rowsum(&mut self, e: &MapRowSum, span: &[Inst]) -> TokenStream {
        if let Some((t, tensor, offsets)) = &e.load {
            if !e.more.is_empty() {
                return self.load_reductions(e, (*t, *tensor, offsets), span);
            }
            if let Some(v) = self.view_of(*t) {
                return self.reduce_view(e.reduce.0, e.reduce.1, &v);
            }
            return self.load_reduce(*t, *tensor, offsets, e.reduce);
        }
        match (e.ops.as_slice(), e.keep) {
            ([op], None) => self.op_rowsum(op, e.reduce.1),
            (ops, Some(keep)) => self.expand_rowsum(ops, keep, e.reduce.1),
            // Not marked.
            _ => TokenStream::new(),
        }
    }

    /// `tload_rowsum(t, x, [..], s)?;` (`tload_rowmax`, `tload_rowmin`).
    fn load_reduce(
        &mut self,
        t: TileId,
        tensor: ValueId,
        offsets: &[Index],
        (isa, dst): (Isa, TileId),
    ) -> TokenStream {
        let name = match isa {
            Isa::TRowSum => "tload_rowsum",
            Isa::TRowMax => "tload_rowmax",
            Isa::TRowMin => "tload_rowmin",
            // Not marked.
            _ => return TokenStream::new(),
        };
        let f = self.isa(name, "");
        let t = self.tile(t);
        let tensor = self.ident(tensor);
        let offsets = self.transfer_args(offsets, &[]);
        let dst = self.tile(dst);
        quote!(#f(#t, #tensor #offsets, #dst)?;)
    }

    /// `let r = tload_reductions(t, write, x, [..], [Reduce::Sum, ..], [Reduce::Max, ..])?;`,
    /// then the span's other instructions in order, each reduction of `t` replaced by
    /// `r.row(k, dst);` / `r.col(k, dst);`.
    fn load_reductions(
        &mut self,
        e: &MapRowSum,
        (t, tensor, offsets): (TileId, ValueId, &[Index]),
        span: &[Inst],
    ) -> TokenStream {
        let reduce = self.isa("Reduce", "");
        let kind = |isa: Isa| match isa {
            Isa::TRowSum | Isa::TColSum => quote!(#reduce::Sum),
            Isa::TRowMax | Isa::TColMax => quote!(#reduce::Max),
            _ => quote!(#reduce::Min),
        };
        let is_row = |isa: Isa| matches!(isa, Isa::TRowSum | Isa::TRowMax | Isa::TRowMin);
        let all: Vec<Isa> = std::iter::once(e.reduce.0)
            .chain(e.more.iter().map(|m| m.0))
            .collect();
        let rows = all.iter().filter(|&&i| is_row(i)).map(|&i| kind(i));
        let cols = all.iter().filter(|&&i| !is_row(i)).map(|&i| kind(i));
        let call = self.isa("tload_reductions", "");
        let r = format_ident!("__reduced{}", t.0);
        let write = e.keep.is_some();
        let tile = self.tile(t);
        let tensor = self.ident(tensor);
        let offsets = self.transfer_args(offsets, &[]);
        let mut out = quote! {
            let #r = #call(#tile, #write, #tensor #offsets, [#(#rows),*], [#(#cols),*])?;
        };
        let of_t = [Arg::Tile(TileRef::Slot(t))];
        let (mut row, mut col) = (0usize, 0usize);
        for i in span {
            match i {
                Inst::Load { dst, .. } if *dst == t => {}
                Inst::Op { isa, dst, args }
                    if crate::lower::pairs::is_reduction(*isa) && args.as_slice() == of_t =>
                {
                    let d = self.tile(*dst);
                    if is_row(*isa) {
                        out.extend(quote!(#r.row(#row, #d);));
                        row += 1;
                    } else {
                        out.extend(quote!(#r.col(#col, #d);));
                        col += 1;
                    }
                }
                _ => out.extend(self.insts(std::slice::from_ref(i))),
            }
        }
        out
    }

    /// The element function call of one op of a run, its tile operands `x`.
    fn element_call(
        &mut self,
        (isa, _, args): &(Isa, TileId, Args),
        x: &TokenStream,
        dtype: DataType,
    ) -> TokenStream {
        let Some((tr, f)) = element_fn(*isa) else {
            return TokenStream::new();
        };
        let f = self.element_callee(tr, f);
        let second = match args.get(1) {
            Some(Arg::Tile(_)) => quote!(, #x),
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
        quote!(#f(#x #second))
    }

    /// `trowsum_map(s, d, a, move |__a: f32| -> f32 { Element::mul(__a, __a) });`: an op
    /// whose result is only summed.
    fn op_rowsum(&mut self, op: &(Isa, TileId, Args), sum: TileId) -> TokenStream {
        let (_, dst, args) = op;
        let Some(Arg::Tile(TileRef::Slot(a))) = args.first() else {
            return TokenStream::new();
        };
        let inplace = a == dst;
        let call = self.isa("trowsum_map", if inplace { "_inplace" } else { "" });
        let sum = self.tile(sum);
        let d = self.tile(*dst);
        let a = (!inplace).then(|| {
            let a = self.tile(*a);
            quote!(, #a)
        });
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let body = self.element_call(op, &quote!(__a), dtype);
        quote!(#call(#sum, #d #a, move |__a: #ty| -> #ty { #body });)
    }

    /// `trowexpand_map_rowsum(s, w, a, r, move |__a: f32, __b: f32| -> (f32, f32) { .. });`:
    /// a row broadcast and ops of one tile, the kept tile written and the last value summed.
    fn expand_rowsum(
        &mut self,
        ops: &[(Isa, TileId, Args)],
        keep: TileId,
        sum: TileId,
    ) -> TokenStream {
        let Some((isa, _, args)) = ops.first() else {
            return TokenStream::new();
        };
        let (Some(((tr, f), true)), [Arg::Tile(TileRef::Slot(a)), Arg::Tile(TileRef::Slot(r))]) =
            (expand_fn(*isa), args.as_slice())
        else {
            // Not marked (`lower/pairs.rs`).
            return TokenStream::new();
        };
        let inplace = *a == keep;
        // The broadcast's source read in place (`lower/load_views.rs`): into the loaded tile
        // itself (`_view_into`) or another.
        let view = self.view_of(*a);
        let suffix = match (&view, inplace) {
            (Some(_), true) => "_view_into",
            (Some(_), false) => "_view",
            (None, true) => "_inplace",
            (None, false) => "",
        };
        let call = self.isa("trowexpand_map_rowsum", suffix);
        let dtype = self.p.tile(keep).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        // Each op's value `__v{k}`; the kept tile's is that of the last op writing it.
        let value = |k: usize| format_ident!("__v{k}");
        let f = self.element_callee(tr, f);
        let v0 = value(0);
        let mut body = quote!(let #v0: #ty = #f(__a, __b););
        for (k, op) in ops.iter().enumerate().skip(1) {
            let x = value(k - 1);
            let call = self.element_call(op, &quote!(#x), dtype);
            let v = value(k);
            body.extend(quote!(let #v: #ty = #call;));
        }
        let kept = ops.iter().rposition(|o| o.1 == keep).map(value);
        let summed = value(ops.len() - 1);
        let s = self.tile(sum);
        let w = self.tile(keep);
        let a = match view {
            Some(v) => Some(quote!(, &#v)),
            None => (!inplace).then(|| {
                let a = self.tile(*a);
                quote!(, #a)
            }),
        };
        // The broadcast operand may be the sum's tile (`TROWSUM(m, e)` after `e = exp(t -
        // m)`): each row reads it before its sum is written, so a copy is passed.
        let r = if *r == sum {
            let r = self.tile(*r);
            quote!(&#r.clone())
        } else {
            let r = self.tile(*r);
            quote!(#r)
        };
        let closure = quote!(move |__a: #ty, __b: #ty| -> (#ty, #ty) { #body (#kept, #summed) });
        // The kept tile held in a store's window instead (`Writer::kept`).
        if let (Some((_, flag, tensor, offsets)), "_view_into") =
            (self.kept.clone().filter(|k| k.0 == keep), suffix)
        {
            let call = self.isa("trowexpand_map_rowsum_view_window", "");
            let tensor = self.store_tensor(tensor);
            let offsets = self.transfer_args(&offsets, &[0, 0]);
            return quote!(#flag = #call(#s, #w, #tensor #offsets #a, #r, #closure););
        }
        quote!(#call(#s, #w #a, #r, #closure);)
    }
}

impl Writer<'_> {
    /// `if let Some(__view1) = tload_view(t, x, [..]) { span reading the view } else { span
    /// }` for a load read in place (`lower/load_views.rs`): the span's load, its row reductions
    /// and broadcast-and-store marks of the tile read the window on the plain path; the
    /// `else` branch is the span as it would be without the mark.
    pub(super) fn load_view(&mut self, v: &LoadView, span: &[Inst]) -> TokenStream {
        let plain = self.insts(span);
        let id = format_ident!("__view{}", v.tile.0);
        let outer = self.view.replace((v.tile, id.clone()));
        let viewed = self.insts(span);
        self.view = outer;
        let call = self.isa("tload_view", "");
        let t = self.tile(v.tile);
        let x = self.ident(v.tensor);
        let offsets = self.transfer_args(&v.offsets, &[]);
        quote!(if let Some(#id) = #call(#t, #x #offsets) { #viewed } else { #plain })
    }

    /// Whether `t` is the tile read in place in the code being built.
    pub(super) fn viewed(&self, t: TileId) -> bool {
        self.view.as_ref().is_some_and(|(v, _)| *v == t)
    }

    /// The view variable read in place of `t`, if `t` is the tile read in place.
    pub(super) fn view_of(&self, t: TileId) -> Option<Ident> {
        self.view
            .as_ref()
            .filter(|(v, _)| *v == t)
            .map(|(_, id)| id.clone())
    }

    /// The view variable a row reduction `isa` of `args` reads, when it reduces the tile read
    /// in place.
    pub(super) fn view_reduction(&self, isa: Isa, args: &[Arg]) -> Option<Ident> {
        let reduces = matches!(isa, Isa::TRowSum | Isa::TRowMax | Isa::TRowMin);
        match args {
            [Arg::Tile(TileRef::Slot(t))] if reduces => self.view_of(*t),
            _ => None,
        }
    }

    /// `trowmax_view(dst, &__view1);` (`trowsum_view`, `trowmin_view`).
    pub(super) fn reduce_view(&mut self, isa: Isa, dst: TileId, view: &Ident) -> TokenStream {
        let name = match isa {
            Isa::TRowSum => "trowsum_view",
            Isa::TRowMax => "trowmax_view",
            Isa::TRowMin => "trowmin_view",
            // Not marked (`lower/load_views.rs`).
            _ => return TokenStream::new(),
        };
        let f = self.isa(name, "");
        let dst = self.tile(dst);
        quote!(#f(#dst, &#view);)
    }
}
