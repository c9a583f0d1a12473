//! The emitters, one writer per target (naga `back/` style): Rust host code ([`rust`]),
//! seed-002 MLIR text in the custom and generic forms ([`mlir`]), PTO-ISA C++ ([`cpp`]).

pub mod cpp;
pub mod mlir;
pub mod rust;
pub mod writer;
