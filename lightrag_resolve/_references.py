"""Longer follow-ups that point back ("Which retailers already run it?"): the reference check (contract §5.3).

One model call answers the whole follow-up: whether the message leads with one
name the conversation established, the message restated as a search query
when it points back at something the check cannot name (§5.9), and in graph
modes the keywords LightRAG needs for the message as resolved, which replace
LightRAG's own extraction call (§7). A window with one candidate needs no
model call: that name is the only one the check could propose.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ._candidates import Candidates
from ._config import LLMFunc
from ._conversation import Turn
from ._enforce import (
    NameOutcome,
    accept_reference_name,
    check_keywords,
    contains_phrase,
    cut_gloss,
    enforce_keywords,
    ground_keywords,
    name_with_message,
    needs_restatement,
    restated,
    standalone_question,
)
from ._fallback import fall_back, untouched
from ._languages import UNITS, detect
from ._model_call import response_format
from ._parse import ReferenceAnswer
from ._pointing_words import content_words
from ._resolution import Resolution
from ._routing import GRAPH_MODES, decide

if TYPE_CHECKING:
    from ._resolver import Resolver

__all__ = ["check_reference", "wants_keywords"]


def wants_keywords(turn: Turn) -> bool:
    """Whether the check also answers LightRAG's keywords: in graph modes, where LightRAG would extract them."""
    return turn.mode in GRAPH_MODES


async def check_reference(resolver: Resolver, turn: Turn, llm: LLMFunc, *, model: str | None) -> Resolution:
    """The reference check's outcome, restated, given keywords and a standalone question from its one answer."""
    tuning = resolver.tuning
    checked, proposed, answer = await _check(resolver, turn, llm, model=model)
    if answer is None:
        return checked
    restatement = answer.restatement_raw
    if isinstance(restatement, str):
        restatement = resolver.read(resolver.parse_text, restatement)
    if tuning.restate_references and needs_restatement(checked, proposed=proposed):
        max_words = resolver.config.max_query_words
        checked = restated(
            checked,
            turn,
            restatement,
            max_words=max_words,
            max_name_words=tuning.max_name_words,
            may_lead=checked.fallback_reason != "ambiguous",
        )
    checked = _named_by_answer(resolver, turn, checked, answer)
    if wants_keywords(turn):
        checked = _with_keywords(resolver, turn, checked, answer)
    if tuning.fuse_standalone_question and checked.query != checked.original_query:
        question = standalone_question(turn, restatement, max_name_words=tuning.max_name_words)
        if question is not None:
            checked = replace(checked, standalone_question=question)
    return checked


def _named_by_answer(resolver: Resolver, turn: Turn, checked: Resolution, answer: ReferenceAnswer) -> Resolution:
    """A kept follow-up that points back, led by the one candidate its answer names and the message lacks (§5.3).

    Asked for the search's needs in the same call, the small model often
    answers KEEP for a message that points back while naming what it points
    at elsewhere in the same answer: in ``name`` ("Do we have to pay for
    it?" → KEEP, ``"name": "Kadoro Express"``), among its low-level keywords
    ("Is there a monthly limit on it?" → KEEP, ``["SignaFlow", "monthly
    limit"]``) or in its restatement (written from three of the sample's
    references). The name goes through the acceptance of any proposed name,
    and only when exactly one candidate fits: the answer's name, keywords and
    restatement together name one candidate the message lacks, and the
    message points back (``Resolver.points_back``): in graph modes every
    follow-up is checked, and one that names its own subject is never steered
    by the history. An AMBIGUOUS answer is never led by one of the names it
    found ambiguous (issue 40). Two narrower rules were measured and not kept
    (docs/findings.md#where-the-call-is-free-the-model-decides): only the one
    name in play, and naming each name in play.
    """
    if checked.fallback_reason != "keep":
        return checked
    names = _answer_mentions(resolver, turn, answer)
    if len(names) != 1 or not decide(resolver.points_back, turn, on_error=False, then="the kept message stays"):
        return checked
    resolved = _accepted(resolver, turn, replace(checked, fallback_reason=None, decision=None), names[0])
    return checked if resolved.fallback_reason is not None else resolved


def _answer_mentions(resolver: Resolver, turn: Turn, answer: ReferenceAnswer) -> tuple[str, ...]:
    """The candidates the answer names (its ``name``, keywords and restatement) that the message does not hold.

    A ``name`` outside the candidate list counts when the conversation said
    it verbatim (``_accepted`` checks it again); keywords that fail their
    checks name nothing.
    """
    mentioned: list[str] = []
    if isinstance(answer.name, str) and answer.name.strip():
        mentioned.append(cut_gloss(turn.candidates.by_number(answer.name) or answer.name))
    if wants_keywords(turn):  # keywords are asked in graph modes only
        config = resolver.config
        outcome = enforce_keywords(
            answer.ll_raw, answer.hl_raw, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords
        )
        if outcome.fallback_reason is None:
            mentioned.extend(turn.candidates.mentioned_in(" ; ".join(outcome.ll_keywords)))
    if isinstance(answer.restatement_raw, str):
        mentioned.extend(turn.candidates.mentioned_in(answer.restatement_raw))
    distinct: dict[str, str] = {}
    for name in mentioned:
        key = (turn.candidates.matching(name) or name).casefold()
        if name and not contains_phrase(turn.query, name):
            distinct.setdefault(key, name)
    return tuple(distinct.values())


def _with_keywords(resolver: Resolver, turn: Turn, checked: Resolution, answer: ReferenceAnswer) -> Resolution:
    """``checked`` carrying the answer's keywords, cleaned and grounded; as it is when none survive (§5.2, §7).

    Without them LightRAG extracts its own, as it would without this library.
    """
    config = resolver.config
    outcome = enforce_keywords(
        answer.ll_raw, answer.hl_raw, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords
    )
    if outcome.fallback_reason is not None:
        return checked
    in_conversation = ground_keywords(
        outcome.ll_keywords, candidates=turn.candidates, reply=turn.query, history=turn.conversation_texts
    )
    grounded = in_conversation
    if _own_words_only(turn, checked, outcome.ll_keywords):
        grounded = ground_keywords(outcome.ll_keywords, candidates=Candidates(), reply=turn.query, history=())
        if not grounded.kept and in_conversation.kept:  # all the history's: the message's own words instead
            grounded = replace(grounded, kept=content_words(turn.query)[: config.max_ll_keywords])
    if not grounded.kept:
        return checked
    carried = check_keywords(
        checked,
        ll_keywords=grounded.kept,
        hl_keywords=outcome.hl_keywords,
        max_ll=config.max_ll_keywords,
        max_hl=config.max_hl_keywords,
    )
    return replace(carried, dropped_keywords=grounded.dropped) if carried.has_keywords else carried


def _own_words_only(turn: Turn, checked: Resolution, ll_keywords: tuple[str, ...]) -> bool:
    """Whether the check's keywords may come from the message's own words only (contract §5.8).

    A kept message names its own subject: keywords from the history would
    steer it (LightRAG removed the history from its own extraction for that
    reason). An AMBIGUOUS one whose keywords name exactly one candidate the
    message lacks would be led by that one arbitrary name (issue 40).
    """
    if checked.fallback_reason == "keep":
        return True
    if checked.fallback_reason != "ambiguous":
        return False
    lacking = [
        name for name in turn.candidates.mentioned_in(" ; ".join(ll_keywords)) if not contains_phrase(turn.query, name)
    ]
    return len(lacking) == 1


async def _check(
    resolver: Resolver, turn: Turn, llm: LLMFunc, *, model: str | None
) -> tuple[Resolution, str | None, ReferenceAnswer | None]:
    """The check's outcome, the name proposed (the model's, or the window's sole candidate), and the model's answer.

    A window whose graph lookup failed may hold names the code did not see,
    so its one candidate is checked like any other. A window that names
    nothing is asked too when a restatement may follow (§5.9), or in a graph
    mode, where the call replaces LightRAG's own: the answer still restates
    the message and gives its keywords.
    """
    names = turn.candidates.names
    tuning = resolver.tuning
    if not names and not (tuning.restate_references or wants_keywords(turn)):
        # Nothing named that the message could point at: no model call is spent.
        return fall_back(untouched(turn, "reference", model=model), "no_candidates", decision="ambiguous"), None, None
    sole = names[0] if len(names) == 1 and not wants_keywords(turn) else None  # graph modes: the model decides
    if sole is not None and not tuning.check_sole_candidate and _sole_candidate_is_evidence(turn, sole):
        accepted = _accepted(resolver, turn, untouched(turn, "reference", model=model, candidates=names), sole)
        if accepted.fallback_reason is None or not (
            tuning.restate_references and needs_restatement(accepted, proposed=sole)
        ):
            return accepted, sole, None
        # Refused, yet the message points past it (§5.9): the model's one call restates it.
    fmt = response_format(
        llm, resolver.reference_schema(turn), wanted=resolver.config.structured_output, json_fallback=True
    )
    # In graph modes the call replaces LightRAG's extraction, which waits for no timeout: it gets a
    # short reply's budget. Beside a speculative search (naive) it gets the check's own, shorter one.
    timeout = resolver.config.timeout if wants_keywords(turn) else resolver.config.reference_timeout
    reply = await resolver.ask("reference", resolver.reference_prompt, turn, llm, timeout, **fmt)
    safe = untouched(turn, "reference", model=model, raw_output=reply.text, candidates=names)
    if reply.text is None:
        return fall_back(safe, reply.failure or "llm_error", decision="error"), None, None
    answer = resolver.read(resolver.parse_reference, reply.text)
    if not isinstance(answer, ReferenceAnswer):
        return fall_back(safe, "unparsable", decision="error"), None, None
    if not names and answer.decision != "keep" and not (answer.decision == "resolve" and answer.name):
        return fall_back(safe, "no_candidates", decision="ambiguous"), None, answer
    if answer.decision == "keep" or answer.decision == "ambiguous":
        return fall_back(safe, answer.decision, decision=answer.decision), None, answer
    if not answer.name:
        return fall_back(safe, "unparsable", decision="error"), None, None
    proposed = cut_gloss(turn.candidates.by_number(answer.name) or answer.name)
    accepted = _accepted(resolver, turn, safe, proposed)
    if not names and accepted.fallback_reason is not None:  # a window without candidates, and no name said in it
        return fall_back(safe, "no_candidates", decision="ambiguous"), None, answer
    return accepted, proposed, answer


def _sole_candidate_is_evidence(turn: Turn, name: str) -> bool:
    """Whether the window's one candidate is, with no model call, what the message points at (contract §5.3).

    Only when the candidates are complete (the graph lookup did not fail), the
    message is in a language the analysis reads (elsewhere its pointing word
    was not read, the model decides), and the candidate is a name, not a unit
    of measure ("mm", "°F": found on an unseen dialogue set, where "…in case it
    rains?" had one put before it).
    """
    return not turn.graph_lookup_failed and detect(turn.query) is not None and name.casefold() not in UNITS


def _written_as_a_name(name: str) -> bool:
    """Whether ``name`` is written as a name: a capital or a digit, or letters of a script without case (Han).

    Only a proposed name the code's candidates lack is asked this; written
    from the tests' "loyalty terminal" and "anything", which a conversation
    said in lower case and the model proposed.
    """
    return any(char.isupper() or char.isdigit() or (char.isalpha() and char.lower() == char.upper()) for char in name)


def _accepted(resolver: Resolver, turn: Turn, safe: Resolution, proposed: str) -> Resolution:
    """``safe`` led by ``proposed`` when the conversation said it, else refused with why.

    The conversation said it when it occurs verbatim in one of its messages
    (the seed's guard). The code's candidates are evidence, not a gate: its
    heuristics miss names ("Kadoro ist unser Kundenbindungsterminal", a
    German brand read as a capitalised noun; "慧仓储", a Chinese name without
    spaces) that the model reads (issue 40). A name outside them must still
    be written as one (``_written_as_a_name``): "anything" or "loyalty
    terminal" were said, but name nothing (``not_a_candidate``).
    """
    outcome = accept_reference_name(
        proposed,
        history_text=turn.conversation_texts,
        message=turn.query,
        company_name=turn.company_name,
        max_words=resolver.tuning.max_name_words,
    )
    if (
        outcome.name is not None
        and turn.candidates.matching(outcome.name) is None
        and not _written_as_a_name(outcome.name)
    ):
        outcome = NameOutcome(name=None, rejected_reason="not_a_candidate")
    if outcome.name is None:
        return fall_back(
            safe, f"rejected:{outcome.rejected_reason}", decision="resolve", rejected_reason=outcome.rejected_reason
        )
    return replace(safe, query=name_with_message(turn.query, outcome.name), decision="resolve", entity=outcome.name)
