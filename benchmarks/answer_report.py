"""The answers of an evaluation run with ``--answers``: resolved against raw by what the resolution did, and two runs' answers paired.

The harness's report gives, per turn class, how often each arm's answer
contains the needed fact. This reads ``results.json`` and splits the
``resolve`` arm's comparison with ``raw`` by what the resolution did to the
turn (``changed``: retrieval searched something other than the visitor's
words; ``unchanged``), and by the items' expected decision (``keep``-type
turns: the reference check should leave them as they are). Beside each
answer rate stand the context rates: the share of turns whose retrieved
context held the fact (what retrieval hits suggest) and whose answer context
(the smaller budget the answer writer read) held it.

``--against FOLDER`` pairs the ``resolve`` arm's answers of this folder with
those of another run of the same items on the turns this one changed, for
instance the same evaluation with ``--resolver-setting
answer_on_resolved_text=true`` (the answer writer reading the retrieved text,
as before contract §5.11). ``--losses`` lists the turns where the ``resolve``
answer missed the fact more often than the other side, with both answers.
An item's score is its mean over the runs it has, as in the harness. Usage::

    python benchmarks/answer_report.py FOLDER/sample --items lightrag_resolve/sample/items.jsonl
    python benchmarks/answer_report.py FOLDER/sample --items lightrag_resolve/sample/items.jsonl \\
        --against OTHER/sample --against-label "answer on the resolved text" --losses
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

CLASSES = ("first_turn", "short_reply", "follow_up", "reference")


def load_answered(folder: Path) -> list[dict[str, Any]]:
    """The records of ``folder/results.json`` that went through the answer step."""
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return [r for r in data["records"] if r.get("answer") is not None or r.get("answer_error") is not None]


def load_items(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["id"]: row for row in rows}


def by_item(records: Iterable[Mapping[str, Any]], arm: str) -> dict[str, list[Mapping[str, Any]]]:
    grouped: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        if record["arm"] == arm:
            grouped[record["item"]].append(record)
    return dict(grouped)


def score(records: Sequence[Mapping[str, Any]], field: str) -> float | None:
    """The mean of a yes/no field over an item's runs (``None`` when no run has it)."""
    values = [1.0 if record.get(field) else 0.0 for record in records if record.get(field) is not None]
    return fmean(values) if values else None


@dataclass(frozen=True)
class Pairing:
    """Two sides' answer rates over the same items, with wins, losses and ties of the first side."""

    items: int
    first: float
    second: float
    wins: int
    losses: int
    ties: int


def pair(first: Mapping[str, float], second: Mapping[str, float], ids: Iterable[str]) -> Pairing | None:
    shared = [item for item in ids if item in first and item in second]
    if not shared:
        return None
    differences = [first[item] - second[item] for item in shared]
    return Pairing(
        items=len(shared),
        first=fmean(first[item] for item in shared),
        second=fmean(second[item] for item in shared),
        wins=sum(1 for d in differences if d > 0),
        losses=sum(1 for d in differences if d < 0),
        ties=sum(1 for d in differences if d == 0),
    )


def _rate(grouped: Mapping[str, Sequence[Mapping[str, Any]]], field: str, ids: Iterable[str]) -> str:
    values = [value for item in ids if item in grouped for value in [score(grouped[item], field)] if value is not None]
    return f"{fmean(values):.2f}" if values else "–"


def changed(records: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the resolution changed what retrieval searched (the first run's record decides)."""
    first = min(records, key=lambda record: record["run"])
    return bool((first.get("resolution") or {}).get("changed"))


def groups(
    resolved: Mapping[str, Sequence[Mapping[str, Any]]], items: Mapping[str, Mapping[str, Any]]
) -> list[tuple[str, list[str]]]:
    """The rows of the split table: per class, all, changed and unchanged turns; then keep-type turns, then all."""
    rows: list[tuple[str, list[str]]] = []
    for turn_class in (*CLASSES, "all"):
        ids = [
            item for item, records in resolved.items() if turn_class == "all" or records[0]["turn_class"] == turn_class
        ]
        if not ids:
            continue
        rows.append((f"{turn_class}", ids))
        rows.append((f"{turn_class}, changed", [item for item in ids if changed(resolved[item])]))
        rows.append((f"{turn_class}, unchanged", [item for item in ids if not changed(resolved[item])]))
        if turn_class == "all":
            keep = [item for item in ids if ((items.get(item) or {}).get("expect") or {}).get("decision") == "keep"]
            rows.append(("keep-type (expect keep)", keep))
    return [(label, ids) for label, ids in rows if ids]


def split_table(records: Sequence[Mapping[str, Any]], items: Mapping[str, Mapping[str, Any]]) -> list[str]:
    raw, resolved = by_item(records, "raw"), by_item(records, "resolve")
    raw_scores = {item: s for item, rs in raw.items() if (s := score(rs, "answer_hit")) is not None}
    resolve_scores = {item: s for item, rs in resolved.items() if (s := score(rs, "answer_hit")) is not None}
    lines = [
        "| turns | n | raw answer | resolve answer | W/L/T | raw context | resolve context "
        "| raw answer's context | resolve answer's context |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for label, ids in groups(resolved, items):
        paired = pair(resolve_scores, raw_scores, ids)
        if paired is None:
            continue
        lines.append(
            f"| {label} | {paired.items} | {paired.second:.2f} | {paired.first:.2f} "
            f"| {paired.wins}/{paired.losses}/{paired.ties} | {_rate(raw, 'contains', ids)} "
            f"| {_rate(resolved, 'contains', ids)} | {_rate(raw, 'answer_contains', ids)} "
            f"| {_rate(resolved, 'answer_contains', ids)} |"
        )
    return lines


def against_table(records: Sequence[Mapping[str, Any]], other: Sequence[Mapping[str, Any]], label: str) -> list[str]:
    """This run's ``resolve`` answers against ``other``'s on the turns this run changed, per class."""
    mine, theirs = by_item(records, "resolve"), by_item(other, "resolve")
    mine_scores = {item: s for item, rs in mine.items() if (s := score(rs, "answer_hit")) is not None}
    their_scores = {item: s for item, rs in theirs.items() if (s := score(rs, "answer_hit")) is not None}
    lines = [
        f"| changed turns | n | this run | {label} | W/L/T (this run) | identical answers |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for turn_class in (*CLASSES, "all"):
        ids = [
            item
            for item, rs in mine.items()
            if changed(rs) and (turn_class == "all" or rs[0]["turn_class"] == turn_class)
        ]
        paired = pair(mine_scores, their_scores, ids)
        if paired is None:
            continue
        same = sum(1 for item in ids if item in theirs and _answers(mine[item]) == _answers(theirs[item]))
        lines.append(
            f"| {turn_class} | {paired.items} | {paired.first:.2f} | {paired.second:.2f} "
            f"| {paired.wins}/{paired.losses}/{paired.ties} | {same} |"
        )
    return lines


def _answers(records: Sequence[Mapping[str, Any]]) -> list[str | None]:
    return [record.get("answer") for record in sorted(records, key=lambda record: record["run"])]


def _quote(text: str | None, width: int) -> str:
    if text is None:
        return "(no answer)"
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def losses(
    first: Mapping[str, Sequence[Mapping[str, Any]]],
    second: Mapping[str, Sequence[Mapping[str, Any]]],
    names: tuple[str, str],
    *,
    keep: Callable[[str], bool],
    width: int,
) -> list[str]:
    """The turns where ``first`` contained the fact less often than ``second``, with both first-run answers."""
    lines: list[str] = []
    for item in sorted(first):
        if item not in second or not keep(item):
            continue
        mine, theirs = score(first[item], "answer_hit"), score(second[item], "answer_hit")
        if mine is None or theirs is None or mine >= theirs:
            continue
        record = min(first[item], key=lambda r: r["run"])
        other = min(second[item], key=lambda r: r["run"])
        resolution = record.get("resolution") or {}
        lines += [
            f"- `{item}` ({record['turn_class']}): “{record['text']}” searched as “{_quote(resolution.get('query'), width)}”",
            f"  - {names[0]} ({mine:.1f}): {_quote(record.get('answer') or record.get('answer_error'), width)}",
            f"  - {names[1]} ({theirs:.1f}): {_quote(other.get('answer') or other.get('answer_error'), width)}",
        ]
    return lines or ["- none"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a dataset folder of an evaluation run with --answers")
    parser.add_argument(
        "--items", type=Path, required=True, help="the dataset's items file (for the expected decisions)"
    )
    parser.add_argument("--against", type=Path, help="another run's dataset folder: its resolve answers, paired")
    parser.add_argument("--against-label", default="other run", help="what to call the other run in the table")
    parser.add_argument("--losses", action="store_true", help="list the turns where resolve's answer lost the fact")
    parser.add_argument("--width", type=int, default=240, help="characters quoted of an answer (default: 240)")
    args = parser.parse_args(argv)
    records = load_answered(args.folder)
    if not records:
        raise SystemExit(f"{args.folder}: no answered record (run the evaluation with --answers)")
    items = load_items(args.items)
    print(f"## resolve against raw, by what the resolution did ({args.folder})\n")
    print("\n".join(split_table(records, items)) + "\n")
    resolved = by_item(records, "resolve")
    if args.losses:
        print("### Turns where resolve's answer held the fact less often than raw's\n")
        print(
            "\n".join(
                losses(resolved, by_item(records, "raw"), ("resolve", "raw"), keep=lambda _: True, width=args.width)
            )
            + "\n"
        )
    if args.against is not None:
        other = load_answered(args.against)
        print(f"## resolve against {args.against_label} ({args.against}), on the turns this run changed\n")
        print("\n".join(against_table(records, other, args.against_label)) + "\n")
        if args.losses:
            theirs = by_item(other, "resolve")
            print(f"### Changed turns where this run's answer held the fact less often than {args.against_label}\n")
            print(
                "\n".join(
                    losses(
                        resolved,
                        theirs,
                        ("this run", args.against_label),
                        keep=lambda item: changed(resolved[item]),
                        width=args.width,
                    )
                )
                + "\n"
            )
            print(f"### Changed turns where {args.against_label} held the fact less often than this run\n")
            print(
                "\n".join(
                    losses(
                        theirs,
                        resolved,
                        (args.against_label, "this run"),
                        keep=lambda item: item in resolved and changed(resolved[item]),
                        width=args.width,
                    )
                )
                + "\n"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
