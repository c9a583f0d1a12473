use pto::prelude::*;

#[pto::program]
mod no_entry {
    #[pto::kernel]
    pub fn a(x: f32) -> f32 {
        x
    }
}

#[pto::program]
mod two_entries {
    #[pto::kernel]
    #[entry]
    pub fn a(x: f32) -> f32 {
        x
    }

    #[pto::kernel]
    #[entry]
    pub fn b(x: f32) -> f32 {
        x
    }
}

#[pto::program]
mod duplicate {
    #[pto::kernel]
    #[entry]
    pub fn a(x: f32) -> f32 {
        x
    }

    #[pto::kernel]
    pub fn a(x: i64) -> i64 {
        x
    }
}

#[pto::program]
mod not_a_kernel {
    #[pto::kernel]
    #[entry]
    pub fn a(x: f32) -> f32 {
        x
    }

    pub fn helper(x: f32) -> f32 {
        x
    }
}

#[pto::program]
mod reserved {
    #[pto::kernel]
    #[entry]
    pub fn program(x: f32) -> f32 {
        x
    }
}

fn main() {
    // The stubs keep these calls compiling: no second cascade of errors.
    let _ = no_entry::a(1.0);
    let _ = two_entries::b(1.0);
    let _ = not_a_kernel::a(1.0);
    let _ = no_entry::IR;
}
