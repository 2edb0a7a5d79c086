"""The served history default of LightRAG's web UI (``server/_webui.py``, ``server/_webui_bundle.py``).

The bundle check and the reading of the UI's defaults run on the installed
LightRAG and on doctored copies of its web UI; the page wrapper on a small
Starlette app; one real server shows the two UI pages carrying the script and
every asset of LightRAG's served byte for byte. The script's effect in a
browser is ``test_webui_browser.py``'s (``make test-browser``).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_llm_endpoint import fake_llm_endpoint, kb_script
from harness import RunningServer, require_server_deps, running_server, server_env

from lightrag_resolve import ResolverConfig
from lightrag_resolve._lightrag.seam import SeamError
from lightrag_resolve.server._webui import (
    HISTORY_TURNS,
    HistoryDefaultPages,
    history_script,
    history_turns,
    webui_script,
    with_script,
)
from lightrag_resolve.server._webui_bundle import (
    QUERY_SETTINGS_KEY,
    WEBUI,
    check,
    parse_object_literal,
    query_settings_defaults,
    webui_folder,
)

LIGHTRAG_DEFAULTS = {
    "mode": "mix",
    "top_k": 40,
    "chunk_top_k": 20,
    "max_entity_tokens": 6000,
    "max_relation_tokens": 8000,
    "max_total_tokens": 30000,
    "only_need_context": False,
    "only_need_prompt": False,
    "stream": True,
    "history_turns": 0,
    "user_prompt": "",
    "disable_user_prompt_prefix": False,
    "enable_rerank": True,
}
"""LightRAG 1.5.7's web UI defaults for its query settings, as its bundle writes them."""


@pytest.fixture(scope="module")
def folder() -> Path:
    found = webui_folder()
    if found is None:
        pytest.skip("this LightRAG install has no built web UI")
    return found


def _copy(folder: Path, destination: Path) -> Path:
    """The entry pages and scripts of the web UI (what the check reads), copied to be doctored."""
    (destination / "assets").mkdir(parents=True)
    for path in [*folder.glob("*.html"), *folder.glob("assets/*.js")]:
        shutil.copyfile(path, destination / path.relative_to(folder))
    return destination


# ---- the bundle ------------------------------------------------------------------


def test_the_installed_web_ui_holds_every_declared_piece_and_its_defaults_read_as_lightrags(folder: Path):
    check(folder)
    assert query_settings_defaults(folder) == LIGHTRAG_DEFAULTS


def test_a_web_ui_without_a_declared_piece_stops_start_up_naming_each_missing_one(folder: Path, tmp_path: Path):
    copy = _copy(folder, tmp_path / "webui")
    for path in copy.glob("assets/*.js"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(".history_turns||0", ".historyTurns||0").replace("=`settings-storage`", "=`s`"))
    with pytest.raises(SeamError) as raised:
        check(copy)
    message = str(raised.value)
    missing = [piece for piece in WEBUI if piece.pattern in message]
    assert [piece.pattern for piece in missing] == [r"\.history_turns\|\|0", r"=`settings-storage`"]
    assert "the query request reads history_turns" in message and "lightrag-hku >=1.5.7,<1.6" in message


def test_defaults_that_are_not_plain_values_are_refused(folder: Path, tmp_path: Path):
    copy = _copy(folder, tmp_path / "webui")
    for path in copy.glob("assets/*.js"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("stream:!0,history_turns:0,", "stream:f(),history_turns:0,"))
    with pytest.raises(SeamError, match="no plain defaults with history_turns 0"):
        query_settings_defaults(copy)


@pytest.mark.parametrize(
    ("literal", "parsed"),
    [
        ("{}", {}),
        (
            "{mode:`mix`,top_k:40,max:3e4,ratio:0.5,on:!0,off:!1,text:``}",
            {
                "mode": "mix",
                "top_k": 40,
                "max": 30000,
                "ratio": 0.5,
                "on": True,
                "off": False,
                "text": "",
            },
        ),
        ("{a:`x, b:1`}", {"a": "x, b:1"}),
        ("{mode:`${x}`}", None),  # a substitution: not a plain value
        ("{mode:e}", None),
        ("{a:{b:1}}", None),
        ("{a:1,}", None),
    ],
)
def test_only_plain_object_literals_are_read(literal: str, parsed: dict | None):
    assert parse_object_literal(literal) == parsed


# ---- the script ------------------------------------------------------------------


def test_the_script_carries_the_uis_key_its_defaults_and_the_turns_and_cannot_close_its_element():
    script = history_script({**LIGHTRAG_DEFAULTS, "user_prompt": "</script><b>"}, 4).decode()
    assert script.startswith("<script>") and script.endswith("</script>") and script.count("</script>") == 1
    settings = json.loads(re.search(r"\}\)\((\{.*\})\);</script>$", script).group(1).replace("<\\/", "</"))
    assert settings["key"] == QUERY_SETTINGS_KEY and settings["version"] == 1 and settings["turns"] == 4
    assert settings["defaults"]["user_prompt"] == "</script><b>" and settings["defaults"]["history_turns"] == 0


def test_the_ui_sends_three_pairs_or_as_many_as_the_resolvers_read():
    assert history_turns(ResolverConfig()) == HISTORY_TURNS == 3
    assert history_turns(ResolverConfig(history_messages=9)) == 5


def test_no_script_when_the_resolver_is_off(folder: Path):
    assert webui_script(ResolverConfig(enabled=False)) is None
    assert webui_script(ResolverConfig()) == history_script(LIGHTRAG_DEFAULTS, 3)


# ---- the pages -----------------------------------------------------------------

SCRIPT = b"<script>seed()</script>"
PAGE = b"<html><head><title>t</title></head><body>x</body></html>"


def _client():
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, Response, StreamingResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    async def chunks():
        yield PAGE[:20]
        yield PAGE[20:]

    routes = [
        Route("/", lambda request: HTMLResponse(PAGE), methods=["GET", "HEAD"]),
        Route("/streamed", lambda request: StreamingResponse(chunks(), media_type="text/html")),
        Route("/app.js", lambda request: Response(b"let a = '</head>';", media_type="application/javascript")),
        Route("/gone", lambda request: HTMLResponse(PAGE, status_code=404)),
    ]
    return TestClient(HistoryDefaultPages(Starlette(routes=routes), SCRIPT))


def test_an_html_page_gets_the_script_once_before_its_head_ends_with_its_length():
    client = _client()
    for path in ("/", "/streamed"):
        response = client.get(path)
        assert response.content == PAGE.replace(b"</head>", SCRIPT + b"</head>")
        assert response.headers["content-length"] == str(len(response.content))


def test_everything_else_passes_as_it_is():
    client = _client()
    assert client.get("/app.js").content == b"let a = '</head>';"
    assert client.get("/gone").content == PAGE
    head = client.head("/")
    assert head.status_code == 200 and head.content == b""
    assert with_script(b"<p>no head</p>", SCRIPT) == b"<p>no head</p>"


# ---- LightRAG's server ------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    require_server_deps()
    with fake_llm_endpoint(kb_script) as llm:
        workdir: Path = tmp_path_factory.mktemp("webui-pages")
        with running_server("serve", [], server_env(llm.base_url, workdir), workdir) as running:
            yield running


def _served(server: RunningServer, path: str) -> bytes:
    import httpx

    response = httpx.get(f"{server.base_url}{path}", timeout=30)
    assert response.status_code == 200, path
    return response.content


@pytest.mark.server
@pytest.mark.parametrize(("entry", "page"), [("/webui/", "index.html"), ("/workspace/", "workspace.html")])
def test_both_ui_pages_carry_the_script_and_every_asset_is_lightrags_byte_for_byte(
    server: RunningServer, folder: Path, entry: str, page: str
):
    html = _served(server, entry)
    script = webui_script(ResolverConfig())
    assert html.count(script) == 1 and html.index(script) == html.index(b"</head>") - len(script)
    lightrags = html.replace(script, b"")
    assert b"window.__LIGHTRAG_CONFIG__" in lightrags  # LightRAG's own runtime configuration, as it injects it
    on_disk = (folder / page).read_bytes()
    assert lightrags.split(b"</head>")[1] == on_disk.split(b"</head>")[1]
    assets = re.findall(rb'(?:src|href)="\./(assets/[^"]+)"', on_disk)
    assert assets
    for asset in assets:
        assert _served(server, f"{entry}{asset.decode()}") == (folder / asset.decode()).read_bytes(), asset
