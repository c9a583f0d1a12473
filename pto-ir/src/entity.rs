//! Typed ids and the arenas they index (cranelift `entity` style).
//!
//! Every IR entity (value, operation, statement, block, function) lives in a per-module
//! [`Arena`] and is named by a `u32` newtype. Ids are only meaningful for the module that
//! made them; the verifier checks range before it indexes. Facts a pass or the verifier
//! keeps per entity live in a [`SecondaryMap`] or an [`EntitySet`] indexed by the same ids,
//! which costs an index where a hash map would hash.

use std::fmt;
use std::marker::PhantomData;

/// A `u32` newtype that indexes an [`Arena`].
pub trait EntityId: Copy + Eq {
    /// Wraps an index.
    fn new(index: usize) -> Self;
    /// The index.
    fn index(self) -> usize;
}

macro_rules! entity_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl EntityId for $name {
            fn new(index: usize) -> Self {
                // Arenas never approach 2^32 entries: a module that large is rejected far earlier.
                $name(u32::try_from(index).unwrap_or(u32::MAX))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity_id!(
    /// An SSA value.
    ValueId,
    "v"
);
entity_id!(
    /// An operation.
    OpId,
    "op"
);
entity_id!(
    /// A statement.
    StmtId,
    "stmt"
);
entity_id!(
    /// A compound statement (a scope holding a statement list).
    BlockId,
    "block"
);
entity_id!(
    /// A function of a module.
    FuncId,
    "func"
);

/// A dense table indexed by a typed id.
#[derive(Clone)]
pub struct Arena<K, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityId, V> Arena<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        Arena {
            items: Vec::new(),
            _key: PhantomData,
        }
    }

    /// Appends an item and returns its id.
    pub fn push(&mut self, v: V) -> K {
        let id = K::new(self.items.len());
        self.items.push(v);
        id
    }

    /// The item, or `None` when the id is out of range.
    pub fn get(&self, k: K) -> Option<&V> {
        self.items.get(k.index())
    }

    /// The item mutably, or `None` when the id is out of range.
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.items.get_mut(k.index())
    }

    /// Makes room for at least `additional` more items.
    pub fn reserve(&mut self, additional: usize) {
        self.items.reserve(additional);
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `k` names an item of this arena.
    pub fn contains(&self, k: K) -> bool {
        k.index() < self.items.len()
    }

    /// Ids and items in creation order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// Ids in creation order.
    pub fn keys(&self) -> impl Iterator<Item = K> + use<K, V> {
        (0..self.items.len()).map(K::new)
    }
}

impl<K: EntityId, V> Default for Arena<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityId, V> std::ops::Index<K> for Arena<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.items[k.index()]
    }
}

impl<K: EntityId, V> std::ops::IndexMut<K> for Arena<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.items[k.index()]
    }
}

impl<K: EntityId + fmt::Debug, V: fmt::Debug> fmt::Debug for Arena<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A table from the ids of one arena to values, dense like the arena (cranelift's
/// `SecondaryMap`): ids never written read as the default, and writing grows the table, so
/// it also covers ids made after it was created.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K, V> {
    items: Vec<V>,
    default: V,
    _key: PhantomData<K>,
}

impl<K: EntityId, V: Clone> SecondaryMap<K, V> {
    /// A table where every id reads as `default`.
    pub fn with_default(default: V) -> Self {
        SecondaryMap {
            items: Vec::new(),
            default,
            _key: PhantomData,
        }
    }

    /// A table where every id reads as `default`, with the ids below `len` (an arena's
    /// length) stored up front, so writing them never grows the table.
    pub fn with_len(len: usize, default: V) -> Self {
        SecondaryMap {
            items: vec![default.clone(); len],
            default,
            _key: PhantomData,
        }
    }
}

impl<K: EntityId, V: Clone + Default> SecondaryMap<K, V> {
    /// A table where every id reads as `V::default()`.
    pub fn new() -> Self {
        Self::with_default(V::default())
    }
}

impl<K: EntityId, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityId, V: Clone> SecondaryMap<K, V> {
    /// Stores the ids up to `index`, reading as the default.
    fn grow(&mut self, index: usize) {
        self.items.resize(index + 1, self.default.clone());
    }
}

impl<K: EntityId, V: Clone> std::ops::Index<K> for SecondaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        self.items.get(k.index()).unwrap_or(&self.default)
    }
}

impl<K: EntityId, V: Clone> std::ops::IndexMut<K> for SecondaryMap<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.items.len() {
            self.grow(i);
        }
        &mut self.items[i]
    }
}

/// A set of the ids of one arena, one flag per id.
#[derive(Clone, Debug)]
pub struct EntitySet<K> {
    flags: SecondaryMap<K, bool>,
}

impl<K: EntityId> EntitySet<K> {
    /// An empty set.
    pub fn new() -> Self {
        EntitySet {
            flags: SecondaryMap::new(),
        }
    }

    /// An empty set with the ids below `len` (an arena's length) stored up front.
    pub fn with_len(len: usize) -> Self {
        EntitySet {
            flags: SecondaryMap::with_len(len, false),
        }
    }

    /// Whether `k` is in the set.
    pub fn contains(&self, k: K) -> bool {
        self.flags[k]
    }

    /// Adds `k`; `true` when it was not in the set before.
    pub fn insert(&mut self, k: K) -> bool {
        !std::mem::replace(&mut self.flags[k], true)
    }

    /// Removes `k`.
    pub fn remove(&mut self, k: K) {
        if self.flags[k] {
            self.flags[k] = false;
        }
    }
}

impl<K: EntityId> Default for EntitySet<K> {
    fn default() -> Self {
        Self::new()
    }
}

/// An opaque source location: the macro maps it to a `proc_macro2::Span`, the parser to a
/// line and column. `SpanId::NONE` means "no location".
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct SpanId(pub u32);

impl SpanId {
    /// No source location.
    pub const NONE: SpanId = SpanId(u32::MAX);

    /// Whether this names a location.
    pub fn is_some(self) -> bool {
        self != SpanId::NONE
    }
}

impl Default for SpanId {
    fn default() -> Self {
        SpanId::NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unwritten ids read as the default, writing past the end grows the table, and a set
    /// reports whether an insert was new.
    #[test]
    fn secondary_maps_and_sets_read_defaults_and_grow() {
        let mut m: SecondaryMap<ValueId, u32> = SecondaryMap::with_len(2, 7);
        assert_eq!(m[ValueId::new(0)], 7);
        assert_eq!(m[ValueId::new(50)], 7);
        m[ValueId::new(5)] = 3;
        assert_eq!(m[ValueId::new(5)], 3);
        assert_eq!(m[ValueId::new(4)], 7);
        let mut s: EntitySet<OpId> = EntitySet::new();
        assert!(!s.contains(OpId::new(9)));
        assert!(s.insert(OpId::new(9)));
        assert!(!s.insert(OpId::new(9)));
        assert!(s.contains(OpId::new(9)));
        s.remove(OpId::new(9));
        s.remove(OpId::new(100));
        assert!(!s.contains(OpId::new(9)));
    }
}
