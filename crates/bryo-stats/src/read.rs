//! Reading a corpus: the files of a [`Listing`](bryo_input::Listing), each
//! turned into k-gram hashes by the chosen front-end, one file at a time,
//! so memory does not grow with the corpus. In one-stream mode the symbols
//! of all files are hashed as one continuous sequence, as the winnowing
//! paper did: the last k − 1 symbols are carried from each file to the
//! next, so k-grams span file boundaries.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use bryo_compare::{normalize_into, AnalyzeOptions};
use bryo_engine::{Config, HashFunction, Hasher};
use bryo_frontend::{decode, html_to_text, Language, Normalized, TextMode};

use crate::Error;

/// Hashes handed to the consumer per step.
pub const CHUNK: usize = 64 * 1024;

/// Which front-end turns a file into symbols (serialized as its
/// [`InputFormat::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// Every byte of the file is one symbol (no front-end).
    Raw,
    /// The prose front-end: case folded, whitespace and punctuation dropped.
    Text,
    /// The HTML front-end: markup dropped, entities decoded, then as text.
    Html,
}

impl InputFormat {
    /// `raw`, `text` or `html`.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Raw => "raw",
            InputFormat::Text => "text",
            InputFormat::Html => "html",
        }
    }

    /// The language of the front-end (`None` for raw bytes).
    pub fn language(self) -> Option<&'static Language> {
        match self {
            InputFormat::Raw => None,
            InputFormat::Text => Language::by_name("text"),
            InputFormat::Html => Language::by_name("html"),
        }
    }

    /// The extensions a file found in a directory must have to be read
    /// (none: every file): the HTML front-end reads the HTML language's
    /// files; raw and text read everything.
    pub fn extensions(self) -> Vec<String> {
        match self {
            InputFormat::Html => self
                .language()
                .map(|l| l.extensions().iter().map(|e| e.to_string()).collect())
                .unwrap_or_default(),
            InputFormat::Raw | InputFormat::Text => Vec::new(),
        }
    }
}

/// How files are read.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// The front-end.
    pub format: InputFormat,
    /// Characters or words, for text and HTML.
    pub text_mode: TextMode,
    /// With text and HTML, larger files are skipped (raw files are streamed
    /// whatever their size).
    pub max_file_size: u64,
}

/// What was read of one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocInfo {
    /// Bytes of the file.
    pub bytes: u64,
    /// Symbols after the front-end (bytes for raw input).
    pub symbols: u64,
    /// k-gram hashes handed over.
    pub hashes: u64,
}

/// The outcome of reading one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOutcome {
    /// The file was read and its hashes handed over.
    Read(DocInfo),
    /// The file was skipped, for this reason, before any hash was handed
    /// over (missing, binary, undecodable, too large).
    Skipped(String),
}

/// Reads documents one at a time and hands their hashes, in order, to a
/// consumer in slices of at most [`CHUNK`]; buffers are reused. Clone one
/// per worker thread.
#[derive(Clone, Debug)]
pub struct HashReader {
    options: ReadOptions,
    analyze: AnalyzeOptions,
    hasher: Hasher,
    chunk: usize,
    bytes: Vec<u8>,
    text: String,
    norm: Normalized,
    hashes: Vec<u64>,
    path: PathBuf,
    /// Hash the files as one stream (see [`HashReader::one_stream`]).
    one_stream: bool,
    /// One-stream mode, text and HTML: the last (at most k − 1) symbols of
    /// the stream so far, whose k-grams end in a later file. Raw input
    /// carries its last bytes in `bytes` instead.
    carry: Vec<u64>,
    /// The carried symbols followed by the first symbols of the next file.
    seam: Vec<u64>,
}

impl HashReader {
    /// A reader hashing with `function` and `config.k()`.
    pub fn new(options: ReadOptions, config: &Config, function: HashFunction) -> HashReader {
        HashReader {
            options,
            analyze: AnalyzeOptions {
                language: options.format.language(),
                text_mode: options.text_mode,
                ..AnalyzeOptions::default()
            },
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
    pub fn one_stream(mut self) -> HashReader {
        self.one_stream = true;
        self
    }

    /// Hashes per step (tests use tiny steps to exercise the seams).
    #[cfg(test)]
    pub(crate) fn with_chunk(mut self, chunk: usize) -> HashReader {
        self.chunk = chunk.max(1);
        self
    }

    /// The front-end.
    pub fn format(&self) -> InputFormat {
        self.options.format
    }

    /// Reads `path` and calls `sink` with its hashes in order.
    ///
    /// # Errors
    ///
    /// A read error after hashes were handed over, or an error of `sink`.
    pub fn hash_file(
        &mut self,
        path: &Path,
        sink: &mut dyn FnMut(&[u64]) -> Result<(), Error>,
    ) -> Result<ReadOutcome, Error> {
        self.path = path.to_path_buf();
        match self.options.format {
            InputFormat::Raw => self.stream_raw(path, sink),
            InputFormat::Text | InputFormat::Html => self.read_text(path, sink),
        }
    }

    fn stream_raw(
        &mut self,
        path: &Path,
        sink: &mut dyn FnMut(&[u64]) -> Result<(), Error>,
    ) -> Result<ReadOutcome, Error> {
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) => return Ok(ReadOutcome::Skipped(e.to_string())),
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
                        return Ok(ReadOutcome::Skipped(e.to_string()));
                    }
                    Err(source) => {
                        return Err(Error::Read {
                            path: path.display().to_string(),
                            source,
                        })
                    }
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
        Ok(ReadOutcome::Read(info))
    }

    fn read_text(
        &mut self,
        path: &Path,
        sink: &mut dyn FnMut(&[u64]) -> Result<(), Error>,
    ) -> Result<ReadOutcome, Error> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) => return Ok(ReadOutcome::Skipped(e.to_string())),
        };
        self.bytes.clear();
        let limit = self.options.max_file_size;
        if let Err(e) = file
            .take(limit.saturating_add(1))
            .read_to_end(&mut self.bytes)
        {
            return Ok(ReadOutcome::Skipped(e.to_string()));
        }
        if self.bytes.len() as u64 > limit {
            return Ok(ReadOutcome::Skipped(format!(
                "larger than --max-file-size {limit} bytes"
            )));
        }
        self.text.clear();
        match decode(&self.bytes) {
            Ok(d) => self.text.push_str(d.text()),
            Err(e) => return Ok(ReadOutcome::Skipped(e.to_string())),
        }
        let Some(language) = self.analyze.language else {
            return Ok(ReadOutcome::Skipped("no front-end".to_string()));
        };
        if let Err(reason) = normalize_into(language, &self.text, &self.analyze, &mut self.norm) {
            return Ok(ReadOutcome::Skipped(reason.to_string()));
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
        Ok(ReadOutcome::Read(DocInfo {
            bytes: self.bytes.len() as u64,
            symbols: self.norm.symbols.len() as u64,
            hashes: (handed + total) as u64,
        }))
    }

    /// One-stream mode: hands over the hashes of the k-grams that start in
    /// the carried symbols and end in the file just normalized (all of them
    /// unless the file is shorter than k − 1 symbols); returns their number.
    fn hash_seam(
        &mut self,
        sink: &mut dyn FnMut(&[u64]) -> Result<(), Error>,
    ) -> Result<usize, Error> {
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
    /// last read, whitespace collapsed and cut to `max_chars` characters;
    /// HTML is shown as text ([`html_to_text`]).
    pub fn kgram_text(&self, pos: u64, max_chars: usize) -> Option<String> {
        let k = self.hasher.k() as u64;
        let raw = match self.options.format {
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
        let raw = if self.options.format == InputFormat::Html {
            html_to_text(&raw)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn options(format: InputFormat) -> ReadOptions {
        ReadOptions {
            format,
            text_mode: TextMode::Chars,
            max_file_size: 64 << 20,
        }
    }

    fn all_hashes(reader: &mut HashReader, path: &Path) -> (DocInfo, Vec<u64>) {
        let mut got = Vec::new();
        let outcome = reader
            .hash_file(path, &mut |h| {
                got.extend_from_slice(h);
                Ok(())
            })
            .unwrap();
        match outcome {
            ReadOutcome::Read(info) => (info, got),
            ReadOutcome::Skipped(reason) => panic!("skipped: {reason}"),
        }
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
        for chunk in [1, 2, 7, 100, 4988, 4989, 70_000] {
            let mut r =
                HashReader::new(options(InputFormat::Raw), &config, HashFunction::KarpRabin)
                    .with_chunk(chunk);
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
            (InputFormat::Raw, HashFunction::KarpRabin),
            (InputFormat::Text, HashFunction::KarpRabin),
            (
                InputFormat::Html,
                HashFunction::Rabin(bryo_engine::Polynomial::DEFAULT),
            ),
        ] {
            let hasher = Hasher::new(function, &config);
            let mut expected = Vec::new();
            match format {
                InputFormat::Raw => hasher.hash_bytes(contents.concat().as_bytes(), &mut expected),
                _ => {
                    let symbols: Vec<u64> = contents
                        .iter()
                        .flat_map(|c| match format {
                            InputFormat::Html => {
                                bryo_frontend::normalize_html(c, TextMode::Chars).symbols
                            }
                            _ => bryo_frontend::normalize_text(c, TextMode::Chars).symbols,
                        })
                        .collect();
                    hasher.hash_symbols(&symbols, &mut expected);
                }
            }
            for chunk in [1, 2, 5, 1000] {
                let mut r = HashReader::new(options(format), &config, function)
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
                        ReadOutcome::Read(info) => counted += info.hashes,
                        ReadOutcome::Skipped(_) => skipped += 1,
                    }
                }
                assert_eq!(got, expected, "{format:?}, chunk {chunk}");
                assert_eq!(counted, expected.len() as u64, "{format:?}, chunk {chunk}");
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
        let mut r = HashReader::new(options(InputFormat::Html), &config, HashFunction::KarpRabin)
            .with_chunk(2);
        let (info, got) = all_hashes(&mut r, &path);
        // "helloworld": 10 symbols, 8 trigrams.
        assert_eq!((info.symbols, info.hashes, got.len()), (10, 8, 8));
        assert_eq!(r.kgram_text(3, 100).as_deref(), Some("lo, W"));
        let too_big = ReadOptions {
            max_file_size: 10,
            ..options(InputFormat::Html)
        };
        let mut r = HashReader::new(too_big, &config, HashFunction::KarpRabin);
        let skipped = r.hash_file(&path, &mut |_| Ok(())).unwrap();
        assert!(matches!(skipped, ReadOutcome::Skipped(r) if r.contains("max-file-size")));
    }
}
