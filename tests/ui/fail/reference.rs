#[pto::kernel]
fn k(a: f32) -> f32 {
    let r = &a;
    a
}

fn main() {}
