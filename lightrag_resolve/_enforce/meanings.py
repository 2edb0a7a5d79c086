"""What a resolved turn may add to the visitor's words: a short reply's meaning, a restatement, a question.

A short reply's meaning is one clean line within the word cap, without the
options the reply did not pick (contract §5.1, §5.6). A follow-up that points
back at something the check could not name is restated (§5.9): a KEEP is
never restated (the model judged the message searchable), nor is a message
whose refused name is its own, written before its pronoun. A standalone
question (§5.10) is one line, no scaffold, no name the conversation did not
establish.
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

    A meaning that names an option the reply did not pick is replaced by the
    pick; one that leaves the pick out gets it in front. Without a usable
    text, the first grounded low-level keywords stand in for it; ``None``
    when there is neither. Evidence: the bundled sample's picks (an evaluation set).
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

    Shown the offer, the 1.5B model still wrote the visitor's earlier topic
    for "Yes please" to "Would you like a few customer examples from the
    Industrie sector, such as Fonderies Aubrac?" ("API Connect connects
    everything to an ERP"): such a meaning is refused and the offer is
    carried (contract §5.6). Written from the sample's accepted offers
    (issue 40).
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

    A failed check (timeout, model error, unreadable answer) is not restated:
    a second call to a model that just failed would only make the visitor
    wait longer for the same words. Nor is a refused name that the message
    already holds before its pointing word (``proposed``, the name the check
    proposed): "How does IBM Cloud Kubernetes Service work and why should I
    use it?" → "Kubernetes" names its own subject. Evidence: the MTRAG cut (an
    evaluation set; docs/findings.md, "Restating what the check cannot name").
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

    A restatement that names exactly one candidate the message lacks has
    found what the message points at, as a named check would have, and the
    turn retrieves as a named check's does: "<name> — <message>"
    (``restated_name``). The rest of the restatement stays on the record; in
    the text it would bring the company name the rewrite checks append, which
    draws the company's own pages.

    Refused: anything ``enforce_text_query`` refuses (``NONE``, empty, a
    scaffold, an answer in a prompt's own format such as the check's
    ``KEEP``, ``AMBIGUOUS``, ``RESOLVE: …``: the model answered the wrong
    question, ``is_prompt_format``), a restatement that adds nothing to the
    message once cut to the word cap (``adds_nothing``: the company name
    the checks append would be all the search gained), and a
    restatement with a name the conversation did not establish (the
    configured company's name, which the checks append, counts as
    established), and one naming a candidate the check's rules refuse
    (``refused_mentions``: a name of more than ``max_name_words`` words, say),
    so every name that reaches retrieval obeys the same rules. The check's
    own record (decision, candidates, the reason a name was refused) is kept;
    only the text and ``restatement`` change.

    ``may_lead`` off (an AMBIGUOUS check): a restatement that names exactly
    one candidate the message lacks is refused, since it picks one of the
    names the check found ambiguous for the visitor; one naming each of them,
    or a topic, is kept (issue 40).
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

    Such a restatement only repeats the message. Retrieving with it would
    search the message again, plus the company's name the checks append,
    which draws the company's own pages instead of what the message asks
    about. Found on the sample's ``en-ref-02`` in ``naive``: the check
    restated "Is this course also available on weekends?" as itself followed
    by "Pivotane Bootcamp, A1"; the 8-word cap kept the message's seven
    words and "Vellinor", and that search lost the course's page.
    Words are runs of letters and digits; a run of Han text has no word
    boundaries, so it adds nothing when each of its characters is in the
    message (the multilingual set's zh-keep-04: "每月多少钱？" restating
    "Klinora Solo 每个月多少钱？" searched the company's name instead).
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

    Only a single such name leads: a restatement naming two candidates
    ("Pulse POS or Orbit CRM on weekends") keeps the ambiguity the check saw,
    and leading with either would pick one for the visitor. A candidate
    inside a longer one it names ("IBM" in "IBM Cloud") is that same mention.
    Evidence: the MTRAG cut's restatements (an evaluation set; contract §5.9).
    """
    mentions = [name for name in turn.candidates.mentioned_in(restatement) if not contains_phrase(turn.query, name)]
    return mentions[0] if len(mentions) == 1 else None


def standalone_question(turn: TurnFacts, output: Any, *, max_name_words: int) -> str | None:
    """The question to fuse with, or ``None`` when the answer is refused.

    Refused: no text, ``NONE``, a scaffold, an answer in a prompt's own
    format (``is_scaffold``), the visitor's message itself (nothing to add), a question
    with a name that neither the messages its prompt showed, the window's
    candidates nor the configured company's name establish, and one naming a
    candidate the check's rules refuse (``refused_mentions``). Kept: one line
    without control or format characters, at most ``MAX_QUERY_CHARS`` characters.
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
