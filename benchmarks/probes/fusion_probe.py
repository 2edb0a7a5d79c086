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

The fusion is the library's own (a ``RetrievalScope`` with ``fuse``, through the seam the
first ``ResolvingLightRAG`` installs), so chunks are fused and cut as in a
real query; documents follow from the fused chunks. It reads
``results.json`` and the stored index of an evaluation's dataset folder
(``benchmarks/eval_report.py --out``) and loads the local embedding (the
``local`` extra). Usage::

    python benchmarks/probes/fusion_probe.py benchmarks/results/eval-2026-12-03-final/mtrag --items ../shared/data/mtrag/turns.jsonl
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lightrag import LightRAG, QueryParam
from reference_text_probe import (  # run as a script: benchmarks/probes/ is on the path
    first_run_by_item,
    hit_at,
    open_index,
    probe_main,
)

from lightrag_resolve._lightrag import seam as _lightrag_seam
from lightrag_resolve._lightrag.fusion import SecondSearch

COLUMNS = ("raw", "resolve (recorded)", "prose (recorded)", "resolved", "fused with the words", "fused with prose")


async def documents(rag: LightRAG, text: str, second: str | None = None) -> list[str]:
    """The documents of LightRAG's ``naive`` chunks for ``text``, fused with ``second``'s search when given."""
    param = QueryParam(mode="naive", enable_rerank=False)
    if second is None:
        data = await rag.aquery_data(text, param)
    else:
        with _lightrag_seam.retrieving(_lightrag_seam.RetrievalScope(fuse=SecondSearch(second))):
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
    by_item = first_run_by_item(folder)
    _lightrag_seam.install()  # the vector search seam that ``RetrievalScope.fuse`` acts through
    rag = await open_index(folder)
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
    probe_main(probe, turns="changed references", columns=COLUMNS)


if __name__ == "__main__":
    main()
