//! Op evaluation: scalar ops (Rust semantics), tile ops over valid regions (PTO-ISA
//! semantics), memory ops and tensor-level ops.

use pto_ir::ops::matmul_acc_dtype;
use pto_ir::{Attr, DataType, OpClass, OpId, Opcode, Operation, Type, ValueId};

use super::exec::{Frame, Interp, Rt, constant_scalar};
use pto_ir::sem::{self, Binary, FloatSem, Sem, Value};

use super::num::{self, RoundMode};
use super::{HostScalar, HostTensor, HostTile, InterpError, ScalarValue, flat_index, shape_str};

mod compute;
mod mask;
mod memory;

type R<T> = Result<T, InterpError>;

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(InterpError::new(msg))
}

/// Calls `f` with every multi-index below `extents` (row-major order); nothing when an
/// extent is 0.
fn for_each_index(extents: &[usize], mut f: impl FnMut(&[usize]) -> R<()>) -> R<()> {
    if extents.contains(&0) {
        return Ok(());
    }
    let mut idx = vec![0usize; extents.len()];
    loop {
        f(&idx)?;
        let mut d = extents.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < extents[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// `base + idx`, elementwise.
fn offset_index(base: &[usize], idx: &[usize]) -> Vec<usize> {
    base.iter().zip(idx).map(|(a, b)| a + b).collect()
}

fn at(shape: &[usize], idx: &[usize]) -> R<usize> {
    flat_index(shape, idx).ok_or_else(|| {
        InterpError::new(format!(
            "index {idx:?} is outside the {} shape",
            shape_str(shape)
        ))
    })
}

/// An element (as stored) viewed as a scalar of `dtype`.
fn elem_scalar(dtype: DataType, x: f64) -> HostScalar {
    let value = if dtype == DataType::Bool {
        ScalarValue::Bool(x != 0.0)
    } else if dtype.is_float() {
        ScalarValue::Float(x)
    } else {
        ScalarValue::Int(x as i128)
    };
    HostScalar { dtype, value }
}

/// A tile of `shape` with the given valid region, zero elsewhere.
fn blank_tile(dtype: DataType, shape: Vec<usize>, valid: Vec<usize>) -> HostTile {
    let n = shape.iter().product();
    HostTile {
        dtype,
        shape,
        valid,
        data: vec![0.0; n],
    }
}

fn meet(a: &[usize], b: &[usize]) -> Vec<usize> {
    a.iter().zip(b).map(|(x, y)| *x.min(y)).collect()
}

/// The region covering both valid regions (`docs/guide.md` section 5: the result of an
/// accumulating op).
fn join(a: &[usize], b: &[usize]) -> Vec<usize> {
    a.iter().zip(b).map(|(x, y)| *x.max(y)).collect()
}

/// Whether `idx` lies inside the valid region `valid`.
fn inside(idx: &[usize], valid: &[usize]) -> bool {
    idx.iter().zip(valid).all(|(i, v)| i < v)
}

/// The accumulating elementwise ops: `a + b`, `a * b`, `max`, `min`. Where only one operand
/// is valid their result is that operand (`docs/guide.md` section 5).
fn accumulates(code: Opcode) -> bool {
    matches!(
        code,
        Opcode::TileAdd | Opcode::TileMul | Opcode::TileMax | Opcode::TileMin
    )
}

fn require_rank2(t: &HostTile, what: &str) -> R<(usize, usize)> {
    match t.shape[..] {
        [r, c] => Ok((r, c)),
        _ => err(format!(
            "{what} must be a rank-2 tile, found {}",
            shape_str(&t.shape)
        )),
    }
}

// ----- scalar semantics: the op table's `sem` column, evaluated by `pto_ir::sem` -----

fn to_value(v: ScalarValue) -> Value {
    match v {
        ScalarValue::Bool(b) => Value::Bool(b),
        ScalarValue::Int(i) => Value::Int(i),
        ScalarValue::Float(x) => Value::Float(x),
    }
}

fn from_value(dtype: DataType, v: Value) -> HostScalar {
    let value = match v {
        Value::Bool(b) => ScalarValue::Bool(b),
        Value::Int(i) => ScalarValue::Int(i),
        Value::Float(x) => ScalarValue::Float(x),
    };
    HostScalar { dtype, value }
}

/// A binary scalar op (arithmetic, bitwise, comparison, logic) as the semantics module
/// defines it.
pub(super) fn scalar_binary(op: Opcode, a: HostScalar, b: HostScalar) -> R<HostScalar> {
    let d = a.dtype;
    let mismatch = || {
        InterpError::new(format!(
            "`{op}` does not apply to {} and {}",
            a.dtype, b.dtype
        ))
    };
    match op.info().sem {
        Sem::Binary(k) => {
            // A shift amount of another integer type converts like the host code's `as`.
            let b = if matches!(k, Binary::Shl | Binary::Shr) && b.dtype != d {
                scalar_cast(b, d)?
            } else {
                b
            };
            let r = sem::binary(k, d, to_value(a.value), to_value(b.value)).ok_or_else(mismatch)?;
            Ok(from_value(d, r))
        }
        Sem::Compare(k) => {
            let r = match sem::compare(k, to_value(a.value), to_value(b.value)) {
                Some(r) => r,
                // Operands of two kinds compare as numbers.
                None => sem::compare(k, Value::Float(a.as_f64()), Value::Float(b.as_f64()))
                    .ok_or_else(mismatch)?,
            };
            Ok(from_value(DataType::Bool, Value::Bool(r)))
        }
        Sem::Logic(k) => match (a.value, b.value) {
            (ScalarValue::Bool(x), ScalarValue::Bool(y)) => {
                Ok(from_value(DataType::Bool, Value::Bool(sem::logic(k, x, y))))
            }
            _ => Err(mismatch()),
        },
        _ => err(format!("`{op}` is not a binary scalar op")),
    }
}

/// A unary scalar op as the semantics module defines it.
fn scalar_unary(op: Opcode, a: HostScalar) -> R<HostScalar> {
    let d = a.dtype;
    match op.info().sem {
        Sem::Unary(k) => sem::unary(k, d, to_value(a.value))
            .map(|v| from_value(d, v))
            .ok_or_else(|| InterpError::new(format!("`{op}` does not apply to {d}"))),
        _ => err(format!("`{op}` is not a unary scalar op")),
    }
}

/// Rust `as` between scalar types (float -> int truncates and saturates, NaN -> 0;
/// int -> int wraps; anything -> float rounds to nearest even). `bool` targets test `!= 0`.
pub(super) fn scalar_cast(a: HostScalar, to: DataType) -> R<HostScalar> {
    let Some(mode) = RoundMode::for_cast(a.dtype, to, None) else {
        return Ok(HostScalar { dtype: to, ..a });
    };
    sem::cast(to_value(a.value), a.dtype, to, mode)
        .map(|v| from_value(to, v))
        .ok_or_else(|| num::unsupported(to))
}

/// A binary op on two elements of `dtype` (as stored), through the scalar semantics.
fn elem_binary(op: Opcode, dtype: DataType, x: f64, y: f64) -> R<f64> {
    match op.info().sem {
        Sem::Binary(k) => {
            let (a, b) = (elem_scalar(dtype, x), elem_scalar(dtype, y));
            sem::binary(k, dtype, to_value(a.value), to_value(b.value))
                .map(Value::as_f64)
                .ok_or_else(|| InterpError::new(format!("`{op}` does not apply to {dtype}")))
        }
        _ => err(format!("`{op}` is not elementwise")),
    }
}

/// A unary op on one element of `dtype`.
fn elem_unary(op: Opcode, dtype: DataType, x: f64) -> R<f64> {
    match op.info().sem {
        Sem::Unary(k) => sem::unary(k, dtype, to_value(elem_scalar(dtype, x).value))
            .map(Value::as_f64)
            .ok_or_else(|| InterpError::new(format!("`{op}` does not apply to {dtype}"))),
        _ => err(format!("`{op}` is not a unary elementwise op")),
    }
}

impl<'m> Interp<'m> {
    /// Runs one op and binds its results.
    pub(super) fn exec_op(&mut self, fr: &mut Frame, id: OpId) -> R<()> {
        let m = self.m;
        let op = m
            .ops
            .get(id)
            .ok_or_else(|| InterpError::new(format!("{id:?} is not an op of this module")))?;
        let describe = || match op.results.first() {
            Some(&r) => format!("`{}` defining {}", op.opcode, m.ssa_name(r)),
            None => format!("`{}`", op.opcode),
        };
        let results = self
            .eval_op(fr, op)
            .map_err(|e| e.context(&describe(), op.span))?;
        if results.len() != op.results.len() {
            return Err(InterpError::new(format!(
                "produced {} value(s) for {} result(s)",
                results.len(),
                op.results.len()
            ))
            .context(&describe(), op.span));
        }
        for (&v, r) in op.results.iter().zip(results) {
            fr.set(v, r);
        }
        Ok(())
    }

    fn operand(&self, op: &Operation, i: usize) -> R<ValueId> {
        op.operands.get(i).copied().ok_or_else(|| {
            InterpError::new(format!(
                "needs at least {} operand(s), has {}",
                i + 1,
                op.operands.len()
            ))
        })
    }

    fn attr<'a>(&self, op: &'a Operation, key: &str) -> R<&'a Attr> {
        op.attrs
            .get(key)
            .ok_or_else(|| InterpError::new(format!("missing attribute `{key}`")))
    }

    fn dtype_attr(&self, op: &Operation, key: &str) -> R<DataType> {
        self.attr(op, key)?
            .as_dtype()
            .ok_or_else(|| InterpError::new(format!("attribute `{key}` is not a dtype")))
    }

    fn shape_attr(&self, op: &Operation) -> R<Vec<usize>> {
        let list = self
            .attr(op, "shape")?
            .as_list()
            .ok_or_else(|| InterpError::new("attribute `shape` is not a list"))?;
        list.iter()
            .map(|a| match a.as_int() {
                Some(v) if v > 0 => Ok(v as usize),
                _ => err("attribute `shape` must list positive integers"),
            })
            .collect()
    }

    /// The `offset` attribute evaluated: integers or integer scalars, none negative.
    /// The `offset` attribute's indices (an element access's, a window's).
    pub(super) fn offset_list(&self, fr: &Frame, op: &Operation, rank: usize) -> R<Vec<usize>> {
        self.offset_attr(fr, op, rank)
    }

    fn offset_attr(&self, fr: &Frame, op: &Operation, rank: usize) -> R<Vec<usize>> {
        let list = self
            .attr(op, "offset")?
            .as_list()
            .ok_or_else(|| InterpError::new("attribute `offset` is not a list"))?;
        if list.len() != rank {
            return err(format!("{} offset(s) for rank {rank}", list.len()));
        }
        list.iter()
            .enumerate()
            .map(|(d, a)| {
                let v = match a {
                    Attr::Int(v) => i128::from(*v),
                    Attr::Value(v) => self.int(fr, *v)?,
                    _ => return err("offsets must be integers or integer scalars"),
                };
                usize::try_from(v).map_err(|_| {
                    InterpError::new(format!("offset {v} in dimension {d} is negative"))
                })
            })
            .collect()
    }

    fn eval_op(&mut self, fr: &Frame, op: &Operation) -> R<Vec<Rt>> {
        let m = self.m;
        let one = |r: Rt| Ok(vec![r]);
        match op.opcode.class() {
            OpClass::Const => {
                let &res = op
                    .results
                    .first()
                    .ok_or_else(|| InterpError::new("a constant needs a result"))?;
                let data = m
                    .values
                    .get(res)
                    .ok_or_else(|| InterpError::new("the result is not a value of this module"))?;
                let dt = data
                    .ty
                    .as_scalar()
                    .ok_or_else(|| InterpError::new("a constant must be a scalar"))?;
                let s = match data.constant {
                    Some(c) => constant_scalar(c, dt)?,
                    None => match self.attr(op, "value")? {
                        Attr::Int(v) => HostScalar::from_i128(dt, i128::from(*v))?,
                        Attr::Float(x) => HostScalar::from_f64(dt, *x)?,
                        Attr::Bool(b) => HostScalar::from_i128(dt, i128::from(*b))?,
                        _ => return err("attribute `value` must be a number or a bool"),
                    },
                };
                one(Rt::Scalar(s))
            }
            OpClass::Call => {
                let name = match self.attr(op, "callee")? {
                    Attr::Symbol(s) | Attr::Str(s) | Attr::Ident(s) => s.clone(),
                    _ => return err("attribute `callee` must be a symbol"),
                };
                let f = m.function_by_name(&name).ok_or_else(|| {
                    InterpError::new(format!("no function `@{name}` in the module"))
                })?;
                let args = op
                    .operands
                    .iter()
                    .map(|&v| self.get(fr, v))
                    .collect::<R<Vec<_>>>()?;
                self.call(f, args)
            }
            OpClass::ScalarArith
            | OpClass::ScalarCompare
            | OpClass::ScalarLogic
            | OpClass::ScalarBitwise => {
                let a = self.scalar(fr, self.operand(op, 0)?)?;
                let b = self.scalar(fr, self.operand(op, 1)?)?;
                one(Rt::Scalar(scalar_binary(op.opcode, a, b)?))
            }
            OpClass::ScalarUnary | OpClass::ScalarNot | OpClass::ScalarBitNot => {
                let a = self.scalar(fr, self.operand(op, 0)?)?;
                one(Rt::Scalar(scalar_unary(op.opcode, a)?))
            }
            OpClass::ScalarCast => {
                let a = self.scalar(fr, self.operand(op, 0)?)?;
                one(Rt::Scalar(scalar_cast(a, self.dtype_attr(op, "dtype")?)?))
            }
            OpClass::TileBinary | OpClass::TileBitwise => {
                self.tile_binary(fr, op).map(|t| vec![Rt::Tile(t)])
            }
            OpClass::TileCompare => self.tile_compare(fr, op).map(|t| vec![Rt::Tile(t)]),
            OpClass::RowArgReduce => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                one(Rt::Tile(arg_reduce(
                    op.opcode == Opcode::TileRowArgMax,
                    src,
                )?))
            }
            OpClass::Select => self.select(fr, op).map(|t| vec![Rt::Tile(t)]),
            OpClass::TileUnary | OpClass::TileUnaryFloat | OpClass::TileNot => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let mut out = blank_tile(src.dtype, src.shape.clone(), src.valid.clone());
                for_each_index(&src.valid, |idx| {
                    let i = at(&src.shape, idx)?;
                    out.data[i] = elem_unary(op.opcode, src.dtype, src.data[i])?;
                    Ok(())
                })?;
                one(Rt::Tile(out))
            }
            OpClass::TileCast => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let to = self.dtype_attr(op, "dtype")?;
                let named = match op.attrs.get("round") {
                    None => None,
                    Some(a) => {
                        Some(a.as_ident().and_then(RoundMode::from_word).ok_or_else(|| {
                            InterpError::new("attribute `round` is not a round mode")
                        })?)
                    }
                };
                // An unnamed cast to the same dtype is the identity (`CastNone` keeps values).
                let mode = RoundMode::for_cast(src.dtype, to, named).unwrap_or(RoundMode::CastNone);
                let mut out = blank_tile(to, src.shape.clone(), src.valid.clone());
                for_each_index(&src.valid, |idx| {
                    let i = at(&src.shape, idx)?;
                    out.data[i] = num::convert_elem(src.data[i], src.dtype, to, mode)?;
                    Ok(())
                })?;
                one(Rt::Tile(out))
            }
            OpClass::RowReduce | OpClass::ColReduce => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                one(Rt::Tile(reduce(op.opcode, src)?))
            }
            OpClass::RowExpand | OpClass::ColExpand => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let (sr, sc) = require_rank2(src, "the source")?;
                let shape = self.shape_attr(op)?;
                let [r, c] = shape[..] else {
                    return err("attribute `shape` must be rank 2");
                };
                let row = op.opcode.class() == OpClass::RowExpand;
                if (row && (sr, sc) != (r, 1)) || (!row && (sr, sc) != (1, c)) {
                    return err(format!(
                        "cannot expand a {} tile to {}",
                        shape_str(&src.shape),
                        shape_str(&shape)
                    ));
                }
                let valid = if row {
                    vec![src.valid[0], c]
                } else {
                    vec![r, src.valid[1]]
                };
                let mut out = blank_tile(src.dtype, shape.clone(), valid.clone());
                for_each_index(&valid, |idx| {
                    let s = if row { [idx[0], 0] } else { [0, idx[1]] };
                    out.data[at(&shape, idx)?] = src.data[at(&src.shape, &s)?];
                    Ok(())
                })?;
                one(Rt::Tile(out))
            }
            OpClass::Reshape => {
                // Row-major order is kept; the typing rule made the source fully valid.
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let shape = self.shape_attr(op)?;
                if shape.iter().product::<usize>() != src.data.len() {
                    return err("a reshape to another element count");
                }
                let mut out = src.clone();
                out.valid = shape.clone();
                out.shape = shape;
                one(Rt::Tile(out))
            }
            OpClass::Transpose => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let (r, c) = require_rank2(src, "the source")?;
                let shape = vec![c, r];
                let valid = vec![src.valid[1], src.valid[0]];
                let mut out = blank_tile(src.dtype, shape.clone(), valid);
                for_each_index(&src.valid, |idx| {
                    out.data[at(&shape, &[idx[1], idx[0]])?] = src.data[at(&src.shape, idx)?];
                    Ok(())
                })?;
                one(Rt::Tile(out))
            }
            OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => {
                self.matmul(fr, op).map(|t| vec![Rt::Tile(t)])
            }
            OpClass::Extract => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let shape = self.shape_attr(op)?;
                if shape.len() != src.shape.len() {
                    return err(format!(
                        "a rank-{} window of a rank-{} tile",
                        shape.len(),
                        src.shape.len()
                    ));
                }
                let off = self.offset_attr(fr, op, shape.len())?;
                for d in 0..shape.len() {
                    if off[d] + shape[d] > src.shape[d] {
                        return err(format!(
                            "extract window {} at offset {off:?} is outside the {} source tile",
                            shape_str(&shape),
                            shape_str(&src.shape)
                        ));
                    }
                }
                let valid: Vec<usize> = (0..shape.len())
                    .map(|d| src.valid[d].saturating_sub(off[d]).min(shape[d]))
                    .collect();
                let mut out = blank_tile(src.dtype, shape.clone(), valid.clone());
                for_each_index(&valid, |idx| {
                    out.data[at(&shape, idx)?] =
                        src.data[at(&src.shape, &offset_index(&off, idx))?];
                    Ok(())
                })?;
                one(Rt::Tile(out))
            }
            OpClass::TileAssemble => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let dst = self.tile(fr, self.operand(op, 1)?)?;
                if src.dtype != dst.dtype || src.shape.len() != dst.shape.len() {
                    return err(format!(
                        "needs tiles of one dtype and rank, found {} {} and {} {}",
                        shape_str(&src.shape),
                        src.dtype,
                        shape_str(&dst.shape),
                        dst.dtype
                    ));
                }
                let off = self.offset_attr(fr, op, dst.shape.len())?;
                // PTO's static rule, as for extract: the source's whole shape must fit.
                for d in 0..off.len() {
                    if off[d] + src.shape[d] > dst.shape[d] {
                        return err(format!(
                            "the {} source at offset {off:?} does not fit the {} destination",
                            shape_str(&src.shape),
                            shape_str(&dst.shape)
                        ));
                    }
                }
                let mut out = dst.clone();
                for_each_index(&src.valid, |idx| {
                    out.data[at(&dst.shape, &offset_index(&off, idx))?] =
                        src.data[at(&src.shape, idx)?];
                    Ok(())
                })?;
                let dst_v = self.operand(op, 1)?;
                self.note_tile_write(dst_v, op.results.first().copied(), &out);
                one(Rt::Tile(out))
            }
            OpClass::Full => {
                let v = self.scalar(fr, self.operand(op, 0)?)?;
                let dtype = self.dtype_attr(op, "dtype")?;
                let shape = self.shape_attr(op)?;
                let x = scalar_cast(v, dtype)?.as_f64();
                let n = shape.iter().product();
                one(Rt::Tile(HostTile {
                    dtype,
                    valid: shape.clone(),
                    shape,
                    data: vec![x; n],
                }))
            }
            OpClass::Valid => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                let extents = op
                    .operands
                    .get(1..)
                    .unwrap_or_default()
                    .iter()
                    .map(|&v| self.int(fr, v))
                    .collect::<R<Vec<_>>>()?;
                if extents.len() != src.shape.len() {
                    return err(format!(
                        "{} valid extent(s) for a rank-{} tile",
                        extents.len(),
                        src.shape.len()
                    ));
                }
                let fits = extents
                    .iter()
                    .zip(&src.shape)
                    .all(|(&e, &s)| e >= 0 && e <= s as i128);
                if !fits {
                    let want: Vec<String> = extents.iter().map(i128::to_string).collect();
                    return err(format!(
                        "valid region [{}] does not fit the {} tile",
                        want.join(", "),
                        shape_str(&src.shape)
                    ));
                }
                let mut out = src.clone();
                out.valid = extents.iter().map(|&e| e as usize).collect();
                one(Rt::Tile(out))
            }
            OpClass::Load => self.load(fr, op).map(|t| vec![Rt::Tile(t)]),
            OpClass::ElementRead | OpClass::ElementWrite => self.element(fr, op),
            OpClass::Store => {
                self.store(fr, op)?;
                Ok(Vec::new())
            }
            OpClass::Move => {
                let src = self.tile(fr, self.operand(op, 0)?)?;
                one(Rt::Tile(src.clone()))
            }
            OpClass::TensorBinary => self.tensor_binary(fr, op).map(|id| vec![Rt::Tensor(id)]),
            OpClass::TensorUnary => {
                let id = self.tensor_id(fr, self.operand(op, 0)?)?;
                let src = &self.tensors[id];
                let data = src
                    .data
                    .iter()
                    .map(|&x| elem_unary(op.opcode, src.dtype, x))
                    .collect::<R<Vec<_>>>()?;
                let t = HostTensor {
                    dtype: src.dtype,
                    shape: src.shape.clone(),
                    data,
                };
                one(Rt::Tensor(self.push_tensor(t)))
            }
            OpClass::TensorView => {
                let id = self.tensor_id(fr, self.operand(op, 0)?)?;
                let shape = self.shape_attr(op)?;
                let src = &self.tensors[id];
                if shape.len() != src.shape.len() {
                    return err(format!(
                        "a rank-{} view of a rank-{} tensor",
                        shape.len(),
                        src.shape.len()
                    ));
                }
                let off = self.offset_attr(fr, op, shape.len())?;
                check_inside("view", &shape, &off, &src.shape)?;
                let mut out = HostTensor::zeros(src.dtype, shape.clone());
                for_each_index(&shape, |idx| {
                    out.data[at(&shape, idx)?] =
                        src.data[at(&src.shape, &offset_index(&off, idx))?];
                    Ok(())
                })?;
                one(Rt::Tensor(self.push_tensor(out)))
            }
            OpClass::TensorAssemble => {
                let sid = self.tensor_id(fr, self.operand(op, 0)?)?;
                let did = self.tensor_id(fr, self.operand(op, 1)?)?;
                let src = self.tensors[sid].clone();
                let dst_shape = self.tensors[did].shape.clone();
                if src.dtype != self.tensors[did].dtype || src.shape.len() != dst_shape.len() {
                    return err("needs tensors of one dtype and rank");
                }
                let off = self.offset_attr(fr, op, dst_shape.len())?;
                check_inside("assemble", &src.shape, &off, &dst_shape)?;
                let dst = &mut self.tensors[did];
                for_each_index(&src.shape, |idx| {
                    dst.data[at(&dst_shape, &offset_index(&off, idx))?] =
                        src.data[at(&src.shape, idx)?];
                    Ok(())
                })?;
                one(Rt::Tensor(did))
            }
        }
    }

    fn push_tensor(&mut self, t: HostTensor) -> usize {
        self.tensors.push(t);
        self.tensors.len() - 1
    }

    /// Tensor-tensor (same runtime shape) or tensor-scalar elementwise ops.
    fn tensor_binary(&mut self, fr: &Frame, op: &Operation) -> R<usize> {
        let (va, vb) = (self.operand(op, 0)?, self.operand(op, 1)?);
        let (ra, rb) = (self.get(fr, va)?, self.get(fr, vb)?);
        let code = op.opcode;
        let out = match (&ra, &rb) {
            (Rt::Tensor(x), Rt::Tensor(y)) => {
                let (a, b) = (&self.tensors[*x], &self.tensors[*y]);
                if a.shape != b.shape || a.dtype != b.dtype {
                    return err(format!(
                        "operands differ: {} {} and {} {}",
                        shape_str(&a.shape),
                        a.dtype,
                        shape_str(&b.shape),
                        b.dtype
                    ));
                }
                let data = a
                    .data
                    .iter()
                    .zip(&b.data)
                    .map(|(&p, &q)| elem_binary(code, a.dtype, p, q))
                    .collect::<R<Vec<_>>>()?;
                HostTensor {
                    dtype: a.dtype,
                    shape: a.shape.clone(),
                    data,
                }
            }
            (Rt::Tensor(t), Rt::Scalar(s)) | (Rt::Scalar(s), Rt::Tensor(t)) => {
                let tensor_first = matches!(ra, Rt::Tensor(_));
                let t = &self.tensors[*t];
                let y = scalar_cast(*s, t.dtype)?.as_f64();
                let data = t
                    .data
                    .iter()
                    .map(|&x| {
                        let (p, q) = if tensor_first { (x, y) } else { (y, x) };
                        elem_binary(code, t.dtype, p, q)
                    })
                    .collect::<R<Vec<_>>>()?;
                HostTensor {
                    dtype: t.dtype,
                    shape: t.shape.clone(),
                    data,
                }
            }
            _ => {
                return err(format!(
                    "needs a tensor operand, found a {} and a {}",
                    kind(&ra),
                    kind(&rb)
                ));
            }
        };
        Ok(self.push_tensor(out))
    }
}

fn kind(r: &Rt) -> &'static str {
    match r {
        Rt::Scalar(_) => "scalar",
        Rt::Tile(_) => "tile",
        Rt::Tensor(_) => "tensor",
    }
}

/// A window (view / assemble) must lie inside the tensor.
fn check_inside(what: &str, shape: &[usize], off: &[usize], bounds: &[usize]) -> R<()> {
    for d in 0..shape.len() {
        if off[d] + shape[d] > bounds[d] {
            return err(format!(
                "{what} window {} at offset {off:?} does not fit inside the {} tensor (dimension {d})",
                shape_str(shape),
                shape_str(bounds)
            ));
        }
    }
    Ok(())
}

/// The number of partial sums of a row sum (see [`lane_sum`]).
const SUM_LANES: usize = 16;

/// A row sum in the order the semantics fix: lane `l` adds elements `l, l + 16, ...` of the
/// leading whole groups of 16 (from 0), the lanes are combined by halves (`l + 8` into `l`,
/// then `+ 4`, `+ 2`, `+ 1`), then the last `len % 16` elements are added in order; each
/// addition rounded to `d`. (The runtime's `pto::isa::lane_sum` sums this way with SIMD.)
fn lane_sum(xs: &[f64], d: DataType) -> R<f64> {
    let whole = xs.len() / SUM_LANES * SUM_LANES;
    let mut acc = [0.0; SUM_LANES];
    for (j, &x) in xs[..whole].iter().enumerate() {
        acc[j % SUM_LANES] = num::normalize(acc[j % SUM_LANES] + x, d)?;
    }
    let mut width = SUM_LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] = num::normalize(acc[l] + acc[l + width], d)?;
        }
        width /= 2;
    }
    xs[whole..]
        .iter()
        .try_fold(acc[0], |s, &x| num::normalize(s + x, d))
}

/// Row reductions (`R x C -> R x 1`) and column reductions (`R x C -> 1 x C`) over the valid
/// region in the element dtype: row sums in [`lane_sum`]'s order, the others sequentially.
/// `row_argmax` / `row_argmin`: each valid row's extremum's column index, by the semantics
/// module's rule (`sem::arg`: the first index wins a tie, NaN never wins).
fn arg_reduce(max: bool, src: &HostTile) -> R<HostTile> {
    let (r, c) = require_rank2(src, "the source")?;
    let (vr, vc) = (src.valid[0], src.valid[1]);
    let mut out = blank_tile(DataType::Int32, vec![r, 1], vec![vr, 1]);
    for i in 0..vr {
        let row = src.data[i * c..i * c + vc]
            .iter()
            .map(|&x| to_value(elem_scalar(src.dtype, x).value));
        out.data[i] = sem::arg::arg_best(max, row) as f64;
    }
    Ok(out)
}

fn reduce(op: Opcode, src: &HostTile) -> R<HostTile> {
    let (r, c) = require_rank2(src, "the source")?;
    let (vr, vc) = (src.valid[0], src.valid[1]);
    let d = src.dtype;
    let identity = match op {
        Opcode::TileRowSum | Opcode::TileColSum => 0.0,
        Opcode::TileRowProd | Opcode::TileColProd => 1.0,
        Opcode::TileRowMax | Opcode::TileColMax if d.is_float() => f64::NEG_INFINITY,
        Opcode::TileRowMin | Opcode::TileColMin if d.is_float() => f64::INFINITY,
        Opcode::TileRowMax | Opcode::TileColMax => num::int_range(d)?.0 as f64,
        _ => num::int_range(d)?.1 as f64,
    };
    let combine = |acc: f64, x: f64| -> R<f64> {
        match op {
            Opcode::TileRowSum | Opcode::TileColSum => num::normalize(acc + x, d),
            // Left to right, each product rounded (or wrapped) in the dtype.
            Opcode::TileRowProd | Opcode::TileColProd => elem_binary(Opcode::TileMul, d, acc, x),
            // The semantics' `max` / `min` (exact on an integer held as f64, and on an f32
            // / f16 / bf16 value, the result being one of the operands).
            Opcode::TileRowMax | Opcode::TileColMax => Ok(FloatSem::max(acc, x)),
            _ => Ok(FloatSem::min(acc, x)),
        }
    };
    let row = matches!(
        op,
        Opcode::TileRowSum | Opcode::TileRowMax | Opcode::TileRowMin | Opcode::TileRowProd
    );
    if row {
        let mut out = blank_tile(d, vec![r, 1], vec![vr, 1]);
        for i in 0..vr {
            let xs = &src.data[i * c..i * c + vc];
            out.data[i] = if op == Opcode::TileRowSum {
                lane_sum(xs, d)?
            } else {
                xs.iter().try_fold(identity, |acc, &x| combine(acc, x))?
            };
        }
        Ok(out)
    } else {
        let mut out = blank_tile(d, vec![1, c], vec![1, vc]);
        for j in 0..vc {
            let mut acc = identity;
            for i in 0..vr {
                acc = combine(acc, src.data[i * c + j])?;
            }
            out.data[j] = acc;
        }
        Ok(out)
    }
}
