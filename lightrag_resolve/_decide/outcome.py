"""What the model's one answer becomes: a turn's ``Resolution``, read, enforced, or its safe outcome with why.

Short replies ("Santé", "Yes, B1"): grounded keywords and the resolved meaning added to the text in graph modes, a
short query in ``naive``; what the code read of the turn (pick, offer, names) is a check, never a replacement for the
model. Longer follow-ups: the check's decision, its proposed name (``route.led_by``), the restatement of a message that
points past what it can name (§5.9), and in graph modes LightRAG's keywords. Every failure builds on the path's safe
outcome (``route``), so nothing here can fail into anything else.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .._enforce import (
    check_keywords,
    cut_gloss,
    enforce_keywords,
    enforce_text_query,
    focus_on_pick,
    ground_keywords,
    needs_restatement,
    resolved_meaning,
    restated,
    standalone_question,
)
from .._facts import Candidates
from .._languages.pointing import content_words
from .._languages.text import contains_phrase
from .._model.call import ModelReply
from .._model.parse import KeywordAnswer, ReferenceAnswer
from .._resolution import Resolution, ResolutionPath
from .._turn.conversation import Turn
from .route import checks_first, fall_back, led_by, override_answer, resolved_text, safe_short_reply, untouched

if TYPE_CHECKING:
    from .policy import Policy

__all__ = ["reference_outcome", "short_reply_outcome"]


def short_reply_outcome(
    policy: Policy, turn: Turn, path: ResolutionPath, reply: ModelReply, model: str | None
) -> Resolution:
    """A short reply's outcome from the model's ``reply``: keywords (graph modes) or a short query (``naive``)."""
    safe = safe_short_reply(turn, path, reply, model)
    if reply.text is None:
        return fall_back(safe, reply.failure or "llm_error")
    if path == "keywords":
        return _keywords(policy, turn, safe, reply.text)
    rewrite = policy.read(policy.parse_text, reply.text)
    if rewrite is None:
        return fall_back(safe, "unparsable")
    meaning = resolved_meaning(turn, rewrite, max_words=policy.config.max_query_words)
    if meaning is None:
        max_words = policy.config.max_query_words
        refused = enforce_text_query(rewrite, company_name=turn.company_name, max_words=max_words)
        return fall_back(safe, refused.fallback_reason or "ungrounded")  # accepted, but not what the offer named
    return replace(safe, query=resolved_text(safe, meaning))


def _keywords(policy: Policy, turn: Turn, safe: Resolution, text: str) -> Resolution:
    """Grounded keywords, and the resolved meaning added to the text (graph modes, contract §5.2)."""
    config = policy.config
    answer = policy.read(policy.parse_keywords, text)
    if not isinstance(answer, KeywordAnswer):
        return fall_back(safe, "unparsable")
    outcome = enforce_keywords(
        answer.ll_raw, answer.hl_raw, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords
    )
    if outcome.fallback_reason is not None:
        return fall_back(safe, outcome.fallback_reason)
    grounded = ground_keywords(
        outcome.ll_keywords, candidates=turn.candidates, reply=turn.query, history=turn.message_texts
    )
    if not grounded.kept:
        return fall_back(safe, "ungrounded", dropped_keywords=grounded.dropped)
    ll_keywords = focus_on_pick(grounded.kept, pick=turn.picked, candidates=turn.candidates)[: config.max_ll_keywords]
    meaning = resolved_meaning(turn, answer.query_raw, ll_keywords, max_words=config.max_query_words) or ""
    return replace(
        safe,
        query=resolved_text(safe, meaning),
        ll_keywords=ll_keywords,
        hl_keywords=outcome.hl_keywords,
        dropped_keywords=grounded.dropped,
    )


def reference_outcome(policy: Policy, turn: Turn, reply: ModelReply, model: str | None) -> Resolution:
    """The reference check's outcome, restated, given keywords and a standalone question from its one answer."""
    max_name_words = policy.tuning.max_name_words
    checked, proposed, answer = _decision(policy, turn, reply, model)
    if answer is None:
        return checked
    restatement = answer.restatement_raw
    if isinstance(restatement, str):
        restatement = policy.read(policy.parse_text, restatement)
    if needs_restatement(checked, proposed=proposed):
        checked = restated(
            checked,
            turn,
            restatement,
            max_words=policy.config.max_query_words,
            max_name_words=max_name_words,
            may_lead=checked.fallback_reason != "ambiguous",
        )
    checked = _named_by_answer(policy, turn, checked, answer)
    if checks_first(turn):
        checked = _with_keywords(policy, turn, checked)
    if checked.query != checked.original_query:
        asked = policy.read(lambda text: policy.standalone_question(turn, text), restatement)
        question = standalone_question(turn, asked, max_name_words=max_name_words)
        if question is not None:
            checked = replace(checked, standalone_question=question)
    return checked


def _decision(
    policy: Policy, turn: Turn, reply: ModelReply, model: str | None
) -> tuple[Resolution, str | None, ReferenceAnswer | None]:
    """The check's decision, the name it proposed, and the model's answer (``None`` when unusable).

    A window naming nothing is asked too: the answer restates it (§5.9); a name said verbatim is accepted (issue 40).
    """
    names = turn.candidates.names
    safe = untouched(turn, "reference", model=model, raw_output=reply.text, candidates=names)
    if reply.text is None:
        return fall_back(safe, reply.failure or "llm_error", decision="error"), None, None
    answer = policy.read(policy.parse_reference, reply.text)
    if not isinstance(answer, ReferenceAnswer):
        return fall_back(safe, "unparsable", decision="error"), None, None
    if not names and answer.decision != "keep" and not (answer.decision == "resolve" and answer.name):
        return fall_back(safe, "no_candidates", decision="ambiguous"), None, answer
    if answer.decision == "keep" or answer.decision == "ambiguous":
        return fall_back(safe, answer.decision, decision=answer.decision), None, answer
    if not answer.name:
        return fall_back(safe, "unparsable", decision="error"), None, None
    proposed = cut_gloss(turn.candidates.by_number(answer.name) or answer.name)
    accepted = led_by(turn, safe, proposed, policy.tuning)
    if not names and accepted.fallback_reason is not None:  # a window without candidates, and no name said in it
        return fall_back(safe, "no_candidates", decision="ambiguous"), None, answer
    return accepted, proposed, answer


def _named_by_answer(policy: Policy, turn: Turn, checked: Resolution, answer: ReferenceAnswer) -> Resolution:
    """A kept follow-up that points back, led by the one candidate its answer names and the message lacks (§5.3).

    The small model often answers KEEP yet names the target in ``name`` or its restatement (written from three of the
    sample's references); a message naming its own subject (not ``points_back``) or an AMBIGUOUS answer is never led
    (issue 40). Two narrower rules measured, not kept: docs/findings.md#where-the-call-is-free-the-model-decides.
    """
    if checked.fallback_reason != "keep":
        return checked
    names = _answer_mentions(turn, answer)
    if len(names) != 1 or not override_answer(policy.points_back, turn, on_error=False, then="the kept message stays"):
        return checked
    resolved = led_by(turn, replace(checked, fallback_reason=None, decision=None), names[0], policy.tuning)
    return checked if resolved.fallback_reason is not None else resolved


def _answer_mentions(turn: Turn, answer: ReferenceAnswer) -> tuple[str, ...]:
    """Names in the answer's ``name`` and restatement that the message lacks; a ``name`` said verbatim counts too."""
    mentioned: list[str] = []
    if isinstance(answer.name, str) and answer.name.strip():
        mentioned.append(cut_gloss(turn.candidates.by_number(answer.name) or answer.name))
    if isinstance(answer.restatement_raw, str):
        mentioned.extend(turn.candidates.mentioned_in(answer.restatement_raw))
    distinct: dict[str, str] = {}
    for name in mentioned:
        key = (turn.candidates.matching(name) or name).casefold()
        if name and not contains_phrase(turn.query, name):
            distinct.setdefault(key, name)
    found = tuple(distinct.values())
    # A name inside a longer one counts once, as in Candidates.mentioned_in (written from the sample's fr-ref-08).
    return tuple(name for name in found if not any(other != name and contains_phrase(other, name) for other in found))


def _with_keywords(policy: Policy, turn: Turn, checked: Resolution) -> Resolution:
    """``checked`` carrying LightRAG's keywords, built from what the check decided, without its call (§5.2, §7).

    The resolved name, the message's and a restatement's words, low-level ones grounded as a short reply's (§5.4), a
    kept message's own words only (§5.8); a message with no content word is left to LightRAG. The check asks for none,
    as they were most of what it wrote; measured as keeping every hit (docs/findings.md).
    """
    config = policy.config
    own = _words_of(turn.query, turn.candidates)
    restated = _words_of(checked.restatement, turn.candidates) if checked.restatement else ()
    ll = [*((checked.entity,) if checked.entity else ()), *own, *restated]
    outcome = enforce_keywords(
        ll, [*own, *restated] or ll, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords
    )
    if outcome.fallback_reason is not None:
        return checked
    own_only = _own_words_only(turn, checked, outcome.ll_keywords)
    grounded = ground_keywords(
        outcome.ll_keywords,
        candidates=Candidates() if own_only else turn.candidates,
        reply=turn.query,
        history=() if own_only else turn.conversation_texts,
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


def _words_of(text: str, candidates: Candidates) -> tuple[str, ...]:
    """The keywords LightRAG would read in ``text``: candidate names whole, then its other content words.

    Split into words, "Klinora Solo" was searched as "Klinora" and "Solo" (the multilingual set's zh-keep-04).
    """
    names = candidates.mentioned_in(text)
    inside = {word.casefold() for name in names for word in content_words(name)}
    return tuple(dict.fromkeys([*names, *(word for word in content_words(text) if word.casefold() not in inside)]))


def _own_words_only(turn: Turn, checked: Resolution, ll_keywords: tuple[str, ...]) -> bool:
    """Whether the built keywords may come from the message's own words only (contract §5.8).

    A kept message names its own subject, which history keywords would steer (LightRAG keeps history out of its own
    extraction for that reason); an AMBIGUOUS one would be led by the one candidate its keywords name (issue 40).
    """
    if checked.fallback_reason == "keep":
        return True
    if checked.fallback_reason != "ambiguous":
        return False
    lacking = [
        name for name in turn.candidates.mentioned_in(" ; ".join(ll_keywords)) if not contains_phrase(turn.query, name)
    ]
    return len(lacking) == 1
