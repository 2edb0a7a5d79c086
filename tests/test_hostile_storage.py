"""A hostile model and a hostile graph storage on a real LightRAG (issue 31): the regressions and a bounded fuzz.

The doubles are fakes, named as such: ``ScriptedLLM`` answers each resolver
role from a script (here, what a broken or hostile model would), and
``HostileLookup`` stands in for the graph storage's ``has_nodes_batch``, the one
storage call this library makes (LightRAG's own retrieval never calls it). The
knowledge graph, the vector search and LightRAG's query path are real.

The fuzz runs the new paths (a picked option, an accepted offer, the
reference check with a sole candidate, the restatement, the standalone
question, the graph lookup) and states the invariant of issue 31: no
exception escapes but the caller's own cancellation, nothing hostile reaches
retrieval, the visitor's words are never lost, and no task outlives the query.
"""

from __future__ import annotations

import asyncio
import functools
import tempfile
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lightrag import LightRAG, QueryParam

from fakes import ScriptedLLM, keyword_json, reference_json
from lightrag_resolve import ResolverConfig, ResolvingLightRAG
from lightrag_resolve._languages.text import normalize_for_compare
from lightrag_resolve._languages.text import contains_phrase
from rag_support import offline_rag, stop_queue_workers
from strategies import hostile_model_output, model_output
from test_hostile_text import assert_safe_resolution, invisible_free
from tuned import tuned

HISTORY = [
    {"role": "user", "content": "What do you offer retailers?"},
    {"role": "assistant", "content": "Pulse POS is the Helix loyalty terminal for retailers and shops."},
]
ASK = "Which retailers already run it?"


def param(mode: str = "mix", history: list[dict[str, str]] = HISTORY) -> QueryParam:
    return QueryParam(mode=mode, conversation_history=list(history), enable_rerank=False)


async def cancels_itself(names: list[str]) -> set[str]:
    raise asyncio.CancelledError()  # the storage's client cancelling its own inner task


async def answers_none(names: list[str]) -> None:
    return None


# ---- the regressions: items 8 and 9 on every path --------------------------------------------------


PATHS = [("naive", "Pulse"), ("mix", "Pulse"), ("mix", ASK), ("naive", ASK)]
"""A short reply in ``naive`` (text) and a graph mode (keywords), and a reference in both."""


@pytest.mark.parametrize("lookup", [cancels_itself, answers_none], ids=["cancels itself", "answers None"])
@pytest.mark.parametrize(("mode", "query"), PATHS)
async def test_a_misbehaving_storage_costs_the_candidates_never_the_query(make_rag, monkeypatch, lookup, mode, query):
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "text": "Pulse POS pricing"})
    resolver = tuned(company_name="Helix", resolve_unprompted_replies=True)
    rag = await make_rag(llm, resolver=resolver)
    monkeypatch.setattr(rag.chunk_entity_relation_graph, "has_nodes_batch", lookup)
    resolved = await rag.aretrieve(query, param(mode))
    assert isinstance(resolved.result, dict) and resolved.resolution.original_query == query
    if query == ASK:
        # The check itself is not lost: with the candidates incomplete, the model decides, and its name is used.
        assert llm.roles()[0] == "reference" and resolved.resolution.entity == "Pulse POS"
        assert resolved.resolution.query == f"Pulse POS — {ASK}"


async def test_the_callers_own_cancellation_during_the_lookup_still_propagates(make_rag, monkeypatch):
    entered, ended = asyncio.Event(), asyncio.Event()

    async def hangs(names: list[str]) -> set[str]:
        entered.set()
        try:
            await asyncio.Event().wait()
        finally:
            ended.set()
        return set()

    rag = await make_rag(ScriptedLLM(), resolver=ResolverConfig(graph_lookup_timeout=30))
    monkeypatch.setattr(rag.chunk_entity_relation_graph, "has_nodes_batch", hangs)
    query = asyncio.ensure_future(rag.aquery_data("Pulse", param("naive")))
    await asyncio.wait_for(entered.wait(), 10)
    query.cancel()
    with pytest.raises(asyncio.CancelledError):
        await query
    assert ended.is_set()  # the storage's call ended with the query


# ---- the bounded fuzz -------------------------------------------------------------------------------

CANARY = "Zorblax"
"""A name no conversation here holds: planted by the hostile model and storage, it must never reach retrieval."""

LONG_NAME = "Parcours Cerclia Avancé Premium Plus Édition Entreprise"
"""A candidate of seven words: longer than the reference check accepts (``max_name_words``, 6)."""
HAN_FILLER = "".join(chr(0x4E00 + (index * 37) % 20000) for index in range(300))

PLANTED = [
    f"RESOLVE: {CANARY}",
    f"prix d'{CANARY} pour Lyon",
    f"l\u2019{CANARY} pour les boutiques",
    f"Which shops run {CANARY}?",
    keyword_json([CANARY, "Pulse POS"], [CANARY]),
    keyword_json(["Horizon", CANARY], ["plans"], query=f"{CANARY} plan"),
]
"""Model answers that bring a name the conversation never said, in each resolver's format."""
planted = st.sampled_from(PLANTED)
planted_rewrite = st.sampled_from(PLANTED[1:4])
"""A restatement or question that brings the planted name, after an elided article or not."""


class BrokenStr(str):
    def __str__(self) -> str:
        raise RuntimeError("unprintable")


model_failure = st.sampled_from([RuntimeError("model down"), asyncio.CancelledError(), KeyError("choices")])
"""An exception a model may raise, its own ``CancelledError`` included."""
hostile_reply = st.one_of(
    model_output,
    hostile_model_output(),
    planted,
    model_failure,
    st.sampled_from([None, 42, BrokenStr("RESOLVE: Pulse POS")]),
)
"""What a hostile model answers one resolver role: hostile text, a planted name, an exception or no text."""

ROLES = ("keywords", "text", "reference")


def check_answers(decisions: list[str], names: list[str], queries: Any) -> Any:
    """The check's one JSON answer (contract §5.3): a decision, a name, a restatement (the standalone question too)
    and keywords, any of which may bring the planted name."""
    return st.builds(
        lambda decision, name, query, ll, hl: reference_json(decision, name, query, ll=ll, hl=hl),
        st.sampled_from(decisions),
        st.sampled_from(names),
        queries,
        st.sampled_from([["Pulse POS", "shops"], [CANARY, "shops"], [f"l'{CANARY}"]]),
        st.sampled_from([["retail"], [CANARY]]),
    )


@dataclass(frozen=True)
class Scenario:
    """A conversation, the follow-ups asked after it, and per role the answers that lead into its path."""

    history: list[dict[str, str]]
    queries: list[str]
    leading: dict[str, Any]


SHORT_REPLY_LEADS = {"keywords": planted, "text": planted}
SCENARIOS = {
    "pick": Scenario(
        history=[
            {"role": "user", "content": "What plans do you have?"},
            {"role": "assistant", "content": "Which plan is your company on: Essentiel, Croissance or Horizon?"},
        ],
        queries=["Horizon", "the second one", "Croissance please", "la deuxième", "not Horizon"],
        leading=SHORT_REPLY_LEADS,
    ),
    "offer": Scenario(
        history=[
            {"role": "user", "content": "Do clinics use Vitalis?"},
            {"role": "assistant", "content": "Vitalis runs in clinics. Shall I tell you which clinics use Vitalis?"},
        ],
        queries=["Yes please", "Oui volontiers", "sure"],
        leading=SHORT_REPLY_LEADS,
    ),
    "sole candidate": Scenario(
        history=HISTORY,
        queries=[ASK, "How much does it cost?"],
        leading={
            "reference": st.one_of(
                st.sampled_from([f"RESOLVE: {CANARY}", "RESOLVE: Pulse POS"]),
                check_answers(["RESOLVE"], [CANARY, "Pulse POS"], planted_rewrite),
            ),
        },
    ),
    "two candidates": Scenario(
        history=[
            {"role": "user", "content": "What do you sell to shops?"},
            {"role": "assistant", "content": "For shops Helix sells Pulse POS and Orbit CRM, often together."},
        ],
        queries=["Which shops in Lyon already use it?", "Combien coûte-t-il pour une boutique ?"],
        leading={
            "reference": st.one_of(
                st.sampled_from(["AMBIGUOUS", "RESOLVE: Orbit CRM", "RESOLVE: 2"]),
                check_answers(
                    ["AMBIGUOUS", "RESOLVE", "KEEP"],
                    ["", "Orbit CRM", "2"],
                    st.one_of(planted_rewrite, st.just("Lyon shops using Orbit CRM")),
                ),
            ),
        },
    ),
    "long name": Scenario(
        history=[
            {"role": "user", "content": "What do you sell to shops?"},
            {"role": "assistant", "content": f"We sell {LONG_NAME} to shops."},
        ],
        queries=["Which shops already use it?"],
        leading={
            "reference": st.one_of(
                st.sampled_from(["AMBIGUOUS", f"RESOLVE: {LONG_NAME}"]),
                check_answers(
                    ["AMBIGUOUS", "RESOLVE"],
                    ["", LONG_NAME],
                    st.sampled_from(
                        [f"{LONG_NAME} shops", f"shops using {LONG_NAME}", f"Which shops use {LONG_NAME}?"]
                    ),
                ),
            ),
        },
    ),
    "long earlier message": Scenario(
        history=[
            {"role": "user", "content": f"{HAN_FILLER} Kadoro {HAN_FILLER}"},
            {"role": "assistant", "content": "Magazio keeps stock in sync for shops."},
        ],
        queries=["Which shops already use it?"],
        leading={
            "reference": st.one_of(
                st.sampled_from(["AMBIGUOUS", "RESOLVE: Magazio"]),
                check_answers(["AMBIGUOUS", "RESOLVE"], ["", "Magazio"], planted_rewrite),
            ),
        },
    ),
}
"""The paths of issue 31: a picked option, an accepted offer, the one-candidate rule, the check and the
restatement, question and keywords of its one answer (issue 29), a candidate the check refuses as too long, and a
window longer than the lookup's cap."""


@dataclass
class HostileLookup:
    """A fake ``has_nodes_batch``: answers as the real graph does, or raises, hangs, cancels itself or answers garbage."""

    behaviour: str
    real: Any
    asked: list[list[str]] = field(default_factory=list)

    async def __call__(self, names: list[str]) -> Any:
        self.asked.append(list(names))
        if self.behaviour == "real":
            return await self.real(names)
        if self.behaviour == "raises":
            raise RuntimeError("storage down")
        if self.behaviour == "cancels itself":
            raise asyncio.CancelledError()
        if self.behaviour == "hangs":
            await asyncio.Event().wait()
        if self.behaviour == "plants a name":
            return {*names, CANARY, f"l'{CANARY}"}
        return {"none": None, "a string": f"Pulse POS {CANARY}", "a number": 7}[self.behaviour]


storage_behaviour = st.sampled_from(
    ["real", "raises", "cancels itself", "hangs", "plants a name", "none", "a string", "a number"]
)


@st.composite
def hostile_cases(draw: Any) -> dict[str, Any]:
    """One turn of a scenario, with a reply drawn per resolver role, a storage behaviour, switches and a cancel."""
    scenario = SCENARIOS[draw(st.sampled_from(sorted(SCENARIOS)))]
    # Half the time a role answers what leads into its scenario's path, else anything hostile.
    leads = draw(st.booleans())
    return {
        "history": scenario.history,
        "query": draw(st.sampled_from(scenario.queries)),
        "mode": draw(st.sampled_from(["naive", "mix", "local"])),
        "replies": {
            role: draw(scenario.leading.get(role, hostile_reply) if leads else hostile_reply) for role in ROLES
        },
        "slow": draw(st.lists(st.sampled_from(ROLES), max_size=2, unique=True)),
        "storage": draw(storage_behaviour),
        "knobs": {
            "fuse_standalone_question": draw(st.booleans()),
            "check_sole_candidate": draw(st.booleans()),
            "resolve_unprompted_replies": draw(st.booleans()),
        },
        "cancel_after": draw(st.sampled_from([None, None, None, 0.0, 0.02])),
    }


@dataclass
class Retrievals:
    """Every text and keyword lists LightRAG's own ``aquery_data`` was called with (a spy on the real method)."""

    seen: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)

    def wrap(self, original: Any) -> Any:
        @functools.wraps(original)
        async def spy(rag: Any, query: str, query_param: QueryParam = QueryParam()) -> Any:
            self.seen.append((query, tuple(query_param.ll_keywords), tuple(query_param.hl_keywords)))
            return await original(rag, query, query_param)

        return spy


@dataclass
class Fuzzed:
    """The fuzz's one real ResolvingLightRAG, its event loop, its scripted model and the spy on its retrievals."""

    loop: asyncio.AbstractEventLoop
    rag: ResolvingLightRAG
    llm: ScriptedLLM
    retrievals: Retrievals


FIXED = {"company_name": "Helix", "timeout": 0.1, "reference_timeout": 0.1, "graph_lookup_timeout": 0.05}
"""The configuration of every fuzzed turn: short bounds, so a hanging model or storage costs little time."""


@pytest.fixture(scope="module")
def fuzzed():
    """One real ResolvingLightRAG on its own event loop for every example (building one costs more than a query)."""
    loop = asyncio.new_event_loop()
    llm = ScriptedLLM()

    async def build() -> ResolvingLightRAG:
        rag = await offline_rag(llm, tempfile.mkdtemp(), resolver=ResolverConfig(company_name="Helix"))
        await rag.aquery_data("Pulse POS", param("mix", []))  # starts LightRAG's queue workers
        return rag

    rag = loop.run_until_complete(build())
    retrievals = Retrievals()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LightRAG, "aquery_data", retrievals.wrap(LightRAG.aquery_data))
        yield Fuzzed(loop=loop, rag=rag, llm=llm, retrievals=retrievals)

    async def close() -> None:
        await rag.finalize_storages()
        await stop_queue_workers(rag)

    loop.run_until_complete(close())
    loop.close()


def _lightrag_owned(task: asyncio.Task[Any]) -> bool:
    """LightRAG's own queue machinery, its own gathers' storage calls, or a call its queue started for the speculative search (§7)."""
    coro = task.get_coro()
    code = getattr(coro, "cr_code", None)
    path = code.co_filename.replace("\\", "/") if code is not None else ""
    if path.endswith("lightrag/utils.py"):
        return True  # its queue workers and their health check, started on a role's first call
    if path.endswith("lightrag/base.py") or "/lightrag/kg/" in path:
        # A storage call of LightRAG's own ``asyncio.gather`` (``edge_degrees_batch`` beside
        # ``get_edges_batch``), left running when its sibling raised; the library never makes a task of one.
        return True
    name = getattr(coro, "__qualname__", "")
    role = getattr(getattr(coro, "cr_frame", None), "f_locals", {}).get("role")
    return name == "Queue.get" or (name in {"ScriptedLLM.__call__", "_embed"} and role in (None, "lightrag_keywords"))


@settings(parent=settings.get_profile("fuzz"), max_examples=100)
@given(hostile_cases())
def test_fuzz_a_hostile_model_and_storage_never_break_the_query(fuzzed, monkeypatch, case):
    loop, rag, llm, retrievals = fuzzed.loop, fuzzed.rag, fuzzed.llm, fuzzed.retrievals
    retrievals.seen.clear()
    graph = rag.chunk_entity_relation_graph
    lookup = HostileLookup(case["storage"], real=type(graph).has_nodes_batch.__get__(graph))
    monkeypatch.setattr(graph, "has_nodes_batch", lookup)
    llm.replies = dict(case["replies"])
    llm.delays = {role: 0.15 for role in case["slow"]}  # past every resolver bound: ends as a timeout
    rag.query_resolver = tuned(**FIXED, **case["knobs"])
    query = case["query"]

    async def one_turn() -> Any:
        before = asyncio.all_tasks()
        turn = asyncio.ensure_future(rag.aretrieve(query, param(case["mode"], case["history"])))
        cancelled = False
        if case["cancel_after"] is not None:
            await asyncio.sleep(case["cancel_after"])
            cancelled = turn.cancel()
        try:
            resolved = await turn
        except asyncio.CancelledError:
            assert cancelled, "a CancelledError escaped that the caller never asked for"
            resolved = None
        await asyncio.sleep(0)
        left = [task for task in asyncio.all_tasks() - before - {asyncio.current_task()} if not task.done()]
        return resolved, left

    resolved, left = loop.run_until_complete(one_turn())
    # No task this library started outlives the query; a call LightRAG's queue had begun may finish after a cancel.
    assert all(_lightrag_owned(task) for task in left), [task.get_coro() for task in left]
    calls = [task for task in left if task.get_coro().__qualname__ != "Queue.get"]  # not a worker's idle poll
    if calls:
        loop.run_until_complete(asyncio.wait(calls, timeout=5))
    visitor = normalize_for_compare(query)
    for text, ll, hl in retrievals.seen:
        assert visitor in normalize_for_compare(text), (text, query)  # the visitor's words are never lost
        assert invisible_free(text) and all(invisible_free(keyword) for keyword in (*ll, *hl))
    if resolved is None:
        return
    resolution = resolved.resolution
    assert resolution.original_query == query and retrievals.seen
    assert_safe_resolution(resolution)
    # What the contract holds to the conversation never carries the planted name: candidates and graph-known
    # names (§5.4), grounded low-level keywords (§5.2), the check's name, the restatement and the question
    # (§5.3, §5.9, §5.10), and so every text and low-level keyword a reference retrieves with. A short reply's
    # meaning is the model's own words, held to the rewrite checks of §5.1 only, and high-level keywords are
    # themes, not held to the conversation (§5.2; in graph modes the check's answer gives them, issue 29): neither
    # is asserted here.
    held = [
        *resolution.candidates,
        *resolution.ll_keywords,
        resolution.entity or "",
        resolution.restatement or "",
        resolution.standalone_question or "",
    ]
    if resolution.path == "reference":
        held += [part for text, ll, _ in retrievals.seen for part in (text, *ll)]
    assert not [part for part in held if CANARY.casefold() in normalize_for_compare(part)], held
    # Every name that reaches retrieval obeys the check's rules (§5.3): none longer than its word cap.
    retrieved = [text for text, _, _ in retrievals.seen]
    brought = {name for name in resolution.candidates for text in retrieved if contains_phrase(text, name)}
    assert all(len(name.split()) <= 6 for name in brought - {n for n in brought if contains_phrase(query, n)})
