//! Runs a lowered [`Program`] instruction by instruction with the `pto::isa` calls the Rust
//! emitter (`pto_lower::emit::rust`) writes for it: zeroed slots, `tload` / `tstore` at the
//! program's offsets, `set_valid` for `SetValid` / `FullValid`, scalar ops with Rust's
//! integer semantics, and structured `for` / `if` with parallel assignment of carried
//! scalars. Only the shapes the random kernels use are supported (`R x C` tiles, `R` and `C`
//! the family's, their `R x 1` / `1 x C` reductions and `C x C` matmul right operands, of the
//! element type, and `R x C` tiles of one second dtype, [`Kind::Alt`]); anything else is an
//! `Err`, never a pass.
//! Not mirrored: the emitter's fusion of elementwise chains into one loop (the fused code
//! calls the same element functions).

use std::collections::HashMap;

use pto::element::{Accumulate, Element, Float, Int};
use pto::ir::ValueId;
use pto::ir::ops::{Isa, Opcode};
use pto::{Tensor, Tile, isa};
use pto_lower::isa::{Arg, Index, Inst, Program, TileRef};

/// One tile slot, by shape.
#[derive(Clone)]
pub enum Slot<T: Kind, const R: usize, const C: usize> {
    Full(Tile<T, R, C>),
    /// An `R x C` tile of the other dtype ([`Kind::Alt`]): a conversion's result, or a
    /// matmul accumulator wider than the inputs.
    Alt(Tile<T::Alt, R, C>),
    /// A `C x C` tile: a matmul's right operand.
    Sq(Tile<T, C, C>),
    Col(Tile<T, R, 1>),
    Row(Tile<T, 1, C>),
    /// A mask (`tile<.., bool>`), one byte per element as the runtime holds it.
    Mask(Tile<u8, R, C>),
    /// An `R x C` fp32 or fp16 tile a conversion passes through when it is neither dtype of
    /// the kernel: int8 comes back only from fp16 (no target's `TCVT` converts int32 or
    /// int16 to int8), and an int32 matmul result reaches fp16 only through fp32.
    F32(Tile<f32, R, C>),
    F16(Tile<pto::f16, R, C>),
}

/// How a block of instructions ended.
#[derive(Debug, PartialEq)]
enum Flow {
    Next,
    Break,
    Continue,
}

/// A scalar value: an element or an index / `bool`.
#[derive(Clone, Copy)]
enum Either<T> {
    Elem(T),
    Int(i64),
}

/// A kernel argument.
pub enum KArg<T> {
    Tensor(Tensor<T>),
    Scalar(i64),
}

/// The dtype-specific instructions (bitwise ops for integers, transcendental ones for floats).
pub trait Kind: Element {
    /// The second dtype a kernel may hold (conversions to it and back; for `fp16`, the
    /// matmul accumulator).
    type Alt: Element;

    /// `TMATMUL` (`acc` is `None`) or `TMATMUL_ACC` of `a` and `b` into `d`, where this
    /// dtype's inputs accumulate; `Err` for a dtype matmul does not take.
    fn matmul<const R: usize, const C: usize>(
        _d: &mut Slot<Self, R, C>,
        _acc: Option<&Slot<Self, R, C>>,
        _a: &Tile<Self, R, C>,
        _b: &Tile<Self, C, C>,
    ) -> Result<(), String> {
        Err(format!("matmul of {}", Self::NAME))
    }

    /// Runs `isa` if it is one of this kind's; `false` if it is not.
    fn special<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<Self, R, C>,
        a: &Tile<Self, R, C>,
        b: Option<&Tile<Self, R, C>>,
        k: Self,
    ) -> bool;

    /// Runs the row arg-reduction `isa` into an index tile of this dtype (`int32` only).
    fn arg_reduce<const R: usize, const C: usize>(
        _isa: Isa,
        _d: &mut Tile<Self, R, 1>,
        _s: &Tile<Self, R, C>,
    ) -> bool {
        false
    }
}

impl Kind for i32 {
    type Alt = f32;

    fn special<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<i32, R, C>,
        a: &Tile<i32, R, C>,
        b: Option<&Tile<i32, R, C>>,
        k: i32,
    ) -> bool {
        int_special(isa, d, a, b, k)
    }

    fn arg_reduce<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<i32, R, 1>,
        s: &Tile<i32, R, C>,
    ) -> bool {
        match isa {
            Isa::TRowArgMax => isa::trowargmax(d, s),
            Isa::TRowArgMin => isa::trowargmin(d, s),
            _ => return false,
        }
        true
    }
}

impl Kind for i16 {
    type Alt = i32;

    fn special<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<i16, R, C>,
        a: &Tile<i16, R, C>,
        b: Option<&Tile<i16, R, C>>,
        k: i16,
    ) -> bool {
        int_special(isa, d, a, b, k)
    }
}

impl Kind for i8 {
    type Alt = i32;

    fn matmul<const R: usize, const C: usize>(
        d: &mut Slot<Self, R, C>,
        acc: Option<&Slot<Self, R, C>>,
        a: &Tile<Self, R, C>,
        b: &Tile<Self, C, C>,
    ) -> Result<(), String> {
        matmul_into_alt(d, acc, a, b)
    }

    fn special<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<i8, R, C>,
        a: &Tile<i8, R, C>,
        b: Option<&Tile<i8, R, C>>,
        k: i8,
    ) -> bool {
        int_special(isa, d, a, b, k)
    }
}

impl Kind for pto::f16 {
    type Alt = f32;

    fn matmul<const R: usize, const C: usize>(
        d: &mut Slot<Self, R, C>,
        acc: Option<&Slot<Self, R, C>>,
        a: &Tile<Self, R, C>,
        b: &Tile<Self, C, C>,
    ) -> Result<(), String> {
        matmul_into_alt(d, acc, a, b)
    }

    fn special<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<pto::f16, R, C>,
        a: &Tile<pto::f16, R, C>,
        _b: Option<&Tile<pto::f16, R, C>>,
        _k: pto::f16,
    ) -> bool {
        float_special(isa, d, a)
    }
}

impl Kind for pto::bf16 {
    type Alt = f32;

    fn matmul<const R: usize, const C: usize>(
        d: &mut Slot<Self, R, C>,
        acc: Option<&Slot<Self, R, C>>,
        a: &Tile<Self, R, C>,
        b: &Tile<Self, C, C>,
    ) -> Result<(), String> {
        matmul_into_alt(d, acc, a, b)
    }

    fn special<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<pto::bf16, R, C>,
        a: &Tile<pto::bf16, R, C>,
        _b: Option<&Tile<pto::bf16, R, C>>,
        _k: pto::bf16,
    ) -> bool {
        float_special(isa, d, a)
    }
}

impl Kind for f32 {
    type Alt = i32;

    fn matmul<const R: usize, const C: usize>(
        d: &mut Slot<Self, R, C>,
        acc: Option<&Slot<Self, R, C>>,
        a: &Tile<Self, R, C>,
        b: &Tile<Self, C, C>,
    ) -> Result<(), String> {
        match (d, acc) {
            (Slot::Full(d), None) => isa::tmatmul(d, a, b),
            (Slot::Full(d), Some(Slot::Full(c))) => isa::tmatmul_acc(d, c, a, b),
            _ => return Err("an fp32 matmul accumulates in an fp32 slot".into()),
        }
        Ok(())
    }

    fn special<const R: usize, const C: usize>(
        isa: Isa,
        d: &mut Tile<f32, R, C>,
        a: &Tile<f32, R, C>,
        _b: Option<&Tile<f32, R, C>>,
        _k: f32,
    ) -> bool {
        float_special(isa, d, a)
    }
}

/// `TMATMUL` / `TMATMUL_ACC` of a dtype that accumulates in its [`Kind::Alt`] slot.
fn matmul_into_alt<T: Kind + Accumulate<Acc = T::Alt>, const R: usize, const C: usize>(
    d: &mut Slot<T, R, C>,
    acc: Option<&Slot<T, R, C>>,
    a: &Tile<T, R, C>,
    b: &Tile<T, C, C>,
) -> Result<(), String> {
    match (d, acc) {
        (Slot::Alt(d), None) => isa::tmatmul(d, a, b),
        (Slot::Alt(d), Some(Slot::Alt(c))) => isa::tmatmul_acc(d, c, a, b),
        _ => {
            let (name, alt) = (T::NAME, T::Alt::NAME);
            return Err(format!("a {name} matmul accumulates in a {alt} slot"));
        }
    }
    Ok(())
}

fn int_special<T: Int, const R: usize, const C: usize>(
    isa: Isa,
    d: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    b: Option<&Tile<T, R, C>>,
    k: T,
) -> bool {
    match (isa, b) {
        (Isa::TAnd, Some(b)) => isa::tand(d, a, b),
        (Isa::TOr, Some(b)) => isa::tor(d, a, b),
        (Isa::TXor, Some(b)) => isa::txor(d, a, b),
        (Isa::TShl, Some(b)) => isa::tshl(d, a, b),
        (Isa::TShr, Some(b)) => isa::tshr(d, a, b),
        (Isa::TAndS, _) => isa::tands(d, a, k),
        (Isa::TOrS, _) => isa::tors(d, a, k),
        (Isa::TXorS, _) => isa::txors(d, a, k),
        (Isa::TShlS, _) => isa::tshls(d, a, k),
        (Isa::TShrS, _) => isa::tshrs(d, a, k),
        (Isa::TNot, _) => isa::tnot(d, a),
        _ => return false,
    }
    true
}

fn float_special<T: Float, const R: usize, const C: usize>(
    isa: Isa,
    d: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
) -> bool {
    match isa {
        Isa::TExp => isa::texp(d, a),
        Isa::TLog => isa::tlog(d, a),
        Isa::TSqrt => isa::tsqrt(d, a),
        Isa::TRsqrt => isa::trsqrt(d, a),
        Isa::TRecip => isa::trecip(d, a),
        _ => return false,
    }
    true
}

struct Exec<'p, T: Kind, const R: usize, const C: usize> {
    p: &'p Program,
    slots: Vec<Slot<T, R, C>>,
    scalars: HashMap<ValueId, i64>,
    /// Scalars of the element type.
    elems: HashMap<ValueId, T>,
    tensors: HashMap<ValueId, usize>,
    /// Instructions run, to stop a runaway program.
    fuel: usize,
}

/// Runs `p` on `args` (in parameter order) with its symbolic dimensions bound to `dims`;
/// tensors are written in place.
pub fn run_program<T: Kind, const R: usize, const C: usize>(
    p: &Program,
    dims: &[(ValueId, i64)],
    args: &mut [KArg<T>],
) -> Result<(), String> {
    let f = &p.module.funcs[p.func];
    let mut e = Exec::<T, R, C> {
        p,
        slots: Vec::new(),
        scalars: dims.iter().copied().collect(),
        elems: HashMap::new(),
        tensors: HashMap::new(),
        fuel: 1_000_000,
    };
    for s in &p.tiles {
        if s.dtype == pto::ir::DataType::Bool && (s.rows as usize, s.cols as usize) == (R, C) {
            e.slots.push(Slot::Mask(Tile::zeros()));
            continue;
        }
        let shape = (s.rows as usize, s.cols as usize);
        if s.dtype.name() == T::Alt::NAME && shape == (R, C) {
            e.slots.push(Slot::Alt(Tile::zeros()));
            continue;
        }
        if s.dtype.name() != T::NAME && shape == (R, C) {
            match s.dtype {
                pto::ir::DataType::Fp32 => e.slots.push(Slot::F32(Tile::zeros())),
                pto::ir::DataType::Fp16 => e.slots.push(Slot::F16(Tile::zeros())),
                _ => return Err(format!("slot {} is {}", s.name, s.dtype.name())),
            }
            continue;
        }
        if s.dtype.name() != T::NAME {
            return Err(format!("slot {} is {}", s.name, s.dtype.name()));
        }
        e.slots.push(match shape {
            // A square tile is `R x C` when `R == C` (see [`Exec::sq`]).
            s if s == (R, C) => Slot::Full(Tile::zeros()),
            s if s == (C, C) => Slot::Sq(Tile::zeros()),
            s if s == (R, 1) => Slot::Col(Tile::zeros()),
            s if s == (1, C) => Slot::Row(Tile::zeros()),
            other => return Err(format!("slot shape {other:?} not supported")),
        });
    }
    if f.sig.params.len() != args.len() {
        return Err("argument count".into());
    }
    for (i, (prm, a)) in f.sig.params.iter().zip(args.iter()).enumerate() {
        match a {
            KArg::Tensor(_) => {
                e.tensors.insert(prm.value, i);
            }
            KArg::Scalar(v) => {
                e.scalars.insert(prm.value, *v);
            }
        }
    }
    e.block(&p.body, args).map(|_| ())
}

impl<T: Kind, const R: usize, const C: usize> Exec<'_, T, R, C> {
    fn scalar(&self, v: ValueId) -> Result<i64, String> {
        if let Some(x) = self.scalars.get(&v) {
            return Ok(*x);
        }
        match self.p.module.values[v].constant {
            Some(c) => Ok(c.as_i64()),
            None => Err(format!("scalar {v:?} read before it is defined")),
        }
    }

    /// Whether `v` is a scalar of the element type (else an integer or `bool` index).
    fn is_element(&self, v: ValueId) -> bool {
        self.p.module.values[v].ty.as_scalar().map(|d| d.name()) == Some(T::NAME)
    }

    fn any(&self, v: ValueId) -> Result<Either<T>, String> {
        if self.is_element(v) {
            self.element(v).map(Either::Elem)
        } else {
            self.scalar(v).map(Either::Int)
        }
    }

    fn set_any(&mut self, v: ValueId, x: Either<T>) {
        match x {
            Either::Elem(e) => {
                self.elems.insert(v, e);
            }
            Either::Int(i) => {
                self.scalars.insert(v, i);
            }
        }
    }

    /// An index / `bool` op (`int64` arithmetic wraps, as the emitted `Element` calls do).
    fn int_op(&self, op: Opcode, a: &[ValueId]) -> Result<i64, String> {
        if self.is_element(a[0]) {
            // A comparison of element scalars (the emitted code compares them with `<` ..).
            let (x, y) = (self.element(a[0])?, self.element(a[1])?);
            return Ok(i64::from(match op {
                Opcode::ScalarLt => x < y,
                Opcode::ScalarLe => x <= y,
                Opcode::ScalarGt => x > y,
                Opcode::ScalarGe => x >= y,
                Opcode::ScalarEq => x == y,
                Opcode::ScalarNe => x != y,
                other => return Err(format!("element comparison {other} not supported")),
            }));
        }
        let x = self.scalar(a[0])?;
        let y = match a.get(1) {
            Some(&b) => self.scalar(b)?,
            None => 0,
        };
        Ok(match op {
            Opcode::ScalarAdd => x.wrapping_add(y),
            Opcode::ScalarSub => x.wrapping_sub(y),
            Opcode::ScalarMul => x.wrapping_mul(y),
            Opcode::ScalarLt => i64::from(x < y),
            Opcode::ScalarLe => i64::from(x <= y),
            Opcode::ScalarGt => i64::from(x > y),
            Opcode::ScalarGe => i64::from(x >= y),
            Opcode::ScalarEq => i64::from(x == y),
            Opcode::ScalarNe => i64::from(x != y),
            other => return Err(format!("scalar op {other} not supported")),
        })
    }

    /// An op with an element-typed result: the `Element` function the emitter names, or a
    /// cast from an index (`as`).
    fn element_op(&self, op: Opcode, a: &[ValueId]) -> Result<T, String> {
        if op == Opcode::ScalarCast {
            return self.element(a[0]);
        }
        let x = self.element(a[0])?;
        let y = match a.get(1) {
            Some(&b) => self.element(b)?,
            None => T::ZERO,
        };
        Ok(match op {
            Opcode::ScalarAdd => Element::add(x, y),
            Opcode::ScalarSub => Element::sub(x, y),
            Opcode::ScalarMul => Element::mul(x, y),
            Opcode::ScalarMax => Element::max(x, y),
            Opcode::ScalarMin => Element::min(x, y),
            other => return Err(format!("element scalar op {other} not supported")),
        })
    }

    /// A scalar operand converted to the element type, as `put_scalar_as` does.
    fn element(&self, v: ValueId) -> Result<T, String> {
        if let Some(x) = self.elems.get(&v) {
            return Ok(*x);
        }
        if let Some(x) = self.scalars.get(&v) {
            return Ok(T::from_f64(*x as f64));
        }
        match self.p.module.values[v].constant {
            Some(c) => Ok(T::from_f64(c.as_f64())),
            None => Err(format!("scalar {v:?} read before it is defined")),
        }
    }

    fn index(&self, i: Index) -> Result<usize, String> {
        match i {
            Index::Const(c) => Ok(c as usize),
            Index::Value(v) => usize::try_from(self.scalar(v)?).map_err(|e| e.to_string()),
        }
    }

    fn full(&self, a: &Arg) -> Result<Tile<T, R, C>, String> {
        match a {
            Arg::Tile(TileRef::Slot(t)) => match &self.slots[t.0 as usize] {
                Slot::Full(x) => Ok(x.clone()),
                _ => Err(format!("{t:?} is not R x C")),
            },
            other => Err(format!("operand {other:?} not supported")),
        }
    }

    fn col(&self, a: &Arg) -> Result<Tile<T, R, 1>, String> {
        match a {
            Arg::Tile(TileRef::Slot(t)) => match &self.slots[t.0 as usize] {
                Slot::Col(x) => Ok(x.clone()),
                _ => Err(format!("{t:?} is not R x 1")),
            },
            other => Err(format!("operand {other:?} not supported")),
        }
    }

    fn row(&self, a: &Arg) -> Result<Tile<T, 1, C>, String> {
        match a {
            Arg::Tile(TileRef::Slot(t)) => match &self.slots[t.0 as usize] {
                Slot::Row(x) => Ok(x.clone()),
                _ => Err(format!("{t:?} is not 1 x C")),
            },
            other => Err(format!("operand {other:?} not supported")),
        }
    }

    fn sq(&self, a: &Arg) -> Result<Tile<T, C, C>, String> {
        match a {
            Arg::Tile(TileRef::Slot(t)) => match &self.slots[t.0 as usize] {
                Slot::Sq(x) => Ok(x.clone()),
                // `R == C`: the square tile is held as `R x C`; the same elements.
                Slot::Full(x) if R == C => Tile::from_slice(x.as_slice())
                    .and_then(|s| s.with_valid(x.valid_rows(), x.valid_cols()))
                    .map_err(|e| e.to_string()),
                _ => Err(format!("{t:?} is not C x C")),
            },
            other => Err(format!("operand {other:?} not supported")),
        }
    }

    fn mask(&self, a: &Arg) -> Result<Tile<u8, R, C>, String> {
        match a {
            Arg::Tile(TileRef::Slot(t)) => match &self.slots[t.0 as usize] {
                Slot::Mask(x) => Ok(x.clone()),
                _ => Err(format!("{t:?} is not a mask")),
            },
            other => Err(format!("operand {other:?} not supported")),
        }
    }

    fn konst(&self, a: &Arg) -> Result<T, String> {
        match a {
            Arg::Scalar(v) => self.element(*v),
            Arg::Imm(x) => Ok(T::from_f64(*x)),
            other => Err(format!("operand {other:?} is not a scalar")),
        }
    }

    fn block(&mut self, insts: &[Inst], args: &mut [KArg<T>]) -> Result<Flow, String> {
        for i in insts {
            match self.inst(i, args)? {
                Flow::Next => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Next)
    }

    fn tensor<'a>(&self, v: ValueId, args: &'a mut [KArg<T>]) -> Result<&'a mut Tensor<T>, String> {
        match self.tensors.get(&v).and_then(|&i| args.get_mut(i)) {
            Some(KArg::Tensor(t)) => Ok(t),
            _ => Err(format!("{v:?} is not a tensor parameter")),
        }
    }

    fn inst(&mut self, i: &Inst, args: &mut [KArg<T>]) -> Result<Flow, String> {
        self.fuel = self.fuel.checked_sub(1).ok_or("out of fuel")?;
        match i {
            Inst::Op { isa, dst, args: a } => self.op(*isa, dst.0 as usize, a)?,
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => {
                if window.len() != 2 || offsets.len() != 2 {
                    return Err("rank-2 transfers only".into());
                }
                let at = [self.index(offsets[0])?, self.index(offsets[1])?];
                let src = &*self.tensor(*tensor, args)?;
                let r = match &mut self.slots[dst.0 as usize] {
                    Slot::Full(t) => isa::tload(t, src, &at),
                    Slot::Col(t) => isa::tload(t, src, &at),
                    Slot::Row(t) => isa::tload(t, src, &at),
                    Slot::Sq(t) => isa::tload(t, src, &at),
                    Slot::Mask(_) | Slot::Alt(_) | Slot::F32(_) | Slot::F16(_) => {
                        return Err("a load into a mask or another dtype".into());
                    }
                };
                r.map_err(|e| e.to_string())?;
            }
            Inst::Store {
                tensor,
                add,
                src,
                offsets,
                window,
            } => {
                if window.len() != 2 || offsets.len() != 2 {
                    return Err("rank-2 transfers only".into());
                }
                let at = [self.index(offsets[0])?, self.index(offsets[1])?];
                let TileRef::Slot(s) = src else {
                    return Err("tile parameters not supported".into());
                };
                let slot = self.slots[s.0 as usize].clone();
                let dst = self.tensor(*tensor, args)?;
                let r = match (&slot, add) {
                    (Slot::Full(t), false) => isa::tstore(dst, t, &at),
                    (Slot::Col(t), false) => isa::tstore(dst, t, &at),
                    (Slot::Row(t), false) => isa::tstore(dst, t, &at),
                    (Slot::Full(t), true) => isa::tstore_add(dst, t, &at),
                    (Slot::Col(t), true) => isa::tstore_add(dst, t, &at),
                    (Slot::Row(t), true) => isa::tstore_add(dst, t, &at),
                    (
                        Slot::Mask(_) | Slot::Alt(_) | Slot::F32(_) | Slot::F16(_) | Slot::Sq(_),
                        _,
                    ) => {
                        return Err("a store of a mask, another dtype or a C x C tile".into());
                    }
                };
                r.map_err(|e| e.to_string())?;
            }
            Inst::SetValid { dst, dims } => {
                let (r, c) = (self.index(dims[0])?, self.index(dims[1])?);
                let res = match &mut self.slots[dst.0 as usize] {
                    Slot::Full(t) => t.set_valid(r, c),
                    Slot::Col(t) => t.set_valid(r, c),
                    Slot::Row(t) => t.set_valid(r, c),
                    Slot::Mask(t) => t.set_valid(r, c),
                    Slot::Alt(t) => t.set_valid(r, c),
                    Slot::F32(t) => t.set_valid(r, c),
                    Slot::F16(t) => t.set_valid(r, c),
                    Slot::Sq(t) => t.set_valid(r, c),
                };
                res.map_err(|e| e.to_string())?;
            }
            Inst::FullValid(t) => {
                let res = match &mut self.slots[t.0 as usize] {
                    Slot::Full(t) => t.set_valid(R, C),
                    Slot::Col(t) => t.set_valid(R, 1),
                    Slot::Row(t) => t.set_valid(1, C),
                    Slot::Mask(t) => t.set_valid(R, C),
                    Slot::Alt(t) => t.set_valid(R, C),
                    Slot::F32(t) => t.set_valid(R, C),
                    Slot::F16(t) => t.set_valid(R, C),
                    Slot::Sq(t) => t.set_valid(C, C),
                };
                res.map_err(|e| e.to_string())?;
            }
            // Syncs, and a fused-chain mark: its instructions follow it.
            Inst::SetFlag(_)
            | Inst::WaitFlag(_)
            | Inst::Barrier(_)
            | Inst::Fused(_)
            | Inst::ExpandStore(_)
            | Inst::MapRowSum(_)
            | Inst::LoadView(_)
            | Inst::Share(_)
            | Inst::Handoff(_) => {}
            Inst::Scalar {
                op,
                result,
                args: a,
            } => {
                if self.is_element(*result) {
                    let v = self.element_op(*op, a)?;
                    self.elems.insert(*result, v);
                } else {
                    let v = self.int_op(*op, a)?;
                    self.scalars.insert(*result, v);
                }
            }
            Inst::Assign(pairs) => {
                let vals = pairs
                    .iter()
                    .map(|&(_, s)| self.any(s))
                    .collect::<Result<Vec<_>, _>>()?;
                for (&(d, _), v) in pairs.iter().zip(vals) {
                    self.set_any(d, v);
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
                ..
            } => {
                for &(it, init) in carried {
                    let v = self.any(init)?;
                    self.set_any(it, v);
                }
                let (lb, ub, step) = (self.scalar(*lb)?, self.scalar(*ub)?, self.scalar(*step)?);
                if step <= 0 {
                    return Err(format!("loop step {step} is not positive"));
                }
                let mut k = lb;
                while k < ub {
                    self.scalars.insert(*iv, k);
                    if self.block(body, args)? == Flow::Break {
                        break;
                    }
                    k += step;
                }
                for &(r, it) in results {
                    let v = self.any(it)?;
                    self.set_any(r, v);
                }
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                return if self.scalar(*cond)? != 0 {
                    self.block(then_body, args)
                } else {
                    self.block(else_body, args)
                };
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                for &(it, init) in carried {
                    let v = self.any(init)?;
                    self.set_any(it, v);
                }
                loop {
                    self.fuel = self.fuel.checked_sub(1).ok_or("out of fuel")?;
                    if self.block(cond, args)? != Flow::Next {
                        return Err("control flow out of a `while` condition".into());
                    }
                    if self.scalar(*cond_value)? == 0 || self.block(body, args)? == Flow::Break {
                        break;
                    }
                }
                for &(r, it) in results {
                    let v = self.any(it)?;
                    self.set_any(r, v);
                }
            }
            Inst::Break => return Ok(Flow::Break),
            Inst::Continue => return Ok(Flow::Continue),
            Inst::Read {
                result,
                tensor,
                offsets,
            } => {
                if offsets.len() != 2 {
                    return Err("rank-2 reads only".into());
                }
                let at = [self.index(offsets[0])?, self.index(offsets[1])?];
                let v =
                    isa::tread(&*self.tensor(*tensor, args)?, &at).map_err(|e| e.to_string())?;
                self.elems.insert(*result, v);
            }
            Inst::Cvt { dst, src, round } => {
                let TileRef::Slot(s) = src else {
                    return Err("tile parameters not supported".into());
                };
                let src = self.slots[s.0 as usize].clone();
                // Every pair of the `R x C` slots of a dtype.
                macro_rules! cvt {
                    ($($d:ident $s:ident),*) => {
                        match (&mut self.slots[dst.0 as usize], &src) {
                            $((Slot::$d(d), Slot::$s(s)) => isa::tcvt(d, s, *round),)*
                            _ => return Err("a conversion between slots that are not R x C".into()),
                        }
                    };
                }
                cvt!(
                    Full Full, Full Alt, Full F32, Full F16,
                    Alt Full, Alt Alt, Alt F32, Alt F16,
                    F32 Full, F32 Alt, F32 F32, F32 F16,
                    F16 Full, F16 Alt, F16 F32, F16 F16
                );
            }
            Inst::Extract { dst, src, at } => {
                let (r0, c0) = (self.index(at[0])?, self.index(at[1])?);
                let src = self.full(&Arg::Tile(*src))?;
                match &mut self.slots[dst.0 as usize] {
                    Slot::Row(d) => isa::textract(d, &src, r0, c0).map_err(|e| e.to_string())?,
                    _ => return Err("extract into a slot that is not 1 x C".into()),
                }
            }
            Inst::Insert { dst, src, at } => {
                let (r0, c0) = (self.index(at[0])?, self.index(at[1])?);
                let src = self.row(&Arg::Tile(*src))?;
                match &mut self.slots[dst.0 as usize] {
                    Slot::Full(d) => isa::tinsert(d, &src, r0, c0).map_err(|e| e.to_string())?,
                    _ => return Err("insert into a slot that is not R x C".into()),
                }
            }
            // The last instruction of a kernel without results.
            Inst::Return(v) if v.is_empty() => {}
            other => return Err(format!("instruction {other:?} not supported")),
        }
        Ok(Flow::Next)
    }

    fn op(&mut self, op: Isa, dst: usize, a: &[Arg]) -> Result<(), String> {
        use Isa::*;
        let mut slot = self.slots[dst].clone();
        match (op, a) {
            (TMatmul, [a, b]) => {
                T::matmul(&mut slot, None, &self.full(a)?, &self.sq(b)?)?;
                self.slots[dst] = slot;
                return Ok(());
            }
            (TMatmulAcc, [Arg::Tile(TileRef::Slot(c)), a, b]) => {
                let c = self.slots[c.0 as usize].clone();
                T::matmul(&mut slot, Some(&c), &self.full(a)?, &self.sq(b)?)?;
                self.slots[dst] = slot;
                return Ok(());
            }
            _ => {}
        }
        match (&mut slot, a) {
            (Slot::Col(d), [s]) => {
                let s = self.full(s)?;
                match op {
                    TRowSum => isa::trowsum(d, &s),
                    TRowMax => isa::trowmax(d, &s),
                    TRowMin => isa::trowmin(d, &s),
                    _ if T::arg_reduce(op, d, &s) => {}
                    _ => return Err(format!("{} into R x 1", op.name())),
                }
            }
            (Slot::Row(d), [s]) => {
                let s = self.full(s)?;
                match op {
                    TColSum => isa::tcolsum(d, &s),
                    TColMax => isa::tcolmax(d, &s),
                    TColMin => isa::tcolmin(d, &s),
                    _ => return Err(format!("{} into 1 x C", op.name())),
                }
            }
            (Slot::Full(d), [k]) if op == TExpandS => isa::texpands(d, self.konst(k)?),
            // A tile of the other dtype filled with a constant (a zero matmul accumulator).
            (Slot::Alt(d), [Arg::Scalar(k)]) if op == TExpandS => {
                match self.p.module.values[*k].constant {
                    Some(c) => isa::texpands(d, <T::Alt as Element>::from_f64(c.as_f64())),
                    None => return Err("a fill of another dtype by a non-constant".into()),
                }
            }
            (Slot::Full(d), [k]) if op == TFillPad => isa::tfillpad_inplace(d, self.konst(k)?),
            (Slot::Full(d), [s]) if op == TRowExpand => isa::trowexpand(d, &self.col(s)?),
            (Slot::Full(d), [s]) if op == TColExpand => isa::tcolexpand(d, &self.row(s)?),
            (Slot::Mask(d), [x, y, Arg::Cmp(k)]) => {
                let x = self.full(x)?;
                match op {
                    TCmp => isa::tcmp(d, &x, &self.full(y)?, *k),
                    TCmpS => isa::tcmps(d, &x, self.konst(y)?, *k),
                    _ => return Err(format!("{} into a mask", op.name())),
                }
            }
            (Slot::Full(d), [m, x, y]) if matches!(op, TSel | TSelS) => {
                let (m, x) = (self.mask(m)?, self.full(x)?);
                if op == TSel {
                    isa::tsel(d, &m, &x, &self.full(y)?);
                } else {
                    isa::tsels(d, &m, &x, self.konst(y)?);
                }
            }
            (Slot::Full(d), [s]) if op == TMov => isa::tmov(d, &self.full(s)?),
            (Slot::Sq(d), [s]) if op == TMov => isa::tmov(d, &self.sq(s)?),
            (Slot::Alt(d), [Arg::Tile(TileRef::Slot(s))]) if op == TMov => {
                match &self.slots[s.0 as usize] {
                    Slot::Alt(s) => isa::tmov(d, s),
                    _ => return Err("TMOV into another dtype".into()),
                }
            }

            (Slot::Full(d), [s]) => {
                let s = self.full(s)?;
                match op {
                    TNeg => isa::tneg(d, &s),
                    TAbs => isa::tabs(d, &s),
                    TRelu => isa::trelu(d, &s),
                    _ if T::special(op, d, &s, None, T::ZERO) => {}
                    _ => return Err(format!("unary {} not supported", op.name())),
                }
            }
            (Slot::Full(d), [x, y]) if op.is_expand_op() => {
                let x = self.full(x)?;
                match op {
                    TRowExpandAdd => isa::trowexpandadd(d, &x, &self.col(y)?),
                    TRowExpandSub => isa::trowexpandsub(d, &x, &self.col(y)?),
                    TRowExpandMul => isa::trowexpandmul(d, &x, &self.col(y)?),
                    TRowExpandDiv => isa::trowexpanddiv(d, &x, &self.col(y)?),
                    TRowExpandMax => isa::trowexpandmax(d, &x, &self.col(y)?),
                    TRowExpandMin => isa::trowexpandmin(d, &x, &self.col(y)?),
                    TColExpandAdd => isa::tcolexpandadd(d, &x, &self.row(y)?),
                    TColExpandSub => isa::tcolexpandsub(d, &x, &self.row(y)?),
                    TColExpandMul => isa::tcolexpandmul(d, &x, &self.row(y)?),
                    TColExpandDiv => isa::tcolexpanddiv(d, &x, &self.row(y)?),
                    TColExpandMax => isa::tcolexpandmax(d, &x, &self.row(y)?),
                    TColExpandMin => isa::tcolexpandmin(d, &x, &self.row(y)?),
                    _ => return Err(format!("{} not supported", op.name())),
                }
            }
            (Slot::Full(d), [x, Arg::Tile(y)]) => {
                let (x, y) = (self.full(x)?, self.full(&Arg::Tile(*y))?);
                match op {
                    TAdd => isa::tadd(d, &x, &y),
                    TSub => isa::tsub(d, &x, &y),
                    TMul => isa::tmul(d, &x, &y),
                    TDiv => isa::tdiv(d, &x, &y),
                    TMax => isa::tmax(d, &x, &y),
                    TMin => isa::tmin(d, &x, &y),
                    TRem => isa::trem(d, &x, &y),
                    TFMod => isa::tfmod(d, &x, &y),
                    TPow => isa::tpow(d, &x, &y),
                    _ if T::special(op, d, &x, Some(&y), T::ZERO) => {}
                    _ => return Err(format!("binary {} not supported", op.name())),
                }
            }
            (Slot::Full(d), [x, k]) => {
                let (x, k) = (self.full(x)?, self.konst(k)?);
                match op {
                    TAddS => isa::tadds(d, &x, k),
                    TSubS => isa::tsubs(d, &x, k),
                    TMulS => isa::tmuls(d, &x, k),
                    TDivS => isa::tdivs(d, &x, k),
                    TMaxS => isa::tmaxs(d, &x, k),
                    TMinS => isa::tmins(d, &x, k),
                    TRemS => isa::trems(d, &x, k),
                    TFModS => isa::tfmods(d, &x, k),
                    TPowS => isa::tpows(d, &x, k),
                    _ if T::special(op, d, &x, None, k) => {}
                    _ => return Err(format!("tile-scalar {} not supported", op.name())),
                }
            }
            _ => {
                return Err(format!(
                    "{} with {} operands not supported",
                    op.name(),
                    a.len()
                ));
            }
        }
        self.slots[dst] = slot;
        Ok(())
    }
}
