//! `bryo density`: the paper's density experiment on random text or files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bryo_engine::{
    Config, GapMeter, HashFunction, Hasher, Polynomial, Selection, Selector, SplitMix64,
    HASH_SCHEME_VERSION,
};
use serde::Serialize;

/// Letters of the random text: text after case folding and dropping
/// whitespace and punctuation, as the paper's front-end would leave it.
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// Hashes computed per step: bounded memory for inputs of any size.
const CHUNK: usize = 64 * 1024;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories (searched recursively) to fingerprint, each byte
    /// one symbol.
    #[arg(
        value_name = "PATH",
        required_unless_present = "random",
        conflicts_with = "random"
    )]
    paths: Vec<PathBuf>,

    /// Fingerprint BYTES of random lowercase text instead of files.
    #[arg(long, value_name = "BYTES")]
    random: Option<u64>,

    /// Seed of the random text (the same seed always gives the same text).
    #[arg(long, default_value_t = 1, requires = "random")]
    seed: u64,

    /// Noise threshold: the k-gram length.
    #[arg(short = 'k', default_value_t = 50)]
    k: usize,

    /// Winnowing window, in hashes (the paper: 100).
    #[arg(short = 'w', conflicts_with = "t")]
    w: Option<usize>,

    /// Guarantee threshold t >= k, instead of -w (w = t - k + 1).
    #[arg(short = 't')]
    t: Option<usize>,

    /// Rolling hash: karp-rabin or rabin (GF(2), default polynomial).
    #[arg(long = "hash", default_value = "karp-rabin", value_name = "NAME")]
    hash: HashFunction,

    /// With --hash rabin: use a random irreducible polynomial drawn from this
    /// seed instead of the default one.
    #[arg(long, value_name = "SEED")]
    poly_seed: Option<u64>,

    /// Modulus of 0 mod p [default: (w + 1) / 2, the density of winnowing].
    #[arg(short = 'p')]
    p: Option<u64>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// The result, as `--format json` prints it.
#[derive(Serialize, Debug)]
struct Report {
    schema: &'static str,
    input: Input,
    k: usize,
    w: usize,
    t: usize,
    hash: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    polynomial: Option<String>,
    hash_scheme_version: u32,
    documents: u64,
    symbols: u64,
    hashes: u64,
    winnow: Strategy,
    robust_winnow: Strategy,
    mod_p: Strategy,
    safe_mod_p: Strategy,
}

#[derive(Serialize, Debug)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Input {
    Random { bytes: u64, seed: u64 },
    Files { skipped: Vec<Skipped> },
}

#[derive(Serialize, Debug)]
struct Skipped {
    path: String,
    reason: String,
}

#[derive(Serialize, Debug)]
struct Strategy {
    #[serde(skip_serializing_if = "Option::is_none")]
    p: Option<u64>,
    fingerprints: u64,
    density: f64,
    expected_density: f64,
    longest_gap: u64,
}

/// One selection strategy's running totals over all documents.
struct Tally {
    selection: Selection,
    selector: Selector,
    gaps: GapMeter,
    fingerprints: u64,
    longest_gap: u64,
    buf: Vec<bryo_engine::Fingerprint>,
}

impl Tally {
    fn new(selection: Selection, config: &Config) -> Result<Tally> {
        Ok(Tally {
            selection,
            selector: Selector::new(selection, config.w())?,
            gaps: GapMeter::new(config.k()),
            fingerprints: 0,
            longest_gap: 0,
            buf: Vec::new(),
        })
    }

    fn push(&mut self, hashes: &[u64]) -> Result<()> {
        self.buf.clear();
        self.selector.push(hashes, &mut self.buf)?;
        self.count();
        Ok(())
    }

    fn finish(&mut self, symbols: u64) {
        self.buf.clear();
        self.selector.finish(&mut self.buf);
        self.count();
        self.longest_gap = self.longest_gap.max(self.gaps.finish(symbols));
    }

    fn count(&mut self) {
        self.fingerprints += self.buf.len() as u64;
        for f in &self.buf {
            self.gaps.observe(u64::from(f.pos));
        }
    }

    fn strategy(&self, hashes: u64, w: usize) -> Strategy {
        Strategy {
            p: match self.selection {
                Selection::ModP { p } | Selection::SafeModP { p } => Some(p),
                _ => None,
            },
            fingerprints: self.fingerprints,
            density: if hashes == 0 {
                0.0
            } else {
                self.fingerprints as f64 / hashes as f64
            },
            expected_density: self.selection.expected_density(w).unwrap_or(0.0),
            longest_gap: self.longest_gap,
        }
    }
}

struct Experiment {
    hasher: Hasher,
    tallies: Vec<Tally>,
    hashes_buf: Vec<u64>,
    documents: u64,
    symbols: u64,
    hashes: u64,
}

impl Experiment {
    fn document(&mut self, bytes: &[u8]) -> Result<()> {
        let total = self.hasher.kgram_count(bytes.len());
        let mut first = 0;
        while first < total {
            let n = CHUNK.min(total - first);
            self.hashes_buf.resize(n, 0);
            self.hasher
                .hash_bytes_range(bytes, first, &mut self.hashes_buf)?;
            for t in &mut self.tallies {
                t.push(&self.hashes_buf)?;
            }
            first += n;
        }
        for t in &mut self.tallies {
            t.finish(bytes.len() as u64);
        }
        self.documents += 1;
        self.symbols += bytes.len() as u64;
        self.hashes += total as u64;
        Ok(())
    }
}

pub fn run(args: &Args) -> Result<()> {
    let config = match (args.w, args.t) {
        (_, Some(t)) => Config::from_thresholds(args.k, t),
        (w, None) => Config::new(args.k, w.unwrap_or(100)),
    }
    .context("invalid thresholds")?;
    let function = match (args.hash, args.poly_seed) {
        (HashFunction::Rabin(_), Some(seed)) => HashFunction::Rabin(Polynomial::random(seed)),
        (HashFunction::KarpRabin, Some(_)) => bail!("--poly-seed needs --hash rabin"),
        (f, None) => f,
    };
    let p = args.p.unwrap_or((config.w() as u64).div_ceil(2)).max(1);
    if args.p == Some(0) {
        bail!("-p must be at least 1");
    }
    let selections = [
        Selection::Winnow,
        Selection::RobustWinnow,
        Selection::ModP { p },
        Selection::SafeModP { p },
    ];
    let mut exp = Experiment {
        hasher: Hasher::new(function, &config),
        tallies: selections
            .iter()
            .map(|&s| Tally::new(s, &config))
            .collect::<Result<_>>()?,
        hashes_buf: Vec::new(),
        documents: 0,
        symbols: 0,
        hashes: 0,
    };

    let mut elapsed = Duration::ZERO;
    let input = if let Some(bytes) = args.random {
        let len = usize::try_from(bytes).context("--random is larger than memory")?;
        let mut text = Vec::new();
        text.try_reserve_exact(len)
            .with_context(|| format!("cannot allocate {bytes} bytes of random text"))?;
        text.resize(len, 0);
        SplitMix64::new(args.seed).fill_from(ALPHABET, &mut text);
        let started = Instant::now();
        exp.document(&text)?;
        elapsed += started.elapsed();
        Input::Random {
            bytes,
            seed: args.seed,
        }
    } else {
        let mut files = Vec::new();
        let mut skipped = Vec::new();
        for path in &args.paths {
            collect(path, &mut files, &mut skipped);
        }
        for path in files {
            match std::fs::read(&path) {
                Ok(bytes) => {
                    let started = Instant::now();
                    exp.document(&bytes)?;
                    elapsed += started.elapsed();
                }
                Err(e) => skipped.push(Skipped {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                }),
            }
        }
        Input::Files { skipped }
    };

    let w = config.w();
    let strategies: Vec<Strategy> = exp
        .tallies
        .iter()
        .map(|t| t.strategy(exp.hashes, w))
        .collect();
    let [winnow, robust_winnow, mod_p, safe_mod_p]: [Strategy; 4] = strategies
        .try_into()
        .map_err(|_| anyhow::anyhow!("four strategies"))?;
    let report = Report {
        schema: "bryo.density/1",
        input,
        k: config.k(),
        w,
        t: config.t(),
        hash: function.name(),
        polynomial: match function {
            HashFunction::Rabin(p) => Some(format!("{:#018x}", p.low_bits())),
            HashFunction::KarpRabin => None,
        },
        hash_scheme_version: HASH_SCHEME_VERSION,
        documents: exp.documents,
        symbols: exp.symbols,
        hashes: exp.hashes,
        winnow,
        robust_winnow,
        mod_p,
        safe_mod_p,
    };
    let mut stdout = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &report)?;
            writeln!(stdout)?;
        }
        Format::Text => print_text(&mut stdout, &report, elapsed.as_secs_f64())?,
    }
    Ok(())
}

/// Adds `path` (a file, or every file below a directory, in sorted order)
/// to `files`; what cannot be read is recorded in `skipped`.
fn collect(path: &Path, files: &mut Vec<PathBuf>, skipped: &mut Vec<Skipped>) {
    let skip = |skipped: &mut Vec<Skipped>, reason: String| {
        skipped.push(Skipped {
            path: path.display().to_string(),
            reason,
        })
    };
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => match std::fs::read_dir(path) {
            Ok(entries) => {
                let mut children: Vec<PathBuf> = Vec::new();
                for entry in entries {
                    match entry {
                        Ok(e) => children.push(e.path()),
                        Err(e) => skip(skipped, e.to_string()),
                    }
                }
                children.sort();
                for child in children {
                    collect(&child, files, skipped);
                }
            }
            Err(e) => skip(skipped, e.to_string()),
        },
        Ok(m) if m.is_file() => files.push(path.to_path_buf()),
        Ok(_) => skip(skipped, "not a regular file".to_string()),
        Err(e) => skip(skipped, e.to_string()),
    }
}

fn print_text(out: &mut impl Write, r: &Report, seconds: f64) -> Result<()> {
    match &r.input {
        Input::Random { bytes, seed } => writeln!(
            out,
            "random text: {} bytes (a-z, seed {seed})",
            group(*bytes)
        )?,
        Input::Files { skipped } => {
            writeln!(
                out,
                "files: {} documents, {} bytes",
                group(r.documents),
                group(r.symbols)
            )?;
            for s in skipped {
                writeln!(out, "skipped {}: {}", s.path, s.reason)?;
            }
        }
    }
    let poly = r
        .polynomial
        .as_deref()
        .map(|p| format!(" (t^64 + {p})"))
        .unwrap_or_default();
    writeln!(
        out,
        "k = {}, w = {} (guarantee t = {}), hash {}{poly}",
        r.k, r.w, r.t, r.hash
    )?;
    writeln!(out, "hashes computed: {}", group(r.hashes))?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<18} {:>13} {:>10} {:>10} {:>12}",
        "strategy", "fingerprints", "density", "expected", "longest gap"
    )?;
    let p = r.mod_p.p.unwrap_or(0);
    for (name, s) in [
        ("winnowing".to_string(), &r.winnow),
        ("robust winnowing".to_string(), &r.robust_winnow),
        (format!("0 mod {p}"), &r.mod_p),
        (format!("safe 0 mod {p}"), &r.safe_mod_p),
    ] {
        writeln!(
            out,
            "{:<18} {:>13} {:>10.6} {:>10.6} {:>12}",
            name,
            group(s.fingerprints),
            s.density,
            s.expected_density,
            group(s.longest_gap)
        )?;
    }
    writeln!(out)?;
    let mb = r.symbols as f64 / 1e6;
    writeln!(
        out,
        "fingerprinting time: {seconds:.3} s ({:.0} MB/s; hashing once, selecting four ways)",
        if seconds > 0.0 { mb / seconds } else { 0.0 }
    )?;
    Ok(())
}

/// 1234567 → "1,234,567".
fn group(n: u64) -> String {
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
