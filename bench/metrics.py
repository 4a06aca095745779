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
