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


OLD_KNOBS = {"timeout": 10.0}
DEFAULTS = {"timeout": 10.0, "fuse_raw_search": False}


def _with_resolver(knobs: dict) -> dict:
    return {**HEADER, "settings": {"k": 5, "resolver": knobs}}


def test_a_knob_the_file_predates_is_read_as_its_default(tmp_path: Path) -> None:
    old = ResultsStore.open(tmp_path / "results.json", _with_resolver(OLD_KNOBS))
    old.add(_record())
    old.save()
    again = ResultsStore.open(tmp_path / "results.json", _with_resolver(DEFAULTS), resolver_defaults=DEFAULTS)
    assert again.has("i1", "raw", 0)
    assert again.header["settings"]["resolver"] == DEFAULTS  # saved from now on with the knob written out


@pytest.mark.parametrize("now", [{"timeout": 10.0, "fuse_raw_search": True}, {"timeout": 30.0, "fuse_raw_search": False}])
def test_a_knob_the_file_predates_refuses_any_other_value(tmp_path: Path, now: dict) -> None:
    ResultsStore.open(tmp_path / "results.json", _with_resolver(OLD_KNOBS)).save()
    with pytest.raises(ResultsMismatchError, match="settings"):
        ResultsStore.open(tmp_path / "results.json", _with_resolver(now), resolver_defaults=DEFAULTS)


def test_without_defaults_a_missing_knob_is_refused(tmp_path: Path) -> None:
    ResultsStore.open(tmp_path / "results.json", _with_resolver(OLD_KNOBS)).save()
    with pytest.raises(ResultsMismatchError, match="settings"):
        ResultsStore.open(tmp_path / "results.json", _with_resolver(DEFAULTS))


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
