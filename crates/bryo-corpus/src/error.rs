/// Everything that can go wrong while counting hashes.
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
}
