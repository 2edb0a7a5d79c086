"""A short reply that answers nothing is the visitor's own topic (contract §5.7).

A short reply is resolved when the window ends with the assistant asking
something, or when it picks one of the options the window offered. Any other
short reply is searched as written, with no model call; a config switch and
an override point resolve it anyway.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import ScriptedLLM, keyword_json
from lightrag import QueryParam
from lightrag_resolve import Message, Resolver, Turn
from lightrag_resolve._turn.reply_context import follows_question
from tuned import tuned

ANSWER = [
    {"role": "user", "content": "How does Pulse POS handle stock?"},
    {"role": "assistant", "content": "Pulse POS tracks stock per shop and raises an alert below a minimum level."},
]
"""An information-seeking window: the assistant answered and asked nothing."""
OPTIONS = [
    {"role": "user", "content": "Which courses do you run?"},
    {"role": "assistant", "content": "We run German at levels A1, B1 and C1."},
]
"""A window that offers options without a question mark."""
ASKED = [*ANSWER[:1], {"role": "assistant", "content": "Pulse POS tracks stock per shop. Shall I describe the alerts?"}]


def turn(query: str, history: list[dict[str, str]], mode: str = "mix") -> Turn:
    messages = tuple(Message(role=m["role"], content=m["content"]) for m in history)
    return Turn(query=query, history=messages, mode=mode)


def resolve(t: Turn, resolver: Resolver | None = None, keywords: str | None = None) -> tuple[object, ScriptedLLM]:
    keywords = keywords or keyword_json(["Pulse POS"], ["stock"])
    llm = ScriptedLLM(replies={"keywords": keywords, "text": "Pulse POS stock alerts"})
    return asyncio.run((resolver or Resolver()).resolve(t, llm=llm, model="fake")), llm


def test_a_reply_is_prompted_by_a_question_or_by_an_option_it_picks():
    resolver = Resolver()
    assert resolver.is_prompted(turn("Yes please", ASKED))
    assert resolver.is_prompted(turn("B1", OPTIONS))  # no question mark, but it picks an offered option
    assert not resolver.is_prompted(turn("Virtualization", ANSWER))
    assert not resolver.is_prompted(
        turn("Yes please", [*ASKED, {"role": "user", "content": "Hm."}])
    )  # the visitor spoke last


def test_assent_or_an_offer_prompts_a_reply_without_a_question_mark():
    resolver = Resolver()
    assert resolver.is_prompted(turn("Yes please", ANSWER))  # assent answers whatever was said last
    offer = [*ANSWER[:1], {"role": "assistant", "content": "Pulse POS tracks stock. I can send you the guide."}]
    assert resolver.is_prompted(turn("The guide", offer))
    assert not resolver.is_prompted(turn("Virtualization", ANSWER))


def test_follows_question_reads_only_the_last_message_and_only_the_assistants():
    assert follows_question([("user", "Hi"), ("assistant", "Which plan are you on?")])
    assert not follows_question([("assistant", "Which plan are you on?"), ("user", "Hm.")])
    assert not follows_question([("user", "Do you sell POS?"), ("assistant", "We do.")])
    assert not follows_question([])


def test_an_unprompted_reply_costs_no_model_call_in_naive():
    resolution, llm = resolve(turn("Virtualization", ANSWER, mode="naive"))
    assert llm.roles() == []
    assert resolution.path == "text" and resolution.fallback_reason == "unprompted"
    assert not resolution.changed and resolution.query == "Virtualization" and not resolution.has_keywords


@pytest.mark.parametrize("mode", ["mix", "local", "global", "hybrid"])
def test_an_unprompted_reply_in_a_graph_mode_gets_the_one_call_that_replaces_lightrags(mode):
    # Issue 40: LightRAG would spend that call on its own extraction; the resolver's reads the visitor's thread.
    resolution, llm = resolve(
        turn("Virtualization", ANSWER, mode=mode), keywords=keyword_json(["Pulse POS"], ["stock"])
    )
    assert llm.roles() == ["keywords"] and resolution.path == "keywords"
    assert resolution.fallback_reason is None and resolution.has_keywords and resolution.context is None
    assert resolution.query.startswith("Virtualization — ")


def test_prompted_replies_are_resolved_as_before():
    asked, llm = resolve(turn("Alerts by e-mail", ASKED, mode="naive"))
    assert llm.roles() == ["text"] and asked.changed and asked.context is not None
    accepted, llm = resolve(turn("Yes please", ASKED, mode="naive"))  # the model reads the offer (§5.6, issue 40)
    assert llm.roles() == ["text"] and accepted.changed and accepted.context is not None
    picked, llm = resolve(turn("B1", OPTIONS), keywords=keyword_json(["B1", "German"], ["German course"]))
    assert llm.roles() == ["keywords"] and picked.fallback_reason is None and picked.has_keywords


def test_the_switch_resolves_unprompted_replies_too():
    resolution, llm = resolve(turn("Virtualization", ANSWER, mode="naive"), tuned(resolve_unprompted_replies=True))
    assert llm.roles() == ["text"] and resolution.fallback_reason is None and resolution.changed


def test_an_override_decides_and_one_that_raises_resolves():
    class AlwaysPrompted(Resolver):
        def is_prompted(self, turn: Turn) -> bool:
            return True

    class Broken(Resolver):
        def is_prompted(self, turn: Turn) -> bool:
            raise RuntimeError("tenant rule failed")

    llm = ScriptedLLM(replies={"text": "Pulse POS stock alerts"})
    for resolver in (AlwaysPrompted(), Broken()):
        llm.calls.clear()
        resolution = asyncio.run(resolver.resolve(turn("Virtualization", ANSWER, mode="naive"), llm=llm))
        assert llm.roles() == ["text"] and resolution.fallback_reason is None


@given(
    st.sampled_from(["Virtualization", "parts of a tag.", "data volume", "Celts", "Hamnet"]),
    st.just("naive"),
)
def test_an_unprompted_reply_reaches_retrieval_as_the_visitor_wrote_it(reply, mode):
    resolution, llm = resolve(turn(reply, ANSWER, mode=mode))
    assert llm.roles() == [] and resolution.query == reply and resolution.ll_keywords == resolution.hl_keywords == ()


async def test_an_unprompted_reply_in_mix_costs_one_call_as_plain_lightrag_and_its_keywords_come_from_it(make_rag):
    llm = ScriptedLLM(
        replies={
            "keywords": keyword_json(["Pulse POS"], ["stock"]),
            "lightrag_keywords": keyword_json(["virtualization"], ["virtualization"]),
        }
    )
    rag = await make_rag(llm)
    param = QueryParam(mode="mix", conversation_history=list(ANSWER), enable_rerank=False)
    result = await rag.aquery_data("Virtualization", param)
    assert llm.roles() == ["keywords"]  # the resolver's call instead of LightRAG's own extraction
    assert result["metadata"]["resolution"]["fallback_reason"] is None
    assert result["metadata"]["keywords"]["low_level"] == ["Pulse POS"]
