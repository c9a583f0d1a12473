//! Instructions: structured control flow, scalar ops and `pto::isa` calls.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use pto_ir::{Constant, DataType, Opcode, ValueId};

use super::{Import, Writer, braced};
use crate::isa::{Arg, Inst, Isa, TileId, TileRef};

impl<'a> Writer<'a> {
    pub(super) fn insts(&mut self, insts: &[Inst]) -> TokenStream {
        let mut out = TokenStream::new();
        let mut rest = insts;
        while let Some((i, tail)) = rest.split_first() {
            // A marked chain replaces the instructions it spans.
            if let Inst::Fused(c) = i {
                out.extend(self.fused(c));
                rest = tail.get(c.len..).unwrap_or_default();
            } else if let Inst::ExpandStore(e) = i {
                out.extend(self.expand_store(e));
                rest = tail.get(e.len..).unwrap_or_default();
            } else if let Inst::MapRowSum(e) = i {
                let span = tail.get(..e.len).unwrap_or_default();
                out.extend(self.map_rowsum(e, span));
                rest = tail.get(e.len..).unwrap_or_default();
            } else if let Inst::LoadView(v) = i {
                let span = tail.get(..v.len).unwrap_or_default();
                let more = tail.get(v.len..v.covers()).unwrap_or_default();
                out.extend(self.load_view_rows(v, span, more));
                rest = tail.get(v.covers()..).unwrap_or_default();
            } else if let Inst::Share(s) = i {
                // The span with the tiles renamed: a move onto itself is then nothing, and
                // an accumulation into its own input the in-place call.
                let span = tail.get(..s.len).unwrap_or_default();
                out.extend(self.insts(&crate::lower::share::renamed(span, &s.renames)));
                rest = tail.get(s.len..).unwrap_or_default();
            } else {
                out.extend(self.inst(i));
                rest = tail;
            }
        }
        out
    }

    /// The body (or condition) of a loop nested in the code being built.
    fn loop_body(&mut self, insts: &[Inst]) -> TokenStream {
        let outer = self.par_depth;
        self.par_depth = outer.map(|d| d + 1);
        let body = self.insts(insts);
        self.par_depth = outer;
        body
    }

    fn inst(&mut self, i: &Inst) -> TokenStream {
        match i {
            // Built in place of the instructions it spans, by `insts`.
            Inst::Fused(_)
            | Inst::ExpandStore(_)
            | Inst::MapRowSum(_)
            | Inst::LoadView(_)
            | Inst::Share(_) => TokenStream::new(),
            // The load of a tile read in place, and its row reductions (`load_view`).
            Inst::Load { dst, .. } if self.viewed(*dst) => TokenStream::new(),
            Inst::Op { isa, dst, args } if self.view_reduction(*isa, args).is_some() => self
                .view_reduction(*isa, args)
                .map(|v| self.reduce_view(*isa, *dst, &v))
                .unwrap_or_default(),
            // Only in the A2A3 parts of a split kernel, which the host code does not run.
            Inst::Handoff(_) => TokenStream::new(),
            Inst::Op { isa, dst, args } => self.op(*isa, *dst, args),
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => {
                let f = if window.len() > 2 {
                    "tload_window"
                } else {
                    "tload"
                };
                let f = self.isa(f, "");
                let dst = self.tile(*dst);
                // Already a `&Tensor` (or a `&mut Tensor`, reborrowed as shared).
                let tensor = self.ident(*tensor);
                let args = self.transfer_args(offsets, window);
                quote!(#f(#dst, #tensor #args)?;)
            }
            Inst::Store {
                tensor,
                add,
                src,
                offsets,
                window,
            } => {
                // `tstore`, `tstore_add`, `tstore_cvt` (a converting store from an
                // accumulator) and `tstore_quant` (a quantising one, with the scale 1.0),
                // the last two with a `StoreMode` (`Write` or `Add`), each with a `_window`
                // form for rank 3 / 4.
                let from = match src {
                    TileRef::Slot(t) => self.p.tile(*t).map(|s| s.dtype),
                    TileRef::Param(_) => None,
                };
                let to = self.dtype(*tensor);
                let quant = from.is_some_and(|f| pto_ir::sem::store::quant_of(f, to).is_some());
                let converts = from.is_some_and(|f| f != to);
                let f = match (*add, converts, quant) {
                    (false, false, _) => "tstore",
                    (true, false, _) => "tstore_add",
                    (_, true, false) => "tstore_cvt",
                    (_, true, true) => "tstore_quant",
                };
                let f = self.isa(f, if window.len() > 2 { "_window" } else { "" });
                // A `&mut Tensor` parameter, reborrowed by the call.
                let tensor = self.store_tensor(*tensor);
                let src = self.tref(*src);
                let args = self.transfer_args(offsets, window);
                let mode = if *add {
                    quote!(::pto::isa::StoreMode::Add)
                } else {
                    quote!(::pto::isa::StoreMode::Write)
                };
                match (converts, quant) {
                    (true, true) => quote!(#f(#tensor, #src #args, 1.0f32, #mode)?;),
                    (true, false) => quote!(#f(#tensor, #src #args, #mode)?;),
                    _ => quote!(#f(#tensor, #src #args)?;),
                }
            }
            Inst::Read {
                result,
                tensor,
                offsets,
            } => {
                // `tread` returns `Err` for an index outside the tensor.
                let id = self.ident(*result);
                let ty = self.rust_ty(self.dtype(*result));
                let f = self.isa("tread", "");
                let tensor = self.ident(*tensor);
                let args = self.transfer_args(offsets, &[]);
                quote!(let #id: #ty = #f(#tensor #args)?;)
            }
            Inst::Write {
                tensor,
                value,
                offsets,
            } => {
                let f = self.isa("twrite", "");
                let t = self.ident(*tensor);
                let value = self.scalar_as(*value, self.dtype(*tensor), true);
                let args = self.transfer_args(offsets, &[]);
                quote!(#f(#t, #value #args)?;)
            }
            Inst::Extract { dst, src, at } | Inst::Insert { dst, src, at } => {
                let f = if matches!(i, Inst::Extract { .. }) {
                    "textract"
                } else {
                    "tinsert"
                };
                let f = self.isa(f, "");
                let dst = self.tile(*dst);
                let src = self.tref(*src);
                let (row, col) = (self.index(at[0]), self.index(at[1]));
                quote!(#f(#dst, #src, #row, #col)?;)
            }
            Inst::Cvt { dst, src, round } => {
                self.import(Import::RoundMode);
                let f = self.isa("tcvt", "");
                let dst = self.tile(*dst);
                let src = self.tref(*src);
                let round = Ident::new(round.rust(), Span::call_site());
                quote!(#f(#dst, #src, RoundMode::#round);)
            }
            Inst::SetValid { dst, dims } => {
                let dst = self.tile(*dst);
                let (rows, cols) = (self.index(dims[0]), self.index(dims[1]));
                quote!(#dst.set_valid(#rows, #cols)?;)
            }
            Inst::FullValid(t) => {
                let (r, c) = self.p.tile(*t).map_or((1, 1), |s| (s.rows, s.cols));
                let t = self.tile(*t);
                let rows = Literal::usize_unsuffixed(r as usize);
                let cols = Literal::usize_unsuffixed(c as usize);
                quote!(#t.set_valid(#rows, #cols)?;)
            }
            // The CPU runs one instruction at a time: pipe synchronization has nothing to
            // order (LOWERED and CPP keep it).
            Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_) => TokenStream::new(),
            Inst::Scalar { op, result, args } => {
                let id = self.ident(*result);
                let ty = self.rust_ty(self.dtype(*result));
                let e = self.scalar_op(*op, *result, args);
                quote!(let #id: #ty = #e;)
            }
            Inst::Assign(pairs) => {
                if let [(d, s)] = pairs.as_slice() {
                    let id = self.ident(*d);
                    let s = self.scalar_as(*s, self.dtype(*d), true);
                    quote!(#id = #s;)
                } else {
                    let ds: Vec<Ident> = pairs.iter().map(|&(d, _)| self.ident(d)).collect();
                    let ss: Vec<TokenStream> = pairs
                        .iter()
                        .map(|&(d, s)| self.scalar_as(s, self.dtype(d), true))
                        .collect();
                    quote!((#(#ds),*) = (#(#ss),*);)
                }
            }
            Inst::For {
                iv,
                lb,
                ub,
                step,
                carried,
                body,
                results,
                exec,
            } => {
                if matches!(exec, crate::isa::LoopExec::Parallel { .. }) {
                    let rows = crate::lower::row_parts(&self.p.module, i);
                    return self.parallel_loop(*iv, [*lb, *ub, *step], body, rows);
                }
                let mut out = self.carried_decls(carried);
                let ivt = self.dtype(*iv);
                let iv = self.ident(*iv);
                let k = self.m.values[*step].constant.map(|c| c.as_i64());
                let empty = self.empty_guard(carried.is_empty() && results.is_empty(), body);
                let lo = self.bound(*lb, *ub, ivt);
                let hi = self.bound(*ub, *lb, ivt);
                let mut range = if k != Some(1) || empty.is_some() {
                    quote!((#lo..#hi))
                } else {
                    quote!(#lo..#hi)
                };
                match k {
                    Some(1) => {}
                    Some(k) if k > 0 => {
                        let k = Literal::usize_unsuffixed(k as usize);
                        range = quote!(#range.step_by(#k));
                    }
                    _ => {
                        let step = self.scalar_as(*step, ivt, false);
                        range = quote! {
                            #range.step_by({
                                let __step = #step;
                                if __step <= 0 as _ {
                                    return ::core::result::Result::Err(::pto::Error::Unsupported(
                                        ::std::format!("loop step {} is not positive", __step)));
                                }
                                __step as usize
                            })
                        };
                    }
                }
                if let Some(guard) = empty {
                    // Every iteration after the first would do nothing.
                    range = quote!(#range.take(if #guard { 1 } else { usize::MAX }));
                }
                let mut block = quote!(__pto_meter.tick()?;);
                block.extend(self.loop_body(body));
                let block = braced(block);
                out.extend(quote!(for #iv in #range #block));
                out.extend(self.result_decls(results));
                out
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                let mut out = self.carried_decls(carried);
                let mut block = quote!(__pto_meter.tick()?;);
                block.extend(self.loop_body(cond));
                let c = self.scalar(*cond_value, false);
                block.extend(quote!(if !#c { break; }));
                block.extend(self.loop_body(body));
                let block = braced(block);
                out.extend(quote!(loop #block));
                out.extend(self.result_decls(results));
                out
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => {
                let mut out = TokenStream::new();
                for &r in results {
                    let id = self.ident(r);
                    let ty = self.rust_ty(self.dtype(r));
                    out.extend(quote!(let #id: #ty;));
                }
                let c = self.scalar(*cond, false);
                let then_body = braced(self.insts(then_body));
                let else_body = braced(self.insts(else_body));
                out.extend(quote!(if #c #then_body else #else_body));
                out
            }
            Inst::Break => quote!(break;),
            // At the top of a parallel loop's body, the next iteration is the closure's return.
            Inst::Continue if self.par_depth == Some(0) => {
                quote!(return ::core::result::Result::Ok(());)
            }
            Inst::Continue => quote!(continue;),
            Inst::Return(vals) => {
                let ok = self.ok(vals);
                quote!(return #ok;)
            }
            Inst::Call {
                callee,
                args,
                results,
            } => self.func_call(callee, args, results),
        }
    }

    /// `let (r0, r1): (T0, T1) = self::callee(args)?;`: the callee's host function, a sibling
    /// item of the caller's in the program's module. A tensor the callee writes is reborrowed
    /// mutably (`&mut *out`), any other shared (`&*x`).
    fn func_call(&mut self, callee: &str, args: &[ValueId], results: &[ValueId]) -> TokenStream {
        let m = self.m;
        let params = m
            .function_by_name(callee)
            .map(|f| m.funcs[f].sig.params.as_slice())
            .unwrap_or_default();
        let lhs = match results {
            [] => TokenStream::new(),
            [r] => {
                let id = self.ident(*r);
                let ty = self.rust_ty(self.dtype(*r));
                quote!(let #id: #ty =)
            }
            rs => {
                let ids: Vec<Ident> = rs.iter().map(|&r| self.ident(r)).collect();
                let tys: Vec<TokenStream> =
                    rs.iter().map(|&r| self.rust_ty(self.dtype(r))).collect();
                quote!(let (#(#ids,)*): (#(#tys,)*) =)
            }
        };
        let name = if super::valid_ident(callee) {
            Ident::new(callee, Span::call_site())
        } else {
            format_ident!("kernel")
        };
        let mut call_args = Vec::new();
        for (k, &a) in args.iter().enumerate() {
            let param = params.get(k);
            call_args.push(match &m.values[a].ty {
                pto_ir::Type::Tensor(_) => {
                    let id = self.ident(a);
                    if param.is_some_and(|p| p.direction != pto_ir::Direction::In) {
                        quote!(&mut *#id)
                    } else {
                        quote!(&*#id)
                    }
                }
                _ => {
                    let d = param
                        .and_then(|p| m.values[p.value].ty.dtype())
                        .unwrap_or_else(|| self.dtype(a));
                    self.scalar_as(a, d, false)
                }
            });
        }
        quote!(#lhs self::#name(#(#call_args),*)?;)
    }

    /// Bound `v` of a `for` loop over `ivt` whose other bound is `other`: a constant as a
    /// plain integer (`(0..n)`) when `other`, not a constant, types the range and the value
    /// is a non-negative `i64`; else as `scalar_as` builds it (`(0i64..16)`).
    fn bound(&mut self, v: ValueId, other: ValueId, ivt: DataType) -> TokenStream {
        if ivt == DataType::Int64 && self.m.values[other].constant.is_none() {
            self.i64(v, false)
        } else {
            self.scalar_as(v, ivt, false)
        }
    }

    /// `v` as an `i64` where the code around types it (a typed field, a range whose other
    /// bound is an `i64`): a non-negative integer constant needs no suffix (`lb: 0`).
    pub(super) fn i64(&mut self, v: ValueId, bare: bool) -> TokenStream {
        match self.m.values[v].constant {
            Some(c) if !c.is_float() && c.as_i64() >= 0 => {
                let l = Literal::u64_unsuffixed(c.as_i64().unsigned_abs());
                quote!(#l)
            }
            _ => self.scalar_as(v, DataType::Int64, bare),
        }
    }

    fn carried_decls(&mut self, carried: &[(ValueId, ValueId)]) -> TokenStream {
        let mut out = TokenStream::new();
        for &(arg, init) in carried {
            let id = self.ident(arg);
            let d = self.dtype(arg);
            let ty = self.rust_ty(d);
            let init = self.scalar_as(init, d, true);
            out.extend(quote!(let mut #id: #ty = #init;));
        }
        out
    }

    fn result_decls(&mut self, results: &[(ValueId, ValueId)]) -> TokenStream {
        let mut out = TokenStream::new();
        for &(r, arg) in results {
            let id = self.ident(r);
            let ty = self.rust_ty(self.dtype(r));
            let arg = self.ident(arg);
            out.extend(quote!(let #id: #ty = #arg;));
        }
        out
    }

    /// A scalar-unit op as an expression, bare (it is a `let` value).
    fn scalar_op(&mut self, op: Opcode, result: ValueId, args: &[ValueId]) -> TokenStream {
        use Opcode::*;
        let d = self.dtype(result);
        let ad = args.first().map_or(d, |&a| self.dtype(a));
        let (a, b) = (args.first().copied(), args.get(1).copied());
        let infix = match op {
            ScalarEq => Some(quote!(==)),
            ScalarNe => Some(quote!(!=)),
            ScalarLt => Some(quote!(<)),
            ScalarLe => Some(quote!(<=)),
            ScalarGt => Some(quote!(>)),
            ScalarGe => Some(quote!(>=)),
            ScalarAnd | ScalarBitAnd => Some(quote!(&)),
            ScalarOr | ScalarBitOr => Some(quote!(|)),
            ScalarXor | ScalarBitXor => Some(quote!(^)),
            _ => None,
        };
        if let Some(infix) = infix {
            let (a, b) = (self.operand(a), self.operand(b));
            return quote!(#a #infix #b);
        }
        // The arithmetic calls the runtime's element functions, which are the semantics
        // module's definitions (`pto_ir::sem`).
        let (tr, f) = match op {
            ScalarAdd => (Import::Element, "add"),
            ScalarSub => (Import::Element, "sub"),
            ScalarMul => (Import::Element, "mul"),
            ScalarDiv => (Import::Element, "div"),
            ScalarRem => (Import::Element, "rem"),
            ScalarFloorDiv => (Import::Element, "floor_div"),
            ScalarFloorMod => (Import::Element, "floor_mod"),
            ScalarPow => (Import::Element, "pow"),
            ScalarMin => (Import::Element, "min"),
            ScalarMax => (Import::Element, "max"),
            ScalarShl => (Import::Int, "shl"),
            ScalarShr => (Import::Int, "shr"),
            ScalarNeg => (Import::Element, "neg"),
            ScalarAbs => (Import::Element, "abs"),
            ScalarNot | ScalarBitNot => {
                let a = self.operand(a);
                return quote!(!#a);
            }
            ScalarCast => {
                return match a {
                    Some(a) => self.convert(a, ad, d, true),
                    None => TokenStream::new(),
                };
            }
            other => {
                self.err(format!("`{other}` is not a scalar-unit op"));
                return self.operand(a);
            }
        };
        self.import(tr);
        let (tr, f) = (tr.ident(), Ident::new(f, Span::call_site()));
        let a = self.operand(a);
        if matches!(op, ScalarNeg | ScalarAbs) {
            return quote!(#tr::#f(#a));
        }
        let b = match b {
            // Shift amounts may have another integer type; the runtime's shifts take the
            // value's type.
            Some(b) if matches!(op, ScalarShl | ScalarShr) => self.scalar_as(b, ad, false),
            b => self.operand(b),
        };
        quote!(#tr::#f(#a, #b))
    }

    /// An operand of a scalar op, if there is one.
    fn operand(&mut self, v: Option<ValueId>) -> TokenStream {
        match v {
            Some(v) => self.scalar(v, false),
            None => TokenStream::new(),
        }
    }

    /// `{f}{suffix}(dst, args..);`, a call of `pto::isa::{f}{suffix}`.
    fn call(
        &mut self,
        f: &'static str,
        suffix: &'static str,
        dst: TileId,
        args: &[Arg],
    ) -> TokenStream {
        let f = self.isa(f, suffix);
        let dst_id = self.tile(dst);
        let dtype = match self.p.tile(dst).map_or(DataType::Fp32, |s| s.dtype) {
            // A mask's scalar operand (`TCMPS`) has the compared tile's dtype.
            DataType::Bool => args
                .iter()
                .find_map(|a| match a {
                    Arg::Tile(t) => self.tref_dtype(*t),
                    _ => None,
                })
                .unwrap_or(DataType::Fp32),
            d => d,
        };
        let args: Vec<TokenStream> = args
            .iter()
            .map(|a| match *a {
                Arg::Tile(t) => {
                    let t = self.tref(t);
                    quote!(#t)
                }
                Arg::Scalar(v) => self.scalar_as(v, dtype, true),
                Arg::Imm(x) => self.lit(Constant::Double(x), dtype, true),
                Arg::Cmp(k) => {
                    let k = Ident::new(&format!("{k:?}"), Span::call_site());
                    quote!(::pto::isa::CmpMode::#k)
                }
            })
            .collect();
        quote!(#f(#dst_id #(, #args)*);)
    }

    /// The element dtype of a tile operand.
    fn tref_dtype(&self, t: TileRef) -> Option<DataType> {
        match t {
            TileRef::Slot(id) => self.p.tile(id).map(|s| s.dtype),
            TileRef::Param(v) => self.m.values[v].ty.dtype(),
        }
    }

    fn op(&mut self, isa: Isa, dst: TileId, args: &[Arg]) -> TokenStream {
        use std::slice::from_ref;
        let is_dst = |a: &Arg| *a == Arg::Tile(TileRef::Slot(dst));
        let f = isa.rust_fn();
        match args {
            // TMOV onto itself is nothing.
            [a] if isa == Isa::TMov && is_dst(a) => TokenStream::new(),
            [a] if isa.is_unary() && is_dst(a) => self.call(f, "_inplace", dst, &[]),
            [_] => self.call(f, "", dst, args),
            [a, b] if isa.is_binary() || isa.is_expand_op() => {
                if is_dst(a) && is_dst(b) {
                    self.err(format!("{} reads its destination twice", isa.name()));
                    TokenStream::new()
                } else if is_dst(a) {
                    self.call(f, "_inplace", dst, from_ref(b))
                } else if is_dst(b) && isa.is_binary() {
                    let suffix = if isa.is_commutative() {
                        "_inplace"
                    } else {
                        "_inplace_rev"
                    };
                    self.call(f, suffix, dst, from_ref(a))
                } else if is_dst(b) {
                    self.err(format!(
                        "{} with its broadcast operand as destination",
                        isa.name()
                    ));
                    TokenStream::new()
                } else {
                    self.call(f, "", dst, args)
                }
            }
            [a, k] if isa.is_scalar_form() => match (a, k) {
                (Arg::Tile(_), _) if is_dst(a) => self.call(f, "_inplace", dst, from_ref(k)),
                (Arg::Tile(_), _) => self.call(f, "", dst, args),
                // Scalar first (`TDIVS(d, k, s)`).
                (_, Arg::Tile(_)) if is_dst(k) => self.call(f, "_rev_inplace", dst, from_ref(a)),
                _ => self.call(f, "_rev", dst, args),
            },
            [c, _, _] if isa == Isa::TMatmulAcc && is_dst(c) => {
                let ab = args.get(1..).unwrap_or_default();
                self.call("tmatmul_acc", "_inplace", dst, ab)
            }
            args => {
                if args.iter().any(is_dst) {
                    self.err(format!("{} cannot read its destination", isa.name()));
                }
                self.call(f, "", dst, args)
            }
        }
    }
}
