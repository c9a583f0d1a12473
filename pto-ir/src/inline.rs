//! [`InlineVec`]: a short list stored inside its owner, for the IR's many small lists.
//!
//! Shapes have rank 1 to 4 and an op has one to three operands and at most a couple of
//! results, yet every one of them used to be its own heap block: building a kernel's module
//! spent a large share of its time in `malloc` / `free` for lists of one to four words.
//! An `InlineVec<T, N>` keeps up to `N` items in place (a [`smallvec::SmallVec`] with the
//! `union` layout, so an `InlineVec<ValueId, 4>` is the size of a `Vec`) and moves to the
//! heap only past `N`, so malformed input (a rank-7 shape in IR text) is still represented
//! and reported by the verifier rather than refused by the data structure.
//!
//! It derefs to a slice and converts from `Vec`, arrays, slices and iterators, so code
//! written against the former `Vec` fields reads and builds them unchanged; `to_vec()`
//! gives a `Vec` where one is needed.

use std::fmt;
use std::ops::{Deref, DerefMut};

use smallvec::SmallVec;

/// A list of `T` holding up to `N` items inline (see the module doc).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InlineVec<T, const N: usize>(SmallVec<[T; N]>);

impl<T, const N: usize> InlineVec<T, N> {
    /// An empty list (no allocation).
    pub fn new() -> Self {
        InlineVec(SmallVec::new())
    }

    /// An empty list with room for `n` items (allocates only when `n > N`).
    pub fn with_capacity(n: usize) -> Self {
        InlineVec(SmallVec::with_capacity(n))
    }

    /// Appends an item.
    pub fn push(&mut self, item: T) {
        self.0.push(item);
    }

    /// Removes and returns the last item.
    pub fn pop(&mut self) -> Option<T> {
        self.0.pop()
    }

    /// Inserts an item at `index`, shifting the rest right.
    pub fn insert(&mut self, index: usize, item: T) {
        self.0.insert(index, item);
    }

    /// Removes the item at `index`, shifting the rest left.
    pub fn remove(&mut self, index: usize) -> T {
        self.0.remove(index)
    }

    /// Shortens the list to `len` items.
    pub fn truncate(&mut self, len: usize) {
        self.0.truncate(len);
    }

    /// Removes every item.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Keeps the items for which `f` is true, in order.
    pub fn retain(&mut self, mut f: impl FnMut(&T) -> bool) {
        self.0.retain(|x| f(x));
    }

    /// The items as a slice.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// The items as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.0
    }

    /// The items as a `Vec`.
    pub fn into_vec(self) -> Vec<T> {
        self.0.into_vec()
    }

    /// A list of copies of `items`: one block copy, where `Clone` / `collect` go through
    /// the generic `extend` (a loop per element type, list size and iterator, several
    /// hundred bytes of code each, on the paths that copy shapes and operand lists).
    pub fn copied_from(items: &[T]) -> Self
    where
        T: Copy,
    {
        InlineVec(SmallVec::from_slice(items))
    }
}

impl<T, const N: usize> Default for InlineVec<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize> Deref for InlineVec<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T, const N: usize> DerefMut for InlineVec<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

/// Printed as a list, like the `Vec` it replaces.
impl<T: fmt::Debug, const N: usize> fmt::Debug for InlineVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T, const N: usize> From<Vec<T>> for InlineVec<T, N> {
    fn from(v: Vec<T>) -> Self {
        // Items are moved inline when they fit, so the `Vec`'s block is freed now rather
        // than kept for the life of the IR.
        if v.len() <= N {
            InlineVec(v.into_iter().collect())
        } else {
            InlineVec(SmallVec::from_vec(v))
        }
    }
}

/// From an array of `Copy` items (operand lists, shapes): a block copy (see
/// [`InlineVec::copied_from`]), one copy of the code per list type rather than per array
/// length.
impl<T: Copy, const N: usize, const M: usize> From<[T; M]> for InlineVec<T, N> {
    fn from(a: [T; M]) -> Self {
        Self::copied_from(&a)
    }
}

impl<T: Clone, const N: usize> From<&[T]> for InlineVec<T, N> {
    fn from(s: &[T]) -> Self {
        InlineVec(SmallVec::from(s))
    }
}

impl<T, const N: usize> From<InlineVec<T, N>> for Vec<T> {
    fn from(v: InlineVec<T, N>) -> Self {
        v.into_vec()
    }
}

impl<T, const N: usize> FromIterator<T> for InlineVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        InlineVec(SmallVec::from_iter(iter))
    }
}

impl<T, const N: usize> Extend<T> for InlineVec<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl<T, const N: usize> IntoIterator for InlineVec<T, N> {
    type Item = T;
    type IntoIter = smallvec::IntoIter<[T; N]>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a InlineVec<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a mut InlineVec<T, N> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T]> for InlineVec<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<&[T]> for InlineVec<T, N> {
    fn eq(&self, other: &&[T]) -> bool {
        self.as_slice() == *other
    }
}

impl<T: PartialEq, const N: usize, const M: usize> PartialEq<[T; M]> for InlineVec<T, N> {
    fn eq(&self, other: &[T; M]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<Vec<T>> for InlineVec<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq, const N: usize> PartialEq<InlineVec<T, N>> for Vec<T> {
    fn eq(&self, other: &InlineVec<T, N>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq, const N: usize> PartialEq<InlineVec<T, N>> for [T] {
    fn eq(&self, other: &InlineVec<T, N>) -> bool {
        self == other.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Short lists stay inline, long ones spill, and both behave like the `Vec` they replace.
    #[test]
    fn inline_and_spilled_lists_act_like_vecs() {
        let mut s: InlineVec<u64, 4> = InlineVec::from(vec![16, 32]);
        assert!(!s.0.spilled());
        assert_eq!(s, [16, 32]);
        assert_eq!(s, vec![16, 32]);
        assert_eq!(format!("{s:?}"), format!("{:?}", vec![16, 32]));
        s.extend([1, 2, 3]);
        assert!(s.0.spilled());
        assert_eq!(s.len(), 5);
        assert_eq!(s.iter().sum::<u64>(), 54);
        assert_eq!(s.to_vec(), vec![16, 32, 1, 2, 3]);
        let t: InlineVec<u64, 4> = (1..=3).collect();
        assert_eq!(&t[1..], &[2, 3]);
        assert_eq!(
            std::mem::size_of::<InlineVec<u32, 4>>(),
            std::mem::size_of::<Vec<u32>>()
        );
    }
}
