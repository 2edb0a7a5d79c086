"""contract §5.5: reciprocal-rank fusion of a resolved reference's chunk search with the visitor's words."""

from __future__ import annotations

import asyncio
import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lightrag import QueryParam

from lightrag_resolve._lightrag.fusion import SecondSearch, fuse_chunks, vector_search
from strategies import chunk_id_rankings
from test_reference_integration import ASK, HISTORY, RetrievalSpy, scripted
from tuned import tuned, tuned_retrieval


def chunks(ids: list[str], source: str = "") -> list[dict]:
    return [{"chunk_id": chunk_id, "content": f"{chunk_id} {source}".strip()} for chunk_id in ids]


def ids(found: list[dict]) -> list[str]:
    return [chunk["chunk_id"] for chunk in found]


# ---- fuse_chunks, a pure function ---------------------------------------------


@given(chunk_id_rankings, chunk_id_rankings, st.integers(min_value=0, max_value=10))
def test_fusion_keeps_each_chunk_once_from_the_union_up_to_the_limit(resolved, raw, limit):
    fused = ids(fuse_chunks(chunks(resolved), chunks(raw), limit=limit))
    assert len(fused) == len(set(fused)) == min(limit, len(set(resolved) | set(raw)))
    assert set(fused) <= set(resolved) | set(raw)


@given(chunk_id_rankings, chunk_id_rankings)
def test_fusion_changes_neither_input_and_keeps_the_resolved_copy_of_a_shared_chunk(resolved, raw):
    left, right = chunks(resolved, "resolved"), chunks(raw, "raw")
    before = copy.deepcopy((left, right))
    fused = fuse_chunks(left, right, limit=20)
    assert (left, right) == before
    for chunk in fused:
        if chunk["chunk_id"] in resolved:
            assert chunk["content"].endswith("resolved")


@given(chunk_id_rankings, st.integers(min_value=0, max_value=10))
def test_fusion_with_nothing_from_the_visitors_words_is_the_resolved_ranking(resolved, limit):
    assert ids(fuse_chunks(chunks(resolved), [], limit=limit)) == resolved[:limit]


@given(chunk_id_rankings)
def test_fusion_of_a_ranking_with_itself_is_that_ranking(ranking):
    assert ids(fuse_chunks(chunks(ranking), chunks(ranking), limit=20)) == ranking


def test_a_chunk_both_searches_found_leads_and_ties_go_to_the_resolved_ranking():
    # c: 1/63 + 1/61; a: 1/61; b and d: 1/62 each, b first because the resolved search ranked it
    assert ids(fuse_chunks(chunks(["a", "b", "c"]), chunks(["c", "d"]), limit=4)) == ["c", "a", "b", "d"]


def test_the_first_chunk_the_words_found_keeps_a_place_in_the_first_three():
    assert ids(fuse_chunks(chunks(["a", "b", "c"]), chunks(["d"]), limit=3)) == ["a", "d", "b"]


# ---- vector_search: the wrapper installed over LightRAG's _get_vector_context ----------------------------


class FakeSearch:
    """A fake of LightRAG's ``_get_vector_context``: a fixed ranking per text, with calls recorded."""

    def __init__(self, rankings: dict[str, list[str]], *, fail: set[str] = frozenset(), hold: set[str] = frozenset()):
        self.rankings, self.fail, self.hold = rankings, fail, hold
        self.calls: list[str] = []
        self.cancelled: list[str] = []

    async def __call__(self, query, chunks_vdb, query_param, query_embedding=None):
        self.calls.append(query)
        try:
            await asyncio.sleep(0)  # a real store answers after a round trip: the other search gets to start
            if query in self.hold:
                await asyncio.Event().wait()
            if query in self.fail:
                raise RuntimeError(f"vector store down for {query!r}")
            return chunks(self.rankings.get(query.strip(), []), query.strip())
        except asyncio.CancelledError:
            self.cancelled.append(query)
            raise


PARAM = QueryParam(mode="naive", chunk_top_k=3)
WORDS, RESOLVED = "which retailers run it", "Pulse POS — which retailers run it"
RANKINGS = {WORDS: ["c", "d"], RESOLVED: ["a", "b", "c"]}


async def test_outside_a_resolution_the_search_is_lightrags_own():
    search = FakeSearch(RANKINGS)
    assert ids(await vector_search(search, RESOLVED, None, PARAM)) == ["a", "b", "c"]
    assert search.calls == [RESOLVED]


async def test_recording_keeps_the_chunks_of_the_visitors_words_only():
    search, raw = FakeSearch(RANKINGS), SecondSearch(WORDS)
    await vector_search(search, RESOLVED, None, PARAM, record=raw)
    assert raw.chunks is None
    await vector_search(search, f"  {WORDS} ", None, PARAM, record=raw)
    assert ids(raw.chunks) == ["c", "d"]


async def test_fusing_uses_the_recorded_chunks_without_searching_the_words_again():
    search = FakeSearch(RANKINGS)
    raw = SecondSearch(WORDS, chunks=chunks(["d"]))
    fused = await vector_search(search, RESOLVED, None, PARAM, fuse=raw)
    assert search.calls == [RESOLVED]
    assert ids(fused) == ids(fuse_chunks(chunks(["a", "b", "c"]), chunks(["d"]), limit=3))


async def test_fusing_searches_the_words_beside_the_resolved_text_when_nothing_was_recorded():
    search = FakeSearch(RANKINGS)
    fused = await vector_search(search, RESOLVED, None, PARAM, fuse=SecondSearch(WORDS))
    assert sorted(search.calls) == sorted([RESOLVED, WORDS])
    assert ids(fused) == ["c", "a", "b"]


async def test_a_failed_search_on_the_words_costs_the_fusion_not_the_query():
    search = FakeSearch(RANKINGS, fail={WORDS})
    assert ids(await vector_search(search, RESOLVED, None, PARAM, fuse=SecondSearch(WORDS))) == ["a", "b", "c"]


async def test_a_failed_resolved_search_raises_and_leaves_no_search_running():
    search = FakeSearch(RANKINGS, fail={RESOLVED}, hold={WORDS})
    with pytest.raises(RuntimeError, match="vector store down"):
        await vector_search(search, RESOLVED, None, PARAM, fuse=SecondSearch(WORDS))
    assert search.cancelled == [WORDS]
    assert [task for task in asyncio.all_tasks() if task is not asyncio.current_task()] == []


async def test_a_cancelled_query_cancels_the_search_on_the_words():
    search = FakeSearch(RANKINGS, hold={WORDS, RESOLVED})

    async def query():
        return await vector_search(search, RESOLVED, None, PARAM, fuse=SecondSearch(WORDS))

    task = asyncio.ensure_future(query())
    while len(search.calls) < 2:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(search.cancelled) == sorted([WORDS, RESOLVED])


# ---- on a real LightRAG ----------------------------------------------------------

PRODUCT_SHEETS = [  # what "Pulse POS — Which retailers already run it?" finds first, with the test's embedding
    "Pulse POS — the Pulse POS terminal: which one? Pulse POS.",
    "Pulse POS — Pulse POS pricing: which plan already? Pulse POS",
]


async def with_product_sheets(rag):
    """``rag`` with ``PRODUCT_SHEETS`` inserted as chunks, one document each."""
    await rag.ainsert_custom_kg(
        {"chunks": [{"content": text, "source_id": f"doc-sheet-{n}"} for n, text in enumerate(PRODUCT_SHEETS)]}
    )
    return rag


async def _rag(make_rag, **config):
    llm = scripted("RESOLVE: Pulse POS", delays={"reference": 0.3})
    rag = await make_rag(llm, resolver=tuned(**config))
    rag.retrieval = tuned_retrieval(**config)
    return await with_product_sheets(rag)


def count_vector_searches(rag, monkeypatch) -> list[str]:
    """The texts ``rag``'s chunk vector store is queried with from now on, in order."""
    searched: list[str] = []
    query = rag.chunks_vdb.query

    async def counted(text, *args, **kwargs):
        searched.append(text)
        return await query(text, *args, **kwargs)

    monkeypatch.setattr(rag.chunks_vdb, "query", counted)
    return searched


def naive_param(**fields) -> QueryParam:
    return QueryParam(mode="naive", chunk_top_k=2, enable_rerank=False, **fields)


async def plain_chunks(rag, text: str) -> list[dict]:
    """What plain LightRAG's ``naive`` search finds for ``text``: no resolution, no fusion."""
    return (await rag.aquery_data(text, naive_param(), resolve=False))["data"]["chunks"]


async def test_a_resolved_reference_keeps_what_the_visitors_words_found(make_rag, monkeypatch):
    rag = await _rag(make_rag, fuse_raw_search=True)
    words, resolved = await plain_chunks(rag, ASK), await plain_chunks(rag, f"Pulse POS — {ASK}")
    assert ids(words)[0] not in ids(resolved)  # the resolved text alone loses what the words found first
    searched = count_vector_searches(rag, monkeypatch)
    caller = naive_param(conversation_history=list(HISTORY))
    before = copy.deepcopy(caller)
    result = await rag.aquery_data(ASK, caller)
    assert result["metadata"]["resolution"]["query"] == f"Pulse POS — {ASK}"
    assert ids(result["data"]["chunks"]) == ids(fuse_chunks(resolved, words, limit=2))
    assert ids(words)[0] in ids(result["data"]["chunks"])
    assert searched == [ASK, f"Pulse POS — {ASK}"]  # the speculative search's chunks were fused, not searched again
    assert caller == before


async def test_without_the_switch_a_resolved_reference_retrieves_on_its_text_alone(make_rag):
    rag = await _rag(make_rag)
    resolved = await plain_chunks(rag, f"Pulse POS — {ASK}")
    result = await rag.aquery_data(ASK, naive_param(conversation_history=list(HISTORY)))
    assert ids(result["data"]["chunks"]) == ids(resolved)


async def test_a_speculative_search_cancelled_early_is_made_up_beside_the_resolved_one(make_rag, monkeypatch):
    rag = await _rag(make_rag, fuse_raw_search=True)
    words, resolved = await plain_chunks(rag, ASK), await plain_chunks(rag, f"Pulse POS — {ASK}")
    spy = RetrievalSpy(monkeypatch, hold={ASK: 30.0})  # the check resolves long before this search starts
    result = await rag.aquery_data(ASK, naive_param(conversation_history=list(HISTORY)))
    assert spy.cancelled == [ASK]
    assert ids(result["data"]["chunks"]) == ids(fuse_chunks(resolved, words, limit=2))


async def test_a_short_reply_is_never_fused(make_rag):
    rag = await make_rag(scripted("RESOLVE: Pulse POS"), resolver=tuned(fuse_raw_search=True))
    rag.retrieval = tuned_retrieval(fuse_raw_search=True)
    history = [{"role": "assistant", "content": "German from A1 to C1. Are you looking for A1 or B1?"}]
    resolution = await rag.aresolve("B1", naive_param(conversation_history=history))
    assert resolution.changed and resolution.path != "reference"
    fused = await rag.aretrieve("B1", naive_param(conversation_history=history), resolution=resolution)
    alone = await rag.aretrieve(resolution.query, naive_param(), resolve=False)
    assert ids(fused.result["data"]["chunks"]) == ids(alone.result["data"]["chunks"])
