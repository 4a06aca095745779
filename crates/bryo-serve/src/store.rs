//! Durable state: users and jobs in SQLite (WAL mode), uploads and results
//! in the data directory.
//!
//! ```text
//! DIR/bryo.sqlite          users, jobs
//! DIR/jobs/<id>/upload/    manifest.json and the files, written before the job is queued
//! DIR/jobs/<id>/result/    the rendered result, renamed into place when complete
//! ```
//!
//! A job's directory is renamed into place only when complete
//! (`upload.tmp` → `upload`, `result.tmp` → `result`), and its state in
//! the database changes after the rename: a crash leaves either the old
//! state with a leftover `.tmp` directory (removed on the next start) or
//! the new state with complete files.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::ServeError;

/// A job's state; stored as its lower-case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Stored, waiting for a worker.
    Queued,
    /// A worker is running it.
    Running,
    /// The result is complete and served.
    Done,
    /// It ended with an error (see the reason).
    Failed,
}

impl JobState {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Failed => "failed",
        }
    }

    fn parse(s: &str) -> JobState {
        match s {
            "queued" => JobState::Queued,
            "running" => JobState::Running,
            "done" => JobState::Done,
            _ => JobState::Failed,
        }
    }
}

/// A user of the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct User {
    /// The decimal id used on the protocol's `moss` line.
    pub id: u64,
    /// Contact address, as given by the admin.
    pub email: String,
    /// The web and API token.
    #[serde(skip)]
    pub token: String,
    /// A disabled user's protocol id and token are refused.
    pub disabled: bool,
    /// Seconds since the Unix epoch.
    pub created: i64,
}

/// One job's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Job {
    /// 128 random bits in hex: the capability in the result URL.
    pub id: String,
    /// Its owner.
    #[serde(skip)]
    pub user_id: u64,
    /// Where it is.
    pub state: JobState,
    /// Why it failed.
    pub reason: Option<String>,
    /// The comment given with it.
    pub comment: String,
    /// Files received.
    pub files: u64,
    /// Bytes received.
    pub bytes: u64,
    /// Seconds since the Unix epoch.
    pub created: i64,
    /// When it ended.
    pub finished: Option<i64>,
    /// Its owner took its result URL back: the pages answer 404 to
    /// anyone without the owner's token until it is restored.
    pub revoked: bool,
}

/// The database and the data directory.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    db: Mutex<Connection>,
}

pub(crate) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// `n` random bytes as lower-case hex.
pub(crate) fn random_hex(n: usize) -> Result<String, ServeError> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| ServeError::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `id` has the form of a job id (so that it can name a directory).
pub fn is_job_id(id: &str) -> bool {
    id.len() == 32
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Store {
    /// Opens (creating if needed) the store in `dir`.
    pub fn open(dir: &Path) -> Result<Store, ServeError> {
        fs::create_dir_all(dir.join("jobs")).map_err(|e| ServeError::io(dir, e))?;
        let path = dir.join("bryo.sqlite");
        let db = Connection::open(&path).map_err(ServeError::Db)?;
        db.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(ServeError::Db)?;
        db.pragma_update(None, "journal_mode", "WAL")
            .map_err(ServeError::Db)?;
        db.pragma_update(None, "synchronous", "FULL")
            .map_err(ServeError::Db)?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS users (
                 id INTEGER PRIMARY KEY,
                 email TEXT NOT NULL,
                 token TEXT NOT NULL UNIQUE,
                 disabled INTEGER NOT NULL DEFAULT 0,
                 created INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS jobs (
                 id TEXT PRIMARY KEY,
                 user_id INTEGER NOT NULL REFERENCES users(id),
                 state TEXT NOT NULL,
                 reason TEXT,
                 comment TEXT NOT NULL,
                 files INTEGER NOT NULL,
                 bytes INTEGER NOT NULL,
                 created INTEGER NOT NULL,
                 finished INTEGER
             );
             CREATE INDEX IF NOT EXISTS jobs_by_user ON jobs(user_id, created);
             CREATE TABLE IF NOT EXISTS archives (
                 id TEXT PRIMARY KEY,
                 user_id INTEGER NOT NULL REFERENCES users(id),
                 name TEXT NOT NULL,
                 language TEXT NOT NULL,
                 created INTEGER NOT NULL
             );",
        )
        .map_err(ServeError::Db)?;
        migrate(&db)?;
        Ok(Store {
            dir: dir.to_path_buf(),
            db: Mutex::new(db),
        })
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn db(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (every
        // change is one statement), so a poisoned lock is still usable.
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A job's directory.
    pub fn job_dir(&self, id: &str) -> PathBuf {
        self.dir.join("jobs").join(id)
    }

    /// Adds a user with a fresh random id and token.
    pub fn add_user(&self, email: &str) -> Result<User, ServeError> {
        let db = self.db();
        loop {
            let mut b = [0u8; 8];
            getrandom::fill(&mut b).map_err(|e| ServeError::Random(e.to_string()))?;
            // Nine or ten decimal digits, below 2^31 for clients that
            // keep the id in a 32-bit integer.
            let id = 100_000_000 + u64::from_le_bytes(b) % 2_000_000_000;
            let token = random_hex(16)?;
            let user = User {
                id,
                email: email.to_string(),
                token,
                disabled: false,
                created: now(),
            };
            let inserted = db
                .execute(
                    "INSERT OR IGNORE INTO users (id, email, token, disabled, created) VALUES (?1, ?2, ?3, 0, ?4)",
                    params![user.id as i64, user.email, user.token, user.created],
                )
                .map_err(ServeError::Db)?;
            if inserted == 1 {
                return Ok(user);
            }
        }
    }

    /// Every user, oldest first.
    pub fn users(&self) -> Result<Vec<User>, ServeError> {
        let db = self.db();
        let mut stmt = db
            .prepare("SELECT id, email, token, disabled, created FROM users ORDER BY created, id")
            .map_err(ServeError::Db)?;
        let rows = stmt
            .query_map([], user_row)
            .map_err(ServeError::Db)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(ServeError::Db)?;
        Ok(rows)
    }

    /// Disables a user; `false` when there is no such user.
    pub fn disable_user(&self, id: u64) -> Result<bool, ServeError> {
        let n = self
            .db()
            .execute("UPDATE users SET disabled = 1 WHERE id = ?1", [id as i64])
            .map_err(ServeError::Db)?;
        Ok(n == 1)
    }

    /// An enabled user by protocol id.
    pub fn user(&self, id: u64) -> Result<Option<User>, ServeError> {
        self.db()
            .query_row(
                "SELECT id, email, token, disabled, created FROM users WHERE id = ?1 AND disabled = 0",
                [id as i64],
                user_row,
            )
            .optional()
            .map_err(ServeError::Db)
    }

    /// An enabled user by token.
    pub fn user_by_token(&self, token: &str) -> Result<Option<User>, ServeError> {
        self.db()
            .query_row(
                "SELECT id, email, token, disabled, created FROM users WHERE token = ?1 AND disabled = 0",
                [token],
                user_row,
            )
            .optional()
            .map_err(ServeError::Db)
    }

    /// Records a queued job whose upload directory is complete.
    pub fn insert_job(&self, job: &Job) -> Result<(), ServeError> {
        self.db()
            .execute(
                "INSERT INTO jobs (id, user_id, state, reason, comment, files, bytes, created, finished, revoked)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    job.id,
                    job.user_id as i64,
                    job.state.as_str(),
                    job.reason,
                    job.comment,
                    job.files as i64,
                    job.bytes as i64,
                    job.created,
                    job.finished,
                    job.revoked
                ],
            )
            .map_err(ServeError::Db)?;
        Ok(())
    }

    /// Moves a job to `state`.
    pub fn set_state(
        &self,
        id: &str,
        state: JobState,
        reason: Option<&str>,
    ) -> Result<(), ServeError> {
        let finished = matches!(state, JobState::Done | JobState::Failed).then(now);
        self.db()
            .execute(
                "UPDATE jobs SET state = ?2, reason = ?3, finished = ?4 WHERE id = ?1",
                params![id, state.as_str(), reason, finished],
            )
            .map_err(ServeError::Db)?;
        Ok(())
    }

    /// Moves a queued job to running; `false` if it is not queued (it was
    /// deleted, or another run took it).
    pub fn claim(&self, id: &str) -> Result<bool, ServeError> {
        let n = self
            .db()
            .execute(
                "UPDATE jobs SET state = 'running', runs = runs + 1 WHERE id = ?1 AND state = 'queued'",
                [id],
            )
            .map_err(ServeError::Db)?;
        Ok(n == 1)
    }

    /// How many times a job was started ([`Store::claim`]); 0 for none or
    /// an unknown id.
    pub fn runs(&self, id: &str) -> Result<u32, ServeError> {
        let runs: Option<i64> = self
            .db()
            .query_row("SELECT runs FROM jobs WHERE id = ?1", [id], |r| r.get(0))
            .optional()
            .map_err(ServeError::Db)?;
        Ok(runs.map_or(0, |n| n as u32))
    }

    /// A job by id.
    pub fn job(&self, id: &str) -> Result<Option<Job>, ServeError> {
        self.db()
            .query_row(
                "SELECT id, user_id, state, reason, comment, files, bytes, created, finished, revoked FROM jobs WHERE id = ?1",
                [id],
                job_row,
            )
            .optional()
            .map_err(ServeError::Db)
    }

    /// A user's jobs, newest first.
    pub fn jobs_of(&self, user_id: u64) -> Result<Vec<Job>, ServeError> {
        let db = self.db();
        let mut stmt = db
            .prepare(
                "SELECT id, user_id, state, reason, comment, files, bytes, created, finished, revoked FROM jobs
                 WHERE user_id = ?1 ORDER BY created DESC, id",
            )
            .map_err(ServeError::Db)?;
        let rows = stmt
            .query_map([user_id as i64], job_row)
            .map_err(ServeError::Db)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(ServeError::Db)?;
        Ok(rows)
    }

    /// Jobs in a state, oldest first.
    pub fn jobs_in(&self, state: JobState) -> Result<Vec<Job>, ServeError> {
        let db = self.db();
        let mut stmt = db
            .prepare(
                "SELECT id, user_id, state, reason, comment, files, bytes, created, finished, revoked FROM jobs
                 WHERE state = ?1 ORDER BY created, id",
            )
            .map_err(ServeError::Db)?;
        let rows = stmt
            .query_map([state.as_str()], job_row)
            .map_err(ServeError::Db)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(ServeError::Db)?;
        Ok(rows)
    }

    /// Revokes (`true`) or restores (`false`) the public result of a job of
    /// `user_id`; `false` when the user has no such job.
    pub fn set_revoked(&self, user_id: u64, id: &str, revoked: bool) -> Result<bool, ServeError> {
        let n = self
            .db()
            .execute(
                "UPDATE jobs SET revoked = ?3 WHERE id = ?1 AND user_id = ?2",
                params![id, user_id as i64, revoked],
            )
            .map_err(ServeError::Db)?;
        Ok(n == 1)
    }

    /// Removes what a crash or a deleted running job can leave in `jobs/`:
    /// temporary directories (`*.tmp`) of every job, and the directory of
    /// a job whose row is gone. Run before any job starts.
    pub fn remove_leftovers(&self) -> Result<Vec<PathBuf>, ServeError> {
        let jobs_dir = self.dir.join("jobs");
        let mut removed = Vec::new();
        let entries = fs::read_dir(&jobs_dir).map_err(|e| ServeError::io(&jobs_dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| ServeError::io(&jobs_dir, e))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_job_id(&name) || !path.is_dir() {
                continue;
            }
            if self.job(&name)?.is_none() {
                fs::remove_dir_all(&path).map_err(|e| ServeError::io(&path, e))?;
                removed.push(path);
                continue;
            }
            for inner in fs::read_dir(&path).map_err(|e| ServeError::io(&path, e))? {
                let inner = inner.map_err(|e| ServeError::io(&path, e))?;
                if inner.file_name().to_string_lossy().ends_with(".tmp") {
                    let p = inner.path();
                    if p.is_dir() {
                        fs::remove_dir_all(&p).map_err(|e| ServeError::io(&p, e))?;
                    } else {
                        fs::remove_file(&p).map_err(|e| ServeError::io(&p, e))?;
                    }
                    removed.push(p);
                }
            }
        }
        Ok(removed)
    }

    /// Deletes a job of `user_id`: its row first (so it is no longer
    /// served), then its files. `false` when the user has no such job.
    pub fn delete_job(&self, user_id: u64, id: &str) -> Result<bool, ServeError> {
        let n = self
            .db()
            .execute(
                "DELETE FROM jobs WHERE id = ?1 AND user_id = ?2",
                params![id, user_id as i64],
            )
            .map_err(ServeError::Db)?;
        if n == 1 && is_job_id(id) {
            let dir = self.job_dir(id);
            if dir.exists() {
                fs::remove_dir_all(&dir).map_err(|e| ServeError::io(&dir, e))?;
            }
        }
        Ok(n == 1)
    }
}

/// A user's archive of past terms: a `bryo index` directory under
/// `archives/<id>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Archive {
    /// 128 random bits in hex.
    pub id: String,
    /// Its owner.
    #[serde(skip)]
    pub user_id: u64,
    /// The owner's name for it, e.g. `CS101 2025`.
    pub name: String,
    /// The language its submissions were analyzed as.
    pub language: String,
    /// Seconds since the Unix epoch.
    pub created: i64,
}

impl Store {
    /// An archive's index directory.
    pub fn archive_dir(&self, id: &str) -> PathBuf {
        self.dir.join("archives").join(id)
    }

    /// Records an archive whose index directory exists.
    pub fn insert_archive(&self, a: &Archive) -> Result<(), ServeError> {
        self.db()
            .execute(
                "INSERT INTO archives (id, user_id, name, language, created) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![a.id, a.user_id as i64, a.name, a.language, a.created],
            )
            .map_err(ServeError::Db)?;
        Ok(())
    }

    /// An archive of `user_id`.
    pub fn archive(&self, user_id: u64, id: &str) -> Result<Option<Archive>, ServeError> {
        self.db()
            .query_row(
                "SELECT id, user_id, name, language, created FROM archives WHERE id = ?1 AND user_id = ?2",
                params![id, user_id as i64],
                archive_row,
            )
            .optional()
            .map_err(ServeError::Db)
    }

    /// A user's archives, oldest first.
    pub fn archives_of(&self, user_id: u64) -> Result<Vec<Archive>, ServeError> {
        let db = self.db();
        let mut stmt = db
            .prepare(
                "SELECT id, user_id, name, language, created FROM archives WHERE user_id = ?1 ORDER BY created, id",
            )
            .map_err(ServeError::Db)?;
        let rows = stmt
            .query_map([user_id as i64], archive_row)
            .map_err(ServeError::Db)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(ServeError::Db)?;
        Ok(rows)
    }

    /// Deletes an archive of `user_id`: its row, then its index.
    pub fn delete_archive(&self, user_id: u64, id: &str) -> Result<bool, ServeError> {
        let n = self
            .db()
            .execute(
                "DELETE FROM archives WHERE id = ?1 AND user_id = ?2",
                params![id, user_id as i64],
            )
            .map_err(ServeError::Db)?;
        if n == 1 && is_job_id(id) {
            let dir = self.archive_dir(id);
            if dir.exists() {
                fs::remove_dir_all(&dir).map_err(|e| ServeError::io(&dir, e))?;
            }
        }
        Ok(n == 1)
    }
}

/// The schema changes since the first release, in order; the database's
/// `user_version` is the number applied. Each runs once, in a
/// transaction with its version bump.
const MIGRATIONS: &[&str] = &[
    // 1: a job's result can be revoked without deleting the job.
    "ALTER TABLE jobs ADD COLUMN revoked INTEGER NOT NULL DEFAULT 0;",
    // 2: how many times a job was started, so that one that ends the
    // server each time is not started for ever.
    "ALTER TABLE jobs ADD COLUMN runs INTEGER NOT NULL DEFAULT 0;",
];

/// Brings a database made by an earlier version up to date.
fn migrate(db: &Connection) -> Result<(), ServeError> {
    let version: i64 = db
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(ServeError::Db)?;
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(ServeError::Other(format!(
            "the database has schema version {version}; this bryo knows up to {known} (a newer bryo made it)"
        )));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let to = i as i64 + 1;
        db.execute_batch(&format!(
            "BEGIN IMMEDIATE; {sql} PRAGMA user_version = {to}; COMMIT;"
        ))
        .map_err(|e| {
            let _ = db.execute_batch("ROLLBACK;");
            ServeError::Other(format!(
                "cannot upgrade the database to schema version {to}: {e}"
            ))
        })?;
    }
    Ok(())
}

fn archive_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Archive> {
    Ok(Archive {
        id: r.get(0)?,
        user_id: r.get::<_, i64>(1)? as u64,
        name: r.get(2)?,
        language: r.get(3)?,
        created: r.get(4)?,
    })
}

fn user_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get::<_, i64>(0)? as u64,
        email: r.get(1)?,
        token: r.get(2)?,
        disabled: r.get::<_, i64>(3)? != 0,
        created: r.get(4)?,
    })
}

fn job_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Job> {
    Ok(Job {
        id: r.get(0)?,
        user_id: r.get::<_, i64>(1)? as u64,
        state: JobState::parse(&r.get::<_, String>(2)?),
        reason: r.get(3)?,
        comment: r.get(4)?,
        files: r.get::<_, i64>(5)? as u64,
        bytes: r.get::<_, i64>(6)? as u64,
        created: r.get(7)?,
        finished: r.get(8)?,
        revoked: r.get::<_, i64>(9)? != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema of the first release, before any migration.
    const FIRST_SCHEMA: &str = "CREATE TABLE users (
             id INTEGER PRIMARY KEY, email TEXT NOT NULL, token TEXT NOT NULL UNIQUE,
             disabled INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL);
         CREATE TABLE jobs (
             id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
             state TEXT NOT NULL, reason TEXT, comment TEXT NOT NULL, files INTEGER NOT NULL,
             bytes INTEGER NOT NULL, created INTEGER NOT NULL, finished INTEGER);
         CREATE INDEX jobs_by_user ON jobs(user_id, created);
         CREATE TABLE archives (
             id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
             name TEXT NOT NULL, language TEXT NOT NULL, created INTEGER NOT NULL);
         INSERT INTO users VALUES (123456789, 'a@example.edu', 'tok', 0, 1);
         INSERT INTO jobs VALUES ('0123456789abcdef0123456789abcdef', 123456789, 'done',
             NULL, 'hw1', 2, 10, 1, 2);";

    #[test]
    fn a_database_of_the_first_release_opens_and_gains_the_revoked_column() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Connection::open(dir.path().join("bryo.sqlite")).unwrap();
            db.execute_batch(FIRST_SCHEMA).unwrap();
        }
        let id = "0123456789abcdef0123456789abcdef";
        let store = Store::open(dir.path()).unwrap();
        let job = store.job(id).unwrap().unwrap();
        assert_eq!((job.comment.as_str(), job.revoked), ("hw1", false));
        assert!(store.set_revoked(123456789, id, true).unwrap());
        assert!(!store.set_revoked(987654321, id, false).unwrap());
        drop(store);
        // Opened again: migrated once, the flag kept.
        let store = Store::open(dir.path()).unwrap();
        assert!(store.job(id).unwrap().unwrap().revoked);
        let version: i64 = store
            .db()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
    }

    #[test]
    fn a_database_of_a_newer_release_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Connection::open(dir.path().join("bryo.sqlite")).unwrap();
            db.execute_batch(FIRST_SCHEMA).unwrap();
            db.pragma_update(None, "user_version", 99).unwrap();
        }
        let err = Store::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("schema version 99"), "{err}");
    }

    #[test]
    fn leftovers_are_removed_and_complete_directories_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let user = store.add_user("a@example.edu").unwrap();
        let kept = "0123456789abcdef0123456789abcdef";
        let orphan = "fedcba9876543210fedcba9876543210";
        store
            .insert_job(&Job {
                id: kept.into(),
                user_id: user.id,
                state: JobState::Done,
                reason: None,
                comment: String::new(),
                files: 1,
                bytes: 1,
                created: 1,
                finished: Some(2),
                revoked: false,
            })
            .unwrap();
        for d in [
            format!("{kept}/upload"),
            format!("{kept}/result"),
            format!("{kept}/result.tmp/report"),
            format!("{kept}/upload.tmp"),
            format!("{orphan}/result.tmp"),
        ] {
            fs::create_dir_all(store.job_dir("").join(d)).unwrap();
        }
        let removed = store.remove_leftovers().unwrap();
        assert_eq!(removed.len(), 3, "{removed:?}");
        assert!(store.job_dir(kept).join("upload").is_dir());
        assert!(store.job_dir(kept).join("result").is_dir());
        assert!(!store.job_dir(kept).join("result.tmp").exists());
        assert!(!store.job_dir(kept).join("upload.tmp").exists());
        assert!(!store.job_dir(orphan).exists());
    }
}
