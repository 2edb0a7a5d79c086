"""Keeps ``benchmarks/rank_report.py`` honest: hit@k from the records' rankings, and the seeded split."""

from __future__ import annotations

import json
from pathlib import Path

from benchmark_scripts import load_benchmark

from lightrag_resolve.eval import select_items


def load():
    return load_benchmark("rank_report")


def write(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """Items i0…i{count-1}, each with relevant document d<i>; raw finds it for even items only, resolve for all."""
    items = tmp_path / "turns.jsonl"
    items.write_text("".join(json.dumps({"id": f"i{n}", "relevant": [f"d{n}"]}) + "\n" for n in range(count)), "utf-8")
    records = []
    for n in range(count):
        raw = [f"d{n}", "x", "y"] if n % 2 == 0 else ["x", "y", "z", f"d{n}"]
        for arm, ranking in (("raw", raw), ("resolve", [f"d{n}", "x"])):
            records.append({"item": f"i{n}", "arm": arm, "run": 0, "turn_class": "follow_up", "retrieved": ranking})
    folder = tmp_path / "mtrag"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps({"header": {}, "records": records}), encoding="utf-8")
    return folder, items


def test_hit_at_k_reads_the_top_of_each_ranking(tmp_path):
    rank_report = load()
    folder, items = write(tmp_path, 4)
    table = rank_report.report(folder, items, 3, digits=3)
    assert "| follow_up | 4 | raw | 0.500 | 0/0 |" in table
    assert "| follow_up | 4 | resolve | 1.000 | 2/0 |" in table
    assert "| all | 4 | resolve | 1.000 | 2/0 |" in table


def test_the_seeded_split_is_the_harness_limit_and_its_complement(tmp_path, capsys):
    rank_report = load()
    folder, items = write(tmp_path, 10)
    chosen, rest = rank_report.seeded_split(folder, items, 4)
    assert chosen == list(select_items([f"i{n}" for n in range(10)], 4, 0))
    assert sorted(chosen + rest) == sorted(f"i{n}" for n in range(10)) and not set(chosen) & set(rest)
    only = rank_report.report(folder, items, 3, only=set(chosen))
    assert "| all | 4 | raw |" in only
    assert rank_report.main([str(folder), "--items", str(items), "--seeded-split", "4"]) == 0
    out = capsys.readouterr().out
    assert "## the seeded 4" in out and "## the other 6" in out and "## all 10" in out
    assert out.count("| all |") == 3 * 4  # raw, resolve and the two fusions, in each of the three tables


def test_by_resolution_groups_items_by_what_the_resolve_arm_did(tmp_path, capsys):
    rank_report = load()
    folder, items = write(tmp_path, 6)
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    done = [
        {"changed": False, "path": "reference"},
        {"changed": True, "path": "reference", "entity": "Pulse POS", "restatement": None},
        {"changed": True, "path": "reference", "restatement": "shops running Pulse POS"},
        {"changed": True, "path": "text"},
        {"changed": True, "path": "keywords", "carry_reason": "timeout", "fallback_reason": None},
        {"changed": True, "path": "text", "fallback_reason": "empty"},  # a record from before carry_reason
    ]
    for record in data["records"]:
        if record["arm"] == "resolve":
            record["resolution"] = done[int(record["item"][1:])]
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    table = rank_report.by_resolution(folder, items, 3, digits=1)
    assert "| unchanged | 1 | 1.0 | 1.0 | 0/0 |" in table  # i0: raw finds d0 first
    assert "| a name added | 1 | 0.0 | 1.0 | 1/0 |" in table  # i1: raw ranks d1 fourth
    assert "| a restatement added | 1 | 1.0 | 1.0 | 0/0 |" in table
    assert "| a short reply's meaning | 1 | 0.0 | 1.0 | 1/0 |" in table
    assert "| a short reply's question carried | 2 | 0.5 | 1.0 | 1/0 |" in table  # i4 (raw finds d4), i5
    assert rank_report.main([str(folder), "--items", str(items), "--by-resolution"]) == 0
    assert "## by what the resolution did" in capsys.readouterr().out
