/// Re-hashes a 64-bit value to a uniformly distributed one.
///
/// Winnowing keeps the minimum of each window, so the hashes it selects are
/// skewed towards small values (the paper, §5.2: "if a uniform distribution is
/// desired, the selected hashes can be hashed a second time"). This is the
/// SplitMix64 / MurmurHash3 finalizer (variant 13 of Stafford's mixers): a
/// bijection on `u64`, so two selected hashes are equal after re-hashing
/// exactly when they were equal before — matching is unaffected.
#[inline]
pub fn rehash(h: u64) -> u64 {
    let mut z = h;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_values() {
        assert_eq!(rehash(0), 0);
        assert_eq!(rehash(1), 0x5692_161D_100B_05E5);
    }
}
