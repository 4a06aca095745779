//! Frequency by rank: the distribution of hash counts, its plateaus and the
//! power-law fit of the winnowing paper's Figure 4 (§5.1).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use crate::HashCount;

/// How many distinct hashes occur how many times.
///
/// Built from the merged counts ([`FrequencyTable::observe`]); it holds one
/// entry per distinct *frequency*, which is small (at most about
/// `sqrt(2 × occurrences)`) however many hashes there are.
///
/// ```
/// use bryo_stats::{FrequencyTable, HashCount};
///
/// let mut t = FrequencyTable::default();
/// for (hash, count) in [(1, 5), (2, 1), (3, 1), (4, 2)] {
///     t.observe(HashCount { hash, count });
/// }
/// assert_eq!((t.distinct(), t.occurrences()), (4, 9));
/// assert_eq!(t.share_with_frequency(1), 0.5);
/// // Ranks 1 (frequency 5), 2 (frequency 2), 3–4 (frequency 1).
/// let p: Vec<_> = t.plateaus().iter().map(|p| (p.frequency, p.first_rank, p.last_rank)).collect();
/// assert_eq!(p, [(5, 1, 1), (2, 2, 2), (1, 3, 4)]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrequencyTable {
    hashes_by_frequency: BTreeMap<u64, u64>,
    distinct: u64,
    occurrences: u64,
}

/// A run of ranks sharing one frequency: ranks `first_rank..=last_rank`
/// (1 is the most frequent hash) all occur `frequency` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plateau {
    /// The frequency shared by the hashes of the plateau.
    pub frequency: u64,
    /// The first (smallest) rank of the plateau.
    pub first_rank: u64,
    /// The last rank of the plateau.
    pub last_rank: u64,
}

/// A power law `frequency = 10^intercept × rank^slope`, fitted by least
/// squares on log10 rank and log10 frequency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerLaw {
    /// The exponent: the slope of the line on a log-log plot (the paper
    /// finds about −0.7 on web pages).
    pub slope: f64,
    /// log10 of the frequency at rank 1 on the fitted line.
    pub intercept: f64,
    /// Number of points fitted.
    pub points: usize,
}

impl FrequencyTable {
    /// Records one distinct hash and its count (a count of 0 is ignored).
    pub fn observe(&mut self, c: HashCount) {
        if c.count == 0 {
            return;
        }
        *self.hashes_by_frequency.entry(c.count).or_insert(0) += 1;
        self.distinct += 1;
        self.occurrences += c.count;
    }

    /// Number of distinct hashes.
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    /// Total occurrences of all hashes.
    pub fn occurrences(&self) -> u64 {
        self.occurrences
    }

    /// Number of distinct hashes that occur exactly `frequency` times.
    pub fn hashes_with_frequency(&self, frequency: u64) -> u64 {
        self.hashes_by_frequency
            .get(&frequency)
            .copied()
            .unwrap_or(0)
    }

    /// Share of the distinct hashes that occur exactly `frequency` times
    /// (the paper: 82% once, 14% twice, 2% three times); 0 when empty.
    pub fn share_with_frequency(&self, frequency: u64) -> f64 {
        if self.distinct == 0 {
            0.0
        } else {
            self.hashes_with_frequency(frequency) as f64 / self.distinct as f64
        }
    }

    /// The highest frequency (the count of the rank-1 hash), 0 when empty.
    pub fn max_frequency(&self) -> u64 {
        self.hashes_by_frequency
            .last_key_value()
            .map_or(0, |(&f, _)| f)
    }

    /// `(frequency, number of distinct hashes)` in decreasing frequency.
    pub fn histogram(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.hashes_by_frequency.iter().rev().map(|(&f, &n)| (f, n))
    }

    /// The plateaus of the frequency-by-rank curve, from rank 1 on.
    pub fn plateaus(&self) -> Vec<Plateau> {
        let mut rank = 1;
        self.histogram()
            .map(|(frequency, n)| {
                let p = Plateau {
                    frequency,
                    first_rank: rank,
                    last_rank: rank + n - 1,
                };
                rank += n;
                p
            })
            .collect()
    }

    /// The points the paper plots and fits: the left and right endpoints
    /// `(rank, frequency)` of every plateau, a plateau of one rank giving
    /// its point twice "so the weights are not biased during line fit".
    pub fn plateau_endpoints(&self) -> Vec<(u64, u64)> {
        self.plateaus()
            .iter()
            .flat_map(|p| [(p.first_rank, p.frequency), (p.last_rank, p.frequency)])
            .collect()
    }

    /// The power law fitted to the plateau endpoints on a log-log scale;
    /// `None` with fewer than two distinct ranks.
    pub fn power_law(&self) -> Option<PowerLaw> {
        let points: Vec<(f64, f64)> = self
            .plateau_endpoints()
            .iter()
            .map(|&(r, f)| ((r as f64).log10(), (f as f64).log10()))
            .collect();
        fit_line(&points)
    }
}

/// Least-squares line `y = intercept + slope × x` through `points`;
/// `None` with fewer than two points or when every `x` is equal.
///
/// ```
/// let fit = bryo_stats::fit_line(&[(0.0, 1.0), (1.0, 0.3), (2.0, -0.4)]).unwrap();
/// assert!((fit.slope + 0.7).abs() < 1e-12 && (fit.intercept - 1.0).abs() < 1e-12);
/// ```
pub fn fit_line(points: &[(f64, f64)]) -> Option<PowerLaw> {
    let n = points.len();
    if n < 2 {
        return None;
    }
    let nf = n as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / nf;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / nf;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if sxx <= f64::EPSILON * nf {
        return None;
    }
    let slope = sxy / sxx;
    Some(PowerLaw {
        slope,
        intercept: mean_y - slope * mean_x,
        points: n,
    })
}

/// The `n` most frequent hashes seen, in bounded memory.
///
/// Ties are broken by the smaller hash, so the list does not depend on the
/// order in which hashes are offered.
///
/// ```
/// use bryo_stats::{HashCount, TopHashes};
///
/// let mut top = TopHashes::new(2);
/// for (hash, count) in [(10, 3), (11, 9), (12, 3), (13, 1)] {
///     top.offer(HashCount { hash, count });
/// }
/// let v: Vec<_> = top.into_sorted().iter().map(|c| (c.hash, c.count)).collect();
/// assert_eq!(v, [(11, 9), (10, 3)]);
/// ```
#[derive(Clone, Debug)]
pub struct TopHashes {
    n: usize,
    // Min-heap on (count, Reverse(hash)): the root is the entry to evict.
    heap: BinaryHeap<Reverse<(u64, Reverse<u64>)>>,
}

impl TopHashes {
    /// Keeps the `n` most frequent hashes.
    pub fn new(n: usize) -> TopHashes {
        TopHashes {
            n,
            heap: BinaryHeap::with_capacity(n.saturating_add(1).min(1 << 16)),
        }
    }

    /// Offers a hash with its count.
    pub fn offer(&mut self, c: HashCount) {
        if self.n == 0 {
            return;
        }
        let key = Reverse((c.count, Reverse(c.hash)));
        if self.heap.len() < self.n {
            self.heap.push(key);
        } else if let Some(min) = self.heap.peek() {
            if key < *min {
                self.heap.pop();
                self.heap.push(key);
            }
        }
    }

    /// The kept hashes, most frequent first (ties: smaller hash first).
    pub fn into_sorted(self) -> Vec<HashCount> {
        let mut v: Vec<HashCount> = self
            .heap
            .into_iter()
            .map(|Reverse((count, Reverse(hash)))| HashCount { hash, count })
            .collect();
        v.sort_unstable_by(|a, b| b.count.cmp(&a.count).then(a.hash.cmp(&b.hash)));
        v
    }
}
