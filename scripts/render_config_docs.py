"""Write the configuration tables into the documents that show them, from ``ResolverConfig``'s field metadata.

The user's guide (docs/guide.md) and contract §8 show ``configuration_table()``, docs/serving.md shows
``environment_table()``, each between ``<!-- NAME -->`` and ``<!-- /NAME -->``
markers. ``tests/test_config_docs.py`` fails while a document differs from the
rendering; this script brings them in step::

    python scripts/render_config_docs.py
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from lightrag_resolve._config import configuration_table, environment_table

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS: dict[str, tuple[str, Callable[[], str]]] = {
    "docs/guide.md": ("configuration-table", configuration_table),
    "docs/contract.md": ("configuration-table", configuration_table),
    "docs/serving.md": ("environment-table", environment_table),
}


def rendered(text: str, marker: str, table: str) -> str:
    """``text`` with ``table`` between its ``marker`` comments; ``ValueError`` when the markers are missing."""
    pattern = re.compile(rf"(<!-- {marker} -->\n).*?(<!-- /{marker} -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no <!-- {marker} --> ... <!-- /{marker} --> markers")
    return pattern.sub(lambda match: f"{match.group(1)}{table}\n{match.group(2)}", text, count=1)


def main() -> int:
    for name, (marker, table) in DOCUMENTS.items():
        path = ROOT / name
        path.write_text(rendered(path.read_text(encoding="utf-8"), marker, table()), encoding="utf-8")
        print(f"{name}: {marker} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
