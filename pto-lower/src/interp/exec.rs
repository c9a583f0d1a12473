//! The interpreter's driver: function calls with parameter and symbolic-dimension binding,
//! and structured control flow (`for`, `if`, `while`, `break`, `continue`, `scope`,
//! `return`). Ops are evaluated in `ops.rs`.

use std::collections::HashMap;

use pto_ir::{
    BlockId, Constant, DataType, Dim, Direction, FuncId, IterArg, ProgramModule, StmtId, StmtKind,
    Type, ValueId,
};

use super::num;
use super::{HostScalar, HostTensor, HostTile, HostValue, InterpError, ScalarValue, shape_str};

type R<T> = Result<T, InterpError>;

/// How deep `func.call`s may nest before the interpreter gives up (runaway recursion).
const MAX_CALL_DEPTH: usize = 200;

/// A runtime value: tensors live in the interpreter's store and are shared by reference.
#[derive(Clone, Debug)]
pub(super) enum Rt {
    /// A scalar.
    Scalar(HostScalar),
    /// A tile (by value).
    Tile(HostTile),
    /// A tensor: an index into [`Interp::tensors`].
    Tensor(usize),
}

impl Rt {
    fn kind_name(&self) -> &'static str {
        match self {
            Rt::Scalar(_) => "scalar",
            Rt::Tile(_) => "tile",
            Rt::Tensor(_) => "tensor",
        }
    }
}

/// The values of one function activation.
#[derive(Default)]
pub(super) struct Frame {
    vals: HashMap<ValueId, Rt>,
}

impl Frame {
    pub(super) fn set(&mut self, v: ValueId, r: Rt) {
        self.vals.insert(v, r);
    }
}

/// How a block ended.
enum Flow {
    /// It ran to its end without a terminator.
    Next,
    /// `statement.yield`.
    Yield(Vec<Rt>),
    /// `statement.break`.
    Break(Vec<Rt>),
    /// `statement.continue`.
    Continue(Vec<Rt>),
    /// `statement.return`.
    Return(Vec<Rt>),
    /// `statement.condition` (ends a `while` condition region).
    Cond(bool),
}

/// The interpreter state shared by every activation: the module and the tensor store.
pub(super) struct Interp<'m> {
    pub(super) m: &'m ProgramModule,
    pub(super) tensors: Vec<HostTensor>,
    depth: usize,
    /// Values of the entry function that are the current contents of one of its `#out` /
    /// `#inout` tile parameters: the parameter itself, and the results of `tile.assemble`s
    /// into such a value.
    out_tiles: HashMap<ValueId, ValueId>,
    /// The latest contents written into each `#out` / `#inout` tile parameter.
    out_tile_values: HashMap<ValueId, HostTile>,
}

pub(super) fn run(m: &ProgramModule, func: FuncId, args: &mut [HostValue]) -> R<Vec<HostValue>> {
    let f = m
        .funcs
        .get(func)
        .ok_or_else(|| InterpError::new(format!("{func:?} is not a function of this module")))?;
    if args.len() != f.sig.params.len() {
        return Err(InterpError::new(format!(
            "`@{}` takes {} argument{}, {} given",
            f.name,
            f.sig.params.len(),
            if f.sig.params.len() == 1 { "" } else { "s" },
            args.len()
        )));
    }
    let mut it = Interp {
        m,
        tensors: Vec::new(),
        depth: 0,
        out_tiles: HashMap::new(),
        out_tile_values: HashMap::new(),
    };
    for p in &f.sig.params {
        if p.direction != Direction::In
            && m.values
                .get(p.value)
                .is_some_and(|d| d.ty.as_tile().is_some())
        {
            it.out_tiles.insert(p.value, p.value);
        }
    }
    let mut rts = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        rts.push(match a {
            HostValue::Scalar(s) => Rt::Scalar(
                normalize_scalar(*s)
                    .map_err(|e| e.context(&format!("argument {}", i + 1), f.span))?,
            ),
            HostValue::Tile(t) => {
                check_tile_data(t)
                    .map_err(|e| e.context(&format!("argument {}", i + 1), f.span))?;
                Rt::Tile(t.clone())
            }
            HostValue::Tensor(t) => {
                let t = normalize_tensor(t)
                    .map_err(|e| e.context(&format!("argument {}", i + 1), f.span))?;
                it.tensors.push(t);
                Rt::Tensor(it.tensors.len() - 1)
            }
        });
    }
    let rets = it.call(func, rts.clone())?;
    for ((a, p), rt) in args.iter_mut().zip(&f.sig.params).zip(&rts) {
        if p.direction == Direction::In {
            continue;
        }
        match (a, rt) {
            (HostValue::Tensor(t), Rt::Tensor(id)) => {
                if let Some(out) = it.tensors.get(*id) {
                    *t = out.clone();
                }
            }
            (HostValue::Tile(t), _) => {
                if let Some(out) = it.out_tile_values.get(&p.value) {
                    *t = out.clone();
                }
            }
            _ => {}
        }
    }
    rets.into_iter()
        .map(|r| match r {
            Rt::Scalar(s) => Ok(HostValue::Scalar(s)),
            other => Err(InterpError::new(format!(
                "`@{}` returned a {}; only scalars can be returned",
                f.name,
                other.kind_name()
            ))),
        })
        .collect()
}

/// Checks that a scalar argument holds a value of its dtype's kind and range, and rounds a
/// float to its dtype.
fn normalize_scalar(s: HostScalar) -> R<HostScalar> {
    match s.value {
        ScalarValue::Bool(_) if s.dtype == DataType::Bool => Ok(s),
        ScalarValue::Int(v) if s.dtype.is_int() => {
            let (lo, hi) = num::int_range(s.dtype)?;
            if v < lo || v > hi {
                return Err(InterpError::new(format!(
                    "{v} is out of range for {}",
                    s.dtype
                )));
            }
            Ok(s)
        }
        ScalarValue::Float(x) if s.dtype.is_float() => HostScalar::from_f64(s.dtype, x),
        _ => Err(InterpError::new(format!(
            "a {} scalar cannot hold {:?}",
            s.dtype, s.value
        ))),
    }
}

/// Checks a tensor argument's data length and rounds its elements to its dtype.
fn normalize_tensor(t: &HostTensor) -> R<HostTensor> {
    let n: usize = t.shape.iter().product();
    if n != t.data.len() {
        return Err(InterpError::new(format!(
            "a {} tensor needs {n} elements, it has {}",
            shape_str(&t.shape),
            t.data.len()
        )));
    }
    let data = t
        .data
        .iter()
        .map(|&x| num::normalize(x, t.dtype))
        .collect::<R<Vec<_>>>()?;
    Ok(HostTensor {
        dtype: t.dtype,
        shape: t.shape.clone(),
        data,
    })
}

fn check_tile_data(t: &HostTile) -> R<()> {
    let n: usize = t.shape.iter().product();
    if n != t.data.len() || t.valid.len() != t.shape.len() {
        return Err(InterpError::new(format!(
            "a {} tile needs {n} elements and {} valid extents, it has {} and {}",
            shape_str(&t.shape),
            t.shape.len(),
            t.data.len(),
            t.valid.len()
        )));
    }
    if t.valid.iter().zip(&t.shape).any(|(v, s)| v > s) {
        return Err(InterpError::new(format!(
            "the valid region {} is larger than the {} tile",
            shape_str(&t.valid),
            shape_str(&t.shape)
        )));
    }
    Ok(())
}

/// The scalar a constant denotes, as a value of `dtype`.
pub(super) fn constant_scalar(c: Constant, dtype: DataType) -> R<HostScalar> {
    match c {
        Constant::Bool(b) => HostScalar::from_i128(dtype, i128::from(b)),
        Constant::Double(x) => HostScalar::from_f64(dtype, x),
        Constant::SizeT(v) => HostScalar::from_i128(dtype, i128::from(v)),
        other => HostScalar::from_i128(dtype, i128::from(other.as_i64())),
    }
}

impl<'m> Interp<'m> {
    /// A value's name for messages: the user's name if it has one, else the SSA name.
    pub(super) fn name(&self, v: ValueId) -> String {
        match self.m.values.get(v).and_then(|d| d.name.clone()) {
            Some(n) => n.to_string(),
            None => self.m.ssa_name(v),
        }
    }

    /// The runtime value of `v`.
    pub(super) fn get(&self, fr: &Frame, v: ValueId) -> R<Rt> {
        if let Some(r) = fr.vals.get(&v) {
            return Ok(r.clone());
        }
        if let Some(d) = self.m.values.get(v)
            && let (Some(c), Type::Scalar(dt)) = (d.constant, &d.ty)
        {
            return Ok(Rt::Scalar(constant_scalar(c, *dt)?));
        }
        Err(InterpError::new(format!(
            "value {} is used before it is defined",
            self.m.ssa_name(v)
        )))
    }

    /// `v` as a scalar.
    pub(super) fn scalar(&self, fr: &Frame, v: ValueId) -> R<HostScalar> {
        match self.get(fr, v)? {
            Rt::Scalar(s) => Ok(s),
            other => Err(InterpError::new(format!(
                "{} is a {}, expected a scalar",
                self.m.ssa_name(v),
                other.kind_name()
            ))),
        }
    }

    /// `v` as an integer (an integer or `bool` scalar).
    pub(super) fn int(&self, fr: &Frame, v: ValueId) -> R<i128> {
        let s = self.scalar(fr, v)?;
        match s.value {
            ScalarValue::Int(i) => Ok(i),
            ScalarValue::Bool(b) => Ok(i128::from(b)),
            ScalarValue::Float(_) => Err(InterpError::new(format!(
                "{} is a {}, expected an integer",
                self.m.ssa_name(v),
                s.dtype
            ))),
        }
    }

    fn bool(&self, fr: &Frame, v: ValueId) -> R<bool> {
        let s = self.scalar(fr, v)?;
        match s.value {
            ScalarValue::Bool(b) => Ok(b),
            _ => Err(InterpError::new(format!(
                "{} is a {}, expected a bool",
                self.m.ssa_name(v),
                s.dtype
            ))),
        }
    }

    /// `v` as a tile (borrowed from the frame).
    pub(super) fn tile<'f>(&self, fr: &'f Frame, v: ValueId) -> R<&'f HostTile> {
        match fr.vals.get(&v) {
            Some(Rt::Tile(t)) => Ok(t),
            Some(other) => Err(InterpError::new(format!(
                "{} is a {}, expected a tile",
                self.m.ssa_name(v),
                other.kind_name()
            ))),
            None => Err(InterpError::new(format!(
                "value {} is used before it is defined",
                self.m.ssa_name(v)
            ))),
        }
    }

    /// `v` as a tensor: its index in the store.
    pub(super) fn tensor_id(&self, fr: &Frame, v: ValueId) -> R<usize> {
        match self.get(fr, v)? {
            Rt::Tensor(id) if id < self.tensors.len() => Ok(id),
            other => Err(InterpError::new(format!(
                "{} is a {}, expected a tensor",
                self.m.ssa_name(v),
                other.kind_name()
            ))),
        }
    }

    /// Records a `tile.assemble` into `dst` giving `result`: when `dst` holds the contents of
    /// an `#out` / `#inout` tile parameter of the entry function, the parameter is written.
    pub(super) fn note_tile_write(
        &mut self,
        dst: ValueId,
        result: Option<ValueId>,
        tile: &HostTile,
    ) {
        if self.depth != 1 {
            return;
        }
        if let Some(&param) = self.out_tiles.get(&dst) {
            if let Some(r) = result {
                self.out_tiles.insert(r, param);
            }
            self.out_tile_values.insert(param, tile.clone());
        }
    }

    /// Calls function `func` with `args`; returns its returned values.
    pub(super) fn call(&mut self, func: FuncId, args: Vec<Rt>) -> R<Vec<Rt>> {
        let m = self.m;
        let f = m.funcs.get(func).ok_or_else(|| {
            InterpError::new(format!("{func:?} is not a function of this module"))
        })?;
        if self.depth >= MAX_CALL_DEPTH {
            return Err(InterpError::new(format!(
                "calls nest more than {MAX_CALL_DEPTH} deep (calling `@{}`)",
                f.name
            )));
        }
        let mut fr = Frame::default();
        self.bind_params(&mut fr, func, args)
            .map_err(|e| e.context(&format!("calling `@{}`", f.name), f.span))?;
        self.depth += 1;
        let flow = self.exec_block(&mut fr, f.body);
        self.depth -= 1;
        let flow = flow?;
        let rets = match flow {
            Flow::Return(v) => v,
            Flow::Next | Flow::Yield(_) => Vec::new(),
            Flow::Break(_) | Flow::Continue(_) | Flow::Cond(_) => {
                return Err(InterpError::new(format!(
                    "`@{}`: break / continue / condition outside of a loop",
                    f.name
                )));
            }
        };
        if rets.len() != f.sig.returns.len() {
            return Err(InterpError::new(format!(
                "`@{}` returned {} value(s), its signature declares {}",
                f.name,
                rets.len(),
                f.sig.returns.len()
            )));
        }
        for (r, t) in rets.iter().zip(&f.sig.returns) {
            if let (Rt::Scalar(s), Type::Scalar(d)) = (r, t)
                && s.dtype != *d
            {
                return Err(InterpError::new(format!(
                    "`@{}` returned a {} where its signature declares {d}",
                    f.name, s.dtype
                )));
            }
        }
        Ok(rets)
    }

    /// Binds parameters and symbolic dimensions, checking kinds, dtypes and extents.
    fn bind_params(&mut self, fr: &mut Frame, func: FuncId, args: Vec<Rt>) -> R<()> {
        let m = self.m;
        let f = m.funcs.get(func).ok_or_else(|| {
            InterpError::new(format!("{func:?} is not a function of this module"))
        })?;
        if args.len() != f.sig.params.len() {
            return Err(InterpError::new(format!(
                "{} argument(s) given, {} expected",
                args.len(),
                f.sig.params.len()
            )));
        }
        // Symbolic extent value -> (size, where it was bound).
        let mut dims: HashMap<ValueId, (usize, String)> = HashMap::new();
        let mut bind_dim = |v: ValueId, size: usize, what: String| -> R<()> {
            match dims.get(&v) {
                Some((bound, by)) if *bound != size => Err(InterpError::new(format!(
                    "symbolic dimension `{}`: {what} is {size}, but {by} is {bound}",
                    self.name(v)
                ))),
                Some(_) => Ok(()),
                None => {
                    dims.insert(v, (size, what));
                    Ok(())
                }
            }
        };
        for (i, (p, a)) in f.sig.params.iter().zip(args).enumerate() {
            let pname = format!("parameter `{}` (argument {})", self.name(p.value), i + 1);
            let pty = &m
                .values
                .get(p.value)
                .ok_or_else(|| InterpError::new(format!("{pname} is not a value of this module")))?
                .ty;
            match (pty, &a) {
                (Type::Scalar(d), Rt::Scalar(s)) => {
                    if s.dtype != *d {
                        return Err(InterpError::new(format!(
                            "{pname} is {d}, the argument is {}",
                            s.dtype
                        )));
                    }
                }
                (Type::Tensor(tt), Rt::Tensor(id)) => {
                    let t = self
                        .tensors
                        .get(*id)
                        .ok_or_else(|| InterpError::new(format!("{pname}: dangling tensor")))?;
                    if t.dtype != tt.dtype {
                        return Err(InterpError::new(format!(
                            "{pname} is a {} tensor, the argument is {}",
                            tt.dtype, t.dtype
                        )));
                    }
                    if t.shape.len() != tt.shape.len() {
                        return Err(InterpError::new(format!(
                            "{pname} has rank {}, the argument has rank {} ({})",
                            tt.shape.len(),
                            t.shape.len(),
                            shape_str(&t.shape)
                        )));
                    }
                    for (d, (want, &got)) in tt.shape.iter().zip(&t.shape).enumerate() {
                        let what = format!("dimension {d} of {pname}");
                        match *want {
                            Dim::Const(c) if c as usize != got => {
                                return Err(InterpError::new(format!(
                                    "{what} is {got}, expected {c}"
                                )));
                            }
                            Dim::Value(v) => bind_dim(v, got, what)?,
                            _ => {}
                        }
                    }
                }
                (Type::Tile(tt), Rt::Tile(t)) => {
                    if t.dtype != tt.dtype
                        || t.shape
                            .iter()
                            .map(|&s| s as u64)
                            .ne(tt.shape.iter().copied())
                    {
                        return Err(InterpError::new(format!(
                            "{pname} is a {} {} tile, the argument is a {} {} tile",
                            tt.shape
                                .iter()
                                .map(u64::to_string)
                                .collect::<Vec<_>>()
                                .join(" x "),
                            tt.dtype,
                            shape_str(&t.shape),
                            t.dtype
                        )));
                    }
                    for (d, (want, &got)) in tt.valid.iter().zip(&t.valid).enumerate() {
                        let what = format!("valid extent {d} of {pname}");
                        match *want {
                            Dim::Const(c) if c as usize != got => {
                                return Err(InterpError::new(format!(
                                    "{what} is {got}, expected {c}"
                                )));
                            }
                            Dim::Value(v) => bind_dim(v, got, what)?,
                            _ => {}
                        }
                    }
                }
                (t, a) => {
                    return Err(InterpError::new(format!(
                        "{pname} is a {}, the argument is a {}",
                        t.kind_name(),
                        a.kind_name()
                    )));
                }
            }
            fr.set(p.value, a);
        }
        for (v, (size, what)) in dims {
            if let Some(Rt::Scalar(s)) = fr.vals.get(&v) {
                // The extent is itself a scalar parameter: the two must agree.
                if s.as_i128() != size as i128 {
                    return Err(InterpError::new(format!(
                        "{what} is {size}, but `{}` is {}",
                        self.name(v),
                        s.as_i128()
                    )));
                }
                continue;
            }
            let dt = m
                .values
                .get(v)
                .and_then(|d| d.ty.as_scalar())
                .unwrap_or(DataType::Int64);
            fr.set(v, Rt::Scalar(HostScalar::from_i128(dt, size as i128)?));
        }
        Ok(())
    }

    fn exec_block(&mut self, fr: &mut Frame, b: BlockId) -> R<Flow> {
        let m = self.m;
        let block = m
            .blocks
            .get(b)
            .ok_or_else(|| InterpError::new(format!("{b:?} is not a block of this module")))?;
        for &s in &block.stmts {
            match self.exec_stmt(fr, s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn values(&self, fr: &Frame, vs: &[ValueId]) -> R<Vec<Rt>> {
        vs.iter().map(|&v| self.get(fr, v)).collect()
    }

    fn bind_all(&self, fr: &mut Frame, targets: &[ValueId], values: Vec<Rt>, what: &str) -> R<()> {
        if targets.len() != values.len() {
            return Err(InterpError::new(format!(
                "{what}: {} value(s) for {} target(s)",
                values.len(),
                targets.len()
            )));
        }
        for (&t, v) in targets.iter().zip(values) {
            fr.set(t, v);
        }
        Ok(())
    }

    fn exec_stmt(&mut self, fr: &mut Frame, s: StmtId) -> R<Flow> {
        let m = self.m;
        let stmt = m
            .stmts
            .get(s)
            .ok_or_else(|| InterpError::new(format!("{s:?} is not a statement of this module")))?;
        let span = stmt.span;
        let ctx = |e: InterpError| e.context(stmt.kind.keyword(), span);
        match &stmt.kind {
            StmtKind::Op(ops) => {
                for &op in ops {
                    self.exec_op(fr, op)?;
                }
                Ok(Flow::Next)
            }
            StmtKind::For(fs) => {
                let lb = self.int(fr, fs.lb).map_err(ctx)?;
                let ub = self.int(fr, fs.ub).map_err(ctx)?;
                let step = self.int(fr, fs.step).map_err(ctx)?;
                if step <= 0 {
                    return Err(ctx(InterpError::new(format!(
                        "the step is {step}; it must be positive"
                    ))));
                }
                let iv_ty = m
                    .values
                    .get(fs.iv)
                    .and_then(|d| d.ty.as_scalar())
                    .unwrap_or(DataType::Int64);
                let inits: Vec<ValueId> = fs.iter_args.iter().map(|a| a.init).collect();
                let mut carried = self.values(fr, &inits).map_err(ctx)?;
                let mut i = lb;
                while i < ub {
                    fr.set(
                        fs.iv,
                        Rt::Scalar(HostScalar::from_i128(iv_ty, i).map_err(ctx)?),
                    );
                    bind_iter_args(fr, &fs.iter_args, &carried);
                    match self
                        .iteration(fr, fs.body, fs.iter_args.len())
                        .map_err(ctx)?
                    {
                        Step::Next(v) => carried = v,
                        Step::Exit(v) => {
                            carried = v;
                            break;
                        }
                        Step::Return(v) => return Ok(Flow::Return(v)),
                    }
                    i += step;
                }
                self.bind_all(fr, &fs.results, carried, "for results")
                    .map_err(ctx)?;
                Ok(Flow::Next)
            }
            StmtKind::While(ws) => {
                let inits: Vec<ValueId> = ws.iter_args.iter().map(|a| a.init).collect();
                let mut carried = self.values(fr, &inits).map_err(ctx)?;
                loop {
                    bind_iter_args(fr, &ws.iter_args, &carried);
                    match self.exec_block(fr, ws.cond_block)? {
                        Flow::Cond(true) => {}
                        Flow::Cond(false) => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {
                            return Err(ctx(InterpError::new(
                                "the condition region did not end with statement.condition",
                            )));
                        }
                    }
                    match self
                        .iteration(fr, ws.body, ws.iter_args.len())
                        .map_err(ctx)?
                    {
                        Step::Next(v) => carried = v,
                        Step::Exit(v) => {
                            carried = v;
                            break;
                        }
                        Step::Return(v) => return Ok(Flow::Return(v)),
                    }
                }
                self.bind_all(fr, &ws.results, carried, "while results")
                    .map_err(ctx)?;
                Ok(Flow::Next)
            }
            StmtKind::If(is) => {
                let c = self.bool(fr, is.cond).map_err(ctx)?;
                let branch = if c { is.then_block } else { is.else_block };
                match self.exec_block(fr, branch)? {
                    Flow::Yield(v) => {
                        self.bind_all(fr, &is.results, v, "if results")
                            .map_err(ctx)?;
                        Ok(Flow::Next)
                    }
                    Flow::Next if is.results.is_empty() => Ok(Flow::Next),
                    Flow::Next => Err(ctx(InterpError::new(
                        "a branch ended without yielding the if's results",
                    ))),
                    other => Ok(other),
                }
            }
            StmtKind::Scope(_, body) => self.exec_block(fr, *body),
            StmtKind::Condition(c) => Ok(Flow::Cond(self.bool(fr, *c).map_err(ctx)?)),
            StmtKind::Yield(vs) => Ok(Flow::Yield(self.values(fr, vs).map_err(ctx)?)),
            StmtKind::Break(vs) => Ok(Flow::Break(self.values(fr, vs).map_err(ctx)?)),
            StmtKind::Continue(vs) => Ok(Flow::Continue(self.values(fr, vs).map_err(ctx)?)),
            StmtKind::Return(vs) => Ok(Flow::Return(self.values(fr, vs).map_err(ctx)?)),
        }
    }

    /// Runs one loop iteration: the values for the next one, or those the loop ends with.
    fn iteration(&mut self, fr: &mut Frame, body: BlockId, carried: usize) -> R<Step> {
        let check = |v: Vec<Rt>, what: &str| -> R<Vec<Rt>> {
            if v.len() == carried {
                Ok(v)
            } else {
                Err(InterpError::new(format!(
                    "{what} carries {} value(s), the loop has {carried} iter arg(s)",
                    v.len()
                )))
            }
        };
        match self.exec_block(fr, body)? {
            Flow::Yield(v) => Ok(Step::Next(check(v, "statement.yield")?)),
            Flow::Continue(v) => Ok(Step::Next(check(v, "statement.continue")?)),
            Flow::Break(v) => Ok(Step::Exit(check(v, "statement.break")?)),
            Flow::Return(v) => Ok(Step::Return(v)),
            Flow::Next if carried == 0 => Ok(Step::Next(Vec::new())),
            Flow::Next => Err(InterpError::new("the loop body ended without a yield")),
            Flow::Cond(_) => Err(InterpError::new("statement.condition inside a loop body")),
        }
    }
}

/// The outcome of one loop iteration.
enum Step {
    /// Carry on with these values.
    Next(Vec<Rt>),
    /// Leave the loop with these values.
    Exit(Vec<Rt>),
    /// The function returned.
    Return(Vec<Rt>),
}

fn bind_iter_args(fr: &mut Frame, args: &[IterArg], values: &[Rt]) {
    for (a, v) in args.iter().zip(values) {
        fr.set(a.arg, v.clone());
    }
}
