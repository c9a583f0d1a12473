//! Property test: random programs built through the IRBuilder (loops with carried values,
//! branch merges, while loops, break / continue, tile and scalar ops) verify, survive
//! print -> parse -> print unchanged, and parse back structurally equal.

use proptest::prelude::*;
use pto_ir::{
    Attr, Attrs, Constant, DataType, Diag, Direction, FunctionKind, IRBuilder, IRBuilderContext,
    Opcode, Param, ProgramModule, Signature, TileType, Type, ValueId,
};

/// One step of a random program. Integer variables `i0..i3` and tile variables `t0, t1`
/// are declared (mutable) at the top of the function; steps read and assign them.
#[derive(Clone, Debug)]
enum Step {
    IntOp(u8, u8, u8, u8),
    IntConst(u8, i16),
    TileOp(u8, u8, u8),
    TileScale(u8, u8),
    TileReduce(u8),
    ShadowLet(u8),
    For(u8, Vec<Step>),
    If(u8, Vec<Step>, Vec<Step>),
    While(u8, Vec<Step>),
    Break,
    Continue,
}

fn step() -> impl Strategy<Value = Step> {
    let leaf = prop_oneof![
        (0u8..4, 0u8..4, 0u8..4, 0u8..4).prop_map(|(a, b, c, d)| Step::IntOp(a, b, c, d)),
        (0u8..4, any::<i16>()).prop_map(|(a, v)| Step::IntConst(a, v)),
        (0u8..2, 0u8..2, 0u8..5).prop_map(|(a, b, c)| Step::TileOp(a, b, c)),
        (0u8..2, 0u8..4).prop_map(|(a, b)| Step::TileScale(a, b)),
        (0u8..2).prop_map(Step::TileReduce),
        (0u8..4).prop_map(Step::ShadowLet),
        Just(Step::Break),
        Just(Step::Continue),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (0u8..4, prop::collection::vec(inner.clone(), 0..4)).prop_map(|(n, b)| Step::For(n, b)),
            (
                0u8..4,
                prop::collection::vec(inner.clone(), 0..3),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(c, t, e)| Step::If(c, t, e)),
            (0u8..4, prop::collection::vec(inner, 0..3)).prop_map(|(c, b)| Step::While(c, b)),
        ]
    })
}

struct Gen {
    b: IRBuilder,
    ctx: IRBuilderContext,
    loop_depth: usize,
    terminated: bool,
}

const INT_OPS: [Opcode; 5] = [
    Opcode::ScalarAdd,
    Opcode::ScalarSub,
    Opcode::ScalarMul,
    Opcode::ScalarMax,
    Opcode::ScalarMin,
];
const TILE_OPS: [Opcode; 5] = [
    Opcode::TileAdd,
    Opcode::TileSub,
    Opcode::TileMul,
    Opcode::TileMax,
    Opcode::TileMin,
];

impl Gen {
    fn int(&mut self, i: u8) -> Result<ValueId, Diag> {
        self.b.use_var(&mut self.ctx, &format!("i{}", i % 4))
    }

    fn op(&mut self, op: Opcode, args: Vec<ValueId>, attrs: Attrs) -> Result<ValueId, Diag> {
        self.b
            .build_op(&mut self.ctx, op, args, attrs, "")?
            .ok_or_else(|| Diag::new(pto_ir::SpanId::NONE, "op without a result"))
    }

    fn cond(&mut self, i: u8) -> Result<ValueId, Diag> {
        let a = self.int(i)?;
        let b = self.int(i + 1)?;
        self.op(Opcode::ScalarLt, vec![a, b], Attrs::new())
    }

    fn steps(&mut self, steps: &[Step]) -> Result<(), Diag> {
        for s in steps {
            if self.terminated {
                break;
            }
            self.step(s)?;
        }
        Ok(())
    }

    fn step(&mut self, s: &Step) -> Result<(), Diag> {
        match s {
            Step::IntOp(op, d, a, b) => {
                let (x, y) = (self.int(*a)?, self.int(*b)?);
                let v = self.op(INT_OPS[*op as usize % 5], vec![x, y], Attrs::new())?;
                self.b.assign_var(&self.ctx, &format!("i{}", d % 4), v)
            }
            Step::IntConst(d, v) => {
                let c =
                    self.b
                        .create_const(&mut self.ctx, Constant::Int64(i64::from(*v)), None, "")?;
                self.b.assign_var(&self.ctx, &format!("i{}", d % 4), c)
            }
            Step::TileOp(d, a, op) => {
                let x = self.b.use_var(&mut self.ctx, &format!("t{}", a % 2))?;
                let y = self
                    .b
                    .use_var(&mut self.ctx, &format!("t{}", (a + 1) % 2))?;
                let v = self.op(TILE_OPS[*op as usize % 5], vec![x, y], Attrs::new())?;
                self.b.assign_var(&self.ctx, &format!("t{}", d % 2), v)
            }
            Step::TileScale(d, a) => {
                let x = self.b.use_var(&mut self.ctx, &format!("t{}", d % 2))?;
                let k = self.int(*a)?;
                let kf = self.op(
                    Opcode::ScalarCast,
                    vec![k],
                    Attrs::new().with("dtype", Attr::Ident("fp32".into())),
                )?;
                let v = self.op(Opcode::TileMul, vec![x, kf], Attrs::new())?;
                self.b.assign_var(&self.ctx, &format!("t{}", d % 2), v)
            }
            Step::TileReduce(a) => {
                let x = self.b.use_var(&mut self.ctx, &format!("t{}", a % 2))?;
                let r = self.op(Opcode::TileRowMax, vec![x], Attrs::new())?;
                let v = self.op(Opcode::TileSub, vec![x, r], Attrs::new())?;
                self.b.assign_var(&self.ctx, &format!("t{}", a % 2), v)
            }
            Step::ShadowLet(a) => {
                let x = self.int(*a)?;
                let v = self.op(Opcode::ScalarAdd, vec![x, x], Attrs::new())?;
                self.b
                    .declare_var(&self.ctx, &format!("i{}", a % 4), v, true)
            }
            Step::Break | Step::Continue if self.loop_depth > 0 => {
                if matches!(s, Step::Break) {
                    self.b.create_break(&mut self.ctx)?;
                } else {
                    self.b.create_continue(&mut self.ctx)?;
                }
                self.terminated = true;
                Ok(())
            }
            Step::Break | Step::Continue => Ok(()),
            Step::For(n, body) => {
                let lb = self
                    .b
                    .create_const(&mut self.ctx, Constant::Int64(0), None, "")?;
                let ub = self.int(*n)?;
                let st = self
                    .b
                    .create_const(&mut self.ctx, Constant::Int64(1), None, "")?;
                let iv = self.b.new_scalar(DataType::Int64, "k");
                let fs = self.b.create_for_stmt(&mut self.ctx, iv, lb, ub, st)?;
                self.b.enter_for_body(&mut self.ctx, fs)?;
                self.nested(true, body)?;
                self.ctx.pop_scope()?;
                self.b.exit_for_statement(&mut self.ctx, fs)
            }
            Step::If(c, t, e) => {
                let c = self.cond(*c)?;
                let ifs = self.b.create_if_stmt(&mut self.ctx, c)?;
                self.b.enter_if_then(&mut self.ctx, ifs)?;
                self.nested(false, t)?;
                self.ctx.pop_scope()?;
                self.b.enter_if_else(&mut self.ctx, ifs)?;
                self.nested(false, e)?;
                self.ctx.pop_scope()?;
                self.b.exit_if_statement(&mut self.ctx, ifs).map(|_| ())
            }
            Step::While(c, body) => {
                let ws = self.b.create_while_stmt(&mut self.ctx)?;
                self.b.enter_while_cond(&mut self.ctx, ws)?;
                let cond = self.cond(*c)?;
                self.b.create_condition(&mut self.ctx, cond)?;
                self.ctx.pop_scope()?;
                self.b.enter_while_body(&mut self.ctx, ws)?;
                self.nested(true, body)?;
                self.ctx.pop_scope()?;
                self.b.exit_while_statement(&mut self.ctx, ws)
            }
        }
    }

    /// Runs the steps of a nested region; a `break` / `continue` ends only that region.
    fn nested(&mut self, is_loop: bool, steps: &[Step]) -> Result<(), Diag> {
        let saved = self.terminated;
        self.loop_depth += usize::from(is_loop);
        let r = self.steps(steps);
        self.loop_depth -= usize::from(is_loop);
        self.terminated = saved;
        r
    }
}

fn build(steps: &[Step]) -> ProgramModule {
    let mut b = IRBuilder::new(ProgramModule::new("random"));
    let tile = Type::Tile(TileType::new(DataType::Fp32, vec![16, 32]));
    let params: Vec<Param> = (0..2)
        .map(|i| Param {
            value: b.new_value(tile.clone(), &format!("p{i}")),
            direction: Direction::In,
        })
        .collect();
    let n = b.new_scalar(DataType::Int64, "n");
    let mut all = params.clone();
    all.push(Param {
        value: n,
        direction: Direction::In,
    });
    let f = b
        .create_function(
            "k",
            FunctionKind::Kernel,
            Signature {
                params: all,
                returns: vec![Type::Scalar(DataType::Int64)],
            },
            true,
        )
        .expect("fresh module");
    let mut ctx = IRBuilderContext::new();
    b.enter_function_body(&mut ctx, f).expect("function exists");
    for i in 0..4 {
        let v = b
            .create_const(&mut ctx, Constant::Int64(i), None, "")
            .expect("in body");
        b.declare_var(&ctx, &format!("i{i}"), v, true)
            .expect("in body");
    }
    b.declare_var(&ctx, "i3", n, true).expect("in body");
    for (i, p) in params.iter().enumerate() {
        b.declare_var(&ctx, &format!("t{i}"), p.value, true)
            .expect("in body");
    }
    let mut g = Gen {
        b,
        ctx,
        loop_depth: 0,
        terminated: false,
    };
    g.steps(steps).expect("generated programs are well formed");
    let r = g.b.use_var(&mut g.ctx, "i0").expect("declared");
    g.b.create_return(&mut g.ctx, vec![r]).expect("in body");
    g.ctx.pop_scope().expect("balanced");
    g.b.finish(&g.ctx).expect("balanced")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_verify_and_round_trip(steps in prop::collection::vec(step(), 0..8)) {
        let m = build(&steps);
        if let Err(e) = pto_ir::verify(&m) {
            panic!("built program does not verify:\n{e}\n{m}");
        }
        let text = m.to_string();
        let parsed = pto_ir::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(parsed.to_string(), text.clone());
        prop_assert!(pto_ir::structurally_equal(&m, &parsed), "not structurally equal:\n{}", text);
        prop_assert!(pto_ir::verify(&parsed).is_ok());
    }
}
