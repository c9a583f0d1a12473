//! The statement-form printer (`shared/spec/ir-text.md` section 1).

use std::fmt;

use crate::module::ProgramModule;

impl fmt::Display for ProgramModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "program.module @{} {{ /* printer not written yet */ }}", self.name)
    }
}
