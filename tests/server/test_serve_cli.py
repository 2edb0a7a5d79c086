"""``lightrag-resolve serve``'s start-up: LightRAG's arguments, RESOLVER_* errors, the seam check.

LightRAG's server parses ``sys.argv`` when imported, so the seam test runs in
a subprocess; the command-line tests stop before that import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from harness import require_server_deps

import lightrag_resolve
from lightrag_resolve.cli import main

pytestmark = pytest.mark.server

HERE = Path(__file__).parent


@pytest.fixture
def clean_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No RESOLVER_* from outside, an empty working directory, and sys.argv restored afterwards."""
    require_server_deps()
    for name in [name for name in os.environ if name.startswith("RESOLVER_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", list(sys.argv))


@pytest.mark.usefixtures("clean_start")
@pytest.mark.parametrize("command", ["serve", "serve-gunicorn"])
def test_every_argument_is_lightrags_and_help_is_lightrags_help(command: str, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: lightrag-resolve {command}")
    assert "--working-dir" in out and "--workers" in out and "--llm-binding" in out


@pytest.mark.usefixtures("clean_start")
def test_a_malformed_resolver_variable_stops_start_up_with_its_name(monkeypatch, capsys):
    monkeypatch.setenv("RESOLVER_HISTORY_MESSAGES", "all")
    assert main(["serve", "--port", "1"]) == 2
    assert "RESOLVER_HISTORY_MESSAGES must be a whole number" in capsys.readouterr().err


@pytest.mark.usefixtures("clean_start")
def test_resolver_variables_may_live_in_lightrags_env_file(tmp_path: Path, capsys):
    (tmp_path / ".env").write_text("RESOLVER_TIMEOUT=never\n")
    try:
        assert main(["serve-gunicorn", "--workers", "2"]) == 2
    finally:
        os.environ.pop("RESOLVER_TIMEOUT", None)  # load_dotenv put it there
    assert "RESOLVER_TIMEOUT must be a positive number" in capsys.readouterr().err


_SEAM_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.argv = ["lightrag-resolve serve"]
    from pydantic import ValidationError
    from lightrag_resolve import ResolverConfig
    from lightrag_resolve.server import _seam
    from lightrag.api import lightrag_server
    from lightrag.api.routers import query_routes

    history = [{"role": "user", "content": "Which level?"}, {"role": "assistant", "content": "A1 or B1?"}]

    def accepts(**body):
        try:
            query_routes.QueryRequest(**body)
            return True
        except ValidationError:
            return False

    report = {"stock_accepts_follow_up": accepts(query="B1", conversation_history=history)}
    _seam.install(ResolverConfig(company_name="Helix"))
    report["class"] = lightrag_server.LightRAG.__mro__[1].__name__
    report["follow_up"] = accepts(query="B1", conversation_history=history)
    report["first_turn"] = accepts(query="B1")
    report["bypass"] = accepts(query="B1", mode="bypass", conversation_history=history)
    _seam.install(ResolverConfig(enabled=False))
    report["follow_up_when_off"] = accepts(query="B1", conversation_history=history)
    # A LightRAG release without the validator this seam replaces.
    query_routes.QueryRequest = type("QueryRequest", (), {})
    try:
        _seam.check()
        report["moved"] = None
    except _seam.SeamError as exc:
        report["moved"] = str(exc)
    print(json.dumps(report))
    """
)


def test_the_seam_defers_only_short_follow_ups_and_fails_clearly_when_lightrag_moves(tmp_path: Path):
    require_server_deps()
    result = subprocess.run(
        [sys.executable, "-c", _SEAM_SCRIPT],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(Path(lightrag_resolve.__file__).parent.parent)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["stock_accepts_follow_up"] is False  # LightRAG alone refuses "B1" before the core
    assert report["class"] == "ResolvingLightRAG"
    assert report["follow_up"] is True
    assert report["first_turn"] is False and report["bypass"] is True  # bypass has no minimum at all
    assert report["follow_up_when_off"] is False
    assert "query_routes.QueryRequest.enforce_rag_query_minimum" in report["moved"]
    assert "lightrag-hku >=1.5.7,<1.6" in report["moved"]
