"""``benchmarks/eval_report.py`` end to end on tiny datasets, with the scripted LLM in place of the local model."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from benchmark_scripts import load_benchmark
from tiny import write_dataset

from lightrag_resolve.eval import Models



def _load() -> ModuleType:
    return load_benchmark("eval_report")


def test_both_datasets_get_a_report_and_an_index(tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]) -> None:
    sample = write_dataset(tmp_path / "sample")
    mtrag = write_dataset(tmp_path / "mtrag", passages=True)
    out = tmp_path / "out"
    code = _load().main(
        ["--sample", str(sample), "--mtrag", str(mtrag), "--out", str(out), "--limit", "3", "--runs", "1",
         "--arms", "raw,resolve,anythingllm", "--no-progress"],
        models=Models(llm_name="scripted", **models),
    )
    assert code == 0
    for name in ("sample", "mtrag"):
        assert (out / name / "report.md").exists() and (out / name / "chart.png").exists()
    index = (out / "README.md").read_text(encoding="utf-8")
    assert "[sample](sample/report.md)" in index and "[mtrag](mtrag/report.md)" in index


def test_doc2dial_is_found_by_its_option_and_searched_in_naive_mode(
    tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    doc2dial = write_dataset(tmp_path / "doc2dial", passages=True)
    out = tmp_path / "out"
    code = _load().main(
        ["--datasets", "doc2dial", "--doc2dial", str(doc2dial), "--out", str(out), "--doc2dial-limit", "2",
         "--runs", "1", "--arms", "raw,resolve", "--no-progress"],
        models=Models(llm_name="scripted", **models),
    )
    assert code == 0
    assert "doc2dial: 5 items, default mode naive, a seeded 2-item subset" in capsys.readouterr().out
    assert "default mode `naive`" in (out / "doc2dial" / "report.md").read_text(encoding="utf-8")
    assert "[doc2dial](doc2dial/report.md)" in (out / "README.md").read_text(encoding="utf-8")


def test_doc2dial_is_looked_for_beside_the_repository_like_mtrag() -> None:
    script = _load()
    assert script.DEFAULT_DOC2DIAL.parent == script.DEFAULT_MTRAG.parent
    assert script.parse_args(["--datasets", "doc2dial"]).doc2dial == script.DEFAULT_DOC2DIAL


def test_a_missing_dataset_is_skipped(tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]) -> None:
    code = _load().main(["--datasets", "mtrag", "--mtrag", str(tmp_path / "absent"), "--out", str(tmp_path / "out")],
                        models=Models(**models))
    assert code == 1
    assert "skipping mtrag" in capsys.readouterr().err


def test_without_the_local_model_it_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    # The runtime is hidden, whether or not this machine has it: the real loader must then say what to install.
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    assert _load().main(["--out", str(tmp_path / "out")]) == 2
    assert "lightrag-resolve[local]" in capsys.readouterr().err


def test_the_held_out_cut_is_the_follow_ups_the_default_cut_leaves_out() -> None:
    from lightrag_resolve.eval import Item

    items = [Item(id=f"i{n}", query="q", history=(), turn_class="short_reply" if n % 5 == 0 else "follow_up")
             for n in range(40)]
    script = _load()
    chosen = script._with_follow_ups(items, 10, 0)
    held_out = script._with_follow_ups(items, 10, 0, held_out=True)
    follow_ups = {item.id for item in items if item.turn_class == "follow_up"}
    chosen_follow_ups = {item.id for item in chosen if item.turn_class == "follow_up"}
    assert len(chosen_follow_ups) == 10
    assert {item.id for item in held_out} == follow_ups - chosen_follow_ups
    assert all(item.turn_class == "follow_up" for item in held_out)
    assert [item.id for item in held_out] == sorted((item.id for item in held_out), key=lambda i: int(i[1:]))
