"""A Resolver subclass changes what is asked and how it is read, never the invariants."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from lightrag import QueryParam

from fakes import ScriptedLLM
from lightrag_resolve import KeywordAnswer, Message, ResolverConfig, Turn

EXAMPLE = Path(__file__).parent.parent / "examples" / "custom_resolver.py"


def load_example():
    spec = importlib.util.spec_from_file_location("custom_resolver_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE_MODULE = load_example()
LanguageSchoolResolver = EXAMPLE_MODULE.LanguageSchoolResolver
HISTORY = (
    Message(role="user", content="What German courses do you offer?"),
    Message(role="assistant", content="German courses from A1 to C1. German A1 or German B1?"),
)


def test_the_example_runs(capsys):
    asyncio.run(EXAMPLE_MODULE.main())
    assert "keywords ('German B1', 'B1') ('language courses', 'schedules') None" in capsys.readouterr().out


def test_overridden_gate_and_format_are_used():
    resolver = LanguageSchoolResolver(ResolverConfig())
    assert resolver.should_resolve("B1?") and not resolver.should_resolve("Which level is best for me?")
    llm = ScriptedLLM(replies={"keywords": "ENTITIES: B1; German\nTHEMES: courses"})
    turn = Turn(query="B1?", history=HISTORY, mode="local")
    resolution = asyncio.run(resolver.resolve(turn, llm=llm))
    assert resolution.ll_keywords == ("B1", "German") and resolution.hl_keywords == ("courses",)
    assert llm.calls[0].system_prompt.startswith("You help a language school")


@given(st.text(max_size=120))
def test_enforcement_still_applies_to_an_overridden_parser(output):
    resolver = LanguageSchoolResolver(ResolverConfig(max_ll_keywords=2, max_hl_keywords=1))
    turn = Turn(query="B1", history=HISTORY, mode="mix")
    resolution = asyncio.run(resolver.resolve(turn, llm=ScriptedLLM(replies={"keywords": output})))
    assert bool(resolution.ll_keywords) == bool(resolution.hl_keywords)
    assert len(resolution.ll_keywords) <= 2 and len(resolution.hl_keywords) <= 1


def test_a_raising_override_falls_back_instead_of_breaking_the_query():
    class Broken(LanguageSchoolResolver):
        def parse_keywords(self, output: str) -> KeywordAnswer | None:
            raise ValueError("tenant parser bug")

        def should_resolve(self, query: str) -> bool:
            return True

    turn = Turn(query="B1", history=HISTORY, mode="mix")
    resolution = asyncio.run(Broken().resolve(turn, llm=ScriptedLLM(replies={"keywords": "ENTITIES: B1\nTHEMES: x"})))
    assert resolution.carry_reason == "unparsable" and resolution.ll_keywords == ()
    assert resolution.query == f"B1 — {resolution.context}" and resolution.context  # the question stays (§5.6)

    class BrokenGate(LanguageSchoolResolver):
        def should_resolve(self, query: str) -> bool:
            raise RuntimeError("gate bug")

    declined = asyncio.run(BrokenGate().resolve(turn, llm=ScriptedLLM()))
    # a raising gate counts as declined: a graph-mode turn goes to the reference check
    assert declined.path == "reference" and declined.fallback_reason == "keep" and not declined.changed


async def test_subclass_plugs_into_resolving_lightrag(make_rag):
    llm = ScriptedLLM(replies={"keywords": "ENTITIES: German B1\nTHEMES: German course"})
    rag = await make_rag(llm, resolver=LanguageSchoolResolver(ResolverConfig()))
    history = [{"role": m.role, "content": m.content} for m in HISTORY]
    result = await rag.aquery_data("B1?", QueryParam(mode="mix", conversation_history=history, enable_rerank=False))
    assert result["metadata"]["resolution"]["ll_keywords"] == ["German B1"]
    assert llm.roles() == ["keywords"]
    assert "German B1" in {e["entity_name"] for e in result["data"]["entities"]}
