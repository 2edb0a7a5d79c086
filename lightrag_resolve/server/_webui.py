"""LightRAG's web UI sends its chat with each query: a served default for its ``history_turns`` setting.

LightRAG's web UI (1.5.7) sends ``conversation_history`` with a query only when
its persisted query setting ``history_turns`` is above 0, then the last
``history_turns`` user–assistant pairs of the chat on screen; the setting
defaults to 0 and the UI has no field for it. The server cannot rebuild that
chat itself: no request names a conversation, and the UI's "clear" never
reaches the server. So the UI is made to send it: each HTML page of the two
web UI mounts (``/webui/``, ``/workspace/``) gets one short script before
``</head>``, which runs before the UI starts and, in the browser's stored
query settings, raises ``history_turns`` (0 there) to ``turns`` (storing the UI's
own defaults with it where the browser has stored none). Nothing else is
changed: every other response, LightRAG's scripts and styles included, passes
as it is. What the script relies on in the UI is declared in ``_webui_bundle``.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from .._config import ResolverConfig
from ._webui_bundle import (
    LEGACY_SETTINGS_KEY,
    QUERY_SETTINGS_KEY,
    QUERY_SETTINGS_VERSION,
    check,
    query_settings_defaults,
    webui_folder,
)

__all__ = [
    "HISTORY_TURNS",
    "HistoryDefaultPages",
    "history_script",
    "history_turns",
    "serve_history_default",
    "webui_script",
    "with_script",
]

logger = logging.getLogger("lightrag_resolve")

Message = MutableMapping[str, Any]
ASGIApp = Callable[[Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]

HISTORY_TURNS = 3
"""User–assistant pairs the web UI sends: the number LightRAG's UI itself sends in ``bypass`` mode."""


def history_turns(config: ResolverConfig) -> int:
    """Pairs the web UI should send: ``HISTORY_TURNS``, or more when the resolvers read more messages."""
    return max(HISTORY_TURNS, math.ceil(config.history_messages / 2))


# Runs before the UI's bundle (a module script, so deferred): c is the JSON below. A stored
# history_turns of at least c.turns is kept; a stored state of another version, or an older build's
# envelope still holding query settings (which the UI moves on start), is left to the UI.
_SCRIPT = (
    "(function(c){try{var s=window.localStorage,r=s.getItem(c.key),v;"
    "if(r===null){var l=s.getItem(c.legacy);if(l!==null){var o=JSON.parse(l);"
    "if(o&&o.state&&o.state.querySettings)return}v={state:{querySettings:c.defaults},version:c.version}}"
    "else v=JSON.parse(r);var q=v&&v.state&&v.state.querySettings;"
    'if(!q||typeof q!=="object"||v.version!==c.version||q.history_turns>=c.turns)return;'
    "q.history_turns=c.turns;s.setItem(c.key,JSON.stringify(v))}catch(e){}})"
)


def history_script(defaults: dict[str, Any], turns: int) -> bytes:
    """The ``<script>`` element that defaults the UI's ``history_turns`` to ``turns`` in the browser."""
    settings = {
        "key": QUERY_SETTINGS_KEY,
        "version": QUERY_SETTINGS_VERSION,
        "legacy": LEGACY_SETTINGS_KEY,
        "defaults": {**defaults, "history_turns": 0},
        "turns": turns,
    }
    payload = json.dumps(settings, ensure_ascii=True).replace("</", "<\\/")
    return f"<script>/* lightrag-resolve: history_turns */{_SCRIPT}({payload});</script>".encode()


def webui_script(config: ResolverConfig) -> bytes | None:
    """The script for this LightRAG's web UI, checked against its bundle; ``None`` with the resolver off or no UI.

    Raises ``SeamError`` when the built UI lacks what the script relies on.
    """
    folder = webui_folder()
    if not config.enabled or folder is None:
        return None
    check(folder)
    return history_script(query_settings_defaults(folder), history_turns(config))


def with_script(html: bytes, script: bytes) -> bytes:
    """``html`` with ``script`` before its first ``</head>``; unchanged when it has none."""
    head_end = html.find(b"</head>")
    return html if head_end < 0 else html[:head_end] + script + html[head_end:]


def _is_html(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    return any(name.lower() == b"content-type" and value.startswith(b"text/html") for name, value in headers)


class HistoryDefaultPages:
    """A web UI mount whose HTML pages (``GET``, 200, ``text/html``) carry ``script``; all else passes as it is."""

    def __init__(self, app: ASGIApp, script: bytes) -> None:
        self.app = app
        self.script = script

    async def __call__(self, scope: Message, receive: Callable[[], Awaitable[Message]], send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        parts: list[bytes] = []

        async def send_page(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message.get("status") == 200:
                if _is_html(message.get("headers", [])):
                    held = message
                    return
            elif message["type"] == "http.response.body" and held is not None:
                parts.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = with_script(b"".join(parts), self.script)
                headers = [(name, value) for name, value in held["headers"] if name.lower() != b"content-length"]
                await send({**held, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, send_page)


def serve_history_default(app: Any, script: bytes, paths: Iterable[str]) -> list[str]:
    """Wrap ``app``'s mounts at ``paths`` (LightRAG's web UI entries) in ``HistoryDefaultPages``; the paths wrapped."""
    from starlette.routing import Mount

    wanted = set(paths)
    wrapped = []
    for route in app.routes:
        if isinstance(route, Mount) and route.path in wanted:
            route.app = HistoryDefaultPages(route.app, script)
            wrapped.append(route.path)
    if wrapped:
        logger.info("web UI (%s): each query sends the chat's last turns (history_turns default)", ", ".join(wrapped))
    return wrapped
