//! `pto`: PTO tile kernels written in Rust, run on the CPU.
//!
//! A kernel is a Rust function under [`#[pto::kernel]`](macro@kernel). Its body is parsed at
//! compile time, built into PTO-IR (a tile-level SSA IR), verified and lowered; the macro
//! replaces it with a host function of the same name that runs the lowered kernel on the CPU,
//! and a module of the same name holding the IR text (`IR`), the lowered text (`LOWERED`), the
//! PTO-ISA C++ (`CPP`) and `program()`. The kernel language is described in `docs/guide.md`.
//!
//! ```
//! use pto::prelude::*;
//!
//! /// out[b, :] = x[b, :] * scale * 3.14, one row at a time.
//! #[pto::kernel]
//! pub fn scale_rows(x: &Tensor<f32, B, 128>, scale: f32, out: &mut Tensor<f32, B, 128>) {
//!     for b in 0..B {
//!         let row = x.load::<1, 128>([b, 0]);
//!         let y = row * scale * 3.14;
//!         out.store([b, 0], y);
//!     }
//! }
//!
//! # fn main() -> Result<(), pto::Error> {
//! let x = Tensor::from_vec(vec![1.0f32; 4 * 128], [4, 128])?;
//! let mut out = Tensor::<f32>::zeros([4, 128]);
//! scale_rows(&x, 2.0, &mut out)?; // B = 4, bound from the tensors' shapes
//! assert_eq!(out.get(&[3, 127]), Some(1.0 * 2.0 * 3.14));
//!
//! // A shape that contradicts the signature is an error, not a panic.
//! let mut wrong = Tensor::<f32>::zeros([4, 64]);
//! assert!(matches!(
//!     scale_rows(&x, 2.0, &mut wrong),
//!     Err(pto::Error::Shape { param: "out", dim: 1, expected: 128, actual: 64 })
//! ));
//!
//! println!("{}", scale_rows::IR); // the verified PTO-IR, built at compile time
//! assert!(scale_rows::IR.contains("statement.for %b_6 = %4 to %B_1 step %5"));
//! # Ok(())
//! # }
//! ```
//!
//! Underneath, a kernel moves windows of host [`Tensor`]s into on-chip [`Tile`]s (`TLOAD`),
//! computes on tiles with the PTO instruction set ([`isa`]), and stores the results back
//! (`TSTORE`). `#[pto::kernel]` functions are compiled into calls of the [`isa`] functions;
//! they can also be called by hand:
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

pub mod budget;
pub mod element;
mod error;
pub mod isa;
pub mod par;
mod shapes;
pub mod tensor;
mod tile;

pub use budget::Budget;
pub use element::{Accumulate, Element, Float, Int, Round, RoundMode};
pub use error::Error;
pub use half::{bf16, f16};
pub use shapes::bind_shapes;
#[doc(hidden)]
pub use shapes::offset;
pub use tensor::Tensor;
pub use tile::Tile;

// lead: re-export pto_ir / pto_macros here
pub use pto_ir as ir;
pub use pto_macros::{kernel, program};

/// The names a kernel author needs: `use pto::prelude::*;`.
pub mod prelude {
    pub use crate::{Round, Tensor, Tile, bf16, f16};
}
