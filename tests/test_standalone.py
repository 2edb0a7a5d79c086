"""contract §5.10: a resolved reference's chunk search, fused with one standalone question's.

The checks on the question itself are in tests/enforce/test_meanings.py.
"""

from __future__ import annotations

import asyncio
import copy

import pytest

from conversations import SHOPS
from fakes import ScriptedLLM
from lightrag_resolve import Message, Resolution, Resolver, ResolverConfig, Turn
from lightrag_resolve._fusion import fuse_chunks
from lightrag_resolve._enforce import standalone_question
from lightrag_resolve._prompts import CONDENSE_SYSTEM_PROMPT, condense_prompt
from lightrag_resolve.eval._prose import SYSTEM_PROMPT as PROSE_SYSTEM_PROMPT
from test_fusion import count_vector_searches, ids, naive_param, plain_chunks, with_product_sheets
from test_reference_integration import ASK, HISTORY
from tuned import tuned

TURN = Turn(query=ASK, history=tuple(Message(**message) for message in HISTORY), mode="naive", company_name="Helix")
TWO = Turn(query=ASK, history=SHOPS, mode="naive", company_name="Helix")  # two candidates: the check asks the model
QUESTION = "Which retailers already run the Pulse POS loyalty terminal?"
ON = tuned(company_name="Helix", fuse_standalone_question=True)


def run(coro):
    return asyncio.run(coro)


# ---- the prompt ---------------------------------------------------------------------------


def test_the_library_sends_the_condense_instruction_the_prose_baseline_measures():
    assert CONDENSE_SYSTEM_PROMPT == PROSE_SYSTEM_PROMPT
    prompt = condense_prompt(TURN)
    assert prompt.system == CONDENSE_SYSTEM_PROMPT
    assert "Pulse POS is the Helix loyalty terminal" in prompt.user and prompt.user.endswith("Standalone question:")
    assert f"Follow-up message: {ASK}" in prompt.user


# ---- the resolver ------------------------------------------------------------------------------


def test_a_resolved_reference_gets_one_more_call_and_keeps_its_text():
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "standalone": QUESTION})
    resolution = run(ON.resolve(TWO, llm=llm))
    assert llm.roles() == ["reference", "standalone"]
    assert resolution.query == f"Pulse POS — {ASK}" and resolution.entity == "Pulse POS"
    assert resolution.standalone_question == QUESTION
    assert resolution.to_dict()["standalone_question"] == QUESTION


def test_a_restated_reference_gets_the_question_too():
    llm = ScriptedLLM(
        replies={"reference": "AMBIGUOUS", "restatement": "retailers running Pulse POS", "standalone": QUESTION}
    )
    resolution = run(ON.resolve(TWO, llm=llm))
    assert llm.roles() == ["reference", "restatement", "standalone"]
    assert resolution.restatement is not None and resolution.standalone_question == QUESTION


@pytest.mark.parametrize("reference", ["KEEP", "AMBIGUOUS", "gibberish", RuntimeError("down")])
def test_a_turn_the_check_left_unchanged_pays_no_call(reference):
    llm = ScriptedLLM(replies={"reference": reference, "standalone": QUESTION})
    resolution = run(ON.resolve(TWO, llm=llm))
    assert "standalone" not in llm.roles()
    assert not resolution.changed and resolution.standalone_question is None


def test_off_by_default():
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "standalone": QUESTION})
    resolution = run(Resolver(ResolverConfig(company_name="Helix")).resolve(TWO, llm=llm))
    assert llm.roles() == ["reference"] and resolution.standalone_question is None


def test_a_short_reply_is_never_condensed():
    llm = ScriptedLLM(replies={"text": "German course level B1", "standalone": QUESTION})
    history = (Message(role="assistant", content="German from A1 to C1. Are you looking for A1 or B1?"),)
    resolution = run(ON.resolve(Turn(query="B1 please", history=history, mode="naive"), llm=llm))
    assert "standalone" not in llm.roles() and resolution.standalone_question is None


@pytest.mark.parametrize("reply", [RuntimeError("down"), "NONE", "Which retailers in Berlin run it?"])
def test_a_failed_or_refused_question_costs_the_fusion_only(reply):
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "standalone": reply})
    resolution = run(ON.resolve(TWO, llm=llm))
    assert resolution.query == f"Pulse POS — {ASK}" and resolution.standalone_question is None
    assert resolution.fallback_reason is None


def test_a_slow_question_meets_the_rewrite_timeout():
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "standalone": QUESTION}, delays={"standalone": 30})
    resolver = tuned(company_name="Helix", fuse_standalone_question=True, timeout=0.05, reference_timeout=60)
    resolution = run(resolver.resolve(TWO, llm=llm))
    assert resolution.query == f"Pulse POS — {ASK}" and resolution.standalone_question is None


def test_the_prompt_and_parser_are_override_points():
    class Shop(Resolver):
        def condense_prompt(self, turn):
            prompt = super().condense_prompt(turn)
            return type(prompt)(system="Custom condense.", user=prompt.user)

        def parse_standalone_question(self, output):
            return output.removeprefix(">> ")

    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "standalone": f">> {QUESTION}"})
    resolution = run(Shop(ON.config, tuning=ON.tuning).resolve(TWO, llm=llm))
    assert llm.calls[-1].system_prompt == "Custom condense."
    assert resolution.standalone_question == QUESTION


# ---- on a real LightRAG ----------------------------------------------------------------------


async def _rag(make_rag, question: str, **config):
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "standalone": question})
    return await with_product_sheets(await make_rag(llm, resolver=tuned(**config)))


async def test_the_resolved_chunk_search_is_fused_with_the_questions(make_rag, monkeypatch):
    question = "Which retailers run it? Pulse POS."  # a text whose search ranks the sheets otherwise
    rag = await _rag(make_rag, question, fuse_standalone_question=True)
    resolved, asked = await plain_chunks(rag, f"Pulse POS — {ASK}"), await plain_chunks(rag, question)
    searched = count_vector_searches(rag, monkeypatch)
    caller = naive_param(conversation_history=list(HISTORY))
    before = copy.deepcopy(caller)
    result = await rag.aquery_data(ASK, caller)
    recorded = result["metadata"]["resolution"]
    assert recorded["query"] == f"Pulse POS — {ASK}" and recorded["standalone_question"] == question
    assert ids(result["data"]["chunks"]) == ids(fuse_chunks(resolved, asked, limit=2))
    assert sorted(searched[-2:]) == sorted([f"Pulse POS — {ASK}", question])  # beside the resolved search
    assert caller == before


async def test_a_resolution_in_hand_retrieves_with_its_question(make_rag):
    question = "Which retailers run it? Pulse POS."
    rag = await _rag(make_rag, question)  # the switch is off: the record alone says what to fuse with
    resolved, asked = await plain_chunks(rag, f"Pulse POS — {ASK}"), await plain_chunks(rag, question)
    given = Resolution(
        query=f"Pulse POS — {ASK}",
        original_query=ASK,
        mode="naive",
        path="reference",
        decision="resolve",
        entity="Pulse POS",
        standalone_question=question,
    )
    outcome = await rag.aretrieve(ASK, naive_param(conversation_history=list(HISTORY)), resolution=given)
    assert ids(outcome.result["data"]["chunks"]) == ids(fuse_chunks(resolved, asked, limit=2))


async def test_cancelling_the_query_during_the_question_cancels_its_call(make_rag):
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "standalone": QUESTION}, delays={"standalone": 30.0})
    rag = await make_rag(llm, resolver=ON)
    before = asyncio.all_tasks()
    task = asyncio.ensure_future(rag.aquery_data(ASK, naive_param(conversation_history=list(HISTORY))))
    while ("start", "standalone") not in llm.events:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    assert ("cancelled", "standalone") in llm.events
    assert "answer" not in llm.roles()
    leftover = [t for t in asyncio.all_tasks() - before - {asyncio.current_task()} if not t.done()]
    # Only LightRAG's own queue machinery may run on (contract §7): its workers and an embedding it had started.
    assert {t.get_coro().__qualname__ for t in leftover} <= {"Queue.get", "_embed"}


# ---- the question reads further back than the check ------------------------------------------

EARLIER = [
    {"role": "user", "content": "Do you work with bakeries in Lyon?"},
    {"role": "assistant", "content": "Yes, Maison Poilâne in Lyon is a customer."},
    *HISTORY,
]


def test_the_question_reads_earlier_turns_than_the_checks_window():
    turn = Turn.from_history(ASK, EARLIER, mode="naive", config=ON.config, tuning=ON.tuning)
    assert len(turn.history) == 2 and len(turn.conversation) == 4
    assert "Maison Poilâne" not in turn.history_text
    assert "Maison Poilâne" in condense_prompt(turn).user
    asked = "Does Maison Poilâne in Lyon run the Pulse POS terminal?"
    # Established by an earlier turn the prompt showed.
    assert standalone_question(turn, asked, max_name_words=6) == asked
    assert standalone_question(turn, "Does Carrefour in Lyon run Pulse POS?", max_name_words=6) is None
