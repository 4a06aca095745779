//! The compare job: analyze every file in parallel, match, build the report.

use bryo_engine::Config;
use bryo_frontend::{FrontendKind, TextMode};
use bryo_input::{InputFile, Inputs};
use bryo_match::{
    CommonRule, Comparison, Corpus, Document, MatchOptions, Merging, PairScore, Progress, Role,
    Silent, Stage, SubmissionId,
};
use bryo_report::{
    Cluster, FileEntry, FileStatus, Fragment, FragmentPart, Frontend, Location, Options, Pair,
    Region, Report, Scheme, Score, Skipped, Stats, Submission,
};
use rayon::prelude::*;

use crate::analyze::{
    analyze_keeping, compact_runs, AnalyzeError, AnalyzeOptions, Analyzed, Normalize,
};
use crate::identical::{detect, Identical};
use crate::CompareError;
use crate::{FileFingerprint, FileFingerprinter};

/// Default noise threshold `k` and window `w` for a kind of front-end,
/// tuned on labelled data (see BENCHMARKS.md): `(k, w)`.
pub fn default_thresholds(kind: FrontendKind, text_mode: TextMode) -> (usize, usize) {
    match (kind, text_mode) {
        (FrontendKind::Text | FrontendKind::Html, TextMode::Words) => (TEXT_WORDS_K, TEXT_WORDS_W),
        (FrontendKind::Text | FrontendKind::Html, _) => (TEXT_CHARS_K, TEXT_CHARS_W),
        _ => (CODE_K, CODE_W),
    }
}

/// Default shortest fragment counted, in symbols, for a kind of front-end.
///
/// Prose shares short phrases all the time ("at this time there is no",
/// boilerplate sentences of one project's documents): on 2,000 man-page
/// documents with planted passages, fragments under about 80 characters
/// (about 14 words) were mostly such phrases and ranked unrelated documents
/// above planted copies (BENCHMARKS.md). Code keeps every fragment (k
/// already bounds it from below): dropping short ones lowered detection on
/// IR-Plag.
pub fn default_min_fragment(kind: FrontendKind, text_mode: TextMode) -> usize {
    match (kind, text_mode) {
        (FrontendKind::Text | FrontendKind::Html, TextMode::Words) => TEXT_WORDS_MIN_FRAGMENT,
        (FrontendKind::Text | FrontendKind::Html, _) => TEXT_CHARS_MIN_FRAGMENT,
        _ => 0,
    }
}

/// Shortest fragment counted for prose in character mode.
pub const TEXT_CHARS_MIN_FRAGMENT: usize = 80;
/// Shortest fragment counted for prose in word mode.
pub const TEXT_WORDS_MIN_FRAGMENT: usize = 16;

/// Tokens per k-gram for source code.
pub const CODE_K: usize = 12;
/// Winnowing window for source code.
pub const CODE_W: usize = 12;
/// Characters per k-gram for prose in character mode.
pub const TEXT_CHARS_K: usize = 20;
/// Winnowing window for prose in character mode.
pub const TEXT_CHARS_W: usize = 40;
/// Words per k-gram for prose in word mode.
pub const TEXT_WORDS_K: usize = 6;
/// Winnowing window for prose in word mode.
pub const TEXT_WORDS_W: usize = 12;

/// Everything `bryo compare` can be asked.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// Front-end choices.
    pub analyze: AnalyzeOptions,
    /// Noise threshold; `None` takes the front-end's default.
    pub k: Option<usize>,
    /// Winnowing window; `None` takes the default, or follows from `t`.
    pub w: Option<usize>,
    /// Guarantee threshold, instead of `w` (`w = t − k + 1`).
    pub t: Option<usize>,
    /// MOSS `-m`: passages in more submissions than this are ignored; 0 = no
    /// limit. `None` (the default) applies the rarity rule
    /// ([`bryo_match::Rarity`]): only template code is ignored, and
    /// widespread passages stay matchable.
    pub max_submissions: Option<usize>,
    /// MOSS `-n`: pairs reported; 0 = all. Pairs of identical submissions
    /// count like the others, ranked by their matched symbols.
    pub max_pairs: usize,
    /// Pairs below this similarity (0..1) are not reported, except pairs
    /// of identical submissions.
    pub min_similarity: f64,
    /// Fragments shorter than this many symbols are dropped; `None` takes
    /// the front-end's default ([`default_min_fragment`]).
    pub min_fragment_symbols: Option<usize>,
    /// Match merging: neighbouring matches at most this many symbols apart
    /// on both sides merge into one fragment; `Some(0)` merges nothing,
    /// `None` takes the front-end's default ([`default_merging`]).
    pub merge_gap: Option<usize>,
    /// With merging, a gap is also at most this share of the shorter of
    /// the two matches; `None` takes the front-end's default.
    pub merge_ratio: Option<f64>,
    /// Pairs at or above this similarity join a cluster.
    pub cluster_threshold: f64,
    /// How a pair's similarity is computed.
    pub score: bryo_match::PairScore,
    /// Under the rarity rule (no `max_submissions`), whether short matches
    /// of widespread code count less in the similarity (the default; see
    /// [`bryo_match::Rarity::full_weight_kgrams`]).
    pub rarity_discount: bool,
    /// MOSS `-c`.
    pub comment: Option<String>,
    /// MOSS `-d`, recorded in the report.
    pub directory_mode: bool,
    /// Base-code paths as the user gave them, recorded in the report.
    pub base_names: Vec<String>,
    /// Old-term roots as the user gave them, recorded in the report.
    pub old_names: Vec<String>,
    /// Whether the analyzed files keep their decoded text after analysis
    /// ([`Analyzed::text`]; the default). Without it each file keeps its
    /// symbols, spans, lines and the map back to its bytes — all the report
    /// needs — and a run holds one copy of the corpus's text less.
    pub keep_text: bool,
    /// Largest file read during analysis: files discovered with
    /// [`bryo_input::InputOptions::defer_reading`] (held bytes empty) are
    /// read then, and one that has grown past this, or cannot be read, is
    /// skipped with the reason, as discovery would have skipped it. Default
    /// [`bryo_input::DEFAULT_MAX_FILE_SIZE`], discovery's own default.
    pub max_file_size: u64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            analyze: AnalyzeOptions::default(),
            k: None,
            w: None,
            t: None,
            max_submissions: None,
            max_pairs: 250,
            min_similarity: 0.0,
            min_fragment_symbols: None,
            merge_gap: None,
            merge_ratio: None,
            cluster_threshold: bryo_match::DEFAULT_CLUSTER_THRESHOLD,
            score: bryo_match::PairScore::default(),
            rarity_discount: true,
            comment: None,
            directory_mode: false,
            base_names: Vec::new(),
            old_names: Vec::new(),
            keep_text: true,
            max_file_size: bryo_input::DEFAULT_MAX_FILE_SIZE,
        }
    }
}

/// A submission of an earlier term whose files went through their
/// front-end before (e.g. stored in a fingerprint index): compared with
/// the new submissions like an `--old` one, never analyzed again.
#[derive(Clone, Debug)]
pub struct ArchivedSubmission {
    /// Display name in the report.
    pub name: String,
    /// Its files with their Rabin fingerprints (raw: of the file's bytes;
    /// normalized: of its symbols), in a deterministic order; never empty.
    pub files: Vec<(Analyzed, FileFingerprint)>,
}

/// The result of a run: the report and the analyzed files behind it
/// (`files[i][j]` is file `j` of submission `i` of the report), which
/// renderers that show source text need.
#[derive(Debug)]
pub struct Outcome {
    /// The report model.
    pub report: Report,
    /// Analyzed files per report submission.
    pub files: Vec<Vec<Analyzed>>,
    /// Analyzed base-code files.
    pub base: Vec<Analyzed>,
}

enum Owner {
    Submission(usize),
    Base,
}

/// Runs the whole comparison over discovered inputs.
pub fn compare(inputs: Inputs, options: &CompareOptions) -> Result<Outcome, CompareError> {
    compare_with_progress(inputs, options, &Silent)
}

/// [`compare`], telling `progress` how far it got; `progress` may cancel
/// the run ([`CompareError::Match`] with [`bryo_match::Error::Cancelled`]).
///
/// The stages, for a caller that runs them one by one: [`analyze_inputs`],
/// then the matcher's ([`bryo_match::fingerprint`] on
/// [`Analysis::corpus`] with [`Analysis::match_options`], then `index`,
/// `pairs`, `fragments`), then [`Analysis::report`].
pub fn compare_with_progress(
    inputs: Inputs,
    options: &CompareOptions,
    progress: &dyn Progress,
) -> Result<Outcome, CompareError> {
    let analysis = analyze_inputs(inputs, options, progress)?;
    let comparison = {
        let corpus = analysis.corpus();
        let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), progress)?
            .index(progress)?;
        let candidates = indexed.pairs(progress)?;
        indexed.fragments(candidates, progress)?
    };
    Ok(analysis.report(comparison, options, progress))
}

/// Every file through its front-end, exact copies found: the input of the
/// matcher ([`Analysis::corpus`]) and of the report ([`Analysis::report`]).
#[derive(Debug)]
pub struct Analysis {
    /// Submissions with at least one comparable file, and their files.
    kept: Vec<(Submission, Vec<Analyzed>)>,
    /// The Rabin fingerprints of `kept`'s files.
    fingerprints: Vec<Vec<FileFingerprint>>,
    base_files: Vec<Analyzed>,
    base_fingerprints: Vec<FileFingerprint>,
    skipped: Vec<Skipped>,
    identical: Identical,
    identical_pairs: std::collections::BTreeSet<(usize, usize)>,
    config: Config,
    min_fragment: usize,
    match_options: MatchOptions,
    /// Of every document of [`Analysis::corpus`], its submission and file.
    doc_owner: Vec<(usize, usize)>,
}

/// The first stages of [`compare`] after discovery: decodes and analyzes
/// every file, base code included, in parallel (one unit of
/// [`Stage::Analyze`] per file), leaves out submissions with no comparable
/// file, finds exact copies and chooses the matcher's options.
///
/// Files discovered with [`bryo_input::InputOptions::defer_reading`] are
/// read here first, on all threads, at most
/// [`CompareOptions::max_file_size`] bytes each; one that cannot be read
/// now, or has grown past the limit, is listed under the report's skipped
/// files with the reason.
pub fn analyze_inputs(
    inputs: Inputs,
    options: &CompareOptions,
    progress: &dyn Progress,
) -> Result<Analysis, CompareError> {
    analyze_inputs_with_archive(inputs, Vec::new(), options, progress)
}

/// [`analyze_inputs`] with submissions of earlier terms that were analyzed
/// before (e.g. kept in a fingerprint index): they join the discovered old
/// submissions, after them and in the order given, exactly as if they had
/// been discovered with `--old` and analyzed again.
pub fn analyze_inputs_with_archive(
    inputs: Inputs,
    archive: Vec<ArchivedSubmission>,
    options: &CompareOptions,
    progress: &dyn Progress,
) -> Result<Analysis, CompareError> {
    let Inputs {
        mut submissions,
        mut base,
        skipped: input_skipped,
    } = inputs;
    let mut skipped: Vec<Skipped> = input_skipped
        .iter()
        .map(|s| Skipped {
            path: s.path.clone(),
            reason: s.reason.to_string(),
        })
        .collect();

    // Every file, base code included, through its front-end in parallel;
    // results come back in input order. The analysis takes the files'
    // bytes and lets each go once its file is analyzed (what a report shows
    // is kept in `Analyzed::decoded`), so the corpus is not held twice, as
    // bytes and as symbols, at the end of the stage. Files whose reading
    // was deferred are read first, on all threads.
    let limit = options.max_file_size;
    let read: Vec<Result<Vec<u8>, bryo_input::SkipReason>> = {
        let mut files: Vec<&mut InputFile> = submissions
            .iter_mut()
            .flat_map(|sub| sub.files.iter_mut())
            .chain(base.iter_mut())
            .collect();
        files
            .par_iter_mut()
            .map(|file| take_bytes(file, limit))
            .collect()
    };
    let mut all_jobs = Vec::new();
    for (i, sub) in submissions.iter().enumerate() {
        for file in &sub.files {
            all_jobs.push((Owner::Submission(i), file));
        }
    }
    for file in &base {
        all_jobs.push((Owner::Base, file));
    }
    let mut jobs = Vec::with_capacity(all_jobs.len());
    let mut contents: Vec<Vec<u8>> = Vec::with_capacity(all_jobs.len());
    for (job, bytes) in all_jobs.into_iter().zip(read) {
        match bytes {
            Ok(bytes) => {
                jobs.push(job);
                contents.push(bytes);
            }
            Err(reason) => skipped.push(Skipped {
                path: job.1.display_path.clone(),
                reason: match job.0 {
                    Owner::Base => format!("base code: {reason}"),
                    Owner::Submission(_) => reason.to_string(),
                },
            }),
        }
    }
    let analyze_options = options.analyze;
    progress.start(Stage::Analyze, jobs.len() as u64);
    // Each file also gets its Rabin fingerprints, raw and normalized.
    let fingerprinter = FileFingerprinter::new();
    // Byte-identical files go through their front-end once: the raw Rabin
    // fingerprints (memory speed) group them, the bytes confirm it, and the
    // copies take the first one's analysis under their own path. Without a
    // language given, the extension is part of the key (detection reads the
    // extension, then the first line, which equal bytes share).
    let raw: Vec<u64> = contents
        .par_iter()
        .map(|bytes| fingerprinter.raw(bytes))
        .collect();
    let source = first_equal(&jobs, &contents, &raw, options.analyze.language.is_none());
    let unique: Vec<(usize, Vec<u8>)> = (0..jobs.len())
        .filter(|&i| source[i] == i)
        .map(|i| (i, std::mem::take(&mut contents[i])))
        .collect();
    drop(contents);
    let analyzed: Vec<Result<(Analyzed, FileFingerprint), AnalyzeError>> = unique
        .into_par_iter()
        .map(|(i, bytes)| {
            if progress.cancelled() {
                return Err(bryo_match::Error::Cancelled);
            }
            let file = jobs[i].1;
            let keep = options.keep_text;
            let result =
                analyze_keeping(&file.display_path, &bytes, &analyze_options, keep).map(|a| {
                    let normalized = fingerprinter.normalized(&a.normalized.symbols);
                    let fp = FileFingerprint {
                        raw: raw[i],
                        normalized,
                    };
                    (a, fp)
                });
            drop(bytes);
            progress.advance(1);
            Ok(result)
        })
        .collect::<Result<_, bryo_match::Error>>()?;
    let mut slot = vec![usize::MAX; jobs.len()];
    for (n, i) in (0..jobs.len()).filter(|&i| source[i] == i).enumerate() {
        slot[i] = n;
    }
    // The copies first, while the analyses they copy are still in place.
    let mut copies: Vec<Option<Result<(Analyzed, FileFingerprint), AnalyzeError>>> = (0..jobs
        .len())
        .map(|i| {
            (source[i] != i).then(|| {
                progress.advance(1);
                analyzed[slot[source[i]]].clone().map(|(mut a, fp)| {
                    a.path.clone_from(&jobs[i].1.display_path);
                    (a, fp)
                })
            })
        })
        .collect();
    let mut analyzed: Vec<Option<_>> = analyzed.into_iter().map(Some).collect();
    let results: Vec<Result<(Analyzed, FileFingerprint), AnalyzeError>> = (0..jobs.len())
        .map(|i| match copies[i].take() {
            Some(copy) => copy,
            None => analyzed[slot[i]]
                .take()
                .expect("each analysis is taken once"),
        })
        .collect();

    let mut per_sub: Vec<Vec<(Analyzed, FileFingerprint)>> =
        submissions.iter().map(|_| Vec::new()).collect();
    let (mut base_files, mut base_fingerprints) = (Vec::new(), Vec::new());
    for ((owner, file), result) in jobs.iter().zip(results) {
        match result {
            Ok((analyzed, fp)) => match owner {
                Owner::Submission(i) => per_sub[*i].push((analyzed, fp)),
                Owner::Base => {
                    base_files.push(analyzed);
                    base_fingerprints.push(fp);
                }
            },
            Err(reason) => {
                let reason = match owner {
                    Owner::Base => format!("base code: {reason}"),
                    Owner::Submission(_) => reason.to_string(),
                };
                skipped.push(Skipped {
                    path: file.display_path.clone(),
                    reason,
                });
            }
        }
    }
    skipped.sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.reason.cmp(&b.reason)));

    // Submissions with no comparable file are left out (their files are
    // listed under `skipped` with the reason).
    let discovered = submissions
        .into_iter()
        .zip(per_sub)
        .map(|(sub, files)| (sub.name, sub.old, files));
    let archived = archive.into_iter().map(|mut a| {
        if !options.keep_text {
            for (file, _) in &mut a.files {
                file.decoded.release_text();
            }
        }
        (a.name, true, a.files)
    });
    assemble(
        discovered.chain(archived),
        base_files,
        base_fingerprints,
        skipped,
        options,
    )
}

/// A submission whose files went through their front-end: its name,
/// whether it is old, and its files with their Rabin fingerprints.
pub(crate) type AnalyzedSubmission = (String, bool, Vec<(Analyzed, FileFingerprint)>);

/// Submissions whose files went through their front-end before, e.g. a
/// streamed run's pair ([`crate::compare_alone`]): an [`Analysis`] as
/// [`analyze_inputs`] makes it, without base code or skipped files.
pub(crate) fn analysis_of(
    submissions: Vec<AnalyzedSubmission>,
    options: &CompareOptions,
) -> Result<Analysis, CompareError> {
    assemble(
        submissions.into_iter(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        options,
    )
}

/// The analyzed submissions, in report order, made into an [`Analysis`]:
/// those with no comparable file left out, exact copies found, the
/// matcher's options chosen.
fn assemble(
    submissions: impl Iterator<Item = AnalyzedSubmission>,
    base_files: Vec<Analyzed>,
    base_fingerprints: Vec<FileFingerprint>,
    skipped: Vec<Skipped>,
    options: &CompareOptions,
) -> Result<Analysis, CompareError> {
    let mut kept: Vec<(Submission, Vec<Analyzed>)> = Vec::new();
    let mut fingerprints: Vec<Vec<FileFingerprint>> = Vec::new();
    let submissions: Vec<AnalyzedSubmission> = submissions.filter(|s| !s.2.is_empty()).collect();
    // The report's entries of the files (a few strings each), on all
    // threads.
    let entries: Vec<Vec<FileEntry>> = submissions
        .par_iter()
        .map(|(_, _, files)| files.iter().map(|(a, fp)| file_entry(a, fp)).collect())
        .collect();
    for ((name, old, files), entries) in submissions.into_iter().zip(entries) {
        let (files, fps): (Vec<Analyzed>, Vec<FileFingerprint>) = files.into_iter().unzip();
        fingerprints.push(fps);
        kept.push((
            Submission {
                name,
                old,
                files: entries,
            },
            files,
        ));
    }
    let current = kept.iter().filter(|(s, _)| !s.old).count();
    if kept.len() < 2 || current == 0 {
        return Err(CompareError::TooFewSubmissions {
            found: kept.len(),
            skipped: skipped.len(),
            example: skipped.first().map(|s| format!("{}: {}", s.path, s.reason)),
        });
    }

    // Exact copies first, from Rabin fingerprints, before any winnowing.
    let identical = {
        let subs: Vec<&[Analyzed]> = kept.iter().map(|(_, f)| f.as_slice()).collect();
        let fps: Vec<&[FileFingerprint]> = fingerprints.iter().map(Vec::as_slice).collect();
        let old: Vec<bool> = kept.iter().map(|(s, _)| s.old).collect();
        detect(&subs, &fps, &old, &base_files, &base_fingerprints)
    };
    let identical_pairs = identical_pairs(&identical, &kept);

    let (config, min_fragment, match_options) = matcher_setup(options, kind_of(options, &kept))?;
    let doc_owner = kept
        .iter()
        .enumerate()
        .flat_map(|(i, (_, files))| (0..files.len()).map(move |j| (i, j)))
        .collect();
    Ok(Analysis {
        doc_owner,
        kept,
        fingerprints,
        base_files,
        base_fingerprints,
        skipped,
        identical,
        identical_pairs,
        config,
        min_fragment,
        match_options,
    })
}

impl Analysis {
    /// The options the matcher runs with: `k`, `w`, the common-code rule,
    /// the shortest fragment and the match merging of the front-end that
    /// produced most symbols, unless the caller set them.
    pub fn match_options(&self) -> &MatchOptions {
        &self.match_options
    }

    /// The matcher's input: document `d` is file `j` of submission `i` in
    /// the order of [`Analysis::files`] (submission by submission, then the
    /// base files), each with the Rabin fingerprint computed for exact
    /// copies so that the matcher does not hash it again; identical
    /// submissions declared.
    pub fn corpus(&self) -> Corpus<'_> {
        let mut corpus = Corpus::new();
        for (i, ((sub, files), fps)) in self.kept.iter().zip(&self.fingerprints).enumerate() {
            let role = if sub.old { Role::Old } else { Role::Current };
            for (file, fp) in files.iter().zip(fps) {
                corpus.push(
                    Document::new(SubmissionId(i as u32), &file.normalized.symbols)
                        .with_role(role)
                        .with_content_fingerprint(fp.normalized),
                );
            }
        }
        for (file, fp) in self.base_files.iter().zip(&self.base_fingerprints) {
            corpus.push(
                Document::new(SubmissionId(u32::MAX), &file.normalized.symbols)
                    .with_role(Role::Base)
                    .with_content_fingerprint(fp.normalized),
            );
        }
        for &(a, b) in &self.identical_pairs {
            corpus.declare_identical(SubmissionId(a as u32), SubmissionId(b as u32));
        }
        corpus
    }

    /// The analyzed files of every kept submission, in report order.
    pub fn files(&self) -> impl Iterator<Item = &[Analyzed]> {
        self.kept.iter().map(|(_, files)| files.as_slice())
    }

    /// The last stage ([`Stage::Report`]): maps the matcher's result on
    /// [`Analysis::corpus`] back to files, lines and bytes.
    pub fn report(
        self,
        comparison: Comparison,
        options: &CompareOptions,
        progress: &dyn Progress,
    ) -> Outcome {
        progress.start(Stage::Report, 0);
        let mut report = self.report_head(&comparison, options);
        report.pairs = comparison
            .pairs
            .par_iter()
            .map(|m| self.report_pair(m))
            .collect();
        let Analysis {
            kept, base_files, ..
        } = self;
        Outcome {
            report,
            files: kept.into_iter().map(|(_, files)| files).collect(),
            base: base_files,
        }
    }

    /// The report of a run without its pairs (whatever `comparison.pairs`
    /// holds): options, submissions, clusters, exact copies, skipped files
    /// and totals. With [`Analysis::report_pair`], for a caller that writes
    /// the pairs as they come ([`bryo_match::Indexed::rank`]).
    pub fn report_head(&self, comparison: &Comparison, options: &CompareOptions) -> Report {
        let kept = &self.kept;
        let mut submissions: Vec<Submission> = kept.iter().map(|(s, _)| s.clone()).collect();
        // Base-code passages of every file, for renderers that grey them out.
        let mut d = 0;
        for (sub, (_, files)) in submissions.iter_mut().zip(kept) {
            for (entry, file) in sub.files.iter_mut().zip(files) {
                if let Some(ranges) = comparison.base_ranges.get(d).filter(|r| !r.is_empty()) {
                    entry.base_code = base_regions(file, ranges);
                }
                d += 1;
            }
        }
        Head {
            options,
            config: self.config,
            min_fragment: self.min_fragment,
            match_options: &self.match_options,
            submissions,
            base_files: self.base_files.len() as u64,
            clusters: &comparison.clusters,
            stats: &comparison.stats,
            identical: &self.identical,
            skipped: self.skipped.clone(),
        }
        .report()
    }

    /// One of the matcher's pairs in the report's terms: files, lines and
    /// bytes.
    pub fn report_pair(&self, m: &bryo_match::PairMatch) -> Pair {
        let kept = &self.kept;
        let mut fragments = Vec::with_capacity(m.fragments.len());
        let mut a_lines = Vec::new();
        let mut b_lines = Vec::new();
        for f in &m.fragments {
            let (ai, aj) = self.doc_owner[f.a_doc.0 as usize];
            let (bi, bj) = self.doc_owner[f.b_doc.0 as usize];
            let (fa, fb) = (&kept[ai].1[aj], &kept[bi].1[bj]);
            let (ra, rb) = (f.a_range(), f.b_range());
            let a = location(fa, ra.start, ra.len());
            let b = location(fb, rb.start, rb.len());
            // Lines matched count the parts, never the gaps. Where the
            // front-end moved symbols (`--normalize`), an exact match is
            // cut into the runs that are contiguous in both texts.
            let moved = fa.text_ranks.is_some() || fb.text_ranks.is_some();
            let mut parts: Vec<FragmentPart> = Vec::new();
            if !f.parts.is_empty() || moved {
                // The fragment's parts, or the fragment as its one part.
                let whole = f.parts.is_empty().then_some((ra.start, rb.start, ra.len()));
                let exact = whole.into_iter().chain(
                    f.parts
                        .iter()
                        .map(|p| (p.a_start as usize, p.b_start as usize, p.len as usize)),
                );
                for (a0, b0, len) in exact {
                    let runs = if moved {
                        compact_runs(len, fa.ranks(a0, len), fb.ranks(b0, len))
                    } else {
                        vec![(0, len)]
                    };
                    for (off, n) in runs {
                        parts.push(FragmentPart {
                            a: location(fa, a0 + off, n),
                            b: location(fb, b0 + off, n),
                            symbols: n as u64,
                        });
                    }
                }
                if parts.len() == 1 {
                    parts.clear();
                }
            }
            if parts.is_empty() {
                a_lines.push((aj, a.lines));
                b_lines.push((bj, b.lines));
            } else {
                for p in &parts {
                    a_lines.push((aj, p.a.lines));
                    b_lines.push((bj, p.b.lines));
                }
            }
            fragments.push(Fragment {
                a,
                b,
                symbols: u64::from(f.len),
                parts,
            });
        }
        let a_lines_matched = count_lines(a_lines);
        let b_lines_matched = count_lines(b_lines);
        let (a, b) = (m.a.0 as usize, m.b.0 as usize);
        Pair {
            a,
            b,
            similarity: m.similarity,
            a_percent: m.a_percent,
            b_percent: m.b_percent,
            a_lines_matched,
            b_lines_matched,
            lines_matched: a_lines_matched.max(b_lines_matched),
            longest_fragment: u64::from(m.longest_fragment),
            shared_fingerprints: m.shared_fingerprints,
            identical: self.identical_pairs.contains(&(a.min(b), a.max(b))),
            fragments,
        }
    }
}

/// Everything of a report but its pairs, from a run's parts: for runs that
/// keep every analyzed file ([`Analysis::report_head`]) and for runs that
/// do not (a streamed corpus).
pub(crate) struct Head<'a> {
    pub(crate) options: &'a CompareOptions,
    pub(crate) config: Config,
    pub(crate) min_fragment: usize,
    pub(crate) match_options: &'a MatchOptions,
    /// Every kept submission, base-code regions marked.
    pub(crate) submissions: Vec<Submission>,
    pub(crate) base_files: u64,
    pub(crate) clusters: &'a [bryo_match::SubmissionCluster],
    pub(crate) stats: &'a bryo_match::MatchStats,
    pub(crate) identical: &'a Identical,
    pub(crate) skipped: Vec<Skipped>,
}

impl Head<'_> {
    pub(crate) fn report(self) -> Report {
        let Head {
            options,
            config,
            min_fragment,
            match_options,
            submissions,
            base_files,
            clusters,
            stats,
            identical,
            skipped,
        } = self;
        let clusters = clusters
            .iter()
            .map(|c| Cluster {
                members: c.submissions.iter().map(|s| s.0 as usize).collect(),
                max_similarity: c.max_similarity,
            })
            .collect();
        let stats = Stats {
            files: submissions.iter().map(|s| s.files.len() as u64).sum(),
            base_files,
            symbols: submissions
                .iter()
                .flat_map(|s| &s.files)
                .map(|f| f.symbols)
                .sum(),
            fingerprints: stats.fingerprints,
            base_hashes: stats.dropped_base,
            common_hashes: stats.dropped_common,
            candidate_pairs: stats.candidate_pairs,
            duplicate_files: stats.duplicate_documents,
            template_above: match (options.max_submissions, stats.exclude_above) {
                (None, t) if t != u64::MAX => Some(t),
                _ => None,
            },
            seed_limit: Some(stats.seed_limit).filter(|&l| l != u64::MAX),
            discount_below: Some(stats.discount_below).filter(|&d| d != 0),
        };
        let language = options.analyze.language.map(|l| l.name().to_string());
        let report_options = Options {
            language,
            k: config.k() as u32,
            w: config.w() as u32,
            max_submissions: options.max_submissions.map(|m| m as u32),
            max_pairs: options.max_pairs as u32,
            min_similarity: options.min_similarity,
            min_fragment_symbols: min_fragment as u32,
            merge_gap: match_options
                .merge
                .map_or(0, |m| u32::try_from(m.max_gap).unwrap_or(u32::MAX)),
            merge_ratio: match_options
                .merge
                .map(|m| m.gap_ratio)
                .filter(|r| r.is_finite()),
            cluster_threshold: options.cluster_threshold,
            directory_mode: options.directory_mode,
            base: options.base_names.clone(),
            old: options.old_names.clone(),
            comment: options.comment.clone(),
            score: match match_options.score {
                PairScore::Symmetric => Score::Symmetric,
                PairScore::Directional => Score::Directional,
            },
            scheme: Some(Scheme {
                hash: bryo_engine::HASH_SCHEME_VERSION,
                symbol: bryo_frontend::SYMBOL_SCHEME_VERSION,
                normalization: options.analyze.normalization.name().to_string(),
                text_mode: options.analyze.text_mode.name().to_string(),
                token_normalization: match options.analyze.language {
                    Some(language) => options.analyze.normalize.applies_to(language),
                    // Without one language, `auto` means on for some.
                    None => options.analyze.normalize != Normalize::Off,
                },
            }),
        };
        let mut report = Report::new(env!("CARGO_PKG_VERSION"), report_options);
        report.submissions = submissions;
        report.clusters = clusters;
        report.identical_submissions = identical.groups.clone();
        report.identical_files = identical.files.clone();
        report.skipped = skipped;
        report.stats = stats;
        report
    }
}

/// A file's bytes for analysis: those held, taken out of it, or for a file
/// whose reading was deferred, read now (at most `limit` of them).
fn take_bytes(file: &mut InputFile, limit: u64) -> Result<Vec<u8>, bryo_input::SkipReason> {
    // Only a deferred file carries the size discovery saw; a file held
    // empty is an empty file, not one to read again.
    if file.size_hint.is_none() {
        return Ok(std::mem::take(&mut file.bytes));
    }
    let read = match file.read(limit)? {
        std::borrow::Cow::Owned(bytes) => Some(bytes),
        std::borrow::Cow::Borrowed(_) => None,
    };
    Ok(read.unwrap_or_else(|| std::mem::take(&mut file.bytes)))
}

/// For every job, the first job with the same bytes (`contents[i]` are job
/// `i`'s, `raw[i]` their Rabin fingerprint; and, with `by_extension`, the
/// same file extension), itself if none: grouped by length and raw
/// fingerprint, confirmed byte by byte.
fn first_equal(
    jobs: &[(Owner, &InputFile)],
    contents: &[Vec<u8>],
    raw: &[u64],
    by_extension: bool,
) -> Vec<usize> {
    let extension = |i: usize| {
        by_extension
            .then(|| std::path::Path::new(&jobs[i].1.display_path).extension())
            .flatten()
    };
    let mut firsts: std::collections::HashMap<(u64, usize), Vec<usize>> =
        std::collections::HashMap::new();
    let mut source: Vec<usize> = (0..jobs.len()).collect();
    for i in 0..jobs.len() {
        let seen = firsts.entry((raw[i], contents[i].len())).or_default();
        match seen
            .iter()
            .find(|&&f| contents[f] == contents[i] && extension(f) == extension(i))
        {
            Some(&f) => source[i] = f,
            None => seen.push(i),
        }
    }
    source
}

/// Every pair of identical submissions that the report shows: both in a
/// group, not both old. As `(smaller index, larger index)`.
fn identical_pairs(
    identical: &Identical,
    kept: &[(Submission, Vec<Analyzed>)],
) -> std::collections::BTreeSet<(usize, usize)> {
    let mut out = std::collections::BTreeSet::new();
    for g in &identical.groups {
        for (i, &a) in g.iter().enumerate() {
            for &b in &g[i + 1..] {
                if !(kept[a].0.old && kept[b].0.old) {
                    out.insert((a.min(b), a.max(b)));
                }
            }
        }
    }
    out
}

/// Default match merging for a kind of front-end
/// ([`bryo_match::Merging`]): `None` merges nothing.
///
/// Prose that was copied and lightly edited (a word replaced here and
/// there) matches in runs separated by the edited words; merging them lets
/// the passage count as one long match while unrelated documents' isolated
/// common phrases stay below the shortest fragment counted: runs at most
/// 16 characters (2 words) apart merge, whatever their lengths (this was the
/// chain rule of earlier versions, measured in BENCHMARKS.md).
pub fn default_merging(kind: FrontendKind, text_mode: TextMode) -> Option<Merging> {
    let gap = match (kind, text_mode) {
        (FrontendKind::Text | FrontendKind::Html, TextMode::Words) => TEXT_WORDS_MERGE_GAP,
        (FrontendKind::Text | FrontendKind::Html, _) => TEXT_CHARS_MERGE_GAP,
        _ => CODE_MERGE_GAP,
    };
    (gap > 0).then_some(Merging {
        max_gap: gap,
        gap_ratio: match kind {
            FrontendKind::Text | FrontendKind::Html => f64::INFINITY,
            _ => CODE_MERGE_RATIO,
        },
    })
}

/// Largest gap merged in prose, character mode.
pub const TEXT_CHARS_MERGE_GAP: usize = 16;
/// Largest gap merged in prose, word mode.
pub const TEXT_WORDS_MERGE_GAP: usize = 2;
/// Largest gap merged in code, in tokens; 0: code is not merged by default.
/// At the code floor (`k`) every part of a merged fragment already counts,
/// and with a smaller `k` merging moved no set of the benchmark by more than
/// 0.01 AUC (BENCHMARKS.md, "Match merging and attack sets").
pub const CODE_MERGE_GAP: usize = 0;
/// Largest gap merged in code as a share of the shorter neighbouring match.
pub const CODE_MERGE_RATIO: f64 = 1.0;

/// The merging of a run: the front-end's default, changed by the options.
fn merging(options: &CompareOptions, default: Option<Merging>) -> Option<Merging> {
    let gap = options
        .merge_gap
        .unwrap_or_else(|| default.map_or(0, |m| m.max_gap));
    let ratio = options
        .merge_ratio
        .or(default.map(|m| m.gap_ratio))
        .unwrap_or(CODE_MERGE_RATIO);
    (gap > 0).then_some(Merging {
        max_gap: gap,
        gap_ratio: ratio,
    })
}

/// The scale of the shortest fragment kept with the length of the shorter
/// document of a pair ([`bryo_match::MatchOptions::floor_scale`]).
///
/// Measured (BENCHMARKS.md): on 2,000 man-page documents of about 24 KB
/// with planted passages, a fixed floor of 80 characters keeps common
/// phrases below the copies (33 planted pairs above every unrelated one),
/// 40 or 20 let unrelated documents rank above all of them; on 200–300-word
/// answers, heavily revised copies keep runs of 20–60 characters and the
/// fixed floor scored 13 of 30 at 0 (AP 0.55 on them). The floor
/// `0.65·√n` characters (80 from about 15,000 up, 25 at 1,500) keeps the
/// man-page result and lifts the answers' AP to 0.98; in word mode
/// `0.32·√n` words (16 from 2,500 words up) lifts them from 0.35 to 0.79
/// with the man pages unchanged.
fn floor_scale(kind: FrontendKind, text_mode: TextMode) -> f64 {
    match (kind, text_mode) {
        (FrontendKind::Text | FrontendKind::Html, TextMode::Words) => 0.32,
        (FrontendKind::Text | FrontendKind::Html, _) => 0.65,
        _ => 0.0,
    }
}

/// The front-end kind that sets the defaults: the language given, or the
/// kind that produced most of the symbols.
pub(crate) fn kind_of(
    options: &CompareOptions,
    kept: &[(Submission, Vec<Analyzed>)],
) -> FrontendKind {
    match options.analyze.language {
        Some(language) => language.frontend(),
        None => {
            let (mut code, mut text) = (0u64, 0u64);
            for file in kept.iter().flat_map(|(_, files)| files) {
                let n = file.normalized.len() as u64;
                match file.frontend {
                    Frontend::Text | Frontend::Html => text += n,
                    _ => code += n,
                }
            }
            if text > code {
                FrontendKind::Text
            } else {
                FrontendKind::Code
            }
        }
    }
}

/// `k`, `w`, the shortest fragment and the matcher's options for a run
/// whose defaults come from front-ends of `kind`.
pub(crate) fn matcher_setup(
    options: &CompareOptions,
    kind: FrontendKind,
) -> Result<(Config, usize, MatchOptions), CompareError> {
    let (config, min_fragment) = thresholds(options, kind)?;
    let mut match_options = MatchOptions::new(config);
    match (options.max_submissions, &mut match_options.common) {
        (Some(m), common) => *common = CommonRule::MaxSubmissions(m),
        (None, CommonRule::Rarity(r)) if !options.rarity_discount => r.full_weight_kgrams = 0,
        (None, _) => {}
    }
    match_options.max_pairs = options.max_pairs;
    match_options.min_similarity = options.min_similarity;
    let default = default_merging(kind, options.analyze.text_mode);
    match_options.merge = merging(options, default);
    // A shortest fragment given by the user is kept as given.
    if options.min_fragment_symbols.is_none() {
        match_options.floor_scale = floor_scale(kind, options.analyze.text_mode);
    }
    match_options.min_fragment_symbols = min_fragment;
    match_options.cluster_threshold = options.cluster_threshold;
    match_options.score = options.score;
    Ok((config, min_fragment, match_options))
}

/// `k`, `w` and the shortest fragment from the options, or the defaults of
/// the front-end kind that produced most of the symbols.
fn thresholds(
    options: &CompareOptions,
    kind: FrontendKind,
) -> Result<(Config, usize), CompareError> {
    let (default_k, default_w) = default_thresholds(kind, options.analyze.text_mode);
    let k = options.k.unwrap_or(default_k);
    let config = match (options.w, options.t) {
        (Some(w), _) => Config::new(k, w),
        (None, Some(t)) => Config::from_thresholds(k, t),
        (None, None) => Config::new(k, default_w),
    };
    // A fragment is never shorter than k: pieces left between longer
    // fragments would otherwise be reported as matches below the noise
    // threshold.
    let min_fragment = options
        .min_fragment_symbols
        .unwrap_or_else(|| default_min_fragment(kind, options.analyze.text_mode))
        .max(k);
    Ok((config.map_err(CompareError::Thresholds)?, min_fragment))
}

/// The report entry of a file, without base-code regions (see
/// [`base_regions`]).
pub(crate) fn file_entry(file: &Analyzed, fingerprint: &FileFingerprint) -> FileEntry {
    FileEntry {
        raw_fingerprint: Some(format!("{:016x}", fingerprint.raw)),
        normalized_fingerprint: Some(format!("{:016x}", fingerprint.normalized)),
        path: file.path.clone(),
        language: file.language.name().to_string(),
        frontend: file.frontend,
        symbols: file.normalized.len() as u64,
        lines: u64::from(file.lines.line_count()),
        status: match &file.fallback {
            None => FileStatus::Ok,
            Some(reason) => FileStatus::Fallback {
                reason: reason.clone(),
            },
        },
        encoding: file.decoded.encoding().name().to_string(),
        notes: file.notes.clone(),
        base_code: Vec::new(),
    }
}

/// The base-code regions of a file from its base-covered symbol ranges.
fn base_regions(file: &Analyzed, base: &[std::ops::Range<u32>]) -> Vec<Region> {
    base.iter()
        .filter(|r| r.start < r.end)
        .map(|r| {
            let loc = location(file, r.start as usize, (r.end - r.start) as usize);
            Region {
                lines: loc.lines,
                bytes: loc.bytes,
            }
        })
        .collect()
}

fn location(file: &Analyzed, start: usize, len: usize) -> Location {
    let span = file.symbol_span(start, len);
    let first = file.lines.line(span.start);
    let last = file.lines.line(span.end.saturating_sub(1).max(span.start));
    let bytes = file.decoded.original_range(span);
    Location {
        file: file.path.clone(),
        lines: [u64::from(first), u64::from(last)],
        bytes: [bytes.start as u64, bytes.end as u64],
    }
}

/// Distinct lines inside at least one of the `(file, [first, last])` ranges.
fn count_lines(mut ranges: Vec<(usize, [u64; 2])>) -> u64 {
    ranges.sort_unstable();
    let mut total = 0;
    let mut current: Option<(usize, u64, u64)> = None;
    for (file, [first, last]) in ranges {
        match current {
            Some((f, s, e)) if f == file && first <= e + 1 => current = Some((f, s, e.max(last))),
            _ => {
                if let Some((_, s, e)) = current {
                    total += e - s + 1;
                }
                current = Some((file, first, last));
            }
        }
    }
    if let Some((_, s, e)) = current {
        total += e - s + 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::count_lines;

    #[test]
    fn lines_are_counted_once_per_file() {
        assert_eq!(
            count_lines(vec![(0, [1, 5]), (0, [3, 8]), (1, [1, 2]), (0, [10, 10])]),
            11
        );
        assert_eq!(count_lines(vec![]), 0);
    }
}
