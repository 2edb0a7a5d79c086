"""Which path a turn takes (contract §3): an ordered list of small, pure routing rules.

Each rule reads the turn and the ``RouteFacts`` and returns a path
(``keywords``, ``text``, ``reference``), the untouched ``Resolution`` of a turn
no resolver runs on, or ``None`` to leave the turn to the next rule; a turn no
rule claims meets the reference check. The two facts that come from override
points (the gate, whether a follow-up points back) are asked only when a rule
needs them, and an override that raises gets the documented default.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ._conversation import Turn
from ._fallback import fall_back, untouched
from ._resolution import Resolution, ResolutionPath
from ._tuning import ResolverTuning

__all__ = ["GRAPH_MODES", "ROUTE_RULES", "Route", "RouteFacts", "decide", "route"]

logger = logging.getLogger("lightrag_resolve")

GRAPH_MODES = frozenset({"local", "global", "hybrid", "mix"})

Route = ResolutionPath | Resolution
"""A path a resolver runs on, or the untouched outcome of a turn none runs on."""


def decide(override: Callable[[Any], Any], subject: Any, *, on_error: bool, then: str) -> bool:
    """One yes/no override point's answer; ``on_error`` when it raises, which is logged with what follows."""
    try:
        return bool(override(subject))
    except Exception:
        logger.warning("%s raised; %s", getattr(override, "__name__", "an override"), then, exc_info=True)
        return on_error


@dataclass(frozen=True, kw_only=True)
class RouteFacts:
    """What the rules read beside the turn: the call's switches and the two override points' answers."""

    turn: Turn
    enabled: bool
    caller_keywords: bool
    tuning: ResolverTuning
    gate: Callable[[str], bool]
    """The gate (``Resolver.should_resolve``): is the message a short reply?"""
    pointer: Callable[[Turn], bool]
    """``Resolver.points_back``: may a longer follow-up lean on the conversation?"""

    @property
    def graph(self) -> bool:
        return self.turn.mode in GRAPH_MODES

    @cached_property
    def short_reply(self) -> bool:
        return decide(self.gate, self.turn.query, on_error=False, then="the turn goes through unresolved")

    @cached_property
    def points_back(self) -> bool:
        return decide(self.pointer, self.turn, on_error=True, then="the reference check runs")


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


def naive_without_check(facts: RouteFacts) -> Route | None:
    if facts.graph or facts.tuning.reference_in_naive:
        return None
    return fall_back(untouched(facts.turn, "text"), "gate_declined")


def stands_alone(facts: RouteFacts) -> Route | None:
    """In ``naive``, a follow-up with no word that points back names its own subject (contract §5.8): no check is
    spent. In graph modes the check replaces LightRAG's own extraction call, so the model judges every follow-up;
    on KEEP its keywords come from the message's own words (§5.8)."""
    if facts.graph or facts.tuning.check_every_follow_up or facts.points_back:
        return None
    return fall_back(untouched(facts.turn, "reference"), "stands_alone", decision="keep")


ROUTE_RULES: tuple[Callable[[RouteFacts], Route | None], ...] = (
    disabled,
    bypass,
    unsupported_mode,
    first_turn,
    caller_keywords,
    short_reply,
    naive_without_check,
    stands_alone,
)
"""The rules in the order contract §3 applies them; the first that claims the turn decides."""


def route(facts: RouteFacts) -> Route:
    """The path of ``facts.turn``: the first rule's answer, else the reference check."""
    for rule in ROUTE_RULES:
        decided = rule(facts)
        if decided is not None:
            return decided
    return "reference"
