//! The spilling counter and the frequency statistics against naive references.

use std::collections::{BTreeMap, HashMap};

use bryo_stats::{
    fit_line, merge_counts, summarize, FrequencyTable, HashCount, HashCounter, TopHashes,
};
use proptest::prelude::*;

fn naive(hashes: &[u64]) -> Vec<HashCount> {
    let mut m: BTreeMap<u64, u64> = BTreeMap::new();
    for &h in hashes {
        *m.entry(h).or_insert(0) += 1;
    }
    m.into_iter()
        .map(|(hash, count)| HashCount { hash, count })
        .collect()
}

fn counted(hashes: &[u64], budget: usize, threads: usize) -> (Vec<HashCount>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut counters: Vec<HashCounter> = (0..threads)
        .map(|_| HashCounter::new(budget, dir.path()).unwrap())
        .collect();
    for (i, &h) in hashes.iter().enumerate() {
        counters[i % threads].add(h).unwrap();
    }
    let runs = counters.iter().map(HashCounter::spilled_runs).sum();
    let merged = merge_counts(counters)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    (merged, runs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Spilling with a tiny budget, over several counters, gives exactly the
    /// in-memory counts.
    #[test]
    fn spilled_counts_equal_in_memory_counts(
        hashes in prop::collection::vec(0u64..64, 0..600),
        budget in 1usize..8,
        threads in 1usize..4,
    ) {
        let expected = naive(&hashes);
        let (in_memory, no_runs) = counted(&hashes, 1 << 20, 1);
        prop_assert_eq!(no_runs, 0);
        prop_assert_eq!(&in_memory, &expected);
        let (spilled, _) = counted(&hashes, budget, threads);
        prop_assert_eq!(&spilled, &expected);
    }

    /// The frequency table and top list agree with a naive computation.
    #[test]
    fn summary_matches_naive(hashes in prop::collection::vec(0u64..40, 0..400), top in 0usize..6) {
        let dir = tempfile::tempdir().unwrap();
        let mut c = HashCounter::new(3, dir.path()).unwrap();
        c.add_all(&hashes).unwrap();
        let s = summarize(vec![c], top).unwrap();
        let counts = naive(&hashes);
        let mut by_freq: HashMap<u64, u64> = HashMap::new();
        for c in &counts {
            *by_freq.entry(c.count).or_insert(0) += 1;
        }
        prop_assert_eq!(s.table.distinct(), counts.len() as u64);
        prop_assert_eq!(s.table.occurrences(), hashes.len() as u64);
        for f in 1..5 {
            prop_assert_eq!(s.table.hashes_with_frequency(f), by_freq.get(&f).copied().unwrap_or(0));
        }
        let mut sorted = counts.clone();
        sorted.sort_by(|a, b| b.count.cmp(&a.count).then(a.hash.cmp(&b.hash)));
        sorted.truncate(top);
        prop_assert_eq!(s.top, sorted);
        // Plateaus tile the ranks 1..=distinct with decreasing frequencies.
        let plateaus = s.table.plateaus();
        let mut next = 1;
        for w in plateaus.windows(2) {
            prop_assert!(w[0].frequency > w[1].frequency);
        }
        for p in &plateaus {
            prop_assert_eq!(p.first_rank, next);
            next = p.last_rank + 1;
        }
        prop_assert_eq!(next, counts.len() as u64 + 1);
    }
}

#[test]
fn zero_budget_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(HashCounter::new(0, dir.path()).is_err());
}

#[test]
fn spilling_writes_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = HashCounter::new(4, dir.path()).unwrap();
    c.add_all(&(0..100).collect::<Vec<u64>>()).unwrap();
    assert_eq!(c.spilled_runs(), 24); // 100 distinct, 4 in memory at a time
    assert_eq!(c.occurrences(), 100);
}

#[test]
fn a_zipf_law_is_recovered_from_plateau_endpoints() {
    // Hash r occurs floor(10000 / r) times: frequency ∝ rank^-1.
    let mut t = FrequencyTable::default();
    for r in 1..=2000u64 {
        t.observe(HashCount {
            hash: r,
            count: 10_000 / r,
        });
    }
    let fit = t.power_law().unwrap();
    assert!((fit.slope + 1.0).abs() < 0.05, "{fit:?}");
    // A single-rank plateau is counted twice.
    let ends = t.plateau_endpoints();
    assert_eq!(
        &ends[..4],
        &[(1, 10_000), (1, 10_000), (2, 5_000), (2, 5_000)]
    );
}

#[test]
fn a_line_with_one_x_has_no_fit() {
    assert!(fit_line(&[(1.0, 2.0), (1.0, 3.0)]).is_none());
    assert!(fit_line(&[(1.0, 2.0)]).is_none());
    let mut t = FrequencyTable::default();
    t.observe(HashCount { hash: 1, count: 3 });
    assert!(t.power_law().is_none());
}

#[test]
fn top_list_breaks_ties_by_hash_whatever_the_order() {
    let items = [(5u64, 2u64), (1, 2), (9, 2), (3, 7), (4, 1)];
    let mut fwd = TopHashes::new(3);
    let mut back = TopHashes::new(3);
    for &(hash, count) in &items {
        fwd.offer(HashCount { hash, count });
    }
    for &(hash, count) in items.iter().rev() {
        back.offer(HashCount { hash, count });
    }
    let f = fwd.into_sorted();
    assert_eq!(f, back.into_sorted());
    let v: Vec<_> = f.iter().map(|c| (c.hash, c.count)).collect();
    assert_eq!(v, [(3, 7), (1, 2), (5, 2)]);
}
