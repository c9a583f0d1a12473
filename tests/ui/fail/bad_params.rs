#[pto::kernel]
fn k(a: Vec<f32>, b: &Tensor<f32>, c: &Tile<f32, R, 16>, d: f32) -> f32 {
    d
}

fn main() {}
