//! The host function's signature, the shape binding and the returned values.

use std::fmt::Write;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use pto_ir::{DataType, Dim, Direction, TensorType, Type, ValueId};

use super::{Import, Writer, braced, has_loops, signature_word, valid_ident};
use crate::isa::{Inst, TileId};

impl<'a> Writer<'a> {
    /// The signature of [`emit_fn`](super::emit_fn), up to the body.
    pub(super) fn signature(&mut self) -> TokenStream {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let name = if valid_ident(&f.name) {
            Ident::new(&f.name, Span::call_site())
        } else {
            format_ident!("kernel")
        };
        let mut params = Vec::new();
        for q in &f.sig.params {
            let id = self.ident(q.value);
            let r = if q.direction == Direction::In {
                quote!(&)
            } else {
                quote!(&mut)
            };
            let ty = match &m.values[q.value].ty {
                Type::Tensor(t) => {
                    let e = self.rust_ty(t.dtype);
                    quote!(#r ::pto::Tensor<#e>)
                }
                Type::Tile(t) => {
                    let e = self.rust_ty(t.dtype);
                    let (rows, cols) = t.rows_cols();
                    let rows = Literal::usize_unsuffixed(rows as usize);
                    let cols = Literal::usize_unsuffixed(cols as usize);
                    quote!(#r ::pto::Tile<#e, #rows, #cols>)
                }
                t => self.rust_ty(t.dtype().unwrap_or(DataType::Fp32)),
            };
            params.push(quote!(#id: #ty));
        }
        let returns: Vec<TokenStream> = f
            .sig
            .returns
            .iter()
            .map(|t| self.rust_ty(t.dtype().unwrap_or(DataType::Fp32)))
            .collect();
        let returns = match returns.as_slice() {
            [t] => t.clone(),
            ts => quote!((#(#ts),*)),
        };
        quote! {
            #[allow(unused_mut, unused_variables, unused_assignments, unused_parens,
                non_snake_case, unreachable_code, clippy::all)]
            pub fn #name(#(#params),*) -> ::core::result::Result<#returns, ::pto::Error>
        }
    }

    /// The host body: a block of the imports, the shape binding, the tiles, the instructions
    /// and the returned values.
    pub(super) fn program(&mut self) -> TokenStream {
        // 1. Shapes.
        let mut body = self.shapes();
        // The budget meter every loop iteration ticks (`pto::Budget`).
        if has_loops(&self.p.body) {
            body.extend(quote!(let mut __pto_meter = ::pto::budget::Meter::start();));
        }
        // 2. Tiles, once; those of one type together (`let [a, b] = &mut Tile::<..>::zeros_n();`),
        // in order of their first slot.
        let tiles = &self.p.tiles;
        let private = std::mem::take(&mut self.private);
        let declared = |k: usize| private.get(k) != Some(&true);
        let ty_of = |s: &crate::isa::TileSlot| (s.dtype, s.rows, s.cols);
        for (i, s) in tiles.iter().enumerate() {
            let ty = ty_of(s);
            if !declared(i)
                || tiles
                    .iter()
                    .take(i)
                    .enumerate()
                    .any(|(k, e)| declared(k) && ty_of(e) == ty)
            {
                continue;
            }
            let names: Vec<Ident> = (i..tiles.len())
                .filter(|&k| declared(k) && tiles.get(k).map(ty_of) == Some(ty))
                .map(|k| self.tile(TileId(k as u32)))
                .collect();
            // A mask holds one byte per element, its low bit the flag (`pto::isa::tcmp`).
            let ty = if s.dtype == DataType::Bool {
                quote!(u8)
            } else {
                self.rust_ty(s.dtype)
            };
            self.import(Import::Tile);
            let rows = Literal::usize_unsuffixed(s.rows as usize);
            let cols = Literal::usize_unsuffixed(s.cols as usize);
            body.extend(match names.as_slice() {
                [one] => quote!(let #one = &mut Tile::<#ty, #rows, #cols>::zeros();),
                all => quote!(let [#(#all),*] = &mut Tile::<#ty, #rows, #cols>::zeros_n();),
            });
        }
        // The one-row tiles of the row splits.
        let p = self.p;
        body.extend(self.row_tiles(&p.body, &mut Vec::new()));
        // 3. Instructions; a final `return` becomes the tail expression.
        let tail = match p.body.split_last() {
            Some((Inst::Return(vals), rest)) => {
                body.extend(self.insts(rest));
                self.ok(vals)
            }
            _ => {
                body.extend(self.insts(&p.body));
                quote!(::core::result::Result::Ok(()))
            }
        };
        // 0. The `pto` names the body uses, imported in front of it. The body is all generated
        // code: the imports shadow nothing it uses (the user's module-level items), but a
        // parameter of the same name in the value namespace, where of these names only the
        // functions `bind_shapes` and `isa::*` live (`shapes`, `isa`).
        let mut block = self.imports_use();
        block.extend(body);
        block.extend(tail);
        let block = braced(block);
        quote!(#block)
    }

    /// Checks the tensor parameters' shapes and binds the symbolic dimensions: one
    /// `pto::bind_shapes` call, with the tensors' declared shapes as its signature string,
    /// returns those the tensors carry in order of first appearance; any other is the valid
    /// rows or columns of a tile parameter.
    fn shapes(&mut self) -> TokenStream {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let mut bound: Vec<ValueId> = Vec::new();
        for (_, t) in self.tensor_params() {
            for d in &t.shape {
                if let Dim::Value(v) = *d
                    && f.dims.contains(&v)
                    && !bound.contains(&v)
                {
                    bound.push(v);
                }
            }
        }
        for (k, &d) in bound.iter().enumerate() {
            let name = self.symbol_name(d);
            if !signature_word(&name, true) {
                self.err(format!(
                    "the host code cannot bind a symbolic dimension named `{name}`"
                ));
            } else if bound.iter().take(k).any(|&e| self.symbol_name(e) == name) {
                self.err(format!(
                    "two symbolic dimensions are named `{name}`: the host code cannot tell them \
                     apart"
                ));
            }
        }
        let mut out = TokenStream::new();
        if self.tensor_params().next().is_some() {
            // `bind_shapes` returns `i64`s: a symbol of another type is cast after the call.
            let dims: Vec<Ident> = bound
                .iter()
                .map(|&d| {
                    if self.dtype(d) != DataType::Int64 {
                        format_ident!("__dim_{}", m.values[d].number)
                    } else {
                        self.ident(d)
                    }
                })
                .collect();
            // Imported, unless a parameter has its name (the import would shadow it).
            let bind = if self.params.contains(&Import::BindShapes.name()) {
                quote!(::pto::bind_shapes)
            } else {
                self.import(Import::BindShapes);
                quote!(bind_shapes)
            };
            let signature = Literal::string(&self.shape_signature(&bound));
            let tensors: Vec<ValueId> = self.tensor_params().map(|(p, _)| p).collect();
            let tensors: Vec<Ident> = tensors.into_iter().map(|p| self.ident(p)).collect();
            out.extend(quote! {
                let [#(#dims),*] = #bind(#signature, [#(#tensors.shape()),*])?;
            });
            for (&d, dim) in bound.iter().zip(&dims) {
                if self.dtype(d) != DataType::Int64 {
                    let ty = self.rust_ty(self.dtype(d));
                    let id = self.ident(d);
                    out.extend(quote!(let #id: #ty = #dim as #ty;));
                }
            }
        }
        for &d in &f.dims {
            if !bound.contains(&d) {
                out.extend(self.tile_dim(d));
            }
        }
        out
    }

    /// The tensor parameters, in order.
    fn tensor_params(&self) -> impl Iterator<Item = (ValueId, &'a TensorType)> + use<'a> {
        let m = self.m;
        m.funcs[self.p.func]
            .sig
            .params
            .iter()
            .filter_map(move |q| match &m.values[q.value].ty {
                Type::Tensor(t) => Some((q.value, t)),
                _ => None,
            })
    }

    /// The signature string of `bind_shapes`: every tensor parameter as `name[d0, d1, ..]`,
    /// a dimension being a size, a symbol of `bound`, or `?` for any size.
    fn shape_signature(&mut self, bound: &[ValueId]) -> String {
        let m = self.m;
        let mut out = String::new();
        for (k, (p, t)) in self.tensor_params().enumerate() {
            if k > 0 {
                out.push(' ');
            }
            let name = m.values[p].name.as_deref().unwrap_or_default();
            if !signature_word(name, false) {
                self.err(format!(
                    "the host code cannot check the shape of a parameter named `{name}`"
                ));
            }
            out.push_str(name);
            out.push('[');
            for (j, d) in t.shape.iter().enumerate() {
                if j > 0 {
                    out.push_str(", ");
                }
                let _ = match *d {
                    Dim::Const(c) => write!(out, "{}", usize::try_from(c).unwrap_or(usize::MAX)),
                    Dim::Value(v) if bound.contains(&v) => write!(out, "{}", self.symbol_name(v)),
                    Dim::Value(_) | Dim::Dynamic => write!(out, "?"),
                };
            }
            out.push(']');
        }
        out
    }

    /// The name of symbolic dimension `d` (`d{number}` when it has none).
    fn symbol_name(&self, d: ValueId) -> std::borrow::Cow<'a, str> {
        let dv = &self.m.values[d];
        match &dv.name {
            Some(n) => (&**n).into(),
            None => format!("d{}", dv.number).into(),
        }
    }

    /// Binds symbolic dimension `d`, which no tensor parameter carries, from the valid region
    /// of the first tile parameter that has it.
    fn tile_dim(&mut self, d: ValueId) -> TokenStream {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let ty = self.rust_ty(self.dtype(d));
        let is_d = |dim: &Dim| *dim == Dim::Value(d);
        // The first tile parameter with `d` in its valid region; its last dimension is the
        // columns, any other the rows.
        let from_tile = f.sig.params.iter().find_map(|q| {
            let Type::Tile(t) = &m.values[q.value].ty else {
                return None;
            };
            let k = t.valid.iter().rposition(is_d)?;
            Some((q.value, k + 1 == t.valid.len()))
        });
        match from_tile {
            Some((p, cols)) => {
                let id = self.ident(d);
                let p = self.ident(p);
                let what = if cols {
                    quote!(valid_cols)
                } else {
                    quote!(valid_rows)
                };
                quote!(let #id: #ty = #p.#what() as #ty;)
            }
            None => {
                let sym = self.symbol_name(d);
                self.err(format!(
                    "symbolic dimension `{sym}` is not the size of any parameter"
                ));
                TokenStream::new()
            }
        }
    }

    /// `::core::result::Result::Ok(..)` of the returned values.
    pub(super) fn ok(&mut self, vals: &[ValueId]) -> TokenStream {
        let vals: Vec<TokenStream> = vals.iter().map(|&v| self.scalar(v, false)).collect();
        let vals = match vals.as_slice() {
            [v] => v.clone(),
            vs => quote!((#(#vs),*)),
        };
        quote!(::core::result::Result::Ok(#vals))
    }
}
