"""The server's refusal reasons and its quiet log, as pure functions: no server, no model."""

from __future__ import annotations

import logging

import pytest
from lightrag import QueryParam
from lightrag.query_validation import RAGQueryTooShortError

from lightrag_resolve import Resolution
from lightrag_resolve.server._quiet import DEMOTED, DemotedLines, rerank_if_configured
from lightrag_resolve.server._refusal import (
    REASONS,
    QuietRefusals,
    UnresolvedReplyRefused,
    explaining_refusals,
    reason_in_words,
    remembering,
)

UNPROMPTED = Resolution(query="B1", original_query="B1", mode="mix", path="keywords", fallback_reason="unprompted")


def _record(message: str, level: int = logging.WARNING, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord("lightrag", level, __file__, 1, message, None, exc_info)


# ---- rerank ----------------------------------------------------------------------


def test_without_a_rerank_function_a_query_asks_for_no_rerank_and_the_callers_param_is_kept():
    param = QueryParam(mode="mix", enable_rerank=True)
    quiet = rerank_if_configured(param, None)
    assert quiet.enable_rerank is False and quiet.mode == "mix"
    assert param.enable_rerank is True  # a copy, never the caller's object


def test_with_a_rerank_function_or_without_a_request_for_one_the_param_is_the_same_object():
    asked = QueryParam(enable_rerank=True)
    assert rerank_if_configured(asked, lambda *a: a) is asked
    not_asked = QueryParam(enable_rerank=False)
    assert rerank_if_configured(not_asked, None) is not_asked


# ---- LightRAG's demoted lines ------------------------------------------------------


@pytest.mark.parametrize("message", DEMOTED)
def test_lightrags_empty_keyword_warnings_show_only_at_debug(message: str):
    lightrag_logger = logging.getLogger("lightrag")
    previous = lightrag_logger.level
    try:
        lightrag_logger.setLevel(logging.INFO)
        assert DemotedLines().filter(_record(message)) is False
        lightrag_logger.setLevel(logging.DEBUG)
        record = _record(message)
        assert DemotedLines().filter(record) is True and record.levelno == logging.DEBUG
    finally:
        lightrag_logger.setLevel(previous)


def test_other_lightrag_warnings_pass_unchanged():
    record = _record("Forced low_level_keywords to origin query: x")
    assert DemotedLines().filter(record) is True and record.levelno == logging.WARNING


# ---- the refusal -----------------------------------------------------------------


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_every_reason_is_said_in_words_with_its_name(reason: str):
    said = reason_in_words(
        Resolution(query="B1", original_query="B1", mode="mix", path="keywords", fallback_reason=reason)
    )
    assert said == f"{REASONS[reason]} ({reason})"


def test_a_rejected_name_and_an_unknown_reason_still_get_words():
    rejected = Resolution(
        query="x", original_query="x", mode="mix", path="reference", fallback_reason="rejected:company"
    )
    assert reason_in_words(rejected).endswith("(rejected:company)") and "refused" in reason_in_words(rejected)
    unknown = Resolution(query="x", original_query="x", mode="mix", path="keywords", fallback_reason="new_reason")
    assert reason_in_words(unknown) == "the resolver left it as written (new_reason)"


def test_the_refusal_is_still_lightrags_error_and_keeps_its_message():
    refused = UnresolvedReplyRefused("RAG query is too short.", UNPROMPTED)
    assert isinstance(refused, RAGQueryTooShortError) and isinstance(refused, ValueError)
    assert str(refused).startswith("RAG query is too short. This short reply was not resolved")
    assert "(unprompted)" in str(refused) and "\n" not in str(refused) and refused.resolution is UNPROMPTED


def test_a_refusal_after_a_decided_turn_gets_its_reason_and_one_info_line(caplog):
    hook = remembering(None)
    caplog.set_level(logging.INFO, logger="lightrag_resolve")
    with pytest.raises(UnresolvedReplyRefused) as refused, explaining_refusals():
        hook(UNPROMPTED)
        raise RAGQueryTooShortError("RAG query is too short.")
    assert refused.value.resolution is UNPROMPTED
    (line,) = [r for r in caplog.records if r.name == "lightrag_resolve"]
    assert line.levelno == logging.INFO and "reason=" in line.getMessage() and "(unprompted)" in line.getMessage()
    assert "B1" not in line.getMessage()  # no visitor text above DEBUG


def test_a_refusal_with_no_decided_turn_is_lightrags_own():
    with pytest.raises(RAGQueryTooShortError) as refused, explaining_refusals():
        raise RAGQueryTooShortError("RAG query is too short.")
    assert type(refused.value) is RAGQueryTooShortError


def test_the_hook_outside_a_query_only_calls_the_callers_hook():
    seen: list[Resolution] = []
    remembering(seen.append)(UNPROMPTED)
    assert seen == [UNPROMPTED]


def test_lightrags_error_line_for_an_explained_refusal_is_dropped_and_others_kept():
    refused = UnresolvedReplyRefused("RAG query is too short.", UNPROMPTED)
    assert QuietRefusals().filter(_record("Ollama chat error", logging.ERROR, refused)) is False
    plain = RAGQueryTooShortError("RAG query is too short.")
    assert QuietRefusals().filter(_record("Ollama chat error", logging.ERROR, plain)) is True
    assert QuietRefusals().filter(_record("anything")) is True
