//! The op table is the one source: every row must have what each backend needs. This test
//! fails when a row lacks a CPU implementation (`pto::isa` function of each ISA
//! instruction), an interpreter case (the semantics module defines it for every dtype it
//! accepts, and the interpreter dispatches its class), a C++ form (an ISA instruction, which
//! the C++ emitter prints by name) or a guide entry (docs/guide.md names the IR op and the
//! kernel spelling).

use pto::ir::DataType;
use pto::ir::ops::{Isa, OPS, OpClass, Opcode, Spelling};
use pto::ir::sem::{self, Sem, Value};

/// The element dtypes the CPU runtime implements (`pto::Element`).
const RUNTIME_DTYPES: [DataType; 12] = [
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::UInt8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
    DataType::Fp16,
    DataType::Bf16,
    DataType::Fp32,
    DataType::Fp64,
];

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Whether `text` has `word` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// Ops no kernel writes, or that the lowering rejects with an error naming them (tensor
/// level, until a tiling pass exists), with the reason.
fn exempt(op: Opcode) -> Option<&'static str> {
    match op.info().dialect {
        "tensor" => Some("tensor level: rejected by infer-tile-info and the lowering"),
        "func" => Some("calls: rejected by the lowering until inlining"),
        "" => Some("constants"),
        _ => match op {
            Opcode::TileMove => Some("introduced by the lowering"),
            _ => None,
        },
    }
}

#[test]
fn every_isa_instruction_has_a_cpu_function() {
    let isa_src: String =
        std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/isa"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
    for row in OPS {
        for isa in row.isa {
            assert!(
                has_word(&isa_src, isa.rust_fn()),
                "{}: {} has no `pto::isa::{}`",
                row.opcode,
                isa.name(),
                isa.rust_fn()
            );
        }
    }
    for isa in Isa::ALL {
        assert!(has_word(&isa_src, isa.rust_fn()), "{}", isa.name());
    }
}

#[test]
fn every_elementwise_op_means_something_for_every_dtype_it_accepts() {
    let interp = read("pto-lower/src/interp/ops.rs");
    let mut checked = 0;
    for row in OPS {
        // The interpreter dispatches by class.
        if exempt(row.opcode).is_none() {
            assert!(
                interp.contains(&format!("OpClass::{:?}", row.class)),
                "{}: the interpreter has no case for class {:?}",
                row.opcode,
                row.class
            );
        }
        for d in RUNTIME_DTYPES {
            if !row.opcode.accepts(d) {
                continue;
            }
            let (x, y) = if d.is_float() {
                (Value::Float(-7.5), Value::Float(2.0))
            } else {
                (Value::Int(5), Value::Int(2))
            };
            let ok = match row.sem {
                Sem::Binary(k) => sem::binary(k, d, x, y).is_some(),
                Sem::Unary(k) => sem::unary(k, d, x).is_some(),
                Sem::Compare(k) => sem::compare(k, x, y).is_some(),
                Sem::Cast => sem::cast(x, d, DataType::Fp32, sem::RoundMode::CastRint).is_some(),
                Sem::Logic(_) | Sem::Select | Sem::None => true,
            };
            assert!(
                ok,
                "{} accepts {d} but the semantics module does not define it",
                row.opcode
            );
            checked += 1;
        }
        // Elementwise tile rows name their meaning.
        if matches!(
            row.class,
            OpClass::TileBinary
                | OpClass::TileBitwise
                | OpClass::TileUnary
                | OpClass::TileUnaryFloat
                | OpClass::TileNot
        ) {
            assert_ne!(row.sem, Sem::None, "{} has no semantics", row.opcode);
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn every_tile_op_has_a_cpp_form() {
    for row in OPS.iter().filter(|r| r.dialect == "tile") {
        if row.opcode == Opcode::TileValid {
            // Only the valid region changes: `SetValidShape` in C++.
            continue;
        }
        if matches!(row.class, OpClass::ElementRead | OpClass::ElementWrite) {
            // The scalar unit's access to global memory: plain C++ through the kernel's
            // pointer (`pto-lower/src/emit/cpp/element.rs`), no tile instruction.
            continue;
        }
        assert!(!row.isa.is_empty(), "{} has no ISA instruction", row.opcode);
        if matches!(row.class, OpClass::TileBinary | OpClass::TileBitwise) {
            assert!(
                row.isa.len() >= 2,
                "{}: tile-tile and tile-scalar forms",
                row.opcode
            );
            assert!(
                row.isa[0].is_binary() && row.isa[1].is_scalar_form(),
                "{}",
                row.opcode
            );
        }
    }
}

#[test]
fn every_kernel_op_is_in_the_guide() {
    let guide = read("docs/guide.md");
    for row in OPS {
        if exempt(row.opcode).is_some() {
            continue;
        }
        let name = row.opcode.full_name();
        assert!(
            guide.contains(&format!("`{name}")) || guide.contains(&format!("`{}`", row.mnemonic)),
            "docs/guide.md does not mention `{name}`"
        );
        match row.spelling {
            Spelling::Method(m) | Spelling::MethodOrFunction(m) => assert!(
                guide.contains(&format!(".{m}")),
                "{name}: `.{m}(..)` not in the guide"
            ),
            Spelling::Function(f) | Spelling::Constructor(f) => assert!(
                guide.contains(&format!("{f}(")),
                "{name}: `{f}(..)` not in the guide"
            ),
            Spelling::Operator(o) | Spelling::Prefix(o) => {
                assert!(guide.contains(o), "{name}: `{o}` not in the guide")
            }
            Spelling::Literal | Spelling::Lowering => {}
        }
    }
}
