//! Types (seeds 000 and 004): scalar, tile, tensor, tuple, pipe and unknown.
//!
//! A value's type carries everything the verifier compares: a tile's static shape *and* its
//! valid region, a tensor's (possibly symbolic) shape. Symbolic extents are [`Dim::Value`]s
//! naming an integer scalar of the same module; an extent known to exist but not known at
//! compile time (the valid rows of a load that may reach past a tensor's edge) is
//! [`Dim::Dynamic`], printed `?`.

use crate::dtype::DataType;
use crate::entity::ValueId;
use crate::inline::InlineVec;

/// A tile's static shape: rank 1 to 4, kept inline up to rank 2 (see [`InlineVec`]); tiles
/// are nearly always 2-D, and room for four would make every type larger.
pub type Shape = InlineVec<u64, 2>;

/// Per-dimension extents (a tile's valid region, a tensor's shape), kept inline up to rank 2.
pub type Extents = InlineVec<Dim, 2>;

/// One extent of a shape or valid region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A compile-time constant.
    Const(u64),
    /// The runtime value of an integer scalar (a symbolic dimension or a computed extent).
    Value(ValueId),
    /// Known only at run time, without a name (printed `?`); always `<=` the static extent.
    Dynamic,
}

impl Dim {
    /// The constant, if static.
    pub fn as_const(self) -> Option<u64> {
        match self {
            Dim::Const(c) => Some(c),
            _ => None,
        }
    }
}

/// A tile type: static shape, element type, and the valid region (a top-left prefix).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TileType {
    /// Element type.
    pub dtype: DataType,
    /// Static shape, rank 1 to 4.
    pub shape: Shape,
    /// Valid extent per dimension; `valid.len() == shape.len()`, each `<= shape[d]`.
    pub valid: Extents,
    /// Where the tile lives, once the lowering has placed it (seed 004's `TileType.memref_`);
    /// `None` in IR built from kernels. Typing rules produce `None`, and types compare equal
    /// for merges and op results without it ([`crate::ops::same_up_to_valid`]).
    pub memref: Option<MemRef>,
}

/// Copies the lists as blocks ([`InlineVec::copied_from`]): types are cloned for every op
/// result, and the derived clone would run the generic element-by-element `extend`.
impl Clone for TileType {
    fn clone(&self) -> Self {
        TileType {
            dtype: self.dtype,
            shape: Shape::copied_from(&self.shape),
            valid: Extents::copied_from(&self.valid),
            memref: self.memref,
        }
    }
}

impl TileType {
    /// A fully valid tile of `shape`.
    pub fn new(dtype: DataType, shape: impl Into<Shape>) -> Self {
        let shape = shape.into();
        let mut valid = Extents::with_capacity(shape.len());
        for &s in shape.iter() {
            valid.push(Dim::Const(s));
        }
        TileType {
            dtype,
            shape,
            valid,
            memref: None,
        }
    }

    /// Number of elements of the static shape.
    pub fn elements(&self) -> u64 {
        self.shape
            .iter()
            .fold(1u64, |acc, &d| acc.saturating_mul(d))
    }

    /// Rows and columns when viewed as 2-D (leading dims folded into rows; rank 1 is `1 x n`).
    pub fn rows_cols(&self) -> (u64, u64) {
        match self.shape.split_last() {
            Some((&c, lead)) => (lead.iter().fold(1u64, |acc, &d| acc.saturating_mul(d)), c),
            None => (1, 1),
        }
    }

    /// Bytes the tile takes in an on-chip buffer: its size rounded up to the 32-byte
    /// alignment every buffer address has.
    pub fn buffer_bytes(&self) -> u64 {
        u64::from(self.dtype.bits())
            .saturating_mul(self.elements())
            .div_ceil(8)
            .div_ceil(32)
            .saturating_mul(32)
    }

    /// Whether the valid region is statically the whole tile.
    pub fn is_fully_valid(&self) -> bool {
        self.valid
            .iter()
            .zip(&self.shape)
            .all(|(v, &s)| *v == Dim::Const(s))
    }
}

/// Tensor storage format (seed 000 `TileOpFormat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TensorFormat {
    /// Row-major, dims last-fastest.
    #[default]
    Nd,
    /// The fractal `NZ` layout.
    Nz,
}

/// A tensor type: element type and shape, whose extents may be symbolic.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// Element type.
    pub dtype: DataType,
    /// Shape, rank 1 to 4.
    pub shape: Extents,
    /// Storage format.
    pub format: TensorFormat,
}

/// A block copy of the shape, like [`TileType`]'s clone.
impl Clone for TensorType {
    fn clone(&self) -> Self {
        TensorType {
            dtype: self.dtype,
            shape: Extents::copied_from(&self.shape),
            format: self.format,
        }
    }
}

/// A hardware pipe (seed 004 `PipeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PipeKind {
    /// Scalar unit.
    S,
    /// Vector unit.
    V,
    /// Cube (matmul) unit.
    M,
    /// L1 -> L0 moves.
    Mte1,
    /// GM -> on-chip loads.
    Mte2,
    /// On-chip -> GM stores.
    Mte3,
    /// Fixpipe (accumulator out).
    Fix,
    /// Every pipe.
    All,
}

impl PipeKind {
    /// Every pipe kind.
    pub const ALL_KINDS: [PipeKind; 8] = [
        PipeKind::S,
        PipeKind::V,
        PipeKind::M,
        PipeKind::Mte1,
        PipeKind::Mte2,
        PipeKind::Mte3,
        PipeKind::Fix,
        PipeKind::All,
    ];

    /// The printed name (`S`, `V`, `MTE2`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            PipeKind::S => "S",
            PipeKind::V => "V",
            PipeKind::M => "M",
            PipeKind::Mte1 => "MTE1",
            PipeKind::Mte2 => "MTE2",
            PipeKind::Mte3 => "MTE3",
            PipeKind::Fix => "FIX",
            PipeKind::All => "ALL",
        }
    }

    /// Parses a printed name.
    pub fn from_name(s: &str) -> Option<PipeKind> {
        PipeKind::ALL_KINDS.into_iter().find(|p| p.name() == s)
    }
}

/// The type of a value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A single element.
    Scalar(DataType),
    /// An on-chip tile.
    Tile(TileType),
    /// A global-memory tensor.
    Tensor(TensorType),
    /// A tuple of types (seed 004).
    Tuple(Vec<Type>),
    /// A hardware pipe or barrier (seed 004).
    Pipe(PipeKind),
    /// Not known (seed 004 `UnknownType`); never valid in a verified module.
    Unknown,
}

impl Type {
    /// The element type, when the type has one.
    pub fn dtype(&self) -> Option<DataType> {
        match self {
            Type::Scalar(d) => Some(*d),
            Type::Tile(t) => Some(t.dtype),
            Type::Tensor(t) => Some(t.dtype),
            _ => None,
        }
    }

    /// The seed's `GetTypeSize` in bytes: a scalar or tensor is its element size (a tensor's
    /// shape lives in the value), a tile is element bits times elements, rounded up to bytes,
    /// a tuple the sum of its parts; pipes and unknown types have no size.
    pub fn size_bytes(&self) -> u64 {
        match self {
            Type::Scalar(d) => d.size_bytes(),
            Type::Tensor(t) => t.dtype.size_bytes(),
            Type::Tile(t) => u64::from(t.dtype.bits())
                .saturating_mul(t.elements())
                .div_ceil(8),
            Type::Tuple(ts) => ts.iter().map(Type::size_bytes).sum(),
            Type::Pipe(_) | Type::Unknown => 0,
        }
    }

    /// The tile type, if this is a tile.
    pub fn as_tile(&self) -> Option<&TileType> {
        match self {
            Type::Tile(t) => Some(t),
            _ => None,
        }
    }

    /// The tensor type, if this is a tensor.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The scalar dtype, if this is a scalar.
    pub fn as_scalar(&self) -> Option<DataType> {
        match self {
            Type::Scalar(d) => Some(*d),
            _ => None,
        }
    }

    /// Whether this is a scalar of an integer type.
    pub fn is_int_scalar(&self) -> bool {
        matches!(self, Type::Scalar(d) if d.is_int())
    }

    /// A short kind word for messages: `scalar`, `tile`, `tensor`, ...
    pub fn kind_name(&self) -> &'static str {
        match self {
            Type::Scalar(_) => "scalar",
            Type::Tile(_) => "tile",
            Type::Tensor(_) => "tensor",
            Type::Tuple(_) => "tuple",
            Type::Pipe(_) => "pipe",
            Type::Unknown => "unknown",
        }
    }
}

/// Where a tile lives (seed 002 `#pto.loc`, seed 004 `MemorySpace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemorySpace {
    /// Global memory.
    Ddr,
    /// Unified buffer (vector unit).
    Vec,
    /// L1 / CBUF.
    Mat,
    /// L0A, matmul left operand.
    Left,
    /// L0B, matmul right operand.
    Right,
    /// L0C, matmul accumulator.
    Acc,
    /// Bias table.
    Bias,
}

impl MemorySpace {
    /// Every space.
    pub const ALL: [MemorySpace; 7] = [
        MemorySpace::Ddr,
        MemorySpace::Vec,
        MemorySpace::Mat,
        MemorySpace::Left,
        MemorySpace::Right,
        MemorySpace::Acc,
        MemorySpace::Bias,
    ];

    /// The printed name (`DDR`, `Vec`, `Mat`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            MemorySpace::Ddr => "DDR",
            MemorySpace::Vec => "Vec",
            MemorySpace::Mat => "Mat",
            MemorySpace::Left => "Left",
            MemorySpace::Right => "Right",
            MemorySpace::Acc => "Acc",
            MemorySpace::Bias => "Bias",
        }
    }

    /// Parses a printed name.
    pub fn from_name(s: &str) -> Option<MemorySpace> {
        MemorySpace::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// A memory reference (seed 004 `MemRef`): space, base address (once bufferized) and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemRef {
    /// The buffer.
    pub space: MemorySpace,
    /// Byte offset in the buffer, once assigned.
    pub addr: Option<u64>,
    /// Size in bytes.
    pub size: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_sizes_follow_seed_000() {
        assert_eq!(Type::Scalar(DataType::Fp32).size_bytes(), 4);
        let t = Type::Tile(TileType::new(DataType::Fp16, vec![16, 32]));
        assert_eq!(t.size_bytes(), 16 * 32 * 2);
        let t4 = Type::Tile(TileType::new(DataType::Int4, vec![16, 32]));
        assert_eq!(t4.size_bytes(), 256);
        let tensor = Type::Tensor(TensorType {
            dtype: DataType::Fp32,
            shape: [Dim::Dynamic, Dim::Const(128)].into(),
            format: TensorFormat::Nd,
        });
        assert_eq!(tensor.size_bytes(), 4);
        assert_eq!(
            TileType::new(DataType::Fp32, vec![2, 3, 4]).rows_cols(),
            (6, 4)
        );
    }
}
