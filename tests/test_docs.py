"""The documentation stays in the repository: every cited contract section exists, no path leaves the tree."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _contract_sections() -> set[str]:
    text = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    return set(re.findall(r"^#{2,3} §(\d+(?:\.\d+)?) ", text, flags=re.MULTILINE))


def test_the_contract_keeps_the_section_numbers_the_code_cites():
    sections = _contract_sections()
    assert {str(n) for n in range(1, 12)} | {"5.1", "5.2", "5.3"} <= sections
    cited: set[str] = set()
    for source in [
        *ROOT.glob("lightrag_resolve/**/*.py"),
        *ROOT.glob("tests/**/*.py"),
        *ROOT.glob("benchmarks/**/*.py"),
    ]:
        for match in re.finditer(r"contract §(\d+(?:\.\d+)?)((?: and §\d+(?:\.\d+)?)*)", source.read_text("utf-8")):
            cited.add(match.group(1))
            cited.update(re.findall(r"§(\d+(?:\.\d+)?)", match.group(2)))
    assert cited and cited <= sections


def test_no_code_cites_the_old_specification():
    for source in ROOT.glob("lightrag_resolve/**/*.py"):
        assert "SPEC" not in source.read_text(encoding="utf-8"), source


def test_no_page_points_outside_the_repository():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text, page
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            resolved = (page.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), (page, target)
            assert resolved.exists(), (page, target)


def test_the_architecture_map_names_modules_that_exist():
    package = ROOT / "lightrag_resolve"
    for doc in (ROOT / "docs" / "architecture.md", package / "__init__.py"):
        text = doc.read_text(encoding="utf-8")
        named = set(re.findall(r"`{1,2}(_[a-z_]+(?:[./][a-z_]+)*?)(?:\.py)?/?`", text))
        modules = {name for name in named if not name.startswith("__") and name != "_build_global_config"}
        assert modules, doc

        def exists(name: str) -> bool:
            """A path (``_decide/route.py``) exists whole; a dotted name (``_model.call.ask_model``) from its module."""
            if "/" in name:
                path = package / name
                return path.with_suffix(".py").exists() or path.is_dir()
            parts = name.split(".")
            return any(
                package.joinpath(*parts[:cut]).with_suffix(".py").exists() or package.joinpath(*parts[:cut]).is_dir()
                for cut in range(len(parts), 0, -1)
            )

        missing = {name for name in modules if not exists(name)}
        assert not missing, f"{doc.name} names modules that do not exist: {sorted(missing)}"


README_MAX_LINES = 200
"""The README fits a screen or two: the problem, the set-up commands, the snippet, one table; the rest is in docs/."""


def test_the_readme_stays_short_and_keeps_its_set_up_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES, "move detail into a docs/ page and link it"
    assert "make demo" in text and "make test" in text  # CI runs the README's test command first (.ci/run)
    assert "docs/guide.md" in text
