//! A job: its stored upload, the bryo pipeline run on it, and the result
//! pages written next to each other (MOSS's layout, bryo's HTML report,
//! the JSON).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bryo_compare::{
    analyze_inputs_with_archive, compare_against, compare_with_progress, AnalyzeOptions,
    CompareOptions, Normalize, StreamOptions,
};
use bryo_frontend::Language;
use bryo_html::write_html;
use bryo_index::{archive_label, Index, IndexSettings};
use bryo_input::{InputFile, Inputs, Source, Submission};
use bryo_match::{Progress, Stage};
use bryo_report::{write_json, Report};
use serde::{Deserialize, Serialize};

use crate::moss_html::write_moss_pages;
use crate::protocol::Upload;
use crate::ServeError;

/// What a job was asked, as stored in `upload/manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSpec {
    /// Language name (a MOSS name or one of bryo's).
    pub language: String,
    /// MOSS `-d`: files grouped into submissions by their directory.
    pub directory: bool,
    /// MOSS `-m`.
    pub max_matches: Option<u32>,
    /// MOSS `-n`: pairs reported.
    pub show: Option<u32>,
    /// The comment.
    pub comment: String,
    /// The files, in the order received; `stored` is the name of the file
    /// under `upload/`.
    pub files: Vec<StoredFile>,
    /// The archive of past terms compared against, if any.
    #[serde(default)]
    pub archive: Option<String>,
}

/// One uploaded file in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFile {
    /// 0 for base code.
    pub id: u32,
    /// The name the client gave.
    pub name: String,
    /// The file's name under `upload/`.
    pub stored: String,
    /// Its size.
    pub bytes: u64,
}

/// The stage after the comparison's own ([`Stage`]): the result pages
/// are written (the JSON, bryo's report, MOSS's pages: three units).
pub const WRITE_STAGE: &str = "write";

/// A running job's progress, kept in memory while it runs: the stage it
/// is in, the units of work done of the stage's total, the stages it went
/// through; and the flag that cancels it (its owner deleted it).
#[derive(Debug, Default)]
pub struct JobProgress {
    /// The current stage and its total units (0: not counted).
    current: Mutex<Option<(&'static str, u64)>>,
    done: AtomicU64,
    stages: Mutex<Vec<&'static str>>,
    cancelled: AtomicBool,
}

/// What [`JobProgress::snapshot`] reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgressSnapshot {
    /// The current stage: a [`Stage`] name or [`WRITE_STAGE`].
    pub stage: Option<&'static str>,
    /// Units of the current stage done.
    pub done: u64,
    /// Its units in all; 0 when the stage does not count its work.
    pub total: u64,
    /// Every stage started so far, in order.
    pub stages: Vec<&'static str>,
}

impl JobProgress {
    fn begin(&self, stage: &'static str, total: u64) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some((stage, total));
        self.done.store(0, Ordering::Relaxed);
        self.stages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(stage);
    }

    /// Where the job is now.
    pub fn snapshot(&self) -> ProgressSnapshot {
        let current = *self.current.lock().unwrap_or_else(|p| p.into_inner());
        let stages = self
            .stages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let total = current.map_or(0, |c| c.1);
        ProgressSnapshot {
            stage: current.map(|c| c.0),
            // Parallel stages may report a little past their total.
            done: if total > 0 {
                self.done.load(Ordering::Relaxed).min(total)
            } else {
                self.done.load(Ordering::Relaxed)
            },
            total,
            stages,
        }
    }

    /// Asks the job to stop at its next check, keeping nothing.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`cancel`](JobProgress::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

impl Progress for JobProgress {
    fn start(&self, stage: Stage, work: u64) {
        self.begin(stage.name(), work);
    }

    fn advance(&self, done: u64) {
        self.done.fetch_add(done, Ordering::Relaxed);
    }

    fn cancelled(&self) -> bool {
        self.is_cancelled()
    }
}

/// The message of a job stopped because it was deleted.
pub const CANCELLED: &str = "the job was deleted while it ran";

/// The language of a MOSS `language` line, if bryo compares it.
pub fn language(name: &str) -> Option<&'static Language> {
    Language::by_name(name)
}

/// Writes an upload into `jobs/<id>/upload` (through `upload.tmp`, renamed
/// when complete) and returns its spec.
pub fn store_upload(job_dir: &Path, upload: &Upload) -> Result<JobSpec, ServeError> {
    let tmp = job_dir.join("upload.tmp");
    let done = job_dir.join("upload");
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(|e| ServeError::io(&tmp, e))?;
    }
    fs::create_dir_all(&tmp).map_err(|e| ServeError::io(&tmp, e))?;
    let mut files = Vec::with_capacity(upload.files.len());
    for (i, f) in upload.files.iter().enumerate() {
        let stored = format!("{i:06}");
        let path = tmp.join(&stored);
        fs::write(&path, &f.bytes).map_err(|e| ServeError::io(&path, e))?;
        files.push(StoredFile {
            id: f.id,
            name: f.name.clone(),
            stored,
            bytes: f.bytes.len() as u64,
        });
    }
    let spec = JobSpec {
        language: upload.language.clone().unwrap_or_else(|| "c".to_string()),
        directory: upload.directory,
        max_matches: upload.max_matches,
        show: upload.show,
        comment: upload.comment.clone(),
        files,
        archive: upload.archive.clone(),
    };
    let manifest = tmp.join("manifest.json");
    let json = serde_json::to_vec_pretty(&spec).map_err(|e| ServeError::Other(e.to_string()))?;
    fs::write(&manifest, json).map_err(|e| ServeError::io(&manifest, e))?;
    sync_dir(&tmp);
    fs::rename(&tmp, &done).map_err(|e| ServeError::io(&done, e))?;
    sync_dir(job_dir);
    Ok(spec)
}

/// Flushes a directory's entries to disk where the platform allows it.
fn sync_dir(dir: &Path) {
    if let Ok(f) = fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// The crash and cancellation tests catch a job while its result is
/// half written: `BRYO_SERVE_PAUSE_MS` holds every job there that long,
/// or until it is cancelled.
fn test_pause(progress: &JobProgress) {
    if let Some(ms) = std::env::var("BRYO_SERVE_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        let end = Instant::now() + Duration::from_millis(ms);
        while Instant::now() < end && !progress.is_cancelled() {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Groups the files into submissions as MOSS does: each file alone, or
/// with `-d` by the directory part of its name.
fn inputs(spec: &JobSpec, upload_dir: &Path) -> Result<Inputs, String> {
    let mut base = Vec::new();
    let mut groups: BTreeMap<String, Vec<InputFile>> = BTreeMap::new();
    for f in &spec.files {
        let path = upload_dir.join(&f.stored);
        let bytes = fs::read(&path).map_err(|e| format!("cannot read the stored upload: {e}"))?;
        let file = InputFile {
            display_path: f.name.clone(),
            bytes,
            source: Source::File(path),
            size_hint: None,
        };
        if f.id == 0 {
            base.push(file);
            continue;
        }
        let group = if spec.directory {
            match f.name.rsplit_once('/') {
                Some((dir, _)) if !dir.is_empty() => dir.to_string(),
                _ => f.name.clone(),
            }
        } else {
            f.name.clone()
        };
        groups.entry(group).or_default().push(file);
    }
    let submissions = groups
        .into_iter()
        .map(|(name, mut files)| {
            files.sort_by(|a, b| a.display_path.cmp(&b.display_path));
            Submission {
                name,
                old: false,
                files,
            }
        })
        .collect();
    Ok(Inputs {
        submissions,
        base,
        skipped: Vec::new(),
    })
}

/// Runs a stored job and writes its result into `jobs/<id>/result`
/// (through `result.tmp`), reporting its stages to `progress`.
/// `public_base` is the URL prefix of the result pages' absolute links
/// (`…/results/<id>/`). An `Err` is the failure reason shown to the
/// user; a cancelled job ends with [`CANCELLED`] and leaves no
/// `result.tmp` behind.
pub fn run_job(
    job_dir: &Path,
    archives_dir: &Path,
    public_base: &str,
    progress: &JobProgress,
) -> Result<(), String> {
    let cancelled = |e: String| {
        if progress.is_cancelled() {
            CANCELLED.to_string()
        } else {
            e
        }
    };
    let upload = job_dir.join("upload");
    let spec = read_spec(&upload)?;
    let lang = language(&spec.language)
        .ok_or_else(|| format!("language `{}` is not supported", spec.language))?;
    if !spec.files.iter().any(|f| f.id != 0) {
        return Err("No files uploaded to compare.".to_string());
    }
    let inputs = inputs(&spec, &upload)?;
    let mut sources: HashMap<String, Vec<u8>> = inputs
        .submissions
        .iter()
        .flat_map(|s| &s.files)
        .chain(&inputs.base)
        .map(|f| (f.display_path.clone(), f.bytes.clone()))
        .collect();
    let options = CompareOptions {
        // `bryo compare`'s defaults, token normalization included.
        analyze: AnalyzeOptions {
            language: Some(lang),
            normalize: Normalize::Auto,
            ..AnalyzeOptions::default()
        },
        max_submissions: spec.max_matches.map(|m| m as usize),
        max_pairs: spec.show.map_or(250, |n| n as usize),
        comment: (!spec.comment.is_empty()).then(|| spec.comment.clone()),
        directory_mode: spec.directory,
        base_names: inputs.base.iter().map(|f| f.display_path.clone()).collect(),
        ..CompareOptions::default()
    };
    let mut archive_index = None;
    let mut options = options;
    if let Some(id) = &spec.archive {
        let index = Index::open(&archives_dir.join(id))
            .map_err(|e| format!("the archive of past terms cannot be opened (deleted?): {e}"))?;
        let stored = *index.settings();
        if stored.analyze.language.map(Language::name) != Some(lang.name()) {
            return Err(format!(
                "the archive holds {} submissions; this job is {}",
                stored.analyze.language.map_or("mixed", Language::name),
                lang.name()
            ));
        }
        options.analyze = stored.analyze;
        options.k = Some(stored.config.k());
        options.w = Some(stored.config.w());
        options.old_names = vec![format!("archive {id}")];
        archive_index = Some(index);
    }
    // Archived submissions are named `name [TAG]`, as `bryo compare
    // --against` names them.
    let report = match archive_index {
        None => {
            compare_with_progress(inputs, &options, progress)
                .map_err(|e| cancelled(e.to_string()))?
                .report
        }
        // Without base code the archive is read in part: its statistics,
        // the postings of the new files' hashes and the submissions of the
        // pairs chosen, whose sources the result pages then show.
        Some(index) if inputs.base.is_empty() => {
            let archive = index.archive().map_err(|e| e.to_string())?;
            let mut stream = StreamOptions::new(ARCHIVE_QUERY_MEMORY, job_dir.to_path_buf());
            stream.max_file_size = u64::MAX;
            let report = compare_against(inputs, &archive, &options, &stream, progress)
                .map_err(|e| cancelled(e.to_string()))?
                .report;
            let new = report.submissions.iter().take_while(|s| !s.old).count();
            let shown: std::collections::BTreeSet<usize> = report
                .pairs
                .iter()
                .flat_map(|p| [p.a, p.b])
                .filter(|&i| i >= new)
                .collect();
            for i in shown {
                for (path, bytes) in archive.sources(i - new).map_err(|e| e.to_string())? {
                    sources.insert(path, bytes);
                }
            }
            report
        }
        // Base code is marked in every archived file: loaded whole.
        Some(index) => {
            let mut archived = Vec::new();
            for a in index.archived().map_err(|e| e.to_string())? {
                let mut submission = a.submission;
                let label = archive_label(&a.tag);
                submission.name = format!("{} {label}", submission.name);
                for ((file, _), source) in submission.files.iter_mut().zip(a.sources) {
                    file.path = format!("{} {label}", file.path);
                    sources.insert(file.path.clone(), source);
                }
                archived.push(submission);
            }
            let analysis = analyze_inputs_with_archive(inputs, archived, &options, progress)
                .map_err(|e| cancelled(e.to_string()))?;
            let comparison = (|| -> Result<_, bryo_match::Error> {
                let corpus = analysis.corpus();
                let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), progress)?
                    .index(progress)?;
                let candidates = indexed.pairs(progress)?;
                indexed.fragments(candidates, progress)
            })()
            .map_err(|e| cancelled(e.to_string()))?;
            analysis.report(comparison, &options, progress).report
        }
    };
    let written = write_result(job_dir, &report, &sources, public_base, progress);
    if progress.is_cancelled() {
        // Deleted while it ran: whatever was written goes (the job's
        // directory is removed by the deletion; this is its leftover).
        let tmp = job_dir.join("result.tmp");
        if tmp.exists() {
            let _ = fs::remove_dir_all(&tmp);
        }
        return Err(CANCELLED.to_string());
    }
    written.map_err(|e| format!("cannot write the result: {e}"))
}

fn read_spec(upload: &Path) -> Result<JobSpec, String> {
    let manifest = fs::read(upload.join("manifest.json"))
        .map_err(|e| format!("the stored upload is incomplete: {e}"))?;
    serde_json::from_slice(&manifest).map_err(|e| format!("the stored upload is damaged: {e}"))
}

/// Memory for the new submissions' postings and pair counts in a job
/// against an archive (beyond it they are spilled in the job's directory).
const ARCHIVE_QUERY_MEMORY: usize = 512 << 20;

/// Creates an empty archive (a `bryo index`) for `language` in `dir`.
pub fn create_archive(dir: &Path, language: &'static Language) -> Result<(), String> {
    let analyze = AnalyzeOptions {
        language: Some(language),
        normalize: Normalize::Auto,
        ..AnalyzeOptions::default()
    };
    let settings = IndexSettings::new(analyze, None, None, None).map_err(|e| e.to_string())?;
    Index::create(dir, settings).map_err(|e| e.to_string())?;
    Ok(())
}

/// Adds a job's submissions (not its base code) to an archive, tagged
/// `tag`; returns the number of submissions added.
pub fn archive_job(job_dir: &Path, archive_dir: &Path, tag: &str) -> Result<u64, String> {
    let upload = job_dir.join("upload");
    let spec = read_spec(&upload)?;
    let mut inputs = inputs(&spec, &upload)?;
    inputs.base.clear();
    let n = inputs.submissions.len() as u64;
    let mut index = Index::open(archive_dir).map_err(|e| e.to_string())?;
    index.add(inputs, tag).map_err(|e| e.to_string())?;
    Ok(n)
}

fn write_result(
    job_dir: &Path,
    report: &Report,
    sources: &HashMap<String, Vec<u8>>,
    public_base: &str,
    progress: &JobProgress,
) -> Result<(), ServeError> {
    let stop = || ServeError::Other(CANCELLED.to_string());
    let tmp = job_dir.join("result.tmp");
    let done = job_dir.join("result");
    progress.begin(WRITE_STAGE, 3);
    if progress.is_cancelled() {
        return Err(stop());
    }
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(|e| ServeError::io(&tmp, e))?;
    }
    // Not create_dir_all: a deleted job's directory is not made again.
    fs::create_dir(&tmp).map_err(|e| ServeError::io(&tmp, e))?;
    let json = tmp.join("result.json");
    let mut out = Vec::new();
    write_json(report, &mut out).map_err(|e| ServeError::Other(e.to_string()))?;
    fs::write(&json, out).map_err(|e| ServeError::io(&json, e))?;
    progress.advance(1);
    test_pause(progress);
    if progress.is_cancelled() {
        return Err(stop());
    }
    let loader = |path: &str| -> Result<Vec<u8>, String> {
        sources
            .get(path)
            .cloned()
            .ok_or_else(|| format!("{path} was not uploaded"))
    };
    write_html(report, &loader, &tmp.join("report"))
        .map_err(|e| ServeError::Other(e.to_string()))?;
    progress.advance(1);
    write_moss_pages(report, sources, public_base, &tmp)?;
    progress.advance(1);
    sync_dir(&tmp);
    if progress.is_cancelled() {
        return Err(stop());
    }
    if done.exists() {
        fs::remove_dir_all(&done).map_err(|e| ServeError::io(&done, e))?;
    }
    fs::rename(&tmp, &done).map_err(|e| ServeError::io(&done, e))?;
    sync_dir(job_dir);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::UploadedFile;

    /// A stored upload of three Python submissions, two of them alike.
    fn stored_job(dir: &Path) {
        let a = "def total(xs):\n    s = 0\n    for x in xs:\n        if x > 2:\n            s += x * 3\n    return s\nprint(total([1, 2, 3, 4, 5, 6, 7]))\n";
        let b = "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, v):\n        self.items.append(v)\n";
        let files = [
            ("a.py", a.to_string()),
            ("b.py", a.replace('s', "q")),
            ("c.py", b.to_string()),
        ];
        let upload = Upload {
            language: Some("python".into()),
            files: files
                .iter()
                .enumerate()
                .map(|(i, (name, text))| UploadedFile {
                    id: i as u32 + 1,
                    language: "python".into(),
                    name: name.to_string(),
                    bytes: text.as_bytes().to_vec(),
                })
                .collect(),
            ..Upload::default()
        };
        fs::create_dir_all(dir).unwrap();
        store_upload(dir, &upload).unwrap();
    }

    #[test]
    fn a_job_reports_every_stage_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("job");
        stored_job(&dir);
        let progress = JobProgress::default();
        run_job(&dir, tmp.path(), "http://x/results/id/", &progress).unwrap();
        let seen = progress.snapshot();
        assert_eq!(
            seen.stages,
            [
                "analyze",
                "fingerprint",
                "index",
                "pairs",
                "fragments",
                "report",
                WRITE_STAGE
            ]
        );
        assert_eq!(
            (seen.stage, seen.done, seen.total),
            (Some(WRITE_STAGE), 3, 3)
        );
        assert!(dir.join("result/index.html").is_file());
    }

    #[test]
    fn a_cancelled_job_stops_through_its_progress_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("job");
        stored_job(&dir);
        let progress = JobProgress::default();
        progress.cancel();
        let err = run_job(&dir, tmp.path(), "http://x/results/id/", &progress).unwrap_err();
        assert_eq!(err, CANCELLED);
        // Stopped at the comparison's first check: no stage past analysis.
        assert!(!progress.snapshot().stages.contains(&WRITE_STAGE));
        assert!(!dir.join("result").exists());
        assert!(!dir.join("result.tmp").exists());
    }

    #[test]
    fn every_moss_language_name_is_answered_yes() {
        let moss = [
            "c",
            "cc",
            "java",
            "ml",
            "pascal",
            "ada",
            "lisp",
            "scheme",
            "haskell",
            "fortran",
            "ascii",
            "vhdl",
            "verilog",
            "perl",
            "matlab",
            "python",
            "mips",
            "prolog",
            "spice",
            "vb",
            "csharp",
            "modula2",
            "a8086",
            "javascript",
            "plsql",
        ];
        for name in moss {
            assert!(language(name).is_some(), "{name}");
        }
        for name in ["rust", "text", "html", "go"] {
            assert!(language(name).is_some(), "{name}");
        }
        assert!(language("cobol-85").is_none());
    }
}
