"""``pip install 'lightrag-resolve[local]'`` alone runs the demo: nothing on its path imports the eval extra."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "lightrag_resolve"
DEMO_MODULES = [
    PACKAGE / "cli" / "demo.py",
    *sorted((PACKAGE / "demo").glob("*.py")),
    *sorted((PACKAGE / "local").glob("*.py")),
]


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the module's package
                package = path.relative_to(PACKAGE.parent).with_suffix("").parts[: -node.level]
                base = ".".join([*package, base] if base else package)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_no_demo_or_local_module_imports_the_eval_package():
    for path in DEMO_MODULES:
        leaked = {
            name
            for name in _imported(path)
            if name == "lightrag_resolve.eval" or name.startswith("lightrag_resolve.eval.")
        }
        assert not leaked, (path, leaked)


def test_the_demo_runs_with_the_eval_extra_unimportable(tmp_path):
    tests = Path(__file__).resolve().parents[1]
    script = textwrap.dedent(
        f"""
        import sys
        for blocked in ("lightrag_resolve.eval", "matplotlib", "tqdm"):
            sys.modules[blocked] = None  # an import of any of them now raises ImportError
        sys.path.insert(0, {str(tests)!r})
        from fakes import ScriptedLLM, hashed_trigram_embedding, keyword_json, offline_tokenizer
        from lightrag_resolve.cli import demo, main
        from lightrag_resolve.local import LocalModels

        llm = ScriptedLLM(replies={{"keywords": keyword_json(["Santé"], ["secteur santé"])}})
        models = LocalModels(llm=llm, embedding=hashed_trigram_embedding(), tokenizer=offline_tokenizer())
        demo._models = lambda args: models
        raise SystemExit(main(["demo", "--items", "en-short-01", "--cache-dir", {str(tmp_path)!r}]))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "en-short-01" in done.stdout
