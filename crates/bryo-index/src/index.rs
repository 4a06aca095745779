//! The index directory: the catalogue and its segments, and every command
//! on them.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use bryo_compare::{
    Analyzed, ArchivedSubmission, FileFingerprint, FileFingerprinter, SharedHashes,
};
use bryo_engine::{Fingerprinter, HashFunction, Selection};
use bryo_frontend::{decode, Language, LineIndex};
use bryo_input::Inputs;
use bryo_report::Frontend;
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::error::{IndexError, Result};
use crate::prepare::{PreparedDocument, Preparer};
use crate::segment::{write_segment, Posting, Segment};
use crate::settings::IndexSettings;
use crate::shared::{count_groups, doc_rows, layout, read_table, write_table, SharedTable};
use crate::stream::{decode_stream, decompress};

/// File name of the catalogue inside an index directory.
pub const CATALOG_FILE: &str = "catalog.sqlite";
/// Directory of the segments inside an index directory.
pub const SEGMENTS_DIR: &str = "segments";

const SCHEMA: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    tag TEXT NOT NULL
);
CREATE INDEX submissions_tag ON submissions (tag);
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    submission INTEGER NOT NULL REFERENCES submissions (id),
    path TEXT NOT NULL,
    language TEXT NOT NULL,
    frontend TEXT NOT NULL,
    fallback TEXT,
    notes TEXT NOT NULL,
    symbols INTEGER NOT NULL,
    source_bytes INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    encoding TEXT NOT NULL,
    fingerprints INTEGER NOT NULL,
    raw_fingerprint INTEGER NOT NULL,
    normalized_fingerprint INTEGER NOT NULL,
    stream_checksum INTEGER NOT NULL,
    stream BLOB NOT NULL,
    source BLOB NOT NULL
);
CREATE INDEX documents_submission ON documents (submission);
CREATE INDEX documents_path ON documents (path);
CREATE TABLE segments (
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL UNIQUE,
    postings INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    checksum INTEGER NOT NULL
);
";

/// The archive's shared-hash table (`crate::shared`): made with the rest
/// of a new catalogue, and by the upgrade from format version 1.
const SHARED_HASHES_TABLE: &str = "
CREATE TABLE shared_hashes (
    submissions INTEGER NOT NULL,
    distinct_submissions INTEGER NOT NULL,
    hashes INTEGER NOT NULL,
    occurrences INTEGER NOT NULL,
    PRIMARY KEY (submissions, distinct_submissions)
);
";

/// A fingerprint index: archived documents (symbol streams with spans, and
/// source bytes) in a SQLite catalogue, their fingerprints in immutable
/// Parquet segments sorted by hash.
#[derive(Debug)]
pub struct Index {
    dir: PathBuf,
    conn: Connection,
    settings: IndexSettings,
}

/// What [`Index::add`] stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddSummary {
    /// Submissions added.
    pub submissions: u64,
    /// Documents (files) added.
    pub documents: u64,
    /// Normalized symbols added.
    pub symbols: u64,
    /// Postings (selected fingerprints) written.
    pub postings: u64,
    /// Size of the new segment in bytes (0 when nothing was added).
    pub segment_bytes: u64,
    /// Files left out, with the reason, sorted by path.
    pub skipped: Vec<(String, String)>,
}

/// What [`Index::compact`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactSummary {
    /// Segments before.
    pub segments_before: u64,
    /// Segments after (0 or 1).
    pub segments_after: u64,
    /// Postings of removed documents dropped.
    pub postings_dropped: u64,
    /// Postings kept.
    pub postings: u64,
}

/// One tag of an index: [`Index::info`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagInfo {
    /// The tag (empty when documents were added without one).
    pub tag: String,
    /// Its submissions.
    pub submissions: u64,
    /// Its documents.
    pub documents: u64,
    /// Their symbols.
    pub symbols: u64,
}

/// What an index holds: [`Index::info`].
#[derive(Clone, Debug)]
pub struct IndexInfo {
    /// The options every document was analyzed and fingerprinted with.
    pub settings: IndexSettings,
    /// Submissions.
    pub submissions: u64,
    /// Documents.
    pub documents: u64,
    /// Normalized symbols.
    pub symbols: u64,
    /// Bytes of the archived source files.
    pub source_bytes: u64,
    /// Per tag, sorted by tag.
    pub tags: Vec<TagInfo>,
    /// Segment files.
    pub segments: u64,
    /// Postings in them (including those of removed documents, until
    /// [`Index::compact`]).
    pub postings: u64,
    /// Bytes of the segments.
    pub segment_bytes: u64,
    /// Bytes of the catalogue.
    pub catalog_bytes: u64,
}

/// An archived submission as stored: the input of
/// [`bryo_compare::analyze_inputs_with_archive`] and where it came from.
#[derive(Clone, Debug)]
pub struct Archived {
    /// Its tag (empty when added without one).
    pub tag: String,
    /// The submission, named as when it was added, with its files.
    pub submission: ArchivedSubmission,
    /// The source bytes of each file, in the order of `submission.files`
    /// (for renderers that show the text).
    pub sources: Vec<Vec<u8>>,
}

struct SegmentRow {
    file: String,
    bytes: u64,
    checksum: u64,
    postings: u64,
}

impl Index {
    /// Creates an empty index in `dir` (created if missing; an existing
    /// index is an error).
    pub fn create(dir: &Path, settings: IndexSettings) -> Result<Index> {
        let io = |source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir.join(SEGMENTS_DIR)).map_err(io)?;
        if dir.join(CATALOG_FILE).exists() {
            return Err(IndexError::Exists(dir.to_path_buf()));
        }
        let mut conn = connect(dir)?;
        let db = |source| IndexError::Catalog {
            dir: dir.to_path_buf(),
            source,
        };
        let tx = conn.transaction().map_err(db)?;
        tx.execute_batch(SCHEMA).map_err(db)?;
        tx.execute_batch(SHARED_HASHES_TABLE).map_err(db)?;
        for (key, value) in settings.to_meta() {
            tx.execute("INSERT INTO meta VALUES (?1, ?2)", params![key, value])
                .map_err(db)?;
        }
        tx.execute(
            "INSERT INTO meta VALUES ('next_document', '0'), ('next_segment', '0')",
            [],
        )
        .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(Index {
            dir: dir.to_path_buf(),
            conn,
            settings,
        })
    }

    /// Opens the index in `dir`; one made by another scheme version, or a
    /// format version this build cannot read, is refused. An index of
    /// format version 1 is upgraded in place first, in one transaction:
    /// each document's lines, encoding and number of postings are read
    /// from what it stores, and the shared-hash table is counted from
    /// every segment.
    pub fn open(dir: &Path) -> Result<Index> {
        if !dir.join(CATALOG_FILE).is_file() {
            return Err(IndexError::NotAnIndex(dir.to_path_buf()));
        }
        let mut conn = connect(dir)?;
        let version: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'format_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|source| IndexError::Catalog {
                dir: dir.to_path_buf(),
                source,
            })?;
        if version.as_deref() == Some("1") {
            upgrade_from_1(dir, &mut conn)?;
        }
        let settings = {
            let mut stmt = conn
                .prepare("SELECT key, value FROM meta")
                .map_err(|source| IndexError::Catalog {
                    dir: dir.to_path_buf(),
                    source,
                })?;
            let rows: BTreeMap<String, String> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .and_then(|rows| rows.collect())
                .map_err(|source| IndexError::Catalog {
                    dir: dir.to_path_buf(),
                    source,
                })?;
            IndexSettings::from_meta(dir, |k| rows.get(k).cloned())?
        };
        Ok(Index {
            dir: dir.to_path_buf(),
            conn,
            settings,
        })
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The options every document was analyzed and fingerprinted with.
    pub fn settings(&self) -> &IndexSettings {
        &self.settings
    }

    fn db(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        |source| IndexError::Catalog {
            dir: self.dir.clone(),
            source,
        }
    }

    /// Analyzes the discovered submissions with the index's settings,
    /// fingerprints them and stores them under `tag` as one new segment
    /// and their catalogue rows, switched in by one transaction: an
    /// interrupted `add` leaves the index as it was. Base files of
    /// `inputs` are ignored; every submission is archived, old or not, in
    /// name order. The same as a [`Preparer`] on every file and
    /// [`commit`](Self::commit), which share its code.
    pub fn add(&mut self, inputs: Inputs, tag: &str) -> Result<AddSummary> {
        self.add_with_progress(inputs, tag, &bryo_compare::Silent)
    }

    /// [`add`](Self::add), watched: the analyze stage counts files (one
    /// unit each, from worker threads), then the index stage writes the
    /// segment (its work is the number of postings, done at once).
    pub fn add_with_progress(
        &mut self,
        inputs: Inputs,
        tag: &str,
        progress: &dyn bryo_compare::Progress,
    ) -> Result<AddSummary> {
        let jobs: Vec<(usize, &bryo_input::InputFile)> = inputs
            .submissions
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.files.iter().map(move |f| (i, f)))
            .collect();
        let preparer = Preparer::new(self.settings)?;
        progress.start(bryo_compare::Stage::Analyze, jobs.len() as u64);
        // Analysis, fingerprints and compression in parallel, a batch of
        // files at a time (memory holds one batch's documents, not the
        // whole term's).
        let submissions = &inputs.submissions;
        let prepared = batches(&jobs).into_iter().flat_map(|batch| {
            let docs: Vec<PreparedDocument> = batch
                .par_iter()
                .map_init(
                    || preparer.clone(),
                    |p, (sub, file)| {
                        let d = p.prepare(&submissions[*sub].name, &file.display_path, &file.bytes);
                        progress.advance(1);
                        d
                    },
                )
                .collect();
            docs.into_iter().map(Ok)
        });
        let mut summary = self.commit_with_progress(prepared, tag, progress)?;
        summary.skipped.extend(
            inputs
                .skipped
                .iter()
                .map(|s| (s.path.clone(), s.reason.to_string())),
        );
        summary.skipped.sort();
        Ok(summary)
    }

    /// Stores prepared documents under `tag` as [`add`](Self::add) does:
    /// one new segment (written and flushed first) and their catalogue
    /// rows, switched in by one transaction, so that an error — from the
    /// catalogue, the disk, or an `Err` item of `documents` — leaves the
    /// index as it was.
    ///
    /// `documents` may come in any order (e.g. from the workers of a
    /// cluster); documents with the same [`PreparedDocument::submission`]
    /// form one submission. Submissions are stored in name order and
    /// their files in path order, whatever the order of arrival: the
    /// order `add` stores the submissions of one directory in. Documents
    /// are staged in a temporary table of the catalogue until the end,
    /// their postings in memory. A document prepared under other settings
    /// than the index's is refused ([`IndexError::Mismatch`]), as is a
    /// path given twice ([`IndexError::Prepared`]); a document with a
    /// reason instead of data is listed in [`AddSummary::skipped`].
    pub fn commit<I>(&mut self, documents: I, tag: &str) -> Result<AddSummary>
    where
        I: IntoIterator<Item = Result<PreparedDocument>>,
    {
        self.commit_with_progress(documents, tag, &bryo_compare::Silent)
    }

    /// [`commit`](Self::commit), watched: the index stage writes the
    /// segment (its work is the number of postings, done at once).
    pub fn commit_with_progress<I>(
        &mut self,
        documents: I,
        tag: &str,
        progress: &dyn bryo_compare::Progress,
    ) -> Result<AddSummary>
    where
        I: IntoIterator<Item = Result<PreparedDocument>>,
    {
        let key = self.settings.key();
        let dir = self.dir.clone();
        let db = |source| IndexError::Catalog {
            dir: dir.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        clean_leftovers(&self.dir, &tx)?;
        tx.execute_batch(
            "DROP TABLE IF EXISTS temp.staged;
             CREATE TEMP TABLE staged (
                 seq INTEGER PRIMARY KEY, language TEXT NOT NULL, frontend TEXT NOT NULL,
                 fallback TEXT, notes TEXT NOT NULL, symbols INTEGER NOT NULL,
                 source_bytes INTEGER NOT NULL, lines INTEGER NOT NULL, encoding TEXT NOT NULL,
                 fingerprints INTEGER NOT NULL, raw_fingerprint INTEGER NOT NULL,
                 normalized_fingerprint INTEGER NOT NULL, stream_checksum INTEGER NOT NULL,
                 stream BLOB NOT NULL, source BLOB NOT NULL);",
        )
        .map_err(db)?;
        let mut summary = AddSummary::default();
        // (submission, path) of each staged document, by staging number.
        let mut staged: Vec<(String, String)> = Vec::new();
        let mut paths: HashSet<String> = HashSet::new();
        // Postings with the staging number as `doc` until ids are given.
        let mut postings: Vec<Posting> = Vec::new();
        {
            let mut stage = tx
                .prepare(
                    "INSERT INTO temp.staged VALUES
                     (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                )
                .map_err(db)?;
            for document in documents {
                let d = document?;
                if d.settings != key {
                    return Err(IndexError::Mismatch {
                        dir: self.dir.clone(),
                        what: "settings",
                        stored: key,
                        wanted: format!("{} (document {} was prepared with)", d.settings, d.path),
                    });
                }
                if d.path.is_empty() || d.submission.is_empty() {
                    return Err(IndexError::Prepared(format!(
                        "a document without a path or submission name (path `{}`, submission `{}`)",
                        d.path, d.submission
                    )));
                }
                if !paths.insert(d.path.clone()) {
                    return Err(IndexError::Prepared(format!(
                        "{}: given twice (a path names one document)",
                        d.path
                    )));
                }
                let data = match d.content {
                    Ok(data) => data,
                    Err(reason) => {
                        summary.skipped.push((d.path, reason));
                        continue;
                    }
                };
                let seq = u32::try_from(staged.len()).map_err(|_| IndexError::Full)?;
                stage
                    .execute(params![
                        seq,
                        data.language,
                        data.frontend,
                        data.fallback,
                        data.notes,
                        data.symbols as i64,
                        data.source_bytes as i64,
                        data.lines as i64,
                        data.encoding,
                        data.fingerprints.len() as i64,
                        data.raw_fingerprint as i64,
                        data.normalized_fingerprint as i64,
                        crate::segment::checksum(&data.stream) as i64,
                        data.stream,
                        data.source,
                    ])
                    .map_err(db)?;
                summary.symbols += data.symbols;
                postings.extend(data.fingerprints.iter().map(|f| Posting {
                    hash: f.hash,
                    doc: seq,
                    pos: f.pos,
                }));
                staged.push((d.submission, d.path));
            }
        }
        // The shared-hash table before: the groups of the hashes this
        // commit touches, as the archive holds them now.
        // (An empty index holds none: nothing to look up.)
        let held_before = if segment_rows(&tx).map_err(db)?.is_empty() {
            Vec::new()
        } else {
            postings.par_sort_unstable_by_key(|p| p.hash);
            let mut touched: Vec<u64> = postings.iter().map(|p| p.hash).collect();
            touched.dedup();
            lookup_in(&self.dir, &tx, &touched)?
        };
        let rows_before = doc_rows(&tx).map_err(db)?;
        let mut next_document: u64 = meta_number(&tx, "next_document").map_err(db)?;
        let next_segment: u64 = meta_number(&tx, "next_segment").map_err(db)?;
        let mut order: Vec<usize> = (0..staged.len()).collect();
        order.sort_by(|&a, &b| staged[a].cmp(&staged[b]));
        let mut ids = vec![0u32; staged.len()];
        {
            let mut copy = tx
                .prepare(
                    "INSERT INTO documents (id, submission, path, language, frontend, fallback,
                         notes, symbols, source_bytes, lines, encoding, fingerprints,
                         raw_fingerprint, normalized_fingerprint, stream_checksum, stream, source)
                     SELECT ?1, ?2, ?3, language, frontend, fallback, notes, symbols,
                         source_bytes, lines, encoding, fingerprints, raw_fingerprint,
                         normalized_fingerprint, stream_checksum, stream, source
                     FROM temp.staged WHERE seq = ?4",
                )
                .map_err(db)?;
            let mut current: Option<(&str, i64)> = None;
            for seq in order {
                let (submission, path) = &staged[seq];
                let submission_id = match current {
                    Some((name, id)) if name == submission => id,
                    _ => {
                        tx.execute(
                            "INSERT INTO submissions (name, tag) VALUES (?1, ?2)",
                            params![submission, tag],
                        )
                        .map_err(db)?;
                        summary.submissions += 1;
                        let id = tx.last_insert_rowid();
                        current = Some((submission, id));
                        id
                    }
                };
                let doc = u32::try_from(next_document).map_err(|_| IndexError::Full)?;
                next_document += 1;
                copy.execute(params![doc, submission_id, path, seq as i64])
                    .map_err(db)?;
                ids[seq] = doc;
                summary.documents += 1;
            }
        }
        tx.execute_batch("DROP TABLE temp.staged").map_err(db)?;
        for p in &mut postings {
            p.doc = ids[p.doc as usize];
        }
        postings.par_sort_unstable();
        let mut table = read_table(&tx).map_err(db)?;
        count_groups(
            &[&held_before],
            &layout(&rows_before, &HashSet::new()),
            &mut table,
            -1,
        );
        let rows_after = doc_rows(&tx).map_err(db)?;
        count_groups(
            &[&held_before, &postings],
            &layout(&rows_after, &HashSet::new()),
            &mut table,
            1,
        );
        write_table(&tx, &table).map_err(db)?;
        progress.start(bryo_compare::Stage::Index, postings.len() as u64);
        if !postings.is_empty() {
            let written = add_segment(&self.dir, &tx, next_segment, &mut postings)?;
            summary.postings = written.postings;
            summary.segment_bytes = written.bytes;
            progress.advance(written.postings);
        }
        set_meta(&tx, "next_document", next_document).map_err(db)?;
        set_meta(&tx, "next_segment", next_segment + 1).map_err(db)?;
        tx.commit().map_err(db)?;
        summary.skipped.sort();
        Ok(summary)
    }

    /// Removes every submission with this tag; returns the documents
    /// removed. Their postings stay in the segments, ignored, until
    /// [`Index::compact`].
    pub fn remove_tag(&mut self, tag: &str) -> Result<u64> {
        let dir = self.dir.clone();
        let db = |source| IndexError::Catalog {
            dir: dir.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        let removed = ids_where(
            &tx,
            "SELECT id FROM documents WHERE submission IN (SELECT id FROM submissions WHERE tag = ?1)",
            tag,
        )
        .map_err(db)?;
        uncount(&self.dir, &tx, &self.settings, &removed)?;
        let n = tx
            .execute(
                "DELETE FROM documents WHERE submission IN (SELECT id FROM submissions WHERE tag = ?1)",
                [tag],
            )
            .map_err(db)?;
        let subs = tx
            .execute("DELETE FROM submissions WHERE tag = ?1", [tag])
            .map_err(db)?;
        if subs == 0 {
            return Err(IndexError::NothingToRemove(format!(
                "no submission has the tag `{tag}`"
            )));
        }
        tx.commit().map_err(db)?;
        Ok(n as u64)
    }

    /// Removes the documents with this display path (as listed by `add`,
    /// e.g. `subs/alice/main.py`), and submissions left empty; returns the
    /// documents removed.
    pub fn remove_document(&mut self, path: &str) -> Result<u64> {
        let dir = self.dir.clone();
        let db = |source| IndexError::Catalog {
            dir: dir.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        let removed =
            ids_where(&tx, "SELECT id FROM documents WHERE path = ?1", path).map_err(db)?;
        uncount(&self.dir, &tx, &self.settings, &removed)?;
        let n = tx
            .execute("DELETE FROM documents WHERE path = ?1", [path])
            .map_err(db)?;
        if n == 0 {
            return Err(IndexError::NothingToRemove(format!(
                "no document has the path `{path}`"
            )));
        }
        tx.execute(
            "DELETE FROM submissions WHERE id NOT IN (SELECT DISTINCT submission FROM documents)",
            [],
        )
        .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(n as u64)
    }

    /// Merges every segment into one, dropping the postings of removed
    /// documents. The new segment is written first and switched in by one
    /// transaction; the old files are deleted after it (an interrupted
    /// compaction leaves either the old or the new segments, and stray
    /// files that the next writer deletes).
    pub fn compact(&mut self) -> Result<CompactSummary> {
        let dir = self.dir.clone();
        let db = |source| IndexError::Catalog {
            dir: dir.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        clean_leftovers(&self.dir, &tx)?;
        let rows = segment_rows(&tx).map_err(db)?;
        let live = live_documents(&tx).map_err(db)?;
        let mut summary = CompactSummary {
            segments_before: rows.len() as u64,
            ..CompactSummary::default()
        };
        let mut postings = Vec::new();
        for row in &rows {
            let segment = Segment::open(&segment_path(&dir, &row.file), row.bytes, row.checksum)?;
            let all = segment.read_all()?;
            if all.len() as u64 != row.postings {
                return Err(IndexError::CorruptSegment {
                    path: segment_path(&dir, &row.file),
                    reason: format!(
                        "{} postings, the catalogue recorded {}",
                        all.len(),
                        row.postings
                    ),
                });
            }
            postings.extend(all.into_iter().filter(|p| live.contains(&p.doc)));
        }
        let total: u64 = rows.iter().map(|r| r.postings).sum();
        summary.postings = postings.len() as u64;
        summary.postings_dropped = total - summary.postings;
        if rows.len() <= 1 && summary.postings_dropped == 0 {
            summary.segments_after = rows.len() as u64;
            return Ok(summary);
        }
        let next_segment: u64 = meta_number(&tx, "next_segment").map_err(db)?;
        tx.execute("DELETE FROM segments", []).map_err(db)?;
        if !postings.is_empty() {
            add_segment(&dir, &tx, next_segment, &mut postings)?;
            summary.segments_after = 1;
        }
        set_meta(&tx, "next_segment", next_segment + 1).map_err(db)?;
        tx.commit().map_err(db)?;
        for row in rows {
            // Best effort: a file left behind is deleted by the next writer.
            let _ = std::fs::remove_file(segment_path(&dir, &row.file));
        }
        Ok(summary)
    }

    /// What the index holds.
    pub fn info(&self) -> Result<IndexInfo> {
        let db = self.db();
        let (submissions, documents, symbols, source_bytes): (i64, i64, i64, i64) = self
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM submissions), count(*), coalesce(sum(symbols), 0),
                        coalesce(sum(source_bytes), 0) FROM documents",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .map_err(&db)?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT s.tag, count(DISTINCT s.id), count(d.id), coalesce(sum(d.symbols), 0)
                 FROM submissions s LEFT JOIN documents d ON d.submission = s.id
                 GROUP BY s.tag ORDER BY s.tag",
            )
            .map_err(&db)?;
        let tags = stmt
            .query_map([], |r| {
                Ok(TagInfo {
                    tag: r.get(0)?,
                    submissions: r.get::<_, i64>(1)? as u64,
                    documents: r.get::<_, i64>(2)? as u64,
                    symbols: r.get::<_, i64>(3)? as u64,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(&db)?;
        let rows = segment_rows(&self.conn).map_err(&db)?;
        let catalog_bytes = std::fs::metadata(self.dir.join(CATALOG_FILE))
            .map(|m| m.len())
            .unwrap_or(0);
        Ok(IndexInfo {
            settings: self.settings,
            submissions: submissions as u64,
            documents: documents as u64,
            symbols: symbols as u64,
            source_bytes: source_bytes as u64,
            tags,
            segments: rows.len() as u64,
            postings: rows.iter().map(|r| r.postings).sum(),
            segment_bytes: rows.iter().map(|r| r.bytes).sum(),
            catalog_bytes,
        })
    }

    /// A preparer of documents under the index's settings
    /// ([`Index::commit`] stores what it makes).
    pub fn preparer(&self) -> Result<Preparer> {
        Preparer::new(self.settings)
    }

    /// Every live archived document in id order with its source bytes as
    /// read, each checked against its stored fingerprint (for tools that
    /// read the segments themselves: join their `doc` with
    /// [`ArchivedDocument::doc`]).
    pub fn documents(&self) -> Result<Vec<ArchivedDocument>> {
        let db = self.db();
        let mut stmt = self
            .conn
            .prepare(
                "SELECT d.id, d.path, s.name, s.tag, d.symbols, d.raw_fingerprint, d.source,
                        d.normalized_fingerprint
                 FROM documents d JOIN submissions s ON d.submission = s.id
                 ORDER BY d.id",
            )
            .map_err(&db)?;
        type Row = (u32, String, String, String, i64, i64, Vec<u8>, i64);
        let rows: Vec<Row> = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })
            .and_then(|rows| rows.collect())
            .map_err(&db)?;
        let fingerprinter = FileFingerprinter::new();
        rows.into_par_iter()
            .map(
                |(doc, path, submission, tag, symbols, raw, source, normalized)| {
                    let corrupt = |reason: String| IndexError::CorruptDocument {
                        path: path.clone(),
                        reason,
                    };
                    let source = decompress(&source).map_err(corrupt)?;
                    if fingerprinter.raw(&source) != raw as u64 {
                        return Err(corrupt("the source's fingerprint differs".to_string()));
                    }
                    Ok(ArchivedDocument {
                        doc,
                        path,
                        submission,
                        tag,
                        symbols: symbols as u64,
                        normalized_fingerprint: normalized as u64,
                        source,
                    })
                },
            )
            .collect()
    }

    /// The segment files the catalogue lists, in the order they were
    /// written, each checked against its recorded size and checksum (for
    /// tools that read the Parquet files themselves; postings of removed
    /// documents stay in them until [`Index::compact`]).
    pub fn segment_files(&self) -> Result<Vec<PathBuf>> {
        let rows = segment_rows(&self.conn).map_err(self.db())?;
        let dir = &self.dir;
        rows.par_iter()
            .map(|row| {
                let path = segment_path(dir, &row.file);
                Segment::open(&path, row.bytes, row.checksum)?;
                Ok(path)
            })
            .collect()
    }

    /// Every posting of a live document whose hash is in `hashes` (any
    /// order, duplicates allowed), sorted; only row groups whose hash
    /// range holds one are read. Every segment is checked against its
    /// recorded size and checksum first.
    pub fn lookup(&self, hashes: &[u64]) -> Result<Vec<Posting>> {
        lookup_in(&self.dir, &self.conn, hashes)
    }

    /// The index as the archive of [`bryo_compare::compare_against`]:
    /// compared with new submissions, it is read in part — its catalogue,
    /// its shared-hash table, the postings of the hashes the new files
    /// hold, and the archived submissions of the pairs chosen — in one
    /// snapshot of the catalogue.
    pub fn archive(&self) -> Result<crate::IndexArchive> {
        crate::IndexArchive::open(&self.dir)
    }

    /// The archive's shared-hash table as stored: for every hash that at
    /// least two live archived submissions hold, counted per `(submissions,
    /// distinct submissions)` — the latter holding it in a document that
    /// is the first with its symbols in the archive's order — the number
    /// of such hashes and their occurrences, sorted. `add` and `remove`
    /// keep it current; a query against the index reads it instead of
    /// every posting.
    pub fn shared_hashes(&self) -> Result<Vec<SharedHashes>> {
        let table = read_table(&self.conn).map_err(self.db())?;
        Ok(shared_rows(&table))
    }

    /// [`shared_hashes`](Self::shared_hashes) counted again from every
    /// posting of every segment (for checks: the two must be equal).
    pub fn shared_hashes_recounted(&self) -> Result<Vec<SharedHashes>> {
        let db = self.db();
        let rows = segment_rows(&self.conn).map_err(&db)?;
        let mut postings: Vec<Posting> = Vec::new();
        for row in &rows {
            let segment =
                Segment::open(&segment_path(&self.dir, &row.file), row.bytes, row.checksum)?;
            postings.extend(segment.read_all()?);
        }
        postings.par_sort_unstable();
        let docs = doc_rows(&self.conn).map_err(&db)?;
        let mut table = SharedTable::new();
        count_groups(&[&postings], &layout(&docs, &HashSet::new()), &mut table, 1);
        Ok(shared_rows(&table))
    }

    /// For every hash of `hashes` (any order, duplicates allowed) that a
    /// live archived document holds, the number of distinct archived
    /// submissions holding it, sorted by hash: the archive's share of the
    /// count MOSS's rule `-m N` compares with `N`. Read from the postings
    /// of these hashes alone ([`Index::lookup`]).
    pub fn submission_counts(&self, hashes: &[u64]) -> Result<Vec<(u64, u32)>> {
        let postings = self.lookup(hashes)?;
        let owner = document_submissions(&self.conn).map_err(self.db())?;
        Ok(submissions_per_hash(
            postings
                .iter()
                .filter_map(|p| owner.get(&p.doc).map(|&s| (p.hash, s))),
        ))
    }

    /// The part of the archive that comparing new submissions under MOSS's
    /// rule `-m max_submissions` needs, found without reading the others.
    ///
    /// `new` holds the new submissions' files, submission by submission;
    /// they are fingerprinted with the index's settings. A hash is
    /// *common* when more than `max_submissions` submissions hold it,
    /// archived ones ([`Index::submission_counts`]) and new ones together
    /// (never when `max_submissions` is 0). Loaded are the archived
    /// submissions that share a hash that is not common with a new file
    /// (found with [`Index::lookup`]), or hold a file with the same symbols
    /// as one of them (by normalized Rabin fingerprint: files too short for
    /// a fingerprint can still make two submissions identical); `excluded`
    /// lists every common hash of the new and the loaded files.
    ///
    /// Matching the new submissions with `archived` as old ones, with
    /// `excluded` given to bryo-match's `Corpus::exclude_hashes`, finds
    /// the same pairs, fragments, scores and clusters as matching them with
    /// the whole archive: a submission left out shares only common hashes
    /// with the new ones, so it forms no pair, and it changes the others
    /// only through the number of submissions holding one of their hashes,
    /// which `excluded` accounts for (a hash a new file holds that is not
    /// common has every archived holder loaded, and the matcher counts it
    /// itself). The report's statistics over the whole corpus (files,
    /// fingerprints, common hashes, duplicate files) are not covered, nor
    /// base code (its regions are marked in every archived file), the
    /// default rarity rule, whose thresholds count the whole corpus, or
    /// defaults chosen from the corpus's majority front-end kind (give a
    /// language, as an index made with one does).
    pub fn related(&self, new: &[&[Analyzed]], max_submissions: usize) -> Result<Related> {
        let proto = Fingerprinter::new(
            self.settings.config,
            HashFunction::KarpRabin,
            Selection::RobustWinnow,
        )
        .map_err(|e| IndexError::Settings(e.to_string()))?;
        // The distinct hashes of some files.
        let hashes_of = |files: &[&Analyzed]| -> Result<Vec<u64>> {
            let held: Vec<Vec<u64>> = files
                .par_iter()
                .map_init(
                    || proto.clone(),
                    |fp, f| {
                        fp.fingerprint_symbols(&f.normalized.symbols)
                            .map(|prints| prints.iter().map(|p| p.hash).collect())
                            .map_err(|e| IndexError::Settings(e.to_string()))
                    },
                )
                .collect::<Result<_>>()?;
            let mut held: Vec<u64> = held.into_iter().flatten().collect();
            held.sort_unstable();
            held.dedup();
            Ok(held)
        };
        // New submissions per hash.
        let mut new_held: Vec<(u64, usize)> = Vec::new();
        for (i, files) in new.iter().enumerate() {
            let files: Vec<&Analyzed> = files.iter().collect();
            new_held.extend(hashes_of(&files)?.into_iter().map(|h| (h, i)));
        }
        let new_counts: BTreeMap<u64, u32> = submissions_per_hash(new_held.into_iter())
            .into_iter()
            .collect();
        let new_hashes: Vec<u64> = new_counts.keys().copied().collect();
        let limit = match max_submissions {
            0 => u64::MAX,
            m => m as u64,
        };
        let common = |hash: u64, archived: u32| {
            u64::from(archived) + u64::from(new_counts.get(&hash).copied().unwrap_or(0)) > limit
        };
        let db = self.db();
        let owner = document_submissions(&self.conn).map_err(&db)?;
        let postings = self.lookup(&new_hashes)?;
        let archived_counts: BTreeMap<u64, u32> = submissions_per_hash(
            postings
                .iter()
                .filter_map(|p| owner.get(&p.doc).map(|&s| (p.hash, s))),
        )
        .into_iter()
        .collect();
        let mut documents: HashSet<u32> = postings
            .iter()
            .filter(|p| !common(p.hash, archived_counts.get(&p.hash).copied().unwrap_or(0)))
            .map(|p| p.doc)
            .collect();
        // An empty file makes no two submissions identical.
        let fingerprinter = FileFingerprinter::new();
        let normalized: HashSet<u64> = new
            .iter()
            .flat_map(|files| files.iter())
            .filter(|f| !f.normalized.symbols.is_empty())
            .map(|f| fingerprinter.normalized(&f.normalized.symbols))
            .collect();
        if !normalized.is_empty() {
            let mut stmt = self
                .conn
                .prepare("SELECT id, normalized_fingerprint FROM documents")
                .map_err(&db)?;
            let rows: Vec<(u32, i64)> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .and_then(|rows| rows.collect())
                .map_err(&db)?;
            documents.extend(
                rows.into_iter()
                    .filter(|&(_, fp)| normalized.contains(&(fp as u64)))
                    .map(|(id, _)| id),
            );
        }
        let archived = self.archived_with(&documents)?;
        let mut excluded: Vec<u64> = Vec::new();
        if limit != u64::MAX {
            excluded.extend(
                new_hashes
                    .iter()
                    .filter(|&&h| common(h, archived_counts.get(&h).copied().unwrap_or(0))),
            );
            let files: Vec<&Analyzed> = archived
                .iter()
                .flat_map(|a| a.submission.files.iter().map(|(f, _)| f))
                .collect();
            excluded.extend(
                self.submission_counts(&hashes_of(&files)?)?
                    .into_iter()
                    .filter(|&(h, n)| common(h, n))
                    .map(|(h, _)| h),
            );
            excluded.sort_unstable();
            excluded.dedup();
        }
        let loaded = archived
            .iter()
            .map(|a| a.submission.files.len() as u64)
            .sum();
        Ok(Related {
            archived,
            excluded,
            documents: owner.len() as u64,
            loaded_documents: loaded,
        })
    }

    /// Every archived submission, in the order they were added, each with
    /// its files in path order, read from the stored symbol streams and
    /// sources (no file is analyzed again).
    pub fn archived(&self) -> Result<Vec<Archived>> {
        self.archived_where(None)
    }

    /// The archived submissions that hold at least one of `documents`
    /// (document ids, e.g. from [`Index::lookup`]), whole, in the order
    /// they were added.
    pub fn archived_with(&self, documents: &HashSet<u32>) -> Result<Vec<Archived>> {
        self.archived_where(Some(documents))
    }

    fn archived_where(&self, documents: Option<&HashSet<u32>>) -> Result<Vec<Archived>> {
        let db = self.db();
        let mut stmt = self
            .conn
            .prepare(
                "SELECT s.id, s.name, s.tag, d.id, d.path, d.language, d.frontend, d.fallback,
                        d.notes, d.raw_fingerprint, d.normalized_fingerprint, d.stream_checksum,
                        d.stream, d.source
                 FROM submissions s JOIN documents d ON d.submission = s.id
                 ORDER BY s.id, d.id",
            )
            .map_err(&db)?;
        type Row = (i64, String, String, u32, StoredDocument);
        let rows: Vec<Row> = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    StoredDocument::from_columns(r, 4)?,
                ))
            })
            .and_then(|rows| rows.collect())
            .map_err(&db)?;
        let wanted: Option<HashSet<i64>> = documents.map(|docs| {
            rows.iter()
                .filter(|r| docs.contains(&r.3))
                .map(|r| r.0)
                .collect()
        });
        let mut groups: Vec<(i64, String, String, Vec<StoredDocument>)> = Vec::new();
        for (sub, name, tag, _, doc) in rows {
            if wanted.as_ref().is_some_and(|w| !w.contains(&sub)) {
                continue;
            }
            match groups.last_mut() {
                Some(g) if g.0 == sub => g.3.push(doc),
                _ => groups.push((sub, name, tag, vec![doc])),
            }
        }
        groups
            .into_par_iter()
            .map(|(_, name, tag, docs)| {
                let loaded: Vec<(Analyzed, FileFingerprint, Vec<u8>)> = docs
                    .into_iter()
                    .map(StoredDocument::load)
                    .collect::<Result<_>>()?;
                let mut files = Vec::with_capacity(loaded.len());
                let mut sources = Vec::with_capacity(loaded.len());
                for (a, f, s) in loaded {
                    files.push((a, f));
                    sources.push(s);
                }
                Ok(Archived {
                    tag,
                    submission: ArchivedSubmission { name, files },
                    sources,
                })
            })
            .collect()
    }
}

/// One live archived document: [`Index::documents`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchivedDocument {
    /// Its document id (the `doc` of its postings in the segments).
    pub doc: u32,
    /// Its display path, as added.
    pub path: String,
    /// The name of its submission, as added.
    pub submission: String,
    /// The submission's tag (empty when added without one).
    pub tag: String,
    /// Its normalized symbols.
    pub symbols: u64,
    /// The Rabin fingerprint of its normalized symbols
    /// (`FileFingerprinter::normalized`): documents with the same symbols
    /// have the same one.
    pub normalized_fingerprint: u64,
    /// Its source bytes as read.
    pub source: Vec<u8>,
}

/// What [`Index::related`] found: the archived submissions a query under
/// MOSS's rule needs and the hashes common in the whole archive.
#[derive(Clone, Debug)]
pub struct Related {
    /// The archived submissions sharing a hash that is not common, or a
    /// file's symbols, with the new ones, whole, in the order they were
    /// added.
    pub archived: Vec<Archived>,
    /// The common hashes of the new and the loaded files: held by more
    /// submissions than the limit, archived and new ones together; sorted.
    pub excluded: Vec<u64>,
    /// Live documents in the archive.
    pub documents: u64,
    /// Documents of `archived`.
    pub loaded_documents: u64,
}

/// Input bytes analyzed per batch of `add`.
const BATCH_BYTES: usize = 32 << 20;

/// `jobs` cut into batches of about [`BATCH_BYTES`] of input (at least
/// one file each, and enough files to keep every thread busy).
fn batches<'a, T>(
    jobs: &'a [(T, &bryo_input::InputFile)],
) -> Vec<&'a [(T, &'a bryo_input::InputFile)]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, (_, file)) in jobs.iter().enumerate() {
        bytes += file.bytes.len();
        if bytes >= BATCH_BYTES {
            out.push(&jobs[start..=i]);
            start = i + 1;
            bytes = 0;
        }
    }
    if start < jobs.len() {
        out.push(&jobs[start..]);
    }
    out
}

pub(crate) struct StoredDocument {
    path: String,
    language: String,
    frontend: String,
    fallback: Option<String>,
    notes: String,
    raw: u64,
    normalized: u64,
    stream_checksum: u64,
    stream: Vec<u8>,
    source: Vec<u8>,
}

impl StoredDocument {
    /// A row of `path, language, frontend, fallback, notes,
    /// raw_fingerprint, normalized_fingerprint, stream_checksum, stream,
    /// source`.
    pub(crate) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredDocument> {
        StoredDocument::from_columns(r, 0)
    }

    /// Those ten columns from column `first` of a row on.
    fn from_columns(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<StoredDocument> {
        Ok(StoredDocument {
            path: r.get(first)?,
            language: r.get(first + 1)?,
            frontend: r.get(first + 2)?,
            fallback: r.get(first + 3)?,
            notes: r.get(first + 4)?,
            raw: r.get::<_, i64>(first + 5)? as u64,
            normalized: r.get::<_, i64>(first + 6)? as u64,
            stream_checksum: r.get::<_, i64>(first + 7)? as u64,
            stream: r.get(first + 8)?,
            source: r.get(first + 9)?,
        })
    }

    /// The analyzed file back, every part checked against its recorded
    /// fingerprint.
    pub(crate) fn load(self) -> Result<(Analyzed, FileFingerprint, Vec<u8>)> {
        let corrupt = |reason: String| IndexError::CorruptDocument {
            path: self.path.clone(),
            reason,
        };
        let fingerprinter = FileFingerprinter::new();
        if crate::segment::checksum(&self.stream) != self.stream_checksum {
            return Err(corrupt("the symbol stream's checksum differs".to_string()));
        }
        let normalized = decode_stream(&self.stream).map_err(&corrupt)?;
        if fingerprinter.normalized(&normalized.symbols) != self.normalized {
            return Err(corrupt("the symbols' fingerprint differs".to_string()));
        }
        let bytes = decompress(&self.source).map_err(&corrupt)?;
        if fingerprinter.raw(&bytes) != self.raw {
            return Err(corrupt("the source's fingerprint differs".to_string()));
        }
        let decoded = decode(&bytes)
            .map_err(|e| corrupt(format!("the source does not decode: {e}")))?
            .into_owned();
        let text_len = decoded.text().len();
        if normalized
            .spans
            .iter()
            .any(|s| s.start > s.end || s.end as usize > text_len)
        {
            return Err(corrupt("a span lies outside the text".to_string()));
        }
        let language = Language::by_name(&self.language)
            .ok_or_else(|| corrupt(format!("unknown language `{}`", self.language)))?;
        let frontend = frontend_named(&self.frontend)
            .ok_or_else(|| corrupt(format!("unknown front-end `{}`", self.frontend)))?;
        let lines = LineIndex::new(decoded.text().as_bytes());
        let notes = if self.notes.is_empty() {
            Vec::new()
        } else {
            self.notes.split('\n').map(str::to_string).collect()
        };
        let analyzed = Analyzed {
            text_ranks: normalized.text_ranks(),
            path: self.path,
            decoded,
            language,
            frontend,
            fallback: self.fallback,
            notes,
            normalized: normalized.into(),
            lines,
        };
        let fp = FileFingerprint {
            raw: self.raw,
            normalized: self.normalized,
        };
        Ok((analyzed, fp, bytes))
    }
}

/// The front-end a catalogue names (`DocumentData::frontend`).
pub(crate) fn frontend_named(name: &str) -> Option<Frontend> {
    match name {
        "lexer" => Some(Frontend::Lexer),
        "tree-sitter" => Some(Frontend::TreeSitter),
        "text" => Some(Frontend::Text),
        "html" => Some(Frontend::Html),
        _ => None,
    }
}

/// Sorts `postings`, writes them as segment number `number` (under a fresh
/// name), makes the file's directory entry durable and records it in the
/// catalogue inside `tx`: the segment counts once `tx` commits.
fn add_segment(
    dir: &Path,
    tx: &rusqlite::Transaction<'_>,
    number: u64,
    postings: &mut [Posting],
) -> Result<crate::segment::Written> {
    postings.par_sort_unstable();
    let name = format!("seg-{number:08}-{}.parquet", nonce());
    let written = write_segment(&segment_path(dir, &name), postings)?;
    sync_dir(&dir.join(SEGMENTS_DIR))?;
    tx.execute(
        "INSERT INTO segments (file, postings, bytes, checksum) VALUES (?1, ?2, ?3, ?4)",
        params![
            name,
            written.postings as i64,
            written.bytes as i64,
            written.checksum as i64
        ],
    )
    .map_err(|source| IndexError::Catalog {
        dir: dir.to_path_buf(),
        source,
    })?;
    Ok(written)
}

fn segment_path(dir: &Path, file: &str) -> PathBuf {
    dir.join(SEGMENTS_DIR).join(file)
}

pub(crate) fn connect(dir: &Path) -> Result<Connection> {
    let db = |source| IndexError::Catalog {
        dir: dir.to_path_buf(),
        source,
    };
    let conn = Connection::open(dir.join(CATALOG_FILE)).map_err(db)?;
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(db)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(db)?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(db)?;
    conn.pragma_update(None, "foreign_keys", "ON").map_err(db)?;
    Ok(conn)
}

fn meta_number(conn: &Connection, key: &str) -> rusqlite::Result<u64> {
    let value: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()?;
    Ok(value.and_then(|v| v.parse().ok()).unwrap_or(0))
}

fn set_meta(conn: &Connection, key: &str, value: u64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta VALUES (?1, ?2)",
        params![key, value.to_string()],
    )
    .map(|_| ())
}

fn segment_rows(conn: &Connection) -> rusqlite::Result<Vec<SegmentRow>> {
    let mut stmt =
        conn.prepare("SELECT file, bytes, checksum, postings FROM segments ORDER BY id")?;
    let rows = stmt
        .query_map([], |r| {
            Ok(SegmentRow {
                file: r.get(0)?,
                bytes: r.get::<_, i64>(1)? as u64,
                checksum: r.get::<_, i64>(2)? as u64,
                postings: r.get::<_, i64>(3)? as u64,
            })
        })?
        .collect();
    rows
}

/// Brings a catalogue of format version 1 to version 2, in one
/// transaction: each document's lines, encoding and number of postings
/// (read from its stored source and symbols), and the shared-hash table
/// (counted from every segment).
fn upgrade_from_1(dir: &Path, conn: &mut Connection) -> Result<()> {
    let db = |source| IndexError::Catalog {
        dir: dir.to_path_buf(),
        source,
    };
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db)?;
    // Another process may have upgraded it meanwhile.
    if meta_number(&tx, "format_version").map_err(db)? != 1 {
        return Ok(());
    }
    let settings = {
        let mut stmt = tx.prepare("SELECT key, value FROM meta").map_err(db)?;
        let mut rows: BTreeMap<String, String> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect())
            .map_err(db)?;
        rows.insert(
            "format_version".to_string(),
            crate::INDEX_FORMAT_VERSION.to_string(),
        );
        IndexSettings::from_meta(dir, |k| rows.get(k).cloned())?
    };
    tx.execute_batch(
        "ALTER TABLE documents ADD COLUMN lines INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE documents ADD COLUMN encoding TEXT NOT NULL DEFAULT '';
         ALTER TABLE documents ADD COLUMN fingerprints INTEGER NOT NULL DEFAULT 0;",
    )
    .map_err(db)?;
    tx.execute_batch(SHARED_HASHES_TABLE).map_err(db)?;
    let winnower = Fingerprinter::new(
        settings.config,
        HashFunction::KarpRabin,
        Selection::RobustWinnow,
    )
    .map_err(|e| IndexError::Settings(e.to_string()))?;
    let ids: Vec<u32> = {
        let mut stmt = tx
            .prepare("SELECT id FROM documents ORDER BY id")
            .map_err(db)?;
        let ids = stmt
            .query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(db)?;
        ids
    };
    // A batch of documents at a time, loaded in parallel.
    for batch in ids.chunks(1024) {
        let stored: Vec<(u32, StoredDocument)> = {
            let mut stmt = tx
                .prepare(
                    "SELECT path, language, frontend, fallback, notes, raw_fingerprint,
                            normalized_fingerprint, stream_checksum, stream, source
                     FROM documents WHERE id = ?1",
                )
                .map_err(db)?;
            batch
                .iter()
                .map(|&id| {
                    stmt.query_row([id], StoredDocument::from_row)
                        .map(|d| (id, d))
                })
                .collect::<rusqlite::Result<_>>()
                .map_err(db)?
        };
        let facts: Vec<(u32, u64, String, u64)> = stored
            .into_par_iter()
            .map_init(
                || winnower.clone(),
                |w, (id, d)| {
                    let (a, _, _) = d.load()?;
                    let prints = w
                        .fingerprint_symbols(&a.normalized.symbols)
                        .map_err(|e| IndexError::Settings(e.to_string()))?;
                    Ok((
                        id,
                        u64::from(a.lines.line_count()),
                        a.decoded.encoding().name().to_string(),
                        prints.len() as u64,
                    ))
                },
            )
            .collect::<Result<_>>()?;
        let mut update = tx
            .prepare(
                "UPDATE documents SET lines = ?2, encoding = ?3, fingerprints = ?4 WHERE id = ?1",
            )
            .map_err(db)?;
        for (id, lines, encoding, fingerprints) in facts {
            update
                .execute(params![id, lines as i64, encoding, fingerprints as i64])
                .map_err(db)?;
        }
    }
    let mut postings: Vec<Posting> = Vec::new();
    let live = live_documents(&tx).map_err(db)?;
    for row in segment_rows(&tx).map_err(db)? {
        let segment = Segment::open(&segment_path(dir, &row.file), row.bytes, row.checksum)?;
        postings.extend(
            segment
                .read_all()?
                .into_iter()
                .filter(|p| live.contains(&p.doc)),
        );
    }
    postings.par_sort_unstable();
    let mut table = SharedTable::new();
    count_groups(
        &[&postings],
        &layout(&doc_rows(&tx).map_err(db)?, &HashSet::new()),
        &mut table,
        1,
    );
    write_table(&tx, &table).map_err(db)?;
    set_meta(
        &tx,
        "format_version",
        u64::from(crate::INDEX_FORMAT_VERSION),
    )
    .map_err(db)?;
    tx.commit().map_err(db)
}

/// Every posting of a live document whose hash is in `hashes`: see
/// [`Index::lookup`].
pub(crate) fn lookup_in(dir: &Path, conn: &Connection, hashes: &[u64]) -> Result<Vec<Posting>> {
    let query: std::borrow::Cow<'_, [u64]> = if hashes.windows(2).all(|w| w[0] < w[1]) {
        std::borrow::Cow::Borrowed(hashes)
    } else {
        let mut sorted = hashes.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        std::borrow::Cow::Owned(sorted)
    };
    let db = |source| IndexError::Catalog {
        dir: dir.to_path_buf(),
        source,
    };
    let rows = segment_rows(conn).map_err(db)?;
    if query.is_empty() || rows.is_empty() {
        return Ok(Vec::new());
    }
    let live = live_documents(conn).map_err(db)?;
    let found: Vec<Vec<Posting>> = rows
        .par_iter()
        .map(|row| {
            Segment::open(&segment_path(dir, &row.file), row.bytes, row.checksum)?.lookup(&query)
        })
        .collect::<Result<_>>()?;
    let mut out: Vec<Posting> = found
        .into_iter()
        .flatten()
        .filter(|p| live.contains(&p.doc))
        .collect();
    out.par_sort_unstable();
    Ok(out)
}

/// The ids of the documents a query with one text parameter selects.
fn ids_where(conn: &Connection, sql: &str, value: &str) -> rusqlite::Result<HashSet<u32>> {
    let mut stmt = conn.prepare(sql)?;
    let ids = stmt.query_map([value], |r| r.get::<_, u32>(0))?.collect();
    ids
}

/// Corrects the shared-hash table for the removal of `removed`: the
/// hashes of the removed documents, and of the documents that become the
/// first with their symbols, counted before and after.
fn uncount(
    dir: &Path,
    conn: &Connection,
    settings: &IndexSettings,
    removed: &HashSet<u32>,
) -> Result<()> {
    let db = |source| IndexError::Catalog {
        dir: dir.to_path_buf(),
        source,
    };
    let rows = doc_rows(conn).map_err(db)?;
    let before = layout(&rows, &HashSet::new());
    let after = layout(&rows, removed);
    let mut docs: Vec<u32> = removed.iter().copied().collect();
    docs.extend(
        after
            .iter()
            .filter(|(id, place)| before.get(id).is_some_and(|b| b.1 != place.1))
            .map(|(&id, _)| id),
    );
    let hashes = stored_hashes(dir, conn, settings, &docs)?;
    let held = lookup_in(dir, conn, &hashes)?;
    let mut table = read_table(conn).map_err(db)?;
    count_groups(&[&held], &before, &mut table, -1);
    count_groups(&[&held], &after, &mut table, 1);
    write_table(conn, &table).map_err(db)
}

/// The selected hashes of stored documents, fingerprinted again from their
/// symbol streams (checked against their checksums).
fn stored_hashes(
    dir: &Path,
    conn: &Connection,
    settings: &IndexSettings,
    docs: &[u32],
) -> Result<Vec<u64>> {
    let db = |source| IndexError::Catalog {
        dir: dir.to_path_buf(),
        source,
    };
    let mut stmt = conn
        .prepare("SELECT path, stream, stream_checksum FROM documents WHERE id = ?1")
        .map_err(db)?;
    let mut streams: Vec<(String, Vec<u8>, u64)> = Vec::with_capacity(docs.len());
    for &doc in docs {
        let row: (String, Vec<u8>, i64) = stmt
            .query_row([doc], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(db)?;
        streams.push((row.0, row.1, row.2 as u64));
    }
    let winnower = Fingerprinter::new(
        settings.config,
        HashFunction::KarpRabin,
        Selection::RobustWinnow,
    )
    .map_err(|e| IndexError::Settings(e.to_string()))?;
    let hashes: Vec<Vec<u64>> = streams
        .into_par_iter()
        .map_init(
            || winnower.clone(),
            |w, (path, stream, sum)| {
                let corrupt = |reason: String| IndexError::CorruptDocument {
                    path: path.clone(),
                    reason,
                };
                if crate::segment::checksum(&stream) != sum {
                    return Err(corrupt("the symbol stream's checksum differs".to_string()));
                }
                let normalized = decode_stream(&stream).map_err(corrupt)?;
                let prints = w
                    .fingerprint_symbols(&normalized.symbols)
                    .map_err(|e| IndexError::Settings(e.to_string()))?;
                Ok(prints.iter().map(|p| p.hash).collect())
            },
        )
        .collect::<Result<_>>()?;
    let mut out: Vec<u64> = hashes.into_iter().flatten().collect();
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The table as sorted rows.
pub(crate) fn shared_rows(table: &SharedTable) -> Vec<SharedHashes> {
    table
        .iter()
        .map(
            |(&(submissions, distinct), &(hashes, occurrences))| SharedHashes {
                submissions,
                distinct,
                hashes: hashes as u64,
                occurrences: occurrences as u64,
            },
        )
        .collect()
}

/// For every hash of `(hash, submission)` pairs, the number of distinct
/// submissions, sorted by hash.
fn submissions_per_hash<S: Ord>(pairs: impl Iterator<Item = (u64, S)>) -> Vec<(u64, u32)> {
    let mut pairs: Vec<(u64, S)> = pairs.collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut out: Vec<(u64, u32)> = Vec::new();
    for (hash, _) in pairs {
        match out.last_mut() {
            Some(last) if last.0 == hash => last.1 += 1,
            _ => out.push((hash, 1)),
        }
    }
    out
}

/// The submission of every live document.
fn document_submissions(
    conn: &Connection,
) -> rusqlite::Result<std::collections::HashMap<u32, i64>> {
    let mut stmt = conn.prepare("SELECT id, submission FROM documents")?;
    let ids = stmt
        .query_map([], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?)))?
        .collect();
    ids
}

fn live_documents(conn: &Connection) -> rusqlite::Result<HashSet<u32>> {
    let mut stmt = conn.prepare("SELECT id FROM documents")?;
    let ids = stmt.query_map([], |r| r.get::<_, u32>(0))?.collect();
    ids
}

/// Deletes files in the segments directory that the catalogue does not
/// list: segments of an interrupted `add` or `compact`. Called inside a
/// write transaction, so no other writer is between writing a segment and
/// committing it.
fn clean_leftovers(dir: &Path, conn: &Connection) -> Result<()> {
    let listed: HashSet<String> = segment_rows(conn)
        .map_err(|source| IndexError::Catalog {
            dir: dir.to_path_buf(),
            source,
        })?
        .into_iter()
        .map(|r| r.file)
        .collect();
    let segments = dir.join(SEGMENTS_DIR);
    let entries = std::fs::read_dir(&segments).map_err(|source| IndexError::Io {
        path: segments.clone(),
        source,
    })?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("seg-") && !listed.contains(&name) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Makes a new directory entry durable.
fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        })
}

/// A name part unlikely to repeat: the process id and the clock.
fn nonce() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:08x}", std::process::id(), nanos as u32)
}
