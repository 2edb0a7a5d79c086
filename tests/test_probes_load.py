"""Every probe of ``benchmarks/probes/`` still loads against today's package.

A probe is run rarely, long after the code it imports last moved
(``fusion_probe.py`` imported ``seam`` from a module that no longer held it);
loading each one catches that. A probe whose optional dependency is not
installed here (the ``local`` extra's llama-cpp-python) is skipped, not failed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

PROBES = Path(__file__).resolve().parents[1] / "benchmarks" / "probes"


@pytest.mark.parametrize("path", sorted(PROBES.glob("*.py")), ids=lambda path: path.name)
def test_the_probe_loads(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PROBES))  # as when it is run: its siblings import by name
    spec = importlib.util.spec_from_file_location(f"probe_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as exc:
        if (exc.name or "").startswith("lightrag_resolve"):
            raise
        pytest.skip(f"{path.name} needs {exc.name}, not installed here")
    finally:
        for sibling in [
            name for name, loaded in sys.modules.items() if str(PROBES) in str(getattr(loaded, "__file__", ""))
        ]:
            sys.modules.pop(sibling, None)
