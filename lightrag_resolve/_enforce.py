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
from ._text import (
    MAX_KEYWORD_CHARS,
    MAX_NAME_CHARS,
    MAX_QUERY_CHARS,
    clean_single_line,
    clip_chars,
    normalize_for_compare,
    without_possessive,
)

__all__ = [
    "KeywordOutcome",
    "NameOutcome",
    "TextOutcome",
    "accept_reference_name",
    "append_context",
    "append_meaning",
    "clean_keywords",
    "contains_phrase",
    "cut_gloss",
    "enforce_keywords",
    "enforce_text_query",
    "is_none_answer",
    "is_scaffold",
    "name_with_message",
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
    r"^(?:search\s+query|query|rewritten\s+query|rewrite|requête|recherche|answer|réponse"
    r"|standalone\s+question|rewritten\s+question|question)\s*:\s*",
    re.IGNORECASE,
)
_QUOTES = "\"'`“”‘’«» "
_GLOSS = re.compile(r"\s+[-–—]\s+|\s*:\s+|\s*[(\[]|\s*[;,]\s+|\.\s|\n")


def _squash(text: str) -> str:
    return " ".join(text.split())


def is_none_answer(text: str) -> bool:
    """Whether the model declined (``NONE`` and its equivalents) or said nothing visible."""
    return clean_single_line(text).strip(_QUOTES + ".!").casefold() in _NONE_ANSWERS | {""}


def is_scaffold(text: str) -> bool:
    """Whether ``text`` is the model's reasoning rather than an answer.

    True when it starts with a digit (numbered reasoning, "1. The visitor…") or
    names the assistant, the visitor, the user or the conversation, in English
    or French.
    """
    stripped = text.strip()
    return stripped[:1].isdigit() or _SCAFFOLD.search(stripped) is not None


def contains_phrase(haystack: str | Iterable[str], needle: str) -> bool:
    """Whole-word containment after ``normalize_for_compare``, blind to runs of white space.

    Case, compatibility forms (full-width letters) and invisible characters
    (zero-width space, soft hyphen, BOM, word joiner) make no difference. A
    ``haystack`` that is an iterable of texts contains the needle when one of
    them does, so a phrase never matches across two messages.
    """
    needle = normalize_for_compare(needle)
    if not needle:
        return False
    texts = (haystack,) if isinstance(haystack, str) else tuple(haystack)
    pattern = re.compile(r"(?<!\w)" + re.escape(needle) + r"(?!\w)")
    return any(pattern.search(normalize_for_compare(text)) is not None for text in texts if isinstance(text, str))


@dataclass(frozen=True, kw_only=True)
class TextOutcome:
    """A search query to use, or the reason to use the visitor's words."""

    query: str | None
    fallback_reason: str | None


def answer_line(output: str) -> str:
    """A model's answer as one line: its first visible line, cleaned, without a label ("Query:") or quotes."""
    return _LABEL.sub("", clean_single_line(_first_line(output))).strip(_QUOTES)


def _first_line(text: str) -> str:
    """The first line with a visible character (a line of NULs or zero-width spaces is empty)."""
    for line in text.splitlines():
        if clean_single_line(line):
            return line.strip()
    return ""


def enforce_text_query(output: Any, *, company_name: str | None, max_words: int) -> TextOutcome:
    """Turn a model's rewrite into a short search query, or refuse it (contract §5.1).

    Order: first non-empty line, control and format characters dropped
    (``clean_single_line``), labels and quotes removed; ``NONE``/empty ->
    ``empty``; scaffold -> ``scaffold``; then at most ``max_words`` words and
    ``MAX_QUERY_CHARS`` characters, with the company name appended (inside
    both caps) when it is missing.
    """
    if not isinstance(output, str):
        return TextOutcome(query=None, fallback_reason="unparsable")
    line = answer_line(output)
    if is_none_answer(line):
        return TextOutcome(query=None, fallback_reason="empty")
    if is_scaffold(line):
        return TextOutcome(query=None, fallback_reason="scaffold")
    query = clip_chars(" ".join(line.split()[:max_words]), MAX_QUERY_CHARS).strip()
    company = clean_single_line(company_name or "")
    if company and not contains_phrase(query, company):
        company_words = company.split()
        words = query.split()[: max(max_words - len(company_words), 0)]
        room = MAX_QUERY_CHARS - len(company) - 1
        head = clip_chars(" ".join(words), room).split() if room > 0 else []
        query = " ".join([*head, *company_words][:max_words])
    if not query:
        return TextOutcome(query=None, fallback_reason="empty")
    return TextOutcome(query=query, fallback_reason=None)


def clean_keywords(values: Any) -> list[str]:
    """Strings only, stripped, without empties, ``NONE``s or case-insensitive repeats.

    A single string is split on commas, semicolons and new lines, as models
    sometimes return one CSV string instead of a list. Each keyword is one
    line without control or format characters, cut to ``MAX_KEYWORD_CHARS``
    characters; one left empty is dropped. Order is kept.
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
        keyword = clip_chars(clean_single_line(value).strip(_QUOTES), MAX_KEYWORD_CHARS).strip(_QUOTES)
        key = normalize_for_compare(keyword)
        if is_none_answer(keyword) or not key or key in seen:
            continue
        seen.add(key)
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
    "Eudonet"; surrounding quotes and final punctuation go too. Only the
    first line counts, and control and format characters (terminal escapes
    included) are removed before the gloss is looked for.
    """
    head = _GLOSS.split(clean_single_line(_first_line(name)), maxsplit=1)[0]
    return clean_single_line(head).strip(_QUOTES).rstrip(".,;:!?").strip(_QUOTES)


@dataclass(frozen=True, kw_only=True)
class NameOutcome:
    """An accepted name, or why the proposed one was discarded."""

    name: str | None
    rejected_reason: RejectedReason | None


def accept_reference_name(
    name: str,
    *,
    history_text: str | Iterable[str],
    message: str,
    company_name: str | None,
    max_words: int,
) -> NameOutcome:
    """Accept a proposed name only when the conversation established it (contract §5.3).

    The name (gloss cut) must occur in the history the model saw, must not be
    the company itself, must not already be in the message, and must have at
    most ``max_words`` words and ``MAX_NAME_CHARS`` characters. Checked in
    that order; the first failure is the recorded reason. ``history_text`` is
    what the messages said (``Turn.message_texts``), never the prompt's
    labels; every comparison is made after ``normalize_for_compare``.
    """
    name = cut_gloss(name)
    if not name or not contains_phrase(history_text, name):
        return NameOutcome(name=None, rejected_reason="not_in_history")
    if company_name and contains_phrase(company_name, without_possessive(name)):
        return NameOutcome(name=None, rejected_reason="company")
    if contains_phrase(message, name):
        return NameOutcome(name=None, rejected_reason="already_named")
    if len(name.split()) > max_words or len(name) > MAX_NAME_CHARS:
        return NameOutcome(name=None, rejected_reason="too_long")
    return NameOutcome(name=name, rejected_reason=None)


def name_with_message(message: str, name: str) -> str:
    """The retrieval input for a resolved reference: the name, then the visitor's message (contract §5.3).

    The name leads, as it leads the low-level keywords: measured on the
    evaluation's indexes, "<name> — <message>" ranked the named thing's
    documents higher than "<message> — <name>" on the company sample
    (22 of 27 resolved follow-ups hit@3 against 20) and on MTRAG (31 of 47
    against 30), and lost nothing either text found. Both are put on one line
    without control or format characters.
    """
    return f"{clean_single_line(name)} — {clean_single_line(message)}"


def append_meaning(message: str, meaning: str) -> str:
    """The retrieval text of a resolved short reply: the visitor's words, then what they mean.

    Nothing the visitor typed is lost, and the text-driven parts of retrieval
    (the vector chunk search, VECTOR chunk picking) see the resolved meaning.
    A meaning that already holds the whole message is used alone. Both are
    put on one line without control or format characters.
    """
    message, meaning = clean_single_line(message), clean_single_line(meaning)
    if not meaning:
        return message
    if contains_phrase(meaning, message):
        return meaning
    return f"{message} — {meaning}"


def append_context(text: str, context: str | None) -> str:
    """``text``, then the assistant's question it answers (contract §5.6), unless it already holds it.

    Without a context ``text`` is returned as it is; with one, both are put on
    one line without control or format characters, as for ``append_meaning``.
    """
    context = clean_single_line(context or "")
    if not context:
        return text
    text = clean_single_line(text)
    if contains_phrase(text, context):
        return text
    return f"{text} — {context}" if text else context
