//! # bryo-stats: corpus-wide statistics of k-gram hashes
//!
//! The statistics of the winnowing paper's experiments (fingerprint
//! density, frequency of k-grams by rank), named apart from
//! `bryo_match::Corpus`, the matcher's documents.
//!
//! A *corpus* here is a set of files measured as a whole (a web crawl, a
//! source tree), read as streams of k-gram hashes, never held in memory:
//! [`bryo_input::list_files`] names the files, a [`HashReader`] per thread
//! turns one file at a time into hashes (raw bytes streamed, or text and
//! HTML through the front-end dispatch of [`bryo_compare::normalize_into`]),
//! optionally as one continuous stream across files
//! ([`HashReader::one_stream`]). On top of it:
//!
//! * [`DensityMeter`] — fingerprint density of several selection
//!   strategies at once (the paper's §5.1, Figure 3);
//! * [`count_hashes`] and [`sample_hashes`] — frequency by rank (Figure 4)
//!   and a sample of the most frequent k-grams.
//!
//! Both run on the current rayon pool, and their results do not depend on
//! the number of threads. Each experiment is also one call from options
//! to a serializable report, so that every front-end (`bryo density`,
//! `bryo rank`, a server) measures alike and only prints:
//! [`measure_density`] → [`DensityReport`] (schema `bryo.density/1`),
//! [`rank_corpus`] → [`RankReport`] (`bryo.rank/1`), whose log-log plot
//! `draw_rank_plot` draws as SVG and PNG (feature `plot`); progress is
//! reported through [`ReadProgress`]. [`fingerprint_files`] finds the files
//! of a set that are identical, byte for byte or after normalization;
//! [`raw_fingerprint_files`] only byte for byte, streaming each file.
//!
//! The winnowing paper (Schleimer, Wilkerson & Aiken, SIGMOD 2003, §5.1 and
//! Figure 4) studies how often each k-gram recurs across a web corpus: the
//! frequency of every hash, sorted in decreasing order, against its rank,
//! on a log-log scale, follows a power law of slope about −0.7; 82% of the
//! hashes occur once, 14% twice, 2% three times. This crate computes those
//! figures for corpora of any size:
//!
//! * [`HashCounter`] counts hashes with a bounded number of distinct hashes
//!   in memory and spills sorted runs to temporary files past it;
//!   [`merge_counts`] merges the runs of any number of counters (one per
//!   thread) into exact totals, in increasing hash order — an external sort;
//! * [`FrequencyTable`] turns the totals into the frequency distribution, the
//!   shares of hashes seen once, twice, three times, and the plateaus of the
//!   frequency-by-rank curve, whose endpoints the paper plots and fits
//!   ([`FrequencyTable::power_law`], [`fit_line`]);
//! * [`TopHashes`] keeps the most frequent hashes.
//!
//! Results depend only on the multiset of hashes counted, never on how they
//! were split between counters, in which order, or when a counter spilled.
//!
//! ```
//! use bryo_stats::{summarize, HashCounter};
//!
//! let dir = std::env::temp_dir();
//! let mut a = HashCounter::new(1_000, &dir)?;
//! let mut b = HashCounter::new(1_000, &dir)?;
//! a.add_all(&[1, 2, 2, 3])?;
//! b.add_all(&[2, 4, 1])?;
//! let s = summarize(vec![a, b], 1)?;
//! assert_eq!((s.table.distinct(), s.table.occurrences()), (4, 7));
//! assert_eq!(s.table.share_with_frequency(1), 0.5); // hashes 3 and 4
//! assert_eq!((s.top[0].hash, s.top[0].count), (2, 3));
//! # Ok::<(), bryo_stats::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod corpus;
mod counter;
mod density;
mod density_report;
mod error;
mod files;
mod frequency;
#[cfg(feature = "plot")]
mod plot;
mod rank;
mod rank_report;
mod read;

pub use corpus::{list_corpus, skipped_files, NoProgress, ReadProgress, Skipped};
pub use counter::{merge_counts, HashCount, HashCounter, MergedCounts, BYTES_PER_ENTRY};
pub use density::{DensityMeter, StrategyTotals, Totals};
pub use density_report::{
    measure_density, DensityInput, DensityOptions, DensityReport, DensityRun, DensitySource,
    StrategyDensity, Timing,
};
pub use error::Error;
pub use files::{fingerprint_files, raw_fingerprint_files, FileFingerprints, FilePrint};
pub use frequency::{fit_line, FrequencyTable, Plateau, PowerLaw, TopHashes};
#[cfg(feature = "plot")]
pub use plot::{draw_rank_plot, font_ready};
pub use rank::{count_hashes, sample_hashes, Counts, Sample};
pub use rank_report::{
    rank_corpus, Distribution, Fit, PlotFiles, RankOptions, RankReport, Share, TopKgram,
};
pub use read::{DocInfo, HashReader, InputFormat, ReadOptions, ReadOutcome, CHUNK};

/// The frequency distribution and the most frequent hashes of a corpus.
#[derive(Clone, Debug)]
pub struct Summary {
    /// How many distinct hashes occur how many times.
    pub table: FrequencyTable,
    /// The most frequent hashes, most frequent first (ties: smaller hash).
    pub top: Vec<HashCount>,
}

/// Merges `counters` ([`merge_counts`]) and summarizes the totals: the
/// frequency table and the `top` most frequent hashes.
pub fn summarize(counters: Vec<HashCounter>, top: usize) -> Result<Summary, Error> {
    let mut table = FrequencyTable::default();
    let mut best = TopHashes::new(top);
    for c in merge_counts(counters)? {
        let c = c?;
        table.observe(c);
        best.offer(c);
    }
    Ok(Summary {
        table,
        top: best.into_sorted(),
    })
}
