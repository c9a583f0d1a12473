//! On-chip tiles: the operands of every compute instruction.
//!
//! A [`Tile<T, R, C>`] is an `R x C` row-major 2-D array with a runtime *valid region*, the
//! top-left `valid_rows x valid_cols` prefix (PTO's `ValidRow` / `ValidCol`). Instructions
//! iterate over valid regions only; elements outside the valid region are unspecified in PTO
//! (here they simply keep whatever was last written). Tiles of any rank are 2-D: a rank-1
//! tile is `1 x C`, rank-3/4 tiles flatten their leading dimensions into rows.
//!
//! Invariants: the storage holds exactly `R` rows of `C` elements, `valid_rows <= R` and
//! `valid_cols <= C`. Every constructor gives the full valid region.
//!
//! Storage is a boxed slice of `R` arrays `[T; C]`, allocated once when the tile is created:
//! the row length is a compile-time constant (so row loops unroll and vectorise), the rows of
//! a tile are contiguous (so a fully valid tile is processed as one flat slice), large tiles
//! (a 256 KiB UB-sized tile) do not live on the stack, and moving a tile is a pointer copy.
//! A kernel creates its tiles once and the instructions reuse them, so nothing allocates in an
//! inner loop.

use crate::{Element, Error};

/// An `R x C` tile of `T` with a runtime valid region.
#[derive(Clone)]
pub struct Tile<T, const R: usize, const C: usize> {
    /// `R` rows of `C` elements.
    pub(crate) data: Box<[[T; C]]>,
    /// Valid rows, `<= R`.
    pub(crate) valid_rows: usize,
    /// Valid columns, `<= C`.
    pub(crate) valid_cols: usize,
}

impl<T: Copy, const R: usize, const C: usize> Tile<T, R, C> {
    /// Static rows.
    pub const ROWS: usize = R;
    /// Static columns.
    pub const COLS: usize = C;

    /// A tile with every element `value` and the full valid region.
    pub fn full(value: T) -> Self {
        const {
            assert!(
                R > 0 && C > 0,
                "a tile needs at least one row and one column"
            )
        };
        Self {
            data: vec![[value; C]; R].into_boxed_slice(),
            valid_rows: R,
            valid_cols: C,
        }
    }

    /// A tile with element `(i, j)` set to `f(i, j)` and the full valid region.
    pub fn from_fn(mut f: impl FnMut(usize, usize) -> T) -> Self {
        const {
            assert!(
                R > 0 && C > 0,
                "a tile needs at least one row and one column"
            )
        };
        let data = (0..R)
            .map(|i| core::array::from_fn(|j| f(i, j)))
            .collect::<Box<[[T; C]]>>();
        Self {
            data,
            valid_rows: R,
            valid_cols: C,
        }
    }

    /// A tile from `R * C` elements in row-major order, with the full valid region; fails
    /// with [`Error::Length`] on another length.
    pub fn from_slice(values: &[T]) -> Result<Self, Error> {
        if values.len() != R * C {
            return Err(Error::Length {
                expected: R * C,
                actual: values.len(),
            });
        }
        Ok(Self::from_fn(|i, j| values[i * C + j]))
    }

    /// The valid region `(rows, cols)`.
    #[inline]
    pub fn valid(&self) -> (usize, usize) {
        (self.valid_rows, self.valid_cols)
    }

    /// Valid rows.
    #[inline]
    pub fn valid_rows(&self) -> usize {
        self.valid_rows
    }

    /// Valid columns.
    #[inline]
    pub fn valid_cols(&self) -> usize {
        self.valid_cols
    }

    /// Sets the valid region; fails with [`Error::ValidRegion`] when it exceeds `R x C`.
    pub fn set_valid(&mut self, rows: usize, cols: usize) -> Result<(), Error> {
        if rows > R || cols > C {
            return Err(Error::ValidRegion {
                rows,
                cols,
                max_rows: R,
                max_cols: C,
            });
        }
        self.valid_rows = rows;
        self.valid_cols = cols;
        Ok(())
    }

    /// The tile with its valid region set (see [`Tile::set_valid`]).
    pub fn with_valid(mut self, rows: usize, cols: usize) -> Result<Self, Error> {
        self.set_valid(rows, cols)?;
        Ok(self)
    }

    /// Sets the valid region, clamped to the tile (for instructions that derive it from
    /// operands whose regions already fit).
    #[inline]
    pub(crate) fn set_valid_clamped(&mut self, rows: usize, cols: usize) {
        self.valid_rows = rows.min(R);
        self.valid_cols = cols.min(C);
    }

    /// Element `(i, j)` if it is inside the valid region.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> Option<T> {
        if i < self.valid_rows && j < self.valid_cols {
            self.data.get(i)?.get(j).copied()
        } else {
            None
        }
    }

    /// Writes element `(i, j)` anywhere inside the `R x C` storage (like PTO's `SetValue`;
    /// the valid region is unchanged); fails with [`Error::OutOfBounds`] outside it.
    pub fn set(&mut self, i: usize, j: usize, value: T) -> Result<(), Error> {
        match self.data.get_mut(i).and_then(|row| row.get_mut(j)) {
            Some(x) => {
                *x = value;
                Ok(())
            }
            None => Err(Error::OutOfBounds {
                what: "tile element",
                offset: vec![i, j],
                extent: vec![1, 1],
                bounds: vec![R, C],
            }),
        }
    }

    /// All `R` rows of the storage (including elements outside the valid region).
    #[inline]
    pub fn as_rows(&self) -> &[[T; C]] {
        &self.data
    }

    /// All `R` rows of the storage, mutably.
    #[inline]
    pub fn as_rows_mut(&mut self) -> &mut [[T; C]] {
        &mut self.data
    }

    /// The whole storage as one row-major slice of `R * C` elements.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        self.data.as_flattened()
    }

    /// The whole storage as one row-major slice, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data.as_flattened_mut()
    }

    /// The valid part of row `i`, or `None` when `i` is not a valid row.
    #[inline]
    pub fn valid_row(&self, i: usize) -> Option<&[T]> {
        if i < self.valid_rows {
            self.data.get(i)?.get(..self.valid_cols)
        } else {
            None
        }
    }

    /// The valid region copied out in row-major order (`valid_rows * valid_cols` elements).
    pub fn to_vec(&self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.valid_rows * self.valid_cols);
        for row in self.data.iter().take(self.valid_rows) {
            out.extend_from_slice(&row[..self.valid_cols]);
        }
        out
    }
}

impl<T: Element, const R: usize, const C: usize> Tile<T, R, C> {
    /// A zero tile with the full valid region (same as [`Tile::zeros`]).
    pub fn new() -> Self {
        Self::zeros()
    }

    /// A zero tile with the full valid region.
    pub fn zeros() -> Self {
        Self::full(T::ZERO)
    }

    /// `N` zero tiles, `N` taken from where they go: the host code the kernel macro generates
    /// declares the tiles of one shape together, `let [a, b] = &mut Tile::<f32, 16, 16>::zeros_n();`.
    pub fn zeros_n<const N: usize>() -> [Self; N] {
        std::array::from_fn(|_| Self::zeros())
    }
}

impl<T: Element, const R: usize, const C: usize> Default for Tile<T, R, C> {
    fn default() -> Self {
        Self::zeros()
    }
}

/// Tiles are equal when their valid regions have the same shape and the same elements;
/// elements outside the valid region are ignored.
impl<T: Copy + PartialEq, const R: usize, const C: usize> PartialEq for Tile<T, R, C> {
    fn eq(&self, other: &Self) -> bool {
        let Self {
            data,
            valid_rows,
            valid_cols,
        } = self;
        *valid_rows == other.valid_rows
            && *valid_cols == other.valid_cols
            && data
                .iter()
                .zip(other.data.iter())
                .take(*valid_rows)
                .all(|(a, b)| a[..*valid_cols] == b[..*valid_cols])
    }
}

impl<T: Copy + core::fmt::Debug, const R: usize, const C: usize> core::fmt::Debug
    for Tile<T, R, C>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let rows: Vec<&[T]> = self
            .data
            .iter()
            .take(self.valid_rows)
            .map(|r| &r[..self.valid_cols])
            .collect();
        f.debug_struct("Tile")
            .field("shape", &[R, C])
            .field("valid", &[self.valid_rows, self.valid_cols])
            .field("rows", &rows)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_and_access() {
        let t = Tile::<f32, 2, 3>::from_fn(|i, j| (i * 10 + j) as f32);
        assert_eq!(t.valid(), (2, 3));
        assert_eq!(t.get(1, 2), Some(12.0));
        assert_eq!(t.get(2, 0), None);
        assert_eq!(t.as_rows()[1], [10.0, 11.0, 12.0]);
        assert_eq!(t.as_slice(), &[0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
        assert_eq!(Tile::<i32, 2, 2>::zeros().to_vec(), vec![0; 4]);
        assert_eq!(Tile::<i32, 2, 2>::full(3).to_vec(), vec![3; 4]);
        assert_eq!(Tile::<u8, 1, 4>::new(), Tile::<u8, 1, 4>::default());
        let [a, b] = &mut Tile::<i32, 2, 2>::zeros_n();
        a.as_mut_slice()[0] = 7;
        assert_eq!((a.get(0, 0), b.get(0, 0)), (Some(7), Some(0)));
        let s = Tile::<i32, 2, 2>::from_slice(&[1, 2, 3, 4]).unwrap();
        assert_eq!(s.get(1, 0), Some(3));
        assert!(matches!(
            Tile::<i32, 2, 2>::from_slice(&[1]),
            Err(Error::Length { .. })
        ));
        // A UB-sized tile is fine (heap storage).
        let big = Tile::<f32, 256, 256>::zeros();
        assert_eq!(big.as_slice().len(), 65536);
    }

    #[test]
    fn valid_region() {
        let mut t = Tile::<f32, 4, 8>::full(1.0);
        t.set_valid(2, 5).unwrap();
        assert_eq!(t.valid(), (2, 5));
        assert_eq!(t.get(1, 4), Some(1.0));
        assert_eq!(t.get(2, 0), None);
        assert_eq!(t.get(0, 5), None);
        assert_eq!(t.to_vec().len(), 10);
        assert_eq!(t.valid_row(1).map(<[f32]>::len), Some(5));
        assert_eq!(t.valid_row(2), None);
        assert_eq!(
            t.set_valid(5, 1),
            Err(Error::ValidRegion {
                rows: 5,
                cols: 1,
                max_rows: 4,
                max_cols: 8
            })
        );
        assert_eq!(t.valid(), (2, 5));
        assert!(t.clone().with_valid(4, 9).is_err());
        t.set(3, 7, 9.0).unwrap();
        assert_eq!(t.as_rows()[3][7], 9.0);
        assert!(t.set(4, 0, 1.0).is_err());
    }

    #[test]
    fn equality_ignores_outside_valid() {
        let mut a = Tile::<i32, 2, 2>::from_slice(&[1, 2, 3, 4]).unwrap();
        let mut b = Tile::<i32, 2, 2>::from_slice(&[1, 9, 9, 9]).unwrap();
        assert_ne!(a, b);
        a.set_valid(1, 1).unwrap();
        b.set_valid(1, 1).unwrap();
        assert_eq!(a, b);
        assert!(format!("{a:?}").contains("valid: [1, 1]"));
    }
}
