#[pto::kernel]
fn k(n: i64) -> i64 {
    println!("{}", n);
    n
}

fn main() {}
