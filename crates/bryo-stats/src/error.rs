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
    /// The random text asked for does not fit in memory.
    #[error("cannot allocate {bytes} bytes of random text")]
    RandomTooLarge {
        /// The size asked for.
        bytes: u64,
    },
    /// A file named by the caller cannot be read (files found in a corpus
    /// are skipped instead, with the reason).
    #[error("cannot read {path}")]
    ReadFile {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The font given for the plot's labels cannot be read.
    #[error("cannot read the font {path}")]
    Font {
        /// The font file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The font given for the plot's labels is not a TrueType or OpenType
    /// font.
    #[error("{path} is not a TrueType or OpenType font")]
    NotAFont {
        /// The font file.
        path: String,
    },
    /// The folder for the plot cannot be created.
    #[error("cannot create {path}")]
    CreateDir {
        /// The folder.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Drawing or writing a plot failed (the drawing library's error).
    #[error("cannot draw {path}")]
    Draw {
        /// The image file.
        path: String,
        /// The drawing library's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}
