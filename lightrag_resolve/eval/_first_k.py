"""What an arm changes among the first k documents against ``raw``: the relevant ones it loses and gains.

Hit@k counts an item as found when any relevant document is among the first
k, so an arm that keeps one of the two relevant documents ``raw`` found scores
what ``raw`` scores and hides the one it lost: after two products, an
ambiguous "How much does it cost?" searched as written found both price
pages; resolved to one product, it kept one. These rows count documents
instead, paired per item and run: ``lost`` are relevant documents among
``raw``'s first k that are not among the arm's, ``gained`` the reverse.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import fmean

from ._results import Record

__all__ = ["FirstKRow", "first_k_row", "relevant_lost_and_gained"]


def relevant_lost_and_gained(
    raw: Sequence[str], arm: Sequence[str], relevant: Collection[str], k: int
) -> tuple[int, int]:
    """``(lost, gained)``: relevant documents in ``raw``'s first ``k`` and not in ``arm``'s, and the reverse."""
    wanted = set(relevant)
    in_raw = wanted & set(raw[:k])
    in_arm = wanted & set(arm[:k])
    return len(in_raw - in_arm), len(in_arm - in_raw)


@dataclass(frozen=True, kw_only=True)
class FirstKRow:
    """One arm on one turn class, among the first ``k`` documents of each record.

    ``hit_rate`` is hit@k: the mean over items of the share of runs with a
    relevant document among the first ``k``. The counts are sums over the
    item × run pairs the arm shares with ``raw`` (``None`` on ``raw``'s own
    row): ``raw_relevant`` the relevant documents ``raw`` had there, ``lost``
    those the arm's first ``k`` lacks, ``gained`` those only the arm has, and
    ``items_losing`` the items with a loss in some run.
    """

    arm: str
    turn_class: str
    k: int
    items: int
    hit_rate: float
    pairs: int | None
    raw_relevant: int | None
    lost: int | None
    gained: int | None
    items_losing: int | None


def _hit_rate(records: Sequence[Record], relevant: Mapping[str, Collection[str]], k: int) -> float:
    by_item: dict[str, list[float]] = defaultdict(list)
    for record in records:
        found = set(relevant[record.item]) & set(record.retrieved[:k])
        by_item[record.item].append(1.0 if found else 0.0)
    return fmean(fmean(hits) for hits in by_item.values()) if by_item else float("nan")


def first_k_row(
    arm: str,
    turn_class: str,
    records: Sequence[Record],
    raw_records: Sequence[Record],
    relevant: Mapping[str, Collection[str]],
    k: int,
) -> FirstKRow | None:
    """The row of ``arm``'s ``records`` against ``raw_records``, over items with ``relevant`` documents.

    ``None`` when no record belongs to such an item. A record keeps its first
    10 documents, so a ``k`` above 10 reads 10.
    """
    judged = [r for r in records if relevant.get(r.item)]
    if not judged:
        return None
    row = FirstKRow(
        arm=arm,
        turn_class=turn_class,
        k=k,
        items=len({r.item for r in judged}),
        hit_rate=_hit_rate(judged, relevant, k),
        pairs=None,
        raw_relevant=None,
        lost=None,
        gained=None,
        items_losing=None,
    )
    if arm == "raw":
        return row
    raw_by_key = {(r.item, r.run): r for r in raw_records}
    pairs = raw_relevant = lost = gained = 0
    losing: set[str] = set()
    for record in judged:
        raw = raw_by_key.get((record.item, record.run))
        if raw is None:
            continue
        dropped, added = relevant_lost_and_gained(raw.retrieved, record.retrieved, relevant[record.item], k)
        pairs += 1
        raw_relevant += len(set(relevant[record.item]) & set(raw.retrieved[:k]))
        lost += dropped
        gained += added
        if dropped:
            losing.add(record.item)
    return replace(row, pairs=pairs, raw_relevant=raw_relevant, lost=lost, gained=gained, items_losing=len(losing))
