//! The op table and the typing rules it drives.

mod infer;
mod table;

pub use infer::{
    InferError, ROUND_MODES, ResultTypes, infer, matmul_acc_dtype, meet, merge_types,
    same_up_to_valid,
};
pub use table::{OPS, OpClass, OpInfo, Opcode};
