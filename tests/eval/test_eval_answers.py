"""The answer step (``--answers``): the offline answer judge, each arm's answer, and the report's table.

The models are fakes: ``ScriptedLLM`` (named ``answering_llm`` here) writes an
answer that repeats the visitor's message and the context LightRAG gave it, so
an answer contains the fact exactly when its context did, and a test can read
which message the answer writer was handed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fakes import Call, ScriptedLLM
from tiny import ITEMS, scripted_llm, write_dataset

from lightrag_resolve import Resolution
from lightrag_resolve.eval import (
    AnswerSettings,
    EvalConfig,
    EvalOutcome,
    Experiment,
    GoldJudge,
    Item,
    ResultsMismatchError,
    contains_all,
    load_dataset,
    render_markdown,
    run_eval,
    write_answer,
)
from lightrag_resolve.eval._results import Record
from lightrag_resolve.eval._summary import summarize

FACTS = {"short-sante": ["Vitalis"], "ref-pulse": ["Maison Ferrand"], "short-b1": ["weekday evenings"]}
"""The tiny items given a fact to contain; ``follow-offices`` has one already, ``first`` none (never answered)."""


def _items() -> list[dict[str, Any]]:
    return [{**item, "must_contain": FACTS[item["id"]]} if item["id"] in FACTS else item for item in ITEMS]


def answering_llm() -> ScriptedLLM:
    """The tiny dataset's scripted LLM whose answer writer repeats the message it was handed and its context."""
    llm = scripted_llm()
    others = llm.replies["answer"]

    def answer(call: Call) -> Any:
        system = call.system_prompt or ""
        if "---Context---" not in system:
            return others(call)  # callable: the tiny script's rewriting arms and judge
        return f"You asked: {call.prompt}\n" + system.split("---Context---", 1)[1]

    llm.replies["answer"] = answer
    return llm


def _answer_calls(llm: ScriptedLLM) -> list[Call]:
    return [call for call in llm.calls if "---Context---" in (call.system_prompt or "")]


async def _run(folder: Path, out: Path, models: dict, workspace: str, **config: Any) -> EvalOutcome:
    return await run_eval(
        load_dataset(folder),
        out_dir=out,
        config=EvalConfig(resamples=200, **config),
        progress=False,
        workspace=workspace,
        **models,
    )


# ---- the judge -------------------------------------------------------------------


def test_an_answer_contains_the_fact_by_the_gold_judges_own_test() -> None:
    assert contains_all("Elle coûte **59 €**\npar  utilisateur", ["59 €", "PAR UTILISATEUR"])
    assert not contains_all("Elle coûte 59 €", ["59 €", "Croissance"])  # every string, not one
    assert not contains_all("Offre Sante", ["Santé"])  # accents are kept, as for the context
    assert not contains_all("anything", [])  # nothing to contain is not a hit


def test_the_gold_judge_records_whether_the_context_held_the_fact() -> None:
    judge = GoldJudge(documents_by_content={}, document_ids=frozenset({"doc-1"}), k=5)
    data = {"chunks": [{"content": "Helix has four offices: Lyon and Montréal.", "file_path": "doc-2"}]}
    found = Item(id="a", query="q", history=(), turn_class="first_turn", must_contain=("montréal",))
    missing = Item(id="b", query="q", history=(), turn_class="first_turn", must_contain=("Nantes",))
    by_document = Item(id="c", query="q", history=(), turn_class="first_turn", relevant=("doc-2",))
    assert judge.gold(found, data).contains is True
    assert judge.gold(missing, data).contains is False
    assert judge.gold(by_document, data).contains is None  # no must_contain: nothing to compare an answer with


# ---- the settings ------------------------------------------------------------------


def test_answer_settings_bound_the_answer_and_choose_the_classes() -> None:
    settings = AnswerSettings.for_classes("short_reply, reference", max_tokens=120)
    assert settings.turn_classes == ("short_reply", "reference") and settings.max_tokens == 120
    assert AnswerSettings.for_classes("all").turn_classes == ("first_turn", "short_reply", "follow_up", "reference")
    assert settings.role_llm_configs() == {"query": {"kwargs": {"max_tokens": 120}, "timeout": settings.timeout}}
    with pytest.raises(ValueError, match="turn_classes"):
        AnswerSettings.for_classes("shortreply")
    with pytest.raises(ValueError, match="max_total_tokens"):
        AnswerSettings(max_total_tokens=0)
    without_fact = Item(id="a", query="q", history=(), turn_class="reference", relevant=("doc",))
    with_fact = Item(id="b", query="q", history=(), turn_class="reference", must_contain=("x",))
    other_class = Item(id="c", query="q", history=(), turn_class="first_turn", must_contain=("x",))
    assert [settings.applies_to(item) for item in (without_fact, with_fact, other_class)] == [False, True, False]


# ---- one answer, with a fake LightRAG ---------------------------------------------------


@dataclass
class FakeAnsweringRAG:
    """A fake ``ResolvingLightRAG`` whose ``aanswer`` returns ``result`` (or raises it) and records its calls."""

    result: Any
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def aanswer(self, query: str, param: Any, **kwargs: Any) -> Any:
        self.calls.append({"query": query, **kwargs})
        if isinstance(self.result, BaseException):
            raise self.result

        @dataclass
        class Answered:
            result: Any

        return Answered(self.result)


ITEM = Item(id="i", query="Santé", history=(), turn_class="short_reply", must_contain=("Vitalis",))
ANSWERED = {
    "data": {"chunks": [{"content": "Offre Santé: le module Vitalis."}]},
    "llm_response": {"content": "Helix propose **Vitalis**.", "is_streaming": False},
}


async def test_an_answer_is_judged_against_the_fact_and_its_context() -> None:
    rag = FakeAnsweringRAG(ANSWERED)
    outcome = await write_answer(rag, ITEM, text="Santé", param=object(), resolve=False, resolution=None)
    assert (outcome.text, outcome.hit, outcome.contains, outcome.error) == (
        "Helix propose **Vitalis**.",
        True,
        True,
        None,
    )
    assert rag.calls == [{"query": "Santé", "resolve": False}]
    vague = FakeAnsweringRAG({**ANSWERED, "llm_response": {"content": "Nous avons une offre santé."}})
    outcome = await write_answer(vague, ITEM, text="Santé", param=object(), resolve=False, resolution=None)
    assert (outcome.hit, outcome.contains) == (False, True)  # the context held it; the answer left it out


async def test_the_resolving_arm_answers_on_the_resolution_it_retrieved_with() -> None:
    resolution = Resolution(original_query="Santé", query="Santé — Which sector?", path="text", mode="mix")
    rag = FakeAnsweringRAG(ANSWERED)
    await write_answer(rag, ITEM, text="Santé", param=object(), resolve=True, resolution=resolution)
    assert rag.calls == [{"query": "Santé", "resolution": resolution}]
    # Its retrieval failed: no second resolution, no answer.
    outcome = await write_answer(rag, ITEM, text="Santé", param=object(), resolve=True, resolution=None)
    assert outcome.error is not None and "retrieval failed" in outcome.error and len(rag.calls) == 1


async def test_a_refused_or_empty_answer_is_a_miss_with_its_reason() -> None:
    refused = await write_answer(
        FakeAnsweringRAG(ValueError("RAG query is too short")),
        ITEM,
        text="B1",
        param=object(),
        resolve=False,
        resolution=None,
    )
    assert (refused.text, refused.hit, refused.error) == (None, False, "ValueError: RAG query is too short")
    failed = {"status": "failure", "message": "Query failed: boom", "data": {}, "llm_response": {"content": None}}
    empty = await write_answer(
        FakeAnsweringRAG(failed), ITEM, text="Santé", param=object(), resolve=False, resolution=None
    )
    assert (empty.hit, empty.contains, empty.error) == (False, None, "Query failed: boom")


# ---- the answer step end to end: the tiny dataset on a real LightRAG --------------------


async def test_each_arm_answers_the_turns_with_a_fact_and_the_report_pairs_them(
    tmp_path: Path, models: dict, workspace: str
) -> None:
    folder = write_dataset(tmp_path / "tiny", items=_items())
    llm = answering_llm()
    settings = AnswerSettings(max_tokens=77)
    outcome = await _run(
        folder, tmp_path / "out", {**models, "llm": llm}, workspace, runs=2, arms=("raw", "resolve"), answers=settings
    )
    records = {(r.item, r.arm, r.run): r for r in outcome.records}
    assert not records[("first", "raw", 0)].answered  # no must_contain: not answered
    # The answer writer reads the visitor's words, with the context of the resolved text (contract §5.11).
    ref = records[("ref-pulse", "resolve", 0)]
    assert ref.resolution is not None and ref.resolution["changed"]
    assert ref.answer is not None and ref.answer.startswith("You asked: Which retailers already run it?\n")
    assert ref.answer_hit and ref.answer_contains and ref.contains
    assert ref.answer_calls >= 1 and ref.answer_prompt_tokens > 0 and ref.answer_ms > 0
    # "B1" is too short for LightRAG: raw has no answer, resolved it has one.
    assert records[("short-b1", "raw", 0)].answer_error and not records[("short-b1", "raw", 0)].answer_hit
    assert records[("short-b1", "resolve", 0)].answer_hit
    # Every answer call was bounded by the query role's max_tokens, and none was streamed.
    calls = _answer_calls(llm)
    assert calls and all(call.kwargs.get("max_tokens") == 77 and not call.kwargs.get("stream") for call in calls)
    # The retrieval's costs are the retrieval's: the answer is charged apart.
    assert records[("follow-offices", "raw", 0)].llm_calls == records[("first", "raw", 0)].llm_calls

    short = outcome.summary.answer_row("resolve", "short_reply")
    assert short is not None and short.versus_raw is not None and short.versus_raw.wins == 1
    assert short.run_hit_rates == (1.0, 1.0) and short.context_rate == 1.0
    assert outcome.summary.answer_row("raw", "first_turn") is None
    report = outcome.report_path.read_text(encoding="utf-8")
    assert "## Answers: does the answer contain the needed fact?" in report
    assert "`max_total_tokens` 2000" in report and "at most 77 tokens" in report
    saved = json.loads(outcome.results_path.read_text(encoding="utf-8"))
    assert saved["header"]["answers"] == settings.header()


async def test_the_old_behaviour_answers_on_the_retrieved_text(tmp_path: Path, models: dict, workspace: str) -> None:
    folder = write_dataset(tmp_path / "tiny", items=_items())
    llm = answering_llm()
    outcome = await _run(
        folder,
        tmp_path / "out",
        {**models, "llm": llm},
        workspace,
        runs=1,
        arms=("raw", "resolve"),
        answers=AnswerSettings(),
        tuning=Experiment(answer_on_resolved_text=True),
    )
    ref = next(r for r in outcome.records if (r.item, r.arm) == ("ref-pulse", "resolve"))
    assert ref.resolution is not None
    assert ref.answer is not None and ref.answer.startswith(f"You asked: {ref.resolution['query']}\n")
    saved = json.loads(outcome.results_path.read_text(encoding="utf-8"))
    assert saved["header"]["settings"]["resolver"]["answer_on_resolved_text"] is True


async def test_a_folder_without_answers_resumes_by_answering_its_turns(
    tmp_path: Path, models: dict, workspace: str
) -> None:
    folder = write_dataset(tmp_path / "tiny", items=_items())
    out = tmp_path / "out"
    models = {**models, "llm": answering_llm()}
    first = await _run(folder, out, models, workspace, runs=1, arms=("raw", "resolve"))
    assert first.ran == 10 and not any(r.answered for r in first.records)
    answered = await _run(
        folder,
        out,
        models,
        workspace,
        runs=1,
        arms=("raw", "resolve"),
        answers=AnswerSettings(turn_classes=("reference", "short_reply")),
    )
    # ref-pulse, short-sante and short-b1, in both arms, run again to be answered; the rest is kept.
    assert (answered.ran, answered.skipped) == (6, 4)
    assert {(r.item, r.arm) for r in answered.records if r.answered} == {
        (item, arm) for item in ("ref-pulse", "short-sante", "short-b1") for arm in ("raw", "resolve")
    }
    again = await _run(
        folder,
        out,
        models,
        workspace,
        runs=1,
        arms=("raw", "resolve"),
        answers=AnswerSettings(turn_classes=("reference", "short_reply")),
    )
    assert again.ran == 0
    retrieval_only = await _run(folder, out, models, workspace, runs=1, arms=("raw", "resolve"))
    assert retrieval_only.ran == 0 and retrieval_only.summary.answers  # the answers stay, and are reported
    with pytest.raises(ResultsMismatchError, match="answers"):
        await _run(
            folder, out, models, workspace, runs=1, arms=("raw", "resolve"), answers=AnswerSettings(max_tokens=50)
        )


# ---- the report ------------------------------------------------------------------------


def _record(item: str, arm: str, run: int, *, hit: bool, contains: bool = True, error: str | None = None) -> Record:
    return Record(
        item=item,
        arm=arm,
        run=run,
        turn_class="reference",
        mode="mix",
        lang="en",
        text="q",
        outcome="raw",
        hit=True,
        gold_hit=True,
        retrieved=[],
        contains=contains,
        answer=None if error else ("fact" if hit else "no"),
        answer_hit=hit,
        answer_contains=contains,
        answer_error=error,
        answer_ms=2000.0,
        answer_prompt_tokens=1500,
        answer_calls=1,
    )


def test_the_report_pairs_answers_with_raw_beside_the_context_rates() -> None:
    items = [
        Item(id=name, query="q", history=(), turn_class="reference", must_contain=("fact",)) for name in ("a", "b", "c")
    ]
    records = [
        *(_record(name, "raw", run, hit=name == "a") for name in ("a", "b") for run in (0, 1)),
        _record("c", "raw", 0, hit=False, error="RAGQueryTooShortError: too short"),
        _record("c", "raw", 1, hit=False, error="RAGQueryTooShortError: too short"),
        *(_record(name, "resolve", run, hit=name != "a" or run == 0) for name in ("a", "b", "c") for run in (0, 1)),
    ]
    summary = summarize(records, items, ["raw", "resolve"], runs=2, resamples=200)
    row = summary.answer_row("resolve", "reference")
    assert row is not None and row.versus_raw is not None
    assert (row.versus_raw.wins, row.versus_raw.losses, row.versus_raw.ties) == (2, 1, 0)
    assert row.hit_rate == pytest.approx((0.5 + 1 + 1) / 3) and row.run_hit_rates == (1.0, pytest.approx(2 / 3))
    assert summary.answer_row("raw", "reference").errors == 2  # type: ignore[union-attr]
    header = {"dataset_name": "t", "answers": AnswerSettings().header(), "settings": {}}
    report = render_markdown(summary, header)
    line = next(text for text in report.splitlines() if text.startswith("| reference | resolve |"))
    assert "| 3 | 0.83 (0.67–1.00) |" in line and "| 2/1/0 |" in line and "| 1.00 | 1.00 | 2.0 | 1500 | 0 |" in line
