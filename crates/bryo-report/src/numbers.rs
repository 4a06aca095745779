//! Numbers as every renderer writes them.

/// `"s"` unless `n` is 1: `format!("{n} file{}", plural(n))`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `value` out of `full` (a fraction with `full` 1, a percentage with 100)
/// as a percentage with `decimals` (0 or 1) decimals, rounded down and
/// clamped to 0..=100%, so only a full match reads `100%`; `?%` for NaN.
/// A hair above the value absorbs binary rounding (29.0 stored as
/// 28.999…), far below what one symbol changes.
pub fn percent_down(value: f64, full: f64, decimals: u8) -> String {
    if value.is_nan() {
        return "?%".to_owned();
    }
    let clamped = value.clamp(0.0, full);
    if decimals == 0 {
        format!("{}%", (clamped * (100.0 / full) + 1e-9).floor() as u32)
    } else {
        let tenths = (clamped * (1000.0 / full) + 1e-9).floor() as u32;
        format!("{}.{}%", tenths / 10, tenths % 10)
    }
}

/// `n` with a comma between groups of three digits: 1234567 →
/// `"1,234,567"`, as the terminal outputs of the experiments print counts.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_down_and_clamp() {
        assert_eq!(percent_down(99.99, 100.0, 0), "99%");
        assert_eq!(percent_down(0.29, 1.0, 1), "29.0%");
        assert_eq!(percent_down(89.39, 100.0, 1), "89.3%");
        assert_eq!(percent_down(1.5, 1.0, 1), "100.0%");
        assert_eq!(percent_down(-1.0, 100.0, 0), "0%");
        assert_eq!(percent_down(f64::NAN, 1.0, 1), "?%");
        assert_eq!((plural(1), plural(0), plural(2)), ("", "s", "s"));
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }
}
