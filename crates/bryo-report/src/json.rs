use std::io::Write;

use serde::Deserialize;

use crate::{Report, ReportError, SCHEMA_ID};

/// Only the `schema` key, read first so that a report of another version
/// fails with a clear message instead of a missing-field error.
#[derive(Deserialize)]
struct Probe {
    schema: Option<serde_json::Value>,
}

impl Report {
    /// Reads a report written by [`write_json`].
    ///
    /// Fails with [`ReportError::UnknownSchema`] for another schema version,
    /// [`ReportError::MissingSchema`] for JSON that is not a report, and
    /// [`ReportError::Invalid`] when indices point outside the report.
    pub fn from_json(json: &str) -> Result<Report, ReportError> {
        let probe: Probe = serde_json::from_str(json)?;
        match probe.schema {
            None | Some(serde_json::Value::Null) => return Err(ReportError::MissingSchema),
            Some(serde_json::Value::String(s)) if s == SCHEMA_ID => {}
            Some(serde_json::Value::String(s)) => {
                return Err(ReportError::UnknownSchema {
                    found: s,
                    expected: SCHEMA_ID,
                })
            }
            Some(other) => {
                return Err(ReportError::UnknownSchema {
                    found: other.to_string(),
                    expected: SCHEMA_ID,
                })
            }
        }
        let report: Report = serde_json::from_str(json)?;
        report.validate()?;
        Ok(report)
    }

    /// Checks pair `i` (0 = best) of a report of `submissions` submissions.
    pub(crate) fn validate_pair(
        i: usize,
        p: &crate::Pair,
        submissions: usize,
    ) -> Result<(), ReportError> {
        if p.a >= submissions || p.b >= submissions {
            return Err(ReportError::Invalid(format!(
                "pair {i} joins submissions {} and {} but there are {submissions}",
                p.a, p.b
            )));
        }
        if p.a == p.b {
            return Err(ReportError::Invalid(format!(
                "pair {i} joins submission {} with itself",
                p.a
            )));
        }
        for (x, field) in [
            (p.similarity, "similarity"),
            (p.a_percent, "a_percent"),
            (p.b_percent, "b_percent"),
        ] {
            if !x.is_finite() {
                return Err(ReportError::Invalid(format!("pairs[{i}].{field} is {x}")));
            }
        }
        Ok(())
    }

    /// Checks what the types cannot: every submission index is in range,
    /// no pair joins a submission with itself, and every number is finite
    /// (JSON has no NaN or infinity).
    pub fn validate(&self) -> Result<(), ReportError> {
        let n = self.submissions.len();
        // The name is built only for the error, not for every number checked.
        fn finite(x: f64, what: impl FnOnce() -> String) -> Result<(), ReportError> {
            if x.is_finite() {
                Ok(())
            } else {
                Err(ReportError::Invalid(format!("{} is {x}", what())))
            }
        }
        finite(self.options.min_similarity, || {
            "options.min_similarity".into()
        })?;
        finite(self.options.cluster_threshold, || {
            "options.cluster_threshold".into()
        })?;
        if let Some(r) = self.options.merge_ratio {
            finite(r, || "options.merge_ratio".into())?;
        }
        for (i, p) in self.pairs.iter().enumerate() {
            Report::validate_pair(i, p, n)?;
        }
        for (i, c) in self.clusters.iter().enumerate() {
            if let Some(&m) = c.members.iter().find(|&&m| m >= n) {
                return Err(ReportError::Invalid(format!(
                    "cluster {i} has submission {m} but there are {n}"
                )));
            }
            finite(c.max_similarity, || format!("clusters[{i}].max_similarity"))?;
        }
        Ok(())
    }
}

/// Writes `report` as pretty-printed JSON (two-space indent, keys in the
/// model's field order) followed by a newline.
///
/// Fails with [`ReportError::Invalid`] if the report does not pass
/// [`Report::validate`], so whatever is written can be read back.
pub fn write_json<W: Write>(report: &Report, mut out: W) -> Result<(), ReportError> {
    report.validate()?;
    serde_json::to_writer_pretty(&mut out, report)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}
