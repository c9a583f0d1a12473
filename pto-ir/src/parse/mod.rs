//! The statement-form parser.

use crate::diag::{Diag, Diagnostics};
use crate::entity::SpanId;
use crate::module::ProgramModule;

/// Parses the statement text format into a module.
pub fn parse(text: &str) -> Result<ProgramModule, Diagnostics> {
    let _ = text;
    Err(Diagnostics::from(Diag::new(SpanId(0), "parser not written yet")))
}
