use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;

use crate::{percent_down, plural, FileStatus, Report, ReportError};

/// How [`write_table`] lays out the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableOptions {
    /// Emit ANSI colours (bold header, similarity in yellow or red). The
    /// library never detects a terminal itself: the caller decides.
    pub color: bool,
    /// Longest submission name shown, in characters; longer names keep their
    /// end (the most distinctive part of a path) behind a leading `…`.
    /// Values below 8 are treated as 8.
    pub max_name_width: usize,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            color: false,
            max_name_width: 48,
        }
    }
}

const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";
const MIN_NAME_WIDTH: usize = 8;
/// At most this many cluster members are named in the footer.
const CLUSTER_NAMES_SHOWN: usize = 8;

/// Writes the MOSS-like ranked table: a summary line, one row per pair
/// (rank, `File 1 (NN%)`, `File 2 (NN%)`, lines matched, similarity), then
/// a footer listing skipped files and fallbacks (the first ten, with the
/// reason) and the clusters.
///
/// Percentages are rounded down, so `100%` means fully covered. Column widths
/// follow the longest cell. Control characters and bidirectional overrides in
/// names are shown escaped (`\n`, `\u{1b}`), so a file name cannot break the
/// layout or send escape sequences to the terminal. Widths count characters,
/// so wide (East Asian) characters may misalign a row.
pub fn write_table<W: Write>(
    report: &Report,
    out: W,
    options: &TableOptions,
) -> Result<(), ReportError> {
    write_table_with(
        report,
        report.pairs.len(),
        &mut |row| report.pairs.iter().try_for_each(row),
        out,
        options,
    )
}

/// What [`write_table_with`] does with one pair of its table.
pub type PairRow<'a> = dyn FnMut(&crate::Pair) -> Result<(), ReportError> + 'a;

/// Gives every pair of a table, in rank order, to the function it is
/// called with.
pub type EachPair<'a> = dyn FnMut(&mut PairRow<'_>) -> Result<(), ReportError> + 'a;

/// Writes the table of [`write_table`] for `report` (whose own pairs are
/// not read) and `count` pairs, which `pairs` gives in rank order each time
/// it is called: once for the column widths, once for the rows. A table of
/// a million pairs read from disk is then never held in memory.
pub fn write_table_with<W: Write>(
    report: &Report,
    count: usize,
    pairs: &mut EachPair<'_>,
    mut out: W,
    options: &TableOptions,
) -> Result<(), ReportError> {
    let mut text = String::new();
    let paint = Painter { on: options.color };
    let name_width = options.max_name_width.max(MIN_NAME_WIDTH);

    text.push_str(&paint.wrap(BOLD, &summary(report, count)));
    text.push('\n');

    if count == 0 {
        text.push_str("No pairs to report.\n");
    } else {
        let header = ["#", "File 1", "File 2", "Lines matched", "Similarity"];
        let cells = |i: usize, p: &crate::Pair| {
            [
                (i + 1).to_string(),
                format!(
                    "{} ({})",
                    shorten(&clean(&report.submission_name(p.a)), name_width),
                    percent(p.a_percent)
                ),
                format!(
                    "{} ({})",
                    shorten(&clean(&report.submission_name(p.b)), name_width),
                    percent(p.b_percent)
                ),
                p.lines_matched.to_string(),
                similarity_cell(p.similarity, p.identical),
            ]
        };
        // Two passes over the pairs, the widths first, so that a table of
        // a million pairs is never held as text.
        let mut widths = header.map(|h| h.chars().count());
        let mut i = 0;
        pairs(&mut |p| {
            for (w, cell) in widths.iter_mut().zip(&cells(i, p)) {
                *w = (*w).max(cell.chars().count());
            }
            i += 1;
            Ok(())
        })?;
        // Rank, lines and similarity are right-aligned; names left-aligned.
        let right = [true, false, false, true, true];
        let line = |cells: [&str; 5], last_colour: Option<&str>| {
            let mut s = String::new();
            for (i, cell) in cells.iter().enumerate() {
                if i > 0 {
                    s.push_str("  ");
                }
                match (i, last_colour) {
                    // Colour the text only, not its padding.
                    (4, Some(c)) => {
                        let fill = widths[i].saturating_sub(cell.chars().count());
                        s.push_str(&" ".repeat(fill));
                        s.push_str(&paint.wrap(c, cell));
                    }
                    _ => s.push_str(&pad(cell, widths[i], right[i])),
                }
            }
            s.truncate(s.trim_end().len());
            s
        };
        text.push_str(&paint.wrap(BOLD, &line(header, None)));
        text.push('\n');
        out.write_all(text.as_bytes())?;
        text.clear();
        let mut i = 0;
        pairs(&mut |p| {
            let [rank, a, b, lines, sim] = &cells(i, p);
            i += 1;
            let colour = if p.similarity >= 0.75 {
                Some(RED)
            } else if p.similarity >= 0.4 {
                Some(YELLOW)
            } else {
                None
            };
            let mut row = line([rank, a, b, lines, sim], colour);
            row.push('\n');
            out.write_all(row.as_bytes())?;
            Ok(())
        })?;
    }

    footer(report, &mut text, &paint, name_width);
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Identical submissions and files identical after normalization.
fn identical(report: &Report, text: &mut String, paint: &Painter, name_width: usize) {
    let groups = &report.identical_submissions;
    if !groups.is_empty() {
        let _ = writeln!(
            text,
            "{} group{} of identical submissions (same files after normalization):",
            groups.len(),
            plural(groups.len())
        );
        for g in groups.iter().take(LISTED) {
            let names: Vec<String> = g
                .iter()
                .map(|&m| shorten(&clean(&report.submission_name(m)), name_width).into_owned())
                .collect();
            let _ = writeln!(text, "  {}", names.join(" = "));
        }
        if groups.len() > LISTED {
            let more = format!(
                "  … and {} more (the JSON output lists them all)",
                groups.len() - LISTED
            );
            let _ = writeln!(text, "{}", paint.wrap(DIM, &more));
        }
    }
    let files = &report.identical_files;
    if !files.is_empty() {
        let _ = writeln!(
            text,
            "{} file content{} identical after normalization in several submissions:",
            files.len(),
            plural(files.len())
        );
        for f in files.iter().take(LISTED) {
            let names: Vec<String> = f
                .files
                .iter()
                .map(|r| shorten(&clean(&r.path), name_width).into_owned())
                .collect();
            let line = format!("  {} ({} symbols)", names.join(" = "), f.symbols);
            let _ = writeln!(text, "{}", paint.wrap(DIM, &line));
        }
        if files.len() > LISTED {
            let more = format!(
                "  … and {} more (the JSON output lists them all)",
                files.len() - LISTED
            );
            let _ = writeln!(text, "{}", paint.wrap(DIM, &more));
        }
    }
}

struct Painter {
    on: bool,
}

impl Painter {
    fn wrap(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("{code}{s}{RESET}")
        } else {
            s.to_owned()
        }
    }
}

fn summary(report: &Report, pairs: usize) -> String {
    let opts = &report.options;
    let old = report.submissions.iter().filter(|s| s.old).count();
    let files: usize = report.submissions.iter().map(|s| s.files.len()).sum();
    let mut s = format!(
        "bryo {} compare: {} submission{}",
        clean(&report.bryo_version),
        report.submissions.len(),
        plural(report.submissions.len())
    );
    if old > 0 {
        let _ = write!(s, " ({old} old)");
    }
    let _ = write!(s, ", {files} file{}", plural(files));
    match &opts.language {
        Some(lang) => {
            let _ = write!(s, ", language {}", clean(lang));
        }
        None => s.push_str(", language auto"),
    }
    let _ = write!(
        s,
        ", k={} w={}, common code: {}, {} similarity",
        opts.k,
        opts.w,
        report.common_rule(),
        match opts.score {
            crate::Score::Symmetric => "symmetric",
            crate::Score::Directional => "directional",
        }
    );
    if !opts.base.is_empty() {
        let _ = write!(
            s,
            ", {} base path{}",
            opts.base.len(),
            plural(opts.base.len())
        );
    }
    let _ = write!(
        s,
        "; {} pair{} shown of {}",
        pairs,
        plural(pairs),
        report.stats.candidate_pairs
    );
    if let Some(comment) = &opts.comment {
        let _ = write!(s, " — {}", clean(comment));
    }
    s
}

/// Skipped files and fallbacks listed by name in the footer.
const LISTED: usize = 10;

fn footer(report: &Report, text: &mut String, paint: &Painter, name_width: usize) {
    let skipped = report.skipped.len();
    if skipped > 0 {
        let _ = writeln!(text, "{skipped} file{} skipped:", plural(skipped));
        for s in report.skipped.iter().take(LISTED) {
            let line = format!(
                "  {}: {}",
                shorten(&clean(&s.path), name_width),
                clean(&s.reason)
            );
            let _ = writeln!(text, "{}", paint.wrap(DIM, &line));
        }
        if skipped > LISTED {
            let more = format!(
                "  … and {} more (the JSON output lists them all)",
                skipped - LISTED
            );
            let _ = writeln!(text, "{}", paint.wrap(DIM, &more));
        }
    }
    let fallbacks: Vec<(&str, &str)> = report
        .submissions
        .iter()
        .flat_map(|s| &s.files)
        .filter_map(|f| match &f.status {
            FileStatus::Fallback { reason } => Some((f.path.as_str(), reason.as_str())),
            _ => None,
        })
        .collect();
    if !fallbacks.is_empty() {
        let n = fallbacks.len();
        let _ = writeln!(text, "{n} file{} read with a simpler front-end:", plural(n));
        for (path, reason) in fallbacks.iter().take(LISTED) {
            let line = format!("  {}: {}", shorten(&clean(path), name_width), clean(reason));
            let _ = writeln!(text, "{}", paint.wrap(DIM, &line));
        }
        if n > LISTED {
            let more = format!(
                "  … and {} more (the JSON output lists them all)",
                n - LISTED
            );
            let _ = writeln!(text, "{}", paint.wrap(DIM, &more));
        }
    }
    identical(report, text, paint, name_width);
    if report.clusters.is_empty() {
        return;
    }
    let _ = writeln!(
        text,
        "{} cluster{} (similarity ≥ {}):",
        report.clusters.len(),
        plural(report.clusters.len()),
        similarity_text(report.options.cluster_threshold)
    );
    for (i, c) in report.clusters.iter().enumerate() {
        let mut names: Vec<String> = c
            .members
            .iter()
            .take(CLUSTER_NAMES_SHOWN)
            .map(|&m| shorten(&clean(&report.submission_name(m)), name_width).into_owned())
            .collect();
        if c.members.len() > CLUSTER_NAMES_SHOWN {
            names.push(format!(
                "and {} more",
                c.members.len() - CLUSTER_NAMES_SHOWN
            ));
        }
        let _ = writeln!(
            text,
            "  {}. {} submissions, max {}: {}",
            i + 1,
            c.members.len(),
            similarity_text(c.max_similarity),
            names.join(", ")
        );
    }
}

/// `NN%`, rounded down and clamped to 0..=100.
fn percent(p: f64) -> String {
    percent_down(p, 100.0, 0)
}

/// A 0..1 similarity as `NN.N%`, rounded down.
fn similarity_text(s: f64) -> String {
    if s.is_nan() {
        return "?".to_owned();
    }
    percent_down(s, 1.0, 1)
}

fn similarity_cell(s: f64, identical: bool) -> String {
    if identical {
        format!("{} identical", similarity_text(s))
    } else {
        similarity_text(s)
    }
}

/// Escapes characters that would break a terminal row or reorder it:
/// control characters and bidirectional formatting characters.
fn clean(s: &str) -> Cow<'_, str> {
    let bad =
        |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Keeps the last `width - 1` characters behind `…` when `s` is longer than
/// `width` characters.
fn shorten(s: &str, width: usize) -> Cow<'_, str> {
    let len = s.chars().count();
    if len <= width {
        return Cow::Borrowed(s);
    }
    let tail: String = s.chars().skip(len - (width - 1)).collect();
    Cow::Owned(format!("…{tail}"))
}

fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = width.saturating_sub(s.chars().count());
    if right {
        format!("{}{s}", " ".repeat(fill))
    } else {
        format!("{s}{}", " ".repeat(fill))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_keeps_the_tail() {
        assert_eq!(shorten("abcdef", 6), "abcdef");
        assert_eq!(shorten("abcdefg", 6), "…cdefg");
        assert_eq!(shorten("ééééééé", 3).chars().count(), 3);
    }

    #[test]
    fn percent_rounds_down_and_clamps() {
        assert_eq!(percent(99.99), "99%");
        assert_eq!(percent(100.0), "100%");
        assert_eq!(percent(250.0), "100%");
        assert_eq!(percent(-3.0), "0%");
        assert_eq!(percent(f64::NAN), "?%");
        assert_eq!(similarity_text(0.8739), "87.3%");
        assert_eq!(similarity_text(0.29), "29.0%");
        assert_eq!(similarity_text(0.999_99), "99.9%");
        assert_eq!(similarity_text(1.0), "100.0%");
    }

    #[test]
    fn clean_escapes_controls_and_bidi() {
        assert_eq!(clean("a\nb"), "a\\nb");
        assert_eq!(clean("x\u{1b}[31m"), "x\\u{1b}[31m");
        assert_eq!(clean("a\u{202e}b"), "a\\u{202e}b");
        assert!(matches!(clean("plain/ü.py"), Cow::Borrowed(_)));
    }
}
