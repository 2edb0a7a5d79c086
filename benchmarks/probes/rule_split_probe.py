"""Which rule decided each turn, and what it did to hit@k, on an evaluation's index, with no model call.

The decisions come from ``scripts/replay_decisions.py run`` (every turn's
``Resolution`` with the model's answers replayed); the index and the
visitor's-words rankings from an evaluation folder of the same set
(``benchmarks/eval_report.py --arms raw``, ``naive``). A turn whose resolution
changed the text is retrieved again with the resolved text (``naive``:
LightRAG's chunk search on it, as the library retrieves); an unchanged turn
retrieves what the visitor's words retrieve. One row per rule, so a rule's
effect on the cut it was written from (MTRAG's usual cut) can be read beside
a cut no rule was written from (the held-out follow-ups)::

    python scripts/replay_decisions.py run --out DEC --label now --sets mtrag,held-out
    python benchmarks/eval_report.py --datasets mtrag --arms raw --runs 1 --out RAW
    python benchmarks/probes/rule_split_probe.py RAW/mtrag --decisions DEC/now/mtrag.jsonl \\
        --items ../shared/data/mtrag/turns.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fusion_probe import documents  # run as a script: benchmarks/probes/ is on the path
from reference_text_probe import first_run_by_item, hit_at, open_index


def rule(resolution: Mapping[str, Any]) -> str:
    """The rule that decided a turn, named as contract §5 names it."""
    path, reason, decision = resolution.get("path"), resolution.get("fallback_reason"), resolution.get("decision")
    if reason in ("unprompted", "stands_alone", "gate_declined", "caller_keywords"):
        return {"unprompted": "§5.7 unprompted reply, as written", "stands_alone": "§5.8 stands alone, as written"}.get(
            reason, reason
        )
    if path == "reference":
        if decision == "resolve" and resolution.get("raw_output") is None:
            return "§5.3 one candidate, named with no call"
        if decision == "resolve":
            return "§5.3 the check named one"
        if resolution.get("restatement"):
            return "§5.9 restated"
        return f"§5.3 the check: {decision or reason}"
    if path in ("text", "keywords"):
        if resolution.get("carry_reason"):
            return f"§5.6 short reply, carried ({resolution['carry_reason']})"
        if reason:
            return f"§5.6 short reply, fallback {reason}"
        if resolution.get("raw_output") is None:
            return "§5.1/§5.6 short reply, picked or accepted with no call"
        return "§5.1 short reply, the model's meaning"
    return f"{path} {reason or ''}".strip()


async def probe(folder: Path, decisions: Path, items_path: Path, k: int) -> dict[str, list[tuple[int, int]]]:
    """Per rule, each turn's (raw hit, resolved hit)."""
    items = {row["id"]: row for row in map(json.loads, items_path.read_text(encoding="utf-8").splitlines()) if row}
    raw = {item: arms["raw"]["retrieved"] for item, arms in first_run_by_item(folder).items() if "raw" in arms}
    rag = await open_index(folder)
    rows: dict[str, list[tuple[int, int]]] = defaultdict(list)
    try:
        for line in decisions.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            item, resolution = record["item"], record["resolution"]
            relevant = set(items.get(item, {}).get("relevant") or ())
            if item not in raw or not relevant:
                continue
            before = hit_at(raw[item], relevant, k)
            after = hit_at(await documents(rag, resolution["query"]), relevant, k) if resolution["changed"] else before
            rows[rule(resolution)].append((before, after))
    finally:
        await rag.finalize_storages()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "folder", type=Path, help="an evaluation's dataset folder with the raw arm (results.json, lightrag/)"
    )
    parser.add_argument("--decisions", type=Path, required=True, help="a replay_decisions.py record file (SET.jsonl)")
    parser.add_argument("--items", type=Path, required=True, help="the dataset's items (turns.jsonl / items.jsonl)")
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args()
    rows = asyncio.run(probe(args.folder, args.decisions, args.items, args.k))
    print(f"| rule | turns | raw hit@{args.k} | resolved hit@{args.k} | wins/losses |\n|---|---|---|---|---|")
    for name, pairs in sorted(rows.items()):
        raw_hits = sum(before for before, _ in pairs)
        hits = sum(after for _, after in pairs)
        wins = sum(after > before for before, after in pairs)
        losses = sum(after < before for before, after in pairs)
        print(f"| {name} | {len(pairs)} | {raw_hits / len(pairs):.2f} | {hits / len(pairs):.2f} | {wins}/{losses} |")


if __name__ == "__main__":
    main()
