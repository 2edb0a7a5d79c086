"""The public names of ``lightrag_resolve.eval`` are sorted and all importable."""

from __future__ import annotations

import lightrag_resolve.eval as evaluation


def test_all_is_sorted_and_complete() -> None:
    assert evaluation.__all__ == sorted(evaluation.__all__)
    for name in evaluation.__all__:
        assert hasattr(evaluation, name), name


def test_the_harness_imports_only_the_public_api_of_the_library() -> None:
    import pathlib
    import re

    package = pathlib.Path(evaluation.__file__).parent
    for module in package.glob("*.py"):
        source = module.read_text(encoding="utf-8")
        for imported in re.findall(r"from lightrag_resolve(\.\w+)* import", source):
            assert imported in ("", ".local", ".openai_compat"), f"{module.name} imports lightrag_resolve{imported}"
        assert not re.search(r"from \.\.\w", source), f"{module.name} reaches into the core"
