"""Longer follow-ups that point back ("Which retailers already run it?"): the reference check (contract §5.3).

The check leads the message with one name the conversation established, or
keeps it. A window with one candidate needs no model call: that name is the
only one the check could propose. When the check sees the message point back
and names nothing, one more call restates it (§5.9); a changed outcome may
ask for a standalone question to fuse with (``ResolverTuning``, §5.10).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ._config import LLMFunc
from ._conversation import Turn
from ._enforce import (
    NameOutcome,
    accept_reference_name,
    cut_gloss,
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
from ._prompts import reference_schema
from ._resolution import Resolution

if TYPE_CHECKING:
    from ._resolver import Resolver

__all__ = ["check_reference"]


async def check_reference(resolver: Resolver, turn: Turn, llm: LLMFunc, *, model: str | None) -> Resolution:
    """The reference check's outcome, restated or given a standalone question where the tuning says so."""
    tuning = resolver.tuning
    checked, proposed = await _check(resolver, turn, llm, model=model)
    if tuning.restate_references and needs_restatement(checked, proposed=proposed):
        reply = await resolver.ask(
            "restatement", resolver.restatement_prompt, turn, llm, resolver.config.reference_timeout
        )
        if reply.text is not None:
            checked = restated(
                checked,
                turn,
                resolver.read(resolver.parse_text, reply.text),
                max_words=resolver.config.max_query_words,
                max_name_words=tuning.max_name_words,
            )
    if not (tuning.fuse_standalone_question and checked.changed):
        return checked
    # A failed, late or refused question costs the fusion only: the turn retrieves with the resolved text.
    reply = await resolver.ask("standalone", resolver.condense_prompt, turn, llm, resolver.config.timeout)
    if reply.text is None:
        return checked
    question = standalone_question(
        turn, resolver.read(resolver.parse_standalone_question, reply.text), max_name_words=tuning.max_name_words
    )
    return checked if question is None else replace(checked, standalone_question=question)


async def _check(resolver: Resolver, turn: Turn, llm: LLMFunc, *, model: str | None) -> tuple[Resolution, str | None]:
    """The check's outcome, with the name proposed (the model's, or the window's sole candidate; else ``None``).

    A window whose graph lookup failed may hold names the code did not see,
    so its one candidate is checked like any other.
    """
    names = turn.candidates.names
    if not names:
        # Nothing named that the message could point at: no model call is spent.
        return fall_back(untouched(turn, "reference", model=model), "no_candidates", decision="ambiguous"), None
    sole = names[0] if len(names) == 1 else None
    if sole is not None and not resolver.tuning.check_sole_candidate and _sole_candidate_is_evidence(turn, sole):
        return _accepted(resolver, turn, untouched(turn, "reference", model=model, candidates=names), sole), sole
    fmt = response_format(llm, reference_schema(turn), wanted=resolver.config.structured_output, json_fallback=False)
    reply = await resolver.ask(
        "reference", resolver.reference_prompt, turn, llm, resolver.config.reference_timeout, **fmt
    )
    safe = untouched(turn, "reference", model=model, raw_output=reply.text, candidates=names)
    if reply.text is None:
        return fall_back(safe, reply.failure or "llm_error", decision="error"), None
    answer = resolver.read(resolver.parse_reference, reply.text)
    if not isinstance(answer, ReferenceAnswer):
        return fall_back(safe, "unparsable", decision="error"), None
    if answer.decision == "keep" or answer.decision == "ambiguous":
        return fall_back(safe, answer.decision, decision=answer.decision), None
    if not answer.name:
        return fall_back(safe, "unparsable", decision="error"), None
    proposed = cut_gloss(turn.candidates.by_number(answer.name) or answer.name)
    return _accepted(resolver, turn, safe, proposed), proposed


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
