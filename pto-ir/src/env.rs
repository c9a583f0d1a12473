//! Environment tables (seed 001): variable name -> latest SSA value, one per scope.
//!
//! A binding is either *local* (the variable was declared in this scope, by a parameter or
//! a `let`) or an *update* of a variable declared in an enclosing scope (an assignment).
//! Only updates make a variable loop-carried or branch-merged; a shadowing `let` inside a
//! body creates a local binding that disappears with the scope, as in Rust.

use std::collections::HashMap;

use crate::entity::ValueId;

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
    /// Whether the variable may be assigned (`let mut`); meaningful for local bindings.
    pub mutable: bool,
}

/// An insertion-ordered name -> binding map (order makes iter_args deterministic).
#[derive(Clone, Debug, Default)]
pub struct EnvTable {
    entries: Vec<(String, Binding)>,
    index: HashMap<String, usize>,
}

impl EnvTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The binding of `name` in this scope only.
    pub fn get(&self, name: &str) -> Option<&Binding> {
        self.index.get(name).map(|&i| &self.entries[i].1)
    }

    /// Binds `name`, keeping its first insertion position when rebinding.
    pub fn set(&mut self, name: &str, binding: Binding) {
        match self.index.get(name) {
            Some(&i) => self.entries[i].1 = binding,
            None => {
                self.index.insert(name.to_string(), self.entries.len());
                self.entries.push((name.to_string(), binding));
            }
        }
    }

    /// Bindings in first-insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Binding)> {
        self.entries.iter().map(|(k, b)| (k.as_str(), b))
    }

    /// Number of bindings.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No bindings.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
