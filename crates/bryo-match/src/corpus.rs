//! The input: documents grouped into submissions.

use std::fmt;

/// Index of a document in its [`Corpus`], in the order documents were added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocId(pub u32);

/// A submission: the unit that is compared. Its documents are never compared
/// with each other. Ids are chosen by the caller and need not be dense.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SubmissionId(pub u32);

impl fmt::Display for DocId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for SubmissionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What a document is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Role {
    /// A document of a submission under examination: compared with every
    /// other current and old submission.
    #[default]
    Current,
    /// A document of a submission from an earlier term (MOSS users keep
    /// these to catch reuse): compared with current submissions, never with
    /// other old ones.
    Old,
    /// Sanctioned code, e.g. the starter code handed out with an assignment
    /// (MOSS `-b`). Every k-gram found in a base document is ignored in all
    /// other documents. Its submission id is ignored.
    Base,
}

/// One document (a file): a sequence of front-end symbols, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Document<'a> {
    /// The submission the document belongs to.
    pub submission: SubmissionId,
    /// Current, old or base.
    pub role: Role,
    /// The normalized symbols (e.g. `bryo_frontend::Normalized::symbols`).
    pub symbols: &'a [u64],
    /// The Rabin fingerprint of the symbols, `Modulus::default_64()
    /// .hash_symbols(symbols)`, if the caller already computed it (e.g. to
    /// find exact copies): documents with equal symbols are winnowed once,
    /// and this spares hashing every document a second time to find them.
    /// `None`: the matcher computes it. A wrong value never changes the
    /// result (equal documents are confirmed symbol by symbol); it only
    /// hides duplicates from the shortcut.
    pub content_fingerprint: Option<u64>,
}

impl<'a> Document<'a> {
    /// A current document of `submission`.
    pub fn new(submission: SubmissionId, symbols: &'a [u64]) -> Document<'a> {
        Document {
            submission,
            role: Role::Current,
            symbols,
            content_fingerprint: None,
        }
    }

    /// The same document with the Rabin fingerprint of its symbols (see
    /// [`Document::content_fingerprint`]).
    pub fn with_content_fingerprint(mut self, fingerprint: u64) -> Document<'a> {
        self.content_fingerprint = Some(fingerprint);
        self
    }

    /// The same document with another role.
    pub fn with_role(mut self, role: Role) -> Document<'a> {
        self.role = role;
        self
    }
}

/// The documents to compare, borrowed from the caller.
///
/// ```
/// use bryo_match::{Corpus, Document, Role, SubmissionId};
/// let (a, b, starter) = (vec![1u64, 2, 3], vec![1u64, 2, 4], vec![9u64, 9]);
/// let mut corpus = Corpus::new();
/// let first = corpus.push(Document::new(SubmissionId(0), &a));
/// corpus.push(Document::new(SubmissionId(1), &b).with_role(Role::Old));
/// corpus.push(Document::new(SubmissionId(0), &starter).with_role(Role::Base));
/// assert_eq!(first.0, 0);
/// assert_eq!(corpus.len(), 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Corpus<'a> {
    documents: Vec<Document<'a>>,
    identical: Vec<(SubmissionId, SubmissionId)>,
    /// Hashes excluded whatever their count here, sorted and distinct.
    excluded: Vec<u64>,
}

impl<'a> Corpus<'a> {
    /// An empty corpus.
    pub fn new() -> Corpus<'a> {
        Corpus::default()
    }

    /// Adds a document and returns its id.
    pub fn push(&mut self, document: Document<'a>) -> DocId {
        // `match_corpus` rejects corpora beyond u32 ids, so saturating is harmless.
        let id = DocId(u32::try_from(self.documents.len()).unwrap_or(u32::MAX));
        self.documents.push(document);
        id
    }

    /// The documents, indexed by [`DocId`].
    pub fn documents(&self) -> &[Document<'a>] {
        &self.documents
    }

    /// The document with the given id.
    pub fn get(&self, id: DocId) -> Option<&Document<'a>> {
        self.documents.get(id.0 as usize)
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether the corpus has no documents.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// Declares two submissions identical (e.g. found so by comparing whole
    /// files before any winnowing). [`match_corpus`](crate::match_corpus) reports
    /// such a pair whatever its score and joins it in a cluster; if no
    /// shared fingerprint brings the two together (all their passages
    /// shorter than `k`, base code or template), each of their documents
    /// is reported matched whole with an equal one. Pairs naming a
    /// submission without documents, or two old ones, are ignored.
    pub fn declare_identical(&mut self, a: SubmissionId, b: SubmissionId) {
        self.identical.push((a, b));
    }

    /// The pairs declared with [`Corpus::declare_identical`].
    pub fn identical_pairs(&self) -> &[(SubmissionId, SubmissionId)] {
        &self.identical
    }

    /// Excludes these fingerprint hashes as if the common-code rule had
    /// excluded them, whatever their count in this corpus: for a part of a
    /// larger corpus (e.g. one pair of a distributed job) whose rule was
    /// applied to the whole. Every selected occurrence of such a hash (in
    /// any document, shared or not) is common-covered, or left out of the
    /// totals under the rarity rule, exactly as [`CommonRule`] describes;
    /// base hashes stay base hashes. The rule still applies to the counts
    /// of this corpus on top; pass `CommonRule::MaxSubmissions(0)` to rely
    /// on these hashes alone.
    ///
    /// [`CommonRule`]: crate::CommonRule
    pub fn exclude_hashes(&mut self, hashes: impl IntoIterator<Item = u64>) {
        self.excluded.extend(hashes);
        self.excluded.sort_unstable();
        self.excluded.dedup();
    }

    /// The hashes given to [`Corpus::exclude_hashes`], sorted.
    pub fn excluded_hashes(&self) -> &[u64] {
        &self.excluded
    }
}

impl<'a> FromIterator<Document<'a>> for Corpus<'a> {
    fn from_iter<I: IntoIterator<Item = Document<'a>>>(iter: I) -> Self {
        Corpus {
            documents: iter.into_iter().collect(),
            identical: Vec::new(),
            excluded: Vec::new(),
        }
    }
}

impl<'a> Extend<Document<'a>> for Corpus<'a> {
    fn extend<I: IntoIterator<Item = Document<'a>>>(&mut self, iter: I) {
        self.documents.extend(iter);
    }
}
