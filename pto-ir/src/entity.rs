//! Typed ids and the arenas they index (cranelift `entity` style).
//!
//! Every IR entity (value, operation, statement, block, function) lives in a per-module
//! [`Arena`] and is named by a `u32` newtype. Ids are only meaningful for the module that
//! made them; the verifier checks range before it indexes.

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
