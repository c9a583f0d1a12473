//! Environment tables (seed 001): variable name -> latest SSA value, one per scope.
//!
//! A scope holds two kinds of binding. *Locals* are variables declared in this scope (a
//! parameter, a `let`); *updates* record assignments, made in this scope, to variables
//! declared in an enclosing one. Only updates make a variable loop-carried or
//! branch-merged; a shadowing `let` inside a body makes a local that disappears with the
//! scope, as in Rust. Lookups see locals first: once `let x` shadows an outer `x` in a
//! scope, later assignments to `x` there update the local, while an earlier `x = ..`
//! remains recorded as an update of the outer `x`.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::entity::ValueId;

/// A variable or value name, shared (not copied) between the environment tables, the
/// values named after the variable and the builder's bookkeeping.
pub type Name = Arc<str>;

/// How a name is bound in a scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// Declared in this scope.
    Local,
    /// Assigned here, declared in an enclosing scope.
    Update,
}

/// One binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The current value of the variable.
    pub value: ValueId,
    /// Local or update.
    pub kind: BindingKind,
    /// Whether the variable may be assigned (`let mut`); meaningful for locals.
    pub mutable: bool,
}

/// An insertion-ordered map (order makes iter_args and if results deterministic).
///
/// Most scopes bind a handful of names, which a scan finds faster than a hash; the index
/// is built only once a scope holds more than [`Ordered::SCAN`] names. Names are shared
/// between the entries and the index, so indexing a name copies no string.
#[derive(Clone, Debug, Default)]
struct Ordered {
    entries: Vec<(Arc<str>, Binding)>,
    index: FxHashMap<Arc<str>, usize>,
}

impl Ordered {
    /// A kernel's input scope holds its parameters and symbolic dimensions (a dozen in a
    /// typical one): scanned, it needs no index at all. The scan compares lengths and
    /// first bytes, so it costs about what hashing the name would up to this size.
    const SCAN: usize = 16;

    fn position(&self, name: &str) -> Option<usize> {
        if self.entries.is_empty() {
            return None;
        }
        self.find(name)
    }

    fn find(&self, name: &str) -> Option<usize> {
        if self.entries.len() <= Self::SCAN {
            // Names that differ mostly differ in length or first byte, which settles them
            // without calling `memcmp`.
            let first = name.as_bytes().first();
            self.entries.iter().position(|(k, _)| {
                k.len() == name.len() && k.as_bytes().first() == first && **k == *name
            })
        } else {
            self.index.get(name).copied()
        }
    }

    fn get(&self, name: &str) -> Option<&Binding> {
        self.position(name).map(|i| &self.entries[i].1)
    }

    /// Binds `name`; a `&str` is copied only when the scope does not bind it yet.
    fn set<N: AsRef<str> + Into<Name>>(&mut self, name: N, b: Binding) {
        match self.position(name.as_ref()) {
            Some(i) => self.entries[i].1 = b,
            None => {
                let name: Name = name.into();
                self.entries.push((Arc::clone(&name), b));
                if self.entries.len() > Self::SCAN {
                    if self.index.is_empty() {
                        let index = self.entries.iter().enumerate();
                        self.index = index.map(|(i, (k, _))| (Arc::clone(k), i)).collect();
                    } else {
                        self.index.insert(name, self.entries.len() - 1);
                    }
                }
            }
        }
    }
}

/// The environment table of one scope.
#[derive(Clone, Debug, Default)]
pub struct EnvTable {
    locals: Ordered,
    updates: Ordered,
}

impl EnvTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The binding `name` resolves to in this scope (locals shadow updates).
    pub fn get(&self, name: &str) -> Option<&Binding> {
        self.locals.get(name).or_else(|| self.updates.get(name))
    }

    /// The local declaration of `name` in this scope.
    pub fn local(&self, name: &str) -> Option<&Binding> {
        self.locals.get(name)
    }

    /// The update of an enclosing `name` recorded in this scope.
    pub fn update(&self, name: &str) -> Option<&Binding> {
        self.updates.get(name)
    }

    /// Binds `name` (as a local or an update, per `binding.kind`).
    pub fn set(&mut self, name: &str, binding: Binding) {
        self.set_as(name, binding);
    }

    /// [`EnvTable::set`] with a shared name, kept as is (no copy).
    pub fn set_named(&mut self, name: Name, binding: Binding) {
        self.set_as(name, binding);
    }

    /// Room for `n` more locals (a function's parameters, declared at once).
    pub fn reserve_locals(&mut self, n: usize) {
        self.locals.entries.reserve(n);
    }

    /// [`EnvTable::set`] for a borrowed or a shared name: a `&str` is copied only when
    /// the scope does not bind it yet, a [`Name`] is kept as is.
    pub fn set_as<N: AsRef<str> + Into<Name>>(&mut self, name: N, binding: Binding) {
        match binding.kind {
            BindingKind::Local => self.locals.set(name, binding),
            BindingKind::Update => self.updates.set(name, binding),
        }
    }

    /// Updates of enclosing variables, in first-assignment order.
    pub fn updates(&self) -> impl Iterator<Item = (&str, ValueId)> {
        self.updates.entries.iter().map(|(k, b)| (&**k, b.value))
    }

    /// Updates of enclosing variables with their shared names, in first-assignment order.
    pub fn update_names(&self) -> impl Iterator<Item = (&Name, ValueId)> {
        self.updates.entries.iter().map(|(k, b)| (k, b.value))
    }

    /// Local declarations with their shared names, in declaration order.
    pub fn local_names(&self) -> impl Iterator<Item = (&Name, &Binding)> {
        self.locals.entries.iter().map(|(k, b)| (k, b))
    }

    /// The shared name and binding `name` resolves to in this scope (locals shadow updates).
    pub fn get_named(&self, name: &str) -> Option<(&Name, &Binding)> {
        let (l, u) = (&self.locals, &self.updates);
        let entry = l
            .position(name)
            .map(|i| &l.entries[i])
            .or_else(|| u.position(name).map(|i| &u.entries[i]))?;
        Some((&entry.0, &entry.1))
    }

    /// Local declarations, in declaration order.
    pub fn locals(&self) -> impl Iterator<Item = (&str, &Binding)> {
        self.locals.entries.iter().map(|(k, b)| (&**k, b))
    }

    /// Every binding: locals then updates.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Binding)> {
        self.locals
            .entries
            .iter()
            .chain(&self.updates.entries)
            .map(|(k, b)| (&**k, b))
    }

    /// Number of bindings.
    pub fn len(&self) -> usize {
        self.locals.entries.len() + self.updates.entries.len()
    }

    /// No bindings.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::EntityId;

    fn local(v: usize) -> Binding {
        Binding {
            value: ValueId::new(v),
            kind: BindingKind::Local,
            mutable: true,
        }
    }

    /// Lookups agree before and after the scope grows past the scanned size, and the
    /// insertion order survives updates.
    #[test]
    fn lookups_and_order_across_the_index_threshold() {
        let mut t = EnvTable::new();
        let names: Vec<String> = (0..3 * Ordered::SCAN).map(|i| format!("n{i}")).collect();
        for (i, n) in names.iter().enumerate() {
            t.set(n, local(i));
            for (j, m) in names.iter().enumerate().take(i + 1) {
                assert_eq!(t.local(m).map(|b| b.value), Some(ValueId::new(j)));
            }
        }
        t.set("n3", local(100));
        t.set("n20", local(200));
        assert_eq!(t.get("n3").map(|b| b.value), Some(ValueId::new(100)));
        assert_eq!(t.get("n20").map(|b| b.value), Some(ValueId::new(200)));
        assert!(t.get("missing").is_none());
        let order: Vec<&str> = t.locals().map(|(k, _)| k).collect();
        assert_eq!(order, names.iter().map(String::as_str).collect::<Vec<_>>());
    }
}
