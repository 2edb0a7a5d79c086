"""The invariants of contract §5, enforced in code on whatever a model returned.

Every function here is pure: model text in, a cleaned value or a fallback
reason out. They are the target of the property tests, and they run after any
subclass override of prompting or parsing, so an override cannot bypass them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ._resolution import RejectedReason

__all__ = [
    "KeywordOutcome",
    "NameOutcome",
    "TextOutcome",
    "accept_reference_name",
    "append_name",
    "clean_keywords",
    "contains_phrase",
    "cut_gloss",
    "enforce_keywords",
    "enforce_text_query",
    "is_none_answer",
    "is_scaffold",
]

# A model that narrates ("The visitor wants…", "L'utilisateur demande…") has
# leaked its reasoning instead of answering; such text never reaches retrieval.
_SCAFFOLD = re.compile(
    r"\b(?:the|an?|this)\s+(?:assistant|visitor|user|chatbot|bot)\b"
    r"|\b(?:the|this)\s+(?:conversation|message|reply)\b"
    r"|\bl['’]\s*(?:assistant|assistante|utilisateur|utilisatrice|interlocuteur)\b"
    r"|\b(?:le|la|du|au|une?|ce|cette)\s+(?:visiteur|visiteuse|chatbot)\b"
    r"|\b(?:la|cette)\s+conversation\b|\b(?:le|ce)\s+message\b",
    re.IGNORECASE,
)
_NONE_ANSWERS = frozenset({"none", "null", "n/a", "na", "aucun", "aucune", "rien", "-"})
_LABEL = re.compile(
    r"^(?:search\s+query|query|rewritten\s+query|rewrite|requête|recherche|answer|réponse)\s*:\s*",
    re.IGNORECASE,
)
_QUOTES = "\"'`“”‘’«» "
_GLOSS = re.compile(r"\s+[-–—]\s+|\s*:\s+|\s*[(\[]|\s*[;,]\s+|\.\s|\n")


def _squash(text: str) -> str:
    return " ".join(text.split())


def is_none_answer(text: str) -> bool:
    """Whether the model declined (``NONE`` and its equivalents) or said nothing."""
    return _squash(text).strip(_QUOTES + ".!").casefold() in _NONE_ANSWERS | {""}


def is_scaffold(text: str) -> bool:
    """Whether ``text`` is the model's reasoning rather than an answer.

    True when it starts with a digit (numbered reasoning, "1. The visitor…") or
    names the assistant, the visitor, the user or the conversation, in English
    or French.
    """
    stripped = text.strip()
    return stripped[:1].isdigit() or _SCAFFOLD.search(stripped) is not None


def contains_phrase(haystack: str, needle: str) -> bool:
    """Case-insensitive whole-word containment, blind to runs of white space."""
    needle = _squash(needle).casefold()
    if not needle:
        return False
    pattern = r"(?<!\w)" + re.escape(needle) + r"(?!\w)"
    return re.search(pattern, _squash(haystack).casefold()) is not None


@dataclass(frozen=True, kw_only=True)
class TextOutcome:
    """A search query to use, or the reason to use the visitor's words."""

    query: str | None
    fallback_reason: str | None


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def enforce_text_query(output: Any, *, company_name: str | None, max_words: int) -> TextOutcome:
    """Turn a model's rewrite into a short search query, or refuse it (contract §5.1).

    Order: first non-empty line, labels and quotes removed; ``NONE``/empty ->
    ``empty``; scaffold -> ``scaffold``; then at most ``max_words`` words, with
    the company name appended (inside the cap) when it is missing.
    """
    if not isinstance(output, str):
        return TextOutcome(query=None, fallback_reason="unparsable")
    line = _LABEL.sub("", _first_line(output)).strip(_QUOTES)
    if is_none_answer(line):
        return TextOutcome(query=None, fallback_reason="empty")
    if is_scaffold(line):
        return TextOutcome(query=None, fallback_reason="scaffold")
    words = line.split()[:max_words]
    if company_name and not contains_phrase(" ".join(words), company_name):
        company_words = company_name.split()
        words = (words[: max(max_words - len(company_words), 0)] + company_words)[:max_words]
    return TextOutcome(query=" ".join(words), fallback_reason=None)


def clean_keywords(values: Any) -> list[str]:
    """Strings only, stripped, without empties, ``NONE``s or case-insensitive repeats.

    A single string is split on commas, semicolons and new lines, as models
    sometimes return one CSV string instead of a list. Order is kept.
    """
    if isinstance(values, str):
        values = re.split(r"[,;\n]", values)
    if not isinstance(values, Iterable) or isinstance(values, (bytes, dict)):
        return []
    seen: set[str] = set()
    cleaned: list[str] = []
    for value in values:
        if not isinstance(value, str):
            continue
        keyword = _squash(value).strip(_QUOTES)
        if is_none_answer(keyword) or keyword.casefold() in seen:
            continue
        seen.add(keyword.casefold())
        cleaned.append(keyword)
    return cleaned


@dataclass(frozen=True, kw_only=True)
class KeywordOutcome:
    """Both keyword lists, or neither with the reason (contract §5.2)."""

    ll_keywords: tuple[str, ...]
    hl_keywords: tuple[str, ...]
    fallback_reason: str | None


def enforce_keywords(ll_raw: Any, hl_raw: Any, *, max_ll: int, max_hl: int) -> KeywordOutcome:
    """Clean both lists and keep them only together (contract §5.2).

    Order: clean each list; nothing left in either -> ``empty``; any keyword that
    is scaffold -> ``scaffold`` (the whole answer is discarded); one list empty
    -> ``incomplete``; otherwise both lists cut to their caps.
    """
    ll, hl = clean_keywords(ll_raw), clean_keywords(hl_raw)
    reason = None
    if not ll and not hl:
        reason = "empty"
    elif any(is_scaffold(keyword) for keyword in (*ll, *hl)):
        reason = "scaffold"
    elif not ll or not hl:
        reason = "incomplete"
    if reason is not None:
        return KeywordOutcome(ll_keywords=(), hl_keywords=(), fallback_reason=reason)
    return KeywordOutcome(
        ll_keywords=tuple(ll[:max_ll]), hl_keywords=tuple(hl[:max_hl]), fallback_reason=None
    )


def cut_gloss(name: str) -> str:
    """The name alone, without an explanation the model added after it.

    "Eudonet - the message is about…" and "Eudonet (the CRM)" both give
    "Eudonet"; surrounding quotes and final punctuation go too.
    """
    head = _GLOSS.split(name.strip(), maxsplit=1)[0]
    return _squash(head).strip(_QUOTES).rstrip(".,;:!?").strip(_QUOTES)


@dataclass(frozen=True, kw_only=True)
class NameOutcome:
    """An accepted name, or why the proposed one was discarded."""

    name: str | None
    rejected_reason: RejectedReason | None


def accept_reference_name(
    name: str,
    *,
    history_text: str,
    message: str,
    company_name: str | None,
    max_words: int,
) -> NameOutcome:
    """Accept a proposed name only when the conversation established it (contract §5.3).

    The name (gloss cut) must occur in the history the model saw, must not be
    the company itself, must not already be in the message, and must have at
    most ``max_words`` words. Checked in that order; the first failure is the
    recorded reason.
    """
    name = cut_gloss(name)
    if not name or not contains_phrase(history_text, name):
        return NameOutcome(name=None, rejected_reason="not_in_history")
    if company_name and contains_phrase(company_name, name):
        return NameOutcome(name=None, rejected_reason="company")
    if contains_phrase(message, name):
        return NameOutcome(name=None, rejected_reason="already_named")
    if len(name.split()) > max_words:
        return NameOutcome(name=None, rejected_reason="too_long")
    return NameOutcome(name=name, rejected_reason=None)


def append_name(message: str, name: str) -> str:
    """The retrieval input for a resolved reference: the message, then the name."""
    return f"{message.strip()} — {name}"
