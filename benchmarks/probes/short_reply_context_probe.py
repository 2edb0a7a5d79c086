"""Which carried context serves a short reply best, on an evaluation's own index, with no model call.

A short reply ("Bildung", "Logistik", "电子签名") is searched with the
question it answers carried behind it (contract §5.6). This retrieves (mode
``naive``, LightRAG's vector search) every short reply the ``resolve`` arm
carried a context for, keeping the recorded meaning (the text before " — ")
and changing only the context:

* ``recorded``: the library's text as the evaluation recorded it;
* ``meaning only``: the meaning, no context;
* ``question``: the visitor's message before, and the answered question, whole;
* ``pick sentences``: as ``question``, with every whole sentence of the
  assistant's message that holds the picked option before it;
* ``whole tail``: the visitor's message before, then whole sentences from the
  end of the assistant's message while they fit the context's word budget (40);
* ``whole tail, no others``: as ``whole tail``, without the sentences that name
  an option other than the pick (the answered question stays).

Usage (an evaluation folder of ``benchmarks/eval_report.py --out``, ``naive``)::

    python benchmarks/probes/short_reply_context_probe.py DIR/multilingual \\
        --items benchmarks/data/multilingual/items.jsonl
    python benchmarks/probes/short_reply_context_probe.py DIR/sample --items lightrag_resolve/sample/items.jsonl
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fusion_probe import documents  # run as a script: benchmarks/probes/ is on the path
from lightrag.query_validation import RAGQueryTooShortError
from reference_text_probe import first_run_by_item, hit_at, open_index, probe_main

from lightrag_resolve import ResolverConfig
from lightrag_resolve._languages.text import answered_sentence, contains_phrase, split_sentences
from lightrag_resolve._turn.conversation import Turn
from lightrag_resolve._turn.short_reply import word_count

BUDGET_WORDS = 40
"""The library's carried context budget (``ResolverTuning.reply_context_words``)."""


def _words(text: str) -> float:
    return max(1.0, word_count(text))


def _lead(item: Mapping[str, Any]) -> list[str]:
    history = item["history"]
    before = history[-2] if len(history) >= 2 else None
    return [before["content"]] if before is not None and before["role"] == "user" else []


def _whole_tail(
    sentences: Sequence[str], keep: Callable[[str], bool], budget: int = BUDGET_WORDS, *, widen: bool = False
) -> list[str]:
    chosen: list[str] = []
    used = 0.0
    for sentence in reversed(sentences):
        if not keep(sentence):
            continue
        if chosen and (used >= budget if widen else used + _words(sentence) > budget):
            break
        chosen.insert(0, sentence)
        used += _words(sentence)
    return chosen


def contexts(item: Mapping[str, Any], turn: Turn) -> dict[str, list[str]]:
    """Each variant's context, as a list of whole texts (sentences or messages), lead first."""
    message = item["history"][-1]["content"]
    sentences = split_sentences(message)
    question = answered_sentence(message)
    pick = turn.picked
    options = [option for option in turn.candidates.options if pick is None or option.casefold() != pick.casefold()]

    def names_other(sentence: str) -> bool:
        return pick is not None and sentence != question and any(contains_phrase(sentence, o) for o in options)

    with_pick = [s for s in sentences if pick is not None and contains_phrase(s, pick) and s != question]
    lead = _lead(item)
    return {
        "meaning only": [],
        "question": lead + [question],
        "pick sentences": lead + with_pick + [question],
        "whole tail": lead + _whole_tail(sentences, lambda s: True),
        "whole tail, no others": lead + _whole_tail(sentences, lambda s: not names_other(s)),
        "whole tail, 20 words": lead + _whole_tail(sentences, lambda s: True, 20),
        "whole tail, 60 words": lead + _whole_tail(sentences, lambda s: True, 60),
        "whole tail, no lead": _whole_tail(sentences, lambda s: True),
        "widened": lead + _whole_tail(sentences, lambda s: True, widen=True),
        "widened, no others": lead + _whole_tail(sentences, lambda s: not names_other(s), widen=True),
    }


async def probe(folder: Path, items_path: Path, k: int) -> dict[str, dict[str, int]]:
    items = {row["id"]: row for row in map(json.loads, items_path.read_text(encoding="utf-8").splitlines()) if row}
    rag = await open_index(folder)
    rows: dict[str, dict[str, int]] = {}
    try:
        for item_id, arms in first_run_by_item(folder).items():
            resolution = (arms.get("resolve") or {}).get("resolution") or {}
            item = items.get(item_id, {})
            relevant = set(item.get("relevant") or ())
            if not relevant or item.get("turn_class") != "short_reply" or not resolution.get("context"):
                continue
            turn = Turn.from_history(
                item["query"],
                item["history"],
                mode="naive",
                config=ResolverConfig(company_name=item.get("company_name")),
            )
            meaning = resolution["query"].split(" — ")[0]
            row = {
                "raw": hit_at(arms["raw"]["retrieved"], relevant, k),
                "recorded": hit_at(arms["resolve"]["retrieved"], relevant, k),
            }
            for variant, parts in contexts(item, turn).items():
                text = f"{meaning} — {' '.join(parts)}" if parts else meaning
                try:
                    ranked = await documents(rag, text)
                except RAGQueryTooShortError:  # "Ja" alone: LightRAG refuses it
                    ranked = []
                row[variant] = hit_at(ranked, relevant, k)
            rows[item_id] = row
            print(item_id, " ".join(str(hit) for hit in row.values()), file=sys.stderr)
    finally:
        await rag.finalize_storages()
    return rows


if __name__ == "__main__":
    probe_main(probe, turns="short replies carried with a context")
