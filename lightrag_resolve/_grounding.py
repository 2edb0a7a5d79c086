"""Grounding: a model may only hand retrieval names the conversation established.

Pure functions over the candidates of ``_candidates`` and the turn's text.
A low-level keyword is kept when it is one of the candidates (or holds one, or
is held by one) or occurs in the reply or the history; a reference name only
when it is one of the candidates. A reply that picks one option ("B1", "the
second one") has that option first, and the options it did not pick are
dropped, since a fixed ``top_k`` spent on every option the assistant offered
retrieves none of them well.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._candidates import Candidates
from ._conversation import Turn
from ._enforce import contains_phrase, enforce_text_query
from ._pointers import is_function_word
from ._text import without_possessive

__all__ = [
    "GroundedKeywords",
    "focus_on_pick",
    "ground_keywords",
    "ground_reference_name",
    "mentions_other_option",
    "resolved_meaning",
    "unestablished_in",
    "unestablished_names",
    "without_other_options",
]


@dataclass(frozen=True, kw_only=True)
class GroundedKeywords:
    """The low-level keywords kept, and those dropped as not established by the conversation."""

    kept: tuple[str, ...]
    dropped: tuple[str, ...]


def _grounded(keyword: str, candidates: Candidates, texts: Sequence[str]) -> bool:
    if candidates.matching(keyword) is not None:
        return True
    return any(contains_phrase(text, keyword) for text in texts)


def ground_keywords(
    keywords: Sequence[str], *, candidates: Candidates, reply: str, history: Sequence[str]
) -> GroundedKeywords:
    """Split ``keywords`` into those the candidates, the reply or a history message establish, and the rest."""
    kept = tuple(keyword for keyword in keywords if _grounded(keyword, candidates, (reply, *history)))
    dropped = tuple(keyword for keyword in keywords if keyword not in kept)
    return GroundedKeywords(kept=kept, dropped=dropped)


def focus_on_pick(keywords: Sequence[str], *, pick: str | None, candidates: Candidates) -> tuple[str, ...]:
    """The keywords about ``pick`` first ("Offre Santé" for "Santé"), without the options it did not pick.

    ``pick`` itself leads when no keyword holds it.
    """
    if pick is None:
        return tuple(keywords)
    others = {option.casefold() for option in candidates.options if option.casefold() != pick.casefold()}
    kept = [keyword for keyword in keywords if keyword.casefold() not in others]
    about = [keyword for keyword in kept if contains_phrase(keyword, pick)] or [pick]
    return tuple(about + [keyword for keyword in kept if keyword not in about])


def mentions_other_option(text: str, *, pick: str, candidates: Candidates) -> bool:
    """Whether ``text`` names an offered option other than ``pick``."""
    return any(contains_phrase(text, option) for option in candidates.options if option.casefold() != pick.casefold())


_EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]")


def without_other_options(text: str, *, pick: str | None, candidates: Candidates) -> str:
    """``text`` without the offered options other than ``pick`` (case-insensitive, whole words).

    The assistant's question lists every option; carried into the text of a
    reply that picked one (contract §5.6), the others would pull their own
    documents in. Without a pick the text is returned as it is.
    """
    if pick is None:
        return text
    for option in candidates.options:
        if option.casefold() != pick.casefold() and not contains_phrase(pick, option):
            text = re.sub(r"(?<!\w)" + re.escape(option) + r"(?!\w)", "", text, flags=re.IGNORECASE)
    return " ".join(_EMPTY_BRACKETS.sub("", text).split())


def ground_reference_name(name: str, candidates: Candidates) -> str | None:
    """The candidate a proposed reference name stands for: by list number, exactly, or the one it overlaps."""
    by_number = candidates.by_number(name)
    if by_number is not None:
        return by_number
    return candidates.matching(name)


_WORD = re.compile(r"(?<![\w'\u2019-])[^\W\d_][\w'\u2019-]*")


def unestablished_names(text: str, *, message: str, history: Sequence[str], candidates: Candidates) -> tuple[str, ...]:
    """The capitalised words of ``text`` that neither the message, the history nor a candidate holds.

    A model's rewrite may say in other words what the conversation asked,
    but a name (a capitalised word that is not a function word such as
    "What" or "Quelle") must come from the conversation: a small model
    otherwise brings in a product or a person from what it knows. Words are
    compared whole and without case or an English possessive ending.
    """
    texts = (message, *history, *candidates.names)
    unknown = []
    for match in _WORD.finditer(text):
        word = without_possessive(match.group()).strip("-'\u2019")
        if not word[:1].isupper() or is_function_word(word):
            continue
        if not contains_phrase(texts, word):
            unknown.append(word)
    return tuple(unknown)


def unestablished_in(turn: Turn, text: str, *, messages: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """``unestablished_names`` of a model's text against what the turn established.

    The visitor's message, the window's messages (or ``messages``, what the
    prompt showed), its candidates and the configured company's name (which
    the rewrite checks append) all count.
    """
    shown = turn.message_texts if messages is None else messages
    known = (*shown, turn.company_name) if turn.company_name else shown
    return unestablished_names(text, message=turn.query, history=known, candidates=turn.candidates)


def resolved_meaning(turn: Turn, text: object, keywords: tuple[str, ...] = (), *, max_words: int) -> str | None:
    """A short reply's resolved search text: the model's, checked like a rewrite and held to the reply's pick.

    A meaning that names an option the reply did not pick is replaced by the
    pick; one that leaves the pick out gets it in front. Without a usable
    text, the first grounded low-level keywords stand in for it; ``None``
    when there is neither.
    """

    def checked(value: object) -> str | None:
        return enforce_text_query(value, company_name=turn.company_name, max_words=max_words).query

    meaning = checked(text)
    pick = turn.picked
    if meaning is not None and pick is not None:
        if mentions_other_option(meaning, pick=pick, candidates=turn.candidates):
            meaning = checked(pick)
        elif not contains_phrase(meaning, pick):
            meaning = checked(f"{pick} {meaning}")
    if meaning is None and keywords:
        head = keywords[:3]
        words = " ".join(k for k in head if not any(o != k and contains_phrase(o, k) for o in head)).split()
        meaning = " ".join(words[:max_words]) or None
    return meaning
