"""What the served history default relies on in LightRAG's built web UI: declared once, checked at start-up.

LightRAG's web UI (``lightrag/api/webui``: ``index.html`` served at ``/webui/``,
``workspace.html`` at ``/workspace/``, one minified bundle) sends a query's
``conversation_history`` only when its persisted query setting
``history_turns`` is above 0, and has no field to raise it. ``_webui`` defaults
that setting in the browser. Each piece of the bundle that default relies on is
declared here as a ``BundleText``, the way ``_lightrag.seam`` declares
LightRAG's Python internals, and ``check`` verifies them all before serving (a
``SeamError`` naming each missing piece). ``query_settings_defaults`` reads the
UI's own defaults for its query settings from the bundle: what a browser that
has stored none starts from.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._lightrag.seam import seam_error

__all__ = [
    "LEGACY_SETTINGS_KEY",
    "QUERY_SETTINGS_KEY",
    "QUERY_SETTINGS_VERSION",
    "WEBUI",
    "BundleText",
    "check",
    "parse_object_literal",
    "query_settings_defaults",
    "webui_folder",
]

QUERY_SETTINGS_KEY = "lightrag::query-settings-storage"
"""The ``localStorage`` key of the UI's persisted query settings (``WEBUI`` checks both of its halves)."""

QUERY_SETTINGS_VERSION = 1
"""The version of that persisted state: a stored state of this version is hydrated as it is, unmigrated."""

LEGACY_SETTINGS_KEY = "settings-storage"
"""An older build's single settings envelope; the UI itself moves the query settings it still holds to their key."""


@dataclass(frozen=True, kw_only=True)
class BundleText:
    """Text LightRAG's built web UI must hold for the served default to mean what it meant.

    ``files``: a glob under the web UI's folder; ``pattern``: a regular
    expression one of those files must match; ``why``: what the default relies on.
    """

    files: str
    pattern: str
    why: str


_JS = "assets/*.js"
_NAME = r"[\w$]+"
_DEFAULTS_STORE = rf"querySettings:\{{\.\.\.({_NAME})\}},updateQuerySettings:"

WEBUI: tuple[BundleText, ...] = (
    BundleText(
        files=_JS, pattern=rf"=>`lightrag::\$\{{{_NAME}\}}`", why="its persisted stores are named lightrag::<name>"
    ),
    BundleText(
        files=_JS,
        pattern=r"\(`query-settings-storage`\)",
        why="the query settings persist as lightrag::query-settings-storage",
    ),
    BundleText(
        files=_JS,
        pattern=rf"query-settings-storage version \$\{{{_NAME}\}} is newer than this build supports \(1\)",
        why="at version 1, which the UI hydrates without migrating it",
    ),
    BundleText(files=_JS, pattern=_DEFAULTS_STORE, why="the query settings start from one object of defaults"),
    BundleText(files=_JS, pattern=r"\.history_turns\|\|0", why="the query request reads history_turns"),
    BundleText(
        files=_JS,
        pattern=rf"conversation_history:{_NAME}>0\?{_NAME}\.filter\(",
        why="and sends the chat's last turns when it is above 0",
    ),
    BundleText(
        files=_JS,
        pattern=r"=`settings-storage`",
        why="an older build's settings envelope, whose query settings the UI moves to their own key",
    ),
    BundleText(files="index.html", pattern=r"</head>", why="the default's script goes in the page's head"),
)
"""Every piece of LightRAG's web UI the served history default relies on."""


def webui_folder() -> Path | None:
    """LightRAG's built web UI, where its server looks for it (``lightrag/api/webui``); ``None`` when not built."""
    spec = importlib.util.find_spec("lightrag.api")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        return None
    folder = Path(locations[0]) / "webui"
    return folder if (folder / "index.html").is_file() else None


def _texts(folder: Path, files: str) -> list[tuple[str, str]]:
    return [(path.name, path.read_text(encoding="utf-8", errors="replace")) for path in sorted(folder.glob(files))]


def check(folder: Path) -> None:
    """Raise ``SeamError``, naming every missing piece at once, unless the web UI in ``folder`` holds ``WEBUI``."""
    read: dict[str, list[tuple[str, str]]] = {}
    problems = []
    for piece in WEBUI:
        texts = read.setdefault(piece.files, _texts(folder, piece.files))
        if not any(re.search(piece.pattern, text) for _, text in texts):
            problems.append(f"its web UI ({piece.files}) lacks /{piece.pattern}/: {piece.why}")
    if problems:
        raise seam_error(problems)


_VALUE = r"`[^`$\\]*`|!0|!1|-?\d+(?:\.\d+)?(?:e\d+)?"
_ENTRY = rf"({_NAME}):({_VALUE})"
_LITERAL = re.compile(rf"\{{(?:{_NAME}:(?:{_VALUE})(?:,{_NAME}:(?:{_VALUE}))*)?\}}")


def _value(text: str) -> Any:
    if text.startswith("`"):
        return text[1:-1]
    if text in ("!0", "!1"):
        return text == "!0"
    number = float(text)
    return int(number) if number.is_integer() else number


def parse_object_literal(text: str) -> dict[str, Any] | None:
    """A minified JavaScript object of plain values as a dict, or ``None`` for anything else.

    Plain values: template strings without substitutions or escapes, numbers
    (``6e3``), and the minifier's booleans ``!0`` and ``!1``.
    """
    if _LITERAL.fullmatch(text) is None:
        return None
    return {match.group(1): _value(match.group(2)) for match in re.finditer(_ENTRY, text)}


def query_settings_defaults(folder: Path) -> dict[str, Any]:
    """The UI's own defaults for its query settings, read from its bundle; ``SeamError`` when they cannot be read.

    The store spreads one object of defaults into its initial state; that
    object, defined last before the store, must be plain values with
    ``history_turns`` 0.
    """
    for name, text in _texts(folder, _JS):
        store = re.search(_DEFAULTS_STORE, text)
        if store is None:
            continue
        variable = re.escape(store.group(1))
        definitions = re.findall(rf"(?<![\w$.]){variable}=(\{{[^{{}}]*\}})", text[: store.start()])
        defaults = parse_object_literal(definitions[-1]) if definitions else None
        if defaults is None or defaults.get("history_turns") != 0:
            raise seam_error([f"its web UI ({name}) has no plain defaults with history_turns 0 for its query settings"])
        return defaults
    raise seam_error([f"its web UI ({_JS}) lacks /{_DEFAULTS_STORE}/: the query settings' store"])
