"""Start LightRAG's own server, or its gunicorn launcher, with resolution installed.

Both entry points read LightRAG's arguments from ``sys.argv`` and its
``.env`` from the working directory. The launcher loads that ``.env`` the way
LightRAG does (``override=False``, so real environment variables win), checks
the ``RESOLVER_*`` settings before paying for LightRAG's server imports, sets
``sys.argv`` for LightRAG to parse (``--help`` prints LightRAG's own help),
installs the seam, and hands over.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, Literal

from ._env import ResolverEnvError, resolver_config_from_env

__all__ = ["get_application", "launch"]

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
    from dotenv import load_dotenv

    load_dotenv(dotenv_path=".env", override=False)
    try:
        config = resolver_config_from_env(os.environ)
    except ResolverEnvError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    sys.argv = [prog, *argv]
    from lightrag.api.config import initialize_config

    initialize_config()  # parses sys.argv; exits on --help or a bad LightRAG argument
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


def get_application(args: Any = None) -> Any:
    """LightRAG's app factory (``lightrag_server.get_application``) with resolution installed.

    For launchers of your own; ``lightrag-resolve serve`` and ``serve-gunicorn``
    call the same install. Like LightRAG's factory, it reads LightRAG's
    arguments from ``sys.argv`` when ``args`` is ``None``.
    """
    from ._seam import install

    install(resolver_config_from_env(os.environ))
    from lightrag.api.lightrag_server import get_application as lightrag_application

    return lightrag_application(args)
