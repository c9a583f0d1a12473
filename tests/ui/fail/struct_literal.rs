struct P {
    x: f32,
}

#[pto::kernel]
fn k(a: f32) -> f32 {
    let p = P { x: a };
    a
}

fn main() {}
