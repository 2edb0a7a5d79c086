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
MODES = ("mix", "naive")
SYSTEMS = ("plain", "library", "serial")

# LLM calls one turn starts with retrieval only (aquery_data); aquery adds the answer call.
DESIGNED_CALLS = {
    "mix": {
        "plain": {"first turn": 1, "short reply": 1, "stands alone": 1, "KEEP": 1, "AMBIGUOUS": 1, "RESOLVE": 1},
        # the resolver's call replaces LightRAG's keyword call; so does the check's one call, whose answer
        # holds the keywords, on a follow-up that points back
        "library": {"first turn": 1, "short reply": 1, "stands alone": 1, "KEEP": 1, "AMBIGUOUS": 1, "RESOLVE": 1},
        # one rewrite before every follow-up of at most 12 words
        "serial": {"first turn": 1, "short reply": 2, "stands alone": 2, "KEEP": 2, "AMBIGUOUS": 2, "RESOLVE": 2},
    },
    "naive": {
        # LightRAG's naive search asks no model before it searches
        "plain": {"first turn": 0, "short reply": 0, "stands alone": 0, "KEEP": 0, "AMBIGUOUS": 0, "RESOLVE": 0},
        # a short reply's text call; the check beside the speculative search on a follow-up that points back
        "library": {"first turn": 0, "short reply": 1, "stands alone": 0, "KEEP": 1, "AMBIGUOUS": 1, "RESOLVE": 1},
        "serial": {"first turn": 0, "short reply": 1, "stands alone": 1, "KEEP": 1, "AMBIGUOUS": 1, "RESOLVE": 1},
    },
}


@pytest.fixture(scope="module")
def latency():
    sys.path.insert(0, str(BENCHMARK.parent))  # latency.py imports its siblings (latency_systems, latency_measure, …)
    spec = importlib.util.spec_from_file_location("latency_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)
    for sibling in ("latency_systems", "latency_measure", "latency_checks", "latency_report"):
        sys.modules.pop(sibling, None)
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


def _rows(text: str) -> dict[tuple[str, str, str, str], list[str]]:
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] in MODES and len(cells) == 13:  # the table of every cell
            rows[(cells[0], cells[1], cells[2], cells[3])] = cells
    return rows


def test_the_run_passes_its_own_call_count_checks(printed):
    code, text = printed
    assert code == 0, text
    assert "- [ ]" not in text


def test_the_header_names_the_llm_as_simulated(printed):
    _, text = printed
    assert "Simulated LLM (sleep-based)" in text
    assert "not a real model" in text


def test_the_table_has_a_row_per_mode_api_turn_class_and_system(printed):
    _, text = printed
    rows = _rows(text)
    expected = {
        (mode, api, turn, system)
        for mode in MODES
        for api in ("aquery", "aquery_data")
        for turn in TURN_CLASSES
        for system in SYSTEMS
    }
    assert set(rows) == expected


def test_llm_calls_per_turn_class_are_as_designed(printed):
    _, text = printed
    rows = _rows(text)
    for (mode, api, turn, system), cells in rows.items():
        designed = DESIGNED_CALLS[mode][system][turn] + (1 if api == "aquery" else 0)
        assert int(cells[8]) == designed, (mode, api, turn, system, cells)


def test_a_checked_follow_up_costs_the_one_check_call_and_one_answer(printed):
    _, text = printed
    rows = _rows(text)
    for mode in MODES:
        for turn in ("KEEP", "AMBIGUOUS", "RESOLVE"):
            assert "answer 1" in rows[(mode, "aquery", turn, "library")][12]
            for api in ("aquery", "aquery_data"):
                roles = rows[(mode, api, turn, "library")][12]
                assert "reference 1" in roles
                assert "lightrag_keywords" not in roles  # in mix, the check's keywords replace LightRAG's
        for api in ("aquery", "aquery_data"):
            assert rows[(mode, api, "KEEP", "library")][10] == "1"
            assert rows[(mode, api, "AMBIGUOUS", "library")][10] == ("1" if mode == "mix" else "2")
    assert "lightrag_keywords" not in rows[("mix", "aquery_data", "short reply", "library")][12]


def test_the_targets_of_issue_29_are_printed_with_a_verdict_per_cell(printed):
    _, text = printed
    assert "## Issue 29's targets" in text
    for mode in MODES:
        for api in ("aquery", "aquery_data"):
            assert f"- {mode} · {api}: every class ≤ 1.05× plain:" in text


def test_the_token_budget_of_issue_42_is_printed_per_class_in_graph_modes(printed):
    """Prompt and answer tokens of the library's one call beside LightRAG's extraction, with a verdict."""
    _, text = printed
    section = text.split("## Token budget (issue 42)", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| mix · ")]
    assert [row.split("|")[1].strip() for row in rows] == [
        f"mix · {turn}" for turn in ("short reply", "stands alone", "KEEP", "AMBIGUOUS", "RESOLVE")
    ]  # the first turn makes no call of the library's own; naive has no extraction to hold to
    assert "naive · " not in section
    assert "- every class's answer ≤ plain's extraction: " in section


def test_modes_are_chosen_on_the_command_line(latency):
    assert latency.parse_args(["--modes", "naive"]).modes == ("naive",)
    assert latency.parse_args([]).modes == ("mix", "naive")
    assert latency.parse_args(["--local"]).modes == ("mix",)
    with pytest.raises(SystemExit):
        latency.parse_args(["--modes", "global"])


def test_naive_checked_classes_are_held_against_the_serial_rewrite(printed):
    """Issue 42's `naive` target: each checked class's median beside the serial rewrite's, its ratio and a verdict."""
    _, text = printed
    section = text.split("## `naive`: the check beside the search against a serial rewrite", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[0]: cells[1:]
        for line in section.splitlines()
        if line.startswith("| aquery") and (cells := [c.strip() for c in line.strip("|").split("|")])
    }
    assert sorted(rows) == sorted(
        f"{api} · {turn}" for api in ("aquery", "aquery_data") for turn in ("KEEP", "AMBIGUOUS", "RESOLVE")
    )
    for library, serial, ratio, _, verdict in rows.values():
        assert float(ratio) == pytest.approx(float(library) / float(serial), rel=0.05)  # ms printed rounded
        assert verdict in ("met", "**missed**")
    assert "- every checked class ≤ 1.05× the serial rewrite: " in section


def test_the_local_run_times_the_serial_rewrite_only_when_asked(latency):
    assert latency.parse_args(["--local"]).systems == ("plain", "library")
    assert latency.parse_args(["--local", "--serial", "--modes", "naive"]).systems == ("plain", "library", "serial")


def test_the_stock_sampler_is_a_local_comparison_only(latency):
    assert latency.parse_args(["--local"]).stock_sampler is False
    assert latency.parse_args(["--local", "--stock-sampler"]).stock_sampler is True
    with pytest.raises(SystemExit):
        latency.parse_args(["--stock-sampler"])  # the simulation has no sampler
