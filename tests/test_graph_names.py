"""The window's names the knowledge graph knows (``_graph_names``, contract §5.4): one bounded batch lookup."""

from __future__ import annotations

import asyncio

import pytest

from lightrag_resolve import Message, Turn
from lightrag_resolve._candidates import name_ngrams
from lightrag_resolve._graph_names import with_graph_names

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


async def test_the_names_the_graph_knows_are_kept_in_window_order():
    graph = FakeGraph("Orbit CRM", "Pulse POS", "Vellinor")  # Vellinor is not in the window
    looked_up = await with_graph_names(TURN, graph, timeout=5)
    assert looked_up.known_names == ("Pulse POS", "Orbit CRM")
    assert not looked_up.graph_lookup_failed
    assert looked_up.query == TURN.query and looked_up.history == TURN.history


async def test_the_graph_is_asked_once_about_the_windows_spans():
    graph = FakeGraph()
    looked_up = await with_graph_names(TURN, graph, timeout=5)
    assert graph.asked == [name_ngrams(TURN.message_texts)]
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
