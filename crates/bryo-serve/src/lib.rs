//! # bryo-serve: a self-hosted MOSS
//!
//! A server that speaks MOSS's wire protocol, so that instructors' scripts
//! (moss.pl, mosspy, …) get a bryo result by changing only the server
//! name; results stay until their owner deletes them.
//!
//! - [`protocol`](Session): the wire protocol as a pure state machine,
//!   with limits on line length, file size, job size and file count.
//! - [`Store`]: users and jobs in SQLite (WAL mode), uploads and results
//!   in a data directory, each written to a temporary directory and
//!   renamed into place; a job's state is durable.
//! - [`Server`]: the protocol and HTTP listeners (tokio, axum) and the job
//!   runner: jobs run on the blocking pool, a bounded number at a time,
//!   behind a bounded queue; jobs left queued or running by a previous
//!   run are run again at start.
//!
//! Results are written as MOSS's page layout (`index.html`,
//! `match<N>.html`, `match<N>-top.html`, `match<N>-0.html`,
//! `match<N>-1.html`), bryo's HTML report (`report/`) and the
//! `bryo.compare` JSON (`result.json`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod api;
mod http;
mod job;
mod moss_html;
mod protocol;
mod server;
mod store;
mod ui;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

pub use job::{
    archive_job, create_archive, language, run_job, JobProgress, JobSpec, ProgressSnapshot,
    StoredFile, CANCELLED, WRITE_STAGE,
};
pub use protocol::{
    against_archive, Event, Limits, ProtocolError, Session, Upload, UploadedFile, AGAINST,
};
pub use server::{Config, Server, Shared};
pub use store::{is_job_id, Archive, Job, JobState, Store, User};

/// Why the server cannot do something.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A file or directory of the data directory.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The database.
    #[error("database: {0}")]
    Db(#[from] rusqlite::Error),
    /// A listener's address.
    #[error("cannot listen on {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
    /// The system's random source.
    #[error("no random numbers from the system: {0}")]
    Random(String),
    /// Anything else, described.
    #[error("{0}")]
    Other(String),
}

impl ServeError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ServeError {
        ServeError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
