"""ResolvingLightRAG on a real LightRAG (offline parts, custom KG, scripted fake LLM)."""

from __future__ import annotations

import asyncio
import copy
import inspect

import pytest
from lightrag import LightRAG, QueryParam
from lightrag.query_validation import RAGQueryTooShortError

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import ResolvingLightRAG, ResolverConfig
from lightrag_resolve._turn.reply_context import is_assent
from tuned import tuned

GRAPH_MODES = ["local", "global", "hybrid", "mix"]
ASKED = [
    {"role": "user", "content": "Vous avez quelque chose pour les commerçants ?"},
    {"role": "assistant", "content": "Oui. Vous cherchez un terminal de fidélité comme Pulse POS ?"},
]
ASKED_CONTEXT = f"{ASKED[0]['content']} {ASKED[-1]['content']}"
"""What "Oui" carries (contract §5.6): the visitor's question, then the assistant's."""
RESOLVED_KEYWORDS = keyword_json(["Pulse POS"], ["Pulse POS retail"])
RAW_KEYWORDS = keyword_json(["Oui"], ["Oui"])  # what a keyword extractor makes of "Oui" alone


def scripted(**replies) -> ScriptedLLM:
    defaults = {"keywords": RESOLVED_KEYWORDS, "lightrag_keywords": RAW_KEYWORDS, "text": "terminal de fidélité Pulse POS"}
    return ScriptedLLM(replies={**defaults, **replies})


def names(result) -> set[str]:
    data = result.get("data") or {}
    found = {entity["entity_name"] for entity in data.get("entities", [])}
    return found | {chunk["file_path"] for chunk in data.get("chunks", [])}


STATEMENT = [
    {"role": "user", "content": "Vous avez quelque chose pour les commerçants ?"},
    {"role": "assistant", "content": "Oui : Pulse POS, notre terminal de fidélité."},
]
"""A window that asks nothing: only an assent to it carries it as context (contract §5.6)."""


def param(mode: str, history=ASKED, **fields) -> QueryParam:
    return QueryParam(mode=mode, conversation_history=list(history), enable_rerank=False, **fields)


@pytest.mark.parametrize("mode", GRAPH_MODES)
async def test_short_reply_gets_keywords_and_lightrag_extracts_none(make_rag, mode):
    llm = scripted()
    rag = await make_rag(llm)
    result = await rag.aquery_data("Oui", param(mode))
    assert llm.roles() == ["keywords"]  # LightRAG's own keyword-extraction call did not happen
    assert result["metadata"]["keywords"] == {"high_level": ["Pulse POS retail"], "low_level": ["Pulse POS"]}
    assert result["metadata"]["resolution"]["path"] == "keywords"
    assert "doc-retail.txt" in names(result) or "Pulse POS" in names(result)

    llm.calls.clear()
    raw = await rag.aquery_data("Oui", param(mode), resolve=False)
    assert llm.roles() == ["lightrag_keywords"]
    assert not ({"doc-retail.txt", "Pulse POS"} & names(raw))


OFFERED = [ASKED[0], {"role": "assistant", "content": "Oui. Souhaitez-vous découvrir Pulse POS, notre terminal de fidélité ?"}]
"""A window that ends with an offer: "Oui" accepts it (contract §5.6)."""


@pytest.mark.parametrize("mode", [*GRAPH_MODES, "naive"])
async def test_an_accepted_offer_is_resolved_by_the_model_with_the_offer_carried(make_rag, mode):
    # Issue 40: the offer is the model's evidence, not its replacement; in graph modes its call is LightRAG's one.
    llm = scripted()
    rag = await make_rag(llm)
    result = await rag.aquery_data("Oui", param(mode, OFFERED))
    offer = "Souhaitez-vous découvrir Pulse POS, notre terminal de fidélité ?"
    resolution = result["metadata"]["resolution"]
    assert resolution["query"].startswith("Oui — ") and resolution["query"].endswith(f" — {offer}")
    assert resolution["context"] == offer and resolution["fallback_reason"] is None
    assert "(The reply accepts the offer: " in llm.calls[0].prompt
    if mode == "naive":
        assert llm.roles() == ["text"]
    else:
        assert llm.roles() == ["keywords"]  # LightRAG's own extraction did not run
        assert result["metadata"]["keywords"]["low_level"] == ["Pulse POS"]
    assert "doc-retail.txt" in names(result) or "Pulse POS" in names(result)


@pytest.mark.parametrize("mode", GRAPH_MODES)
async def test_answer_generation_counts_one_resolver_call_and_one_answer(make_rag, mode):
    llm = scripted()
    rag = await make_rag(llm)
    answer = await rag.aquery("Oui", param(mode))
    assert answer == "An answer from the context."
    assert llm.roles() == ["keywords", "answer"]
    assert "Pulse POS" in llm.calls[-1].system_prompt  # the answer was written from the resolved context


async def test_naive_mode_rewrites_the_text_and_never_sets_keywords(make_rag):
    llm = scripted()
    rag = await make_rag(llm, resolver=ResolverConfig(company_name="Helix"))
    seen: list[tuple[str, QueryParam]] = []
    original = LightRAG.aquery_data

    async def spy(self, query, query_param=QueryParam()):
        seen.append((query, query_param))
        return await original(self, query, query_param)

    LightRAG.aquery_data = spy
    try:
        result = await rag.aquery_data("Oui", param("naive"))
    finally:
        LightRAG.aquery_data = original
    # The visitor's words, their meaning, then the question they answer (contract §5.6).
    assert seen[0][0] == f"Oui — terminal de fidélité Pulse POS Helix — {ASKED_CONTEXT}"
    assert seen[0][1].ll_keywords == [] and seen[0][1].hl_keywords == []
    assert llm.roles() == ["text"]
    assert "doc-retail.txt" in names(result)


@pytest.mark.parametrize(
    ("label", "history", "mode", "kwargs"),
    [
        ("first turn", [], "mix", {}),
        ("bypass", ASKED, "bypass", {}),
        ("disabled by call", ASKED, "mix", {"resolve": False}),
        ("naive question", ASKED, "naive", {}),
    ],
)
async def test_untouched_turns_reach_lightrag_as_given(make_rag, label, history, mode, kwargs):
    llm = scripted()
    rag = await make_rag(llm)
    received: list[tuple[str, QueryParam]] = []
    original = LightRAG.aquery_llm

    async def spy(self, query, query_param=QueryParam(), system_prompt=None, progress_callback=None):
        received.append((query, query_param))
        return await original(self, query, query_param, system_prompt, progress_callback)

    given = param(mode, history)
    query = "Quel terminal proposez-vous aux commerçants ?" if label == "naive question" else "Pulse POS"
    LightRAG.aquery_llm = spy
    try:
        await rag.aquery(query, given, **kwargs)
    finally:
        LightRAG.aquery_llm = original
    assert received[0][0] == query and received[0][1] is given
    assert "keywords" not in llm.roles() and "text" not in llm.roles()


async def test_disabled_config_and_per_call_override(make_rag):
    llm = scripted()
    rag = await make_rag(llm, resolver=ResolverConfig(enabled=False))
    result = await rag.aquery_data("Oui", param("mix"))
    assert result["metadata"]["resolution"]["fallback_reason"] == "disabled"
    assert llm.roles() == ["lightrag_keywords"]
    llm.calls.clear()
    await rag.aquery_data("Oui", param("mix"), resolve=True)
    assert llm.roles() == ["keywords"]


@pytest.mark.parametrize("failure", [RuntimeError("down"), "garbage", '{"low_level_keywords": ["Pulse POS"]}', "NONE"])
async def test_failed_resolution_behaves_exactly_like_plain_lightrag(make_rag, failure):
    own_extraction = keyword_json(["Pulse POS"], ["retail"])
    llm = scripted(keywords=failure, lightrag_keywords=own_extraction)
    rag = await make_rag(llm)
    plain_llm = scripted(lightrag_keywords=own_extraction)
    plain = await make_rag(plain_llm, cls=LightRAG)
    ours = await rag.aquery_data("Oui, Pulse POS", param("mix", STATEMENT))
    theirs = await plain.aquery_data("Oui, Pulse POS", param("mix", STATEMENT))
    assert llm.roles() == ["keywords", "lightrag_keywords"]
    assert plain_llm.roles() == ["lightrag_keywords"]
    assert llm.calls[1].prompt == plain_llm.calls[0].prompt  # LightRAG asked its own extractor the same thing
    resolution = ours["metadata"].pop("resolution")
    assert resolution["fallback_reason"] in {"llm_error", "unparsable", "incomplete", "empty"}
    assert ours["metadata"] == theirs["metadata"] and ours["status"] == theirs["status"] == "success"
    assert names(ours) == names(theirs) and "Pulse POS" in names(ours)


@pytest.mark.parametrize("failure", [RuntimeError("down"), "garbage", "NONE"])
async def test_a_failed_reply_to_a_question_is_searched_with_the_question(make_rag, failure):
    """Contract §5.6, §6: the context costs no model call, so it stands when the model fails: a carry, no fallback."""
    llm = scripted(keywords=failure, lightrag_keywords=keyword_json(["Pulse POS"], ["retail"]))
    rag = await make_rag(llm)
    result = await rag.aquery_data("Oui", param("mix"))
    resolution = result["metadata"]["resolution"]
    assert resolution["carry_reason"] in {"llm_error", "unparsable", "empty"} and resolution["fallback_reason"] is None
    context = ASKED_CONTEXT
    assert resolution["context"] == context and resolution["ll_keywords"] == []
    assert resolution["query"] == f"Oui — {context}" and resolution["changed"] is True
    # No keywords of ours: LightRAG extracts its own, from the text that holds the question.
    assert llm.roles() == ["keywords", "lightrag_keywords"] and "Pulse POS" in llm.calls[1].prompt
    assert "doc-retail.txt" in names(result)


async def test_caller_param_is_never_mutated(make_rag):
    rag = await make_rag(scripted())
    for mode in [*GRAPH_MODES, "naive", "bypass"]:
        given = param(mode)
        before = copy.deepcopy(given)
        await rag.aquery_data("Oui", given)
        await rag.aquery("Oui", given)
        assert given == before
    default = inspect.signature(ResolvingLightRAG.aquery_data).parameters["param"].default
    assert default == QueryParam()


@pytest.mark.parametrize("reply", ["B1", "OK", "Si"])
async def test_replies_below_lightrags_minimum_reach_retrieval_only_when_resolved(make_rag, reply):
    rag = await make_rag(scripted())
    result = await rag.aquery_data(reply, param("mix"))
    assert result["status"] == "success" and result["metadata"]["resolution"]["changed"]
    with pytest.raises(RAGQueryTooShortError):
        await rag.aquery_data(reply, param("mix"), resolve=False)
    failing = await make_rag(scripted(keywords="NONE", text="NONE"))
    if is_assent(reply):  # "OK", "Si" answer the statement, which is carried (contract §5.6)
        statement = await failing.aquery_data(reply, param("mix", STATEMENT))
        assert statement["status"] == "success" and statement["metadata"]["resolution"]["context"]
    else:
        with pytest.raises(RAGQueryTooShortError):
            await failing.aquery_data(reply, param("mix", STATEMENT))
        with pytest.raises(RAGQueryTooShortError):
            await failing.aquery(reply, param("naive", STATEMENT))
    # A reply to a question is searched with the question even when the model declines (contract §5.6).
    carried = await failing.aquery_data(reply, param("mix"))
    assert carried["status"] == "success" and carried["metadata"]["resolution"]["carry_reason"] == "empty"


async def test_the_short_query_exemption_is_task_local(make_rag):
    llm = scripted()
    llm.delays["keywords"] = 0.05
    rag = await make_rag(llm)
    resolved, unresolved = await asyncio.gather(
        rag.aquery_data("B1", param("mix")), rag.aquery_data("B1", param("mix"), resolve=False), return_exceptions=True
    )
    assert isinstance(resolved, dict) and resolved["status"] == "success"
    assert isinstance(unresolved, RAGQueryTooShortError)


async def test_every_async_entry_point_resolves(make_rag):
    llm = scripted()
    rag = await make_rag(llm)
    for call in (rag.aquery, rag.aquery_llm, rag.aquery_data):
        llm.calls.clear()
        await call("Oui", param("mix"))
        assert llm.roles()[0] == "keywords" and "lightrag_keywords" not in llm.roles()
    resolution = await rag.aresolve("Oui", param("mix"))
    assert resolution.ll_keywords == ("Pulse POS",) and resolution.query == f"Oui — Pulse POS — {ASKED_CONTEXT}"


def test_every_sync_entry_point_resolves(tmp_path):
    import uuid

    from fakes import hashed_trigram_embedding, offline_tokenizer
    from kb import custom_kg
    from rag_support import stop_queue_workers

    llm = scripted()
    rag = ResolvingLightRAG(
        working_dir=str(tmp_path), workspace=uuid.uuid4().hex, llm_model_func=llm,
        embedding_func=hashed_trigram_embedding(), tokenizer=offline_tokenizer(), enable_llm_cache=False,
    )

    async def setup():
        await rag.initialize_storages()
        await rag.ainsert_custom_kg(custom_kg())

    async def teardown():
        await rag.finalize_storages()
        await stop_queue_workers(rag)

    loop = asyncio.new_event_loop()  # the storages' loop, which the sync wrappers drive
    asyncio.set_event_loop(loop)
    loop.run_until_complete(setup())
    try:
        for call in (rag.query, rag.query_llm, rag.query_data):
            llm.calls.clear()
            call("Oui", param("mix"))
            assert llm.roles()[0] == "keywords" and "lightrag_keywords" not in llm.roles()
        llm.calls.clear()
        rag.query_data("Oui", param("mix"), resolve=False)
        assert llm.roles() == ["lightrag_keywords"]
        resolution = rag.resolve("Oui", param("mix"))
        assert resolution.path == "keywords"
        llm.calls.clear()
        assert rag.retrieve("Oui", param("mix")).resolution.path == "keywords" and llm.roles() == ["keywords"]
        llm.calls.clear()
        answered = rag.answer("Oui", param("mix"), resolution=resolution)
        assert answered.resolution is resolution and llm.roles() == ["answer"]
    finally:
        loop.run_until_complete(teardown())
        loop.close()
        asyncio.set_event_loop(None)


async def test_caller_supplied_keywords_are_respected(make_rag):
    llm = scripted()
    rag = await make_rag(llm)
    result = await rag.aquery_data("Oui", param("mix", ll_keywords=["Vitalis"], hl_keywords=["santé"]))
    assert llm.roles() == []
    assert result["metadata"]["keywords"]["low_level"] == ["Vitalis"]
    assert result["metadata"]["resolution"]["fallback_reason"] == "caller_keywords"


async def test_bad_input_gets_clear_errors(make_rag):
    rag = await make_rag(scripted())
    with pytest.raises(TypeError, match="query must be a str"):
        await rag.aquery_data(None, param("mix"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="QueryParam"):
        await rag.aquery_data("Oui", {"mode": "mix"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ResolverConfig or a Resolver"):
        await make_rag(scripted(), resolver="Acme")


async def test_on_resolution_hook_sees_every_turn_and_cannot_break_it(make_rag):
    seen = []

    def hook(resolution):
        seen.append(resolution)
        raise RuntimeError("observer bug")

    rag = await make_rag(scripted(), resolver=ResolverConfig(on_resolution=hook))
    result = await rag.aquery_data("Oui", param("mix"))
    assert result["status"] == "success" and seen[0].path == "keywords"


async def test_unknown_mode_gets_lightrags_own_answer_and_no_resolver_call(make_rag):
    llm = scripted()
    rag = await make_rag(llm)
    with pytest.raises(ValueError, match="Unknown mode"):
        await rag.aquery_data("Oui", param("vector"))
    result = await rag.aquery_llm("Oui", param("vector"))
    assert result["status"] == "failure" and "Unknown mode" in result["message"]
    assert result["metadata"]["resolution"]["fallback_reason"] == "unsupported_mode"
    assert llm.roles() == []


async def test_the_decision_is_reported_before_a_retrieval_that_fails(make_rag):
    seen = []
    # A reply to a statement is unprompted (contract §5.7); resolving it anyway lets the model decline.
    config = tuned(on_resolution=seen.append, resolve_unprompted_replies=True)
    rag = await make_rag(scripted(keywords="NONE"), resolver=config)
    with pytest.raises(RAGQueryTooShortError):
        await rag.aquery_data("B2", param("mix", STATEMENT))  # no assent: nothing is carried
    assert [r.fallback_reason for r in seen] == ["empty"]
