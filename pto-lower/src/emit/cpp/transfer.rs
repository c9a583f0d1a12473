//! Global tensor views, loads and stores, and the extents they need.

use std::fmt::Write;

use pto_ir::{DataType, Dim, Type, ValueId};

use crate::emit::writer::Level;
use crate::isa::{Index, TileId, TileRef};

use super::{
    WORKSPACE, Writer, cpp_dtype, cpp_min, mask_row_bytes, param_dtype, put_tile_type_valid,
};

impl Writer<'_> {
    /// One extent of a tensor for a stride expression.
    pub(super) fn dim(&mut self, d: &Dim) {
        match d {
            Dim::Const(c) => self.out.put_u64(*c),
            Dim::Value(v) => {
                self.put("static_cast<int64_t>(");
                self.name(*v);
                self.put(")");
            }
            Dim::Dynamic => self.put("0"),
        }
    }

    /// The row-major stride of dimension `k`: `1 * d3 * d2` for the extents after it.
    pub(super) fn stride(&mut self, shape: &[Dim], k: usize) {
        self.put("1");
        for d in shape[k + 1..].iter().rev() {
            self.put(" * ");
            self.dim(d);
        }
    }

    /// Runs `f` writing into the output and returns what it wrote instead.
    pub(super) fn text(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let start = self.out.text.len();
        f(self);
        self.out.text.split_off(start)
    }

    /// The C++ expression of valid dimension `k` (0: rows, 1: columns) of a tile operand:
    /// the constant when the slot's is static, else `t.GetValidRow()` / `t.GetValidCol()`.
    pub(super) fn vdim(&self, t: TileRef, k: usize) -> String {
        match t {
            TileRef::Slot(id) => match self.p.tile(id) {
                Some(s) => match s.valid[k] {
                    Some(c) => c.to_string(),
                    None => format!(
                        "static_cast<int64_t>({}.{}())",
                        s.name,
                        if k == 0 { "GetValidRow" } else { "GetValidCol" }
                    ),
                },
                None => "0".into(),
            },
            TileRef::Param(v) => {
                let rc = self.m.values[v].ty.as_tile().map(|t| t.rows_cols());
                rc.map_or(0, |(r, c)| if k == 0 { r } else { c })
                    .to_string()
            }
        }
    }

    /// Sets the valid region of slot `dst` to `rows x cols` (C++ expressions): nothing for a
    /// static dimension (the IR proved it), else `SetValidShape` / `SetValidRow` /
    /// `SetValidCol`, whichever the slot's dynamic dimensions allow.
    pub(super) fn set_region(&mut self, l: Level, dst: TileId, rows: &str, cols: &str) {
        let Some(s) = self.p.tile(dst) else { return };
        let line = match s.valid {
            [None, None] => format!("{}.SetValidShape({rows}, {cols});", s.name),
            [None, Some(_)] => format!("{}.SetValidRow({rows});", s.name),
            [Some(_), None] => format!("{}.SetValidCol({cols});", s.name),
            [Some(_), Some(_)] => return,
        };
        self.out.line(l, &line);
    }

    /// The extent of a transfer window in tensor dimension `k`: the window's, clamped to what
    /// is left of the tensor after the offset.
    fn window_extent(&mut self, shape: &[Dim], k: usize, off: Option<Index>, w: u64) -> String {
        let off = off.unwrap_or(Index::Const(0));
        if let (Some(Dim::Const(n)), Index::Const(o)) = (shape.get(k), off) {
            return n.saturating_sub(o).min(w).to_string();
        }
        let n = match shape.get(k) {
            Some(d) => self.text(|me| me.dim(d)),
            None => "1".into(),
        };
        let o = self.text(|me| {
            me.put("static_cast<int64_t>(");
            me.index(off);
            me.put(")");
        });
        format!("({n} - {o} < {w} ? {n} - {o} : {w})")
    }

    /// Declares a `GlobalTensor` `gtN` of `tensor` at `offsets` whose 5-D shape is `exts`
    /// (the window's extents per tensor dimension, clamped to the tensor), all dynamic: an
    /// edge window is smaller than the tile and pto-isa's `TLOAD` / `TSTORE` require the
    /// shape to equal the tile's valid region. Strides are static where the tensor's extents
    /// are. `None` when `tensor` is not one.
    pub(super) fn global(
        &mut self,
        l: Level,
        tensor: ValueId,
        offsets: &[Index],
        exts: &[String],
    ) -> Option<u32> {
        let m = self.m;
        let Type::Tensor(t) = &m.values[tensor].ty else {
            return None;
        };
        let n = t.shape.len().clamp(1, 5);
        let id = self.next_gt;
        self.next_gt += 1;
        // Strides of the tensor's dimensions, outermost first: static or a runtime product.
        let mut strides: Vec<(Option<u64>, String)> = Vec::with_capacity(n);
        for k in 0..n {
            let after = t.shape.get(k + 1..).unwrap_or(&[]);
            let st = after
                .iter()
                .map(|d| d.as_const())
                .try_fold(1u64, |a, d| d.map(|d| a * d));
            let text = self.text(|me| me.stride(&t.shape, k));
            strides.push((st, text));
        }
        let lead = 5 - n;
        let mut ty = format!("GlobalTensor<{}, Shape<", cpp_dtype(t.dtype));
        for k in 0..5 {
            ty.push_str(if k < lead { "1" } else { "DYNAMIC" });
            ty.push_str(if k < 4 { ", " } else { ">, Stride<" });
        }
        for k in 0..5usize {
            match k.checked_sub(lead).and_then(|j| strides.get(j)) {
                Some((Some(c), _)) => {
                    let _ = write!(ty, "{c}");
                }
                Some((None, _)) => ty.push_str("DYNAMIC"),
                None => ty.push('1'),
            }
            ty.push_str(if k < 4 { ", " } else { ">>" });
        }
        self.out.line(l, &format!("using GT{id} = {ty};"));
        self.out.indent(l);
        let _ = write!(self.out, "GT{id} gt{id}(");
        self.name(tensor);
        self.put(" + ");
        let terms = offsets.len().min(t.shape.len());
        if terms == 0 {
            self.put("0");
        }
        for (k, &o) in offsets.iter().take(terms).enumerate() {
            if k > 0 {
                self.put(" + ");
            }
            self.put("static_cast<int64_t>(");
            self.index(o);
            self.put(") * (");
            self.stride(&t.shape, k);
            self.put(")");
        }
        self.put(", {");
        self.put(&exts.join(", "));
        self.put("}");
        let dynamic: Vec<&str> = strides
            .iter()
            .filter(|s| s.0.is_none())
            .map(|s| s.1.as_str())
            .collect();
        if !dynamic.is_empty() {
            self.put(", {");
            self.put(&dynamic.join(", "));
            self.put("}");
        }
        self.put(");\n");
        Some(id)
    }

    /// The clamped window extents of a transfer, one per tensor dimension.
    pub(super) fn extents(
        &mut self,
        tensor: ValueId,
        offsets: &[Index],
        window: &[u64],
    ) -> Vec<String> {
        let shape = match &self.m.values[tensor].ty {
            Type::Tensor(t) => t.shape.to_vec(),
            _ => Vec::new(),
        };
        (0..window.len().max(1))
            .map(|k| {
                let w = window.get(k).copied().unwrap_or(1);
                self.window_extent(&shape, k, offsets.get(k).copied(), w)
            })
            .collect()
    }

    /// Declares `const int64_t eK = ..;` for each extent that is not a number, and names it.
    fn name_extents(&mut self, l: Level, exts: &mut [String], prefix: &str) {
        for (k, e) in exts.iter_mut().enumerate() {
            if e.parse::<u64>().is_err() {
                self.out
                    .line(l, &format!("const int64_t {prefix}{k} = {e};"));
                *e = format!("{prefix}{k}");
            }
        }
    }

    /// `TLOAD`: the tile's valid region becomes the in-bounds part of the window, and the
    /// `GlobalTensor` has exactly that shape.
    pub(super) fn load(
        &mut self,
        l: Level,
        dst: TileId,
        tensor: ValueId,
        offsets: &[Index],
        window: &[u64],
    ) {
        let mut exts = self.extents(tensor, offsets, window);
        self.out.line(l, "{");
        let l1 = l.next();
        self.guard_offsets(l1, tensor, offsets);
        self.name_extents(l1, &mut exts, "e");
        let (cols, lead) = exts
            .split_last()
            .map_or(("1".to_string(), &[][..]), |(c, lead)| (c.clone(), lead));
        let rows = if lead.is_empty() {
            "1".to_string()
        } else {
            lead.join(" * ")
        };
        self.set_region(l1, dst, &rows, &cols);
        let g = self.global(l1, tensor, offsets, &exts);
        self.out.indent(l1);
        self.put("TLOAD(");
        self.tile(dst);
        self.put(", ");
        self.global_ref(g);
        self.put(");\n");
        self.out.line(l, "}");
    }

    /// The entry load of tile parameter `param` into slot `dst` (`isa::param_load`): a
    /// `TLOAD` from a static-shape `GlobalTensor` over the parameter's pointer, whose layout
    /// the header comment states (`put_param_layouts`). A mask's global memory holds its packed
    /// rows, so its load goes through a view of the slot whose valid columns are the bytes
    /// of a row.
    pub(super) fn load_param(&mut self, l: Level, dst: TileId, param: ValueId) {
        let (Some(slot), Some(t)) = (self.p.tile(dst).cloned(), self.m.values[param].ty.as_tile())
        else {
            return;
        };
        let (rows, cols) = t.rows_cols();
        let mask = t.dtype == DataType::Bool;
        let cols = if mask { mask_row_bytes(cols) } else { cols };
        let ty = param_dtype(t.dtype);
        self.out.line(l, "{");
        let l1 = l.next();
        let id = self.next_gt;
        self.next_gt += 1;
        self.out.line(
            l1,
            &format!(
                "using GT{id} = GlobalTensor<{ty}, Shape<1, 1, 1, {rows}, {cols}>, Stride<1, 1, 1, {cols}, 1>>;"
            ),
        );
        self.out.indent(l1);
        let _ = write!(self.out, "GT{id} gt{id}(");
        self.name(param);
        self.put(
            ");
",
        );
        let target = if mask {
            self.out.indent(l1);
            let a5 = self.a5();
            put_tile_type_valid(&mut self.out, &slot, [Some(rows), Some(cols)], a5);
            self.put(
                " pv;
",
            );
            self.out
                .line(l1, &format!("TASSIGN(pv, 0x{:x});", slot.addr));
            "pv".to_string()
        } else {
            slot.name.clone()
        };
        self.out.line(l1, &format!("TLOAD({target}, gt{id});"));
        self.out.line(l, "}");
    }

    /// `TSTORE`: writes the tile's valid region clipped to the tensor, through a view of
    /// the tile whose valid region is exactly the `GlobalTensor`'s shape.
    pub(super) fn store(
        &mut self,
        l: Level,
        src: TileRef,
        tensor: ValueId,
        add: bool,
        offsets: &[Index],
        window: &[u64],
    ) {
        let mut exts = self.extents(tensor, offsets, window);
        let TileRef::Slot(id) = src else {
            self.out
                .line(l, "// a tile parameter cannot be stored from the kernel");
            return;
        };
        let Some(slot) = self.p.tile(id).cloned() else {
            return;
        };
        self.out.line(l, "{");
        let l1 = l.next();
        self.guard_offsets(l1, tensor, offsets);
        let (vr, vc) = (self.vdim(src, 0), self.vdim(src, 1));
        self.name_extents(l1, &mut exts, "w");
        let n = exts.len();
        if let Some(c) = exts.last_mut() {
            *c = cpp_min(&vc, c);
        }
        if n >= 2 {
            exts[n - 2] = cpp_min(&vr, &exts[n - 2]);
        }
        self.name_extents(l1, &mut exts, "e");
        let rows = if n >= 2 {
            exts[..n - 1].join(" * ")
        } else {
            "1".into()
        };
        let cols = exts.last().cloned().unwrap_or_else(|| "1".into());
        // An accumulator still "zero" (its flag set: a split-K loop ran no iteration) was
        // never written: the window gets zeros, from the scalar unit.
        let zero = self.zeroed.contains(&id)
            && n >= 1
            && exts[..n.saturating_sub(2)].iter().all(|e| e == "1");
        let l1 = if zero {
            self.zero_window(l1, &slot.name, tensor, offsets, &rows, &cols);
            l1.next()
        } else {
            l1
        };
        self.out.indent(l1);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, &slot, [None, None], a5);
        let _ = writeln!(self.out.text, " sv({rows}, {cols});");
        self.out.indent(l1);
        self.put("TASSIGN(sv, 0x");
        self.put(&format!("{:x}", slot.addr));
        self.put(");\n");
        let g = self.global(l1, tensor, offsets, &exts);
        self.out.indent(l1);
        if add {
            // pto-isa's atomic form names the tile and GlobalTensor types before the mode.
            self.put("TSTORE<decltype(sv), GT");
            if let Some(id) = g {
                self.out.put_u64(u64::from(id));
            }
            self.put(", AtomicType::AtomicAdd>(");
        } else {
            self.put("TSTORE(");
        }
        self.global_ref(g);
        // A quantising store passes its `preQuantScalar`: the scale 1.0 and, into int8,
        // the sign bit (`pto_ir::sem::store::quant_scalar`).
        match pto_ir::sem::store::quant_of(slot.dtype, self.dtype(tensor)) {
            Some(q) => {
                let bits = pto_ir::sem::store::quant_scalar(q, 1.0);
                let _ = writeln!(self.out.text, ", sv, 0x{bits:x}ULL);");
            }
            None => self.put(", sv);\n"),
        }
        if zero {
            self.out.line(l.next(), "}");
        }
        self.out.line(l, "}");
    }

    /// `if (NAME_zero) { tensor[window] = 0 .. } else {`: the zeros of an accumulator that
    /// was never written, stored element by element (the cube core cannot fill an Acc tile),
    /// then written back from the scalar unit's data cache.
    fn zero_window(
        &mut self,
        l: Level,
        acc: &str,
        tensor: ValueId,
        offsets: &[Index],
        rows: &str,
        cols: &str,
    ) {
        let Type::Tensor(t) = &self.m.values[tensor].ty else {
            return;
        };
        let shape = t.shape.to_vec();
        let n = shape.len();
        self.out.line(l, &format!("if ({acc}_zero) {{"));
        let l1 = l.next();
        self.out.indent(l1);
        self.put("__gm__ ");
        self.put(cpp_dtype(t.dtype));
        self.put("* z = ");
        self.name(tensor);
        for (k, &o) in offsets.iter().take(n).enumerate() {
            self.put(" + static_cast<int64_t>(");
            self.index(o);
            self.put(") * (");
            self.stride(&shape, k);
            self.put(")");
        }
        self.put(";\n");
        let row_stride = if n >= 2 {
            self.text(|me| me.stride(&shape, n - 2))
        } else {
            "0".into()
        };
        let zero = if t.dtype.is_float() {
            format!("{}(0.0f)", cpp_dtype(t.dtype))
        } else {
            format!("{}(0)", cpp_dtype(t.dtype))
        };
        self.out.line(
            l1,
            &format!(
                "for (int64_t i = 0; i < {rows}; ++i) for (int64_t j = 0; j < {cols}; ++j) z[i * ({row_stride}) + j] = {zero};"
            ),
        );
        self.out.line(
            l1,
            "dcci(reinterpret_cast<__gm__ void*>(z), cache_line_t::ENTIRE_DATA_CACHE);",
        );
        self.out.line(l1, "dsb(DSB_DDR);");
        self.out.line(l, "} else {");
    }

    /// `TMOV` Acc -> Vec on A2A3, which has no such instruction: the Acc tile's valid region
    /// goes to the GM workspace (`TSTORE`, FIX pipe) and comes back into the Vec tile
    /// (`TLOAD`, MTE2 pipe), with barriers so the load sees the store and nothing reads the
    /// Vec tile before the load. The two units share the kernel here; a kernel split into
    /// cube and vector cores would put `ffts_cross_core_sync` / `wait_flag_dev` there instead.
    pub(super) fn through_workspace(&mut self, l: Level, dst: TileId, src: TileId) {
        let (Some(from), Some(to)) = (self.p.tile(src).cloned(), self.p.tile(dst).cloned()) else {
            return;
        };
        let ty = cpp_dtype(from.dtype);
        self.out.line(l, "{");
        let l1 = l.next();
        let (r, c) = (
            self.vdim(TileRef::Slot(src), 0),
            self.vdim(TileRef::Slot(src), 1),
        );
        self.out
            .line(l1, &format!("const int64_t r0 = {r}, c0 = {c};"));
        self.out.indent(l1);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, &from, [None, None], a5);
        self.put(" sv(r0, c0);\n");
        self.out.indent(l1);
        self.put("TASSIGN(sv, 0x");
        self.put(&format!("{:x}", from.addr));
        self.put(");\n");
        let id = self.next_gt;
        self.next_gt += 1;
        self.out.line(
            l1,
            &format!(
                "using GT{id} = GlobalTensor<{ty}, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, {}, 1>>;",
                from.cols
            ),
        );
        self.out.line(
            l1,
            &format!("GT{id} gt{id}(reinterpret_cast<__gm__ {ty}*>({WORKSPACE}), {{r0, c0}});"),
        );
        self.out.line(l1, &format!("TSTORE(gt{id}, sv);"));
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.set_region(l1, dst, "r0", "c0");
        self.out.line(l1, &format!("TLOAD({}, gt{id});", to.name));
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.out.line(l, "}");
    }

    /// The view [`Writer::global`] declared, by name.
    fn global_ref(&mut self, g: Option<u32>) {
        match g {
            Some(id) => {
                self.put("gt");
                self.out.put_u64(u64::from(id));
            }
            None => self.put("/* not a tensor */"),
        }
    }
}
