use std::io;

/// Everything that can go wrong reading or writing a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The JSON names a schema this version cannot read.
    #[error("unknown report schema {found:?}: this version of bryo reads {expected:?}")]
    UnknownSchema {
        /// The `schema` value found.
        found: String,
        /// The schema this version reads, [`crate::SCHEMA_ID`].
        expected: &'static str,
    },
    /// The JSON has no `schema` field: it is not a bryo report.
    #[error("not a bryo report: no \"schema\" field")]
    MissingSchema,
    /// The JSON is malformed or does not fit the schema.
    #[error("invalid report JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The report is well-formed but inconsistent, e.g. a pair names a
    /// submission that does not exist.
    #[error("inconsistent report: {0}")]
    Invalid(String),
    /// Writing the output failed.
    #[error("cannot write report: {0}")]
    Io(#[from] io::Error),
    /// Writing CSV failed.
    #[error("cannot write CSV: {0}")]
    Csv(#[from] csv::Error),
}
