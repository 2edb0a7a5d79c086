"""Issue 40: in graph modes, where plain LightRAG spends one model call on its own keyword extraction, every
short reply and every follow-up the resolver takes gets the resolver's one call, and no more calls than plain.

Checked over generated conversations with a scripted model (a fake): a turn the resolver runs on either asks
the model once or is one of the outcomes that never reach a resolver (first turn, bypass, caller keywords,
disabled, too light for LightRAG). A resolver that settled a turn without its call would show as a turn with a
resolver path, no fallback of routing, and no call.
"""

from __future__ import annotations

import asyncio

from fakes import ScriptedLLM
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import history, queries

from lightrag_resolve import Message, Resolver, Turn

GRAPH = st.sampled_from(["local", "global", "hybrid", "mix"])
ROUTED_AWAY = {"first_turn", "caller_keywords", "disabled", "unsupported_mode"}
"""The fallbacks of turns that no resolver runs on in a graph mode (routing, contract §3)."""


@settings(max_examples=300, deadline=None)
@given(queries, history, GRAPH)
def test_every_graph_turn_a_resolver_takes_asks_the_model_once(query, messages, mode):
    turn = Turn(query=query, history=tuple(Message(**m) for m in messages), mode=mode, company_name="Helix")
    llm = ScriptedLLM()
    resolution = asyncio.run(Resolver().resolve(turn, llm=llm))
    assert len(llm.calls) <= 1  # never more than the one call plain LightRAG makes
    if resolution.fallback_reason in ROUTED_AWAY or resolution.path in ("first_turn", "bypass"):
        assert llm.calls == []
    else:
        assert resolution.path in ("keywords", "reference")
        assert llm.roles() == [resolution.path], resolution
