"""contract §5.3 and §7 on a real LightRAG: the reference check, first in graph modes, beside a search in naive."""

from __future__ import annotations

import asyncio
import copy
import functools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lightrag import LightRAG, QueryParam

from fakes import ScriptedLLM, keyword_json, reference_json
from lightrag_resolve import ResolverConfig
from lightrag_resolve._languages.text import contains_phrase
from strategies import model_output
from tuned import tuned

HISTORY = [
    {"role": "user", "content": "What do you offer retailers?"},
    {"role": "assistant", "content": "Pulse POS is the Helix loyalty terminal for retailers and shops."},
]
ASK = "Which retailers already run it?"
ENRICHED = f"Pulse POS — {ASK}"
OWN = ["retailers", "already", "run"]
"""``ASK``'s content words: the keywords the code builds for it, as LightRAG's extraction would read it."""


def extraction(call):
    """LightRAG's keyword extraction, scripted: it finds Pulse POS only when the text names it."""
    if "Pulse POS" in call.prompt.split("---Real Data---")[-1]:
        return keyword_json(["Pulse POS", "Maison Ferrand"], ["retail customers"])
    return keyword_json(["retailers"], ["retail"])


def scripted(reference, **extra) -> ScriptedLLM:
    return ScriptedLLM(replies={"reference": reference, "lightrag_keywords": extraction}, **extra)


def param(mode="mix", history=HISTORY, **fields) -> QueryParam:
    return QueryParam(mode=mode, conversation_history=list(history), enable_rerank=False, **fields)


class RetrievalSpy:
    """Records every retrieval LightRAG itself runs, and whether it completed."""

    def __init__(self, monkeypatch, hold: dict[str, float] | None = None):
        self.hold = hold or {}  # seconds a retrieval of that text waits before LightRAG runs it
        self.started: list[str] = []
        self.finished: list[str] = []
        self.cancelled: list[str] = []
        self.keywords: list[tuple[list[str], list[str]]] = []  # the (ll, hl) keywords each retrieval was given
        for name in ("aquery_llm", "aquery_data"):
            original = getattr(LightRAG, name)
            monkeypatch.setattr(LightRAG, name, self._wrap(original))

    def _wrap(self, original):
        # wraps: the library's check of LightRAG's internals reads through the spy to the original,
        # so this file passes on its own as well as after another test has made that check.
        @functools.wraps(original)
        async def spy(rag, query, *args, **kwargs):
            self.started.append(query)
            given = kwargs.get("param", args[0] if args else None)
            self.keywords.append((list(given.ll_keywords), list(given.hl_keywords)))
            try:
                if query in self.hold:
                    await asyncio.sleep(self.hold[query])
                result = await original(rag, query, *args, **kwargs)
            except asyncio.CancelledError:
                self.cancelled.append(query)
                raise
            self.finished.append(query)
            return result

        return spy


CHECKED = tuned(company_name="Helix", check_sole_candidate=True)
"""Pulse POS is the window's sole candidate: with this the model is asked all the same, so its answer decides."""
GRAPH_MODES = ("local", "global", "hybrid", "mix")


# ---- graph modes: the check first, its one call in place of LightRAG's extraction (contract §7) ------


@pytest.mark.parametrize("mode", GRAPH_MODES)
@pytest.mark.parametrize(
    ("answer", "decision", "query", "ll"),
    [
        (reference_json("KEEP"), "keep", ASK, OWN),
        ('{"decision": "RESOLVE", "name": "Pulse POS"}', "resolve", ENRICHED, ["Pulse POS", *OWN]),
        (
            reference_json("AMBIGUOUS", query="retailers running Pulse POS"),
            "ambiguous",
            ASK,  # the restatement picks one name where the check saw several: refused (issue 40)
            OWN,
        ),
    ],
    ids=["KEEP", "RESOLVE", "AMBIGUOUS not led by one name"],
)
async def test_a_graph_mode_follow_up_costs_exactly_one_model_call_like_plain_lightrag(
    make_rag, monkeypatch, mode, answer, decision, query, ll
):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(answer)
    rag = await make_rag(llm, resolver=CHECKED)
    caller = param(mode)
    before = copy.deepcopy(caller)
    result = await rag.aquery_data(ASK, caller)
    assert llm.roles() == ["reference"]  # LightRAG's keyword extraction never ran
    assert spy.started == [query] and spy.finished == [query]  # one retrieval, after the check: none speculative
    resolution = result["metadata"]["resolution"]
    assert resolution["decision"] == decision and resolution["fallback_reason"] is None and resolution["changed"]
    assert resolution["query"] == query
    assert resolution["ll_keywords"] == ll and resolution["hl_keywords"] == OWN  # built from what the check decided
    assert spy.keywords == [(ll, OWN)]  # what LightRAG searched with
    assert caller == before
    plain = scripted(answer)
    await (await make_rag(plain, cls=LightRAG)).aquery_data(ASK, param(mode))
    assert len(plain.roles()) == len(llm.roles()) == 1  # plain LightRAG: its own extraction, one call


async def test_with_the_answer_a_kept_follow_up_costs_the_check_and_the_answer_call(make_rag):
    llm = scripted(reference_json("KEEP"))
    rag = await make_rag(llm, resolver=CHECKED)
    assert await rag.aquery(ASK, param()) == "An answer from the context."
    assert llm.roles() == ["reference", "answer"]


async def test_a_resolved_graph_turn_finds_the_named_entity(make_rag):
    llm = scripted(reference_json("RESOLVE", "Pulse POS"))
    rag = await make_rag(llm, resolver=CHECKED)
    result = await rag.aquery_data(ASK, param())
    assert "Pulse POS" in {entity["entity_name"] for entity in result["data"]["entities"]}


async def test_a_sole_candidate_is_the_models_evidence_in_mix_and_leads_with_no_call_in_naive(make_rag, monkeypatch):
    """Contract §5.3: the window names only Pulse POS. In ``mix`` the check's call replaces LightRAG's
    extraction, so the model decides with that one candidate listed (issue 40); in ``naive`` no call is spent."""
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference_json("RESOLVE", "Pulse POS"))
    rag = await make_rag(llm, resolver=ResolverConfig(company_name="Helix"))
    result = await rag.aquery_data(ASK, param())
    assert llm.roles() == ["reference"] and "1. Pulse POS" in llm.calls[0].prompt
    assert spy.started == [ENRICHED] and spy.finished == [ENRICHED]
    resolution = result["metadata"]["resolution"]
    assert resolution["entity"] == "Pulse POS" and resolution["ll_keywords"] == ["Pulse POS", *OWN]
    naive = await rag.aquery_data(ASK, param("naive"))
    assert llm.roles() == ["reference"]  # naive mode: no call at all
    assert naive["metadata"]["resolution"]["query"] == ENRICHED
    assert naive["metadata"]["resolution"]["raw_output"] is None


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ("KEEP", "keep"),  # a one-line answer
        (reference_json("KEEP"), "keep"),
        (reference_json("KEEP", ll=["Lyon", "Zorblax"], hl=["retail"]), "keep"),  # keywords unasked: not read
        (reference_json("AMBIGUOUS", ll=["The visitor asks about retailers"], hl=["retail"]), "ambiguous"),
    ],
)
async def test_a_kept_follow_up_searches_its_own_words_in_one_call(make_rag, monkeypatch, answer, decision):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(answer)
    rag = await make_rag(llm, resolver=tuned(company_name="Helix", check_sole_candidate=True))
    result = await rag.aquery_data(ASK, param())
    resolution = result["metadata"]["resolution"]
    assert resolution["decision"] == decision and resolution["fallback_reason"] is None and resolution["changed"]
    assert llm.roles() == ["reference"]  # LightRAG's extraction does not run: what it would keep stands in
    assert spy.started == [ASK] and result["metadata"]["keywords"] == {"low_level": OWN, "high_level": OWN}


async def test_a_refused_name_leaves_lightrag_to_extract_its_own(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference_json("RESOLVE", "Helix"))
    rag = await make_rag(llm, resolver=tuned(company_name="Helix", check_sole_candidate=True))
    result = await rag.aquery_data(ASK, param())
    resolution = result["metadata"]["resolution"]
    assert resolution["fallback_reason"] == "rejected:company" and not resolution["changed"]
    assert resolution["ll_keywords"] == [] and resolution["hl_keywords"] == []
    assert llm.roles() == ["reference", "lightrag_keywords"]  # as without this library, after the check
    assert spy.started == [ASK] and result["metadata"]["keywords"] == {
        "low_level": ["retailers"],
        "high_level": ["retail"],
    }


async def test_a_kept_follow_up_whose_answer_names_the_candidate_retrieves_with_it_in_one_call(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference_json("KEEP", "Pulse POS"))
    rag = await make_rag(llm, resolver=CHECKED)
    result = await rag.aquery_data(ASK, param())
    resolution = result["metadata"]["resolution"]
    assert (
        resolution["decision"] == "resolve" and resolution["entity"] == "Pulse POS" and resolution["query"] == ENRICHED
    )
    assert llm.roles() == ["reference"] and spy.started == [ENRICHED]
    assert result["metadata"]["keywords"] == {"low_level": ["Pulse POS", *OWN], "high_level": OWN}


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("I would say the terminal", "unparsable"),
        ('{"name": "Pulse POS", "low_level_keywords": ["retailers"], "high_level_keywords": ["retail"]}', "unparsable"),
        (RuntimeError("down"), "llm_error"),
    ],
)
async def test_a_failed_check_falls_back_and_lightrag_extracts_its_own(make_rag, monkeypatch, reference, reason):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference)
    rag = await make_rag(llm, resolver=CHECKED)
    result = await rag.aquery_data(ASK, param())
    resolution = result["metadata"]["resolution"]
    assert resolution["fallback_reason"] == reason and resolution["decision"] == "error" and not resolution["changed"]
    assert llm.roles() == ["reference", "lightrag_keywords"] and spy.started == [ASK]
    assert result["metadata"]["keywords"]["low_level"] == ["retailers"]


async def test_a_graph_mode_check_slower_than_the_resolver_timeout_falls_back_to_lightrags_extraction(
    make_rag, monkeypatch
):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference_json("RESOLVE", "Pulse POS", ll=["retailers"], hl=["retail"]), delays={"reference": 30})
    # reference_timeout bounds only the check beside naive mode's search; in graph modes it is the resolver's timeout.
    rag = await make_rag(
        llm, resolver=tuned(company_name="Helix", check_sole_candidate=True, timeout=0.1, reference_timeout=60)
    )
    result = await asyncio.wait_for(rag.aquery_data(ASK, param()), 20)
    resolution = result["metadata"]["resolution"]
    assert resolution["fallback_reason"] == "timeout" and resolution["decision"] == "error"
    assert spy.started == [ASK] and llm.started == ["reference", "lightrag_keywords"]


async def test_a_check_that_raises_outside_its_model_call_falls_back_to_lightrags_extraction(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference_json("KEEP", ll=["retailers"], hl=["retail"]))
    rag = await make_rag(llm, resolver=CHECKED)

    async def broken_check(path, turn):
        raise RuntimeError("resolver bug")

    monkeypatch.setattr(rag, "_run", broken_check)
    result = await rag.aquery_data(ASK, param())
    resolution = result["metadata"]["resolution"]
    assert resolution["fallback_reason"] == "llm_error" and resolution["decision"] == "error"
    assert llm.roles() == ["lightrag_keywords"] and spy.started == [ASK]


async def test_in_graph_modes_the_check_runs_before_the_search_not_beside_it(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference_json("KEEP", ll=["retailers"], hl=["retail"]), delays={"reference": 0.3})
    rag = await make_rag(llm, resolver=CHECKED)
    task = asyncio.ensure_future(rag.aquery_data(ASK, param()))
    await _until(lambda: ("start", "reference") in llm.events)
    assert spy.started == []  # nothing is searched while the check decides
    await task
    assert llm.events[:2] == [("start", "reference"), ("end", "reference")] and spy.started == [ASK]


async def test_a_separate_reference_model_answers_the_check_and_lightrags_model_is_not_called(make_rag):
    check = ScriptedLLM(replies={"reference": reference_json("KEEP")})
    llm = scripted("KEEP")
    rag = await make_rag(llm, resolver=tuned(check_sole_candidate=True, reference_llm_func=check))
    result = await rag.aquery_data(ASK, param())
    assert check.roles() == ["reference"] and llm.calls == []
    assert result["metadata"]["keywords"]["low_level"] == OWN


# ---- naive mode: the check beside a speculative search (contract §7) --------------------------------


async def test_naive_mode_runs_the_check_beside_its_search(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted("RESOLVE: Pulse POS")
    rag = await make_rag(llm)
    result = await rag.aquery_data(ASK, param(mode="naive"))
    assert llm.roles() == ["reference"]
    assert spy.started == [ASK, f"Pulse POS — {ASK}"]
    assert result["metadata"]["resolution"]["entity"] == "Pulse POS"


async def test_the_naive_check_is_asked_for_no_keywords_and_any_it_gives_are_not_used(make_rag):
    llm = scripted(reference_json("KEEP", ll=["retailers"], hl=["retail"]))
    rag = await make_rag(llm, resolver=CHECKED)
    result = await rag.aquery_data(ASK, param("naive"))
    assert "keywords" not in llm.calls[0].system_prompt
    resolution = result["metadata"]["resolution"]
    assert resolution["fallback_reason"] == "keep" and resolution["ll_keywords"] == [] and not resolution["changed"]


async def test_the_check_runs_beside_the_naive_search_not_before_it(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted("KEEP", delays={"reference": 0.3})
    rag = await make_rag(llm)
    task = asyncio.ensure_future(rag.aquery_data(ASK, param("naive")))
    await _until(lambda: ASK in spy.started)
    assert ("end", "reference") not in llm.events  # the search began while the check was reporting
    await task


async def test_resolve_cancels_a_speculative_search_already_under_way(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch, hold={ASK: 5.0})
    llm = scripted("RESOLVE: Pulse POS", delays={"reference": 0.3})
    rag = await make_rag(llm)
    result = await rag.aquery_data(ASK, param("naive"))
    assert spy.started == [ASK, ENRICHED]
    assert spy.cancelled == [ASK] and spy.finished == [ENRICHED]
    assert llm.roles() == ["reference"] and result["metadata"]["resolution"]["entity"] == "Pulse POS"


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("KEEP", "keep"),
        ("AMBIGUOUS", "ambiguous"),
        ("I would say the terminal", "unparsable"),
        (RuntimeError("down"), "llm_error"),
        ("RESOLVE: Orbit CRM", "rejected:not_in_history"),
        ("RESOLVE: Helix", "rejected:company"),
    ],
)
async def test_anything_but_an_accepted_name_uses_the_speculative_search_once(make_rag, monkeypatch, reference, reason):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted(reference)
    rag = await make_rag(llm, resolver=CHECKED)
    result = await rag.aquery_data(ASK, param("naive"))
    assert spy.started == [ASK] and spy.finished == [ASK]
    assert result["metadata"]["resolution"]["fallback_reason"] == reason
    assert llm.roles() == ["reference"]  # a one-line answer holds no restatement: nothing more is asked


async def test_timeout_uses_the_speculative_search(make_rag, monkeypatch):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted("RESOLVE: Pulse POS", delays={"reference": 30})
    rag = await make_rag(llm, resolver=ResolverConfig(reference_timeout=0.1))
    result = await rag.aquery_data(ASK, param("naive"))
    assert spy.started == [ASK]
    assert result["metadata"]["resolution"]["fallback_reason"] == "timeout"
    assert result["metadata"]["resolution"]["decision"] == "error"


# ---- the answer: written once, from the context the turn retrieves ---------------------------------


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_resolved_turn_writes_one_answer_from_the_resolved_context(make_rag, mode):
    # In naive mode the speculative branch reaches its answer step long before the check decides.
    llm = scripted("RESOLVE: Pulse POS", delays={"reference": 0.4})
    rag = await make_rag(llm)
    answer = await rag.aquery(ASK, param(mode))
    assert answer == "An answer from the context."
    assert llm.started.count("answer") == 1 and llm.count("answer") == 1
    assert "Maison Ferrand" in llm.calls[-1].system_prompt


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_kept_turn_writes_its_answer_from_its_one_search(make_rag, monkeypatch, mode):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted("KEEP", delays={"reference": 0.2})
    rag = await make_rag(llm)
    answer = await rag.aquery(ASK, param(mode))
    assert answer == "An answer from the context." and llm.count("answer") == 1
    assert spy.started == [ASK]


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_streaming_answer_is_never_started_from_the_unresolved_context(make_rag, mode):
    llm = ScriptedLLM(
        replies={"reference": "RESOLVE: Pulse POS", "lightrag_keywords": extraction, "answer": lambda call: _stream()},
        delays={"reference": 0.3},
    )
    rag = await make_rag(llm)
    iterator = await rag.aquery(ASK, param(mode, stream=True))
    text = "".join([piece async for piece in iterator])
    assert text == "streamed answer"
    assert llm.started.count("answer") == 1
    assert "Maison Ferrand" in llm.calls[-1].system_prompt


def _stream():
    async def chunks():
        yield "streamed "
        yield "answer"

    return chunks()


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_only_need_context_reuses_the_one_search(make_rag, monkeypatch, mode):
    spy = RetrievalSpy(monkeypatch)
    llm = scripted("KEEP")
    rag = await make_rag(llm)
    result = await rag.aquery_llm(ASK, param(mode, only_need_context=True))
    assert spy.started == [ASK] and llm.count("answer") == 0
    assert result["metadata"]["resolution"]["decision"] == "keep"


# ---- routing ------------------------------------------------------------------------------------------


async def test_naive_mode_can_keep_the_check_off(make_rag):
    llm = scripted("RESOLVE: Pulse POS")
    rag = await make_rag(llm, resolver=tuned(reference_in_naive=False))
    result = await rag.aquery_data(ASK, param(mode="naive"))
    assert "reference" not in llm.roles()
    assert result["metadata"]["resolution"]["fallback_reason"] == "gate_declined"


async def test_first_turn_never_runs_the_check(make_rag):
    llm = scripted("RESOLVE: Pulse POS")
    rag = await make_rag(llm)
    await rag.aquery_data(ASK, param(history=[]))
    assert "reference" not in llm.roles()


async def _until(condition, limit: float = 30.0) -> None:
    """Wait for ``condition()`` by events, not by a fixed sleep, so a starved CPU cannot reorder the test."""
    deadline = asyncio.get_running_loop().time() + limit
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "the awaited step never happened"
        await asyncio.sleep(0.005)


async def _settled_tasks_after(coro_factory, ready):
    """Start a query, cancel it once ``ready()``, and return the tasks it left behind."""
    before = asyncio.all_tasks()
    task = asyncio.ensure_future(coro_factory())
    await _until(ready)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    current = asyncio.current_task()
    return [t for t in asyncio.all_tasks() - before - {current} if not t.done()]


@pytest.mark.parametrize("mode", ["naive", "mix"])
@pytest.mark.parametrize("moment", ["while the check runs", "after the check resolved"])
async def test_cancelling_the_query_cancels_the_check_and_every_search_it_started(make_rag, monkeypatch, mode, moment):
    # Each retrieval waits a moment before LightRAG runs it, so that the cancel polled for below always lands
    # while it runs: on a loaded CPU an unheld query could finish between the poll and the cancel.
    spy = RetrievalSpy(monkeypatch, hold={ASK: 2.0, ENRICHED: 2.0})
    llm = scripted("RESOLVE: Pulse POS", delays={"reference": 0.2, "lightrag_keywords": 0.4})
    rag = await make_rag(llm)
    await rag.aquery_data("Pulse POS retailers today", param(history=[]))  # start LightRAG's queue workers
    spy.started.clear()
    spy.finished.clear()
    llm.events.clear()
    if moment == "while the check runs":
        # naive: the speculative search is under way beside it; a graph mode searches nothing before it decides
        searching = [ASK] if mode == "naive" else []
        ready = lambda: ("start", "reference") in llm.events and spy.started == searching  # noqa: E731
    else:
        ready = lambda: ENRICHED in spy.started  # noqa: E731  (the resolved retrieval has begun)
    leftover = await _settled_tasks_after(lambda: rag.aquery(ASK, param(mode)), ready)
    # Only LightRAG's own queue machinery may run on (contract §7): a keyword extraction or a query
    # embedding its queue had already started, and its workers' polling of their queues.
    # Nothing this library started is left.
    lightrag_owned = {("ScriptedLLM.__call__", "lightrag_keywords"), ("_embed", None), ("Queue.get", None)}
    running = {(task.get_coro().__qualname__, task.get_coro().cr_frame.f_locals.get("role")) for task in leftover}
    assert running <= lightrag_owned, running
    leftover = [task for task in leftover if task.get_coro().__qualname__ != "Queue.get"]  # idle workers
    await asyncio.gather(*leftover)
    assert set(spy.cancelled) == set(spy.started) - set(spy.finished)
    if moment == "while the check runs":
        assert ("cancelled", "reference") in llm.events and spy.cancelled == spy.started == searching
    else:
        assert ENRICHED in spy.cancelled and spy.finished == []
    assert llm.count("answer") == 0


@settings(max_examples=30, deadline=None)
@given(model_output, st.sampled_from(["naive", "mix"]))
@example(reference_json("KEEP", ll=["retailers"], hl=["retail"]), "mix")
@example(reference_json("AMBIGUOUS", query="retailers with a loyalty terminal"), "naive")
@example(reference_json("AMBIGUOUS", query="retailers running Pulse POS", ll=["retailers"], hl=["retail"]), "mix")
def test_retrieval_input_is_the_message_or_the_message_plus_one_accepted_name_or_its_restatement(output, mode):
    import tempfile
    import uuid

    from fakes import hashed_trigram_embedding, offline_tokenizer
    from lightrag_resolve import ResolvingLightRAG

    seen: list[str] = []

    async def scenario():
        llm = scripted(output)
        rag = ResolvingLightRAG(
            working_dir=tempfile.mkdtemp(),
            workspace=uuid.uuid4().hex,
            llm_model_func=llm,
            embedding_func=hashed_trigram_embedding(),
            tokenizer=offline_tokenizer(),
            enable_llm_cache=False,
            resolver=CHECKED,  # the model is asked, though the window names one candidate: its answer decides
        )
        await rag.initialize_storages()
        original = LightRAG.aquery_data

        async def spy(self, query, query_param=QueryParam()):
            seen.append(query)
            return await original(self, query, query_param)

        LightRAG.aquery_data = spy
        try:
            result = await rag.aquery_data(ASK, param(mode))
        finally:
            LightRAG.aquery_data = original
            await rag.finalize_storages()
            from rag_support import stop_queue_workers

            await stop_queue_workers(rag)
        return result["metadata"]["resolution"]

    resolution = asyncio.run(scenario())
    query = resolution["query"]
    if mode == "naive":  # the speculative search on the visitor's words, then the resolved one if anything changed
        assert seen == [ASK] if query == ASK else seen in ([query], [ASK, query])
    else:  # the check first, then one search
        assert seen == [query]
    if query == ASK:  # unchanged, or a KEEP or AMBIGUOUS carrying the check's keywords (graph modes, contract §7)
        assert resolution["changed"] == bool(resolution["ll_keywords"]) and (mode == "mix" or not resolution["changed"])
    elif resolution["restatement"] is None:
        entity = resolution["entity"]
        assert query == f"{entity} — {ASK}"
        history_text = "\n".join(m["content"] for m in HISTORY)
        assert contains_phrase(history_text, entity) and not contains_phrase(ASK, entity)
        assert not contains_phrase("Helix", entity) and len(entity.split()) <= 6
    else:  # restated from the same answer (§5.9)
        assert query in {f"{ASK} — {resolution['restatement']}", ENRICHED}


async def test_a_graph_slower_than_its_bound_adds_no_names_and_the_query_goes_on(make_rag, monkeypatch):
    """contract §5.4: the graph lookup of the window's names is bounded by ``graph_lookup_timeout``."""
    llm = scripted("RESOLVE: Pulse POS")
    rag = await make_rag(llm, resolver=ResolverConfig(company_name="Helix", graph_lookup_timeout=0.05))
    graph = rag.chunk_entity_relation_graph
    asked = []

    async def stuck_lookup(names):
        asked.append(list(names))
        await asyncio.Event().wait()  # never answers: only the bound ends the lookup

    monkeypatch.setattr(graph, "has_nodes_batch", stuck_lookup)
    # Without the bound this would wait forever; 10 s is only the test's own guard against a hang.
    resolution = await asyncio.wait_for(rag.aresolve("Which retailers already run it?", param()), 10)
    assert asked, "the graph was asked"
    # Past the bound the graph's names are not used; the names the window itself shows still are.
    assert resolution.decision == "resolve" and resolution.entity == "Pulse POS"
    # The window may name more than the code saw, so its one candidate is checked by the model (§5.3).
    assert "reference" in llm.roles()
    with pytest.raises(ValueError, match="graph_lookup_timeout"):
        ResolverConfig(graph_lookup_timeout=0)
