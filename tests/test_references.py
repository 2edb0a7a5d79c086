"""The reference check's restatement through the resolver and on a real LightRAG (``_references``, contract §5.9)."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import replace

import pytest
from lightrag import QueryParam

from conversations import RESTATED
from conversations import SHOPS as HISTORY
from conversations import SHOPS_ASK as ASK
from conversations import shops_turn as turn
from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Resolver, ResolverConfig
from tuned import tuned


def run(coro):
    return asyncio.run(coro)


# ---- the resolver -----------------------------------------------------------------------------------


def test_an_ambiguous_follow_up_is_restated_after_the_check():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert llm.roles() == ["reference", "restatement"]
    assert resolution.query == f"{ASK} — {RESTATED}" and resolution.decision == "ambiguous"
    assert resolution.restatement == RESTATED and resolution.fallback_reason is None


def test_the_restatement_prompt_shows_the_conversation_and_the_candidates():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED})
    run(Resolver(ResolverConfig(company_name="Helix")).resolve(turn(company="Helix"), llm=llm))
    call = llm.calls[-1]
    assert "Orbit CRM" in call.prompt and ASK in call.prompt and "Helix's website" in call.system_prompt
    assert "at most 8 words" in call.system_prompt


@pytest.mark.parametrize("reference", ["KEEP", "RESOLVE: Pulse POS", "gibberish", RuntimeError("down")])
def test_a_named_kept_or_failed_check_is_not_restated(reference):
    llm = ScriptedLLM(replies={"reference": reference, "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert "restatement" not in llm.roles() and resolution.restatement is None


def test_a_refused_name_the_message_holds_before_its_pronoun_is_not_restated():
    own = "How does Pulse POS sync, and why should shops in Lyon use it?"
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(own), llm=llm))
    assert llm.roles() == ["reference"]
    assert resolution.fallback_reason == "rejected:already_named" and resolution.query == own

    after = "Which shops in Lyon use it next to Pulse POS?"  # the pronoun comes first: it points at the conversation
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(after), llm=llm))
    assert llm.roles() == ["reference", "restatement"] and resolution.restatement == RESTATED


def test_the_switch_turns_the_restatement_off():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED})
    resolution = run(tuned(restate_references=False).resolve(turn(), llm=llm))
    assert llm.roles() == ["reference"] and resolution.fallback_reason == "ambiguous" and not resolution.changed


def test_a_failing_restatement_leaves_the_checks_outcome():
    for reply in (RuntimeError("down"), "NONE"):
        llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": reply})
        resolution = run(Resolver().resolve(turn(), llm=llm))
        assert resolution.fallback_reason == "ambiguous" and not resolution.changed


def test_a_slow_restatement_meets_the_reference_timeout():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED}, delays={"restatement": 30})
    resolver = Resolver(ResolverConfig(reference_timeout=0.05, timeout=60))
    resolution = run(resolver.resolve(turn(), llm=llm))
    assert resolution.fallback_reason == "ambiguous" and not resolution.changed


def test_the_restatement_prompt_and_parser_are_override_points():
    class Shop(Resolver):
        def restatement_prompt(self, turn):
            return replace(super().restatement_prompt(turn), system="Custom restatement.")

        def parse_text(self, output):
            return output.removeprefix("Query: ")

    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": f"Query: {RESTATED}"})
    resolution = run(Shop().resolve(turn(), llm=llm))
    assert llm.calls[-1].system_prompt == "Custom restatement." and resolution.restatement == RESTATED


# ---- on a real LightRAG -----------------------------------------------------------------------------


def extraction(call):
    return keyword_json(["shops", "Lyon"], ["retail adoption"])


async def restated_on_a_real_lightrag(make_rag, mode: str, restatement: str) -> tuple[ScriptedLLM, dict]:
    """One ambiguous follow-up restated as ``restatement`` on a real LightRAG: the model and the resolution record."""
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": restatement, "lightrag_keywords": extraction})
    rag = await make_rag(llm, resolver=ResolverConfig())
    caller = QueryParam(mode=mode, conversation_history=[m.__dict__ for m in HISTORY], enable_rerank=False)
    before = copy.deepcopy(caller)
    result = await rag.aquery_data(ASK, caller)
    assert caller == before
    return llm, result["metadata"]["resolution"]


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_a_restated_follow_up_retrieves_once_more_on_a_real_lightrag(make_rag, mode):
    llm, resolution = await restated_on_a_real_lightrag(make_rag, mode, RESTATED)
    assert resolution["query"] == f"{ASK} — {RESTATED}" and resolution["restatement"] == RESTATED
    if mode == "mix":  # LightRAG's keywords for the visitor's words are reused: no second extraction
        assert llm.roles().count("lightrag_keywords") == 1
        assert resolution["ll_keywords"][:2] == ["Pulse POS", "Orbit CRM"]
    else:
        assert "lightrag_keywords" not in llm.roles()


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_a_restatement_that_finds_one_name_retrieves_like_a_named_check_on_a_real_lightrag(make_rag, mode):
    found = "Lyon shops using Orbit CRM"
    llm, resolution = await restated_on_a_real_lightrag(make_rag, mode, found)
    assert resolution["query"] == f"Orbit CRM — {ASK}" and resolution["restatement"] == found
    assert resolution["decision"] == "ambiguous" and resolution["entity"] is None  # the check's own record stays
    if mode == "mix":
        assert llm.roles().count("lightrag_keywords") == 1
        assert resolution["ll_keywords"][0] == "Orbit CRM"
