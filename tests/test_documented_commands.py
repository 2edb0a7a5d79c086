"""The commands the docs show, run or parsed against the code, so the docs cannot drift from it.

Every ``$ lightrag-resolve ...`` example of docs/command-line.md that runs offline
and fast is run as written (its endpoint replaced by a fake OpenAI-compatible
server on 127.0.0.1 that gives the answer the page says it shows), and each
line of output the page shows must be printed. Commands that need the local
model or start a server are not run: each flag they use must be one the
command takes (its parser, or its ``--help`` for ``serve``, which prints
LightRAG's options too). Counts the pages state are checked against the code.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from openai_server import fake_chat_server

from lightrag_resolve.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
COMMAND_LINE = ROOT / "docs" / "command-line.md"
PAGES = [ROOT / "README.md", COMMAND_LINE, ROOT / "docs" / "serving.md"]

RESOLVE_ANSWER = '{"low_level_keywords": ["offre Santé"], "high_level_keywords": ["santé"]}'
"""The model answer docs/command-line.md says its ``resolve`` output was shown for."""


def console_examples(page: Path) -> list[tuple[str, list[str]]]:
    """Each ``$ command`` of the page's console blocks (continuation lines joined) and the lines shown after it."""
    examples: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.DOTALL):
        lines = block.splitlines()
        index = 0
        while index < len(lines):
            if not lines[index].startswith("$ "):
                index += 1
                continue
            command = lines[index][2:]
            while command.endswith("\\"):
                index += 1
                command = command[:-1] + " " + lines[index].strip()
            index += 1
            shown: list[str] = []
            while index < len(lines) and not lines[index].startswith("$ "):
                shown.append(lines[index])
                index += 1
            examples.append((command, shown))
    return examples


def documented_invocations() -> list[tuple[str, str]]:
    """``(page, command)`` for every ``lightrag-resolve`` command in the pages' code blocks."""
    found: list[tuple[str, str]] = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```(?:console|bash)\n(.*?)```", text, flags=re.DOTALL):
            for line in block.replace("\\\n", " ").splitlines():
                match = re.search(r"lightrag-resolve (\w[\w-]*)([^#|]*)", line)
                if match:
                    found.append((page.name, f"{match.group(1)}{match.group(2)}".strip()))
    return found


def _runnable() -> list[tuple[str, list[str]]]:
    return [(command, shown) for command, shown in console_examples(COMMAND_LINE) if "--llm-base-url" in command]


def test_the_pages_show_examples_and_the_resolve_example_is_runnable():
    assert _runnable(), "docs/command-line.md shows no runnable resolve example"
    assert len(documented_invocations()) >= 6


@pytest.mark.parametrize(("command", "shown"), _runnable())
def test_a_documented_resolve_example_prints_what_the_page_shows(command: str, shown: list[str], tmp_path: Path):
    shim = tmp_path / "bin" / "lightrag-resolve"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lightrag_resolve.cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        "PATH": f"{shim.parent}:{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
    }
    with fake_chat_server({"keywords": RESOLVE_ANSWER}) as server:
        run = re.sub(r"--llm-base-url \S+", f"--llm-base-url {server.base_url}", command)
        done = subprocess.run(["bash", "-c", run], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    json.loads(done.stdout)  # the whole output is the Resolution as JSON
    position = 0
    for line in shown:
        if line.strip() == "...":
            continue
        assert line in printed[position:], f"the page shows {line!r}; the command printed:\n{done.stdout}"
        position = printed.index(line, position) + 1
    assert position, "nothing was compared"


PARSED = ("resolve", "demo", "eval")


@pytest.mark.parametrize(("page", "command"), [c for c in documented_invocations() if c[1].split()[0] in PARSED])
def test_every_documented_flag_of_a_command_parses(page: str, command: str):
    argv = shlex.split(command)
    if argv[0] == "resolve" and not any(not word.startswith("-") for word in argv[1:]):
        argv.append("-")  # an example that feeds stdin without naming it
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{page}: `lightrag-resolve {command}` does not parse (exit {exc.code})")


@pytest.fixture(scope="module")
def serve_help() -> str:
    pytest.importorskip("fastapi", reason='serve needs the serve extra: pip install -e ".[serve]"')
    done = subprocess.run(
        [sys.executable, "-m", "lightrag_resolve.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT / "docs",  # no .env there
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("page", "command"), [c for c in documented_invocations() if c[1].split()[0] == "serve"])
def test_every_documented_flag_of_serve_is_in_its_help(page: str, command: str, serve_help: str):
    flags = [word.split("=")[0] for word in shlex.split(command) if word.startswith("--")]
    missing = [flag for flag in flags if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", serve_help)]
    assert not missing, f"{page}: `lightrag-resolve {command}` uses {missing}, which serve --help does not list"


def test_the_demo_page_states_the_samples_item_count():
    from lightrag_resolve.sample import load_items

    text = COMMAND_LINE.read_text(encoding="utf-8")
    (count,) = re.findall(r"`--all` plays all (\d+)", text)
    assert int(count) == len(load_items())
    assert f"and {len(load_items())} scripted conversations" in text.replace("\n", " ")
