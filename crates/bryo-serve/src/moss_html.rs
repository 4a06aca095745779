//! MOSS's result pages, for the scripts that parse them: `index.html`
//! (a table of `name (NN%) | name (NN%) | lines matched`), and per pair
//! `match<N>.html` (a frameset), `match<N>-top.html` (the table of
//! matched passages, four cells a row) and `match<N>-0.html` /
//! `match<N>-1.html` (the two sides, marked up and linked to each other).
//! Upper-case tags, as MOSS writes them; links in `index.html` are
//! absolute, as MOSS's are, since scrapers follow them as given.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use bryo_html::escape_html;
use bryo_report::{percent_down, Pair, Report};

use crate::ServeError;

/// Colours of matched passages, in MOSS's order.
const COLOURS: [&str; 8] = [
    "#FF0000", "#00FF00", "#0000FF", "#00FFFF", "#FF00FF", "#FFFF00", "#800000", "#008000",
];

fn side_name(report: &Report, index: usize, percent: f64) -> String {
    let name = report
        .submissions
        .get(index)
        .map_or("?", |s| s.name.as_str());
    format!(
        "{} ({})",
        escape_html(name),
        percent_down(percent, 100.0, 0)
    )
}

/// Writes every MOSS page into `dir`; `base` is the result's public URL
/// ending in `/`.
pub fn write_moss_pages(
    report: &Report,
    sources: &HashMap<String, Vec<u8>>,
    base: &str,
    dir: &Path,
) -> Result<(), ServeError> {
    let write = |name: &str, text: String| -> Result<(), ServeError> {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|e| ServeError::io(&path, e))
    };
    write("index.html", index_page(report, base))?;
    for (n, pair) in report.pairs.iter().enumerate() {
        let title = format!(
            "{} | {}",
            side_name(report, pair.a, pair.a_percent),
            side_name(report, pair.b, pair.b_percent)
        );
        write(&format!("match{n}.html"), frameset(n, &title))?;
        write(&format!("match{n}-top.html"), top_page(report, n, pair))?;
        for side in 0..2 {
            write(
                &format!("match{n}-{side}.html"),
                side_page(report, sources, n, pair, side),
            )?;
        }
    }
    Ok(())
}

fn index_page(report: &Report, base: &str) -> String {
    let mut out = String::new();
    out.push_str("<HTML>\n<HEAD>\n<TITLE>Moss Results</TITLE>\n</HEAD>\n<BODY>\nMoss Results<p>\n");
    if let Some(comment) = &report.options.comment {
        let _ = writeln!(out, "{}", escape_html(comment));
    }
    out.push_str("<p>\n");
    let mut options = String::new();
    if let Some(l) = &report.options.language {
        let _ = write!(options, "-l {l} ");
    }
    if report.options.directory_mode {
        options.push_str("-d ");
    }
    if let Some(m) = report.options.max_submissions {
        let _ = write!(options, "-m {m} ");
    }
    let _ = write!(options, "-n {}", report.options.max_pairs);
    let _ = writeln!(out, "Options {}", escape_html(options.trim_end()));
    out.push_str("<HR>\n");
    let _ = writeln!(
        out,
        "[ <A HREF=\"{}report/index.html\">bryo report</A> | <A HREF=\"{}result.json\">JSON</A> ]",
        escape_html(base),
        escape_html(base)
    );
    out.push_str("<HR>\n<TABLE>\n<TR><TH>File 1<TH>File 2<TH>Lines Matched\n");
    for (n, pair) in report.pairs.iter().enumerate() {
        let href = escape_html(&format!("{base}match{n}.html"));
        let _ = write!(
            out,
            "<TR><TD><A HREF=\"{href}\">{}</A>\n    <TD><A HREF=\"{href}\">{}</A>\n<TD ALIGN=right>{}\n",
            side_name(report, pair.a, pair.a_percent),
            side_name(report, pair.b, pair.b_percent),
            pair.lines_matched
        );
    }
    out.push_str("</TABLE>\n<HR>\nAny errors encountered during this query are listed below.<p>");
    for s in &report.skipped {
        let _ = writeln!(
            out,
            "{}: {}<br>",
            escape_html(&s.path),
            escape_html(&s.reason)
        );
    }
    out.push_str("</BODY>\n</HTML>\n");
    out
}

fn frameset(n: usize, title: &str) -> String {
    format!(
        "<HTML>\n<HEAD>\n<TITLE>Matches for {title}</TITLE>\n</HEAD>\n\
         <FRAMESET ROWS=\"150,*\">\n<FRAMESET COLS=\"1000,*\">\n  \
         <FRAME SRC=\"match{n}-top.html\" NAME=\"top\" FRAMEBORDER=0>\n</FRAMESET>\n\
         <FRAMESET COLS=\"50%,50%\">\n  <FRAME SRC=\"match{n}-0.html\" NAME=\"0\">\n  \
         <FRAME SRC=\"match{n}-1.html\" NAME=\"1\">\n</FRAMESET>\n</FRAMESET>\n</HTML>\n"
    )
}

fn top_page(report: &Report, n: usize, pair: &Pair) -> String {
    let mut out = String::new();
    out.push_str(
        "<HTML>\n<HEAD>\n<TITLE>Top</TITLE>\n</HEAD>\n<BODY BGCOLOR=white>\n<HR>\n<CENTER>\n",
    );
    out.push_str("<TABLE BORDER=\"1\" CELLSPACING=\"0\" BGCOLOR=\"#d0d0d0\">\n");
    let _ = writeln!(
        out,
        "<TR><TH>{}<TH> <TH>{}<TH> ",
        side_name(report, pair.a, pair.a_percent),
        side_name(report, pair.b, pair.b_percent)
    );
    for (i, f) in pair.fragments.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        for (side, loc) in [(0, &f.a), (1, &f.b)] {
            let _ = write!(
                out,
                "{}<TD><A HREF=\"match{n}-{side}.html#{i}\" NAME=\"{i}\" TARGET=\"{side}\">{}-{}</A>\n\
                 <TD><A HREF=\"match{n}-{side}.html#{i}\" NAME=\"{i}\" TARGET=\"{side}\"><FONT COLOR=\"{colour}\">&#9632;</FONT></A>\n",
                if side == 0 { "<TR>" } else { "" },
                loc.lines[0],
                loc.lines[1]
            );
        }
    }
    out.push_str("</TABLE>\n</CENTER>\n</BODY>\n</HTML>\n");
    out
}

fn side_page(
    report: &Report,
    sources: &HashMap<String, Vec<u8>>,
    n: usize,
    pair: &Pair,
    side: usize,
) -> String {
    let (submission, other) = if side == 0 { (pair.a, 1) } else { (pair.b, 0) };
    let name = report
        .submissions
        .get(submission)
        .map_or("?", |s| s.name.as_str());
    let mut out = String::new();
    let _ = write!(
        out,
        "<HTML>\n<HEAD>\n<TITLE>{}</TITLE>\n</HEAD>\n<BODY BGCOLOR=white>\n<HR>\n",
        escape_html(name)
    );
    let files = report
        .submissions
        .get(submission)
        .map(|s| s.files.as_slice())
        .unwrap_or_default();
    for file in files {
        let _ = writeln!(out, "{}<p><PRE>", escape_html(&file.path));
        let text = sources
            .get(&file.path)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        // Which fragment each line belongs to (the first one wins where
        // two touch on a line).
        let lines: Vec<&str> = text.lines().collect();
        let mut owner: Vec<Option<usize>> = vec![None; lines.len()];
        for (i, f) in pair.fragments.iter().enumerate() {
            let loc = if side == 0 { &f.a } else { &f.b };
            if loc.file != file.path {
                continue;
            }
            let first = loc.lines[0].max(1) as usize - 1;
            let last = (loc.lines[1] as usize).min(lines.len());
            for slot in owner.iter_mut().take(last).skip(first) {
                slot.get_or_insert(i);
            }
        }
        let mut open: Option<usize> = None;
        for (line, who) in lines.iter().zip(&owner) {
            if *who != open {
                if open.is_some() {
                    out.push_str("</FONT>\n");
                }
                if let Some(i) = who {
                    let _ = writeln!(
                        out,
                        "<A NAME=\"{i}\"></A><FONT color = {}><A HREF=\"match{n}-{other}.html#{i}\" TARGET=\"{other}\">&#9632;</A>",
                        COLOURS[i % COLOURS.len()]
                    );
                }
                open = *who;
            }
            out.push_str(&escape_html(line.strip_suffix('\r').unwrap_or(line)));
            out.push('\n');
        }
        if open.is_some() {
            out.push_str("</FONT>\n");
        }
        out.push_str("</PRE>\n<HR>\n");
    }
    out.push_str("</BODY>\n</HTML>\n");
    out
}
