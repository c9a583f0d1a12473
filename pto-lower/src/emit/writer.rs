//! The line writer of the text emitters (PTO-ISA C++, MLIR): indented lines appended to one
//! `String`, as naga's `back` writers print.

use std::fmt::{self, Write as _};

use pto_ir::typefmt::push_indent;

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
    /// Starts a line at `level`: writes its indentation, two spaces a level.
    pub fn indent(&mut self, level: Level) {
        push_indent(&mut self.text, level.0);
    }

    /// Ends the current line.
    pub fn end(&mut self) {
        self.text.push('\n');
    }

    /// Writes one whole line at `level`.
    pub fn line(&mut self, level: Level, s: &str) {
        self.indent(level);
        self.text.push_str(s);
        self.end();
    }

    /// Writes `s`.
    pub fn put(&mut self, s: &str) {
        self.text.push_str(s);
    }

    /// Writes `", "` before every item of a list but the first (`i` is the item's index).
    pub fn sep(&mut self, i: usize) {
        if i > 0 {
            self.text.push_str(", ");
        }
    }

    /// Writes an unsigned number.
    pub fn put_u64(&mut self, v: u64) {
        let _ = write!(self.text, "{}", v);
    }

    /// Writes a signed number.
    pub fn put_i64(&mut self, v: i64) {
        let _ = write!(self.text, "{}", v);
    }
}

/// For the rare pieces that need `write!` (floats).
impl fmt::Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}
