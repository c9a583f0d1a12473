//! The runtime's error type.
//!
//! Every check the CPU runtime makes on user input (tensor shapes handed to a kernel, load and
//! store windows, valid regions, tile windows) reports one of these variants instead of
//! panicking. Each variant carries enough data to name what was wrong without a backtrace.

/// An error reported by the CPU runtime (`Tensor`, `Tile` and the `isa` functions) or by the
/// host function a `#[pto::kernel]` generates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tensor handed to a kernel has the wrong size in one dimension.
    #[error("shape mismatch for `{param}`: dimension {dim} must be {expected}, but it is {actual}")]
    Shape {
        /// The kernel parameter (or runtime argument) that was checked.
        param: &'static str,
        /// The dimension index, 0 = outermost.
        dim: usize,
        /// The size the kernel declares.
        expected: usize,
        /// The size that was passed.
        actual: usize,
    },
    /// A tensor or a list of offsets / sizes has the wrong number of dimensions.
    #[error("rank mismatch for `{param}`: expected rank {expected}, but it is {actual}")]
    Rank {
        /// The kernel parameter (or runtime argument) that was checked.
        param: &'static str,
        /// The rank the kernel or instruction expects.
        expected: usize,
        /// The rank that was passed.
        actual: usize,
    },
    /// A symbolic dimension bound from one tensor disagrees with another tensor.
    #[error(
        "symbolic dimension `{symbol}` is {expected}, but dimension {dim} of `{param}` is {actual}"
    )]
    SymbolMismatch {
        /// The name of the symbolic dimension (`B` in `Tensor<f32, B, 128>`).
        symbol: &'static str,
        /// The parameter whose dimension disagrees with the bound value.
        param: &'static str,
        /// The dimension index in that parameter.
        dim: usize,
        /// The value the symbol was bound to by an earlier parameter.
        expected: usize,
        /// The size found in this parameter.
        actual: usize,
    },
    /// `Tensor::from_vec` got a vector whose length is not the product of the shape.
    #[error("data length {actual} does not match the shape's element count {expected}")]
    Length {
        /// The element count the shape implies.
        expected: usize,
        /// The length of the vector.
        actual: usize,
    },
    /// A window or offset does not fit the tensor or tile it addresses.
    #[error(
        "{what} out of bounds: offset {offset:?} with extent {extent:?} does not fit in {bounds:?}"
    )]
    OutOfBounds {
        /// What was being addressed (`"tload window"`, `"textract window"`, ...).
        what: &'static str,
        /// The offset, one entry per dimension.
        offset: Vec<usize>,
        /// The extent of the window, one entry per dimension.
        extent: Vec<usize>,
        /// The bounds it must fit in, one entry per dimension.
        bounds: Vec<usize>,
    },
    /// A valid region (or a window that would become one) is larger than the tile.
    #[error("valid region {rows} x {cols} exceeds the tile's {max_rows} x {max_cols}")]
    ValidRegion {
        /// Requested valid rows.
        rows: usize,
        /// Requested valid columns.
        cols: usize,
        /// The tile's static rows.
        max_rows: usize,
        /// The tile's static columns.
        max_cols: usize,
    },
    /// A shape signature handed to [`bind_shapes`](crate::bind_shapes) does not read, or does
    /// not fit the call (another number of parameters or symbolic dimensions).
    #[error("malformed shape signature `{signature}`: {reason}")]
    Signature {
        /// The signature.
        signature: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The request is well formed but the CPU runtime does not implement it.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A load, store or element offset computed at run time is negative.
    #[error("offset {value} is negative: offsets count from 0")]
    NegativeOffset {
        /// The offset.
        value: i128,
    },
    /// The host function ran past the [`Budget`](crate::Budget) in force.
    #[error("the kernel ran past its budget of {what}")]
    Budget {
        /// The limit it ran past (`1000 loop iterations`, `2s`).
        what: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_message_names_everything() {
        let e = Error::Shape {
            param: "x",
            dim: 1,
            expected: 128,
            actual: 64,
        };
        assert_eq!(
            e.to_string(),
            "shape mismatch for `x`: dimension 1 must be 128, but it is 64"
        );
    }

    #[test]
    fn symbol_message_names_symbol_and_param() {
        let e = Error::SymbolMismatch {
            symbol: "B",
            param: "out",
            dim: 0,
            expected: 4,
            actual: 5,
        };
        let s = e.to_string();
        assert!(s.contains("`B`") && s.contains("`out`") && s.contains('4') && s.contains('5'));
    }
}
