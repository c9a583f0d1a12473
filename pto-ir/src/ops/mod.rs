//! The op table and the typing rules it drives.

mod infer;
mod isa;
mod table;

pub use infer::{
    InferError, ResultTypes, article, infer, matmul_acc_dtype, meet, merge_types, same_up_to_valid,
};
pub use table::{Isa, OPS, OpClass, OpInfo, Opcode, Operand, Spelling};
