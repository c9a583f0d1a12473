//! A text writer with an indentation level, shared by the text emitters.

use std::fmt::Write;

/// Indentation depth (two spaces per level).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level(pub usize);

impl Level {
    /// One level deeper.
    pub fn next(self) -> Level {
        Level(self.0 + 1)
    }
}

/// Accumulates lines of text.
#[derive(Default, Debug)]
pub struct Out {
    /// The text so far.
    pub text: String,
}

impl Out {
    /// Writes one line at `level`.
    pub fn line(&mut self, level: Level, s: impl AsRef<str>) {
        for _ in 0..level.0 {
            self.text.push_str("  ");
        }
        self.text.push_str(s.as_ref());
        self.text.push('\n');
    }

    /// Writes formatted text without a newline.
    pub fn raw(&mut self, s: impl AsRef<str>) {
        let _ = write!(self.text, "{}", s.as_ref());
    }
}
