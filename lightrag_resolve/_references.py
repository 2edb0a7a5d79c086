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
    ground_reference_name,
    name_with_message,
    needs_restatement,
    restated,
    standalone_question,
)
from ._fallback import fall_back, untouched
from ._languages import UNITS, detect
from ._model_call import response_format
from ._parse import ReferenceAnswer
from ._resolution import Resolution
from ._routing import GRAPH_MODES

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
        checked = restated(checked, turn, restatement, max_words=max_words, max_name_words=tuning.max_name_words)
    checked = _named_by_answer(resolver, turn, checked, answer)
    if wants_keywords(turn):
        checked = _with_keywords(resolver, turn, checked, answer)
    if tuning.fuse_standalone_question and checked.query != checked.original_query:
        question = standalone_question(turn, restatement, max_name_words=tuning.max_name_words)
        if question is not None:
            checked = replace(checked, standalone_question=question)
    return checked


def _named_by_answer(resolver: Resolver, turn: Turn, checked: Resolution, answer: ReferenceAnswer) -> Resolution:
    """A kept follow-up whose answer names one candidate the message lacks, led by that name (§5.3).

    Asked for the search's needs in the same call, the small model often
    answers KEEP for a message that points back while naming what it points
    at elsewhere in the same answer: in ``name`` ("Do we have to pay for
    it?" → KEEP, ``"name": "Kadoro Express"``), or among its low-level keywords
    ("Is there a monthly limit on it?" → KEEP, ``["SignaFlow", "monthly
    limit"]``). The answer then says what its decision did not, as a
    restatement naming one candidate does (§5.9, ``restated_name``): the name
    goes through the acceptance of any proposed name. ``name`` speaks first;
    keywords that name two candidates or none, or fail their checks, leave
    the outcome as it is.
    """
    if checked.fallback_reason not in ("keep", "ambiguous"):
        return checked
    names: list[str] = []
    if isinstance(answer.name, str) and answer.name.strip():
        names = [cut_gloss(turn.candidates.by_number(answer.name) or answer.name)]
    elif wants_keywords(turn):  # keywords are asked in graph modes only
        config = resolver.config
        outcome = enforce_keywords(
            answer.ll_raw, answer.hl_raw, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords
        )
        if outcome.fallback_reason is not None:  # a scaffold or half an answer names nothing either
            return checked
        mentioned = turn.candidates.mentioned_in(" ; ".join(outcome.ll_keywords))
        names = [name for name in mentioned if not contains_phrase(turn.query, name)]
    if len(names) != 1 or contains_phrase(turn.query, names[0]):
        return checked
    resolved = _accepted(resolver, turn, replace(checked, fallback_reason=None, decision=None), names[0])
    return checked if resolved.fallback_reason is not None else resolved


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
    grounded = ground_keywords(
        outcome.ll_keywords, candidates=turn.candidates, reply=turn.query, history=turn.message_texts
    )
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
    sole = names[0] if len(names) == 1 else None
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
    if not names and answer.decision != "keep":
        return fall_back(safe, "no_candidates", decision="ambiguous"), None, answer
    if answer.decision == "keep" or answer.decision == "ambiguous":
        return fall_back(safe, answer.decision, decision=answer.decision), None, answer
    if not answer.name:
        return fall_back(safe, "unparsable", decision="error"), None, None
    proposed = cut_gloss(turn.candidates.by_number(answer.name) or answer.name)
    return _accepted(resolver, turn, safe, proposed), proposed, answer


def _sole_candidate_is_evidence(turn: Turn, name: str) -> bool:
    """Whether the window's one candidate is, with no model call, what the message points at (contract §5.3).

    Only when the candidates are complete (the graph lookup did not fail), the
    message is in a language the analysis reads (elsewhere its pointing word
    was not read, the model decides), and the candidate is a name, not a unit
    of measure ("mm", "°F": found on an unseen dialogue set, where "…in case it
    rains?" had one put before it).
    """
    return not turn.graph_lookup_failed and detect(turn.query) is not None and name.casefold() not in UNITS


def _accepted(resolver: Resolver, turn: Turn, safe: Resolution, proposed: str) -> Resolution:
    """``safe`` led by ``proposed`` when the conversation established it as a candidate, else refused with why."""
    outcome = accept_reference_name(
        proposed,
        history_text=turn.message_texts,
        message=turn.query,
        company_name=turn.company_name,
        max_words=resolver.tuning.max_name_words,
    )
    if outcome.name is not None and ground_reference_name(outcome.name, turn.candidates) is None:
        outcome = NameOutcome(name=None, rejected_reason="not_a_candidate")
    if outcome.name is None:
        return fall_back(
            safe, f"rejected:{outcome.rejected_reason}", decision="resolve", rejected_reason=outcome.rejected_reason
        )
    return replace(safe, query=name_with_message(turn.query, outcome.name), decision="resolve", entity=outcome.name)
