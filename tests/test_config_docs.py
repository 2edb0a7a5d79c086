"""The documents show the configuration exactly as ``ResolverConfig``'s field metadata renders it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _renderer():
    spec = importlib.util.spec_from_file_location("render_config_docs", ROOT / "scripts" / "render_config_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RENDERER = _renderer()


@pytest.mark.parametrize("name", sorted(RENDERER.DOCUMENTS))
def test_each_document_shows_the_rendered_table(name):
    marker, table = RENDERER.DOCUMENTS[name]
    text = (ROOT / name).read_text(encoding="utf-8")
    assert RENDERER.rendered(text, marker, table()) == text, f"run: python scripts/render_config_docs.py ({name})"


def test_a_document_without_markers_is_refused():
    with pytest.raises(ValueError, match="markers"):
        RENDERER.rendered("no table here", "configuration-table", "| a |")
