"""A deterministic fake model for the bundled Vellinor sample, named as such.

``sample_script(role, system, user)`` answers every prompt the resolver and
LightRAG send while the sample's scripted turns are played: it finds the
sample item the prompt is about (the visitor's message, and the last earlier
message when two items share a message) and answers from that item's own
annotations: the entity names its hand-written ``rewrite`` mentions become the
keywords, the ``rewrite`` the naive-mode query, ``expect`` the reference
decision. The same function serves an in-process ``ScriptedLLM``
(``sample_llm``) and the fake OpenAI-compatible endpoint of the server tests,
so outcomes can be compared across storages and processes.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from fakes import ScriptedLLM, keyword_json

from lightrag_resolve.sample import load_custom_kg, load_items

_MESSAGE = re.compile(r"^(?:Reply|Message): (.*)$", re.MULTILINE)
_USER_QUERY = re.compile(r"User Query:\s*(.+)")


@cache
def _entity_names() -> tuple[str, ...]:
    # Longest first, so "Kadoro Mini" is found before "Kadoro".
    names = {entity["entity_name"] for entity in load_custom_kg()["entities"]}
    return tuple(sorted(names, key=lambda name: (-len(name), name)))


@cache
def _items_by_query() -> dict[str, tuple[dict[str, Any], ...]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for item in load_items():
        found.setdefault(item["query"].strip(), []).append(item)
    return {query: tuple(items) for query, items in found.items()}


def item_for(user: str) -> dict[str, Any] | None:
    """The sample item a resolver prompt is about, or ``None``."""
    match = _MESSAGE.search(user)
    if match is None:
        return None
    candidates = _items_by_query().get(match.group(1).strip(), ())
    for item in candidates:
        last = item["history"][-1]["content"] if item["history"] else ""
        if last[:60] in user:
            return item
    return candidates[0] if candidates else None


def names_in(text: str) -> list[str]:
    """Sample entity names in ``text``, longest match first, each once, none inside another found one."""
    found: list[str] = []
    lowered = text.casefold()
    for name in _entity_names():
        if name.casefold() in lowered and not any(name.casefold() in other.casefold() for other in found):
            found.append(name)
    return found


def _keywords(item: dict[str, Any]) -> str:
    rewrite = item.get("rewrite") or item["query"]
    ll = names_in(rewrite)[:4] or [item["query"]]
    hl = [" ".join(rewrite.rstrip("?.!").split()[:6])]
    return keyword_json(ll, hl, query=" ".join(rewrite.rstrip("?.!").split()[:8]))


def _reference(item: dict[str, Any]) -> str:
    expect = item.get("expect") or {}
    if expect.get("decision") == "resolve" and expect.get("entity"):
        return f"RESOLVE: {expect['entity']}"
    return "AMBIGUOUS" if expect.get("decision") == "ambiguous" else "KEEP"


def _lightrag_keywords(user: str) -> str:
    match = _USER_QUERY.search(user)
    words = (match.group(1) if match else "").strip().strip('"') or "query"
    return json.dumps({"high_level_keywords": [words], "low_level_keywords": names_in(words) or [words]})


def sample_script(role: str, system: str, user: str) -> str:
    """The fake model's answer for one prompt (roles as ``fakes.prompt_role`` names them)."""
    if role == "lightrag_keywords":
        return _lightrag_keywords(user)
    if role == "answer":
        return "An answer from the context."
    item = item_for(user)
    if item is None:
        return "KEEP" if role == "reference" else "NONE"
    if role == "keywords":
        return _keywords(item)
    if role == "text":
        rewrite = item.get("rewrite") or item["query"]
        return " ".join(rewrite.rstrip("?.!").split()[:8])
    if role == "reference":
        return _reference(item)
    return "NONE"


def sample_llm() -> ScriptedLLM:
    """An in-process ``ScriptedLLM`` answering with ``sample_script``."""

    def reply(role: str) -> Any:
        return lambda call: sample_script(role, call.system_prompt or "", call.prompt)

    roles = ("keywords", "text", "reference", "lightrag_keywords", "answer")
    return ScriptedLLM(replies={role: reply(role) for role in roles})
