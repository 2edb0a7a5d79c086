"""A bundled bilingual sample: the fictional company Vellinor and scripted conversations.

``kb.json`` is a LightRAG custom knowledge graph (42 documents, one chunk each,
in French and English: 24 about the catalogue and 18 distractors that a reply
searched on its own words finds instead) ready for
``LightRAG.ainsert_custom_kg``; it needs no LLM to insert (``insert_sample``
does it once into any LightRAG instance). ``items.jsonl``
holds the 80 scripted conversations used as the first evaluation dataset
(contract §10): first turns, short replies, longer follow-ups and references, each
with the documents that answer it. The formats are described in ``README.md``
beside these files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "COMPANY_NAME",
    "TURN_CLASSES",
    "insert_sample",
    "items_path",
    "kb_path",
    "load_custom_kg",
    "load_documents",
    "load_items",
]

COMPANY_NAME = "Vellinor"
"""The sample company's name, as a resolver configuration's company name."""

TURN_CLASSES = ("first_turn", "short_reply", "follow_up", "reference")
"""The turn classes an item can have, in the order evaluations report them."""

_HERE = Path(__file__).resolve().parent


def kb_path() -> Path:
    """Path of ``kb.json``, the sample's LightRAG custom knowledge graph."""
    return _HERE / "kb.json"


def items_path() -> Path:
    """Path of ``items.jsonl``, the scripted conversations, one JSON object a line."""
    return _HERE / "items.jsonl"


def load_custom_kg() -> dict[str, list[dict[str, Any]]]:
    """The custom knowledge graph, freshly parsed: ``chunks``, ``entities``, ``relationships``.

    Pass it to ``LightRAG.ainsert_custom_kg``. Each call returns a new object,
    so a caller may change it without affecting the next.
    """
    with kb_path().open(encoding="utf-8") as handle:
        return json.load(handle)


def load_items() -> list[dict[str, Any]]:
    """The scripted conversations, in file order, each a fresh dict."""
    with items_path().open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_documents() -> dict[str, str]:
    """Each document's text by its id (``doc-01`` …), read from the knowledge graph's chunks."""
    return {chunk["source_id"]: chunk["content"] for chunk in load_custom_kg()["chunks"]}


async def insert_sample(rag: Any) -> bool:
    """Insert the knowledge graph into ``rag`` (a ``LightRAG``) unless its chunks are already there.

    No LLM call: the graph is inserted as it is (``ainsert_custom_kg``), and
    only the embedding runs. Returns whether anything was inserted. The chunks
    are looked up by the id LightRAG gives them; should a LightRAG release
    compute ids differently, the graph is inserted again, which rewrites the
    same records.
    """
    from lightrag.utils import compute_mdhash_id, sanitize_text_for_encoding

    graph = load_custom_kg()
    ids = {
        compute_mdhash_id(sanitize_text_for_encoding(chunk["content"]), prefix="chunk-") for chunk in graph["chunks"]
    }
    if not await rag.text_chunks.filter_keys(ids):
        return False
    await rag.ainsert_custom_kg(graph)
    return True
