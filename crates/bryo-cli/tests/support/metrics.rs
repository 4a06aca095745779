//! Ranking metrics for the quality tests.

#![allow(dead_code)]

/// ROC AUC of `scores` against binary `labels`: the probability that a random
/// positive scores above a random negative, ties counting one half
/// (Mann–Whitney U with midranks).
pub fn roc_auc(scored: &[(f64, bool)]) -> f64 {
    let mut v: Vec<(f64, bool)> = scored.to_vec();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut rank_sum, mut positives) = (0.0, 0usize);
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j < v.len() && v[j].0 == v[i].0 {
            j += 1;
        }
        let midrank = (i + 1 + j) as f64 / 2.0;
        for item in &v[i..j] {
            if item.1 {
                rank_sum += midrank;
                positives += 1;
            }
        }
        i = j;
    }
    let negatives = v.len() - positives;
    let p = positives as f64;
    (rank_sum - p * (p + 1.0) / 2.0) / (p * negatives as f64)
}

/// Average precision: the mean over positives of the precision at the rank
/// where each is retrieved, scores sorted high to low; ties are broken
/// pessimistically (negatives first) so equal scores earn no credit.
pub fn average_precision(scored: &[(f64, bool)]) -> f64 {
    let mut v: Vec<(f64, bool)> = scored.to_vec();
    v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (mut hits, mut sum) = (0usize, 0.0);
    for (i, item) in v.iter().enumerate() {
        if item.1 {
            hits += 1;
            sum += hits as f64 / (i + 1) as f64;
        }
    }
    sum / hits.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_on_known_rankings() {
        // Perfect separation.
        let v = [(0.9, true), (0.8, true), (0.2, false), (0.1, false)];
        assert_eq!(roc_auc(&v), 1.0);
        assert_eq!(average_precision(&v), 1.0);
        // All tied: AUC one half; AP pessimistic (negatives first).
        let t = [(0.5, true), (0.5, false)];
        assert_eq!(roc_auc(&t), 0.5);
        assert_eq!(average_precision(&t), 0.5);
        // One inversion out of four positive/negative pairs.
        let w = [(0.9, true), (0.7, false), (0.6, true), (0.1, false)];
        assert_eq!(roc_auc(&w), 0.75);
        assert!((average_precision(&w) - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
    }
}
