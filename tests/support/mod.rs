//! Shared by the tests: the `pto::isa` call the lowering makes for each elementwise
//! instruction, on tiles of any element type (conformance and random programs), and
//! [`run`], a kernel run by its host function and by the interpreter (the kernel tests).
#![allow(dead_code)]

pub mod model;
pub mod run;
pub mod values;

use pto::element::{Element, Float, Int};
use pto::ir::ops::Isa;
use pto::{Tile, isa};

/// A host dispatcher: the `pto::isa` call of an instruction on `R x C` tiles of `T`.
pub type Host<T, const R: usize, const C: usize> =
    fn(Isa, &Tile<T, R, C>, &Tile<T, R, C>, T) -> Option<Tile<T, R, C>>;

/// The `pto::isa` call of an instruction on tiles of any element type.
pub fn host_any<T: Element, const R: usize, const C: usize>(
    isa: Isa,
    a: &Tile<T, R, C>,
    b: &Tile<T, R, C>,
    k: T,
) -> Option<Tile<T, R, C>> {
    let mut d = Tile::<T, R, C>::zeros();
    match isa {
        Isa::TAdd => isa::tadd(&mut d, a, b),
        Isa::TSub => isa::tsub(&mut d, a, b),
        Isa::TMul => isa::tmul(&mut d, a, b),
        Isa::TDiv => isa::tdiv(&mut d, a, b),
        Isa::TMax => isa::tmax(&mut d, a, b),
        Isa::TMin => isa::tmin(&mut d, a, b),
        Isa::TRem => isa::trem(&mut d, a, b),
        Isa::TFMod => isa::tfmod(&mut d, a, b),
        Isa::TPow => isa::tpow(&mut d, a, b),
        Isa::TAddS => isa::tadds(&mut d, a, k),
        Isa::TSubS => isa::tsubs(&mut d, a, k),
        Isa::TMulS => isa::tmuls(&mut d, a, k),
        Isa::TDivS => isa::tdivs(&mut d, a, k),
        Isa::TMaxS => isa::tmaxs(&mut d, a, k),
        Isa::TMinS => isa::tmins(&mut d, a, k),
        Isa::TRemS => isa::trems(&mut d, a, k),
        Isa::TFModS => isa::tfmods(&mut d, a, k),
        Isa::TPowS => isa::tpows(&mut d, a, k),
        Isa::TNeg => isa::tneg(&mut d, a),
        Isa::TAbs => isa::tabs(&mut d, a),
        Isa::TRelu => isa::trelu(&mut d, a),
        _ => return None,
    }
    Some(d)
}

pub fn host_int<T: Int, const R: usize, const C: usize>(
    isa: Isa,
    a: &Tile<T, R, C>,
    b: &Tile<T, R, C>,
    k: T,
) -> Option<Tile<T, R, C>> {
    let mut d = Tile::<T, R, C>::zeros();
    match isa {
        Isa::TAnd => isa::tand(&mut d, a, b),
        Isa::TOr => isa::tor(&mut d, a, b),
        Isa::TXor => isa::txor(&mut d, a, b),
        Isa::TShl => isa::tshl(&mut d, a, b),
        Isa::TShr => isa::tshr(&mut d, a, b),
        Isa::TAndS => isa::tands(&mut d, a, k),
        Isa::TOrS => isa::tors(&mut d, a, k),
        Isa::TXorS => isa::txors(&mut d, a, k),
        Isa::TShlS => isa::tshls(&mut d, a, k),
        Isa::TShrS => isa::tshrs(&mut d, a, k),
        Isa::TNot => isa::tnot(&mut d, a),
        _ => return host_any(isa, a, b, k),
    }
    Some(d)
}

pub fn host_float<T: Float, const R: usize, const C: usize>(
    isa: Isa,
    a: &Tile<T, R, C>,
    b: &Tile<T, R, C>,
    k: T,
) -> Option<Tile<T, R, C>> {
    let mut d = Tile::<T, R, C>::zeros();
    match isa {
        Isa::TExp => isa::texp(&mut d, a),
        Isa::TLog => isa::tlog(&mut d, a),
        Isa::TSqrt => isa::tsqrt(&mut d, a),
        Isa::TRsqrt => isa::trsqrt(&mut d, a),
        Isa::TRecip => isa::trecip(&mut d, a),
        _ => return host_any(isa, a, b, k),
    }
    Some(d)
}
