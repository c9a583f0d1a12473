#[pto::kernel]
fn k(c: bool, a: f32) -> f32 {
    if c {
        let v = a * 2.0;
    }
    v
}

fn main() {}
