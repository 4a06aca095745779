use std::io::Write;

use serde::{Deserialize, Serialize};

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

/// How a JSON report is laid out in lines. Either way the keys come in the
/// model's field order and the text ends with a newline; only whitespace
/// differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JsonLayout {
    /// One line per record (the default): each top-level key, each member
    /// of a top-level object (`options`, `stats`) and each element of a
    /// top-level array (a submission, a pair with its fragments, a
    /// cluster) on a line of its own, indented by its level; everything
    /// within those lines without spaces. Half the bytes of
    /// [`JsonLayout::Pretty`] on a report of many fragments, and still
    /// one pair per line for `grep`, `head` and `diff`.
    #[default]
    Lines,
    /// Every member and element on a line of its own, two spaces per level
    /// (serde_json's pretty printer).
    Pretty,
}

/// Nesting levels whose members or elements go on lines of their own in
/// [`JsonLayout::Lines`]: the report object (level 1) and the objects and
/// arrays that are its values (level 2).
const LINE_LEVELS: usize = 2;

/// serde_json's formatter for [`JsonLayout::Lines`]: the pretty printer's
/// line breaks and two-space indents at the first [`LINE_LEVELS`] levels,
/// none below them.
#[derive(Debug, Default)]
pub(crate) struct LinesFormatter {
    /// Containers open around the next token.
    level: usize,
    /// Whether the innermost open container has had a member or element
    /// (so its closing bracket goes on a line of its own).
    has_value: bool,
}

impl LinesFormatter {
    fn broken(&self) -> bool {
        self.level <= LINE_LEVELS
    }

    fn line<W: ?Sized + Write>(&self, out: &mut W, level: usize) -> std::io::Result<()> {
        out.write_all(b"\n")?;
        for _ in 0..level {
            out.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        let broken = self.broken();
        self.level -= 1;
        if self.has_value && broken {
            self.line(out, self.level)?;
        }
        out.write_all(bracket)
    }

    fn item<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            out.write_all(b",")?;
        }
        if self.broken() {
            self.line(out, self.level)?;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for LinesFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(out, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(out, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        out.write_all(if self.broken() { b": " } else { b":" })
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Writes `value` as JSON laid out as `layout` says, without a final
/// newline.
fn to_writer<W: Write, T: Serialize + ?Sized>(
    out: W,
    value: &T,
    layout: JsonLayout,
) -> Result<(), serde_json::Error> {
    match layout {
        JsonLayout::Pretty => serde_json::to_writer_pretty(out, value),
        JsonLayout::Lines => value.serialize(&mut serde_json::Serializer::with_formatter(
            out,
            LinesFormatter::default(),
        )),
    }
}

/// `value` as JSON text laid out as `layout` says, without the final
/// newline.
pub(crate) fn to_json_string<T: Serialize + ?Sized>(
    value: &T,
    layout: JsonLayout,
) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    to_writer(&mut out, value, layout)?;
    // serde_json writes only valid UTF-8.
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

/// Writes `report` as JSON in the default layout ([`JsonLayout::Lines`]:
/// one line per submission and per pair, keys in the model's field order)
/// followed by a newline.
///
/// Fails with [`ReportError::Invalid`] if the report does not pass
/// [`Report::validate`], so whatever is written can be read back.
pub fn write_json<W: Write>(report: &Report, out: W) -> Result<(), ReportError> {
    write_json_with(report, JsonLayout::default(), out)
}

/// Writes `report` as JSON laid out as `layout` says, followed by a
/// newline; fails as [`write_json`] does.
pub fn write_json_with<W: Write>(
    report: &Report,
    layout: JsonLayout,
    mut out: W,
) -> Result<(), ReportError> {
    report.validate()?;
    to_writer(&mut out, report, layout)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}
