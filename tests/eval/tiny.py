"""A tiny evaluation dataset over ``tests/kb.py`` and a scripted LLM that answers every arm's prompts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fakes import Call, ScriptedLLM, keyword_json
from kb import DOCS, custom_kg

from lightrag_resolve.eval import _anythingllm, _prose
from lightrag_resolve.eval._judges import JUDGE_SYSTEM_PROMPT

PULSE = [
    {"role": "user", "content": "Tell me about your loyalty terminal for shops."},
    {"role": "assistant", "content": "Pulse POS is the loyalty terminal Helix sells to retailers and shops."},
]
SECTORS = [
    {"role": "user", "content": "What do you offer?"},
    {"role": "assistant", "content": "Helix has an offer for health and one for construction. Which sector: Santé or BTP?"},
]
B1_QUESTION = "Yes: German courses at level A1 and level B1. Which level?"
"""The question the short reply "B1" answers; its words join the resolved text (contract §5.6)."""
COURSES = [
    {"role": "user", "content": "Do you teach German?"},
    {"role": "assistant", "content": B1_QUESTION},
]
B1_CONTEXT = f"Do you teach German? {B1_QUESTION}"
"""What "B1" carries: the visitor's question before the assistant's, then the assistant's (contract §5.6)."""

ITEMS: list[dict[str, Any]] = [
    {"id": "first", "history": [], "query": "Which retailers run Pulse POS?", "relevant": ["doc-pulse-customers"]},
    {"id": "short-sante", "history": SECTORS, "query": "Santé", "relevant": ["doc-sante"],
     "rewrite": "Helix offer for the health sector Santé"},
    {"id": "ref-pulse", "history": PULSE, "query": "Which retailers already run it?", "turn_class": "reference",
     "relevant": ["doc-pulse-customers"], "rewrite": "Which retailers already run Pulse POS?",
     "expect": {"decision": "resolve", "entity": "Pulse POS"}},
    {"id": "follow-offices", "history": SECTORS, "query": "How many offices does Helix have?",
     "must_contain": ["Montréal"], "expect": {"decision": "keep", "entity": None}},
    {"id": "short-b1", "mode": "naive", "history": COURSES, "query": "B1", "relevant": ["doc-courses"],
     "rewrite": "German course level B1"},
]

# What a compliant small model would answer, per prompt kind and visitor message.
KEYWORDS = {"Santé": keyword_json(["Offre Santé", "Vitalis"], ["health offer"])}
TEXT = {"B1": "German course level B1"}
ANYTHINGLLM = {
    "Santé": "Helix health offer Santé",
    "Which retailers already run it?": "Retailers running Pulse POS loyalty terminal",
    "How many offices does Helix have?": "UNCHANGED",
    "B1": "German course level B1",
}
PROSE = {
    "Santé": "What is Helix's offer for the health sector?",
    "Which retailers already run it?": "Which retailers already run Pulse POS?",
    "How many offices does Helix have?": "How many offices does Helix have?",
    "B1": "What is the German course at level B1?",
}


def _message(prompt: str, label: str) -> str:
    match = re.search(rf"^{label}: (.*)$", prompt, re.MULTILINE)
    return match.group(1).strip() if match else ""


def _reference(call: Call) -> str:
    return "RESOLVE: Pulse POS" if "run it?" in call.prompt else "KEEP"


def _answer(call: Call) -> str:
    system = call.system_prompt or ""
    if system == _anythingllm.SYSTEM_PROMPT:
        return ANYTHINGLLM.get(_message(call.prompt, "Latest message"), "UNCHANGED")
    if system == _prose.SYSTEM_PROMPT:
        return PROSE.get(_message(call.prompt, "Follow-up message"), "")
    if system == JUDGE_SYSTEM_PROMPT:
        context = call.prompt.split("Retrieved context:", 1)[1]
        return "YES" if "Helix" in context or "Pulse" in context else "NO"
    return "An answer from the context."


def scripted_llm() -> ScriptedLLM:
    """Answers the resolver's, LightRAG's and every arm's prompts from the tables above."""
    return ScriptedLLM(
        replies={
            "keywords": lambda call: KEYWORDS.get(_message(call.prompt, "Reply"), "NONE"),
            "text": lambda call: TEXT.get(_message(call.prompt, "Reply"), "NONE"),
            "reference": _reference,
            "standalone": _answer,  # the prose arm's condense prompt
            "answer": _answer,
        }
    )


def write_dataset(folder: Path, *, passages: bool = False, items: list[dict[str, Any]] | None = None) -> Path:
    """Write ``items.jsonl`` and a ``kb.json`` (or ``passages.jsonl``) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(item, ensure_ascii=False) for item in (ITEMS if items is None else items)]
    (folder / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if passages:
        rows = [json.dumps({"id": doc, "text": text}, ensure_ascii=False) for doc, text in DOCS.items()]
        (folder / "passages.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    else:
        (folder / "kb.json").write_text(json.dumps(custom_kg(), ensure_ascii=False), encoding="utf-8")
    return folder
