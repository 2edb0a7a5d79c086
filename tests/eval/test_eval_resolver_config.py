"""The resolver's configuration in an evaluation: the template, its timeouts, and where they are recorded."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_scripts import load_benchmark
from tiny import B1_CONTEXT, scripted_llm, write_dataset

import lightrag_resolve.eval as evaluation
from lightrag_resolve import ResolverConfig
from lightrag_resolve.cli import main
from lightrag_resolve.eval import (
    Experiment,
    EvalConfig,
    EvalOutcome,
    Models,
    ResultsMismatchError,
    load_dataset,
    render_markdown,
    run_eval,
    summarize,
)
from lightrag_resolve.eval._session import KnowledgeSession



async def _run(folder: Path, out: Path, models: dict, workspace: str, **config: object) -> EvalOutcome:
    return await run_eval(load_dataset(folder), out_dir=out, config=EvalConfig(resamples=200, **config),
                          progress=False, workspace=workspace, **models)


PICKS_REWRITTEN = Experiment(rewrite_picked_replies=True)
""""B1" picks an option of the question: with this tuning the model is asked to rewrite it all the same."""


def _header(out: Path) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))["header"]


def _by_key(outcome: EvalOutcome) -> dict:
    return {(r.item, r.arm, r.run): r for r in outcome.records}


# ---- the template ---------------------------------------------------------------------------------------------


def test_the_config_takes_only_a_resolver_config() -> None:
    assert EvalConfig().resolver is None
    assert EvalConfig(resolver=ResolverConfig(timeout=30)).resolver == ResolverConfig(timeout=30)
    with pytest.raises(TypeError, match="ResolverConfig"):
        EvalConfig(resolver={"timeout": 30})  # type: ignore[arg-type]


def test_each_company_gets_a_copy_of_the_template(tiny_dataset: Path, tmp_path: Path, models: dict) -> None:
    template = ResolverConfig(timeout=123, reference_timeout=45, max_query_words=9, company_name="Default Co")
    session = KnowledgeSession(load_dataset(tiny_dataset).kb, working_dir=tmp_path / "rag", llm=models["llm"],
                               embedding=models["embedding"], tokenizer=models["tokenizer"], resolver=template)
    acme = session.resolver_for("Acme")
    assert (acme.company_name, acme.timeout, acme.reference_timeout, acme.max_query_words) == ("Acme", 123, 45, 9)
    assert session.resolver_for(None) is template  # the template's name is the default
    assert template.company_name == "Default Co"  # the template itself is left alone
    plain = KnowledgeSession(load_dataset(tiny_dataset).kb, working_dir=tmp_path / "rag2", llm=models["llm"],
                             embedding=models["embedding"], tokenizer=models["tokenizer"])
    assert plain.resolver_for("Acme") == ResolverConfig(company_name="Acme")


async def test_short_timeouts_measure_timeouts_and_generous_ones_resolution(
    tiny_dataset: Path, tmp_path: Path, workspace: str, models: dict
) -> None:
    slow = scripted_llm()
    slow.delays = {"text": 0.3, "reference": 0.3}
    # "B1" picks an option of the question; the model is asked to rewrite it all the same, to be timed.
    tight = await _run(tiny_dataset, tmp_path / "tight", {**models, "llm": slow}, workspace, runs=1,
                       arms=("raw", "resolve"),
                       resolver=ResolverConfig(timeout=0.05, reference_timeout=0.05), tuning=PICKS_REWRITTEN)
    records = _by_key(tight)
    # Timed out, the resolver carries "B1" with the question it answers (contract §5.6, §6): no model
    # meaning, yet searchable, where "B1" alone is refused by LightRAG as too short.
    timed_out = records[("short-b1", "resolve", 0)]
    assert timed_out.resolution["carry_reason"] == "timeout" and timed_out.error is None
    assert timed_out.resolution["fallback_reason"] is None
    assert timed_out.resolution["query"] == f"B1 — {B1_CONTEXT}"
    assert "TooShort" in (records[("short-b1", "raw", 0)].error or "")
    assert records[("ref-pulse", "resolve", 0)].decision_correct is False

    roomy = await _run(tiny_dataset, tmp_path / "roomy", {**models, "llm": slow}, f"{workspace}_2", runs=1,
                       arms=("raw", "resolve"),
                       resolver=ResolverConfig(timeout=5, reference_timeout=5), tuning=PICKS_REWRITTEN)
    records = _by_key(roomy)
    assert records[("short-b1", "resolve", 0)].resolution["query"] == f"German course level B1 — {B1_CONTEXT}"
    assert records[("short-b1", "resolve", 0)].hit is True
    assert records[("ref-pulse", "resolve", 0)].decision_correct is True


async def test_the_template_keeps_each_items_company(tmp_path: Path, models: dict, workspace: str) -> None:
    from tiny import ITEMS

    b1 = next(item for item in ITEMS if item["id"] == "short-b1")
    folder = write_dataset(tmp_path / "companies", items=[{**b1, "id": "acme", "company_name": "Acme"}, b1])
    outcome = await _run(folder, tmp_path / "out", models, workspace, runs=1, arms=("resolve",),
                         resolver=ResolverConfig(timeout=60, reference_timeout=60, company_name="Helix"),
                         tuning=PICKS_REWRITTEN)
    queries = {r.item: r.resolution["query"] for r in outcome.records if r.arm == "resolve"}
    assert queries == {"acme": f"German course level B1 Acme — {B1_CONTEXT}",
                       "short-b1": f"German course level B1 Helix — {B1_CONTEXT}"}


# ---- where the timeouts are recorded --------------------------------------------------------------------------


async def test_the_header_and_report_record_the_timeouts(
    tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str
) -> None:
    outcome = await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw", "resolve"),
                         resolver=ResolverConfig(timeout=180, reference_timeout=90.5))
    resolver = _header(tmp_path / "out")["settings"]["resolver"]
    assert (resolver["timeout"], resolver["reference_timeout"]) == (180, 90.5)
    assert resolver["max_query_words"] == 8 and resolver["enabled"] is True
    assert "company_name" not in resolver and "llm_func" not in resolver
    assert "resolver" not in _header(tmp_path / "out")["config"]
    report = outcome.report_path.read_text(encoding="utf-8")
    assert "resolver timeouts (`resolve` arm): 180 s for a short reply's resolution, 90.5 s for the reference check" in report
    assert "partial" not in report


async def test_without_a_template_the_library_defaults_are_recorded(
    tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str
) -> None:
    outcome = await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw",))
    resolver = _header(tmp_path / "out")["settings"]["resolver"]
    assert (resolver["timeout"], resolver["reference_timeout"]) == (10.0, 2.0)
    assert "10 s for a short reply's resolution, 2 s for the reference check" in outcome.report_path.read_text("utf-8")


async def test_other_timeouts_do_not_resume_a_results_file(
    tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str
) -> None:
    await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw",),
               resolver=ResolverConfig(timeout=180, reference_timeout=180))
    with pytest.raises(ResultsMismatchError, match="settings"):
        await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw",))


async def test_a_results_file_older_than_a_knob_resumes_under_its_default_only(
    tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str
) -> None:
    await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw",))
    path = tmp_path / "out" / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["header"]["settings"]["resolver"]["fuse_raw_search"]  # as a file written before the knob existed
    path.write_text(json.dumps(data), encoding="utf-8")
    resumed = await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw",))
    assert (resumed.ran, resumed.skipped) == (0, 5)
    with pytest.raises(ResultsMismatchError, match="settings"):
        await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw",),
                   tuning=Experiment(fuse_raw_search=True))


async def test_report_only_runs_nothing_and_says_the_report_is_partial(
    tiny_dataset: Path, tmp_path: Path, models: dict, workspace: str
) -> None:
    await _run(tiny_dataset, tmp_path / "out", models, workspace, runs=1, arms=("raw", "resolve"))
    calls = len(models["llm"].calls)
    outcome = await run_eval(load_dataset(tiny_dataset), out_dir=tmp_path / "out", progress=False,
                             workspace=workspace, report_only=True,
                             config=EvalConfig(resamples=200, runs=2, arms=("raw", "resolve")), **models)
    assert (outcome.ran, outcome.skipped, outcome.missing) == (0, 10, 10)
    assert len(models["llm"].calls) == calls
    report = outcome.report_path.read_text(encoding="utf-8")
    assert "**partial**: 10 item × arm × run turns were not run" in report
    assert outcome.summary.row("raw", "all").items == 5  # type: ignore[union-attr]


def test_a_header_without_resolver_settings_still_renders() -> None:
    summary = summarize([], [], ["raw"], runs=1)
    report = render_markdown(summary, {"dataset_name": "old", "settings": {"default_mode": "mix", "k": 5}})
    assert "resolver timeouts" not in report and report.startswith("# Retrieval evaluation: old")


# ---- the command line -----------------------------------------------------------------------------------------


@pytest.fixture
def fake_local_models(monkeypatch: pytest.MonkeyPatch, models: dict) -> None:
    def load(*, llm: object = None, llm_name: str | None = None) -> Models:
        return Models(llm=llm or models["llm"], embedding=models["embedding"], tokenizer=models["tokenizer"],
                      llm_name=llm_name or "scripted")

    monkeypatch.setattr(evaluation, "load_local_models", load)


def test_the_cli_takes_both_timeouts(
    tiny_dataset: Path, tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["eval", str(tiny_dataset), "--out", str(out), "--runs", "1", "--arms", "raw,resolve",
                 "--resolver-timeout", "30", "--reference-timeout", "45", "--no-progress"])
    assert code == 0
    assert "resolver timeouts: 30 s (short replies), 45 s (reference check)" in capsys.readouterr().err
    resolver = _header(out)["settings"]["resolver"]
    assert (resolver["timeout"], resolver["reference_timeout"]) == (30, 45)


def test_the_cli_keeps_the_library_defaults_without_the_flags(
    tiny_dataset: Path, tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["eval", str(tiny_dataset), "--out", str(out), "--runs", "1", "--arms", "raw", "--no-progress",
                 "--reference-timeout", "7"]) == 0
    assert "10 s (short replies), 7 s (reference check)" in capsys.readouterr().err
    assert main(["eval", str(tiny_dataset), "--out", str(tmp_path / "plain"), "--runs", "1", "--arms", "raw",
                 "--no-progress"]) == 0
    assert "the library's defaults" in capsys.readouterr().err
    resolver = _header(tmp_path / "plain")["settings"]["resolver"]
    assert (resolver["timeout"], resolver["reference_timeout"]) == (10.0, 2.0)


@pytest.mark.parametrize("flag", ["--resolver-timeout", "--reference-timeout"])
def test_the_cli_refuses_a_timeout_that_is_not_positive(
    tiny_dataset: Path, tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    assert main(["eval", str(tiny_dataset), "--out", str(tmp_path / "out"), flag, "0"]) == 2
    assert "positive number of seconds" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_cli_takes_another_resolver_setting(
    tiny_dataset: Path, tmp_path: Path, fake_local_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["eval", str(tiny_dataset), "--out", str(out), "--runs", "1", "--arms", "raw,resolve",
                 "--resolver-setting", "history_messages=3", "--no-progress"]) == 0
    resolver = _header(out)["settings"]["resolver"]
    assert (resolver["history_messages"], resolver["timeout"]) == (3, 10.0)  # the other knobs keep their defaults
    assert main(["eval", str(tiny_dataset), "--out", str(tmp_path / "bad"), "--resolver-setting", "window=3"]) == 2
    assert "NAME one of" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


# ---- the benchmark script -------------------------------------------------------------------------------------


def _script() -> ModuleType:
    return load_benchmark("eval_report")


def test_the_benchmark_uses_generous_timeouts_and_says_so(
    tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = write_dataset(tmp_path / "sample")
    out = tmp_path / "out"
    code = _script().main(["--datasets", "sample", "--sample", str(sample), "--out", str(out), "--runs", "1",
                           "--arms", "raw,resolve", "--no-progress"], models=Models(llm_name="scripted", **models))
    assert code == 0
    assert "LLM: scripted; resolver timeouts 180 s (short replies) and 180 s (reference check)" in capsys.readouterr().out
    resolver = _header(out / "sample")["settings"]["resolver"]
    assert (resolver["timeout"], resolver["reference_timeout"]) == (180, 180)
    assert "180 s for a short reply's resolution, 180 s for the reference check" in (out / "sample" / "report.md").read_text("utf-8")
    assert "resolver timeouts 180 s" in (out / "README.md").read_text(encoding="utf-8")


def test_the_benchmark_takes_a_limit_per_dataset_and_keeps_earlier_index_lines(
    tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = write_dataset(tmp_path / "sample")
    mtrag = write_dataset(tmp_path / "mtrag", passages=True)
    out = tmp_path / "out"
    common = ["--sample", str(sample), "--mtrag", str(mtrag), "--out", str(out), "--runs", "1", "--arms", "raw",
              "--no-progress", "--resolver-timeout", "60", "--reference-timeout", "30"]
    fake = Models(llm_name="scripted", **models)
    assert _script().main(["--datasets", "sample", "--sample-limit", "2", *common], models=fake) == 0
    assert _header(out / "sample")["items"] == 2
    assert _script().main(["--datasets", "mtrag", "--mtrag-limit", "3", *common], models=fake) == 0
    assert _header(out / "mtrag")["items"] == 3
    index = (out / "README.md").read_text(encoding="utf-8")
    assert "[sample](sample/report.md): 2 items" in index and "[mtrag](mtrag/report.md): 3 items" in index
    assert "60 s (short replies) and 30 s (reference check)" in index


def test_the_benchmark_writes_a_partial_report_on_request(
    tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = write_dataset(tmp_path / "sample")
    out = tmp_path / "out"
    common = ["--datasets", "sample", "--sample", str(sample), "--out", str(out), "--arms", "raw", "--no-progress"]
    fake = Models(llm_name="scripted", **models)
    assert _script().main([*common, "--runs", "1"], models=fake) == 0
    assert _script().main([*common, "--runs", "2", "--report-only"], models=fake) == 0
    assert "**partial**: 5 item × arm × run turns were not run" in (out / "sample" / "report.md").read_text("utf-8")
    assert "**partial** (5 turns not run)" in (out / "README.md").read_text(encoding="utf-8")


def test_the_benchmark_refuses_a_timeout_that_is_not_positive(
    tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _script().main(["--out", str(tmp_path / "out"), "--reference-timeout", "-1"], models=Models(**models)) == 2
    assert "positive number of seconds" in capsys.readouterr().err


def test_the_benchmark_measures_another_resolver_setting_and_records_it(
    tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = write_dataset(tmp_path / "sample")
    out = tmp_path / "out"
    common = ["--datasets", "sample", "--sample", str(sample), "--runs", "1", "--arms", "raw,resolve", "--no-progress"]
    fake = Models(llm_name="scripted", **models)
    assert _script().main([*common, "--out", str(out), "--resolver-setting", "history_messages=4",
                           "--resolver-setting", "check_every_follow_up=true"], models=fake) == 0
    assert "; history_messages=4; check_every_follow_up=true" in capsys.readouterr().out
    resolver = _header(out / "sample")["settings"]["resolver"]
    assert (resolver["history_messages"], resolver["check_every_follow_up"]) == (4, True)
    # The same folder with the library's window is not resumed.
    assert _script().main([*common, "--out", str(out)], models=fake) == 2
    assert "settings" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("history_window=4", "NAME one of"),
        ("history_messages", "NAME one of"),
        ("history_messages=four", "takes a int"),
        ("check_every_follow_up=yes", "takes a bool"),
        ("history_messages=0", "must be a positive int"),
    ],
)
def test_the_benchmark_refuses_a_resolver_setting_it_cannot_take(
    tmp_path: Path, models: dict, capsys: pytest.CaptureFixture[str], pair: str, message: str
) -> None:
    assert _script().main(["--out", str(tmp_path / "out"), "--resolver-setting", pair], models=Models(**models)) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_resolver_overrides_read_each_value_as_its_knobs_type() -> None:
    overrides = evaluation.resolver_overrides(["history_messages=3", "reference_timeout=2.5", "enabled=False"])
    assert overrides == {"history_messages": 3, "reference_timeout": 2.5, "enabled": False}
    assert type(overrides["reference_timeout"]) is float
    assert ResolverConfig(**overrides).history_messages == 3
    assert evaluation.resolver_overrides([]) == {}
