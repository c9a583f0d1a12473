//! `pto`: PTO tile kernels written in Rust, run on the CPU.
//!
//! A kernel moves windows of host [`Tensor`]s into on-chip [`Tile`]s (`TLOAD`), computes on
//! tiles with the PTO instruction set ([`isa`]), and stores the results back (`TSTORE`).
//! `#[pto::kernel]` functions are compiled into calls of the [`isa`] functions; they can also
//! be called by hand:
//!
//! ```
//! use pto::isa::{tadds, tload, tstore};
//! use pto::{Tensor, Tile};
//!
//! # fn main() -> Result<(), pto::Error> {
//! let x = Tensor::from_vec((0..20).map(|v| v as f32).collect(), [4, 5])?;
//! let mut out = Tensor::<f32>::zeros([4, 5]);
//! let (mut t, mut y) = (Tile::<f32, 2, 4>::zeros(), Tile::<f32, 2, 4>::zeros());
//! for r in (0..4).step_by(2) {
//!     for c in (0..5).step_by(4) {
//!         tload(&mut t, &x, &[r, c])?; // the edge tile gets a 2 x 1 valid region
//!         tadds(&mut y, &t, 1.0);
//!         tstore(&mut out, &y, &[r, c])?; // and stores only that
//!     }
//! }
//! assert_eq!(out.get(&[3, 4]), Some(20.0));
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
// Input-driven paths return errors; a panic on user input is a bug.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod element;
mod error;
pub mod isa;
pub mod tensor;
mod tile;

pub use element::{Accumulate, Element, Float, Int, RoundMode};
pub use error::Error;
pub use half::{bf16, f16};
pub use tensor::Tensor;
pub use tile::Tile;

// lead: re-export pto_ir / pto_macros here
pub use pto_ir as ir;
pub use pto_macros::kernel;

/// The names a kernel author needs: `use pto::prelude::*;`.
pub mod prelude {
    pub use crate::{Tensor, Tile, bf16, f16};
}
