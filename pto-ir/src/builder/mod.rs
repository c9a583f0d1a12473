//! The IRBuilder (seed 001).

/// Builds IR into a module.
pub struct IRBuilder;
/// Builder state.
pub struct IRBuilderContext;
