#[pto::kernel]
fn k(c: bool, a: f32, b: i32) -> f32 {
    let v = if c { a } else { b };
    v
}

fn main() {}
