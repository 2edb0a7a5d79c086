"""The paired comparison and its bootstrap interval, on samples whose answer is known."""

from __future__ import annotations

import math

import pytest

from lightrag_resolve.eval import bootstrap_interval, compare_paired


def test_all_wins_give_the_interval_one_one() -> None:
    result = compare_paired([1.0] * 8, [0.0] * 8)
    assert (result.wins, result.losses, result.ties) == (8, 0, 0)
    assert (result.mean_difference, result.low, result.high) == (1.0, 1.0, 1.0)


def test_all_ties_give_the_interval_zero_zero() -> None:
    result = compare_paired([1.0, 0.0, 0.5], [1.0, 0.0, 0.5])
    assert (result.wins, result.losses, result.ties) == (0, 0, 3)
    assert (result.low, result.high) == (0.0, 0.0)


def test_two_items_by_hand() -> None:
    # Differences (1, 0). Resampling two items with replacement gives the mean
    # 0 with probability 1/4, 0.5 with 1/2 and 1 with 1/4. So the central 95%
    # holds 0 to 1, and the central 40% (quantiles 0.3 and 0.7) is 0.5 alone.
    assert bootstrap_interval([1.0, 0.0], confidence=0.95, seed=1) == (0.0, 1.0)
    assert bootstrap_interval([1.0, 0.0], confidence=0.40, seed=1) == (0.5, 0.5)


def test_wins_losses_ties_and_mean_difference() -> None:
    result = compare_paired([1.0, 0.5, 0.0, 1.0], [0.0, 0.5, 1.0, 0.5])
    assert (result.n, result.wins, result.losses, result.ties) == (4, 2, 1, 1)
    assert result.mean_difference == pytest.approx(0.125)
    assert result.low <= result.mean_difference <= result.high


def test_the_interval_is_reproducible_for_a_seed() -> None:
    differences = [1.0, 0.0, -1.0, 0.5, 0.0, 1.0, 0.0]
    assert bootstrap_interval(differences, seed=7) == bootstrap_interval(differences, seed=7)


def test_no_item_gives_no_interval() -> None:
    low, high = bootstrap_interval([])
    assert math.isnan(low) and math.isnan(high)


def test_unpaired_samples_are_refused() -> None:
    with pytest.raises(ValueError, match="same number"):
        compare_paired([1.0], [1.0, 0.0])


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5])
def test_confidence_must_be_a_share(confidence: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_interval([1.0], confidence=confidence)
