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
    /// MOSS's rule, `-m N`: passages found in more than `N` submissions are
    /// ignored (0: no limit). `None` (JSON `null`): the rarity rule, which
    /// ignores only template code (see `Stats::template_above`).
    pub max_submissions: Option<u32>,
    /// Most pairs reported (`-n`); 0 reports every pair sharing a fingerprint.
    pub max_pairs: u32,
    /// Pairs below this similarity (0..1) are not reported.
    pub min_similarity: f64,
    /// Fragments shorter than this many symbols are dropped.
    pub min_fragment_symbols: u32,
    /// Match merging: neighbouring matches at most this many symbols apart
    /// on both sides were merged into one fragment (`--merge-gap`); 0 (also
    /// in reports written before merging existed): none were.
    #[serde(default)]
    pub merge_gap: u32,
    /// With merging: a gap is also at most this share of the shorter of
    /// the two matches it separates (`--merge-ratio`); `None` (JSON `null`,
    /// or absent): no such limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge_ratio: Option<f64>,
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
    /// How `similarity` is computed from the matched shares. Reports
    /// written before the choice existed read as `symmetric`.
    #[serde(default)]
    pub score: Score,
    /// What shaped the fingerprints, beyond `k` and `w`: results made under
    /// different schemes must not be combined ([`Scheme::check`]). `None`
    /// only in reports written before bryo recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<Scheme>,
}

/// How a pair's matched shares become its `similarity`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// `(covered_a + covered_b) / (symbols_a + symbols_b)`.
    #[default]
    Symmetric,
    /// `max(covered_a / symbols_a, covered_b / symbols_b)`.
    Directional,
}

/// The versions and options that decide which fingerprints a file gets:
/// the rolling hash, the front-ends' symbol hash, the normalization and
/// the prose tokens. Together with `k` and `w`, equal schemes give equal
/// fingerprints for equal files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheme {
    /// `bryo_engine::HASH_SCHEME_VERSION`.
    pub hash: u32,
    /// `bryo_frontend::SYMBOL_SCHEME_VERSION`.
    pub symbol: u32,
    /// Code normalization: `full`, `keep-strings` or `verbatim`.
    pub normalization: String,
    /// Prose tokens: `chars` or `words`.
    pub text_mode: String,
    /// Whether code went through token-sequence normalization
    /// (`--normalize`: statements with no effect left out, equivalent forms
    /// written one way); absent in JSON when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub token_normalization: bool,
}

impl Scheme {
    /// Whether results made under `self` with `(k, w)` may be combined
    /// with results made under `other` with `(other_k, other_w)`; the error
    /// names the first difference.
    ///
    /// ```
    /// use bryo_report::Scheme;
    /// let a = Scheme {
    ///     hash: 1,
    ///     symbol: 1,
    ///     normalization: "full".into(),
    ///     text_mode: "chars".into(),
    ///     token_normalization: false,
    /// };
    /// let mut b = a.clone();
    /// assert!(a.check((12, 12), &b, (12, 12)).is_ok());
    /// b.symbol = 2;
    /// assert_eq!(
    ///     a.check((12, 12), &b, (12, 12)).unwrap_err().to_string(),
    ///     "made under different schemes: symbol scheme 1 vs 2"
    /// );
    /// ```
    pub fn check(
        &self,
        kw: (u32, u32),
        other: &Scheme,
        other_kw: (u32, u32),
    ) -> Result<(), SchemeMismatch> {
        let differences = [
            ("hash scheme", self.hash.to_string(), other.hash.to_string()),
            (
                "symbol scheme",
                self.symbol.to_string(),
                other.symbol.to_string(),
            ),
            (
                "normalization",
                self.normalization.clone(),
                other.normalization.clone(),
            ),
            ("text mode", self.text_mode.clone(), other.text_mode.clone()),
            (
                "token normalization (--normalize)",
                self.token_normalization.to_string(),
                other.token_normalization.to_string(),
            ),
            ("k", kw.0.to_string(), other_kw.0.to_string()),
            ("w", kw.1.to_string(), other_kw.1.to_string()),
        ];
        match differences.into_iter().find(|(_, x, y)| x != y) {
            None => Ok(()),
            Some((what, ours, theirs)) => Err(SchemeMismatch { what, ours, theirs }),
        }
    }
}

/// Two results made under different fingerprint schemes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("made under different schemes: {what} {ours} vs {theirs}")]
pub struct SchemeMismatch {
    /// What differs, e.g. `hash scheme`.
    pub what: &'static str,
    /// The value on this side.
    pub ours: String,
    /// The value on the other side.
    pub theirs: String,
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

/// One matched passage of a pair: one exact match, or several merged across
/// short gaps (`--merge-gap`), each listed in [`Fragment::parts`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fragment {
    /// Where it is in submission `a`: from its first matched symbol to its
    /// last, gaps included (with `--normalize`, which may emit statements in
    /// a canonical order, the smallest range holding all its symbols).
    pub a: Location,
    /// Where it is in submission `b`.
    pub b: Location,
    /// Matched normalized symbols (the gaps of a merged fragment left out).
    pub symbols: u64,
    /// The exact matches of a merged fragment, in order on both sides; what
    /// lies between two consecutive parts on a side is a gap, which did not
    /// match. Empty (and omitted from JSON) for a single exact match. With
    /// `--normalize`, a match that runs through symbols emitted out of text
    /// order is cut into parts that each cover exactly their symbols' text
    /// in both files: in the same order on both sides, or, up to 32
    /// symbols, in any order (sorted operands, a short loop's moved
    /// update); the parts follow the match's order, which on one side may
    /// not be the file's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<FragmentPart>,
}

/// One exact match inside a merged [`Fragment`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FragmentPart {
    /// Where it is in submission `a` (the fragment's file).
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
    /// Fingerprint occurrences (in all compared files) excluded from
    /// matching because more than `options.max_submissions` submissions
    /// have their hash, or, under the rarity rule, more than
    /// `template_above` (template code).
    pub common_hashes: u64,
    /// Under the rarity rule: a passage in more than this many submissions
    /// (identical files counted once) was template code, neither matched
    /// nor counted. Omitted when no number of submissions could reach it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_above: Option<u64>,
    /// Under the rarity rule: passages in more than this many submissions
    /// brought no pair together (they were still matched inside pairs that
    /// rarer passages found), which keeps the cost linear. Omitted when
    /// every shared passage could.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_limit: Option<u64>,
    /// Under the rarity rule: matched fragments shorter than this many
    /// symbols counted in `similarity` by how rare their fingerprints are
    /// (a fingerprint in at most 10 submissions in full, one at
    /// `template_above` not at all); longer ones in full. Omitted when no
    /// fragment was discounted (`-m`, `--no-discount`, or a class too small
    /// for a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount_below: Option<u64>,
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

    /// The rule for passages shared by many submissions as it applied to
    /// this run, for headers: `-m 10`, `-m 0 (no limit)`, or (the rarity rule)
    /// `template above 233 submissions` and, when short matches were
    /// discounted, `…, matches under 48 symbols discounted by rarity`.
    pub fn common_rule(&self) -> String {
        match (self.options.max_submissions, self.stats.template_above) {
            (Some(0), _) => "-m 0 (no limit)".to_string(),
            (Some(m), _) => format!("-m {m}"),
            (None, Some(t)) => match self.stats.discount_below {
                Some(d) => format!(
                    "template above {t} submissions, matches under {d} symbols discounted by rarity"
                ),
                None => format!("template above {t} submissions"),
            },
            (None, None) => "template: none".to_string(),
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
