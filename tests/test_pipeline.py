"""One turn, start to end (``_pipeline``): the resolver run, the route, and one report per turn."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Message, Resolution, Resolver, ResolverConfig, Turn
from lightrag_resolve._decide.route import fall_back, untouched
from lightrag_resolve._decide.pipeline import decide_path, deciding, resolve_turn, run_resolver
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


class FakeRun:
    """The caller's way to the resolvers, as a fake: records each path it is asked to run and runs it on ``llm``."""

    def __init__(self, resolver: Resolver, llm: ScriptedLLM) -> None:
        self.resolver, self.llm, self.paths = resolver, llm, []

    async def __call__(self, path, routed: Turn) -> Resolution:
        self.paths.append(path)
        return await run_resolver(self.resolver, path, routed, llm=self.llm, model="m")


# ---- run_resolver -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["bypass", "disabled", "first_turn", "speculative", ""])
async def test_run_resolver_refuses_a_path_no_resolver_runs_on(traced, path):
    llm = ScriptedLLM()
    with pytest.raises(ValueError, match="no resolver runs on path"):
        await run_resolver(Resolver(traced.config()), path, turn(), llm=llm, model="m")
    assert llm.calls == [] and traced.spans() == []


@pytest.mark.parametrize(
    ("path", "query", "mode", "reply"),
    [
        ("keywords", REPLY, "mix", keyword_json(["Pulse POS"], ["retail"])),
        ("text", REPLY, "naive", "Pulse POS for retail"),
        ("reference", FOLLOW_UP, "mix", "RESOLVE: Pulse POS"),
    ],
)
async def test_run_resolver_times_the_run_and_records_it_on_its_span(traced, path, query, mode, reply):
    llm = ScriptedLLM(replies={path: reply}, delays={path: 0.01})
    resolution = await run_resolver(Resolver(traced.config()), path, turn(query, mode), llm=llm, model="m")
    assert llm.roles() == [path] and resolution.path == path and resolution.changed
    assert resolution.elapsed_ms > 0
    recorded = attrs(traced.one(f"lightrag_resolve.{path}"))
    assert recorded["lightrag_resolve.path"] == path and recorded["lightrag_resolve.changed"] is True
    assert recorded["gen_ai.request.model"] == "m"


# ---- deciding and decide_path --------------------------------------------------------------------


def test_deciding_records_the_outcome_on_the_query_span_and_reports_it(traced):
    seen: list[Resolution] = []
    resolver = Resolver(traced.config(on_resolution=seen.append))
    kept = fall_back(untouched(turn(), "keywords"), "timeout")
    with deciding(resolver, turn()) as (_, decided):
        assert seen == []
        decided(kept)
    assert seen == [kept]
    recorded = attrs(traced.one("lightrag_resolve.resolve"))
    assert recorded["lightrag_resolve.fallback_reason"] == "timeout" and recorded["lightrag_resolve.changed"] is False


def test_decide_path_is_the_route_when_nothing_is_refused():
    resolver = Resolver()
    assert decide_path(resolver, turn(), enabled=True, caller_keywords=False) == "keywords"
    assert decide_path(resolver, turn(FOLLOW_UP), enabled=True, caller_keywords=False) == "reference"
    first = decide_path(resolver, turn(history=()), enabled=True, caller_keywords=False)
    assert isinstance(first, Resolution) and first.fallback_reason == "first_turn"


def test_decide_path_asks_refuse_only_about_a_path_a_resolver_runs_on():
    asked: list[str] = []

    def refuse(path):
        asked.append(path)
        return None

    for untouched_turn in (turn(history=()), turn(mode="bypass"), turn(STANDS_ALONE, mode="naive")):
        assert isinstance(
            decide_path(Resolver(), untouched_turn, enabled=True, caller_keywords=False, refuse=refuse), Resolution
        )
    assert decide_path(Resolver(), turn(FOLLOW_UP), enabled=True, caller_keywords=False, refuse=refuse) == "reference"
    assert asked == ["reference"]


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


@pytest.mark.parametrize(("routed", "enabled", "keywords", "path", "reason", "runs"), PATHS)
async def test_resolve_turn_reports_each_turn_exactly_once(traced, routed, enabled, keywords, path, reason, runs):
    seen: list[Resolution] = []
    resolver = Resolver(traced.config(on_resolution=seen.append))
    replies = {
        "keywords": keyword_json(["Pulse POS"], ["retail"]),
        "text": "Pulse POS",
        "reference": "RESOLVE: Pulse POS",
    }
    run = FakeRun(resolver, ScriptedLLM(replies=replies))
    resolution = await resolve_turn(resolver, routed, enabled=enabled, caller_keywords=keywords, run=run)
    assert seen == [resolution]
    assert (resolution.path, resolution.fallback_reason) == (path, reason)
    assert run.paths == ([path] if runs else [])
    assert attrs(traced.one("lightrag_resolve.resolve"))["lightrag_resolve.path"] == path


async def test_resolve_turn_reports_an_untouched_turn_without_running_anything():
    seen: list[Resolution] = []
    resolver = Resolver(ResolverConfig(on_resolution=seen.append))
    run = FakeRun(resolver, ScriptedLLM())
    resolution = await resolve_turn(resolver, turn(history=()), enabled=True, caller_keywords=False, run=run)
    assert seen == [resolution] and run.paths == [] and run.llm.calls == []
    assert resolution.query == REPLY and not resolution.changed


async def test_a_refused_path_is_reported_once_before_any_model_call():
    seen: list[Resolution] = []
    resolver = Resolver(ResolverConfig(on_resolution=seen.append))
    run = FakeRun(resolver, ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"}))
    light = turn("it?")
    refused = fall_back(untouched(light, "reference"), "gate_declined")
    resolution = await resolve_turn(
        resolver, light, enabled=True, caller_keywords=False, run=run, refuse=lambda path: refused
    )
    assert resolution == refused and seen == [refused]
    assert run.paths == [] and run.llm.calls == []


async def test_a_path_refuse_lets_through_runs_as_routed():
    resolver = Resolver()
    run = FakeRun(resolver, ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"}))
    resolution = await resolve_turn(
        resolver, turn(FOLLOW_UP), enabled=True, caller_keywords=False, run=run, refuse=lambda path: None
    )
    assert run.paths == ["reference"] and run.llm.roles() == ["reference"]
    assert resolution.query == f"Pulse POS — {FOLLOW_UP}"


async def test_resolve_turn_runs_the_resolver_on_the_turn_it_routed():
    routed: list[Turn] = []

    async def run(path, given: Turn) -> Resolution:
        routed.append(given)
        return replace(untouched(given, path), query=f"{given.query} — Pulse POS")

    resolution = await resolve_turn(Resolver(), turn(), enabled=True, caller_keywords=False, run=run)
    assert routed == [turn()] and resolution.query == f"{REPLY} — Pulse POS"
