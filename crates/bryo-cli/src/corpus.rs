//! Reading a corpus for `bryo density` and `bryo rank`: the files found
//! under the given paths, each turned into k-gram hashes by the chosen
//! front-end, one file at a time, so memory does not grow with the corpus.
//! In one-stream mode the symbols of all files are hashed as one continuous
//! sequence, as the winnowing paper did: the last k − 1 symbols are carried
//! from each file to the next, so k-grams span file boundaries.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use bryo_engine::{Config, HashFunction, Hasher, Polynomial};
use bryo_frontend::{decode, normalize_html_into, normalize_text_into, Normalized, TextMode};
use serde::Serialize;

/// Hashes handed to the consumer per step.
pub const CHUNK: usize = 64 * 1024;

/// The engine options shared by `density` and `rank`.
#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    /// Noise threshold: the k-gram length, in symbols.
    #[arg(short = 'k', default_value_t = 50)]
    pub k: usize,

    /// Winnowing window, in hashes (the paper: 100).
    #[arg(short = 'w', conflicts_with = "t")]
    pub w: Option<usize>,

    /// Guarantee threshold t >= k, instead of -w (w = t - k + 1).
    #[arg(short = 't')]
    pub t: Option<usize>,

    /// Rolling hash: karp-rabin or rabin (GF(2), default polynomial).
    #[arg(long = "hash", default_value = "karp-rabin", value_name = "NAME")]
    pub hash: HashFunction,

    /// With --hash rabin: use a random irreducible polynomial drawn from this
    /// seed instead of the default one.
    #[arg(long, value_name = "SEED")]
    pub poly_seed: Option<u64>,
}

impl EngineArgs {
    /// The validated configuration and hash function.
    pub fn engine(&self) -> Result<(Config, HashFunction)> {
        let config = match (self.w, self.t) {
            (_, Some(t)) => Config::from_thresholds(self.k, t),
            (w, None) => Config::new(self.k, w.unwrap_or(100)),
        }
        .context("invalid thresholds")?;
        let function = match (self.hash, self.poly_seed) {
            (HashFunction::Rabin(_), Some(seed)) => HashFunction::Rabin(Polynomial::random(seed)),
            (HashFunction::KarpRabin, Some(_)) => bail!("--poly-seed needs --hash rabin"),
            (f, None) => f,
        };
        Ok((config, function))
    }
}

/// Which front-end turns a file into symbols.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// Every byte of the file is one symbol (no front-end).
    Raw,
    /// The prose front-end: case folded, whitespace and punctuation dropped.
    #[value(alias = "prose", alias = "ascii")]
    Text,
    /// The HTML front-end: markup dropped, entities decoded, then as text.
    Html,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextModeArg {
    Chars,
    Words,
}

/// How the corpus is read, shared by `density` and `rank`.
#[derive(clap::Args, Debug)]
pub struct CorpusArgs {
    /// Front-end: `raw` (every byte one symbol), `text` (prose: case folded,
    /// whitespace and punctuation dropped) or `html` (markup dropped, then
    /// as text; in directories only *.html, *.htm and *.xhtml files are
    /// read).
    #[arg(short = 'l', long = "language", value_enum, default_value_t = InputFormat::Raw)]
    pub language: InputFormat,

    /// Symbols of text and HTML: characters (as the winnowing paper) or words.
    #[arg(long = "text-mode", value_enum, default_value_t = TextModeArg::Chars)]
    pub text_mode: TextModeArg,

    /// With -l text or html, larger files are skipped (raw files are
    /// streamed whatever their size).
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_file_size: u64,

    /// Worker threads [default: one per core].
    #[arg(short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
}

impl CorpusArgs {
    pub fn text_mode(&self) -> TextMode {
        match self.text_mode {
            TextModeArg::Chars => TextMode::Chars,
            TextModeArg::Words => TextMode::Words,
        }
    }

    /// A thread pool of `-j` threads.
    pub fn pool(&self) -> Result<rayon::ThreadPool> {
        let mut b = rayon::ThreadPoolBuilder::new();
        if let Some(n) = self.threads {
            if n == 0 {
                bail!("-j must be at least 1");
            }
            b = b.num_threads(n);
        }
        b.build().context("cannot start worker threads")
    }
}

/// A file that was not read, with the reason.
#[derive(Serialize, Debug, Clone)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// A file to read, with its size when listed.
#[derive(Debug, Clone)]
pub struct FileEntry {
    pub path: PathBuf,
    pub len: u64,
}

/// The files of a corpus, in a fixed order.
#[derive(Debug, Default)]
pub struct Listing {
    pub files: Vec<FileEntry>,
    pub skipped: Vec<Skipped>,
    /// Files found in directories whose extension the front-end does not
    /// read (with -l html: everything but HTML).
    pub other_extension: u64,
}

const HTML_EXTENSIONS: &[&str] = &["html", "htm", "xhtml"];

/// Lists the files under `paths`: a file is taken as named; a directory is
/// walked with the `ignore` crate (`.gitignore` and `.ignore` honoured,
/// hidden files skipped, sorted by name). With -l html only HTML files are
/// taken from directories.
pub fn list(paths: &[PathBuf], format: InputFormat) -> Listing {
    let mut out = Listing::default();
    let skip = |out: &mut Listing, path: &Path, reason: String| {
        out.skipped.push(Skipped {
            path: path.display().to_string(),
            reason,
        })
    };
    for root in paths {
        match std::fs::metadata(root) {
            Ok(m) if m.is_file() => out.files.push(FileEntry {
                path: root.clone(),
                len: m.len(),
            }),
            Ok(m) if m.is_dir() => {
                let walk = ignore::WalkBuilder::new(root)
                    .sort_by_file_name(|a, b| a.cmp(b))
                    .build();
                for entry in walk {
                    let entry = match entry {
                        Ok(e) => e,
                        Err(e) => {
                            skip(&mut out, root, e.to_string());
                            continue;
                        }
                    };
                    if !entry.file_type().is_some_and(|t| t.is_file()) {
                        continue;
                    }
                    let path = entry.path();
                    if format == InputFormat::Html && !has_extension(path, HTML_EXTENSIONS) {
                        out.other_extension += 1;
                        continue;
                    }
                    match entry.metadata() {
                        Ok(m) => out.files.push(FileEntry {
                            path: path.to_path_buf(),
                            len: m.len(),
                        }),
                        Err(e) => skip(&mut out, path, e.to_string()),
                    }
                }
            }
            Ok(_) => skip(&mut out, root, "not a regular file".to_string()),
            Err(e) => skip(&mut out, root, e.to_string()),
        }
    }
    out
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// What was read of one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocInfo {
    /// Bytes of the file.
    pub bytes: u64,
    /// Symbols after the front-end (bytes for raw input).
    pub symbols: u64,
    /// k-gram hashes computed.
    pub hashes: u64,
}

/// Reads documents one at a time and hands their hashes, in order, to a
/// consumer in slices of at most [`CHUNK`]; buffers are reused.
#[derive(Clone)]
pub struct Reader {
    format: InputFormat,
    mode: TextMode,
    max_file_size: u64,
    hasher: Hasher,
    chunk: usize,
    bytes: Vec<u8>,
    text: String,
    norm: Normalized,
    hashes: Vec<u64>,
    path: PathBuf,
    /// Hash the files as one stream (see [`Reader::one_stream`]).
    one_stream: bool,
    /// One-stream mode, text and HTML: the last (at most k − 1) symbols of
    /// the stream so far, whose k-grams end in a later file. Raw input
    /// carries its last bytes in `bytes` instead.
    carry: Vec<u64>,
    /// The carried symbols followed by the first symbols of the next file.
    seam: Vec<u64>,
}

impl Reader {
    pub fn new(args: &CorpusArgs, config: &Config, function: HashFunction) -> Reader {
        Reader {
            format: args.language,
            mode: args.text_mode(),
            max_file_size: args.max_file_size,
            hasher: Hasher::new(function, config),
            chunk: CHUNK,
            bytes: Vec::new(),
            text: String::new(),
            norm: Normalized::default(),
            hashes: Vec::new(),
            path: PathBuf::new(),
            one_stream: false,
            carry: Vec::new(),
            seam: Vec::new(),
        }
    }

    /// A reader that hashes the files it is given, in the order given, as
    /// one continuous sequence of symbols (the winnowing paper's method):
    /// the k-grams that span the boundary between two files are hashed and
    /// handed over at the start of the later file, and a file shorter than
    /// k − 1 symbols only extends the carried tail. Memory stays bounded:
    /// only the last k − 1 symbols are kept between files. Skipped files
    /// are not part of the stream. [`DocInfo::hashes`] then counts the
    /// hashes handed over while reading each file.
    pub fn one_stream(mut self) -> Reader {
        self.one_stream = true;
        self
    }

    /// Hashes per step (tests use tiny steps to exercise the seams).
    #[cfg(test)]
    fn with_chunk(mut self, chunk: usize) -> Reader {
        self.chunk = chunk.max(1);
        self
    }

    /// Reads `path` and calls `sink` with its hashes in order. `Ok(Err(reason))`
    /// means the file was skipped before any hash was handed over.
    pub fn hash_file(
        &mut self,
        path: &Path,
        sink: &mut dyn FnMut(&[u64]) -> Result<()>,
    ) -> Result<std::result::Result<DocInfo, String>> {
        self.path = path.to_path_buf();
        match self.format {
            InputFormat::Raw => self.stream_raw(path, sink),
            InputFormat::Text | InputFormat::Html => self.read_text(path, sink),
        }
    }

    fn stream_raw(
        &mut self,
        path: &Path,
        sink: &mut dyn FnMut(&[u64]) -> Result<()>,
    ) -> Result<std::result::Result<DocInfo, String>> {
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let k = self.hasher.k();
        let want = self.chunk + k - 1;
        let mut info = DocInfo::default();
        if !self.one_stream {
            self.bytes.clear();
        }
        // In one-stream mode `bytes` starts with the last k − 1 bytes of
        // the files before, so the first k-grams span the boundary.
        loop {
            let start = self.bytes.len();
            self.bytes.resize(want, 0);
            let mut filled = start;
            while filled < want {
                match file.read(&mut self.bytes[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if info.bytes == 0 && filled == start => {
                        self.bytes.truncate(start);
                        return Ok(Err(e.to_string()));
                    }
                    Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
                }
            }
            self.bytes.truncate(filled);
            info.bytes += (filled - start) as u64;
            let n = self.hasher.kgram_count(filled);
            if n > 0 {
                self.hashes.resize(n, 0);
                self.hasher
                    .hash_bytes_range(&self.bytes, 0, &mut self.hashes)?;
                sink(&self.hashes)?;
                info.hashes += n as u64;
                self.bytes.drain(..n);
            }
            if filled < want {
                break;
            }
        }
        info.symbols = info.bytes;
        Ok(Ok(info))
    }

    fn read_text(
        &mut self,
        path: &Path,
        sink: &mut dyn FnMut(&[u64]) -> Result<()>,
    ) -> Result<std::result::Result<DocInfo, String>> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) => return Ok(Err(e.to_string())),
        };
        self.bytes.clear();
        let limit = self.max_file_size;
        match file
            .take(limit.saturating_add(1))
            .read_to_end(&mut self.bytes)
        {
            Ok(_) => {}
            Err(e) => return Ok(Err(e.to_string())),
        }
        if self.bytes.len() as u64 > limit {
            return Ok(Err(format!("larger than --max-file-size {limit} bytes")));
        }
        self.text.clear();
        match decode(&self.bytes) {
            Ok(d) => self.text.push_str(d.text()),
            Err(e) => return Ok(Err(e.to_string())),
        }
        match self.format {
            InputFormat::Html => normalize_html_into(&self.text, self.mode, &mut self.norm),
            _ => normalize_text_into(&self.text, self.mode, &mut self.norm),
        }
        let mut handed = 0;
        if self.one_stream {
            handed += self.hash_seam(sink)?;
        }
        let total = self.hasher.kgram_count(self.norm.symbols.len());
        let mut first = 0;
        while first < total {
            let n = self.chunk.min(total - first);
            self.hashes.resize(n, 0);
            self.hasher
                .hash_symbols_range(&self.norm.symbols, first, &mut self.hashes)?;
            sink(&self.hashes)?;
            first += n;
        }
        if self.one_stream {
            self.keep_tail();
        }
        Ok(Ok(DocInfo {
            bytes: self.bytes.len() as u64,
            symbols: self.norm.symbols.len() as u64,
            hashes: (handed + total) as u64,
        }))
    }

    /// One-stream mode: hands over the hashes of the k-grams that start in
    /// the carried symbols and end in the file just normalized (all of them
    /// unless the file is shorter than k − 1 symbols); returns their number.
    fn hash_seam(&mut self, sink: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<usize> {
        if self.carry.is_empty() {
            return Ok(0);
        }
        let head = self.norm.symbols.len().min(self.hasher.k() - 1);
        self.seam.clear();
        self.seam.extend_from_slice(&self.carry);
        self.seam.extend_from_slice(&self.norm.symbols[..head]);
        let n = self.hasher.kgram_count(self.seam.len());
        if n > 0 {
            self.hashes.resize(n, 0);
            self.hasher
                .hash_symbols_range(&self.seam, 0, &mut self.hashes)?;
            sink(&self.hashes)?;
        }
        Ok(n)
    }

    /// One-stream mode: keeps the last k − 1 symbols of the stream (the
    /// starts of the k-grams not hashed yet) for the next file.
    fn keep_tail(&mut self) {
        let keep = self.hasher.k() - 1;
        let symbols = &self.norm.symbols;
        if symbols.len() >= keep {
            self.carry.clear();
            self.carry
                .extend_from_slice(&symbols[symbols.len() - keep..]);
        } else {
            self.carry.extend_from_slice(symbols);
            let excess = self.carry.len().saturating_sub(keep);
            self.carry.drain(..excess);
        }
    }

    /// The source text of the k-gram at symbol position `pos` of the file
    /// last read, whitespace collapsed and cut to `max_chars` characters.
    pub fn kgram_text(&self, pos: u64, max_chars: usize) -> Option<String> {
        let k = self.hasher.k() as u64;
        let raw = match self.format {
            InputFormat::Raw => {
                let mut f = File::open(&self.path).ok()?;
                f.seek(SeekFrom::Start(pos)).ok()?;
                let mut buf = Vec::new();
                f.take(k).read_to_end(&mut buf).ok()?;
                String::from_utf8_lossy(&buf).into_owned()
            }
            InputFormat::Text | InputFormat::Html => {
                let first = self.norm.spans.get(usize::try_from(pos).ok()?)?;
                let last = self.norm.spans.get(usize::try_from(pos + k - 1).ok()?)?;
                self.text
                    .get(first.range().start..last.range().end)?
                    .to_string()
            }
        };
        let raw = if self.format == InputFormat::Html {
            strip_tags(&raw)
        } else {
            raw
        };
        let mut out = String::new();
        for (i, word) in raw.split_whitespace().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(word);
        }
        if out.chars().count() > max_chars {
            out = out.chars().take(max_chars).collect::<String>() + "…";
        }
        Some(out)
    }
}

/// `text` with every `<…>` replaced by a space and the most common
/// character references decoded: a readable sample of HTML (a k-gram starts
/// and ends on text, never inside a tag).
fn strip_tags(text: &str) -> String {
    let mut out = strip_markup(text);
    for (reference, c) in [
        ("&nbsp;", " "),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&#x27;", "'"),
        ("&amp;", "&"),
    ] {
        if out.contains(reference) {
            out = out.replace(reference, c);
        }
    }
    out
}

fn strip_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// A progress bar in bytes on standard error, drawn only when it is a
/// terminal.
pub fn progress_bar(total_bytes: u64, what: &str) -> indicatif::ProgressBar {
    let bar = if io::stderr().is_terminal() {
        indicatif::ProgressBar::new(total_bytes)
    } else {
        indicatif::ProgressBar::hidden()
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg:>8} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}

/// 1234567 → "1,234,567".
pub fn group(n: u64) -> String {
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
    use clap::Parser;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        corpus: CorpusArgs,
    }

    fn all_hashes(reader: &mut Reader, path: &Path) -> (DocInfo, Vec<u64>) {
        let mut got = Vec::new();
        let info = reader
            .hash_file(path, &mut |h| {
                got.extend_from_slice(h);
                Ok(())
            })
            .unwrap()
            .unwrap();
        (info, got)
    }

    #[test]
    fn streaming_in_small_chunks_gives_every_hash_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let config = Config::new(13, 5).unwrap();
        let hasher = Hasher::new(HashFunction::KarpRabin, &config);
        let mut expected = Vec::new();
        hasher.hash_bytes(&data, &mut expected);
        let args = Cli::parse_from(["x"]).corpus;
        for chunk in [1, 2, 7, 100, 4988, 4989, 70_000] {
            let mut r = Reader::new(&args, &config, HashFunction::KarpRabin).with_chunk(chunk);
            let (info, got) = all_hashes(&mut r, &path);
            assert_eq!(got, expected, "chunk {chunk}");
            assert_eq!((info.bytes, info.symbols, info.hashes), (5000, 5000, 4988));
            assert_eq!(
                r.kgram_text(3, 100).unwrap().as_bytes(),
                String::from_utf8_lossy(&data[3..16]).as_bytes()
            );
        }
    }

    /// Files of every length around k − 1 (empty, shorter than the carried
    /// tail, exactly k − 1, longer than a chunk), with an unreadable file in
    /// the middle: in one-stream mode the hashes handed over, file after
    /// file, are exactly those of the concatenated symbols, whatever the
    /// chunk size.
    #[test]
    fn one_stream_hashes_equal_the_hashes_of_the_concatenation() {
        let dir = tempfile::tempdir().unwrap();
        let k = 6;
        let config = Config::new(k, 3).unwrap();
        let lens = [0usize, 2, 5, 1, 0, 17, 3, 40, 5, 4, 1];
        let mut paths = Vec::new();
        let mut contents = Vec::new();
        let mut seed = 0x9e37_79b9_u32;
        for (i, &n) in lens.iter().enumerate() {
            let text: String = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    char::from(b'a' + ((seed >> 16) % 3) as u8)
                })
                .collect();
            let path = dir.path().join(format!("f{i:02}.txt"));
            std::fs::write(&path, &text).unwrap();
            paths.push(path);
            contents.push(text);
            if i == 4 {
                // Not there when read: skipped, and not part of the stream.
                paths.push(dir.path().join("missing.txt"));
            }
        }
        for (format, function) in [
            ("raw", HashFunction::KarpRabin),
            ("text", HashFunction::KarpRabin),
            (
                "html",
                HashFunction::Rabin(bryo_engine::Polynomial::DEFAULT),
            ),
        ] {
            let args = Cli::parse_from(["x", "-l", format]).corpus;
            let hasher = Hasher::new(function, &config);
            let mut expected = Vec::new();
            match format {
                "raw" => hasher.hash_bytes(contents.concat().as_bytes(), &mut expected),
                _ => {
                    let symbols: Vec<u64> = contents
                        .iter()
                        .flat_map(|c| match format {
                            "html" => bryo_frontend::normalize_html(c, TextMode::Chars).symbols,
                            _ => bryo_frontend::normalize_text(c, TextMode::Chars).symbols,
                        })
                        .collect();
                    hasher.hash_symbols(&symbols, &mut expected);
                }
            }
            for chunk in [1, 2, 5, 1000] {
                let mut r = Reader::new(&args, &config, function)
                    .with_chunk(chunk)
                    .one_stream();
                let mut got = Vec::new();
                let mut counted = 0;
                let mut skipped = 0;
                for path in &paths {
                    let outcome = r
                        .hash_file(path, &mut |h| {
                            got.extend_from_slice(h);
                            Ok(())
                        })
                        .unwrap();
                    match outcome {
                        Ok(info) => counted += info.hashes,
                        Err(_) => skipped += 1,
                    }
                }
                assert_eq!(got, expected, "{format}, chunk {chunk}");
                assert_eq!(counted, expected.len() as u64, "{format}, chunk {chunk}");
                assert_eq!(skipped, 1);
            }
        }
    }

    #[test]
    fn html_is_read_through_the_front_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.html");
        std::fs::write(
            &path,
            "<p>Hello,&nbsp;<b>World</b>!</p><script>x()</script>",
        )
        .unwrap();
        let config = Config::new(3, 2).unwrap();
        let args = Cli::parse_from(["x", "-l", "html"]).corpus;
        let mut r = Reader::new(&args, &config, HashFunction::KarpRabin).with_chunk(2);
        let (info, got) = all_hashes(&mut r, &path);
        // "helloworld": 10 symbols, 8 trigrams.
        assert_eq!((info.symbols, info.hashes, got.len()), (10, 8, 8));
        assert_eq!(r.kgram_text(3, 100).as_deref(), Some("lo, W"));
        let too_big = Cli::parse_from(["x", "-l", "html", "--max-file-size", "10"]).corpus;
        let mut r = Reader::new(&too_big, &config, HashFunction::KarpRabin);
        let skipped = r.hash_file(&path, &mut |_| Ok(())).unwrap();
        assert!(skipped.unwrap_err().contains("max-file-size"));
    }
}
