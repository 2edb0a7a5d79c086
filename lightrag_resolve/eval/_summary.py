"""From per-item records to the numbers a report shows, per arm and per turn class.

Nothing here pools the turn classes into one number alone (contract §10): each
class gets its rows, and the ``all`` rows sit beside them. An item's score in
an arm is its hit rate over the runs it has; ``raw`` is the arm every other
one is compared with, item by item.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from ._first_k import FirstKRow, first_k_row
from ._items import TURN_CLASSES, Item
from ._results import Record
from ._stats import DEFAULT_RESAMPLES, PairedComparison, compare_paired

__all__ = ["ALL_CLASSES", "AnswerRow", "ArmRow", "DecisionRow", "Summary", "summarize"]

ALL_CLASSES = "all"


@dataclass(frozen=True, kw_only=True)
class _ClassRow:
    """One arm on one turn class: its hit rate, per run, and paired with ``raw`` item by item."""

    arm: str
    turn_class: str
    items: int
    hit_rate: float
    run_hit_rates: tuple[float, ...]
    versus_raw: PairedComparison | None


@dataclass(frozen=True, kw_only=True)
class ArmRow(_ClassRow):
    """One arm on one turn class. Per-turn costs are means over the arm's records."""

    recall: float | None
    ndcg: float | None
    llm_calls: float
    prompt_tokens: float
    latency_ms: float
    errors: int
    undecided: int
    outcomes: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class AnswerRow(_ClassRow):
    """One arm's answers on one turn class (``--answers``), over the records that were answered.

    ``hit_rate``: the mean over items of the share of runs whose answer
    contained every ``must_contain`` string; ``versus_raw`` pairs it with
    ``raw``'s answers item by item. ``context_rate`` is the same test on the
    retrieved context (what retrieval hits suggest), ``answer_context_rate`` on
    the smaller context the answer writer read. Costs are per answer.
    """

    context_rate: float | None
    answer_context_rate: float | None
    answer_ms: float
    prompt_tokens: float
    errors: int


@dataclass(frozen=True, kw_only=True)
class DecisionRow:
    """The reference check against the items' ``expect``, for the ``resolve`` arm."""

    turn_class: str
    checks: int
    correct: int
    confusion: dict[str, int]

    @property
    def accuracy(self) -> float:
        return self.correct / self.checks if self.checks else float("nan")


@dataclass(frozen=True, kw_only=True)
class Summary:
    """Every row of a report, and what they were computed over."""

    arms: tuple[str, ...]
    turn_classes: tuple[str, ...]
    runs: int
    rows: tuple[ArmRow, ...]
    decisions: tuple[DecisionRow, ...]
    confidence: float
    answers: tuple[AnswerRow, ...] = ()
    first_k: tuple[FirstKRow, ...] = ()
    """Hit@k and the relevant documents each arm loses and gains against ``raw`` among the first k."""

    def row(self, arm: str, turn_class: str) -> ArmRow | None:
        for row in self.rows:
            if row.arm == arm and row.turn_class == turn_class:
                return row
        return None

    def answer_row(self, arm: str, turn_class: str) -> AnswerRow | None:
        for row in self.answers:
            if row.arm == arm and row.turn_class == turn_class:
                return row
        return None

    def first_k_row(self, arm: str, turn_class: str) -> FirstKRow | None:
        for row in self.first_k:
            if row.arm == arm and row.turn_class == turn_class:
                return row
        return None


def _score(record: Record) -> float:
    return 1.0 if record.hit else 0.0


def _mean_or_none(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return fmean(present) if present else None


def _item_scores(records: Sequence[Record], score: Callable[[Record], float] = _score) -> dict[str, float]:
    by_item: dict[str, list[float]] = defaultdict(list)
    for record in records:
        by_item[record.item].append(score(record))
    return {item: fmean(scores) for item, scores in by_item.items()}


def _answer_score(record: Record) -> float:
    return 1.0 if record.answer_hit else 0.0


def _rate(values: Iterable[bool | None]) -> float | None:
    """The share of true among the values that are not ``None``; ``None`` when none is."""
    present = [1.0 if value else 0.0 for value in values if value is not None]
    return fmean(present) if present else None


def _scored(
    records: Sequence[Record], score: Callable[[Record], float], raw: dict[str, float] | None, *,
    runs: int, confidence: float, resamples: int, seed: int,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Each item's mean ``score``, and the row's hit rate, per-run rates and paired comparison with ``raw``."""
    scores = _item_scores(records, score)
    per_run = [[score(r) for r in records if r.run == run] for run in range(runs)]
    comparison = None
    if raw is not None:
        paired = sorted(item for item in scores if item in raw)
        comparison = compare_paired(
            [scores[item] for item in paired], [raw[item] for item in paired],
            confidence=confidence, resamples=resamples, seed=seed,
        )
    return scores, {
        "hit_rate": fmean(scores.values()) if scores else float("nan"),
        "run_hit_rates": tuple(fmean(hits) for hits in per_run if hits),
        "versus_raw": comparison,
    }


def _answer_row(
    arm: str, turn_class: str, records: Sequence[Record], raw: dict[str, float] | None, *,
    runs: int, confidence: float, resamples: int, seed: int,
) -> AnswerRow:
    scores, rates = _scored(
        records, _answer_score, raw, runs=runs, confidence=confidence, resamples=resamples, seed=seed
    )
    return AnswerRow(
        arm=arm,
        turn_class=turn_class,
        items=len(scores),
        **rates,
        context_rate=_rate(r.contains for r in records),
        answer_context_rate=_rate(r.answer_contains for r in records),
        answer_ms=fmean(r.answer_ms for r in records) if records else 0.0,
        prompt_tokens=fmean(r.answer_prompt_tokens for r in records) if records else 0.0,
        errors=sum(1 for r in records if r.answer_error),
    )


def _arm_row(
    arm: str, turn_class: str, records: Sequence[Record], raw: dict[str, float] | None, *,
    runs: int, confidence: float, resamples: int, seed: int,
) -> ArmRow:
    scores, rates = _scored(records, _score, raw, runs=runs, confidence=confidence, resamples=resamples, seed=seed)
    return ArmRow(
        arm=arm,
        turn_class=turn_class,
        items=len(scores),
        **rates,
        recall=_mean_or_none(r.recall for r in records),
        ndcg=_mean_or_none(r.ndcg for r in records),
        llm_calls=fmean(r.llm_calls for r in records) if records else 0.0,
        prompt_tokens=fmean(r.prompt_tokens for r in records) if records else 0.0,
        latency_ms=fmean(r.latency_ms for r in records) if records else 0.0,
        errors=sum(1 for r in records if r.error),
        undecided=sum(1 for r in records if r.hit is None),
        outcomes=dict(Counter(r.outcome for r in records)),
    )


def _decision_row(turn_class: str, records: Sequence[Record], items: dict[str, Item]) -> DecisionRow | None:
    checked = [r for r in records if r.arm == "resolve" and r.decision_correct is not None]
    if not checked:
        return None
    confusion: Counter[str] = Counter()
    for record in checked:
        got = (record.resolution or {}).get("decision") or "none"
        confusion[f"{items[record.item].expect_decision}->{got}"] += 1
    return DecisionRow(
        turn_class=turn_class,
        checks=len(checked),
        correct=sum(1 for r in checked if r.decision_correct),
        confusion=dict(sorted(confusion.items())),
    )


def summarize(
    records: Iterable[Record],
    items: Sequence[Item],
    arms: Sequence[str],
    *,
    runs: int,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    k: int = 5,
) -> Summary:
    """Rows per arm × turn class (and ``all``), over the records of ``items`` and ``arms`` only.

    ``k`` is the cut-off of the first-k rows (hit@k, relevant documents lost and gained against ``raw``).
    """
    by_id = {item.id: item for item in items}
    relevant = {item.id: item.relevant for item in items}
    wanted = [r for r in records if r.item in by_id and r.arm in arms and r.run < runs]
    present = {r.turn_class for r in wanted}
    classes = tuple(c for c in TURN_CLASSES if c in present) + (ALL_CLASSES,)
    rows: list[ArmRow] = []
    decisions: list[DecisionRow] = []
    answers: list[AnswerRow] = []
    first_k: list[FirstKRow] = []
    for turn_class in classes:
        in_class = [r for r in wanted if turn_class == ALL_CLASSES or r.turn_class == turn_class]
        raw_records = [r for r in in_class if r.arm == "raw"]
        raw_scores = _item_scores(raw_records) if raw_records else None
        raw_answered = [r for r in raw_records if r.answered]
        raw_answers = _item_scores(raw_answered, _answer_score) if raw_answered else None
        for arm in arms:
            arm_records = [r for r in in_class if r.arm == arm]
            if not arm_records:
                continue
            baseline = None if arm == "raw" else raw_scores
            rows.append(_arm_row(arm, turn_class, arm_records, baseline, runs=runs,
                                 confidence=confidence, resamples=resamples, seed=seed))
            top = first_k_row(arm, turn_class, arm_records, raw_records, relevant, k)
            if top is not None:
                first_k.append(top)
            answered = [r for r in arm_records if r.answered]
            if answered:
                answers.append(_answer_row(arm, turn_class, answered, None if arm == "raw" else raw_answers,
                                           runs=runs, confidence=confidence, resamples=resamples, seed=seed))
        decision = _decision_row(turn_class, in_class, by_id)
        if decision is not None:
            decisions.append(decision)
    return Summary(arms=tuple(arms), turn_classes=classes, runs=runs, rows=tuple(rows),
                   decisions=tuple(decisions), confidence=confidence, answers=tuple(answers),
                   first_k=tuple(first_k))
