//! A corpus of unusual but legal kernels, built and run: raw identifiers, non-ASCII
//! identifiers, `bool` tensors and tiles, a kernel named like the crate, and nesting as deep
//! as the macro accepts. Each must compile (this file is the test) and compute what plain
//! Rust computes, and its `NAME::IR` must parse back.

/// Raw identifiers for parameters, locals and loop variables.
#[pto::kernel(control_flow)]
pub fn raw_names(r#loop: i64, r#match: i64) -> i64 {
    let mut r#type = 0;
    for r#in in 0..r#loop {
        r#type += r#in * r#match;
    }
    r#type
}

/// Non-ASCII identifiers.
#[pto::kernel(control_flow)]
pub fn unicode_names(ñ: i64, 変数: i64) -> i64 {
    let mut größe = ñ;
    for é in 0..変数 {
        größe += é;
    }
    größe
}

#[test]
fn raw_identifiers_work() {
    assert_eq!(raw_names(4, 3).ok(), Some(18));
    assert!(raw_names::program().to_string().contains("func.func"));
}

#[test]
fn unicode_identifiers_work() {
    assert_eq!(unicode_names(1, 4).ok(), Some(7));
    assert!(unicode_names::program().to_string().contains("func.func"));
}

/// Parameters named like the identifiers the host code makes up for others (`loop_0` for
/// `r#loop`, `v_2`), like `pto::isa` functions, and like the kernel.
#[pto::kernel(control_flow)]
pub fn collide(r#loop: i64, loop_0: i64, v_2: i64, tload: i64, collide: i64) -> i64 {
    r#loop * 10000 + loop_0 * 1000 + v_2 * 100 + tload * 10 + collide
}

#[test]
fn colliding_names_keep_their_values() {
    assert_eq!(collide(1, 2, 3, 4, 5).ok(), Some(12345));
}

/// Builds `#[pto::kernel(control_flow)] fn $name(n: i64) -> i64` whose body nests one
/// `if` per `x` given, around a counter.
macro_rules! nested_ifs {
    ($name:ident [] $($body:tt)*) => {
        /// Counts the nested `if`s it passes.
        #[pto::kernel(control_flow)]
        pub fn $name(n: i64) -> i64 {
            let mut m = 0;
            $($body)*
            m
        }
    };
    ($name:ident [x $($rest:tt)*] $($body:tt)*) => {
        nested_ifs!($name [$($rest)*] if n > 0 { m = m + 1; $($body)* });
    };
}

// 120 nested `if`s: 120 levels, within the macro's bound of 128 (and past the 100 the IR
// parser used to accept, when `program()` silently returned an empty module).
nested_ifs!(ifs_120 [
    x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x
    x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x
    x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x
]);

#[test]
fn a_kernel_nested_120_deep_runs_and_its_ir_parses_back() {
    assert_eq!(ifs_120(1).ok(), Some(120));
    assert_eq!(ifs_120(0).ok(), Some(0));
    let m = ifs_120::program();
    assert_eq!(m.to_string(), ifs_120::IR);
    assert!(pto::ir::verify(&m).is_ok());
}

/// A kernel with a raw identifier for a name (the fuzz target found its IR did not parse
/// back: the module was named `@r#loop`).
#[pto::kernel(control_flow)]
pub fn r#loop(r#in: i64) -> i64 {
    r#in + 1
}

/// Parameters named like the host code's own variables (`__pto_meter`, `__ub`, `__step`).
#[pto::kernel(control_flow)]
pub fn internal_names(__pto_meter: i64, __ub: i64, __step: i64, n: i64) -> i64 {
    let mut s = 0;
    for i in (0..n).step_by(__step) {
        s = s + __pto_meter + __ub + i - i;
    }
    s
}

#[test]
fn names_the_host_code_uses_itself_keep_their_values() {
    assert_eq!(r#loop(1).ok(), Some(2));
    assert!(r#loop::program().to_string().contains("@loop"));
    assert_eq!(internal_names(3, 4, 2, 6).ok(), Some(21));
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa, against their host functions on the model's arguments (5 for every `i64`):
/// names that are C++ keywords, Unicode, 120 nested `if`s.
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use pto_lower::interp::HostValue;
    use support::model::Model;
    fn i(a: &[HostValue], k: usize) -> i64 {
        a[k].as_i64().unwrap_or(0)
    }
    fn ret(r: Result<i64, pto::Error>) -> Result<Vec<f64>, String> {
        r.map(|v| vec![v as f64]).map_err(|e| e.to_string())
    }
    let one = || vec![vec![]];
    let mut problems = Vec::new();
    problems.extend(
        Model::new("raw_names", &raw_names::program(), one())
            .against(|a| ret(raw_names(i(a, 0), i(a, 1)))),
    );
    problems.extend(
        Model::new("unicode_names", &unicode_names::program(), one())
            .against(|a| ret(unicode_names(i(a, 0), i(a, 1)))),
    );
    problems.extend(
        Model::new("collide", &collide::program(), one())
            .against(|a| ret(collide(i(a, 0), i(a, 1), i(a, 2), i(a, 3), i(a, 4)))),
    );
    problems.extend(
        Model::new("ifs_120", &ifs_120::program(), one()).against(|a| ret(ifs_120(i(a, 0)))),
    );
    problems
        .extend(Model::new("loop", &r#loop::program(), one()).against(|a| ret(r#loop(i(a, 0)))));
    problems.extend(
        Model::new("internal_names", &internal_names::program(), one())
            .against(|a| ret(internal_names(i(a, 0), i(a, 1), i(a, 2), i(a, 3)))),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
