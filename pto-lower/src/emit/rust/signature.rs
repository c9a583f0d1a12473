//! The host function's signature, the shape binding and the returned values.

use std::fmt::Write;

use pto_ir::{DataType, Dim, Direction, TensorType, Type, ValueId};

use super::{Import, Writer, has_loops, signature_word, valid_ident};
use crate::isa::{Inst, TileId};

impl<'a> Writer<'a> {
    /// The signature of [`emit_fn`], up to the body.
    pub(super) fn put_signature(&mut self) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        self.put(
            "#[allow(unused_mut, unused_variables, unused_assignments, unused_parens, \
             non_snake_case, unreachable_code, clippy::all)] pub fn ",
        );
        self.put(if valid_ident(&f.name) {
            &f.name
        } else {
            "kernel"
        });
        self.put("(");
        for (k, q) in f.sig.params.iter().enumerate() {
            if k > 0 {
                self.put(", ");
            }
            self.put_ident(q.value);
            self.put(": ");
            let r = if q.direction == Direction::In {
                "& "
            } else {
                "&mut "
            };
            match &m.values[q.value].ty {
                Type::Tensor(t) => {
                    let e = self.rust_ty(t.dtype);
                    let _ = write!(self.out, "{r}::pto::Tensor< {e}> ");
                }
                Type::Tile(t) => {
                    let e = self.rust_ty(t.dtype);
                    let (rows, cols) = t.rows_cols();
                    let _ = write!(
                        self.out,
                        "{r}::pto::Tile< {e}, {}, {}> ",
                        rows as usize, cols as usize
                    );
                }
                t => {
                    let e = self.rust_ty(t.dtype().unwrap_or(DataType::Fp32));
                    self.put(e);
                }
            }
        }
        self.put(") -> ::core::result::Result< ");
        match f.sig.returns.as_slice() {
            [] => self.put("()"),
            [t] => {
                let e = self.rust_ty(t.dtype().unwrap_or(DataType::Fp32));
                self.put(e);
            }
            ts => {
                self.put("(");
                for (k, t) in ts.iter().enumerate() {
                    if k > 0 {
                        self.put(", ");
                    }
                    let e = self.rust_ty(t.dtype().unwrap_or(DataType::Fp32));
                    self.put(e);
                }
                self.put(")");
            }
        }
        self.put(", ::pto::Error> ");
    }

    pub(super) fn put_program(&mut self) {
        self.put("{ ");
        let body = self.out.len();
        // 1. Shapes.
        self.put_shapes();
        // The budget meter every loop iteration ticks (`pto::Budget`).
        if has_loops(&self.p.body) {
            self.put("let mut __pto_meter = ::pto::budget::Meter::start(); ");
        }
        // 2. Tiles, once; those of one type together (`let [a, b] = &mut Tile::<..>::zeros_n();`),
        // in order of their first slot. (A kernel has a few slots: a scan per slot costs less
        // than collecting the groups.)
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
            let ids = || {
                (i..tiles.len())
                    .filter(move |&k| declared(k) && tiles.get(k).map(ty_of) == Some(ty))
                    .map(|k| TileId(k as u32))
            };
            let n = ids().count();
            self.put("let ");
            if n == 1 {
                self.put_tile(TileId(i as u32));
            } else {
                self.put("[");
                for (k, id) in ids().enumerate() {
                    if k > 0 {
                        self.put(", ");
                    }
                    self.put_tile(id);
                }
                self.put("]");
            }
            // A mask holds one byte per element, its low bit the flag (`pto::isa::tcmp`).
            let ty = if s.dtype == DataType::Bool {
                "u8"
            } else {
                self.rust_ty(s.dtype)
            };
            self.import(Import::Tile);
            self.put(" = &mut Tile:: < ");
            self.put(ty);
            self.put(", ");
            let _ = write!(self.out, "{}", s.rows as usize as u64);
            self.put(", ");
            let _ = write!(self.out, "{}", s.cols as usize as u64);
            self.put(if n == 1 {
                "> ::zeros(); "
            } else {
                "> ::zeros_n(); "
            });
        }
        // 3. Instructions; a final `return` becomes the tail expression.
        match self.p.body.split_last() {
            Some((Inst::Return(vals), rest)) => {
                self.put_insts(rest);
                self.put_ok(vals);
            }
            _ => {
                self.put_insts(&self.p.body);
                self.put("::core::result::Result::Ok(())");
            }
        }
        self.put(" }");
        // 0. The `pto` names the body uses, imported in front of it. The body is all generated
        // code: the imports shadow nothing it uses (the user's module-level items), but a
        // parameter of the same name in the value namespace, where of these names only the
        // functions `bind_shapes` and `isa::*` live (`put_shapes`, `put_isa`).
        if self.imports != 0 || !self.isa_names.is_empty() {
            let mut names = Import::ALL
                .into_iter()
                .filter(|i| self.imports & i.bit() != 0)
                .map(Import::name);
            let mut import = String::new();
            import.push_str("use ::pto::{");
            let mut sep = "";
            if self.imports & Import::BindShapes.bit() != 0 {
                import.extend(names.next());
                sep = ", ";
            }
            if !self.isa_names.is_empty() {
                // In order of first use.
                import.push_str(sep);
                import.push_str("isa::{");
                for (k, (name, suffix)) in self.isa_names.iter().enumerate() {
                    if k > 0 {
                        import.push_str(", ");
                    }
                    import.push_str(name);
                    import.push_str(suffix);
                }
                import.push('}');
                sep = ", ";
            }
            for name in names {
                import.push_str(sep);
                import.push_str(name);
                sep = ", ";
            }
            import.push_str("}; ");
            self.out.insert_str(body, &import);
        }
    }

    /// Checks the tensor parameters' shapes and binds the symbolic dimensions: one
    /// `pto::bind_shapes` call, with the tensors' declared shapes as its signature string,
    /// returns those the tensors carry in order of first appearance; any other is the valid
    /// rows or columns of a tile parameter.
    fn put_shapes(&mut self) {
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
        if self.tensor_params().next().is_some() {
            // `bind_shapes` returns `i64`s: a symbol of another type is cast after the call.
            self.put("let [");
            for (k, &d) in bound.iter().enumerate() {
                if k > 0 {
                    self.put(", ");
                }
                if self.dtype(d) != DataType::Int64 {
                    let _ = write!(self.out, "__dim_{}", m.values[d].number);
                } else {
                    self.put_ident(d);
                }
            }
            // Imported, unless a parameter has its name (the import would shadow it).
            if self.params.contains(&Import::BindShapes.name()) {
                self.put("] = ::pto::bind_shapes(\"");
            } else {
                self.import(Import::BindShapes);
                self.put("] = bind_shapes(\"");
            }
            self.put_shape_signature(&bound);
            self.put("\", [");
            for (k, (p, _)) in self.tensor_params().enumerate() {
                if k > 0 {
                    self.put(", ");
                }
                self.put_ident(p);
                self.put(".shape()");
            }
            self.put("]) ? ; ");
            for &d in &bound {
                if self.dtype(d) != DataType::Int64 {
                    let ty = self.rust_ty(self.dtype(d));
                    self.put("let ");
                    self.put_ident(d);
                    let number = m.values[d].number;
                    let _ = write!(self.out, ": {ty} = __dim_{number} as {ty}; ");
                }
            }
        }
        for &d in &f.dims {
            if !bound.contains(&d) {
                self.put_tile_dim(d);
            }
        }
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

    /// Writes the text of the signature string of `bind_shapes`: every tensor parameter as
    /// `name[d0, d1, ..]`, a dimension being a size, a symbol of `bound`, or `?` for any size.
    fn put_shape_signature(&mut self, bound: &[ValueId]) {
        let m = self.m;
        for (k, (p, t)) in self.tensor_params().enumerate() {
            if k > 0 {
                self.put(" ");
            }
            let name = m.values[p].name.as_deref().unwrap_or_default();
            if !signature_word(name, false) {
                self.err(format!(
                    "the host code cannot check the shape of a parameter named `{name}`"
                ));
            }
            self.put_escaped(name);
            self.put("[");
            for (j, d) in t.shape.iter().enumerate() {
                if j > 0 {
                    self.put(", ");
                }
                match *d {
                    Dim::Const(c) => {
                        let _ = write!(self.out, "{}", usize::try_from(c).unwrap_or(usize::MAX));
                    }
                    Dim::Value(v) if bound.contains(&v) => {
                        let name = self.symbol_name(v);
                        self.put_escaped(&name);
                    }
                    Dim::Value(_) | Dim::Dynamic => self.put("?"),
                }
            }
            self.put("]");
        }
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
    fn put_tile_dim(&mut self, d: ValueId) {
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
                self.put("let ");
                self.put_ident(d);
                let _ = write!(self.out, ": {ty} = ");
                self.put_ident(p);
                let what = if cols { "valid_cols" } else { "valid_rows" };
                let _ = write!(self.out, ".{what}() as {ty}; ");
            }
            None => {
                let sym = self.symbol_name(d);
                self.err(format!(
                    "symbolic dimension `{sym}` is not the size of any parameter"
                ));
            }
        }
    }

    /// Writes `::core::result::Result::Ok(..)` of the returned values.
    pub(super) fn put_ok(&mut self, vals: &[ValueId]) {
        self.put("::core::result::Result::Ok(");
        match vals {
            [] => self.put("()"),
            [v] => self.put_scalar(*v, false),
            vs => {
                self.put("(");
                for (k, &v) in vs.iter().enumerate() {
                    if k > 0 {
                        self.put(", ");
                    }
                    self.put_scalar(v, false);
                }
                self.put(")");
            }
        }
        self.put(")");
    }
}
