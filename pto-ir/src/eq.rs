//! Structural equality and hashing (seed 004).

use crate::module::ProgramModule;

/// Whether two modules are equal up to value ids and names.
pub fn structurally_equal(a: &ProgramModule, b: &ProgramModule) -> bool {
    let _ = (a, b);
    false
}
