"""contract §5.10: a resolved reference's chunk search, fused with one standalone question's.

The checks on the question itself are in tests/enforce/test_meanings.py.
"""

from __future__ import annotations

import asyncio
import copy
import json
from dataclasses import replace

import pytest

from conversations import SHOPS
from fakes import ScriptedLLM, reference_json
from lightrag_resolve import Message, OpenDomainResolver, Resolution, Resolver, ResolverConfig, Turn
from lightrag_resolve._lightrag.fusion import fuse_chunks
from lightrag_resolve._enforce import standalone_question
from test_fusion import count_vector_searches, ids, naive_param, plain_chunks, with_product_sheets
from test_reference_integration import ASK, HISTORY
from tuned import tuned

TURN = Turn(query=ASK, history=tuple(Message(**message) for message in HISTORY), mode="naive", company_name="Helix")
TWO = Turn(query=ASK, history=SHOPS, mode="naive", company_name="Helix")  # two candidates: the check asks the model
QUESTION = "Which retailers already run the Pulse POS loyalty terminal?"
ON = tuned(company_name="Helix", fuse_standalone_question=True)


def run(coro):
    return asyncio.run(coro)


# ---- the question comes from the check's one answer ---------------------------------------------


def test_a_resolved_reference_takes_its_question_from_the_checks_one_answer():
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query=QUESTION)})
    resolution = run(ON.resolve(TWO, llm=llm))
    assert llm.roles() == ["reference"]  # no second call
    assert resolution.query == f"Pulse POS — {ASK}" and resolution.entity == "Pulse POS"
    assert resolution.standalone_question == QUESTION
    assert resolution.to_dict()["standalone_question"] == QUESTION


def test_a_restated_reference_takes_its_restatement_as_the_question():
    restatement = "retailers running Pulse POS or Orbit CRM"
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query=restatement)})
    resolution = run(ON.resolve(TWO, llm=llm))
    assert llm.roles() == ["reference"]
    assert resolution.restatement == f"{restatement} Helix" and resolution.standalone_question == restatement


@pytest.mark.parametrize(
    "reference",
    [
        reference_json("KEEP", query=""),
        reference_json("AMBIGUOUS", query="NONE"),
        "RESOLVE: Pulse POS",  # a one-line answer holds no question
        "gibberish",
        RuntimeError("down"),
    ],
)
def test_a_turn_without_a_question_in_the_answer_or_left_unchanged_gets_none(reference):
    llm = ScriptedLLM(replies={"reference": reference})
    resolution = run(ON.resolve(TWO, llm=llm))
    assert llm.roles() == ["reference"] and resolution.standalone_question is None


def test_a_kept_turn_carrying_the_checks_keywords_gets_no_question():
    answer = reference_json("KEEP", query="", ll=["retailers"], hl=["retail"])
    resolution = run(ON.resolve(replace(TWO, mode="mix"), llm=ScriptedLLM(replies={"reference": answer})))
    assert resolution.changed and resolution.has_keywords  # changed by its keywords only: its text is the visitor's
    assert resolution.standalone_question is None


def test_off_by_default():
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query=QUESTION)})
    resolution = run(Resolver(ResolverConfig(company_name="Helix")).resolve(TWO, llm=llm))
    assert llm.roles() == ["reference"] and resolution.standalone_question is None


def test_a_short_reply_is_never_condensed():
    llm = ScriptedLLM(replies={"text": "German course level B1"})
    history = (Message(role="assistant", content="German from A1 to C1. Are you looking for A1 or B1?"),)
    resolution = run(ON.resolve(Turn(query="B1 please", history=history, mode="naive"), llm=llm))
    assert "reference" not in llm.roles() and resolution.standalone_question is None


@pytest.mark.parametrize("question", ["", "NONE", ASK, "Which retailers in Berlin run it?", ["Which retailers?"]])
def test_a_missing_or_refused_question_costs_the_fusion_only(question):
    answer = f'{{"decision": "RESOLVE", "name": "Pulse POS", "query": {json.dumps(question)}}}'
    resolution = run(ON.resolve(TWO, llm=ScriptedLLM(replies={"reference": answer})))
    assert resolution.query == f"Pulse POS — {ASK}" and resolution.standalone_question is None
    assert resolution.fallback_reason is None


def test_the_question_is_read_with_the_resolvers_text_parser():
    class Shop(OpenDomainResolver):
        def parse_text(self, output):
            return output.removeprefix(">> ")

    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query=f">> {QUESTION}")})
    resolution = run(Shop(ON.config, tuning=ON.tuning).resolve(TWO, llm=llm))
    assert resolution.standalone_question == QUESTION


# ---- on a real LightRAG ----------------------------------------------------------------------


async def _rag(make_rag, question: str, **config):
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query=question)})
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


async def test_cancelling_the_query_during_the_check_cancels_its_call(make_rag):
    answer = reference_json("RESOLVE", "Pulse POS", query=QUESTION)
    llm = ScriptedLLM(replies={"reference": answer}, delays={"reference": 30.0})
    rag = await make_rag(llm, resolver=ON)
    before = asyncio.all_tasks()
    shops = [{"role": message.role, "content": message.content} for message in SHOPS]  # two candidates: the check asks
    task = asyncio.ensure_future(rag.aquery_data(ASK, naive_param(conversation_history=shops)))
    deadline = asyncio.get_running_loop().time() + 30
    while ("start", "reference") not in llm.events:
        assert asyncio.get_running_loop().time() < deadline, "the check never started"
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    assert ("cancelled", "reference") in llm.events
    assert "answer" not in llm.roles()
    leftover = [t for t in asyncio.all_tasks() - before - {asyncio.current_task()} if not t.done()]
    # Only LightRAG's own queue machinery may run on (contract §7): its workers and an embedding it had started.
    assert {t.get_coro().__qualname__ for t in leftover} <= {"Queue.get", "_embed"}


# ---- the question is held to the conversation ------------------------------------------------

EARLIER = [
    {"role": "user", "content": "Do you work with bakeries in Lyon?"},
    {"role": "assistant", "content": "Yes, Maison Poilâne in Lyon is a customer."},
    *HISTORY,
]


def test_a_question_naming_what_the_conversation_never_said_is_refused():
    turn = Turn.from_history(ASK, EARLIER, mode="naive", config=ON.config, tuning=ON.tuning)
    assert standalone_question(turn, "Does Carrefour in Lyon run Pulse POS?", max_name_words=6) is None
    asked = "Which retailers run the Pulse POS terminal?"
    assert standalone_question(turn, asked, max_name_words=6) == asked


def test_a_question_may_name_what_an_earlier_turn_said_now_that_the_check_lists_it():
    # Issue 40: the check's candidates cover the conversation, each with where it was said.
    turn = Turn.from_history(ASK, EARLIER, mode="naive", config=ON.config, tuning=ON.tuning)
    assert "Maison Poilâne (said 3 messages back)" in Resolver().reference_prompt(turn).user
    asked = "Does Maison Poilâne in Lyon run the Pulse POS terminal?"
    assert standalone_question(turn, asked, max_name_words=6) == asked
