"""The window's names the knowledge graph knows (``_turn.graph_names``, contract §5.4): one bounded batch lookup."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakes import ScriptedLLM
from lightrag_resolve import Message, Resolver, Turn
from lightrag_resolve._turn.candidates import MAX_NGRAMS, name_ngrams
from lightrag_resolve._turn.graph_names import with_graph_names
from strategies import cjk_run, phrase

TURN = Turn(
    query="Which shops already run it?",
    history=(
        Message(role="user", content="Do you sell Pulse POS to shops?"),
        Message(role="assistant", content="Yes, and Orbit CRM too; Pulse POS is the terminal."),
    ),
    mode="mix",
)


class FakeGraph:
    """A fake graph storage: knows ``names``, records each batch it is asked, may raise or be slow."""

    def __init__(self, *names: str, error: BaseException | None = None, delay: float = 0.0) -> None:
        self.names, self.error, self.delay, self.asked = names, error, delay, []

    async def has_nodes_batch(self, node_ids: list[str]) -> list[str]:
        self.asked.append(list(node_ids))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return [name for name in self.names if name in node_ids]  # in its own order, not the window's


async def test_the_names_the_graph_knows_are_kept_in_the_order_asked_newest_message_first():
    graph = FakeGraph("Pulse POS", "Orbit CRM", "Vellinor")  # Vellinor is not in the window
    looked_up = await with_graph_names(TURN, graph, timeout=5)
    assert looked_up.known_names == ("Orbit CRM", "Pulse POS")
    assert not looked_up.graph_lookup_failed
    assert looked_up.query == TURN.query and looked_up.history == TURN.history


async def test_the_graph_is_asked_once_about_the_windows_spans():
    graph = FakeGraph()
    looked_up = await with_graph_names(TURN, graph, timeout=5)
    assert graph.asked == [name_ngrams(reversed(TURN.message_texts))]
    assert "Pulse POS" in graph.asked[0] and looked_up.known_names == ()


@pytest.mark.parametrize("error", [RuntimeError("storage down"), KeyError("node"), asyncio.TimeoutError()])
async def test_a_graph_that_raises_adds_no_names_and_the_turn_says_so(error):
    looked_up = await with_graph_names(TURN, FakeGraph("Pulse POS", error=error), timeout=5)
    assert looked_up.graph_lookup_failed and looked_up.known_names == ()
    assert looked_up.query == TURN.query


async def test_a_graph_slower_than_the_bound_adds_no_names_and_the_turn_says_so():
    looked_up = await with_graph_names(TURN, FakeGraph("Pulse POS", delay=30), timeout=0.01)
    assert looked_up.graph_lookup_failed and looked_up.known_names == ()


async def test_a_window_without_spans_is_not_looked_up():
    graph = FakeGraph("Pulse POS")
    for quiet in (
        Turn(query="Pulse POS?", history=(), mode="mix"),
        Turn(query="Hi", history=(Message(role="assistant", content="?!"),), mode="mix"),
    ):
        assert await with_graph_names(quiet, graph, timeout=5) is quiet
    assert graph.asked == []


async def test_without_a_graph_the_turn_is_unchanged():
    assert await with_graph_names(TURN, None, timeout=5) is TURN


# ---- a storage that misbehaves costs the candidates, never the query (issue 31, items 8 and 9) --------


async def test_a_storage_that_raises_cancelled_error_by_itself_adds_no_names_and_the_query_goes_on():
    looked_up = await with_graph_names(TURN, FakeGraph("Pulse POS", error=asyncio.CancelledError()), timeout=5)
    assert looked_up.graph_lookup_failed and looked_up.known_names == ()
    assert not asyncio.current_task().cancelled()


async def test_the_callers_own_cancellation_propagates_and_ends_the_lookup():
    graph = HangingGraph()
    lookup = asyncio.ensure_future(with_graph_names(TURN, graph, timeout=30))
    await graph.entered.wait()
    lookup.cancel()
    with pytest.raises(asyncio.CancelledError):
        await lookup
    assert graph.cancelled  # the storage's call was cancelled with the query, not left running


class HangingGraph:
    """A fake graph storage that never answers; records whether its call was cancelled."""

    def __init__(self) -> None:
        self.entered, self.cancelled = asyncio.Event(), False

    async def has_nodes_batch(self, node_ids: list[str]) -> set[str]:
        self.entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return set()


class Answering:
    """A fake graph storage whose ``has_nodes_batch`` answers ``answer``, whatever it is."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    async def has_nodes_batch(self, node_ids: list[str]) -> object:
        node_ids.clear()  # a storage that changes what it is handed changes nothing of the turn's
        return self.answer


class RaisingContains(set):
    def __contains__(self, item: object) -> bool:
        raise RuntimeError("broken collection")


@pytest.mark.parametrize("answer", [None, 3, "Pulse POS", b"Pulse POS", object(), RaisingContains({"Pulse POS"})])
async def test_a_storage_answering_no_collection_of_names_adds_none_and_the_turn_says_so(answer):
    looked_up = await with_graph_names(TURN, Answering(answer), timeout=5)
    assert looked_up.graph_lookup_failed and looked_up.known_names == ()


async def test_a_storage_mutating_the_names_it_is_handed_still_answers_for_the_window():
    looked_up = await with_graph_names(TURN, Answering({"Pulse POS"}), timeout=5)
    assert looked_up.known_names == ("Pulse POS",) and not looked_up.graph_lookup_failed


class NotAStorage:
    has_nodes_batch = None  # not callable


async def test_a_storage_whose_lookup_is_not_callable_or_not_awaitable_adds_no_names():
    class Sync:
        def has_nodes_batch(self, node_ids):
            return {"Pulse POS"}

    for graph in (NotAStorage(), Sync(), object()):
        looked_up = await with_graph_names(TURN, graph, timeout=5)
        assert looked_up.graph_lookup_failed and looked_up.known_names == ()


# ---- the latest message first, and a capped lookup is never complete (issue 31, item 7) --------------

HAN_FILLER = "".join(chr(0x4E00 + (index * 37) % 20000) for index in range(400))
"""Four hundred Han characters: about 2,000 n-grams, more than the lookup's cap on their own."""
LONG_THEN_LATEST = (
    Message(role="user", content=f"{HAN_FILLER} Kadoro {HAN_FILLER}"),
    Message(role="assistant", content="Magazio keeps stock in sync for shops."),
)


async def test_a_long_earlier_message_does_not_hide_the_latest_from_the_lookup():
    turn = Turn(query="Which shops already use it?", history=LONG_THEN_LATEST, mode="mix")
    graph = FakeGraph("Magazio", "Kadoro")
    looked_up = await with_graph_names(turn, graph, timeout=5)
    assert len(graph.asked[0]) == MAX_NGRAMS and "Magazio" in graph.asked[0]
    assert "Magazio" in looked_up.known_names
    assert looked_up.graph_lookup_failed  # capped: the earlier message was not all asked about


async def test_after_a_capped_lookup_the_one_candidate_rule_asks_the_model():
    """The window seems to hold one candidate (Kadoro) only because the lookup was capped: the model decides."""
    turn = Turn(query="Which shops already use it?", history=LONG_THEN_LATEST, mode="mix")
    looked_up = await with_graph_names(turn, FakeGraph("Kadoro"), timeout=5)
    assert looked_up.candidates.names == ("Kadoro",) and looked_up.graph_lookup_failed
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS"})
    resolution = await Resolver().resolve(looked_up, llm=llm)
    assert llm.roles()[0] == "reference" and resolution.entity is None


@settings(max_examples=60)
@given(st.lists(st.one_of(phrase, cjk_run), min_size=1, max_size=4))
def test_the_lookup_asks_newest_first_and_a_capped_one_is_never_complete(texts):
    history = tuple(Message(role=("user", "assistant")[i % 2], content=text) for i, text in enumerate(texts))
    turn = Turn(query="Which one?", history=history, mode="mix", message_words=400)
    graph = FakeGraph()
    looked_up = asyncio.run(with_graph_names(turn, graph, timeout=5))
    every = name_ngrams(reversed(turn.message_texts), limit=10**6)
    asked = graph.asked[0] if graph.asked else []
    assert asked == every[:MAX_NGRAMS]
    assert looked_up.graph_lookup_failed == (len(every) > MAX_NGRAMS)
    latest = name_ngrams([turn.message_texts[-1]], limit=MAX_NGRAMS)
    assert asked[: len(latest)] == latest  # the latest message is asked about first, as far as the cap allows
