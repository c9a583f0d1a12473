use pto::prelude::*;

// A loop-carried value in a parallel loop: an error at each assignment, naming the variable.
#[pto::kernel]
fn carried(x: &Tensor<f32, B, 64>, #[out] y: &mut Tensor<f32, B, 64>) {
    let mut acc = Tile::<f32, 1, 64>::zeros();
    let mut n = 0;
    for b in parallel(0..B) {
        let t = x.load::<1, 64>([b, 0]);
        acc = acc + t;
        if b > 2 {
            n += 1;
        }
        y.store([b, 0], t);
    }
    y.store([0, 0], acc);
}

// `parallel` goes around the range, once.
#[pto::kernel]
fn heads(x: &Tensor<f32, B, 64>, #[out] y: &mut Tensor<f32, B, 64>) {
    for b in parallel(parallel(0..B)) {
        y.store([b, 0], x.load::<1, 64>([b, 0]));
    }
    for b in parallel(0..B, 2) {
        y.store([b, 0], x.load::<1, 64>([b, 0]));
    }
    for b in (parallel(0..B)).step_by(2) {
        y.store([b, 0], x.load::<1, 64>([b, 0]));
    }
}

fn main() {}
