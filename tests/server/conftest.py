"""Server tests: ``tests/`` and this folder on ``sys.path`` for the fakes and the harness."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
for path in (str(HERE), str(HERE.parent)):
    if path not in sys.path:
        sys.path.insert(0, path)
