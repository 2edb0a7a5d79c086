"""A fixture in the doc2dial cut's shape: passages ``<doc>::<n>`` headed by their page title, turns with ``doc``."""

from __future__ import annotations

import json
from pathlib import Path

DOC = "Apply for benefits | Social Security Administration#1_0"
"""A doc2dial document id: the page title and a ``#1_0`` suffix."""


def write_doc2dial_cut(folder: Path) -> Path:
    """Write ``passages.jsonl`` and ``turns.jsonl`` as the doc2dial cut has them (no ``rewrite``) into ``folder``."""
    folder.mkdir(parents=True)
    texts = ["You can apply online at any age.", "Bring your birth certificate."]
    passages = [
        {"id": f"{DOC}::{n}", "domain": "ssa", "title": "Apply for benefits", "text": f"Apply for benefits\n{text}"}
        for n, text in enumerate(texts)
    ]
    history = [
        {"role": "user", "content": "Can I apply for benefits online?"},
        {"role": "assistant", "content": "Do you want to apply for retirement benefits?"},
    ]
    turns = [
        {"id": "d1_3", "domain": "ssa", "lang": "en", "history": history, "query": "yes",
         "turn_class": "short_reply", "relevant": [f"{DOC}::0"], "doc": DOC},
        {"id": "d1_5", "domain": "ssa", "lang": "en", "history": history, "query": "What papers do I need to bring?",
         "turn_class": "follow_up", "relevant": [f"{DOC}::1", f"{DOC}::0"], "doc": DOC},
    ]
    for name, rows in (("passages.jsonl", passages), ("turns.jsonl", turns)):
        (folder / name).write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return folder
