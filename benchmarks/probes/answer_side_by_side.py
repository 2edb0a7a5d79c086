"""A blind side-by-side of answers: ``resolve`` against ``raw`` (or another run's ``resolve``) on changed turns.

``write`` reads an evaluation folder run with ``--answers`` and writes, into
``--out``, ``pairs.md``: a seeded choice of changed turns, each with its
conversation, the visitor's message, the fact the item needs, and the two
first-run answers as "A" and "B", sides drawn by a seeded coin, and nothing
that tells which arm wrote which (not the retrieval text, not the judge's
verdict). The key is written apart, to ``key.json``. Turns where one side
has no answer (LightRAG refused "B1" as too short) are left out, since an
empty side gives itself away; ``pairs.md`` says how many.

Read ``pairs.md`` before opening the key, and write one verdict a pair in a
file, a line each: ``3: A — names the B1 course`` (``A``, ``B`` or ``same``,
then why). ``tally`` reads those lines with the key and prints, per arm, how
many pairs it won. ``--against OTHER/sample`` sets another run's ``resolve``
answers (say, ``--resolver-setting answer_on_resolved_text=true``) against this
run's in place of ``raw``'s, on the turns both runs changed; the key calls that
side ``against``. Usage::

    python benchmarks/probes/answer_side_by_side.py write FOLDER/sample \\
        --items lightrag_resolve/sample/items.jsonl --out DIR --pairs 20 --seed 30
    python benchmarks/probes/answer_side_by_side.py write FOLDER/sample --against OTHER/sample \\
        --items lightrag_resolve/sample/items.jsonl --out DIR2 --pairs 20 --seed 31
    python benchmarks/probes/answer_side_by_side.py tally DIR/verdicts.md DIR/key.json
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SIDES = ("raw", "resolve")
AGAINST = "against"  # the other run's resolve answers, with --against
_VERDICT = re.compile(r"^\s*(?:[-*]\s*)?(?:pair\s*)?(\d+)\s*[:.)]\s*(A|B|same)\b\W*(.*)$", re.IGNORECASE)


def first_runs(folder: Path) -> dict[tuple[str, str], Mapping[str, Any]]:
    """Each (item, arm)'s answered record of the lowest run in ``folder/results.json``."""
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    chosen: dict[tuple[str, str], Mapping[str, Any]] = {}
    for record in data["records"]:
        if record.get("answer") is None and record.get("answer_error") is None:
            continue
        key = (record["item"], record["arm"])
        if key not in chosen or record["run"] < chosen[key]["run"]:
            chosen[key] = record
    return chosen


def against(
    records: Mapping[tuple[str, str], Mapping[str, Any]], other: Mapping[tuple[str, str], Mapping[str, Any]]
) -> dict[tuple[str, str], Mapping[str, Any]]:
    """``records``' resolve answers beside ``other``'s resolve answers as the ``against`` side (no raw side)."""
    paired: dict[tuple[str, str], Mapping[str, Any]] = {}
    for (item, arm), record in records.items():
        theirs = other.get((item, "resolve"))
        if arm == "resolve" and theirs is not None and (theirs.get("resolution") or {}).get("changed"):
            paired[(item, "resolve")] = record
            paired[(item, AGAINST)] = theirs
    return paired


def candidates(
    records: Mapping[tuple[str, str], Mapping[str, Any]], sides: Sequence[str] = SIDES
) -> tuple[list[str], int]:
    """Changed turns answered by both sides, in item order; and how many changed turns lack an answer on a side."""
    ids, one_sided = [], 0
    baseline = next(side for side in sides if side != "resolve")
    for (item, arm), record in sorted(records.items()):
        if arm != "resolve" or not (record.get("resolution") or {}).get("changed"):
            continue
        raw = records.get((item, baseline))
        if raw is None:
            continue
        if record.get("answer") is None or raw.get("answer") is None:
            one_sided += 1
            continue
        ids.append(item)
    return ids, one_sided


def _conversation(history: Sequence[Mapping[str, str]]) -> list[str]:
    lines = []
    for message in history:
        who = "Visitor" if message["role"] == "user" else "Assistant"
        lines.append(f"> **{who}:** {' '.join(message['content'].split())}")
        lines.append(">")
    return lines


def _answer(text: str) -> list[str]:
    return [f"> {line}" if line.strip() else ">" for line in text.strip().splitlines()]


def write(
    folder: Path, items_path: Path, out: Path, *, pairs: int, seed: int, other: Path | None = None
) -> dict[str, dict[str, str]]:
    """Write ``pairs.md`` and ``key.json`` into ``out``; returns the key (pair number → item, A's arm, B's arm).

    ``other``: another run's dataset folder, whose resolve answers take raw's side.
    """
    items = {
        row["id"]: row
        for row in (json.loads(line) for line in items_path.read_text(encoding="utf-8").splitlines() if line.strip())
    }
    records = first_runs(folder)
    sides = SIDES
    if other is not None:
        records, sides = against(records, first_runs(other)), (AGAINST, "resolve")
    ids, one_sided = candidates(records, sides)
    if not ids:
        raise SystemExit(f"{folder}: no changed turn answered on both sides (run it with --answers)")
    rng = random.Random(seed)
    chosen = rng.sample(ids, min(pairs, len(ids)))
    key: dict[str, dict[str, str]] = {}
    lines = [
        "# Blind side-by-side: two answers to the same turn",
        "",
        f"{len(chosen)} turns drawn (seed {seed}) from the {len(ids)} turns whose retrieval the resolution changed "
        f"{'in both runs ' if other is not None else ''}"
        f"and that both sides answered ({one_sided} more had an answer on one side only and are left out). "
        "The sides are drawn per pair. Write one line a pair, `N: A|B|same — why`, before opening the key.",
        "",
    ]
    for number, item in enumerate(chosen, start=1):
        a_arm, b_arm = sides if rng.random() < 0.5 else tuple(reversed(sides))
        key[str(number)] = {"item": item, "A": a_arm, "B": b_arm}
        row = items[item]
        lines += [f"## Pair {number} ({records[(item, 'resolve')]['turn_class']}, {row.get('lang') or '?'})", ""]
        lines += _conversation(row.get("history") or [])
        lines += [f"> **Visitor:** {row['query']}", "", f"Needed fact: {', '.join(row.get('must_contain') or [])}", ""]
        for side, arm in (("A", a_arm), ("B", b_arm)):
            lines += [f"**Answer {side}**", "", *_answer(str(records[(item, arm)]["answer"])), ""]
    out.mkdir(parents=True, exist_ok=True)
    (out / "pairs.md").write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    return key


def read_verdicts(text: str) -> dict[str, tuple[str, str]]:
    """``N: A|B|same — why`` lines as pair number → (verdict, why); other lines are ignored."""
    verdicts = {}
    for line in text.splitlines():
        match = _VERDICT.match(line)
        if match:
            verdict = match.group(2)
            verdicts[match.group(1)] = (
                "same" if verdict.lower() == "same" else verdict.upper(),
                match.group(3).strip(),
            )
    return verdicts


def tally(verdicts: Mapping[str, tuple[str, str]], key: Mapping[str, Mapping[str, str]]) -> Counter[str]:
    """Pairs won per arm (``same`` for a draw); raises on a verdict for no pair or a pair without a verdict."""
    if set(verdicts) != set(key):
        raise SystemExit(f"verdicts for pairs {sorted(verdicts, key=int)}, key for {sorted(key, key=int)}")
    counts: Counter[str] = Counter()
    for number, (verdict, _) in verdicts.items():
        counts["same" if verdict == "same" else key[number][verdict]] += 1
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("write", help="write pairs.md and key.json")
    make.add_argument("folder", type=Path, help="a dataset folder of an evaluation run with --answers")
    make.add_argument("--items", type=Path, required=True, help="the dataset's items file")
    make.add_argument("--out", type=Path, required=True, help="where pairs.md and key.json go")
    make.add_argument("--pairs", type=int, default=20)
    make.add_argument("--seed", type=int, default=30)
    make.add_argument("--against", type=Path, help="another run's dataset folder: its resolve answers take raw's side")
    count = commands.add_parser("tally", help="unblind: the verdicts per arm")
    count.add_argument("verdicts", type=Path)
    count.add_argument("key", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        key = write(args.folder, args.items, args.out, pairs=args.pairs, seed=args.seed, other=args.against)
        print(f"{len(key)} pairs: {args.out / 'pairs.md'} (key apart: {args.out / 'key.json'})")
        return 0
    verdicts = read_verdicts(args.verdicts.read_text(encoding="utf-8"))
    key = json.loads(args.key.read_text(encoding="utf-8"))
    counts = tally(verdicts, key)
    arms = sorted({entry[side] for entry in key.values() for side in ("A", "B")})
    print(", ".join(f"{name} better {counts[name]}" for name in arms) + f", same {counts['same']}")
    for number in sorted(verdicts, key=int):
        verdict, why = verdicts[number]
        winner = "same" if verdict == "same" else key[number][verdict]
        print(f"- pair {number} `{key[number]['item']}`: {winner} — {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
