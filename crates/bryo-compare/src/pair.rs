//! One pair of submissions compared alone with what a larger run knows:
//! the fragment stage of a run whose index stage saw the whole corpus and
//! did not keep its symbols (a corpus streamed from disk, a cluster job).

use std::collections::HashMap;

use bryo_input::Inputs;
use bryo_match::{CommonRule, DocId, Silent};
use bryo_report::Report;

use crate::run::{analysis_of, analyze_inputs, AnalyzedSubmission};
use crate::{Analysis, CompareError, CompareOptions};

/// The rarity counts of the whole corpus that a pair compared alone needs
/// for the rarity discount ([`bryo_match::Rarity::evidence`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RarityCounts {
    /// Of every hash matched on the whole corpus that the pair's files
    /// hold (shared by two submissions or more, neither base code nor
    /// template code), the distinct submissions holding it, identical ones
    /// counted once.
    pub submissions: HashMap<u64, u32>,
    /// The whole corpus's template threshold
    /// ([`bryo_match::Rarity::template_threshold`]).
    pub template_above: u64,
}

/// What the whole run decided that a pair compared alone cannot see.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone<'a> {
    /// Hashes the common-code rule excluded on the whole corpus: taken as
    /// common here whatever their count.
    pub excluded: &'a [u64],
    /// No candidate gets fragments: a pair of identical submissions comes
    /// out whole, as the whole run reports one it did not score.
    pub whole: bool,
    /// The whole corpus's counts for the rarity discount; `None` leaves
    /// the similarity undiscounted.
    pub rarity: Option<&'a RarityCounts>,
    /// The hashes that seed the pair's fragments, as the pair's records in
    /// the whole run give them ([`bryo_match::Indexed::record_hashes`]);
    /// `None` seeds by every shared hash.
    pub seeds: Option<&'a [u64]>,
}

/// The symbols and covered symbols of a compared pair, both sides: what
/// the whole run ranks it by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairCounts {
    /// Symbols of `a` and `b` (totals of the score).
    pub symbols: (u64, u64),
    /// Symbols of `a` and `b` inside matched fragments.
    pub covered: (u64, u64),
}

/// The compare pipeline on the submissions of `inputs` (two, as a rule),
/// with what the whole run decided ([`Alone`]): the report (every scored
/// pair in it when `options.max_pairs` is 0 and `options.min_similarity`
/// 0) and, for each of its pairs, the counts it is ranked by.
///
/// Each pair gets the fragments, shared fingerprints and similarity of the
/// whole run: hashes the whole corpus excluded are excluded here, the
/// seeds are the whole run's, and under the rarity rule the similarity is
/// discounted by the whole corpus's counts.
pub fn compare_alone(
    inputs: Inputs,
    options: &CompareOptions,
    alone: &Alone<'_>,
) -> Result<(Report, Vec<PairCounts>), CompareError> {
    compare_analysis(analyze_inputs(inputs, options, &Silent)?, options, alone)
}

/// [`compare_alone`] on submissions analyzed before: `(name, old, files)`.
pub(crate) fn compare_analyzed(
    submissions: Vec<AnalyzedSubmission>,
    options: &CompareOptions,
    alone: &Alone<'_>,
) -> Result<(Report, Vec<PairCounts>), CompareError> {
    compare_analysis(analysis_of(submissions, options)?, options, alone)
}

fn compare_analysis(
    analysis: Analysis,
    options: &CompareOptions,
    alone: &Alone<'_>,
) -> Result<(Report, Vec<PairCounts>), CompareError> {
    let mut corpus = analysis.corpus();
    corpus.exclude_hashes(alone.excluded.iter().copied());
    let match_options = *analysis.match_options();
    let fingerprinted = bryo_match::fingerprint(&corpus, &match_options, &Silent)?;
    // Every selected occurrence of a hash matched on the larger corpus, as
    // `(doc << 32 | pos, distinct submissions)`, sorted.
    let discount = match (alone.rarity, match_options.common) {
        (Some(counts), CommonRule::Rarity(rule)) if rule.discounts(counts.template_above) => {
            let mut occurrences = Vec::new();
            for doc in 0..corpus.len() {
                let id = DocId(doc as u32);
                for f in fingerprinted.fingerprints(id).unwrap_or(&[]) {
                    if let Some(&df) = counts.submissions.get(&f.hash) {
                        occurrences.push(((doc as u64) << 32 | u64::from(f.pos), df));
                    }
                }
            }
            occurrences.sort_unstable();
            Some((rule, occurrences, counts.template_above))
        }
        _ => None,
    };
    let mut indexed = fingerprinted.index(&Silent)?;
    if let Some(seeds) = alone.seeds {
        indexed.restrict_seeds(seeds);
    }
    let mut candidates = indexed.pairs(&Silent)?;
    if alone.whole {
        candidates.pairs.clear();
    }
    // A pair no candidate brought together is added whole, undiscounted.
    let scored = !candidates.pairs.is_empty();
    let mut comparison = indexed.fragments(candidates, &Silent)?;
    if let (Some((rule, occurrences, template_above)), true) = (&discount, scored) {
        let k = match_options.config.k();
        for m in &mut comparison.pairs {
            m.similarity *= rule.evidence(&m.fragments, occurrences, k, *template_above);
        }
    }
    let counts = comparison
        .pairs
        .iter()
        .map(|m| PairCounts {
            symbols: (m.symbols_a, m.symbols_b),
            covered: (m.covered_a, m.covered_b),
        })
        .collect();
    Ok((analysis.report(comparison, options, &Silent).report, counts))
}
