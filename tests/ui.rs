//! Compile-fail and compile-pass cases of `#[pto::kernel]` (dsl.md section 6).
//! Bless the `.stderr` files with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
