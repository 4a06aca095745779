//! The density experiment as one call (the winnowing paper's §5.1, Figure
//! 3): from a source and the engine's options to [`DensityReport`], the
//! model `bryo density` prints as text or as JSON (schema
//! `bryo.density/1`). Winnowing, robust winnowing, 0 mod p and Safe 0 mod p
//! select from the same hashes, so their figures compare.

use std::path::PathBuf;
use std::time::Instant;

use bryo_engine::{Config, HashFunction, Hasher, Selection, SplitMix64, HASH_SCHEME_VERSION};
use serde::Serialize;

use crate::corpus::pass;
use crate::{
    list_corpus, skipped_files, DensityMeter, Error, HashReader, InputFormat, ReadOptions,
    ReadProgress, Skipped,
};

/// Letters of the random text: text after case folding and dropping
/// whitespace and punctuation, as the paper's front-end would leave it.
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// What [`measure_density`] fingerprints.
#[derive(Clone, Debug)]
pub enum DensitySource {
    /// `bytes` of random lowercase text (a–z) drawn from `seed`: the same
    /// seed always gives the same text.
    Random {
        /// Length of the text.
        bytes: u64,
        /// Seed of [`SplitMix64`].
        seed: u64,
    },
    /// The files under `paths` ([`list_corpus`]), each one document read
    /// in parallel on the current rayon pool — or, with `one_stream`, all
    /// of them hashed and selected as one continuous stream in listing
    /// order on this thread, as the paper did.
    Files {
        /// Files and directories (searched recursively).
        paths: Vec<PathBuf>,
        /// The front-end and its options.
        read: ReadOptions,
        /// One stream instead of one document per file.
        one_stream: bool,
    },
}

/// The engine options of [`measure_density`].
#[derive(Clone, Copy, Debug)]
pub struct DensityOptions {
    /// k and w (winnowing's window; robust winnowing and Safe 0 mod p use
    /// it too).
    pub config: Config,
    /// The rolling hash.
    pub function: HashFunction,
    /// Modulus of 0 mod p; `None`: `(w + 1) / 2` rounded down, the paper's
    /// p = 50 for w = 100, so that 1/p is about winnowing's 2/(w + 1).
    pub p: Option<u64>,
}

/// The result of the density experiment, as `bryo density --format json`
/// writes it; the same on every run but for [`DensityReport::timing`].
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DensityReport {
    /// `bryo.density/1`.
    pub schema: &'static str,
    /// What was fingerprinted.
    pub input: DensityInput,
    /// Noise threshold.
    pub k: usize,
    /// Window.
    pub w: usize,
    /// Guarantee threshold.
    pub t: usize,
    /// The rolling hash's name.
    pub hash: &'static str,
    /// Rabin: the low bits of the polynomial, in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polynomial: Option<String>,
    /// [`HASH_SCHEME_VERSION`].
    pub hash_scheme_version: u32,
    /// The front-end (raw for random text).
    pub front_end: InputFormat,
    /// Characters or words, for text and HTML.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_mode: Option<&'static str>,
    /// The files were hashed as one stream, so every figure (hashes,
    /// fingerprints, longest gaps) is over their concatenated symbols.
    pub one_stream: bool,
    /// Documents read.
    pub documents: u64,
    /// Their bytes.
    pub total_bytes: u64,
    /// Their symbols.
    pub symbols: u64,
    /// k-gram hashes.
    pub hashes: u64,
    /// Winnowing.
    pub winnow: StrategyDensity,
    /// Robust winnowing.
    pub robust_winnow: StrategyDensity,
    /// 0 mod p.
    pub mod_p: StrategyDensity,
    /// Safe 0 mod p.
    pub safe_mod_p: StrategyDensity,
    /// Wall-clock time and throughput: not set by [`measure_density`],
    /// so that the report is otherwise deterministic; see
    /// [`DensityRun::timing`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
}

/// What [`DensityReport`] measured.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DensityInput {
    /// Random text.
    Random {
        /// Its length.
        bytes: u64,
        /// Its seed.
        seed: u64,
    },
    /// Files.
    Files {
        /// Files not read, with the reason.
        skipped: Vec<Skipped>,
        /// Files of other types found in directories (only counted).
        other_extension: u64,
    },
}

/// The figures of one selection strategy.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct StrategyDensity {
    /// The modulus, for 0 mod p and Safe 0 mod p.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<u64>,
    /// Fingerprints selected.
    pub fingerprints: u64,
    /// Fingerprints per hash.
    pub density: f64,
    /// The density expected on random text (0 when the strategy has no
    /// formula).
    pub expected_density: f64,
    /// Winnowing: the expected density of random text split into documents
    /// of the same lengths (each document's first window always gives one
    /// fingerprint, then each further hash 2/(w+1)); with one stream, of
    /// one document of the stream's length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_density_for_lengths: Option<f64>,
    /// The longest run of symbols of one document with no fingerprint.
    pub longest_gap: u64,
    /// The first file with that gap (none for random text or one stream).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_gap_path: Option<String>,
}

impl StrategyDensity {
    /// How far the measured density is from the one expected for these
    /// lengths, in percent (+2.0: 2% more fingerprints than expected).
    pub fn deviation_percent(&self) -> Option<f64> {
        self.expected_density_for_lengths
            .map(|e| (self.density / e - 1.0) * 100.0)
    }
}

/// Wall-clock time and throughput of a run.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Seconds.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// Bytes read per second.
    pub bytes_per_second: f64,
    /// Symbols per second.
    pub symbols_per_second: f64,
}

/// A report and how long it took to measure.
#[derive(Debug, Clone)]
pub struct DensityRun {
    /// The figures.
    pub report: DensityReport,
    /// Seconds, from generating or listing the input to the last file.
    pub seconds: f64,
    /// Threads that read (1 for random text and one stream).
    pub threads: usize,
}

impl DensityRun {
    /// The run's time and throughput, for [`DensityReport::timing`].
    pub fn timing(&self) -> Timing {
        let per_second = |n: u64| {
            if self.seconds > 0.0 {
                n as f64 / self.seconds
            } else {
                0.0
            }
        };
        Timing {
            seconds: self.seconds,
            threads: self.threads,
            bytes_per_second: per_second(self.report.total_bytes),
            symbols_per_second: per_second(self.report.symbols),
        }
    }
}

impl DensityReport {
    /// The four strategies with the names the paper gives them
    /// (`winnowing`, `robust winnowing`, `0 mod p`, `safe 0 mod p`), in
    /// that order: the rows of the density table.
    pub fn rows(&self) -> [(String, &StrategyDensity); 4] {
        let p = self.mod_p.p.unwrap_or(0);
        [
            ("winnowing".to_string(), &self.winnow),
            ("robust winnowing".to_string(), &self.robust_winnow),
            (format!("0 mod {p}"), &self.mod_p),
            (format!("safe 0 mod {p}"), &self.safe_mod_p),
        ]
    }
}

/// Measures the density of winnowing, robust winnowing, 0 mod p and Safe
/// 0 mod p on `source`: files are read on the current rayon pool (one
/// stream: on this thread) and the figures do not depend on the number of
/// threads.
///
/// # Errors
///
/// Random text too large for memory, an option the engine rejects, a read
/// error in the middle of a file, more hashes than the engine's positions
/// hold in one stream.
pub fn measure_density(
    source: &DensitySource,
    options: &DensityOptions,
    progress: &dyn ReadProgress,
) -> Result<DensityRun, Error> {
    let config = &options.config;
    let w = config.w();
    let p = options.p.unwrap_or((w as u64).div_ceil(2)).max(1);
    let selections = [
        Selection::Winnow,
        Selection::RobustWinnow,
        Selection::ModP { p },
        Selection::SafeModP { p },
    ];
    let mut meter = DensityMeter::new(config, &selections)?;
    let started = Instant::now();
    let mut threads = 1;
    let (totals, input, paths, front_end, text_mode, one_stream) = match source {
        DensitySource::Random { bytes, seed } => {
            let text = random_text(*bytes, *seed)?;
            let totals = meter.bytes(&Hasher::new(options.function, config), &text)?;
            let input = DensityInput::Random {
                bytes: *bytes,
                seed: *seed,
            };
            (totals, input, Vec::new(), InputFormat::Raw, None, false)
        }
        DensitySource::Files {
            paths,
            read,
            one_stream,
        } => {
            let listing = list_corpus(paths, read.format);
            let reader = HashReader::new(*read, config, options.function);
            let totals = pass(progress, "density", &listing, |advance| {
                if *one_stream {
                    meter.one_stream(&listing.files, reader.one_stream(), advance)
                } else {
                    threads = rayon::current_num_threads();
                    meter.files(&listing.files, &reader, advance)
                }
            })?;
            let input = DensityInput::Files {
                skipped: skipped_files(&listing, &totals.skipped),
                other_extension: listing.other_extension,
            };
            // In one stream the longest gaps may span files: no path.
            let paths = match one_stream {
                true => Vec::new(),
                false => listing.files.into_iter().map(|f| f.display_path).collect(),
            };
            let text_mode = (read.format != InputFormat::Raw).then(|| read.text_mode.name());
            (totals, input, paths, read.format, text_mode, *one_stream)
        }
    };
    let seconds = started.elapsed().as_secs_f64();

    let expected_for_lengths = totals.expected_winnow_density(w);
    let strategy = |i: usize| {
        let s = totals.strategies[i];
        StrategyDensity {
            p: match selections[i] {
                Selection::ModP { p } | Selection::SafeModP { p } => Some(p),
                _ => None,
            },
            fingerprints: s.fingerprints,
            density: ratio(s.fingerprints, totals.hashes),
            expected_density: selections[i].expected_density(w).unwrap_or(0.0),
            expected_density_for_lengths: match selections[i] {
                Selection::Winnow | Selection::RobustWinnow => expected_for_lengths,
                _ => None,
            },
            longest_gap: s.longest_gap,
            longest_gap_path: (s.longest_gap > 0)
                .then(|| paths.get(s.gap_doc).cloned())
                .flatten(),
        }
    };
    let report = DensityReport {
        schema: "bryo.density/1",
        input,
        k: config.k(),
        w,
        t: config.t(),
        hash: options.function.name(),
        polynomial: match options.function {
            HashFunction::Rabin(p) => Some(format!("{:#018x}", p.low_bits())),
            HashFunction::KarpRabin => None,
        },
        hash_scheme_version: HASH_SCHEME_VERSION,
        front_end,
        text_mode,
        one_stream,
        documents: totals.documents,
        total_bytes: totals.bytes,
        symbols: totals.symbols,
        hashes: totals.hashes,
        winnow: strategy(0),
        robust_winnow: strategy(1),
        mod_p: strategy(2),
        safe_mod_p: strategy(3),
        timing: None,
    };
    Ok(DensityRun {
        report,
        seconds,
        threads,
    })
}

/// `bytes` letters a–z from `seed`.
fn random_text(bytes: u64, seed: u64) -> Result<Vec<u8>, Error> {
    let too_large = || Error::RandomTooLarge { bytes };
    let len = usize::try_from(bytes).map_err(|_| too_large())?;
    let mut text = Vec::new();
    text.try_reserve_exact(len).map_err(|_| too_large())?;
    text.resize(len, 0);
    SplitMix64::new(seed).fill_from(ALPHABET, &mut text);
    Ok(text)
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use bryo_frontend::TextMode;

    use super::*;
    use crate::NoProgress;

    fn options(k: usize, w: usize, p: Option<u64>) -> DensityOptions {
        DensityOptions {
            config: Config::new(k, w).unwrap(),
            function: HashFunction::KarpRabin,
            p,
        }
    }

    fn read(format: InputFormat) -> ReadOptions {
        ReadOptions {
            format,
            text_mode: TextMode::Chars,
            max_file_size: 1 << 20,
        }
    }

    #[test]
    fn random_text_follows_the_paper() {
        let source = DensitySource::Random {
            bytes: 200_000,
            seed: 3,
        };
        let run = measure_density(&source, &options(50, 100, None), &NoProgress).unwrap();
        let r = &run.report;
        assert_eq!((r.k, r.w, r.t), (50, 100, 149));
        assert_eq!(
            (r.documents, r.total_bytes, r.symbols),
            (1, 200_000, 200_000)
        );
        assert_eq!(r.hashes, 200_000 - 49);
        assert_eq!(r.front_end, InputFormat::Raw);
        assert_eq!(r.text_mode, None);
        assert_eq!(r.mod_p.p, Some(50));
        let names: Vec<String> = r.rows().iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(
            names,
            ["winnowing", "robust winnowing", "0 mod 50", "safe 0 mod 50"]
        );
        for (name, s) in r.rows() {
            assert_eq!(s.density, s.fingerprints as f64 / r.hashes as f64, "{name}");
            assert!(
                (s.density - s.expected_density).abs() / s.expected_density < 0.08,
                "{name}: {} vs {}",
                s.density,
                s.expected_density
            );
        }
        // Winnowing's expected density is 2/(w+1); its guarantee leaves no
        // gap of t symbols, and no file is named for random text.
        assert!((r.winnow.expected_density - 2.0 / 101.0).abs() < 1e-12);
        assert!(r.winnow.longest_gap <= 148);
        assert_eq!(r.winnow.longest_gap_path, None);
        assert!(r.winnow.deviation_percent().unwrap().abs() < 8.0);
        assert_eq!(r.mod_p.deviation_percent(), None);
        // Same seed, same text, same figures.
        let again = measure_density(&source, &options(50, 100, None), &NoProgress).unwrap();
        assert_eq!(again.report, run.report);
        assert_eq!(run.timing().threads, 1);
        assert!(run.report.timing.is_none());
    }

    #[test]
    fn files_name_the_gap_and_one_stream_equals_the_concatenation() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = vec![0u8; 3000];
        SplitMix64::new(7).fill_from(ALPHABET, &mut text);
        // A long run of one letter: no fingerprint of 0 mod p for long.
        text[1000..2000].fill(b'a');
        std::fs::write(dir.path().join("a.txt"), &text[..1500]).unwrap();
        std::fs::write(dir.path().join("b.txt"), &text[1500..]).unwrap();
        std::fs::write(dir.path().join("z.bin"), b"\x00\x01\x02").unwrap();
        let files = |one_stream| DensitySource::Files {
            paths: vec![dir.path().to_path_buf()],
            read: read(InputFormat::Text),
            one_stream,
        };
        let opts = options(8, 10, Some(4));
        let per_file = measure_density(&files(false), &opts, &NoProgress).unwrap();
        let r = &per_file.report;
        assert_eq!((r.documents, r.symbols), (2, 3000));
        assert_eq!(r.hashes, 2 * (1500 - 7));
        assert_eq!(r.text_mode, Some("chars"));
        let DensityInput::Files { skipped, .. } = &r.input else {
            panic!("{:?}", r.input)
        };
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].path.ends_with("z.bin"));
        // The longest gap of each strategy is named by the file holding it
        // (the first one on a tie), as measuring each file alone shows.
        let alone = |name: &str| {
            let source = DensitySource::Files {
                paths: vec![dir.path().join(name)],
                read: read(InputFormat::Text),
                one_stream: false,
            };
            measure_density(&source, &opts, &NoProgress).unwrap().report
        };
        let (a, b) = (alone("a.txt"), alone("b.txt"));
        for (((name, s), (_, sa)), (_, sb)) in r.rows().iter().zip(a.rows()).zip(b.rows()) {
            assert_eq!(s.longest_gap, sa.longest_gap.max(sb.longest_gap), "{name}");
            let first = if sa.longest_gap >= sb.longest_gap {
                "a.txt"
            } else {
                "b.txt"
            };
            assert!(
                s.longest_gap_path.as_deref().unwrap().ends_with(first),
                "{name}"
            );
        }

        // One stream over the two files = one random text of their letters.
        let stream = measure_density(&files(true), &opts, &NoProgress).unwrap();
        let whole = dir.path().join("whole");
        std::fs::create_dir(&whole).unwrap();
        std::fs::write(whole.join("w.txt"), &text).unwrap();
        let single = DensitySource::Files {
            paths: vec![whole],
            read: read(InputFormat::Text),
            one_stream: false,
        };
        let single = measure_density(&single, &opts, &NoProgress).unwrap();
        assert!(stream.report.one_stream);
        assert_eq!(stream.report.hashes, 3000 - 7);
        for ((name, a), (_, b)) in stream.report.rows().iter().zip(single.report.rows()) {
            assert_eq!(a.fingerprints, b.fingerprints, "{name}");
            assert_eq!(a.longest_gap, b.longest_gap, "{name}");
            assert_eq!(a.longest_gap_path, None, "{name}");
        }
    }

    #[test]
    fn serializes_the_schema_fields_in_order() {
        let source = DensitySource::Random {
            bytes: 1000,
            seed: 1,
        };
        let mut run = measure_density(&source, &options(5, 4, None), &NoProgress).unwrap();
        run.report.timing = Some(run.timing());
        let text = serde_json::to_string(&run.report).unwrap();
        assert!(
            text.starts_with(r#"{"schema":"bryo.density/1","input":{"kind":"random","bytes":1000,"seed":1},"k":5,"w":4,"t":8,"hash":"karp-rabin","hash_scheme_version""#),
            "{text}"
        );
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["schema"], "bryo.density/1");
        assert_eq!(json["input"]["kind"], "random");
        assert_eq!(json["front_end"], "raw");
        assert_eq!(json["mod_p"]["p"], 2);
        assert!(json["winnow"].get("p").is_none());
        assert!(json["timing"]["seconds"].is_number());
    }

    #[test]
    fn random_text_too_large_is_an_error() {
        let source = DensitySource::Random {
            bytes: u64::MAX,
            seed: 1,
        };
        let err = measure_density(&source, &options(5, 4, None), &NoProgress).unwrap_err();
        assert!(matches!(err, Error::RandomTooLarge { bytes: u64::MAX }));
    }
}
