"""What fusing a resolved reference's chunk search with a second text would do, on an evaluation's own index.

For every item whose ``resolve`` record changed a reference (a name or a
restatement added), this runs LightRAG's real ``naive`` retrieval on the
recorded resolved text three ways, with no model call, and prints hit@k
beside the recorded ``raw``, ``resolve`` and ``prose`` results:

* ``resolved``: the resolved text alone (reproduces the recorded ``resolve``);
* ``fused with the words``: its vector chunk search fused with the visitor's
  words (what ``fuse_raw_search`` does, contract §5.5);
* ``fused with prose``: fused with the ``prose`` arm's recorded question,
  where it rewrote the turn (what ``fuse_standalone_question`` does with the
  library's own question, contract §5.10).

The fusion is the library's own (``_fusion.fusing`` through the seam the
first ``ResolvingLightRAG`` installs), so chunks are fused and cut as in a
real query; documents follow from the fused chunks. It reads
``results.json`` and the stored index of an evaluation's dataset folder
(``benchmarks/eval_report.py --out``) and loads the local embedding (the
``local`` extra). Usage::

    python benchmarks/fusion_probe.py benchmarks/results/eval-2026-12-03-final/mtrag --items ../shared/data/mtrag/turns.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightrag import LightRAG, QueryParam

from lightrag_resolve import _host
from lightrag_resolve._fusion import SecondSearch, fusing
from lightrag_resolve.local import e5_embedding, offline_tokenizer

COLUMNS = ("raw", "resolve (recorded)", "prose (recorded)", "resolved", "fused with the words", "fused with prose")


def hit_at(ranked: Sequence[str], relevant: set[str], k: int) -> int:
    return int(bool(relevant & set(ranked[:k])))


async def nothing(*args: Any, **kwargs: Any) -> str:
    raise RuntimeError("the probe retrieves in naive mode and calls no model")


async def documents(rag: LightRAG, text: str, second: str | None = None) -> list[str]:
    """The documents of LightRAG's ``naive`` chunks for ``text``, fused with ``second``'s search when given."""
    param = QueryParam(mode="naive", enable_rerank=False)
    if second is None:
        data = await rag.aquery_data(text, param)
    else:
        with fusing(SecondSearch(second)):
            data = await rag.aquery_data(text, param)
    ranked: list[str] = []
    for chunk in (data.get("data") or {}).get("chunks", []):
        if chunk.get("file_path") not in ranked:
            ranked.append(chunk.get("file_path"))
    return ranked


def prose_question(arms: Mapping[str, Any]) -> str | None:
    prose = arms.get("prose") or {}
    return prose.get("text") if prose.get("outcome") == "rewritten" else None


async def probe(folder: Path, items_path: Path, k: int) -> dict[str, dict[str, int]]:
    items = {row["id"]: row for row in map(json.loads, items_path.read_text(encoding="utf-8").splitlines()) if row}
    by_item: dict[str, dict[str, Any]] = {}
    for record in json.loads((folder / "results.json").read_text(encoding="utf-8"))["records"]:
        if record["run"] == 0:
            by_item.setdefault(record["item"], {})[record["arm"]] = record
    _host.install()  # the vector search seam that ``fusing`` acts through
    index = folder / "lightrag"
    workspace = next(path.name for path in index.iterdir() if path.is_dir())
    rag = LightRAG(
        working_dir=str(index),
        workspace=workspace,
        llm_model_func=nothing,
        embedding_func=e5_embedding(),
        tokenizer=offline_tokenizer(),
        enable_llm_cache=False,
        default_embedding_timeout=1800,
    )
    await rag.initialize_storages()
    rows: dict[str, dict[str, int]] = {}
    try:
        for item_id, arms in by_item.items():
            resolution = (arms.get("resolve") or {}).get("resolution") or {}
            relevant = set(items.get(item_id, {}).get("relevant") or ())
            if not relevant or resolution.get("path") != "reference" or not resolution.get("changed"):
                continue
            text, words, question = resolution["query"], items[item_id]["query"], prose_question(arms)
            resolved = hit_at(await documents(rag, text), relevant, k)
            rows[item_id] = {
                "raw": hit_at(arms["raw"]["retrieved"], relevant, k),
                "resolve (recorded)": hit_at(arms["resolve"]["retrieved"], relevant, k),
                "prose (recorded)": hit_at((arms.get("prose") or {}).get("retrieved") or [], relevant, k),
                "resolved": resolved,
                "fused with the words": hit_at(await documents(rag, text, words), relevant, k),
                "fused with prose": hit_at(await documents(rag, text, question), relevant, k)
                if question and question.strip() != text.strip()
                else resolved,
            }
    finally:
        await rag.finalize_storages()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="an evaluation's dataset folder (results.json and lightrag/)")
    parser.add_argument("--items", type=Path, required=True, help="the dataset's items (turns.jsonl / items.jsonl)")
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args()
    rows = asyncio.run(probe(args.folder, args.items, args.k))
    if not rows:
        raise SystemExit("no changed reference with relevant documents in these records")
    print(f"{len(rows)} changed references, hit@{args.k}, wins/losses against raw")
    print("| text | hits | wins/losses |\n|---|---|---|")
    for column in COLUMNS:
        hits = sum(row[column] for row in rows.values())
        wins = sum(row[column] > row["raw"] for row in rows.values())
        losses = sum(row[column] < row["raw"] for row in rows.values())
        print(f"| {column} | {hits} | {wins}/{losses} |")


if __name__ == "__main__":
    main()
