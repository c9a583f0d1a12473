//! What a store writes: a whole [`Tensor`], or the rows of one that an iteration of a
//! `parallel` loop owns ([`crate::par::Rows`]).
//!
//! The store instructions compute their windows from the whole tensor's shape (so their
//! clipping and their errors do not depend on who holds the tensor) and then write through
//! [`TensorMut::tail_mut`], which takes an index into the whole tensor. A holder of some rows
//! gives out only those: the lowering proved that an iteration's stores land in its rows, so a
//! store never reaches past them (were one to, its elements outside would not be written, and
//! nothing else would be: no other iteration's rows are reachable).

use crate::Tensor;

/// A tensor, or a run of its rows, as the destination of a store.
pub trait TensorMut<T> {
    /// The whole tensor's shape.
    fn shape(&self) -> &[usize];

    /// The whole tensor's strides.
    fn strides(&self) -> &[usize];

    /// The whole tensor's rank.
    fn rank(&self) -> usize {
        self.shape().len()
    }

    /// `[rows, cols]` of a rank-1 (one row) or rank-2 tensor.
    fn plane(&self) -> Option<[usize; 2]> {
        match *self.shape() {
            [n] => Some([1, n]),
            [r, c] => Some([r, c]),
            _ => None,
        }
    }

    /// The elements from linear index `start` of the whole tensor to the end of those held
    /// here; `None` when `start` is not among them.
    fn tail_mut(&mut self, start: usize) -> Option<&mut [T]>;
}

impl<T> TensorMut<T> for Tensor<T> {
    fn shape(&self) -> &[usize] {
        Tensor::shape(self)
    }

    fn strides(&self) -> &[usize] {
        Tensor::strides(self)
    }

    fn tail_mut(&mut self, start: usize) -> Option<&mut [T]> {
        self.as_mut_slice().get_mut(start..)
    }
}
