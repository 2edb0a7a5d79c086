"""``lightrag-resolve resolve``: valid turns print the Resolution, bad input exits 2."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from fakes import ScriptedLLM, keyword_json, reference_json
from openai_server import fake_chat_server

from lightrag_resolve.cli import main
from lightrag_resolve.cli import resolve as resolve_command
from lightrag_resolve import ResolverConfig as ResolverConfigType

HISTORY = [
    {"role": "user", "content": "Quelles offres avez-vous ?"},
    {"role": "assistant", "content": "Nous avons une offre Santé, une offre BTP et Pulse POS. Quel secteur ?"},
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_llm(monkeypatch):
    """Replace the endpoint factory with a scripted fake; records how it was built."""
    llm = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé", "Vitalis"], ["santé"]), "text": "offre Santé"})
    built: list[dict[str, Any]] = []

    def factory(model: str, base_url: str | None = None, api_key: str | None = None, **kwargs: Any) -> ScriptedLLM:
        built.append({"model": model, "base_url": base_url})
        return llm

    monkeypatch.setattr(resolve_command, "openai_llm", factory)
    llm.built = built  # type: ignore[attr-defined]
    return llm


def write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "turn.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_turn_from_a_file_prints_its_resolution(tmp_path, capsys, fake_llm):
    turn = {"query": "Santé", "history": HISTORY, "mode": "mix", "company_name": "Helix"}
    assert main(["resolve", write(tmp_path, turn), "--model", "tiny"]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["path"] == "keywords" and result["changed"] is True
    assert result["ll_keywords"] == ["Offre Santé"] and result["hl_keywords"] == ["santé"]
    assert result["dropped_keywords"] == ["Vitalis"]  # named nowhere in the conversation
    # The reply answers the assistant's question, whose words join the text (contract §5.6).
    context = "Quelles offres avez-vous ? Nous avons une offre Santé, une offre BTP et Pulse POS. Quel secteur ?"
    assert result["context"] == context
    assert result["query"] == f"Offre Santé — {context}" and result["model"] == "tiny"
    assert err == ""
    assert fake_llm.built == [{"model": "tiny", "base_url": None}]
    assert "Helix" in fake_llm.calls[0].system_prompt


def test_a_turn_from_stdin(monkeypatch, capsys, fake_llm):
    # "Les cliniques" picks no option, so the text resolver asks the model.
    turn = {"query": "Les cliniques", "history": HISTORY, "mode": "naive"}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(turn)))
    monkeypatch.setenv("OPENAI_MODEL", "from-env")
    assert main(["resolve", "-", "--llm-base-url", "http://127.0.0.1:1/v1"]) == 0
    result = json.loads(capsys.readouterr().out)
    context = f"{HISTORY[0]['content']} {HISTORY[-1]['content']}"
    assert result["path"] == "text" and result["query"] == f"Les cliniques — offre Santé — {context}"
    assert fake_llm.built == [{"model": "from-env", "base_url": "http://127.0.0.1:1/v1"}]


def test_model_falls_back_to_llm_model(tmp_path, monkeypatch, capsys, fake_llm):
    monkeypatch.setenv("LLM_MODEL", "llm-env")
    assert main(["resolve", write(tmp_path, {"query": "Bonjour"})]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["path"] == "first_turn" and result["fallback_reason"] == "first_turn"
    assert result["mode"] == "mix"  # LightRAG's default mode
    assert fake_llm.built[0]["model"] == "llm-env" and fake_llm.calls == []


def test_a_failing_model_is_a_recorded_carry_not_an_error(tmp_path, capsys, fake_llm):
    fake_llm.replies["keywords"] = RuntimeError("endpoint down")
    assert main(["resolve", write(tmp_path, {"query": "Santé", "history": HISTORY}), "--model", "m"]) == 0
    recorded = json.loads(capsys.readouterr().out)
    assert recorded["carry_reason"] == "llm_error" and recorded["fallback_reason"] is None  # the question is kept


BAD_INPUTS = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    ({"history": HISTORY}, '"query" is required'),
    ({"query": 3}, '"query" is required and must be a string'),
    ({"query": "Santé", "mode": "hybird"}, '"mode" must be one of'),
    ({"query": "Santé", "mode": None}, '"mode" must be one of'),
    ({"query": "Santé", "history": "Quel secteur ?"}, '"history" must be a list'),
    ({"query": "Santé", "history": ["Quel secteur ?"]}, '"history"[0] must be an object'),
    ({"query": "Santé", "history": [{"role": "system", "content": "x"}]}, '"history"[0].role'),
    ({"query": "Santé", "history": [{"role": "user", "content": 5}]}, '"history"[0].content'),
    ({"query": "Santé", "company_name": 7}, '"company_name" must be a string'),
    ({"query": "Santé", "histroy": []}, "unknown field(s) histroy"),
]


@pytest.mark.parametrize(("data", "message"), BAD_INPUTS)
def test_bad_input_exits_2_with_a_message(tmp_path, capsys, fake_llm, data, message):
    assert main(["resolve", write(tmp_path, data), "--model", "m"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err and err.startswith("lightrag-resolve resolve: ")
    assert fake_llm.calls == []


def test_a_missing_file_exits_2(tmp_path, capsys, fake_llm):
    assert main(["resolve", str(tmp_path / "absent.json"), "--model", "m"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_no_model_exits_2(tmp_path, capsys, fake_llm):
    assert main(["resolve", write(tmp_path, {"query": "Santé"})]) == 2
    assert "no model" in capsys.readouterr().err


def test_a_bad_timeout_exits_2(tmp_path, capsys, fake_llm):
    assert main(["resolve", write(tmp_path, {"query": "Santé"}), "--model", "m", "--timeout", "0"]) == 2
    assert "--timeout" in capsys.readouterr().err


def test_no_key_for_openai_itself_exits_2(tmp_path, capsys):
    assert main(["resolve", write(tmp_path, {"query": "Santé"}), "--model", "gpt-4o-mini"]) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err


def test_the_command_is_listed(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "resolve" in capsys.readouterr().out


def test_end_to_end_against_an_openai_compatible_server(tmp_path, capsys, monkeypatch):
    """The real adapter and client, on a fake server on 127.0.0.1; the key comes from the environment."""
    turn = {"query": "Quelles enseignes l'ont déjà installé ?", "history": HISTORY, "mode": "hybrid"}
    answer = reference_json("RESOLVE", "Pulse POS")
    with fake_chat_server({"reference": answer}) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
        code = main(["resolve", write(tmp_path, turn), "--model", "tiny", "--llm-base-url", server.base_url])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["decision"] == "resolve" and result["entity"] == "Pulse POS"
    assert result["query"] == "Pulse POS — Quelles enseignes l'ont déjà installé ?"
    own = ["enseignes", "déjà", "installé"]  # the message's content words: the keywords the code builds (issue 42)
    assert result["ll_keywords"] == ["Pulse POS", *own] and result["hl_keywords"] == own
    (request,) = server.requests  # one call: the check, in place of LightRAG's extraction
    assert request["authorization"] == "Bearer sk-from-env"
    assert request["body"]["model"] == "tiny"
    schema = request["body"]["response_format"]["json_schema"]["schema"]
    resolve, other = schema["anyOf"]  # a shape a decision: RESOLVE ends at its name, no keywords asked
    assert (resolve["required"], other["required"]) == (["decision", "name"], ["decision", "name", "query"])



# ---- the timeouts and the local model ----------------------------------------------------


@pytest.mark.parametrize(("mode", "bounding", "other"), [("naive", "--reference-timeout", "--timeout"), ("hybrid", "--timeout", "--reference-timeout")])
def test_the_check_is_bounded_by_the_reference_timeout_beside_naive_search_and_by_the_timeout_in_graph_modes(
    tmp_path, capsys, monkeypatch, mode, bounding, other
):
    """A check slower than its bound falls back with timeout; the other flag does not bound it."""
    import asyncio

    async def slow_check(prompt, system_prompt=None, **kwargs):  # a fake model: half a second per answer
        await asyncio.sleep(0.5)
        return "RESOLVE: Pulse POS"

    monkeypatch.setattr(resolve_command, "openai_llm", lambda *a, **k: slow_check)
    path = write(tmp_path, {"query": "Quelles enseignes l'ont déjà installé ?", "history": HISTORY, "mode": mode})
    assert main(["resolve", path, "--model", "m", other, "30", bounding, "0.1"]) == 0
    assert json.loads(capsys.readouterr().out)["fallback_reason"] == "timeout"
    assert main(["resolve", path, "--model", "m", other, "0.1", bounding, "5"]) == 0
    assert json.loads(capsys.readouterr().out)["entity"] == "Pulse POS"


@pytest.mark.parametrize("flag", ["--timeout", "--reference-timeout"])
@pytest.mark.parametrize("value", ["0", "-1", "inf"])
def test_a_timeout_that_is_not_positive_exits_2_naming_its_flag(tmp_path, capsys, fake_llm, flag, value):
    assert main(["resolve", write(tmp_path, {"query": "Santé"}), "--model", "m", flag, value]) == 2
    assert flag in capsys.readouterr().err


@pytest.fixture
def fake_local_model(monkeypatch):
    """LocalLLM.load replaced by a scripted fake named like the local model: no model file is read."""
    from lightrag_resolve.local import LocalLLM

    llm = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"])})
    llm.model_name = "fake-local-model"  # type: ignore[attr-defined]
    monkeypatch.setattr(LocalLLM, "load", classmethod(lambda cls, *a, **k: llm))
    return llm


def test_local_resolves_on_the_local_model_with_its_timeouts(tmp_path, capsys, fake_local_model, monkeypatch):
    seen: list[ResolverConfigType] = []
    real = resolve_command.ResolverConfig
    monkeypatch.setattr(resolve_command, "ResolverConfig", lambda **kw: seen.append(real(**kw)) or seen[-1])
    turn = {"query": "Santé", "history": HISTORY, "mode": "mix"}
    assert main(["resolve", write(tmp_path, turn), "--local"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["path"] == "keywords" and result["ll_keywords"] == ["Offre Santé"]
    assert result["model"] == "fake-local-model" and len(fake_local_model.calls) == 1
    from lightrag_resolve.local import LOCAL_RESOLVER_TIMEOUT

    assert (seen[0].timeout, seen[0].reference_timeout) == (LOCAL_RESOLVER_TIMEOUT, LOCAL_RESOLVER_TIMEOUT)
    assert main(["resolve", write(tmp_path, turn), "--local", "--reference-timeout", "7"]) == 0
    capsys.readouterr()
    assert (seen[1].timeout, seen[1].reference_timeout) == (LOCAL_RESOLVER_TIMEOUT, 7)


def test_local_with_an_endpoint_is_refused(tmp_path, capsys, fake_local_model):
    assert main(["resolve", write(tmp_path, {"query": "Santé"}), "--local", "--model", "m"]) == 2
    assert "--local" in capsys.readouterr().err


def test_local_without_the_local_extra_names_the_install_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # hidden, whether or not this machine has it
    from lightrag_resolve.local import _gguf

    monkeypatch.setattr(_gguf, "assemble_gguf", lambda *a, **k: tmp_path / "absent.gguf")
    import lightrag_resolve.local._llm as local_llm

    monkeypatch.setattr(local_llm, "assemble_gguf", lambda *a, **k: tmp_path / "absent.gguf")
    assert main(["resolve", write(tmp_path, {"query": "Santé"}), "--local"]) == 2
    assert "install-local.sh" in capsys.readouterr().err
