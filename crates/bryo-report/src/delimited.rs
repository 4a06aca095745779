use std::io::Write;

use crate::{CsvPairs, PairWriter, Report, ReportError};

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
    let mut w = CsvPairs::begin(report, out)?;
    for p in &report.pairs {
        w.pair(p)?;
    }
    w.finish()?;
    Ok(())
}
