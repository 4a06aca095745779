use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The schema identifier written in every report, `bryo.compare/1`.
///
/// The number after the slash changes when a field is removed, renamed or
/// changes meaning; adding a field keeps the number (readers ignore fields
/// they do not know). See `SCHEMA.md` in this crate for every field.
pub const SCHEMA_ID: &str = "bryo.compare/1";

/// The `schema` field of a [`Report`]: it always holds [`SCHEMA_ID`].
///
/// It is a unit type so a report cannot claim another version: it serializes
/// to [`SCHEMA_ID`] and refuses to deserialize from anything else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schema;

impl Schema {
    /// The identifier, [`SCHEMA_ID`].
    pub fn id(self) -> &'static str {
        SCHEMA_ID
    }
}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(SCHEMA_ID)
    }
}

impl<'de> Deserialize<'de> for Schema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let found = String::deserialize(deserializer)?;
        if found == SCHEMA_ID {
            Ok(Schema)
        } else {
            Err(serde::de::Error::custom(format_args!(
                "unknown report schema {found:?} (this version reads {SCHEMA_ID:?})"
            )))
        }
    }
}

/// The result of one `bryo compare` run: what was compared, with which
/// options, and every reported pair with its fragments.
///
/// Field order is the JSON key order. The model holds no timestamp, so the
/// same input and options give byte-identical output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always `bryo.compare/1`.
    pub schema: Schema,
    /// Version of bryo that produced the report, e.g. `0.1.0`.
    pub bryo_version: String,
    /// The options of the run.
    pub options: Options,
    /// Every submission, new ones and old ones; pairs and clusters refer to
    /// them by index in this list.
    pub submissions: Vec<Submission>,
    /// The reported pairs, best first (rank = position + 1).
    pub pairs: Vec<Pair>,
    /// Groups of submissions connected by pairs above the cluster threshold.
    pub clusters: Vec<Cluster>,
    /// Groups of submissions that are exact copies of each other after
    /// normalization: the same multiset of non-empty files, in any order and
    /// under any names (files identical to base code left out). Omitted from
    /// JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identical_submissions: Vec<Vec<usize>>,
    /// Files whose normalized content is identical in more than one
    /// submission. Omitted from JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identical_files: Vec<IdenticalFiles>,
    /// Files that were not compared, with the reason.
    pub skipped: Vec<Skipped>,
    /// Totals of the run.
    pub stats: Stats,
}

/// Options of the run, as the user gave them or as defaults filled them in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// Language forced with `-l`; `None` when detected per file.
    pub language: Option<String>,
    /// Noise threshold: symbols per k-gram (`-k`).
    pub k: u32,
    /// Winnowing window in k-grams (`-w`); the guarantee threshold is
    /// `t = w + k - 1` symbols.
    pub w: u32,
    /// Passages found in more than this many submissions are ignored (`-m`).
    pub max_submissions: u32,
    /// Most pairs reported (`-n`); 0 reports every pair sharing a fingerprint.
    pub max_pairs: u32,
    /// Pairs below this similarity (0..1) are not reported.
    pub min_similarity: f64,
    /// Fragments shorter than this many symbols are dropped.
    pub min_fragment_symbols: u32,
    /// Pairs at or above this similarity (0..1) join submissions in a cluster.
    pub cluster_threshold: f64,
    /// Whether each directory under a root was one submission (`-d`).
    pub directory_mode: bool,
    /// Base-code paths as given (`-b`).
    pub base: Vec<String>,
    /// Roots of old submissions as given (`--old`).
    pub old: Vec<String>,
    /// The user's comment (`-c`).
    pub comment: Option<String>,
}

/// One submission: a single file, or a directory of files with `-d`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    /// Display name: the path of the file or directory as given.
    pub name: String,
    /// Whether it comes from an earlier term (`--old`): compared with new
    /// submissions, never with other old ones.
    pub old: bool,
    /// Its files, in a deterministic order.
    pub files: Vec<FileEntry>,
}

/// One compared file of a submission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Display path (fragments name files by this path).
    pub path: String,
    /// Language name the front-end used, e.g. `python`, `text`.
    pub language: String,
    /// Kind of front-end that produced the symbols.
    pub frontend: Frontend,
    /// Number of normalized symbols.
    pub symbols: u64,
    /// Number of lines.
    pub lines: u64,
    /// Whether the preferred front-end was used.
    #[serde(flatten)]
    pub status: FileStatus,
    /// Character encoding the file was decoded from, e.g. `utf-8`.
    pub encoding: String,
    /// What the front-end recovered from (an unterminated literal or
    /// comment, invalid UTF-8 read as Windows-1252, …); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Passages of the file that are base code (`-b`): neither matched nor
    /// counted. In file order, disjoint; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_code: Vec<Region>,
    /// Rabin fingerprint of the file's bytes (degree-64 default polynomial,
    /// 16 hex digits, as `bryo fingerprint` prints it); absent when not
    /// computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_fingerprint: Option<String>,
    /// Rabin fingerprint of the file's normalized symbol stream; absent
    /// when not computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_fingerprint: Option<String>,
}

/// A passage of one file: its line range and byte range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    /// First and last line, 1-based, inclusive.
    pub lines: [u64; 2],
    /// Byte range in the file as stored on disk, half-open `[start, end)`.
    pub bytes: [u64; 2],
}

/// Kind of front-end that normalized a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Frontend {
    /// A hand-written lexer for a programming language.
    Lexer,
    /// A tree-sitter grammar.
    TreeSitter,
    /// The prose front-end (words, case-folded).
    Text,
    /// The HTML front-end (markup dropped, then prose).
    Html,
}

impl Frontend {
    /// The name used in JSON: `lexer`, `tree-sitter`, `text` or `html`.
    pub fn as_str(self) -> &'static str {
        match self {
            Frontend::Lexer => "lexer",
            Frontend::TreeSitter => "tree-sitter",
            Frontend::Text => "text",
            Frontend::Html => "html",
        }
    }
}

/// How a file was processed. In JSON it is the `status` key of the file,
/// with a `reason` key beside it for a fallback.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum FileStatus {
    /// The preferred front-end processed the file.
    Ok,
    /// A simpler front-end was used instead.
    Fallback {
        /// Why, e.g. `too many parse errors`.
        reason: String,
    },
}

/// A pair of submissions that share fingerprints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// Index of the first submission in [`Report::submissions`].
    pub a: usize,
    /// Index of the second submission; `a != b`.
    pub b: usize,
    /// Covered symbols of both sides / all symbols of both sides, 0..1, base
    /// code excluded from both.
    pub similarity: f64,
    /// Share of `a`'s symbols covered by fragments, 0..100.
    pub a_percent: f64,
    /// Share of `b`'s symbols covered by fragments, 0..100.
    pub b_percent: f64,
    /// Lines of `a` inside at least one fragment.
    pub a_lines_matched: u64,
    /// Lines of `b` inside at least one fragment.
    pub b_lines_matched: u64,
    /// The "lines matched" of the table: the larger of the two sides.
    pub lines_matched: u64,
    /// Length of the longest fragment, in symbols.
    pub longest_fragment: u64,
    /// Number of distinct fingerprints the two share.
    pub shared_fingerprints: u64,
    /// Whether the two submissions are exact copies after normalization: the
    /// same multiset of non-empty files, in any order and under any names,
    /// files identical to base code left out (see
    /// [`Report::identical_submissions`]).
    pub identical: bool,
    /// Matched passages, longest first, non-overlapping on each side.
    pub fragments: Vec<Fragment>,
}

/// One matched passage of a pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fragment {
    /// Where it is in submission `a`.
    pub a: Location,
    /// Where it is in submission `b`.
    pub b: Location,
    /// Its length in normalized symbols.
    pub symbols: u64,
}

/// Where a fragment lies in one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The file's display path, as in [`FileEntry::path`].
    pub file: String,
    /// First and last line, 1-based, inclusive.
    pub lines: [u64; 2],
    /// Byte range in the file, half-open `[start, end)`.
    pub bytes: [u64; 2],
}

/// A connected group of submissions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Submission indices, ascending.
    pub members: Vec<usize>,
    /// Highest similarity of a pair inside the cluster, 0..1.
    pub max_similarity: f64,
}

/// One normalized content found in files of several submissions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdenticalFiles {
    /// Rabin fingerprint of the normalized symbol stream (degree-64 default
    /// polynomial, as printed by `bryo fingerprint`), 16 hex digits.
    pub fingerprint: String,
    /// Normalized symbols in each of the files.
    pub symbols: u64,
    /// The files, by submission index then path.
    pub files: Vec<FileRef>,
}

/// A file of a submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    /// Index of the submission.
    pub submission: usize,
    /// The file's display path, as in [`FileEntry::path`].
    pub path: String,
}

/// A file that was not compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Its display path.
    pub path: String,
    /// Why, e.g. `binary file`, `larger than 4 MiB`.
    pub reason: String,
}

/// Totals of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Files compared (of all submissions, base code excluded).
    pub files: u64,
    /// Base-code files.
    pub base_files: u64,
    /// Normalized symbols of all compared files.
    pub symbols: u64,
    /// Fingerprints selected from all compared files.
    pub fingerprints: u64,
    /// Fingerprint occurrences (in all compared files) removed because base
    /// code has their hash.
    pub base_hashes: u64,
    /// Fingerprint occurrences (in all compared files) dropped because more
    /// than `options.max_submissions` submissions have their hash.
    pub common_hashes: u64,
    /// Pairs sharing at least one fingerprint, before `max_pairs` and
    /// `min_similarity` are applied.
    pub candidate_pairs: u64,
    /// Compared files whose normalized content equals an earlier file's, so
    /// that their fingerprints were selected once for all copies. Omitted
    /// from JSON when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub duplicate_files: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Report {
    /// An empty report: no submissions, pairs, clusters or skipped files.
    pub fn new(bryo_version: impl Into<String>, options: Options) -> Self {
        Report {
            schema: Schema,
            bryo_version: bryo_version.into(),
            options,
            submissions: Vec::new(),
            pairs: Vec::new(),
            clusters: Vec::new(),
            identical_submissions: Vec::new(),
            identical_files: Vec::new(),
            skipped: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// The name of submission `index`, or `#index` if there is none.
    pub fn submission_name(&self, index: usize) -> std::borrow::Cow<'_, str> {
        match self.submissions.get(index) {
            Some(s) => std::borrow::Cow::Borrowed(s.name.as_str()),
            None => std::borrow::Cow::Owned(format!("#{index}")),
        }
    }
}
