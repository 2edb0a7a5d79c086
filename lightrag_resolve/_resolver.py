"""Routing one turn (contract §3) and running the resolver it needs.

``Resolver`` is the class to subclass for a tenant-specific gate, a domain
prompt or another output format: each of those is one documented method.
Whatever an override returns still goes through the enforcement of
``_enforce`` and the fallback contract of contract §6, so an override can change
what is asked and how it is read, never what reaches retrieval unchecked.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any, Callable

from ._config import LLMFunc, ResolverConfig
from ._conversation import Turn
from ._enforce import (
    NameOutcome,
    accept_reference_name,
    append_context,
    append_meaning,
    cut_gloss,
    enforce_keywords,
    enforce_text_query,
    name_with_message,
)
from ._gate import should_resolve
from ._grounding import (
    focus_on_pick,
    ground_keywords,
    ground_reference_name,
    resolved_meaning,
    without_other_options,
)
from ._model_call import ModelReply, ModelRole, ask_model, output_limits, response_format
from ._parse import KeywordAnswer, ReferenceAnswer, parse_keyword_answer, parse_reference_answer
from ._pointers import leans_on_conversation
from ._prompts import (
    Prompt,
    keyword_prompt,
    keyword_schema,
    reference_prompt,
    reference_schema,
    restatement_prompt,
    text_prompt,
)
from ._report import report
from ._resolution import Path, Resolution
from ._restatement import needs_restatement, restated
from ._standalone import condense_prompt, standalone_question
from ._tracing import query_span, resolver_span

__all__ = ["GRAPH_MODES", "Resolver"]

logger = logging.getLogger("lightrag_resolve")

GRAPH_MODES = frozenset({"local", "global", "hybrid", "mix"})
_NO_CALL = ModelReply(text=None, failure=None, elapsed_ms=0.0)
"""The reply of a turn the code resolves without asking the model (a picked option, an accepted offer)."""


class Resolver:
    """Decides, for one turn, what LightRAG retrieves with.

    Override points, each called with the turn or the model's raw text:
    ``should_resolve`` (the gate), ``is_prompted`` (does a short reply answer the
    assistant), ``points_back`` (may a longer follow-up refer to the conversation),
    ``keyword_prompt``/``parse_keywords``,
    ``text_prompt``/``parse_text``, ``reference_prompt``/``parse_reference`` and
    ``restatement_prompt`` (read with ``parse_text``) and ``condense_prompt``
    (read with ``parse_standalone_question``).
    """

    def __init__(self, config: ResolverConfig | None = None) -> None:
        self.config = config if config is not None else ResolverConfig()

    # ---- override points -------------------------------------------------

    def should_resolve(self, query: str) -> bool:
        """The gate (contract §4): is this a short reply that cannot be searched as written?"""
        return should_resolve(query, self.config.max_resolve_words)

    def keyword_prompt(self, turn: Turn) -> Prompt:
        """The prompt that asks for a resolved search text and ``ll_keywords``/``hl_keywords`` (graph modes)."""
        return keyword_prompt(
            turn,
            max_ll=self.config.max_ll_keywords,
            max_hl=self.config.max_hl_keywords,
            max_words=self.config.max_query_words,
            pick=turn.picked,
        )

    def parse_keywords(self, output: str) -> KeywordAnswer | None:
        """Read both raw keyword lists from the model's text; ``None`` when unreadable."""
        return parse_keyword_answer(output)

    def is_prompted(self, turn: Turn) -> bool:
        """Whether a short reply answers the assistant (contract §5.7): a question it asked, or an option it offered.

        An unprompted short reply ("Virtualization" after an answer) names
        the visitor's own topic; unless ``config.resolve_unprompted_replies``
        is on, it is searched as written and no model call is spent on it.
        """
        return turn.follows_question or turn.picked is not None

    def points_back(self, turn: Turn) -> bool:
        """Whether a longer follow-up may lean on the conversation (contract §5.8).

        It does when it holds a word that may point back ("Which retailers
        already run it?") or asks about "the" something it does not name
        ("What are the benefits?"). Any other message ("What does the Horizon plan cost?")
        names its own subject; unless ``config.check_every_follow_up`` is on,
        it is searched as written and no reference check is spent on it.
        """
        return leans_on_conversation(turn.query)

    def text_prompt(self, turn: Turn) -> Prompt:
        """The prompt that asks for a short search query (``naive`` mode)."""
        return text_prompt(turn, max_words=self.config.max_query_words, pick=turn.picked)

    def parse_text(self, output: str) -> str | None:
        """The rewrite in the model's text (enforced afterwards); ``None`` when unreadable."""
        return output

    def reference_prompt(self, turn: Turn) -> Prompt:
        """The prompt of the reference check for longer follow-ups (graph modes)."""
        return reference_prompt(turn)

    def parse_reference(self, output: str) -> ReferenceAnswer | None:
        """Read ``RESOLVE: <name>``, ``KEEP`` or ``AMBIGUOUS``; ``None`` when unreadable."""
        return parse_reference_answer(output)

    def restatement_prompt(self, turn: Turn) -> Prompt:
        """The prompt that restates a follow-up the check could not name as a short search query (contract §5.9)."""
        return restatement_prompt(turn, max_words=self.config.max_query_words)

    def condense_prompt(self, turn: Turn) -> Prompt:
        """The prompt that asks for a resolved follow-up as one standalone question (contract §5.10)."""
        return condense_prompt(turn)

    def parse_standalone_question(self, output: str) -> str | None:
        """The question in the condense answer, or ``None``; ``_standalone.standalone_question`` checks it after."""
        return output

    # ---- routing ---------------------------------------------------------

    def route(self, turn: Turn, *, enabled: bool, caller_keywords: bool = False) -> Path | Resolution:
        """The branch of contract §3 for this turn, or the untouched result when none runs."""
        untouched = Resolution(query=turn.query, original_query=turn.query, mode=turn.mode, path="disabled")
        if not enabled:
            return replace(untouched, fallback_reason="disabled")
        if turn.mode == "bypass":
            return replace(untouched, path="bypass")
        if turn.mode not in GRAPH_MODES and turn.mode != "naive":
            # LightRAG decides what an unknown mode gets; no model call is spent on it.
            return replace(untouched, fallback_reason="unsupported_mode")
        if turn.is_first:
            return replace(untouched, path="first_turn", fallback_reason="first_turn")
        graph = turn.mode in GRAPH_MODES
        if graph and caller_keywords:
            return replace(untouched, path="keywords", fallback_reason="caller_keywords")
        if _decide(self.should_resolve, turn.query, on_error=False, then="the turn goes through unresolved"):
            return "keywords" if graph else "text"
        if not (graph or self.config.reference_in_naive):
            return replace(untouched, path="text", fallback_reason="gate_declined")
        if not self.config.check_every_follow_up and not _decide(
            self.points_back, turn, on_error=True, then="the reference check runs"
        ):
            return replace(untouched, path="reference", fallback_reason="stands_alone", decision="keep")
        return "reference"

    async def run(self, path: Path, turn: Turn, *, llm: LLMFunc, model: str | None = None) -> Resolution:
        """Run the resolver of ``path`` (``keywords``, ``text`` or ``reference``), timed."""
        started = time.perf_counter()
        resolvers = {"keywords": self.resolve_keywords, "text": self.resolve_text, "reference": self.check_reference}
        if path not in resolvers:
            raise ValueError(f"no resolver runs on path {path!r}")
        with resolver_span(self.config, path, turn, llm, model) as span:
            resolution = await resolvers[path](turn, llm, model=model)
            resolution = replace(resolution, elapsed_ms=(time.perf_counter() - started) * 1000)
            span.record(resolution)
        return resolution

    async def resolve(
        self,
        turn: Turn,
        *,
        llm: LLMFunc,
        reference_llm: LLMFunc | None = None,
        enabled: bool | None = None,
        caller_keywords: bool = False,
        model: str | None = None,
        reference_model: str | None = None,
    ) -> Resolution:
        """Route the turn and run its resolver; never raises because of the model.

        This is the whole decision without LightRAG: ``ResolvingLightRAG``
        uses the same two steps, ``route`` then ``run``. The outcome is logged
        and handed to ``config.on_resolution`` like any query's.
        """
        enabled = self.config.enabled if enabled is None else enabled
        with query_span(self.config, turn) as span:
            path = self.route(turn, enabled=enabled, caller_keywords=caller_keywords)
            if isinstance(path, Resolution):
                resolution = path
            elif path == "reference":
                resolution = await self.run(path, turn, llm=reference_llm or llm, model=reference_model or model)
            else:
                resolution = await self.run(path, turn, llm=llm, model=model)
            span.record(resolution)
        report(resolution, self.config)
        return resolution

    # ---- the three resolvers ----------------------------------------------

    async def _ask(
        self,
        role: ModelRole,
        build: Callable[[Turn], Prompt],
        turn: Turn,
        llm: LLMFunc,
        timeout: float,
        **kwargs: Any,
    ) -> ModelReply:
        try:
            prompt = build(turn)
        except Exception:
            logger.warning("building the resolver prompt raised", exc_info=True)
            return ModelReply(text=None, failure="llm_error", elapsed_ms=0.0)
        return await ask_model(llm, prompt, role=role, timeout=timeout, **kwargs, **output_limits(llm, prompt, kwargs))

    def _read(self, parse: Callable[[str], Any], text: str) -> Any:
        try:
            return parse(text)
        except Exception:
            logger.debug("parsing the resolver output raised", exc_info=True)
            return None

    def _base(self, turn: Turn, path: Path, reply: ModelReply, model: str | None) -> Resolution:
        """The visitor's words on ``path`` with what the model said: every outcome builds on it."""
        return Resolution(
            query=turn.query, original_query=turn.query, mode=turn.mode, path=path, model=model, raw_output=reply.text
        )

    def _short_reply_base(self, turn: Turn, path: Path, reply: ModelReply, model: str | None) -> Resolution:
        """The base of a short reply's outcomes: the visitor's words with the question they answer (contract §5.6).

        Every fallback of the short-reply paths builds on it, so a reply to a
        question keeps that question when the model fails or declines. A
        reply that picked one option carries the question without the others.
        """
        context = turn.reply_context
        if context is not None:
            context = without_other_options(context, pick=turn.picked, candidates=turn.candidates) or None
        return replace(
            self._base(turn, path, reply, model),
            query=append_context(turn.query, context),
            candidates=turn.candidates.names,
            context=context,
        )

    def _unprompted(self, turn: Turn, path: Path, model: str | None) -> Resolution | None:
        """The untouched outcome of an unprompted short reply (contract §5.7); ``None`` when the reply is resolved."""
        if self.config.resolve_unprompted_replies:
            return None
        if _decide(self.is_prompted, turn, on_error=True, then="the reply is resolved as prompted"):
            return None
        return Resolution(
            query=turn.query,
            original_query=turn.query,
            mode=turn.mode,
            path=path,
            model=model,
            fallback_reason="unprompted",
            candidates=turn.candidates.names,
        )

    async def resolve_keywords(self, turn: Turn, llm: LLMFunc, *, model: str | None = None) -> Resolution:
        """Short reply in a graph mode: grounded keywords, and the resolved meaning added to the text."""
        unprompted = self._unprompted(turn, "keywords", model)
        if unprompted is not None:
            return unprompted
        accepted = self._accepted_offer(turn, "keywords", model)
        if accepted is not None:
            return accepted
        config = self.config
        schema = keyword_schema(max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords)
        fmt = response_format(llm, schema, wanted=config.structured_output, json_fallback=True)
        reply = await self._ask("keywords", self.keyword_prompt, turn, llm, config.timeout, **fmt)
        base = self._short_reply_base(turn, "keywords", reply, model)
        if reply.text is None:
            return replace(base, fallback_reason=reply.failure or "llm_error")
        answer = self._read(self.parse_keywords, reply.text)
        if not isinstance(answer, KeywordAnswer):
            return replace(base, fallback_reason="unparsable")
        outcome = enforce_keywords(
            answer.ll_raw, answer.hl_raw, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords
        )
        if outcome.fallback_reason is not None:
            return replace(base, fallback_reason=outcome.fallback_reason)
        grounded = ground_keywords(
            outcome.ll_keywords, candidates=turn.candidates, reply=turn.query, history=turn.message_texts
        )
        if not grounded.kept:
            return replace(base, fallback_reason="ungrounded", dropped_keywords=grounded.dropped)
        pick = turn.picked
        ll_keywords = focus_on_pick(grounded.kept, pick=pick, candidates=turn.candidates)[: config.max_ll_keywords]
        meaning = resolved_meaning(turn, answer.query_raw, ll_keywords, max_words=config.max_query_words) or ""
        return replace(
            base,
            query=_short_reply_text(base, meaning),
            ll_keywords=ll_keywords,
            hl_keywords=outcome.hl_keywords,
            dropped_keywords=grounded.dropped,
        )

    async def resolve_text(self, turn: Turn, llm: LLMFunc, *, model: str | None = None) -> Resolution:
        """Short reply in ``naive`` mode: the resolved meaning added to the visitor's words."""
        unprompted = self._unprompted(turn, "text", model)
        if unprompted is not None:
            return unprompted
        accepted = self._accepted_offer(turn, "text", model)
        if accepted is not None:
            return accepted
        picked = self._picked(turn, model)
        if picked is not None:
            return picked
        reply = await self._ask("text", self.text_prompt, turn, llm, self.config.timeout)
        base = self._short_reply_base(turn, "text", reply, model)
        if reply.text is None:
            return replace(base, fallback_reason=reply.failure or "llm_error")
        rewrite = self._read(self.parse_text, reply.text)
        if rewrite is None:
            return replace(base, fallback_reason="unparsable")
        meaning = resolved_meaning(turn, rewrite, max_words=self.config.max_query_words)
        if meaning is None:
            refused = enforce_text_query(rewrite, company_name=turn.company_name, max_words=self.config.max_query_words)
            return replace(base, fallback_reason=refused.fallback_reason or "unparsable")
        return replace(base, query=_short_reply_text(base, meaning))

    def _accepted_offer(self, turn: Turn, path: Path, model: str | None) -> Resolution | None:
        """A reply that only accepts the assistant's offer, resolved to that offer with no model call.

        "Yes please" to "Shall I tell you which clinics plan their shifts with
        Pivotane?" asks which clinics do: the offer, carried as the reply's
        context (contract §5.6), is its whole meaning. In graph modes no
        keywords are set, so LightRAG extracts its own from that text.
        ``None`` when the reply accepts no offer, when ``rewrite_accepted_offers``
        is on, or when the context is off (``reply_context_words=0``): the
        model then resolves the reply as any other.
        """
        if turn.accepted_offer is None or self.config.rewrite_accepted_offers:
            return None
        base = self._short_reply_base(turn, path, _NO_CALL, model)
        return base if base.context is not None else None

    def _picked(self, turn: Turn, model: str | None) -> Resolution | None:
        """A ``naive``-mode answer that picks one option of the assistant's question, resolved with no model call.

        "Horizon" after "Which plan is your company on: Essentiel, Croissance
        or Horizon?" means Horizon; with the question carried (contract §5.6)
        that is the whole resolution (contract §5.1). ``None`` when the reply
        answers no question or picks nothing, when ``rewrite_picked_replies``
        is on, or when the option is no usable search text.
        """
        if turn.picked is None or not turn.follows_question or self.config.rewrite_picked_replies:
            return None
        meaning = resolved_meaning(turn, turn.picked, max_words=self.config.max_query_words)
        if meaning is None:
            return None
        base = self._short_reply_base(turn, "text", _NO_CALL, model)
        return replace(base, query=_short_reply_text(base, meaning))

    async def check_reference(self, turn: Turn, llm: LLMFunc, *, model: str | None = None) -> Resolution:
        """Longer follow-up: lead the message with one name the conversation established, or keep it.

        When the check sees the message point back and names nothing, the
        message is restated (contract §5.9), unless ``restate_references`` is
        off, or the name the check proposed is the message's own, written
        before its pointing word: the pronoun then takes up that subject. A
        changed outcome then asks for a standalone question to fuse with, when
        ``fuse_standalone_question`` is on (contract §5.10).
        """
        checked, proposed = await self._check(turn, llm, model=model)
        if self.config.restate_references and needs_restatement(checked, proposed=proposed):
            reply = await self._ask("restatement", self.restatement_prompt, turn, llm, self.config.reference_timeout)
            if reply.text is not None:
                parsed = self._read(self.parse_text, reply.text)
                checked = restated(checked, turn, parsed, max_words=self.config.max_query_words)
        if not (self.config.fuse_standalone_question and checked.changed):
            return checked
        return await self._with_standalone_question(checked, turn, llm)

    async def _with_standalone_question(self, resolved: Resolution, turn: Turn, llm: LLMFunc) -> Resolution:
        """``resolved`` with the standalone question its chunk search fuses with, or as it is (contract §5.10).

        A failed, late or refused answer costs the fusion only: the turn
        retrieves with the resolved text alone, as without the option.
        """
        reply = await self._ask("standalone", self.condense_prompt, turn, llm, self.config.timeout)
        if reply.text is None:
            return resolved
        question = standalone_question(turn, self._read(self.parse_standalone_question, reply.text))
        return resolved if question is None else replace(resolved, standalone_question=question)

    async def _check(self, turn: Turn, llm: LLMFunc, *, model: str | None) -> tuple[Resolution, str | None]:
        """The reference check's outcome, with the name proposed: the model's, or the window's sole candidate.

        ``None`` when no name was proposed. A window with one candidate asks no
        model (unless ``check_sole_candidate``): that name is the only one the
        check could propose, and it meets the same acceptance (``_accepted``).
        A window whose graph lookup failed may hold names the code did not see,
        so its one candidate is checked like any other.
        """
        untouched = Resolution(query=turn.query, original_query=turn.query, mode=turn.mode, path="reference")
        names = turn.candidates.names
        if not names:
            # Nothing named that the message could point at: no model call is spent.
            return replace(untouched, fallback_reason="no_candidates", decision="ambiguous", model=model), None
        if len(names) == 1 and not (self.config.check_sole_candidate or turn.graph_lookup_failed):
            # One name in the window: it is the only name the check could propose (contract §5.3).
            return self._accepted(turn, replace(untouched, model=model, candidates=names), names[0]), names[0]
        fmt = response_format(llm, reference_schema(turn), wanted=self.config.structured_output, json_fallback=False)
        reply = await self._ask("reference", self.reference_prompt, turn, llm, self.config.reference_timeout, **fmt)
        base = replace(self._base(turn, "reference", reply, model), candidates=turn.candidates.names)
        if reply.text is None:
            return replace(base, fallback_reason=reply.failure or "llm_error", decision="error"), None
        answer = self._read(self.parse_reference, reply.text)
        if not isinstance(answer, ReferenceAnswer):
            return replace(base, fallback_reason="unparsable", decision="error"), None
        if answer.decision == "keep" or answer.decision == "ambiguous":
            return replace(base, fallback_reason=answer.decision, decision=answer.decision), None
        if not answer.name:
            return replace(base, fallback_reason="unparsable", decision="error"), None
        proposed = cut_gloss(turn.candidates.by_number(answer.name) or answer.name)
        return self._accepted(turn, base, proposed), proposed

    def _accepted(self, turn: Turn, base: Resolution, proposed: str) -> Resolution:
        """``base`` led by ``proposed`` when the conversation established it as a candidate, else refused with why."""
        outcome = accept_reference_name(
            proposed,
            history_text=turn.message_texts,
            message=turn.query,
            company_name=turn.company_name,
            max_words=self.config.max_name_words,
        )
        if outcome.name is not None and ground_reference_name(outcome.name, turn.candidates) is None:
            outcome = NameOutcome(name=None, rejected_reason="not_a_candidate")
        if outcome.name is None:
            return replace(
                base,
                fallback_reason=f"rejected:{outcome.rejected_reason}",
                decision="resolve",
                rejected_reason=outcome.rejected_reason,
            )
        query = name_with_message(turn.query, outcome.name)
        return replace(base, query=query, decision="resolve", entity=outcome.name)


def _short_reply_text(base: Resolution, meaning: str) -> str:
    """A resolved short reply's retrieval text: "<reply> — <meaning> — <context>" (contract §5.1, §5.6)."""
    return append_context(append_meaning(base.original_query, meaning), base.context)


def _decide(override: Callable[[Any], Any], subject: Any, *, on_error: bool, then: str) -> bool:
    """One yes/no override point's answer; ``on_error`` when it raises, which is logged with what follows."""
    try:
        return bool(override(subject))
    except Exception:
        logger.warning("%s raised; %s", getattr(override, "__name__", "an override"), then, exc_info=True)
        return on_error
