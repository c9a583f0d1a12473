//! PTO-IR.
