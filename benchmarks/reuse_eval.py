"""Start an evaluation folder from an earlier one's work, so that only the arms a change touches run again.

An evaluation folder (``benchmarks/eval_report.py --out``) holds, per dataset,
the embedded corpus (``lightrag/``), every model answer (``llm-replay.jsonl``)
and every record (``results.json``). A library change that only touches the
``resolve`` arm needs neither a new corpus nor new ``raw``/``prose``/
``anythingllm``/``oracle`` records: this copies them into a new folder, drops
the records of the arms to run again, and can take some arms' records from a
third folder (say, rewriting arms run in full on this machine). Then
``eval_report.py --out <new folder>`` resumes, answering every unchanged
prompt from the replay file and sending the new ones to the model.

Copied answers are those of the model runtime that made them (see
``docs/evaluation.md``); the results header is copied as it is, except for
the resolver settings given with ``--resolver-setting NAME=VALUE`` (the same
as ``eval_report.py``'s, to resume with them). A knob the change adds to
``ResolverConfig`` is given the same way, so that the harness accepts the
folder. Usage::

    python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-definite \\
        benchmarks/results/eval-2026-12-02-next --rerun resolve \\
        --arms-from benchmarks/results/eval-2026-12-02-arms:prose,anythingllm
    python benchmarks/reuse_eval.py OLD NEW --rerun resolve --resolver-setting history_messages=4
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightrag_resolve.eval import resolver_overrides

COPIED = ("lightrag", "llm-replay.jsonl", "results.json")


def reuse(
    source: Path,
    target: Path,
    *,
    rerun: Sequence[str],
    arms_from: tuple[Path, Sequence[str]] | None = None,
    datasets: Sequence[str] = (),
    resolver: Mapping[str, Any] | None = None,
) -> dict[str, int]:
    """Copy ``source``'s datasets into ``target`` without the records of ``rerun``; the records kept, per dataset.

    ``arms_from`` replaces the records of its arms with those of another
    folder's same dataset, where that folder has the dataset (elsewhere the
    source's records of those arms are kept). ``resolver`` replaces those
    knobs in the header's resolver settings. Refuses to write into a dataset
    folder that exists.
    """
    names = list(datasets) or sorted(p.name for p in source.iterdir() if (p / "results.json").is_file())
    if not names:
        raise SystemExit(f"{source} holds no dataset folder with a results.json")
    kept: dict[str, int] = {}
    for name in names:
        origin, destination = source / name, target / name
        if not (origin / "results.json").is_file():
            raise SystemExit(f"{origin} has no results.json")
        if destination.exists():
            raise SystemExit(f"{destination} exists; choose a new folder")
        destination.mkdir(parents=True)
        for entry in COPIED:
            if (origin / entry).is_dir():
                shutil.copytree(origin / entry, destination / entry)
            elif (origin / entry).is_file():
                shutil.copy2(origin / entry, destination / entry)
        data = json.loads((destination / "results.json").read_text(encoding="utf-8"))
        other_results = arms_from[0] / name / "results.json" if arms_from else None
        replaced: set[str] = set()
        if arms_from and other_results is not None and other_results.is_file():
            replaced = set(arms_from[1])
        dropped = set(rerun) | replaced
        records = [r for r in data["records"] if r["arm"] not in dropped]
        if replaced and other_results is not None:
            other = json.loads(other_results.read_text(encoding="utf-8"))
            records += [r for r in other["records"] if r["arm"] in replaced]
        data["records"] = records
        if resolver:
            data["header"]["settings"]["resolver"].update(resolver)
        (destination / "results.json").write_text(json.dumps(data), encoding="utf-8")
        kept[name] = len(records)
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the earlier evaluation folder")
    parser.add_argument("target", type=Path, help="the new evaluation folder")
    parser.add_argument("--rerun", default="resolve", help="comma-separated arms whose records are dropped")
    parser.add_argument("--arms-from", help="FOLDER:arm,arm — take these arms' records from another folder")
    parser.add_argument("--datasets", default="", help="comma-separated dataset folders (default: all)")
    parser.add_argument(
        "--resolver-setting",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="record this ResolverConfig knob in the header, as eval_report.py will run it",
    )
    args = parser.parse_args(argv)
    try:
        resolver = resolver_overrides(args.resolver_setting)
    except ValueError as exc:
        parser.error(str(exc))
    arms_from = None
    if args.arms_from:
        folder, _, arms = args.arms_from.rpartition(":")
        if not folder or not arms:
            parser.error("--arms-from takes FOLDER:arm,arm")
        arms_from = (Path(folder), [arm for arm in arms.split(",") if arm])
    kept = reuse(
        args.source,
        args.target,
        rerun=[arm for arm in args.rerun.split(",") if arm],
        arms_from=arms_from,
        datasets=[name for name in args.datasets.split(",") if name],
        resolver=resolver,
    )
    for name, count in kept.items():
        print(f"{args.target / name}: {count} records kept; run eval_report.py --out {args.target} to resume")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
