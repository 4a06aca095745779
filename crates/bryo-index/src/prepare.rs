//! Documents made ready for the catalogue, apart from writing them: the
//! analysis, fingerprints and compression of [`Index::add`], which can run
//! elsewhere (e.g. on the workers of a cluster) and be stored later by
//! [`Index::commit`].
//!
//! [`Index::add`]: crate::Index::add
//! [`Index::commit`]: crate::Index::commit

use bryo_compare::{analyze, FileFingerprinter};
use bryo_engine::{Fingerprint, Fingerprinter, HashFunction, Selection};

use crate::error::{IndexError, Result};
use crate::settings::IndexSettings;
use crate::stream::{compress, encode_stream};

/// One document as [`Index::commit`](crate::Index::commit) stores it, or
/// the reason it cannot be archived (the reason is listed in
/// [`AddSummary::skipped`](crate::AddSummary::skipped), nothing is stored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreparedDocument {
    /// The name of its submission: documents of one commit with the same
    /// name form one submission.
    pub submission: String,
    /// Its display path (unique within one commit).
    pub path: String,
    /// [`IndexSettings::key`] of the settings it was prepared under: a
    /// commit refuses documents prepared under other settings than the
    /// index's.
    pub settings: String,
    /// What is stored, or why the document is left out.
    pub content: std::result::Result<DocumentData, String>,
}

/// What the catalogue and the segment hold of one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentData {
    /// Name of the language it was analyzed as.
    pub language: String,
    /// The front-end that made its symbols (`lexer`, `tree-sitter`,
    /// `text`, `html`).
    pub frontend: String,
    /// Why the front-end fell back to another one, if it did.
    pub fallback: Option<String>,
    /// The front-end's notes, one a line.
    pub notes: String,
    /// Normalized symbols.
    pub symbols: u64,
    /// Bytes of the source as read.
    pub source_bytes: u64,
    /// Lines of the decoded text (as the report counts them).
    pub lines: u64,
    /// The character encoding the source was decoded from, e.g. `utf-8`.
    pub encoding: String,
    /// Rabin fingerprint of the source bytes.
    pub raw_fingerprint: u64,
    /// Rabin fingerprint of the normalized symbols.
    pub normalized_fingerprint: u64,
    /// The encoded, compressed symbol stream with spans.
    pub stream: Vec<u8>,
    /// The compressed source bytes.
    pub source: Vec<u8>,
    /// The selected fingerprints (the document's postings).
    pub fingerprints: Vec<Fingerprint>,
}

/// Prepares documents under an index's settings: the front-end, robust
/// winnowing and compression that [`Index::add`](crate::Index::add) runs.
/// A pure function of the settings and the bytes; cheap to clone (one per
/// thread).
#[derive(Clone, Debug)]
pub struct Preparer {
    settings: IndexSettings,
    key: String,
    winnower: Fingerprinter,
    files: FileFingerprinter,
}

impl Preparer {
    /// A preparer for documents of an index with these settings.
    pub fn new(settings: IndexSettings) -> Result<Preparer> {
        let winnower = Fingerprinter::new(
            settings.config,
            HashFunction::KarpRabin,
            Selection::RobustWinnow,
        )
        .map_err(|e| IndexError::Settings(e.to_string()))?;
        Ok(Preparer {
            settings,
            key: settings.key(),
            winnower,
            files: FileFingerprinter::new(),
        })
    }

    /// The settings documents are prepared under.
    pub fn settings(&self) -> &IndexSettings {
        &self.settings
    }

    /// Analyzes, fingerprints and compresses one file of `submission`
    /// (`path` is its display path; the language is detected from it when
    /// the settings have none). A file the front-end cannot take is
    /// returned with the reason.
    pub fn prepare(&mut self, submission: &str, path: &str, bytes: &[u8]) -> PreparedDocument {
        let content = self.data(path, bytes);
        PreparedDocument {
            submission: submission.to_string(),
            path: path.to_string(),
            settings: self.key.clone(),
            content,
        }
    }

    /// A file left out before analysis (e.g. over the size limit), with
    /// the reason.
    pub fn skipped(&self, submission: &str, path: &str, reason: String) -> PreparedDocument {
        PreparedDocument {
            submission: submission.to_string(),
            path: path.to_string(),
            settings: self.key.clone(),
            content: Err(reason),
        }
    }

    fn data(&mut self, path: &str, bytes: &[u8]) -> std::result::Result<DocumentData, String> {
        let a = analyze(path, bytes, &self.settings.analyze).map_err(|e| e.to_string())?;
        let fingerprints = self
            .winnower
            .fingerprint_symbols(&a.normalized.symbols)
            .map_err(|e| e.to_string())?;
        Ok(DocumentData {
            language: a.language.name().to_string(),
            frontend: a.frontend.as_str().to_string(),
            fallback: a.fallback,
            notes: a.notes.join("\n"),
            symbols: a.normalized.symbols.len() as u64,
            source_bytes: bytes.len() as u64,
            lines: u64::from(a.lines.line_count()),
            encoding: a.decoded.encoding().name().to_string(),
            raw_fingerprint: self.files.raw(bytes),
            normalized_fingerprint: self.files.normalized(&a.normalized.symbols),
            stream: encode_stream(&a.normalized.symbols, a.normalized.spans.iter()),
            source: compress(bytes),
            fingerprints,
        })
    }
}
