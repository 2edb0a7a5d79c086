"""Keeps ``benchmarks/reuse_eval.py`` honest: what it copies, drops and takes from a third folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmark_scripts import load_benchmark


def load():
    return load_benchmark("reuse_eval")


def folder(root: Path, arms: dict[str, str]) -> Path:
    """An evaluation folder with one dataset: a corpus, a replay file and one record per arm."""
    dataset = root / "sample"
    (dataset / "lightrag").mkdir(parents=True)
    (dataset / "lightrag" / "vdb.json").write_text("{}", encoding="utf-8")
    (dataset / "llm-replay.jsonl").write_text('["key", "answer"]\n', encoding="utf-8")
    records = [{"item": "a", "arm": arm, "run": 0, "text": text} for arm, text in arms.items()]
    header = {"dataset_name": "sample", "settings": {"resolver": {"restate_references": True}}}
    (dataset / "results.json").write_text(json.dumps({"header": header, "records": records}), encoding="utf-8")
    return root


def test_the_rerun_arms_are_dropped_and_the_rest_copied(tmp_path):
    reuse_eval = load()
    source = folder(tmp_path / "old", {"raw": "r", "resolve": "old resolve", "prose": "p"})
    kept = reuse_eval.reuse(source, tmp_path / "new", rerun=["resolve"])
    assert kept == {"sample": 2}
    data = json.loads((tmp_path / "new" / "sample" / "results.json").read_text(encoding="utf-8"))
    assert sorted(r["arm"] for r in data["records"]) == ["prose", "raw"]
    assert data["header"]["settings"]["resolver"] == {"restate_references": True}  # copied as it is
    assert (tmp_path / "new" / "sample" / "lightrag" / "vdb.json").is_file()
    assert (tmp_path / "new" / "sample" / "llm-replay.jsonl").read_text(encoding="utf-8") == '["key", "answer"]\n'
    source_records = json.loads((source / "sample" / "results.json").read_text(encoding="utf-8"))["records"]
    assert len(source_records) == 3  # the earlier folder is left as it was


def test_arms_can_come_from_a_third_folder(tmp_path):
    reuse_eval = load()
    source = folder(tmp_path / "old", {"raw": "r", "resolve": "x", "prose": "stale prose"})
    arms = folder(tmp_path / "arms", {"raw": "other raw", "prose": "fresh prose", "anythingllm": "fresh a"})
    reuse_eval.main([str(source), str(tmp_path / "new"), "--arms-from", f"{arms}:prose,anythingllm"])
    records = json.loads((tmp_path / "new" / "sample" / "results.json").read_text(encoding="utf-8"))["records"]
    assert {r["arm"]: r["text"] for r in records} == {"raw": "r", "prose": "fresh prose", "anythingllm": "fresh a"}


def test_a_dataset_the_third_folder_lacks_keeps_the_sources_records(tmp_path):
    reuse_eval = load()
    source = folder(tmp_path / "old", {"raw": "r", "prose": "source prose"})
    (tmp_path / "arms").mkdir()
    reuse_eval.reuse(source, tmp_path / "new", rerun=["resolve"], arms_from=(tmp_path / "arms", ["prose"]))
    records = json.loads((tmp_path / "new" / "sample" / "results.json").read_text(encoding="utf-8"))["records"]
    assert {r["arm"]: r["text"] for r in records} == {"raw": "r", "prose": "source prose"}


def test_an_existing_target_or_an_empty_source_is_refused(tmp_path):
    reuse_eval = load()
    source = folder(tmp_path / "old", {"raw": "r"})
    reuse_eval.reuse(source, tmp_path / "new", rerun=["resolve"])
    with pytest.raises(SystemExit, match="exists"):
        reuse_eval.reuse(source, tmp_path / "new", rerun=["resolve"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="no dataset"):
        reuse_eval.reuse(tmp_path / "empty", tmp_path / "other", rerun=["resolve"])


def test_a_resolver_setting_is_recorded_in_the_copied_header(tmp_path):
    reuse_eval = load()
    source = folder(tmp_path / "old", {"raw": "r", "resolve": "x"})
    reuse_eval.main([str(source), str(tmp_path / "new"), "--resolver-setting", "history_messages=4"])
    header = json.loads((tmp_path / "new" / "sample" / "results.json").read_text(encoding="utf-8"))["header"]
    assert header["settings"]["resolver"] == {"restate_references": True, "history_messages": 4}
    with pytest.raises(SystemExit):
        reuse_eval.main([str(source), str(tmp_path / "other"), "--resolver-setting", "window=4"])
    assert not (tmp_path / "other").exists()
