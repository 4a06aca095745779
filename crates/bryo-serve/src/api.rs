//! The JSON API under `/api/`, described by `/api/openapi.json`: create a
//! job from an upload (multipart files, zip archives expanded), poll it,
//! fetch its result JSON, list and delete jobs. Every call but the
//! description needs `Authorization: Bearer <token>`; a user sees only
//! their own jobs, and another user's job answers 404 like a missing one.

// Handlers return a ready response as their error, once per request: its
// size does not matter here.
#![allow(clippy::result_large_err)]

use std::io::{Cursor, Read};
use std::sync::Arc;

use axum::extract::multipart::MultipartRejection;
use axum::extract::{FromRequestParts, Multipart, Path as UrlPath, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde_json::json;

use crate::protocol::{Upload, UploadedFile};
use crate::server::{submit, Shared};
use crate::store::{is_job_id, Job, JobState, User};

const OPENAPI: &str = include_str!("openapi.json");

/// The API's routes.
pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/openapi.json", get(openapi))
        .route("/api/jobs", get(list_jobs).post(create_job))
        .route("/api/jobs/{id}", get(get_job).delete(delete_job))
        .route("/api/jobs/{id}/result", get(job_result))
        .route("/api/jobs/{id}/revoke", post(revoke_job))
        .route("/api/jobs/{id}/restore", post(restore_job))
        .route("/api/archives", get(list_archives).post(create_archive))
        .route("/api/archives/{id}", delete(delete_archive))
        .route("/api/archives/{id}/jobs/{job}", post(add_job_to_archive))
}

/// A JSON error body with a status.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

/// The user whose `Authorization: Bearer` token a request carries; an
/// API handler taking it answers 401 (or 503) with a JSON error before
/// anything else when there is none.
#[derive(Clone, Debug)]
pub(crate) struct AuthUser(pub(crate) User);

impl FromRequestParts<Arc<Shared>> for AuthUser {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        shared: &Arc<Shared>,
    ) -> Result<Self, Self::Rejection> {
        authenticate(shared, &parts.headers).map(AuthUser)
    }
}

/// The user whose token the request carries.
pub(crate) fn authenticate(shared: &Shared, headers: &HeaderMap) -> Result<User, Response> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Err(error(
            StatusCode::UNAUTHORIZED,
            "send the token from `bryo serve user add` as `Authorization: Bearer <token>`",
        ));
    };
    token_user(shared, token)
}

/// The enabled user holding `token`.
pub(crate) fn token_user(shared: &Shared, token: &str) -> Result<User, Response> {
    match shared.store.user_by_token(token) {
        Ok(Some(user)) => Ok(user),
        Ok(None) => Err(error(StatusCode::UNAUTHORIZED, "unknown or disabled token")),
        Err(e) => Err(error(StatusCode::SERVICE_UNAVAILABLE, e.to_string())),
    }
}

fn job_json(shared: &Shared, job: &Job) -> serde_json::Value {
    let mut v = serde_json::to_value(job).unwrap_or_default();
    v["url"] = json!(shared.result_url(&job.id));
    let progress = match job.state {
        JobState::Running => shared.progress(&job.id),
        _ => None,
    };
    match progress {
        Some(p) => {
            v["stage"] = json!(p.stage);
            v["progress"] = json!({ "done": p.done, "total": p.total, "stages": p.stages });
        }
        None => {
            v["stage"] = serde_json::Value::Null;
            v["progress"] = serde_json::Value::Null;
        }
    }
    v
}

/// The caller's job `id`; 404 for a malformed id, a missing job and
/// another user's job alike.
fn own_job(shared: &Shared, user: &User, id: &str) -> Result<Job, Response> {
    let missing = || error(StatusCode::NOT_FOUND, "no such job");
    if !is_job_id(id) {
        return Err(missing());
    }
    match shared.store.job(id) {
        Ok(Some(job)) if job.user_id == user.id => Ok(job),
        Ok(_) => Err(missing()),
        Err(e) => Err(error(StatusCode::SERVICE_UNAVAILABLE, e.to_string())),
    }
}

async fn list_jobs(State(shared): State<Arc<Shared>>, AuthUser(user): AuthUser) -> Response {
    match shared.store.jobs_of(user.id) {
        Ok(jobs) => {
            let jobs: Vec<_> = jobs.iter().map(|j| job_json(&shared, j)).collect();
            Json(json!({ "jobs": jobs })).into_response()
        }
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

async fn get_job(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    UrlPath(id): UrlPath<String>,
) -> Response {
    match own_job(&shared, &user, &id) {
        Ok(job) => Json(job_json(&shared, &job)).into_response(),
        Err(r) => r,
    }
}

async fn job_result(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    UrlPath(id): UrlPath<String>,
) -> Response {
    let job = match own_job(&shared, &user, &id) {
        Ok(job) => job,
        Err(r) => return r,
    };
    match job.state {
        JobState::Done => {}
        JobState::Failed => {
            return error(
                StatusCode::CONFLICT,
                format!(
                    "the job failed: {}",
                    job.reason.as_deref().unwrap_or("no reason recorded")
                ),
            )
        }
        _ => return error(StatusCode::CONFLICT, "the job has not finished yet"),
    }
    let path = shared.store.job_dir(&id).join("result/result.json");
    match tokio::fs::read(&path).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(e) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("cannot read the result: {e}"),
        ),
    }
}

async fn delete_job(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    UrlPath(id): UrlPath<String>,
) -> Response {
    if let Err(r) = own_job(&shared, &user, &id) {
        return r;
    }
    let store_shared = shared.clone();
    let deleted = tokio::task::spawn_blocking(move || store_shared.delete_job(user.id, &id)).await;
    match deleted {
        Ok(Ok(true)) => StatusCode::NO_CONTENT.into_response(),
        Ok(Ok(false)) => error(StatusCode::NOT_FOUND, "no such job"),
        Ok(Err(e)) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

async fn revoke_job(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    UrlPath(id): UrlPath<String>,
) -> Response {
    set_revoked(&shared, &user, &id, true)
}

async fn restore_job(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    UrlPath(id): UrlPath<String>,
) -> Response {
    set_revoked(&shared, &user, &id, false)
}

/// Revokes or restores the public result of the caller's job `id`; the
/// job as JSON.
pub(crate) fn set_revoked(shared: &Shared, user: &User, id: &str, revoked: bool) -> Response {
    if let Err(r) = own_job(shared, user, id) {
        return r;
    }
    match shared.store.set_revoked(user.id, id, revoked) {
        Ok(true) => {}
        Ok(false) => return error(StatusCode::NOT_FOUND, "no such job"),
        Err(e) => return error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
    match own_job(shared, user, id) {
        Ok(job) => Json(job_json(shared, &job)).into_response(),
        Err(r) => r,
    }
}

/// Adds an uploaded file, or the files of a zip archive, to `files`.
fn add_upload(
    shared: &Shared,
    files: &mut Vec<UploadedFile>,
    total: &mut u64,
    id: u32,
    name: &str,
    bytes: Vec<u8>,
) -> Result<(), String> {
    let limits = shared.limits;
    let mut push = |name: String, bytes: Vec<u8>| -> Result<(), String> {
        if files.len() >= limits.max_files {
            return Err(format!(
                "more than {} files in one job, this server's limit",
                limits.max_files
            ));
        }
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(format!(
                "file {name} has {} bytes; this server takes at most {} bytes per file",
                bytes.len(),
                limits.max_file_bytes
            ));
        }
        *total += bytes.len() as u64;
        if *total > limits.max_job_bytes {
            return Err(format!(
                "the files of this job exceed {} bytes, this server's limit per job",
                limits.max_job_bytes
            ));
        }
        files.push(UploadedFile {
            id,
            language: String::new(),
            name,
            bytes,
        });
        Ok(())
    };
    if !name.to_ascii_lowercase().ends_with(".zip") {
        return push(name.to_string(), bytes);
    }
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("{name} is not a readable zip archive: {e}"))?;
    let mut entries = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| format!("{name}: entry {i} cannot be read: {e}"))?;
        if !entry.is_file() {
            continue;
        }
        let Some(path) = entry.enclosed_name() else {
            return Err(format!("{name}: entry {i} leaves the archive"));
        };
        let entry_name = path.to_string_lossy().replace('\\', "/");
        if entry_name.starts_with("__MACOSX/") || entry_name.split('/').any(|c| c.starts_with('.'))
        {
            continue;
        }
        let mut data = Vec::new();
        (&mut entry)
            .take(limits.max_file_bytes + 1)
            .read_to_end(&mut data)
            .map_err(|e| format!("{name}: {entry_name} cannot be read: {e}"))?;
        entries.push((entry_name, data));
    }
    // A zip with every file at its top is one student's (`alice.zip`, as
    // course sites hand them out): its files are named under the archive's
    // name, so that several such zips make several submissions with -d.
    let one_student = entries.iter().all(|(n, _)| !n.contains('/'));
    let stem = name
        .rsplit('/')
        .next()
        .unwrap_or(name)
        .trim_end_matches(".zip")
        .trim_end_matches(".ZIP");
    for (entry_name, data) in entries {
        let full = if one_student {
            format!("{stem}/{entry_name}")
        } else {
            entry_name
        };
        push(full, data)?;
    }
    Ok(())
}

/// Reads a job's upload and options from a multipart body (the API's
/// and the web form's fields are the same).
pub(crate) async fn read_upload(
    shared: &Shared,
    user: &User,
    mut multipart: Multipart,
) -> Result<Upload, Response> {
    let mut upload = Upload {
        user_id: user.id,
        ..Upload::default()
    };
    let mut total = 0u64;
    let bad = |m: String| error(StatusCode::BAD_REQUEST, m);
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => return Err(bad(format!("the multipart body cannot be read: {e}"))),
        };
        let name = field.name().unwrap_or_default().to_string();
        let file_name = field.file_name().map(str::to_string);
        let data = match field.bytes().await {
            Ok(d) => d.to_vec(),
            Err(e) => return Err(bad(format!("field `{name}` cannot be read: {e}"))),
        };
        let text = || String::from_utf8_lossy(&data).trim().to_string();
        let number = |field: &str| -> Result<Option<u32>, Response> {
            let t = text();
            if t.is_empty() {
                return Ok(None);
            }
            t.parse::<u32>()
                .map(Some)
                .map_err(|_| bad(format!("`{field}` must be a non-negative integer")))
        };
        match name.as_str() {
            "file" | "base" => {
                let id = if name == "base" { 0 } else { 1 };
                // A form's empty file input sends a part without a name.
                let Some(file_name) = file_name.filter(|n| !n.is_empty()) else {
                    if data.is_empty() {
                        continue;
                    }
                    return Err(bad(format!("a `{name}` part needs a file name")));
                };
                if let Err(m) =
                    add_upload(shared, &mut upload.files, &mut total, id, &file_name, data)
                {
                    return Err(error(StatusCode::PAYLOAD_TOO_LARGE, m));
                }
            }
            "language" => upload.language = Some(text()).filter(|l| !l.is_empty()),
            "directory" => {
                upload.directory = match text().as_str() {
                    "1" | "true" | "on" => true,
                    "0" | "false" | "off" | "" => false,
                    _ => return Err(bad("`directory` must be true or false".into())),
                }
            }
            "max_matches" => upload.max_matches = number("max_matches")?,
            "show" => upload.show = number("show")?,
            "comment" => upload.comment = text(),
            "archive" => upload.archive = Some(text()).filter(|a| !a.is_empty()),
            other => return Err(bad(format!("unknown field `{other}`"))),
        }
    }
    Ok(upload)
}

/// Submits an upload: the new job, or the refusal as a response.
pub(crate) async fn start_job(shared: &Arc<Shared>, upload: Upload) -> Result<Job, Response> {
    match submit(shared, upload).await {
        Ok((id, _task)) => match shared.store.job(&id) {
            Ok(Some(job)) => Ok(job),
            Ok(None) => Err(error(StatusCode::NOT_FOUND, "the job was deleted")),
            Err(e) => Err(error(StatusCode::SERVICE_UNAVAILABLE, e.to_string())),
        },
        Err(refusal) if refusal.busy => {
            Err(error(StatusCode::SERVICE_UNAVAILABLE, refusal.message))
        }
        Err(refusal) => Err(error(StatusCode::BAD_REQUEST, refusal.message)),
    }
}

async fn create_job(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    multipart: Result<Multipart, MultipartRejection>,
) -> Response {
    let multipart = match multipart {
        Ok(m) => m,
        Err(e) => return error(e.status(), e.body_text()),
    };
    let upload = match read_upload(&shared, &user, multipart).await {
        Ok(u) => u,
        Err(r) => return r,
    };
    match start_job(&shared, upload).await {
        Ok(job) => (StatusCode::ACCEPTED, Json(job_json(&shared, &job))).into_response(),
        Err(r) => r,
    }
}

#[derive(serde::Deserialize)]
pub(crate) struct NewArchive {
    pub(crate) name: String,
    pub(crate) language: String,
}

async fn list_archives(State(shared): State<Arc<Shared>>, AuthUser(user): AuthUser) -> Response {
    match shared.store.archives_of(user.id) {
        Ok(list) => Json(json!({ "archives": list })).into_response(),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

pub(crate) async fn create_archive(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    body: Result<Json<NewArchive>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(new) = match body {
        Ok(b) => b,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.body_text()),
    };
    let Some(lang) = crate::job::language(new.language.trim()) else {
        return error(
            StatusCode::BAD_REQUEST,
            format!("language `{}` is not supported", new.language),
        );
    };
    let id = match crate::store::random_hex(16) {
        Ok(id) => id,
        Err(e) => return error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    };
    let archive = crate::store::Archive {
        id: id.clone(),
        user_id: user.id,
        name: new.name.trim().to_string(),
        language: lang.name().to_string(),
        created: crate::store::now(),
    };
    let store_shared = shared.clone();
    let record = archive.clone();
    let created = tokio::task::spawn_blocking(move || -> Result<(), String> {
        crate::job::create_archive(&store_shared.store.archive_dir(&record.id), lang)?;
        store_shared
            .store
            .insert_archive(&record)
            .map_err(|e| e.to_string())
    })
    .await;
    match created {
        Ok(Ok(())) => (StatusCode::CREATED, Json(archive)).into_response(),
        Ok(Err(e)) => error(StatusCode::SERVICE_UNAVAILABLE, e),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

async fn delete_archive(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    UrlPath(id): UrlPath<String>,
) -> Response {
    if !is_job_id(&id) {
        return error(StatusCode::NOT_FOUND, "no such archive");
    }
    let store_shared = shared.clone();
    let deleted =
        tokio::task::spawn_blocking(move || store_shared.store.delete_archive(user.id, &id)).await;
    match deleted {
        Ok(Ok(true)) => StatusCode::NO_CONTENT.into_response(),
        Ok(Ok(false)) => error(StatusCode::NOT_FOUND, "no such archive"),
        Ok(Err(e)) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

/// Adds a finished job's submissions to an archive, tagged with the job's
/// comment (or its id when it has none).
pub(crate) async fn add_job_to_archive(
    State(shared): State<Arc<Shared>>,
    AuthUser(user): AuthUser,
    UrlPath((id, job_id)): UrlPath<(String, String)>,
) -> Response {
    let archive = match is_job_id(&id).then(|| shared.store.archive(user.id, &id)) {
        Some(Ok(Some(a))) => a,
        Some(Err(e)) => return error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
        _ => return error(StatusCode::NOT_FOUND, "no such archive"),
    };
    let job = match own_job(&shared, &user, &job_id) {
        Ok(job) => job,
        Err(r) => return r,
    };
    let tag = if job.comment.is_empty() {
        job.id.clone()
    } else {
        job.comment.clone()
    };
    let store_shared = shared.clone();
    let added = tokio::task::spawn_blocking(move || {
        crate::job::archive_job(
            &store_shared.store.job_dir(&job.id),
            &store_shared.store.archive_dir(&archive.id),
            &tag,
        )
    })
    .await;
    match added {
        Ok(Ok(n)) => Json(json!({ "added_submissions": n })).into_response(),
        Ok(Err(e)) => error(StatusCode::CONFLICT, e),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}
