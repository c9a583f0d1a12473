//! Expansion snapshots of `#[pto::kernel]` (`tests/expand/*.expanded.rs`, made with the
//! pinned `cargo-expand` that `.ci/run` installs). A missing or different snapshot fails;
//! bless with `MACROTEST=overwrite cargo test --test expand` and review the diff.

#[test]
fn expand() {
    // `expand_without_refresh` never writes, even under MACROTEST=overwrite, so blessing
    // goes through `expand`, which does.
    if std::env::var_os("MACROTEST").is_some_and(|v| v == "overwrite") {
        macrotest::expand("tests/expand/*.rs");
    } else {
        macrotest::expand_without_refresh("tests/expand/*.rs");
    }
}
