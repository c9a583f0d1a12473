//! Diagnostics: errors as data, each anchored to a source location.
//!
//! Builder, parser, verifier and passes collect every problem as a [`Diag`] instead of
//! stopping at the first. For parsed text, a `SpanId` is the byte offset of the offending
//! token and [`Diagnostics`] prints `line:col: message`; for macro-built modules the macro
//! maps the span back to the user's tokens.

use std::fmt;

use crate::entity::SpanId;

/// One error.
#[derive(Clone, Debug, PartialEq)]
pub struct Diag {
    /// Where.
    pub at: SpanId,
    /// What went wrong, naming the values, shapes or types involved.
    pub message: String,
    /// Further explanation (what would be accepted).
    pub notes: Vec<String>,
}

impl Diag {
    /// A diagnostic without notes.
    pub fn new(at: SpanId, message: impl Into<String>) -> Self {
        Diag {
            at,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// A line and column (both 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// Line.
    pub line: u32,
    /// Column, in characters.
    pub col: u32,
}

/// A set of diagnostics, with the source text when they came from parsed text.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    /// The errors, in the order found.
    pub diags: Vec<Diag>,
    /// Byte offset -> line/column table, when spans are offsets into a text.
    source: Option<std::sync::Arc<str>>,
}

impl Diagnostics {
    /// No errors.
    pub fn new() -> Self {
        Self::default()
    }

    /// Errors whose spans are byte offsets into `source`.
    pub fn with_source(diags: Vec<Diag>, source: &str) -> Self {
        Diagnostics {
            diags,
            source: Some(source.into()),
        }
    }

    /// Attaches the text the spans point into.
    pub fn set_source(&mut self, source: &str) {
        self.source = Some(source.into());
    }

    /// Adds one.
    pub fn push(&mut self, d: Diag) {
        self.diags.push(d);
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.diags.is_empty()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.diags.len()
    }

    /// Iterates.
    pub fn iter(&self) -> std::slice::Iter<'_, Diag> {
        self.diags.iter()
    }

    /// The line and column of a span, when the diagnostics carry their source text.
    pub fn line_col(&self, at: SpanId) -> Option<LineCol> {
        let src = self.source.as_deref()?;
        if !at.is_some() {
            return None;
        }
        let off = (at.0 as usize).min(src.len());
        let before = src.get(..off)?;
        let line = before.matches('\n').count() as u32 + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
        Some(LineCol { line, col })
    }

    /// `Ok(())` when empty.
    pub fn into_result(self) -> Result<(), Diagnostics> {
        if self.is_empty() { Ok(()) } else { Err(self) }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.diags {
            match self.line_col(d.at) {
                Some(lc) => write!(f, "{}:{}: {}", lc.line, lc.col, d.message)?,
                None => write!(f, "{}", d.message)?,
            }
            for n in &d.notes {
                write!(f, "\n  note: {n}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl From<Diag> for Diagnostics {
    fn from(d: Diag) -> Self {
        Diagnostics {
            diags: vec![d],
            source: None,
        }
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diag;
    type IntoIter = std::vec::IntoIter<Diag>;
    fn into_iter(self) -> Self::IntoIter {
        self.diags.into_iter()
    }
}
