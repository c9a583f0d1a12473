//! `canonicalize-views` changes how views are spelled, never what a function computes: the
//! pass files run in the interpreter before and after it with bit-identical results.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "cpp/harness.rs"]
mod harness;

use pto_lower::interp::{HostValue, run};
use pto_lower::passes::{Pass, views::CanonicalizeViews};

#[test]
fn views_read_and_write_what_they_did() {
    let m = common::load(&common::dir().join("tests/files/canonicalize-views/views.pto"));
    let mut p = m.clone();
    CanonicalizeViews.run(&mut p).unwrap();
    pto_ir::verify(&p).unwrap();
    assert!(p.to_string().contains("stride=[%C_4, 1]"), "{p}");
    // `%r` is 5: the windows reach rows 5..37 of `x`; `C` at least 6.
    for (b, c) in [(37, 6), (40, 9), (64, 64)] {
        let dims = harness::dims_by_name(&m, &[("B", b), ("C", c)]);
        let mut want = harness::args_for(&m, &dims, 3, false);
        let mut got = want.clone();
        run(&m, m.entry.unwrap(), &mut want).unwrap();
        run(&p, p.entry.unwrap(), &mut got).unwrap();
        for (g, w) in got.iter().zip(&want) {
            if let (HostValue::Tensor(g), HostValue::Tensor(w)) = (g, w) {
                assert!(
                    g.data
                        .iter()
                        .zip(&w.data)
                        .all(|(a, b)| a.to_bits() == b.to_bits())
                );
            }
        }
    }
}
