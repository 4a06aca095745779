//! The running server: the MOSS protocol listener, the HTTP listener and
//! the job runner, sharing one [`Store`].

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::job::{language, run_job, store_upload, JobProgress, ProgressSnapshot};
use crate::protocol::{against_archive, Event, Limits, Session, Upload};
use crate::store::{now, random_hex, Job, JobState, Store};
use crate::ServeError;

/// Everything `bryo serve` is told.
#[derive(Clone, Debug)]
pub struct Config {
    /// The data directory.
    pub data: PathBuf,
    /// Where the HTTP server listens.
    pub http: SocketAddr,
    /// Where the MOSS protocol listens.
    pub moss: SocketAddr,
    /// The URL prefix the results are reached by, without a trailing `/`;
    /// `None`: `http://` and the HTTP listener's address.
    pub public_url: Option<String>,
    /// Protocol limits per connection and job.
    pub limits: Limits,
    /// Jobs run at once.
    pub workers: usize,
    /// Jobs waiting or running at once; one more is refused.
    pub queue: usize,
    /// A client silent this long is answered with an error and dropped.
    pub read_timeout: Duration,
}

impl Config {
    /// The defaults for a data directory: loopback, MOSS's port 7690, HTTP
    /// on 8080, a worker per core.
    pub fn new(data: PathBuf) -> Config {
        Config {
            data,
            http: SocketAddr::from(([127, 0, 0, 1], 8080)),
            moss: SocketAddr::from(([127, 0, 0, 1], 7690)),
            public_url: None,
            limits: Limits::default(),
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            queue: 64,
            read_timeout: Duration::from_secs(60),
        }
    }
}

/// State shared by the listeners.
#[derive(Debug)]
pub struct Shared {
    /// The database and data directory.
    pub store: Store,
    /// The public base URL, without a trailing `/`.
    pub public_url: String,
    pub(crate) limits: Limits,
    read_timeout: Duration,
    /// One permit per job admitted (queued or running).
    queue: Arc<Semaphore>,
    /// One permit per job running.
    workers: Arc<Semaphore>,
    /// The running jobs' progress, by job id (transient: not stored).
    running: Mutex<HashMap<String, Arc<JobProgress>>>,
}

impl Shared {
    /// The public URL of a job's result, ending in `/`.
    pub fn result_url(&self, id: &str) -> String {
        format!("{}/results/{id}/", self.public_url)
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<JobProgress>>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where a running job is; `None` when it is not running.
    pub fn progress(&self, id: &str) -> Option<ProgressSnapshot> {
        self.running().get(id).map(|p| p.snapshot())
    }

    /// Deletes a job of `user_id`, cancelling it first if it runs (it
    /// then writes nothing back). `false` when the user has no such job.
    pub fn delete_job(&self, user_id: u64, id: &str) -> Result<bool, ServeError> {
        match self.store.job(id)? {
            Some(job) if job.user_id == user_id => {}
            _ => return Ok(false),
        }
        if let Some(p) = self.running().get(id) {
            p.cancel();
        }
        self.store.delete_job(user_id, id)
    }
}

/// A bound server, ready to run.
#[derive(Debug)]
pub struct Server {
    shared: Arc<Shared>,
    moss: TcpListener,
    http: TcpListener,
}

impl Server {
    /// Opens the store, removes what a crash left behind (temporary
    /// directories, directories of deleted jobs) and binds both
    /// listeners; [`run`](Server::run) takes up the jobs a previous run
    /// left queued or running.
    pub async fn bind(config: Config) -> Result<Server, ServeError> {
        let store = Store::open(&config.data)?;
        // Before anything is served or run.
        for path in store.remove_leftovers()? {
            println!("bryo serve: removed the leftover {}", path.display());
        }
        let moss = TcpListener::bind(config.moss)
            .await
            .map_err(|e| ServeError::Bind(config.moss, e))?;
        let http = TcpListener::bind(config.http)
            .await
            .map_err(|e| ServeError::Bind(config.http, e))?;
        let http_addr = http
            .local_addr()
            .map_err(|e| ServeError::Bind(config.http, e))?;
        let public_url = config
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{http_addr}"))
            .trim_end_matches('/')
            .to_string();
        let shared = Arc::new(Shared {
            store,
            public_url,
            limits: config.limits,
            read_timeout: config.read_timeout,
            queue: Arc::new(Semaphore::new(config.queue.max(1))),
            workers: Arc::new(Semaphore::new(config.workers.max(1))),
            running: Mutex::new(HashMap::new()),
        });
        Ok(Server { shared, moss, http })
    }

    /// The protocol listener's address.
    pub fn moss_addr(&self) -> std::io::Result<SocketAddr> {
        self.moss.local_addr()
    }

    /// The HTTP listener's address.
    pub fn http_addr(&self) -> std::io::Result<SocketAddr> {
        self.http.local_addr()
    }

    /// The public base URL of results.
    pub fn public_url(&self) -> &str {
        &self.shared.public_url
    }

    /// Serves until the process ends.
    pub async fn run(self) -> Result<(), ServeError> {
        recover(&self.shared)?;
        let shared = self.shared.clone();
        let moss = self.moss;
        let protocol = tokio::spawn(async move {
            loop {
                match moss.accept().await {
                    Ok((stream, _)) => {
                        let shared = shared.clone();
                        tokio::spawn(async move { connection(shared, stream).await });
                    }
                    Err(e) => {
                        eprintln!("bryo serve: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
        });
        let app = crate::http::router(self.shared.clone());
        let http = axum::serve(self.http, app);
        tokio::select! {
            r = http => r.map_err(|e| ServeError::Other(format!("the HTTP server stopped: {e}"))),
            _ = protocol => Err(ServeError::Other("the protocol listener stopped".into())),
        }
    }
}

/// Times a job is started before a server that stopped during each of
/// them gives up on it: an input that ends the process (memory exhausted,
/// a crash in a parser) would otherwise end every restart too.
pub const MAX_RUNS: u32 = 3;

/// Why a job that was running each time the server stopped failed.
fn ended_the_server() -> String {
    format!(
        "The comparison was running each of the last {MAX_RUNS} times the server \
         stopped (it may have run out of memory or crashed on these files); it is not run again."
    )
}

/// Jobs a previous run left behind: queued and running ones run again
/// from their stored upload (their partial results, like every leftover
/// temporary directory, were removed by [`Server::bind`]), except a
/// running one already started [`MAX_RUNS`] times, which fails.
fn recover(shared: &Arc<Shared>) -> Result<(), ServeError> {
    let store = &shared.store;
    let mut left = Vec::new();
    for job in store.jobs_in(JobState::Running)? {
        if store.runs(&job.id)? >= MAX_RUNS {
            store.set_state(&job.id, JobState::Failed, Some(&ended_the_server()))?;
        } else {
            left.push(job);
        }
    }
    left.extend(store.jobs_in(JobState::Queued)?);
    for job in left {
        store.set_state(&job.id, JobState::Queued, None)?;
        // Re-admitted whatever the queue bound: they were admitted once.
        let shared = shared.clone();
        tokio::spawn(async move {
            let _ = execute(shared, job.id, None).await;
        });
    }
    Ok(())
}

/// Runs a queued job on the blocking pool once a worker is free; the
/// result is its final state and failure reason.
async fn execute(
    shared: Arc<Shared>,
    id: String,
    admitted: Option<tokio::sync::OwnedSemaphorePermit>,
) -> (JobState, Option<String>) {
    let _admitted = admitted;
    let Ok(_worker) = shared.workers.clone().acquire_owned().await else {
        return (JobState::Failed, Some("the server is stopping".into()));
    };
    match shared.store.claim(&id) {
        Ok(true) => {}
        // Deleted while it waited, or taken by another run: nothing to do.
        Ok(false) => return (JobState::Failed, Some("the job is no longer queued".into())),
        Err(e) => return (JobState::Failed, Some(e.to_string())),
    }
    let progress = Arc::new(JobProgress::default());
    shared.running().insert(id.clone(), progress.clone());
    let dir = shared.store.job_dir(&id);
    let archives = shared.store.dir().join("archives");
    let base = shared.result_url(&id);
    let job_progress = progress.clone();
    let outcome = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(|| run_job(&dir, &archives, &base, &job_progress))
            .unwrap_or_else(|_| Err("the comparison failed unexpectedly".to_string()))
    })
    .await
    .unwrap_or_else(|e| Err(format!("the comparison failed unexpectedly: {e}")));
    shared.running().remove(&id);
    let (state, reason) = match outcome {
        Ok(()) => (JobState::Done, None),
        Err(reason) => (JobState::Failed, Some(reason)),
    };
    if progress.is_cancelled() || matches!(shared.store.job(&id), Ok(None)) {
        // Deleted while it ran: a file written after the deletion removed
        // the directory is removed with it.
        let dir = shared.store.job_dir(&id);
        if dir.exists() {
            if let Err(e) = std::fs::remove_dir_all(&dir) {
                eprintln!("bryo serve: cannot remove deleted job {id}: {e}");
            }
        }
        return (JobState::Failed, Some(crate::job::CANCELLED.to_string()));
    }
    if let Err(e) = shared.store.set_state(&id, state, reason.as_deref()) {
        eprintln!("bryo serve: cannot record the end of job {id}: {e}");
    }
    (state, reason)
}

/// One protocol connection.
async fn connection(shared: Arc<Shared>, mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut session = Session::new(shared.limits);
    let mut refused: Option<String> = None;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match tokio::time::timeout(shared.read_timeout, stream.read(&mut buf)).await {
            // A client that got its answer and keeps the connection open
            // is simply let go.
            Err(_) if session.is_answered() => break,
            Err(_) => {
                let msg = format!(
                    "Error: no data for {} seconds {}.\n",
                    shared.read_timeout.as_secs(),
                    session.waiting_for()
                );
                let _ = stream.write_all(msg.as_bytes()).await;
                break;
            }
            Ok(Err(_)) => break,
            Ok(Ok(0)) => {
                if let Err(e) = session.finish() {
                    let _ = stream.write_all(format!("Error: {e}.\n").as_bytes()).await;
                }
                break;
            }
            Ok(Ok(n)) => n,
        };
        let events = match session.feed(&buf[..n]) {
            Ok(events) => events,
            Err(e) => {
                refuse(stream, &format!("Error: {e}.\n")).await;
                return;
            }
        };
        for event in events {
            match event {
                Event::User(id) => match shared.store.user(id) {
                    Ok(Some(_)) => {}
                    Ok(None) => {
                        refused = Some(format!(
                            "user id {id} is not known to this server (or is disabled)"
                        ));
                        session.discard_files();
                    }
                    Err(e) => {
                        refused = Some(e.to_string());
                        session.discard_files();
                    }
                },
                Event::Language(name) => {
                    let answer = if language(&name).is_some() {
                        "yes\n"
                    } else {
                        "no\n"
                    };
                    if stream.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
                Event::Query(upload) => {
                    let reply = match &refused {
                        Some(why) => format!("Error: {why}.\n"),
                        None => match query(&shared, upload).await {
                            Ok(url) => format!("{url}\n"),
                            Err(why) => format!("Error: {why}\n"),
                        },
                    };
                    if stream.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
                Event::End => {}
            }
        }
        if session.is_closed() {
            break;
        }
    }
    let _ = stream.shutdown().await;
}

/// Answers an `Error:` line and closes. What the client is still sending
/// is read and dropped for a moment first: closing a socket with unread
/// input resets the connection, and the client would lose the answer.
async fn refuse(mut stream: TcpStream, line: &str) {
    if stream.write_all(line.as_bytes()).await.is_err() {
        return;
    }
    let _ = stream.shutdown().await;
    let mut sink = vec![0u8; 64 * 1024];
    let mut drained = 0usize;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while drained < 256 << 20 {
        match tokio::time::timeout_at(deadline, stream.read(&mut sink)).await {
            Ok(Ok(n)) if n > 0 => drained += n,
            _ => break,
        }
    }
}

/// A query: checks it, stores the upload, runs the job and waits for it.
/// `Err` is the text after `Error: `.
async fn query(shared: &Arc<Shared>, mut upload: Upload) -> Result<String, String> {
    let (comment, name) = against_archive(&upload.comment)?;
    if let Some(name) = name {
        upload.archive = Some(archive_named(shared, upload.user_id, &name)?);
        upload.comment = comment;
    }
    let (id, task) = submit(shared, upload).await.map_err(|e| e.message)?;
    match task.await {
        Ok((JobState::Done, _)) => Ok(shared.result_url(&id)),
        Ok((_, reason)) => Err(reason.unwrap_or_else(|| "the job failed.".into())),
        Err(e) => Err(format!("the job failed: {e}.")),
    }
}

/// The id of the user's archive called `name` (the comment's
/// `bryo:against=NAME`); `Err` names what is wrong.
fn archive_named(shared: &Shared, user_id: u64, name: &str) -> Result<String, String> {
    let archives = shared
        .store
        .archives_of(user_id)
        .map_err(|e| format!("{e}."))?;
    let named: Vec<_> = archives.iter().filter(|a| a.name == name).collect();
    // The answer is one protocol line, whatever the names hold.
    let line = |n: &str| -> String {
        n.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    };
    match named.as_slice() {
        [one] => Ok(one.id.clone()),
        [] => {
            let yours: Vec<_> = archives
                .iter()
                .map(|a| format!("`{}`", line(&a.name)))
                .collect();
            Err(format!(
                "no archive of past terms is named `{name}` ({}).",
                if yours.is_empty() {
                    "you have none".to_string()
                } else {
                    format!("yours: {}", yours.join(", "))
                }
            ))
        }
        _ => Err(format!(
            "{} of your archives are named `{name}`; give one of them another name.",
            named.len()
        )),
    }
}

/// Why a job was not accepted.
#[derive(Debug)]
pub(crate) struct Refusal {
    /// The queue is full (try later), as opposed to a bad request.
    pub(crate) busy: bool,
    /// What to tell the client.
    pub(crate) message: String,
}

impl Refusal {
    fn bad(message: String) -> Refusal {
        Refusal {
            busy: false,
            message,
        }
    }
}

/// Checks an upload, stores it and starts its job (which runs in its own
/// task: a client that goes away does not stop it); returns the job id
/// and the task, whose output is the job's final state.
pub(crate) async fn submit(
    shared: &Arc<Shared>,
    upload: Upload,
) -> Result<(String, tokio::task::JoinHandle<(JobState, Option<String>)>), Refusal> {
    if !upload.files.iter().any(|f| f.id != 0) {
        return Err(Refusal::bad("No files uploaded to compare.".into()));
    }
    let lang = upload.language.as_deref().unwrap_or("c");
    if language(lang).is_none() {
        return Err(Refusal::bad(format!(
            "language `{lang}` is not supported (`bryo languages` lists them)."
        )));
    }
    if let Some(archive) = &upload.archive {
        match shared.store.archive(upload.user_id, archive) {
            Ok(Some(a))
                if language(&a.language).map(|l| l.name()) == language(lang).map(|l| l.name()) => {}
            Ok(Some(a)) => {
                return Err(Refusal::bad(format!(
                    "the archive holds {} submissions; this job is {lang}",
                    a.language
                )))
            }
            Ok(None) => return Err(Refusal::bad("no such archive".into())),
            Err(e) => return Err(Refusal::bad(e.to_string())),
        }
    }
    let Ok(permit) = shared.queue.clone().try_acquire_owned() else {
        return Err(Refusal {
            busy: true,
            message: "the server's job queue is full; try again in a few minutes.".into(),
        });
    };
    let id = random_hex(16).map_err(|e| Refusal::bad(e.to_string()))?;
    let store_shared = shared.clone();
    let job_id = id.clone();
    let stored = tokio::task::spawn_blocking(move || -> Result<(), ServeError> {
        let dir = store_shared.store.job_dir(&job_id);
        store_upload(&dir, &upload)?;
        store_shared.store.insert_job(&Job {
            id: job_id,
            user_id: upload.user_id,
            state: JobState::Queued,
            reason: None,
            comment: upload.comment.clone(),
            files: upload.files.len() as u64,
            bytes: upload.files.iter().map(|f| f.bytes.len() as u64).sum(),
            created: now(),
            finished: None,
            revoked: false,
        })
    })
    .await;
    match stored {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(Refusal::bad(format!("cannot store the upload: {e}."))),
        Err(e) => return Err(Refusal::bad(format!("cannot store the upload: {e}."))),
    }
    let task = tokio::spawn(execute(shared.clone(), id.clone(), Some(permit)));
    Ok((id, task))
}
