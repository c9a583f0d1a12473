//! Method calls (tensor, tile, scalar) and function calls.

use pto_ir::ops::{Operand, Spelling};
use pto_ir::{
    Attr, Attrs, Constant, DataType, Direction, InlineVec, Name, OpClass, Opcode, SpanId, Type,
    ValueId, ValueList,
};
use quote::ToTokens;
use syn::{Expr, ExprCall, ExprMethodCall, GenericArgument, Ident};

use super::ops::{
    CAST_ROUND, COMPOSED, MASK_NOT_A_NUMBER, TILE_FLOOR_DIV, functions, methods, round_mode,
    spelled, value_operands,
};
use super::{Lower, Poison, R, Val};
use crate::model::{scalar_dtype, spelling};

impl<'k> Lower<'k, '_> {
    pub(super) fn arity(
        &mut self,
        name: &'k Ident,
        args: usize,
        want: usize,
        usage: &dyn std::fmt::Display,
    ) -> R<()> {
        if args == want {
            return Ok(());
        }
        let plural = if want == 1 { "argument" } else { "arguments" };
        self.err(
            name,
            format!("`{usage}` takes {want} {plural}, found {args}"),
        )
    }

    fn no_turbofish(&mut self, m: &'k ExprMethodCall, usage: &dyn std::fmt::Display) -> R<()> {
        match &m.turbofish {
            Some(tf) => self.err(tf, format!("`{usage}` takes no type arguments")),
            None => Ok(()),
        }
    }

    /// A method call; `None` for `t.store(..)`.
    pub(super) fn method(&mut self, m: &'k ExprMethodCall) -> R<Option<Val>> {
        self.named_method(m, &spelling(&m.method))
    }

    /// [`Lower::method`] with the method's name spelled.
    fn named_method(&mut self, m: &'k ExprMethodCall, name: &str) -> R<Option<Val>> {
        if matches!(&*m.receiver, Expr::Range(_))
            || matches!(&*m.receiver, Expr::Paren(p) if matches!(&*p.expr, Expr::Range(_)))
        {
            return self.err(
                &*m.receiver,
                "ranges are only written as `for` loop bounds: `for i in (a..b).step_by(s)`",
            );
        }
        let recv = self.expr(&m.receiver)?;
        let span = self.sid(m);
        let n = m.args.len();
        if self.is_tensor(&recv) {
            let Val::V(t) = recv else { return Err(Poison) };
            return self.tensor_method(m, t, name, span).map(|v| v.map(Val::V));
        }
        if let Some(dtype) = self.val_tile(&recv) {
            let Val::V(t) = recv else { return Err(Poison) };
            return self
                .tile_method(m, t, dtype, name, span)
                .map(|v| Some(Val::V(v)));
        }
        // Scalars (and literals): the op table's methods on scalars.
        let method = Spelling::Method(name);
        let op = spelled(method, Operand::Scalar, self.val_scalar(&recv));
        match op.and_then(|op| Some((op, value_operands(op.class())?))) {
            Some((op, 1)) => {
                let usage = op.info().surface;
                self.no_turbofish(m, &usage)?;
                self.arity(&m.method, n, 0, &usage)?;
                let id = self.materialize(recv, None)?;
                self.build(span, op, [id], Attrs::new())
                    .map(|v| Some(Val::V(v)))
            }
            Some((_, 2)) => {
                self.no_turbofish(m, &format_args!("x.{name}(y)"))?;
                self.arity(&m.method, n, 1, &format_args!("x.{name}(y)"))?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let other = self.expr(arg)?;
                self.apply_binary(method, recv, other, span, None).map(Some)
            }
            _ => {
                let what = match recv {
                    Val::V(id) => self.show(self.ty(id)),
                    _ => "a literal".to_string(),
                };
                self.err(
                    &m.method,
                    format!(
                        "no method `{name}` on {what}; scalar methods: {} (and `x as T` for conversions)",
                        methods(Operand::Scalar, None)
                    ),
                )
            }
        }
    }

    pub(super) fn tensor_param_direction(&self, t: ValueId) -> Option<(Direction, Name)> {
        let m = self.b.module();
        let f = m.functions.first()?;
        let func = m.funcs.get(*f)?;
        func.sig.params.iter().find(|p| p.value == t).map(|p| {
            (
                p.direction,
                m.values
                    .get(t)
                    .and_then(|d| d.name.clone())
                    .unwrap_or_default(),
            )
        })
    }

    fn tensor_method(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        name: &str,
        span: SpanId,
    ) -> R<Option<ValueId>> {
        let n = m.args.len();
        match spelled(Spelling::Method(name), Operand::Tensor, None) {
            Some(Opcode::TileLoad) => {
                let Some(tf) = &m.turbofish else {
                    return self.err(&m.method, "write the window size: `t.load::<R, C>([i, j])`");
                };
                let args: InlineVec<&GenericArgument, 4> = tf.args.iter().collect();
                let shape = self.sizes(&args, tf);
                self.arity(&m.method, n, 1, &"t.load::<R, C>([i, j])")?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let off = self.offsets(arg);
                let (shape, off) = (shape?, off?);
                let attrs = Attrs::of([("shape", Attr::ints(&shape)), ("offset", Attr::List(off))]);
                self.build(span, Opcode::TileLoad, [t], attrs).map(Some)
            }
            Some(Opcode::TileLoadOr) => self.load_or(m, t, span),
            Some(Opcode::TileRead) => self.read(m, t, span),
            Some(Opcode::TileWrite) => self.write(m, t, span),
            Some(opcode @ (Opcode::TileStore | Opcode::TileStoreAdd)) => {
                let usage = opcode.info().surface;
                self.no_turbofish(m, &usage)?;
                self.arity(&m.method, n, 2, &usage)?;
                let (Some(o), Some(v)) = (m.args.first(), m.args.get(1)) else {
                    return Err(Poison);
                };
                let off = self.offsets(o);
                let tile = self.expr(v);
                let (off, tile) = (off?, tile?);
                if let Some((Direction::In, pname)) = self.tensor_param_direction(t) {
                    return self.err(
                        &m.method,
                        format!(
                            "cannot store into `{pname}`: it is a read-only `&Tensor` parameter; declare it `&mut Tensor<..>` (or `#[out] {pname}: &mut Tensor<..>`)"
                        ),
                    );
                }
                let tile = self.materialize(tile, None)?;
                self.ctx.set_span(span);
                let r = self.b.build_op(
                    &mut self.ctx,
                    opcode,
                    [tile, t],
                    Attrs::of([("offset", Attr::List(off))]),
                    "",
                );
                self.check(r).map(|_| None)
            }
            Some(op) if op.info().dialect == "tensor" => self.tensor_level_method(m, t, op, span),
            _ => self.err(
                &m.method,
                format!(
                    "no method `{name}` on a tensor; tensor methods: {}",
                    methods(Operand::Tensor, None)
                ),
            ),
        }
    }

    fn tile_method(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        dtype: DataType,
        name: &str,
        span: SpanId,
    ) -> R<ValueId> {
        let n = m.args.len();
        let is_mask = dtype == DataType::Bool;
        if name == "select" || is_mask {
            return self.mask_method(m, t, is_mask, name, span);
        }
        let method = Spelling::Method(name);
        let op = spelled(method, Operand::Tile, Some(dtype));
        let class = op.map(Opcode::class);
        // The op table's methods whose arguments are values (`a.exp()`, `a.max(b)`).
        if let Some((op, arity)) = op.and_then(|op| Some((op, value_operands(op.class())? - 1))) {
            let usage = format_args!("a.{name}({})", if arity == 0 { "" } else { "b" });
            self.no_turbofish(m, &usage)?;
            self.arity(&m.method, n, arity, &usage)?;
            if arity == 0 {
                return self.build(span, op, [t], Attrs::new());
            }
            let Some(arg) = m.args.first() else {
                return Err(Poison);
            };
            let other = self.expr(arg)?;
            if self.is_tensor(&other) {
                return self.err(
                    arg,
                    format!("`a.{name}(b)` takes a tile or a scalar, not a tensor"),
                );
            }
            self.ctx.set_span(span);
            let other = self.materialize(other, Some(dtype))?;
            return self.build(span, op, [t, other], Attrs::new());
        }
        // The rest by class (their arguments are sizes, offsets, a dtype), and the composed.
        match class {
            None if method == TILE_FLOOR_DIV => {
                self.no_turbofish(m, &"a.floor_div(b)")?;
                self.arity(&m.method, n, 1, &"a.floor_div(b)")?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let other = self.expr(arg)?;
                match self.apply_binary(method, Val::V(t), other, span, Some(dtype))? {
                    Val::V(v) => Ok(v),
                    _ => Err(Poison),
                }
            }
            // `a.cast::<T>()`, the table's, or the composed `a.cast_round::<T>(mode)`.
            Some(OpClass::TileCast) | None if class.is_some() || method == CAST_ROUND => {
                let cast = class.is_some();
                let usage = if cast {
                    "a.cast::<T>()"
                } else {
                    "a.cast_round::<T>(Round::Nearest)"
                };
                let d = match &m.turbofish {
                    Some(tf) if tf.args.len() == 1 => match tf.args.first() {
                        Some(GenericArgument::Type(ty)) => scalar_dtype(ty),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(d) = d else {
                    return self.err(
                        &m.method,
                        format!("write the target element type: `{usage}`"),
                    );
                };
                if d == DataType::Bool {
                    return self.err(&m.method, crate::model::NO_BOOL_ELEMENTS);
                }
                if cast {
                    self.arity(&m.method, n, 0, &usage)?;
                    // A cast to the tile's own dtype is the identity, as `as` is.
                    if d == dtype {
                        return Ok(t);
                    }
                    return self.build(
                        span,
                        Opcode::TileCast,
                        [t],
                        Attrs::of([("dtype", Attr::Ident(d.name().into()))]),
                    );
                }
                self.arity(&m.method, n, 1, &usage)?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let Some(mode) = round_mode(arg) else {
                    return self.err(
                        arg,
                        "name the rounding: `Round::Nearest`, `Round::Away`, `Round::Floor`, `Round::Ceil`, `Round::Trunc` or `Round::Odd`",
                    );
                };
                let attrs = Attrs::of([
                    ("dtype", Attr::Ident(d.name().into())),
                    ("round", Attr::Ident(mode.word().into())),
                ]);
                self.build(span, Opcode::TileCast, [t], attrs)
            }
            Some(c @ (OpClass::RowExpand | OpClass::ColExpand)) => {
                let row = c == OpClass::RowExpand;
                let usage = if row {
                    "a.row_expand::<C>()"
                } else {
                    "a.col_expand::<R>()"
                };
                let Some(tf) = &m.turbofish else {
                    return self.err(&m.method, format!("write the size to expand to: `{usage}`"));
                };
                let args: InlineVec<&GenericArgument, 4> = tf.args.iter().collect();
                let size = self.sizes(&args, tf);
                self.arity(&m.method, n, 0, &usage)?;
                let size = size?;
                let (Some(&k), 1) = (size.first(), size.len()) else {
                    return self.err(tf, format!("`{usage}` takes one size"));
                };
                let Type::Tile(src) = self.ty(t) else {
                    return Err(Poison);
                };
                // The other extent is the source's (`R x 1 -> R x C`, `1 x C -> R x C`);
                // the verifier checks the source's shape.
                let shape = match (row, src.shape.as_slice()) {
                    (true, [r, _]) => [*r, k],
                    (false, [_, c]) => [k, *c],
                    _ => {
                        return self.err(
                            &m.method,
                            format!(
                                "`{usage}` expands a rank-2 tile, found {}",
                                self.show(self.ty(t))
                            ),
                        );
                    }
                };
                let op = op.unwrap_or(Opcode::TileRowExpand);
                self.build(span, op, [t], Attrs::of([("shape", Attr::ints(&shape))]))
            }
            Some(OpClass::Reshape) => {
                let Some(tf) = &m.turbofish else {
                    return self.err(&m.method, "write the new shape: `a.reshape::<R2, C2>()`");
                };
                let args: InlineVec<&GenericArgument, 4> = tf.args.iter().collect();
                let shape = self.sizes(&args, tf)?;
                self.arity(&m.method, n, 0, &"a.reshape::<R2, C2>()")?;
                let attrs = Attrs::of([("shape", Attr::ints(&shape))]);
                self.build(span, Opcode::TileReshape, [t], attrs)
            }
            Some(OpClass::TileAssemble) => {
                self.no_turbofish(m, &"a.insert([i, j], b)")?;
                self.arity(&m.method, n, 2, &"a.insert([i, j], b)")?;
                let (Some(o), Some(v)) = (m.args.first(), m.args.get(1)) else {
                    return Err(Poison);
                };
                let off = self.offsets(o);
                let b = self.expr(v);
                let (off, b) = (off?, b?);
                let b = self.materialize(b, Some(dtype))?;
                let attrs = Attrs::of([("offset", Attr::List(off))]);
                self.build(span, Opcode::TileAssemble, [b, t], attrs)
            }
            Some(OpClass::Extract) => {
                let Some(tf) = &m.turbofish else {
                    return self.err(
                        &m.method,
                        "write the window size: `a.extract::<R, C>([i, j])`",
                    );
                };
                let args: InlineVec<&GenericArgument, 4> = tf.args.iter().collect();
                let shape = self.sizes(&args, tf);
                self.arity(&m.method, n, 1, &"a.extract::<R, C>([i, j])")?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let off = self.offsets(arg);
                let (shape, off) = (shape?, off?);
                let attrs = Attrs::of([("shape", Attr::ints(&shape)), ("offset", Attr::List(off))]);
                self.build(span, Opcode::TileExtract, [t], attrs)
            }
            Some(OpClass::Valid) => {
                self.no_turbofish(m, &"a.valid([m, n])")?;
                self.arity(&m.method, n, 1, &"a.valid([m, n])")?;
                let Some(Expr::Array(arr)) = m.args.first() else {
                    return self.err(
                        &m.args,
                        "the valid region is written as an array: `a.valid([m, n])`",
                    );
                };
                let mut operands = ValueList::from([t]);
                let mut ok = true;
                for el in arr.elems.iter() {
                    match self
                        .expr(el)
                        .and_then(|v| self.materialize(v, Some(DataType::Int64)))
                    {
                        Ok(v) => operands.push(v),
                        Err(Poison) => ok = false,
                    }
                }
                if !ok {
                    return Err(Poison);
                }
                self.build(span, Opcode::TileValid, operands, Attrs::new())
            }
            _ if spelled(method, Operand::Tensor, None).is_some() => self.err(
                &m.method,
                format!(
                    "`{name}` is a tensor method, but the receiver is a tile; tile methods: {}",
                    methods(Operand::Tile, None)
                ),
            ),
            _ => self.err(
                &m.method,
                format!(
                    "no method `{name}` on a tile; tile methods: {}",
                    methods(Operand::Tile, None)
                ),
            ),
        }
    }

    /// A method on a mask (only `m.select(a, b)`), or `select` on a tile that is not one.
    fn mask_method(
        &mut self,
        m: &'k ExprMethodCall,
        mask: ValueId,
        is_mask: bool,
        name: &str,
        span: SpanId,
    ) -> R<ValueId> {
        if name != "select" {
            return self.err(
                &m.method,
                format!("no method `{name}` on a mask: {MASK_NOT_A_NUMBER}"),
            );
        }
        if !is_mask {
            return self.err(
                &*m.receiver,
                "`select` is a method of a mask: `a.gt(b).select(x, y)` takes `x` where `a > b` and `y` elsewhere",
            );
        }
        self.no_turbofish(m, &"m.select(a, b)")?;
        self.arity(&m.method, m.args.len(), 2, &"m.select(a, b)")?;
        let (Some(x), Some(y)) = (m.args.first(), m.args.get(1)) else {
            return Err(Poison);
        };
        let (a, b) = (self.expr(x), self.expr(y));
        let (a, b) = (a?, b?);
        if self.is_tensor(&a) || self.is_tensor(&b) {
            return self.err(
                &m.args,
                "`m.select(a, b)` picks between tiles (or a tile and a scalar), not tensors",
            );
        }
        // The first alternative is a tile; its dtype types a literal second one.
        let Some(dtype) = self.val_tile(&a) else {
            return self.err(
                x,
                "the first alternative of `m.select(a, b)` is a tile (the second may be a scalar)",
            );
        };
        self.ctx.set_span(span);
        let a = self.materialize(a, Some(dtype))?;
        let b = self.materialize(b, Some(dtype))?;
        self.build(span, Opcode::TileSelect, [mask, a, b], Attrs::new())
    }

    pub(super) fn call(&mut self, c: &'k ExprCall, e: &'k Expr) -> R<Val> {
        let Expr::Path(p) = &*c.func else {
            return self.err(
                &c.func,
                format!(
                    "only the built-in functions can be called in a kernel: {}",
                    functions()
                ),
            );
        };
        let mut segs = p.path.segments.iter();
        let span = self.sid(e);
        // Tile::<T, R, C>::zeros() / full(v)
        if let (Some(ty), Some(ctor), None) = (segs.next(), segs.next(), segs.next())
            && ty.ident == "Tile"
        {
            let syn::PathArguments::AngleBracketed(a) = &ty.arguments else {
                return self.err(
                    &p.path,
                    "write the tile type: `Tile::<f32, 16, 16>::zeros()`",
                );
            };
            let tile = self.tile_args(a, a, false);
            // `Some(takes a fill value)` for a known constructor: the table's `full(v)`, the
            // composed `zeros()`.
            let name = spelling(&ctor.ident);
            let full = {
                let ctor = Spelling::Constructor(&name);
                if spelled(ctor, Operand::Tile, None) == Some(Opcode::TileFull) {
                    Some(true)
                } else {
                    COMPOSED.iter().any(|c| c.spelling == ctor).then_some(false)
                }
            };
            let fill = match full {
                Some(false) => {
                    self.arity(&ctor.ident, c.args.len(), 0, &"Tile::<T, R, C>::zeros()")?;
                    None
                }
                Some(true) => {
                    self.arity(&ctor.ident, c.args.len(), 1, &"Tile::<T, R, C>::full(v)")?;
                    match c.args.first() {
                        Some(a) => Some(self.expr(a)?),
                        None => return Err(Poison),
                    }
                }
                None => {
                    return self.err(
                        &ctor.ident,
                        format!("no tile constructor `{}`; tiles are created with `Tile::<T, R, C>::zeros()` or `Tile::<T, R, C>::full(v)`", ctor.ident),
                    );
                }
            };
            let (dtype, shape) = tile?;
            self.ctx.set_span(span);
            let v = match fill {
                None => {
                    let c = if dtype.is_float() {
                        Constant::Double(0.0)
                    } else if dtype == DataType::Bool {
                        Constant::Bool(false)
                    } else {
                        Constant::Int64(0)
                    };
                    self.const_of(c, dtype)?
                }
                Some(v) => self.materialize(v, Some(dtype))?,
            };
            let attrs = Attrs::of([
                ("shape", Attr::ints(&shape)),
                ("dtype", Attr::Ident(dtype.name().into())),
            ]);
            return self.build(span, Opcode::TileFull, [v], attrs).map(Val::V);
        }
        let Some(ident) = p.path.get_ident() else {
            return self.err(
                &p.path,
                format!(
                    "cannot find function `{}`; the kernel language has: {}",
                    p.path.to_token_stream().to_string().replace(' ', ""),
                    functions()
                ),
            );
        };
        // The function's op (the table's row of any operand class: the arguments pick the
        // class of `max(a, b)`), or the message for a name that is not one (`None`: unknown).
        let name = spelling(ident);
        let callee = {
            let f = Spelling::Function(&name);
            let row = [Operand::Scalar, Operand::Tile]
                .into_iter()
                .find_map(|on| spelled(f, on, None))
                .map(Opcode::info);
            match (row, name.as_str()) {
                (Some(row), _) => match value_operands(row.class) {
                    Some(want) => Ok((row.spelling, row.opcode, want, row.surface)),
                    None => Err(None),
                },
                (None, "range") => Err(Some(
                    "`range(a, b, s)` is only written as the bounds of a `for` loop",
                )),
                (None, "parallel") => Err(Some(
                    "`parallel(a..b)` is only written as the range of a `for` loop",
                )),
                (None, "Tile") => Err(Some(
                    "tiles are created with `Tile::<T, R, C>::zeros()` or `Tile::<T, R, C>::full(v)`",
                )),
                _ => Err(None),
            }
        };
        let (spelling, op, want, usage) = match callee {
            Ok(c) => c,
            Err(Some(msg)) => return self.err(ident, msg),
            Err(None) => {
                let name = crate::model::spelling(ident);
                if self.in_program && self.b.module().function_by_name(&name).is_some() {
                    return self.func_call(&name, c, span).and_then(|rs| match rs.as_slice() {
                        [r] => Ok(Val::V(*r)),
                        [] => self.err(
                            e,
                            format!("`{name}` returns nothing: call it as a statement, `{name}(..);`"),
                        ),
                        _ => self.err(
                            e,
                            format!("`{name}` returns a tuple: bind its parts with `let (a, b) = {name}(..);`"),
                        ),
                    });
                }
                let others: Vec<String> = self
                    .b
                    .module()
                    .functions
                    .iter()
                    .filter_map(|&f| self.b.module().funcs.get(f))
                    .map(|f| format!("`{}`", f.name))
                    .collect();
                let program = if others.is_empty() || !self.in_program {
                    String::new()
                } else {
                    format!("; the program's functions: {}", others.join(", "))
                };
                return self.err(
                    ident,
                    format!(
                        "cannot find function `{ident}`; the kernel language has: {}{program}",
                        functions()
                    ),
                );
            }
        };
        // Lower every argument first, so errors inside them are all reported.
        let mut vals = InlineVec::<_, 4>::new();
        let mut ok = true;
        for a in c.args.iter() {
            match self.expr(a) {
                Ok(v) => vals.push(v),
                Err(Poison) => ok = false,
            }
        }
        self.arity(ident, c.args.len(), want, &usage)?;
        if !ok {
            return Err(Poison);
        }
        // `max(a, b)` is the scalar or the tile op by its arguments, as `a.max(b)` is.
        match (spelling, vals.as_slice()) {
            (Spelling::MethodOrFunction(name), [a, b]) => {
                self.apply_binary(Spelling::Function(name), *a, *b, span, None)
            }
            _ => {
                let mut ids = ValueList::new();
                for v in vals {
                    ids.push(self.materialize(v, None)?);
                }
                self.build(span, op, ids, Attrs::new()).map(Val::V)
            }
        }
    }
}

impl<'k> Lower<'k, '_> {
    /// A call of function `name` of the program (`func.call @name(..)`): the arguments
    /// lowered (a literal typed by the parameter it is passed for), the call checked against
    /// the callee's signature at the call's tokens. Returns the results.
    pub(super) fn func_call(
        &mut self,
        name: &str,
        c: &'k ExprCall,
        span: pto_ir::SpanId,
    ) -> R<Vec<pto_ir::ValueId>> {
        let m = self.b.module();
        let Some(f) = m.function_by_name(name) else {
            return Err(Poison);
        };
        let param_types: Vec<Option<DataType>> = m
            .funcs
            .get(f)
            .map(|f| f.sig.params.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|p| m.values.get(p.value).and_then(|d| d.ty.as_scalar()))
            .collect();
        let mut ids = ValueList::new();
        let mut ok = true;
        for (k, a) in c.args.iter().enumerate() {
            let hint = param_types.get(k).copied().flatten();
            match self.expr_h(a, hint).and_then(|v| self.materialize(v, hint)) {
                Ok(v) => ids.push(v),
                Err(Poison) => ok = false,
            }
        }
        if !ok {
            return Err(Poison);
        }
        let attrs = Attrs::of([("callee", Attr::Symbol(name.into()))]);
        self.ctx.set_span(span);
        let r = self.b.build_op(&mut self.ctx, Opcode::Call, ids, attrs, "");
        let first = self.check(r)?;
        let m = self.b.module();
        Ok(match first.and_then(|v| m.values.get(v)).map(|d| d.def) {
            Some(pto_ir::ValueDef::OpResult(op, _)) => m
                .ops
                .get(op)
                .map(|o| o.results.to_vec())
                .unwrap_or_default(),
            _ => Vec::new(),
        })
    }
}
