"""Part assembly on tiny fake distributions: real dist-info folders on sys.path."""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path

import pytest

from lightrag_resolve.local import LocalModelError, ModelNotInstalledError, SplitGGUF, assemble_gguf, cache_dir
from lightrag_resolve.local._gguf import concatenate, locate_parts

PARTS = [b"GGUF" + b"a" * 6, b"b" * 7, b"c" * 3]
WHOLE = b"".join(PARTS)


def _install_fake_parts(site: Path, contents: list[bytes], *, prefix: str) -> SplitGGUF:
    """Lay out one installed distribution per part, as pip would."""
    parts = []
    for i, content in enumerate(contents, start=1):
        dist, module, part = f"{prefix}-part{i}", f"{prefix.replace('-', '_')}_part{i}", f"part{i:02d}.bin"
        data = site / module / "data"
        data.mkdir(parents=True)
        (data / part).write_bytes(content)
        info = site / f"{module}-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n")
        (info / "RECORD").write_text(f"{module}/data/{part},,\n{info.name}/METADATA,,\n")
        parts.append((dist, part))
    return SplitGGUF(
        name=f"{prefix}-model",
        filename=f"{prefix}.gguf",
        parts=tuple(parts),
        size=sum(map(len, contents)),
        sha256=hashlib.sha256(b"".join(contents)).hexdigest(),
    )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return site


def test_parts_are_found_in_order_and_concatenated(site: Path, tmp_path: Path) -> None:
    model = _install_fake_parts(site, PARTS, prefix="fake-gguf-a")
    assert [p.read_bytes() for p in locate_parts(model)] == PARTS
    path = assemble_gguf(model, directory=tmp_path / "cache")
    assert path == tmp_path / "cache" / "fake-gguf-a.gguf"
    assert path.read_bytes() == WHOLE
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_an_assembled_file_is_reused(site: Path, tmp_path: Path) -> None:
    model = _install_fake_parts(site, PARTS, prefix="fake-gguf-b")
    path = assemble_gguf(model, directory=tmp_path)
    mtime = path.stat().st_mtime_ns
    for part in locate_parts(model):
        part.unlink()  # a reuse must not even look at the parts
    assert assemble_gguf(model, directory=tmp_path) == path
    assert path.stat().st_mtime_ns == mtime


def test_a_cached_file_of_the_wrong_size_is_rebuilt(site: Path, tmp_path: Path) -> None:
    model = _install_fake_parts(site, PARTS, prefix="fake-gguf-c")
    (tmp_path / model.filename).write_bytes(WHOLE[:-1])
    assert assemble_gguf(model, directory=tmp_path).read_bytes() == WHOLE


def test_missing_parts_name_the_install_command(site: Path) -> None:
    model = _install_fake_parts(site, PARTS, prefix="fake-gguf-d")
    model = SplitGGUF(
        name=model.name,
        filename=model.filename,
        parts=model.parts + (("fake-gguf-d-part9", "part09.bin"),),
        size=model.size,
    )
    with pytest.raises(ModelNotInstalledError, match="fake-gguf-d-part9.*install-local.sh"):
        locate_parts(model)


def test_a_wrong_digest_leaves_nothing_behind(tmp_path: Path) -> None:
    parts = []
    for i, content in enumerate(PARTS):
        parts.append(tmp_path / f"p{i}")
        parts[-1].write_bytes(content)
    target = tmp_path / "out" / "model.gguf"
    with pytest.raises(LocalModelError, match="SHA-256"):
        concatenate(parts, target, size=len(WHOLE), sha256="0" * 64)
    assert list(target.parent.iterdir()) == []


def test_a_wrong_size_is_refused(tmp_path: Path) -> None:
    part = tmp_path / "p"
    part.write_bytes(WHOLE)
    with pytest.raises(LocalModelError, match="expected"):
        concatenate([part], tmp_path / "model.gguf", size=len(WHOLE) + 1)
    assert not (tmp_path / "model.gguf").exists()


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LIGHTRAG_RESOLVE_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path
    monkeypatch.delenv("LIGHTRAG_RESOLVE_CACHE")
    assert cache_dir() == Path.home() / ".cache" / "lightrag-resolve"


def test_no_module_of_the_part_packages_is_imported(site: Path, tmp_path: Path) -> None:
    model = _install_fake_parts(site, PARTS, prefix="fake-gguf-e")
    assemble_gguf(model, directory=tmp_path)
    assert not any(name.startswith("fake_gguf_e") for name in sys.modules)
