"""Would searching a kept follow-up's restatement close the gap to a peer that rewrites every follow-up?

In ``naive`` mode a follow-up the check keeps (KEEP) is searched with the
visitor's words, although the model often writes a restatement anyway. For
every item of the given turn classes whose ``resolve`` record is a reference
check that left the text unchanged and whose answer holds a restatement other
than the message, this runs LightRAG's real ``naive`` retrieval twice with no
model call, the restatement fused with the words and the restatement alone,
and prints hit@3 over all the class's items (the others count as recorded)
beside the recorded ``raw``, ``resolve`` and ``prose``. Reads an evaluation's
folder and index (run with ``check_every_follow_up=true`` to have every
follow-up checked); loads the local embedding (the ``local`` extra). Usage::

    python benchmarks/probes/kept_restatement_probe.py benchmarks/results/eval-2026-12-07/d2d-every/doc2dial \
        --items data/doc2dial/turns.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from fusion_probe import documents  # run as a script: benchmarks/probes/ is on the path
from reference_text_probe import first_run_by_item, hit_at, open_index

from lightrag_resolve._lightrag import seam
from lightrag_resolve._model.parse import parse_reference_answer

COLUMNS = ("raw", "resolve", "prose", "kept: fused with the words", "kept: the restatement alone")


async def probe(folder: Path, items_path: Path, classes: set[str], k: int) -> tuple[int, int, dict[str, float]]:
    """``(items, items acted on, hit@k per column)``."""
    items = {row["id"]: row for row in map(json.loads, items_path.read_text(encoding="utf-8").splitlines()) if row}
    by_item = first_run_by_item(folder)
    seam.install()  # the vector search seam that a fused search acts through
    rag = await open_index(folder)
    totals = dict.fromkeys(COLUMNS, 0)
    counted = acted = 0
    try:
        for item_id, arms in by_item.items():
            item = items.get(item_id, {})
            relevant = set(item.get("relevant") or ())
            if item.get("turn_class") not in classes or not relevant:
                continue
            resolution = (arms.get("resolve") or {}).get("resolution") or {}
            answer = parse_reference_answer(resolution.get("raw_output") or "")
            restatement = (answer.restatement_raw if answer else None) or ""
            words = item["query"]
            row = {
                "raw": hit_at(arms["raw"]["retrieved"], relevant, k),
                "resolve": hit_at(arms["resolve"]["retrieved"], relevant, k),
                "prose": hit_at((arms.get("prose") or {}).get("retrieved") or [], relevant, k),
            }
            kept = resolution.get("path") == "reference" and not resolution.get("changed")
            if kept and isinstance(restatement, str) and restatement.strip() not in ("", words.strip()):
                acted += 1
                row[COLUMNS[3]] = hit_at(await documents(rag, words, restatement), relevant, k)
                row[COLUMNS[4]] = hit_at(await documents(rag, restatement), relevant, k)
            else:
                row[COLUMNS[3]] = row[COLUMNS[4]] = row["resolve"]
            for column in COLUMNS:
                totals[column] += row[column]
            counted += 1
    finally:
        await rag.finalize_storages()
    return counted, acted, {column: totals[column] / max(counted, 1) for column in COLUMNS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="an evaluation's dataset folder (results.json and its index)")
    parser.add_argument("--items", type=Path, required=True, help="the dataset's items file")
    parser.add_argument("--classes", default="follow_up", help="comma-separated turn classes (default: follow_up)")
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args()
    counted, acted, hits = asyncio.run(probe(args.folder, args.items, set(args.classes.split(",")), args.k))
    print(f"{counted} items, {acted} kept with a restatement of their own")
    for column in COLUMNS:
        print(f"  {column:30s} hit@{args.k} {hits[column]:.3f}")


if __name__ == "__main__":
    main()
