"""Start LightRAG's own server, or its gunicorn launcher, with resolution installed.

Both entry points read LightRAG's arguments from ``sys.argv`` and its
``.env`` from the working directory, so the launcher sets ``sys.argv`` to the
caller's arguments, lets LightRAG parse them (``--help`` prints LightRAG's own
help), reads the ``RESOLVER_*`` settings, installs the seam, and hands over.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Literal

from ._env import ResolverEnvError, resolver_config_from_env

__all__ = ["launch"]

Entry = Literal["server", "gunicorn"]


def _describe(config: object) -> str:
    enabled = getattr(config, "enabled", True)
    if not enabled:
        return "resolver off (RESOLVER_ENABLED=false): LightRAG behaves as lightrag-server"
    model = getattr(config, "model_name", None) or "LightRAG's keyword-role LLM"
    return f"resolver on, model: {model}"


def launch(entry: Entry, argv: Sequence[str], prog: str) -> int:
    """Run ``lightrag-server`` (``entry="server"``) or ``lightrag-gunicorn`` with ``argv``.

    Returns 2, with the reason on stderr, when a ``RESOLVER_*`` variable is
    malformed or the installed LightRAG lacks the seam; otherwise what
    LightRAG's own entry point does (it exits the process on its own errors).
    """
    sys.argv = [prog, *argv]
    # Loads .env the way lightrag-server does, then parses argv (exits on --help).
    from lightrag.api.config import initialize_config

    initialize_config()
    try:
        config = resolver_config_from_env(os.environ)
    except ResolverEnvError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    from ._seam import SeamError, install

    try:
        install(config)
    except SeamError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    print(f"{prog}: {_describe(config)}", file=sys.stderr)
    if entry == "gunicorn":
        from lightrag.api.run_with_gunicorn import main
    else:
        from lightrag.api.lightrag_server import main
    main()
    return 0
