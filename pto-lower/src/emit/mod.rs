//! The emitters, one writer per target (naga `back/` style): Rust host code ([`rust`]),
//! seed-002 MLIR text in the custom and generic forms ([`mlir`]), PTO-ISA C++ ([`cpp`]), and the
//! statement-level module as PyPTO Python ([`pypto`]).

pub mod cpp;
pub mod mlir;
pub mod pypto;
pub mod rust;
pub mod writer;
