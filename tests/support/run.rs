//! Running a kernel two ways and comparing: its host function on `pto` tensors, and the
//! reference interpreter on its IR (`NAME::program()`); with the deterministic data and the
//! element comparisons the kernel tests share.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

use pto::ir::{DataType, ProgramModule};
use pto::{Element, Tensor};
use pto_lower::interp::{HostTensor, HostValue};

/// A deterministic sequence of 64-bit states from `seed` (a linear congruential generator;
/// its high bits are the random ones).
pub fn states(seed: u64) -> impl Iterator<Item = u64> {
    std::iter::successors(Some(seed), |s| {
        Some(
            s.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        )
    })
    .skip(1)
}

/// Deterministic values in `[lo, hi)`.
pub fn values(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    states(seed)
        .take(n)
        .map(|s| lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32))
        .collect()
}

/// The IR dtype of a host element type (their names are the same).
pub fn dtype<T: Element>() -> DataType {
    DataType::from_name(T::NAME).unwrap()
}

/// A tensor's elements as the interpreter holds them.
pub fn data<T: Element>(t: &Tensor<T>) -> Vec<f64> {
    t.as_slice().iter().map(|x| x.to_f64()).collect()
}

/// A host tensor as an interpreter argument of its dtype.
pub fn arg<T: Element>(t: &Tensor<T>) -> HostValue {
    HostValue::Tensor(HostTensor::new(dtype::<T>(), t.shape().to_vec(), data(t)).unwrap())
}

/// A zero `r x c` tensor of `T` as an interpreter argument (an output before the run).
pub fn zeros<T: Element>(shape: [usize; 2]) -> HostValue {
    arg(&Tensor::<T>::zeros(shape))
}

/// Runs `m`'s entry in the interpreter on `args`; each argument's data afterwards (empty
/// for a scalar or a tile).
pub fn interp(m: &ProgramModule, mut args: Vec<HostValue>) -> Vec<Vec<f64>> {
    pto_lower::interp::run(m, m.entry.unwrap(), &mut args).unwrap();
    args.iter()
        .map(|a| a.as_tensor().map(|t| t.data.clone()).unwrap_or_default())
        .collect()
}

/// Interpreter data as `f32`.
pub fn f32s(data: &[f64]) -> Vec<f32> {
    data.iter().map(|&x| x as f32).collect()
}

/// `f32` data as the interpreter holds it.
pub fn f64s(data: &[f32]) -> Vec<f64> {
    data.iter().map(|&x| f64::from(x)).collect()
}

/// Asserts `got` equals `want` within `tol` relative to `max(|want|, 1)` at every element.
pub fn close(got: &[f32], want: &[f32], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}: element {i} is {g}, expected {w}"
        );
    }
}

/// Asserts bitwise equality, every NaN equal to every NaN.
pub fn same(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}: element {i} is {g}, expected {w}"
        );
    }
}

/// Runs the interpreter on `m` with `args` (the arguments as the host function was given
/// them) and asserts that each tensor argument ends exactly as the host function left it:
/// `host` holds `(argument index, its data after the host run)`.
pub fn assert_interp_agrees(
    m: &ProgramModule,
    args: Vec<HostValue>,
    host: &[(usize, Vec<f64>)],
    what: &str,
) {
    let got = interp(m, args);
    for (k, want) in host {
        assert_eq!(&got[*k], want, "interpreter vs host, argument {k}, {what}");
    }
}

/// Runs a host function on interpreter-form arguments (`f` calls it with what [`Args`]
/// reads from them) and writes the tensors it stored into back into `args`.
pub fn host(
    args: &mut [HostValue],
    f: impl FnOnce(&Args) -> Result<(), pto::Error>,
) -> Result<(), pto::Error> {
    let view = Args {
        args: &*args,
        stored: RefCell::new(Vec::new()),
    };
    let result = f(&view);
    for (k, data) in view.stored.into_inner() {
        let HostValue::Tensor(t) = &mut args[k] else {
            unreachable!("only tensors are outputs")
        };
        *t = HostTensor::new(t.dtype, t.shape.clone(), data).unwrap();
    }
    result
}

/// Interpreter-form arguments as a host function takes them.
pub struct Args<'a> {
    args: &'a [HostValue],
    /// `(argument index, data)` of each output tensor, when its [`Out`] is dropped.
    stored: RefCell<Vec<(usize, Vec<f64>)>>,
}

impl Args<'_> {
    /// Argument `k` as an input tensor of `T`.
    pub fn tensor<T: Element>(&self, k: usize) -> Tensor<T> {
        let t = self.args[k].as_tensor().unwrap();
        let data = t.data.iter().map(|&x| T::from_f64(x)).collect();
        Tensor::from_vec_dyn(data, &t.shape).unwrap()
    }

    /// Argument `k` as an output (or in-out) tensor of `T`, written back after the call.
    pub fn out<T: Element>(&self, k: usize) -> Out<'_, T> {
        Out {
            tensor: self.tensor(k),
            k,
            stored: &self.stored,
        }
    }

    /// Argument `k` (a `bool` tile parameter) as an `R x C` mask tile.
    pub fn mask<const R: usize, const C: usize>(&self, k: usize) -> pto::Tile<bool, R, C> {
        let t = self.args[k].as_tile().unwrap();
        let bits: Vec<bool> = t.data.iter().map(|&x| x != 0.0).collect();
        pto::Tile::from_slice(&bits).unwrap()
    }

    /// Argument `k` (a tile parameter) as an `R x C` tile of `T`.
    pub fn tile<T: Element, const R: usize, const C: usize>(&self, k: usize) -> pto::Tile<T, R, C> {
        let t = self.args[k].as_tile().unwrap();
        let data: Vec<T> = t.data.iter().map(|&x| T::from_f64(x)).collect();
        pto::Tile::from_slice(&data).unwrap()
    }

    /// Argument `k` as a scalar.
    pub fn scalar(&self, k: usize) -> f64 {
        self.args[k].as_f64().unwrap()
    }

    /// Argument `k` as a `bool`.
    pub fn flag(&self, k: usize) -> bool {
        self.args[k].as_bool().unwrap()
    }
}

/// An output tensor of a host call; records its data for [`host`] when dropped (at the end
/// of the call's statement).
pub struct Out<'a, T: Element> {
    tensor: Tensor<T>,
    k: usize,
    stored: &'a RefCell<Vec<(usize, Vec<f64>)>>,
}

impl<T: Element> Deref for Out<'_, T> {
    type Target = Tensor<T>;

    fn deref(&self) -> &Tensor<T> {
        &self.tensor
    }
}

impl<T: Element> DerefMut for Out<'_, T> {
    fn deref_mut(&mut self) -> &mut Tensor<T> {
        &mut self.tensor
    }
}

impl<T: Element> Drop for Out<'_, T> {
    fn drop(&mut self) {
        self.stored.borrow_mut().push((self.k, data(&self.tensor)));
    }
}
