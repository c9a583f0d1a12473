#[pto::kernel]
fn k(n: i64) -> i64 {
    match n {
        0 => 1,
        _ => n,
    }
}

fn main() {}
