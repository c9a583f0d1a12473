#[pto::kernel]
fn k(n: i64) -> i64 {
    let m = unsafe { n };
    m
}

fn main() {}
