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


def write_fixture(tmp_path: Path, rankings: dict[str, dict[str, list[list[str]]]], relevant: dict[str, list[str]]):
    """A hand-made results folder: per item, per arm, one ranking a run; every item a follow-up."""
    items = tmp_path / "turns.jsonl"
    items.write_text("".join(json.dumps({"id": i, "relevant": docs}) + "\n" for i, docs in relevant.items()), "utf-8")
    records = [
        {"item": item, "arm": arm, "run": run, "turn_class": "follow_up", "retrieved": ranking}
        for item, arms in rankings.items()
        for arm, runs in arms.items()
        for run, ranking in enumerate(runs)
    ]
    folder = tmp_path / "fixture"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps({"header": {}, "records": records}), encoding="utf-8")
    return folder, items


def test_relevant_lost_and_gained_sit_beside_hit_at_k(tmp_path):
    rank_report = load()
    # "price": raw has both price pages in its first 3; resolve keeps one (a hit all the same) in both runs.
    # "offer": raw ranks the offer fourth; resolve brings it first in run 1 only.
    folder, items = write_fixture(
        tmp_path,
        {
            "price": {"raw": [["p-pos", "p-go", "x"]] * 2, "resolve": [["p-pos", "x", "y", "p-go"]] * 2},
            "offer": {"raw": [["x", "y", "z", "offer"]] * 2, "resolve": [["x", "y", "z"], ["offer"]]},
        },
        {"price": ["p-pos", "p-go"], "offer": ["offer"]},
    )
    table = rank_report.report(folder, items, 3)
    assert "| class | n | arm | hit@3 | W/L vs raw | relevant lost / gained vs raw, first 3 |" in table
    assert "| follow_up | 2 | raw | 0.50 | 0/0 | – |" in table
    # lost 2 (p-go, both runs), gained 1 (offer, run 1): swapped, this would read "1 / 2".
    assert "| follow_up | 2 | resolve | 0.75 | 1/0 | 2 / 1 |" in table
    # fill puts raw's documents after resolve's short run-1 ranking: the offer stays gained, p-go still lost.
    assert "| follow_up | 2 | resolve+fill | 0.75 | 1/0 | 2 / 1 |" in table


def test_lost_and_gained_pair_runs_by_their_number(tmp_path):
    rank_report = load()
    folder, items = write_fixture(tmp_path, {"i": {"raw": [["d"], ["x"]], "resolve": [["x"], ["d"]]}}, {"i": ["d"]})
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    data["records"].reverse()  # the file's order is not the run's
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    assert "| follow_up | 1 | resolve | 0.50 | 0/0 | 1 / 1 |" in rank_report.report(folder, items, 3)


def test_against_lists_the_items_decided_or_hit_otherwise_paired_by_item(tmp_path, capsys):
    rank_report = load()
    for version in ("before", "after"):
        (tmp_path / version).mkdir()
    before, items = write(tmp_path / "before", 3)
    after, _ = write(tmp_path / "after", 3)
    data = json.loads((after / "results.json").read_text(encoding="utf-8"))
    for record in data["records"]:
        if record["arm"] == "resolve" and record["item"] == "i1":
            record["retrieved"] = ["x", "y", "z"]  # now a miss
        if record["arm"] == "resolve" and record["item"] == "i2":
            record["resolution"] = {"decision": "resolve", "entity": "Kadoro"}  # decided otherwise, still a hit
    (after / "results.json").write_text(json.dumps(data), encoding="utf-8")
    table = rank_report.against(before, after, items, 3)
    assert table.splitlines()[2:] == [
        "| i1 | follow_up | – | – | 1 → 0 |",
        "| i2 | follow_up | – | resolve Kadoro | 1 → 1 |",
    ]
    assert rank_report.main([str(after), "--items", str(items), "--against", str(before)]) == 0
    assert "## decided or hit otherwise than in" in capsys.readouterr().out
