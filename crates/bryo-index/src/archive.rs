//! The index as the archive of a streamed comparison
//! ([`bryo_compare::compare_against`]): read in part, in one snapshot.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bryo_compare::{
    Analyzed, Archive, ArchivedEntry, ArchivedKey, CompareError, FileFingerprint, SharedHashes,
};
use bryo_report::{FileEntry, FileStatus, Submission};
use rusqlite::Connection;

use crate::error::{IndexError, Result};
use crate::index::{connect, frontend_named, lookup_in, StoredDocument};
use crate::shared::read_table;

/// How a report marks what comes from the archive: ` [TAG]` after the
/// names of archived submissions and files (` [archive]` without a tag),
/// so that they differ from new ones of the same name. The mark goes last
/// because the terminal table shortens names from the left.
pub fn archive_label(tag: &str) -> String {
    if tag.is_empty() {
        "[archive]".to_string()
    } else {
        format!("[{tag}]")
    }
}

/// An index opened as a [`bryo_compare::Archive`]: [`Index::archive`].
///
/// Every read sees the catalogue as it was when it was opened (one read
/// transaction). Archived submissions and files are named with
/// [`archive_label`].
///
/// [`Index::archive`]: crate::Index::archive
#[derive(Debug)]
pub struct IndexArchive {
    dir: PathBuf,
    conn: Mutex<Connection>,
    /// Per archived submission (archive order): its id and its label.
    subs: Mutex<Vec<(i64, String)>>,
    /// Catalogue id → archive number of every listed document.
    numbers: Mutex<HashMap<u32, u32>>,
}

impl IndexArchive {
    pub(crate) fn open(dir: &Path) -> Result<IndexArchive> {
        let conn = connect(dir)?;
        // One snapshot for every read: a deferred transaction reads
        // the catalogue as it is at its first read.
        conn.execute_batch("BEGIN")
            .map_err(|source| IndexError::Catalog {
                dir: dir.to_path_buf(),
                source,
            })?;
        Ok(IndexArchive {
            dir: dir.to_path_buf(),
            conn: Mutex::new(conn),
            subs: Mutex::new(Vec::new()),
            numbers: Mutex::new(HashMap::new()),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fail(&self, e: impl std::fmt::Display) -> CompareError {
        CompareError::Archive(format!("index {}: {e}", self.dir.display()))
    }
}

impl IndexArchive {
    /// The number of archived submissions [`Archive::submissions`] listed
    /// (0 before it is called).
    pub fn submission_count(&self) -> usize {
        self.subs.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The source bytes of archived submission `submission` (a position in
    /// [`Archive::submissions`], which must have been read first), with
    /// the labelled paths of its file entries, in their order: what a
    /// renderer that shows the text needs of the archived side of a pair.
    pub fn sources(&self, submission: usize) -> Result<Vec<(String, Vec<u8>)>> {
        self.stored(submission)?
            .into_iter()
            .map(|(label, d)| {
                let (a, _, bytes) = d.load()?;
                Ok((format!("{} {label}", a.path), bytes))
            })
            .collect()
    }

    /// The stored documents of archived submission `submission`, each with
    /// the submission's label.
    fn stored(&self, submission: usize) -> Result<Vec<(String, StoredDocument)>> {
        let (id, label) = self
            .subs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(submission)
            .cloned()
            .ok_or_else(|| {
                IndexError::Settings(format!(
                    "no archived submission {submission} (list the submissions first)"
                ))
            })?;
        let conn = self.conn();
        let db = |source| IndexError::Catalog {
            dir: self.dir.clone(),
            source,
        };
        let mut stmt = conn
            .prepare(
                "SELECT path, language, frontend, fallback, notes, raw_fingerprint,
                        normalized_fingerprint, stream_checksum, stream, source
                 FROM documents WHERE submission = ?1 ORDER BY id",
            )
            .map_err(db)?;
        let rows = stmt
            .query_map([id], StoredDocument::from_row)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(db)?;
        Ok(rows.into_iter().map(|d| (label.clone(), d)).collect())
    }
}

impl Archive for IndexArchive {
    fn submissions(&self) -> std::result::Result<Vec<ArchivedEntry>, CompareError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT s.id, s.name, s.tag, d.id, d.path, d.language, d.frontend, d.fallback,
                        d.notes, d.symbols, d.lines, d.encoding, d.fingerprints,
                        d.raw_fingerprint, d.normalized_fingerprint
                 FROM submissions s JOIN documents d ON d.submission = s.id
                 ORDER BY s.id, d.id",
            )
            .map_err(|e| self.fail(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.fail(e))?;
        let mut entries: Vec<ArchivedEntry> = Vec::new();
        let mut subs: Vec<(i64, String)> = Vec::new();
        let mut numbers: HashMap<u32, u32> = HashMap::new();
        while let Some(r) = rows.next().map_err(|e| self.fail(e))? {
            let row = || -> rusqlite::Result<_> {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, u32>(3)?,
                    r.get::<_, String>(4)?,
                    (r.get::<_, String>(5)?, r.get::<_, String>(6)?),
                    (r.get::<_, Option<String>>(7)?, r.get::<_, String>(8)?),
                    (r.get::<_, i64>(9)?, r.get::<_, i64>(10)?),
                    (r.get::<_, String>(11)?, r.get::<_, i64>(12)?),
                    (r.get::<_, i64>(13)?, r.get::<_, i64>(14)?),
                ))
            };
            let (
                sub,
                name,
                tag,
                doc,
                path,
                (language, front),
                (fallback, notes),
                (symbols, lines),
                (encoding, fingerprints),
                (raw, normalized),
            ) = row().map_err(|e| self.fail(e))?;
            let frontend = frontend_named(&front).ok_or_else(|| {
                self.fail(format!(
                    "{path}: unknown front-end `{front}` in the catalogue"
                ))
            })?;
            if subs.last().is_none_or(|s| s.0 != sub) {
                let label = archive_label(&tag);
                entries.push(ArchivedEntry {
                    entry: Submission {
                        name: format!("{name} {label}"),
                        old: true,
                        files: Vec::new(),
                    },
                    documents: Vec::new(),
                });
                subs.push((sub, label));
            }
            let label = &subs.last().expect("pushed above").1;
            let entry = entries.last_mut().expect("pushed above");
            numbers.insert(doc, numbers.len() as u32);
            entry.entry.files.push(FileEntry {
                path: format!("{path} {label}"),
                language,
                frontend,
                symbols: symbols as u64,
                lines: lines as u64,
                status: match fallback {
                    None => FileStatus::Ok,
                    Some(reason) => FileStatus::Fallback { reason },
                },
                encoding,
                notes: if notes.is_empty() {
                    Vec::new()
                } else {
                    notes.split('\n').map(str::to_string).collect()
                },
                base_code: Vec::new(),
                raw_fingerprint: Some(format!("{:016x}", raw as u64)),
                normalized_fingerprint: Some(format!("{:016x}", normalized as u64)),
            });
            entry.documents.push(ArchivedKey {
                symbols: symbols as u64,
                normalized: normalized as u64,
                fingerprints: fingerprints as u64,
            });
        }
        *self.subs.lock().unwrap_or_else(|e| e.into_inner()) = subs;
        *self.numbers.lock().unwrap_or_else(|e| e.into_inner()) = numbers;
        Ok(entries)
    }

    fn shared_hashes(&self) -> std::result::Result<Vec<SharedHashes>, CompareError> {
        let table = read_table(&self.conn()).map_err(|e| self.fail(e))?;
        Ok(crate::index::shared_rows(&table))
    }

    fn lookup(&self, hashes: &[u64]) -> std::result::Result<Vec<(u64, u32)>, CompareError> {
        let postings = lookup_in(&self.dir, &self.conn(), hashes).map_err(|e| self.fail(e))?;
        let numbers = self.numbers.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<(u64, u32)> = postings
            .iter()
            .map(|p| {
                numbers.get(&p.doc).map(|&n| (p.hash, n)).ok_or_else(|| {
                    self.fail(format!(
                        "document {} has postings but no catalogue row",
                        p.doc
                    ))
                })
            })
            .collect::<std::result::Result<_, _>>()?;
        out.sort_unstable();
        Ok(out)
    }

    fn load(
        &self,
        submission: usize,
    ) -> std::result::Result<Vec<(Analyzed, FileFingerprint)>, CompareError> {
        self.stored(submission)
            .and_then(|docs| {
                docs.into_iter()
                    .map(|(label, d)| {
                        let (mut a, fp, _) = d.load()?;
                        a.path = format!("{} {label}", a.path);
                        Ok((a, fp))
                    })
                    .collect()
            })
            .map_err(|e| self.fail(e))
    }
}
