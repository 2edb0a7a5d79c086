"""The one LightRAG seam (``lightrag_resolve._lightrag.seam``): every internal listed and checked, nothing patched on import."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import lightrag.lightrag as lightrag_core
import pytest
from lightrag import LightRAG, QueryParam
from lightrag.query_validation import RAGQueryTooShortError
from lightrag.query_validation import validate_rag_query as lightrags_check

import lightrag_resolve
from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import LightRAGResolveError
from lightrag_resolve._lightrag.seam import CORE, PRIVATE_NAMES, SUPPORTED_LIGHTRAG, SeamError, check

PACKAGE = Path(lightrag_resolve.__file__).parent
ROOT = PACKAGE.parent

LISTED = (
    "_ESTIMATE_TOKENIZER",
    "_RoleLLMState",
    "_build_global_config",
    "_get_effective_role_llm_kwargs",
    "_get_vector_context",
    "_owning_loop",
    "_role_llm_states",
    "_run_sync",
    "_validate_ollama_rag_query",
)
"""Every underscore-prefixed LightRAG name the library uses or relies on; a change here is a change of the seam."""

OVERRIDES: set[str] = set()
"""LightRAG internals used outside ``_lightrag/seam.py``: none (the ``_build_global_config`` override lives there)."""


def _run(script: str, tmp_path: Path) -> dict:
    """Run ``script`` in a fresh interpreter on this checkout; its last line of output is a JSON report."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmp_path,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


_BUILD = """
    import json, threading, time, uuid
    import lightrag.lightrag as core
    import lightrag.operate as operate
    from lightrag.query_validation import validate_rag_query as lightrags
    lightrags_search = operate._get_vector_context
    from fakes import ScriptedLLM, hashed_trigram_embedding, offline_tokenizer

    def build():
        from lightrag_resolve import ResolvingLightRAG

        return ResolvingLightRAG(working_dir=uuid.uuid4().hex, llm_model_func=ScriptedLLM(),
                                 embedding_func=hashed_trigram_embedding(), tokenizer=offline_tokenizer())
"""


def test_importing_the_package_patches_nothing_and_the_first_instance_installs_once(tmp_path: Path):
    report = _run(
        _BUILD
        + """
    report = {}
    import lightrag_resolve
    from lightrag_resolve import ResolvingLightRAG, should_resolve
    import lightrag_resolve.demo, lightrag_resolve.server
    report["after_import"] = core.validate_rag_query is lightrags and operate._get_vector_context is lightrags_search
    build()
    report["after_first"] = (getattr(core.validate_rag_query, "__wrapped__", None) is lightrags
                             and getattr(operate._get_vector_context, "__wrapped__", None) is lightrags_search)
    build()
    report["after_second"] = (getattr(core.validate_rag_query, "__wrapped__", None) is lightrags
                              and getattr(operate._get_vector_context, "__wrapped__", None) is lightrags_search)
    print(json.dumps(report))
    """,
        tmp_path,
    )
    assert report == {"after_import": True, "after_first": True, "after_second": True}


def test_an_unsupported_lightrag_fails_at_construction_and_concurrent_installs_wrap_once(tmp_path: Path):
    report = _run(
        _BUILD
        + """
    from lightrag_resolve import LightRAGResolveError
    from lightrag_resolve._lightrag import seam as _lightrag_seam

    report = {}
    saved = core._run_sync
    del core._run_sync  # a LightRAG release that renamed it
    try:
        build()
    except LightRAGResolveError as exc:
        report["error"] = f"{type(exc).__name__}: {exc}"
    report["untouched"] = core.validate_rag_query is lightrags and operate._get_vector_context is lightrags_search
    core._run_sync = saved

    checked = _lightrag_seam.check
    def slow_check(internals):  # widens the window the install lock closes
        time.sleep(0.05)
        checked(internals)
    _lightrag_seam.check = slow_check
    threads = [threading.Thread(target=_lightrag_seam.install) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report["wrapped_once"] = (getattr(core.validate_rag_query, "__wrapped__", None) is lightrags
                              and getattr(operate._get_vector_context, "__wrapped__", None) is lightrags_search)
    print(json.dumps(report))
    """,
        tmp_path,
    )
    assert report["error"].startswith("SeamError: lightrag-resolve cannot fit this LightRAG")
    assert "lightrag.lightrag._run_sync is absent" in report["error"] and SUPPORTED_LIGHTRAG in report["error"]
    assert report["untouched"] is True and report["wrapped_once"] is True


async def test_a_plain_lightrag_still_rejects_b1_after_a_resolving_one_exists(make_rag):
    resolving = await make_rag(ScriptedLLM(replies={"keywords": keyword_json(["German B1"], ["German course"])}))
    assert lightrag_core.validate_rag_query is not lightrags_check  # the wrapper is installed in this process
    history = [{"role": "assistant", "content": "German from A1 to C1. Are you looking for A1 or B1?"}]
    param = QueryParam(mode="mix", conversation_history=history, enable_rerank=False)
    assert (await resolving.aquery_data("B1", param))["status"] == "success"
    plain = await make_rag(ScriptedLLM(), cls=LightRAG)
    with pytest.raises(RAGQueryTooShortError):
        await plain.aquery_data("B1", param)
    with pytest.raises(RAGQueryTooShortError):
        await plain.aquery("OK", param)


def test_the_installed_lightrag_fits():
    check(CORE)  # what the first ResolvingLightRAG checks; raises on an unsupported LightRAG


async def _reads_nothing(self, query, param=None):
    return {}


async def _reads_another_modules_global(self, query, param=None):
    return lightrags_check(query)  # named, but as this module's global: replacing LightRAG's would not reach it


@pytest.mark.parametrize("replacement", [_reads_nothing, _reads_another_modules_global])
def test_an_internal_no_longer_read_where_the_library_relies_on_it_is_refused(monkeypatch, replacement):
    monkeypatch.setattr(LightRAG, "aquery_data", replacement)
    with pytest.raises(SeamError, match="validate_rag_query is not read by LightRAG.aquery_data") as raised:
        check(CORE)
    assert SUPPORTED_LIGHTRAG in str(raised.value) and isinstance(raised.value, LightRAGResolveError)


def test_missing_internals_are_refused_together_with_the_supported_versions(monkeypatch):
    monkeypatch.delattr(lightrag_core, "_run_sync")
    monkeypatch.delattr(LightRAG, "_build_global_config")
    with pytest.raises(SeamError) as raised:
        check(CORE)
    message = str(raised.value)
    assert "lightrag.lightrag._run_sync is absent" in message
    assert "lightrag.lightrag.LightRAG._build_global_config is absent" in message
    assert message.endswith(f"Supported versions: {SUPPORTED_LIGHTRAG}.")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _lightrag_private_names_in_the_package() -> dict[str, set[str]]:
    """Underscore names the package reads that it does not define, or defines over LightRAG's: name -> files."""
    used: dict[str, set[str]] = {}
    defined: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        where = str(path.relative_to(PACKAGE))
        if _private(path.stem):  # the package's own private modules
            defined.setdefault(path.stem, set()).add(where)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names_used, names_defined = [], []
            if isinstance(node, ast.Attribute):
                (names_defined if isinstance(node.ctx, ast.Store) else names_used).append(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"getattr", "hasattr", "setattr", "delattr"}
            ):
                if (
                    len(node.args) > 1
                    and isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[1].value, str)
                ):
                    names_used.append(node.args[1].value)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("lightrag"):
                names_used += [alias.name for alias in node.names]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names_defined.append(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names_defined.append(node.id)
            elif isinstance(node, ast.alias) and node.asname:
                names_defined.append(node.asname)
            elif isinstance(node, ast.arg):
                names_defined.append(node.arg)
            for name in filter(_private, names_used):
                used.setdefault(name, set()).add(where)
            for name in filter(_private, names_defined):
                defined.setdefault(name, set()).add(where)
    lightrags = {name for name in {*used, *defined} if hasattr(LightRAG, name) or hasattr(lightrag_core, name)}
    found = {name for name in used if name not in defined} | lightrags
    return {name: used.get(name, set()) | defined.get(name, set()) for name in found}


def test_every_private_lightrag_name_the_package_uses_is_listed_and_lives_in_the_seam():
    assert PRIVATE_NAMES == LISTED
    found = _lightrag_private_names_in_the_package()
    assert set(found) - set(PRIVATE_NAMES) == set(), "a LightRAG internal not declared in _lightrag_seam.CORE/SERVER"
    assert {"_run_sync", "_owning_loop", "_role_llm_states", "_build_global_config"} <= set(found)  # the scan sees them
    outside = {name for name, files in found.items() if files - {"_lightrag/seam.py"}}
    assert outside == OVERRIDES
