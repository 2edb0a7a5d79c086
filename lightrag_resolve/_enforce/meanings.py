"""What a resolved turn may add to the visitor's words: a short reply's meaning, a restatement, a question.

A short reply's meaning is one clean line within the word cap, without options the reply did not pick (contract §5.1,
§5.6). A follow-up pointing back at something the check could not name is restated (§5.9), unless a KEEP (judged
searchable) or its refused name is its own, said before its pronoun. A standalone question (§5.10) is one line, no
scaffold, no name the conversation did not establish.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Any

from .._facts import Candidates, TurnFacts
from .._languages.pointing import named_before_pointing
from .._languages.text import (
    HAN_RUN,
    MAX_QUERY_CHARS,
    clip_chars,
    contains_phrase,
)
from .._resolution import Resolution
from .answers import answer_line, append_meaning, enforce_text_query, is_none_answer, is_scaffold
from .names import name_with_message, refused_mentions, unestablished_in

__all__ = [
    "adds_nothing",
    "needs_restatement",
    "resolved_meaning",
    "restated",
    "restated_name",
    "standalone_question",
]


def mentions_other_option(text: str, *, pick: str, candidates: Candidates) -> bool:
    """Whether ``text`` names an offered option other than ``pick``."""
    return any(contains_phrase(text, option) for option in candidates.options if option.casefold() != pick.casefold())


def resolved_meaning(turn: TurnFacts, text: object, keywords: tuple[str, ...] = (), *, max_words: int) -> str | None:
    """A short reply's resolved search text: the model's, checked like a rewrite and held to the reply's pick.

    A meaning naming an option the reply did not pick becomes the pick; one leaving the pick out gets it in front.
    Without a usable text the first grounded low-level keywords stand in, else ``None``. Evidence: the bundled sample's
    picks.
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
    if meaning is not None and not _about_the_offer(turn, meaning):
        return None
    return meaning


def _about_the_offer(turn: TurnFacts, meaning: str) -> bool:
    """Whether a meaning of an accepted offer names something the offer names, where it names anything.

    Shown the offer, a small model still answered "Yes please" with the visitor's earlier topic: such a meaning is
    refused and the offer is carried (contract §5.6). Written from the sample's accepted offers (issue 40).
    """
    offer = turn.accepted_offer
    if offer is None:
        return True
    offered = turn.candidates.mentioned_in(offer)
    return not offered or any(contains_phrase(meaning, name) for name in offered)


logger = logging.getLogger("lightrag_resolve")

_WORD = re.compile(r"\w+")
"""A word of a restatement: a run of letters and digits (a Han run is one)."""


def needs_restatement(checked: Resolution, *, proposed: str | None = None) -> bool:
    """Whether the check saw the message point back and named nothing: AMBIGUOUS, no candidate, or a refused name.

    A failed check (timeout, model error, unreadable answer) is not restated: a second call would only make the visitor
    wait. Nor is a refused name (``proposed``) the message holds before its pointing word: it names its own subject.
    Evidence: the MTRAG cut (docs/findings.md#restating-what-the-check-cannot-name).
    """
    reason = checked.fallback_reason or ""
    if checked.path != "reference" or not (reason in ("ambiguous", "no_candidates") or reason.startswith("rejected:")):
        return False
    if checked.rejected_reason == "already_named" and proposed is not None:
        return not named_before_pointing(checked.original_query, proposed)
    return True


def restated(
    checked: Resolution, turn: TurnFacts, output: Any, *, max_words: int, max_name_words: int, may_lead: bool = True
) -> Resolution:
    """``checked`` retrieving with "<message> — <restatement>", or as it is when the restatement is refused.

    One naming exactly one candidate the message lacks retrieves as a named check does, "<name> — <message>"
    (``restated_name``); the rest stays on the record, as in the text it would bring the appended company name. Refused:
    what ``enforce_text_query`` refuses (``NONE``, a scaffold, a prompt's own format), one that ``adds_nothing``, a name
    the conversation did not establish (the company's is established), a candidate the check's rules refuse
    (``refused_mentions``), and with ``may_lead`` off (AMBIGUOUS) one that picks a single candidate for the visitor
    (issue 40). The check's own record is kept; only the text and ``restatement`` change.
    """
    if not isinstance(output, str):
        return checked
    query = enforce_text_query(output, company_name=turn.company_name, max_words=max_words).query
    if query is None:
        return checked
    if adds_nothing(query, turn):  # what retrieval would get: cut to the word cap, the company's name appended
        logger.debug("restatement refused: the message already says all of it")
        return checked
    unknown = unestablished_in(turn, query)
    if unknown:
        logger.debug("restatement refused: %s are not in the conversation", ", ".join(unknown))
        return checked
    # Names are read from what the model wrote: the cut that makes room for the company may halve one.
    written = answer_line(output)
    refused = refused_mentions(turn, f"{query} ; {written}", max_name_words=max_name_words)
    if refused:
        logger.debug("restatement refused: the check refuses %s", ", ".join(refused))
        return checked
    name = restated_name(written, turn)
    if name is not None and not may_lead:
        logger.debug("restatement refused: it picks %s where the check saw several", name)
        return checked
    text = name_with_message(turn.query, name) if name else append_meaning(turn.query, query)
    return replace(checked, query=text, fallback_reason=None, restatement=query)


def adds_nothing(restatement: str, turn: TurnFacts) -> bool:
    """Whether every word of ``restatement`` is in the visitor's message or the configured company's name.

    Retrieving with it searches the message plus the appended company name, drawing the company's pages (the sample's
    ``en-ref-02``, the multilingual set's zh-keep-04). A Han run adds nothing when each character is in the message.
    """
    own = {word.casefold() for word in _WORD.findall(turn.company_name or "")}
    words = [word for word in _WORD.findall(restatement) if word.casefold() not in own]
    return all(_said(word, turn.query) for word in words)


def _said(word: str, message: str) -> bool:
    """Whether ``message`` holds ``word`` (``contains_phrase``), for a run of Han text each of its characters."""
    if HAN_RUN.fullmatch(word):  # no word boundaries in Han text: each character on its own
        return all(contains_phrase(message, character) for character in word)
    return contains_phrase(message, word)


def restated_name(restatement: str, turn: TurnFacts) -> str | None:
    """The one candidate name the restatement holds and the message does not, or ``None``.

    Only a single name leads: two keep the ambiguity the check saw. A candidate inside a longer one it names ("IBM" in
    "IBM Cloud") is that mention. Evidence: the MTRAG cut's restatements (an evaluation set; contract §5.9).
    """
    mentions = [name for name in turn.candidates.mentioned_in(restatement) if not contains_phrase(turn.query, name)]
    return mentions[0] if len(mentions) == 1 else None


def standalone_question(turn: TurnFacts, output: Any, *, max_name_words: int) -> str | None:
    """The question to fuse with, one clean line of at most ``MAX_QUERY_CHARS``, or ``None`` when the answer is refused.

    Refused: no text, ``NONE``, ``is_scaffold``, the message itself, a name that the prompt's messages, candidates and
    company name do not establish, a candidate the check refuses (``refused_mentions``).
    """
    line = clip_chars(answer_line(output), MAX_QUERY_CHARS).strip() if isinstance(output, str) else ""
    if not line or is_none_answer(line) or is_scaffold(line):
        return None
    if line.casefold() == " ".join(turn.query.split()).casefold():
        return None
    if unestablished_in(turn, line):
        return None
    if refused_mentions(turn, line, max_name_words=max_name_words):
        return None
    return line
