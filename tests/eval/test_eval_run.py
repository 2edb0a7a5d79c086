"""End to end: the tiny dataset on a real LightRAG, with the scripted LLM and the lexical embedding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny import B1_CONTEXT, write_dataset

from lightrag_resolve.eval import EvalConfig, EvalOutcome, ResultsMismatchError, load_dataset, run_eval, select_items


async def _run(folder: Path, out: Path, models: dict, workspace: str, **config: object) -> EvalOutcome:
    judge_llm = models["llm"] if config.get("judge") == "llm" else None
    return await run_eval(
        load_dataset(folder), out_dir=out, config=EvalConfig(resamples=500, **config), judge_llm=judge_llm,
        progress=False, workspace=workspace, **models,
    )


def _by_key(outcome: EvalOutcome) -> dict:
    return {(r.item, r.arm, r.run): r for r in outcome.records}


async def test_every_arm_runs_paired_and_the_report_is_written(
    tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str
) -> None:
    outcome = await _run(tiny_dataset, tmp_path / "out", models, workspace)
    records = _by_key(outcome)
    # 5 items × 4 arms + 3 items with a rewrite (oracle), twice.
    assert outcome.ran == len(records) == 2 * (5 * 4 + 3)
    assert outcome.report_path.read_text(encoding="utf-8").startswith("# Retrieval evaluation: tiny")
    assert outcome.chart_path.read_bytes()[:4] == b"\x89PNG"
    saved = json.loads(outcome.results_path.read_text(encoding="utf-8"))
    assert len(saved["records"]) == len(records)

    # "B1" is too short for LightRAG: the raw arm misses; resolved, it reaches retrieval.
    raw_b1, resolved_b1 = records[("short-b1", "raw", 0)], records[("short-b1", "resolve", 0)]
    assert raw_b1.error and "TooShort" in raw_b1.error and raw_b1.hit is False
    assert resolved_b1.hit and resolved_b1.error is None
    assert resolved_b1.resolution["path"] == "text"
    # "B1" picks an option of the question: the option is its meaning, with no model call (contract §5.1).
    assert resolved_b1.resolution["query"] == f"B1 — {B1_CONTEXT}" and resolved_b1.llm_calls == 0

    # The text arms searched with their own text, resolver off.
    assert records[("ref-pulse", "anythingllm", 0)].text == "Retailers running Pulse POS loyalty terminal"
    assert records[("follow-offices", "anythingllm", 0)].outcome == "unchanged"
    assert records[("ref-pulse", "prose", 0)].text == "Which retailers already run Pulse POS?"
    assert records[("ref-pulse", "oracle", 0)].text == "Which retailers already run Pulse POS?"
    assert ("first", "oracle", 0) not in records

    # The reference check against expect.
    assert records[("ref-pulse", "resolve", 0)].decision_correct is True
    assert records[("follow-offices", "resolve", 0)].decision_correct is True
    assert records[("ref-pulse", "raw", 0)].decision_correct is None

    # LLM work is charged per turn: a first turn costs the prose arm nothing more than raw.
    assert records[("first", "prose", 0)].llm_calls == records[("first", "raw", 0)].llm_calls
    assert records[("ref-pulse", "anythingllm", 0)].llm_calls == records[("ref-pulse", "raw", 0)].llm_calls + 1
    assert records[("short-b1", "raw", 0)].llm_calls == 0  # naive mode: no keyword extraction
    assert records[("ref-pulse", "resolve", 0)].prompt_tokens > 0

    short = outcome.summary.row("resolve", "short_reply")
    assert short is not None and short.hit_rate == 1.0 and short.versus_raw is not None
    assert short.versus_raw.wins == 1  # short-b1: raw missed, resolve hit


async def test_an_interrupted_run_resumes_and_more_runs_extend_it(
    tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str
) -> None:
    first = await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw", "resolve"))
    assert first.ran == 10
    again = await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw", "resolve"))
    assert (again.ran, again.skipped) == (0, 10)
    more = await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=2, arms=("raw", "resolve", "oracle"))
    # run 0 gains its 3 oracle turns; run 1 is new: 5 raw, 5 resolve, 3 oracle.
    assert (more.ran, more.skipped) == (3 + 13, 10)
    with pytest.raises(ResultsMismatchError, match="judge"):
        await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, judge="llm")


async def test_passages_are_searched_in_naive_mode(tmp_path: Path, models: dict, workspace: str) -> None:
    folder = write_dataset(tmp_path / "passages", passages=True)
    outcome = await _run(folder, tmp_path / "out", models, workspace, runs=1, arms=("raw", "resolve"))
    assert {r.mode for r in outcome.records} == {"naive"}
    assert all(r.llm_calls == 0 for r in outcome.records if r.arm == "raw")
    assert outcome.summary.row("resolve", "all").hit_rate >= outcome.summary.row("raw", "all").hit_rate  # type: ignore[union-attr]


async def test_the_llm_judge_decides_hits(tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str) -> None:
    outcome = await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw",), judge="llm")
    verdicts = {r.item: (r.hit, r.verdict) for r in outcome.records}
    assert verdicts["short-b1"] == (False, "NO")  # nothing retrieved
    assert verdicts["first"] == (True, "YES")


def test_limit_takes_a_seeded_sample_in_file_order(tiny_dataset: Path) -> None:
    items = load_dataset(tiny_dataset).items
    chosen = select_items(items, 3, seed=0)
    assert len(chosen) == 3 and chosen == select_items(items, 3, seed=0)
    assert [items.index(item) for item in chosen] == sorted(items.index(item) for item in chosen)
    assert select_items(items, None, seed=0) == items


def test_config_is_checked_before_anything_runs() -> None:
    with pytest.raises(ValueError, match="unknown arm"):
        EvalConfig(arms=("raw", "magic"))
    with pytest.raises(ValueError, match="runs"):
        EvalConfig(runs=0)


async def test_each_company_gets_its_resolver_over_the_same_knowledge(
    tmp_path: Path, models: dict, workspace: str
) -> None:
    from tiny import ITEMS

    b1 = next(item for item in ITEMS if item["id"] == "short-b1")
    items = [{**b1, "id": "helix", "company_name": "Helix"}, {**b1, "id": "acme", "company_name": "Acme"}, b1]
    folder = write_dataset(tmp_path / "companies", items=items)
    outcome = await _run(folder, tmp_path / "out", models, workspace, runs=1, arms=("raw", "resolve"))
    queries = {r.item: r.resolution["query"] for r in outcome.records if r.arm == "resolve"}
    # Each item's own company joins the picked option (contract §5.1).
    assert queries == {"helix": f"B1 Helix — {B1_CONTEXT}",
                       "acme": f"B1 Acme — {B1_CONTEXT}",
                       "short-b1": f"B1 — {B1_CONTEXT}"}
    assert all(r.hit for r in outcome.records if r.arm == "resolve")
