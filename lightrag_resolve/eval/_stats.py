"""Paired comparison of an arm with ``raw``, item by item, with a bootstrap interval.

Each item's score in an arm is its hit rate over the runs (0, 0.5 or 1 with
two runs). The comparison is paired: for each item, the arm's score minus
``raw``'s. The statistic is the mean of those differences, the change in
hit rate, between -1 and 1; its interval is a percentile bootstrap over
items (resampled with replacement, seeded, so a report is reproducible).
Wins, losses and ties count the items where the arm scored above, below or
level with ``raw``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["PairedComparison", "bootstrap_interval", "compare_paired"]

DEFAULT_RESAMPLES = 10_000


@dataclass(frozen=True, kw_only=True)
class PairedComparison:
    """An arm against ``raw`` over the same items."""

    n: int
    wins: int
    losses: int
    ties: int
    mean_difference: float
    low: float
    high: float
    confidence: float


def bootstrap_interval(
    differences: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``differences``.

    Items are resampled with replacement ``resamples`` times with a
    generator seeded by ``seed``; the interval holds the central
    ``confidence`` share of the resampled means. With no item the interval
    is (nan, nan).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be positive, got {resamples!r}")
    values = np.asarray(differences, dtype=float)
    if values.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, values.size, size=(resamples, values.size))
    means = values[picks].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail], method="inverted_cdf")
    return float(low), float(high)


def compare_paired(
    arm_scores: Sequence[float],
    raw_scores: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Wins/losses/ties and the bootstrap interval of the mean paired difference.

    ``arm_scores[i]`` and ``raw_scores[i]`` are the same item's scores.
    """
    if len(arm_scores) != len(raw_scores):
        raise ValueError("paired scores need the same number of items on both sides")
    differences = [arm - raw for arm, raw in zip(arm_scores, raw_scores)]
    low, high = bootstrap_interval(differences, confidence=confidence, resamples=resamples, seed=seed)
    return PairedComparison(
        n=len(differences),
        wins=sum(1 for d in differences if d > 0),
        losses=sum(1 for d in differences if d < 0),
        ties=sum(1 for d in differences if d == 0),
        mean_difference=float(np.mean(differences)) if differences else float("nan"),
        low=low,
        high=high,
        confidence=confidence,
    )
