//! Shared helpers of the pto-lower tests: the acceptance kernels (in `tests/kernels/*.pto`,
//! the statement text form) parsed and verified, and snapshot comparison with `BLESS=1`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use pto_ir::ProgramModule;

/// The acceptance kernels, by file stem.
pub const KERNELS: [&str; 9] = [
    "scale_rows",
    "vadd",
    "axpy",
    "softmax",
    "reductions",
    "broadcast",
    "matmul",
    "splitk",
    "control",
];

/// The crate directory.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Parses and verifies a `.pto` file.
pub fn load(path: &Path) -> ProgramModule {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = pto_ir::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    pto_ir::verify(&m).unwrap_or_else(|e| panic!("{} does not verify: {e}", path.display()));
    m
}

/// An acceptance kernel by name.
pub fn kernel(name: &str) -> ProgramModule {
    load(&dir().join("tests/kernels").join(format!("{name}.pto")))
}

/// Compiles an acceptance kernel.
pub fn compile(name: &str) -> pto_lower::Compiled {
    let m = kernel(name);
    let f = m.entry.expect("kernel files have an entry");
    pto_lower::compile(&m, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Compares `actual` with the snapshot at `path`; `BLESS=1` rewrites it.
pub fn check_snapshot(path: &Path, actual: &str) {
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|_| panic!("missing snapshot {} (run with BLESS=1)", path.display()));
    if expected != actual {
        panic!(
            "snapshot {} differs (run with BLESS=1 to accept)\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        );
    }
}

/// Runs `tool args..` if it exists; `None` when it is not installed.
pub fn find_tool(candidates: &[&str]) -> Option<String> {
    candidates
        .iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        })
        .map(|s| s.to_string())
}
