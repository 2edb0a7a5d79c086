"""The typed ``Resolution`` in hand: ``aretrieve``/``aanswer`` return it, and every entry point takes one made before."""

from __future__ import annotations

import copy
from dataclasses import FrozenInstanceError, replace

import pytest
from lightrag import QueryParam
from lightrag.query_validation import RAGQueryTooShortError

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Resolution, Resolved, ResolverConfig
from tuned import tuned

ASKED = [
    {"role": "user", "content": "Vous avez quelque chose pour les commerçants ?"},
    {"role": "assistant", "content": "Oui. Vous cherchez un terminal de fidélité comme Pulse POS ?"},
]


def scripted(**replies) -> ScriptedLLM:
    return ScriptedLLM(replies={"keywords": keyword_json(["Pulse POS"], ["Pulse POS retail"]), **replies})


STATEMENT = [ASKED[0], {"role": "assistant", "content": "Oui : Pulse POS, notre terminal de fidélité."}]
"""A window that asks nothing: a short reply to it carries no question (contract §5.6)."""


def param(mode: str = "mix", history: list[dict[str, str]] = ASKED) -> QueryParam:
    return QueryParam(mode=mode, conversation_history=list(history), enable_rerank=False)


async def test_aretrieve_and_aanswer_hand_back_the_typed_resolution(make_rag):
    rag = await make_rag(scripted())
    retrieved = await rag.aretrieve("Oui", param())
    assert isinstance(retrieved, Resolved) and isinstance(retrieved.resolution, Resolution)
    assert retrieved.resolution.path == "keywords" and retrieved.resolution.ll_keywords == ("Pulse POS",)
    assert retrieved.result["status"] == "success"
    assert retrieved.result["metadata"]["resolution"] == retrieved.resolution.to_dict()  # the same decision, both ways
    assert retrieved.result["metadata"]["keywords"]["low_level"] == ["Pulse POS"]
    with pytest.raises(FrozenInstanceError):
        retrieved.resolution = None  # type: ignore[misc]

    answered = await rag.aanswer("Oui", param())
    assert answered.resolution.path == "keywords"
    assert answered.result["llm_response"]["content"] == "An answer from the context."


async def test_a_resolution_made_before_is_retrieved_as_made_and_reported_once(make_rag):
    seen: list[Resolution] = []
    llm = scripted()
    rag = await make_rag(llm, resolver=ResolverConfig(on_resolution=seen.append))
    given = param()
    before = copy.deepcopy(given)
    resolution = await rag.aresolve("B1", given)
    assert resolution.changed and llm.roles() == ["keywords"]

    llm.calls.clear()
    retrieved = await rag.aretrieve("B1", given, resolution=resolution)
    assert llm.roles() == []  # no resolver call, and no keyword extraction by LightRAG: the resolution's keywords
    assert retrieved.resolution is resolution and retrieved.result["status"] == "success"  # "B1" is below the minimum
    assert retrieved.result["metadata"]["keywords"]["low_level"] == ["Pulse POS"]

    answered = await rag.aanswer("B1", given, resolution=resolution)
    assert llm.roles() == ["answer"] and "Pulse POS" in llm.calls[-1].system_prompt
    assert answered.resolution is resolution
    assert await rag.aquery("B1", given, resolution=resolution) == "An answer from the context."
    assert given == before
    assert seen == [resolution]  # heard when it was made, not again on each reuse


async def test_a_resolution_that_changed_nothing_gets_lightrags_own_refusal(make_rag):
    rag = await make_rag(scripted(keywords="NONE"), resolver=tuned(resolve_unprompted_replies=True))
    resolution = await rag.aresolve("B1", param(history=STATEMENT))
    assert not resolution.changed and resolution.fallback_reason == "empty"
    with pytest.raises(RAGQueryTooShortError):
        await rag.aretrieve("B1", param(history=STATEMENT), resolution=resolution)


async def test_a_resolution_made_for_another_turn_is_refused_before_lightrag_runs(make_rag):
    llm = scripted()
    rag = await make_rag(llm)
    resolution = await rag.aresolve("Oui", param())
    llm.calls.clear()
    with pytest.raises(ValueError, match="made for 'Oui', not for the query 'Non'"):
        await rag.aretrieve("Non", param(), resolution=resolution)
    with pytest.raises(ValueError, match="made for mode 'mix', not for mode 'local'"):
        await rag.aanswer("Oui", param("local"), resolution=resolution)
    with pytest.raises(ValueError, match="not both"):
        await rag.aquery_data("Oui", param(), resolve=True, resolution=resolution)
    with pytest.raises(TypeError, match="lightrag_resolve.Resolution"):
        await rag.aretrieve("Oui", param(), resolution=resolution.to_dict())  # type: ignore[arg-type]
    assert llm.roles() == []
    # The same record with the query it was made for is accepted.
    assert (await rag.aretrieve("Oui", param(), resolution=replace(resolution))).resolution == resolution
