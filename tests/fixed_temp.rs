//! Issue 14: pto-isa's A2A3 row broadcasts (`TROWEXPANDSUB` ... with a column operand) write
//! an 8 KiB temporary at the fixed unified-buffer address 184 KiB (`Target::fixed_temp`), so
//! on A2A3 bufferize keeps a kernel's tiles below it when its lowering has one. Here: a kernel
//! without a broadcast still uses up to 188 KiB of the 192 KiB; one with a broadcast sits
//! below 184 KiB; both run in the model of pto-isa (which overwrites the range on every A2A3
//! row broadcast) on A2A3 and A5 against the host function. The same kernel with a broadcast
//! over 188 KiB is `tests/ui/fail/row_broadcast_fixed_temp.rs`.
#![allow(clippy::unwrap_used)]

use pto::prelude::*;

mod support;

use support::model::Model;

/// Two `94 x 256` f32 tiles (94 KiB each) live together: 188 KiB of Vec, no broadcast.
#[pto::kernel]
pub fn wide_sum(
    a: &Tensor<f32, 94, 256>,
    b: &Tensor<f32, 94, 256>,
    #[out] y: &mut Tensor<f32, 94, 256>,
) {
    let s = a.load::<94, 256>([0, 0]) + b.load::<94, 256>([0, 0]);
    y.store([0, 0], s);
}

/// Two `91 x 256` f32 tiles (91 KiB each) and a per-row column subtracted from their sum.
#[pto::kernel]
pub fn wide_sum_rows(
    a: &Tensor<f32, 91, 256>,
    b: &Tensor<f32, 91, 256>,
    c: &Tensor<f32, 91, 1>,
    #[out] y: &mut Tensor<f32, 91, 256>,
) {
    let s = a.load::<91, 256>([0, 0]) + b.load::<91, 256>([0, 0]);
    y.store([0, 0], s - c.load::<91, 1>([0, 0]));
}

/// The end of the highest Vec tile `TASSIGN` places in `cpp`
/// (`TASSIGN(t, 0x..); // N bytes of Vec`).
fn vec_top(cpp: &str) -> u64 {
    cpp.lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("TASSIGN(")?;
            let (_, rest) = rest.split_once(", 0x")?;
            let (hex, rest) = rest.split_once(')')?;
            let bytes = rest.strip_prefix("; // ")?.strip_suffix(" bytes of Vec")?;
            Some(u64::from_str_radix(hex, 16).ok()? + bytes.parse::<u64>().ok()?)
        })
        .max()
        .unwrap_or(0)
}

/// Without a broadcast the tiles reach past 184 KiB; with one they end below it.
#[test]
fn only_row_broadcast_kernels_leave_the_temporary_free() {
    assert!(!wide_sum::CPP.contains("TROWEXPAND"));
    assert_eq!(vec_top(wide_sum::CPP), 188 * 1024, "{}", wide_sum::CPP);
    assert!(wide_sum_rows::CPP.contains("TROWEXPANDSUB("));
    let top = vec_top(wide_sum_rows::CPP);
    assert!(
        top > 176 * 1024 && top <= 184 * 1024,
        "{top}: {}",
        wide_sum_rows::CPP
    );
}

/// Both kernels in the model of pto-isa on A2A3 and A5 against the host function.
#[test]
fn both_run_in_the_cpp_model() {
    let sizes = vec![vec![]];
    let mut problems = Vec::new();
    let m = wide_sum::program();
    problems.extend(
        Model::new("wide_sum", &m, sizes.clone())
            .against_host(|t| wide_sum(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    let m = wide_sum_rows::program();
    problems.extend(Model::new("wide_sum_rows", &m, sizes).against_host(|t| {
        wide_sum_rows(
            &t.tensor(0),
            &t.tensor(1),
            &t.tensor(2),
            &mut t.out::<f32>(3),
        )
    }));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
