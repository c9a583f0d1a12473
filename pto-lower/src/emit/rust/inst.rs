//! Instructions: structured control flow, scalar ops and `pto::isa` calls.

use std::fmt::Write;

use pto_ir::{Constant, DataType, Opcode, ValueId};

use super::{Import, Writer};
use crate::isa::{Arg, Inst, Isa, TileId, TileRef};

impl<'a> Writer<'a> {
    pub(super) fn put_insts(&mut self, insts: &[Inst]) {
        let mut rest = insts;
        while let Some((i, tail)) = rest.split_first() {
            // A marked chain replaces the instructions it spans.
            if let Inst::Fused(c) = i {
                self.put_fused(c);
                rest = tail.get(c.len..).unwrap_or_default();
            } else if let Inst::ExpandStore(e) = i {
                self.put_expand_store(e);
                rest = tail.get(e.len..).unwrap_or_default();
            } else if let Inst::MapRowSum(e) = i {
                self.put_map_rowsum(e);
                rest = tail.get(e.len..).unwrap_or_default();
            } else {
                self.put_inst(i);
                rest = tail;
            }
        }
    }

    /// The body (or condition) of a loop nested in the code being written.
    fn put_loop_body(&mut self, insts: &[Inst]) {
        let outer = self.par_depth;
        self.par_depth = outer.map(|d| d + 1);
        self.put_insts(insts);
        self.par_depth = outer;
    }

    fn put_inst(&mut self, i: &Inst) {
        match i {
            // Written in place of the instructions it spans, by `put_insts`.
            Inst::Fused(_) | Inst::ExpandStore(_) | Inst::MapRowSum(_) => {}
            Inst::Op { isa, dst, args } => self.put_op(*isa, *dst, args),
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => {
                self.put_isa(
                    if window.len() > 2 {
                        "tload_window"
                    } else {
                        "tload"
                    },
                    "",
                );
                self.put("(");
                self.put_tile(*dst);
                // Already a `&Tensor` (or a `&mut Tensor`, reborrowed as shared).
                self.put(", ");
                self.put_ident(*tensor);
                self.put_transfer_end(offsets, window);
            }
            Inst::Store {
                tensor,
                add,
                src,
                offsets,
                window,
            } => {
                // `tstore`, `tstore_add`, `tstore_cvt` (a converting store from an
                // accumulator), `tstore_quant` (a quantising one, with the scale 1.0), and
                // their `_add` forms, each with a `_window` form for rank 3 / 4.
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
                    (false, true, false) => "tstore_cvt",
                    (true, true, false) => "tstore_add_cvt",
                    (false, true, true) => "tstore_quant",
                    (true, true, true) => "tstore_add_quant",
                };
                self.put_isa(f, if window.len() > 2 { "_window" } else { "" });
                // A `&mut Tensor` parameter, reborrowed by the call.
                self.put("(");
                self.put_store_tensor(*tensor);
                self.put(", ");
                self.put_tref(*src);
                self.put_transfer_args(offsets, window);
                self.put(if quant { ", 1.0f32) ? ; " } else { ") ? ; " });
            }
            Inst::Read {
                result,
                tensor,
                offsets,
            } => {
                // `tread` returns `Err` for an index outside the tensor.
                self.put("let ");
                self.put_ident(*result);
                let ty = self.rust_ty(self.dtype(*result));
                let _ = write!(self.out, ": {ty} = ");
                self.put_isa("tread", "");
                self.put("(");
                self.put_ident(*tensor);
                self.put_transfer_end(offsets, &[]);
            }
            Inst::Write {
                tensor,
                value,
                offsets,
            } => {
                self.put_isa("twrite", "");
                self.put("(");
                self.put_ident(*tensor);
                self.put(", ");
                self.put_scalar_as(*value, self.dtype(*tensor), true);
                self.put_transfer_end(offsets, &[]);
            }
            Inst::Extract { dst, src, at } | Inst::Insert { dst, src, at } => {
                let f = if matches!(i, Inst::Extract { .. }) {
                    "textract"
                } else {
                    "tinsert"
                };
                self.put_isa(f, "");
                self.put("(");
                self.put_tile(*dst);
                self.put(", ");
                self.put_tref(*src);
                self.put(", ");
                self.put_index(at[0]);
                self.put(", ");
                self.put_index(at[1]);
                self.put(") ? ; ");
            }
            Inst::Cvt { dst, src, round } => {
                self.import(Import::RoundMode);
                self.put_isa("tcvt", "");
                self.put("(");
                self.put_tile(*dst);
                self.put(", ");
                self.put_tref(*src);
                let _ = write!(self.out, ", RoundMode::{}); ", round.rust());
            }
            Inst::SetValid { dst, dims } => {
                self.put_tile(*dst);
                self.put(".set_valid(");
                self.put_index(dims[0]);
                self.put(", ");
                self.put_index(dims[1]);
                self.put(") ? ; ");
            }
            Inst::FullValid(t) => {
                self.put_tile(*t);
                let (r, c) = self.p.tile(*t).map_or((1, 1), |s| (s.rows, s.cols));
                self.put(".set_valid(");
                let _ = write!(self.out, "{}", r as usize as u64);
                self.put(", ");
                let _ = write!(self.out, "{}", c as usize as u64);
                self.put(") ? ; ");
            }
            // The CPU runs one instruction at a time: pipe synchronization has nothing to
            // order (LOWERED and CPP keep it).
            Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_) => {}
            Inst::Scalar { op, result, args } => {
                self.put("let ");
                self.put_ident(*result);
                let ty = self.rust_ty(self.dtype(*result));
                let _ = write!(self.out, ": {ty} = ");
                self.put_scalar_op(*op, *result, args);
                self.put("; ");
            }
            Inst::Assign(pairs) => {
                if let [(d, s)] = pairs.as_slice() {
                    self.put_ident(*d);
                    self.put(" = ");
                    self.put_scalar_as(*s, self.dtype(*d), true);
                } else {
                    self.put("(");
                    for (k, &(d, _)) in pairs.iter().enumerate() {
                        if k > 0 {
                            self.put(", ");
                        }
                        self.put_ident(d);
                    }
                    self.put(") = (");
                    for (k, &(d, s)) in pairs.iter().enumerate() {
                        if k > 0 {
                            self.put(", ");
                        }
                        self.put_scalar_as(s, self.dtype(d), true);
                    }
                    self.put(")");
                }
                self.put("; ");
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
                    return self.put_parallel_loop(*iv, [*lb, *ub, *step], body);
                }
                self.put_carried_decls(carried);
                let ivt = self.dtype(*iv);
                self.put("for ");
                self.put_ident(*iv);
                self.put(" in ");
                let k = self.m.values[*step].constant.map(|c| c.as_i64());
                let empty = self.empty_guard(carried.is_empty() && results.is_empty(), body);
                let ranged = k != Some(1) || empty.is_some();
                if ranged {
                    self.put("(");
                }
                self.put_bound(*lb, *ub, ivt);
                self.put(" .. ");
                self.put_bound(*ub, *lb, ivt);
                match k {
                    Some(1) => {}
                    Some(k) if k > 0 => {
                        self.put(").step_by(");
                        let _ = write!(self.out, "{}", k as usize as u64);
                        self.put(")");
                    }
                    _ => {
                        self.put(").step_by({ let __step = ");
                        self.put_scalar_as(*step, ivt, false);
                        self.put(
                            "; if __step <= 0 as _ { return ::core::result::Result::Err(\
                             ::pto::Error::Unsupported(::std::format!(\
                             \"loop step {} is not positive\", __step))); } __step as usize })",
                        );
                    }
                }
                if let Some(guard) = empty {
                    // Every iteration after the first would do nothing.
                    if k == Some(1) {
                        self.put(")");
                    }
                    let _ = write!(self.out, ".take(if {guard} {{ 1 }} else {{ usize::MAX }})");
                }
                self.put(" { __pto_meter.tick()? ; ");
                self.put_loop_body(body);
                self.put("} ");
                self.put_result_decls(results);
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                self.put_carried_decls(carried);
                self.put("loop { __pto_meter.tick()? ; ");
                self.put_loop_body(cond);
                self.put("if ! ");
                self.put_scalar(*cond_value, false);
                self.put(" { break; } ");
                self.put_loop_body(body);
                self.put("} ");
                self.put_result_decls(results);
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => {
                for &r in results {
                    self.put("let ");
                    self.put_ident(r);
                    let ty = self.rust_ty(self.dtype(r));
                    let _ = write!(self.out, ": {ty}; ");
                }
                self.put("if ");
                self.put_scalar(*cond, false);
                self.put(" { ");
                self.put_insts(then_body);
                self.put("} else { ");
                self.put_insts(else_body);
                self.put("} ");
            }
            Inst::Break => self.put("break; "),
            // At the top of a parallel loop's body, the next iteration is the closure's return.
            Inst::Continue if self.par_depth == Some(0) => {
                self.put("return ::core::result::Result::Ok(()); ")
            }
            Inst::Continue => self.put("continue; "),
            Inst::Return(vals) => {
                self.put("return ");
                self.put_ok(vals);
                self.put("; ");
            }
            Inst::Call {
                callee,
                args,
                results,
            } => self.put_func_call(callee, args, results),
        }
    }

    /// `let (r0, r1): (T0, T1) = self::callee(args)?;`: the callee's host function, a sibling
    /// item of the caller's in the program's module. A tensor the callee writes is reborrowed
    /// mutably (`&mut *out`), any other shared (`&*x`).
    fn put_func_call(&mut self, callee: &str, args: &[ValueId], results: &[ValueId]) {
        let m = self.m;
        let params = m
            .function_by_name(callee)
            .map(|f| m.funcs[f].sig.params.as_slice())
            .unwrap_or_default();
        match results {
            [] => {}
            [r] => {
                self.put("let ");
                self.put_ident(*r);
                let ty = self.rust_ty(self.dtype(*r));
                let _ = write!(self.out, ": {ty} = ");
            }
            rs => {
                self.put("let (");
                for &r in rs {
                    self.put_ident(r);
                    self.put(", ");
                }
                self.put("): (");
                for &r in rs {
                    let ty = self.rust_ty(self.dtype(r));
                    let _ = write!(self.out, "{ty}, ");
                }
                self.put(") = ");
            }
        }
        self.put("self:: ");
        self.put(if super::valid_ident(callee) {
            callee
        } else {
            "kernel"
        });
        self.put("(");
        for (k, &a) in args.iter().enumerate() {
            if k > 0 {
                self.put(", ");
            }
            let param = params.get(k);
            match &m.values[a].ty {
                pto_ir::Type::Tensor(_) => {
                    let writes = param.is_some_and(|p| p.direction != pto_ir::Direction::In);
                    self.put(if writes { "&mut * " } else { "& * " });
                    self.put_ident(a);
                }
                _ => {
                    let d = param
                        .and_then(|p| m.values[p.value].ty.dtype())
                        .unwrap_or_else(|| self.dtype(a));
                    self.put_scalar_as(a, d, false);
                }
            }
        }
        self.put(") ? ; ");
    }

    /// Writes bound `v` of a `for` loop over `ivt` whose other bound is `other`: a constant
    /// as a plain integer (`(0 .. n)`) when `other`, not a constant, types the range and the
    /// value is a non-negative `i64`; else as `put_scalar_as` does (`(0i64 .. 16)`).
    fn put_bound(&mut self, v: ValueId, other: ValueId, ivt: DataType) {
        if ivt == DataType::Int64 && self.m.values[other].constant.is_none() {
            self.put_i64(v, false);
        } else {
            self.put_scalar_as(v, ivt, false);
        }
    }

    /// Writes `v` as an `i64` where the code around types it (a typed field, a range whose
    /// other bound is an `i64`): a non-negative integer constant needs no suffix (`lb: 0`).
    pub(super) fn put_i64(&mut self, v: ValueId, bare: bool) {
        match self.m.values[v].constant {
            Some(c) if !c.is_float() && c.as_i64() >= 0 => {
                let _ = write!(self.out, "{}", c.as_i64().unsigned_abs());
            }
            _ => self.put_scalar_as(v, DataType::Int64, bare),
        }
    }

    fn put_carried_decls(&mut self, carried: &[(ValueId, ValueId)]) {
        for &(arg, init) in carried {
            self.put("let mut ");
            self.put_ident(arg);
            let d = self.dtype(arg);
            let ty = self.rust_ty(d);
            let _ = write!(self.out, ": {ty} = ");
            self.put_scalar_as(init, d, true);
            self.put("; ");
        }
    }

    fn put_result_decls(&mut self, results: &[(ValueId, ValueId)]) {
        for &(r, arg) in results {
            self.put("let ");
            self.put_ident(r);
            let ty = self.rust_ty(self.dtype(r));
            let _ = write!(self.out, ": {ty} = ");
            self.put_ident(arg);
            self.put("; ");
        }
    }

    /// Writes a scalar-unit op as an expression, bare (it is a `let` value).
    fn put_scalar_op(&mut self, op: Opcode, result: ValueId, args: &[ValueId]) {
        use Opcode::*;
        let d = self.dtype(result);
        let ad = args.first().map_or(d, |&a| self.dtype(a));
        let (a, b) = (args.first().copied(), args.get(1).copied());
        // The trait whose function the op calls, if it is a call (`Element::add(a, b)`); the
        // text before (after the trait), between and after the operands (`None`: no second
        // operand), and whether `a` and `)` follow (`a.checked_rem(b).unwrap_or(a)`).
        let (el, int) = (Some(Import::Element), Some(Import::Int));
        let (call, pre, mid, post, a_again) = match op {
            // The arithmetic names the runtime's element functions, which are the semantics
            // module's definitions (`pto_ir::sem`).
            ScalarAdd => (el, "::add(", Some(", "), ")", false),
            ScalarSub => (el, "::sub(", Some(", "), ")", false),
            ScalarMul => (el, "::mul(", Some(", "), ")", false),
            ScalarDiv => (el, "::div(", Some(", "), ")", false),
            ScalarRem => (el, "::rem(", Some(", "), ")", false),
            ScalarFloorDiv => (el, "::floor_div(", Some(", "), ")", false),
            ScalarFloorMod => (el, "::floor_mod(", Some(", "), ")", false),
            ScalarPow => (el, "::pow(", Some(", "), ")", false),
            ScalarMin => (el, "::min(", Some(", "), ")", false),
            ScalarMax => (el, "::max(", Some(", "), ")", false),
            ScalarEq => (None, "", Some(" == "), "", false),
            ScalarNe => (None, "", Some(" != "), "", false),
            ScalarLt => (None, "", Some(" < "), "", false),
            ScalarLe => (None, "", Some(" <= "), "", false),
            ScalarGt => (None, "", Some(" > "), "", false),
            ScalarGe => (None, "", Some(" >= "), "", false),
            ScalarAnd | ScalarBitAnd => (None, "", Some(" & "), "", false),
            ScalarOr | ScalarBitOr => (None, "", Some(" | "), "", false),
            ScalarXor | ScalarBitXor => (None, "", Some(" ^ "), "", false),
            ScalarShl => (int, "::shl(", Some(", "), ")", false),
            ScalarShr => (int, "::shr(", Some(", "), ")", false),
            ScalarNeg => (el, "::neg(", None, ")", false),
            ScalarAbs => (el, "::abs(", None, ")", false),
            ScalarNot | ScalarBitNot => (None, "! ", None, "", false),
            ScalarCast => {
                if let Some(a) = a {
                    self.put_convert(a, ad, d, true);
                }
                return;
            }
            other => {
                self.err(format!("`{other}` is not a scalar-unit op"));
                self.put_operand(a);
                return;
            }
        };
        if let Some(tr) = call {
            self.import(tr);
            self.put(tr.name());
        }
        self.put(pre);
        let a_at = self.out.len();
        self.put_operand(a);
        let a_text = a_at..self.out.len();
        if let Some(mid) = mid {
            self.put(mid);
            match b {
                // Shift amounts may have another integer type; the runtime's shifts take the
                // value's type.
                Some(b) if matches!(op, ScalarShl | ScalarShr) => self.put_scalar_as(b, ad, false),
                b => self.put_operand(b),
            }
        }
        self.put(post);
        if a_again {
            // Copied: written again, a literal of an unsupported type would report its error
            // twice.
            self.out.extend_from_within(a_text);
            self.put(")");
        }
    }

    /// Writes an operand of a scalar op, if there is one.
    fn put_operand(&mut self, v: Option<ValueId>) {
        if let Some(v) = v {
            self.put_scalar(v, false);
        }
    }

    /// Writes `{f}{suffix}(&mut dst, args..);`, a call of `pto::isa::{f}{suffix}`.
    fn put_call(&mut self, f: &'static str, suffix: &'static str, dst: TileId, args: &[Arg]) {
        self.put_isa(f, suffix);
        self.put("(");
        self.put_tile(dst);
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
        for a in args {
            self.put(", ");
            match *a {
                Arg::Tile(t) => self.put_tref(t),
                Arg::Scalar(v) => self.put_scalar_as(v, dtype, true),
                Arg::Imm(x) => self.put_lit(Constant::Double(x), dtype, true),
                Arg::Cmp(k) => {
                    let _ = write!(self.out, "::pto::isa::CmpMode::{k:?}");
                }
            }
        }
        self.put("); ");
    }

    /// The element dtype of a tile operand.
    fn tref_dtype(&self, t: TileRef) -> Option<DataType> {
        match t {
            TileRef::Slot(id) => self.p.tile(id).map(|s| s.dtype),
            TileRef::Param(v) => self.m.values[v].ty.dtype(),
        }
    }

    fn put_op(&mut self, isa: Isa, dst: TileId, args: &[Arg]) {
        use std::slice::from_ref;
        let is_dst = |a: &Arg| *a == Arg::Tile(TileRef::Slot(dst));
        let f = isa.rust_fn();
        match args {
            // TMOV onto itself is nothing.
            [a] if isa == Isa::TMov && is_dst(a) => {}
            [a] if isa.is_unary() && is_dst(a) => self.put_call(f, "_inplace", dst, &[]),
            [_] => self.put_call(f, "", dst, args),
            [a, b] if isa.is_binary() || isa.is_expand_op() => {
                if is_dst(a) && is_dst(b) {
                    self.err(format!("{} reads its destination twice", isa.name()));
                } else if is_dst(a) {
                    self.put_call(f, "_inplace", dst, from_ref(b));
                } else if is_dst(b) && isa.is_binary() {
                    let suffix = if isa.is_commutative() {
                        "_inplace"
                    } else {
                        "_inplace_rev"
                    };
                    self.put_call(f, suffix, dst, from_ref(a));
                } else if is_dst(b) {
                    self.err(format!(
                        "{} with its broadcast operand as destination",
                        isa.name()
                    ));
                } else {
                    self.put_call(f, "", dst, args);
                }
            }
            [a, k] if isa.is_scalar_form() => match (a, k) {
                (Arg::Tile(_), _) if is_dst(a) => self.put_call(f, "_inplace", dst, from_ref(k)),
                (Arg::Tile(_), _) => self.put_call(f, "", dst, args),
                // Scalar first (`TDIVS(d, k, s)`).
                (_, Arg::Tile(_)) if is_dst(k) => {
                    self.put_call(f, "_rev_inplace", dst, from_ref(a))
                }
                _ => self.put_call(f, "_rev", dst, args),
            },
            [c, _, _] if isa == Isa::TMatmulAcc && is_dst(c) => {
                let ab = args.get(1..).unwrap_or_default();
                self.put_call("tmatmul_acc", "_inplace", dst, ab)
            }
            args => {
                if args.iter().any(is_dst) {
                    self.err(format!("{} cannot read its destination", isa.name()));
                }
                self.put_call(f, "", dst, args);
            }
        }
    }
}
