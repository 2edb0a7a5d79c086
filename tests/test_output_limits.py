"""The per-kind answer bounds (``max_tokens``, ``stop``) reach only LLM functions marked for them."""

from __future__ import annotations

import asyncio

import pytest

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Message, Resolver, ResolverConfig, Turn
from lightrag_resolve._model.prompts import KEYWORD_MAX_TOKENS, REFERENCE_MAX_TOKENS
from tuned import tuned

HISTORY = (
    Message(role="user", content="Quelles offres avez-vous ?"),
    Message(
        role="assistant",
        content="Nous avons une offre Santé, une offre BTP et Pulse POS pour le commerce. Quel secteur ?",
    ),
)


REWRITE_PICKS = tuned(rewrite_picked_replies=True)
""""Santé" picks an option of the question: the model is asked to rewrite it all the same (contract §5.1)."""


def _turn(query: str, mode: str = "mix") -> Turn:
    return Turn(query=query, history=HISTORY, mode=mode, company_name="Helix")


def _marked_llm(**replies: str) -> ScriptedLLM:
    llm = ScriptedLLM(replies=dict(replies))
    llm.supports_json_schema = True  # type: ignore[attr-defined]
    llm.supports_output_limits = True  # type: ignore[attr-defined]
    return llm


def test_a_json_keyword_call_gets_its_budget_and_no_stop():
    llm = _marked_llm(keywords=keyword_json(["Offre Santé"], ["santé"], query="offre Santé"))
    asyncio.run(Resolver().resolve(_turn("Santé"), llm=llm))
    kwargs = llm.calls[0].kwargs
    assert kwargs["max_tokens"] == KEYWORD_MAX_TOKENS
    assert "stop" not in kwargs and kwargs["response_format"]["type"] == "json_schema"
    assert kwargs["compact_json"] is True  # its answer without blanks: measured as no change (issue 42)
    json_mode = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"], query="offre Santé")})
    json_mode.supports_output_limits = True  # type: ignore[attr-defined]
    asyncio.run(Resolver().resolve(_turn("Santé"), llm=json_mode))
    assert "compact_json" not in json_mode.calls[0].kwargs  # JSON mode, no schema: nothing to compact


def test_a_one_line_text_call_stops_at_the_line_end():
    llm = _marked_llm(text="offre Santé Helix")
    resolution = asyncio.run(REWRITE_PICKS.resolve(_turn("Santé", mode="naive"), llm=llm))
    assert llm.calls[0].kwargs == {"max_tokens": 32, "stop": ["\n"]}
    assert resolution.fallback_reason is None


@pytest.mark.parametrize("mode", ["naive", "mix"])
def test_the_reference_check_gets_its_budget_and_no_stop_since_it_answers_json(mode):
    budget = REFERENCE_MAX_TOKENS  # no keywords asked in any mode (issue 42)
    query = "Est-ce qu'il marche hors ligne le week-end ?"
    schema = _marked_llm(reference='{"decision": "KEEP", "name": "", "query": ""}')
    asyncio.run(Resolver().resolve(_turn(query, mode=mode), llm=schema))
    assert schema.calls[0].kwargs["max_tokens"] == budget and "stop" not in schema.calls[0].kwargs
    assert "compact_json" not in schema.calls[0].kwargs  # without blanks its decisions moved (issue 42)
    assert schema.calls[0].kwargs["response_format"]["type"] == "json_schema"
    plain = _marked_llm(reference="KEEP")
    asyncio.run(Resolver(ResolverConfig(structured_output="off")).resolve(_turn(query, mode=mode), llm=plain))
    assert plain.calls[0].kwargs == {"max_tokens": budget}  # a JSON answer may break its lines


def test_an_unmarked_function_gets_no_bounds():
    llm = ScriptedLLM(replies={"text": "offre Santé Helix"})
    asyncio.run(REWRITE_PICKS.resolve(_turn("Santé", mode="naive"), llm=llm))
    assert llm.calls[0].kwargs == {}
