"""The library logger ``lightrag_resolve``: one INFO line per resolved turn, fallbacks at DEBUG,
no visitor text above DEBUG, and no logging configuration of its own."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import ScriptedLLM, keyword_json
from lightrag import QueryParam

from lightrag_resolve import Message, Resolution, Resolver, ResolverConfig, ResolvingLightRAG, Turn
from lightrag_resolve._observe.report import report

LOGGER = "lightrag_resolve"
HISTORY = (
    Message(role="user", content="Quelles offres avez-vous ?"),
    # A statement, not a question: a reply to it carries no context (contract §5.6), so a fallback changes nothing.
    Message(role="assistant", content="Nous avons une offre Santé, une offre BTP et Pulse POS pour le commerce."),
)
REFERENCE_QUERY = "Quelles enseignes l'ont déjà installée chez elles ?"
# Every piece of conversation or model text the scenarios below produce.
TEXTS = ["Santé", "santé", "Vitalis", "enseignes", "Pulse POS", "Quel secteur", "offres", "The visitor"]

RESOLVED = [
    ("keywords", "mix", "Santé", keyword_json(["Offre Santé", "Vitalis"], ["santé"])),
    ("text", "naive", "Santé", "offre Santé Vitalis"),
    ("reference", "mix", REFERENCE_QUERY, "RESOLVE: Pulse POS"),
]
FALLBACKS = [
    ("keywords", "mix", "Santé", RuntimeError("model down: Santé"), "llm_error"),
    ("keywords", "mix", "Santé", "NONE", "empty"),
    ("keywords", "mix", "Santé", keyword_json(["Offre Santé"], []), "incomplete"),
    ("text", "naive", "Santé", "The visitor wants Santé", "scaffold"),
    ("reference", "naive", REFERENCE_QUERY, "KEEP", "keep"),  # in graph modes its own words stand in
    ("reference", "naive", REFERENCE_QUERY, "AMBIGUOUS", "ambiguous"),
    ("reference", "mix", REFERENCE_QUERY, "RESOLVE: Orbit CRM", "rejected:not_in_history"),
]


def turn(query: str, mode: str, history=HISTORY) -> Turn:
    return Turn(query=query, history=tuple(history), mode=mode, company_name="Helix")


async def resolve(query: str, mode: str, reply: Any, path: str, **config: Any) -> Resolution:
    resolver = Resolver(ResolverConfig(company_name="Helix", **config))
    return await resolver.resolve(turn(query, mode), llm=ScriptedLLM(replies={path: reply}), model="m")


def ours(caplog: pytest.LogCaptureFixture, level: int | None = None) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if record.name == LOGGER and (level is None or record.levelno == level)
    ]


def assert_no_text_above_debug(records: list[logging.LogRecord]) -> None:
    for record in records:
        if record.levelno <= logging.DEBUG:
            continue
        shown = record.getMessage() + (logging.Formatter().formatException(record.exc_info) if record.exc_info else "")
        for text in TEXTS:
            assert text not in shown, (text, shown)


def _fresh_process(script: str, **environ: str) -> str:
    import os

    env = {key: value for key, value in os.environ.items() if key != "LIGHTRAG_RESOLVE_LOG_LEVEL"} | environ
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    return done.stdout.strip() + done.stderr


def test_the_library_adds_no_handler_and_quiets_only_its_own_info_lines():
    """In a fresh process: no handler on its logger or the root; its own level WARNING, so INFO is opt-in."""
    script = (
        "import logging; import lightrag; root = list(logging.getLogger().handlers);"
        "import lightrag_resolve, lightrag_resolve.cli, lightrag_resolve.openai_compat;"
        "ours = logging.getLogger('lightrag_resolve');"
        "assert logging.getLogger().handlers == root, logging.getLogger().handlers;"
        "assert ours.handlers == [] and ours.propagate and ours.level == logging.WARNING, ours;"
        "print('ok')"
    )
    assert _fresh_process(script) == "ok"


def test_the_variable_or_the_application_turns_the_info_lines_on():
    shown = "import lightrag_resolve, logging; print(logging.getLevelName(logging.getLogger('lightrag_resolve').level))"
    assert _fresh_process(shown, LIGHTRAG_RESOLVE_LOG_LEVEL="info") == "INFO"
    chosen_first = "import logging; logging.getLogger('lightrag_resolve').setLevel(logging.DEBUG);" + shown
    assert _fresh_process(chosen_first) == "DEBUG"  # an application's own choice is kept


def test_a_malformed_level_is_a_warning_and_the_default():
    from lightrag_resolve._log_level import default_level

    with pytest.warns(UserWarning, match="LIGHTRAG_RESOLVE_LOG_LEVEL"):
        assert default_level({"LIGHTRAG_RESOLVE_LOG_LEVEL": "loud"}) == logging.WARNING
    assert default_level({"LIGHTRAG_RESOLVE_LOG_LEVEL": " debug "}) == logging.DEBUG
    assert default_level({}) == logging.WARNING


def test_a_root_logger_at_info_does_not_print_the_per_turn_line_unless_asked():
    """nano-vectordb sets the root logger to INFO on import; the library's own line still waits to be asked for."""
    script = (
        "import nano_vectordb, lightrag_resolve;"
        "from lightrag_resolve import Resolution, ResolverConfig; from lightrag_resolve._observe.report import report;"
        "report(Resolution(query='B1 — German B1', original_query='B1', mode='mix', path='keywords',"
        " ll_keywords=('German B1',), hl_keywords=('German',)), ResolverConfig())"
    )
    quiet = _fresh_process(script + ";print('done')")
    assert quiet.startswith("done") and "resolved turn" not in quiet
    assert "resolved turn: path=keywords" in _fresh_process(script, LIGHTRAG_RESOLVE_LOG_LEVEL="INFO")


@pytest.mark.parametrize(("path", "mode", "query", "reply"), RESOLVED)
async def test_a_resolved_turn_logs_one_info_line_without_text(caplog, path, mode, query, reply):
    resolution = await resolve(query, mode, reply, path)
    assert resolution.changed
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    report(resolution, ResolverConfig())
    info = ours(caplog, logging.INFO)
    assert len(info) == 1
    assert f"path={path}" in info[0].getMessage() and f"mode={mode}" in info[0].getMessage()
    assert_no_text_above_debug(ours(caplog))
    debug = [record.getMessage() for record in ours(caplog, logging.DEBUG)]
    assert any(query in message for message in debug)  # the visitor's words: DEBUG only


@pytest.mark.parametrize(("path", "mode", "query", "reply", "reason"), FALLBACKS)
async def test_a_fallback_logs_at_debug_only(caplog, path, mode, query, reply, reason):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    resolution = await resolve(query, mode, reply, path)
    assert resolution.fallback_reason == reason
    caplog.clear()
    report(resolution, ResolverConfig())
    assert [record.levelno for record in ours(caplog)] == [logging.DEBUG]
    assert f"reason={reason}" in ours(caplog)[0].getMessage()


@pytest.mark.parametrize("resolution", [
    Resolution(query="Santé", original_query="Santé", mode="mix", path="first_turn", fallback_reason="first_turn"),
    Resolution(query="Santé", original_query="Santé", mode="bypass", path="bypass"),
    Resolution(query="Santé", original_query="Santé", mode="mix", path="disabled", fallback_reason="disabled"),
])
def test_untouched_turns_log_at_debug_only(caplog, resolution):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    report(resolution, ResolverConfig())
    assert [record.levelno for record in ours(caplog)] == [logging.DEBUG]
    assert_no_text_above_debug(ours(caplog))


def test_a_raising_hook_is_logged_as_a_warning_and_swallowed(caplog):
    def hook(resolution: Resolution) -> None:
        raise ValueError("observer broke")

    resolution = Resolution(query="Santé", original_query="Santé", mode="mix", path="first_turn", fallback_reason="first_turn")
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    report(resolution, ResolverConfig(on_resolution=hook))
    warnings = ours(caplog, logging.WARNING)
    assert len(warnings) == 1 and "on_resolution" in warnings[0].getMessage()
    assert_no_text_above_debug(ours(caplog))


def test_without_debug_nothing_about_fallbacks_is_emitted(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    resolution = Resolution(query="Santé", original_query="Santé", mode="mix", path="keywords", fallback_reason="empty")
    report(resolution, ResolverConfig())
    assert ours(caplog) == []


# ---- through a real ResolvingLightRAG: exactly one line per query ------------------------------


@pytest.fixture
def logged_rag(make_rag):
    async def build(llm: ScriptedLLM) -> ResolvingLightRAG:
        return await make_rag(llm, resolver=ResolverConfig(company_name="Helix"))

    return build


HISTORY_DICTS = [{"role": message.role, "content": message.content} for message in HISTORY]
QUERIES = [
    ("keywords", "mix", "Santé", keyword_json(["Offre Santé"], ["santé"]), True),
    ("reference", "mix", REFERENCE_QUERY, "RESOLVE: Pulse POS", True),
    ("reference", "hybrid", REFERENCE_QUERY, "KEEP", True),  # the message's own words stand in as keywords
    ("reference", "hybrid", REFERENCE_QUERY, RuntimeError("model down: the check"), False),
    ("keywords", "local", "Santé", RuntimeError("model down: Santé"), False),
]


@pytest.mark.parametrize(("path", "mode", "query", "reply", "resolved"), QUERIES)
async def test_each_query_logs_once(caplog, logged_rag, path, mode, query, reply, resolved):
    rag = await logged_rag(ScriptedLLM(replies={path: reply}))
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    caplog.clear()
    await rag.aquery_data(query, QueryParam(mode=mode, conversation_history=HISTORY_DICTS))
    summary = [r for r in ours(caplog) if r.getMessage().startswith(("resolved turn", "turn not resolved"))]
    assert len(summary) == 1
    assert summary[0].levelno == (logging.INFO if resolved else logging.DEBUG)
    assert_no_text_above_debug(ours(caplog))
