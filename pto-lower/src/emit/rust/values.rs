//! Expression builders: literals, scalars and their conversions, indices, windows.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use pto_ir::{Constant, DataType, ValueId};

use super::{Import, Writer, paren};
use crate::isa::{Index, TileRef};

impl<'a> Writer<'a> {
    /// A literal `x` of type `d` (negative numbers are `(-x)`).
    pub(super) fn lit(&mut self, x: Constant, d: DataType, bare: bool) -> TokenStream {
        if d == DataType::Bool {
            return if x.as_i64() != 0 {
                quote!(true)
            } else {
                quote!(false)
            };
        }
        if d.is_float() {
            return self.float_lit(x.as_f64(), d, bare);
        }
        let ty = self.rust_ty(d);
        let v: i128 = match x {
            Constant::SizeT(u) => i128::from(u),
            Constant::Double(f) => f as i128,
            other => i128::from(other.as_i64()),
        };
        // The value in the literal's type (out of range wraps, as an `as` cast does), then
        // its sign and magnitude: `(-5i8)`; the minimum has no positive magnitude.
        let min = quote!(#ty::MIN);
        let (neg, lit) = match d {
            DataType::Int8 => match v as i8 {
                i8::MIN => return min,
                t => (t < 0, Literal::i8_suffixed(t.abs())),
            },
            DataType::Int16 => match v as i16 {
                i16::MIN => return min,
                t => (t < 0, Literal::i16_suffixed(t.abs())),
            },
            DataType::Int32 => match v as i32 {
                i32::MIN => return min,
                t => (t < 0, Literal::i32_suffixed(t.abs())),
            },
            DataType::Int64 => match v as i64 {
                i64::MIN => return min,
                t => (t < 0, Literal::i64_suffixed(t.abs())),
            },
            DataType::UInt8 => (false, Literal::u8_suffixed(v as u8)),
            DataType::UInt16 => (false, Literal::u16_suffixed(v as u16)),
            DataType::UInt32 => (false, Literal::u32_suffixed(v as u32)),
            _ => (false, Literal::u64_suffixed(v as u64)),
        };
        if neg {
            paren(bare, quote!(-#lit))
        } else {
            quote!(#lit)
        }
    }

    /// A float literal `v` of type `d`: suffixed for `f32` / `f64` (`2f32`, `0.5f64`), through
    /// `Element::from_f64` for the half types.
    fn float_lit(&mut self, v: f64, d: DataType, bare: bool) -> TokenStream {
        let ty = self.rust_ty(d);
        if v.is_nan() {
            return match d {
                DataType::Fp32 => quote!(f32::NAN),
                DataType::Fp64 => quote!(f64::NAN),
                _ => {
                    self.import(Import::Element);
                    quote!(<#ty as Element>::from_f64(f64::NAN))
                }
            };
        }
        let mag = v.abs();
        let e = match d {
            DataType::Fp32 if mag.is_finite() => {
                let l = Literal::f32_suffixed(mag as f32);
                quote!(#l)
            }
            DataType::Fp64 if mag.is_finite() => {
                let l = Literal::f64_suffixed(mag);
                quote!(#l)
            }
            DataType::Fp32 => quote!(f32::INFINITY),
            DataType::Fp64 => quote!(f64::INFINITY),
            _ => {
                self.import(Import::Element);
                let x = if mag.is_finite() {
                    let l = Literal::f64_suffixed(mag);
                    quote!(#l)
                } else {
                    quote!(f64::INFINITY)
                };
                quote!(<#ty as Element>::from_f64(#x))
            }
        };
        if v.is_sign_negative() && v != 0.0 {
            paren(bare, quote!(-#e))
        } else {
            e
        }
    }

    /// A scalar operand: a literal for constants, else the value's identifier.
    pub(super) fn scalar(&mut self, v: ValueId, bare: bool) -> TokenStream {
        match self.m.values[v].constant {
            Some(c) => self.lit(c, self.dtype(v), bare),
            None => {
                let id = self.ident(v);
                quote!(#id)
            }
        }
    }

    /// `v` (of type `from`) converted to `to`.
    pub(super) fn convert(
        &mut self,
        v: ValueId,
        from: DataType,
        to: DataType,
        bare: bool,
    ) -> TokenStream {
        if from == to {
            return self.scalar(v, bare);
        }
        let prim = |d: DataType| d.is_numeric() && !matches!(d, DataType::Fp16 | DataType::Bf16);
        let t = self.rust_ty(to);
        let s = self.scalar(v, false);
        if to == DataType::Bool {
            let zero = self.lit(Constant::Int64(0), from, false);
            paren(bare, quote!(#s != #zero))
        } else if from == DataType::Bool && prim(to) {
            paren(bare, quote!(u8::from(#s) as #t))
        } else if from == DataType::Bool {
            self.import(Import::Element);
            quote!(<#t as Element>::from_f64(f64::from(u8::from(#s))))
        } else if prim(from) && prim(to) {
            paren(bare, quote!(#s as #t))
        } else if from.is_float() && !to.is_float() {
            // `as` truncates toward zero (and saturates).
            self.import(Import::Element);
            self.import(Import::RoundMode);
            quote!(<#t as Element>::from_f64_rounded(Element::to_f64(#s), RoundMode::CastTrunc))
        } else {
            self.import(Import::Element);
            quote!(<#t as Element>::from_f64(Element::to_f64(#s)))
        }
    }

    /// A scalar operand converted to `to`.
    pub(super) fn scalar_as(&mut self, v: ValueId, to: DataType, bare: bool) -> TokenStream {
        if let Some(c) = self.m.values[v].constant
            && to.is_numeric()
            && (to.is_float() || !c.is_float())
        {
            return self.lit(c, to, bare);
        }
        self.convert(v, self.dtype(v), to, bare)
    }

    /// An index or extent, for a `usize` parameter (which types an unsuffixed literal).
    pub(super) fn index(&mut self, i: Index) -> TokenStream {
        match i {
            Index::Const(c) => {
                let l = Literal::usize_unsuffixed(usize::try_from(c).unwrap_or(usize::MAX));
                quote!(#l)
            }
            Index::Value(v) if self.dtype(v) == DataType::Bool => {
                let s = self.scalar(v, false);
                quote!(usize::from(#s))
            }
            // Checked: a negative offset is an error naming it (`as usize` would wrap it).
            Index::Value(v) => {
                let s = self.scalar(v, true);
                quote!(::pto::offset(#s)?)
            }
        }
    }

    /// `[i, j, ..]` (the `&` is the caller's).
    pub(super) fn indices(&mut self, offsets: &[Index]) -> TokenStream {
        let items: Vec<TokenStream> = offsets.iter().map(|&o| self.index(o)).collect();
        quote!([#(#items),*])
    }

    /// The offsets (and, past rank 2, the window) of a `tload` / `tstore` call, after its
    /// tile, each with the comma before it: `, [offsets]` as the `i64`s they are
    /// ([`pto::isa::Offset`]), or the `, &[offsets], &[window]` of the `_window` form.
    pub(super) fn transfer_args(&mut self, offsets: &[Index], window: &[u64]) -> TokenStream {
        if window.len() > 2 {
            let offsets = self.indices(offsets);
            let window = window
                .iter()
                .map(|&s| Literal::usize_unsuffixed(s as usize));
            return quote!(, &#offsets, &[#(#window),*]);
        }
        let items: Vec<TokenStream> = offsets
            .iter()
            .map(|&o| match o {
                // Past `i64::MAX` is out of bounds of any tensor, as `i64::MAX` is.
                Index::Const(c) => {
                    let l = Literal::u64_unsuffixed(c.min(i64::MAX as u64));
                    quote!(#l)
                }
                Index::Value(v) if self.dtype(v) == DataType::Bool => {
                    let s = self.scalar(v, false);
                    quote!(i64::from(#s))
                }
                Index::Value(v) => self.scalar_as(v, DataType::Int64, true),
            })
            .collect();
        // Row `__row` of a split run (`rows.rs`): the window moved down by it, which the
        // split's test keeps inside the tensor.
        if let (Some(row), [first, rest @ ..]) = (&self.row, items.as_slice())
            && offsets.len() == 2
        {
            return quote!(, [::core::primitive::i64::wrapping_add(#first, #row), #(#rest),*]);
        }
        quote!(, [#(#items),*])
    }

    /// A tile operand.
    pub(super) fn tref(&mut self, t: TileRef) -> Ident {
        match t {
            TileRef::Slot(s) => self.tile(s),
            // A tile parameter is already a reference (`&Tile` or `&mut Tile`, which the
            // callee's `&Tile` parameter reborrows as shared).
            TileRef::Param(v) => self.ident(v),
        }
    }
}
