"""Shared fixtures: a hypothesis profile and real LightRAG instances on offline parts."""

from __future__ import annotations

import logging
import os
import sys
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

from fakes import ScriptedLLM  # noqa: E402
from rag_support import offline_rag, stop_queue_workers  # noqa: E402
from traced_spans import Traced  # noqa: E402

settings.register_profile(
    "default", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
settings.register_profile("ci", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.register_profile("fuzz", max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
"""The bounded fuzz of hostile text (issue 13): applied per test, whatever profile is loaded."""
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


_LOGGERS = ("lightrag_resolve", "lightrag", "nano-vectordb")


@pytest.fixture(autouse=True)
def _loggers_as_found():
    """Each test leaves these loggers as it found them (level, handlers, propagation).

    The CLI, the demo and the server set them for their whole process; a test
    that runs one in-process must not change what a later test logs, since
    ``make test`` spreads the tests over workers in an order that changes from
    run to run.
    """
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    saved = [(logger, logger.level, list(logger.handlers), logger.propagate) for logger in loggers]
    yield
    for logger, level, handlers, propagate in saved:
        logger.setLevel(level)
        logger.handlers[:] = handlers
        logger.propagate = propagate


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
def traced() -> Traced:
    """A tracer provider of the test's own, exporting to memory (``traced_spans.Traced``)."""
    return Traced.in_memory()


@pytest.fixture
async def make_rag(tmp_path):
    """Build real (Resolving)LightRAG instances with their own workspace and the test KG."""
    from lightrag_resolve import ResolvingLightRAG

    built = []

    async def build(llm, *, cls=ResolvingLightRAG, insert=True, **kwargs):
        rag = await offline_rag(llm, str(tmp_path / uuid.uuid4().hex), cls=cls, insert=insert, **kwargs)
        built.append(rag)
        return rag

    yield build
    for rag in built:
        await rag.finalize_storages()
        await stop_queue_workers(rag)
