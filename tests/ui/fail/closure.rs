#[pto::kernel]
fn k(a: f32) -> f32 {
    let f = |v: f32| v * 2.0;
    a
}

fn main() {}
