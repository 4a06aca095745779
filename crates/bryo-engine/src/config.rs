use crate::Error;

/// Largest accepted `k` and `w`: far beyond any useful value, small enough
/// that the per-window buffers can never exhaust memory.
pub const MAX_PARAMETER: usize = 1 << 24;

/// The two thresholds of winnowing (paper §3).
///
/// * `k`, the **noise threshold**: matches shorter than k symbols are never
///   detected (only k-grams are hashed);
/// * `t`, the **guarantee threshold**: every shared run of at least t symbols
///   is detected. The window holds `w = t − k + 1` consecutive hashes.
///
/// ```
/// use bryo_engine::Config;
/// let c = Config::from_thresholds(5, 8).unwrap();
/// assert_eq!((c.k(), c.w(), c.t()), (5, 4, 8));
/// assert!(Config::from_thresholds(5, 4).is_err()); // t < k
/// assert!(Config::new(0, 4).is_err());             // k = 0
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    k: usize,
    w: usize,
}

impl Config {
    /// A configuration from the noise threshold `k` and the window `w`.
    pub fn new(k: usize, w: usize) -> Result<Config, Error> {
        if k == 0 {
            return Err(Error::ZeroK);
        }
        if w == 0 {
            return Err(Error::ZeroWindow);
        }
        for (name, v) in [("k", k), ("w", w)] {
            if v > MAX_PARAMETER {
                return Err(Error::TooLarge {
                    name,
                    value: v as u64,
                    max: MAX_PARAMETER as u64,
                });
            }
        }
        Ok(Config { k, w })
    }

    /// A configuration from the noise threshold `k` and the guarantee
    /// threshold `t >= k` (so `w = t − k + 1`).
    pub fn from_thresholds(k: usize, t: usize) -> Result<Config, Error> {
        if k == 0 {
            return Err(Error::ZeroK);
        }
        if t < k {
            return Err(Error::GuaranteeBelowNoise { k, t });
        }
        Config::new(k, t - k + 1)
    }

    /// The noise threshold (k-gram length).
    pub fn k(&self) -> usize {
        self.k
    }

    /// The window: number of consecutive k-gram hashes per winnowing window.
    pub fn w(&self) -> usize {
        self.w
    }

    /// The guarantee threshold `t = w + k − 1`.
    pub fn t(&self) -> usize {
        self.w + self.k - 1
    }
}
