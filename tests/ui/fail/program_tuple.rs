use pto::prelude::*;

#[pto::program]
mod tuples {
    #[pto::kernel]
    pub fn pair(n: i64) -> (i64, f32) {
        (n, n as f32)
    }

    #[pto::kernel]
    pub fn wrong_part(n: i64) -> (i64, f32) {
        (n, n)
    }

    #[pto::kernel]
    pub fn not_a_tuple(n: i64) -> (i64, f32) {
        n
    }

    #[pto::kernel]
    #[entry]
    pub fn main(n: i64) -> i64 {
        let one = pair(n);
        let (a, b, c) = pair(n);
        let (d, e) = n;
        n
    }
}

fn main() {
    let _: Result<(i64, f32), pto::Error> = tuples::pair(1);
}
