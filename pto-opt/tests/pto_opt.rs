//! The `pto-opt` tool as a user runs it: stages of a `.pto` file, and errors with the file,
//! line and column.

use std::process::Command;

fn pto_opt(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto-opt"))
        .args(args)
        .output()
        .expect("pto-opt runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const KERNEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../pto-lower/tests/kernels/scale_rows.pto"
);

#[test]
fn prints_the_parsed_module_and_each_stage() {
    let (ok, ir, _) = pto_opt(&[KERNEL]);
    assert!(ok);
    assert!(ir.starts_with("program.module @"), "{ir}");
    assert_eq!(
        pto_ir::parse(&ir).map(|m| m.to_string()).ok().as_deref(),
        Some(ir.as_str())
    );

    let (ok, after, err) = pto_opt(&[KERNEL, "--pipeline"]);
    assert!(ok, "{err}");
    assert!(
        after.contains("addr"),
        "bufferize assigned addresses:\n{after}"
    );

    let (ok, mlir, _) = pto_opt(&[KERNEL, "--emit=pto-mlir"]);
    assert!(
        ok && mlir.contains("pto.tile.load") && mlir.contains("scf.for"),
        "{mlir}"
    );
    let (ok, cpp, _) = pto_opt(&[KERNEL, "--emit=cpp"]);
    assert!(
        ok && cpp.contains("TLOAD(") && cpp.contains("__global__ AICORE void"),
        "{cpp}"
    );
    let (ok, py, _) = pto_opt(&[KERNEL, "--emit=pypto"]);
    assert!(
        ok && py.contains("@pl.program") && py.contains("pl.load(x_2, [b_7, 0], [1, 128])"),
        "{py}"
    );
    let (ok, generic, _) = pto_opt(&[KERNEL, "--emit=mlir-generic"]);
    assert!(ok && generic.contains("\"pto.tile.load\""), "{generic}");
}

#[test]
fn errors_name_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("pto-opt-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.pto");
    std::fs::write(&bad, "program.module @m {\n  program.entry @f\n  func.func @f() {\n    statement.bogus\n  }\n}\n")
        .expect("write");
    let path = bad.to_string_lossy().into_owned();
    let (ok, _, err) = pto_opt(&[&path]);
    assert!(!ok);
    assert!(err.starts_with(&format!("{path}:4:5: ")), "{err}");

    let (ok, _, err) = pto_opt(&[KERNEL, "--pass", "nope"]);
    assert!(!ok && err.contains("unknown pass `nope`"), "{err}");
    let (ok, _, err) = pto_opt(&[]);
    assert!(!ok && err.contains("usage"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tensor_level_functions_are_tiled_by_the_pipeline() {
    // `orchestrate` views, computes on and assembles tensors: the pipeline's
    // `tile-tensor-ops` makes one tile loop of the chain; `infer-tile-info` run alone still
    // names each tensor-level op it finds instead of printing an emptied function.
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pto-ir/tests/files/roundtrip/memory_tensor_ops.pto"
    );
    let (ok, out, err) = pto_opt(&[file, "--pipeline"]);
    assert!(ok, "{err}");
    for op in ["tensor.view", "tensor.mul", "tensor.assemble"] {
        assert!(!out.contains(op), "{op}: {out}");
    }
    assert!(out.contains("statement.for %tj_"), "{out}");
    assert!(out.contains("tile.relu"), "{out}");

    let (ok, out, err) = pto_opt(&[file, "--pass", "tile-tensor-ops"]);
    assert!(ok && !out.contains("tensor.assemble"), "{err}{out}");

    let (ok, out, err) = pto_opt(&[file, "--pass", "infer-tile-info"]);
    assert!(!ok, "{out}");
    for op in ["tensor.view", "tensor.mul", "tensor.assemble"] {
        assert!(
            err.contains(&format!("`{op}` in `orchestrate` is a tensor-level op")),
            "{op}: {err}"
        );
    }
    assert!(err.contains("memory_tensor_ops.pto:"), "{err}");
}

#[test]
fn outline_incore_runs_alone_and_a_program_emits_as_a_whole() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pto-lower/tests/files/outline-incore/scope_in_loop.pto"
    );
    let (ok, ir, err) = pto_opt(&[file, "--pass", "outline-incore"]);
    assert!(ok, "{err}");
    assert!(
        ir.contains("func.call @main_incore_0(") && ir.contains("// func.kind = InCore"),
        "{ir}"
    );
    assert!(!ir.contains("statement.scope"), "{ir}");
    // Saved and read back: the C++ of the program holds both functions, the callee first.
    let dir = std::env::temp_dir().join(format!("pto-opt-outline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("outlined.pto");
    std::fs::write(&path, &ir).unwrap();
    let (ok, cpp, err) = pto_opt(&[path.to_str().unwrap(), "--emit=cpp"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ok, "{err}");
    let callee = cpp
        .find("AICORE inline void main_incore_0(")
        .expect("the callee");
    let entry = cpp
        .find("__global__ AICORE void main_(")
        .expect("the entry");
    assert!(callee < entry, "{cpp}");
    assert!(cpp.contains("main_incore_0(x, y, r_7"), "{cpp}");
}

/// The lowered forms come from the macro's pipeline; `--verify-each` verifies after each of
/// its passes and prints the same texts.
#[test]
fn verify_each_is_a_switch_of_the_one_pipeline() {
    for emit in ["--emit=pto-mlir", "--emit=cpp", "--emit=rust"] {
        let (ok, plain, err) = pto_opt(&[KERNEL, emit]);
        assert!(ok, "{err}");
        let (ok, verified, err) = pto_opt(&[KERNEL, emit, "--verify-each"]);
        assert!(ok, "{err}");
        assert_eq!(plain, verified, "{emit}");
    }
    // The host code runs the kernel's load -> scale -> store chain as one fused call.
    let (_, rust, _) = pto_opt(&[KERNEL, "--emit=rust"]);
    assert!(rust.contains("map_store"), "{rust}");
}

/// `--emit=rust` prints the whole host function as people write Rust: one statement a line,
/// indented, as `prettyplease` formats it.
#[test]
fn rust_is_the_host_function_pretty_printed() {
    let (ok, rust, err) = pto_opt(&[KERNEL, "--emit=rust"]);
    assert!(ok, "{err}");
    let file: syn::File = syn::parse_str(&rust).expect("the output is Rust");
    assert_eq!(prettyplease::unparse(&file), rust, "already formatted");
    assert!(
        rust.contains("pub fn scale_rows(\n    x: &::pto::Tensor<f32>,"),
        "{rust}"
    );
    assert!(
        rust.contains("\n    let mut __pto_meter = ::pto::budget::Meter::start();\n"),
        "{rust}"
    );
}

/// `--pipeline` with a lowered output gives what the lowered output alone gives: the
/// lowering runs its pipeline once (it ran the passes twice, and a matmul kernel then failed
/// with a false "no route" error).
#[test]
fn pipeline_with_a_lowered_output_runs_the_passes_once() {
    let matmul = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pto-lower/tests/kernels/matmul_relu.pto"
    );
    for emit in ["--emit=cpp", "--emit=rust", "--emit=pto-mlir"] {
        let (ok, alone, err) = pto_opt(&[matmul, emit]);
        assert!(ok, "{emit}: {err}");
        let (ok, piped, err) = pto_opt(&[matmul, "--pipeline", emit]);
        assert!(ok, "{emit} --pipeline: {err}");
        assert_eq!(piped, alone, "{emit}");
    }
}
