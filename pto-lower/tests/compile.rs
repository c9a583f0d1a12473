//! `compile()` on the acceptance kernels: the Rust host body, `LOWERED`, the MLIR generic form
//! (parsed by `mlir-opt` when installed), the C++ form (checked against the pto-isa model and
//! run in `tests/cpp_model.rs`), and the capacity error.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

#[test]
fn every_kernel_compiles() {
    for k in common::KERNELS {
        let c = common::compile(k);
        assert!(
            !c.host.is_empty()
                && !c.lowered.is_empty()
                && !c.cpp.is_empty()
                && !c.mlir_generic().is_empty(),
            "{k}"
        );
    }
}

/// The one pipeline with verification after each pass (`lower_kernel`, what `pto-opt
/// --verify-each` runs) and without it (`compile`, what the macro runs) gives the same texts
/// and errors, also for ops that already carry event lists (which the pass merges into).
#[test]
fn verify_each_switch_keeps_outputs() {
    let same = |m: &pto_ir::ProgramModule, what: &str| {
        let f = m.entry.unwrap();
        match (
            pto_lower::compile(m, f),
            pto_lower::lower_kernel(m, f).and_then(pto_lower::Compiled::emit),
        ) {
            (Ok(c), Ok(a)) => {
                assert_eq!(c.lowered, a.lowered, "{what}");
                assert_eq!(c.cpp, a.cpp, "{what}");
                assert_eq!(c.host.to_string(), a.host.to_string(), "{what}");
            }
            (Err(c), Err(a)) => assert_eq!(c.to_string(), a.to_string(), "{what}"),
            (c, a) => panic!("{what}: {:?} vs {:?}", c.is_ok(), a.is_ok()),
        }
    };
    for k in common::KERNELS {
        let m = common::kernel(k);
        same(&m, k);
        // With the events already inserted once: the second run merges into them.
        let mut pm = pto_lower::PassManager::new();
        for name in ["canonicalize", "infer-tile-info", "insert-events"] {
            pm.add(pto_lower::passes::pass_by_name(name).unwrap());
        }
        let mut with_events = m.clone();
        pm.run(&mut with_events).unwrap();
        same(&with_events, &format!("{k} with events"));
    }
    same(&big_kernel("A2A3"), "too big");
}

/// The host body of scale_rows, pinned (`tests/files/host/scale_rows.rs`).
#[test]
fn scale_rows_host_shape() {
    let c = common::compile("scale_rows");
    let host = c.host.to_string();
    let path = common::dir().join("tests/files/host/scale_rows.tokens");
    common::check_snapshot(&path, &format!("{host}\n"));
    for want in [
        // One call checks both shapes and binds `B`.
        "let [b_1] = bind_shapes (\"x[B, 128] out[B, 128]\" , [x . shape () , out . shape ()]) ? ;",
        "let t0_row = & mut Tile :: < f32 , 1 , 128 > :: zeros () ;",
        // TLOAD, the two TMULS and TSTORE of a tile nothing else reads: one fused pass, and
        // the loop around it one call that checks the window geometry once.
        "tload_map_store_loop (t0_row , x",
        "Element :: mul (__e0 , scale)",
        "Element :: mul (__e0 , 3.14f32)",
        // The output tensor, a `&mut` parameter, is reborrowed by the call.
        ", out , & [LoopIndex :: Iv , LoopIndex :: At (0)]",
        // The budget meter charges the loop's iterations up front and ends it after the
        // first when both tensors are empty.
        "let __ub = __pto_meter . loop_end (0 , b_1 , 1 , (x . is_empty () && out . is_empty ())) ? ;",
        "LoopRange { lb : 0 , ub : __ub , step : 1 }",
        ":: core :: result :: Result :: Ok (())",
    ] {
        assert!(host.contains(want), "missing `{want}` in\n{host}");
    }
}

/// The host body of a parallel loop shown independent, pinned
/// (`tests/files/host/parallel_softmax.tokens`): the iterations go to `pto::par::for_parts`,
/// each worker with its own tiles (the row split's one-row tiles too), each iteration with
/// its own rows of the output, and the body is a sequential loop's (the load read in place,
/// the row split, the kept window).
#[test]
fn parallel_softmax_host_shape() {
    let c = common::compile("parallel_softmax");
    let host = c.host.to_string();
    let path = common::dir().join("tests/files/host/parallel_softmax.tokens");
    common::check_snapshot(&path, &format!("{host}\n"));
    for want in [
        "let __pto_parts = :: pto :: par :: row_parts (& mut * out , 0 , r_1 , 8 , 0i64) ? ;",
        ":: pto :: par :: for_parts (& mut __pto_meter , 0 , r_1 , 8 , __pto_parts , || (Tile :: < f32 , 8 , 1024 > :: zeros () , Tile :: < f32 , 8 , 1 > :: zeros () , Tile :: < f32 , 1 , 1024 > :: zeros () , Tile :: < f32 , 1 , 1 > :: zeros () ,)",
        "| __pto_tiles , __pto_meter , __pto_i , out | { let (t0_t , t1 , __row_t0_t , __row_t1 ,) = __pto_tiles ;",
        "window_fits (out , [r_6 , 0] , 8 , 1024)",
        "trowexpand_map_rowsum_view_window (__row_t1 , __row_t0_t , out ,",
    ] {
        assert!(host.contains(want), "missing `{want}` in\n{host}");
    }
    assert!(
        !host.contains("zeros_n") && !host.contains("lock"),
        "no tile is allocated outside the loop, no lock is taken:\n{host}"
    );
    assert!(
        c.lowered
            .contains("// parallel loop: iterations run in parallel"),
        "{}",
        c.lowered
    );
    assert!(c.cpp.contains("get_block_idx()"), "{}", c.cpp);
}

/// Tiles are created once, before any loop.
#[test]
fn tiles_are_allocated_before_loops() {
    for k in common::KERNELS {
        let host = common::compile(k).host.to_string();
        let last_alloc = host.rfind(":: zeros ()").unwrap_or(0);
        for kw in ["for ", "loop {"] {
            if let Some(first_loop) = host.find(kw) {
                assert!(
                    last_alloc < first_loop,
                    "{k}: a tile is allocated inside a loop\n{host}"
                );
            }
        }
    }
}

#[test]
fn host_bodies_use_the_right_instructions() {
    let cases: [(&str, &[&str]); 8] = [
        (
            "vadd",
            &[
                "tload2_map_store_loop (t",
                "Element :: add (__e",
                "step : 16",
            ],
        ),
        ("axpy", &["tmuls", "tadds_inplace", "tdivs_rev"]),
        (
            "softmax",
            &[
                // The load and its row max in one pass, then `exp(t - max)` kept and
                // summed in one (`lower/pairs.rs`).
                "tload_rowmax (t0_t , x",
                "trowexpand_map_rowsum_inplace (t1_m , t0_t , & t1_m . clone ()",
                "Float :: exp (__v0)",
                // The division written straight into the store (`lower/pairs.rs`).
                "trowexpand_store_inplace (out",
                "Element :: div (__a , __b)",
            ],
        ),
        (
            "reductions",
            // The column sum and row max of the loaded tile in one pass (`lower/pairs.rs`).
            &[
                "tload_reductions (t0_t , false , x , [0 , 0] , [Reduce :: Max] , [Reduce :: Sum]) ?",
                "__reduced0 . col (0usize , t1_cs)",
                "__reduced0 . row (0usize , t2_rm)",
                "trowsum",
            ],
        ),
        (
            "broadcast",
            // `x + bias` is only stored: written straight into the store.
            &[
                "tcolexpand_store (out",
                "Element :: add (__a , __b)",
                "trowexpandsub",
                "tmuls_inplace",
            ],
        ),
        ("matmul", &["tmatmul (t", "tmov (t", "trelu"]),
        (
            "splitk",
            &[
                "tmatmul_acc_inplace",
                "texpands",
                "bind_shapes (\"a[32, K] b[K, 32] c[32, 32]\"",
            ],
        ),
        (
            "control",
            &["loop {", "break ;", "if z_14", "tmov (t", "Ok (r_25)"],
        ),
    ];
    for (k, wants) in cases {
        let host = common::compile(k).host.to_string();
        for w in wants {
            assert!(host.contains(w), "{k}: missing `{w}` in\n{host}");
        }
    }
}

#[test]
fn lowered_text_is_seed_002_form() {
    let c = common::compile("scale_rows");
    let l = &c.lowered;
    for want in [
        "module attributes {pto.target = #pto.target<A2A3>}",
        "pto.memref<?x128xf32, strided<[128, 1], offset: ?>>",
        "pto.tile.load %x_2[%b_7, 0]",
        "#pto.loc<Vec>",
        "#pto.layout<ND>",
        "valid = [?, 128]",
        "!pto.event<producer = #pto.op<TLOAD>",
        "wait(%e0)",
        "pto.tile.store %y_11, %out_4[%b_7, 0] wait(%e1)",
        "scf.for %b_7 = %c0_5 to %B_1 step %c1_6",
    ] {
        assert!(l.contains(want), "missing `{want}` in\n{l}");
    }
    let m = common::compile("matmul").lowered;
    assert!(
        m.contains("pto.tile.matmul")
            && m.contains("pto.tile.mov.m2l")
            && m.contains("#pto.loc<Acc>"),
        "{m}"
    );
    let s = common::compile("splitk").lowered;
    assert!(
        s.contains("iter_args(%acc_11 = %acc0_8)") && s.contains("scf.yield %next_14"),
        "{s}"
    );
}

#[test]
fn cpp_is_ptoas_form() {
    let c = common::compile("scale_rows").cpp;
    for want in [
        "#include <pto/pto-inst.hpp>\n#include \"common/pto_instr.hpp\"",
        "using namespace pto;",
        "__global__ AICORE void scale_rows(__gm__ float* x, float scale, __gm__ float* out",
        "Tile<TileType::Vec, float, 1, 128, BLayout::RowMajor, DYNAMIC, 128, SLayout::NoneBox, 512, PadValue::Null> t0_row(1);",
        "TASSIGN(t0_row, 0x0);",
        "t0_row.SetValidRow(e0);",
        "GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 128, 1>>",
        "gt0(x + static_cast<int64_t>(b_7) * (1 * 128) + static_cast<int64_t>(0) * (1), {e0, 128});",
        "TLOAD(t0_row, gt0);",
        "TMULS(t0_row, t0_row, scale);",
        "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "TSTORE(gt1, sv);",
    ] {
        assert!(c.contains(want), "missing `{want}` in\n{c}");
    }
}

#[test]
fn mlir_generic_parses_with_mlir_opt() {
    let Some(tool) =
        common::find_tool(&["/usr/lib/llvm-19/bin/mlir-opt", "mlir-opt-19", "mlir-opt"])
    else {
        eprintln!("skip: mlir-opt is not installed; the generic MLIR was not checked");
        return;
    };
    let out_dir = std::env::temp_dir().join(format!("pto-lower-mlir-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    for k in common::KERNELS {
        let file = out_dir.join(format!("{k}.mlir"));
        std::fs::write(&file, common::compile(k).mlir_generic()).unwrap();
        let o = Command::new(&tool)
            .arg("--allow-unregistered-dialect")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{k}: mlir-opt rejected the generic form:\n{}\n{}",
            String::from_utf8_lossy(&o.stderr),
            std::fs::read_to_string(&file).unwrap()
        );
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

fn big_kernel(arch: &str) -> pto_ir::ProgramModule {
    let t = "tile<[256, 128], [256, 128], fp32>";
    let n = "tensor<[256, 128], fp32>";
    let text = format!(
        "program.module @big {{
  program.entry @big
  attr arch = \"{arch}\"
  func.func @big(%x_1: {n} #in, %y_2: {n} #in, %z_3: {n} #out) {{
    statement.op {{
      %a_4 = tile.load %x_1 : ({n}) -> {t} {{shape=[256, 128], offset=[0, 0]}}
      %b_5 = tile.load %y_2 : ({n}) -> {t} {{shape=[256, 128], offset=[0, 0]}}
      %c_6 = tile.add %a_4, %b_5 : ({t}, {t}) -> {t}
      tile.store %c_6, %z_3 : ({t}, {n}) -> () {{offset=[0, 0]}}
    }}
    statement.return
  }}
  // func.kind = kernel
}}
"
    );
    let m = pto_ir::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    pto_ir::verify(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

#[test]
fn a_kernel_too_big_for_the_buffer_is_an_error() {
    let m = big_kernel("A2A3");
    let err = pto_lower::compile(&m, m.entry.unwrap())
        .expect_err("two live 128 KiB tiles exceed 192 KiB");
    let msg = err.to_string();
    assert!(
        msg.contains("unified buffer (Vec)") && msg.contains("262144") && msg.contains("196608"),
        "{msg}"
    );
    assert!(err.iter().next().unwrap().at.is_some(), "anchored at an op");
    // The same kernel fits A5's 256 KiB.
    let m = big_kernel("A5");
    assert!(pto_lower::compile(&m, m.entry.unwrap()).is_ok());
}

/// Writes every kernel as a whole host function to `$PTO_LOWER_HOST_OUT` (for running them
/// against the runtime outside this crate); does nothing otherwise.
#[test]
fn dump_host_functions() {
    let Some(path) = std::env::var_os("PTO_LOWER_HOST_OUT") else {
        return;
    };
    let mut out = String::new();
    for k in common::KERNELS {
        let m = common::kernel(k);
        let p = pto_lower::lower_kernel(&m, m.entry.unwrap()).unwrap();
        out.push_str(&pto_lower::emit::rust::emit_fn(&p).unwrap().to_string());
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

#[test]
fn cpp_names_avoid_cpp_keywords() {
    // Rust identifiers that are C++ keywords: the kernel, a tensor and a scalar parameter.
    let text = r#"program.module @double {
  program.entry @double
  func.func @double(%new_0: tensor<[16, 16], fp32> #in, %int_1: fp32, %class_2: tensor<[16, 16], fp32> #out) {
    statement.op {
      %t_3 = tile.load %new_0 : (tensor<[16, 16], fp32>) -> tile<[16, 16], [16, 16], fp32> {shape=[16, 16], offset=[0, 0]}
      %u_4 = tile.mul %t_3, %int_1 : (tile<[16, 16], [16, 16], fp32>, fp32) -> tile<[16, 16], [16, 16], fp32>
      tile.store %u_4, %class_2 : (tile<[16, 16], [16, 16], fp32>, tensor<[16, 16], fp32>) -> () {offset=[0, 0]}
    }
    statement.return
  }
  // func.kind = kernel
}
"#;
    let m = pto_ir::parse(text).unwrap();
    pto_ir::verify(&m).unwrap();
    let cpp = pto_lower::compile(&m, m.entry.unwrap()).unwrap().cpp;
    assert!(
        cpp.contains("void double_(__gm__ float* new_, float int_, __gm__ float* class_)"),
        "{cpp}"
    );
    let Some(gxx) = common::find_tool(&["g++"]) else {
        eprintln!("skip: g++ is not installed; the C++ was not syntax-checked");
        return;
    };
    let file = std::env::temp_dir().join(format!("pto-lower-keywords-{}.cpp", std::process::id()));
    std::fs::write(&file, &cpp).unwrap();
    let o = Command::new(&gxx)
        .args(["-std=c++20", "-fsyntax-only", "-I"])
        .arg(common::dir().join("tests/cpp"))
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(
        o.status.success(),
        "g++ rejected:\n{}\n{cpp}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The host body of a one-op kernel with the given parameters and tensor type of `%x`, or the
/// error.
fn host_of(params: &str, x_ty: &str) -> Result<String, String> {
    let text = format!(
        r#"program.module @k {{
  program.entry @k
  func.func @k({params}) {{
    statement.op {{
      %t_9 = tile.load %x_0 : ({x_ty}) -> tile<[16, 16], [16, 16], fp32> {{shape=[16, 16], offset=[0, 0]}}
      tile.store %t_9, %y_1 : (tile<[16, 16], [16, 16], fp32>, tensor<[16, 16], fp32>) -> () {{offset=[0, 0]}}
    }}
    statement.return
  }}
  // func.kind = kernel
}}
"#
    );
    let m = pto_ir::parse(&text).map_err(|e| e.to_string())?;
    pto_ir::verify(&m).map_err(|e| e.to_string())?;
    pto_lower::compile(&m, m.entry.unwrap())
        .map(|c| c.host.to_string())
        .map_err(|e| e.to_string())
}

/// The shape signature of `bind_shapes`: `?` for a dimension of any size (unnamed, or the
/// value of a scalar parameter, which the body does not bind), and two symbolic dimensions
/// with one name are an error rather than one dimension.
#[test]
fn shape_signatures_of_ir_only_dimensions() {
    let host = host_of(
        "%x_0: tensor<[?, 16], fp32> #in, %y_1: tensor<[16, 16], fp32> #out",
        "tensor<[?, 16], fp32>",
    )
    .unwrap();
    assert!(
        host.contains(
            "let [] = bind_shapes (\"x[?, 16] y[16, 16]\" , [x . shape () , y . shape ()]) ? ;"
        ),
        "{host}"
    );
    let host = host_of(
        "%n_2: int64, %x_0: tensor<[%n_2, 16], fp32> #in, %y_1: tensor<[16, 16], fp32> #out",
        "tensor<[%n_2, 16], fp32>",
    )
    .unwrap();
    assert!(host.contains("\"x[?, 16] y[16, 16]\""), "{host}");
    let err = host_of(
        "%x_0: tensor<[%N_3, 16], fp32> #in, %y_1: tensor<[16, 16], fp32> #out, %z_2: tensor<[%N_4], fp32> #in",
        "tensor<[%N_3, 16], fp32>",
    )
    .unwrap_err();
    assert!(
        err.contains("two symbolic dimensions are named `N`"),
        "{err}"
    );
}

#[test]
fn an_element_type_the_runtime_lacks_is_reported_once() {
    // fp8 has no CPU element type; the kernel uses it in a parameter, two tiles and three ops
    // (a transpose: pto-isa's TTRANS moves any 1-byte element, TADD takes no fp8).
    let text = r#"program.module @k {
  program.entry @k
  func.func @k(%x_0: tensor<[32, 32], fp8> #in, %y_1: tensor<[32, 32], fp8> #out) {
    statement.op {
      %t_2 = tile.load %x_0 : (tensor<[32, 32], fp8>) -> tile<[32, 32], [32, 32], fp8> {shape=[32, 32], offset=[0, 0]}
      %u_3 = tile.transpose %t_2 : (tile<[32, 32], [32, 32], fp8>) -> tile<[32, 32], [32, 32], fp8>
      tile.store %u_3, %y_1 : (tile<[32, 32], [32, 32], fp8>, tensor<[32, 32], fp8>) -> () {offset=[0, 0]}
    }
    statement.return
  }
  // func.kind = kernel
}
"#;
    let m = pto_ir::parse(text).unwrap();
    pto_ir::verify(&m).unwrap();
    let diags = pto_lower::compile(&m, m.entry.unwrap()).unwrap_err();
    let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, ["the CPU runtime has no fp8 element type"]);
}

/// A move no target has a route for is refused at the op that needs it, naming the two
/// locations, the target and the targets that have the move: a tile computed on the vector
/// unit and used as a matmul's accumulator needs `TMOV` Vec -> Acc, which no target has
/// (nothing writes an Acc tile but the cube). A vector result fed to a matmul operand is
/// routed instead (Vec -> Mat -> Left): the same kernel with `tile.matmul` lowers on both
/// targets.
#[test]
fn a_move_with_no_route_is_refused_naming_the_target() {
    let text = |last: &str| {
        format!(
            r#"program.module @vec_to_cube {{
  program.entry @vec_to_cube
  func.func @vec_to_cube(%a_1: tensor<[32, 32], fp32> #in, %b_2: tensor<[32, 32], fp32> #in, %c_3: tensor<[32, 32], fp32> #out) {{
    statement.op {{
      %at_4 = tile.load %a_1 : (tensor<[32, 32], fp32>) -> tile<[32, 32], [32, 32], fp32> {{shape=[32, 32], offset=[0, 0]}}
      %e_5 = tile.exp %at_4 : (tile<[32, 32], [32, 32], fp32>) -> tile<[32, 32], [32, 32], fp32>
      %bt_6 = tile.load %b_2 : (tensor<[32, 32], fp32>) -> tile<[32, 32], [32, 32], fp32> {{shape=[32, 32], offset=[0, 0]}}
      {last}
      tile.store %ct_7, %c_3 : (tile<[32, 32], [32, 32], fp32>, tensor<[32, 32], fp32>) -> () {{offset=[0, 0]}}
    }}
    statement.return
  }}
  // func.kind = kernel
}}
"#
        )
    };
    let acc = text(
        "%ct_7 = tile.matmul_acc %e_5, %at_4, %bt_6 : (tile<[32, 32], [32, 32], fp32>, tile<[32, 32], [32, 32], fp32>, tile<[32, 32], [32, 32], fp32>) -> tile<[32, 32], [32, 32], fp32>",
    );
    for target in ["A2A3", "A5"] {
        let mut m = pto_ir::parse(&acc).unwrap();
        m.attrs.set("arch", pto_ir::Attr::Str(target.into()));
        let e = match pto_lower::lower_kernel(&m, m.entry.unwrap()) {
            Ok(_) => panic!("a Vec -> Acc move was lowered"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains(&format!(
                "`TMOV` from a Vec tile to an Acc tile is not legal on target {target}: no target has it"
            )),
            "{e}"
        );
    }
    let left = text(
        "%ct_7 = tile.matmul %e_5, %bt_6 : (tile<[32, 32], [32, 32], fp32>, tile<[32, 32], [32, 32], fp32>) -> tile<[32, 32], [32, 32], fp32>",
    );
    for target in ["A2A3", "A5"] {
        let mut m = pto_ir::parse(&left).unwrap();
        m.attrs.set("arch", pto_ir::Attr::Str(target.into()));
        let p = pto_lower::lower_kernel(&m, m.entry.unwrap())
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        assert!(
            p.tiles
                .iter()
                .any(|t| t.name.ends_with("e_mat") && t.space == pto_ir::MemorySpace::Mat),
            "{target}: no move through Mat"
        );
        // A2A3: the move into Mat is the vector-to-cube transfer of a split kernel.
        let split = matches!(p.route, pto_lower::lower::split::Route::Split(_));
        assert_eq!(split, target == "A2A3", "{target}");
    }
    use pto_ir::MemorySpace::*;
    use pto_ir::verify::target::Target;
    assert!(!Target::A2A3.has_move(Acc, Vec) && Target::A5.has_move(Acc, Vec));
    assert!(!Target::A2A3.has_move(Vec, Mat) && Target::A5.has_move(Vec, Mat));
    for t in Target::ALL {
        assert!(t.has_move(Mat, Left) && t.has_move(Acc, Mat) && !t.has_move(Acc, Acc));
    }
}

/// A program of the functions `funcs` (texts), the first its entry.
fn program_of(funcs: &[String]) -> pto_ir::ProgramModule {
    let text = format!(
        "program.module @p {{\n  program.entry @f1\n  attr arch = \"A2A3\"\n{}}}\n",
        funcs.concat()
    );
    let m = pto_ir::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    pto_ir::verify(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

/// Kernel `fk` using a tile computed on the vector unit as a matmul's accumulator: `TMOV`
/// Vec -> Acc, which no target has and the lowering refuses (its values are numbered `k0` on).
fn vec_to_acc(k: usize) -> String {
    let (n, t) = ("tensor<[32, 32], fp32>", "tile<[32, 32], [32, 32], fp32>");
    format!(
        "  func.func @f{k}(%a_{k}1: {n} #in, %b_{k}2: {n} #in, %c_{k}3: {n} #out) {{
    statement.op {{
      %at_{k}4 = tile.load %a_{k}1 : ({n}) -> {t} {{shape=[32, 32], offset=[0, 0]}}
      %e_{k}5 = tile.exp %at_{k}4 : ({t}) -> {t}
      %bt_{k}6 = tile.load %b_{k}2 : ({n}) -> {t} {{shape=[32, 32], offset=[0, 0]}}
      %ct_{k}7 = tile.matmul_acc %e_{k}5, %at_{k}4, %bt_{k}6 : ({t}, {t}, {t}) -> {t}
      tile.store %ct_{k}7, %c_{k}3 : ({t}, {n}) -> () {{offset=[0, 0]}}
    }}
    statement.return
  }}
  // func.kind = kernel
"
    )
}

/// Kernel `fk` transposing `fp8` tiles, which the CPU runtime has no element type for: the Rust
/// emitter refuses it.
fn fp8_transpose(k: usize) -> String {
    let (n, t) = ("tensor<[32, 32], fp8>", "tile<[32, 32], [32, 32], fp8>");
    format!(
        "  func.func @f{k}(%x_{k}1: {n} #in, %y_{k}2: {n} #out) {{
    statement.op {{
      %t_{k}3 = tile.load %x_{k}1 : ({n}) -> {t} {{shape=[32, 32], offset=[0, 0]}}
      %u_{k}4 = tile.transpose %t_{k}3 : ({t}) -> {t}
      tile.store %u_{k}4, %y_{k}2 : ({t}, {n}) -> () {{offset=[0, 0]}}
    }}
    statement.return
  }}
  // func.kind = kernel
"
    )
}

/// Every refusal of a program is reported, not only its first function's: two lowering
/// refusals, and a lowering refusal with an emitter refusal.
#[test]
fn every_refusal_of_a_program_is_reported() {
    let messages = |funcs: &[String]| -> Vec<String> {
        let err = pto_lower::compile_program(program_of(funcs))
            .expect_err("the program has refused functions");
        err.iter().map(|d| d.message.clone()).collect()
    };
    let no_route = "`TMOV` from a Vec tile to an Acc tile is not legal on target A2A3";
    let got = messages(&[vec_to_acc(1), vec_to_acc(2)]);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(got.iter().all(|m| m.contains(no_route)), "{got:#?}");
    let got = messages(&[vec_to_acc(1), fp8_transpose(2)]);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(got[0].contains(no_route), "{got:#?}");
    assert_eq!(
        got[1], "the CPU runtime has no fp8 element type",
        "{got:#?}"
    );
}

/// A tile parameter is loaded into a tile of its own at entry, which counts in its buffer
/// like any tile: a 128 KiB loaded tile `t` fits the A2A3 unified buffer (192 KiB), `t + p`
/// with a 128 KiB tile parameter `p` does not (the sum takes the place of one of them).
#[test]
fn tile_parameters_count_in_the_buffer() {
    let text = |use_param: bool| {
        let sum = if use_param {
            "%s_5 = tile.add %t_4, %p_1 : (tile<[256, 128], [256, 128], fp32>, tile<[256, 128], [256, 128], fp32>) -> tile<[256, 128], [256, 128], fp32>"
        } else {
            "%s_5 = tile.relu %t_4 : (tile<[256, 128], [256, 128], fp32>) -> tile<[256, 128], [256, 128], fp32>"
        };
        format!(
            "program.module @k {{\n  program.entry @k\n  func.func @k(%x_0: tensor<[256, 128], fp32> #in, %p_1: tile<[256, 128], [256, 128], fp32> #in, %y_2: tensor<[256, 128], fp32> #out) {{\n    statement.op {{\n      %t_4 = tile.load %x_0 : (tensor<[256, 128], fp32>) -> tile<[256, 128], [256, 128], fp32> {{shape=[256, 128], offset=[0, 0]}}\n      {sum}\n      tile.store %s_5, %y_2 : (tile<[256, 128], [256, 128], fp32>, tensor<[256, 128], fp32>) -> () {{offset=[0, 0]}}\n    }}\n    statement.return\n  }}\n}}\n"
        )
    };
    let compile = |use_param: bool| {
        let m = pto_ir::parse(&text(use_param)).unwrap();
        pto_lower::compile(&m, m.entry.unwrap()).map_err(|e| e.to_string())
    };
    assert!(compile(false).is_ok());
    let Err(err) = compile(true) else {
        panic!("the parameter's tile does not fit");
    };
    assert!(
        err.contains("needs 262144 bytes of the unified buffer") && err.contains("196608"),
        "{err}"
    );
}
