"""Run the retrieval evaluation (contract §10) on the datasets and write their reports.

The datasets are the bundled sample (``lightrag_resolve/sample``: a custom
knowledge graph, searched in ``mix`` mode), the MTRAG follow-up cut
(``../shared/data/mtrag`` beside the repository, or ``--mtrag PATH``:
passages without a graph, searched in ``naive`` mode) and, when asked for
with ``--datasets multilingual``, the German, Spanish and Chinese dataset of
``benchmarks/data/multilingual`` (a custom knowledge graph like the sample's,
searched in ``mix`` mode; ``--multilingual PATH`` for another copy) and,
with ``--datasets doc2dial``, the doc2dial cut (real conversations about US
government pages in which the agent asks and the user answers briefly; the
``shared/data/doc2dial`` folder beside the repository's, or ``--doc2dial PATH``;
passages in ``naive`` mode, as MTRAG's). The default is the first two. Each runs on the local
model of the ``local`` extra; a dataset that is not present is skipped with a
note. Each dataset gets ``report.md``, ``results.json`` and ``chart.png`` in
``<out>/<dataset>/``, and ``<out>/README.md`` links them.

The resolver's timeouts default to 180 s for both its calls (``--resolver-timeout``,
``--reference-timeout``), not the library's 10 s and 2 s: a 1.5B model on a
few CPU cores takes 7-40 s a call, so the library's defaults would measure
timeouts rather than resolution. The printed header, the reports and the
index say which timeouts were used.

Usage::

    pip install -e '.[eval,local]'
    python benchmarks/eval_report.py                 # both datasets, 2 runs
    python benchmarks/eval_report.py --limit 60      # a seeded 60-item subset of each
    python benchmarks/eval_report.py --datasets mtrag --limit 100 --runs 3
    python benchmarks/eval_report.py --datasets multilingual         # the de/es/zh dataset, mix mode
    python benchmarks/eval_report.py --datasets doc2dial --arms raw,resolve,prose,anythingllm   # no rewrite: no oracle
    python benchmarks/eval_report.py --sample-limit 16 --mtrag-limit 30   # a limit per dataset
    python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out --mtrag-limit 150   # unseen follow-ups
    python benchmarks/eval_report.py --resolver-setting history_messages=4   # measure another ResolverConfig
    python benchmarks/eval_report.py --datasets sample --arms raw,resolve --answers   # answers judged too

``--resolver-setting NAME=VALUE`` (repeatable) sets one of ``ResolverConfig``'s
numeric or yes/no knobs for the ``resolve`` arm; the results header records
every knob, so a folder run with other settings is not resumed by mistake.

``--answers`` adds the answer step (``lightrag_resolve.eval._answers``):
each arm's turn of an item with ``must_contain`` is also answered by LightRAG
on the local model, under a small budget (``--answer-context-tokens``,
``--answer-tokens``), and the report says how often the answer contains the
needed fact, paired against ``raw``, beside how often the retrieved context did.

Interrupted runs resume from ``results.json``; ``--fresh`` starts over.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from lightrag_resolve import ResolverConfig
from lightrag_resolve.cli.eval import add_answer_arguments, answer_settings
from lightrag_resolve.eval import (
    ARM_NAMES,
    EvalConfig,
    EvalError,
    EvalOutcome,
    Experiment,
    Item,
    Models,
    load_dataset,
    load_local_models,
    resolver_overrides,
    run_eval,
    split_settings,
)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MTRAG = ROOT.parent / "shared" / "data" / "mtrag"
DEFAULT_MULTILINGUAL = ROOT / "benchmarks" / "data" / "multilingual"
DEFAULT_DOC2DIAL = ROOT.parent / "shared" / "data" / "doc2dial"
DATASETS = ("sample", "mtrag", "multilingual", "doc2dial")
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "eval"
# Generous on purpose: the local model takes 7-8 s a call on a quiet 2-core machine and 11-40 s on a busy one.
LOCAL_TIMEOUT = 180.0


def _sample_folder() -> Path | None:
    try:
        from lightrag_resolve import sample
    except ImportError:
        return None
    return sample.kb_path().parent


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="sample,mtrag",
                        help="comma-separated: sample, mtrag, multilingual, doc2dial (default: sample,mtrag)")
    parser.add_argument("--sample", type=Path, default=None, help="sample folder (default: the bundled one)")
    parser.add_argument("--mtrag", type=Path, default=DEFAULT_MTRAG, help=f"MTRAG cut folder (default: {DEFAULT_MTRAG})")
    parser.add_argument("--multilingual", type=Path, default=DEFAULT_MULTILINGUAL,
                        help=f"the de/es/zh dataset folder (default: {DEFAULT_MULTILINGUAL})")
    parser.add_argument("--doc2dial", type=Path, default=DEFAULT_DOC2DIAL,
                        help=f"doc2dial cut folder (default: {DEFAULT_DOC2DIAL})")
    parser.add_argument("--limit", type=int, default=None, help="a seeded sample of at most this many items per dataset")
    parser.add_argument("--sample-limit", type=int, default=None, help="the sample's own --limit")
    parser.add_argument("--mtrag-limit", type=int, default=None, help="the MTRAG cut's own --limit")
    parser.add_argument("--multilingual-limit", type=int, default=None, help="the multilingual dataset's own --limit")
    parser.add_argument("--doc2dial-limit", type=int, default=None, help="the doc2dial cut's own --limit")
    parser.add_argument("--mtrag-follow-ups", type=int, default=150, metavar="N",
                        help="MTRAG: every short reply and a seeded N of the longer follow-ups (default: 150; 0: all)")
    parser.add_argument("--mtrag-held-out", action="store_true",
                        help="MTRAG: only the longer follow-ups that --mtrag-follow-ups N leaves out, no short replies "
                             "(a cut that no rule was written from; combine with --mtrag-limit)")
    parser.add_argument("--sample-mode", default=None, help="the sample's retrieval mode (default: its own, mix)")
    parser.add_argument("--multilingual-mode", default=None,
                        help="the multilingual dataset's retrieval mode (default: its own, mix)")
    parser.add_argument("--runs", type=int, default=2, help="runs per item and arm (default: 2)")
    parser.add_argument("--arms", default=",".join(ARM_NAMES), help="comma-separated arms")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resolver-timeout", type=float, default=LOCAL_TIMEOUT, metavar="SECONDS",
                        help=f"resolver timeout for short replies (default: {LOCAL_TIMEOUT:g}; the library's is 10)")
    parser.add_argument("--reference-timeout", type=float, default=LOCAL_TIMEOUT, metavar="SECONDS",
                        help=f"resolver timeout for the reference check (default: {LOCAL_TIMEOUT:g}; the library's is 2)")
    parser.add_argument("--resolver-setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a ResolverConfig knob for the resolve arm, e.g. history_messages=4 (repeatable)")
    add_answer_arguments(parser)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    parser.add_argument("--fresh", action="store_true", help="ignore earlier results")
    parser.add_argument("--report-only", action="store_true",
                        help="run nothing: write the reports from the results already there (a partial run says so)")
    parser.add_argument("--no-progress", action="store_true")
    return parser.parse_args(argv)


def _folders(args: argparse.Namespace) -> dict[str, Path | None]:
    wanted = [name.strip() for name in args.datasets.split(",") if name.strip()]
    unknown = set(wanted) - set(DATASETS)
    if unknown:
        raise SystemExit(f"unknown dataset(s): {', '.join(sorted(unknown))}")
    known = {"sample": args.sample or _sample_folder(), "mtrag": args.mtrag, "multilingual": args.multilingual,
             "doc2dial": args.doc2dial}
    return {name: known[name] for name in wanted}


def resolver_config(args: argparse.Namespace) -> tuple[ResolverConfig, Experiment]:
    """The resolve arm's configuration and tuning: the timeouts, then any ``--resolver-setting``."""
    config, tuning = split_settings(resolver_overrides(args.resolver_setting))
    return (ResolverConfig(timeout=args.resolver_timeout, reference_timeout=args.reference_timeout, **config),
            Experiment(**tuning))


def _timeouts(resolver: ResolverConfig) -> str:
    return (f"resolver timeouts {resolver.timeout:g} s (short replies) and {resolver.reference_timeout:g} s "
            "(reference check); the library's defaults, 10 s and 2 s, are meant for a hosted model")


def _index(outcomes: dict[str, EvalOutcome], out: Path, resolver: ResolverConfig, llm_name: str | None) -> str:
    """The index: a line per dataset run now, and the earlier lines of datasets not run this time."""
    entries: dict[str, str] = {}
    try:
        earlier = (out / "README.md").read_text(encoding="utf-8").splitlines()
    except OSError:
        earlier = []
    for line in earlier:
        match = re.match(r"- \[([^\]]+)\]\(", line)
        if match and match.group(1) not in outcomes:
            entries[match.group(1)] = line
    for name, outcome in outcomes.items():
        rows = {row.arm: row for row in outcome.summary.rows if row.turn_class == "all"}
        pooled = ", ".join(f"{arm} {row.hit_rate:.2f}" for arm, row in rows.items())
        items = max((row.items for row in rows.values()), default=0)
        partial = f"**partial** ({outcome.missing} turns not run); " if outcome.missing else ""
        entries[name] = (f"- [{name}]({outcome.report_path.relative_to(out).as_posix()}): {items} items; {partial}"
                         f"pooled hit rate {pooled} (read the per-class tables); LLM `{llm_name or 'unnamed'}`, "
                         f"{_timeouts(resolver)}")
    lines = ["# Retrieval evaluation reports", "", *entries.values()]
    return "\n".join(lines) + "\n"


def _with_follow_ups(items: Sequence[Item], count: int, seed: int, *, held_out: bool = False) -> tuple[Item, ...]:
    """Every item that is not a longer follow-up, and a seeded ``count`` of those that are, in file order.

    ``held_out`` turns the cut around: only the longer follow-ups that the seeded ``count``
    leaves out. The rules of the reference check were written from reading the misses of
    the default cut, so these follow-ups are the MTRAG items that no rule has seen.
    """
    follow_ups = [index for index, item in enumerate(items) if item.turn_class == "follow_up"]
    chosen = set(random.Random(seed).sample(follow_ups, min(count, len(follow_ups))))
    if held_out:
        return tuple(items[index] for index in follow_ups if index not in chosen)
    return tuple(item for index, item in enumerate(items) if item.turn_class != "follow_up" or index in chosen)


async def run_reports(args: argparse.Namespace, models: Models) -> dict[str, EvalOutcome]:
    """Evaluate each available dataset in turn with the same models."""
    outcomes: dict[str, EvalOutcome] = {}
    resolver, tuning = resolver_config(args)
    answers = answer_settings(args)
    config = EvalConfig(arms=tuple(a.strip() for a in args.arms.split(",") if a.strip()), runs=args.runs,
                        limit=args.limit, seed=args.seed, resolver=resolver, tuning=tuning, answers=answers)
    print(f"LLM: {models.llm_name or 'unnamed'}; {_timeouts(resolver)}"
          + "".join(f"; {pair.strip()}" for pair in args.resolver_setting)
          + (f"; answers on {', '.join(answers.turn_classes)}: {answers.header()}" if answers else ""))
    for name, folder in _folders(args).items():
        if folder is None or not folder.is_dir():
            print(f"skipping {name}: no dataset at {folder}", file=sys.stderr)
            continue
        modes = {"sample": args.sample_mode, "multilingual": args.multilingual_mode}
        dataset = load_dataset(folder, name=name, default_mode=modes.get(name))
        if name == "mtrag" and (args.mtrag_follow_ups or args.mtrag_held_out):
            cut = _with_follow_ups(dataset.items, args.mtrag_follow_ups, args.seed, held_out=args.mtrag_held_out)
            dataset = replace(dataset, items=cut)
        limit = getattr(args, f"{name}_limit") or args.limit
        print(f"{name}: {len(dataset.items)} items, default mode {dataset.default_mode}"
              + (f", a seeded {limit}-item subset" if limit is not None and limit < len(dataset.items) else ""))
        outcomes[name] = await run_eval(
            dataset, llm=models.llm, embedding=models.embedding, tokenizer=models.tokenizer,
            llm_name=models.llm_name, out_dir=args.out / name, config=replace(config, limit=limit), fresh=args.fresh,
            progress=not args.no_progress, report_only=args.report_only,
        )
        print(f"  report: {outcomes[name].report_path}")
        # Written after each dataset, so an interrupted second one leaves the first one's line.
        (args.out / "README.md").write_text(_index(outcomes, args.out, resolver, models.llm_name), encoding="utf-8")
    return outcomes


def main(argv: Sequence[str] | None = None, *, models: Models | None = None) -> int:
    """Entry point; ``models`` replaces the local model (tests pass fakes)."""
    args = parse_args(argv)
    for name in ("lightrag", "nano-vectordb"):
        logging.getLogger(name).setLevel(logging.WARNING)
    if not os.environ.get("LIGHTRAG_RESOLVE_LOG_LEVEL"):
        # The library's per-turn lines are opt-in; an evaluation run has always shown them.
        logging.getLogger("lightrag_resolve").setLevel(logging.INFO)
    try:
        resolver_config(args)
        answer_settings(args)
    except ValueError as exc:
        print(f"eval_report: {exc}", file=sys.stderr)
        return 2
    try:
        models = models or load_local_models()
    except EvalError as exc:
        print(f"eval_report: {exc}", file=sys.stderr)
        return 2
    try:
        outcomes = asyncio.run(run_reports(args, models))
    except EvalError as exc:
        print(f"eval_report: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: run again to resume from the results files", file=sys.stderr)
        return 130
    return 0 if outcomes else 1


if __name__ == "__main__":
    raise SystemExit(main())
