//! The archive's shared hashes, counted once for every query.
//!
//! The common-code rule of a comparison looks at every hash of the whole
//! corpus: how many submissions hold it, how many of them hold it in a
//! document that is the first with its symbols (*distinct* submissions),
//! and how often it occurs. A query against the index must not read every
//! archived posting to learn that, so the catalogue keeps, for the live
//! archive alone, the number of hashes and their occurrences per
//! `(submissions, distinct submissions)` for every hash that at least two
//! archived submissions hold. `add` and `remove` correct the table for the
//! hashes they touch; a query corrects a copy of it for the hashes the new
//! submissions hold (`bryo_compare::compare_against`).
//!
//! The archive's order is the order of its submissions (as added), then of
//! their documents; "first with its symbols" is by that order.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::{params, Connection};

use crate::segment::Posting;

/// `(submissions, distinct submissions)` → `(hashes, occurrences)`.
pub(crate) type SharedTable = BTreeMap<(u64, u64), (i64, i64)>;

/// A live document as the table sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DocRow {
    pub id: u32,
    pub submission: i64,
    pub symbols: i64,
    pub normalized: i64,
}

/// Every live document in archive order.
pub(crate) fn doc_rows(conn: &Connection) -> rusqlite::Result<Vec<DocRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, submission, symbols, normalized_fingerprint FROM documents
         ORDER BY submission, id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(DocRow {
                id: r.get(0)?,
                submission: r.get(1)?,
                symbols: r.get(2)?,
                normalized: r.get(3)?,
            })
        })?
        .collect();
    rows
}

/// Of every document of `rows` but `without`: its submission, and whether
/// it is the first with its symbols (by symbol count and normalized
/// fingerprint, as the compare job tells duplicates apart).
pub(crate) fn layout(rows: &[DocRow], without: &HashSet<u32>) -> HashMap<u32, (i64, bool)> {
    let mut seen: HashSet<(i64, i64)> = HashSet::new();
    rows.iter()
        .filter(|r| !without.contains(&r.id))
        .map(|r| (r.id, (r.submission, seen.insert((r.symbols, r.normalized)))))
        .collect()
}

/// Adds `sign` times the groups of the postings of `runs` (each sorted
/// by hash; a hash's postings may be spread over several runs) to
/// `table`, counting only documents of `layout`.
pub(crate) fn count_groups(
    runs: &[&[Posting]],
    layout: &HashMap<u32, (i64, bool)>,
    table: &mut SharedTable,
    sign: i64,
) {
    let mut at: Vec<usize> = vec![0; runs.len()];
    let mut holders: Vec<(i64, bool)> = Vec::new();
    while let Some(hash) = runs
        .iter()
        .zip(&at)
        .filter_map(|(run, &i)| run.get(i).map(|p| p.hash))
        .min()
    {
        holders.clear();
        let mut occurrences = 0i64;
        for (run, i) in runs.iter().zip(at.iter_mut()) {
            while let Some(p) = run.get(*i).filter(|p| p.hash == hash) {
                if let Some(&place) = layout.get(&p.doc) {
                    holders.push(place);
                    occurrences += 1;
                }
                *i += 1;
            }
        }
        holders.sort_unstable();
        let (mut subs, mut distinct) = (0u64, 0u64);
        for (n, &(sub, canonical)) in holders.iter().enumerate() {
            let first = n == 0 || holders[n - 1].0 != sub;
            subs += u64::from(first);
            // Sorted by (submission, canonical): a canonical document is
            // the submission's last entry.
            let last = holders.get(n + 1).is_none_or(|next| next.0 != sub);
            distinct += u64::from(last && canonical);
        }
        if subs >= 2 {
            let entry = table.entry((subs, distinct)).or_default();
            entry.0 += sign;
            entry.1 += sign * occurrences;
            if *entry == (0, 0) {
                table.remove(&(subs, distinct));
            }
        }
    }
}

/// The stored table.
pub(crate) fn read_table(conn: &Connection) -> rusqlite::Result<SharedTable> {
    let mut stmt = conn.prepare(
        "SELECT submissions, distinct_submissions, hashes, occurrences FROM shared_hashes",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                (r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64),
                (r.get(2)?, r.get(3)?),
            ))
        })?
        .collect();
    rows
}

/// Replaces the stored table.
pub(crate) fn write_table(conn: &Connection, table: &SharedTable) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM shared_hashes", [])?;
    let mut insert = conn.prepare("INSERT INTO shared_hashes VALUES (?1, ?2, ?3, ?4)")?;
    for (&(subs, distinct), &(hashes, occurrences)) in table {
        insert.execute(params![subs as i64, distinct as i64, hashes, occurrences])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The table counted naively: every hash's holders collected in a map.
    fn naive(postings: &[Posting], layout: &HashMap<u32, (i64, bool)>) -> SharedTable {
        let mut by_hash: BTreeMap<u64, Vec<(i64, bool)>> = BTreeMap::new();
        for p in postings {
            if let Some(&place) = layout.get(&p.doc) {
                by_hash.entry(p.hash).or_default().push(place);
            }
        }
        let mut table = SharedTable::new();
        for holders in by_hash.values() {
            let subs: HashSet<i64> = holders.iter().map(|h| h.0).collect();
            let distinct: HashSet<i64> = holders.iter().filter(|h| h.1).map(|h| h.0).collect();
            if subs.len() >= 2 {
                let e = table
                    .entry((subs.len() as u64, distinct.len() as u64))
                    .or_default();
                e.0 += 1;
                e.1 += holders.len() as i64;
            }
        }
        table
    }

    proptest! {
        #[test]
        fn counted_groups_equal_a_naive_count(
            raw in proptest::collection::vec((0u64..20, 0u32..12, any::<u32>()), 0..300),
            split in any::<prop::sample::Index>(),
            docs in proptest::collection::vec((0i64..5, 0i64..3), 12),
            without in proptest::collection::hash_set(0u32..12, 0..4),
        ) {
            let rows: Vec<DocRow> = {
                let mut r: Vec<DocRow> = docs.iter().enumerate().map(|(id, &(submission, key))| DocRow {
                    id: id as u32, submission, symbols: 1, normalized: key,
                }).collect();
                r.sort_by_key(|r| (r.submission, r.id));
                r
            };
            let layout = layout(&rows, &without);
            let mut postings: Vec<Posting> = raw.into_iter().map(|(hash, doc, pos)| Posting { hash, doc, pos }).collect();
            postings.sort_unstable();
            postings.dedup();
            // Two runs: a hash's postings may sit in both.
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let cut = split.index(postings.len() + 1);
            for (i, p) in postings.iter().enumerate() {
                if (i < cut) ^ (p.doc % 2 == 0) { a.push(*p) } else { b.push(*p) }
            }
            let mut table = SharedTable::new();
            count_groups(&[&a, &b], &layout, &mut table, 1);
            prop_assert_eq!(&table, &naive(&postings, &layout));
            count_groups(&[&b, &a], &layout, &mut table, -1);
            prop_assert!(table.is_empty());
        }
    }
}
