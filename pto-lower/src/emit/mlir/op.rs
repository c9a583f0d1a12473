//! One operation: its mnemonic, operands, attributes, events and types.

use pto_ir::{Attr, Constant, DataType, MemorySpace, OpClass, OpId, Operation};

use crate::emit::writer::Level;
use crate::info::{space_of, tile_param_loaded};
use crate::passes::events::{Event, EventRole};

use super::{Writer, mlir_dtype, offset, put_float};

impl<'a, const GENERIC: bool> Writer<'a, GENERIC> {
    fn mnemonic(&mut self, op: &Operation) {
        // A tile parameter's entry move is a transfer from global memory (`TLOAD`).
        if tile_param_loaded(self.m, op).is_some() {
            self.put("pto.tile.load");
            return;
        }
        if op.opcode.class() == OpClass::Move {
            let from = op.operands.first().and_then(|&v| space_of(self.m, v));
            let to = op.results.first().and_then(|&v| space_of(self.m, v));
            let short = |s: Option<MemorySpace>| match s {
                Some(MemorySpace::Mat) => "m",
                Some(MemorySpace::Left) => "l",
                Some(MemorySpace::Right) => "r",
                Some(MemorySpace::Acc) => "a",
                Some(MemorySpace::Bias) => "b",
                _ => "v",
            };
            self.put("pto.tile.mov.");
            self.put(short(from));
            self.put("2");
            self.put(short(to));
            return;
        }
        let info = op.opcode.info();
        match info.dialect {
            "" => self.put("pto.constant"),
            "tile" => {
                self.put("pto.tile.");
                // `row_max` is spelled `row.max`: written in parts, not patched afterwards
                // (a replacement in the text moves everything after it).
                for (i, part) in info.mnemonic.split('_').enumerate() {
                    if i > 0 {
                        self.put(".");
                    }
                    self.put(part);
                }
            }
            d => {
                self.put("pto.");
                self.put(d);
                self.put(".");
                self.put(info.mnemonic);
            }
        }
    }

    /// `%r = func.call @f(%a, %b) : (Ta, Tb) -> (Tr)` (MLIR's `func` dialect; the generic form
    /// `"func.call"(%a, %b) {callee = @f}`).
    fn call(&mut self, op: &Operation, l: Level) {
        let callee = match op.attrs.get("callee") {
            Some(Attr::Symbol(s) | Attr::Str(s) | Attr::Ident(s)) => s.as_str(),
            _ => "",
        };
        self.out.indent(l);
        if !op.results.is_empty() {
            self.names(op.results.iter().copied());
            self.put(" = ");
        }
        if GENERIC {
            self.put("\"func.call\"(");
            self.names(op.operands.iter().copied());
            self.put(") {callee = @");
            self.put(callee);
            self.put("} : (");
        } else {
            self.put("func.call @");
            self.put(callee);
            self.put("(");
            self.names(op.operands.iter().copied());
            self.put(") : (");
        }
        self.vtys(op.operands.iter().copied());
        self.put(") -> (");
        self.vtys(op.results.iter().copied());
        self.put(")");
        self.out.end();
    }

    /// `%c = pto.constant 1.0 : f32`.
    fn constant(&mut self, op: &Operation, l: Level) {
        let m = self.m;
        let Some(&r) = op.results.first() else { return };
        let d = m.values[r].ty.as_scalar().unwrap_or(DataType::Int64);
        let t = mlir_dtype(d);
        self.out.indent(l);
        self.name(r);
        self.put(if GENERIC {
            " = \"pto.constant\"() {value = "
        } else {
            " = pto.constant "
        });
        match m.values[r].constant {
            Some(Constant::Bool(b)) => self.put(if b { "true" } else { "false" }),
            Some(c) if d.is_float() => put_float(&mut self.out, c.as_f64()),
            Some(Constant::SizeT(u)) => self.out.put_u64(u),
            Some(c) => self.out.put_i64(c.as_i64()),
            None => self.put("0"),
        }
        self.put(" : ");
        self.put(t);
        if GENERIC {
            self.put("} : () -> ");
            self.put(t);
        }
        self.out.end();
    }

    /// The op's first result type or, with no results, its first recorded event's type.
    fn first_result_ty(&mut self, op: &Operation, records: &[Event]) {
        match (op.results.first(), records.first()) {
            (Some(&r), _) => self.vty(r),
            (None, Some(&e)) => self.event_ty(e),
            (None, None) => {}
        }
    }

    /// `, E` for each event the op records (their tokens are extra results).
    fn record_tys(&mut self, records: &[Event]) {
        for &e in records {
            self.put(", ");
            self.event_ty(e);
        }
    }

    /// `[%i, 0]`: a custom-form offset list.
    fn offsets(&mut self, offs: &[Attr]) {
        let m = self.m;
        self.put("[");
        for (i, a) in offs.iter().enumerate() {
            self.out.sep(i);
            match offset(m, a) {
                (Some(v), _) => self.name(v),
                (None, c) => self.out.put_i64(c),
            }
        }
        self.put("]");
    }

    /// The attribute entries both forms share: the result tile's, a store's source location,
    /// the op's own attributes. Returns how many were written.
    fn attrs(&mut self, op: &Operation) -> usize {
        let m = self.m;
        let mut n = 0;
        if let Some(&r) = op.results.first() {
            self.tile_attrs(r, &mut n);
        }
        if op.opcode.class() == OpClass::Store
            && let Some(&t) = op.operands.first()
            && let Some(s) = space_of(m, t)
        {
            self.entry(&mut n, "from");
            self.put("#pto.loc<");
            self.put(s.name());
            self.put(">");
        }
        for (k, v) in &op.attrs.0 {
            // The kind first: most attributes are lists, which need no name comparison.
            let shown = matches!(
                v,
                Attr::Ident(_) | Attr::Str(_) | Attr::Int(_) | Attr::Float(_) | Attr::Bool(_)
            ) && !matches!(&**k, "offset" | "set" | "wait" | "sync" | "shape" | "loc");
            if !shown {
                continue;
            }
            self.entry(&mut n, k);
            match v {
                Attr::Ident(s) if k == "dtype" => self.put(mlir_dtype(
                    DataType::from_name(s).unwrap_or(DataType::Unknown),
                )),
                Attr::Ident(s) | Attr::Str(s) => {
                    self.put("\"");
                    self.put(s);
                    self.put("\"");
                }
                Attr::Int(i) => {
                    self.out.put_i64(*i);
                    if GENERIC {
                        self.put(" : i64");
                    }
                }
                Attr::Float(f) => put_float(&mut self.out, *f),
                Attr::Bool(b) => self.put(if *b { "true" } else { "false" }),
                _ => {}
            }
        }
        n
    }

    /// The wait tokens (`%e3, %e5`) of events recorded earlier.
    fn wait_tokens(&mut self, waits: &[Event], first: usize) {
        for (i, &e) in waits.iter().enumerate() {
            if let Some(t) = self.token(e) {
                self.out.sep(first + i);
                self.put_token(t);
            }
        }
    }

    pub(super) fn op(&mut self, o: OpId, l: Level) {
        let m = self.m;
        let op = &m.ops[o];
        let class = op.opcode.class();
        if class == OpClass::Const {
            self.constant(op, l);
            return;
        }
        if class == OpClass::Call {
            self.call(op, l);
            return;
        }
        // The events this op waits for (those recorded earlier) and records.
        // In buffers kept across ops (most ops have no events, the rest one or two).
        let ev = &self.p.events;
        let mut waits = std::mem::take(&mut self.waits);
        waits.clear();
        let mut records = std::mem::take(&mut self.records);
        records.clear();
        // Most ops have none: one test instead of walking three empty lists.
        if ev.has(o) {
            waits.extend(
                ev.of(o, EventRole::Wait)
                    .filter(|&e| self.token(e).is_some()),
            );
            records.extend(ev.of(o, EventRole::Set).chain(ev.of(o, EventRole::Sync)));
        }
        // Only these classes print offsets: the others need not look the attribute up.
        let offs = match class {
            OpClass::Load
            | OpClass::Store
            | OpClass::Extract
            | OpClass::TileAssemble
            | OpClass::ElementRead
            | OpClass::ElementWrite => op
                .attrs
                .get("offset")
                .and_then(Attr::as_list)
                .unwrap_or(&[]),
            _ => &[],
        };
        self.out.indent(l);
        if !op.results.is_empty() || !records.is_empty() {
            self.names(op.results.iter().copied());
            for i in 0..records.len() {
                self.out.sep(op.results.len() + i);
                self.put_token(self.next_token + i as u32);
            }
            self.put(" = ");
        }
        if GENERIC {
            // Dynamic offsets become operands, all of them a `static_offsets` attribute.
            let with_offsets = matches!(
                class,
                OpClass::Load
                    | OpClass::Store
                    | OpClass::Extract
                    | OpClass::TileAssemble
                    | OpClass::ElementRead
                    | OpClass::ElementWrite
            );
            let offs = if with_offsets { offs } else { &[] };
            let dynamic = || offs.iter().filter_map(|a| offset(m, a).0);
            let n_operands = op.operands.len() + dynamic().count();
            self.put("\"");
            self.mnemonic(op);
            self.put("\"(");
            self.names(op.operands.iter().copied().chain(dynamic()));
            self.wait_tokens(&waits, n_operands);
            self.put(")");
            let mut n = self.attrs(op);
            if with_offsets {
                self.entry(&mut n, "static_offsets");
                self.put("[");
                for (i, a) in offs.iter().enumerate() {
                    self.out.sep(i);
                    self.out.put_i64(offset(m, a).1);
                }
                self.put("]");
            }
            if !waits.is_empty() {
                self.entry(&mut n, "num_waits");
                self.out.put_u64(waits.len() as u64);
                self.put(" : i64");
            }
            if n > 0 {
                self.put("}");
            }
            self.put(" : (");
            self.vtys(op.operands.iter().copied().chain(dynamic()));
            // Waits are typed by their producers.
            for (i, &e) in waits.iter().enumerate() {
                self.out.sep(n_operands + i);
                self.event_ty(e);
            }
            self.put(") -> ");
            if op.results.len() + records.len() == 1 {
                self.first_result_ty(op, &records);
            } else {
                self.put("(");
                self.vtys(op.results.iter().copied());
                for (i, &e) in records.iter().enumerate() {
                    self.out.sep(op.results.len() + i);
                    self.event_ty(e);
                }
                self.put(")");
            }
        } else {
            self.mnemonic(op);
            self.put(" ");
            match class {
                OpClass::Load | OpClass::ElementRead => {
                    // `%x[%i, %j]`, then a padded load's pad.
                    self.names(op.operands.first().copied());
                    self.offsets(offs);
                    if op.operands.len() > 1 {
                        self.put(", ");
                        self.names(op.operands.iter().skip(1).copied());
                    }
                }
                OpClass::Store | OpClass::ElementWrite => {
                    self.names(op.operands.iter().take(2).copied());
                    self.offsets(offs);
                }
                OpClass::Extract => {
                    self.names(op.operands.iter().copied());
                    self.offsets(offs);
                }
                _ => self.names(op.operands.iter().copied()),
            }
            if !waits.is_empty() {
                self.put(" wait(");
                self.wait_tokens(&waits, 0);
                self.put(")");
            }
            if self.attrs(op) > 0 {
                self.put("}");
            }
            self.put(" : ");
            match class {
                OpClass::Load => {
                    self.vtys(op.operands.first().copied());
                    self.put(", ");
                    self.first_result_ty(op, &records);
                }
                OpClass::Store | OpClass::ElementWrite => {
                    self.vtys(op.operands.get(1).copied());
                    self.put(", ");
                    self.vtys(op.operands.first().copied());
                }
                _ => {
                    // `A, B -> R`, shortened to `R` when every operand type is spelled like
                    // the result's. (Without a result, `R` is an event type or nothing,
                    // which no operand type is spelled like.)
                    let short = match op.results.first() {
                        Some(&r) if !op.operands.is_empty() => {
                            let want = self.vty_range(r);
                            op.operands.iter().all(|&v| {
                                let have = self.vty_range(v);
                                self.ty_str(have) == self.ty_str(want)
                            })
                        }
                        _ => false,
                    };
                    if !short {
                        self.vtys(op.operands.iter().copied());
                        self.put(" -> ");
                    }
                    self.first_result_ty(op, &records);
                }
            }
            self.record_tys(&records);
        }
        self.out.end();
        for (i, &e) in records.iter().enumerate() {
            let t = self.next_token + i as u32;
            match self.tokens.iter_mut().find(|(k, _)| *k == e) {
                Some(slot) => slot.1 = t,
                None => self.tokens.push((e, t)),
            }
        }
        self.next_token += records.len() as u32;
        self.waits = waits;
        self.records = records;
    }
}
