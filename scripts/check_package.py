"""Check the built wheel and sdist hold the whole package, its data included, at the version pyproject names.

``make package-check`` runs it on ``dist/`` after ``python -m build``. A file
of ``lightrag_resolve/`` missing from the wheel (a language record, the
sample's graph, ``py.typed``) would pass every test run from the checkout and
fail only for the people who install the wheel, so every source file of the
package is compared with the wheel's list, and the sdist must hold them too.
It also says whether the version was released (a dated CHANGELOG section) or
is what ``[Unreleased]`` describes. Exits 1 with what is missing::

    python scripts/check_package.py dist
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "lightrag_resolve"
SDIST_EXTRA = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md")


def source_files() -> set[str]:
    """Every file of the package in the checkout, as a path relative to the root (caches left out)."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / PACKAGE).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def project_version() -> str:
    """``[project] version`` of pyproject.toml (read without tomllib, which Python 3.10 lacks)."""
    match = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), flags=re.M)
    if match is None:
        raise SystemExit("check_package: pyproject.toml names no version")
    return match.group(1)


def one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    if len(found) != 1:
        raise SystemExit(f"check_package: expected one {pattern} in {folder}, found {[p.name for p in found]}")
    return found[0]


def release_note(version: str, changelog: str) -> str:
    """Whether ``version`` has a dated section in the changelog, or is the next release ``[Unreleased]`` describes."""
    if re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, flags=re.M):
        return f"{version} is a release: its CHANGELOG section is dated"
    if re.search(r"^## \[Unreleased\]$", changelog, flags=re.M):
        return f"{version} is not released yet: CHANGELOG's [Unreleased] section is what it will hold"
    raise SystemExit(f"check_package: CHANGELOG.md has neither a dated [{version}] section nor [Unreleased]")


def main(argv: list[str]) -> int:
    dist = Path(argv[1]) if len(argv) > 1 else ROOT / "dist"
    version = project_version()
    wheel = one(dist, f"lightrag_resolve-{version}-*.whl")
    sdist = one(dist, f"lightrag_resolve-{version}.tar.gz")
    expected = source_files()
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {name for name in archive.namelist() if name.startswith(f"{PACKAGE}/")}
    with tarfile.open(sdist) as archive:
        prefix = f"lightrag_resolve-{version}/"
        in_sdist = {name.removeprefix(prefix) for name in archive.getnames()}
    problems = [f"missing from the wheel: {name}" for name in sorted(expected - in_wheel)]
    problems += [f"missing from the sdist: {name}" for name in sorted((expected | set(SDIST_EXTRA)) - in_sdist)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    data = sorted(name for name in expected if not name.endswith(".py"))
    print(
        f"check_package: {wheel.name} and {sdist.name} hold all {len(expected)} package files ({len(data)} data files)"
    )
    print(f"check_package: {release_note(version, (ROOT / 'CHANGELOG.md').read_text(encoding='utf-8'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
