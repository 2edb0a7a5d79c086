"""Hit@k per arm and turn class, and what fusing the raw ranking back in would do, from an evaluation's records.

The evaluation's own ``hit`` counts a relevant document anywhere in what
LightRAG retrieved (20 chunks and more), which on a small corpus is near the
ceiling for every arm. What a visitor feels is the top of the ranking, so this
reads the ``retrieved`` documents that ``results.json`` keeps (in rank order)
and prints, per turn class, hit@k (a relevant document among the first k) for
every arm, paired against ``raw`` (wins/losses), and two fusions of the
``resolve`` ranking with the ``raw`` one:

* ``rrf``: weighted reciprocal-rank fusion (resolved weight 2, raw 1, k=60);
* ``fill``: the resolved ranking first, raw documents after it (only matters
  where the resolved ranking has fewer than k documents).

Only items with ``relevant`` documents count. Both runs are pooled per item
(an item's hit@k is its mean over runs). Usage::

    python benchmarks/rank_report.py benchmarks/results/eval-2026-12-01/mtrag --items PATH/turns.jsonl --k 3
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

CLASSES = ("first_turn", "short_reply", "follow_up", "reference")


def rrf(rankings: Sequence[tuple[Sequence[str], float]], k: int = 60) -> list[str]:
    """Weighted reciprocal-rank fusion: each document scores sum(weight / (k + rank))."""
    scores: dict[str, float] = defaultdict(float)
    for ranking, weight in rankings:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] += weight / (k + rank)
    return sorted(scores, key=lambda doc: (-scores[doc], doc))


def fill(first: Sequence[str], then: Sequence[str]) -> list[str]:
    """``first``, then the documents of ``then`` it lacks."""
    return [*first, *(doc for doc in then if doc not in first)]


def hit_at(ranking: Sequence[str], relevant: set[str], k: int) -> float:
    return 1.0 if relevant & set(ranking[:k]) else 0.0


def load_records(folder: Path) -> list[dict]:
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    records = data["records"]
    return records if isinstance(records, list) else list(records.values())


def load_relevant(items: Path) -> dict[str, set[str]]:
    rows = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["id"]: set(row.get("relevant") or ()) for row in rows}


def report(folder: Path, items: Path, k: int) -> str:
    """The Markdown table: per class, per arm (and the two fusions), hit@k and W/L against raw."""
    relevant = load_relevant(items)
    by_item: dict[str, dict[str, list[list[str]]]] = defaultdict(lambda: defaultdict(list))
    classes: dict[str, str] = {}
    for record in load_records(folder):
        by_item[record["item"]][record["arm"]].append(list(record.get("retrieved") or []))
        classes[record["item"]] = record["turn_class"]

    def mean_hit(item: str, rankings: Sequence[Sequence[str]]) -> float:
        return sum(hit_at(ranking, relevant[item], k) for ranking in rankings) / len(rankings)

    lines = [f"| class | n | arm | hit@{k} | W/L vs raw |", "|---|---|---|---|---|"]
    for turn_class in (*CLASSES, "all"):
        items_here = [
            item
            for item, runs in by_item.items()
            if relevant.get(item) and "raw" in runs and (turn_class == "all" or classes[item] == turn_class)
        ]
        if not items_here:
            continue
        arms: dict[str, dict[str, float]] = defaultdict(dict)
        for item in items_here:
            runs = by_item[item]
            for arm, rankings in runs.items():
                arms[arm][item] = mean_hit(item, rankings)
            if "resolve" in runs:
                pairs = list(zip(runs["resolve"], runs["raw"]))
                arms["resolve+rrf"][item] = mean_hit(item, [rrf([(a, 2.0), (b, 1.0)]) for a, b in pairs])
                arms["resolve+fill"][item] = mean_hit(item, [fill(a, b) for a, b in pairs])
        for arm, scores in arms.items():
            paired = [item for item in items_here if item in scores]
            mean = sum(scores[item] for item in paired) / len(paired)
            wins = sum(scores[item] > arms["raw"][item] for item in paired)
            losses = sum(scores[item] < arms["raw"][item] for item in paired)
            lines.append(f"| {turn_class} | {len(paired)} | {arm} | {mean:.2f} | {wins}/{losses} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="an evaluation's output folder (holds results.json)")
    parser.add_argument(
        "--items", type=Path, required=True, help="the dataset's items file (items.jsonl or turns.jsonl)"
    )
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"# Hit@{args.k}: {args.folder}\n")
    print(report(args.folder, args.items, args.k), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
