"""LightRAG's web UI chats with resolution, in a real browser: Debian's Chromium, headless, on 127.0.0.1.

``lightrag-resolve serve --sample`` runs on the fake model endpoint; Playwright
drives Debian's Chromium (``executable_path``: Playwright's own browser download
is never used). On the UI's retrieval page, two turns of the sample's
``en-short-03``: the Cerclia question, whose scripted answer asks which level,
then "Yes, B1" (the UI refuses a message under three characters before sending
it, so not "B1" alone). The server side says what happened: the UI's second
request carried the chat, the resolver was asked about the reply with the
assistant's question, the server logged the turn resolved, and the answer was
written from a context that holds the Parcours Cerclia document (``doc-20``).
After the UI's Clear, the same reply is sent without a chat and is not resolved.

Marked ``browser`` (``make test-browser`` installs Chromium and Playwright). With
``WEBUI_SCREENSHOT=<path>`` the two-turn chat is also saved there as a PNG (the
one in ``docs/`` was made so).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_llm_endpoint import FakeLLMEndpoint, lightrag_keywords, fake_llm_endpoint
from fakes import keyword_json
from harness import RunningServer, require_server_deps, running_server, server_env

from lightrag_resolve.sample import load_items
from lightrag_resolve.server._webui_bundle import QUERY_SETTINGS_KEY, query_settings_defaults, webui_folder

pytestmark = [pytest.mark.browser, pytest.mark.server]

CHROMIUM = os.environ.get("LIGHTRAG_RESOLVE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
INSTALL_HINT = "make test-browser (apt-get install chromium; pip install -e '.[browser]')"

ITEM = next(item for item in load_items() if item["id"] == "en-short-03")
QUESTION = ITEM["history"][0]["content"]  # "I'd like my team to get trained on Cerclia."
ASKS_LEVEL = "The Parcours Cerclia comes in three levels: A1, B1 and C1. Which level fits your team best?"
"""The scripted first answer: the sample's own, shortened. The fake embedding (hashed trigrams) ranks chunks by
every word of the retrieval text, which carries this question; with the sample's long answer it ranks English
Cerclia documents above the French ``doc-20`` among the three chunks kept here."""
REPLY = "Yes, B1"
B1_ANSWER = "The B1 level of the Parcours Cerclia takes two days: campaigns, segments and data import."
RIGHT_DOCUMENT = ITEM["relevant"][0]  # doc-20, the Parcours Cerclia
RETRIEVAL = {"top_k": 5, "chunk_top_k": 3}
"""The visitor's own retrieval settings, stored as the UI stores them: few chunks, so the right one must rank."""

TURN_TIMEOUT_MS = 60_000


def _script(role: str, system: str, user: str) -> str:
    if role == "keywords":  # the resolver, asked about the short reply
        return keyword_json(["Parcours Cerclia", "B1"], ["CRM training level"]) if f"Reply: {REPLY}" in user else "NONE"
    if role == "lightrag_keywords":
        return lightrag_keywords(user)
    if role == "reference":
        return "KEEP"
    if role == "answer":
        return B1_ANSWER if REPLY in user else ASKS_LEVEL
    return "NONE"


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMEndpoint]:
    require_server_deps()
    with fake_llm_endpoint(_script) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def server(llm: FakeLLMEndpoint, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    workdir: Path = tmp_path_factory.mktemp("webui")
    env = server_env(llm.base_url, workdir)
    del env["RESOLVER_COMPANY_NAME"]  # --sample supplies it
    with running_server("serve", ["--sample"], env, workdir, start_timeout=120) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"Debian's Chromium is not installed: {INSTALL_HINT}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(f"Playwright is not installed: {INSTALL_HINT}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


def _stored_settings(page: Any) -> dict[str, Any]:
    return json.loads(page.evaluate(f"localStorage.getItem({json.dumps(QUERY_SETTINGS_KEY)})"))


def _ask(page: Any, text: str, answer: str) -> None:
    box = page.get_by_placeholder("Enter your query (Support prefix: /<Query Mode>)")
    box.fill(text)
    box.press("Enter")
    page.get_by_text(answer).last.wait_for(timeout=TURN_TIMEOUT_MS)
    page.get_by_role("button", name="Send").wait_for(timeout=TURN_TIMEOUT_MS)  # the turn is over: Stop is gone


def _answer_calls(llm: FakeLLMEndpoint, since: int) -> list[Any]:
    return [call for call in llm.calls[since:] if call.role == "answer"]


def _context(answer_prompt: str) -> tuple[list[str], list[str]]:
    """The documents and the entities of the context LightRAG wrote an answer from, in its order."""
    documents = re.findall(r"^\[\d+\] (\S+)$", answer_prompt, flags=re.MULTILINE)
    entities = [json.loads(line)["entity"] for line in answer_prompt.splitlines() if line.startswith('{"entity": ')]
    return documents, entities


def test_the_web_ui_sends_its_chat_and_the_follow_up_is_resolved_to_the_right_document(
    server: RunningServer, llm: FakeLLMEndpoint, browser: Any, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1200, "height": 600})
    queries: list[dict[str, Any]] = []
    page.on("request", lambda r: queries.append(r.post_data_json) if r.url.endswith("/query/stream") else None)
    page.goto(f"{server.base_url}/webui/")
    page.get_by_role("tab", name="Retrieval").click()

    # A new browser: the UI's own defaults are stored, with history_turns raised from 0.
    defaults = query_settings_defaults(webui_folder())
    assert _stored_settings(page) == {"state": {"querySettings": {**defaults, "history_turns": 3}}, "version": 1}
    # The visitor's own settings, as the UI stores them after a change (history_turns back to 0): kept, raised again.
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, JSON.stringify(value))",
        [QUERY_SETTINGS_KEY, {"state": {"querySettings": {**defaults, **RETRIEVAL, "history_turns": 0}}, "version": 1}],
    )
    page.reload()
    assert _stored_settings(page)["state"]["querySettings"] == {**defaults, **RETRIEVAL, "history_turns": 3}

    since = len(llm.calls)
    _ask(page, QUESTION, ASKS_LEVEL)
    _ask(page, REPLY, B1_ANSWER)
    screenshot = tmp_path / "webui-resolved-chat.png"
    page.screenshot(path=str(screenshot))
    if os.environ.get("WEBUI_SCREENSHOT"):
        shutil.copyfile(screenshot, os.environ["WEBUI_SCREENSHOT"])

    first, second = queries[-2:]
    assert first["query"] == QUESTION and first["conversation_history"] == []
    assert second["query"] == REPLY and {key: second[key] for key in RETRIEVAL} == RETRIEVAL
    assert second["conversation_history"] == [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": ASKS_LEVEL},
    ]
    resolver_calls = [call for call in llm.calls[since:] if call.role == "keywords"]
    assert len(resolver_calls) == 1
    assert f"Reply: {REPLY}" in resolver_calls[0].user and "Which level fits your team best" in resolver_calls[0].user
    assert "resolved turn: path=keywords mode=mix" in server.log_tail(80)
    answers = _answer_calls(llm, since)
    assert len(answers) == 2
    documents, entities = _context(answers[1].system)
    assert RIGHT_DOCUMENT in documents and entities[0] == "Parcours Cerclia", (documents, entities)
    assert [message["content"] for message in answers[1].messages[1:-1]] == [QUESTION, ASKS_LEVEL]

    # The UI's Clear starts a new chat: the same reply goes alone, a first turn, not resolved.
    since = len(llm.calls)
    page.get_by_role("button", name="Clear").click()
    _ask(page, REPLY, B1_ANSWER)
    assert queries[-1]["query"] == REPLY and queries[-1]["conversation_history"] == []
    assert [call.role for call in llm.calls[since:] if call.role == "keywords"] == []
    _, alone = _context(_answer_calls(llm, since)[-1].system)
    assert alone[0] != "Parcours Cerclia", alone  # LightRAG's own keywords for "Yes, B1"
    page.close()
