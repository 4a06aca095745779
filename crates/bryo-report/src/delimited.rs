use std::io::Write;

use crate::{Report, ReportError};

/// The CSV header, in column order.
pub const CSV_HEADER: [&str; 10] = [
    "rank",
    "a",
    "b",
    "a_percent",
    "b_percent",
    "similarity",
    "lines_matched",
    "longest_fragment",
    "shared_fingerprints",
    "identical",
];

/// Writes one CSV row per pair, in report order, after a header row
/// ([`CSV_HEADER`]). `a` and `b` are submission names; numbers are written
/// in their shortest exact decimal form; `identical` is `true` or `false`.
/// Fields are quoted when they contain a comma, quote or line break.
///
/// Names are written as they are: a spreadsheet may treat a name starting
/// with `=` as a formula, so open the file as text when names are untrusted.
pub fn write_csv<W: Write>(report: &Report, out: W) -> Result<(), ReportError> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(CSV_HEADER)?;
    for (i, p) in report.pairs.iter().enumerate() {
        w.write_record([
            (i + 1).to_string(),
            report.submission_name(p.a).into_owned(),
            report.submission_name(p.b).into_owned(),
            p.a_percent.to_string(),
            p.b_percent.to_string(),
            p.similarity.to_string(),
            p.lines_matched.to_string(),
            p.longest_fragment.to_string(),
            p.shared_fingerprints.to_string(),
            p.identical.to_string(),
        ])?;
    }
    w.flush()?;
    Ok(())
}
