//! A pair page: the two submissions side by side with their fragments.

use bryo_report::{FileEntry, Fragment, Location, Pair, Report};

use crate::escape::{escape_into, fraction, percent, push_fmt};
use crate::overview::old_marker;
use crate::page::{head, tail};
use crate::source::{render_gutter, Source};
use crate::{pair_page_name, LoadedFile, Sources};

/// Renders the page of the pair at `rank` (1-based) of the report.
pub(crate) fn render_pair(report: &Report, rank: usize, sources: &Sources) -> String {
    let Some(pair) = report.pairs.get(rank.wrapping_sub(1)) else {
        return String::new();
    };
    let a_name = report.submission_name(pair.a);
    let b_name = report.submission_name(pair.b);
    let mut out = String::with_capacity(64 * 1024);
    head(
        &mut out,
        &format!("#{rank} {a_name} – {b_name} · bryo report"),
        "pair",
    );
    out.push_str("<header class=\"top\">\n<nav><a href=\"index.html\">Overview</a>");
    if rank > 1 {
        push_fmt(
            &mut out,
            format_args!(
                " · <a href=\"{}\" rel=\"prev\">previous pair</a>",
                pair_page_name(rank - 1)
            ),
        );
    }
    if rank < report.pairs.len() {
        push_fmt(
            &mut out,
            format_args!(
                " · <a href=\"{}\" rel=\"next\">next pair</a>",
                pair_page_name(rank + 1)
            ),
        );
    }
    push_fmt(
        &mut out,
        format_args!("</nav>\n<h1>#{rank}: <span class=\"side-a\">"),
    );
    escape_into(&mut out, &a_name);
    push_fmt(
        &mut out,
        format_args!(
            " ({})</span>{} and <span class=\"side-b\">",
            percent(pair.a_percent),
            old_marker(report, pair.a)
        ),
    );
    escape_into(&mut out, &b_name);
    push_fmt(
        &mut out,
        format_args!(
            " ({})</span>{}</h1>\n<p class=\"facts\">Similarity {}, lines matched {} (A {}, B {}), \
             longest fragment {} symbols, {} shared fingerprints, {} fragment{}{}</p>\n</header>\n",
            percent(pair.b_percent),
            old_marker(report, pair.b),
            fraction(pair.similarity),
            pair.lines_matched,
            pair.a_lines_matched,
            pair.b_lines_matched,
            pair.longest_fragment,
            pair.shared_fingerprints,
            pair.fragments.len(),
            if pair.fragments.len() == 1 { "" } else { "s" },
            if pair.identical {
                ". <span class=\"identical\">Identical after normalization</span>"
            } else {
                ""
            }
        ),
    );
    fragment_table(&mut out, pair, &a_name, &b_name);
    out.push_str("<div class=\"sides\">\n");
    let mut scripts = Vec::new();
    side(
        &mut out,
        report,
        pair,
        Side::A,
        &a_name,
        sources,
        &mut scripts,
    );
    side(
        &mut out,
        report,
        pair,
        Side::B,
        &b_name,
        sources,
        &mut scripts,
    );
    out.push_str("</div>\n<noscript><p class=\"missing\">The code is shown by bryo.js: allow JavaScript for this page.</p></noscript>\n");
    // The two submissions' text, each in a file of its own shared by every
    // page that shows it.
    for script in scripts {
        push_fmt(
            &mut out,
            format_args!("<script src=\"{script}\"></script>\n"),
        );
    }
    tail(&mut out);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    A,
    B,
}

impl Side {
    fn index(self, pair: &Pair) -> usize {
        match self {
            Side::A => pair.a,
            Side::B => pair.b,
        }
    }

    fn letter(self) -> char {
        match self {
            Side::A => 'a',
            Side::B => 'b',
        }
    }

    fn of(self, f: &bryo_report::Fragment) -> &Location {
        match self {
            Side::A => &f.a,
            Side::B => &f.b,
        }
    }

    fn of_part(self, p: &bryo_report::FragmentPart) -> &Location {
        match self {
            Side::A => &p.a,
            Side::B => &p.b,
        }
    }
}

/// MOSS's match table: one row per fragment, linking to both sides.
fn fragment_table(out: &mut String, pair: &Pair, a_name: &str, b_name: &str) {
    out.push_str("<section class=\"fragments\">\n<table id=\"fragment-table\" class=\"frags\">\n<thead><tr><th>#</th><th>");
    escape_into(out, a_name);
    out.push_str("</th><th>");
    escape_into(out, b_name);
    out.push_str("</th><th>Symbols</th></tr></thead>\n<tbody>\n");
    let multi_file = pair
        .fragments
        .iter()
        .any(|f| f.a.file != pair.fragments[0].a.file || f.b.file != pair.fragments[0].b.file);
    for (i, f) in pair.fragments.iter().enumerate() {
        push_fmt(
            out,
            format_args!(
                "<tr data-f=\"{i}\"><td><span class=\"swatch f c{}\" data-f=\"{i}\"></span>{}</td>",
                i % 24,
                i + 1
            ),
        );
        for (side, loc) in [('a', &f.a), ('b', &f.b)] {
            push_fmt(
                out,
                format_args!("<td><a href=\"#{side}{i}\" data-f=\"{i}\">"),
            );
            if multi_file {
                // The path inside the submission (`-d`): `src/util.py`.
                let name = if side == 'a' { a_name } else { b_name };
                let inner = loc
                    .file
                    .strip_prefix(name)
                    .and_then(|p| p.strip_prefix('/'))
                    .unwrap_or(&loc.file);
                escape_into(out, inner);
                out.push_str(": ");
            }
            push_fmt(
                out,
                format_args!("lines {}–{}</a></td>", loc.lines[0], loc.lines[1]),
            );
        }
        let moved = [Side::A, Side::B].into_iter().any(|side| {
            f.parts
                .windows(2)
                .any(|w| side.of_part(&w[0]).bytes[1] > side.of_part(&w[1]).bytes[0])
        });
        match f.parts.len() {
            0 => push_fmt(out, format_args!("<td>{}</td></tr>\n", f.symbols)),
            n if moved => push_fmt(
                out,
                format_args!(
                    "<td>{} <small title=\"statements in canonical order (--normalize): the parts match in another order in one of the files\">in {n} parts, moved</small></td></tr>\n",
                    f.symbols
                ),
            ),
            n => push_fmt(
                out,
                format_args!(
                    "<td>{} <small title=\"merged across short gaps: the hatched passages inside it did not match\">in {n} parts</small></td></tr>\n",
                    f.symbols
                ),
            ),
        }
    }
    out.push_str("</tbody>\n</table>\n");
    if pair.fragments.is_empty() {
        out.push_str("<p>No fragment: the two share fingerprints but no passage long enough to report.</p>\n");
    }
    out.push_str("<p class=\"keys\">Click a fragment to bring its partner into view; keys <kbd>n</kbd>/<kbd>j</kbd> next fragment, <kbd>p</kbd>/<kbd>k</kbd> previous.</p>\n</section>\n");
}

/// The files a side shows, as indices into the submission's files: every
/// file that holds a fragment of this pair, or all files when none does.
pub(crate) fn shown_files(report: &Report, pair: &Pair, side: Side) -> Vec<usize> {
    let files: &[FileEntry] = report
        .submissions
        .get(side.index(pair))
        .map_or(&[], |s| s.files.as_slice());
    let matched: Vec<usize> = (0..files.len())
        .filter(|&j| {
            pair.fragments
                .iter()
                .any(|x| side.of(x).file == files[j].path)
        })
        .collect();
    if matched.is_empty() {
        (0..files.len()).collect()
    } else {
        matched
    }
}

/// One side: the files [`shown_files`] picks, each with its code, and the
/// names of the others.
fn side(
    out: &mut String,
    report: &Report,
    pair: &Pair,
    side: Side,
    name: &str,
    sources: &Sources,
    scripts: &mut Vec<String>,
) {
    let index = side.index(pair);
    push_fmt(
        out,
        format_args!(
            "<section class=\"side\" id=\"side-{}\">\n<h2>",
            side.letter()
        ),
    );
    escape_into(out, name);
    out.push_str("</h2>\n");
    let files: &[FileEntry] = report
        .submissions
        .get(index)
        .map_or(&[], |s| s.files.as_slice());
    let shown = shown_files(report, pair, side);
    for &j in &shown {
        render_file(
            out,
            &files[j],
            pair,
            side,
            sources.get(&(index, j)),
            scripts,
        );
    }
    let others: Vec<&FileEntry> = (0..files.len())
        .filter(|j| !shown.contains(j))
        .map(|j| &files[j])
        .collect();
    if !others.is_empty() {
        push_fmt(
            out,
            format_args!(
                "<p class=\"others\">{} other file{} without matches in this pair: ",
                others.len(),
                if others.len() == 1 { "" } else { "s" }
            ),
        );
        for (i, f) in others.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str("<code>");
            escape_into(out, &f.path);
            out.push_str("</code>");
        }
        out.push_str("</p>\n");
    }
    out.push_str("</section>\n");
}

/// Ranges as `start,end,fragment` triples separated by spaces, in shown
/// (UTF-16) offsets, for `bryo.js`.
fn push_ranges(out: &mut String, ranges: &[(usize, usize, usize)]) {
    for (i, (s, e, f)) in ranges.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_fmt(out, format_args!("{s},{e},{f}"));
    }
}

fn render_file(
    out: &mut String,
    file: &FileEntry,
    pair: &Pair,
    side: Side,
    loaded: Option<&LoadedFile>,
    scripts: &mut Vec<String>,
) {
    out.push_str("<article class=\"file\">\n<h3>");
    escape_into(out, &file.path);
    out.push_str(" <small>");
    escape_into(out, &file.language);
    push_fmt(
        out,
        format_args!(
            ", {} lines, {} symbols</small></h3>\n",
            file.lines, file.symbols
        ),
    );
    let (source, script): (&Source, &str) = match loaded.map(|l| (&l.source, &l.script)) {
        Some((Ok(source), script)) => (source, script),
        Some((Err(reason), _)) => {
            out.push_str("<p class=\"missing\">Source not available: ");
            escape_into(out, reason);
            out.push_str("</p>\n</article>\n");
            return;
        }
        None => {
            out.push_str("<p class=\"missing\">Source not available.</p>\n</article>\n");
            return;
        }
    };
    let mut changed = false;
    let mut marks = Vec::new();
    // A fragment whose parts lie out of text order on this side (the
    // front-end put statements in a canonical order) is marked part by
    // part: the range around them holds other code.
    let in_order = |f: &Fragment| {
        f.parts
            .windows(2)
            .all(|w| side.of_part(&w[0]).bytes[1] <= side.of_part(&w[1]).bytes[0])
    };
    for (i, f) in pair.fragments.iter().enumerate() {
        let loc = side.of(f);
        if loc.file != file.path {
            continue;
        }
        let pieces: Vec<[u64; 2]> = if in_order(f) {
            vec![loc.bytes]
        } else {
            f.parts.iter().map(|p| side.of_part(p).bytes).collect()
        };
        for [start, end] in pieces {
            changed |= !source.holds(end);
            marks.push((source.shown_offset(start), source.shown_offset(end), i));
        }
    }
    marks.sort_unstable();
    // Inside a merged fragment, what lies between two parts did not match.
    let mut gaps = Vec::new();
    for (i, f) in pair.fragments.iter().enumerate() {
        if side.of(f).file != file.path || !in_order(f) {
            continue;
        }
        for w in f.parts.windows(2) {
            let (end, start) = (side.of_part(&w[0]).bytes[1], side.of_part(&w[1]).bytes[0]);
            if end < start {
                changed |= !source.holds(start);
                gaps.push((source.shown_offset(end), source.shown_offset(start), i));
            }
        }
    }
    gaps.sort_unstable();
    let mut base: Vec<(usize, usize, usize)> = Vec::new();
    for r in &file.base_code {
        changed |= !source.holds(r.bytes[1]);
        base.push((
            source.shown_offset(r.bytes[0]),
            source.shown_offset(r.bytes[1]),
            0,
        ));
    }
    base.sort_unstable();
    let lines = source.line_count();
    if changed || u64::from(lines) != file.lines {
        out.push_str("<p class=\"missing\">This file differs from the one compared (it changed since the report was made): the marked passages may be misplaced.</p>\n");
    }
    out.push_str("<div class=\"src\">");
    render_gutter(out, lines);
    push_fmt(
        out,
        format_args!(
            "<pre class=\"code\" data-src=\"{}\" data-marks=\"",
            script_id(script)
        ),
    );
    push_ranges(out, &marks);
    out.push_str("\" data-gaps=\"");
    push_ranges(out, &gaps);
    out.push_str("\" data-base=\"");
    push_ranges(out, &base);
    out.push_str("\"></pre></div>\n</article>\n");
    scripts.push(script.to_string());
}

/// `files/s3-0.js` → `s3-0`: the key the script registers its text under.
pub(crate) fn script_id(script: &str) -> &str {
    script.trim_start_matches("files/").trim_end_matches(".js")
}
