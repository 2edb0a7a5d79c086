"""``lightrag-resolve eval``: a thin client of the public API, with the models replaced by fakes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import lightrag_resolve
import lightrag_resolve.eval as evaluation
from lightrag_resolve.cli import main


@pytest.fixture
def fake_local_models(monkeypatch: pytest.MonkeyPatch, models: dict) -> None:
    def load(*, llm: object = None, llm_name: str | None = None) -> evaluation.Models:
        return evaluation.Models(llm=llm or models["llm"], embedding=models["embedding"],
                                 tokenizer=models["tokenizer"], llm_name=llm_name or "scripted")

    monkeypatch.setattr(evaluation, "load_local_models", load)


def test_eval_writes_the_report(
    tiny_dataset: Path, tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["eval", str(tiny_dataset), "--out", str(out), "--runs", "1", "--arms", "raw,resolve",
                 "--no-progress"])
    assert code == 0
    printed = capsys.readouterr()
    assert "10 turns run" in printed.out and str(out / "report.md") in printed.out
    assert "1 retrievals raised" in printed.err  # "B1" in the raw arm
    header = json.loads((out / "results.json").read_text(encoding="utf-8"))["header"]
    assert header["llm_model"] == "scripted" and header["config"]["arms"] == ["raw", "resolve"]
    assert (out / "chart.png").exists()


def test_items_and_passages_can_be_given_as_paths(
    tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from tiny import write_dataset

    folder = write_dataset(tmp_path / "data", passages=True)
    code = main(["eval", "--items", str(folder / "items.jsonl"), "--passages", str(folder / "passages.jsonl"),
                 "--out", str(tmp_path / "out"), "--runs", "1", "--arms", "raw", "--no-progress"])
    assert code == 0
    records = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))["records"]
    assert {record["mode"] for record in records} == {"naive"}


def test_a_doc2dial_shaped_folder_is_evaluated_in_naive_mode(
    tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from doc2dial_shaped import write_doc2dial_cut

    folder, out = write_doc2dial_cut(tmp_path / "doc2dial"), tmp_path / "out"
    code = main(["eval", str(folder), "--out", str(out), "--runs", "1", "--arms", "raw,resolve,prose,anythingllm",
                 "--no-progress"])
    assert code == 0
    records = json.loads((out / "results.json").read_text(encoding="utf-8"))["records"]
    assert {record["mode"] for record in records} == {"naive"} and len(records) == 8
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Short replies" in report and "## Longer follow-ups" in report
    assert "relevant lost vs raw, first 5" in report


def test_a_malformed_dataset_is_reported_with_its_line(
    tiny_dataset: Path, tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with (tiny_dataset / "items.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"id": "broken", "query": "x"}\n')
    assert main(["eval", str(tiny_dataset), "--out", str(tmp_path / "out")]) == 2
    assert "items.jsonl:6: an item needs 'relevant' or 'must_contain'" in capsys.readouterr().err


def test_the_llm_judge_needs_a_model(tiny_dataset: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tiny_dataset), "--judge", "llm"]) == 2
    assert "--judge-model" in capsys.readouterr().err


def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "lightrag_resolve.eval", None)
    monkeypatch.delattr(lightrag_resolve, "eval")
    assert main(["eval", "somewhere"]) == 2
    assert "lightrag-resolve[eval]" in capsys.readouterr().err


def test_a_missing_local_model_names_its_extra(
    tiny_dataset: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    # The runtime is hidden, whether or not this machine has it: the real loader must then say what to install.
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    assert main(["eval", str(tiny_dataset)]) == 2
    assert "lightrag-resolve[local]" in capsys.readouterr().err
