//! Op-by-op lowering of the ops in a block: memory and data-movement ops, compute ops
//! (elementwise, reductions, matmul, casts) and the ISA's missing op forms (`binary`,
//! `compare`, `negate`). Control flow and slots stay in the parent module.

use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn op(&mut self, o: OpId, out: &mut Vec<Inst>) {
        let m = self.m;
        let op = &m.ops[o];
        let at = op.span;
        // Most ops have no events: one look at the table instead of one per list.
        let has_events = self.events.has(o);
        if has_events {
            for ev in self.events.of(o, EventRole::Wait) {
                out.push(Inst::WaitFlag(ev));
            }
        }
        let class = op.opcode.class();
        let res = op.results.first().copied();
        // A mask is a packed bit tile in the C++: only the instructions that know that layout
        // (compare, select, the bitwise ones, moves) may touch one.
        let is_mask = |v: &ValueId| {
            m.values[*v]
                .ty
                .as_tile()
                .is_some_and(|t| t.dtype == DataType::Bool)
        };
        let mask_ok = matches!(
            op.opcode,
            Opcode::TileAnd | Opcode::TileOr | Opcode::TileXor | Opcode::TileNot | Opcode::TileMove
        ) || matches!(
            class,
            OpClass::TileCompare | OpClass::Select | OpClass::Valid
        );
        if !mask_ok && (op.operands.iter().any(is_mask) || op.results.iter().any(is_mask)) {
            self.err(
                at,
                format!(
                    "`{}` cannot take or give a mask (a tile of bool)",
                    op.opcode
                ),
            );
        }
        let dst = |me: &mut Self| res.map(|r| me.slot(r, at)).unwrap_or(TileId(0));
        let isa_at = |k: usize| op.opcode.info().isa.get(k).copied();
        match class {
            OpClass::Const => {}
            OpClass::Call => self.call(o, out),
            OpClass::ScalarArith
            | OpClass::ScalarCompare
            | OpClass::ScalarLogic
            | OpClass::ScalarBitwise
            | OpClass::ScalarUnary
            | OpClass::ScalarNot
            | OpClass::ScalarBitNot
            | OpClass::ScalarCast => {
                if let Some(r) = res {
                    out.push(Inst::Scalar {
                        op: op.opcode,
                        result: r,
                        args: inline_of(&op.operands),
                    });
                }
            }
            OpClass::TileBinary | OpClass::TileBitwise => self.binary(o, out),
            OpClass::TileUnary | OpClass::TileUnaryFloat | OpClass::TileNot => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                match isa_at(0) {
                    Some(isa) => out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(a)]) }),
                    None => self.err(at, format!("`{}` has no ISA instruction", op.opcode)),
                }
            }
            OpClass::TileCast => {
                let d = dst(self);
                let src = self.tref(op.operands[0], at);
                let word = op.attrs.get("round").and_then(Attr::as_ident);
                let named = word.and_then(RoundMode::from_word);
                if let (Some(w), None) = (word, named) {
                    self.err(at, format!("`tile.cast` has no rounding mode `{w}`"));
                }
                let from = self.m.values[op.operands[0]].ty.dtype();
                let to = op.results.first().and_then(|&r| self.m.values[r].ty.dtype());
                match (from, to) {
                    (Some(from), Some(to)) => match RoundMode::for_cast(from, to, named) {
                        Some(round) => out.push(Inst::Cvt { dst: d, src, round }),
                        // The same dtype and no mode named: the identity, a copy.
                        None => out.push(Inst::Op { isa: Isa::TMov, dst: d, args: inline_of(&[Arg::Tile(src)]) }),
                    },
                    _ => self.err(at, "`tile.cast` of a value that is not a tile"),
                }
            }
            OpClass::TileCompare => self.compare(o, out),
            OpClass::Select => {
                let d = dst(self);
                let (m_, a, b) = (op.operands[0], op.operands[1], op.operands[2]);
                let (rm, ra) = (self.tref(m_, at), self.tref(a, at));
                let (isa, alt) = match m.values[b].ty {
                    Type::Tile(_) => (Isa::TSel, Arg::Tile(self.tref(b, at))),
                    _ => (Isa::TSelS, Arg::Scalar(b)),
                };
                out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(rm), Arg::Tile(ra), alt]) });
            }
            OpClass::Reshape => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                // TRESHAPE reinterprets the buffer, so both shapes must be rows without padding
                // in a vector tile (a row-major Vec tile whose rows are whole 32-byte blocks).
                let unpadded = |v: ValueId| {
                    let t = m.values[v].ty.as_tile();
                    t.is_some_and(|t| t.shape.last().is_some_and(|&c| c * u64::from(t.dtype.bits()) % 256 == 0))
                        && space_of(m, v) == Some(MemorySpace::Vec)
                };
                let (src, res_ok) = (op.operands[0], res.is_some_and(unpadded));
                if !(unpadded(src) && res_ok) {
                    self.err(
                        at,
                        "`reshape` reinterprets a vector tile's buffer (pto-isa's TRESHAPE): both shapes need rows of whole 32-byte blocks (8 f32, 16 f16 columns ...)",
                    );
                }
                out.push(Inst::Op { isa: Isa::TReshape, dst: d, args: inline_of(&[Arg::Tile(a)]) });
            }
            OpClass::RowReduce | OpClass::ColReduce | OpClass::RowArgReduce | OpClass::Transpose => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                match isa_at(0) {
                    Some(isa) => out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(a)]) }),
                    None => self.err(at, format!("`{}` has no ISA instruction", op.opcode)),
                }
            }
            OpClass::RowExpand | OpClass::ColExpand => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                match isa_at(0) {
                    Some(isa) => {
                        out.push(Inst::FullValid(d));
                        out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(a)]) });
                    }
                    None => self.err(at, format!("`{}` has no ISA instruction", op.opcode)),
                }
            }
            OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => {
                let d = dst(self);
                let mut args = Args::new();
                for &v in &op.operands {
                    args.push(Arg::Tile(self.tref(v, at)));
                }
                let isa = match class {
                    OpClass::Matmul => Isa::TMatmul,
                    OpClass::MatmulAcc => Isa::TMatmulAcc,
                    _ => Isa::TMatmulBias,
                };
                if class == OpClass::MatmulBias {
                    let acc = m.values[op.results[0]].ty.dtype();
                    if m.values[op.operands[2]].ty.dtype() != acc {
                        self.err(at, "a matmul bias must have the accumulator's dtype (convert it with `.cast::<T>()` first)");
                    }
                }
                out.push(Inst::Op { isa, dst: d, args });
            }
            OpClass::Extract => {
                let d = dst(self);
                let src = self.tref(op.operands[0], at);
                let off = self.index_list(op.attrs.get("offset"), 2, at);
                out.push(Inst::Extract {
                    dst: d,
                    src,
                    at: [off.first().copied().unwrap_or(Index::Const(0)), off.get(1).copied().unwrap_or(Index::Const(0))],
                });
            }
            OpClass::TileAssemble => {
                let (Some(r), [src, into]) = (res, op.operands.as_slice()) else { return };
                self.copy(out, r, *into, at);
                let d = self.slot(r, at);
                let s = self.tref(*src, at);
                let rank = m.values[*into].ty.as_tile().map_or(2, |t| t.shape.len());
                if rank != 2 {
                    self.err(at, "`tile.assemble` is lowered for rank-2 tiles only");
                }
                let off = self.index_list(op.attrs.get("offset"), rank, at);
                out.push(Inst::Insert {
                    dst: d,
                    src: s,
                    at: [off.first().copied().unwrap_or(Index::Const(0)), off.get(1).copied().unwrap_or(Index::Const(0))],
                });
            }
            OpClass::Full => {
                let d = dst(self);
                out.push(Inst::FullValid(d));
                out.push(Inst::Op {
                    isa: Isa::TExpandS,
                    dst: d,
                    args: inline_of(&[Arg::Scalar(op.operands[0])]),
                });
            }
            OpClass::Valid => {
                let Some(r) = res else { return };
                self.copy(out, r, op.operands[0], at);
                let d = self.slot(r, at);
                let dims: Vec<Index> = op.operands[1..]
                    .iter()
                    .map(|&v| match m.values[v].constant {
                        Some(c) => Index::Const(c.as_i64().max(0) as u64),
                        None => Index::Value(v),
                    })
                    .collect();
                let dims = match dims.as_slice() {
                    [c] => [Index::Const(1), *c],
                    [r, c] => [*r, *c],
                    _ => {
                        self.err(at, "`tile.valid` is lowered for rank-1 and rank-2 tiles only");
                        [Index::Const(1), Index::Const(1)]
                    }
                };
                out.push(Inst::SetValid { dst: d, dims });
            }
            OpClass::Load => {
                let d = dst(self);
                let tensor = op.operands[0];
                if !self.is_param(tensor) {
                    self.err(at, "a load must read a tensor parameter of the kernel");
                }
                let rank = m.values[tensor].ty.as_tensor().map_or(0, |t| t.shape.len());
                let offsets = self.index_list(op.attrs.get("offset"), rank, at);
                let window = res.and_then(|r| m.values[r].ty.as_tile()).map(|t| inline_of(t.shape.as_slice())).unwrap_or_default();
                out.push(Inst::Load { dst: d, tensor, offsets, window });
                if op.opcode == Opcode::TileLoadOr
                    && let Some(&pad) = op.operands.get(1)
                {
                    // `TFILLPAD` pads Vec tiles in place (the Mat form pads to the fractal).
                    if res.and_then(|r| space_of(m, r)) != Some(MemorySpace::Vec) {
                        self.err(at, "`load_or` pads a vector tile; a tile for a matmul is loaded with `load`, whose edge the matmul handles through its valid region");
                    }
                    out.push(Inst::Op { isa: Isa::TFillPad, dst: d, args: inline_of(&[Arg::Scalar(pad)]) });
                }
            }
            OpClass::Store => {
                let (tile, tensor) = (op.operands[0], op.operands[1]);
                if !self.is_param(tensor) {
                    self.err(at, "a store must write a tensor parameter of the kernel");
                }
                let src = self.tref(tile, at);
                let rank = m.values[tensor].ty.as_tensor().map_or(0, |t| t.shape.len());
                let offsets = self.index_list(op.attrs.get("offset"), rank, at);
                let window = m.values[tile].ty.as_tile().map(|t| inline_of(t.shape.as_slice())).unwrap_or_default();
                if let (Some(tt), Some(dt)) = (m.values[tile].ty.as_tile(), m.values[tensor].ty.as_tensor())
                    && pto_ir::sem::store::store_needs_acc(tt.dtype, dt.dtype)
                    && space_of(m, tile) != Some(MemorySpace::Acc)
                {
                    self.err(
                        at,
                        format!(
                            "storing {} tile into {} tensor converts, and only a matmul accumulator (an Acc tile) converts on the way out; convert a vector tile first with `.cast::<{}>()`",
                            pto_ir::ops::article(tt.dtype),
                            pto_ir::ops::article(dt.dtype),
                            dt.dtype.rust_name().unwrap_or(dt.dtype.name())
                        ),
                    );
                }
                let add = op.opcode == Opcode::TileStoreAdd;
                out.push(Inst::Store { tensor, add, src, offsets, window });
            }
            OpClass::Move => {
                if let Some(r) = res {
                    self.copy(out, r, op.operands[0], at);
                }
            }
            OpClass::ElementRead | OpClass::ElementWrite => {
                let write = op.opcode.class() == OpClass::ElementWrite;
                let tensor = op.operands[usize::from(write)];
                if !self.is_param(tensor) {
                    self.err(at, "an element access must name a tensor parameter of the kernel");
                }
                let rank = m.values[tensor].ty.as_tensor().map_or(0, |t| t.shape.len());
                let offsets = self.index_list(op.attrs.get("offset"), rank, at);
                match (write, res) {
                    (true, _) => out.push(Inst::Write { tensor, value: op.operands[0], offsets }),
                    (false, Some(result)) => out.push(Inst::Read { result, tensor, offsets }),
                    (false, None) => {}
                }
            }
            OpClass::TensorBinary | OpClass::TensorUnary | OpClass::TensorView | OpClass::TensorAssemble => self.err(
                at,
                format!("tensor-level `{}` cannot run in a tile kernel: tile it into loads, tile ops and stores", op.opcode),
            ),
        }
        if !has_events {
            return;
        }
        for ev in self.events.of(o, EventRole::Set) {
            out.push(Inst::SetFlag(ev));
        }
        for ev in self.events.of(o, EventRole::Sync) {
            out.push(Inst::SetFlag(ev));
            out.push(Inst::WaitFlag(ev));
        }
    }

    /// An elementwise binary op: the instructions [`BinaryForm::instructions`] names for its
    /// operand form (the verifier judges the same list), with their operands.
    fn binary(&mut self, o: OpId, out: &mut Vec<Inst>) {
        let m = self.m;
        let op = &m.ops[o];
        let at = op.span;
        let Some(r) = op.results.first().copied() else {
            return;
        };
        let d = self.slot(r, at);
        let (a, b) = (op.operands[0], op.operands[1]);
        let name = op.opcode.info().surface;
        let unsupported = |me: &mut Self, what: &str| {
            me.err(
                at,
                format!("`{}` ({name}) {what} has no PTO-ISA form", op.opcode),
            );
        };
        let (ta, tb) = (&m.values[a].ty, &m.values[b].ty);
        let Some(form) = BinaryForm::of(ta, tb) else {
            return unsupported(self, "on these operands");
        };
        let dtype = ta
            .dtype()
            .filter(|_| !matches!(ta, Type::Scalar(_)))
            .or(tb.dtype());
        let insts = match dtype.map(|dt| form.instructions(op.opcode, dt)) {
            Some(Ok(insts)) => insts,
            Some(Err(what)) => return unsupported(self, what),
            None => return unsupported(self, "on these operands"),
        };
        let push = |out: &mut Vec<Inst>, isa: Isa, args: &[Arg]| {
            out.push(Inst::Op {
                isa,
                dst: d,
                args: inline_of(args),
            });
        };
        let dst = Arg::Tile(TileRef::Slot(d));
        match (form, insts.as_slice()) {
            (BinaryForm::Tiles, &[isa]) => {
                let (ra, rb) = (self.tref(a, at), self.tref(b, at));
                push(out, isa, &[Arg::Tile(ra), Arg::Tile(rb)]);
            }
            (BinaryForm::Broadcast { big_first, .. }, insts) => {
                let (big, small) = if big_first { (a, b) } else { (b, a) };
                let (rbig, rsmall) = (
                    Arg::Tile(self.tref(big, at)),
                    Arg::Tile(self.tref(small, at)),
                );
                match *insts {
                    // r - a = -(a - r). Any other op with the broadcast on the left was
                    // expanded into a tile by the `legalize` pass.
                    [isa, neg] if op.opcode == Opcode::TileSub => {
                        push(out, isa, &[rbig, rsmall]);
                        negate(out, neg, d, TileRef::Slot(d));
                    }
                    [isa] => push(out, isa, &[rbig, rsmall]),
                    _ => unsupported(self, "with a broadcast operand"),
                }
            }
            (BinaryForm::TileScalar, &[isa]) => {
                let ra = self.tref(a, at);
                push(out, isa, &[Arg::Tile(ra), Arg::Scalar(b)]);
            }
            (BinaryForm::ScalarTile, insts) => {
                let rb = Arg::Tile(self.tref(b, at));
                match *insts {
                    // s / a: TDIVS with the scalar first.
                    [Isa::TDivS] => push(out, Isa::TDivS, &[Arg::Scalar(a), rb]),
                    [isa] => push(out, isa, &[rb, Arg::Scalar(a)]),
                    // s - a = (-a) + s
                    [neg, add] => {
                        negate(out, neg, d, self.tref(b, at));
                        push(out, add, &[dst, Arg::Scalar(a)]);
                    }
                    _ => unsupported(self, "with the scalar on the left"),
                }
            }
            _ => unsupported(self, "on these operands"),
        }
    }

    /// `TCMP(mask, a, b, mode)` or `TCMPS(mask, a, s, mode)`; a scalar on the left compares
    /// the other way round (`s < a` is `a > s`).
    fn compare(&mut self, o: OpId, out: &mut Vec<Inst>) {
        let m = self.m;
        let op = &m.ops[o];
        let at = op.span;
        let (Some(r), Sem::Compare(k)) = (op.results.first().copied(), op.opcode.info().sem) else {
            return self.err(at, format!("`{}` is not a comparison", op.opcode));
        };
        let d = self.slot(r, at);
        let (a, b) = (op.operands[0], op.operands[1]);
        let args = match (&m.values[a].ty, &m.values[b].ty) {
            (Type::Tile(_), Type::Tile(_)) => {
                let (ra, rb) = (self.tref(a, at), self.tref(b, at));
                (Isa::TCmp, [Arg::Tile(ra), Arg::Tile(rb), Arg::Cmp(k)])
            }
            (Type::Tile(_), _) => (
                Isa::TCmpS,
                [Arg::Tile(self.tref(a, at)), Arg::Scalar(b), Arg::Cmp(k)],
            ),
            _ => {
                let flipped = match k {
                    Compare::Lt => Compare::Gt,
                    Compare::Le => Compare::Ge,
                    Compare::Gt => Compare::Lt,
                    Compare::Ge => Compare::Le,
                    other => other,
                };
                (
                    Isa::TCmpS,
                    [
                        Arg::Tile(self.tref(b, at)),
                        Arg::Scalar(a),
                        Arg::Cmp(flipped),
                    ],
                )
            }
        };
        out.push(Inst::Op {
            isa: args.0,
            dst: d,
            args: inline_of(&args.1),
        });
    }
}

/// `d = -src` by `neg`, the instruction [`BinaryForm::instructions`] chose: `TNEG`, or
/// `TMULS` by -1.
fn negate(out: &mut Vec<Inst>, neg: Isa, d: TileId, src: TileRef) {
    let args = if neg == Isa::TNeg {
        inline_of(&[Arg::Tile(src)])
    } else {
        inline_of(&[Arg::Tile(src), Arg::Imm(-1.0)])
    };
    out.push(Inst::Op {
        isa: neg,
        dst: d,
        args,
    });
}
