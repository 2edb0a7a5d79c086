"""Routing a turn (``_decide/route.py``, contract §3): each rule as a pure function, their order, lazy facts, overrides."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given

from fakes import FakeOverride
from lightrag_resolve import Message, Resolution, ResolverTuning, Turn
from lightrag_resolve._decide.route import (
    answers_question,
    GRAPH_MODES,
    ROUTE_RULES,
    RouteFacts,
    bypass,
    caller_keywords,
    override_answer,
    disabled,
    first_turn,
    route,
    short_reply,
    stands_alone,
    too_light,
    unsupported_mode,
)
from lightrag_resolve.eval import Experiment, experiment_resolver
from lightrag_resolve.eval._alternatives import naive_without_check
from strategies import route_facts

HISTORY = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="Pulse POS and Orbit CRM. Which sector are you in?"),
)
REPLY = "Retail"
FOLLOW_UP = "Which shops already run it?"


def facts(
    query: str = REPLY,
    *,
    mode: str = "mix",
    history: tuple[Message, ...] = HISTORY,
    enabled: bool = True,
    keywords: bool = False,
    gate: Any = True,
    pointer: Any = True,
    lightrag: bool = False,
) -> RouteFacts:
    """The facts of one turn; ``gate`` and ``pointer`` are what the fake override points answer (or raise)."""
    return RouteFacts(
        turn=Turn(query=query, history=history, mode=mode),
        enabled=enabled,
        caller_keywords=keywords,
        tuning=ResolverTuning(),
        max_query_words=12,
        gate=FakeOverride(gate),
        pointer=FakeOverride(pointer),
        prompter=FakeOverride(True),
        searched_by_lightrag=lightrag,
    )


def rules(**switches: bool) -> tuple[Any, ...]:
    """The routing rules of the harness's ``Experiment`` with ``switches`` (an alternative measured as no gain)."""
    return experiment_resolver(None, Experiment(**switches)).route_rules


def asked(of: RouteFacts) -> tuple[list[Any], list[Any]]:
    """What the gate and the pointer were asked, in that order."""
    return of.gate.asked, of.pointer.asked  # type: ignore[attr-defined]


def assert_untouched(routed: Any, of: RouteFacts, *, path: str, reason: str | None) -> None:
    """``routed`` is the visitor's words on ``path``, falling back with ``reason``."""
    assert isinstance(routed, Resolution)
    assert (routed.path, routed.fallback_reason) == (path, reason)
    assert routed.query == routed.original_query == of.turn.query and routed.mode == of.turn.mode
    assert not routed.changed


# ---- each rule: what it claims, and what it leaves to the next -------------------------------


def test_disabled_claims_a_turn_with_the_resolver_off():
    off = facts(enabled=False)
    assert_untouched(disabled(off), off, path="disabled", reason="disabled")
    assert disabled(facts()) is None


def test_bypass_claims_the_bypass_mode_with_no_fallback_reason():
    bypassed = facts(mode="bypass")
    assert_untouched(bypass(bypassed), bypassed, path="bypass", reason=None)
    for mode in ("mix", "naive", "vector"):
        assert bypass(facts(mode=mode)) is None


@pytest.mark.parametrize("mode", ["vector", "", "MIX", "bypass"])
def test_unsupported_mode_claims_a_mode_that_is_neither_graph_nor_naive(mode):
    odd = facts(mode=mode)
    assert_untouched(unsupported_mode(odd), odd, path="disabled", reason="unsupported_mode")


@pytest.mark.parametrize("mode", sorted(GRAPH_MODES | {"naive"}))
def test_unsupported_mode_leaves_the_modes_lightrag_knows(mode):
    assert unsupported_mode(facts(mode=mode)) is None


def test_first_turn_claims_a_turn_without_history():
    first = facts(history=())
    assert_untouched(first_turn(first), first, path="first_turn", reason="first_turn")
    assert first_turn(facts()) is None


@pytest.mark.parametrize("mode", sorted(GRAPH_MODES))
def test_caller_keywords_claims_a_graph_turn_with_the_callers_keywords(mode):
    given_keywords = facts(mode=mode, keywords=True)
    assert_untouched(caller_keywords(given_keywords), given_keywords, path="keywords", reason="caller_keywords")
    assert caller_keywords(facts(mode=mode)) is None


def test_caller_keywords_leaves_a_naive_turn():
    assert caller_keywords(facts(mode="naive", keywords=True)) is None


@pytest.mark.parametrize(("mode", "path"), [("mix", "keywords"), ("local", "keywords"), ("naive", "text")])
def test_short_reply_sends_a_reply_the_gate_passes_to_its_modes_resolver(mode, path):
    assert short_reply(facts(mode=mode)) == path
    assert short_reply(facts(mode=mode, gate=False)) is None


def test_naive_without_check_claims_a_naive_follow_up_when_the_check_is_off_in_naive():
    naive = facts(FOLLOW_UP, mode="naive", gate=False)
    assert_untouched(naive_without_check(naive), naive, path="text", reason="gate_declined")
    assert naive_without_check(facts(FOLLOW_UP, mode="mix", gate=False)) is None
    assert naive_without_check in rules(reference_in_naive=False) and naive_without_check not in ROUTE_RULES


ANSWER = "Yes, I am a Graduate Student."
"""doc2dial: an answer to "Are you a Graduate Student?", too long for the gate."""


@pytest.mark.parametrize(("mode", "path"), [("naive", "text"), ("mix", "keywords"), ("local", "keywords")])
def test_a_longer_statement_that_answers_the_assistant_is_a_reply_of_its_mode(mode, path):
    assert answers_question(facts(ANSWER, mode=mode, gate=False)) == path
    assert route(facts(ANSWER, mode=mode, gate=False, pointer=False)) == path  # before stands_alone


def test_a_question_an_unprompted_statement_or_a_short_reply_is_not_a_longer_answer():
    assert answers_question(facts("Yes, and can I preview the note first?", mode="naive", gate=False)) is None
    told = (HISTORY[0], Message(role="assistant", content="Pulse POS and Orbit CRM run in 40 shops."))
    unprompted = facts(ANSWER, mode="naive", history=told, gate=False, pointer=False)
    assert answers_question(unprompted) is None
    assert route(unprompted).fallback_reason == "stands_alone"
    naming = facts("I would take Pulse POS for my shops", mode="naive", history=told, gate=False)
    assert naming.turn.picked == "Pulse POS" and answers_question(naming) is None  # a name said is no answer
    short = facts("Yes, graduate", mode="naive", gate=RuntimeError("tenant gate failed"))
    assert answers_question(short) is None  # the gate's words, even where the gate raised


def test_stands_alone_claims_a_naive_follow_up_that_points_at_nothing_as_a_kept_check():
    alone = facts(FOLLOW_UP, mode="naive", gate=False, pointer=False)
    routed = stands_alone(alone)
    assert_untouched(routed, alone, path="reference", reason="stands_alone")
    assert routed.decision == "keep"
    assert stands_alone(facts(FOLLOW_UP, mode="naive", gate=False, pointer=True)) is None


@pytest.mark.parametrize("mode", sorted(GRAPH_MODES))
def test_stands_alone_leaves_every_graph_follow_up_to_the_check_whose_call_replaces_lightrags(mode):
    alone = facts(FOLLOW_UP, mode=mode, gate=False, pointer=False)
    assert stands_alone(alone) is None
    assert alone.pointer.asked == []  # the pointer words are not even read: the model judges


def test_every_follow_up_meets_the_check_when_told_to_check_them_all():
    every = facts(FOLLOW_UP, mode="naive", gate=False, pointer=False)
    assert route(every, rules(check_every_follow_up=True)) == "reference"
    assert asked(every) == ([FOLLOW_UP], [])


def test_too_light_leaves_a_follow_up_lightrag_would_not_search_to_lightrag():
    light = facts("?", gate=False, lightrag=True)
    assert_untouched(too_light(light), light, path="reference", reason="gate_declined")
    assert isinstance(route(light), Resolution)
    assert too_light(facts("?", gate=False)) is None  # Resolver.resolve: LightRAG does not search it
    assert too_light(facts(FOLLOW_UP, gate=False, lightrag=True)) is None


def test_a_turn_no_rule_claims_meets_the_reference_check():
    pointing = facts(FOLLOW_UP, gate=False, pointer=True)
    assert all(rule(pointing) is None for rule in ROUTE_RULES)
    assert route(pointing) == "reference"


# ---- the order of the rules ------------------------------------------------------------------


def test_the_rules_run_in_the_order_of_contract_section_3():
    assert [rule.__name__ for rule in ROUTE_RULES] == [
        "disabled",
        "bypass",
        "unsupported_mode",
        "first_turn",
        "caller_keywords",
        "short_reply",
        "answers_question",
        "stands_alone",
        "too_light",
    ]


@pytest.mark.parametrize(
    ("of", "path", "reason"),
    [
        (facts(enabled=False, history=()), "disabled", "disabled"),  # disabled wins over first_turn
        (facts(enabled=False, mode="bypass"), "disabled", "disabled"),  # and over bypass
        (facts(mode="bypass", history=()), "bypass", None),  # bypass is not an unsupported mode, nor a first turn
        (facts(mode="vector", history=()), "disabled", "unsupported_mode"),  # an unknown mode wins over first_turn
        (facts(history=(), keywords=True), "first_turn", "first_turn"),  # first_turn wins over caller keywords
        (facts(keywords=True), "keywords", "caller_keywords"),  # the caller's keywords win over the gate
    ],
)
def test_an_earlier_rule_wins(of, path, reason):
    assert_untouched(route(of), of, path=path, reason=reason)


def test_caller_keywords_count_only_in_graph_modes():
    assert route(facts(mode="naive", keywords=True)) == "text"
    assert route(facts(FOLLOW_UP, mode="naive", keywords=True, gate=False)) == "reference"


def test_a_naive_follow_up_with_the_check_off_is_searched_as_written_before_standing_alone_is_asked():
    of = facts(FOLLOW_UP, mode="naive", gate=False, pointer=False)
    assert_untouched(route(of, rules(reference_in_naive=False)), of, path="text", reason="gate_declined")


def test_a_short_reply_in_naive_is_resolved_even_with_the_check_off_in_naive():
    assert route(facts(mode="naive"), rules(reference_in_naive=False)) == "text"


# ---- the facts are asked only when a rule needs them -----------------------------------------


@pytest.mark.parametrize(
    "of",
    [facts(history=()), facts(enabled=False), facts(mode="bypass"), facts(mode="vector"), facts(keywords=True)],
    ids=["first_turn", "disabled", "bypass", "unsupported_mode", "caller_keywords"],
)
def test_a_turn_an_earlier_rule_claims_asks_neither_override(of):
    route(of)
    assert asked(of) == ([], [])


def test_a_short_reply_asks_the_gate_once_and_not_the_pointer():
    reply = facts()
    assert route(reply) == "keywords"
    assert asked(reply) == ([REPLY], [])


def test_a_follow_up_asks_the_pointer_once_with_its_turn():
    follow_up = facts(FOLLOW_UP, mode="naive", gate=False, pointer=True)
    assert route(follow_up) == "reference"
    assert asked(follow_up) == ([FOLLOW_UP], [follow_up.turn])


def test_a_naive_follow_up_with_the_check_off_asks_no_pointer():
    naive = facts(FOLLOW_UP, mode="naive", gate=False)
    route(naive, rules(reference_in_naive=False))
    assert asked(naive)[1] == []


def test_a_fact_is_asked_once_however_often_it_is_read():
    follow_up = facts(FOLLOW_UP, gate=False, pointer=False)
    for _ in range(3):
        assert (follow_up.short_reply, follow_up.points_back) == (False, False)
    assert asked(follow_up) == ([FOLLOW_UP], [follow_up.turn])


# ---- an override that raises -----------------------------------------------------------------


def test_a_gate_that_raises_is_a_declined_gate_and_is_logged(caplog):
    broken = facts(mode="naive", gate=RuntimeError("tenant gate failed"), pointer=False)
    with caplog.at_level(logging.WARNING, logger="lightrag_resolve"):
        assert broken.short_reply is False
        assert_untouched(route(broken), broken, path="reference", reason="stands_alone")
    (record,) = caplog.records  # asked once: the fact is kept
    assert record.getMessage() == "an override raised; the turn goes through unresolved"
    assert isinstance(record.exc_info[1], RuntimeError)


def test_a_pointer_that_raises_meets_the_check_and_is_logged(caplog):
    broken = facts(FOLLOW_UP, mode="naive", gate=False, pointer=RuntimeError("tenant rule failed"))
    with caplog.at_level(logging.WARNING, logger="lightrag_resolve"):
        assert route(broken) == "reference"
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage() == "an override raised; the reference check runs"
    assert isinstance(record.exc_info[1], RuntimeError)


def test_decide_names_the_override_that_raised_and_what_follows(caplog):
    def tenant_gate(query: str) -> bool:
        raise ValueError(query)

    with caplog.at_level(logging.WARNING, logger="lightrag_resolve"):
        assert override_answer(tenant_gate, "Santé", on_error=True, then="we carry on") is True
        assert override_answer(tenant_gate, "Santé", on_error=False, then="we carry on") is False
    assert [record.getMessage() for record in caplog.records] == ["tenant_gate raised; we carry on"] * 2


@pytest.mark.parametrize(("answer", "expected"), [(True, True), (False, False), (1, True), ("", False), (None, False)])
def test_decide_reads_any_answer_as_a_bool_and_logs_nothing(caplog, answer, expected):
    with caplog.at_level(logging.DEBUG, logger="lightrag_resolve"):
        assert override_answer(FakeOverride(answer), "Santé", on_error=not expected, then="unused") is expected
    assert caplog.records == []


# ---- properties ------------------------------------------------------------------------------


@given(route_facts())
def test_route_leaves_an_untouched_turn_untouched(of):
    routed = route(of)
    if isinstance(routed, Resolution):
        assert routed.query == routed.original_query == of.turn.query
        assert routed.mode == of.turn.mode and not routed.changed and not routed.has_keywords
    else:
        assert routed in {"keywords", "text", "reference"}


@given(route_facts())
def test_a_resolver_runs_only_on_an_enabled_later_turn_in_a_mode_that_suits_it(of):
    routed = route(of)
    if isinstance(routed, Resolution):
        return
    assert of.enabled and not of.turn.is_first
    assert routed != "keywords" or of.turn.mode in GRAPH_MODES
    assert routed != "text" or of.turn.mode == "naive"
    assert routed != "reference" or of.turn.mode in GRAPH_MODES | {"naive"}
