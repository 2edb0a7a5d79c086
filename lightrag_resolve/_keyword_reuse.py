"""contract §7: a resolved reference reuses LightRAG's own keywords instead of extracting them again.

The speculative search asks LightRAG's keyword extraction (its own function,
cache and keyword-role LLM) for the visitor's words. When the reference check
then resolves the message to a name, those keywords are reused with the name
leading the low-level list, so the resolved retrieval costs no second
extraction call. A restated follow-up (contract §5.9) reuses them the same
way, led by the candidate names its restatement holds. These functions are
pure; the orchestration is in ``_speculative``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ._enforce import clean_keywords, contains_phrase
from ._resolution import Resolution

__all__ = ["LightRAGKeywords", "keywords_with_name", "reuse_keywords"]


@dataclass(frozen=True, kw_only=True)
class LightRAGKeywords:
    """What LightRAG's keyword extraction returned for the visitor's words, as it returned it."""

    hl_keywords: tuple[str, ...]
    ll_keywords: tuple[str, ...]

    @classmethod
    def from_extraction(cls, hl_keywords: Any, ll_keywords: Any) -> LightRAGKeywords | None:
        """The pair LightRAG would search with; ``None`` when it is empty or not two lists of text.

        ``None`` means "let LightRAG extract as it always does": an empty pair
        set on a ``QueryParam`` would make LightRAG extract again anyway.
        """
        if not isinstance(hl_keywords, list) or not isinstance(ll_keywords, list):
            return None
        if not all(isinstance(k, str) for k in (*hl_keywords, *ll_keywords)):
            return None
        if not hl_keywords and not ll_keywords:
            return None
        return cls(hl_keywords=tuple(hl_keywords), ll_keywords=tuple(ll_keywords))


def keywords_with_name(
    name: str | tuple[str, ...], keywords: LightRAGKeywords, *, max_ll: int, max_hl: int
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``(ll, hl)``: the name (or names) first, then LightRAG's low-level keywords; its high-level ones.

    Both lists are cleaned (``_enforce.clean_keywords``: strings only, one line,
    no case-insensitive repeats, so a keyword that is the name is dropped) and
    cut to the library's caps. ``None`` when a name was given and none
    survives that cleaning, or when either list would be empty: the library
    hands LightRAG both lists or none (contract §2). An empty tuple of names
    gives LightRAG's own keywords, cleaned and capped.
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

    A resolved reference leads the low-level keywords with its name; a
    restated one with the candidate names its restatement holds, or, holding
    none, takes LightRAG's keywords as they are. Unchanged when nothing is
    reusable (no keywords, or no high-level one): LightRAG then extracts from
    the enriched text as before.
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
