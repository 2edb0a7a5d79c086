"""Which way a turn goes, decided in one place: its path, the no-call shortcuts, and every safe outcome.

Contract §3 and §6, top to bottom: the safe outcomes and the fallback contract (``fall_back``: every failure returns
its path's safe resolution with its reason); the routing rules (``ROUTE_RULES``), pure functions of the turn and its
``RouteFacts`` applied in order, else the reference check (override points are asked only when a rule needs them; one
that raises gets the documented default); ``checks_first``; the no-call shortcuts of ``naive`` mode (``SHORTCUTS``),
run after the name lookup and before the model; and the acceptance of a proposed name (``led_by``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from lightrag.query_validation import meets_min_rag_query_weight

from .._enforce import (
    NameOutcome,
    accept_reference_name,
    append_context,
    append_meaning,
    name_with_message,
    needs_restatement,
    resolved_meaning,
)
from .._languages import UNITS, detect
from .._languages.pointing import content_words
from .._languages.text import is_question
from .._model.call import ModelReply
from .._resolution import FallbackReason, Resolution, ResolutionPath
from .._tuning import ResolverTuning
from .._turn.conversation import Turn
from .._turn.short_reply import DEFAULT_MAX_RESOLVE_WORDS, word_count

__all__ = [
    "GRAPH_MODES",
    "ROUTE_RULES",
    "SHORTCUTS",
    "Route",
    "RouteFacts",
    "RouteRule",
    "Shortcut",
    "check_raised",
    "checks_first",
    "override_answer",
    "fall_back",
    "led_by",
    "resolved_text",
    "route",
    "safe_short_reply",
    "settle",
    "untouched",
]

logger = logging.getLogger("lightrag_resolve")

GRAPH_MODES = frozenset({"local", "global", "hybrid", "mix"})

Route = ResolutionPath | Resolution
"""A path a resolver runs on, or the untouched outcome of a turn none runs on."""

NO_CALL = ModelReply(text=None, failure=None, elapsed_ms=0.0)
"""The reply of a turn the code resolves without asking the model (a picked option, in ``naive``)."""


# ---- safe outcomes and the fallback contract (§6) ---------------------------


def untouched(turn: Turn, path: ResolutionPath, **record: Any) -> Resolution:
    """The visitor's words on ``path``, as plain LightRAG searches them; ``record`` fills the rest of the record."""
    return Resolution(query=turn.query, original_query=turn.query, mode=turn.mode, path=path, **record)


def safe_short_reply(turn: Turn, path: ResolutionPath, reply: ModelReply, model: str | None) -> Resolution:
    """The safe outcome of a short reply: the visitor's words with the question they answer (contract §5.6).

    Every short-reply failure returns it (``fall_back``): a reply keeps its question, the turn carried
    (``carry_reason``); with none it is a plain fallback (§6). Questions are carried whole, unpicked options included:
    cut words leave a text nobody wrote, and cutting them measured as no gain (docs/findings.md).
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


def fall_back(safe: Resolution, reason: FallbackReason, **record: Any) -> Resolution:
    """``safe`` (what a path retrieves with when the model's answer is unusable) with why; never changes the query.

    ``reason`` is the visitor's words' ``fallback_reason``, or a question-carrying short reply's ``carry_reason``.
    """
    if safe.changed:
        return replace(safe, carry_reason=reason, **record)
    return replace(safe, fallback_reason=reason, **record)


def check_raised(turn: Turn) -> Resolution:
    """The outcome of a reference check that raised: the visitor's words, as an ``llm_error``."""
    return fall_back(untouched(turn, "reference"), "llm_error", decision="error")


def resolved_text(safe: Resolution, meaning: str) -> str:
    """A resolved short reply's retrieval text: "<reply> — <meaning> — <context>" (contract §5.1, §5.6)."""
    return append_context(append_meaning(safe.original_query, meaning), safe.context)


# ---- the path (§3) -----------------------------------------------------------


def override_answer(override: Callable[[Any], Any], subject: Any, *, on_error: bool, then: str) -> bool:
    """One yes/no override point's answer; ``on_error`` when it raises, which is logged with what follows."""
    try:
        return bool(override(subject))
    except Exception:
        logger.warning("%s raised; %s", getattr(override, "__name__", "an override"), then, exc_info=True)
        return on_error


@dataclass(frozen=True, kw_only=True)
class RouteFacts:
    """What the rules and shortcuts read beside the turn: the call's switches and the override points' answers."""

    turn: Turn
    enabled: bool
    caller_keywords: bool
    tuning: ResolverTuning
    max_query_words: int
    max_resolve_words: int = DEFAULT_MAX_RESOLVE_WORDS
    """The gate's word limit (``ResolverConfig.max_resolve_words``): a longer answer is ``answers_question``'s."""
    gate: Callable[[str], bool]
    """The gate (``Resolver.should_resolve``): is the message a short reply?"""
    pointer: Callable[[Turn], bool]
    """``Resolver.points_back``: may a longer follow-up lean on the conversation?"""
    prompter: Callable[[Turn], bool]
    """``Resolver.is_prompted``: does a short reply answer the assistant?"""
    searched_by_lightrag: bool = False
    """The turn is retrieved by ``ResolvingLightRAG``, which refuses a text too light to search."""

    @property
    def graph(self) -> bool:
        return self.turn.mode in GRAPH_MODES

    @cached_property
    def short_reply(self) -> bool:
        return override_answer(self.gate, self.turn.query, on_error=False, then="the turn goes through unresolved")

    @cached_property
    def points_back(self) -> bool:
        return override_answer(self.pointer, self.turn, on_error=True, then="the reference check runs")

    @cached_property
    def prompted(self) -> bool:
        return override_answer(self.prompter, self.turn, on_error=True, then="the reply is resolved as prompted")


RouteRule = Callable[[RouteFacts], Route | None]
"""A routing rule: a path, the untouched outcome of a turn no resolver runs on, or ``None`` for the next rule."""


def disabled(facts: RouteFacts) -> Route | None:
    return None if facts.enabled else fall_back(untouched(facts.turn, "disabled"), "disabled")


def bypass(facts: RouteFacts) -> Route | None:
    return untouched(facts.turn, "bypass") if facts.turn.mode == "bypass" else None


def unsupported_mode(facts: RouteFacts) -> Route | None:
    """A mode LightRAG does not know: LightRAG decides what it gets, and no model call is spent on it."""
    if facts.graph or facts.turn.mode == "naive":
        return None
    return fall_back(untouched(facts.turn, "disabled"), "unsupported_mode")


def first_turn(facts: RouteFacts) -> Route | None:
    return fall_back(untouched(facts.turn, "first_turn"), "first_turn") if facts.turn.is_first else None


def caller_keywords(facts: RouteFacts) -> Route | None:
    """Keywords the caller set in a graph mode are respected: LightRAG searches with them."""
    if facts.graph and facts.caller_keywords:
        return fall_back(untouched(facts.turn, "keywords"), "caller_keywords")
    return None


def short_reply(facts: RouteFacts) -> Route | None:
    if not facts.short_reply:
        return None
    return "keywords" if facts.graph else "text"


def answers_question(facts: RouteFacts) -> Route | None:
    """A statement too long for the gate that answers the assistant's question is a reply too (§3, §5.6).

    "Yes, I am a Graduate Student." after "Are you a Graduate Student?" is read with it (written from doc2dial).
    """
    query = facts.turn.query
    if word_count(query) <= facts.max_resolve_words or is_question(query) or not facts.turn.follows_question:
        return None
    return "keywords" if facts.graph else "text"


def stands_alone(facts: RouteFacts) -> Route | None:
    """In ``naive``, a follow-up with no word that points back names its own subject: no check is spent (§5.8).

    In graph modes the check replaces LightRAG's extraction, so the model judges every follow-up; on KEEP, keywords come
    from the message's own words.
    """
    if facts.graph or facts.points_back:
        return None
    return fall_back(untouched(facts.turn, "reference"), "stands_alone", decision="keep")


def too_light(facts: RouteFacts) -> Route | None:
    """A follow-up too light for LightRAG to search at all is left for LightRAG to reject as usual."""
    if facts.searched_by_lightrag and not meets_min_rag_query_weight(facts.turn.query):
        return fall_back(untouched(facts.turn, "reference"), "gate_declined")
    return None


ROUTE_RULES: tuple[RouteRule, ...] = (
    disabled,
    bypass,
    unsupported_mode,
    first_turn,
    caller_keywords,
    short_reply,
    answers_question,
    stands_alone,
    too_light,
)
"""The rules in the order contract §3 applies them; the first that claims the turn decides."""


def route(facts: RouteFacts, rules: tuple[RouteRule, ...] = ROUTE_RULES) -> Route:
    """The path of ``facts.turn``: the first rule's answer, else the reference check."""
    for rule in rules:
        decided = rule(facts)
        if decided is not None:
            return decided
    return "reference"


def checks_first(turn: Turn) -> bool:
    """Whether the reference check runs before retrieval and answers LightRAG's keywords (graph modes, §7).

    There its one call replaces LightRAG's extraction; in ``naive``, where LightRAG makes no call before its search, it
    runs beside a speculative search on the visitor's words, so only a resolved turn waits.
    """
    return turn.mode in GRAPH_MODES


# ---- the no-call shortcuts of ``naive`` mode --------------------------------

Shortcut = Callable[[RouteFacts, ResolutionPath, str | None], Resolution | None]
"""A turn's outcome settled without the model on its path, or ``None`` when the model is asked."""


def unprompted_reply(facts: RouteFacts, path: ResolutionPath, model: str | None) -> Resolution | None:
    """In ``naive``, an unprompted short reply names the visitor's own topic and is searched as written (§5.7).

    In graph modes the call replaces LightRAG's own extraction, so the model reads it (issue 40).
    """
    if path != "text" or facts.prompted:
        return None
    turn = facts.turn
    return Resolution(
        query=turn.query,
        original_query=turn.query,
        mode=turn.mode,
        path=path,
        model=model,
        fallback_reason="unprompted",
        candidates=turn.candidates.names,
    )


def picked_option(facts: RouteFacts, path: ResolutionPath, model: str | None) -> Resolution | None:
    """In ``naive``, "Horizon" after "Which plan: Essentiel, Croissance or Horizon?" means Horizon (§5.1).

    Written from the bundled sample's picks; in graph modes the pick is evidence in the model's prompt instead.
    """
    turn = facts.turn
    if path != "text" or turn.picked is None or not turn.follows_question:
        return None
    meaning = resolved_meaning(turn, turn.picked, max_words=facts.max_query_words)
    if meaning is None:
        return None
    picked = safe_short_reply(turn, "text", NO_CALL, model)
    return replace(picked, query=resolved_text(picked, meaning))


def sole_candidate(facts: RouteFacts, path: ResolutionPath, model: str | None) -> Resolution | None:
    """In ``naive``, a follow-up whose window names one candidate points at it, with no model call (§5.3).

    Only with complete candidates (no failed graph lookup), a message in a language the analysis reads (elsewhere the
    model decides), and a name, not a unit ("mm", "°F": found on an unseen dialogue set). A refused name the message
    points past (§5.9) goes to the model, which restates it.
    """
    turn = facts.turn
    names = turn.candidates.names
    if path != "reference" or checks_first(turn) or len(names) != 1:
        return None
    sole = names[0]
    if turn.graph_lookup_failed or detect(turn.query) is None or sole.casefold() in UNITS:
        return None
    accepted = led_by(turn, untouched(turn, "reference", model=model, candidates=names), sole, facts.tuning)
    if accepted.fallback_reason is not None and needs_restatement(accepted, proposed=sole):
        return None
    return accepted


SHORTCUTS: tuple[Shortcut, ...] = (unprompted_reply, picked_option, sole_candidate)
"""The no-call shortcuts, in order; each claims ``naive`` turns only (plain LightRAG makes no call there)."""


def settle(
    facts: RouteFacts, path: ResolutionPath, model: str | None, shortcuts: tuple[Shortcut, ...]
) -> Resolution | None:
    """The first shortcut's outcome for the turn on ``path``, or ``None`` when the model is asked."""
    for shortcut in shortcuts:
        settled = shortcut(facts, path, model)
        if settled is not None:
            return settled
    return None


# ---- a proposed name -----------------------------------------------------------


def _written_as_a_name(name: str) -> bool:
    """Whether ``name`` is written as a name: a capital on a word that is not a function word, a digit, or Han.

    Asked of a proposed name the candidates lack; written from the tests' "loyalty terminal", "anything" and "I".
    """
    if any(char.isupper() for char in name) and content_words(name):
        return True
    return any(char.isdigit() or (char.isalpha() and char.lower() == char.upper()) for char in name)


def led_by(turn: Turn, safe: Resolution, proposed: str, tuning: ResolverTuning) -> Resolution:
    """``safe`` led by ``proposed`` when a conversation message holds it verbatim, else refused with why.

    The candidates are evidence, not a gate: their heuristics miss names the model reads (a German brand read as a
    capitalised noun; "慧仓储", Chinese without spaces; issue 40). A name outside them must be written as one
    (``_written_as_a_name``), else ``not_a_candidate``.
    """
    outcome = accept_reference_name(
        proposed,
        history_text=turn.conversation_texts,
        message=turn.query,
        company_name=turn.company_name,
        max_words=tuning.max_name_words,
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
