"""The results file: atomic saves, resuming, and refusing another evaluation's file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lightrag_resolve.eval import Record, ResultsMismatchError, ResultsStore

HEADER = {"dataset_fingerprint": "abc", "judge": "gold", "settings": {"k": 5}, "llm_model": "m", "judge_model": None}


def _record(item: str = "i1", arm: str = "raw", run: int = 0) -> Record:
    return Record(item=item, arm=arm, run=run, turn_class="short_reply", mode="naive", lang="en", text="B1",
                  outcome="raw", hit=True, gold_hit=True, retrieved=["d1"])


def test_saved_records_are_found_again(tmp_path: Path) -> None:
    store = ResultsStore.open(tmp_path / "results.json", HEADER)
    store.add(_record())
    store.save()
    again = ResultsStore.open(tmp_path / "results.json", HEADER)
    assert again.has("i1", "raw", 0) and not again.has("i1", "raw", 1)
    assert again.records[("i1", "raw", 0)] == _record()
    assert not (tmp_path / "results.json.tmp").exists()


def test_fresh_ignores_the_file(tmp_path: Path) -> None:
    store = ResultsStore.open(tmp_path / "results.json", HEADER)
    store.add(_record())
    store.save()
    assert ResultsStore.open(tmp_path / "results.json", HEADER, fresh=True).records == {}


@pytest.mark.parametrize("key", ["dataset_fingerprint", "judge", "settings", "llm_model"])
def test_a_file_of_another_evaluation_is_refused(tmp_path: Path, key: str) -> None:
    store = ResultsStore.open(tmp_path / "results.json", HEADER)
    store.save()
    with pytest.raises(ResultsMismatchError, match=key):
        ResultsStore.open(tmp_path / "results.json", {**HEADER, key: "other"})


def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text("{", encoding="utf-8")
    with pytest.raises(ResultsMismatchError, match="cannot resume"):
        ResultsStore.open(tmp_path / "results.json", HEADER)


def test_the_file_is_plain_json_with_header_and_records(tmp_path: Path) -> None:
    store = ResultsStore.open(tmp_path / "results.json", HEADER)
    store.add(_record(arm="resolve"))
    store.save()
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["header"]["format"] == "lightrag-resolve-eval/1"
    assert data["records"][0]["arm"] == "resolve"
