//! The op table and the typing rules it drives.

pub mod dtypes;
mod emitted;
mod infer;
mod isa;
mod table;

pub use emitted::{BinaryForm, Insts, commutes, computing_instructions, tile_form};
pub use infer::{
    InferError, ResultTypes, article, infer, matmul_acc_dtype, meet, merge_types, same_up_to_valid,
};
pub use table::{Isa, OPS, OpClass, OpInfo, Opcode, Operand, Spelling};
