//! The pass interface (seed 002 section 8).
//!
//! A [`Pass`] rewrites or annotates a whole [`ProgramModule`] in place and reads everything it
//! needs from the module, so each pass can run alone (the file tests run one pass on a parsed
//! `.pto` file).

use pto_ir::{Diagnostics, ProgramModule};

/// One transformation or analysis over a module.
pub trait Pass {
    /// The pass's name (`canonicalize`, `infer-tile-info`, ...), as used by the file tests.
    fn name(&self) -> &'static str;

    /// The passes whose results this one reads. It checks the module for them and refuses
    /// with an error naming the missing pass, never silently doing nothing.
    fn requires(&self) -> &'static [&'static str] {
        &[]
    }

    /// Runs the pass. Errors are diagnostics anchored at the offending op's span.
    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics>;
}
