"""Names that may reach retrieval: only ones the conversation established, never the company, bounded.

The reference check may add one name (contract §5.3): one of the turn's candidates, in the window, not the company,
not already in the message, within the name cap. Text the model writes beside the visitor's words (a restatement, a
standalone question) may name nothing the conversation did not establish.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .._facts import Candidates, TurnFacts
from .._languages.pointing import is_function_word
from .._languages.text import (
    MAX_NAME_CHARS,
    clean_single_line,
    contains_phrase,
    without_elision,
    without_possessive,
)
from .._resolution import RejectedReason
from .answers import QUOTES, first_line

__all__ = [
    "NameOutcome",
    "accept_reference_name",
    "cut_gloss",
    "name_with_message",
    "refused_mentions",
    "unestablished_in",
    "unestablished_names",
]


_GLOSS = re.compile(r"\s+[-–—]\s+|\s*:\s+|\s*[(\[]|\s*[;,]\s+|\.\s|\n")


def cut_gloss(name: str) -> str:
    """The name alone, without an explanation the model added after it.

    "Eudonet - the message is about…" and "Eudonet (the CRM)" give "Eudonet", without quotes or final punctuation. Only
    the first line counts, cleaned first (terminal escapes included).
    """
    head = _GLOSS.split(clean_single_line(first_line(name)), maxsplit=1)[0]
    return clean_single_line(head).strip(QUOTES).rstrip(".,;:!?").strip(QUOTES)


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

    The name (gloss cut) must occur in ``history_text`` (what the messages said, never the prompt's labels), not be the
    company, not already be in the message, and have at most ``max_words`` words and ``MAX_NAME_CHARS`` characters;
    checked in that order, the first failure is the recorded reason. Comparisons follow ``normalize_for_compare``.
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

    The name leads, as it leads the low-level keywords: it ranked the named thing's documents higher than after the
    message (measured: docs/findings.md#the-name-leads-a-resolved-reference). Both go on one clean line.
    """
    return f"{clean_single_line(name)} — {clean_single_line(message)}"


_WORD = re.compile(r"(?<![\w'\u2019-])[^\W\d_][\w'\u2019-]*")


def unestablished_names(text: str, *, message: str, history: Sequence[str], candidates: Candidates) -> tuple[str, ...]:
    """The capitalised words of ``text`` that neither the message, the history nor a candidate holds.

    A name (a capitalised word, not a function word such as "What") must come from the conversation, or a small model
    brings one in from what it knows. Words compare whole, without case, possessive or elided article
    (``without_elision``). Evidence: capitals in English and French (grammar); the MTRAG cut; elisions from issue 31.
    """
    texts = (message, *history, *candidates.names)
    unknown = []
    for match in _WORD.finditer(text):
        word = without_elision(without_possessive(match.group()).strip("-'\u2019")).strip("-'\u2019")
        if not word[:1].isupper() or is_function_word(word):
            continue
        if not contains_phrase(texts, word):
            unknown.append(word)
    return tuple(unknown)


def unestablished_in(turn: TurnFacts, text: str) -> tuple[str, ...]:
    """``unestablished_names`` of a model's text against the message, the window, its candidates and company name."""
    shown = turn.conversation_texts
    known = (*shown, turn.company_name) if turn.company_name else shown
    return unestablished_names(text, message=turn.query, history=known, candidates=turn.candidates)


def refused_mentions(turn: TurnFacts, text: str, *, max_name_words: int) -> tuple[str, ...]:
    """The candidates ``text`` names, beyond those the message holds, that the reference check would refuse.

    A model's text beside the visitor's words brings names into retrieval as the check does, so each must pass
    ``accept_reference_name``: a candidate refused as ``too_long`` must not come back inside a restatement.
    """
    refused = []
    for name in turn.candidates.mentioned_in(text):
        if contains_phrase(turn.query, name):
            continue  # the visitor's own words
        outcome = accept_reference_name(
            name,
            history_text=turn.conversation_texts,
            message=turn.query,
            company_name=turn.company_name,
            max_words=max_name_words,
        )
        if outcome.name is None:
            refused.append(name)
    return tuple(refused)
