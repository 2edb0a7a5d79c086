"""Keywords that may reach LightRAG: both lists or neither, capped, and grounded in the conversation.

A low-level keyword is kept when it is, holds or is held by a candidate, or occurs in the reply or the history. A picked
option leads and the others go: a fixed ``top_k`` spent on every offered option retrieves none well. A reference check
carries the keywords of the message as resolved, its name first (contract §7), so LightRAG's extraction does not run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._facts import Candidates
from .._languages.text import (
    MAX_KEYWORD_CHARS,
    clean_single_line,
    clip_chars,
    contains_phrase,
    normalize_for_compare,
)
from .._resolution import Resolution
from .answers import QUOTES, is_none_answer, is_scaffold

__all__ = [
    "check_keywords",
    "LightRAGKeywords",
    "clean_keywords",
    "enforce_keywords",
    "focus_on_pick",
    "ground_keywords",
    "keywords_with_name",
    "reuse_keywords",
]


def clean_keywords(values: Any) -> list[str]:
    """Strings only, each one clean line cut to ``MAX_KEYWORD_CHARS``, without empties, ``NONE``s or repeats, in order.

    Repeats are case-insensitive. A single string is split on commas, semicolons and new lines (a model's CSV answer).
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
        keyword = clip_chars(clean_single_line(value).strip(QUOTES), MAX_KEYWORD_CHARS).strip(QUOTES)
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
    """Clean both lists and keep them only together, capped (contract §5.2).

    Else neither, with the first reason of ``empty``, ``scaffold`` (the whole answer is discarded) and ``incomplete``.
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
    return KeywordOutcome(ll_keywords=tuple(ll[:max_ll]), hl_keywords=tuple(hl[:max_hl]), fallback_reason=None)


@dataclass(frozen=True, kw_only=True)
class GroundedKeywords:
    """The low-level keywords kept, and those dropped as not established by the conversation."""

    kept: tuple[str, ...]
    dropped: tuple[str, ...]


_COMPOSED_WORD = re.compile(r"[^\W_](?:[\w'’.\-]*[^\W_])?")


def _grounded(keyword: str, candidates: Candidates, texts: Sequence[str]) -> bool:
    """Whether ``keyword`` is a candidate (or holds or is held by one), occurs in ``texts``, or is made of their words.

    "Lumora B1" after "Lumora A1 or B1?" names what was offered. Evidence: the first candidate collector (beside the
    bundled sample, an evaluation set); composed words from a German case (contract §5.4), no evaluation item recorded.
    """
    if candidates.matching(keyword) is not None:
        return True
    if any(contains_phrase(text, keyword) for text in texts):
        return True
    words = _COMPOSED_WORD.findall(keyword)
    sources = (*texts, *candidates.names)
    return len(words) > 1 and all(contains_phrase(sources, word) for word in words)


def ground_keywords(
    keywords: Sequence[str], *, candidates: Candidates, reply: str, history: Sequence[str]
) -> GroundedKeywords:
    """Split ``keywords`` into those the candidates, the reply or a history message establish, and the rest."""
    kept = tuple(keyword for keyword in keywords if _grounded(keyword, candidates, (reply, *history)))
    dropped = tuple(keyword for keyword in keywords if keyword not in kept)
    return GroundedKeywords(kept=kept, dropped=dropped)


def focus_on_pick(keywords: Sequence[str], *, pick: str | None, candidates: Candidates) -> tuple[str, ...]:
    """The keywords about ``pick`` first ("Offre Santé" for "Santé"), without the options it did not pick.

    ``pick`` leads when no keyword holds it. A keyword naming another option however spelled ("Niveau A1" for B1) goes;
    an option in the pick ("Cerclia" in "Cerclia B1") is the pick. Evidence: the sample's picks; issue 31's spellings.
    """
    if pick is None:
        return tuple(keywords)
    others = [
        option
        for option in candidates.options
        if option.casefold() != pick.casefold() and not contains_phrase(pick, option)
    ]
    kept = [keyword for keyword in keywords if not any(contains_phrase(keyword, other) for other in others)]
    about = [keyword for keyword in kept if contains_phrase(keyword, pick)] or [pick]
    return tuple(about + [keyword for keyword in kept if keyword not in about])


@dataclass(frozen=True, kw_only=True)
class LightRAGKeywords:
    """What LightRAG's keyword extraction returned for the visitor's words, as it returned it."""

    hl_keywords: tuple[str, ...]
    ll_keywords: tuple[str, ...]


def keywords_with_name(
    name: str | tuple[str, ...], keywords: LightRAGKeywords, *, max_ll: int, max_hl: int
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``(ll, hl)``: the name (or names) first, then LightRAG's low-level keywords; its high-level ones.

    Both are cleaned (``clean_keywords``: a keyword that is the name goes) and capped; no names gives LightRAG's own.
    ``None`` when no given name survives or a list would be empty: LightRAG gets both lists or none (contract §2).
    """
    wanted = [name] if isinstance(name, str) else list(name)
    lead = clean_keywords(wanted)
    ll = clean_keywords([*lead, *keywords.ll_keywords])[:max_ll]
    hl = clean_keywords(list(keywords.hl_keywords))[:max_hl]
    if (wanted and not lead) or not ll or not hl:
        return None
    return tuple(ll), tuple(hl)


def _restated_names(resolution: Resolution) -> tuple[str, ...]:
    """The candidate names a restatement holds, in the candidates' order."""
    text = resolution.restatement or ""
    return tuple(name for name in resolution.candidates if contains_phrase(text, name))


def reuse_keywords(
    resolution: Resolution, keywords: LightRAGKeywords | None, *, max_ll: int, max_hl: int
) -> Resolution:
    """A resolved or restated reference carrying LightRAG's keywords; any other resolution as it is.

    A resolved reference leads the low-level keywords with its name, a restated one with the candidates it holds, if
    any. Unchanged when nothing is reusable (no keywords, or no high-level one): LightRAG then extracts its own.
    """
    if keywords is None or resolution.path != "reference" or resolution.fallback_reason is not None:
        return resolution
    if resolution.has_keywords or not resolution.changed:
        return resolution
    if resolution.restatement is not None:
        lists = keywords_with_name(_restated_names(resolution), keywords, max_ll=max_ll, max_hl=max_hl)
    elif resolution.entity is not None and resolution.decision == "resolve":
        lists = keywords_with_name(resolution.entity, keywords, max_ll=max_ll, max_hl=max_hl)
    else:
        return resolution
    if lists is None:
        return resolution
    ll, hl = lists
    return replace(resolution, ll_keywords=ll, hl_keywords=hl)


_KEPT_AS_WRITTEN = ("keep", "ambiguous", "no_candidates")
"""The check's outcomes that retrieve with the visitor's words; keywords built for them spare LightRAG's extraction."""


def check_keywords(
    resolution: Resolution,
    *,
    ll_keywords: tuple[str, ...],
    hl_keywords: tuple[str, ...],
    max_ll: int,
    max_hl: int,
) -> Resolution:
    """A reference check's outcome carrying the keywords built from what it decided, in graph modes (contract §7).

    A resolved or restated reference leads them with its name(s) (``reuse_keywords``); a KEEP, an unrestated AMBIGUOUS
    or a window naming nothing is no longer a fallback. A refused name or a failed check keeps its fallback; unchanged
    when a list would be empty.
    """
    if resolution.path != "reference" or resolution.has_keywords:
        return resolution
    keywords = LightRAGKeywords(hl_keywords=tuple(hl_keywords), ll_keywords=tuple(ll_keywords))
    if resolution.fallback_reason not in _KEPT_AS_WRITTEN:
        return reuse_keywords(resolution, keywords, max_ll=max_ll, max_hl=max_hl)
    lists = keywords_with_name((), keywords, max_ll=max_ll, max_hl=max_hl)
    if lists is None:
        return resolution
    ll, hl = lists
    return replace(resolution, fallback_reason=None, ll_keywords=ll, hl_keywords=hl)
