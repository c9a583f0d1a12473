//! Host tensors: the global-memory (GM) operands of a kernel.
//!
//! A [`Tensor`] owns its elements in one `Vec`, row-major (the last dimension is contiguous),
//! with rank 1 to 4. Invariants: `1 <= rank <= 4`, `data.len()` is the product of the shape,
//! and `strides[d]` is the product of the dimensions after `d`. Zero-sized dimensions are
//! allowed (an empty tensor). The rank limit is enforced at compile time where the shape is an
//! array (`[usize; N]`) and at run time (as [`Error::Rank`]) where it is a slice.

use crate::{Element, Error};

/// The largest tensor rank.
pub const MAX_RANK: usize = 4;

/// An owned, row-major host tensor of rank 1 to 4.
#[derive(Clone, PartialEq)]
pub struct Tensor<T> {
    data: Vec<T>,
    shape: [usize; MAX_RANK],
    strides: [usize; MAX_RANK],
    rank: usize,
}

/// Compile-time check that an array shape has rank 1 to 4.
struct RankCheck<const N: usize>;

impl<const N: usize> RankCheck<N> {
    const OK: () = assert!(N >= 1 && N <= MAX_RANK, "tensor rank must be 1 to 4");
}

/// Shape and strides arrays plus the element count, or `None` when the count overflows.
fn layout(shape: &[usize]) -> Option<([usize; MAX_RANK], [usize; MAX_RANK], usize)> {
    let mut s = [1; MAX_RANK];
    let mut st = [1; MAX_RANK];
    let mut count = 1usize;
    // A shape of rank past `MAX_RANK` has no layout (callers check the rank first).
    for d in (0..shape.len()).rev() {
        *s.get_mut(d)? = shape[d];
        *st.get_mut(d)? = count;
        count = count.checked_mul(shape[d])?;
    }
    Some((s, st, count))
}

/// [`Error::Rank`] unless `shape` has rank 1 to [`MAX_RANK`].
fn check_rank(shape: &[usize]) -> Result<(), Error> {
    if shape.is_empty() || shape.len() > MAX_RANK {
        return Err(Error::Rank {
            param: "shape",
            expected: if shape.is_empty() { 1 } else { MAX_RANK },
            actual: shape.len(),
        });
    }
    Ok(())
}

impl<T> Tensor<T> {
    /// A tensor of shape `shape` holding `data` in row-major order.
    ///
    /// The rank `N` must be 1 to 4 (checked at compile time). Fails with [`Error::Length`] when
    /// `data.len()` is not the product of `shape`.
    pub fn from_vec<const N: usize>(data: Vec<T>, shape: [usize; N]) -> Result<Self, Error> {
        let () = RankCheck::<N>::OK;
        Self::from_vec_dyn(data, &shape)
    }

    /// Like [`Tensor::from_vec`] with the shape as a slice; a rank outside 1..=4 is
    /// [`Error::Rank`].
    pub fn from_vec_dyn(data: Vec<T>, shape: &[usize]) -> Result<Self, Error> {
        check_rank(shape)?;
        let Some((s, strides, count)) = layout(shape) else {
            return Err(Error::Unsupported(format!(
                "the element count of shape {shape:?} overflows usize"
            )));
        };
        if data.len() != count {
            return Err(Error::Length {
                expected: count,
                actual: data.len(),
            });
        }
        Ok(Self {
            data,
            shape: s,
            strides,
            rank: shape.len(),
        })
    }

    /// The size of each dimension, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape[..self.rank]
    }

    /// `[rows, cols]` of a rank-2 tensor, or `[1, len]` of a rank-1 one; `None` otherwise.
    /// Reads the dimensions by value (no slice), so hot paths have no hidden panic branch.
    #[inline(always)]
    pub(crate) fn plane(&self) -> Option<[usize; 2]> {
        match self.rank {
            1 => Some([1, self.shape[0]]),
            2 => Some([self.shape[0], self.shape[1]]),
            _ => None,
        }
    }

    /// The shape, the strides and the elements, borrowed apart (a parallel loop cuts the
    /// elements into rows, `par::row_parts`).
    pub(crate) fn split_mut(&mut self) -> (&[usize], &[usize], &mut [T]) {
        (
            &self.shape[..self.rank],
            &self.strides[..self.rank],
            &mut self.data,
        )
    }

    /// The number of dimensions (1 to 4).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// `true` when some dimension is 0.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements in row-major order.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The elements in row-major order, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The elements in row-major order.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// The element stride of each dimension (the last is 1).
    pub fn strides(&self) -> &[usize] {
        &self.strides[..self.rank]
    }

    /// The linear index of `index`, or `None` when it has the wrong rank or is out of bounds.
    pub fn linear_index(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.rank {
            return None;
        }
        let mut at = 0;
        for ((&i, &n), &s) in index.iter().zip(self.shape()).zip(self.strides()) {
            if i >= n {
                return None;
            }
            at += i * s;
        }
        Some(at)
    }

    /// Checks the shape against a kernel's declaration: `expected` has one entry per
    /// dimension, `Some(n)` for a static size and `None` for a symbolic one (checked with
    /// [`Tensor::bind_dim`]). A kernel's host function checks all its tensors at once with
    /// [`bind_shapes`](crate::bind_shapes).
    ///
    /// Fails with [`Error::Rank`] or [`Error::Shape`] naming `param`.
    pub fn check_shape(
        &self,
        param: &'static str,
        expected: &[Option<usize>],
    ) -> Result<(), Error> {
        if expected.len() != self.rank {
            return Err(Error::Rank {
                param,
                expected: expected.len(),
                actual: self.rank,
            });
        }
        for (dim, (&want, &actual)) in expected.iter().zip(self.shape()).enumerate() {
            if let Some(expected) = want
                && expected != actual
            {
                return Err(Error::Shape {
                    param,
                    dim,
                    expected,
                    actual,
                });
            }
        }
        Ok(())
    }

    /// Binds the symbolic dimension `symbol` to dimension `dim` of this tensor, or checks it.
    ///
    /// The first tensor carrying `symbol` sets `*slot`; every later one must agree, else
    /// [`Error::SymbolMismatch`]. A `dim` beyond the rank is [`Error::Rank`]. Returns the
    /// bound value.
    pub fn bind_dim(
        &self,
        param: &'static str,
        dim: usize,
        symbol: &'static str,
        slot: &mut Option<usize>,
    ) -> Result<usize, Error> {
        let Some(&actual) = self.shape().get(dim) else {
            return Err(Error::Rank {
                param,
                expected: dim + 1,
                actual: self.rank,
            });
        };
        match *slot {
            None => {
                *slot = Some(actual);
                Ok(actual)
            }
            Some(expected) if expected == actual => Ok(actual),
            Some(expected) => Err(Error::SymbolMismatch {
                symbol,
                param,
                dim,
                expected,
                actual,
            }),
        }
    }
}

impl<T: Copy> Tensor<T> {
    /// A tensor of shape `shape` with every element `value`.
    ///
    /// The rank `N` must be 1 to 4 (checked at compile time).
    ///
    /// # Panics
    ///
    /// Like `vec!`, when the element count overflows `usize` or the allocation fails; use
    /// [`Tensor::try_full`] to get an error instead.
    pub fn full<const N: usize>(shape: [usize; N], value: T) -> Self {
        let () = RankCheck::<N>::OK;
        match Self::try_full(&shape, value) {
            Ok(t) => t,
            Err(e) => panic!("Tensor::full({shape:?}): {e}"),
        }
    }

    /// Like [`Tensor::full`] but reports an overflowing element count as an error.
    pub fn try_full(shape: &[usize], value: T) -> Result<Self, Error> {
        check_rank(shape)?;
        let Some((_, _, count)) = layout(shape) else {
            return Err(Error::Unsupported(format!(
                "the element count of shape {shape:?} overflows usize"
            )));
        };
        let mut data = Vec::new();
        data.try_reserve_exact(count)
            .map_err(|e| Error::Unsupported(format!("cannot allocate a tensor: {e}")))?;
        data.resize(count, value);
        Self::from_vec_dyn(data, shape)
    }

    /// The element at `index` (one entry per dimension), or `None` when out of bounds or
    /// of the wrong rank.
    pub fn get(&self, index: &[usize]) -> Option<T> {
        self.linear_index(index).map(|i| self.data[i])
    }

    /// Writes the element at `index`; fails with [`Error::OutOfBounds`] when it does not exist.
    pub fn set(&mut self, index: &[usize], value: T) -> Result<(), Error> {
        match self.linear_index(index) {
            Some(i) => {
                self.data[i] = value;
                Ok(())
            }
            None => Err(Error::OutOfBounds {
                what: "tensor index",
                offset: index.to_vec(),
                extent: vec![1; index.len()],
                bounds: self.shape().to_vec(),
            }),
        }
    }
}

impl<T: Element> Tensor<T> {
    /// A tensor of shape `shape` filled with zeros.
    ///
    /// The rank `N` must be 1 to 4 (checked at compile time, so this cannot fail on rank).
    ///
    /// # Panics
    ///
    /// Like `vec!`, when the element count overflows `usize` or the allocation fails; use
    /// [`Tensor::try_zeros`] to get an error instead.
    pub fn zeros<const N: usize>(shape: [usize; N]) -> Self {
        Self::full(shape, T::ZERO)
    }

    /// Like [`Tensor::zeros`] with the shape as a slice, reporting every problem as an error.
    pub fn try_zeros(shape: &[usize]) -> Result<Self, Error> {
        Self::try_full(shape, T::ZERO)
    }
}

impl<T: core::fmt::Debug> core::fmt::Debug for Tensor<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tensor")
            .field("shape", &self.shape())
            .field("data", &self.data)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rank outside 1 to 4 is an error, never an index out of bounds.
    #[test]
    fn try_zeros_and_try_full_reject_ranks_past_four() {
        for shape in [&[][..], &[1, 1, 1, 1, 1], &[2, 3, 4, 5, 6, 7], &[0; 40]] {
            let rank = shape.len();
            let want = Error::Rank {
                param: "shape",
                expected: if rank == 0 { 1 } else { MAX_RANK },
                actual: rank,
            };
            assert_eq!(Tensor::<f32>::try_zeros(shape).err(), Some(want.clone()));
            assert_eq!(Tensor::<i8>::try_full(shape, 1).err(), Some(want.clone()));
            assert_eq!(Tensor::<u8>::from_vec_dyn(vec![], shape).err(), Some(want));
        }
        assert!(Tensor::<f32>::try_zeros(&[1, 2, 3, 4]).is_ok());
    }

    #[test]
    fn from_vec_and_accessors() {
        let t = Tensor::from_vec((0..24).collect::<Vec<i32>>(), [2, 3, 4]).unwrap();
        assert_eq!(t.shape(), &[2, 3, 4]);
        assert_eq!(t.rank(), 3);
        assert_eq!(t.len(), 24);
        assert_eq!(t.strides(), &[12, 4, 1]);
        assert_eq!(t.get(&[1, 2, 3]), Some(23));
        assert_eq!(t.get(&[1, 0, 1]), Some(13));
        assert_eq!(t.get(&[2, 0, 0]), None);
        assert_eq!(t.get(&[0, 0]), None);
        assert_eq!(t.as_slice()[5], 5);
        assert_eq!(t.into_vec().len(), 24);
    }

    #[test]
    fn from_vec_errors() {
        assert_eq!(
            Tensor::from_vec(vec![0f32; 5], [2, 3]).unwrap_err(),
            Error::Length {
                expected: 6,
                actual: 5
            }
        );
        assert!(matches!(
            Tensor::from_vec_dyn(vec![0f32; 1], &[1, 1, 1, 1, 1]),
            Err(Error::Rank { actual: 5, .. })
        ));
        assert!(matches!(
            Tensor::<f32>::from_vec_dyn(vec![], &[]),
            Err(Error::Rank { actual: 0, .. })
        ));
        assert!(matches!(
            Tensor::<u8>::from_vec_dyn(vec![], &[usize::MAX, 2]),
            Err(Error::Unsupported(_))
        ));
        assert!(Tensor::<f32>::try_zeros(&[usize::MAX, 3]).is_err());
    }

    #[test]
    fn zeros_full_set() {
        let mut t = Tensor::<f32>::zeros([4, 128]);
        assert_eq!(t.len(), 512);
        assert!(t.as_slice().iter().all(|&x| x == 0.0));
        t.set(&[3, 127], 2.0).unwrap();
        assert_eq!(t.as_slice()[511], 2.0);
        assert!(matches!(
            t.set(&[4, 0], 1.0),
            Err(Error::OutOfBounds { .. })
        ));
        let e = Tensor::<i8>::zeros([0, 3]);
        assert!(e.is_empty());
        assert_eq!(Tensor::full([3], 7u8).into_vec(), vec![7, 7, 7]);
    }

    #[test]
    fn check_shape_and_bind() {
        let x = Tensor::<f32>::zeros([4, 128]);
        let out = Tensor::<f32>::zeros([5, 128]);
        x.check_shape("x", &[None, Some(128)]).unwrap();
        assert_eq!(
            x.check_shape("x", &[None, Some(64)]),
            Err(Error::Shape {
                param: "x",
                dim: 1,
                expected: 64,
                actual: 128
            })
        );
        assert!(matches!(
            x.check_shape("x", &[None]),
            Err(Error::Rank {
                param: "x",
                expected: 1,
                actual: 2
            })
        ));
        let mut b = None;
        assert_eq!(x.bind_dim("x", 0, "B", &mut b), Ok(4));
        assert_eq!(b, Some(4));
        assert_eq!(x.bind_dim("x", 0, "B", &mut b), Ok(4));
        assert_eq!(
            out.bind_dim("out", 0, "B", &mut b),
            Err(Error::SymbolMismatch {
                symbol: "B",
                param: "out",
                dim: 0,
                expected: 4,
                actual: 5
            })
        );
        assert!(matches!(
            out.bind_dim("out", 2, "B", &mut b),
            Err(Error::Rank { .. })
        ));
    }
}
