"""Short replies ("Santé", "Yes, B1", "the second one"): keywords in graph modes, a short query in ``naive``.

In graph modes every short reply gets one model call, which replaces
LightRAG's own keyword extraction: what the code reads of the turn (the
option it picks, the offer it accepts, the names in play) is evidence in that
call's prompt and a check on its answer, never a replacement for it. In
``naive``, where plain LightRAG makes no call, a reply that answers nothing
the assistant said is searched as written (contract §5.7) and one that picks
an option of the question is resolved in code (§5.1); the rest get one call. Every outcome builds on the safe short
reply: the visitor's words with the question they answer (§5.6), carried
when the model's meaning cannot be added (§6).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ._config import LLMFunc
from ._conversation import Turn
from ._enforce import (
    append_context,
    append_meaning,
    enforce_keywords,
    enforce_text_query,
    focus_on_pick,
    ground_keywords,
    resolved_meaning,
)
from ._fallback import fall_back
from ._model_call import ModelReply, response_format
from ._parse import KeywordAnswer
from ._prompts import keyword_schema
from ._resolution import Resolution, ResolutionPath
from ._routing import decide

if TYPE_CHECKING:
    from ._resolver import Resolver

__all__ = ["resolve_keywords", "resolve_text", "safe_short_reply"]

NO_CALL = ModelReply(text=None, failure=None, elapsed_ms=0.0)
"""The reply of a turn the code resolves without asking the model (a picked option, in ``naive``)."""


def safe_short_reply(turn: Turn, path: ResolutionPath, reply: ModelReply, model: str | None) -> Resolution:
    """The safe outcome of a short reply: the visitor's words with the question they answer (contract §5.6).

    Every failure of the short-reply paths returns it (``fall_back``), so a
    reply to a question keeps that question when the model fails or declines:
    the turn is carried (``carry_reason``); with no question it is the
    visitor's words, a fallback like any other (contract §6). The
    question is carried in whole sentences, the options a reply did not pick
    included: words cut out of a sentence leave a text nobody wrote, and
    cutting them measured as no gain (docs/findings.md).
    """
    context = turn.reply_context
    return Resolution(
        query=append_context(turn.query, context),
        original_query=turn.query,
        mode=turn.mode,
        path=path,
        model=model,
        raw_output=reply.text,
        candidates=turn.candidates.names,
        context=context,
    )


def _resolved(safe: Resolution, meaning: str) -> str:
    """A resolved short reply's retrieval text: "<reply> — <meaning> — <context>" (contract §5.1, §5.6)."""
    return append_context(append_meaning(safe.original_query, meaning), safe.context)


def _without_model(resolver: Resolver, turn: Turn, path: ResolutionPath, model: str | None) -> Resolution | None:
    """The outcome of a short reply that needs no model call (``naive`` only), or ``None`` when the model resolves it.

    In graph modes every short reply gets the one call: it replaces
    LightRAG's own keyword extraction, so a shortcut there saves nothing; on
    an unseen company set short replies fell from 0.83 to 0.67 when accepted
    offers were carried in code (docs/findings.md). In
    ``naive``, where plain LightRAG makes no call, two shortcuts keep saving
    one: a reply that answers nothing is searched as written (§5.7), and a
    reply that picks an option of the question means that option (§5.1).
    """
    if path != "text":
        return None
    tuning = resolver.tuning
    if not tuning.resolve_unprompted_replies and not decide(
        resolver.is_prompted, turn, on_error=True, then="the reply is resolved as prompted"
    ):
        # It names the visitor's own topic (contract §5.7): searched as written.
        return Resolution(
            query=turn.query,
            original_query=turn.query,
            mode=turn.mode,
            path=path,
            model=model,
            fallback_reason="unprompted",
            candidates=turn.candidates.names,
        )
    if turn.picked is not None and turn.follows_question and not tuning.rewrite_picked_replies:
        # "Horizon" after "Which plan: Essentiel, Croissance or Horizon?" means Horizon (contract §5.1).
        meaning = resolved_meaning(turn, turn.picked, max_words=resolver.config.max_query_words)
        if meaning is not None:
            picked = safe_short_reply(turn, "text", NO_CALL, model)
            return replace(picked, query=_resolved(picked, meaning))
    return None


async def resolve_keywords(resolver: Resolver, turn: Turn, llm: LLMFunc, *, model: str | None) -> Resolution:
    """Short reply in a graph mode: grounded keywords, and the resolved meaning added to the text."""
    settled = _without_model(resolver, turn, "keywords", model)
    if settled is not None:
        return settled
    config = resolver.config
    schema = keyword_schema(max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords)
    fmt = response_format(llm, schema, wanted=config.structured_output, json_fallback=True)
    reply = await resolver.ask("keywords", resolver.keyword_prompt, turn, llm, config.timeout, **fmt)
    safe = safe_short_reply(turn, "keywords", reply, model)
    if reply.text is None:
        return fall_back(safe, reply.failure or "llm_error")
    answer = resolver.read(resolver.parse_keywords, reply.text)
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
        query=_resolved(safe, meaning),
        ll_keywords=ll_keywords,
        hl_keywords=outcome.hl_keywords,
        dropped_keywords=grounded.dropped,
    )


async def resolve_text(resolver: Resolver, turn: Turn, llm: LLMFunc, *, model: str | None) -> Resolution:
    """Short reply in ``naive`` mode: the resolved meaning added to the visitor's words."""
    settled = _without_model(resolver, turn, "text", model)
    if settled is not None:
        return settled
    max_words = resolver.config.max_query_words
    reply = await resolver.ask("text", resolver.text_prompt, turn, llm, resolver.config.timeout)
    safe = safe_short_reply(turn, "text", reply, model)
    if reply.text is None:
        return fall_back(safe, reply.failure or "llm_error")
    rewrite = resolver.read(resolver.parse_text, reply.text)
    if rewrite is None:
        return fall_back(safe, "unparsable")
    meaning = resolved_meaning(turn, rewrite, max_words=max_words)
    if meaning is None:
        refused = enforce_text_query(rewrite, company_name=turn.company_name, max_words=max_words)
        return fall_back(safe, refused.fallback_reason or "ungrounded")  # accepted, but not what the offer named
    return replace(safe, query=_resolved(safe, meaning))
