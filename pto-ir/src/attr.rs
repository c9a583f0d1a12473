//! Attributes: the `{key=value, ...}` dictionaries on ops, functions and programs.

use std::borrow::Cow;

use crate::dtype::DataType;
use crate::entity::ValueId;

/// An attribute name. The builder and the passes use a fixed set of names (`shape`,
/// `offset`, `dtype` ...), borrowed from static strings; the parser owns what it reads.
pub type AttrKey = Cow<'static, str>;

/// One dictionary entry.
pub type AttrEntry = (AttrKey, Attr);

/// One attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string (printed quoted).
    Str(String),
    /// A boolean.
    Bool(bool),
    /// An SSA value (a use of that value).
    Value(ValueId),
    /// A bare word: a dtype, a memory space, a round mode ...
    Ident(String),
    /// A function symbol `@name`.
    Symbol(String),
    /// A list `[a, b]`.
    List(Vec<Attr>),
    /// A map `{ K=v, ... }`.
    Map(Vec<AttrEntry>),
}

impl Attr {
    /// A list of integers.
    pub fn ints(v: &[u64]) -> Attr {
        Attr::List(v.iter().map(|&x| Attr::Int(x as i64)).collect())
    }

    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Attr::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The list, if this is one.
    pub fn as_list(&self) -> Option<&[Attr]> {
        match self {
            Attr::List(v) => Some(v),
            _ => None,
        }
    }

    /// The word, if this is an identifier.
    pub fn as_ident(&self) -> Option<&str> {
        match self {
            Attr::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// The dtype named by an identifier.
    pub fn as_dtype(&self) -> Option<DataType> {
        self.as_ident().and_then(DataType::from_name)
    }

    /// Every value used inside this attribute, in order.
    pub fn for_each_value(&self, f: &mut impl FnMut(ValueId)) {
        match self {
            Attr::Value(v) => f(*v),
            Attr::List(items) => items.iter().for_each(|a| a.visit_item(f)),
            Attr::Map(items) => items.iter().for_each(|(_, a)| a.visit_item(f)),
            _ => {}
        }
    }

    /// [`Attr::for_each_value`] on an item of a list or map, recursing only into nested
    /// lists and maps: most items are integers (shapes, offsets), which name no value.
    fn visit_item(&self, f: &mut impl FnMut(ValueId)) {
        match self {
            Attr::Value(v) => f(*v),
            Attr::List(_) | Attr::Map(_) => self.for_each_value(f),
            _ => {}
        }
    }

    /// Rewrites every value used inside this attribute.
    pub fn map_values(&mut self, f: &mut impl FnMut(ValueId) -> ValueId) {
        match self {
            Attr::Value(v) => *v = f(*v),
            Attr::List(items) => items.iter_mut().for_each(|a| a.map_values(f)),
            Attr::Map(items) => items.iter_mut().for_each(|(_, a)| a.map_values(f)),
            _ => {}
        }
    }
}

/// An ordered attribute dictionary.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Attrs(pub Vec<AttrEntry>);

impl Attrs {
    /// An empty dictionary.
    pub fn new() -> Self {
        Attrs(Vec::new())
    }

    /// A dictionary of `entries` (distinct keys, in order).
    pub fn of<const N: usize>(entries: [(&'static str, Attr); N]) -> Self {
        Attrs(
            entries
                .into_iter()
                .map(|(k, v)| (AttrKey::Borrowed(k), v))
                .collect(),
        )
    }

    /// Looks a key up.
    pub fn get(&self, key: &str) -> Option<&Attr> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets a key, replacing an existing entry in place.
    pub fn set(&mut self, key: impl Into<AttrKey>, value: Attr) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Builder form of [`Attrs::set`].
    pub fn with(mut self, key: impl Into<AttrKey>, value: Attr) -> Self {
        self.set(key, value);
        self
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every value used in the dictionary.
    pub fn for_each_value(&self, f: &mut impl FnMut(ValueId)) {
        self.0.iter().for_each(|(_, a)| a.for_each_value(f));
    }

    /// Rewrites every value used in the dictionary.
    pub fn map_values(&mut self, f: &mut impl FnMut(ValueId) -> ValueId) {
        self.0.iter_mut().for_each(|(_, a)| a.map_values(f));
    }
}
