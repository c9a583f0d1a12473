//! The pass manager and the pass registry (seed 002 section 8).
//!
//! The [`PassManager`] runs a list of passes in order, optionally verifying the module after
//! each one, and stops at the first pass that reports errors. [`pass_by_name`] is the one
//! place that knows every pass, so the passes themselves only import the [`Pass`] trait.

use pto_ir::{Diagnostics, ProgramModule};

use super::Pass;
use super::{
    bufferize, canonicalize, events, legalize, outline, pipeline, tile_info, tile_tensors, views,
};

/// Runs passes in order.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    verify_each: bool,
}

impl Default for PassManager {
    fn default() -> Self {
        Self::new()
    }
}

impl PassManager {
    /// An empty manager that verifies the module after every pass.
    pub fn new() -> Self {
        PassManager {
            passes: Vec::new(),
            verify_each: true,
        }
    }

    /// The lowering pipeline: canonicalize, canonicalize views, tile tensor ops, legalize, infer tile info, insert events,
    /// bufferize.
    pub fn lowering_pipeline() -> Self {
        let mut pm = PassManager::new();
        for name in PIPELINE {
            if let Some(p) = pass_by_name(name) {
                pm.add(p);
            }
        }
        pm
    }

    /// Appends a pass.
    pub fn add(&mut self, pass: Box<dyn Pass>) -> &mut Self {
        self.passes.push(pass);
        self
    }

    /// Whether to run the verifier after each pass (on by default).
    pub fn verify_each(&mut self, on: bool) -> &mut Self {
        self.verify_each = on;
        self
    }

    /// The names of the passes, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// Runs every pass in order; stops at the first failure.
    pub fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        for p in &self.passes {
            p.run(m)?;
            if self.verify_each {
                pto_ir::verify(m)?;
            }
        }
        Ok(())
    }
}

/// The pass names of the lowering pipeline, in order.
pub const PIPELINE: [&str; 7] = [
    "canonicalize",
    "canonicalize-views",
    "tile-tensor-ops",
    "legalize",
    "infer-tile-info",
    "insert-events",
    "bufferize",
];

/// Every pass [`pass_by_name`] knows: the pipeline's, then the optional ones.
pub const PASSES: [&str; 9] = [
    "canonicalize",
    "canonicalize-views",
    "tile-tensor-ops",
    "legalize",
    "infer-tile-info",
    "insert-events",
    "bufferize",
    "outline-incore",
    "software-pipeline",
];

/// A pass by its name: the pipeline's, and the optional `software-pipeline`.
pub fn pass_by_name(name: &str) -> Option<Box<dyn Pass>> {
    Some(match name {
        "canonicalize" => Box::new(canonicalize::Canonicalize),
        "canonicalize-views" => Box::new(views::CanonicalizeViews),
        "tile-tensor-ops" => Box::new(tile_tensors::TileTensorOps),
        "legalize" => Box::new(legalize::Legalize),
        "infer-tile-info" => Box::new(tile_info::InferTileInfo),
        "insert-events" => Box::new(events::InsertEvents),
        "bufferize" => Box::new(bufferize::Bufferize),
        // Not in the pipeline: `compile_program` runs it first, so a kernel on its own keeps
        // its scopes (lowered in line).
        "outline-incore" => Box::new(outline::OutlineIncore),
        "software-pipeline" => Box::new(pipeline::SoftwarePipeline),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_pass_exists_under_its_name() {
        for name in PASSES {
            assert_eq!(pass_by_name(name).map(|p| p.name()), Some(name));
        }
        assert!(PIPELINE.iter().all(|p| PASSES.contains(p)));
    }
}
