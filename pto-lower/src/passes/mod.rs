//! The passes over PTO-IR that prepare a verified module for lowering (seed 002 section 8),
//! in pipeline order: [`canonicalize`], [`views`], [`tile_tensors`], [`legalize`], [`tile_info`], [`events`], [`bufferize`]; the optional
//! [`pipeline`] (software pipelining, run before `insert-events` on request); the [`Pass`]
//! trait they implement and the [`PassManager`] that runs them.

pub mod bufferize;
pub mod canonicalize;
pub mod events;
pub mod inline_calls;
pub mod legalize;
mod manager;
pub mod outline;
mod pass;
pub mod pipeline;
pub mod tile_info;
pub mod tile_tensors;
pub mod views;

pub use manager::{PASSES, PIPELINE, PassManager, pass_by_name};
pub use pass::Pass;
