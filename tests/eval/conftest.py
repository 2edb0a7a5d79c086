"""Shared fixtures of the evaluation tests: the test doubles of ``tests/`` and a tiny dataset."""

from __future__ import annotations

import logging
import sys
import uuid
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, Path(__file__).resolve().parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from fakes import hashed_trigram_embedding, offline_tokenizer  # noqa: E402
from tiny import scripted_llm, write_dataset  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet_lightrag() -> None:
    logging.getLogger("lightrag").setLevel(logging.WARNING)


@pytest.fixture
def tiny_dataset(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "tiny")


@pytest.fixture
def models() -> dict:
    """An LLM, an embedding and a tokenizer that need no network and no weights."""
    return {"llm": scripted_llm(), "embedding": hashed_trigram_embedding(), "tokenizer": offline_tokenizer()}


@pytest.fixture
def workspace() -> str:
    """A workspace of its own: LightRAG instances sharing one share their data in a process."""
    return f"eval_test_{uuid.uuid4().hex[:10]}"
