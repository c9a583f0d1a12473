#[pto::kernel]
fn k(n: i64, a: f32) -> f32 {
    let mut v = a;
    if n {
        v = v * 2.0;
    }
    while a {
        v = v + 1.0;
    }
    v
}

fn main() {}
