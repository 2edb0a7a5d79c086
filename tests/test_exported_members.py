"""The public surface is pinned: each namespace is exactly its sorted ``__all__``, and nothing else leaks."""

import types

import pytest

import lightrag_resolve
from lightrag_resolve import server

PUBLIC = [
    "Decision",
    "FallbackReason",
    "KeywordAnswer",
    "LLMFunc",
    "LightRAGResolveError",
    "Message",
    "OpenDomainResolver",
    "Prompt",
    "ReferenceAnswer",
    "RejectedReason",
    "Resolution",
    "ResolutionPath",
    "Resolved",
    "Resolver",
    "ResolverConfig",
    "ResolverTuning",
    "ResolvingLightRAG",
    "Retrieval",
    "Turn",
    "should_resolve",
]
"""Every public name of ``lightrag_resolve``; a change here is a change of the public API."""

SERVER = ["ENV_VARIABLES", "ResolverEnvError", "ServedModels", "get_application", "resolver_config_from_env"]

# Subpackages appear as attributes once imported; they are namespaces, not members.
SUBPACKAGES = {"cli", "demo", "eval", "local", "openai_compat", "sample", "server"}


def _public(namespace: types.ModuleType) -> set[str]:
    return {
        name
        for name, value in vars(namespace).items()
        if not name.startswith("_") and not (isinstance(value, types.ModuleType) and name in SUBPACKAGES)
    }


def test_the_package_exports_exactly_the_pinned_names():
    assert lightrag_resolve.__all__ == PUBLIC
    assert _public(lightrag_resolve) == set(PUBLIC)


def test_the_server_namespace_exports_exactly_the_pinned_names():
    assert server.__all__ == SERVER
    assert _public(server) == set(SERVER)


def test_public_names_are_the_library_own_objects():
    aliases = {"Decision", "FallbackReason", "RejectedReason", "ResolutionPath"}  # typing aliases have no module
    for name in PUBLIC:
        value = getattr(lightrag_resolve, name)
        assert value is not None
        if name not in aliases:
            assert value.__module__.startswith("lightrag_resolve."), name


def test_path_is_a_deprecated_alias_of_resolution_path():
    with pytest.warns(DeprecationWarning, match="ResolutionPath"):
        from lightrag_resolve import Path
    assert Path is lightrag_resolve.ResolutionPath
    assert "Path" not in lightrag_resolve.__all__
    with pytest.raises(AttributeError):
        lightrag_resolve.NoSuchName  # noqa: B018
