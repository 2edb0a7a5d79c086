"""Which retrieval text serves a resolved reference best, on an evaluation's own index, with no model call.

For every item whose ``resolve`` record resolved a reference to a name, this
retrieves (mode ``naive``, LightRAG's vector search on the text) with several
texts built from the same message and the same name, and prints hit@k for each
beside the recorded ``raw`` and ``resolve`` results, paired against ``raw``:

* ``name_last``: "<message> — <name>" (the library's text until 2026-12-01);
* ``name_first``: "<name> — <message>" (the library's text since);
* ``prose_with_name``: the ``prose`` arm's rewrite when it holds the name, else ``name_last``;
* ``name_sentence``: ``name_last`` followed by the last history sentence that holds the name.

It reads ``results.json`` and the stored index of an evaluation folder
(``benchmarks/eval_report.py --out``), so it measures the index and the names
that evaluation used; it loads the local embedding (the ``local`` extra).
Usage::

    python benchmarks/probes/reference_text_probe.py benchmarks/results/eval-2026-12-01c/sample \\
        --items lightrag_resolve/sample/items.jsonl
    python benchmarks/probes/reference_text_probe.py benchmarks/results/eval-2026-12-01b/mtrag \\
        --items ../shared/data/mtrag/turns.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lightrag import LightRAG, QueryParam

from lightrag_resolve.local import e5_embedding, offline_tokenizer

Variant = Callable[[Mapping[str, Any], str, Mapping[str, Any]], str]


def last_sentence_with(history: Sequence[Mapping[str, str]], name: str, max_words: int = 25) -> str:
    """The last history sentence that holds ``name``, cut to ``max_words`` words; empty when none does."""
    for message in reversed(history):
        for sentence in reversed(re.split(r"(?<=[.!?])\s+", message.get("content", ""))):
            if name.casefold() in sentence.casefold():
                return " ".join(sentence.split()[:max_words])
    return ""


def name_last(item: Mapping[str, Any], name: str, arms: Mapping[str, Any]) -> str:
    return f"{item['query']} — {name}"


def name_first(item: Mapping[str, Any], name: str, arms: Mapping[str, Any]) -> str:
    return f"{name} — {item['query']}"


def prose_with_name(item: Mapping[str, Any], name: str, arms: Mapping[str, Any]) -> str:
    prose = arms.get("prose") or {}
    text = prose.get("text", "") if prose.get("outcome") == "rewritten" else ""
    return text if name.casefold() in text.casefold() else name_last(item, name, arms)


def name_sentence(item: Mapping[str, Any], name: str, arms: Mapping[str, Any]) -> str:
    sentence = last_sentence_with(item["history"], name)
    return f"{name_last(item, name, arms)}: {sentence}" if sentence else name_last(item, name, arms)


VARIANTS: dict[str, Variant] = {
    "name_last": name_last,
    "name_first": name_first,
    "prose_with_name": prose_with_name,
    "name_sentence": name_sentence,
}


def hit_at(ranked: Sequence[str], relevant: set[str], k: int) -> int:
    return int(bool(relevant & set(ranked[:k])))


async def nothing(*args: Any, **kwargs: Any) -> str:
    raise RuntimeError("the probe retrieves in naive mode and calls no model")


async def open_index(folder: Path) -> LightRAG:
    """The evaluation folder's stored index (``lightrag/``), with the local embedding and no model, initialised."""
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
    return rag


def first_run_by_item(folder: Path) -> dict[str, dict[str, Any]]:
    """Each item's run-1 records of an evaluation folder, by arm."""
    by_item: dict[str, dict[str, Any]] = {}
    for record in json.loads((folder / "results.json").read_text(encoding="utf-8"))["records"]:
        if record["run"] == 0:
            by_item.setdefault(record["item"], {})[record["arm"]] = record
    return by_item


async def probe(folder: Path, items_path: Path, k: int) -> dict[str, dict[str, int]]:
    items = {row["id"]: row for row in map(json.loads, items_path.read_text(encoding="utf-8").splitlines()) if row}
    by_item = first_run_by_item(folder)
    rag = await open_index(folder)
    rows: dict[str, dict[str, int]] = {}
    try:
        for item_id, arms in by_item.items():
            resolution = (arms.get("resolve") or {}).get("resolution") or {}
            relevant = set(items.get(item_id, {}).get("relevant") or ())
            name = resolution.get("entity")
            if not relevant or not name or resolution.get("path") != "reference" or not resolution.get("changed"):
                continue
            item = items[item_id]
            row = {
                "raw": hit_at(arms["raw"]["retrieved"], relevant, k),
                "resolve (recorded)": hit_at(arms["resolve"]["retrieved"], relevant, k),
            }
            for variant, build in VARIANTS.items():
                data = await rag.aquery_data(build(item, name, arms), QueryParam(mode="naive", enable_rerank=False))
                ranked: list[str] = []
                for chunk in (data.get("data") or {}).get("chunks", []):
                    if chunk.get("file_path") not in ranked:
                        ranked.append(chunk.get("file_path"))
                row[variant] = hit_at(ranked, relevant, k)
            rows[item_id] = row
    finally:
        await rag.finalize_storages()
    return rows


def print_table(rows: Mapping[str, Mapping[str, int]], columns: Sequence[str]) -> None:
    """One Markdown row per column: its hits over the items, and its wins/losses against ``raw``."""
    print("| text | hits | wins/losses |\n|---|---|---|")
    for column in columns:
        hits = sum(row[column] for row in rows.values())
        wins = sum(row[column] > row["raw"] for row in rows.values())
        losses = sum(row[column] < row["raw"] for row in rows.values())
        print(f"| {column} | {hits} | {wins}/{losses} |")


def probe_main(
    probe: Callable[[Path, Path, int], Awaitable[Mapping[str, Mapping[str, int]]]],
    *,
    turns: str,
    columns: Sequence[str] | None = None,
) -> None:
    """The command line of a probe over an evaluation folder: run ``probe``, print its table of ``turns``."""
    parser = argparse.ArgumentParser(description=(sys.modules["__main__"].__doc__ or "").split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="an evaluation's dataset folder (results.json and lightrag/)")
    parser.add_argument("--items", type=Path, required=True, help="the dataset's items (turns.jsonl / items.jsonl)")
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args()
    rows = asyncio.run(probe(args.folder, args.items, args.k))
    if not rows:
        raise SystemExit(f"no {turns} with relevant documents in these records")
    print(f"{len(rows)} {turns}, hit@{args.k}, wins/losses against raw")
    print_table(rows, columns if columns is not None else list(next(iter(rows.values()))))


def main() -> None:
    probe_main(probe, turns="resolved references")


if __name__ == "__main__":
    main()
