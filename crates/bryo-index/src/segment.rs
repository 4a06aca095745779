//! Segments: immutable Parquet files of postings sorted by hash.
//!
//! Schema (readable by any Parquet tool):
//!
//! ```text
//! message bryo_postings {
//!   REQUIRED INT64 hash (INTEGER(64,false));
//!   REQUIRED INT32 doc (INTEGER(32,false));
//!   REQUIRED INT32 pos (INTEGER(32,false));
//! }
//! ```
//!
//! Rows are sorted by `(hash, doc, pos)`; row groups hold at most
//! [`ROW_GROUP_ROWS`] rows and carry min/max statistics (unsigned), so a
//! lookup reads only the row groups whose hash range holds a hash it looks
//! for. The catalogue records each segment's size and checksum (the Rabin
//! fingerprint of its bytes), checked before a segment is parsed.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Encoding, LogicalType, Repetition, Type as PhysicalType};
use parquet::column::reader::ColumnReader;
use parquet::data_type::{Int32Type, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::statistics::Statistics;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use crate::error::{IndexError, Result};

/// Rows per row group: 64 Ki postings (1 MiB uncompressed).
pub const ROW_GROUP_ROWS: usize = 1 << 16;

/// One occurrence of a selected fingerprint: `hash` was selected at symbol
/// `pos` of document `doc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Posting {
    /// The k-gram hash.
    pub hash: u64,
    /// The document's id in the catalogue.
    pub doc: u32,
    /// Index of the k-gram's first symbol.
    pub pos: u32,
}

/// What the catalogue records of a written segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Written {
    pub postings: u64,
    pub bytes: u64,
    pub checksum: u64,
}

fn schema() -> Arc<Type> {
    let column = |name: &str, physical, bits| {
        Arc::new(
            Type::primitive_type_builder(name, physical)
                .with_repetition(Repetition::REQUIRED)
                .with_logical_type(Some(LogicalType::Integer {
                    bit_width: bits,
                    is_signed: false,
                }))
                .build()
                .expect("a valid column"),
        )
    };
    Arc::new(
        Type::group_type_builder("bryo_postings")
            .with_fields(vec![
                column("hash", PhysicalType::INT64, 64),
                column("doc", PhysicalType::INT32, 32),
                column("pos", PhysicalType::INT32, 32),
            ])
            .build()
            .expect("a valid schema"),
    )
}

/// The checksum of a segment's bytes.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    bryo_compare::FileFingerprinter::new().raw(bytes)
}

/// Writes `postings` (sorted by `(hash, doc, pos)`) to a new file at
/// `path`, flushed to disk.
pub(crate) fn write_segment(path: &Path, postings: &[Posting]) -> Result<Written> {
    debug_assert!(postings.windows(2).all(|w| w[0] <= w[1]));
    let io = |source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    };
    let pq = |e: parquet::errors::ParquetError| IndexError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let properties = WriterProperties::builder()
        .set_max_row_group_size(ROW_GROUP_ROWS)
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::DELTA_BINARY_PACKED)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_created_by(format!("bryo-index {}", env!("CARGO_PKG_VERSION")))
        .build();
    let mut buffer = Vec::with_capacity(postings.len() * 16 + 1024);
    {
        let mut writer =
            SerializedFileWriter::new(&mut buffer, schema(), Arc::new(properties)).map_err(pq)?;
        for chunk in postings.chunks(ROW_GROUP_ROWS) {
            let hashes: Vec<i64> = chunk.iter().map(|p| p.hash as i64).collect();
            let docs: Vec<i32> = chunk.iter().map(|p| p.doc as i32).collect();
            let positions: Vec<i32> = chunk.iter().map(|p| p.pos as i32).collect();
            let mut group = writer.next_row_group().map_err(pq)?;
            let mut column = 0;
            while let Some(mut c) = group.next_column().map_err(pq)? {
                match column {
                    0 => c.typed::<Int64Type>().write_batch(&hashes, None, None),
                    1 => c.typed::<Int32Type>().write_batch(&docs, None, None),
                    _ => c.typed::<Int32Type>().write_batch(&positions, None, None),
                }
                .map_err(pq)?;
                c.close().map_err(pq)?;
                column += 1;
            }
            group.close().map_err(pq)?;
        }
        writer.close().map_err(pq)?;
    }
    let mut file = File::create_new(path).map_err(io)?;
    file.write_all(&buffer).map_err(io)?;
    file.sync_all().map_err(io)?;
    Ok(Written {
        postings: postings.len() as u64,
        bytes: buffer.len() as u64,
        checksum: checksum(&buffer),
    })
}

/// A segment read into memory and checked against the catalogue.
pub(crate) struct Segment {
    reader: SerializedFileReader<Bytes>,
    path: std::path::PathBuf,
}

impl Segment {
    /// Reads the segment at `path` and checks its size and checksum.
    pub(crate) fn open(path: &Path, bytes: u64, sum: u64) -> Result<Segment> {
        let corrupt = |reason: String| IndexError::CorruptSegment {
            path: path.to_path_buf(),
            reason,
        };
        let data = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => corrupt("the file is missing".to_string()),
            _ => IndexError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        })?;
        if data.len() as u64 != bytes {
            return Err(corrupt(format!(
                "{} bytes, the catalogue recorded {bytes}",
                data.len()
            )));
        }
        if checksum(&data) != sum {
            return Err(corrupt(
                "its checksum differs from the one in the catalogue".to_string(),
            ));
        }
        let reader = SerializedFileReader::new(Bytes::from(data))
            .map_err(|e| corrupt(format!("not a readable Parquet file: {e}")))?;
        let ok = reader
            .metadata()
            .file_metadata()
            .schema_descr()
            .columns()
            .len()
            == 3;
        if !ok {
            return Err(corrupt(
                "not a postings file (expected 3 columns)".to_string(),
            ));
        }
        Ok(Segment {
            reader,
            path: path.to_path_buf(),
        })
    }

    fn corrupt(&self, reason: String) -> IndexError {
        IndexError::CorruptSegment {
            path: self.path.clone(),
            reason,
        }
    }

    /// Number of row groups.
    pub(crate) fn row_groups(&self) -> usize {
        self.reader.metadata().num_row_groups()
    }

    /// The smallest and largest hash of a row group, from its statistics.
    pub(crate) fn hash_range(&self, group: usize) -> Option<(u64, u64)> {
        let meta = self.reader.metadata().row_group(group);
        match meta.column(0).statistics() {
            Some(Statistics::Int64(s)) => Some((*s.min_opt()? as u64, *s.max_opt()? as u64)),
            _ => None,
        }
    }

    /// Every posting of a row group, in file order.
    pub(crate) fn read_group(&self, group: usize) -> Result<Vec<Posting>> {
        let rows = self.reader.metadata().row_group(group).num_rows() as usize;
        let reader = self
            .reader
            .get_row_group(group)
            .map_err(|e| self.corrupt(format!("row group {group}: {e}")))?;
        let mut hashes: Vec<i64> = Vec::with_capacity(rows);
        let mut docs: Vec<i32> = Vec::with_capacity(rows);
        let mut positions: Vec<i32> = Vec::with_capacity(rows);
        for column in 0..3 {
            let c = reader
                .get_column_reader(column)
                .map_err(|e| self.corrupt(format!("row group {group}: {e}")))?;
            let read = match (column, c) {
                (0, ColumnReader::Int64ColumnReader(mut r)) => {
                    r.read_records(rows, None, None, &mut hashes)
                }
                (1, ColumnReader::Int32ColumnReader(mut r)) => {
                    r.read_records(rows, None, None, &mut docs)
                }
                (2, ColumnReader::Int32ColumnReader(mut r)) => {
                    r.read_records(rows, None, None, &mut positions)
                }
                _ => return Err(self.corrupt(format!("column {column} has the wrong type"))),
            };
            read.map_err(|e| self.corrupt(format!("row group {group}: {e}")))?;
        }
        if hashes.len() != rows || docs.len() != rows || positions.len() != rows {
            return Err(self.corrupt(format!("row group {group} is short")));
        }
        let postings: Vec<Posting> = hashes
            .into_iter()
            .zip(docs)
            .zip(positions)
            .map(|((hash, doc), pos)| Posting {
                hash: hash as u64,
                doc: doc as u32,
                pos: pos as u32,
            })
            .collect();
        if !postings.windows(2).all(|w| w[0] <= w[1]) {
            return Err(self.corrupt(format!("row group {group} is not sorted")));
        }
        Ok(postings)
    }

    /// Every posting, sorted.
    pub(crate) fn read_all(&self) -> Result<Vec<Posting>> {
        let mut out = Vec::new();
        for g in 0..self.row_groups() {
            out.append(&mut self.read_group(g)?);
        }
        Ok(out)
    }

    /// The postings whose hash is in `hashes` (sorted, distinct), reading
    /// only the row groups whose statistics allow one.
    pub(crate) fn lookup(&self, hashes: &[u64]) -> Result<Vec<Posting>> {
        let mut out = Vec::new();
        for g in 0..self.row_groups() {
            if let Some((lo, hi)) = self.hash_range(g) {
                let first = hashes.partition_point(|&h| h < lo);
                if first == hashes.len() || hashes[first] > hi {
                    continue;
                }
            }
            let postings = self.read_group(g)?;
            // Both sides sorted: a merge.
            let mut i = 0;
            for p in postings {
                while i < hashes.len() && hashes[i] < p.hash {
                    i += 1;
                }
                if i == hashes.len() {
                    break;
                }
                if hashes[i] == p.hash {
                    out.push(p);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn postings(raw: Vec<(u64, u32, u32)>) -> Vec<Posting> {
        let mut p: Vec<Posting> = raw
            .into_iter()
            .map(|(hash, doc, pos)| Posting { hash, doc, pos })
            .collect();
        p.sort_unstable();
        p
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn lookup_equals_a_filter(
            raw in proptest::collection::vec((prop_oneof![0u64..64, any::<u64>()], any::<u32>(), any::<u32>()), 0..200_000),
            query in proptest::collection::vec(prop_oneof![0u64..64, any::<u64>()], 0..40),
        ) {
            let p = postings(raw);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.parquet");
            let w = write_segment(&path, &p).unwrap();
            let seg = Segment::open(&path, w.bytes, w.checksum).unwrap();
            prop_assert_eq!(seg.read_all().unwrap(), p.clone());
            let mut q = query;
            q.extend(p.iter().step_by(997).map(|p| p.hash));
            q.sort_unstable();
            q.dedup();
            let naive: Vec<Posting> = p.iter().copied().filter(|p| q.binary_search(&p.hash).is_ok()).collect();
            prop_assert_eq!(seg.lookup(&q).unwrap(), naive);
        }
    }

    #[test]
    fn row_group_statistics_are_unsigned() {
        let p = postings(vec![(1, 0, 0), (u64::MAX - 1, 0, 0), (1 << 63, 1, 2)]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.parquet");
        let w = write_segment(&path, &p).unwrap();
        let seg = Segment::open(&path, w.bytes, w.checksum).unwrap();
        assert_eq!(seg.hash_range(0), Some((1, u64::MAX - 1)));
    }
}
