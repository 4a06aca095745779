//! The overview page, `index.html`: summary, histogram, pairs table,
//! clusters.

use std::collections::BTreeMap;

use bryo_report::{plural, FileStatus, Report};

use crate::escape::{escape_into, fraction, percent, push_fmt};
use crate::page::{head, tail};
use crate::pair_page_name;

/// Bins of the similarity histogram (5% each).
const BINS: usize = 20;
/// Skipped files listed per reason (all are counted).
const MAX_SKIPPED_LISTED: usize = 200;
/// Groups of identical submissions and identical file contents listed
/// (all are counted; the JSON result lists them all).
const MAX_IDENTICAL_LISTED: usize = 200;
/// Pairs of one group of identical submissions listed with their links.
const MAX_GROUP_PAIRS_LISTED: usize = 50;
/// Clusters drawn as graphs (all are listed).
const MAX_GRAPHS: usize = 40;
/// Members of a cluster drawn in its graph.
const MAX_GRAPH_NODES: usize = 60;

/// Renders `index.html`.
pub(crate) fn render_overview(report: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024 + report.pairs.len() * 600);
    head(&mut out, "bryo report", "overview");
    out.push_str("<header class=\"top\">\n<h1>bryo report</h1>\n");
    if let Some(comment) = &report.options.comment {
        out.push_str("<p class=\"comment\">");
        escape_into(&mut out, comment);
        out.push_str("</p>\n");
    }
    out.push_str("</header>\n<main>\n");
    summary(&mut out, report);
    histogram(&mut out, report);
    pairs_table(&mut out, report);
    exact_copies(&mut out, report);
    clusters(&mut out, report);
    out.push_str("</main>\n");
    tail(&mut out);
    out
}

fn summary(out: &mut String, report: &Report) {
    let o = &report.options;
    let s = &report.stats;
    let old = report.submissions.iter().filter(|s| s.old).count();
    out.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n<dl class=\"facts\">\n");
    push_fmt(
        out,
        format_args!(
            "<dt>Submissions</dt><dd>{}{}</dd>\n",
            report.submissions.len(),
            if old > 0 {
                format!(" ({old} from earlier terms)")
            } else {
                String::new()
            }
        ),
    );
    push_fmt(
        out,
        format_args!(
            "<dt>Files</dt><dd>{} compared, {} base code, {} skipped</dd>\n",
            s.files,
            s.base_files,
            report.skipped.len()
        ),
    );
    // Languages and front-ends, by number of files.
    let mut languages: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for f in report.submissions.iter().flat_map(|s| &s.files) {
        *languages
            .entry((f.language.as_str(), f.frontend.as_str()))
            .or_default() += 1;
    }
    out.push_str("<dt>Languages</dt><dd>");
    match &o.language {
        Some(l) => {
            out.push_str("forced with -l: ");
            escape_into(out, l);
            out.push_str("; ");
        }
        None => out.push_str("detected per file; "),
    }
    for (i, ((language, frontend), n)) in languages.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        escape_into(out, language);
        push_fmt(out, format_args!(" via {frontend}: {n} file{}", plural(*n)));
    }
    out.push_str("</dd>\n");
    push_fmt(
        out,
        format_args!(
            "<dt>Options</dt><dd>k = {}, w = {} (every match of {} symbols is found), common code: {}, -n {}, \
             minimum similarity {}, shortest fragment {} symbols, cluster threshold {}{}</dd>\n",
            o.k,
            o.w,
            (o.k + o.w).saturating_sub(1),
            crate::escape::escape_html(&report.common_rule()),
            o.max_pairs,
            fraction(o.min_similarity),
            o.min_fragment_symbols,
            fraction(o.cluster_threshold),
            if o.directory_mode {
                ", directories are submissions (-d)"
            } else {
                ""
            }
        ),
    );
    for (label, paths) in [("Base code", &o.base), ("Earlier terms", &o.old)] {
        if !paths.is_empty() {
            push_fmt(out, format_args!("<dt>{label}</dt><dd>"));
            for (i, p) in paths.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str("<code>");
                escape_into(out, p);
                out.push_str("</code>");
            }
            out.push_str("</dd>\n");
        }
    }
    push_fmt(
        out,
        format_args!(
            "<dt>Pairs</dt><dd>{} shown of {} sharing a fingerprint</dd>\n\
             <dt>Fingerprints</dt><dd>{} selected from {} symbols; {} dropped as base code, {} as common code ({})</dd>\n",
            report.pairs.len(),
            s.candidate_pairs,
            s.fingerprints,
            s.symbols,
            s.base_hashes,
            s.common_hashes,
            crate::escape::escape_html(&report.common_rule())
        ),
    );
    push_fmt(
        out,
        format_args!(
            "<dt>Exact copies</dt><dd><a href=\"#identical\">{} group{} of identical submissions, \
             {} file content{} identical in several submissions</a></dd>\n",
            report.identical_submissions.len(),
            plural(report.identical_submissions.len()),
            report.identical_files.len(),
            plural(report.identical_files.len())
        ),
    );
    out.push_str("<dt>bryo</dt><dd>");
    escape_into(out, &report.bryo_version);
    push_fmt(
        out,
        format_args!(", schema {}</dd>\n</dl>\n", report.schema.id()),
    );

    // Skipped files, and files read with a fallback or notes.
    push_fmt(
        out,
        format_args!(
            "<details id=\"skipped\"{}><summary>Skipped files ({})</summary>\n",
            if report.skipped.is_empty() {
                ""
            } else {
                " open"
            },
            report.skipped.len()
        ),
    );
    if report.skipped.is_empty() {
        out.push_str("<p>None: every file found was compared.</p>\n");
    } else {
        // Grouped by reason; a long list is cut (a directory of generated
        // files can skip tens of thousands).
        let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for s in &report.skipped {
            by_reason.entry(&s.reason).or_default().push(&s.path);
        }
        out.push_str("<ul class=\"skipped\">\n");
        for (reason, paths) in &by_reason {
            out.push_str("<li>");
            escape_into(out, reason);
            push_fmt(
                out,
                format_args!(": {} file{}<ul>", paths.len(), plural(paths.len())),
            );
            for p in paths.iter().take(MAX_SKIPPED_LISTED) {
                out.push_str("<li><code>");
                escape_into(out, p);
                out.push_str("</code></li>");
            }
            if paths.len() > MAX_SKIPPED_LISTED {
                push_fmt(
                    out,
                    format_args!(
                        "<li>… and {} more (the JSON result lists them all)</li>",
                        paths.len() - MAX_SKIPPED_LISTED
                    ),
                );
            }
            out.push_str("</ul></li>\n");
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</details>\n");
    let noted: Vec<_> = report
        .submissions
        .iter()
        .flat_map(|s| &s.files)
        .filter(|f| matches!(f.status, FileStatus::Fallback { .. }) || !f.notes.is_empty())
        .collect();
    push_fmt(
        out,
        format_args!(
            "<details id=\"fallbacks\"><summary>Fallbacks and notes ({} file{})</summary>\n",
            noted.len(),
            plural(noted.len())
        ),
    );
    if noted.is_empty() {
        out.push_str(
            "<p>None: every file went through its preferred front-end without recovery.</p>\n",
        );
    } else {
        out.push_str("<table class=\"list\"><thead><tr><th>File</th><th>Front-end</th><th>Why</th></tr></thead><tbody>\n");
        for f in noted {
            out.push_str("<tr><td>");
            escape_into(out, &f.path);
            push_fmt(
                out,
                format_args!("</td><td>{}</td><td>", f.frontend.as_str()),
            );
            let mut why: Vec<&str> = Vec::new();
            if let FileStatus::Fallback { reason } = &f.status {
                why.push(reason);
            }
            why.extend(f.notes.iter().map(String::as_str));
            escape_into(out, &why.join("; "));
            out.push_str("</td></tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</details>\n</section>\n");
}

/// A badge after the name of a submission from an earlier term (`--old`).
pub(crate) fn old_marker(report: &Report, index: usize) -> &'static str {
    if report.submissions.get(index).is_some_and(|s| s.old) {
        " <span class=\"old\" title=\"from an earlier term (--old)\">earlier term</span>"
    } else {
        ""
    }
}

/// The last component of a submission name, for graph labels.
fn short_name(name: &str) -> &str {
    name.rsplit('/').find(|s| !s.is_empty()).unwrap_or(name)
}

/// An SVG bar chart of the pairs' similarity in 5% bins.
fn histogram(out: &mut String, report: &Report) {
    let mut bins = [0usize; BINS];
    for p in &report.pairs {
        let b = ((p.similarity.clamp(0.0, 1.0) * BINS as f64) as usize).min(BINS - 1);
        bins[b] += 1;
    }
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    let (bar_w, plot_h, left, top) = (28usize, 120usize, 40usize, 16usize);
    let width = left + BINS * bar_w + 24;
    let height = top + plot_h + 34;
    out.push_str("<section id=\"histogram\">\n<h2>Similarity of the reported pairs</h2>\n");
    push_fmt(
        out,
        format_args!(
            "<svg class=\"histogram\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"Histogram of pair similarity\">\n"
        ),
    );
    push_fmt(
        out,
        format_args!(
            "<line class=\"axis\" x1=\"{left}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\"/>\n",
            y = top + plot_h,
            x2 = left + BINS * bar_w
        ),
    );
    push_fmt(
        out,
        format_args!(
            "<text class=\"label\" x=\"{x}\" y=\"{y}\" text-anchor=\"end\">{max}</text>\n<text class=\"label\" x=\"{x}\" y=\"{y0}\" text-anchor=\"end\">0</text>\n",
            x = left - 6,
            y = top + 4,
            y0 = top + plot_h
        ),
    );
    for (i, &n) in bins.iter().enumerate() {
        let h = n * plot_h / max;
        let x = left + i * bar_w;
        push_fmt(
            out,
            format_args!(
                "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{h}\"><title>{}–{}%: {n} pair{}</title></rect>\n",
                x + 2,
                top + plot_h - h,
                bar_w - 4,
                i * 5,
                i * 5 + 5,
                plural(n)
            ),
        );
        if n > 0 {
            push_fmt(
                out,
                format_args!(
                    "<text class=\"count\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{n}</text>\n",
                    x + bar_w / 2,
                    top + plot_h - h - 3
                ),
            );
        }
    }
    for pct in [0usize, 25, 50, 75, 100] {
        push_fmt(
            out,
            format_args!(
                "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{pct}%</text>\n",
                left + pct * BINS * bar_w / 100,
                top + plot_h + 16
            ),
        );
    }
    push_fmt(
        out,
        format_args!(
            "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">similarity</text>\n</svg>\n</section>\n",
            left + BINS * bar_w / 2,
            top + plot_h + 31
        ),
    );
}

/// The pairs table; `bryo.js` sorts and filters it.
fn pairs_table(out: &mut String, report: &Report) {
    push_fmt(
        out,
        format_args!(
            "<section id=\"pairs\">\n<h2>Pairs</h2>\n<div class=\"filters\">\n\
             <label>Name contains <input type=\"search\" id=\"filter-name\" autocomplete=\"off\"></label>\n\
             <label>Similarity from <input type=\"number\" id=\"filter-min\" min=\"0\" max=\"100\" step=\"any\" value=\"0\"></label>\n\
             <label>to <input type=\"number\" id=\"filter-max\" min=\"0\" max=\"100\" step=\"any\" value=\"100\">%</label>\n\
             <span id=\"shown-count\" aria-live=\"polite\">{n} of {n} pairs</span>\n</div>\n",
            n = report.pairs.len()
        ),
    );
    out.push_str("<table id=\"pairs-table\" class=\"pairs\">\n<thead><tr>");
    let columns = [
        ("num", "#", "Rank: most matched symbols first"),
        ("text", "Submission A", ""),
        ("num", "A %", "Share of A inside matched fragments"),
        ("text", "Submission B", ""),
        ("num", "B %", "Share of B inside matched fragments"),
        (
            "num",
            "Similarity",
            "Matched symbols of both over all symbols of both",
        ),
        (
            "num",
            "Lines matched",
            "Lines inside fragments, the larger side",
        ),
        ("num", "Longest fragment", "In normalized symbols"),
        ("num", "Identical", "Identical after normalization"),
    ];
    for (i, (kind, label, title)) in columns.iter().enumerate() {
        push_fmt(
            out,
            format_args!(
                "<th data-col=\"{i}\" data-type=\"{kind}\"{}><button type=\"button\"{}>{label}</button></th>",
                if i == 0 { " aria-sort=\"ascending\"" } else { "" },
                if title.is_empty() {
                    String::new()
                } else {
                    format!(" title=\"{title}\"")
                }
            ),
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, p) in report.pairs.iter().enumerate() {
        let rank = i + 1;
        let page = pair_page_name(rank);
        let a = report.submission_name(p.a);
        let b = report.submission_name(p.b);
        out.push_str("<tr data-sim=\"");
        push_fmt(out, format_args!("{}", p.similarity * 100.0));
        out.push_str("\" data-names=\"");
        escape_into(out, &a.to_lowercase());
        out.push('\n');
        escape_into(out, &b.to_lowercase());
        push_fmt(
            out,
            format_args!("\"><td data-v=\"{rank}\"><a href=\"{page}\">{rank}</a></td><td><a href=\"{page}\">"),
        );
        escape_into(out, &a);
        push_fmt(
            out,
            format_args!(
                "</a>{}</td><td data-v=\"{}\">{}</td><td><a href=\"{page}\">",
                old_marker(report, p.a),
                p.a_percent,
                percent(p.a_percent)
            ),
        );
        escape_into(out, &b);
        push_fmt(
            out,
            format_args!(
                "</a>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td><td data-v=\"{lm}\">{lm}</td><td data-v=\"{lf}\">{lf}</td><td data-v=\"{id}\">{}</td></tr>\n",
                old_marker(report, p.b),
                p.b_percent,
                percent(p.b_percent),
                p.similarity,
                fraction(p.similarity),
                if p.identical { "<span class=\"identical\">identical</span>" } else { "" },
                lm = p.lines_matched,
                lf = p.longest_fragment,
                id = u8::from(p.identical),
            ),
        );
    }
    out.push_str("</tbody>\n</table>\n");
    if report.pairs.is_empty() {
        out.push_str("<p>No pair of submissions shares a passage.</p>\n");
    }
    out.push_str("</section>\n");
}

/// Exact copies: groups of identical submissions, each pair linked to its
/// page when it is among the reported pairs, and file contents identical
/// after normalization in several submissions.
fn exact_copies(out: &mut String, report: &Report) {
    let groups = &report.identical_submissions;
    let files = &report.identical_files;
    out.push_str(
        "<section id=\"identical\">\n<h2>Exact copies</h2>\n<p>Found before any winnowing, \
         by Rabin fingerprints of each file's normalized symbols: the same tokens or words \
         whatever the layout, comments and identifier names. Files identical to base code are left out.</p>\n",
    );
    push_fmt(
        out,
        format_args!(
            "<h3>Identical submissions ({} group{})</h3>\n",
            groups.len(),
            plural(groups.len())
        ),
    );
    if groups.is_empty() {
        out.push_str("<p>No two submissions are exact copies.</p>\n");
    } else {
        // Rank of each reported pair, by its submissions.
        let ranks: BTreeMap<(usize, usize), usize> = report
            .pairs
            .iter()
            .enumerate()
            .map(|(i, p)| ((p.a.min(p.b), p.a.max(p.b)), i + 1))
            .collect();
        out.push_str("<ol class=\"identical-groups\">\n");
        for g in groups.iter().take(MAX_IDENTICAL_LISTED) {
            out.push_str("<li><p class=\"members\">");
            for (i, &m) in g.iter().enumerate() {
                if i > 0 {
                    out.push_str(" = ");
                }
                out.push_str("<span class=\"member\">");
                escape_into(out, &report.submission_name(m));
                out.push_str("</span>");
                out.push_str(old_marker(report, m));
                if let Some(s) = report.submissions.get(m) {
                    let symbols: u64 = s.files.iter().map(|f| f.symbols).sum();
                    push_fmt(
                        out,
                        format_args!(
                            " ({} file{}, {symbols} symbols)",
                            s.files.len(),
                            plural(s.files.len())
                        ),
                    );
                }
            }
            out.push_str("</p>\n<ul class=\"group-pairs\">");
            let mut listed = 0usize;
            let mut outside = 0usize;
            for (x, &a) in g.iter().enumerate() {
                for &b in &g[x + 1..] {
                    let old_pair = report.submissions.get(a).is_some_and(|s| s.old)
                        && report.submissions.get(b).is_some_and(|s| s.old);
                    if old_pair {
                        continue;
                    }
                    match ranks.get(&(a.min(b), a.max(b))) {
                        Some(&rank) if listed < MAX_GROUP_PAIRS_LISTED => {
                            listed += 1;
                            push_fmt(
                                out,
                                format_args!("<li><a href=\"{}\">", pair_page_name(rank)),
                            );
                            escape_into(out, &report.submission_name(a));
                            out.push_str(" and ");
                            escape_into(out, &report.submission_name(b));
                            push_fmt(out, format_args!("</a>: pair {rank}</li>"));
                        }
                        Some(_) => listed += 1,
                        None => outside += 1,
                    }
                }
            }
            if listed > MAX_GROUP_PAIRS_LISTED {
                push_fmt(
                    out,
                    format_args!(
                        "<li>… and {} more reported pair{}</li>",
                        listed - MAX_GROUP_PAIRS_LISTED,
                        plural(listed - MAX_GROUP_PAIRS_LISTED)
                    ),
                );
            }
            if outside > 0 {
                push_fmt(
                    out,
                    format_args!(
                        "<li class=\"outside\">{outside} pair{} of this group {} outside the top -n {} of the ranking \
                         (pairs are ranked by matched symbols), so {} no page</li>",
                        plural(outside),
                        if outside == 1 { "is" } else { "are" },
                        report.options.max_pairs,
                        if outside == 1 { "it has" } else { "they have" }
                    ),
                );
            }
            out.push_str("</ul></li>\n");
        }
        out.push_str("</ol>\n");
        if groups.len() > MAX_IDENTICAL_LISTED {
            push_fmt(
                out,
                format_args!(
                    "<p>… and {} more groups (the JSON result lists them all).</p>\n",
                    groups.len() - MAX_IDENTICAL_LISTED
                ),
            );
        }
    }
    push_fmt(
        out,
        format_args!(
            "<h3>Files identical after normalization ({} content{})</h3>\n",
            files.len(),
            plural(files.len())
        ),
    );
    if files.is_empty() {
        out.push_str("<p>No file content appears in more than one submission.</p>\n");
    } else {
        out.push_str("<table class=\"list identical-files\"><thead><tr><th>Symbols</th><th>Files</th><th>Fingerprint</th></tr></thead><tbody>\n");
        for f in files.iter().take(MAX_IDENTICAL_LISTED) {
            push_fmt(out, format_args!("<tr><td>{}</td><td>", f.symbols));
            for (i, r) in f.files.iter().enumerate() {
                if i > 0 {
                    out.push_str("<br>");
                }
                out.push_str("<code>");
                escape_into(out, &r.path);
                out.push_str("</code>");
                out.push_str(old_marker(report, r.submission));
            }
            out.push_str("</td><td><code>");
            escape_into(out, &f.fingerprint);
            out.push_str("</code></td></tr>\n");
        }
        out.push_str("</tbody></table>\n");
        if files.len() > MAX_IDENTICAL_LISTED {
            push_fmt(
                out,
                format_args!(
                    "<p>… and {} more (the JSON result lists them all).</p>\n",
                    files.len() - MAX_IDENTICAL_LISTED
                ),
            );
        }
    }
    out.push_str("</section>\n");
}

/// Clusters as a list and as graphs: members on a circle, reported pairs
/// at or above the cluster threshold as edges linking to their pages.
fn clusters(out: &mut String, report: &Report) {
    push_fmt(
        out,
        format_args!(
            "<section id=\"clusters\">\n<h2>Clusters</h2>\n<p>Submissions connected by pairs with similarity of at least {}. \
             In the graphs, the reported pairs among them are the edges (a pair outside the top of the ranking links its submissions without an edge); \
             click an edge for the pair.</p>\n",
            fraction(report.options.cluster_threshold)
        ),
    );
    if report.clusters.is_empty() {
        out.push_str("<p>No cluster.</p>\n</section>\n");
        return;
    }
    out.push_str("<ol class=\"clusters\">\n");
    for c in &report.clusters {
        push_fmt(
            out,
            format_args!(
                "<li>{} submissions, highest similarity {}: ",
                c.members.len(),
                fraction(c.max_similarity)
            ),
        );
        for (i, &m) in c.members.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            escape_into(out, &report.submission_name(m));
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ol>\n<div class=\"graphs\">\n");
    let threshold = report.options.cluster_threshold;
    for (ci, c) in report.clusters.iter().enumerate().take(MAX_GRAPHS) {
        let members: Vec<usize> = c.members.iter().copied().take(MAX_GRAPH_NODES).collect();
        let n = members.len();
        let radius = (n as f64 * 14.0).max(50.0);
        // Room for the longest label on either side (about 6.5 px a
        // character at 11 px).
        let longest = members
            .iter()
            .map(|&m| short_name(&report.submission_name(m)).chars().count())
            .max()
            .unwrap_or(0);
        let margin = 24.0 + 6.5 * longest as f64;
        let (width, height) = (
            (2.0 * (radius + margin)).round() as usize,
            (2.0 * radius + 60.0).round() as usize,
        );
        let (cx, cy) = (width as f64 / 2.0, height as f64 / 2.0);
        let pos = |k: usize| {
            let angle =
                std::f64::consts::TAU * k as f64 / n.max(1) as f64 - std::f64::consts::FRAC_PI_2;
            (cx + radius * angle.cos(), cy + radius * angle.sin())
        };
        push_fmt(
            out,
            format_args!(
                "<figure class=\"graph\"><svg viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"Cluster {}\">\n",
                ci + 1
            ),
        );
        for (rank0, p) in report.pairs.iter().enumerate() {
            let (Some(i), Some(j)) = (
                members.iter().position(|&m| m == p.a),
                members.iter().position(|&m| m == p.b),
            ) else {
                continue;
            };
            if p.similarity < threshold {
                continue;
            }
            let ((x1, y1), (x2, y2)) = (pos(i), pos(j));
            let stroke = 1.0 + 5.0 * p.similarity.clamp(0.0, 1.0);
            push_fmt(
                out,
                format_args!(
                    "<a href=\"{}\"><line class=\"edge\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke-width=\"{stroke:.1}\"><title>{}</title></line></a>\n",
                    pair_page_name(rank0 + 1),
                    fraction(p.similarity)
                ),
            );
        }
        for (k, &m) in members.iter().enumerate() {
            let (x, y) = pos(k);
            let name = report.submission_name(m);
            let short = short_name(&name);
            let anchor = if x < cx - 1.0 {
                "end"
            } else if x > cx + 1.0 {
                "start"
            } else {
                "middle"
            };
            let (lx, ly) = (
                x + (x - cx) / radius * 10.0,
                y + (y - cy) / radius * 10.0 + 4.0,
            );
            push_fmt(out, format_args!("<g class=\"node\"><title>"));
            escape_into(out, &name);
            push_fmt(
                out,
                format_args!(
                    "</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"6\"/><text x=\"{lx:.1}\" y=\"{ly:.1}\" text-anchor=\"{anchor}\">"
                ),
            );
            escape_into(out, short);
            out.push_str("</text></g>\n");
        }
        push_fmt(
            out,
            format_args!(
                "</svg><figcaption>Cluster {}{}</figcaption></figure>\n",
                ci + 1,
                if c.members.len() > n {
                    format!(" (first {n} of {} members)", c.members.len())
                } else {
                    String::new()
                }
            ),
        );
    }
    out.push_str("</div>\n");
    if report.clusters.len() > MAX_GRAPHS {
        push_fmt(
            out,
            format_args!("<p>Graphs are drawn for the first {MAX_GRAPHS} clusters.</p>\n"),
        );
    }
    out.push_str("</section>\n");
}
