//! The HTTP side: result pages under `/results/<id>/`.

use std::path::{Component, Path};
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path as UrlPath, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;

use crate::server::Shared;
use crate::store::{is_job_id, JobState};

/// The application's routes.
pub fn router(shared: Arc<Shared>) -> Router {
    // An upload's multipart framing and field names on top of the job's
    // own limit.
    let body_limit = usize::try_from(shared.limits.max_job_bytes)
        .unwrap_or(usize::MAX)
        .saturating_add(1 << 20);
    Router::new()
        .route("/results/{id}", get(result_root_redirect))
        .route("/results/{id}/", get(result_index))
        .route("/results/{id}/{*path}", get(result_file))
        .merge(crate::api::router())
        .merge(crate::ui::router())
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(shared)
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title></head>\
         <body><h1>{t}</h1><p>{b}</p></body></html>\n",
        t = bryo_html::escape_html(title),
        b = bryo_html::escape_html(body)
    );
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        html,
    )
        .into_response()
}

fn not_found() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "Not found",
        "There is no result at this address (a wrong link, or its owner deleted or revoked it).",
    )
}

async fn result_root_redirect(UrlPath(id): UrlPath<String>) -> Response {
    if !is_job_id(&id) {
        return not_found();
    }
    Redirect::permanent(&format!("/results/{id}/")).into_response()
}

async fn result_index(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Response {
    serve_result(&shared, &headers, &id, "index.html").await
}

async fn result_file(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    UrlPath((id, path)): UrlPath<(String, String)>,
) -> Response {
    let path = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path
    };
    serve_result(&shared, &headers, &id, &path).await
}

fn content_type(path: &str) -> &'static str {
    match Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("json") => "application/json",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

/// The user a request to a result page comes from: the API's bearer token
/// or the web UI's cookie.
fn viewer(shared: &Shared, headers: &HeaderMap) -> Option<u64> {
    crate::api::authenticate(shared, headers)
        .ok()
        .or_else(|| crate::ui::session_user(shared, headers))
        .map(|u| u.id)
}

/// Serves a file of a finished result; nothing of an unfinished one, and
/// nothing of a revoked one but to its owner.
async fn serve_result(shared: &Arc<Shared>, headers: &HeaderMap, id: &str, path: &str) -> Response {
    if !is_job_id(id) {
        return not_found();
    }
    let relative = Path::new(path);
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return not_found();
    }
    let job = match shared.store.job(id) {
        Ok(Some(job)) => job,
        Ok(None) => return not_found(),
        Err(e) => {
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Unavailable",
                &e.to_string(),
            );
        }
    };
    let owner_sees_revoked = if job.revoked {
        if viewer(shared, headers) != Some(job.user_id) {
            return not_found();
        }
        true
    } else {
        false
    };
    match job.state {
        JobState::Done => {}
        JobState::Queued | JobState::Running => {
            let mut r = page(
                StatusCode::ACCEPTED,
                "Not ready yet",
                "This comparison is still running; reload this page in a moment.",
            );
            r.headers_mut()
                .insert(header::REFRESH, header::HeaderValue::from_static("5"));
            return r;
        }
        JobState::Failed => {
            return page(
                StatusCode::UNPROCESSABLE_ENTITY,
                "This comparison failed",
                job.reason.as_deref().unwrap_or("no reason was recorded"),
            );
        }
    }
    let file = shared.store.job_dir(id).join("result").join(relative);
    // Revalidated every time: a deleted or revoked result must stop
    // showing; what only its owner may see is not kept at all.
    let cache = if owner_sees_revoked {
        "private, no-store"
    } else {
        "no-cache"
    };
    match tokio::fs::read(&file).await {
        Ok(bytes) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, content_type(path)),
                (header::CACHE_CONTROL, cache),
            ],
            bytes,
        )
            .into_response(),
        Err(_) => not_found(),
    }
}
