#[pto::kernel(gpu, arch = "PTOv9")]
fn k(a: f32) -> f32 {
    a
}

fn main() {}
