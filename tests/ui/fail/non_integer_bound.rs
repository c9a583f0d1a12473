#[pto::kernel]
fn k(n: f32) -> f32 {
    let mut v = 0.0f32;
    for i in 0..n {
        v = v + 1.0;
    }
    v
}

fn main() {}
