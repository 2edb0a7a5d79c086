"""What the demo shows as understood for one turn: the name, the meaning or the keywords, in a line.

The ``Resolution`` record holds what retrieval got (``query``: the visitor's
words, the resolved meaning and the assistant's question, often hundreds of
characters). A person watching the demo wants the part the resolver added:
for a reference the name it found (``entity``) or its restatement, for a
short reply the meaning between the visitor's words and the carried question,
in graph modes the keywords that replaced LightRAG's extraction, and when
nothing was added, why the words were searched as written.
"""

from __future__ import annotations

from .._languages.text import clean_single_line
from .._resolution import Resolution

__all__ = ["understood"]

_SEPARATOR = " — "
"""How ``_enforce.answers`` joins the visitor's words, the meaning and the question."""

_WHY_AS_WRITTEN = {
    "disabled": "resolver off",
    "unsupported_mode": "a mode the resolver does not know",
    "first_turn": "a first turn, nothing to resolve",
    "gate_declined": "not a follow-up",
    "caller_keywords": "the caller gave its own keywords",
    "unprompted": "answers no question: the visitor's own topic",
    "stands_alone": "names its own subject",
    "keep": "stands alone, the model said",
    "ambiguous": "could point at several things",
    "no_candidates": "the conversation names nothing to point at",
}


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_reply_meaning(resolution: Resolution) -> str | None:
    """The meaning a short reply's text adds between the visitor's words and the carried question, if any."""
    text = resolution.query
    context = clean_single_line(resolution.context or "")
    if context and text.endswith(_SEPARATOR + context):
        text = text[: -len(_SEPARATOR + context)]
    elif context and text == context:
        return None
    words = clean_single_line(resolution.original_query)
    if text.startswith(words + _SEPARATOR):
        text = text[len(words + _SEPARATOR) :]
    return None if not text or text == words else text


def _keywords(resolution: Resolution) -> str:
    return f"keywords: {', '.join(resolution.ll_keywords)} · themes: {', '.join(resolution.hl_keywords)}"


def _as_written(reason: str) -> str:
    why = _WHY_AS_WRITTEN.get(reason) or (
        f"the name was refused ({reason.partition(':')[2]})"
        if reason.startswith("rejected:")
        else f"the model gave nothing usable ({reason})"
    )
    return f"searched as written: {why}"


def understood(resolution: Resolution, *, limit: int = 90) -> str:
    """One line: what the resolver understood of the turn, or why the visitor's words went as written.

    Never the whole retrieval text; each quoted part is cut at ``limit`` characters.
    """
    if resolution.fallback_reason is not None:
        return _as_written(resolution.fallback_reason)
    if resolution.path == "bypass":
        return "searched as written: bypass mode"
    parts: list[str] = []
    if resolution.entity:
        parts.append(f"the name “{_clip(resolution.entity, limit)}”")
    elif resolution.restatement:
        parts.append(f"the meaning “{_clip(resolution.restatement, limit)}”")
    elif resolution.path in ("keywords", "text"):
        meaning = short_reply_meaning(resolution)
        if meaning:
            parts.append(f"the meaning “{_clip(meaning, limit)}”")
        elif resolution.context:
            missing = f" (no meaning: {resolution.carry_reason})" if resolution.carry_reason else ""
            parts.append(f"answers “{_clip(resolution.context, limit)}”{missing}")
    if resolution.ll_keywords:
        parts.append(_keywords(resolution))
    if not parts:
        return "searched as written: " + (
            "stands alone, the model said" if resolution.decision == "keep" else "unchanged"
        )
    return " · ".join(parts)
