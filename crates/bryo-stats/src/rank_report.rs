//! The rank experiment as one call (the winnowing paper's Figure 4, §5.1):
//! [`rank_corpus`] counts every k-gram hash and every winnowed fingerprint
//! of a corpus ([`count_hashes`]), reads it again for the text of the most
//! frequent ones ([`sample_hashes`]) and returns [`RankReport`], the model
//! `bryo rank` prints as text or as JSON (schema `bryo.rank/1`) and the
//! plot draws.

use std::collections::HashMap;
use std::path::PathBuf;

use bryo_engine::{Config, HashFunction, HASH_SCHEME_VERSION};
use serde::Serialize;

use crate::corpus::pass;
use crate::{
    count_hashes, list_corpus, sample_hashes, skipped_files, Error, FrequencyTable, HashCount,
    HashReader, InputFormat, ReadOptions, ReadProgress, Sample, Skipped,
};

/// The options of [`rank_corpus`].
#[derive(Clone, Debug)]
pub struct RankOptions {
    /// k and w (the window of the fingerprints counted).
    pub config: Config,
    /// The rolling hash.
    pub function: HashFunction,
    /// The front-end and its options.
    pub read: ReadOptions,
    /// Memory for counting: distinct hashes beyond it are sorted and
    /// spilled to `spill_dir`, then merged.
    pub memory_bytes: usize,
    /// Folder of the spill files.
    pub spill_dir: PathBuf,
    /// Most frequent k-grams (and fingerprints) listed with their text.
    pub top: usize,
}

/// Frequency by rank of a corpus, as `bryo rank --format json` writes it.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct RankReport {
    /// `bryo.rank/1`.
    pub schema: &'static str,
    /// Noise threshold.
    pub k: usize,
    /// Window.
    pub w: usize,
    /// Guarantee threshold.
    pub t: usize,
    /// The rolling hash's name.
    pub hash: &'static str,
    /// [`HASH_SCHEME_VERSION`].
    pub hash_scheme_version: u32,
    /// The front-end.
    pub front_end: InputFormat,
    /// Characters or words, for text and HTML.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_mode: Option<&'static str>,
    /// Documents read.
    pub documents: u64,
    /// Their bytes.
    pub total_bytes: u64,
    /// Their symbols.
    pub symbols: u64,
    /// Files not read, with the reason.
    pub skipped: Vec<Skipped>,
    /// Files of other types found in directories (only counted).
    pub other_extension: u64,
    /// Sorted runs written to disk while counting (0 when everything fitted
    /// in memory).
    pub spilled_runs: usize,
    /// All k-gram hashes.
    pub hashes: Distribution,
    /// The hashes winnowing selected as fingerprints.
    pub fingerprints: Distribution,
    /// The most frequent k-grams (overlapping shifts of one common passage
    /// often fill this list).
    pub top: Vec<TopKgram>,
    /// The most frequent winnowed fingerprints: about one per window of a
    /// passage, so the list shows more distinct passages.
    pub top_fingerprints: Vec<TopKgram>,
    /// The plot's files, once drawn (`draw_rank_plot`, feature `plot`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plot: Option<PlotFiles>,
}

/// The frequency distribution of a set of hashes.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Distribution {
    /// Occurrences of all hashes.
    pub occurrences: u64,
    /// Distinct hashes.
    pub distinct: u64,
    /// Hashes seen once (the paper: 82%).
    pub once: Share,
    /// Hashes seen twice (14%).
    pub twice: Share,
    /// Hashes seen three times (2%).
    pub three_times: Share,
    /// The frequency of the rank-1 hash.
    pub max_frequency: u64,
    /// The power law fitted on the plateau endpoints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_law: Option<Fit>,
    /// `[frequency, first_rank, last_rank]`, most frequent first.
    pub plateaus: Vec<[u64; 3]>,
}

/// Distinct hashes of one frequency, and their share of the distinct
/// hashes.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct Share {
    /// Distinct hashes.
    pub hashes: u64,
    /// Their share, 0..=1.
    pub share: f64,
}

/// A line `log10 frequency = intercept + slope × log10 rank`.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// Slope (about −0.7 on the paper's web pages).
    pub slope: f64,
    /// log10 of the frequency at rank 1.
    pub intercept: f64,
    /// Points fitted.
    pub points: usize,
}

/// One of the most frequent hashes, where it first occurs and its text.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct TopKgram {
    /// 1 for the most frequent.
    pub rank: usize,
    /// The hash, in hex.
    pub hash: String,
    /// Occurrences.
    pub count: u64,
    /// Documents holding it.
    pub documents: u64,
    /// The first file (listing order) holding it.
    pub path: String,
    /// Its symbol position there.
    pub position: u64,
    /// The k-gram's text, whitespace collapsed, at most 200 characters.
    pub text: String,
}

/// The files of the plot.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct PlotFiles {
    /// The SVG file.
    pub svg: String,
    /// The PNG file.
    pub png: String,
    /// Whether the plot has text (a font was found).
    pub labels: bool,
}

impl Distribution {
    /// The figures of `table`.
    pub fn new(table: &FrequencyTable) -> Distribution {
        let share = |f| Share {
            hashes: table.hashes_with_frequency(f),
            share: table.share_with_frequency(f),
        };
        Distribution {
            occurrences: table.occurrences(),
            distinct: table.distinct(),
            once: share(1),
            twice: share(2),
            three_times: share(3),
            max_frequency: table.max_frequency(),
            power_law: table.power_law().map(|p| Fit {
                slope: p.slope,
                intercept: p.intercept,
                points: p.points,
            }),
            plateaus: table
                .plateaus()
                .iter()
                .map(|p| [p.frequency, p.first_rank, p.last_rank])
                .collect(),
        }
    }

    /// The points the paper plots and fits: both endpoints `(rank,
    /// frequency)` of every plateau ([`FrequencyTable::plateau_endpoints`]).
    pub fn plateau_endpoints(&self) -> Vec<(u64, u64)> {
        self.plateaus
            .iter()
            .flat_map(|&[f, first, last]| [(first, f), (last, f)])
            .collect()
    }
}

/// Counts the hashes and fingerprints of the files under `paths` and
/// samples the most frequent ones, both passes on the current rayon pool;
/// the report depends only on the files and the options, except
/// `spilled_runs` (memory and threads).
///
/// # Errors
///
/// [`Error::MemoryTooSmall`] when the memory gives a thread no entry; read,
/// spill and engine errors.
pub fn rank_corpus(
    paths: &[PathBuf],
    options: &RankOptions,
    progress: &dyn ReadProgress,
) -> Result<RankReport, Error> {
    let config = &options.config;
    let listing = list_corpus(paths, options.read.format);
    let reader = HashReader::new(options.read, config, options.function);
    let counts = pass(progress, "count", &listing, |advance| {
        let (memory, dir) = (options.memory_bytes, &options.spill_dir);
        count_hashes(
            &listing.files,
            &reader,
            config,
            memory,
            dir,
            options.top,
            advance,
        )
    })?;
    let (all, fps) = (&counts.all, &counts.fingerprints);

    // One sample (the first in listing order) of each top k-gram.
    let mut wanted: Vec<HashCount> = all.top.iter().chain(&fps.top).copied().collect();
    wanted.sort_unstable_by_key(|c| c.hash);
    wanted.dedup_by_key(|c| c.hash);
    let found = if wanted.is_empty() {
        Vec::new()
    } else {
        pass(progress, "samples", &listing, |advance| {
            sample_hashes(&listing.files, &reader, &wanted, advance)
        })?
    };
    let by_hash: HashMap<u64, &Sample> = wanted.iter().map(|c| c.hash).zip(&found).collect();
    let listed = |top: &[HashCount]| -> Vec<TopKgram> {
        top.iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let s = by_hash.get(&c.hash)?;
                let (doc, position, text) = s.first.clone().unwrap_or_default();
                Some(TopKgram {
                    rank: i + 1,
                    hash: format!("{:#018x}", c.hash),
                    count: c.count,
                    documents: s.documents,
                    path: listing
                        .files
                        .get(doc)
                        .map(|f| f.display_path.clone())
                        .unwrap_or_default(),
                    position,
                    text,
                })
            })
            .collect()
    };
    let read = &options.read;
    Ok(RankReport {
        schema: "bryo.rank/1",
        k: config.k(),
        w: config.w(),
        t: config.t(),
        hash: options.function.name(),
        hash_scheme_version: HASH_SCHEME_VERSION,
        front_end: read.format,
        text_mode: (read.format != InputFormat::Raw).then(|| read.text_mode.name()),
        documents: counts.documents,
        total_bytes: counts.bytes,
        symbols: counts.symbols,
        skipped: skipped_files(&listing, &counts.skipped),
        other_extension: listing.other_extension,
        spilled_runs: counts.spilled_runs,
        hashes: Distribution::new(&all.table),
        fingerprints: Distribution::new(&fps.table),
        top: listed(&all.top),
        top_fingerprints: listed(&fps.top),
        plot: None,
    })
}

#[cfg(test)]
mod tests {
    use bryo_frontend::TextMode;

    use super::*;
    use crate::NoProgress;

    fn options(dir: &std::path::Path, k: usize, memory_bytes: usize) -> RankOptions {
        RankOptions {
            config: Config::new(k, 4).unwrap(),
            function: HashFunction::KarpRabin,
            read: ReadOptions {
                format: InputFormat::Raw,
                text_mode: TextMode::Chars,
                max_file_size: 1 << 20,
            },
            memory_bytes,
            spill_dir: dir.to_path_buf(),
            top: 3,
        }
    }

    /// Files built of 4-byte blocks with known repeats: "aaaa" in every
    /// file, "bbbb" in two, the rest unique; with k = 4 and blocks at
    /// multiples of 4 the counts of those k-grams are known exactly.
    #[test]
    fn the_most_frequent_kgrams_are_counted_and_found_with_their_text() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        std::fs::create_dir(&corpus).unwrap();
        std::fs::write(corpus.join("1"), "aaaa-bbbb-wxyz").unwrap();
        std::fs::write(corpus.join("2"), "qrst-aaaa-bbbb").unwrap();
        std::fs::write(corpus.join("3"), "aaaa-mnop-aaaa").unwrap();
        let spill = dir.path().join("spill");
        std::fs::create_dir(&spill).unwrap();
        let r = rank_corpus(&[corpus], &options(&spill, 4, 1 << 20), &NoProgress).unwrap();
        assert_eq!((r.documents, r.total_bytes, r.symbols), (3, 42, 42));
        assert_eq!(r.hashes.occurrences, 3 * 11);
        assert_eq!((r.spilled_runs, r.text_mode), (0, None));
        let top: Vec<(usize, &str, u64, u64)> = r
            .top
            .iter()
            .map(|t| (t.rank, t.text.as_str(), t.count, t.documents))
            .collect();
        assert_eq!(top[..2], [(1, "aaaa", 4, 3), (2, "aaa-", 3, 3)]);
        // Five k-grams occur twice; ties go to the smaller hash.
        assert_eq!((top.len(), top[2].2), (3, 2));
        assert!(r.top[0].path.ends_with("/1"));
        assert_eq!(r.top[0].position, 0);
        let d = &r.hashes;
        assert_eq!((d.distinct, d.max_frequency), (23, 4));
        assert_eq!(
            (d.once.hashes, d.twice.hashes, d.three_times.hashes),
            (16, 5, 1)
        );
        assert_eq!(d.once.share, 16.0 / 23.0);
        assert_eq!(d.plateaus, [[4, 1, 1], [3, 2, 2], [2, 3, 7], [1, 8, 23]]);
        assert_eq!(
            d.plateau_endpoints(),
            [
                (1, 4),
                (1, 4),
                (2, 3),
                (2, 3),
                (3, 2),
                (7, 2),
                (8, 1),
                (23, 1)
            ]
        );
        let fit = d.power_law.unwrap();
        assert_eq!(fit.points, 8);
        assert!(fit.slope < 0.0);
        assert!(r.fingerprints.occurrences > 0);
        assert!(r.fingerprints.occurrences < r.hashes.occurrences);
        let json = serde_json::to_string(&r).unwrap();
        assert!(
            json.starts_with(r#"{"schema":"bryo.rank/1","k":4,"w":4,"t":7,"#),
            "{json}"
        );
        assert!(!json.contains("\"plot\""));
    }

    /// Zipf's law, frequency = 1200 / rank: the distribution recovers the
    /// slope −1 from the plateau endpoints, as the paper fits its Figure 4.
    #[test]
    fn the_distribution_of_a_known_power_law_has_its_slope() {
        let mut table = FrequencyTable::default();
        for rank in 1..=1200u64 {
            let count = 1200 / rank;
            table.observe(HashCount { hash: rank, count });
        }
        let d = Distribution::new(&table);
        assert_eq!((d.distinct, d.max_frequency), (1200, 1200));
        assert_eq!(d.once.hashes, 600); // ranks 601..=1200
        assert_eq!(d.plateaus[0], [1200, 1, 1]);
        assert_eq!(*d.plateaus.last().unwrap(), [1, 601, 1200]);
        let fit = d.power_law.unwrap();
        assert_eq!(fit.points, 2 * d.plateaus.len());
        assert!((fit.slope + 1.0).abs() < 0.05, "{fit:?}");
        assert!((fit.intercept - 1200f64.log10()).abs() < 0.1, "{fit:?}");
    }

    #[test]
    fn too_little_memory_is_an_error_and_spilling_changes_only_the_runs() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("c.txt");
        let mut text = vec![0u8; 2000];
        bryo_engine::SplitMix64::new(5).fill_from(b"abcdefghijklmnopqrstuvwxyz", &mut text);
        std::fs::write(&corpus, text).unwrap();
        let paths = [corpus];
        let err = rank_corpus(&paths, &options(dir.path(), 5, 1), &NoProgress).unwrap_err();
        assert!(matches!(err, Error::MemoryTooSmall { .. }), "{err}");
        let roomy = rank_corpus(&paths, &options(dir.path(), 5, 1 << 20), &NoProgress).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let tight = pool
            .install(|| rank_corpus(&paths, &options(dir.path(), 5, 4096), &NoProgress))
            .unwrap();
        assert!(tight.spilled_runs > 0);
        assert_eq!(roomy.spilled_runs, 0);
        assert_eq!(
            RankReport {
                spilled_runs: 0,
                ..tight
            },
            roomy
        );
    }
}
