//! Watching a run: stages, progress and cancellation.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// A stage of the compare pipeline, in order.
///
/// `bryo-match` runs [`Fingerprint`](Stage::Fingerprint) to
/// [`Fragments`](Stage::Fragments); the stages before and after belong to
/// the caller (`bryo-compare` discovers files, runs their front-ends and
/// builds the report) and are named here so that one [`Progress`] can watch
/// the whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Stage {
    /// Finding the files of every submission.
    Discover,
    /// Decoding files and running their front-ends.
    Analyze,
    /// Winnowing every document ([`fingerprint`](crate::fingerprint)).
    Fingerprint,
    /// Grouping fingerprints by hash, applying the base and common-code
    /// rules ([`Fingerprinted::index`](crate::Fingerprinted::index)).
    Index,
    /// Forming and ranking the candidate pairs
    /// ([`Indexed::pairs`](crate::Indexed::pairs)).
    Pairs,
    /// Exact fragments, scores and clusters of the candidates
    /// ([`Indexed::fragments`](crate::Indexed::fragments)).
    Fragments,
    /// Mapping matched symbols back to files and lines.
    Report,
}

impl Stage {
    /// The stage's name in lower case, e.g. `"fingerprint"`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Discover => "discover",
            Stage::Analyze => "analyze",
            Stage::Fingerprint => "fingerprint",
            Stage::Index => "index",
            Stage::Pairs => "pairs",
            Stage::Fragments => "fragments",
            Stage::Report => "report",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Receives the progress of a run and may cancel it: a progress bar, a
/// server's job record. Called from worker threads, so implementations
/// keep their state in atomics or locks.
///
/// Every method has a default that does nothing, so an implementation
/// overrides only what it needs.
pub trait Progress: Sync {
    /// `stage` starts; `work` units of it (documents, pairs) will be
    /// reported with [`advance`](Progress::advance), or 0 if the stage does
    /// not count its work.
    fn start(&self, stage: Stage, work: u64) {
        let _ = (stage, work);
    }

    /// `done` more units of the current stage are finished.
    fn advance(&self, done: u64) {
        let _ = done;
    }

    /// Whether the run should stop. Checked between stages and between
    /// units of work inside them; a cancelled run returns
    /// [`Error::Cancelled`](crate::Error::Cancelled) and keeps nothing.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that watches nothing and never cancels.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {}

/// A flag that cancels a run from another thread: as a [`Progress`], it
/// reports nothing and cancels once [`cancel`](Cancel::cancel) was called.
#[derive(Debug, Default)]
pub struct Cancel(AtomicBool);

impl Cancel {
    /// A flag not yet raised.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every run watched by this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`cancel`](Cancel::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl Progress for Cancel {
    fn cancelled(&self) -> bool {
        self.is_cancelled()
    }
}

/// Returns [`Error::Cancelled`](crate::Error::Cancelled) if the run should
/// stop.
pub(crate) fn check(progress: &dyn Progress) -> Result<(), crate::Error> {
    if progress.cancelled() {
        Err(crate::Error::Cancelled)
    } else {
        Ok(())
    }
}
