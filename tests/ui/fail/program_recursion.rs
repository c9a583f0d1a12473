use pto::prelude::*;

#[pto::program]
mod rec {
    #[pto::kernel]
    pub fn ping(n: i64) -> i64 {
        pong(n - 1)
    }

    #[pto::kernel]
    pub fn pong(n: i64) -> i64 {
        ping(n)
    }

    #[pto::kernel]
    #[entry]
    pub fn main(n: i64) -> i64 {
        main(n)
    }
}

/// Outside a program a kernel calls no function, itself included.
#[pto::kernel]
fn alone(n: i64) -> i64 {
    alone(n)
}

fn main() {
    let _ = rec::main(1);
}
