//! `outline-incore`: placeholder.
use pto_ir::{Diagnostics, ProgramModule};
use super::Pass;
/// Outlines `incore` scopes.
pub struct OutlineIncore;
impl Pass for OutlineIncore {
    fn name(&self) -> &'static str { "outline-incore" }
    fn run(&self, _m: &mut ProgramModule) -> Result<(), Diagnostics> { Ok(()) }
}
