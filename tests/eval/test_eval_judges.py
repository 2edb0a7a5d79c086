"""The gold judge's hits and ranking metrics, and the LLM judge's identical framing."""

from __future__ import annotations

import math

import pytest
from fakes import ScriptedLLM

from lightrag_resolve.eval import GoldJudge, Item, LLMJudge, ndcg_at, parse_verdict, recall_at, sufficiency_prompt

DOCS = frozenset({"d1", "d2", "d3", "d4"})


def _judge(**kwargs: object) -> GoldJudge:
    return GoldJudge(documents_by_content={"text of d4": "d4"}, document_ids=DOCS, **kwargs)


def _item(**kwargs: object) -> Item:
    fields = {"id": "i", "query": "Which retailers run it?", "history": (), "turn_class": "first_turn"}
    return Item(**{**fields, **kwargs})


def _data(*docs: str, extra: str = "") -> dict:
    chunks = [{"content": f"text of {doc} {extra}", "file_path": doc, "chunk_id": f"c-{doc}"} for doc in docs]
    return {"chunks": chunks, "entities": [], "relationships": []}


async def test_hit_when_a_chunk_belongs_to_a_relevant_document() -> None:
    judgement = await _judge().judge(_item(relevant=("d2",)), _data("d1", "d2"))
    assert judgement.hit and judgement.gold_hit
    assert judgement.retrieved == ("d1", "d2")


async def test_miss_when_no_chunk_does() -> None:
    judgement = await _judge().judge(_item(relevant=("d3",)), _data("d1", "d2"))
    assert not judgement.hit
    assert judgement.recall == 0.0 and judgement.ndcg == 0.0


async def test_chunk_document_is_found_by_its_text_when_file_path_is_not_an_id() -> None:
    data = {"chunks": [{"content": "text of d4", "file_path": "d4.txt"}]}
    judgement = await _judge().judge(_item(relevant=("d4",)), data)
    assert judgement.hit and judgement.retrieved == ("d4",)


async def test_must_contain_needs_every_string_case_and_space_insensitive() -> None:
    item = _item(must_contain=("Maison  Ferrand", "pulse pos"))
    assert (await _judge().judge(item, _data("d1", extra="maison ferrand runs Pulse\nPOS"))).hit
    assert not (await _judge().judge(item, _data("d1", extra="Maison Ferrand"))).hit


async def test_must_contain_reads_entities_and_relations_too() -> None:
    data = {"chunks": [], "entities": [{"entity_name": "Pulse POS", "description": "runs at Maison Ferrand"}]}
    assert (await _judge().judge(_item(must_contain=("Maison Ferrand",)), data)).hit


async def test_either_gold_standard_is_enough() -> None:
    item = _item(relevant=("d3",), must_contain=("d1",))
    judgement = await _judge().judge(item, _data("d1"))
    assert judgement.hit and judgement.recall == 0.0


async def test_no_ranking_metrics_without_relevant_documents() -> None:
    judgement = await _judge().judge(_item(must_contain=("d1",)), _data("d1"))
    assert judgement.recall is None and judgement.ndcg is None


def test_recall_at_k_by_hand() -> None:
    assert recall_at(["d1", "d2", "d3"], ["d2", "d4"], 2) == 0.5
    assert recall_at(["d1", "d2", "d3"], ["d3"], 2) == 0.0


def test_ndcg_by_hand() -> None:
    # Relevant at ranks 2 and 3 of two relevant: (1/log2 3 + 1/log2 4) / (1 + 1/log2 3).
    expected = (1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3))
    assert ndcg_at(["x", "d1", "d2"], ["d1", "d2"]) == pytest.approx(expected)
    assert ndcg_at(["d1", "d2"], ["d1", "d2"]) == 1.0


async def test_retrieved_documents_are_distinct_in_retrieval_order() -> None:
    judgement = await _judge().judge(_item(relevant=("d1",)), _data("d2", "d1", "d2"))
    assert judgement.retrieved == ("d2", "d1")


# ---- LLM judge ----------------------------------------------------------------

@pytest.mark.parametrize(("reply", "verdict"), [("YES", True), ("no.", False), (" Yes, it does", True),
                                                ("Maybe", None), (None, None), ("", None)])
def test_parse_verdict(reply: object, verdict: bool | None) -> None:
    assert parse_verdict(reply) is verdict


def test_the_judge_prompt_frames_every_arm_alike() -> None:
    history = ({"role": "user", "content": "Tell me about Pulse POS."},)
    item = _item(history=history, turn_class="reference")
    first, second = sufficiency_prompt(item, _data("d1"), max_context_chars=1000), sufficiency_prompt(
        item, _data("d2"), max_context_chars=1000
    )
    assert first.split("Retrieved context:")[0] == second.split("Retrieved context:")[0]
    assert "Last message: Which retailers run it?" in first
    assert first != second


async def test_llm_judge_sees_only_the_context_change_and_caches_verdicts() -> None:
    llm = ScriptedLLM(replies={"answer": lambda call: "YES" if "text of d1" in call.prompt else "NO"})
    judge = LLMJudge(llm=llm, gold_judge=_judge())
    item = _item(relevant=("d2",))
    assert (await judge.judge(item, _data("d1"))).hit is True
    again = await judge.judge(item, _data("d1"))
    assert again.hit is True and again.gold_hit is False
    assert (await judge.judge(item, _data("d2"))).hit is False
    assert llm.count("answer") == 2


async def test_llm_judge_error_is_undecided_and_asked_again() -> None:
    llm = ScriptedLLM(replies={"answer": RuntimeError("down")})
    judge = LLMJudge(llm=llm, gold_judge=_judge())
    judgement = await judge.judge(_item(relevant=("d1",)), _data("d1"))
    assert judgement.hit is None and judgement.gold_hit is True
    await judge.judge(_item(relevant=("d1",)), _data("d1"))
    assert llm.count("answer") == 2
