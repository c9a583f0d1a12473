//! Expansion snapshots of `#[pto::kernel]` (`tests/expand/*.expanded.rs`, made with the
//! pinned `cargo-expand` that `.ci/run` installs). A missing or different snapshot fails;
//! bless with `MACROTEST=overwrite cargo test --test expand` and review the diff.

/// The `cargo-expand` version the snapshots were made with (also pinned in `.ci/run`).
const CARGO_EXPAND: &str = "1.0.127";

fn cargo_expand_installed() -> bool {
    std::process::Command::new("cargo")
        .args(["expand", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn expand() {
    if !cargo_expand_installed() {
        // CI installs the tool first, so there a missing tool is a failure, never a skip.
        assert!(
            std::env::var_os("CI").is_none(),
            "cargo-expand is missing on CI; .ci/run installs it"
        );
        eprintln!(
            "skipping the expansion snapshots: cargo-expand is not installed \
             (`cargo install --locked cargo-expand --version {CARGO_EXPAND}`, which `bash .ci/run` does)"
        );
        return;
    }
    // `expand_without_refresh` never writes, even under MACROTEST=overwrite, so blessing
    // goes through `expand`, which does.
    if std::env::var_os("MACROTEST").is_some_and(|v| v == "overwrite") {
        macrotest::expand("tests/expand/*.rs");
    } else {
        macrotest::expand_without_refresh("tests/expand/*.rs");
    }
}
