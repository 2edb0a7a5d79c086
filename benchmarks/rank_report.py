"""Hit@k per arm and turn class, and what fusing the raw ranking back in would do, from an evaluation's records.

The evaluation's own ``hit`` counts a relevant document anywhere in what
LightRAG retrieved (20 chunks and more), which on a small corpus is near the
ceiling for every arm. What a visitor feels is the top of the ranking, so this
reads the ``retrieved`` documents that ``results.json`` keeps (in rank order)
and prints, per turn class, hit@k (a relevant document among the first k) for
every arm, paired against ``raw`` (wins/losses), beside it how many relevant
documents among ``raw``'s first k each arm drops and how many it adds (summed
over item × run pairs: hit@k hides an arm that keeps one of two relevant
documents), and two fusions of the ``resolve`` ranking with the ``raw`` one:

* ``rrf``: weighted reciprocal-rank fusion (resolved weight 2, raw 1, k=60);
* ``fill``: the resolved ranking first, raw documents after it (only matters
  where the resolved ranking has fewer than k documents).

Only items with ``relevant`` documents count. Both runs are pooled per item
(an item's hit@k is its mean over runs). ``--seeded-split N`` prints the
table three times: for the seeded N items that ``eval_report.py``'s
``--mtrag-limit N`` (or ``--limit N``) would pick from the folder's items, for
the others, and for all; so a design set whose misses were read and a check
set whose misses were not are reported apart. ``--by-resolution`` adds a
table of ``raw`` against ``resolve`` by what the resolution did to the turn
(nothing, a name added, a restatement added, a short reply's meaning, a short
reply's question carried without a meaning), read from the ``resolve`` arm's
first-run record. Usage::

    python benchmarks/rank_report.py benchmarks/results/eval/mtrag --items PATH/turns.jsonl --k 3
    python benchmarks/rank_report.py FOLDER/mtrag --items PATH/turns.jsonl --seeded-split 150 --digits 3
    python benchmarks/rank_report.py FOLDER/mtrag --items PATH/turns.jsonl --by-resolution
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from pathlib import Path

from lightrag_resolve.eval import relevant_lost_and_gained, select_items

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
    """Each item's relevant documents, in the items file's order."""
    rows = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["id"]: set(row.get("relevant") or ()) for row in rows}


def items_by_language(items: Path) -> dict[str, set[str]]:
    """The ids of an items file by their ``lang`` field (``?`` where an item has none)."""
    rows = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines() if line.strip()]
    languages: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        languages[str(row.get("lang") or "?")].add(str(row.get("id") or row.get("item")))
    return dict(languages)


def seeded_split(folder: Path, items: Path, count: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """The folder's items (in the items file's order) as the seeded ``count`` the harness's limit picks, and the rest."""
    present = {record["item"] for record in load_records(folder)}
    ordered = [item for item in load_relevant(items) if item in present]
    chosen = set(select_items(ordered, count, seed))
    return [item for item in ordered if item in chosen], [item for item in ordered if item not in chosen]


RESOLUTION_KINDS = (
    "unchanged",
    "a name added",
    "a restatement added",
    "a short reply's meaning",
    "a short reply's question carried",
)


def resolution_kind(resolution: dict | None) -> str:
    """What a recorded ``Resolution`` did to the turn: one of ``RESOLUTION_KINDS``.

    A carried short reply (the model's meaning missing, the question kept) is
    ``carry_reason`` in new records; records written before it existed show
    it as a ``fallback_reason`` on a changed short reply.
    """
    if not resolution or not resolution.get("changed"):
        return "unchanged"
    if resolution.get("path") != "reference":
        carried = resolution.get("carry_reason") or resolution.get("fallback_reason")
        return "a short reply's question carried" if carried else "a short reply's meaning"
    return "a restatement added" if resolution.get("restatement") else "a name added"


def by_resolution(folder: Path, items: Path, k: int, *, digits: int = 2) -> str:
    """The Markdown table of ``raw`` and ``resolve`` hit@k (W/L) by ``resolution_kind`` of each item."""
    relevant = load_relevant(items)
    rankings: dict[str, dict[str, list[list[str]]]] = defaultdict(lambda: defaultdict(list))
    kinds: dict[str, str] = {}
    for record in load_records(folder):
        rankings[record["item"]][record["arm"]].append(list(record.get("retrieved") or []))
        if record["arm"] == "resolve" and record.get("run", 0) == 0:
            kinds[record["item"]] = resolution_kind(record.get("resolution"))
    lines = [f"| the resolution | n | raw hit@{k} | resolve hit@{k} | W/L vs raw |", "|---|---|---|---|---|"]
    for kind in RESOLUTION_KINDS:
        here = [
            item for item, found in kinds.items() if found == kind and relevant.get(item) and "raw" in rankings[item]
        ]
        if not here:
            continue
        scores = {
            arm: {
                item: sum(hit_at(r, relevant[item], k) for r in rankings[item][arm]) / len(rankings[item][arm])
                for item in here
            }
            for arm in ("raw", "resolve")
        }
        wins = sum(scores["resolve"][item] > scores["raw"][item] for item in here)
        losses = sum(scores["resolve"][item] < scores["raw"][item] for item in here)
        raw, resolve = (sum(scores[arm].values()) / len(here) for arm in ("raw", "resolve"))
        lines.append(f"| {kind} | {len(here)} | {raw:.{digits}f} | {resolve:.{digits}f} | {wins}/{losses} |")
    return "\n".join(lines) + "\n"


def rankings_by_run(records: Sequence[dict]) -> dict[str, dict[str, dict[int, list[str]]]]:
    """Each item's rankings per arm and run, the two fusions of ``resolve`` with ``raw`` included (per shared run)."""
    ranked: dict[str, dict[str, dict[int, list[str]]]] = defaultdict(lambda: defaultdict(dict))
    for record in records:
        ranked[record["item"]][record["arm"]][int(record.get("run", 0))] = list(record.get("retrieved") or [])
    for runs in ranked.values():
        if "resolve" in runs and "raw" in runs:
            shared = sorted(set(runs["resolve"]) & set(runs["raw"]))
            runs["resolve+rrf"] = {r: rrf([(runs["resolve"][r], 2.0), (runs["raw"][r], 1.0)]) for r in shared}
            runs["resolve+fill"] = {r: fill(runs["resolve"][r], runs["raw"][r]) for r in shared}
    return ranked


def lost_and_gained(
    ranked: dict[str, dict[str, dict[int, list[str]]]], arm: str, items: Collection[str], relevant: dict, k: int
) -> tuple[int, int]:
    """Relevant documents in ``raw``'s first k that ``arm``'s lacks, and the reverse, summed over item × run pairs."""
    lost = gained = 0
    for item in items:
        raw, mine = ranked[item].get("raw", {}), ranked[item].get(arm, {})
        for run in set(raw) & set(mine):
            dropped, added = relevant_lost_and_gained(raw[run], mine[run], relevant[item], k)
            lost, gained = lost + dropped, gained + added
    return lost, gained


def report(folder: Path, items: Path, k: int, *, only: Collection[str] | None = None, digits: int = 2) -> str:
    """The Markdown table: per class, per arm (and the two fusions), hit@k, W/L and relevant lost/gained against raw.

    ``only`` restricts it to those items; ``digits`` is the hit rate's decimals.
    """
    relevant = load_relevant(items)
    by_item: dict[str, dict[str, list[list[str]]]] = defaultdict(lambda: defaultdict(list))
    classes: dict[str, str] = {}
    records = load_records(folder)
    for record in records:
        by_item[record["item"]][record["arm"]].append(list(record.get("retrieved") or []))
        classes[record["item"]] = record["turn_class"]
    ranked = rankings_by_run(records)

    def mean_hit(item: str, rankings: Sequence[Sequence[str]]) -> float:
        return sum(hit_at(ranking, relevant[item], k) for ranking in rankings) / len(rankings)

    lines = [
        f"| class | n | arm | hit@{k} | W/L vs raw | relevant lost / gained vs raw, first {k} |",
        "|---|---|---|---|---|---|",
    ]
    for turn_class in (*CLASSES, "all"):
        items_here = [
            item
            for item, runs in by_item.items()
            if relevant.get(item)
            and "raw" in runs
            and (turn_class == "all" or classes[item] == turn_class)
            and (only is None or item in only)
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
            lost, gained = lost_and_gained(ranked, arm, paired, relevant, k)
            changed = "–" if arm == "raw" else f"{lost} / {gained}"
            lines.append(f"| {turn_class} | {len(paired)} | {arm} | {mean:.{digits}f} | {wins}/{losses} | {changed} |")
    return "\n".join(lines) + "\n"


def _decided(resolution: dict | None) -> str:
    """A recorded resolution in a few words: the decision and the name, or why the words went as written."""
    if not resolution:
        return "–"
    said = resolution.get("decision") or resolution.get("path") or "?"
    named = resolution.get("entity")
    return f"{said} {named}" if named else f"{said} ({resolution.get('fallback_reason') or 'changed'})"


def against(before: Path, after: Path, items: Path, k: int) -> str:
    """The turns whose first run's ``resolve`` decision or hit@k differs between two folders, paired by item.

    Answers why a class moved between two versions of the code: each row is
    one item, what each version decided and whether it hit.
    """
    relevant = load_relevant(items)

    def first_runs(folder: Path) -> dict[str, dict]:
        records = load_records(folder)
        return {r["item"]: r for r in records if r["arm"] == "resolve" and r["run"] == 0}

    old, new = first_runs(before), first_runs(after)
    lines = [f"| item | class | before | after | hit@{k} before → after |", "|---|---|---|---|---|"]
    for item in (item for item in relevant if item in old and item in new):
        o, n = old[item], new[item]
        hits = [int(hit_at(r["retrieved"], relevant[item], k)) for r in (o, n)]
        decided = [_decided(r.get("resolution")) for r in (o, n)]
        if hits[0] != hits[1] or decided[0] != decided[1]:
            lines.append(f"| {item} | {o['turn_class']} | {decided[0]} | {decided[1]} | {hits[0]} → {hits[1]} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="an evaluation's output folder (holds results.json)")
    parser.add_argument(
        "--items", type=Path, required=True, help="the dataset's items file (items.jsonl or turns.jsonl)"
    )
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--digits", type=int, default=2, help="decimals of the hit rate (default: 2)")
    parser.add_argument(
        "--seeded-split",
        type=int,
        metavar="N",
        help="also report the seeded N items a --limit N run picks, and the others, apart",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of --seeded-split (default: 0, the harness's)")
    parser.add_argument(
        "--by-resolution", action="store_true", help="also report raw against resolve by what the resolution did"
    )
    parser.add_argument(
        "--by-language", action="store_true", help="also report each language of the items file (its lang field) apart"
    )
    parser.add_argument(
        "--against", type=Path, metavar="FOLDER", help="also list the turns decided or hit otherwise in FOLDER (paired)"
    )
    args = parser.parse_args(argv)
    print(f"# Hit@{args.k}: {args.folder}\n")
    if args.seeded_split is not None:
        chosen, rest = seeded_split(args.folder, args.items, args.seeded_split, args.seed)
        for title, part in ((f"the seeded {len(chosen)}", chosen), (f"the other {len(rest)}", rest)):
            print(f"## {title}\n")
            print(report(args.folder, args.items, args.k, only=set(part), digits=args.digits))
        print(f"## all {len(chosen) + len(rest)}\n")
    if args.by_language:
        for language, part in sorted(items_by_language(args.items).items()):
            print(f"## {language}\n")
            print(report(args.folder, args.items, args.k, only=part, digits=args.digits))
        print("## all languages\n")
    print(report(args.folder, args.items, args.k, digits=args.digits), end="")
    if args.by_resolution:
        print("\n## by what the resolution did\n")
        print(by_resolution(args.folder, args.items, args.k, digits=args.digits), end="")
    if args.against is not None:
        print(f"\n## decided or hit otherwise than in {args.against}\n")
        print(against(args.against, args.folder, args.items, args.k), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
