//! Deliberately naive references for the matcher: brute force over every
//! pair of submissions, hash sets and maps, no sorting tricks.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use bryo_engine::{Fingerprinter, Hasher};
use bryo_match::{CommonRule, MatchOptions, Role, SubmissionId};

/// The submission id of dense test submission `i`: ids fall as `i` grows,
/// so that the matcher's internal order (by id) is not the test's.
pub fn sub_id(i: u32) -> SubmissionId {
    SubmissionId(1000 - 7 * i)
}

/// A test document: dense submission index, whether it is old, base or
/// current, and its symbols.
#[derive(Clone, Debug)]
pub struct TestDoc {
    pub sub: u32,
    pub role: Role,
    pub symbols: Vec<u64>,
}

/// All k-gram hashes of the base documents.
pub fn base_hashes(docs: &[TestDoc], options: &MatchOptions) -> HashSet<u64> {
    let hasher = Hasher::new(options.hash, &options.config);
    let k = options.config.k();
    let mut set = HashSet::new();
    for d in docs.iter().filter(|d| d.role == Role::Base) {
        for i in 0..(d.symbols.len() + 1).saturating_sub(k) {
            set.insert(hasher.hash_kgram_symbols(&d.symbols[i..i + k]).unwrap());
        }
    }
    set
}

/// For every symbol of `doc`, whether some k-gram containing it has a base
/// hash.
pub fn base_mask(doc: &[u64], base: &HashSet<u64>, options: &MatchOptions) -> Vec<bool> {
    let hasher = Hasher::new(options.hash, &options.config);
    let k = options.config.k();
    let mut mask = vec![false; doc.len()];
    for i in 0..(doc.len() + 1).saturating_sub(k) {
        if base.contains(&hasher.hash_kgram_symbols(&doc[i..i + k]).unwrap()) {
            for m in &mut mask[i..i + k] {
                *m = true;
            }
        }
    }
    mask
}

/// The hashes the options' common-code rule excludes from matching: under
/// `-m N`, a (non-base) hash selected in more than `N` submissions; under
/// the rarity rule, one selected in at least two submissions and, counting
/// only the first document of each content (in id order), in more than
/// `max(template_min, ⌊template_share · submissions⌋)` of them, where
/// submissions are those with a first-of-its-content non-empty document.
/// Assumes the seeding budget never binds.
pub fn excluded_hashes(docs: &[TestDoc], options: &MatchOptions) -> HashSet<u64> {
    let mut f = Fingerprinter::new(options.config, options.hash, options.selection).unwrap();
    let base = base_hashes(docs, options);
    let selected: Vec<HashSet<u64>> = docs
        .iter()
        .map(|d| match d.role {
            Role::Base => HashSet::new(),
            _ => f
                .fingerprint_symbols(&d.symbols)
                .unwrap()
                .iter()
                .map(|fp| fp.hash)
                .filter(|h| !base.contains(h))
                .collect(),
        })
        .collect();
    let mut subs_of: HashMap<u64, BTreeSet<u32>> = HashMap::new();
    for (d, hashes) in docs.iter().zip(&selected) {
        for &h in hashes {
            subs_of.entry(h).or_default().insert(d.sub);
        }
    }
    match options.common {
        CommonRule::MaxSubmissions(0) => HashSet::new(),
        CommonRule::MaxSubmissions(m) => subs_of
            .into_iter()
            .filter(|(_, s)| s.len() > m)
            .map(|(h, _)| h)
            .collect(),
        CommonRule::Rarity(r) => {
            let mut order: Vec<usize> = (0..docs.len())
                .filter(|&i| docs[i].role != Role::Base)
                .collect();
            order.sort_by_key(|&i| (sub_id(docs[i].sub), i));
            let mut seen: HashSet<&[u64]> = HashSet::new();
            let mut distinct_of: HashMap<u64, BTreeSet<u32>> = HashMap::new();
            let mut subs: BTreeSet<u32> = BTreeSet::new();
            for i in order {
                if !seen.insert(&docs[i].symbols) {
                    continue;
                }
                if !docs[i].symbols.is_empty() {
                    subs.insert(docs[i].sub);
                }
                for &h in &selected[i] {
                    distinct_of.entry(h).or_default().insert(docs[i].sub);
                }
            }
            let share = (r.template_share * subs.len() as f64).floor() as usize;
            let above = share.max(r.template_min);
            subs_of
                .into_iter()
                .filter(|(h, s)| {
                    s.len() >= 2 && distinct_of.get(h).map_or(0, BTreeSet::len) > above
                })
                .map(|(h, _)| h)
                .collect()
        }
    }
}

/// `(a, b) -> shared fingerprints` over dense submission indices, `a < b`,
/// by brute force over every pair of submissions.
pub fn pairs(docs: &[TestDoc], options: &MatchOptions) -> BTreeMap<(u32, u32), u64> {
    let mut f = Fingerprinter::new(options.config, options.hash, options.selection).unwrap();
    let base = base_hashes(docs, options);
    // occurrences[sub][hash], each document's count capped.
    let mut occurrences: BTreeMap<u32, HashMap<u64, u64>> = BTreeMap::new();
    let mut old: BTreeMap<u32, bool> = BTreeMap::new();
    for d in docs.iter().filter(|d| d.role != Role::Base) {
        old.insert(d.sub, d.role == Role::Old);
        let mut counts: HashMap<u64, u64> = HashMap::new();
        for fp in f.fingerprint_symbols(&d.symbols).unwrap() {
            *counts.entry(fp.hash).or_default() += 1;
        }
        let occ = occurrences.entry(d.sub).or_default();
        for (h, n) in counts {
            *occ.entry(h).or_default() += n.min(options.occurrence_cap as u64);
        }
    }
    let excluded = excluded_hashes(docs, options);
    let valid = |h: &u64| !base.contains(h) && !excluded.contains(h);
    let mut out = BTreeMap::new();
    for (&a, occ_a) in &occurrences {
        for (&b, occ_b) in &occurrences {
            if a >= b || (old[&a] && old[&b]) {
                continue;
            }
            let shared: u64 = occ_a
                .iter()
                .filter(|(h, _)| valid(h))
                .filter_map(|(h, &na)| occ_b.get(h).map(|&nb| na.min(nb)))
                .sum();
            if shared > 0 {
                out.insert((a, b), shared);
            }
        }
    }
    out
}

/// For every document (in order; all `false` for base documents), whether
/// each symbol is common-covered: inside the k-gram of a selected
/// fingerprint whose hash is not a base hash and is selected in more than
/// `max_submissions` distinct submissions.
pub fn common_masks(docs: &[TestDoc], options: &MatchOptions) -> Vec<Vec<bool>> {
    let mut f = Fingerprinter::new(options.config, options.hash, options.selection).unwrap();
    let base = base_hashes(docs, options);
    let k = options.config.k();
    let fps: Vec<Vec<(u64, usize)>> = docs
        .iter()
        .map(|d| match d.role {
            Role::Base => Vec::new(),
            _ => f
                .fingerprint_symbols(&d.symbols)
                .unwrap()
                .iter()
                .map(|fp| (fp.hash, fp.pos as usize))
                .collect(),
        })
        .collect();
    let excluded = excluded_hashes(docs, options);
    let common = |h: &u64| !base.contains(h) && excluded.contains(h);
    docs.iter()
        .zip(&fps)
        .map(|(d, list)| {
            let mut mask = vec![false; d.symbols.len()];
            for (h, pos) in list {
                if common(h) {
                    for m in &mut mask[*pos..*pos + k] {
                        *m = true;
                    }
                }
            }
            mask
        })
        .collect()
}
