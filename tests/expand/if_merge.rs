/// An `if` that merges a scalar assigned in one branch.
#[pto::kernel]
pub fn clamp_add(a: f32, limit: f32, flag: bool) -> f32 {
    let mut v = a;
    if flag {
        v = v + 1.0;
    }
    if v > limit { limit } else { v }
}
