//! The Python module `bryo._bryo`: the stages of `bryo compare` over Apache
//! Arrow record batches, for cluster engines (Spark's `mapInArrow`, Ray
//! Data's `map_batches`).
//!
//! Batches cross the boundary through the Arrow C data interface
//! (`arrow-pyarrow`): no Python object per document. Every function runs
//! the workspace's own stages — `bryo_compare::analyze` for the front-ends,
//! `bryo_match::fingerprint` for winnowing, and the whole compare pipeline
//! for pairs — so the results are the CLI's.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Float64Array, ListArray, RecordBatch, StringArray,
    StructArray, UInt32Array, UInt64Array,
};
use arrow_buffer::OffsetBuffer;
use arrow_pyarrow::PyArrowType;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema};
use bryo_compare::{
    analyze, compare_alone, default_thresholds, Alone, AnalyzeOptions, Analyzed, CompareError,
    CompareOptions, FileFingerprinter, Normalize, Parser, RarityCounts, Silent,
};
use bryo_engine::Config;
use bryo_frontend::{FrontendKind, Language, Normalization, TextMode};
use bryo_index::{DocumentData, Index, IndexError, IndexSettings, PreparedDocument};
use bryo_input::{InputFile, Inputs, Submission};
use bryo_match::{Corpus, DocId, Document, MatchOptions, Rarity, SubmissionId};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

/// A batch's documents, borrowed from its columns.
struct Docs<'a> {
    ids: Vec<&'a str>,
    bytes: Vec<Option<&'a [u8]>>,
    languages: Vec<Option<&'a str>>,
    /// The submission of each document (`submission` column; null or
    /// absent: the document alone, named by its id).
    submissions: Vec<&'a str>,
    /// Whether each document is old (`old` column; null or absent: new).
    old: Vec<bool>,
}

fn value_error(message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(message.to_string())
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> Option<&'a ArrayRef> {
    batch.schema().index_of(name).ok().map(|i| batch.column(i))
}

/// A string column of any Arrow string layout.
fn strings<'a>(col: &'a ArrayRef, name: &str) -> PyResult<Vec<Option<&'a str>>> {
    Ok(match col.data_type() {
        DataType::Utf8 => col.as_string::<i32>().iter().collect(),
        DataType::LargeUtf8 => col.as_string::<i64>().iter().collect(),
        DataType::Utf8View => col.as_string_view().iter().collect(),
        other => {
            return Err(value_error(format!(
                "column `{name}` must be strings, not {other}"
            )))
        }
    })
}

/// A column of text or bytes, as bytes.
fn binaries<'a>(col: &'a ArrayRef, name: &str) -> PyResult<Vec<Option<&'a [u8]>>> {
    Ok(match col.data_type() {
        DataType::Binary => col.as_binary::<i32>().iter().collect(),
        DataType::LargeBinary => col.as_binary::<i64>().iter().collect(),
        DataType::BinaryView => col.as_binary_view().iter().collect(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => strings(col, name)?
            .into_iter()
            .map(|s| s.map(str::as_bytes))
            .collect(),
        other => {
            return Err(value_error(format!(
                "column `{name}` must be text or bytes, not {other}"
            )))
        }
    })
}

/// Reads `doc_id`, `text` (or `bytes`) and the optional `language` column.
fn documents(batch: &RecordBatch) -> PyResult<Docs<'_>> {
    let ids = column(batch, "doc_id").ok_or_else(|| {
        value_error("the documents batch has no `doc_id` column (expected doc_id, text)")
    })?;
    let ids = strings(ids, "doc_id")?
        .into_iter()
        .enumerate()
        .map(|(row, id)| id.ok_or_else(|| value_error(format!("doc_id is null in row {row}"))))
        .collect::<PyResult<Vec<&str>>>()?;
    let text = match (column(batch, "text"), column(batch, "bytes")) {
        (Some(t), _) => binaries(t, "text")?,
        (None, Some(b)) => binaries(b, "bytes")?,
        (None, None) => {
            return Err(value_error(
                "the documents batch has neither a `text` nor a `bytes` column",
            ))
        }
    };
    let languages = match column(batch, "language") {
        Some(l) => strings(l, "language")?,
        None => vec![None; ids.len()],
    };
    let submissions = match column(batch, "submission") {
        Some(c) => strings(c, "submission")?
            .into_iter()
            .zip(&ids)
            .map(|(s, &id)| s.unwrap_or(id))
            .collect(),
        None => ids.clone(),
    };
    let old = match column(batch, "old") {
        None => vec![false; ids.len()],
        Some(c) if c.data_type() == &DataType::Boolean => {
            c.as_boolean().iter().map(|o| o.unwrap_or(false)).collect()
        }
        Some(c) => {
            return Err(value_error(format!(
                "column `old` must be boolean, not {}",
                c.data_type()
            )))
        }
    };
    Ok(Docs {
        ids,
        bytes: text,
        languages,
        submissions,
        old,
    })
}

/// The documents of each submission, grouped as `bryo compare -d` groups
/// the files of a directory: submissions new first then old, each part in
/// name order, files in id order. A submission's documents must agree on
/// `old`.
fn group_submissions<'a>(docs: &Docs<'a>) -> PyResult<Vec<(&'a str, bool, Vec<usize>)>> {
    let mut by_name: HashMap<&'a str, (bool, Vec<usize>)> = HashMap::new();
    for (i, &name) in docs.submissions.iter().enumerate() {
        let entry = by_name.entry(name).or_insert((docs.old[i], Vec::new()));
        if entry.0 != docs.old[i] {
            return Err(value_error(format!(
                "submission `{name}` has both old and new documents"
            )));
        }
        entry.1.push(i);
    }
    let mut groups: Vec<(&'a str, bool, Vec<usize>)> = by_name
        .into_iter()
        .map(|(name, (old, mut files))| {
            files.sort_by_key(|&i| docs.ids[i]);
            (name, old, files)
        })
        .collect();
    groups.sort_by(|x, y| (x.1, x.0).cmp(&(y.1, y.0)));
    Ok(groups)
}

fn language(name: &str) -> PyResult<&'static Language> {
    Language::by_name(name).ok_or_else(|| value_error(format!("unknown language `{name}`")))
}

fn text_mode(name: Option<&str>) -> PyResult<TextMode> {
    match name {
        None | Some("chars") => Ok(TextMode::Chars),
        Some("words") => Ok(TextMode::Words),
        Some(other) => Err(value_error(format!(
            "unknown text mode `{other}` (chars or words)"
        ))),
    }
}

/// `normalize=`: `True`, `False` or `"auto"` (the default, as the CLI's).
#[derive(FromPyObject)]
enum NormalizeArg {
    Flag(bool),
    Name(String),
}

impl NormalizeArg {
    fn resolve(arg: Option<NormalizeArg>) -> PyResult<Normalize> {
        match arg {
            None => Ok(Normalize::Auto),
            Some(NormalizeArg::Flag(true)) => Ok(Normalize::On),
            Some(NormalizeArg::Flag(false)) => Ok(Normalize::Off),
            Some(NormalizeArg::Name(name)) if name == "auto" => Ok(Normalize::Auto),
            Some(NormalizeArg::Name(other)) => Err(value_error(format!(
                "unknown normalize `{other}` (True, False or \"auto\")"
            ))),
        }
    }
}

/// The front-end options of `bryo compare`: `-l`, `--text-mode`,
/// `--parser` (`lexer`, `tree-sitter`; default the lexer, tree-sitter with
/// `normalize=True`), `--normalization` (`full`, `keep-strings`,
/// `verbatim`) and `--normalize` / `--no-normalize` (`True` / `False`;
/// `"auto"`, the default, normalizes Java, C and C++; a `lexer` parser
/// normalizes nothing).
fn analyze_options(
    language_name: Option<&str>,
    mode: Option<&str>,
    parser: Option<&str>,
    normalization: Option<&str>,
    normalize: Option<NormalizeArg>,
) -> PyResult<AnalyzeOptions> {
    let asked = NormalizeArg::resolve(normalize)?;
    let (parser, normalize) = match (parser, asked) {
        (Some("lexer"), Normalize::On) => {
            return Err(value_error(
                "normalize works on syntax trees: use it with parser=\"tree-sitter\" \
                 (its default) or without a parser",
            ))
        }
        (Some("lexer"), _) => (Parser::Lexer, Normalize::Off),
        (Some("tree-sitter"), n) => (Parser::TreeSitter, n),
        (None, Normalize::On) => (Parser::TreeSitter, Normalize::On),
        (None, n) => (Parser::Lexer, n),
        (Some(other), _) => {
            return Err(value_error(format!(
                "unknown parser `{other}` (lexer or tree-sitter)"
            )))
        }
    };
    let normalization = match normalization {
        None => Normalization::default(),
        Some(name) => name.parse().map_err(value_error)?,
    };
    Ok(AnalyzeOptions {
        language: language_name.map(language).transpose()?,
        parser,
        normalization,
        text_mode: text_mode(mode)?,
        normalize,
    })
}

/// `k` and `w` as `bryo compare` chooses them for a corpus of one kind of
/// front-end: the given ones, else the defaults of the language's (or the
/// named kind's) front-end.
fn resolve_thresholds(
    language_name: Option<&str>,
    kind: Option<&str>,
    mode: Option<&str>,
    k: Option<usize>,
    w: Option<usize>,
) -> PyResult<(usize, usize)> {
    let kind = match (language_name, kind) {
        (Some(l), _) => Some(language(l)?.frontend()),
        (None, Some("code")) => Some(FrontendKind::Code),
        (None, Some("text")) => Some(FrontendKind::Text),
        (None, Some("html")) => Some(FrontendKind::Html),
        (None, Some(other)) => {
            return Err(value_error(format!(
                "unknown kind `{other}` (code, text or html)"
            )))
        }
        (None, None) => None,
    };
    match (k, w, kind) {
        (Some(k), Some(w), _) => Ok((k, w)),
        (k, w, Some(kind)) => {
            let (dk, dw) = default_thresholds(kind, text_mode(mode)?);
            Ok((k.unwrap_or(dk), w.unwrap_or(dw)))
        }
        _ => Err(value_error(
            "give a language, a kind (code, text or html) or both k and w: \
             the defaults depend on the front-end",
        )),
    }
}

/// The front-end options as an index made with them records them:
/// `parser`, `normalization` and `normalize` (`True`, `False`, or `"auto"`
/// when no language decides it).
#[pyfunction]
#[pyo3(signature = (*, language=None, parser=None, normalization=None, normalize=None))]
fn front_end<'py>(
    py: Python<'py>,
    language: Option<&str>,
    parser: Option<&str>,
    normalization: Option<&str>,
    normalize: Option<NormalizeArg>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut analyze = analyze_options(language, None, parser, normalization, normalize)?;
    if let Some(language) = analyze.language {
        analyze = analyze.for_language(language);
    }
    let d = PyDict::new(py);
    d.set_item("parser", analyze.parser.name())?;
    d.set_item("normalization", analyze.normalization.name())?;
    match analyze.normalize {
        Normalize::Auto => d.set_item("normalize", "auto")?,
        n => d.set_item("normalize", n == Normalize::On)?,
    }
    Ok(d)
}

/// `(k, w)` as `bryo compare` takes them for a corpus of one kind of
/// front-end: the given ones, else the front-end's defaults.
#[pyfunction]
#[pyo3(signature = (*, language=None, kind=None, text_mode=None, k=None, w=None))]
fn thresholds(
    language: Option<&str>,
    kind: Option<&str>,
    text_mode: Option<&str>,
    k: Option<usize>,
    w: Option<usize>,
) -> PyResult<(usize, usize)> {
    let (k, w) = resolve_thresholds(language, kind, text_mode, k, w)?;
    Config::new(k, w).map_err(|e| value_error(format!("invalid thresholds: {e}")))?;
    Ok((k, w))
}

/// The versions of the hash scheme and of the symbol scheme: postings
/// are comparable only between equal versions.
#[pyfunction]
fn schemes() -> (u32, u32) {
    (
        bryo_engine::HASH_SCHEME_VERSION,
        bryo_frontend::SYMBOL_SCHEME_VERSION,
    )
}

/// The order in which the rarity rule pairs the submissions of a hash
/// above its seed limit: `rehash(hash ^ rehash(submission))` for each
/// `(hash, submission)`, `submission` being the submission's number in
/// name order among the compared ones (as `bryo compare` numbers them).
/// Sorted ascending within a hash, each submission is paired with the
/// next `⌈limit/2⌉` (cyclically), exactly as `bryo compare` forms them.
#[pyfunction]
fn seed_order(
    hashes: PyArrowType<arrow_data::ArrayData>,
    submissions: PyArrowType<arrow_data::ArrayData>,
) -> PyResult<PyArrowType<arrow_data::ArrayData>> {
    let (h, s) = (
        arrow_array::make_array(hashes.0),
        arrow_array::make_array(submissions.0),
    );
    let (Some(h), Some(s)) = (
        h.as_primitive_opt::<arrow_array::types::UInt64Type>(),
        s.as_primitive_opt::<arrow_array::types::UInt32Type>(),
    ) else {
        return Err(value_error(format!(
            "seed_order takes uint64 hashes and uint32 submissions, not {} and {}",
            h.data_type(),
            s.data_type()
        )));
    };
    if h.len() != s.len() || h.null_count() + s.null_count() > 0 {
        return Err(value_error(
            "seed_order: hashes and submissions must have the same length and no nulls",
        ));
    }
    let keys: UInt64Array = h
        .values()
        .iter()
        .zip(s.values().iter())
        .map(|(&h, &s)| bryo_engine::rehash(h ^ bryo_engine::rehash(u64::from(s))))
        .collect();
    Ok(PyArrowType(keys.into_data()))
}

fn u64_field(name: &str) -> Field {
    Field::new(name, DataType::UInt64, false)
}

fn batch(fields: Vec<Field>, columns: Vec<ArrayRef>) -> PyResult<RecordBatch> {
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e: ArrowError| value_error(format!("building the result: {e}")))
}

/// Fingerprints a batch of documents: `(postings, documents)`.
///
/// `documents` has `doc_id` (string), `text` (string) or `bytes` (binary)
/// and optionally `language` (a name as for `-l`; null: the `language`
/// argument, else detected from the doc_id as a file name). Every document
/// goes through the CLI's front-end and is winnowed with `k` and `w`.
///
/// `postings`: one row per selected fingerprint — `hash` (u64), `doc_id`,
/// `position` (its first symbol), `byte_start`, `byte_end` (the k-gram's
/// bytes in the document). `documents`: one row per input row — `doc_id`,
/// `ok`, `reason` (why a document could not be compared), `language`,
/// `frontend`, `symbols`, `fingerprints`, `content_fingerprint` (Rabin
/// fingerprint of the symbols: equal for exact copies), `bytes`.
#[pyfunction]
#[pyo3(signature = (
    documents, *, language=None, kind=None, text_mode=None, k=None, w=None,
    max_file_size=bryo_input::DEFAULT_MAX_FILE_SIZE, parser=None, normalization=None,
    normalize=None,
))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn fingerprint(
    py: Python<'_>,
    documents: PyArrowType<RecordBatch>,
    language: Option<&str>,
    kind: Option<&str>,
    text_mode: Option<&str>,
    k: Option<usize>,
    w: Option<usize>,
    max_file_size: u64,
    parser: Option<&str>,
    normalization: Option<&str>,
    normalize: Option<NormalizeArg>,
) -> PyResult<(PyArrowType<RecordBatch>, PyArrowType<RecordBatch>)> {
    let (k, w) = resolve_thresholds(language, kind, text_mode, k, w)?;
    let config = Config::new(k, w).map_err(|e| value_error(format!("invalid thresholds: {e}")))?;
    let base_options = analyze_options(language, text_mode, parser, normalization, normalize)?;
    let input = documents.0;
    let docs = self::documents(&input)?;
    let per_doc: Vec<AnalyzeOptions> = docs
        .languages
        .iter()
        .map(|l| match l {
            Some(name) => Ok(AnalyzeOptions {
                language: Some(self::language(name)?),
                ..base_options
            }),
            None => Ok(base_options),
        })
        .collect::<PyResult<_>>()?;
    let (postings, summary) = py.detach(|| {
        let analyzed: Vec<Result<Analyzed, String>> = (0..docs.ids.len())
            .into_par_iter()
            .map(|i| match docs.bytes[i] {
                None => Err("no text (null)".to_string()),
                Some(bytes) if bytes.len() as u64 > max_file_size => {
                    Err(too_large(bytes, max_file_size))
                }
                Some(bytes) => analyze(docs.ids[i], bytes, &per_doc[i]).map_err(|e| e.to_string()),
            })
            .collect();
        fingerprint_batch(&docs, &analyzed, config)
    })?;
    Ok((PyArrowType(postings), PyArrowType(summary)))
}

/// The CLI's reason for a file over the size limit.
fn too_large(bytes: &[u8], limit: u64) -> String {
    bryo_input::SkipReason::TooLarge {
        size: bytes.len() as u64,
        limit,
    }
    .to_string()
}

fn fingerprint_batch(
    docs: &Docs<'_>,
    analyzed: &[Result<Analyzed, String>],
    config: Config,
) -> PyResult<(RecordBatch, RecordBatch)> {
    let ok: Vec<usize> = (0..analyzed.len())
        .filter(|&i| analyzed[i].is_ok())
        .collect();
    let corpus: Corpus = ok
        .iter()
        .enumerate()
        .filter_map(|(n, &i)| {
            let a = analyzed[i].as_ref().ok()?;
            Some(Document::new(SubmissionId(n as u32), &a.normalized.symbols))
        })
        .collect();
    let options = MatchOptions::new(config);
    let fingerprinted = bryo_match::fingerprint(&corpus, &options, &Silent)
        .map_err(|e| value_error(format!("fingerprinting: {e}")))?;
    let k = config.k();
    let (mut hash, mut doc, mut position, mut start, mut end) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut counts = vec![0u64; analyzed.len()];
    for (n, &i) in ok.iter().enumerate() {
        let Ok(a) = &analyzed[i] else { continue };
        let fps = fingerprinted.fingerprints(DocId(n as u32)).unwrap_or(&[]);
        counts[i] = fps.len() as u64;
        for f in fps {
            let bytes = a.decoded.original_range(a.symbol_span(f.pos as usize, k));
            hash.push(f.hash);
            doc.push(docs.ids[i]);
            position.push(f.pos);
            start.push(bytes.start as u64);
            end.push(bytes.end as u64);
        }
    }
    let postings = batch(
        vec![
            u64_field("hash"),
            Field::new("doc_id", DataType::Utf8, false),
            Field::new("position", DataType::UInt32, false),
            u64_field("byte_start"),
            u64_field("byte_end"),
        ],
        vec![
            Arc::new(UInt64Array::from(hash)),
            Arc::new(StringArray::from(doc)),
            Arc::new(UInt32Array::from(position)),
            Arc::new(UInt64Array::from(start)),
            Arc::new(UInt64Array::from(end)),
        ],
    )?;
    let fingerprinter = FileFingerprinter::new();
    let ok_rows: Vec<Option<&Analyzed>> = analyzed.iter().map(|a| a.as_ref().ok()).collect();
    let summary = batch(
        vec![
            Field::new("doc_id", DataType::Utf8, false),
            Field::new("ok", DataType::Boolean, false),
            Field::new("reason", DataType::Utf8, true),
            Field::new("language", DataType::Utf8, true),
            Field::new("frontend", DataType::Utf8, true),
            u64_field("symbols"),
            u64_field("fingerprints"),
            Field::new("content_fingerprint", DataType::UInt64, true),
            u64_field("bytes"),
        ],
        vec![
            Arc::new(StringArray::from(docs.ids.clone())),
            Arc::new(BooleanArray::from(
                ok_rows.iter().map(Option::is_some).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                analyzed
                    .iter()
                    .map(|a| a.as_ref().err().map(String::as_str))
                    .collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                ok_rows
                    .iter()
                    .map(|a| a.map(|a| a.language.name()))
                    .collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                ok_rows
                    .iter()
                    .map(|a| a.map(|a| a.frontend.as_str()))
                    .collect::<Vec<_>>(),
            )),
            Arc::new(UInt64Array::from(
                ok_rows
                    .iter()
                    .map(|a| a.map_or(0, |a| a.normalized.symbols.len() as u64))
                    .collect::<Vec<_>>(),
            )),
            Arc::new(UInt64Array::from(counts)),
            Arc::new(UInt64Array::from(
                ok_rows
                    .iter()
                    .map(|a| a.map(|a| fingerprinter.normalized(&a.normalized.symbols)))
                    .collect::<Vec<_>>(),
            )),
            Arc::new(UInt64Array::from(
                docs.bytes
                    .iter()
                    .map(|b| b.map_or(0, |b| b.len() as u64))
                    .collect::<Vec<_>>(),
            )),
        ],
    )?;
    Ok((postings, summary))
}

/// Documents left out of a run: `(doc_id, reason)`.
type SkippedDocs = Vec<(String, String)>;

/// One reported pair, with what the ranking needs besides the report.
struct PairRow {
    a: String,
    b: String,
    similarity: f64,
    a_percent: f64,
    b_percent: f64,
    shared_fingerprints: u64,
    symbols: (u64, u64),
    covered: (u64, u64),
    lines_matched: u64,
    longest_fragment: u64,
    identical: bool,
    /// Every fragment with its files on both sides and, for a merged one,
    /// its parts.
    fragments: Vec<FragmentWithParts>,
}

/// `[a_start, a_end, b_start, b_end]` bytes, `[a_first, a_last, b_first,
/// b_last]` lines, symbols.
type FragmentRow = ([u64; 4], [u64; 4], u64);

/// A fragment's files `(a, b)`, the fragment, and its parts.
type FragmentWithParts = ((String, String), FragmentRow, Vec<FragmentRow>);

fn fragment_row(a: &bryo_report::Location, b: &bryo_report::Location, symbols: u64) -> FragmentRow {
    (
        [a.bytes[0], a.bytes[1], b.bytes[0], b.bytes[1]],
        [a.lines[0], a.lines[1], b.lines[0], b.lines[1]],
        symbols,
    )
}

/// The compare pipeline on in-memory submissions, stage by stage, with
/// `excluded` hashes taken as common whatever their count here.
///
/// With `whole`, no candidate gets fragments: a pair of identical
/// documents then comes out whole, as `bryo compare` reports one that was
/// not among the candidates it scored. With `rarity`, a scored pair's
/// similarity is discounted by the larger corpus's counts
/// ([`Rarity::evidence`]), as `bryo compare` discounts it on the whole
/// corpus. With `seeds`, only those hashes seed pairs and fragments
/// ([`bryo_match::Indexed::restrict_seeds`]).
fn run_compare(
    inputs: Inputs,
    options: &CompareOptions,
    excluded: &[u64],
    whole: bool,
    rarity: Option<&RarityCounts>,
    seeds: Option<&[u64]>,
) -> Result<(Vec<PairRow>, SkippedDocs), CompareError> {
    let (report, counts) = compare_alone(
        inputs,
        options,
        &Alone {
            excluded,
            whole,
            rarity,
            seeds,
        },
    )?;
    let counts: Vec<((u64, u64), (u64, u64))> =
        counts.into_iter().map(|c| (c.symbols, c.covered)).collect();
    let name = |i: usize| report.submissions[i].name.clone();
    let pairs = report
        .pairs
        .iter()
        .zip(counts)
        .map(|(p, (symbols, covered))| PairRow {
            a: name(p.a),
            b: name(p.b),
            similarity: p.similarity,
            a_percent: p.a_percent,
            b_percent: p.b_percent,
            shared_fingerprints: p.shared_fingerprints,
            symbols,
            covered,
            lines_matched: p.lines_matched,
            longest_fragment: p.longest_fragment,
            identical: p.identical,
            fragments: p
                .fragments
                .iter()
                .map(|f| {
                    (
                        (f.a.file.clone(), f.b.file.clone()),
                        fragment_row(&f.a, &f.b, f.symbols),
                        f.parts
                            .iter()
                            .map(|p| fragment_row(&p.a, &p.b, p.symbols))
                            .collect(),
                    )
                })
                .collect(),
        })
        .collect();
    let skipped = report
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.reason.clone()))
        .collect();
    Ok((pairs, skipped))
}

/// An input file held in memory, named by its document id.
fn input_file(id: &str, bytes: &[u8]) -> InputFile {
    InputFile {
        display_path: id.to_string(),
        bytes: bytes.to_vec(),
        source: bryo_input::Source::Memory,
        size_hint: None,
    }
}

const FRAGMENT_FIELDS: [&str; 9] = [
    "a_byte_start",
    "a_byte_end",
    "b_byte_start",
    "b_byte_end",
    "a_first_line",
    "a_last_line",
    "b_first_line",
    "b_last_line",
    "symbols",
];

/// The columns of fragment rows: byte ranges and lines on both sides,
/// symbols.
fn fragment_columns<'a>(rows: impl Iterator<Item = &'a FragmentRow>) -> Vec<ArrayRef> {
    let mut columns: Vec<Vec<u64>> = vec![Vec::new(); FRAGMENT_FIELDS.len()];
    for (bytes, lines, symbols) in rows {
        for c in 0..4 {
            columns[c].push(bytes[c]);
            columns[4 + c].push(lines[c]);
        }
        columns[8].push(*symbols);
    }
    columns
        .into_iter()
        .map(|c| Arc::new(UInt64Array::from(c)) as ArrayRef)
        .collect()
}

/// A non-null list column of structs.
fn list_of(
    name: &str,
    fields: Fields,
    columns: Vec<ArrayRef>,
    lengths: Vec<usize>,
) -> (Field, ArrayRef) {
    let values = StructArray::new(fields.clone(), columns, None);
    let item = Arc::new(Field::new("item", DataType::Struct(fields), false));
    let list = ListArray::new(
        item.clone(),
        OffsetBuffer::from_lengths(lengths),
        Arc::new(values),
        None,
    );
    (
        Field::new(name, DataType::List(item), false),
        Arc::new(list),
    )
}

/// The fragments' list column: each fragment's files (`file_a`,
/// `file_b`), byte ranges, lines and symbols, and its `parts` (empty for a
/// single exact match), as the CLI's JSON has them.
fn fragments_column(rows: &[PairRow]) -> (Field, ArrayRef) {
    let part_fields: Fields = FRAGMENT_FIELDS.iter().map(|n| u64_field(n)).collect();
    let fragments = || rows.iter().flat_map(|r| &r.fragments);
    let (parts_field, parts) = list_of(
        "parts",
        part_fields.clone(),
        fragment_columns(fragments().flat_map(|(_, _, parts)| parts)),
        fragments().map(|(_, _, parts)| parts.len()).collect(),
    );
    let mut fields = vec![
        Field::new("file_a", DataType::Utf8, false),
        Field::new("file_b", DataType::Utf8, false),
    ];
    fields.extend(part_fields.iter().map(|f| f.as_ref().clone()));
    fields.push(parts_field);
    let file = |side: fn(&(String, String)) -> &String| -> ArrayRef {
        Arc::new(StringArray::from(
            fragments()
                .map(|(files, _, _)| side(files).as_str())
                .collect::<Vec<_>>(),
        ))
    };
    let mut columns = vec![file(|f| &f.0), file(|f| &f.1)];
    columns.extend(fragment_columns(fragments().map(|(_, f, _)| f)));
    columns.push(parts);
    list_of(
        "fragments",
        fields.into(),
        columns,
        rows.iter().map(|r| r.fragments.len()).collect(),
    )
}

fn pairs_batch(rows: &[PairRow]) -> PyResult<RecordBatch> {
    let u64s = |f: &dyn Fn(&PairRow) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let f64s = |f: &dyn Fn(&PairRow) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let (fragments_field, fragments) = fragments_column(rows);
    batch(
        vec![
            Field::new("doc_a", DataType::Utf8, false),
            Field::new("doc_b", DataType::Utf8, false),
            Field::new("similarity", DataType::Float64, false),
            Field::new("a_percent", DataType::Float64, false),
            Field::new("b_percent", DataType::Float64, false),
            u64_field("shared_fingerprints"),
            u64_field("symbols_a"),
            u64_field("symbols_b"),
            u64_field("covered_a"),
            u64_field("covered_b"),
            u64_field("lines_matched"),
            u64_field("longest_fragment"),
            Field::new("identical", DataType::Boolean, false),
            fragments_field,
        ],
        vec![
            Arc::new(StringArray::from(
                rows.iter().map(|r| r.a.as_str()).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                rows.iter().map(|r| r.b.as_str()).collect::<Vec<_>>(),
            )),
            f64s(&|r| r.similarity),
            f64s(&|r| r.a_percent),
            f64s(&|r| r.b_percent),
            u64s(&|r| r.shared_fingerprints),
            u64s(&|r| r.symbols.0),
            u64s(&|r| r.symbols.1),
            u64s(&|r| r.covered.0),
            u64s(&|r| r.covered.1),
            u64s(&|r| r.lines_matched),
            u64s(&|r| r.longest_fragment),
            Arc::new(BooleanArray::from(
                rows.iter().map(|r| r.identical).collect::<Vec<_>>(),
            )),
            fragments,
        ],
    )
}

fn skipped_batch(skipped: &[(String, String)]) -> PyResult<RecordBatch> {
    batch(
        vec![
            Field::new("doc_id", DataType::Utf8, false),
            Field::new("reason", DataType::Utf8, false),
        ],
        vec![
            Arc::new(StringArray::from(
                skipped.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                skipped.iter().map(|s| s.1.as_str()).collect::<Vec<_>>(),
            )),
        ],
    )
}

/// The rarity counts handed to [`compare`]: a batch with `hash` (u64) and
/// `submissions` (u32), and the template threshold; only for pairs
/// compared alone under the rarity rule.
fn rarity_counts(
    batch: Option<RecordBatch>,
    template_above: Option<u64>,
    pairs: bool,
    max_submissions: Option<usize>,
) -> PyResult<Option<RarityCounts>> {
    let (batch, template_above) = match (batch, template_above) {
        (None, None) => return Ok(None),
        (Some(b), Some(t)) => (b, t),
        _ => {
            return Err(value_error(
                "hash_submissions and template_above go together (the rarity counts of the \
                 whole corpus)",
            ))
        }
    };
    if !pairs || max_submissions.is_some() {
        return Err(value_error(
            "hash_submissions is for pairs compared alone under the rarity rule \
             (give pairs, not max_submissions)",
        ));
    }
    let (Some(hashes), Some(counts)) = (column(&batch, "hash"), column(&batch, "submissions"))
    else {
        return Err(value_error(
            "hash_submissions needs the columns `hash` (uint64) and `submissions` (uint32)",
        ));
    };
    let (Some(hashes), Some(counts)) = (
        hashes.as_primitive_opt::<arrow_array::types::UInt64Type>(),
        counts.as_primitive_opt::<arrow_array::types::UInt32Type>(),
    ) else {
        return Err(value_error(format!(
            "hash_submissions takes uint64 `hash` and uint32 `submissions`, not {} and {}",
            hashes.data_type(),
            counts.data_type()
        )));
    };
    if hashes.null_count() + counts.null_count() > 0 {
        return Err(value_error("hash_submissions must have no nulls"));
    }
    let mut submissions = HashMap::with_capacity(hashes.len());
    for (&h, &n) in hashes.values().iter().zip(counts.values().iter()) {
        if *submissions.entry(h).or_insert(n) != n {
            return Err(value_error(format!(
                "hash_submissions gives hash {h} two different counts"
            )));
        }
    }
    Ok(Some(RarityCounts {
        submissions,
        template_above,
    }))
}

/// Hashes of a `seeds` column, whatever their integer type: uint64 as
/// they are, int64 bit for bit (Spark has no unsigned type); a null
/// stays `None`. A list of nothing but nulls has type null.
fn seed_values(values: &ArrayRef) -> Option<Vec<Option<u64>>> {
    Some(match values.data_type() {
        DataType::UInt64 => values
            .as_primitive::<arrow_array::types::UInt64Type>()
            .iter()
            .collect(),
        DataType::Int64 => values
            .as_primitive::<arrow_array::types::Int64Type>()
            .iter()
            .map(|v| v.map(|v| v as u64))
            .collect(),
        DataType::Null => vec![None; values.len()],
        _ => return None,
    })
}

/// The hashes of every row of a list column, sorted and distinct; `None`
/// for a null row.
fn seed_lists<O: arrow_array::OffsetSizeTrait>(
    lists: &arrow_array::GenericListArray<O>,
) -> PyResult<Vec<Option<Vec<u64>>>> {
    let Some(values) = seed_values(lists.values()) else {
        return Err(value_error(format!(
            "column `seeds` must be a list of uint64 or int64 hashes, not {}",
            lists.data_type()
        )));
    };
    let offsets = lists.value_offsets();
    (0..lists.len())
        .map(|row| {
            if lists.is_null(row) {
                return Ok(None);
            }
            let (start, end) = (offsets[row].as_usize(), offsets[row + 1].as_usize());
            let mut hashes = values[start..end]
                .iter()
                .copied()
                .collect::<Option<Vec<u64>>>()
                .ok_or_else(|| value_error(format!("`seeds` holds a null hash in row {row}")))?;
            hashes.sort_unstable();
            hashes.dedup();
            Ok(Some(hashes))
        })
        .collect()
}

/// The optional `seeds` column of a pairs batch: for every pair, the
/// hashes its fragments are seeded by, or `None` (a null, or no column):
/// every hash the two share.
fn pair_seeds(pairs: &RecordBatch) -> PyResult<Vec<Option<Vec<u64>>>> {
    match column(pairs, "seeds") {
        None => Ok(vec![None; pairs.num_rows()]),
        Some(c) => match c.data_type() {
            DataType::List(_) => seed_lists(c.as_list::<i32>()),
            DataType::LargeList(_) => seed_lists(c.as_list::<i64>()),
            other => Err(value_error(format!(
                "column `seeds` must be a list of uint64 or int64 hashes, not {other}"
            ))),
        },
    }
}

/// Symbols below which `bryo compare` discounts a matched fragment by
/// rarity on a corpus of thresholds `k` and template threshold
/// `template_above` under the default rule (its JSON's
/// `stats.discount_below`), or 0 when the discount does not apply
/// (`discount=False` is `--no-discount`). The CLI reports it only when
/// some shared hash is matched.
#[pyfunction]
#[pyo3(signature = (*, k, template_above, discount=true))]
fn discount_below(k: usize, template_above: u64, discount: bool) -> u64 {
    let rule = Rarity {
        full_weight_kgrams: if discount {
            Rarity::default().full_weight_kgrams
        } else {
            0
        },
        ..Rarity::default()
    };
    if rule.discounts(template_above) {
        u64::from(rule.full_weight_kgrams) * k as u64
    } else {
        0
    }
}

/// Compares documents as `bryo compare` does: `(pairs, skipped)`.
///
/// Without `pairs`, every document of the batch is one submission of one
/// compare run (ranked and cut to `max_pairs`, 0 = all). With `pairs` (a
/// batch with `doc_a`, `doc_b`), each pair is compared alone, every
/// candidate scored (a `whole` column, true for a pair of identical
/// documents the distributed ranking did not choose, reports it whole, as
/// the CLI does): the fragment stage of a distributed job, where
/// `excluded_hashes` (u64 array) are the hashes the common-code rule
/// excluded on the whole corpus — with `max_submissions=0` they are MOSS's
/// `-m` passages (matched never, counted in the totals), without
/// `max_submissions` template code of the rarity rule (neither matched nor
/// counted). `base` (a batch with `doc_id`, `text`) is base code, as
/// `bryo compare -b` takes it: its passages are never matched and the
/// symbols they cover are left out of the totals.
///
/// `discount` (default true) is the rarity discount of the default rule;
/// false is `bryo compare --no-discount`. A pair compared alone is too
/// small a corpus for it: `hash_submissions` (a batch with `hash` u64 and
/// `submissions` u32, the distinct submissions holding each matched hash
/// of the whole corpus, identical ones counted once) and `template_above`
/// (the whole corpus's template threshold) discount it as `bryo compare`
/// does on the whole corpus.
///
/// The `pairs` batch may have a `seeds` column (list of uint64, or of
/// int64 read bit for bit): the hashes that seed the pair's fragments, as
/// the pair's records of the whole corpus give them
/// (`bryo_match::Indexed::record_hashes`). Under the rarity rule a hash
/// above the seed limit pairs only a sample of its submissions, while a
/// pair compared alone is seeded by every hash the two share; with its
/// seeds, the pair gets the fragments (and `shared_fingerprints`) of the
/// whole run. Other shared hashes stay matchable by extension. A null (or
/// no column) seeds by every shared hash; an empty list seeds nothing, so
/// the pair is not reported, unless its documents are identical (then
/// whole).
///
/// `pairs` result: `doc_a`, `doc_b`, `similarity`, `a_percent`,
/// `b_percent`, `shared_fingerprints`, `symbols_a`/`_b`, `covered_a`/`_b`,
/// `lines_matched`, `longest_fragment`, `identical`, and `fragments`
/// (byte ranges and lines on both sides, matched symbols, and the `parts`
/// of a merged fragment with the same fields), as in the CLI's JSON. `skipped`: `doc_id`, `reason`.
#[pyfunction]
#[pyo3(signature = (
    documents, *, pairs=None, excluded_hashes=None, base=None, language=None, kind=None,
    text_mode=None,
    k=None, w=None, max_submissions=None, max_pairs=250, min_similarity=0.0,
    max_file_size=bryo_input::DEFAULT_MAX_FILE_SIZE, discount=true, hash_submissions=None,
    template_above=None, parser=None, normalization=None, normalize=None,
))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    documents: PyArrowType<RecordBatch>,
    pairs: Option<PyArrowType<RecordBatch>>,
    excluded_hashes: Option<PyArrowType<arrow_data::ArrayData>>,
    base: Option<PyArrowType<RecordBatch>>,
    language: Option<&str>,
    kind: Option<&str>,
    text_mode: Option<&str>,
    k: Option<usize>,
    w: Option<usize>,
    max_submissions: Option<usize>,
    max_pairs: usize,
    min_similarity: f64,
    max_file_size: u64,
    discount: bool,
    hash_submissions: Option<PyArrowType<RecordBatch>>,
    template_above: Option<u64>,
    parser: Option<&str>,
    normalization: Option<&str>,
    normalize: Option<NormalizeArg>,
) -> PyResult<(PyArrowType<RecordBatch>, PyArrowType<RecordBatch>)> {
    let rarity = rarity_counts(
        hash_submissions.map(|b| b.0),
        template_above,
        pairs.is_some(),
        max_submissions,
    )?;
    let (k, w) = match (k, w, language.is_some() || kind.is_some()) {
        (None, None, false) => (None, None),
        _ => {
            let (k, w) = resolve_thresholds(language, kind, text_mode, k, w)?;
            (Some(k), Some(w))
        }
    };
    if !(0.0..=1.0).contains(&min_similarity) {
        return Err(value_error("min_similarity must be in 0..1"));
    }
    let mut options = CompareOptions {
        analyze: analyze_options(language, text_mode, parser, normalization, normalize)?,
        k,
        w,
        max_submissions,
        max_pairs,
        min_similarity,
        rarity_discount: discount,
        ..CompareOptions::default()
    };
    let excluded: Vec<u64> = match excluded_hashes {
        None => Vec::new(),
        Some(a) => {
            let array = arrow_array::make_array(a.0);
            match array.data_type() {
                DataType::UInt64 => array
                    .as_primitive::<arrow_array::types::UInt64Type>()
                    .iter()
                    .flatten()
                    .collect(),
                other => {
                    return Err(value_error(format!(
                        "excluded_hashes must be uint64, not {other}"
                    )))
                }
            }
        }
    };
    let input = documents.0;
    let docs = self::documents(&input)?;
    if docs.languages.iter().any(Option::is_some) {
        return Err(value_error(
            "compare takes one language for all documents (the `language` argument); \
             drop the `language` column",
        ));
    }
    if docs
        .ids
        .iter()
        .collect::<std::collections::HashSet<_>>()
        .len()
        != docs.ids.len()
    {
        return Err(value_error("doc_id values must be distinct"));
    }
    let groups = group_submissions(&docs)?;
    options.directory_mode = column(&input, "submission").is_some();
    let by_name: HashMap<&str, usize> = groups
        .iter()
        .enumerate()
        .map(|(g, &(name, _, _))| (name, g))
        .collect();
    // A submission compared alone with another: every file (a file
    // without text is an error here: the job's earlier stages skip it).
    let whole_submission = |g: usize| -> PyResult<Submission> {
        let (name, old, files) = &groups[g];
        let files = files
            .iter()
            .map(|&i| {
                let bytes = docs.bytes[i].ok_or_else(|| {
                    value_error(format!("document `{}` has no text", docs.ids[i]))
                })?;
                Ok(input_file(docs.ids[i], bytes))
            })
            .collect::<PyResult<_>>()?;
        Ok(Submission {
            name: name.to_string(),
            old: *old,
            files,
        })
    };
    // Base code, in id order as `bryo compare -b` reads a directory.
    let base_input = base.map(|b| b.0);
    let base_files: Vec<InputFile> = match &base_input {
        None => Vec::new(),
        Some(b) => {
            let base_docs = self::documents(b)?;
            let mut order: Vec<usize> = (0..base_docs.ids.len()).collect();
            order.sort_by_key(|&i| base_docs.ids[i]);
            order
                .into_iter()
                .map(|i| {
                    let bytes = base_docs.bytes[i].ok_or_else(|| {
                        value_error(format!("base document `{}` has no text", base_docs.ids[i]))
                    })?;
                    Ok(InputFile {
                        display_path: base_docs.ids[i].to_string(),
                        bytes: bytes.to_vec(),
                        source: bryo_input::Source::Memory,
                        size_hint: None,
                    })
                })
                .collect::<PyResult<_>>()?
        }
    };
    let fail = |e: CompareError| value_error(e);
    let (rows, skipped) = match pairs {
        None => {
            let mut inputs = Inputs {
                base: base_files,
                ..Inputs::default()
            };
            for (name, old, files) in &groups {
                let mut kept = Vec::new();
                for &i in files {
                    match docs.bytes[i] {
                        Some(bytes) if bytes.len() as u64 > max_file_size => {
                            inputs.skipped.push(bryo_input::SkippedInput {
                                path: docs.ids[i].to_string(),
                                reason: bryo_input::SkipReason::TooLarge {
                                    size: bytes.len() as u64,
                                    limit: max_file_size,
                                },
                            })
                        }
                        Some(bytes) => kept.push(input_file(docs.ids[i], bytes)),
                        None => inputs.skipped.push(bryo_input::SkippedInput {
                            path: docs.ids[i].to_string(),
                            reason: bryo_input::SkipReason::Unreadable {
                                message: "no text (null)".into(),
                            },
                        }),
                    }
                }
                if !kept.is_empty() {
                    inputs.submissions.push(Submission {
                        name: name.to_string(),
                        old: *old,
                        files: kept,
                    });
                }
            }
            py.detach(|| run_compare(inputs, &options, &excluded, false, None, None))
                .map_err(fail)?
        }
        Some(p) => {
            options.max_pairs = 0;
            options.min_similarity = 0.0;
            let p = p.0;
            let col = |name: &str| {
                column(&p, name)
                    .ok_or_else(|| value_error(format!("the pairs batch has no `{name}` column")))
                    .and_then(|c| strings(c, name))
            };
            let (a, b) = (col("doc_a")?, col("doc_b")?);
            let whole: Vec<bool> = match column(&p, "whole") {
                None => vec![false; a.len()],
                Some(c) if c.data_type() == &DataType::Boolean => {
                    c.as_boolean().iter().map(|w| w.unwrap_or(false)).collect()
                }
                Some(c) => {
                    return Err(value_error(format!(
                        "column `whole` must be boolean, not {}",
                        c.data_type()
                    )))
                }
            };
            let seeds = pair_seeds(&p)?;
            let mut jobs = Vec::with_capacity(a.len());
            for (((x, y), &whole), seeds) in a.iter().zip(&b).zip(&whole).zip(seeds) {
                let (Some(x), Some(y)) = (x, y) else {
                    return Err(value_error("doc_a and doc_b must not be null"));
                };
                let find = |name: &str| {
                    by_name.get(name).copied().ok_or_else(|| {
                        value_error(format!("pair names unknown submission `{name}`"))
                    })
                };
                // In the order of the whole run: new before old, by name.
                let (i, j) = (find(x)?, find(y)?);
                let (i, j) = (i.min(j), i.max(j));
                if i == j {
                    return Err(value_error(format!("pair of `{x}` with itself")));
                }
                if groups[i].1 && groups[j].1 {
                    return Err(value_error(format!(
                        "pair of two old submissions `{x}` and `{y}`: old ones are compared \
                         only with new ones"
                    )));
                }
                jobs.push((
                    Inputs {
                        submissions: vec![whole_submission(i)?, whole_submission(j)?],
                        base: base_files.clone(),
                        ..Inputs::default()
                    },
                    whole,
                    seeds,
                ));
            }
            py.detach(|| {
                let mut rows = Vec::new();
                let mut skipped = Vec::new();
                for (inputs, whole, seeds) in jobs {
                    let (r, s) = run_compare(
                        inputs,
                        &options,
                        &excluded,
                        whole,
                        rarity.as_ref(),
                        seeds.as_deref(),
                    )?;
                    rows.extend(r);
                    skipped.extend(s);
                }
                skipped.sort();
                skipped.dedup();
                Ok::<_, CompareError>((rows, skipped))
            })
            .map_err(fail)?
        }
    };
    Ok((
        PyArrowType(pairs_batch(&rows)?),
        PyArrowType(skipped_batch(&skipped)?),
    ))
}

// ---- The fingerprint index (bryo-index): read it, and write it from a
// cluster in two steps, `index_prepare` on workers and `index_commit` on
// the driver.

fn index_error(e: IndexError) -> PyErr {
    value_error(e)
}

fn open_index(dir: &Path) -> PyResult<Index> {
    Index::open(dir).map_err(index_error)
}

/// The options an index was made with: front-end, `k`, `w` and the
/// versions of its format and schemes.
#[pyfunction]
fn index_settings<'py>(py: Python<'py>, dir: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let index = open_index(&dir)?;
    let s = index.settings();
    let d = PyDict::new(py);
    d.set_item("language", s.analyze.language.map(Language::name))?;
    d.set_item("text_mode", s.analyze.text_mode.name())?;
    d.set_item("k", s.config.k())?;
    d.set_item("w", s.config.w())?;
    // `True` or `False`; `"auto"` for an index without one language made
    // with `bryo index create`'s default.
    match s.analyze.normalize {
        Normalize::Auto => d.set_item("normalize", "auto")?,
        n => d.set_item("normalize", n == Normalize::On)?,
    }
    d.set_item("parser", s.analyze.parser.name())?;
    d.set_item("normalization", s.analyze.normalization.name())?;
    d.set_item("format_version", bryo_index::INDEX_FORMAT_VERSION)?;
    d.set_item("hash_scheme_version", bryo_engine::HASH_SCHEME_VERSION)?;
    d.set_item(
        "symbol_scheme_version",
        bryo_frontend::SYMBOL_SCHEME_VERSION,
    )?;
    d.set_item("key", s.key())?;
    Ok(d)
}

/// The live archived documents of an index in id order: `doc` (u32, the
/// `doc` of the segments' postings), `path`, `submission`, `tag`,
/// `symbols` (u64), `content_fingerprint` (u64: the Rabin fingerprint of
/// the normalized symbols, as `fingerprint`'s documents have it), `text`
/// (binary: the source bytes as read, checked against their stored
/// fingerprint).
#[pyfunction]
fn index_documents(py: Python<'_>, dir: PathBuf) -> PyResult<PyArrowType<RecordBatch>> {
    let docs = py
        .detach(|| Index::open(&dir)?.documents())
        .map_err(index_error)?;
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    let out = batch(
        vec![
            Field::new("doc", DataType::UInt32, false),
            text("path"),
            text("submission"),
            text("tag"),
            u64_field("symbols"),
            u64_field("content_fingerprint"),
            Field::new("text", DataType::Binary, false),
        ],
        vec![
            Arc::new(UInt32Array::from_iter_values(docs.iter().map(|d| d.doc))),
            Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.path))),
            Arc::new(StringArray::from_iter_values(
                docs.iter().map(|d| &d.submission),
            )),
            Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.tag))),
            Arc::new(UInt64Array::from_iter_values(
                docs.iter().map(|d| d.symbols),
            )),
            Arc::new(UInt64Array::from_iter_values(
                docs.iter().map(|d| d.normalized_fingerprint),
            )),
            Arc::new(BinaryArray::from_iter_values(
                docs.iter().map(|d| d.source.as_slice()),
            )),
        ],
    )?;
    Ok(PyArrowType(out))
}

/// The absolute paths of the index's segment files, each checked against
/// the size and checksum the catalogue recorded.
#[pyfunction]
fn index_segments(py: Python<'_>, dir: PathBuf) -> PyResult<Vec<String>> {
    let dir =
        std::path::absolute(&dir).map_err(|e| value_error(format!("{}: {e}", dir.display())))?;
    let files = py
        .detach(|| Index::open(&dir)?.segment_files())
        .map_err(index_error)?;
    Ok(files
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
}

/// Creates an empty index, as `bryo index create DIR -l LANGUAGE -k K -w W
/// [--parser P] [--normalization N] [--normalize]`.
#[pyfunction]
#[pyo3(signature = (
    dir, *, language=None, kind=None, text_mode=None, k=None, w=None, parser=None,
    normalization=None, normalize=None,
))]
#[allow(clippy::too_many_arguments)]
fn index_create(
    dir: PathBuf,
    language: Option<&str>,
    kind: Option<&str>,
    text_mode: Option<&str>,
    k: Option<usize>,
    w: Option<usize>,
    parser: Option<&str>,
    normalization: Option<&str>,
    normalize: Option<NormalizeArg>,
) -> PyResult<()> {
    let analyze = analyze_options(language, text_mode, parser, normalization, normalize)?;
    // Without a language, `kind` chooses the defaults (IndexSettings
    // takes those of source code).
    let (k, w) = match (language, kind) {
        (None, Some(_)) => {
            let (k, w) = resolve_thresholds(None, kind, text_mode, k, w)?;
            (Some(k), Some(w))
        }
        _ => (k, w),
    };
    let settings = IndexSettings::new(analyze, k, w, None).map_err(index_error)?;
    Index::create(&dir, settings).map_err(index_error)?;
    Ok(())
}

/// Prepares documents for `index_commit` under the settings of the index
/// in `dir` (read, never written): one row per input row with
/// `doc_id`, `submission`, `ok`, `reason` and what the catalogue and the
/// segment store (`settings`, `language`, `frontend`, `fallback`, `notes`,
/// `symbols`, `source_bytes`, `raw_fingerprint`, `normalized_fingerprint`,
/// `stream`, `source`, `hashes`, `positions`).
#[pyfunction]
#[pyo3(signature = (documents, *, dir, max_file_size=bryo_input::DEFAULT_MAX_FILE_SIZE))]
fn index_prepare(
    py: Python<'_>,
    documents: PyArrowType<RecordBatch>,
    dir: PathBuf,
    max_file_size: u64,
) -> PyResult<PyArrowType<RecordBatch>> {
    let preparer = open_index(&dir)?.preparer().map_err(index_error)?;
    let input = documents.0;
    let docs = self::documents(&input)?;
    let stored = preparer.settings().analyze.language.map(Language::name);
    for (row, l) in docs.languages.iter().enumerate() {
        if let Some(l) = l {
            if Some(*l) != stored {
                return Err(value_error(format!(
                    "row {row} asks for language `{l}`, but the index's is {} \
                     (the index's settings choose the front-end: drop the `language` column)",
                    stored.map_or("detected per file".to_string(), |s| format!("`{s}`"))
                )));
            }
        }
    }
    let submissions: Vec<Option<&str>> = match column(&input, "submission") {
        Some(c) => strings(c, "submission")?,
        None => vec![None; docs.ids.len()],
    };
    let prepared: Vec<PreparedDocument> = py.detach(|| {
        (0..docs.ids.len())
            .into_par_iter()
            .map_init(
                || preparer.clone(),
                |p, i| {
                    let (id, sub) = (docs.ids[i], submissions[i].unwrap_or(docs.ids[i]));
                    match docs.bytes[i] {
                        None => p.skipped(sub, id, "no text (null)".to_string()),
                        Some(bytes) if bytes.len() as u64 > max_file_size => {
                            p.skipped(sub, id, too_large(bytes, max_file_size))
                        }
                        Some(bytes) => p.prepare(sub, id, bytes),
                    }
                },
            )
            .collect()
    });
    Ok(PyArrowType(prepared_batch(&prepared)?))
}

fn prepared_fields() -> Vec<Field> {
    let text = |name: &str, nullable| Field::new(name, DataType::Utf8, nullable);
    let list = |name: &str, item: DataType| {
        Field::new(
            name,
            DataType::List(Arc::new(Field::new_list_field(item, false))),
            false,
        )
    };
    vec![
        text("doc_id", false),
        text("submission", false),
        Field::new("ok", DataType::Boolean, false),
        text("reason", true),
        text("settings", false),
        text("language", true),
        text("frontend", true),
        text("fallback", true),
        text("notes", true),
        u64_field("symbols"),
        u64_field("source_bytes"),
        u64_field("lines"),
        text("encoding", true),
        u64_field("raw_fingerprint"),
        u64_field("normalized_fingerprint"),
        Field::new("stream", DataType::Binary, true),
        Field::new("source", DataType::Binary, true),
        list("hashes", DataType::UInt64),
        list("positions", DataType::UInt32),
    ]
}

fn prepared_batch(docs: &[PreparedDocument]) -> PyResult<RecordBatch> {
    let data: Vec<Option<&DocumentData>> = docs.iter().map(|d| d.content.as_ref().ok()).collect();
    let strs = |f: &dyn Fn(&DocumentData) -> Option<&str>| -> ArrayRef {
        Arc::new(StringArray::from(
            data.iter().map(|d| d.and_then(f)).collect::<Vec<_>>(),
        ))
    };
    let nums = |f: &dyn Fn(&DocumentData) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from_iter_values(
            data.iter().map(|d| d.map_or(0, f)),
        ))
    };
    let blobs = |f: &dyn Fn(&DocumentData) -> &[u8]| -> ArrayRef {
        Arc::new(BinaryArray::from(
            data.iter().map(|d| d.map(f)).collect::<Vec<_>>(),
        ))
    };
    fn prints<'a>(d: &Option<&'a DocumentData>) -> &'a [bryo_engine::Fingerprint] {
        d.map_or(&[], |d| d.fingerprints.as_slice())
    }
    let lengths: Vec<usize> = data.iter().map(|d| prints(d).len()).collect();
    let hashes =
        UInt64Array::from_iter_values(data.iter().flat_map(|d| prints(d).iter().map(|f| f.hash)));
    let positions =
        UInt32Array::from_iter_values(data.iter().flat_map(|d| prints(d).iter().map(|f| f.pos)));
    let list = |values: ArrayRef| -> ArrayRef {
        Arc::new(ListArray::new(
            Arc::new(Field::new_list_field(values.data_type().clone(), false)),
            OffsetBuffer::from_lengths(lengths.iter().copied()),
            values,
            None,
        ))
    };
    batch(
        prepared_fields(),
        vec![
            Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.path))),
            Arc::new(StringArray::from_iter_values(
                docs.iter().map(|d| &d.submission),
            )),
            Arc::new(BooleanArray::from(
                data.iter().map(Option::is_some).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                docs.iter()
                    .map(|d| d.content.as_ref().err().map(String::as_str))
                    .collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from_iter_values(
                docs.iter().map(|d| &d.settings),
            )),
            strs(&|d| Some(&d.language)),
            strs(&|d| Some(&d.frontend)),
            strs(&|d| d.fallback.as_deref()),
            strs(&|d| Some(&d.notes)),
            nums(&|d| d.symbols),
            nums(&|d| d.source_bytes),
            nums(&|d| d.lines),
            strs(&|d| Some(&d.encoding)),
            nums(&|d| d.raw_fingerprint),
            nums(&|d| d.normalized_fingerprint),
            blobs(&|d| &d.stream),
            blobs(&|d| &d.source),
            list(Arc::new(hashes)),
            list(Arc::new(positions)),
        ],
    )
}

/// A column of `index_prepare`'s batch, by name.
fn prepared_column<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a ArrayRef> {
    column(batch, name).ok_or_else(|| {
        value_error(format!(
            "the prepared batch has no `{name}` column (pass the batches of bryo.index_prepare)"
        ))
    })
}

/// Unsigned 64-bit values of a uint64 or int64 column (Spark has no
/// unsigned types: an int64 holds the same bits).
fn u64_values(col: &dyn Array, name: &str) -> PyResult<Vec<Option<u64>>> {
    use arrow_array::types::{Int64Type, UInt64Type};
    if let Some(a) = col.as_primitive_opt::<UInt64Type>() {
        Ok(a.iter().collect())
    } else if let Some(a) = col.as_primitive_opt::<Int64Type>() {
        Ok(a.iter().map(|v| v.map(|v| v as u64)).collect())
    } else {
        Err(value_error(format!(
            "column `{name}` must be uint64 or int64, not {}",
            col.data_type()
        )))
    }
}

/// Unsigned 32-bit values of a uint32, int32 or int64 column.
fn u32_values(col: &dyn Array, name: &str) -> PyResult<Vec<Option<u32>>> {
    use arrow_array::types::{Int32Type, UInt32Type};
    let bad = || value_error(format!("column `{name}` holds a value out of range"));
    if let Some(a) = col.as_primitive_opt::<UInt32Type>() {
        Ok(a.iter().collect())
    } else if let Some(a) = col.as_primitive_opt::<Int32Type>() {
        a.iter()
            .map(|v| v.map(|v| u32::try_from(v).map_err(|_| bad())).transpose())
            .collect()
    } else {
        u64_values(col, name)?
            .into_iter()
            .map(|v| v.map(|v| u32::try_from(v).map_err(|_| bad())).transpose())
            .collect()
    }
}

/// The rows of a list column, each as an array.
fn lists(col: &ArrayRef, name: &str) -> PyResult<Vec<Option<ArrayRef>>> {
    if let Some(l) = col.as_list_opt::<i32>() {
        Ok(l.iter().collect())
    } else if let Some(l) = col.as_list_opt::<i64>() {
        Ok(l.iter().collect())
    } else {
        Err(value_error(format!(
            "column `{name}` must be a list, not {}",
            col.data_type()
        )))
    }
}

/// The documents of one batch made by `index_prepare`.
fn prepared_documents(batch: &RecordBatch) -> PyResult<Vec<PreparedDocument>> {
    let col = |name| prepared_column(batch, name);
    let required = |values: Vec<Option<&str>>, name: &str| -> PyResult<Vec<String>> {
        values
            .into_iter()
            .enumerate()
            .map(|(row, v)| {
                v.map(str::to_string)
                    .ok_or_else(|| value_error(format!("`{name}` is null in row {row}")))
            })
            .collect()
    };
    let ids = required(strings(col("doc_id")?, "doc_id")?, "doc_id")?;
    let subs = required(strings(col("submission")?, "submission")?, "submission")?;
    let settings = required(strings(col("settings")?, "settings")?, "settings")?;
    let ok = col("ok")?
        .as_boolean_opt()
        .ok_or_else(|| value_error("column `ok` must be booleans"))?;
    let reasons = strings(col("reason")?, "reason")?;
    let language = strings(col("language")?, "language")?;
    let frontend = strings(col("frontend")?, "frontend")?;
    let fallback = strings(col("fallback")?, "fallback")?;
    let notes = strings(col("notes")?, "notes")?;
    let symbols = u64_values(col("symbols")?, "symbols")?;
    let source_bytes = u64_values(col("source_bytes")?, "source_bytes")?;
    let lines = u64_values(col("lines")?, "lines")?;
    let encoding = strings(col("encoding")?, "encoding")?;
    let raw = u64_values(col("raw_fingerprint")?, "raw_fingerprint")?;
    let normalized = u64_values(col("normalized_fingerprint")?, "normalized_fingerprint")?;
    let stream = binaries(col("stream")?, "stream")?;
    let source = binaries(col("source")?, "source")?;
    let hashes = lists(col("hashes")?, "hashes")?;
    let positions = lists(col("positions")?, "positions")?;
    let mut out = Vec::with_capacity(ids.len());
    for row in 0..ids.len() {
        let missing = |name: &str| value_error(format!("`{name}` is null in row {row}"));
        let content = if ok.is_valid(row) && ok.value(row) {
            let (Some(h), Some(p)) = (&hashes[row], &positions[row]) else {
                return Err(missing("hashes"));
            };
            let (h, p) = (u64_values(h, "hashes")?, u32_values(p, "positions")?);
            if h.len() != p.len() {
                return Err(value_error(format!(
                    "row {row} has {} hashes but {} positions",
                    h.len(),
                    p.len()
                )));
            }
            let fingerprints = h
                .into_iter()
                .zip(p)
                .map(|(hash, pos)| match (hash, pos) {
                    (Some(hash), Some(pos)) => Ok(bryo_engine::Fingerprint { hash, pos }),
                    _ => Err(missing("a hash or position")),
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok(DocumentData {
                language: language[row]
                    .ok_or_else(|| missing("language"))?
                    .to_string(),
                frontend: frontend[row]
                    .ok_or_else(|| missing("frontend"))?
                    .to_string(),
                fallback: fallback[row].map(str::to_string),
                notes: notes[row].unwrap_or_default().to_string(),
                symbols: symbols[row].ok_or_else(|| missing("symbols"))?,
                source_bytes: source_bytes[row].ok_or_else(|| missing("source_bytes"))?,
                lines: lines[row].ok_or_else(|| missing("lines"))?,
                encoding: encoding[row]
                    .ok_or_else(|| missing("encoding"))?
                    .to_string(),
                raw_fingerprint: raw[row].ok_or_else(|| missing("raw_fingerprint"))?,
                normalized_fingerprint: normalized[row]
                    .ok_or_else(|| missing("normalized_fingerprint"))?,
                stream: stream[row].ok_or_else(|| missing("stream"))?.to_vec(),
                source: source[row].ok_or_else(|| missing("source"))?.to_vec(),
                fingerprints,
            })
        } else {
            Err(reasons[row]
                .unwrap_or("left out by index_prepare")
                .to_string())
        };
        out.push(PreparedDocument {
            submission: subs[row].clone(),
            path: ids[row].clone(),
            settings: settings[row].clone(),
            content,
        });
    }
    Ok(out)
}

/// Stores the batches of `index_prepare` (an iterable of record batches,
/// any order) in the index as one new segment and its catalogue rows,
/// under `tag`, in one transaction: an error (from Python too, e.g. a
/// failing generator) leaves the index as it was.
#[pyfunction]
#[pyo3(signature = (dir, prepared, *, tag=String::new()))]
fn index_commit<'py>(
    py: Python<'py>,
    dir: PathBuf,
    prepared: Bound<'py, PyAny>,
    tag: String,
) -> PyResult<Bound<'py, PyDict>> {
    let mut index = open_index(&dir)?;
    let batches = prepared.try_iter()?;
    // An error of Python's (the iterator, a bad batch) stops the commit;
    // it is raised as it is once the transaction has been rolled back.
    let mut failure: Option<PyErr> = None;
    let documents = batches
        .map(|item| {
            item.and_then(|b| b.extract::<PyArrowType<RecordBatch>>())
                .and_then(|b| prepared_documents(&b.0))
        })
        .flat_map(|docs| match docs {
            Ok(docs) => docs.into_iter().map(Ok).collect::<Vec<_>>(),
            Err(e) => {
                failure = Some(e);
                vec![Err(IndexError::Prepared(
                    "interrupted by an error in the prepared batches".to_string(),
                ))]
            }
        });
    let result = index.commit(documents, &tag);
    if let Some(e) = failure {
        return Err(e);
    }
    let s = result.map_err(index_error)?;
    let d = PyDict::new(py);
    d.set_item("submissions", s.submissions)?;
    d.set_item("documents", s.documents)?;
    d.set_item("symbols", s.symbols)?;
    d.set_item("postings", s.postings)?;
    d.set_item("segment_bytes", s.segment_bytes)?;
    d.set_item("skipped", s.skipped)?;
    Ok(d)
}

/// The module.
#[pymodule]
fn _bryo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(thresholds, m)?)?;
    m.add_function(wrap_pyfunction!(front_end, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(seed_order, m)?)?;
    m.add_function(wrap_pyfunction!(discount_below, m)?)?;
    m.add_function(wrap_pyfunction!(index_settings, m)?)?;
    m.add_function(wrap_pyfunction!(index_documents, m)?)?;
    m.add_function(wrap_pyfunction!(index_segments, m)?)?;
    m.add_function(wrap_pyfunction!(index_create, m)?)?;
    m.add_function(wrap_pyfunction!(index_prepare, m)?)?;
    m.add_function(wrap_pyfunction!(index_commit, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
