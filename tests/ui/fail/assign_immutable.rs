#[pto::kernel]
fn k(n: i64) -> i64 {
    let total = 0;
    for i in 0..n {
        total = total + i;
    }
    total
}

fn main() {}
