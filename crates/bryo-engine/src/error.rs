use std::fmt;

/// Everything that can go wrong when configuring or running the engine.
///
/// The engine never panics on user-supplied values: every invalid parameter or
/// oversized input is reported through this type.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The noise threshold `k` (k-gram length) was zero.
    ZeroK,
    /// The winnowing window `w` was zero.
    ZeroWindow,
    /// The guarantee threshold `t` was below the noise threshold `k`.
    GuaranteeBelowNoise {
        /// The noise threshold given.
        k: usize,
        /// The guarantee threshold given.
        t: usize,
    },
    /// A parameter is larger than the engine supports.
    TooLarge {
        /// Which parameter (`"k"`, `"w"`, `"n"`).
        name: &'static str,
        /// The value given.
        value: u64,
        /// The largest value accepted.
        max: u64,
    },
    /// The modulus `p` of a 0 mod p selection was zero.
    ZeroModulus,
    /// The sketch size `n` of a smallest-n selection was zero.
    ZeroSketch,
    /// The polynomial is not irreducible of degree 64 over GF(2).
    ReduciblePolynomial {
        /// The polynomial without its leading `t^64` term.
        low_bits: u64,
    },
    /// A range of k-grams to hash runs past the end of the input.
    RangeOutOfBounds {
        /// First k-gram asked for.
        first: u64,
        /// Number of k-grams asked for.
        count: u64,
        /// Number of k-grams in the input.
        kgrams: u64,
    },
    /// The input has more k-grams than a `u32` position can address.
    InputTooLong {
        /// Number of k-grams in the input.
        kgrams: u64,
    },
    /// A polynomial degree outside `1..=128`, or low bits at or above the
    /// degree.
    UnsupportedDegree {
        /// The degree given.
        degree: u32,
    },
    /// `t^degree + low_bits` is not irreducible over GF(2).
    ReducibleModulus {
        /// The degree of the polynomial.
        degree: u32,
        /// The polynomial without its leading term.
        low_bits: u128,
    },
    /// A composed string would be longer than `u64::MAX` bits.
    StringTooLong,
    /// An element index outside the ground set of a subset fingerprint.
    ElementOutOfRange {
        /// The index given.
        index: u64,
        /// The size of the ground set.
        len: u64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroK => write!(f, "the noise threshold k must be at least 1"),
            Error::ZeroWindow => write!(f, "the window size w must be at least 1"),
            Error::GuaranteeBelowNoise { k, t } => write!(
                f,
                "the guarantee threshold t = {t} is below the noise threshold k = {k} (need t >= k)"
            ),
            Error::TooLarge { name, value, max } => {
                write!(f, "{name} = {value} is too large (at most {max})")
            }
            Error::ZeroModulus => write!(f, "the modulus p of 0 mod p must be at least 1"),
            Error::ZeroSketch => write!(f, "the sketch size n must be at least 1"),
            Error::ReduciblePolynomial { low_bits } => write!(
                f,
                "t^64 + {low_bits:#018x} is not irreducible over GF(2); Rabin fingerprints need an irreducible polynomial"
            ),
            Error::RangeOutOfBounds { first, count, kgrams } => write!(
                f,
                "k-grams {first}..{} asked for, but the input has only {kgrams}",
                first.saturating_add(*count)
            ),
            Error::InputTooLong { kgrams } => write!(
                f,
                "input has {kgrams} k-grams; positions are 32-bit, so at most {} k-grams fit in one document",
                u64::from(u32::MAX) + 1
            ),
            Error::UnsupportedDegree { degree } => write!(
                f,
                "polynomial degree {degree} is not supported (need 1 to 128, low bits below the degree)"
            ),
            Error::ReducibleModulus { degree, low_bits } => write!(
                f,
                "t^{degree} + {low_bits:#x} is not irreducible over GF(2)"
            ),
            Error::StringTooLong => write!(f, "composed string longer than 2^64 - 1 bits"),
            Error::ElementOutOfRange { index, len } => write!(
                f,
                "element {index} is outside the ground set of {len} elements"
            ),
        }
    }
}

impl std::error::Error for Error {}
