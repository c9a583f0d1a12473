#[pto::kernel]
fn k(n: i64) -> i64 {
    n = n + 1;
    n
}

fn main() {}
