"""The demo command on the bundled sample, with a scripted LLM (a fake) and the test embedding."""

from __future__ import annotations

import io
import logging
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from fakes import ScriptedLLM, hashed_trigram_embedding, keyword_json, offline_tokenizer  # noqa: E402
from lightrag_resolve.cli import demo, main  # noqa: E402
from lightrag_resolve.local import LocalModels as Models  # noqa: E402


@pytest.fixture
def fake_models(monkeypatch):
    llm = ScriptedLLM(
        replies={
            "keywords": keyword_json(["Santé", "Pivotane"], ["secteur santé"]),
            "reference": "RESOLVE: Kadoro",
            "lightrag_keywords": keyword_json(["retailers"], ["retail"]),
        }
    )
    models = Models(
        llm=llm, embedding=hashed_trigram_embedding(), tokenizer=offline_tokenizer(), llm_name="scripted-fake"
    )
    monkeypatch.setattr(demo, "_models", lambda args: models)
    return llm


def test_demo_plays_scripted_turns_and_reuses_its_index(fake_models, tmp_path, capsys):
    assert main(["demo", "--items", "en-short-01,en-ref-01,fr-first-01,en-short-03", "--cache-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "Building the sample index" in err and "embedding the sample graph" in err
    assert "1/4 · en-short-01 · short_reply" in out and "visitor: Santé" in out
    assert "understood: the meaning “Santé Pivotane” · keywords: Santé, Pivotane · themes: secteur santé" in out
    # The fake answers the check in one line, without keywords: the message's own words stand in.
    kadoro = (
        r"understood: the name “Kadoro” · keywords: Kadoro, retailers, already, run · themes: retailers, already, run"
    )
    assert re.search(kadoro + r"  \(reference check, \d+\.\d s\)", out)
    assert "understood: the meaning “B1 Vellinor”  (short reply, no model call)" in out  # naive: the pick, in code
    assert re.search(r"secteur santé  \(short reply, \d+\.\d s\)", out)  # the resolver's call and its time
    assert "understood: searched as written: a first turn, nothing to resolve\n" in out  # nothing ran: no tag
    assert "retrieval text" not in out and " — " not in out  # what was understood, never the whole search text
    assert out.count("without:") == 4 and out.count("with:") == 4
    assert "4 turns, 3 resolved." in out
    assert main(["demo", "--items", "en-short-01", "--cache-dir", str(tmp_path)]) == 0
    assert "Building the sample index" not in capsys.readouterr().err


def test_demo_interactive_answers_from_the_resolved_turn(fake_models, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(
        sys,
        "stdin",
        io.StringIO("/assistant Pivotane pour la Santé, Chantio pour le BTP : quel secteur ?\nSanté\n/quit\n"),
    )
    assert main(["demo", "--no-script", "--interactive", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "visitor: Santé" in out and "understood: the meaning" in out
    assert "assistant: An answer from the context." in out
    answer_call = [c for c in fake_models.calls if c.role == "answer"][-1]
    assert "Pivotane" in answer_call.system_prompt  # the answer was written from the resolved retrieval


def test_demo_interactive_answers_a_resolved_reply_below_lightrags_minimum(fake_models, tmp_path, capsys, monkeypatch):
    # "B1" is lighter than LightRAG's 3-character minimum: only the resolved turn may reach retrieval.
    fake_models.replies["keywords"] = keyword_json(["B1"], ["Parcours Cerclia level"])
    question = "/assistant The Parcours Cerclia comes in three levels: A1, B1 or C1. Which level suits you?"
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{question}\nB1\n/quit\n"))
    assert main(["demo", "--no-script", "--interactive", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "visitor: B1" in out and "keywords: B1 · themes: Parcours Cerclia level" in out
    without, resolved = (line for line in out.splitlines() if line.lstrip().startswith(("without:", "with:")))
    assert "refused by LightRAG" in without and "refused" not in resolved  # the words alone are too short
    assert "assistant: An answer from the context." in out
    assert fake_models.count("keywords") == 1  # the answer reused the turn's resolution, no second resolver call


def test_demo_interactive_shows_lightrags_refusal_of_an_unresolved_reply(fake_models, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("OK\n/quit\n"))  # a first turn: nothing to resolve it against
    assert main(["demo", "--no-script", "--interactive", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "searched as written: a first turn" in out and "refused by LightRAG" in out
    assert fake_models.count("answer") == 0


class RecordedLines(logging.Handler):
    """What reaches a logger's handlers: exactly what LightRAG's own stderr handler would print."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname}: {record.getMessage()}")


@pytest.fixture
def lightrag_lines():
    recorded = RecordedLines()
    logger = logging.getLogger("lightrag")
    logger.addHandler(recorded)
    yield recorded.lines
    logger.removeHandler(recorded)


def test_demo_prints_no_warning_of_lightrag_unless_verbose(fake_models, tmp_path, lightrag_lines, capsys):
    # LightRAG's own extraction finds no low-level keyword: it warns on its own stderr handler, mid-turn.
    fake_models.replies["lightrag_keywords"] = keyword_json([], ["retail"])
    assert main(["demo", "--items", "fr-first-01", "--cache-dir", str(tmp_path)]) == 0
    assert lightrag_lines == []
    assert "understood:" in capsys.readouterr().out
    assert main(["demo", "--items", "fr-first-01", "--cache-dir", str(tmp_path), "--verbose"]) == 0
    assert "WARNING: low_level_keywords is empty" in lightrag_lines  # --verbose shows LightRAG's lines as they are


def test_the_demo_process_prints_no_line_of_another_library(tmp_path):
    """The command as a user runs it, in its own process: stdout and stderr hold the demo's lines only."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent.parent)!r})
        from fakes import ScriptedLLM, hashed_trigram_embedding, keyword_json, offline_tokenizer
        from lightrag_resolve.cli import demo, main
        from lightrag_resolve.local import LocalModels

        replies = {{"keywords": keyword_json(["Santé"], ["secteur santé"]), "lightrag_keywords": keyword_json([], ["x"])}}
        models = LocalModels(llm=ScriptedLLM(replies=replies), embedding=hashed_trigram_embedding(), tokenizer=offline_tokenizer())
        demo._models = lambda args: models
        raise SystemExit(main(["demo", "--items", "fr-first-01,fr-short-02", "--cache-dir", {str(tmp_path)!r}]))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "understood:" in done.stdout
    foreign = [line for line in (done.stdout + done.stderr).splitlines() if "WARNING" in line or "INFO" in line]
    assert foreign == []


def test_demo_restores_the_log_levels_it_quieted(fake_models, tmp_path):
    before = {name: logging.getLogger(name).level for name in demo.QUIET_LOGGERS}
    assert main(["demo", "--items", "fr-first-01", "--cache-dir", str(tmp_path)]) == 0
    assert {name: logging.getLogger(name).level for name in demo.QUIET_LOGGERS} == before


def test_demo_rejects_unknown_items(fake_models, tmp_path, capsys):
    assert main(["demo", "--items", "nope", "--cache-dir", str(tmp_path)]) == 2
    assert "unknown item id(s): nope" in capsys.readouterr().err


def test_demo_without_the_local_extra_names_the_install(tmp_path, capsys, monkeypatch):
    from lightrag_resolve.local import LocalLLM, ModelNotInstalledError
    from lightrag_resolve.local._errors import INSTALL_HINT

    def missing(*args, **kwargs):
        raise ModelNotInstalledError(f"llama-cpp-python is not installed. Install it with: {INSTALL_HINT}")

    monkeypatch.setattr(LocalLLM, "load", missing)
    assert main(["demo", "--cache-dir", str(tmp_path)]) == 2
    assert "lightrag-resolve[local]" in capsys.readouterr().err
