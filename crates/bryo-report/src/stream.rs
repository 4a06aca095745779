//! Reports written pair by pair: the head first, then each pair as it is
//! computed, so that a run with a million pairs never holds them together.

use std::io::Write;

use crate::{JsonLayout, Pair, Report, ReportError, CSV_HEADER};

/// What the JSON of a report with no pairs holds where the pairs go, in
/// either layout. A JSON string never holds a raw line break, so this
/// cannot occur inside a name.
const PAIRS_KEY: &str = "\n  \"pairs\": [";

/// What [`JsonPairs`] and [`CsvPairs`] share: pairs encoded on any thread
/// ([`PairWriter::encode`] takes `&self`), then written in rank order.
pub trait PairWriter {
    /// The bytes of `pair`, ranked `rank` (1 = best).
    fn encode(&self, rank: usize, pair: &Pair) -> Result<Vec<u8>, ReportError>;

    /// Writes an encoded pair after those written before.
    fn write_encoded(&mut self, encoded: &[u8]) -> Result<(), ReportError>;

    /// Pairs written so far.
    fn written(&self) -> usize;

    /// Encodes and writes the next pair (ranked after those written).
    fn pair(&mut self, pair: &Pair) -> Result<(), ReportError> {
        let encoded = self.encode(self.written() + 1, pair)?;
        self.write_encoded(&encoded)
    }
}

/// A report written as JSON pair by pair, byte for byte what
/// [`write_json_with`](crate::write_json_with) writes for the whole report
/// in the same [`JsonLayout`]: the head
/// (options, submissions) when it begins, each pair as it is given, the
/// rest (clusters, exact copies, skipped files, totals) at the end.
///
/// Pairs are encoded on many threads and written in order through
/// [`PairWriter`].
///
/// (`tests/report.rs` checks the bytes against `write_json` on random
/// reports.)
#[derive(Debug)]
pub struct JsonPairs<W: Write> {
    out: W,
    /// The head's JSON after the opening bracket of the pairs.
    tail: String,
    submissions: usize,
    layout: JsonLayout,
    written: usize,
}

impl<W: Write> JsonPairs<W> {
    /// Checks `head` ([`Report::validate`]; its `pairs` must be empty) and
    /// writes everything before the first pair, in the default layout.
    pub fn begin(head: &Report, out: W) -> Result<Self, ReportError> {
        Self::begin_with(head, JsonLayout::default(), out)
    }

    /// [`JsonPairs::begin`] in `layout`.
    pub fn begin_with(head: &Report, layout: JsonLayout, mut out: W) -> Result<Self, ReportError> {
        if !head.pairs.is_empty() {
            return Err(ReportError::Invalid(format!(
                "the head of a streamed report holds {} pairs; they are written one by one",
                head.pairs.len()
            )));
        }
        head.validate()?;
        let mut text = crate::json::to_json_string(head, layout)?;
        let at = text
            .find(PAIRS_KEY)
            .ok_or_else(|| ReportError::Invalid("no pairs key in the report".into()))?
            + PAIRS_KEY.len();
        let tail = text.split_off(at);
        out.write_all(text.as_bytes())?;
        Ok(JsonPairs {
            out,
            tail,
            submissions: head.submissions.len(),
            layout,
            written: 0,
        })
    }

    /// Writes the rest of the report and a final newline, flushes, and
    /// hands the writer back.
    pub fn finish(mut self) -> Result<W, ReportError> {
        if self.written > 0 {
            self.out.write_all(b"\n  ")?;
        }
        self.out.write_all(self.tail.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// What encodes this report's pairs, apart from the writer: pairs can
    /// then be encoded while earlier ones are being written.
    pub fn encoder(&self) -> JsonPairEncoder {
        JsonPairEncoder {
            submissions: self.submissions,
            layout: self.layout,
        }
    }
}

/// Encodes the pairs of a JSON report as [`JsonPairs`] does
/// ([`PairWriter::encode`]), without holding the writer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonPairEncoder {
    submissions: usize,
    layout: JsonLayout,
}

impl JsonPairEncoder {
    /// The encoder of the pairs of a report with `head`'s submissions, in
    /// the default layout.
    pub fn new(head: &Report) -> JsonPairEncoder {
        Self::with_layout(head, JsonLayout::default())
    }

    /// The encoder of the pairs of a report with `head`'s submissions, in
    /// `layout`.
    pub fn with_layout(head: &Report, layout: JsonLayout) -> JsonPairEncoder {
        JsonPairEncoder {
            submissions: head.submissions.len(),
            layout,
        }
    }

    /// The JSON of `pair`, ranked `rank` (1 = best); fails as
    /// [`Report::validate`] would on a report holding it.
    pub fn encode(&self, rank: usize, pair: &Pair) -> Result<Vec<u8>, ReportError> {
        Report::validate_pair(rank.saturating_sub(1), pair, self.submissions)?;
        // Sized for the usual case so that the buffer seldom grows: a
        // fragment or part takes about 125 bytes besides its two paths on
        // one line (130 at most on the standard library's report, whose
        // byte offsets run to six digits), 460 pretty-printed.
        let items: usize = pair.fragments.iter().map(|f| 1 + f.parts.len()).sum();
        let paths = pair
            .fragments
            .first()
            .map_or(0, |f| f.a.file.len() + f.b.file.len());
        let per_item = match self.layout {
            JsonLayout::Lines => 144,
            JsonLayout::Pretty => 600,
        };
        // Two levels deeper than a report's top-level keys.
        let mut out = Vec::with_capacity(1024 + items * (per_item + paths));
        crate::pretty::pair(&mut out, pair, 2, self.layout);
        Ok(out)
    }
}

impl<W: Write> PairWriter for JsonPairs<W> {
    /// The JSON of `pair`; fails as [`Report::validate`] would on a report
    /// holding it.
    fn encode(&self, rank: usize, pair: &Pair) -> Result<Vec<u8>, ReportError> {
        self.encoder().encode(rank, pair)
    }

    fn write_encoded(&mut self, encoded: &[u8]) -> Result<(), ReportError> {
        let separator: &[u8] = if self.written == 0 { b"\n" } else { b",\n" };
        self.out.write_all(separator)?;
        self.out.write_all(encoded)?;
        self.written += 1;
        Ok(())
    }

    fn written(&self) -> usize {
        self.written
    }
}

/// A report written as CSV pair by pair: the header, then one row per pair
/// in rank order, as [`write_csv`](crate::write_csv) writes them.
#[derive(Debug)]
pub struct CsvPairs<'h, W: Write> {
    out: W,
    head: &'h Report,
    written: usize,
}

impl<'h, W: Write> CsvPairs<'h, W> {
    /// Writes the header row; `head` gives the submission names (a pair
    /// naming a submission it does not hold shows `#N`, as in
    /// [`Report::submission_name`]).
    pub fn begin(head: &'h Report, mut out: W) -> Result<Self, ReportError> {
        let mut header = csv::Writer::from_writer(Vec::new());
        header.write_record(CSV_HEADER)?;
        out.write_all(&header.into_inner().map_err(|e| e.into_error())?)?;
        Ok(CsvPairs {
            out,
            head,
            written: 0,
        })
    }

    /// Flushes and hands the writer back.
    pub fn finish(mut self) -> Result<W, ReportError> {
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> PairWriter for CsvPairs<'_, W> {
    /// The CSV row of `pair`.
    fn encode(&self, rank: usize, pair: &Pair) -> Result<Vec<u8>, ReportError> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record([
            rank.to_string().as_str(),
            &self.head.submission_name(pair.a),
            &self.head.submission_name(pair.b),
            &pair.a_percent.to_string(),
            &pair.b_percent.to_string(),
            &pair.similarity.to_string(),
            &pair.lines_matched.to_string(),
            &pair.longest_fragment.to_string(),
            &pair.shared_fingerprints.to_string(),
            &pair.identical.to_string(),
        ])?;
        w.into_inner().map_err(|e| e.into_error().into())
    }

    fn write_encoded(&mut self, encoded: &[u8]) -> Result<(), ReportError> {
        self.out.write_all(encoded)?;
        self.written += 1;
        Ok(())
    }

    fn written(&self) -> usize {
        self.written
    }
}
