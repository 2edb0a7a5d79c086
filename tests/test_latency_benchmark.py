"""Keeps ``benchmarks/latency.py`` from rotting: a tiny run, no timing assertions.

The run uses millisecond delays and one repetition; what is asserted is the
report's shape and the LLM work per turn class, which the design fixes.
"""

from __future__ import annotations

import importlib.util
import sys
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "latency.py"

TURN_CLASSES = ("first turn", "short reply", "stands alone", "KEEP", "AMBIGUOUS", "RESOLVE")

# LLM calls one turn starts with retrieval only (aquery_data); aquery adds the answer call.
DESIGNED_CALLS = {
    "plain": {"first turn": 1, "short reply": 1, "stands alone": 1, "KEEP": 1, "AMBIGUOUS": 1, "RESOLVE": 1},
    # the resolver replaces LightRAG's keyword call; the check runs beside it, except on a follow-up that
    # points at nothing; RESOLVE reuses its keywords; AMBIGUOUS is restated, then reuses them too
    "library": {"first turn": 1, "short reply": 1, "stands alone": 1, "KEEP": 2, "AMBIGUOUS": 3, "RESOLVE": 2},
    # one rewrite before every follow-up of at most 12 words
    "serial": {"first turn": 1, "short reply": 2, "stands alone": 2, "KEEP": 2, "AMBIGUOUS": 2, "RESOLVE": 2},
}


@pytest.fixture(scope="module")
def latency():
    sys.path.insert(0, str(BENCHMARK.parent))  # latency.py imports its sibling, latency_systems
    spec = importlib.util.spec_from_file_location("latency_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)
    sys.modules.pop("latency_systems", None)
    sys.path.remove(str(BENCHMARK.parent))


@pytest.fixture(scope="module")
def printed(latency):
    argv = [
        "--keyword-ms",
        "20",
        "--resolver-ms",
        "10",
        "--reference-ms",
        "15",
        "--answer-ms",
        "30",
        "--retrieval-ms",
        "5",
        "--repetitions",
        "1",
    ]
    out = StringIO()
    with redirect_stdout(out):
        code = latency.main(argv)
    return code, out.getvalue()


def _rows(text: str) -> dict[tuple[str, str, str], list[str]]:
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| aquery") and len(cells) == 12:  # the table of every cell
            rows[(cells[0], cells[1], cells[2])] = cells
    return rows


def test_the_run_passes_its_own_call_count_checks(printed):
    code, text = printed
    assert code == 0, text
    assert "- [ ]" not in text


def test_the_header_names_the_llm_as_simulated(printed):
    _, text = printed
    assert "Simulated LLM (sleep-based)" in text
    assert "not a real model" in text


def test_the_table_has_a_row_per_api_turn_class_and_system(printed):
    _, text = printed
    rows = _rows(text)
    expected = {
        (api, turn, system) for api in ("aquery", "aquery_data") for turn in TURN_CLASSES for system in DESIGNED_CALLS
    }
    assert set(rows) == expected


def test_llm_calls_per_turn_class_are_as_designed(printed):
    _, text = printed
    rows = _rows(text)
    for (api, turn, system), cells in rows.items():
        designed = DESIGNED_CALLS[system][turn] + (1 if api == "aquery" else 0)
        assert int(cells[7]) == designed, (api, turn, system, cells)


def test_resolve_writes_one_answer_and_keep_retrieves_once(printed):
    _, text = printed
    rows = _rows(text)
    assert "answer 1" in rows[("aquery", "RESOLVE", "library")][11]
    assert "answer 1" in rows[("aquery", "AMBIGUOUS", "library")][11]
    for api in ("aquery", "aquery_data"):
        assert rows[(api, "KEEP", "library")][9] == "1"
        assert "restatement 1" in rows[(api, "AMBIGUOUS", "library")][11]
    assert "lightrag_keywords" not in rows[("aquery_data", "short reply", "library")][11]
