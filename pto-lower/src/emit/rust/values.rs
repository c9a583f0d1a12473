//! Expression writers: literals, scalars and their conversions, indices, windows.

use std::fmt::Write;

use pto_ir::{Constant, DataType, ValueId};

use super::{Import, Writer, signed};
use crate::isa::{Index, TileRef};

impl<'a> Writer<'a> {
    /// Writes a literal `x` of type `d` (negative numbers are `(-x)`).
    pub(super) fn put_lit(&mut self, x: Constant, d: DataType, bare: bool) {
        if d == DataType::Bool {
            self.put(if x.as_i64() != 0 { "true" } else { "false" });
            return;
        }
        if d.is_float() {
            let v = x.as_f64();
            let ty = self.rust_ty(d);
            if v.is_nan() {
                match d {
                    DataType::Fp32 => self.put("f32::NAN"),
                    DataType::Fp64 => self.put("f64::NAN"),
                    _ => {
                        self.import(Import::Element);
                        let _ = write!(self.out, "< {ty} as Element> ::from_f64(f64::NAN)");
                    }
                }
                return;
            }
            let neg = v.is_sign_negative() && v != 0.0;
            let mag = v.abs();
            if neg {
                self.open(bare);
                self.put("- ");
            }
            if !matches!(d, DataType::Fp32 | DataType::Fp64) {
                self.import(Import::Element);
            }
            // The spellings of `Literal::f32_suffixed` / `f64_suffixed` (`2f32`, `0.5f64`).
            let _ = match d {
                DataType::Fp32 if mag.is_finite() => write!(self.out, "{}f32", mag as f32),
                DataType::Fp64 if mag.is_finite() => write!(self.out, "{mag}f64"),
                DataType::Fp32 => write!(self.out, "f32::INFINITY"),
                DataType::Fp64 => write!(self.out, "f64::INFINITY"),
                _ if mag.is_finite() => {
                    write!(self.out, "< {ty} as Element> ::from_f64({mag}f64)")
                }
                _ => write!(self.out, "< {ty} as Element> ::from_f64(f64::INFINITY)"),
            };
            if neg {
                self.close(bare);
            }
            return;
        }
        let ty = self.rust_ty(d);
        let v: i128 = match x {
            Constant::SizeT(u) => i128::from(u),
            Constant::Double(f) => f as i128,
            other => i128::from(other.as_i64()),
        };
        // The value in the literal's type (out of range wraps, as an `as` cast does), then
        // its sign and magnitude: `(- 5i8)`; the minimum has no positive magnitude.
        let (neg, mag, suffix, is_min) = match d {
            DataType::Int8 => signed(v as i8 as i64, i64::from(i8::MIN), "i8"),
            DataType::Int16 => signed(v as i16 as i64, i64::from(i16::MIN), "i16"),
            DataType::Int32 => signed(v as i32 as i64, i64::from(i32::MIN), "i32"),
            DataType::Int64 => signed(v as i64, i64::MIN, "i64"),
            DataType::UInt8 => (false, u64::from(v as u8), "u8", false),
            DataType::UInt16 => (false, u64::from(v as u16), "u16", false),
            DataType::UInt32 => (false, u64::from(v as u32), "u32", false),
            _ => (false, v as u64, "u64", false),
        };
        if is_min {
            let _ = write!(self.out, "{ty}::MIN");
            return;
        }
        if neg {
            self.open(bare);
            self.put("- ");
        }
        let _ = write!(self.out, "{}", mag);
        self.put(suffix);
        if neg {
            self.close(bare);
        }
    }

    /// Writes a scalar operand: a literal for constants, else the value's identifier.
    pub(super) fn put_scalar(&mut self, v: ValueId, bare: bool) {
        match self.m.values[v].constant {
            Some(c) => self.put_lit(c, self.dtype(v), bare),
            None => self.put_ident(v),
        }
    }

    /// Writes `v` (of type `from`) converted to `to`.
    pub(super) fn put_convert(&mut self, v: ValueId, from: DataType, to: DataType, bare: bool) {
        if from == to {
            return self.put_scalar(v, bare);
        }
        let prim = |d: DataType| d.is_numeric() && !matches!(d, DataType::Fp16 | DataType::Bf16);
        let t = self.rust_ty(to);
        if to == DataType::Bool {
            self.open(bare);
            self.put_scalar(v, false);
            self.put(" != ");
            self.put_lit(Constant::Int64(0), from, false);
            self.close(bare);
        } else if from == DataType::Bool && prim(to) {
            self.open(bare);
            self.put("u8::from(");
            self.put_scalar(v, false);
            let _ = write!(self.out, ") as {t}");
            self.close(bare);
        } else if from == DataType::Bool {
            self.import(Import::Element);
            let _ = write!(self.out, "< {t} as Element> ::from_f64(f64::from(u8::from(");
            self.put_scalar(v, false);
            self.put(")))");
        } else if prim(from) && prim(to) {
            self.open(bare);
            self.put_scalar(v, false);
            let _ = write!(self.out, " as {t}");
            self.close(bare);
        } else if from.is_float() && !to.is_float() {
            // `as` truncates toward zero (and saturates).
            self.import(Import::Element);
            self.import(Import::RoundMode);
            let _ = write!(
                self.out,
                "< {t} as Element> ::from_f64_rounded(Element::to_f64("
            );
            self.put_scalar(v, false);
            self.put("), RoundMode::CastTrunc)");
        } else {
            self.import(Import::Element);
            let _ = write!(self.out, "< {t} as Element> ::from_f64(Element::to_f64(");
            self.put_scalar(v, false);
            self.put("))");
        }
    }

    /// Writes a scalar operand converted to `to`.
    pub(super) fn put_scalar_as(&mut self, v: ValueId, to: DataType, bare: bool) {
        if let Some(c) = self.m.values[v].constant
            && to.is_numeric()
            && (to.is_float() || !c.is_float())
        {
            return self.put_lit(c, to, bare);
        }
        self.put_convert(v, self.dtype(v), to, bare);
    }

    /// Writes an index or extent, for a `usize` parameter (which types an unsuffixed
    /// literal: a suffix would only cost the lexer).
    pub(super) fn put_index(&mut self, i: Index) {
        match i {
            Index::Const(c) => {
                let _ = write!(self.out, "{}", usize::try_from(c).unwrap_or(usize::MAX));
            }
            Index::Value(v) if self.dtype(v) == DataType::Bool => {
                self.put("usize::from(");
                self.put_scalar(v, false);
                self.put(")");
            }
            // Checked: a negative offset is an error naming it (`as usize` would wrap it).
            Index::Value(v) => {
                self.put("::pto::offset(");
                self.put_scalar(v, true);
                self.put(")?");
            }
        }
    }

    /// Writes `[a, b, ..]`, each item by `item`.
    pub(super) fn put_bracketed<T: Copy>(
        &mut self,
        items: &[T],
        mut item: impl FnMut(&mut Self, T),
    ) {
        self.put("[");
        for (k, &x) in items.iter().enumerate() {
            if k > 0 {
                self.put(", ");
            }
            item(self, x);
        }
        self.put("]");
    }

    /// Writes `[i, j, ..]` (the `&` is the caller's).
    pub(super) fn put_indices(&mut self, offsets: &[Index]) {
        self.put_bracketed(offsets, Self::put_index);
    }

    /// The end of a `tload` / `tstore` call: `, [offsets]` as the `i64`s they are
    /// ([`pto::isa::Offset`]), or the `&[offsets], &[window]` of the `_window` form (more
    /// than 2-D), then `)?;`.
    pub(super) fn put_transfer_end(&mut self, offsets: &[Index], window: &[u64]) {
        self.put_transfer_args(offsets, window);
        self.put(") ? ; ");
    }

    /// The offsets (and, past rank 2, the window) of a transfer call, after its tile.
    pub(super) fn put_transfer_args(&mut self, offsets: &[Index], window: &[u64]) {
        if window.len() > 2 {
            self.put(", &");
            self.put_indices(offsets);
            self.put(", ");
            self.put_window(window);
        } else {
            self.put(", ");
            self.put_bracketed(offsets, |w, o| match o {
                // Past `i64::MAX` is out of bounds of any tensor, as `i64::MAX` is.
                Index::Const(c) => {
                    let _ = write!(w.out, "{}", c.min(i64::MAX as u64));
                }
                Index::Value(v) if w.dtype(v) == DataType::Bool => {
                    w.put("i64::from(");
                    w.put_scalar(v, false);
                    w.put(")");
                }
                Index::Value(v) => w.put_scalar_as(v, DataType::Int64, true),
            });
        }
    }

    fn put_window(&mut self, window: &[u64]) {
        self.put("&");
        self.put_bracketed(window, |w, s| {
            let _ = write!(w.out, "{}", s as usize);
        });
    }

    pub(super) fn put_tref(&mut self, t: TileRef) {
        match t {
            TileRef::Slot(s) => self.put_tile(s),
            // A tile parameter is already a reference (`&Tile` or `&mut Tile`, which the
            // callee's `&Tile` parameter reborrows as shared).
            TileRef::Param(v) => self.put_ident(v),
        }
    }
}
