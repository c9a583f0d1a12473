#[pto::kernel]
fn k(n: i64) -> i64 {
    let mut i = 0;
    loop {
        i += 1;
    }
    i
}

fn main() {}
