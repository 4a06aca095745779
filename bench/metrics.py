"""Ranking metrics without third-party dependencies (ties handled as scikit-learn does)."""


def roc_auc(labels, scores):
    """Area under the ROC curve: P(score of a positive > score of a negative), ties 1/2."""
    pos = sum(1 for y in labels if y)
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return float("nan")
    # Rank-sum (Mann-Whitney U) with average ranks for ties.
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        avg = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    rank_sum = sum(r for r, y in zip(ranks, labels) if y)
    return (rank_sum - pos * (pos + 1) / 2.0) / (pos * neg)


def average_precision(labels, scores):
    """Average precision: sum over distinct thresholds of (R_n - R_{n-1}) * P_n."""
    pos = sum(1 for y in labels if y)
    if pos == 0:
        return float("nan")
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    ap = 0.0
    tp = fp = 0
    prev_recall = 0.0
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and scores[order[j]] == scores[order[i]]:
            if labels[order[j]]:
                tp += 1
            else:
                fp += 1
            j += 1
        recall = tp / pos
        ap += (recall - prev_recall) * (tp / (tp + fp))
        prev_recall = recall
        i = j
    return ap


def ranking_metrics(pos_scores, neg_scores, zero_negatives=0):
    """ROC AUC, average precision, R-precision and best F1 of a ranking given as the scores
    of the positives, the scores of the negatives that were listed, and a count of further
    negatives that all score 0 (pairs a tool did not report), without materialising them.

    Ties are handled as roc_auc / average_precision do; R-precision counts a tie group at
    the cut-off by its expected share under random order. Best F1 is the largest F1 over
    the thresholds "score >= t" for every score that occurs.
    Returns a dict with auc, ap, r_precision, best_f1, best_f1_threshold, positives,
    negatives; auc and ap are nan without positives (auc also without negatives).
    """
    pos = len(pos_scores)
    neg = len(neg_scores) + zero_negatives
    nan = float("nan")
    out = {"positives": pos, "negatives": neg}
    if pos == 0:
        out.update(auc=nan, ap=nan, r_precision=nan, best_f1=nan, best_f1_threshold=nan)
        return out
    # Distinct scores, descending, with positive and negative counts.
    groups = {}
    for s in pos_scores:
        g = groups.setdefault(float(s), [0, 0])
        g[0] += 1
    for s in neg_scores:
        g = groups.setdefault(float(s), [0, 0])
        g[1] += 1
    if zero_negatives:
        groups.setdefault(0.0, [0, 0])[1] += zero_negatives
    auc_sum = 0.0
    ap = 0.0
    tp = fp = 0
    best_f1, best_t = 0.0, nan
    r_prec = None
    neg_below = neg  # negatives scoring below the current group
    for s in sorted(groups, reverse=True):
        gp, gn = groups[s]
        neg_below -= gn
        auc_sum += gp * (neg_below + gn / 2.0)
        if r_prec is None and tp + fp + gp + gn >= pos:
            slots = pos - tp - fp
            r_prec = (tp + gp * slots / (gp + gn)) / pos
        tp += gp
        fp += gn
        if gp:
            ap += (gp / pos) * (tp / (tp + fp))
        f1 = 2.0 * tp / (tp + fp + pos)
        if f1 > best_f1:
            best_f1, best_t = f1, s
    out["auc"] = auc_sum / (pos * neg) if neg else nan
    out["ap"] = ap
    out["r_precision"] = r_prec if r_prec is not None else tp / pos
    out["best_f1"] = best_f1
    out["best_f1_threshold"] = best_t
    return out
