//! Behaviour of `match_corpus` and its stages: checked against a naive reference by property
//! tests, plus the MOSS rules one by one.

mod support;

use std::collections::{BTreeMap, HashSet};

use bryo_engine::{Config, Selection, SplitMix64};
use bryo_match::{
    match_corpus, scored_candidates, CommonRule, Comparison, Corpus, DocId, Document, Error,
    MatchOptions, Merging, Rarity, Role, SubmissionId, EXTENSION_BUDGET_PER_SYMBOL,
};
use proptest::prelude::*;
use support::naive::{self, sub_id, TestDoc};

/// Submission ids are deliberately neither dense nor in generation order.
fn corpus(docs: &[TestDoc]) -> Corpus<'_> {
    docs.iter()
        .map(|d| Document::new(sub_id(d.sub), &d.symbols).with_role(d.role))
        .collect()
}

/// The documents of a pair's two submissions, and their ids in the whole
/// corpus.
fn pair_documents(docs: &[TestDoc], p: &bryo_match::PairMatch) -> (Vec<u32>, Vec<TestDoc>) {
    docs.iter()
        .enumerate()
        .filter(|(_, d)| sub_id(d.sub) == p.a || sub_id(d.sub) == p.b)
        .map(|(i, d)| (i as u32, d.clone()))
        .unzip()
}

fn options(k: usize, w: usize) -> MatchOptions {
    MatchOptions::new(Config::new(k, w).unwrap())
}

/// Random symbols no test input repeats by accident.
fn random_symbols(rng: &mut SplitMix64, n: usize) -> Vec<u64> {
    (0..n).map(|_| rng.next()).collect()
}

fn doc(sub: u32, role: Role, symbols: Vec<u64>) -> TestDoc {
    TestDoc { sub, role, symbols }
}

/// Checks every structural property of a result; returns nothing, panics
/// with a message on the first violation.
fn check_structure(docs: &[TestDoc], options: &MatchOptions, result: &Comparison) {
    let base = naive::base_hashes(docs, options);
    let base_masks: Vec<Vec<bool>> = docs
        .iter()
        .map(|d| match d.role {
            Role::Base => vec![false; d.symbols.len()],
            _ => naive::base_mask(&d.symbols, &base, options),
        })
        .collect();
    let common_masks = naive::common_masks(docs, options);
    // Base- or common-covered: never matched, barriers for fragments.
    let masks: Vec<Vec<bool>> = base_masks
        .iter()
        .zip(&common_masks)
        .map(|(b, c)| b.iter().zip(c).map(|(&b, &c)| b || c).collect())
        .collect();
    for (i, (b, c)) in base_masks.iter().zip(&common_masks).enumerate() {
        let expected = b.iter().filter(|&&m| m).count() as u32;
        assert_eq!(
            result.documents[i].base_symbols, expected,
            "base symbols of doc {i}"
        );
        let expected = b.iter().zip(c).filter(|&(&b, &c)| c && !b).count() as u32;
        assert_eq!(
            result.documents[i].common_symbols, expected,
            "common symbols of doc {i}"
        );
        // The base ranges are exactly the base-covered symbols, sorted,
        // disjoint and not touching.
        let ranges = &result.base_ranges[i];
        let mut mask = vec![false; b.len()];
        for r in ranges {
            assert!(r.start < r.end, "empty base range in doc {i}");
            for m in &mut mask[r.start as usize..r.end as usize] {
                *m = true;
            }
        }
        assert_eq!(&mask, b, "base ranges of doc {i}");
        assert!(ranges.windows(2).all(|w| w[0].end < w[1].start));
    }
    let sub_of = |id: DocId| docs[id.0 as usize].sub;
    let min_len = options.min_fragment_symbols.max(1) as u32;
    assert_eq!(result.stats.budget_exhausted, 0);
    for p in &result.pairs {
        assert!(p.a < p.b);
        let old = |s: SubmissionId| {
            docs.iter()
                .any(|d| sub_id(d.sub) == s && d.role == Role::Old)
        };
        assert!(!(old(p.a) && old(p.b)), "old-old pair");
        let (mut covered_a, mut covered_b) = (0u64, 0u64);
        for f in &p.fragments {
            let (da, db) = (&docs[f.a_doc.0 as usize], &docs[f.b_doc.0 as usize]);
            assert_ne!(da.role, Role::Base);
            assert_ne!(db.role, Role::Base);
            assert_eq!(sub_id(sub_of(f.a_doc)), p.a);
            assert_eq!(sub_id(sub_of(f.b_doc)), p.b);
            assert!(f.len >= min_len);
            let (a, b) = (&da.symbols, &db.symbols);
            assert_eq!(a[f.a_range()], b[f.b_range()], "fragment not exact");
            let (ma, mb) = (&masks[f.a_doc.0 as usize], &masks[f.b_doc.0 as usize]);
            covered_a += f.a_range().filter(|&i| !ma[i]).count() as u64;
            covered_b += f.b_range().filter(|&i| !mb[i]).count() as u64;
            // Never matches a base- or common-covered symbol.
            assert!(f.a_range().all(|i| !ma[i]) && f.b_range().all(|i| !mb[i]));
            // Maximal: each end meets a document end, a mismatch, a
            // base- or common-covered symbol or another fragment of the pair.
            let in_other = |doc: DocId, pos: usize, side_a: bool| {
                p.fragments.iter().any(|g| {
                    g != f
                        && if side_a {
                            g.a_doc == doc && g.a_range().contains(&pos)
                        } else {
                            g.b_doc == doc && g.b_range().contains(&pos)
                        }
                })
            };
            let blocked = |pa: usize, pb: usize| {
                a[pa] != b[pb]
                    || ma[pa]
                    || mb[pb]
                    || in_other(f.a_doc, pa, true)
                    || in_other(f.b_doc, pb, false)
            };
            let (sa, sb, len) = (f.a_start as usize, f.b_start as usize, f.len as usize);
            assert!(
                sa == 0 || sb == 0 || blocked(sa - 1, sb - 1),
                "extendable left: {f:?}"
            );
            assert!(
                sa + len == a.len() || sb + len == b.len() || blocked(sa + len, sb + len),
                "extendable right: {f:?}"
            );
        }
        // Non-overlapping on each side.
        for (i, f) in p.fragments.iter().enumerate() {
            for g in &p.fragments[i + 1..] {
                let disjoint = |x: std::ops::Range<usize>, y: std::ops::Range<usize>| {
                    x.end <= y.start || y.end <= x.start
                };
                assert!(f.a_doc != g.a_doc || disjoint(f.a_range(), g.a_range()));
                assert!(f.b_doc != g.b_doc || disjoint(f.b_range(), g.b_range()));
            }
        }
        assert_eq!((p.covered_a, p.covered_b), (covered_a, covered_b));
        // Template code (the rarity rule) leaves the totals like base code;
        // MOSS-common passages stay in them.
        let template = matches!(options.common, CommonRule::Rarity(_));
        let total = |s: SubmissionId| -> u64 {
            docs.iter()
                .enumerate()
                .filter(|(_, d)| d.role != Role::Base && sub_id(d.sub) == s)
                .map(|(i, _)| {
                    let out = |j: usize| base_masks[i][j] || (template && common_masks[i][j]);
                    (0..docs[i].symbols.len()).filter(|&j| !out(j)).count() as u64
                })
                .sum()
        };
        assert_eq!((p.symbols_a, p.symbols_b), (total(p.a), total(p.b)));
        let both = p.symbols_a + p.symbols_b;
        if both > 0 {
            let s = (covered_a + covered_b) as f64 / both as f64;
            // The rarity discount (checked against brute force in its own
            // test) only ever lowers the similarity.
            if result.stats.discount_below > 0 {
                assert!(p.similarity >= 0.0 && p.similarity <= s + 1e-12);
            } else {
                assert!((p.similarity - s).abs() < 1e-12);
            }
        }
        assert_eq!(
            p.longest_fragment,
            p.fragments.iter().map(|f| f.len).max().unwrap_or(0)
        );
    }
    // Ranked by covered symbols, then shared fingerprints, then ids.
    for w in result.pairs.windows(2) {
        let key = |p: &bryo_match::PairMatch| {
            (
                std::cmp::Reverse(p.covered_a + p.covered_b),
                std::cmp::Reverse(p.shared_fingerprints),
                p.a,
                p.b,
            )
        };
        assert!(key(&w[0]) < key(&w[1]));
    }
}

fn found_pairs(result: &Comparison) -> BTreeMap<(SubmissionId, SubmissionId), u64> {
    result
        .pairs
        .iter()
        .map(|p| ((p.a, p.b), p.shared_fingerprints))
        .collect()
}

fn naive_pairs(
    docs: &[TestDoc],
    options: &MatchOptions,
) -> BTreeMap<(SubmissionId, SubmissionId), u64> {
    naive::pairs(docs, options)
        .into_iter()
        .map(|((a, b), n)| {
            let (x, y) = (sub_id(a), sub_id(b));
            ((x.min(y), x.max(y)), n)
        })
        .collect()
}

/// Small random corpora over a tiny alphabet, so that hashes are shared,
/// repeated and common.
fn small_corpus() -> impl Strategy<Value = (Vec<TestDoc>, MatchOptions)> {
    (
        1usize..=4,
        1usize..=4,
        2u64..=4,
        2u32..=5,
        prop::collection::vec(any::<bool>(), 5),
        prop::collection::vec(
            (0u32..5, 0u8..10, prop::collection::vec(0u64..4, 0..40)),
            1..10,
        ),
        0usize..=5,
        1usize..=3,
        0usize..=6,
        any::<bool>(),
    )
        .prop_map(
            |(k, w, alphabet, nsubs, old, raw, m, cap, min_len, robust)| {
                let docs = raw
                    .into_iter()
                    .map(|(sub, role, symbols)| {
                        let sub = sub % nsubs;
                        let role = match role {
                            0 => Role::Base,
                            _ if old[sub as usize] => Role::Old,
                            _ => Role::Current,
                        };
                        let symbols = symbols
                            .into_iter()
                            .map(|s| (s % alphabet).wrapping_mul(0x9E37_79B9_7F4A_7C15) + 1)
                            .collect();
                        doc(sub, role, symbols)
                    })
                    .collect();
                let mut o = options(k, w);
                // -m 0..=3, or the rarity rule with a template threshold
                // that small corpora reach.
                o.common = match m {
                    0..=3 => CommonRule::MaxSubmissions(m),
                    4 => CommonRule::Rarity(Rarity::default()),
                    _ => CommonRule::Rarity(Rarity {
                        template_min: 1,
                        ..Rarity::default()
                    }),
                };
                o.occurrence_cap = cap;
                o.min_fragment_symbols = min_len;
                o.selection = if robust {
                    Selection::RobustWinnow
                } else {
                    Selection::Winnow
                };
                o.cluster_threshold = 0.3;
                o.max_pairs = 0;
                (docs, o)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The same pairs and shared-fingerprint counts as brute force over all
    /// pairs of submissions, and every fragment exact, maximal and
    /// non-overlapping.
    #[test]
    fn matches_naive_reference((docs, options) in small_corpus()) {
        let result = match_corpus(&corpus(&docs), &options).unwrap();
        prop_assert_eq!(found_pairs(&result), naive_pairs(&docs, &options));
        check_structure(&docs, &options, &result);
    }

    /// Match merging groups a pair's exact matches and changes nothing
    /// else: the parts of the kept fragments are the exact matches of a run
    /// without merging (at least `k` symbols each), all of them when the
    /// floor is at most `k`; every part is exact, the parts of a fragment
    /// are in order on both sides with bridged gaps, fragments (gaps
    /// included) never overlap, and the scores count matched symbols only.
    #[test]
    fn merging_groups_the_exact_matches(
        (docs, options) in small_corpus(),
        max_gap in 0usize..8,
        gap_ratio in prop::sample::select(vec![0.5, 1.0, f64::INFINITY]),
    ) {
        let k = options.config.k();
        let mut exact = options;
        exact.min_fragment_symbols = k;
        let mut merged = options;
        let m = Merging { max_gap, gap_ratio };
        merged.merge = Some(m);
        let e = match_corpus(&corpus(&docs), &exact).unwrap();
        let r = match_corpus(&corpus(&docs), &merged).unwrap();
        prop_assert_eq!(found_pairs(&r), found_pairs(&e));
        let positions = |p: &bryo_match::PairMatch| -> HashSet<(u32, u32, u32, u32)> {
            p.fragments
                .iter()
                .flat_map(|f| {
                    let (da, db) = (f.a_doc.0, f.b_doc.0);
                    f.parts()
                        .into_owned()
                        .into_iter()
                        .flat_map(move |q| (0..q.len).map(move |i| (da, q.a_start + i, db, q.b_start + i)))
                })
                .collect()
        };
        let unmerged: BTreeMap<_, _> = e.pairs.iter().map(|q| ((q.a, q.b), q)).collect();
        for p in &r.pairs {
            let (got, all) = (positions(p), positions(unmerged[&(p.a, p.b)]));
            prop_assert!(got.is_subset(&all));
            if options.min_fragment_symbols <= k {
                prop_assert_eq!(&got, &all);
            }
            let matched: u64 = p.fragments.iter().map(|f| u64::from(f.len)).sum();
            prop_assert_eq!(matched, got.len() as u64);
            prop_assert_eq!((p.covered_a, p.covered_b), (matched, matched));
            for f in &p.fragments {
                let parts = f.parts();
                prop_assert!(f.len as usize >= options.min_fragment_symbols);
                prop_assert_eq!(f.len, parts.iter().map(|x| x.len).sum::<u32>());
                let (a, b) = (&docs[f.a_doc.0 as usize].symbols, &docs[f.b_doc.0 as usize].symbols);
                for x in parts.iter() {
                    let (ra, rb) = (x.a_start as usize..x.a_end() as usize, x.b_start as usize..x.b_end() as usize);
                    prop_assert_eq!(&a[ra], &b[rb], "part not exact");
                }
                for w in parts.windows(2) {
                    prop_assert!(w[0].a_end() <= w[1].a_start && w[0].b_end() <= w[1].b_start);
                    let (ga, gb) = ((w[1].a_start - w[0].a_end()) as usize, (w[1].b_start - w[0].b_end()) as usize);
                    prop_assert!(ga.max(gb) <= max_gap);
                }
            }
            for (i, f) in p.fragments.iter().enumerate() {
                for g in &p.fragments[i + 1..] {
                    let apart = |x: std::ops::Range<usize>, y: std::ops::Range<usize>| {
                        x.end <= y.start || y.end <= x.start
                    };
                    prop_assert!(f.a_doc != g.a_doc || apart(f.a_range(), g.a_range()));
                    prop_assert!(f.b_doc != g.b_doc || apart(f.b_range(), g.b_range()));
                }
            }
        }
    }

    /// `max_pairs = n` reports the `n` pairs with the most matched symbols
    /// among the `max(4n, n + 200)` with the most shared fingerprints:
    /// here all of them, so exactly the first `n` of the full ranking.
    #[test]
    fn max_pairs_keeps_the_top((docs, mut options) in small_corpus(), n in 1usize..4) {
        let all = match_corpus(&corpus(&docs), &options).unwrap();
        options.max_pairs = n;
        let result = match_corpus(&corpus(&docs), &options).unwrap();
        prop_assert_eq!(&result.pairs[..], &all.pairs[..n.min(all.pairs.len())]);
    }

    /// The result does not depend on the number of threads.
    #[test]
    fn deterministic((docs, options) in small_corpus()) {
        let c = corpus(&docs);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| match_corpus(&c, &options).unwrap())
        };
        prop_assert_eq!(run(1), run(4));
    }

    /// A planted shared run of at least t symbols is always found, as one
    /// fragment covering it exactly.
    #[test]
    fn planted_run_is_found(
        seed in any::<u64>(),
        k in 2usize..10,
        w in 1usize..10,
        extra in 0usize..30,
        before in (0usize..200, 0usize..200),
        after in (0usize..200, 0usize..200),
        others in 0usize..4,
    ) {
        let mut rng = SplitMix64::new(seed);
        let t = w + k - 1;
        let run = random_symbols(&mut rng, t + extra);
        let mut a = random_symbols(&mut rng, before.0);
        a.extend(&run);
        a.extend(random_symbols(&mut rng, after.0));
        let mut b = random_symbols(&mut rng, before.1);
        b.extend(&run);
        b.extend(random_symbols(&mut rng, after.1));
        let mut docs = vec![doc(0, Role::Current, a), doc(1, Role::Current, b)];
        for i in 0..others {
            docs.push(doc(2 + i as u32, Role::Current, random_symbols(&mut rng, 100)));
        }
        let mut o = options(k, w);
        o.selection = if seed % 2 == 0 { Selection::Winnow } else { Selection::RobustWinnow };
        let result = match_corpus(&corpus(&docs), &o).unwrap();
        prop_assert_eq!(result.pairs.len(), 1);
        let p = &result.pairs[0];
        // Submission 0 has the larger id, so it is the b side.
        prop_assert_eq!((p.a, p.b), (sub_id(1), sub_id(0)));
        prop_assert_eq!(p.fragments.len(), 1);
        let f = &p.fragments[0];
        prop_assert_eq!((f.a_doc, f.b_doc), (DocId(1), DocId(0)));
        prop_assert_eq!((f.a_start as usize, f.b_start as usize, f.len as usize), (before.1, before.0, run.len()));
    }
}

#[test]
fn m_two_reports_only_passages_in_exactly_two_submissions() {
    let mut rng = SplitMix64::new(7);
    let p = random_symbols(&mut rng, 40); // in submissions 0 and 1
    let q = random_symbols(&mut rng, 40); // in submissions 0, 1 and 2
    let mut filler = |n| random_symbols(&mut rng, n);
    let s0 = [filler(10), p.clone(), filler(10), q.clone(), filler(10)].concat();
    let s1 = [q.clone(), filler(5), p.clone()].concat();
    let s2 = [filler(30), q.clone(), filler(30)].concat();
    let docs = vec![
        doc(0, Role::Current, s0),
        doc(1, Role::Current, s1),
        doc(2, Role::Current, s2),
    ];
    let mut o = options(5, 6);
    o.common = CommonRule::MaxSubmissions(2);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &result);
    assert_eq!(result.pairs.len(), 1);
    let pair = &result.pairs[0];
    assert_eq!((pair.a, pair.b), (sub_id(1), sub_id(0)));
    assert_eq!(pair.fragments.len(), 1);
    // p sits at 45..85 in s1 (a) and 10..50 in s0 (b); q is ignored.
    let f = &pair.fragments[0];
    assert_eq!((f.a_start, f.b_start, f.len), (45, 10, 40));
    assert!(result.stats.dropped_common > 0);

    o.common = CommonRule::MaxSubmissions(3);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    assert_eq!(result.pairs.len(), 3);
    o.common = CommonRule::MaxSubmissions(0); // no limit
    assert_eq!(match_corpus(&corpus(&docs), &o).unwrap().pairs.len(), 3);
}

/// Four submissions sharing a 200-symbol passage `p` (each after its own
/// head); submissions 0 and 1 also share, by chance, 6 symbols right after
/// it. Returns the documents and where `p` starts in each.
fn common_passage_corpus(seed: u64) -> (Vec<TestDoc>, [usize; 4]) {
    let mut rng = SplitMix64::new(seed);
    let p = random_symbols(&mut rng, 200);
    let chance = random_symbols(&mut rng, 6);
    let mut filler = |n| random_symbols(&mut rng, n);
    let heads: Vec<Vec<u64>> = (0..4).map(|i| filler(10 + 3 * i)).collect();
    let tails = [
        [chance.clone(), filler(40)].concat(),
        [chance, filler(50)].concat(),
        filler(45),
        filler(55),
    ];
    let docs = (0..4)
        .map(|i| {
            let symbols = [heads[i].clone(), p.clone(), tails[i].clone()].concat();
            doc(i as u32, Role::Current, symbols)
        })
        .collect();
    (docs, [10, 13, 16, 19])
}

/// MOSS: "any passage appearing in more than N programs is treated as if it
/// appeared in a base file". The chance seed right after the common passage
/// must not be extended back through it (before common passages were
/// barriers, the fragment covered all 200 symbols of `p` plus the 6).
#[test]
fn m_passages_are_barriers_like_base_code() {
    let (docs, at) = common_passage_corpus(21);
    let mut o = options(5, 4);
    o.common = CommonRule::MaxSubmissions(2);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &result);
    // Submission 0 has the larger id: it is the b side of the pair.
    let pair = result
        .pairs
        .iter()
        .find(|q| (q.a, q.b) == (sub_id(1), sub_id(0)))
        .expect("the chance match is reported");
    for f in &pair.fragments {
        let (ra, rb) = (f.a_range(), f.b_range());
        assert!(ra.end <= at[1] || ra.start >= at[1] + 200, "{f:?}");
        assert!(rb.end <= at[0] || rb.start >= at[0] + 200, "{f:?}");
    }
    assert_eq!(pair.fragments.len(), 1);
    let f = &pair.fragments[0];
    assert_eq!(
        (f.a_start as usize, f.b_start as usize, f.len),
        (at[1] + 200, at[0] + 200, 6)
    );
    // Only the chance match counts; the passage stays in the totals.
    assert_eq!((pair.covered_a, pair.covered_b), (6, 6));
    let total = (docs[0].symbols.len() + docs[1].symbols.len()) as u64;
    assert_eq!(pair.symbols_a + pair.symbols_b, total);
    assert!((pair.similarity - 12.0 / total as f64).abs() < 1e-12);
    assert!(result.stats.dropped_common > 0);

    // With -m 10 the passage is a match like any other.
    o.common = CommonRule::MaxSubmissions(10);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &result);
    assert_eq!(result.pairs.len(), 6);
    let pair = &result.pairs[0];
    assert_eq!((pair.a, pair.b), (sub_id(1), sub_id(0)));
    let f = &pair.fragments[0];
    assert_eq!(
        (f.a_start as usize, f.b_start as usize, f.len),
        (at[1], at[0], 206)
    );
    assert!(result.documents.iter().all(|d| d.common_symbols == 0));
}

/// The rule works on fingerprints: symbols of a common passage that no
/// selected common fingerprint covers — fewer than `w` at each end — may
/// still be matched, never more.
#[test]
fn m_passages_leak_at_most_w_minus_one_symbols_at_their_ends() {
    let (k, w) = (5, 4);
    for seed in 0..24 {
        let (docs, at) = common_passage_corpus(seed);
        let mut o = options(k, w);
        o.common = CommonRule::MaxSubmissions(2);
        let result = match_corpus(&corpus(&docs), &o).unwrap();
        check_structure(&docs, &o, &result);
        for (i, d) in result.documents.iter().enumerate() {
            assert!(d.common_symbols as usize >= 200 - 2 * (w - 1), "{seed} {i}");
        }
        let pair = result
            .pairs
            .iter()
            .find(|q| (q.a, q.b) == (sub_id(1), sub_id(0)))
            .expect("the chance match is reported");
        assert_eq!(pair.fragments.len(), 1, "seed {seed}");
        let f = &pair.fragments[0];
        let end = at[0] + 200;
        let b = f.b_range();
        assert!(b.start < end + 6 && b.end == end + 6, "seed {seed}: {f:?}");
        assert!(b.start + w > end, "seed {seed}: {f:?}");
        assert_eq!(f.a_start as usize - at[1], f.b_start as usize - at[0]);
    }
}

#[test]
fn base_code_is_neither_matched_nor_counted() {
    let mut rng = SplitMix64::new(11);
    let starter = random_symbols(&mut rng, 50);
    let copied = random_symbols(&mut rng, 30);
    let mut filler = |n| random_symbols(&mut rng, n);
    // Alice and Bob both keep the starter code right next to the copied
    // passage; Carol keeps only the starter code.
    let alice = [filler(20), starter.clone(), copied.clone(), filler(20)].concat();
    let bob = [starter.clone(), copied.clone()].concat();
    let carol = [filler(10), starter.clone(), filler(10)].concat();
    let docs = vec![
        doc(0, Role::Current, alice),
        doc(1, Role::Current, bob),
        doc(2, Role::Current, carol),
        doc(3, Role::Base, starter),
    ];
    let o = options(5, 4);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &result);
    assert_eq!(result.documents[0].base_symbols, 50);
    assert_eq!(result.documents[3].base_symbols, 0);
    assert_eq!(result.pairs.len(), 1, "{:?}", result.pairs);
    let p = &result.pairs[0];
    assert_eq!((p.a, p.b), (sub_id(1), sub_id(0)));
    assert_eq!((p.symbols_a, p.covered_a), (30, 30));
    assert_eq!((p.symbols_b, p.covered_b), (70, 30));
    assert_eq!(p.fragments.len(), 1);
    assert_eq!((p.fragments[0].a_start, p.fragments[0].b_start), (50, 70));
    assert!(result.stats.dropped_base > 0);

    // Without the base document the starter code is a match like any other.
    let result = match_corpus(&corpus(&docs[..3]), &o).unwrap();
    assert_eq!(result.pairs.len(), 3);
    assert_eq!(result.pairs[0].fragments[0].len, 80);
}

#[test]
fn old_pairs_and_same_submission_pairs_never_appear() {
    let mut rng = SplitMix64::new(3);
    let shared = random_symbols(&mut rng, 60);
    let mut filler = |n| random_symbols(&mut rng, n);
    let docs = vec![
        // Submission 0 has two files sharing a passage.
        doc(0, Role::Current, [filler(5), shared.clone()].concat()),
        doc(0, Role::Current, [shared.clone(), filler(5)].concat()),
        // Two old submissions with the same passage.
        doc(1, Role::Old, [filler(9), shared.clone()].concat()),
        doc(2, Role::Old, [filler(3), shared.clone()].concat()),
    ];
    let o = options(5, 4);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &result);
    let pairs: Vec<_> = result.pairs.iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(pairs.len(), 2);
    assert!(pairs.contains(&(sub_id(1), sub_id(0))));
    assert!(pairs.contains(&(sub_id(2), sub_id(0))));

    // With only submission 0 (two files) nothing can be compared.
    let result = match_corpus(&corpus(&docs[..2]), &o).unwrap();
    assert!(result.pairs.is_empty());
}

#[test]
fn mixed_roles_in_one_submission_are_rejected() {
    let s = vec![1u64, 2, 3];
    let docs = vec![doc(0, Role::Current, s.clone()), doc(0, Role::Old, s)];
    let err = match_corpus(&corpus(&docs), &options(2, 2)).unwrap_err();
    assert_eq!(err, Error::MixedRoles(sub_id(0)));
}

#[test]
fn invalid_options_are_errors() {
    let mut o = options(2, 2);
    o.occurrence_cap = 0;
    assert_eq!(o.validate(), Err(Error::ZeroCap));
    let mut o = options(2, 2);
    o.cluster_threshold = f64::NAN;
    assert!(matches!(o.validate(), Err(Error::InvalidThreshold(_))));
    let mut o = options(2, 2);
    o.selection = Selection::ModP { p: 0 };
    assert!(match_corpus(&Corpus::new(), &o).is_err());
}

#[test]
fn identical_submissions_are_flagged() {
    let mut rng = SplitMix64::new(5);
    let (f1, f2) = (random_symbols(&mut rng, 50), random_symbols(&mut rng, 70));
    let docs = vec![
        doc(0, Role::Current, f1.clone()),
        doc(0, Role::Current, f2.clone()),
        // Same files, other order, plus an empty one.
        doc(1, Role::Current, f2.clone()),
        doc(1, Role::Current, Vec::new()),
        doc(1, Role::Current, f1.clone()),
        // Only one of the files.
        doc(2, Role::Current, f1),
    ];
    let result = match_corpus(&corpus(&docs), &options(4, 4)).unwrap();
    assert_eq!(result.pairs.len(), 3);
    for p in &result.pairs {
        let expect = (p.a, p.b) == (sub_id(1), sub_id(0));
        assert_eq!(p.identical, expect, "{:?}", (p.a, p.b));
        if expect {
            assert_eq!(
                (p.a_percent, p.b_percent, p.similarity),
                (100.0, 100.0, 1.0)
            );
        }
    }
}

#[test]
fn clusters_are_connected_components_above_the_threshold() {
    let mut rng = SplitMix64::new(9);
    let x = random_symbols(&mut rng, 100);
    let y = random_symbols(&mut rng, 100);
    let mut filler = |n| random_symbols(&mut rng, n);
    // 0-1 share x entirely, 1-2 share y entirely: one cluster {0, 1, 2}.
    // 3-4 share a tenth: below the threshold.
    let small = filler(10);
    let docs = vec![
        doc(0, Role::Current, x.clone()),
        doc(1, Role::Current, [x, y.clone()].concat()),
        doc(2, Role::Current, y),
        doc(3, Role::Current, [small.clone(), filler(90)].concat()),
        doc(4, Role::Current, [filler(90), small].concat()),
    ];
    let mut o = options(4, 4);
    o.cluster_threshold = 0.5;
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    assert_eq!(result.pairs.len(), 3);
    assert_eq!(result.clusters.len(), 1);
    assert_eq!(
        result.clusters[0].submissions,
        vec![sub_id(2), sub_id(1), sub_id(0)]
    );
}

/// A hash repeated 100,000 times in two documents: the occurrence cap bounds
/// the position pairs, the extension budget bounds the symbol comparisons.
#[test]
fn repeated_hash_work_is_bounded() {
    let n = 100_000;
    let docs = vec![
        doc(0, Role::Current, vec![7; n]),
        doc(1, Role::Current, vec![7; n]),
    ];
    let o = options(5, 4);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    let s = result.stats;
    let cap = o.occurrence_cap as u64;
    assert_eq!(s.indexed, 2 * cap);
    assert_eq!(s.dropped_cap, s.fingerprints - 2 * cap);
    assert!(s.seeds <= cap * cap);
    assert!(s.extension_steps <= EXTENSION_BUDGET_PER_SYMBOL * 2 * n as u64);
    assert_eq!(result.pairs.len(), 1);
    let f = &result.pairs[0].fragments;
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].a_start, f[0].b_start, f[0].len), (0, 0, n as u32));
}

/// A periodic document: many distinct hashes, each repeated thousands of
/// times, on a few diagonals.
#[test]
fn periodic_documents_stay_bounded() {
    let n = 100_000;
    let period: Vec<u64> = (0..50).collect();
    let a: Vec<u64> = period.iter().copied().cycle().take(n).collect();
    let docs = vec![doc(0, Role::Current, a.clone()), doc(1, Role::Current, a)];
    let o = options(5, 4);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    let s = result.stats;
    let cap = o.occurrence_cap as u64;
    assert!(s.indexed <= 2 * 50 * cap);
    assert!(s.seeds <= 50 * cap * cap);
    assert!(s.extension_steps <= EXTENSION_BUDGET_PER_SYMBOL * 2 * n as u64);
    assert_eq!(result.pairs[0].covered_a, n as u64);
}

#[test]
fn empty_and_tiny_inputs() {
    let o = options(5, 4);
    let result = match_corpus(&Corpus::new(), &o).unwrap();
    assert!(result.pairs.is_empty() && result.clusters.is_empty());
    let docs = vec![
        doc(0, Role::Current, vec![]),
        doc(1, Role::Current, vec![1, 2]),
        doc(2, Role::Base, vec![]),
    ];
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    assert!(result.pairs.is_empty());
    assert_eq!(result.stats.documents, 2);
    assert_eq!(result.stats.base_documents, 1);
}

#[test]
fn distinct_hash_sets_in_the_index_are_counted() {
    let mut rng = SplitMix64::new(1);
    let shared = random_symbols(&mut rng, 30);
    let docs = vec![
        doc(0, Role::Current, shared.clone()),
        doc(1, Role::Current, shared),
    ];
    let o = options(5, 4);
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    let hashes: HashSet<u64> = {
        let mut f = bryo_engine::Fingerprinter::new(o.config, o.hash, o.selection).unwrap();
        f.fingerprint_symbols(&docs[0].symbols)
            .unwrap()
            .iter()
            .map(|f| f.hash)
            .collect()
    };
    assert_eq!(result.stats.shared_hashes, hashes.len() as u64);
    assert_eq!(
        result.pairs[0].shared_fingerprints,
        result.stats.fingerprints / 2
    );
}

/// With a generous cap, a constant document pair has hundreds of diagonals,
/// each matching almost everywhere: the extension budget runs out, and the
/// fragments stay exact and non-overlapping.
#[test]
fn extension_budget_runs_out_safely() {
    let n = 20_000;
    let docs = vec![
        doc(0, Role::Current, vec![3; n]),
        doc(1, Role::Current, vec![3; n]),
    ];
    let mut o = options(4, 4);
    o.occurrence_cap = 200;
    o.selection = Selection::Winnow;
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    let s = result.stats;
    assert!(s.seeds <= 200 * 200);
    assert_eq!(s.budget_exhausted, 1);
    assert!(s.extension_steps <= EXTENSION_BUDGET_PER_SYMBOL * 2 * n as u64);
    let p = &result.pairs[0];
    let mut covered = vec![false; n];
    for f in &p.fragments {
        for i in f.a_range() {
            assert!(!covered[i], "overlap");
            covered[i] = true;
        }
    }
    assert_eq!(p.covered_a, covered.iter().filter(|&&c| c).count() as u64);
    assert!(p.covered_a > n as u64 / 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Documents with the same symbols are winnowed once; the result is the
    /// one every document would get on its own.
    #[test]
    fn duplicate_documents_are_winnowed_once(
        picks in prop::collection::vec((0u32..4, 0usize..4), 2..12),
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix64::new(seed);
        let contents: Vec<Vec<u64>> = (0..4).map(|i| random_symbols(&mut rng, 10 + 7 * i)).collect();
        let docs: Vec<TestDoc> = picks
            .iter()
            .map(|&(sub, c)| doc(sub, Role::Current, contents[c].clone()))
            .collect();
        let distinct: HashSet<&Vec<u64>> = docs.iter().map(|d| &d.symbols).collect();
        let opts = options(4, 3);
        let result = match_corpus(&corpus(&docs), &opts).unwrap();
        prop_assert_eq!(result.stats.duplicate_documents, (docs.len() - distinct.len()) as u64);
        let mut fingerprinter =
            bryo_engine::Fingerprinter::new(opts.config, opts.hash, opts.selection).unwrap();
        let corpus = corpus(&docs);
        let fingerprinted = bryo_match::fingerprint(&corpus, &opts, &bryo_match::Silent).unwrap();
        for (i, (d, summary)) in docs.iter().zip(&result.documents).enumerate() {
            let own = fingerprinter.fingerprint_symbols(&d.symbols).unwrap();
            prop_assert_eq!(summary.fingerprints as usize, own.len());
            // Copied or computed, every document holds its own selection.
            prop_assert_eq!(fingerprinted.fingerprints(DocId(i as u32)), Some(&own[..]));
        }
        prop_assert_eq!(
            result.stats.fingerprints,
            docs.iter().map(|d| fingerprinter.fingerprint_symbols(&d.symbols).unwrap().len() as u64).sum::<u64>()
        );
    }
}

/// Forty submissions: random text with passages copied among random
/// subsets, so that hundreds of pairs share fingerprints.
fn crowded_corpus(seed: u64) -> Vec<TestDoc> {
    crowded_corpus_of(seed, 40)
}

/// `submissions` documents sharing passages of thirty at random.
fn crowded_corpus_of(seed: u64, submissions: u32) -> Vec<TestDoc> {
    let mut rng = SplitMix64::new(seed);
    let passages: Vec<Vec<u64>> = (0..30)
        .map(|i| random_symbols(&mut rng, 8 + (i * 7) % 50))
        .collect();
    (0..submissions)
        .map(|s| {
            let mut symbols = random_symbols(&mut rng, 20);
            for p in &passages {
                if rng.next().is_multiple_of(4) {
                    symbols.extend(p);
                    let gap = (rng.next() % 6) as usize;
                    symbols.extend(random_symbols(&mut rng, gap));
                }
            }
            doc(s, Role::Current, symbols)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The bound `-n` states, against scoring every candidate: of the
    /// `max(4n, n + 200)` pairs with the most shared fingerprints, the `n`
    /// with the most matched symbols, in the matcher's order.
    #[test]
    fn max_pairs_guarantees_its_bound(seed in any::<u64>(), n in 1usize..60, crowd in 0usize..4) {
        // 140 submissions: a thousand candidates in every piece the
        // selection is cut into, so each piece drops some as it goes.
        let docs = if crowd == 0 { crowded_corpus_of(seed, 140) } else { crowded_corpus(seed) };
        let mut o = options(4, 3);
        o.max_pairs = 0;
        let all = match_corpus(&corpus(&docs), &o).unwrap();
        prop_assert!(all.pairs.len() > 300, "{} pairs", all.pairs.len());
        let mut by_shared = all.pairs.clone();
        by_shared.sort_by_key(|p| (std::cmp::Reverse(p.shared_fingerprints), p.a, p.b));
        o.max_pairs = n;
        by_shared.truncate(scored_candidates(&o).unwrap());
        by_shared.sort_by_key(|p| {
            (std::cmp::Reverse(p.covered_a + p.covered_b), std::cmp::Reverse(p.shared_fingerprints), p.a, p.b)
        });
        by_shared.truncate(n);
        let result = match_corpus(&corpus(&docs), &o).unwrap();
        prop_assert_eq!(result.pairs, by_shared);
    }
}

/// A group of fifteen copiers in a class of thirty-five: MOSS's `-m 10`
/// erases what they share; the rarity rule keeps it, and takes only the
/// passage everyone has (template code) out of matching and totals.
#[test]
fn rarity_keeps_what_a_group_of_copiers_shares() {
    let mut rng = SplitMix64::new(5);
    let template = random_symbols(&mut rng, 60);
    let copied = random_symbols(&mut rng, 80);
    let docs: Vec<TestDoc> = (0..35)
        .map(|s| {
            let mut symbols = template.clone();
            symbols.extend(random_symbols(&mut rng, 30));
            if s < 15 {
                symbols.extend(&copied);
            }
            symbols.extend(random_symbols(&mut rng, 30));
            doc(s, Role::Current, symbols)
        })
        .collect();
    let pair_of = |r: &Comparison, a: u32, b: u32| {
        let (x, y) = (sub_id(a).min(sub_id(b)), sub_id(a).max(sub_id(b)));
        r.pairs.iter().find(|p| (p.a, p.b) == (x, y)).cloned()
    };
    let mut o = options(6, 5);
    o.max_pairs = 0;
    o.common = CommonRule::MaxSubmissions(10);
    let moss = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &moss);
    assert!(pair_of(&moss, 0, 1).is_none_or(|p| p.covered_a < 20));

    o.common = CommonRule::Rarity(Rarity::default());
    let rarity = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &rarity);
    let p = pair_of(&rarity, 0, 1).expect("the copiers are paired");
    assert!(p.covered_a >= 80 - 2 * 5, "{p:?}");
    // The template is in all 35: out of matching and totals.
    assert_eq!(rarity.stats.exclude_above, 17);
    assert!(p.symbols_a <= 140 + 5 * 2, "{p:?}");
    // Two students outside the group share only the template: no pair.
    assert!(pair_of(&rarity, 20, 21).is_none());
}

/// The rarity discount: a fragment shorter than four k-grams counts in the
/// similarity by the mean weight of the fingerprints inside it (1 up to
/// `min_seed_limit` submissions, `ln(T/df) / ln(T/10)` above, for the
/// template threshold `T`), checked pair by pair against a brute-force
/// computation from the fingerprints; longer fragments and rare code count
/// in full, and so does everything with the discount off or in a class too
/// small for a template.
#[test]
fn rarity_discount_weighs_short_matches_of_widespread_code() {
    let (k, w) = (6, 5);
    let mut rng = SplitMix64::new(21);
    // An idiom of 15 symbols (under 4k = 24) in 25 of 60 submissions, a
    // short passage only two share, and a long one a group of 12 shares.
    let idiom = random_symbols(&mut rng, 15);
    let rare_short = random_symbols(&mut rng, 15);
    let long = random_symbols(&mut rng, 60);
    let docs: Vec<TestDoc> = (0..60)
        .map(|s| {
            let mut symbols = random_symbols(&mut rng, 30);
            if s < 25 {
                symbols.extend(&idiom);
            }
            symbols.extend(random_symbols(&mut rng, 30));
            if s == 30 || s == 31 {
                symbols.extend(&rare_short);
            }
            if (40..52).contains(&s) {
                symbols.extend(&long);
            }
            symbols.extend(random_symbols(&mut rng, 30));
            doc(s, Role::Current, symbols)
        })
        .collect();
    let mut o = options(k, w);
    o.max_pairs = 0;
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &result);
    assert_eq!(result.stats.exclude_above, 30);
    assert_eq!(result.stats.discount_below, 4 * k as u64);

    // Brute force: every document's selected fingerprints, and the number
    // of submissions selecting each hash.
    let mut f = bryo_engine::Fingerprinter::new(o.config, o.hash, o.selection).unwrap();
    let selected: Vec<Vec<(u32, u64)>> = docs
        .iter()
        .map(|d| {
            f.fingerprint_symbols(&d.symbols)
                .unwrap()
                .iter()
                .map(|fp| (fp.pos, fp.hash))
                .collect()
        })
        .collect();
    let mut df: std::collections::HashMap<u64, HashSet<u32>> = Default::default();
    for (d, list) in docs.iter().zip(&selected) {
        for &(_, h) in list {
            df.entry(h).or_default().insert(d.sub);
        }
    }
    let weight = |n: usize| {
        let (floor, top) = (10.0f64, 30.0f64);
        match n as f64 {
            x if x <= floor => 1.0,
            x => ((top / x).ln() / (top / floor).ln()).clamp(0.0, 1.0),
        }
    };
    let plain =
        |p: &bryo_match::PairMatch| o.score.similarity(p.covered_a, p.symbols_a, p.symbols_b);
    let mut discounted = 0;
    for p in &result.pairs {
        let (mut counted, mut total) = (0.0, 0.0);
        for frag in &p.fragments {
            assert!(frag.parts.is_empty(), "code does not merge by default");
            let len = f64::from(frag.len);
            total += len;
            if frag.len as usize >= 4 * k {
                counted += len;
                continue;
            }
            let (mut sum, mut n) = (0.0, 0);
            for (doc, start) in [(frag.a_doc, frag.a_start), (frag.b_doc, frag.b_start)] {
                for &(pos, h) in &selected[doc.0 as usize] {
                    let subs = df[&h].len();
                    if subs >= 2 && pos >= start && pos as usize + k <= (start + frag.len) as usize
                    {
                        sum += weight(subs);
                        n += 1;
                    }
                }
            }
            counted += len * if n == 0 { 1.0 } else { sum / n as f64 };
        }
        let expected = plain(p) * if total == 0.0 { 1.0 } else { counted / total };
        assert!(
            (p.similarity - expected).abs() < 1e-9,
            "{p:?}: expected {expected}"
        );
        discounted += usize::from(p.similarity < plain(p) - 1e-9);
    }
    let pair_of = |r: &Comparison, a: u32, b: u32| {
        let (x, y) = (sub_id(a).min(sub_id(b)), sub_id(a).max(sub_id(b)));
        r.pairs
            .iter()
            .find(|p| (p.a, p.b) == (x, y))
            .cloned()
            .unwrap()
    };
    // Two who share only the idiom: discounted to well under half.
    let idiom_pair = pair_of(&result, 0, 1);
    assert!(
        idiom_pair.similarity < 0.5 * plain(&idiom_pair),
        "{idiom_pair:?}"
    );
    // Rare code and a long passage count in full.
    for (a, b) in [(30, 31), (40, 41)] {
        let p = pair_of(&result, a, b);
        assert!((p.similarity - plain(&p)).abs() < 1e-12, "{p:?}");
    }
    assert!(discounted >= 25 * 24 / 2, "{discounted} pairs discounted");

    // The public rule (what a job comparing a pair alone applies): from the
    // whole corpus's counts of every matched hash (shared, not template)
    // and its template threshold, `Rarity::evidence` gives each pair's
    // factor.
    let rule = Rarity::default();
    assert!(rule.discounts(30) && !rule.discounts(10));
    assert!(!Rarity {
        full_weight_kgrams: 0,
        ..rule
    }
    .discounts(30));
    assert_eq!(rule.weight(10, 30), 1.0);
    assert_eq!(rule.weight(30, 30), 0.0);
    assert_eq!(rule.weight(25, u64::MAX), 1.0);
    assert!((rule.weight(20, 30) - weight(20)).abs() < 1e-15);
    let mut occurrences: Vec<(u64, u32)> = Vec::new();
    for (d, list) in selected.iter().enumerate() {
        for &(pos, h) in list {
            let n = df[&h].len();
            if (2..=30).contains(&n) {
                occurrences.push(((d as u64) << 32 | u64::from(pos), n as u32));
            }
        }
    }
    occurrences.sort_unstable();
    for p in &result.pairs {
        let expected = plain(p) * rule.evidence(&p.fragments, &occurrences, k, 30);
        assert!((p.similarity - expected).abs() < 1e-12, "{p:?}");
    }
    let idiom_factor = rule.evidence(&idiom_pair.fragments, &occurrences, k, 30);
    assert!(idiom_factor < 0.5, "{idiom_factor}");
    assert_eq!(
        rule.evidence(&idiom_pair.fragments, &occurrences, k, 10),
        1.0
    );

    // Off: every similarity is the plain one, and the same pairs come out.
    o.common = CommonRule::Rarity(Rarity {
        full_weight_kgrams: 0,
        ..Rarity::default()
    });
    let off = match_corpus(&corpus(&docs), &o).unwrap();
    assert_eq!(off.stats.discount_below, 0);
    assert_eq!(off.pairs.len(), result.pairs.len());
    for p in &off.pairs {
        assert!((p.similarity - plain(p)).abs() < 1e-12, "{p:?}");
    }
    // A class of 20: no template threshold above 10, no discount.
    o.common = CommonRule::Rarity(Rarity::default());
    let small = match_corpus(&corpus(&docs[..20]), &o).unwrap();
    assert_eq!(small.stats.discount_below, 0);
    for p in &small.pairs {
        assert!((p.similarity - plain(p)).abs() < 1e-12, "{p:?}");
    }
}

/// The seeding budget: passages in more submissions than the limit it
/// sets pair only a sample of their submissions, but inside a pair that a
/// rarer passage found they are matched, as one fragment with it.
#[test]
fn seeding_budget_samples_pairs_not_matches() {
    let mut rng = SplitMix64::new(9);
    let frequent = random_symbols(&mut rng, 60);
    let rare = random_symbols(&mut rng, 40);
    // Twelve of thirty have the frequent passage: not template code.
    let docs: Vec<TestDoc> = (0..30)
        .map(|s| {
            let mut symbols = random_symbols(&mut rng, 20);
            if s < 2 {
                symbols.extend(&rare);
            }
            if s < 12 {
                symbols.extend(&frequent);
            }
            symbols.extend(random_symbols(&mut rng, 20));
            doc(s, Role::Current, symbols)
        })
        .collect();
    let mut o = options(5, 4);
    o.max_pairs = 0;
    o.common = CommonRule::Rarity(Rarity {
        records_per_fingerprint: 0,
        min_records: 1,
        min_seed_limit: 2,
        ..Rarity::default()
    });
    let result = match_corpus(&corpus(&docs), &o).unwrap();
    check_structure(&docs, &o, &result);
    assert_eq!(result.stats.seed_limit, 2);
    // Each frequent hash pairs every submission with one other.
    let frequent_hashes = result.stats.shared_hashes - 1;
    assert!(result.stats.candidate_pairs <= 1 + 12 * frequent_hashes);
    let shared = |r: &Comparison| r.pairs.iter().map(|p| p.shared_fingerprints).sum::<u64>();
    let p = result
        .pairs
        .iter()
        .find(|p| (p.a, p.b) == (sub_id(1), sub_id(0)))
        .expect("the rare passage pairs 0 and 1");
    assert_eq!(p.fragments.len(), 1);
    assert_eq!(p.fragments[0].len, 100);
    // Without the budget every pair of the twelve is found, through every
    // frequent hash: six times the records of the sample.
    o.common = CommonRule::Rarity(Rarity::default());
    let all = match_corpus(&corpus(&docs), &o).unwrap();
    assert_eq!(all.pairs.len(), 66);
    assert!(
        shared(&all) >= 5 * shared(&result),
        "{} {}",
        shared(&all),
        shared(&result)
    );
}

/// The fragment floor scales with the shorter submission: a 30-symbol
/// copied run counts between two short documents and not between two long
/// ones.
#[test]
fn fragment_floor_scales_with_the_shorter_document() {
    let mut rng = SplitMix64::new(3);
    let run = random_symbols(&mut rng, 30);
    let docs_of = |rng: &mut SplitMix64, len: usize| -> Vec<TestDoc> {
        (0..2)
            .map(|s| {
                let mut symbols = random_symbols(rng, len / 2);
                symbols.extend(&run);
                symbols.extend(random_symbols(rng, len / 2));
                doc(s, Role::Current, symbols)
            })
            .collect()
    };
    let mut o = options(8, 8);
    o.merge = Some(Merging {
        max_gap: 4,
        gap_ratio: f64::INFINITY,
    });
    o.min_fragment_symbols = 80;
    o.floor_scale = 0.65;
    // √1,000 · 0.65 ≈ 21 ≤ 30: kept.
    let short = docs_of(&mut rng, 1_000);
    let result = match_corpus(&corpus(&short), &o).unwrap();
    assert_eq!(result.pairs.len(), 1);
    assert_eq!(result.pairs[0].covered_a, 30);
    // √20,000 · 0.65 ≈ 92, capped at 80 > 30: dropped.
    let long = docs_of(&mut rng, 20_000);
    let result = match_corpus(&corpus(&long), &o).unwrap();
    assert!(result.pairs.iter().all(|p| p.covered_a == 0));
    // Without the scale the fixed floor drops it in both.
    o.floor_scale = 0.0;
    let result = match_corpus(&corpus(&short), &o).unwrap();
    assert!(result.pairs.iter().all(|p| p.covered_a == 0));
}

/// Records what a run reports, and cancels when a stage starts or after
/// some units of work.
#[derive(Default)]
struct Watcher {
    events: std::sync::Mutex<Vec<(bryo_match::Stage, u64)>>,
    done: std::sync::atomic::AtomicU64,
    cancel_at: Option<bryo_match::Stage>,
    cancel_after: Option<u64>,
}

impl bryo_match::Progress for Watcher {
    fn start(&self, stage: bryo_match::Stage, work: u64) {
        self.events.lock().unwrap().push((stage, work));
    }
    fn advance(&self, done: u64) {
        self.done
            .fetch_add(done, std::sync::atomic::Ordering::Relaxed);
    }
    fn cancelled(&self) -> bool {
        let events = self.events.lock().unwrap();
        self.cancel_at
            .is_some_and(|s| events.last().is_some_and(|e| e.0 == s))
            || self
                .cancel_after
                .is_some_and(|n| self.done.load(std::sync::atomic::Ordering::Relaxed) >= n)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// The stages run one by one give exactly what `match_corpus` gives,
    /// and report their work: one unit per distinct document, one per
    /// candidate pair.
    #[test]
    fn stages_one_by_one_equal_the_whole_run((docs, options) in small_corpus()) {
        use bryo_match::Stage;
        let corpus = corpus(&docs);
        let whole = match_corpus(&corpus, &options).unwrap();
        let watcher = Watcher::default();
        let fingerprinted = bryo_match::fingerprint(&corpus, &options, &watcher).unwrap();
        let duplicates = fingerprinted.duplicate_documents();
        for (i, d) in docs.iter().enumerate() {
            let got = fingerprinted.fingerprints(DocId(i as u32));
            prop_assert_eq!(got.is_none(), d.role == Role::Base);
            if let Some(got) = got {
                prop_assert_eq!(got.len() as u32, whole.documents[i].fingerprints);
            }
        }
        let indexed = fingerprinted.index(&watcher).unwrap();
        let candidates = indexed.pairs(&watcher).unwrap();
        prop_assert_eq!(candidates.total, whole.stats.candidate_pairs);
        prop_assert!(candidates.pairs.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
        let scored = candidates.pairs.len() as u64;
        let staged = indexed.fragments(candidates, &watcher).unwrap();
        prop_assert_eq!(&staged, &whole);
        let events = watcher.events.lock().unwrap().clone();
        let stages: Vec<Stage> = events.iter().map(|e| e.0).collect();
        prop_assert_eq!(stages, vec![Stage::Fingerprint, Stage::Index, Stage::Pairs, Stage::Fragments]);
        let current = docs.iter().filter(|d| d.role != Role::Base).count() as u64;
        prop_assert_eq!(events[0].1, current - duplicates);
        prop_assert_eq!(events[3].1, scored);
        prop_assert_eq!(watcher.done.load(std::sync::atomic::Ordering::Relaxed), current - duplicates + scored);
    }

    /// Ranked with its scores only, a run's pairs computed again batch by
    /// batch are exactly what the whole run reports, with the same
    /// clusters, totals and best similarity: under a cut to `max_pairs`, a
    /// minimum similarity, and pairs the caller declares identical.
    #[test]
    fn pairs_computed_again_in_batches_equal_the_whole_run(
        (docs, mut options) in small_corpus(),
        max_pairs in 0usize..6,
        min_similarity in prop::sample::select(vec![0.0, 0.2, 0.6]),
        declared in prop::collection::vec((0u32..5, 0u32..5), 0..3),
        batch in 1usize..5,
    ) {
        use bryo_match::Retain;
        options.max_pairs = max_pairs;
        options.min_similarity = min_similarity;
        let mut corpus = corpus(&docs);
        for (a, b) in declared {
            corpus.declare_identical(sub_id(a), sub_id(b));
        }
        let whole = match_corpus(&corpus, &options).unwrap();
        for retain in [Retain::Scores, Retain::Fragments] {
            let indexed = bryo_match::fingerprint(&corpus, &options, &bryo_match::Silent)
                .and_then(|f| f.index(&bryo_match::Silent))
                .unwrap();
            let candidates = indexed.pairs(&bryo_match::Silent).unwrap();
            let ranked = indexed.rank(candidates, retain, &bryo_match::Silent).unwrap();
            prop_assert_eq!(ranked.len(), whole.pairs.len());
            prop_assert_eq!(
                ranked.max_similarity(),
                whole.pairs.iter().map(|p| p.similarity).reduce(f64::max)
            );
            let mut pairs = Vec::new();
            let mut start = 0;
            while start < ranked.len() + 2 {
                pairs.extend(ranked.pairs(start..start + batch));
                start += batch;
            }
            prop_assert_eq!(&pairs, &whole.pairs);
            let summary = ranked.summary().clone();
            prop_assert_eq!(&summary.clusters, &whole.clusters);
            prop_assert_eq!(&summary.documents, &whole.documents);
            prop_assert_eq!(&summary.base_ranges, &whole.base_ranges);
            prop_assert_eq!(&summary.stats, &whole.stats);
            prop_assert!(summary.pairs.is_empty());
            prop_assert_eq!(&ranked.into_comparison(), &whole);
        }
    }

    /// A caller's content fingerprints spare a hash pass and never change
    /// the result, even when they are wrong.
    #[test]
    fn content_fingerprints_never_change_the_result(
        (docs, options) in small_corpus(),
        lie in any::<u64>(),
    ) {
        let plain = match_corpus(&corpus(&docs), &options).unwrap();
        let modulus = bryo_engine::Modulus::default_64();
        let given: Corpus = docs
            .iter()
            .map(|d| {
                Document::new(sub_id(d.sub), &d.symbols)
                    .with_role(d.role)
                    .with_content_fingerprint(modulus.hash_symbols(&d.symbols) as u64)
            })
            .collect();
        prop_assert_eq!(&match_corpus(&given, &options).unwrap(), &plain);
        // All documents claim one fingerprint: every pair is confirmed
        // symbol by symbol, and only equal documents are shared.
        let lying: Corpus = docs
            .iter()
            .map(|d| Document::new(sub_id(d.sub), &d.symbols).with_role(d.role).with_content_fingerprint(lie))
            .collect();
        let lied = match_corpus(&lying, &options).unwrap();
        prop_assert_eq!(&lied.pairs, &plain.pairs);
        prop_assert_eq!(&lied.documents, &plain.documents);
        // Wrong, distinct fingerprints hide duplicates from the shortcut.
        let distinct: Corpus = docs
            .iter()
            .enumerate()
            .map(|(i, d)| Document::new(sub_id(d.sub), &d.symbols).with_role(d.role).with_content_fingerprint(i as u64))
            .collect();
        let hidden = match_corpus(&distinct, &options).unwrap();
        prop_assert_eq!(&hidden.pairs, &plain.pairs);
        prop_assert_eq!(hidden.stats.duplicate_documents, 0);
    }
}

#[test]
fn every_stage_can_be_cancelled() {
    use bryo_match::Stage;
    let mut rng = SplitMix64::new(7);
    let passage = random_symbols(&mut rng, 60);
    let docs: Vec<TestDoc> = (0..6)
        .map(|s| {
            let mut symbols = random_symbols(&mut rng, 40);
            symbols.extend(&passage);
            doc(s, Role::Current, symbols)
        })
        .collect();
    let corpus = corpus(&docs);
    let opts = options(5, 4);
    let run = |w: &Watcher| -> Result<Comparison, Error> {
        let indexed = bryo_match::fingerprint(&corpus, &opts, w)?.index(w)?;
        let candidates = indexed.pairs(w)?;
        indexed.fragments(candidates, w)
    };
    assert!(run(&Watcher::default()).is_ok());
    for stage in [
        Stage::Fingerprint,
        Stage::Index,
        Stage::Pairs,
        Stage::Fragments,
    ] {
        let w = Watcher {
            cancel_at: Some(stage),
            ..Watcher::default()
        };
        assert_eq!(run(&w).unwrap_err(), Error::Cancelled, "{stage}");
        assert_eq!(w.events.lock().unwrap().last().unwrap().0, stage);
    }
    // Inside a stage: after two units of work, nothing more is done.
    let w = Watcher {
        cancel_after: Some(2),
        ..Watcher::default()
    };
    assert_eq!(run(&w).unwrap_err(), Error::Cancelled);
    assert_eq!(
        w.events.lock().unwrap().len(),
        1,
        "stopped while fingerprinting"
    );
    // A cancel flag raised before the run stops it at once.
    let flag = bryo_match::Cancel::new();
    flag.cancel();
    assert_eq!(
        bryo_match::fingerprint(&corpus, &opts, &flag).unwrap_err(),
        Error::Cancelled
    );
}

/// The hashes selected in more than `m` submissions of a corpus, from its
/// fingerprint stage.
fn hashes_above(docs: &[TestDoc], o: &MatchOptions, m: usize) -> Vec<u64> {
    let c = corpus(docs);
    let fps = bryo_match::fingerprint(&c, o, &bryo_match::Silent).unwrap();
    let mut subs_of: BTreeMap<u64, HashSet<u32>> = BTreeMap::new();
    for (i, d) in docs.iter().enumerate() {
        for f in fps.fingerprints(DocId(i as u32)).unwrap_or(&[]) {
            subs_of.entry(f.hash).or_default().insert(d.sub);
        }
    }
    subs_of
        .into_iter()
        .filter(|(_, s)| s.len() > m)
        .map(|(h, _)| h)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// A distributed job applies `-m` to the whole corpus, then compares
    /// each candidate pair on its own with the excluded hashes: every pair
    /// comes out exactly as in the run over the whole corpus (fragments,
    /// totals, scores), with and without merging.
    #[test]
    fn pairs_alone_with_excluded_hashes_equal_the_whole_run(
        seed in any::<u64>(), m in 6usize..12, merge in any::<bool>(),
    ) {
        let docs = crowded_corpus(seed);
        let mut o = options(4, 3);
        o.max_pairs = 0;
        o.common = CommonRule::MaxSubmissions(m);
        if merge {
            o.merge = Some(Merging { max_gap: 6, gap_ratio: 1.0 });
            o.min_fragment_symbols = 8;
        }
        let whole = match_corpus(&corpus(&docs), &o).unwrap();
        prop_assert!(whole.pairs.len() > 20, "{} pairs", whole.pairs.len());
        let excluded = hashes_above(&docs, &o, m);
        prop_assert!(!excluded.is_empty());
        let mut alone = o;
        alone.common = CommonRule::MaxSubmissions(0);
        for p in &whole.pairs {
            let (ids, two) = pair_documents(&docs, p);
            let mut c = corpus(&two);
            c.exclude_hashes(excluded.iter().copied());
            let mut r = match_corpus(&c, &alone).unwrap();
            prop_assert_eq!(r.pairs.len(), 1);
            for f in &mut r.pairs[0].fragments {
                f.a_doc = DocId(ids[f.a_doc.0 as usize]);
                f.b_doc = DocId(ids[f.b_doc.0 as usize]);
            }
            prop_assert_eq!(&r.pairs[0], p);
        }
    }
}

/// The crowded corpus under a rarity rule whose seed limit cuts: a budget
/// of one record, so that hashes in more than `min_seed_limit` submissions
/// pair only a sample, template code above 30% of the class, no discount
/// (a pair compared alone has no rarity counts of the class).
fn cut_options(min_seed_limit: usize, merge: bool) -> MatchOptions {
    let mut o = options(4, 3);
    o.max_pairs = 0;
    o.common = CommonRule::Rarity(Rarity {
        template_share: 0.3,
        records_per_fingerprint: 0,
        min_records: 1,
        min_seed_limit,
        full_weight_kgrams: 0,
        ..Rarity::default()
    });
    if merge {
        o.merge = Some(Merging {
            max_gap: 6,
            gap_ratio: 1.0,
        });
        o.min_fragment_symbols = 8;
    }
    o
}

/// What comparing each pair of a run alone gives against the whole run.
struct AloneRuns {
    /// Pairs of the whole run.
    pairs: usize,
    /// Pairs whose seeded run alone differs from the whole run's.
    seeded_differ: Vec<String>,
    /// Pairs whose unrestricted run alone has other fragments.
    unrestricted_differ: usize,
}

/// Runs the whole corpus, then every reported pair alone — a corpus of its
/// two submissions with the whole run's template hashes excluded — once
/// seeded by the hashes of its records in the whole run, once not.
fn pairs_alone(docs: &[TestDoc], o: &MatchOptions) -> AloneRuns {
    let silent = &bryo_match::Silent;
    let c = corpus(docs);
    let indexed = bryo_match::fingerprint(&c, o, silent)
        .unwrap()
        .index(silent)
        .unwrap();
    let candidates = indexed.pairs(silent).unwrap();
    let seeds: BTreeMap<(SubmissionId, SubmissionId), Vec<u64>> = candidates
        .pairs
        .iter()
        .map(|p| ((p.a, p.b), indexed.record_hashes(p)))
        .collect();
    let whole = indexed.fragments(candidates, silent).unwrap();
    if o.merge.is_none() {
        // Merged fragments hold gaps, which the structure check takes as
        // inexact.
        check_structure(docs, o, &whole);
    }
    assert!(whole.stats.seed_limit < 40, "{}", whole.stats.seed_limit);
    let excluded = hashes_above(docs, o, whole.stats.exclude_above as usize);
    let mut out = AloneRuns {
        pairs: whole.pairs.len(),
        seeded_differ: Vec::new(),
        unrestricted_differ: 0,
    };
    for p in &whole.pairs {
        let (ids, two) = pair_documents(docs, p);
        let mut c = corpus(&two);
        c.exclude_hashes(excluded.iter().copied());
        let alone = |restrict: Option<&[u64]>| {
            let mut indexed = bryo_match::fingerprint(&c, o, silent)
                .unwrap()
                .index(silent)
                .unwrap();
            if let Some(hashes) = restrict {
                indexed.restrict_seeds(hashes);
            }
            let candidates = indexed.pairs(silent).unwrap();
            let mut r = indexed.fragments(candidates, silent).unwrap();
            for m in &mut r.pairs {
                for f in &mut m.fragments {
                    f.a_doc = DocId(ids[f.a_doc.0 as usize]);
                    f.b_doc = DocId(ids[f.b_doc.0 as usize]);
                }
            }
            r.pairs
        };
        let seeded = alone(Some(&seeds[&(p.a, p.b)]));
        if seeded.len() != 1 || &seeded[0] != p {
            out.seeded_differ
                .push(format!("whole {p:?}\nalone {seeded:?}"));
        }
        let unrestricted = alone(None);
        if unrestricted.len() != 1 || unrestricted[0].fragments != p.fragments {
            out.unrestricted_differ += 1;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// A distributed job under the rarity rule: each pair compared alone,
    /// with the whole corpus's template hashes excluded and its seeds
    /// restricted to the hashes of its records in the whole run, comes out
    /// exactly as in the whole run (fragments, totals, shared fingerprints,
    /// scores) even where the seed limit sampled the pairs.
    #[test]
    fn pairs_alone_seeded_by_their_records_equal_the_whole_run(
        seed in any::<u64>(), min_seed_limit in 2usize..5, merge in any::<bool>(),
    ) {
        let runs = pairs_alone(&crowded_corpus(seed), &cut_options(min_seed_limit, merge));
        prop_assert!(runs.pairs > 20, "{} pairs", runs.pairs);
        prop_assert!(runs.seeded_differ.is_empty(), "{}", runs.seeded_differ.join("\n"));
    }
}

/// Without the restriction, a pair compared alone is seeded by every hash
/// the two share, also by the frequent ones whose sample did not pair them
/// in the whole run: its fragments differ. With it, they agree.
#[test]
fn pairs_alone_differ_without_their_seeds() {
    for seed in [1, 2, 3] {
        let runs = pairs_alone(&crowded_corpus(seed), &cut_options(2, false));
        assert!(
            runs.seeded_differ.is_empty(),
            "{}",
            runs.seeded_differ.join("\n")
        );
        assert!(
            runs.unrestricted_differ > 0,
            "seed {seed}: {} pairs",
            runs.pairs
        );
    }
}
