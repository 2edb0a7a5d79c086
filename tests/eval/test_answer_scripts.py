"""``benchmarks/answer_report.py`` and ``benchmarks/probes/answer_side_by_side.py`` on a fake results file.

The results file is written here by hand (a fake of what ``--answers`` records),
so the tables, the pairing across two runs and the blind key are checked
without any model.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_scripts import BENCHMARKS, load_benchmark


def _probe() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "answer_side_by_side", BENCHMARKS / "probes" / "answer_side_by_side.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["answer_side_by_side"] = module
    spec.loader.exec_module(module)
    return module


def _record(
    item: str,
    arm: str,
    run: int,
    hit: bool,
    *,
    changed: bool = True,
    answer: str | None = None,
    turn_class: str = "short_reply",
) -> dict[str, Any]:
    resolution = {"changed": changed, "query": f"{item} — resolved"} if arm == "resolve" else None
    side = "one side's" if arm == "raw" else "the other side's"
    text = answer if answer is not None else (f"{side} answer to {item}" + (" with the fact" if hit else ""))
    return {
        "item": item,
        "arm": arm,
        "run": run,
        "turn_class": turn_class,
        "text": item,
        "resolution": resolution,
        "contains": True,
        "answer": text,
        "answer_hit": hit,
        "answer_contains": hit,
        "answer_error": None,
    }


def _folder(root: Path, records: list[dict[str, Any]]) -> Path:
    root.mkdir(parents=True)
    (root / "results.json").write_text(json.dumps({"header": {}, "records": records}), encoding="utf-8")
    return root


def _items(path: Path, ids: list[str], keep: tuple[str, ...] = ()) -> Path:
    rows = [
        {
            "id": item,
            "query": f"words of {item}",
            "must_contain": ["fact"],
            "history": [{"role": "assistant", "content": "Which one?"}],
            **({"expect": {"decision": "keep", "entity": None}} if item in keep else {}),
        }
        for item in ids
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


RECORDS = [
    # s1: resolve wins both runs; s2: resolve loses run 1; k1: unchanged, tie; s3: raw refused (no answer).
    *(_record("s1", arm, run, arm == "resolve") for arm in ("raw", "resolve") for run in (0, 1)),
    *(_record("s2", "raw", run, True) for run in (0, 1)),
    _record("s2", "resolve", 0, True),
    _record("s2", "resolve", 1, False),
    *(
        _record("k1", arm, run, True, changed=False, turn_class="follow_up")
        for arm in ("raw", "resolve")
        for run in (0, 1)
    ),
    *({**_record("s3", "raw", run, False), "answer": None, "answer_error": "RAGQueryTooShortError"} for run in (0, 1)),
    *(_record("s3", "resolve", run, True) for run in (0, 1)),
    {"item": "x", "arm": "raw", "run": 0, "turn_class": "first_turn", "text": "x"},  # not answered
]


def test_the_split_table_pairs_resolve_with_raw_by_what_the_resolution_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path / "run", RECORDS)
    items = _items(tmp_path / "items.jsonl", ["s1", "s2", "s3", "k1", "x"], keep=("k1",))
    assert load_benchmark("answer_report").main([str(folder), "--items", str(items), "--losses"]) == 0
    out = capsys.readouterr().out
    assert "| short_reply, changed | 3 | 0.33 | 0.83 | 2/1/0 |" in out
    assert "| keep-type (expect keep) | 1 | 1.00 | 1.00 | 0/0/1 |" in out
    assert "| follow_up, unchanged | 1 |" in out and "first_turn" not in out
    assert "- `s2` (short_reply)" in out and "resolve (0.5)" in out  # the one loss, quoted


def test_two_runs_are_paired_on_the_changed_turns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path / "new", RECORDS)
    old = [
        dict(record, answer_hit=False, answer="old")
        if record["item"] == "s1" and record["arm"] == "resolve"
        else record
        for record in RECORDS
    ]
    other = _folder(tmp_path / "old", old)
    items = _items(tmp_path / "items.jsonl", ["s1", "s2", "s3", "k1", "x"])
    code = load_benchmark("answer_report").main(
        [str(folder), "--items", str(items), "--against", str(other), "--against-label", "resolved text", "--losses"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "| changed turns | n | this run | resolved text | W/L/T (this run) | identical answers |" in out
    assert "| short_reply | 3 | 0.83 | 0.50 | 1/0/2 | 2 |" in out
    assert "resolved text (0.0): old" in out


def test_the_blind_pairs_hide_the_sides_and_the_key_unblinds_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    probe = _probe()
    folder = _folder(tmp_path / "run", RECORDS)
    items = _items(tmp_path / "items.jsonl", ["s1", "s2", "s3", "k1", "x"])
    key = probe.write(folder, items, tmp_path / "blind", pairs=20, seed=3)
    assert sorted(entry["item"] for entry in key.values()) == ["s1", "s2"]  # changed, both sides answered
    assert key == probe.write(folder, items, tmp_path / "again", pairs=20, seed=3)  # the seed fixes it
    pairs = (tmp_path / "blind" / "pairs.md").read_text(encoding="utf-8")
    assert "raw" not in pairs.lower().replace("draw", "") and "resolve" not in pairs.lower()
    assert "(1 more had an answer on one side only" in pairs and "> **Visitor:** words of s1" in pairs
    assert json.loads((tmp_path / "blind" / "key.json").read_text(encoding="utf-8")) == key

    verdicts = tmp_path / "blind" / "verdicts.md"
    verdicts.write_text("# my read\n1: A — names the fact\n- 2: same — both vague\n", encoding="utf-8")
    assert probe.main(["tally", str(verdicts), str(tmp_path / "blind" / "key.json")]) == 0
    out = capsys.readouterr().out
    first = key["1"]["A"]
    assert f"{first} better 1" in out and "same 1" in out
    assert f"- pair 1 `{key['1']['item']}`: {first} — names the fact" in out
    verdicts.write_text("1: A — only one\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="verdicts for pairs"):
        probe.main(["tally", str(verdicts), str(tmp_path / "blind" / "key.json")])


def test_the_blind_pairs_can_set_another_runs_resolve_answers_against_this_runs(tmp_path: Path) -> None:
    probe = _probe()
    folder = _folder(tmp_path / "new", RECORDS)
    other_records = [
        dict(record, answer=f"resolved-text answer to {record['item']}") if record["arm"] == "resolve" else record
        for record in RECORDS
    ]
    other = _folder(tmp_path / "old", other_records)
    items = _items(tmp_path / "items.jsonl", ["s1", "s2", "s3", "k1", "x"])
    key = probe.write(folder, items, tmp_path / "blind", pairs=20, seed=3, other=other)
    assert sorted(entry["item"] for entry in key.values()) == ["s1", "s2", "s3"]  # raw's refusal of s3 is not a side
    assert all({entry["A"], entry["B"]} == {"resolve", "against"} for entry in key.values())
    pairs = (tmp_path / "blind" / "pairs.md").read_text(encoding="utf-8")
    assert "resolved-text answer to s1" in pairs and "one side's answer" not in pairs
    assert "changed in both runs" in pairs
