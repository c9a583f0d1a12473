//! Calls in kernels with cube and vector work (`pto-lower/src/passes/inline_calls.rs`): on
//! A2A3 the cube and vector units are separate cores, so such a kernel is split between
//! them (`lower/split.rs`) with its calls inlined first, the callees' work split with the
//! caller's. Each program's host function matches the interpreter (which runs the calls as
//! written) exactly, and its `CPP` for A2A3 (split) and A5 (not split, calls kept) runs in
//! the C++ model of pto-isa at an aligned and a ragged size, matching the interpreter.
#![allow(clippy::unwrap_used)]

use pto::prelude::*;

mod support;

use support::run::{arg, data, interp, values};

/// A callee with vector work, called from a kernel with a matmul: `d = relu(a @ b) * 2`,
/// the cube's result handed to the callee's vector work through `c`.
#[pto::program]
mod vector_callee {
    #[pto::kernel]
    pub fn scale(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
        for i in (0..R).step_by(16) {
            out.store([i, 0], x.load::<16, 32>([i, 0]) * 2.0);
        }
    }

    #[pto::kernel]
    #[entry]
    pub fn run(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 32>,
        c: &mut Tensor<f32, M, 32>,
        d: &mut Tensor<f32, M, 32>,
    ) {
        for i in (0..M).step_by(16) {
            let h = matmul(a.load::<16, 32>([i, 0]), b.load::<32, 32>([0, 0])).relu();
            c.store([i, 0], h);
        }
        scale(c, d);
    }
}

/// A callee with cube work (a matmul), called from a kernel with vector work:
/// `out = relu(a) @ b`, the vector result handed to the callee's matmul through `t`.
#[pto::program]
mod cube_callee {
    #[pto::kernel]
    pub fn mm(x: &Tensor<f32, R, 32>, w: &Tensor<f32, 32, 32>, out: &mut Tensor<f32, R, 32>) {
        for i in (0..R).step_by(16) {
            out.store(
                [i, 0],
                matmul(x.load::<16, 32>([i, 0]), w.load::<32, 32>([0, 0])),
            );
        }
    }

    #[pto::kernel]
    #[entry]
    pub fn run(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 32>,
        t: &mut Tensor<f32, M, 32>,
        out: &mut Tensor<f32, M, 32>,
    ) {
        for i in (0..M).step_by(16) {
            t.store([i, 0], a.load::<16, 32>([i, 0]).relu());
        }
        mm(t, b, out);
    }
}

/// A callee called twice with other tensors and scalars, around a matmul:
/// `t = a * 0.5 + 1`, `c = t @ b`, `d = c * -1 + 0.25`.
#[pto::program]
mod called_twice {
    #[pto::kernel]
    pub fn affine(x: &Tensor<f32, R, C>, s: f32, o: f32, out: &mut Tensor<f32, R, C>) {
        for i in (0..R).step_by(16) {
            out.store([i, 0], x.load::<16, 32>([i, 0]) * s + o);
        }
    }

    #[pto::kernel]
    #[entry]
    pub fn run(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 32>,
        t: &mut Tensor<f32, M, 32>,
        c: &mut Tensor<f32, M, 32>,
        d: &mut Tensor<f32, M, 32>,
    ) {
        affine(a, 0.5, 1.0, t);
        for i in (0..M).step_by(16) {
            c.store(
                [i, 0],
                matmul(t.load::<16, 32>([i, 0]), b.load::<32, 32>([0, 0])),
            );
        }
        affine(c, -1.0, 0.25, d);
    }
}

/// A callee inside a loop: each 16-row block's matmul is a call, and the vector work of
/// the block reads its result: `d = relu(a @ b) + 1`.
#[pto::program]
mod in_a_loop {
    #[pto::kernel]
    pub fn block(
        x: &Tensor<f32, R, 32>,
        w: &Tensor<f32, 32, 32>,
        i: i64,
        out: &mut Tensor<f32, R, 32>,
    ) {
        out.store(
            [i, 0],
            matmul(x.load::<16, 32>([i, 0]), w.load::<32, 32>([0, 0])),
        );
    }

    #[pto::kernel]
    #[entry]
    pub fn run(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 32>,
        c: &mut Tensor<f32, M, 32>,
        d: &mut Tensor<f32, M, 32>,
    ) {
        for i in (0..M).step_by(16) {
            block(a, b, i, c);
            d.store([i, 0], c.load::<16, 32>([i, 0]).relu() + 1.0);
        }
    }
}

/// A callee with vector work that returns a scalar (a row count it writes to a tensor and
/// reads back) which bounds the cube's loop: `t = relu(a)`, `out = t @ b` over the rows the
/// callee counted.
#[pto::program]
mod returns_a_scalar {
    #[pto::kernel]
    pub fn prepare(
        x: &Tensor<f32, R, 32>,
        t: &mut Tensor<f32, R, 32>,
        n: &mut Tensor<i64, 1, 8>,
    ) -> i64 {
        for i in (0..R).step_by(16) {
            t.store([i, 0], x.load::<16, 32>([i, 0]).relu());
        }
        n.write([0, 0], R);
        n.read([0, 0])
    }

    #[pto::kernel]
    #[entry]
    pub fn run(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 32>,
        t: &mut Tensor<f32, M, 32>,
        n: &mut Tensor<i64, 1, 8>,
        out: &mut Tensor<f32, M, 32>,
    ) -> i64 {
        let rows = prepare(a, t, n);
        for i in (0..rows).step_by(16) {
            out.store(
                [i, 0],
                matmul(t.load::<16, 32>([i, 0]), b.load::<32, 32>([0, 0])),
            );
        }
        rows * 2
    }
}

/// A kernel with vector work only that calls a callee with cube work only: together they
/// use both units, so on A2A3 the caller is split too (`relu(a) @ b` into `out`, then
/// `out + 1` into `d`).
#[pto::program]
mod other_core_callee {
    #[pto::kernel]
    pub fn mm(x: &Tensor<f32, R, 32>, w: &Tensor<f32, 32, 32>, out: &mut Tensor<f32, R, 32>) {
        for i in (0..R).step_by(16) {
            out.store(
                [i, 0],
                matmul(x.load::<16, 32>([i, 0]), w.load::<32, 32>([0, 0])),
            );
        }
    }

    #[pto::kernel]
    #[entry]
    pub fn run(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 32>,
        out: &mut Tensor<f32, M, 32>,
        d: &mut Tensor<f32, M, 32>,
    ) {
        mm(a, b, out);
        for i in (0..M).step_by(16) {
            d.store([i, 0], out.load::<16, 32>([i, 0]) + 1.0);
        }
    }
}

/// A kernel without tile work calling a kernel with both kinds: the entry is split with
/// the callee inlined (emitted as a device function of the entry, the callee would run
/// unsplit on one core, which A2A3 cannot): `d = relu(a @ b)` through `c`.
#[pto::program]
mod no_work_caller {
    #[pto::kernel]
    pub fn mixed(
        x: &Tensor<f32, R, 32>,
        w: &Tensor<f32, 32, 32>,
        c: &mut Tensor<f32, R, 32>,
        d: &mut Tensor<f32, R, 32>,
    ) {
        for i in (0..R).step_by(16) {
            c.store(
                [i, 0],
                matmul(x.load::<16, 32>([i, 0]), w.load::<32, 32>([0, 0])),
            );
            d.store([i, 0], c.load::<16, 32>([i, 0]).relu());
        }
    }

    #[pto::kernel]
    #[entry]
    pub fn run(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 32>,
        c: &mut Tensor<f32, M, 32>,
        d: &mut Tensor<f32, M, 32>,
    ) {
        mixed(a, b, c, d);
    }
}

const SIZES: [usize; 2] = [32, 37];

fn input(m: usize, k: usize, seed: u64) -> pto::Tensor<f32> {
    pto::Tensor::from_vec(values(m * k, seed, -1.0, 1.0), [m, k]).unwrap()
}

/// Asserts the host run's tensors equal the interpreter's exactly.
fn same(name: &str, m: usize, host: &[Vec<f64>], want: &[Vec<f64>]) {
    for (k, (h, w)) in host.iter().zip(want).enumerate() {
        assert_eq!(h, w, "{name} M = {m}: argument {k}, host vs interpreter");
    }
}

#[test]
fn host_functions_match_the_interpreter() {
    for m in SIZES {
        let (a, b) = (input(m, 32, 1 + m as u64), input(32, 32, 2));
        let z = || pto::Tensor::<f32>::zeros([m, 32]);

        let (mut c, mut d) = (z(), z());
        let want = interp(
            &vector_callee::program(),
            vec![arg(&a), arg(&b), arg(&c), arg(&d)],
        );
        vector_callee::run(&a, &b, &mut c, &mut d).unwrap();
        same("vector_callee", m, &[data(&c), data(&d)], &want[2..]);

        let (mut t, mut out) = (z(), z());
        let want = interp(
            &cube_callee::program(),
            vec![arg(&a), arg(&b), arg(&t), arg(&out)],
        );
        cube_callee::run(&a, &b, &mut t, &mut out).unwrap();
        same("cube_callee", m, &[data(&t), data(&out)], &want[2..]);

        let (mut t, mut c, mut d) = (z(), z(), z());
        let want = interp(
            &called_twice::program(),
            vec![arg(&a), arg(&b), arg(&t), arg(&c), arg(&d)],
        );
        called_twice::run(&a, &b, &mut t, &mut c, &mut d).unwrap();
        same(
            "called_twice",
            m,
            &[data(&t), data(&c), data(&d)],
            &want[2..],
        );

        let (mut c, mut d) = (z(), z());
        let want = interp(
            &in_a_loop::program(),
            vec![arg(&a), arg(&b), arg(&c), arg(&d)],
        );
        in_a_loop::run(&a, &b, &mut c, &mut d).unwrap();
        same("in_a_loop", m, &[data(&c), data(&d)], &want[2..]);

        let (mut t, mut out) = (z(), z());
        let mut n = pto::Tensor::<i64>::zeros([1, 8]);
        let mut iargs = vec![arg(&a), arg(&b), arg(&t), arg(&n), arg(&out)];
        let m_ir = returns_a_scalar::program();
        let rets = pto_lower::interp::run(&m_ir, m_ir.entry.unwrap(), &mut iargs).unwrap();
        let got = returns_a_scalar::run(&a, &b, &mut t, &mut n, &mut out).unwrap();
        assert_eq!(got, 2 * m as i64);
        assert_eq!(rets[0].as_f64(), Some(2.0 * m as f64));
        let want: Vec<Vec<f64>> = iargs
            .iter()
            .map(|v| v.as_tensor().unwrap().data.clone())
            .collect();
        same(
            "returns_a_scalar",
            m,
            &[data(&t), data(&n), data(&out)],
            &want[2..],
        );

        let (mut out, mut d) = (z(), z());
        let want = interp(
            &other_core_callee::program(),
            vec![arg(&a), arg(&b), arg(&out), arg(&d)],
        );
        other_core_callee::run(&a, &b, &mut out, &mut d).unwrap();
        same("other_core_callee", m, &[data(&out), data(&d)], &want[2..]);

        let (mut c, mut d) = (z(), z());
        let want = interp(
            &no_work_caller::program(),
            vec![arg(&a), arg(&b), arg(&c), arg(&d)],
        );
        no_work_caller::run(&a, &b, &mut c, &mut d).unwrap();
        same("no_work_caller", m, &[data(&c), data(&d)], &want[2..]);
    }
}

/// A program: its name, module, `LOWERED` and the callee its A2A3 entry inlines.
type Program = (
    &'static str,
    pto::ir::ProgramModule,
    &'static str,
    &'static str,
);

fn programs() -> Vec<Program> {
    vec![
        (
            "vector_callee",
            vector_callee::program(),
            vector_callee::LOWERED,
            "scale",
        ),
        (
            "cube_callee",
            cube_callee::program(),
            cube_callee::LOWERED,
            "mm",
        ),
        (
            "called_twice",
            called_twice::program(),
            called_twice::LOWERED,
            "affine",
        ),
        (
            "in_a_loop",
            in_a_loop::program(),
            in_a_loop::LOWERED,
            "block",
        ),
        (
            "returns_a_scalar",
            returns_a_scalar::program(),
            returns_a_scalar::LOWERED,
            "prepare",
        ),
        (
            "other_core_callee",
            other_core_callee::program(),
            other_core_callee::LOWERED,
            "mm",
        ),
        (
            "no_work_caller",
            no_work_caller::program(),
            no_work_caller::LOWERED,
            "mixed",
        ),
    ]
}

#[test]
fn the_a2a3_entry_is_split_with_its_calls_inlined() {
    for (name, m, lowered, callee) in programs() {
        // The entry's function in LOWERED: no call left, and the A2A3 route after it,
        // naming the inlined callee.
        let entry = lowered
            .find("func.func @run")
            .map(|at| &lowered[at..])
            .unwrap();
        let note = format!("// The calls of `{callee}` are inlined (passes/inline_calls.rs)");
        assert!(!entry.contains("func.call"), "{name}:\n{lowered}");
        assert!(entry.contains("// A2A3 route"), "{name}:\n{lowered}");
        assert!(entry.contains(&note), "{name}:\n{lowered}");
        // The C++ is the split entry alone: the callee is not a device function of it.
        let cpp = pto_lower::compile_program(m.clone()).unwrap().cpp;
        assert!(cpp.contains(&note), "{name}:\n{cpp}");
        assert!(
            cpp.contains("AICORE inline void run_aic("),
            "{name}:\n{cpp}"
        );
        assert!(
            cpp.contains("AICORE inline void run_aiv("),
            "{name}:\n{cpp}"
        );
        assert!(
            !cpp.contains(&format!("AICORE inline void {callee}(")),
            "{name}:\n{cpp}"
        );
        // On A5 the cores have both units: not split, the call kept.
        let mut a5 = m;
        a5.attrs.set("arch", pto::ir::Attr::Str("A5".into()));
        let cpp = pto_lower::compile_program(a5).unwrap().cpp;
        assert!(!cpp.contains("run_aic("), "{name} A5:\n{cpp}");
        assert!(
            cpp.contains(&format!("AICORE inline void {callee}(")),
            "{name} A5:\n{cpp}"
        );
    }
}

#[test]
fn the_cpp_runs_in_the_model_on_both_targets() {
    let sizes: support::model::Sizes = SIZES.iter().map(|&m| vec![("M", m)]).collect();
    let mut problems = Vec::new();
    for (name, m, _, _) in programs() {
        problems.extend(support::model::check(name, &m, &sizes, true));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The inlined entry is a valid module that computes what the calls did: the verifier
/// accepts it and the interpreter gives the same tensors and results as on the module
/// with its calls.
#[test]
fn the_inlined_entry_verifies_and_interprets_the_same() {
    use pto_lower::passes::inline_calls::inline_calls;
    for (name, m, _, _) in programs() {
        let mut inlined = m.clone();
        let entry = inlined.entry.unwrap();
        assert!(
            inline_calls(&mut inlined, entry, "test").unwrap() > 0,
            "{name}"
        );
        pto::ir::verify(&inlined)
            .unwrap_or_else(|e| panic!("{name}: {e:?}\n{}", inlined.to_text()));
        for rows in SIZES {
            let dims = support::model::harness::dims_by_name(&m, &[("M", rows)]);
            let args = support::model::harness::args_for(&m, &dims, 5, false);
            let (mut a, mut b) = (args.clone(), args);
            let ra = pto_lower::interp::run(&m, entry, &mut a).unwrap();
            let rb = pto_lower::interp::run(&inlined, entry, &mut b).unwrap();
            assert_eq!(ra, rb, "{name} M = {rows}");
            assert_eq!(a, b, "{name} M = {rows}");
        }
    }
}

/// A call graph too large to inline is refused at the call that passes the limit: with
/// no room the first call of `affine`, with room for one copy the second.
#[test]
fn inlining_past_the_limit_is_refused_at_the_call() {
    use pto_lower::passes::inline_calls::inline_calls_within;
    let m = called_twice::program();
    let entry = m.entry.unwrap();
    let mut spans = Vec::new();
    let mut room = 0;
    loop {
        match inline_calls_within(&mut m.clone(), entry, "why", room) {
            Ok(n) => {
                assert_eq!(n, 1);
                break;
            }
            Err(e) => {
                assert!(
                    e.message
                        .starts_with("the call of `affine` cannot be inlined"),
                    "{}",
                    e.message
                );
                assert!(e.message.ends_with(": why"), "{}", e.message);
                if !spans.contains(&e.at) {
                    spans.push(e.at);
                }
            }
        }
        room += 1;
        assert!(room < 10_000, "no room was enough");
    }
    assert_eq!(spans.len(), 2, "refused at each of the two calls in turn");
}
