#[pto::kernel]
fn k(a: f32, c: bool) -> f32 {
    if c {
        return a;
    }
    a * 2.0
}

fn main() {}
