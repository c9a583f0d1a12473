//! Scalar access to one tensor element: a kernel's `t.read([i, j])` and `t.write([i, j], s)`
//! (on the NPU the scalar unit reads and writes global memory directly). An index outside
//! the tensor is [`Error::OutOfBounds`], never a panic.

use super::memory::Offset;
use crate::{Error, Tensor};

/// The element of `src` at `index` (one index per dimension).
pub fn tread<T: Copy>(src: &Tensor<T>, index: impl Offset) -> Result<T, Error> {
    let index = index.into_usizes();
    let index = index.as_ref();
    src.get(index).ok_or_else(|| Error::OutOfBounds {
        what: "tensor read",
        offset: index.to_vec(),
        extent: vec![1; index.len()],
        bounds: src.shape().to_vec(),
    })
}

/// Writes `value` into the element of `dst` at `index`.
pub fn twrite<T: Copy>(dst: &mut Tensor<T>, value: T, index: impl Offset) -> Result<(), Error> {
    let index = index.into_usizes();
    dst.set(index.as_ref(), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_and_out_of_range() {
        let mut t = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
        assert_eq!(tread(&t, [1i64, 2]), Ok(6));
        twrite(&mut t, 9, [0i64, 1]).unwrap();
        assert_eq!(t.as_slice(), &[1, 9, 3, 4, 5, 6]);
        assert!(matches!(
            tread(&t, [2i64, 0]),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            tread(&t, [-1i64, 0]),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(twrite(&mut t, 0, [0i64, 3]).is_err());
        assert!(tread(&t, &[0usize][..]).is_err());
        assert_eq!(t.as_slice(), &[1, 9, 3, 4, 5, 6]);
    }
}
