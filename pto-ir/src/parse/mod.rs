//! The statement-form parser (`shared/spec/ir-text.md` section 1): a hand-written lexer
//! (`lexer`) and a recursive-descent parser (`parser`), after `cranelift-reader`.
//!
//! [`parse()`] never panics: every input either gives a module or a [`Diagnostics`] whose
//! `Display` prints `line:col: message` for the first error.

pub(crate) mod lexer;
pub(crate) mod parser;

use crate::diag::Diagnostics;
use crate::module::ProgramModule;

/// Parses the statement text format into a module.
///
/// Accepts exactly what the printer writes (`format!("{m}")`), plus the seed-003 spellings
/// (see the `parser` module). Errors carry the byte offset of the offending token.
pub fn parse(text: &str) -> Result<ProgramModule, Diagnostics> {
    let lexed = lexer::lex(text);
    parser::Parser::new(lexed.tokens, lexed.kinds)
        .module()
        .map_err(|d| Diagnostics::with_source(vec![d], text))
}
