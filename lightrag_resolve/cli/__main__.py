"""``python -m lightrag_resolve.cli``."""

from . import main

raise SystemExit(main())
