"""Start ``lightrag-resolve serve`` (or ``serve-gunicorn``) for real, on loopback, against a fake LLM.

Every server runs as a subprocess in its own temporary working directory,
with ``LLM_BINDING=openai`` and ``EMBEDDING_BINDING=openai`` pointing at
``fake_llm_endpoint`` in this process. Waits are bounded; the server's whole
process group is stopped in ``finally``, and its log is shown on failure.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kb import ENTITIES, RELATIONS

HERE = Path(__file__).parent

SERVER_DEPS = ("fastapi", "uvicorn", "gunicorn", "uvicorn_worker", "psutil", "httpx", "jwt")
INSTALL_HINT = 'pip install -e ".[serve,test]"'
START_TIMEOUT = 45.0
REQUEST_TIMEOUT = 30.0


def require_server_deps() -> None:
    """Skip, saying what to install, when LightRAG's API extras are missing."""
    missing = [name for name in SERVER_DEPS if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"server tests need lightrag-hku[api] ({', '.join(missing)} missing): {INSTALL_HINT}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(llm_base_url: str, workdir: Path, **extra: str) -> dict[str, str]:
    """A clean environment: only what the server needs, nothing inherited that LightRAG would read."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(HERE.parent.parent),  # the checkout under test, not another install of the package
        "HOME": str(workdir),
        "LANG": "C.UTF-8",
        "LOG_DIR": str(workdir),
        "LLM_BINDING": "openai",
        "LLM_BINDING_HOST": llm_base_url,
        "LLM_MODEL": "fake-llm",
        "LLM_BINDING_API_KEY": "sk-fake",
        "EMBEDDING_BINDING": "openai",
        "EMBEDDING_BINDING_HOST": llm_base_url,
        "EMBEDDING_MODEL": "fake-embedding",
        "EMBEDDING_DIM": "256",
        "EMBEDDING_BINDING_API_KEY": "sk-fake",
        "ENABLE_LLM_CACHE": "false",
        "RESOLVER_COMPANY_NAME": "Helix",
    }
    env.update(extra)
    return env


@dataclass
class RunningServer:
    base_url: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    # The server runs in its own session: its group is exactly this server and its workers.
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


REPO = HERE.parents[1]

SHIM = (sys.executable, str(HERE / "offline_launcher.py"))
"""The launcher that maps tiktoken to its offline encoding (``offline_launcher.py``)."""

CLI = (sys.executable, "-m", "lightrag_resolve.cli")
"""``lightrag-resolve`` itself, no shim; ``checkout_env`` puts this checkout first on its path."""


def checkout_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` for ``CLI``: this checkout's package, not another copy the environment has installed."""
    return {**env, "PYTHONPATH": str(REPO)}


def offline_env(workdir: Path) -> dict[str, str]:
    """Variables that make any download fail: an empty tiktoken cache and proxies nobody listens on.

    The cache is emptied so that a tiktoken file this machine fetched once cannot hide a download;
    loopback stays direct, so the server still reaches the fake endpoint.
    """
    cache = workdir / "tiktoken-cache"
    cache.mkdir(exist_ok=True)
    dead = f"http://127.0.0.1:{free_port()}"
    return {
        "TIKTOKEN_CACHE_DIR": str(cache),
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "http_proxy": dead,
        "https_proxy": dead,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "HF_HUB_OFFLINE": "1",
    }


@contextmanager
def running_server(
    command: str,
    args: list[str],
    env: dict[str, str],
    workdir: Path,
    *,
    launcher: tuple[str, ...] = SHIM,
    start_timeout: float = START_TIMEOUT,
) -> Iterator[RunningServer]:
    """``lightrag-resolve <command> <args>`` on a free port, ready (``/health``) within ``start_timeout``."""
    import httpx

    port = free_port()
    log = workdir / f"{command}.log"
    argv = [
        *launcher,
        command,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--working-dir",
        str(workdir / "rag"),
        "--input-dir",
        str(workdir / "inputs"),
        *args,
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = RunningServer(base_url=f"http://127.0.0.1:{port}", process=process, log=log)
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited with {process.returncode}:\n{server.log_tail()}")
            try:
                if httpx.get(f"{server.base_url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server was not ready within {start_timeout:.0f} s:\n{server.log_tail()}")
            time.sleep(0.25)
        yield server
    finally:
        _stop(process)


def insert_kb(base_url: str) -> None:
    """The knowledge graph of ``tests/kb.py``, through the server's own graph API."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT) as client:
        for name, kind, description, _ in ENTITIES:
            response = client.post(
                "/graph/entity/create",
                json={"entity_name": name, "entity_data": {"description": description, "entity_type": kind}},
            )
            response.raise_for_status()
        for source, target, description, keywords, _ in RELATIONS:
            response = client.post(
                "/graph/relation/create",
                json={
                    "source_entity": source,
                    "target_entity": target,
                    "relation_data": {"description": description, "keywords": keywords},
                },
            )
            response.raise_for_status()


def post(base_url: str, path: str, body: dict[str, Any]) -> Any:
    import httpx

    return httpx.post(f"{base_url}{path}", json=body, timeout=REQUEST_TIMEOUT)
