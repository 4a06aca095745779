//! The web UI: log in with the token, upload a class, watch its jobs
//! (each with its page showing the running stage), open the reports,
//! revoke and restore their public links, delete them. Pages are rendered
//! on the server and work without JavaScript (a page with unfinished jobs
//! reloads itself: a `Refresh` header on the list, a `<meta
//! http-equiv="refresh">` on a job's page); the one stylesheet is compiled into the
//! binary. The token is kept in an HttpOnly, SameSite=Strict cookie, so
//! another site cannot submit the forms on the user's behalf.

use std::sync::Arc;

use axum::extract::multipart::MultipartRejection;
use axum::extract::{Form, Multipart, Path as UrlPath, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use bryo_frontend::Language;
use bryo_html::escape_html;
use serde::Deserialize;

use crate::api::{read_upload, set_revoked, start_job, token_user, AuthUser};
use crate::server::Shared;
use crate::store::{is_job_id, Job, JobState, User};

const STYLE: &str = include_str!("ui.css");
const COOKIE: &str = "bryo_token";

/// The UI's routes.
pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/", get(home))
        .route("/ui/style.css", get(style))
        .route("/ui/login", post(login))
        .route("/ui/logout", post(logout))
        .route("/ui/jobs", get(jobs_page).post(upload))
        .route("/ui/jobs/{id}", get(job_page))
        .route("/ui/jobs/{id}/delete", post(delete))
        .route("/ui/jobs/{id}/revoke", post(revoke))
        .route("/ui/jobs/{id}/restore", post(restore))
        .route("/ui/jobs/{id}/archive", post(archive_job))
        .route("/ui/archives", post(new_archive))
}

fn html(status: StatusCode, title: &str, body: &str) -> Response {
    html_page(status, title, body, false)
}

/// A page; `refresh`: it reloads itself every two seconds.
fn html_page(status: StatusCode, title: &str, body: &str, refresh: bool) -> Response {
    let refresh = if refresh {
        "<meta http-equiv=\"refresh\" content=\"2\">"
    } else {
        ""
    };
    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">{refresh}\
         <title>{} · bryo</title><link rel=\"stylesheet\" href=\"/ui/style.css\"></head>\
         <body><header><a href=\"/\" class=\"brand\">bryo</a></header><main>{body}</main></body></html>\n",
        escape_html(title)
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        page,
    )
        .into_response()
}

fn cookie_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
}

/// The user logged in with the UI's cookie.
pub(crate) fn session_user(shared: &Shared, headers: &HeaderMap) -> Option<User> {
    cookie_token(headers).and_then(|t| token_user(shared, &t).ok())
}

fn login_page(status: StatusCode, message: &str) -> Response {
    let note = if message.is_empty() {
        String::new()
    } else {
        format!("<p class=\"error\">{}</p>", escape_html(message))
    };
    html(
        status,
        "Log in",
        &format!(
            "<h1>Log in</h1>{note}<p>Use the token printed by <code>bryo serve user add</code>.</p>\
             <form method=\"post\" action=\"/ui/login\"><label>Token <input name=\"token\" \
             type=\"password\" autocomplete=\"current-password\" required></label> \
             <button type=\"submit\">Log in</button></form>"
        ),
    )
}

async fn home(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if session_user(&shared, &headers).is_some() {
        return Redirect::to("/ui/jobs").into_response();
    }
    login_page(StatusCode::OK, "")
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(State(shared): State<Arc<Shared>>, Form(form): Form<LoginForm>) -> Response {
    let token = form.token.trim();
    if token.is_empty() || token_user(&shared, token).is_err() {
        return login_page(StatusCode::UNAUTHORIZED, "Unknown or disabled token.");
    }
    let secure = if shared.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict{secure}");
    let mut r = Redirect::to("/ui/jobs").into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

async fn logout() -> Response {
    let mut r = Redirect::to("/").into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("bryo_token=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    );
    r
}

fn when(secs: i64) -> String {
    // Days since the epoch to a civil date (Howard Hinnant's algorithm).
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

async fn jobs_page(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let Some(user) = session_user(&shared, &headers) else {
        return Redirect::to("/").into_response();
    };
    let (jobs, archives) = match (
        shared.store.jobs_of(user.id),
        shared.store.archives_of(user.id),
    ) {
        (Ok(j), Ok(a)) => (j, a),
        (Err(e), _) | (_, Err(e)) => {
            return html(
                StatusCode::SERVICE_UNAVAILABLE,
                "Unavailable",
                &escape_html(&e.to_string()),
            )
        }
    };
    let archive_options: String = archives
        .iter()
        .map(|a| {
            format!(
                "<option value=\"{}\">{} ({})</option>",
                a.id,
                escape_html(&a.name),
                escape_html(&a.language)
            )
        })
        .collect();
    let mut body = format!(
        "<form method=\"post\" action=\"/ui/logout\" class=\"logout\"><span>{}</span> \
         <button type=\"submit\">Log out</button></form>",
        escape_html(&user.email)
    );
    body.push_str(
        "<h1>New comparison</h1>\
         <form method=\"post\" action=\"/ui/jobs\" enctype=\"multipart/form-data\" class=\"upload\">\
         <label>Submissions (a zip of directories, several zips, or files) \
         <input type=\"file\" name=\"file\" multiple required></label>\
         <label>Base code (optional) <input type=\"file\" name=\"base\" multiple></label>\
         <label>Language <select name=\"language\">",
    );
    for lang in Language::all() {
        let selected = if lang.name() == "python" {
            " selected"
        } else {
            ""
        };
        body.push_str(&format!(
            "<option value=\"{n}\"{selected}>{n}</option>",
            n = escape_html(lang.name())
        ));
    }
    body.push_str(
        "</select></label>\
         <label><input type=\"checkbox\" name=\"directory\" checked> Each directory is one submission (-d)</label>\
         <label>Passages in more than N submissions are ignored (-m; empty: only template code) \
         <input type=\"number\" name=\"max_matches\" min=\"0\"></label>\
         <label>Pairs shown (-n) <input type=\"number\" name=\"show\" min=\"0\" value=\"250\"></label>\
         <label>Comment (also the tag when archived) <input type=\"text\" name=\"comment\"></label>",
    );
    body.push_str(&format!(
        "<label>Compare against past terms <select name=\"archive\"><option value=\"\">none</option>{archive_options}</select></label>\
         <button type=\"submit\">Compare</button></form>"
    ));
    body.push_str("<h1>Your comparisons</h1>");
    if jobs.is_empty() {
        body.push_str("<p>None yet.</p>");
    } else {
        body.push_str(
            "<table class=\"jobs\"><thead><tr><th>Submitted</th><th>Comment</th><th>Files</th>\
             <th>State</th><th>Result</th><th></th></tr></thead><tbody>",
        );
        for job in &jobs {
            let url = shared.result_url(&job.id);
            let result = match job.state {
                JobState::Done => {
                    let mut links = format!(
                        "<a href=\"{u}\">MOSS pages</a> · <a href=\"{u}report/index.html\">report</a> · \
                         <a href=\"{u}result.json\">JSON</a>",
                        u = escape_html(&url)
                    );
                    if !archives.is_empty() {
                        links.push_str(&format!(
                            "<form method=\"post\" action=\"/ui/jobs/{}/archive\" class=\"archive\">\
                             <select name=\"archive\">{archive_options}</select> \
                             <button type=\"submit\">Add to archive</button></form>",
                            job.id
                        ));
                    }
                    links
                }
                JobState::Failed => escape_html(job.reason.as_deref().unwrap_or("")),
                _ => "…".to_string(),
            };
            let revoked = if job.revoked {
                " <span class=\"revoked\">revoked</span>"
            } else {
                ""
            };
            body.push_str(&format!(
                "<tr data-job=\"{id}\"><td><a href=\"/ui/jobs/{id}\">{}</a></td><td>{}</td><td>{}</td>\
                 <td class=\"state\">{}{revoked}</td>\
                 <td>{result}</td><td><form method=\"post\" action=\"/ui/jobs/{id}/delete\">\
                 <button type=\"submit\">Delete</button></form></td></tr>",
                when(job.created),
                escape_html(&job.comment),
                job.files,
                escape_html(&state_text(&shared, job)),
                id = job.id,
            ));
        }
        body.push_str("</tbody></table>");
    }
    body.push_str("<h1>Archives of past terms</h1>");
    if archives.is_empty() {
        body.push_str("<p>None yet.</p>");
    } else {
        body.push_str("<ul>");
        for a in &archives {
            body.push_str(&format!(
                "<li>{} ({})</li>",
                escape_html(&a.name),
                escape_html(&a.language)
            ));
        }
        body.push_str("</ul>");
    }
    body.push_str(
        "<form method=\"post\" action=\"/ui/archives\" class=\"upload\">\
         <label>New archive <input type=\"text\" name=\"name\" required></label>\
         <label>Language <select name=\"language\">",
    );
    for lang in Language::all() {
        body.push_str(&format!(
            "<option value=\"{n}\">{n}</option>",
            n = escape_html(lang.name())
        ));
    }
    body.push_str("</select></label><button type=\"submit\">Create</button></form>");
    let mut r = html(StatusCode::OK, "Comparisons", &body);
    if jobs
        .iter()
        .any(|j| matches!(j.state, JobState::Queued | JobState::Running))
    {
        r.headers_mut()
            .insert(header::REFRESH, HeaderValue::from_static("2"));
    }
    r
}

/// A job's state for people: a running job's stage and how far it got.
fn state_text(shared: &Shared, job: &Job) -> String {
    if job.state != JobState::Running {
        return job.state.as_str().to_string();
    }
    match shared.progress(&job.id) {
        Some(p) => match p.stage {
            Some(stage) if p.total > 0 => format!("running: {stage} {}/{}", p.done, p.total),
            Some(stage) => format!("running: {stage}"),
            None => "running".to_string(),
        },
        None => "running".to_string(),
    }
}

/// One job: its state (a running job's stage), its result links, its
/// public link revoked or not, and the buttons to change that or delete it.
async fn job_page(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Response {
    let Some(user) = session_user(&shared, &headers) else {
        return Redirect::to("/").into_response();
    };
    let missing = || {
        html(
            StatusCode::NOT_FOUND,
            "Not found",
            "<p>No such comparison.</p>",
        )
    };
    if !is_job_id(&id) {
        return missing();
    }
    let job = match shared.store.job(&id) {
        Ok(Some(job)) if job.user_id == user.id => job,
        Ok(_) => return missing(),
        Err(e) => {
            return html(
                StatusCode::SERVICE_UNAVAILABLE,
                "Unavailable",
                &escape_html(&e.to_string()),
            )
        }
    };
    let url = escape_html(&shared.result_url(&job.id));
    let title = if job.comment.is_empty() {
        "Comparison".to_string()
    } else {
        format!("Comparison: {}", job.comment)
    };
    let mut body = format!(
        "<p><a href=\"/ui/jobs\">All comparisons</a></p><h1>{}</h1><dl class=\"job\">\
         <dt>Submitted</dt><dd>{}</dd><dt>Files</dt><dd>{} ({} bytes)</dd>\
         <dt>State</dt><dd class=\"state\">{}</dd>",
        escape_html(&title),
        when(job.created),
        job.files,
        job.bytes,
        escape_html(&state_text(&shared, &job)),
    );
    match job.state {
        JobState::Done => body.push_str(&format!(
            "<dt>Result</dt><dd><a href=\"{url}\">MOSS pages</a> · \
             <a href=\"{url}report/index.html\">report</a> · <a href=\"{url}result.json\">JSON</a></dd>"
        )),
        JobState::Failed => body.push_str(&format!(
            "<dt>Why it failed</dt><dd class=\"error\">{}</dd>",
            escape_html(job.reason.as_deref().unwrap_or("no reason was recorded"))
        )),
        _ => {}
    }
    let (link, action, button) = if job.revoked {
        (
            "<span class=\"revoked\">revoked</span>: the result URL answers 404 to everyone but you",
            "restore",
            "Restore the link",
        )
    } else {
        (
            "anyone who has the result URL can open it",
            "revoke",
            "Revoke the link",
        )
    };
    body.push_str(&format!(
        "<dt>Public link</dt><dd>{link}</dd></dl>\
         <form method=\"post\" action=\"/ui/jobs/{id}/{action}\"><button type=\"submit\">{button}</button></form>\
         <form method=\"post\" action=\"/ui/jobs/{id}/delete\"><button type=\"submit\">Delete</button></form>",
        id = job.id
    ));
    let unfinished = matches!(job.state, JobState::Queued | JobState::Running);
    html_page(StatusCode::OK, &title, &body, unfinished)
}

async fn revoke(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Response {
    revoke_or_restore(&shared, &headers, &id, true).await
}

async fn restore(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Response {
    revoke_or_restore(&shared, &headers, &id, false).await
}

async fn revoke_or_restore(
    shared: &Shared,
    headers: &HeaderMap,
    id: &str,
    revoked: bool,
) -> Response {
    let Some(user) = session_user(shared, headers) else {
        return login_page(StatusCode::UNAUTHORIZED, "Log in first.");
    };
    let r = set_revoked(shared, &user, id, revoked);
    if r.status().is_success() {
        return Redirect::to(&format!("/ui/jobs/{id}")).into_response();
    }
    as_page(r).await
}

async fn upload(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> Response {
    let Some(user) = session_user(&shared, &headers) else {
        return login_page(StatusCode::UNAUTHORIZED, "Log in first.");
    };
    let multipart = match multipart {
        Ok(m) => m,
        Err(e) => {
            return html(
                e.status(),
                "Upload refused",
                &format!("<p class=\"error\">{}</p>", escape_html(&e.body_text())),
            )
        }
    };
    let result = match read_upload(&shared, &user, multipart).await {
        Ok(upload) => start_job(&shared, upload).await,
        Err(r) => Err(r),
    };
    match result {
        Ok(_) => Redirect::to("/ui/jobs").into_response(),
        Err(r) => {
            let status = r.status();
            let bytes = axum::body::to_bytes(r.into_body(), 1 << 16)
                .await
                .unwrap_or_default();
            let message = serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_string))
                .unwrap_or_else(|| "the upload was refused".to_string());
            html(
                status,
                "Upload refused",
                &format!(
                    "<h1>Upload refused</h1><p class=\"error\">{}</p><p><a href=\"/ui/jobs\">Back</a></p>",
                    escape_html(&message)
                ),
            )
        }
    }
}

async fn delete(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Response {
    let Some(user) = session_user(&shared, &headers) else {
        return login_page(StatusCode::UNAUTHORIZED, "Log in first.");
    };
    if !is_job_id(&id) {
        return html(
            StatusCode::NOT_FOUND,
            "Not found",
            "<p>No such comparison.</p>",
        );
    }
    let store_shared = shared.clone();
    let deleted = tokio::task::spawn_blocking(move || store_shared.delete_job(user.id, &id)).await;
    match deleted {
        Ok(Ok(true)) => Redirect::to("/ui/jobs").into_response(),
        Ok(Ok(false)) => html(
            StatusCode::NOT_FOUND,
            "Not found",
            "<p>No such comparison.</p>",
        ),
        Ok(Err(e)) => html(
            StatusCode::SERVICE_UNAVAILABLE,
            "Unavailable",
            &escape_html(&e.to_string()),
        ),
        Err(e) => html(
            StatusCode::SERVICE_UNAVAILABLE,
            "Unavailable",
            &escape_html(&e.to_string()),
        ),
    }
}

/// Answers an API handler's response as a page: a redirect to the job
/// list when it succeeded, the error otherwise.
async fn as_page(r: Response) -> Response {
    let status = r.status();
    if status.is_success() {
        return Redirect::to("/ui/jobs").into_response();
    }
    let bytes = axum::body::to_bytes(r.into_body(), 1 << 16)
        .await
        .unwrap_or_default();
    let message = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| "refused".to_string());
    html(
        status,
        "Refused",
        &format!(
            "<h1>Refused</h1><p class=\"error\">{}</p><p><a href=\"/ui/jobs\">Back</a></p>",
            escape_html(&message)
        ),
    )
}

#[derive(Deserialize)]
struct ArchiveForm {
    archive: String,
}

async fn archive_job(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
    Form(form): Form<ArchiveForm>,
) -> Response {
    let Some(user) = session_user(&shared, &headers) else {
        return login_page(StatusCode::UNAUTHORIZED, "Log in first.");
    };
    let r =
        crate::api::add_job_to_archive(State(shared), AuthUser(user), UrlPath((form.archive, id)))
            .await;
    as_page(r).await
}

#[derive(Deserialize)]
struct NewArchiveForm {
    name: String,
    language: String,
}

async fn new_archive(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(form): Form<NewArchiveForm>,
) -> Response {
    let body = crate::api::NewArchive {
        name: form.name,
        language: form.language,
    };
    let Some(user) = session_user(&shared, &headers) else {
        return login_page(StatusCode::UNAUTHORIZED, "Log in first.");
    };
    let r = crate::api::create_archive(State(shared), AuthUser(user), Ok(axum::Json(body))).await;
    as_page(r).await
}
