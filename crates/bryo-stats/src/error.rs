/// Everything that can go wrong while reading a corpus and counting hashes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The memory budget allows no entry at all.
    #[error("the counting budget must allow at least one entry")]
    ZeroBudget,
    /// Writing or reading a spilled run of counts failed.
    #[error("spill file in {dir}: {source}")]
    Spill {
        /// The folder holding the spill files.
        dir: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A spill file ended in the middle of a record.
    #[error("spill file in {0} is truncated")]
    TruncatedSpill(String),
    /// Reading a file failed after part of it was hashed (a file that
    /// cannot be read at all is skipped, not an error).
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The engine refused an option or an input.
    #[error(transparent)]
    Engine(#[from] bryo_engine::Error),
    /// The memory budget for counting, split between the threads, gives a
    /// thread no entry.
    #[error("the memory for counting is too small for {threads} threads")]
    MemoryTooSmall {
        /// Threads sharing the budget.
        threads: usize,
    },
    /// A worker thread panicked.
    #[error("a worker thread failed")]
    WorkerPanicked,
}
