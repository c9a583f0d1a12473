//! Runs a kernel's emitted C++ in the CPU model of pto-isa (`pto_decls.hpp`): the kernel's
//! `CPP` for a target is compiled with g++ together with a generated driver, which reads
//! the arguments from stdin, puts every tensor between guard zones, calls the kernel,
//! checks that nothing outside an output tensor changed (the guards and every input
//! tensor) and writes the tensors and returned scalars to stdout. One build per kernel and
//! target serves every size. Shared by the pto-lower tests and the crate's example tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pto_ir::{Attr, DataType, Dim, Direction, FuncId, ProgramModule, Type};
use pto_lower::interp::{HostScalar, HostTensor, HostTile, HostValue, ScalarValue};

/// Elements of guard zone on each side of every tensor.
const GUARD: usize = 64;

/// The directory holding `pto_decls.hpp` and the include shims.
pub fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(
        if Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/cpp")
            .exists()
        {
            "tests/cpp"
        } else {
            "pto-lower/tests/cpp"
        },
    )
}

/// g++ (the machine image has g++ 12), or `None` when missing. `PTO_CPP_COMPILER` names
/// another compiler.
pub fn gxx() -> Option<String> {
    if let Ok(c) = std::env::var("PTO_CPP_COMPILER") {
        return Some(c);
    }
    ["g++", "clang++"]
        .iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(|s| s.to_string())
}

/// The C++ of `m`'s entry kernel lowered for `target` (`A2A3` or `A5`).
pub fn cpp_for(m: &ProgramModule, target: &str) -> Result<String, String> {
    let mut m = m.clone();
    m.attrs.set("arch", Attr::Str(target.into()));
    let f = m.entry.ok_or("the module has no entry")?;
    // A program: every function, the entry the kernel, the others device functions.
    if m.functions.len() > 1 {
        return pto_lower::compile_program(m)
            .map(|c| c.cpp)
            .map_err(|e| e.to_string());
    }
    pto_lower::compile(&m, f)
        .map(|c| c.cpp)
        .map_err(|e| e.to_string())
}

/// Checks `cpp` with `g++ -fsyntax-only` for `target`; the compiler's message on failure.
pub fn syntax_check(
    gxx: &str,
    cpp: &str,
    target: &str,
    dir: &Path,
    name: &str,
) -> Result<(), String> {
    let file = dir.join(format!("{name}-{target}-syntax.cpp"));
    std::fs::write(&file, cpp).map_err(|e| e.to_string())?;
    let o = Command::new(gxx)
        .args([
            "-std=c++20",
            "-fsyntax-only",
            &format!("-DPTO_TARGET_{target}"),
            "-I",
        ])
        .arg(include_dir())
        .arg(&file)
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

fn cpp_type(d: DataType) -> &'static str {
    pto_lower::emit::cpp::cpp_dtype(d)
}

/// How the driver moves a value of `d` through stdin / stdout: the C++ type it reads and
/// the byte width (fp16 / bf16 travel as f32: the model keeps them as floats).
fn wire(d: DataType) -> (&'static str, usize) {
    match d {
        DataType::Fp16 | DataType::Bf16 | DataType::Fp32 => ("float", 4),
        DataType::Fp64 => ("double", 8),
        DataType::Bool => ("uint8_t", 1),
        DataType::Int8 => ("int8_t", 1),
        DataType::UInt8 => ("uint8_t", 1),
        DataType::Int16 => ("int16_t", 2),
        DataType::UInt16 => ("uint16_t", 2),
        DataType::Int32 => ("int32_t", 4),
        DataType::UInt32 => ("uint32_t", 4),
        DataType::Int64 => ("int64_t", 8),
        _ => ("uint64_t", 8),
    }
}

fn put_value(out: &mut Vec<u8>, d: DataType, x: f64) {
    match d {
        DataType::Fp16 | DataType::Bf16 | DataType::Fp32 => out.extend((x as f32).to_le_bytes()),
        DataType::Fp64 => out.extend(x.to_le_bytes()),
        DataType::Bool | DataType::UInt8 => out.push(x as u8),
        DataType::Int8 => out.extend((x as i8).to_le_bytes()),
        DataType::Int16 => out.extend((x as i16).to_le_bytes()),
        DataType::UInt16 => out.extend((x as u16).to_le_bytes()),
        DataType::Int32 => out.extend((x as i32).to_le_bytes()),
        DataType::UInt32 => out.extend((x as u32).to_le_bytes()),
        DataType::Int64 => out.extend((x as i64).to_le_bytes()),
        _ => out.extend((x as u64).to_le_bytes()),
    }
}

fn get_value(bytes: &[u8], d: DataType) -> f64 {
    let b = |n: usize| -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&bytes[..n]);
        a
    };
    match d {
        DataType::Fp16 | DataType::Bf16 | DataType::Fp32 => {
            f64::from(f32::from_le_bytes(bytes[..4].try_into().unwrap()))
        }
        DataType::Fp64 => f64::from_le_bytes(b(8)),
        DataType::Bool | DataType::UInt8 => f64::from(bytes[0]),
        DataType::Int8 => f64::from(bytes[0] as i8),
        DataType::Int16 => f64::from(i16::from_le_bytes(bytes[..2].try_into().unwrap())),
        DataType::UInt16 => f64::from(u16::from_le_bytes(bytes[..2].try_into().unwrap())),
        DataType::Int32 => f64::from(i32::from_le_bytes(bytes[..4].try_into().unwrap())),
        DataType::UInt32 => f64::from(u32::from_le_bytes(bytes[..4].try_into().unwrap())),
        DataType::Int64 => i64::from_le_bytes(b(8)) as f64,
        _ => u64::from_le_bytes(b(8)) as f64,
    }
}

fn scalar_f64(s: &HostScalar) -> f64 {
    match s.value {
        ScalarValue::Bool(b) => f64::from(u8::from(b)),
        ScalarValue::Int(i) => i as f64,
        ScalarValue::Float(x) => x,
    }
}

/// A kernel's C++ built into an executable that runs it in the CPU model.
pub struct Built {
    exe: PathBuf,
    m: ProgramModule,
    f: FuncId,
}

/// The bytes of the GM workspace the kernel's C++ asks for in its header comment
/// (`// pto_workspace: N bytes ...`), 0 when it has none.
fn workspace_bytes(cpp: &str) -> u64 {
    cpp.lines()
        .find_map(|l| l.strip_prefix("// pto_workspace: "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The driver's C++ for the entry kernel of `m` (its emitted C++ is `kernel.cpp`), which
/// asks for `workspace` bytes of GM workspace (last parameter, guarded like the tensors).
fn driver(m: &ProgramModule, f: FuncId, workspace: u64, blocks: u32, split: bool) -> String {
    let func = &m.funcs[f];
    let mut d = String::from(
        "#include \"kernel.cpp\"\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <thread>\n#include <vector>\n\n",
    );
    d.push_str("template <typename T> T rd() { T x; if (std::fread(&x, sizeof x, 1, stdin) != 1) std::exit(9); return x; }\n");
    d.push_str("template <typename W, typename T> void rd_into(T* p, int64_t n) { for (int64_t i = 0; i < n; ++i) p[i] = T(rd<W>()); }\n");
    d.push_str("template <typename W, typename T> void wr(const T* p, int64_t n) { for (int64_t i = 0; i < n; ++i) { W w = W(p[i]); std::fwrite(&w, sizeof w, 1, stdout); } }\n");
    let _ = writeln!(d, "constexpr int64_t G = {GUARD};");
    d.push_str("static bool guards_ok(const unsigned char* b, int64_t bytes_before, int64_t bytes_after, int64_t n) {\n");
    d.push_str("  for (int64_t i = 0; i < bytes_before; ++i) if (b[i] != 0xA5) return false;\n");
    d.push_str("  for (int64_t i = 0; i < bytes_after; ++i) if (b[bytes_before + n + i] != 0xA5) return false;\n  return true;\n}\n");
    d.push_str("int main() {\n");
    let mut call = Vec::new();
    let mut checks = String::new();
    let mut writes = String::new();
    for (k, p) in func.sig.params.iter().enumerate() {
        match &m.values[p.value].ty {
            // A tensor, or a tile parameter (a GM array of its elements, row-major, only
            // read): a guarded buffer either way.
            Type::Tensor(pto_ir::TensorType { dtype, .. })
            | Type::Tile(pto_ir::TileType { dtype, .. }) => {
                // A mask parameter is its packed bytes (`Built::run` packs them).
                let ty = match m.values[p.value].ty {
                    Type::Tile(_) => pto_lower::emit::cpp::param_dtype(*dtype),
                    _ => cpp_type(*dtype),
                };
                let (w, _) = wire(*dtype);
                let _ = writeln!(d, "  const int64_t n{k} = rd<int64_t>();");
                let _ = writeln!(
                    d,
                    "  std::vector<unsigned char> raw{k}((n{k} + 2 * G) * sizeof({ty}), 0xA5);"
                );
                let _ = writeln!(
                    d,
                    "  {ty}* p{k} = reinterpret_cast<{ty}*>(raw{k}.data()) + G;"
                );
                let _ = writeln!(d, "  rd_into<{w}>(p{k}, n{k});");
                let _ = writeln!(d, "  const std::vector<unsigned char> before{k} = raw{k};");
                call.push(format!("p{k}"));
                let tile = matches!(m.values[p.value].ty, Type::Tile(_));
                if tile || p.direction == Direction::In {
                    let what = if tile {
                        "tile parameter"
                    } else {
                        "input tensor"
                    };
                    let _ = writeln!(
                        checks,
                        "  if (raw{k} != before{k}) {{ std::fprintf(stderr, \"{what} {k} changed\\n\"); return 3; }}"
                    );
                } else {
                    let _ = writeln!(
                        checks,
                        "  if (!guards_ok(raw{k}.data(), G * sizeof({ty}), G * sizeof({ty}), n{k} * sizeof({ty}))) {{ std::fprintf(stderr, \"write outside tensor {k}\\n\"); return 3; }}"
                    );
                }
                if !tile {
                    let _ = writeln!(writes, "  wr<{w}>(p{k}, n{k});");
                }
            }
            t => {
                let dt = t.dtype().unwrap_or(DataType::Fp32);
                let (w, _) = wire(dt);
                let _ = writeln!(
                    d,
                    "  const {} s{k} = {}(rd<{w}>());",
                    cpp_type(dt),
                    cpp_type(dt)
                );
                call.push(format!("s{k}"));
            }
        }
    }
    for (k, &v) in func.dims.iter().enumerate() {
        let dt = m.values[v].ty.dtype().unwrap_or(DataType::Int64);
        let _ = writeln!(
            d,
            "  const {} dim{k} = {}(rd<int64_t>());",
            cpp_type(dt),
            cpp_type(dt)
        );
        call.push(format!("dim{k}"));
    }
    for (k, t) in func.sig.returns.iter().enumerate() {
        let dt = t.dtype().unwrap_or(DataType::Fp32);
        let _ = writeln!(d, "  {} ret{k}_v{{}};", cpp_type(dt));
        call.push(format!("&ret{k}_v"));
        let (w, _) = wire(dt);
        let _ = writeln!(writes, "  wr<{w}>(&ret{k}_v, 1);");
    }
    if workspace > 0 {
        let _ = writeln!(
            d,
            "  std::vector<unsigned char> ws(({workspace} + 2 * G), 0xA5);\n  std::memset(ws.data() + G, 0, {workspace});"
        );
        call.push("ws.data() + G".into());
        let _ = writeln!(
            checks,
            "  if (!guards_ok(ws.data(), G, G, {workspace})) {{ std::fprintf(stderr, \"write outside the workspace\\n\"); return 3; }}"
        );
    }
    // The emitter's spelling of the kernel's name (`main` is `main_`).
    let name = pto_lower::emit::cpp::function_name(&func.name);
    if split {
        // A split kernel (A2A3 cube and vector parts): each block runs its cube part and its
        // vector part on both vector subblocks as three threads, like a cluster; every
        // cross-core signal must be consumed by the end.
        let args = call.join(", ");
        let _ = writeln!(
            d,
            "  for (int64_t b = 0; b < {blocks}; ++b) {{\n    pto_model_block_idx() = b;\n    pto_model_block_num() = {blocks};\n    std::thread aic([&] {{ pto_model_enter(0, 0); {name}_aic({args}); }});\n    std::thread aiv0([&] {{ pto_model_enter(1, 0); {name}_aiv({args}); }});\n    std::thread aiv1([&] {{ pto_model_enter(1, 1); {name}_aiv({args}); }});\n    aic.join();\n    aiv0.join();\n    aiv1.join();\n    if (!pto_model_cores_idle()) {{ std::fprintf(stderr, \"a cross-core signal was not consumed\\n\"); return 3; }}\n  }}"
        );
    } else if blocks > 1 {
        // A kernel that distributes a parallel loop over blocks runs as a launch of `blocks`
        // blocks, one after another (every block runs the code outside that loop).
        let _ = writeln!(
            d,
            "  for (int64_t b = 0; b < {blocks}; ++b) {{\n    pto_model_block_idx() = b;\n    pto_model_block_num() = {blocks};\n    {name}({});\n  }}",
            call.join(", ")
        );
    } else {
        let _ = writeln!(d, "  {name}({});", call.join(", "));
    }
    d.push_str(&checks);
    d.push_str(&writes);
    d.push_str("  return 0;\n}\n");
    d
}

/// Whether the C++ is a split kernel (a cube part `NAME_aic` and a vector part `NAME_aiv`).
pub fn is_split(cpp: &str) -> bool {
    cpp.contains("_aic(") && cpp.contains("_aiv(")
}

/// The blocks of the launch: 3 (an odd count, so the last block's share is uneven) when
/// the kernel gives blocks shares of a parallel loop, else 1.
fn launch_blocks(cpp: &str) -> u32 {
    if cpp.contains("get_block_idx()") {
        3
    } else {
        1
    }
}

/// Builds `m`'s entry kernel's C++ for `target` with the model into `dir`.
pub fn build(
    gxx: &str,
    m: &ProgramModule,
    target: &str,
    dir: &Path,
    name: &str,
) -> Result<Built, String> {
    let f = m.entry.ok_or("the module has no entry")?;
    let cpp = cpp_for(m, target)?;
    let work = dir.join(format!("{name}-{target}"));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    std::fs::write(work.join("kernel.cpp"), &cpp).map_err(|e| e.to_string())?;
    dump(&cpp, name, target);
    std::fs::write(
        work.join("driver.cpp"),
        driver(
            m,
            f,
            workspace_bytes(&cpp),
            launch_blocks(&cpp),
            is_split(&cpp),
        ),
    )
    .map_err(|e| e.to_string())?;
    let exe = work.join("run");
    // `PTO_CPP_HEADERS` replaces the model by other flags (another implementation of the
    // API, checked locally; no test depends on one).
    let headers: Vec<String> = match std::env::var("PTO_CPP_HEADERS") {
        Ok(flags) => flags.split_whitespace().map(str::to_string).collect(),
        Err(_) => vec!["-I".into(), include_dir().display().to_string()],
    };
    let o = Command::new(gxx)
        .args([
            "-std=c++20",
            "-O1",
            "-w",
            "-pthread",
            &format!("-DPTO_TARGET_{target}"),
        ])
        .args(&headers)
        .arg("-I")
        .arg(&work)
        .arg(work.join("driver.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!(
            "g++ rejected the C++ of {name} for {target}:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(Built {
        exe,
        m: m.clone(),
        f,
    })
}

/// With `PTO_CPP_DUMP=DIR`, keeps the kernel's C++ as `DIR/<test>.<name>-<target>.cpp` (to
/// compile it against other headers by hand; nothing reads it back).
fn dump(cpp: &str, name: &str, target: &str) {
    let Some(dir) = std::env::var_os("PTO_CPP_DUMP") else {
        return;
    };
    let exe = std::env::current_exe().unwrap_or_default();
    let stem = exe.file_stem().unwrap_or_default().to_string_lossy();
    let test = stem.rsplit_once('-').map_or(&*stem, |(t, _)| t);
    let _ = std::fs::write(
        Path::new(&dir).join(format!("{test}.{name}-{target}.cpp")),
        cpp,
    );
}

impl Built {
    /// Runs the kernel on `args` (the interpreter's argument form; tensors give the sizes
    /// of the symbolic dimensions). Returns the arguments after the run (output tensors
    /// updated) and the returned scalars.
    pub fn run(&self, args: &[HostValue]) -> Result<(Vec<HostValue>, Vec<f64>), String> {
        let func = &self.m.funcs[self.f];
        let mut input = Vec::new();
        let mut dims: Vec<Option<usize>> = vec![None; func.dims.len()];
        for (p, a) in func.sig.params.iter().zip(args) {
            match (&self.m.values[p.value].ty, a) {
                (Type::Tensor(t), HostValue::Tensor(h)) => {
                    for (d, &n) in t.shape.iter().zip(&h.shape) {
                        if let Dim::Value(v) = d
                            && let Some(k) = func.dims.iter().position(|x| x == v)
                        {
                            dims[k] = Some(n);
                        }
                    }
                    input.extend((h.data.len() as i64).to_le_bytes());
                    for &x in &h.data {
                        put_value(&mut input, t.dtype, x);
                    }
                }
                // A mask in the packed form the kernel's C++ states in its header.
                (Type::Tile(t), HostValue::Tile(h)) if t.dtype == DataType::Bool => {
                    let (rows, cols) = t.rows_cols();
                    let flags: Vec<bool> = h.data.iter().map(|&x| x != 0.0).collect();
                    let bytes =
                        pto_lower::emit::cpp::pack_mask(rows as usize, cols as usize, &flags);
                    input.extend((bytes.len() as i64).to_le_bytes());
                    input.extend(bytes);
                }
                (Type::Tile(t), HostValue::Tile(h)) => {
                    input.extend((h.data.len() as i64).to_le_bytes());
                    for &x in &h.data {
                        put_value(&mut input, t.dtype, x);
                    }
                }
                (t, HostValue::Scalar(s)) => {
                    put_value(&mut input, t.dtype().unwrap_or(s.dtype), scalar_f64(s))
                }
                _ => return Err("argument kinds do not match the kernel's parameters".into()),
            }
        }
        for d in &dims {
            input.extend((d.unwrap_or(1) as i64).to_le_bytes());
        }
        let mut child = Command::new(&self.exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().ok_or("no stdin")?;
            stdin.write_all(&input).map_err(|e| e.to_string())?;
        }
        let o = child.wait_with_output().map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!(
                "the kernel failed in the C++ model ({}): {}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        let mut at = 0usize;
        let mut after = args.to_vec();
        for (p, a) in func.sig.params.iter().zip(after.iter_mut()) {
            if let (Type::Tensor(t), HostValue::Tensor(h)) = (&self.m.values[p.value].ty, a) {
                let (_, w) = wire(t.dtype);
                let data: Vec<f64> = (0..h.data.len())
                    .map(|i| get_value(&o.stdout[at + i * w..], t.dtype))
                    .collect();
                at += h.data.len() * w;
                *h = HostTensor::new(t.dtype, h.shape.clone(), data).map_err(|e| e.to_string())?;
            }
        }
        let mut rets = Vec::new();
        for t in &func.sig.returns {
            let dt = t.dtype().unwrap_or(DataType::Fp32);
            let (_, w) = wire(dt);
            rets.push(get_value(&o.stdout[at..], dt));
            at += w;
        }
        Ok((after, rets))
    }
}

/// The largest error of `got` against `want`: for floats `|g - w| / max(|w|, 1)` (relative,
/// absolute near zero), for integers `|g - w|`; NaN, or an infinity against anything but
/// itself, counts as infinitely wrong unless both are NaN (the relative error of a finite
/// value against an infinity would be `inf / inf`, a NaN the fold would drop).
pub fn max_error(got: &[f64], want: &[f64]) -> f64 {
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            if g.is_nan() && w.is_nan() || g == w {
                0.0
            } else if g.is_nan() || w.is_nan() || g.is_infinite() || w.is_infinite() {
                f64::INFINITY
            } else {
                (g - w).abs() / w.abs().max(1.0)
            }
        })
        .fold(0.0, f64::max)
}

#[test]
fn infinities_and_nans_count_as_infinitely_wrong() {
    assert_eq!(max_error(&[1.0, f64::NAN], &[1.0, f64::NAN]), 0.0);
    assert_eq!(max_error(&[f64::INFINITY], &[f64::INFINITY]), 0.0);
    for (g, w) in [
        (1.0, f64::INFINITY),
        (f64::NEG_INFINITY, f64::INFINITY),
        (f64::NAN, 2.0),
    ] {
        assert_eq!(max_error(&[g], &[w]), f64::INFINITY, "{g} against {w}");
        assert_eq!(max_error(&[w], &[g]), f64::INFINITY, "{w} against {g}");
    }
}

/// A deterministic pseudo-random value in `[-1, 1)` (a 64-bit LCG), for test inputs.
pub fn noise(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// The arguments of `m`'s entry kernel with the symbolic dimensions set to `dims` (in the
/// kernel's order): random inputs and read-and-written (`#inout`) tensors, write-only
/// outputs filled with 42 (so an element the kernel does not write compares equal only if
/// neither side writes it), scalar parameters 5 / 1.5 / `flag`.
pub fn args_for(
    m: &pto_ir::ProgramModule,
    dims: &[usize],
    seed: u64,
    flag: bool,
) -> Vec<HostValue> {
    let f = &m.funcs[m.entry.unwrap()];
    let mut seed = seed;
    f.sig
        .params
        .iter()
        .map(|p| match &m.values[p.value].ty {
            Type::Tensor(t) => {
                let shape: Vec<usize> = t
                    .shape
                    .iter()
                    .map(|d| match d {
                        Dim::Const(c) => *c as usize,
                        Dim::Value(v) => f.dims.iter().position(|x| x == v).map_or(1, |k| dims[k]),
                        Dim::Dynamic => 1,
                    })
                    .collect();
                let n = shape.iter().product();
                // A tensor the kernel reads (`#in`, and `#inout`: `&mut` without `#[out]`)
                // starts random; one it only writes starts as 42s.
                let data = if p.direction != Direction::Out {
                    (0..n)
                        .map(|_| {
                            let x = noise(&mut seed);
                            let x = if t.dtype.is_float() {
                                x * 4.0
                            } else {
                                (x * 100.0).round()
                            };
                            // Rounded to the dtype, so every side starts from the same values.
                            HostScalar::from_f64(t.dtype, x).map_or(x, |s| scalar_f64(&s))
                        })
                        .collect()
                } else {
                    vec![42.0; n]
                };
                HostValue::Tensor(HostTensor::new(t.dtype, shape, data).unwrap())
            }
            // A tile parameter: random elements of its whole shape, all valid.
            Type::Tile(t) => {
                let shape: Vec<usize> = t.shape.iter().map(|&n| n as usize).collect();
                let data = (0..shape.iter().product())
                    .map(|_| {
                        let x = noise(&mut seed);
                        if t.dtype == DataType::Bool {
                            // About half set (a mask).
                            return f64::from(u8::from(x > 0.0));
                        }
                        let x = if t.dtype.is_float() {
                            x * 4.0
                        } else {
                            (x * 100.0).round()
                        };
                        HostScalar::from_f64(t.dtype, x).map_or(x, |s| scalar_f64(&s))
                    })
                    .collect();
                HostValue::Tile(HostTile::new(t.dtype, shape, data).unwrap())
            }
            t => {
                let d = t.dtype().unwrap_or(DataType::Fp32);
                let x = match d {
                    DataType::Bool => f64::from(u8::from(flag)),
                    d if d.is_float() => 1.5,
                    _ => 5.0,
                };
                HostValue::scalar(d, x).unwrap()
            }
        })
        .collect()
}

/// The sizes of `m`'s entry kernel's symbolic dimensions in the kernel's order, from
/// `(name, size)` pairs (a dimension not named gets 1).
pub fn dims_by_name(m: &ProgramModule, sizes: &[(&str, usize)]) -> Vec<usize> {
    let f = &m.funcs[m.entry.unwrap()];
    f.dims
        .iter()
        .map(|&v| {
            let name = m.values[v].name.as_deref().unwrap_or_default();
            sizes
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(1, |&(_, s)| s)
        })
        .collect()
}

/// Runs the C++ of `m` (one symbolic dimension) in the model on A2A3 and A5 at N = 32 and 37
/// and asserts every tensor equals the interpreter's (skipped without a C++ compiler).
pub fn runs_like_the_interpreter(m: &pto_ir::ProgramModule, name: &str) {
    runs_like_the_interpreter_on(m, name, &["A2A3", "A5"]);
}

/// [`runs_like_the_interpreter`] on the named targets only.
pub fn runs_like_the_interpreter_on(m: &pto_ir::ProgramModule, name: &str, targets: &[&str]) {
    let Some(gxx) = gxx() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pto-cpp-{name}-{}", std::process::id()));
    for &target in targets {
        let built = build(&gxx, m, target, &dir, name).unwrap();
        for n in [32, 37] {
            let args = args_for(m, &[n], 5, false);
            let (got, _) = built.run(&args).unwrap();
            let mut want = args.clone();
            pto_lower::interp::run(m, m.entry.unwrap(), &mut want).unwrap();
            for (g, w) in got.iter().zip(&want) {
                if let (HostValue::Tensor(g), HostValue::Tensor(w)) = (g, w) {
                    assert_eq!(max_error(&g.data, &w.data), 0.0, "{name} {target} N = {n}");
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
