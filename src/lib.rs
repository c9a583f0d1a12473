//! pto.
