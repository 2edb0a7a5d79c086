"""The public names of ``lightrag_resolve.local`` are exactly its sorted ``__all__``."""

from __future__ import annotations

import lightrag_resolve.local as local


def test_all_is_sorted_and_importable() -> None:
    assert local.__all__ == sorted(local.__all__)
    for name in local.__all__:
        assert getattr(local, name) is not None


def test_every_public_name_is_exported() -> None:
    public = {name for name in vars(local) if not name.startswith("_")}
    assert public == set(local.__all__)
