"""One turn, one way (``_decide/pipeline.py``): the route, the path's run, and one report per turn."""

from __future__ import annotations


import pytest

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Message, Resolution, Resolver, ResolverConfig, Turn
from lightrag_resolve._decide.route import fall_back, untouched
from lightrag_resolve._decide.pipeline import resolve_turn, route_turn, run_path
from lightrag_resolve._observe.report import reporting
from traced_spans import attrs

HISTORY = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="Pulse POS and Orbit CRM. Which sector are you in?"),
)
REPLY = "Retail"
FOLLOW_UP = "Which shops already run it?"
STANDS_ALONE = "Is customer data stored in Europe?"


def turn(query: str = REPLY, mode: str = "mix", history: tuple[Message, ...] = HISTORY) -> Turn:
    return Turn(query=query, history=history, mode=mode)


# ---- run_path -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["bypass", "disabled", "first_turn", "speculative", ""])
async def test_run_path_refuses_a_path_no_resolver_runs_on(traced, path):
    llm = ScriptedLLM()
    with pytest.raises(ValueError, match="no resolver runs on path"):
        await run_path(Resolver(traced.config()), path, turn(), llm=llm, model="m")
    assert llm.calls == [] and traced.spans() == []


@pytest.mark.parametrize(
    ("path", "query", "mode", "reply"),
    [
        ("keywords", REPLY, "mix", keyword_json(["Pulse POS"], ["retail"])),
        ("text", REPLY, "naive", "Pulse POS for retail"),
        ("reference", FOLLOW_UP, "mix", "RESOLVE: Pulse POS"),
    ],
)
async def test_run_path_times_the_run_and_records_it_on_its_span(traced, path, query, mode, reply):
    llm = ScriptedLLM(replies={path: reply}, delays={path: 0.01})
    resolution = await run_path(Resolver(traced.config()), path, turn(query, mode), llm=llm, model="m")
    assert llm.roles() == [path] and resolution.path == path and resolution.changed
    assert resolution.elapsed_ms > 0
    recorded = attrs(traced.one(f"lightrag_resolve.{path}"))
    assert recorded["lightrag_resolve.path"] == path and recorded["lightrag_resolve.changed"] is True
    assert recorded["gen_ai.request.model"] == "m"


# ---- reporting and route_turn --------------------------------------------------------------------


def test_deciding_records_the_outcome_on_the_query_span_and_reports_it(traced):
    seen: list[Resolution] = []
    resolver = Resolver(traced.config(on_resolution=seen.append))
    kept = fall_back(untouched(turn(), "keywords"), "timeout")
    with reporting(resolver.config, turn()) as (_, reported):
        assert seen == []
        reported(kept)
    assert seen == [kept]
    recorded = attrs(traced.one("lightrag_resolve.resolve"))
    assert recorded["lightrag_resolve.fallback_reason"] == "timeout" and recorded["lightrag_resolve.changed"] is False


def test_route_turn_is_the_route_of_the_policys_rules():
    resolver = Resolver()
    assert route_turn(resolver, turn(), enabled=True, caller_keywords=False) == "keywords"
    assert route_turn(resolver, turn(FOLLOW_UP), enabled=True, caller_keywords=False) == "reference"
    first = route_turn(resolver, turn(history=()), enabled=True, caller_keywords=False)
    assert isinstance(first, Resolution) and first.fallback_reason == "first_turn"


def test_route_turn_leaves_a_text_too_light_to_search_to_lightrag_only_when_lightrag_searches():
    light = turn("?")
    assert route_turn(Resolver(), turn(FOLLOW_UP), enabled=True, caller_keywords=False, searched_by_lightrag=True) == (
        "reference"
    )
    refused = route_turn(Resolver(), light, enabled=True, caller_keywords=False, searched_by_lightrag=True)
    assert isinstance(refused, Resolution) and refused.fallback_reason == "gate_declined"
    assert route_turn(Resolver(), light, enabled=True, caller_keywords=False) == "reference"


def test_a_policys_own_rules_are_the_ones_routed_by():
    class NoRules(Resolver):
        route_rules = ()

    assert route_turn(NoRules(), turn(), enabled=True, caller_keywords=False) == "reference"


# ---- resolve_turn: one report per turn, whatever its path ------------------------------------------

PATHS = [
    # (turn, enabled, caller keywords, path, fallback reason, resolver run)
    (turn(), False, False, "disabled", "disabled", False),
    (turn(history=()), True, False, "first_turn", "first_turn", False),
    (turn(mode="bypass"), True, False, "bypass", None, False),
    (turn(mode="vector"), True, False, "disabled", "unsupported_mode", False),
    (turn(), True, True, "keywords", "caller_keywords", False),
    (turn(STANDS_ALONE, mode="naive"), True, False, "reference", "stands_alone", False),
    (turn(STANDS_ALONE), True, False, "reference", None, True),  # graph modes: the model judges (issue 40)
    (turn(), True, False, "keywords", None, True),
    (turn(mode="naive"), True, False, "text", None, True),
    (turn(FOLLOW_UP), True, False, "reference", None, True),
]


REPLIES = {
    "keywords": keyword_json(["Pulse POS"], ["retail"]),
    "text": "Pulse POS",
    "reference": "RESOLVE: Pulse POS",
}


@pytest.mark.parametrize(("routed", "enabled", "keywords", "path", "reason", "runs"), PATHS)
async def test_resolve_turn_reports_each_turn_exactly_once(traced, routed, enabled, keywords, path, reason, runs):
    seen: list[Resolution] = []
    resolver = Resolver(traced.config(on_resolution=seen.append))
    llm = ScriptedLLM(replies=REPLIES)
    resolution = await resolve_turn(resolver, routed, enabled=enabled, caller_keywords=keywords, llm=llm, model="m")
    assert seen == [resolution]
    assert (resolution.path, resolution.fallback_reason) == (path, reason)
    assert llm.roles() == ([path] if runs else [])
    assert attrs(traced.one("lightrag_resolve.resolve"))["lightrag_resolve.path"] == path


async def test_resolve_turn_reports_an_untouched_turn_without_running_anything():
    seen: list[Resolution] = []
    resolver = Resolver(ResolverConfig(on_resolution=seen.append))
    llm = ScriptedLLM()
    resolution = await resolve_turn(resolver, turn(history=()), enabled=True, caller_keywords=False, llm=llm, model="m")
    assert seen == [resolution] and llm.calls == []
    assert resolution.query == REPLY and not resolution.changed


async def test_a_text_too_light_to_search_is_reported_once_before_any_model_call():
    seen: list[Resolution] = []
    resolver = Resolver(ResolverConfig(on_resolution=seen.append))
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"})
    light = turn("?")
    resolution = await resolve_turn(
        resolver, light, enabled=True, caller_keywords=False, llm=llm, model="m", searched_by_lightrag=True
    )
    assert resolution == fall_back(untouched(light, "reference"), "gate_declined") and seen == [resolution]
    assert llm.calls == []


async def test_the_reference_check_asks_the_reference_llm():
    short, check = ScriptedLLM(replies=REPLIES), ScriptedLLM(replies=REPLIES)
    resolution = await resolve_turn(
        Resolver(),
        turn(FOLLOW_UP),
        enabled=True,
        caller_keywords=False,
        llm=short,
        model="m",
        reference_llm=check,
        reference_model="r",
    )
    assert short.calls == [] and check.roles() == ["reference"]
    assert resolution.query == f"Pulse POS — {FOLLOW_UP}" and resolution.model == "r"
